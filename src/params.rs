//! Every parameter of a fit in one validated struct.
//!
//! Defaults follow LightGBM where the two overlap (31 leaves, 20 samples per
//! leaf, `min_child_weight = 1e-3`, 255 bins), so that "equal settings" in the
//! benchmarks means equal defaults too. The others are the Python
//! estimators' (A-GBM with μ = 0.01): a dict from Python fills in the rest
//! from here, and the tests compare the two (`engine_defaults`).

use crate::categorical::CategoricalParams;
use crate::error::{Result, SbError};
use crate::feature_sampling::{FeatureCount, FeatureSampling};
use crate::group_testing::cost::{DataShape, SearchCost};
use crate::metrics::Metric;
use serde::{Deserialize, Serialize};

/// The loss being minimised.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ObjectiveKind {
    /// Squared error, `(y - f)^2 / 2`.
    SquaredError,
    /// Binary log-loss on labels in {0, 1}; the raw score is a logit.
    BinaryLogloss,
    /// Multiclass log-loss (softmax) on class indices 0..K.
    MultiLogloss,
    /// LambdaRank for NDCG on graded relevance labels within queries.
    #[serde(rename = "lambdarank")]
    LambdaRank,
}

impl ObjectiveKind {
    /// The name used by the Python layer and the model file.
    pub fn name(self) -> &'static str {
        match self {
            ObjectiveKind::SquaredError => "squared_error",
            ObjectiveKind::BinaryLogloss => "binary_logloss",
            ObjectiveKind::MultiLogloss => "multi_logloss",
            ObjectiveKind::LambdaRank => "lambdarank",
        }
    }

    /// Parse the name used by the Python layer and the model file.
    pub fn parse(name: &str) -> Result<Self> {
        match name {
            "squared_error" => Ok(ObjectiveKind::SquaredError),
            "binary_logloss" => Ok(ObjectiveKind::BinaryLogloss),
            "multi_logloss" => Ok(ObjectiveKind::MultiLogloss),
            "lambdarank" => Ok(ObjectiveKind::LambdaRank),
            other => Err(SbError::InvalidParameter(format!(
                "objective must be 'squared_error', 'binary_logloss', 'multi_logloss' or \
                 'lambdarank', got '{other}'"
            ))),
        }
    }
}

/// Which new-feature penalty scores the splits (SPEC section 2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PenaltyKind {
    /// The plain engine.
    None,
    /// GBFS: `μ` (and the costs) in gain units.
    Gbfs,
    /// A-GBM: `μ` (and the costs) relative to the tree's root scale; μ ∈ [0, 1).
    Agbm,
}

impl PenaltyKind {
    /// The name used by the Python layer.
    pub fn name(self) -> &'static str {
        match self {
            PenaltyKind::None => "none",
            PenaltyKind::Gbfs => "gbfs",
            PenaltyKind::Agbm => "agbm",
        }
    }

    /// Parse "none", "gbfs" or "agbm".
    pub fn parse(name: &str) -> Result<Self> {
        match name {
            "none" => Ok(PenaltyKind::None),
            "gbfs" => Ok(PenaltyKind::Gbfs),
            "agbm" => Ok(PenaltyKind::Agbm),
            other => Err(SbError::InvalidParameter(format!(
                "penalty must be 'none', 'gbfs' or 'agbm', got '{other}'"
            ))),
        }
    }
}

/// How a node finds its split (SPEC sections 1 and 3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SplitSearch {
    /// Scan every feature's histogram.
    Exhaustive,
    /// GT-GBM: scan the used features Ω and the candidates that group tests
    /// over random feature subsets find.
    GroupTesting,
    /// Group testing where its estimated cost is below exhaustive search's
    /// (the rule of [`crate::group_testing::cost`]), exhaustive otherwise;
    /// resolved once per fit by [`SplitSearch::resolve`].
    Auto,
}

impl SplitSearch {
    /// The name used by the Python layer.
    pub fn name(self) -> &'static str {
        match self {
            SplitSearch::Exhaustive => "exhaustive",
            SplitSearch::GroupTesting => "group_testing",
            SplitSearch::Auto => "auto",
        }
    }

    /// Parse "exhaustive", "group_testing" or "auto".
    pub fn parse(name: &str) -> Result<Self> {
        match name {
            "exhaustive" => Ok(SplitSearch::Exhaustive),
            "group_testing" => Ok(SplitSearch::GroupTesting),
            "auto" => Ok(SplitSearch::Auto),
            other => Err(SbError::InvalidParameter(format!(
                "split_search must be 'exhaustive', 'group_testing' or 'auto', got '{other}'"
            ))),
        }
    }

    /// The search a fit of `params` on `data` runs: `Auto` decided by the
    /// cost rule (the one place it is decided), the others as they are.
    pub fn resolve(self, data: &DataShape, params: &BoosterParams) -> SplitSearch {
        match self {
            SplitSearch::Auto if SearchCost::estimate(data, params).prefers_group_testing() => {
                SplitSearch::GroupTesting
            }
            SplitSearch::Auto => SplitSearch::Exhaustive,
            chosen => chosen,
        }
    }
}

/// All settings of one boosting run.
#[derive(Debug, Clone, PartialEq)]
pub struct BoosterParams {
    /// The loss.
    pub objective: ObjectiveKind,
    /// `multi_logloss`: the number of classes K ≥ 2 (ignored otherwise).
    pub n_classes: usize,
    /// `lambdarank`: pairs whose better-ranked row is among the first this
    /// many of its query (LightGBM's `lambdarank_truncation_level`), ≥ 1.
    pub lambdarank_truncation_level: usize,
    /// Stop when the last metric of the last evaluation set has not
    /// improved for this many rounds, and keep the best round's trees.
    pub early_stopping_rounds: Option<usize>,
    /// The metrics evaluated on every evaluation set after each round
    /// (empty: the objective's own, see [`crate::trainer`]).
    pub eval_metrics: Vec<Metric>,
    /// Compute the mean training loss after every round and keep it in
    /// the model (`Model::train_loss`) and the round report. Off, a round
    /// skips that pass over the rows (and, distributed, its round trip).
    pub record_train_loss: bool,
    /// Number of boosting rounds (trees), ≥ 1.
    pub n_estimators: usize,
    /// Shrinkage applied to every leaf value, in (0, ∞).
    pub learning_rate: f64,
    /// Maximum leaves per tree, ≥ 2.
    pub max_leaves: usize,
    /// Maximum depth of a tree; `None` for unlimited.
    pub max_depth: Option<usize>,
    /// Minimum number of (sampled) rows in a leaf, ≥ 1.
    pub min_samples_leaf: usize,
    /// The papers' α in [0, 1): a node with fewer than `α·n` rows is not split.
    pub min_split_fraction: f64,
    /// Minimum hessian sum in a leaf (LightGBM's `min_sum_hessian_in_leaf`), ≥ 0.
    pub min_child_weight: f64,
    /// λ, the L2 penalty on leaf values, ≥ 0.
    pub l2_regularization: f64,
    /// A split is made only if its score exceeds this, ≥ 0.
    pub min_gain: f64,
    /// Number of value bins per feature, in [2, 255]; NaN has a bin of its own.
    pub max_bins: usize,
    /// Fraction of rows drawn (without replacement) for each tree, in (0, 1].
    pub subsample: f64,
    /// Features drawn for each tree: a fraction in (0, 1] or a count m.
    pub colsample_bytree: FeatureCount,
    /// How those features are drawn: uniformly, or by dynamic weights.
    pub feature_sampling: FeatureSampling,
    /// a, the rate of dynamic reweighting (≥ 0).
    pub reweight_rate: f64,
    /// Worker threads; 0 means all cores.
    pub n_threads: usize,
    /// Seed of every random choice of the fit.
    pub seed: u64,
    /// Rows sampled to find the bin thresholds (LightGBM's `bin_construct_sample_cnt`).
    pub bin_sample_rows: usize,
    /// The new-feature penalty.
    pub penalty: PenaltyKind,
    /// μ: what a feature outside Ω pays (see [`PenaltyKind`]); with
    /// `mu_relative`, a multiple of μ_max (see [`crate::mu_max`]).
    pub mu: f64,
    /// `mu` is relative to μ_max, the smallest μ at which the first round
    /// admits no feature (as glmnet's λ is given relative to λ_max).
    pub mu_relative: bool,
    /// Per-feature costs `c_j ≥ 0` added to μ (length d), if any.
    pub feature_costs: Option<Vec<f64>>,
    /// Bag label of each feature (length d), if any: a bag is paid for once.
    pub feature_bags: Option<Vec<usize>>,
    /// Stop admitting new features once this many are used (the
    /// estimators' `max_selected_features`, their feature budget).
    pub max_features: Option<usize>,
    /// How nodes find their split.
    pub split_search: SplitSearch,
    /// s, the number of relevant features group testing expects, ≥ 1
    /// (clipped to d).
    pub gt_n_features: usize,
    /// δ in (0, 1), the failure probability of group testing's theorem.
    pub gt_delta: f64,
    /// Group tests of a node with more rows use this many of them (evenly
    /// spaced); `None` for all rows. The chosen candidates are still
    /// scanned on all rows.
    pub gt_max_rows: Option<usize>,
    /// The categorical features (ascending): their values are category
    /// codes, split by sets (see [`crate::categorical`]).
    pub categorical_features: Vec<usize>,
    /// How their splits are searched.
    pub categorical: CategoricalParams,
}

impl Default for BoosterParams {
    fn default() -> Self {
        BoosterParams {
            objective: ObjectiveKind::SquaredError,
            n_classes: 2,
            lambdarank_truncation_level: 30,
            early_stopping_rounds: None,
            eval_metrics: Vec::new(),
            record_train_loss: false,
            n_estimators: 100,
            learning_rate: 0.1,
            max_leaves: 31,
            max_depth: None,
            min_samples_leaf: 20,
            min_split_fraction: 0.0,
            min_child_weight: 1e-3,
            l2_regularization: 0.0,
            min_gain: 0.0,
            max_bins: 255,
            subsample: 1.0,
            colsample_bytree: FeatureCount::Fraction(1.0),
            feature_sampling: FeatureSampling::Uniform,
            reweight_rate: 1.0,
            n_threads: 0,
            seed: 0,
            bin_sample_rows: 200_000,
            penalty: PenaltyKind::Agbm,
            mu: 0.01,
            mu_relative: false,
            feature_costs: None,
            feature_bags: None,
            max_features: None,
            split_search: SplitSearch::Exhaustive,
            gt_n_features: 10,
            gt_delta: 0.1,
            gt_max_rows: None,
            categorical_features: Vec::new(),
            categorical: CategoricalParams::default(),
        }
    }
}

impl BoosterParams {
    /// The plain engine (no new-feature penalty), every other setting at
    /// its default: the forests' trees, and the tests of the engine itself.
    pub fn plain() -> Self {
        BoosterParams {
            penalty: PenaltyKind::None,
            mu: 0.0,
            ..BoosterParams::default()
        }
    }
}

fn check(ok: bool, message: impl FnOnce() -> String) -> Result<()> {
    if ok {
        Ok(())
    } else {
        Err(SbError::InvalidParameter(message()))
    }
}

impl BoosterParams {
    /// Check every range once, before any work is done.
    pub fn validate(&self) -> Result<()> {
        let cat = &self.categorical;
        for (name, v) in [("cat_smooth", cat.cat_smooth), ("cat_l2", cat.cat_l2)] {
            check(v.is_finite() && v >= 0.0, || {
                format!("{name} must be a finite number >= 0, got {v:?}")
            })?;
        }
        for (name, v) in [
            ("max_cat_to_onehot", cat.max_cat_to_onehot),
            ("max_cat_threshold", cat.max_cat_threshold),
        ] {
            check(v >= 1, || format!("{name} must be >= 1, got {v}"))?;
        }
        check(self.n_estimators >= 1, || {
            format!("n_estimators must be >= 1, got {}", self.n_estimators)
        })?;
        check(
            self.learning_rate.is_finite() && self.learning_rate > 0.0,
            || {
                format!(
                    "learning_rate must be finite and > 0, got {:?}",
                    self.learning_rate
                )
            },
        )?;
        check(self.max_leaves >= 2, || {
            format!("max_leaves must be >= 2, got {}", self.max_leaves)
        })?;
        check(self.max_depth != Some(0), || {
            "max_depth must be >= 1 or None".to_string()
        })?;
        check(self.min_samples_leaf >= 1, || {
            format!(
                "min_samples_leaf must be >= 1, got {}",
                self.min_samples_leaf
            )
        })?;
        check((0.0..1.0).contains(&self.min_split_fraction), || {
            format!(
                "min_split_fraction must be in [0, 1), got {:?}",
                self.min_split_fraction
            )
        })?;
        for (name, value) in [
            ("min_child_weight", self.min_child_weight),
            ("l2_regularization", self.l2_regularization),
            ("min_gain", self.min_gain),
        ] {
            check(value.is_finite() && value >= 0.0, || {
                format!("{name} must be a finite number >= 0, got {value:?}")
            })?;
        }
        check((2..=255).contains(&self.max_bins), || {
            format!("max_bins must be in [2, 255], got {}", self.max_bins)
        })?;
        check(self.subsample > 0.0 && self.subsample <= 1.0, || {
            format!("subsample must be in (0, 1], got {:?}", self.subsample)
        })?;
        self.colsample_bytree.validate("colsample_bytree")?;
        check(
            self.reweight_rate.is_finite() && self.reweight_rate >= 0.0,
            || {
                format!(
                    "reweight_rate must be a finite number >= 0, got {:?}",
                    self.reweight_rate
                )
            },
        )?;
        check(self.bin_sample_rows >= 1, || {
            "bin_sample_rows must be >= 1".to_string()
        })?;
        match self.penalty {
            _ if self.mu_relative => check(self.mu.is_finite() && self.mu >= 0.0, || {
                format!(
                    "mu relative to mu_max must be a finite number >= 0, got {:?}",
                    self.mu
                )
            })?,
            PenaltyKind::Agbm => check((0.0..1.0).contains(&self.mu), || {
                format!("mu must be in [0, 1) for penalty 'agbm', got {:?}", self.mu)
            })?,
            _ => check(self.mu.is_finite() && self.mu >= 0.0, || {
                format!("mu must be a finite number >= 0, got {:?}", self.mu)
            })?,
        }
        if let Some(costs) = &self.feature_costs {
            check(costs.iter().all(|c| c.is_finite() && *c >= 0.0), || {
                "feature_costs must be finite numbers >= 0".to_string()
            })?;
        }
        check(self.max_features != Some(0), || {
            "max_selected_features must be >= 1 or None".to_string()
        })?;
        check(self.gt_n_features >= 1, || {
            format!("gt_n_features must be >= 1, got {}", self.gt_n_features)
        })?;
        check(self.gt_delta > 0.0 && self.gt_delta < 1.0, || {
            format!("gt_delta must be in (0, 1), got {:?}", self.gt_delta)
        })?;
        check(
            self.objective != ObjectiveKind::MultiLogloss
                || (2..=crate::model::MAX_OUTPUTS).contains(&self.n_classes),
            || {
                format!(
                    "n_classes must be in [2, {}] for multi_logloss, got {}",
                    crate::model::MAX_OUTPUTS,
                    self.n_classes
                )
            },
        )?;
        check(self.lambdarank_truncation_level >= 1, || {
            "lambdarank_truncation_level must be >= 1".to_string()
        })?;
        check(self.early_stopping_rounds != Some(0), || {
            "early_stopping_rounds must be >= 1 or None".to_string()
        })?;
        check(self.gt_max_rows.is_none_or(|k| k >= 2), || {
            "gt_max_rows must be >= 2 or None".to_string()
        })?;
        Ok(())
    }

    /// Check the per-feature settings against the number of features.
    pub fn validate_for(&self, n_features: usize) -> Result<()> {
        check_categorical(&self.categorical_features, n_features)?;
        for (name, len) in [
            ("feature_costs", self.feature_costs.as_ref().map(Vec::len)),
            ("feature_bags", self.feature_bags.as_ref().map(Vec::len)),
        ] {
            if let Some(len) = len {
                check(len == n_features, || {
                    format!("{name} has {len} entries but X has {n_features} features")
                })?;
            }
        }
        Ok(())
    }
}

/// `categorical_features` must be ascending features of X.
pub(crate) fn check_categorical(features: &[usize], n_features: usize) -> Result<()> {
    check(features.windows(2).all(|w| w[0] < w[1]), || {
        format!("categorical_features must be ascending and distinct, got {features:?}")
    })?;
    match features.last() {
        Some(&f) if f >= n_features => check(false, || {
            format!("categorical_features has feature {f}, but X has {n_features} features")
        }),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid() {
        BoosterParams::default().validate().unwrap();
        BoosterParams::plain().validate().unwrap();
    }

    #[test]
    fn the_plain_engine_differs_from_the_defaults_only_in_the_penalty() {
        let plain = BoosterParams::plain();
        assert_eq!((plain.penalty, plain.mu), (PenaltyKind::None, 0.0));
        let penalised = BoosterParams {
            penalty: PenaltyKind::Agbm,
            mu: 0.01,
            ..plain
        };
        assert_eq!(penalised, BoosterParams::default());
    }

    #[test]
    fn out_of_range_values_are_named() {
        let p = BoosterParams {
            learning_rate: -1.0,
            ..Default::default()
        };
        let e = p.validate().unwrap_err().to_string();
        assert!(e.contains("learning_rate"), "{e}");
        let p = BoosterParams {
            max_bins: 256,
            ..Default::default()
        };
        assert!(p.validate().unwrap_err().to_string().contains("max_bins"));
        let p = BoosterParams {
            subsample: 0.0,
            ..Default::default()
        };
        assert!(p.validate().unwrap_err().to_string().contains("subsample"));
        assert!(ObjectiveKind::parse("poisson").is_err());
    }
}
