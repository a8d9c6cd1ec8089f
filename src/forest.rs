//! Random forests (Breiman), with dynamic feature reweighting as an option
//! (Borisov, Eruhimov and Tuv; SPEC section 5): averaged trees, each grown
//! on a bootstrap sample with m features drawn at every node.
//!
//! The grower is the boosting engine's. A forest tree of output k is a
//! Newton tree at score 0 on the targets `y_k` (gradient `−c·w·y_k`,
//! hessian `c·w`, c the row's bootstrap count): its leaf value is the
//! weighted mean of `y_k` and a split's gain the weighted squared error it
//! removes. For regression that is scikit-learn's squared-error criterion.
//! For classes, `y_k` is the indicator of class k: with two classes one
//! tree on the 0/1 label, whose squared-error reduction is the Gini
//! decrease up to a factor 2, so the splits are scikit-learn's Gini
//! splits; with K > 2 classes, one such tree per class (one-vs-rest), as
//! the reweighting paper's K-class boosting does, since the grower grows
//! single-output trees. A bootstrap count is a row weight, so the grower's
//! rows stay unique and `min_samples_leaf` counts distinct rows.
//!
//! Leaf values carry a factor 1/T, so the model's raw output is the
//! average of its trees. Trees are grown in parallel when sampling is
//! uniform; with dynamic weights each tree's draws depend on the trees
//! before it, so they are grown in order (the paper notes this loss of
//! parallelism).

use crate::binning::{bin_features, BinnedData};
use crate::error::{Result, SbError};
use crate::feature_sampling::{DynamicWeights, Fading, FeatureCount, FeatureSampling};
use crate::grower::{GrownTree, LocalGrower, NodeSampling};
use crate::interrupt::{self, ShouldStop};
use crate::matrix::FeatureMatrix;
use crate::model::Model;
use crate::model_builder::ModelBuilder;
use crate::objective::weighted_mean;
use crate::params::{BoosterParams, ObjectiveKind};
use crate::rng::Rng;
use crate::scores::tree_values;
use crate::selection::Selection;
use crate::trainer::sampling_probabilities;
use crate::units::Units;
use ndarray::{Array2, ArrayView2};
use rayon::prelude::*;
use std::sync::Arc;

/// The settings of a forest.
#[derive(Debug, Clone)]
pub struct ForestParams {
    /// Trees (per output), ≥ 1.
    pub n_estimators: usize,
    /// Features drawn at each node.
    pub max_features: FeatureCount,
    /// Draw each tree's rows with replacement (else every row, once).
    pub bootstrap: bool,
    /// Maximum depth; `None` for no limit.
    pub max_depth: Option<usize>,
    /// Minimum distinct rows in a leaf, ≥ 1.
    pub min_samples_leaf: usize,
    /// Maximum leaves per tree; `None` for no limit.
    pub max_leaves: Option<usize>,
    /// Value bins per feature, in [2, 255].
    pub max_bins: usize,
    /// Uniform or dynamic feature weights.
    pub feature_sampling: FeatureSampling,
    /// a in `a · I₀ + Σ V` (≥ 0).
    pub reweight_rate: f64,
    /// Seed of every random choice.
    pub seed: u64,
    /// Worker threads; 0 means all cores.
    pub n_threads: usize,
    /// The categorical features (ascending; see [`crate::categorical`]).
    pub categorical_features: Vec<usize>,
}

impl Default for ForestParams {
    /// scikit-learn's forest defaults where they exist (100 trees, all
    /// features at each node, bootstrap, unlimited trees, one row per leaf).
    fn default() -> Self {
        ForestParams {
            n_estimators: 100,
            max_features: FeatureCount::Fraction(1.0),
            bootstrap: true,
            max_depth: None,
            min_samples_leaf: 1,
            max_leaves: None,
            max_bins: 255,
            feature_sampling: FeatureSampling::Uniform,
            reweight_rate: 5.0,
            seed: 0,
            n_threads: 0,
            categorical_features: Vec::new(),
        }
    }
}

/// A fitted forest.
#[derive(Debug, Clone)]
pub struct Forest {
    /// The averaged trees (raw output k: the mean of the trees of output k).
    pub model: Model,
    /// Out-of-bag predictions, (n, K): the mean over the trees whose
    /// bootstrap left the row out; NaN for a row no tree left out (and
    /// everywhere without bootstrap).
    pub oob: Array2<f64>,
}

impl ForestParams {
    fn validate(&self) -> Result<()> {
        let bad = |m: String| Err(SbError::InvalidParameter(m));
        if self.n_estimators == 0 {
            return bad("n_estimators must be >= 1".into());
        }
        if self.min_samples_leaf == 0 {
            return bad("min_samples_leaf must be >= 1".into());
        }
        if self.max_leaves.is_some_and(|k| k < 2) {
            return bad("max_leaf_nodes must be >= 2 or None".into());
        }
        if self.max_depth == Some(0) {
            return bad("max_depth must be >= 1 or None".into());
        }
        if !(self.reweight_rate.is_finite() && self.reweight_rate >= 0.0) {
            return bad(format!(
                "reweight_rate must be a finite number >= 0, got {:?}",
                self.reweight_rate
            ));
        }
        self.max_features.validate("max_features")
    }

    /// The engine settings of one forest tree.
    fn tree_params(&self) -> BoosterParams {
        BoosterParams {
            n_estimators: self.n_estimators,
            learning_rate: 1.0 / self.n_estimators as f64,
            max_leaves: self.max_leaves.unwrap_or(usize::MAX),
            max_depth: self.max_depth,
            min_samples_leaf: self.min_samples_leaf,
            min_child_weight: 0.0,
            max_bins: self.max_bins,
            seed: self.seed,
            n_threads: self.n_threads,
            categorical_features: self.categorical_features.clone(),
            ..BoosterParams::plain()
        }
    }
}

/// Fit a forest on `x` (n × d, dense or sparse) to the K rows of `targets`
/// (K × n: y, or class indicators), with optional row `weights`.
pub fn fit_forest(
    x: &FeatureMatrix,
    targets: ArrayView2<f64>,
    weights: Option<&[f64]>,
    params: &ForestParams,
    should_stop: &ShouldStop,
) -> Result<Forest> {
    params.validate()?;
    let (n, d) = (x.n_rows, x.n_features);
    crate::params::check_categorical(&params.categorical_features, d)?;
    let k = targets.nrows();
    if targets.ncols() != n || k == 0 || weights.is_some_and(|w| w.len() != n) {
        return Err(SbError::InvalidInput(format!(
            "targets of shape {:?} and weights do not match {n} rows",
            targets.shape()
        )));
    }
    if targets.iter().any(|v| !v.is_finite()) {
        return Err(SbError::InvalidInput("y must be finite".into()));
    }
    crate::threads::install(params.n_threads, || {
        let flat: Vec<f64> = targets.iter().copied().collect();
        let units = Units::for_data(ObjectiveKind::SquaredError, &flat, weights);
        let y = Array2::from_shape_vec((k, n), units.targets(&flat)).expect("K × n targets");
        let w = units.weights(weights);
        let booster = units.internal_params(&params.tree_params());
        let mut binned = bin_features(
            x,
            params.max_bins,
            booster.bin_sample_rows,
            params.seed,
            &params.categorical_features,
            should_stop,
        )?;
        binned.require_rows_per_leaf(params.min_samples_leaf);
        let features: Vec<usize> = (0..d).filter(|&f| binned.splittable[f]).collect();
        let m = params.max_features.of(features.len().max(1));
        let grow = |t: usize, node_weights: Option<Arc<Vec<f64>>>| -> Result<Member> {
            interrupt::check(should_stop)?;
            grow_member(
                t,
                &binned,
                y.view(),
                w.as_deref(),
                &features,
                m,
                node_weights,
                &booster,
                params,
                should_stop,
            )
        };
        let (members, weights) = match params.feature_sampling {
            FeatureSampling::Uniform => (
                (0..params.n_estimators)
                    .into_par_iter()
                    .map(|t| grow(t, None))
                    .collect::<Result<Vec<_>>>()?,
                None,
            ),
            FeatureSampling::Dynamic => {
                let mut dynamic = DynamicWeights::new(Fading::Forest, params.reweight_rate, m, d);
                let mut members = Vec::with_capacity(params.n_estimators);
                for t in 0..params.n_estimators {
                    let member = grow(t, dynamic.weights().map(Arc::new))?;
                    dynamic.observe(member.trees.iter().map(|g| (&g.tree, g.root_scale)));
                    members.push(member);
                }
                (members, dynamic.weights())
            }
        };
        let mut forest = assemble(
            members,
            &binned,
            y.view(),
            w.as_deref(),
            &booster,
            &units,
            d,
        )?;
        forest.model.feature_weights = sampling_probabilities(weights, d);
        Ok(forest)
    })?
}

/// The K trees of one forest member, and its bootstrap counts.
struct Member {
    trees: Vec<GrownTree>,
    counts: Vec<u32>,
}

/// Grow member `t`: its bootstrap sample, then one tree per output.
#[allow(clippy::too_many_arguments)]
fn grow_member(
    t: usize,
    binned: &BinnedData,
    y: ArrayView2<f64>,
    w: Option<&[f64]>,
    features: &[usize],
    m: usize,
    node_weights: Option<Arc<Vec<f64>>>,
    booster: &BoosterParams,
    params: &ForestParams,
    should_stop: &ShouldStop,
) -> Result<Member> {
    // Arbitrary odd constant: forest streams apart from boosting's.
    const FOREST: u64 = 0x666F_7265_7374_2121;
    let (n, k) = (binned.n_rows, y.nrows());
    let mut rng = Rng::derive(params.seed ^ FOREST, t as u64);
    let mut counts = vec![u32::from(!params.bootstrap); n];
    if params.bootstrap {
        for _ in 0..n {
            counts[rng.below(n)] += 1;
        }
    }
    // Rows of weight 0 hold no mass: they stay out, as out-of-bag rows do.
    let rows: Vec<u32> = (0..n as u32)
        .filter(|&r| counts[r as usize] > 0 && w.is_none_or(|w| w[r as usize] > 0.0))
        .collect();
    let hess: Vec<f64> = (0..n)
        .map(|r| f64::from(counts[r]) * w.map_or(1.0, |w| w[r]))
        .collect();
    let mut grower = LocalGrower::new(binned, booster, should_stop)?;
    let mut trees = Vec::with_capacity(k);
    for output in 0..k {
        let grad: Vec<f64> = (0..n).map(|r| -hess[r] * y[[output, r]]).collect();
        let seed = rng.next_u64();
        grower.sample_per_node(NodeSampling::new(m, node_weights.clone(), seed));
        let mut selection = Selection::unpenalised(binned.n_features);
        let mut grown =
            grower.tree(&grad, &hess, rows.clone(), features, &mut selection.view(0))?;
        grown.tree.output = output as u32;
        trees.push(grown);
    }
    Ok(Member { trees, counts })
}

/// The model (trees in member order, the training loss of the average so
/// far after each member) and the out-of-bag predictions.
fn assemble(
    members: Vec<Member>,
    binned: &BinnedData,
    y: ArrayView2<f64>,
    w: Option<&[f64]>,
    booster: &BoosterParams,
    units: &Units,
    d: usize,
) -> Result<Forest> {
    let (k, n) = (y.nrows(), y.ncols());
    let n_trees = members.len() as f64;
    let mut model = ModelBuilder::new(
        Model::new(ObjectiveKind::SquaredError, d, vec![0.0; k]),
        booster,
    );
    // Sums of the trees so far, and out-of-bag sums and counts.
    let mut sums = Array2::<f64>::zeros((k, n));
    let mut oob = Array2::<f64>::zeros((n, k));
    let mut oob_count = vec![0u32; n];
    for (t, member) in members.into_iter().enumerate() {
        for grown in member.trees {
            let output = grown.tree.output as usize;
            let values = tree_values(&grown, binned);
            for r in 0..n {
                sums[[output, r]] += values[r];
                if member.counts[r] == 0 {
                    oob[[r, output]] += values[r];
                }
            }
            model.push(grown, t)?;
        }
        oob_count
            .iter_mut()
            .zip(&member.counts)
            .for_each(|(c, &b)| *c += u32::from(b == 0));
        // The average of the first t + 1 trees: sums · T / (t + 1).
        let scale = n_trees / (t + 1) as f64;
        model.record_loss(|| {
            let per_row: Vec<f64> = (0..n)
                .map(|r| {
                    (0..k)
                        .map(|o| (y[[o, r]] - sums[[o, r]] * scale).powi(2))
                        .sum()
                })
                .collect();
            weighted_mean(&per_row, w)
        })?;
    }
    for (r, mut row) in oob.rows_mut().into_iter().enumerate() {
        let c = oob_count[r];
        row.mapv_inplace(|v| {
            if c == 0 {
                f64::NAN
            } else {
                units.output(v * n_trees / f64::from(c))
            }
        });
    }
    let model = model.finish(None, units)?;
    Ok(Forest { model, oob })
}
