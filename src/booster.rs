//! The boosting loop: bin once, then per round compute gradients, draw the
//! round's rows and features, grow a tree and update the training scores.

use crate::binning::{bin_matrix, BinnedData};
use crate::error::{Result, SbError};
use crate::grower::{GrownTree, TreeGrower};
use crate::model::Model;
use crate::objective::{objective_for, Objective};
use crate::params::{BoosterParams, PenaltyKind};
use crate::penalty::{FeatureSet, NewFeaturePenalty, NoPenalty, Penalty, Scale};
use crate::rng::Rng;
use rayon::prelude::*;

/// The training set: a row-major matrix `x` of shape (n_rows, n_features),
/// targets `y` (n_rows) and optional non-negative sample weights (n_rows).
#[derive(Debug, Clone, Copy)]
pub struct TrainingData<'a> {
    /// Row-major features, NaN for missing.
    pub x: &'a [f64],
    /// n.
    pub n_rows: usize,
    /// d.
    pub n_features: usize,
    /// Targets.
    pub y: &'a [f64],
    /// Sample weights, or `None` for all ones.
    pub weights: Option<&'a [f64]>,
}

impl TrainingData<'_> {
    /// Reject shapes and values no fit can use.
    pub fn validate(&self) -> Result<()> {
        let bad = |m: String| Err(SbError::InvalidInput(m));
        if self.n_rows == 0 {
            return bad("X has no rows".into());
        }
        if self.n_features == 0 {
            return bad("X has no features".into());
        }
        if self.x.len() != self.n_rows * self.n_features {
            return bad(format!(
                "X has {} values, expected {} x {}",
                self.x.len(),
                self.n_rows,
                self.n_features
            ));
        }
        if self.y.len() != self.n_rows {
            return bad(format!(
                "y has {} values but X has {} rows",
                self.y.len(),
                self.n_rows
            ));
        }
        if let Some(i) = self.y.iter().position(|v| !v.is_finite()) {
            return bad(format!(
                "y contains a non-finite value ({}) at row {i}",
                self.y[i]
            ));
        }
        if let Some(w) = self.weights {
            if w.len() != self.n_rows {
                return bad(format!(
                    "sample_weight has {} values but X has {} rows",
                    w.len(),
                    self.n_rows
                ));
            }
            if let Some(i) = w.iter().position(|v| !v.is_finite() || *v < 0.0) {
                return bad(format!(
                    "sample_weight must be finite and >= 0, got {} at row {i}",
                    w[i]
                ));
            }
            if w.iter().sum::<f64>() <= 0.0 {
                return bad("sample_weight sums to zero".into());
            }
        }
        Ok(())
    }
}

/// Fit a model. `should_stop` is called before every tree; when it returns
/// true the fit ends with [`SbError::Interrupted`].
///
/// Runs on a thread pool of `params.n_threads` threads (all cores for 0).
pub fn fit(
    data: &TrainingData,
    params: &BoosterParams,
    should_stop: &(dyn Fn() -> bool + Sync),
) -> Result<Model> {
    params.validate()?;
    data.validate()?;
    params.validate_for(data.n_features)?;
    let objective = objective_for(params.objective);
    objective.check_targets(data.y)?;
    thread_pool(params.n_threads)?
        .install(|| fit_in_pool(data, params, objective.as_ref(), should_stop))
}

/// A Rayon pool of `n_threads` threads (all cores for 0).
pub(crate) fn thread_pool(n_threads: usize) -> Result<rayon::ThreadPool> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(n_threads)
        .build()
        .map_err(|e| SbError::InvalidParameter(format!("cannot start {n_threads} threads: {e}")))
}

/// Bin the training matrix once, for every tree of the fit.
pub(crate) fn bin_training_data(data: &TrainingData, params: &BoosterParams) -> Result<BinnedData> {
    bin_matrix(
        data.x,
        data.n_rows,
        data.n_features,
        params.max_bins,
        params.bin_sample_rows,
        params.seed,
    )
}

fn fit_in_pool(
    data: &TrainingData,
    params: &BoosterParams,
    objective: &dyn Objective,
    should_stop: &(dyn Fn() -> bool + Sync),
) -> Result<Model> {
    let (n, d) = (data.n_rows, data.n_features);
    let binned = bin_training_data(data, params)?;
    let base_score = objective.init_score(data.y, data.weights);
    let mut model = ModelBuilder::new(Model::new(params.objective, d, base_score));
    let mut raw = vec![base_score; n];
    let mut grad = vec![0.0; n];
    let mut hess = vec![0.0; n];
    let mut grower = TreeGrower::new(&binned, params);
    let mut penalty = penalty_for(params, d);
    for round in 0..params.n_estimators {
        if should_stop() {
            return Err(SbError::Interrupted);
        }
        objective.gradients(data.y, &raw, data.weights, &mut grad, &mut hess);
        let mut rng = Rng::derive(params.seed, round as u64);
        let (rows, features) = draw_sample(&mut rng, n, d, params);
        let grown = grower.grow(&grad, &hess, rows, &features, penalty.as_mut());
        if grown.tree.nodes.len() == 1 {
            // No leaf can be split any more: later rounds would see the same
            // gradients (LightGBM stops here too).
            break;
        }
        update_scores(
            &mut raw,
            &grown,
            &binned,
            Population::All,
            params.subsample < 1.0,
        );
        let loss = objective.loss(data.y, &raw, data.weights);
        model.push(grown, loss);
    }
    Ok(model.finish(grower.group_testing_info()))
}

/// The penalty `params` ask for, over `d` features.
fn penalty_for(params: &BoosterParams, d: usize) -> Box<dyn Penalty> {
    let scale = match params.penalty {
        // Costs or max_features without μ: a gain-unit penalty with μ = 0.
        PenaltyKind::None if params.max_features.is_some() || params.feature_costs.is_some() => {
            Scale::Gain
        }
        PenaltyKind::None => return Box::new(NoPenalty),
        PenaltyKind::Gbfs => Scale::Gain,
        PenaltyKind::Agbm => Scale::RootScale,
    };
    let mu = if params.penalty == PenaltyKind::None {
        0.0
    } else {
        params.mu
    };
    let omega = match &params.feature_bags {
        Some(bags) => FeatureSet::new(bags, params.max_features),
        None => FeatureSet::singletons(d, params.max_features),
    };
    let costs = params.feature_costs.clone().unwrap_or_else(|| vec![0.0; d]);
    Box::new(NewFeaturePenalty::new(scale, mu, costs, omega))
}

/// A model being fitted, with the order in which features entered it.
pub(crate) struct ModelBuilder {
    model: Model,
    selection: SelectionRecord,
}

impl ModelBuilder {
    /// Start from a model without trees.
    pub(crate) fn new(model: Model) -> Self {
        let selection = SelectionRecord::new(model.n_features);
        ModelBuilder { model, selection }
    }

    /// Append a grown tree; `loss` is the mean training loss after it.
    pub(crate) fn push(&mut self, grown: GrownTree, loss: f64) {
        self.selection
            .record(self.model.trees.len(), &grown.split_features);
        self.model.trees.push(grown.tree);
        self.model.train_loss.push(loss);
        self.model
            .n_selected_after_tree
            .push(self.selection.features.len());
    }

    /// The fitted model with its selection report and, with group testing,
    /// the grower's `(number of subsets, prefix-cache bytes)`.
    pub(crate) fn finish(self, group_testing: Option<(usize, usize)>) -> Model {
        let mut model = self.model;
        model.selected_features = self.selection.features;
        model.feature_entry_tree = self.selection.entry_tree;
        if let Some((subsets, bytes)) = group_testing {
            model.gt_n_subsets = Some(subsets);
            model.gt_cache_bytes = Some(bytes);
        }
        model
    }
}

/// The order in which features entered the ensemble, and when.
struct SelectionRecord {
    used: Vec<bool>,
    features: Vec<usize>,
    entry_tree: Vec<usize>,
}

impl SelectionRecord {
    fn new(d: usize) -> Self {
        SelectionRecord {
            used: vec![false; d],
            features: Vec::new(),
            entry_tree: Vec::new(),
        }
    }

    /// Tree `tree` made splits on `split_features`, in this order.
    fn record(&mut self, tree: usize, split_features: &[usize]) {
        for &f in split_features {
            if !self.used[f] {
                self.used[f] = true;
                self.features.push(f);
                self.entry_tree.push(tree);
            }
        }
    }
}

/// One tree's rows (positions in `0..n`, ascending) and features (ascending,
/// in `0..d`), drawn from `rng` in this order.
pub(crate) fn draw_sample(
    rng: &mut Rng,
    n: usize,
    d: usize,
    params: &BoosterParams,
) -> (Vec<u32>, Vec<usize>) {
    let rows = draw_rows(rng, n, params.subsample);
    let features = draw_features(rng, d, params.colsample_bytree);
    (rows, features)
}

fn draw_rows(rng: &mut Rng, n: usize, fraction: f64) -> Vec<u32> {
    if fraction >= 1.0 {
        return (0..n as u32).collect();
    }
    let k = ((fraction * n as f64).round() as usize).clamp(1, n);
    rng.sample_sorted(n, k)
        .into_iter()
        .map(|r| r as u32)
        .collect()
}

fn draw_features(rng: &mut Rng, d: usize, fraction: f64) -> Vec<usize> {
    if fraction >= 1.0 {
        return (0..d).collect();
    }
    let k = ((fraction * d as f64).round() as usize).clamp(1, d);
    rng.sample_sorted(d, k)
}

/// The rows whose scores a tree updates: all rows of the data, or one
/// task's rows (ascending).
#[derive(Debug, Clone, Copy)]
pub(crate) enum Population<'a> {
    /// Every row of the data (a single-task fit).
    All,
    /// These rows only (one task of a multitask fit).
    Rows(&'a [u32]),
}

/// Add the new tree's output to the raw score of every row of `population`:
/// in-sample rows through their leaf, out-of-sample rows by traversal.
pub(crate) fn update_scores(
    raw: &mut [f64],
    grown: &GrownTree,
    binned: &BinnedData,
    population: Population,
    subsampled: bool,
) {
    if subsampled {
        let mut in_sample = vec![false; raw.len()];
        for &r in &grown.rows {
            in_sample[r as usize] = true;
        }
        match population {
            Population::All => {
                raw.par_iter_mut()
                    .enumerate()
                    .with_min_len(1024)
                    .for_each(|(r, s)| {
                        if !in_sample[r] {
                            *s += grown.tree.predict_binned(binned, r);
                        }
                    })
            }
            Population::Rows(rows) => {
                let outside: Vec<(usize, f64)> = rows
                    .par_iter()
                    .with_min_len(1024)
                    .map(|&r| r as usize)
                    .filter(|&r| !in_sample[r])
                    .map(|r| (r, grown.tree.predict_binned(binned, r)))
                    .collect();
                for (r, value) in outside {
                    raw[r] += value;
                }
            }
        }
    }
    for leaf in &grown.leaves {
        let value = grown.tree.nodes[leaf.node].value;
        for &r in &grown.rows[leaf.begin..leaf.begin + leaf.count] {
            raw[r as usize] += value;
        }
    }
}
