//! The boosting loop: bin once, then per round compute gradients, draw the
//! round's rows and features, grow a tree and update the training scores.

use crate::binning::{bin_matrix, BinnedData};
use crate::error::{Result, SbError};
use crate::grower::{GrownTree, TreeGrower};
use crate::interrupt::{self, ShouldStop};
use crate::model::Model;
use crate::objective::{objective_for, Objective};
use crate::params::{BoosterParams, PenaltyKind};
use crate::penalty::{FeatureSet, NewFeaturePenalty, NoPenalty, Penalty, Scale};
use crate::rng::Rng;
use crate::threads;
use crate::units::Units;
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

/// The most rows a fit takes: rows are counted in `u32`.
pub const MAX_ROWS: usize = u32::MAX as usize;

/// The most features a fit (or a model file) may have: per-feature arrays
/// of a model (importances) stay below 128 MiB, and group-testing range
/// sums of up to 2²⁴ levels of 255 fit 32 bits.
pub const MAX_FEATURES: usize = 1 << 24;

impl TrainingData<'_> {
    /// Reject shapes and values no fit can use.
    pub fn validate(&self) -> Result<()> {
        let bad = |m: String| Err(SbError::InvalidInput(m));
        if self.n_rows == 0 {
            return bad("X has no rows".into());
        }
        if self.n_rows > MAX_ROWS {
            return bad(format!(
                "X has {} rows; at most {MAX_ROWS} (2^32 - 1) are supported",
                self.n_rows
            ));
        }
        if self.n_features == 0 {
            return bad("X has no features".into());
        }
        if self.n_features > MAX_FEATURES {
            return bad(format!(
                "X has {} features; at most {MAX_FEATURES} (2^24) are supported",
                self.n_features
            ));
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
                "y contains a non-finite value ({:?}) at row {i}",
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
                    "sample_weight must be finite and >= 0, got {:?} at row {i}",
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

/// Fit a model. `should_stop` is polled between trees, between the splits
/// of a tree and inside binning; when it returns true the fit ends with
/// [`SbError::Interrupted`].
///
/// Runs on the shared pool of `params.n_threads` threads (all available
/// cores for 0, capped at them; see [`crate::threads`]).
pub fn fit(data: &TrainingData, params: &BoosterParams, should_stop: &ShouldStop) -> Result<Model> {
    params.validate()?;
    data.validate()?;
    params.validate_for(data.n_features)?;
    let objective = objective_for(params.objective);
    objective.check_targets(data.y)?;
    threads::install(params.n_threads, || {
        fit_in_pool(data, params, objective.as_ref(), should_stop)
    })?
}

/// Bin the training matrix once, for every tree of the fit.
pub(crate) fn bin_training_data(
    data: &TrainingData,
    params: &BoosterParams,
    should_stop: &ShouldStop,
) -> Result<BinnedData> {
    bin_matrix(
        data.x,
        data.n_rows,
        data.n_features,
        params.max_bins,
        params.bin_sample_rows,
        params.seed,
        should_stop,
    )
}

fn fit_in_pool(
    data: &TrainingData,
    params: &BoosterParams,
    objective: &dyn Objective,
    should_stop: &ShouldStop,
) -> Result<Model> {
    let (n, d) = (data.n_rows, data.n_features);
    let units = Units::for_data(params.objective, data.y, data.weights);
    let (y, weights) = (units.targets(data.y), units.weights(data.weights));
    let internal = units.internal_params(params);
    let binned = bin_training_data(data, params, should_stop)?;
    let base_score = objective.init_score(&y, weights.as_deref());
    let mut model = ModelBuilder::new(Model::new(params.objective, d, base_score), params);
    let mut raw = vec![base_score; n];
    let mut grad = vec![0.0; n];
    let mut hess = vec![0.0; n];
    let mut grower = TreeGrower::new(&binned, &internal, should_stop)?;
    let mut penalty = penalty_for(params, d, &units);
    for round in 0..params.n_estimators {
        interrupt::check(should_stop)?;
        objective.gradients(&y, &raw, weights.as_deref(), &mut grad, &mut hess);
        let mut rng = Rng::derive(params.seed, round as u64);
        let (rows, features) = draw_sample(&mut rng, n, d, params);
        let grown = grower.grow(&grad, &hess, rows, &features, penalty.as_mut())?;
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
        let loss = objective.loss(&y, &raw, weights.as_deref());
        model.push(grown, loss)?;
    }
    model.finish(grower.group_testing_info(), &units)
}

/// The penalty `params` ask for, over `d` features; μ and the costs of a
/// penalty in gain units are converted to the fit's `units`.
fn penalty_for(params: &BoosterParams, d: usize, units: &Units) -> Box<dyn Penalty> {
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
    let (mu, costs) = match scale {
        Scale::Gain => (
            units.gain(mu),
            costs.iter().map(|&c| units.gain(c)).collect(),
        ),
        Scale::RootScale => (mu, costs),
    };
    Box::new(NewFeaturePenalty::new(scale, mu, costs, omega))
}

/// A model being fitted, in the fit's units until [`ModelBuilder::finish`].
pub(crate) struct ModelBuilder<'a> {
    model: Model,
    params: &'a BoosterParams,
}

impl<'a> ModelBuilder<'a> {
    /// Start from a model without trees, fitted with `params`.
    pub(crate) fn new(model: Model, params: &'a BoosterParams) -> Self {
        ModelBuilder { model, params }
    }

    /// Append a grown tree; `loss` is the mean training loss after it.
    /// Fails when a leaf value is not finite: the boosting diverged (a
    /// learning rate far above 1 makes each step overshoot further).
    pub(crate) fn push(&mut self, grown: GrownTree, loss: f64) -> Result<()> {
        let tree = self.model.trees.len();
        if grown.tree.nodes.iter().any(|n| !n.value.is_finite()) || !loss.is_finite() {
            return Err(SbError::InvalidParameter(format!(
                "the boosting diverged at tree {tree}: its leaf values overflow (learning_rate={:?} \
                 is too large for these targets; use a value in (0, 1])",
                self.params.learning_rate
            )));
        }
        self.model.trees.push(grown.tree);
        self.model.train_loss.push(loss);
        Ok(())
    }

    /// The fitted model in the user's units, with its selection report and,
    /// with group testing, the grower's `(number of subsets, prefix-cache
    /// bytes)`. Fails if its outputs could exceed the range of `f64`.
    pub(crate) fn finish(
        self,
        group_testing: Option<(usize, usize)>,
        units: &Units,
    ) -> Result<Model> {
        let mut model = self.model;
        model.base_score = units.output(model.base_score);
        for node in model.trees.iter_mut().flat_map(|t| &mut t.nodes) {
            node.value = units.output(node.value);
        }
        for loss in &mut model.train_loss {
            *loss = units.loss(*loss);
        }
        model.gain_exponent = units.gain_exponent();
        model.record_selection();
        if let Some((subsets, bytes)) = group_testing {
            model.gt_n_subsets = Some(subsets);
            model.gt_cache_bytes = Some(bytes);
        }
        if !model.output_bound().is_finite() {
            return Err(SbError::InvalidParameter(format!(
                "the fitted model's outputs could exceed the range of float64 (learning_rate={:?}); \
                 lower learning_rate or rescale y",
                self.params.learning_rate
            )));
        }
        Ok(model)
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
