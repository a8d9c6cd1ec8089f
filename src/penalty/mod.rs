//! New-feature penalties (SPEC section 2): a split on a feature outside Ω,
//! the set of features the ensemble already uses, must beat the best split
//! on used features by a penalty.
//!
//! A penalty is a rule with LightGBM-style hooks: `begin_tree` (the tree's
//! root scale) and `deduction` (what a candidate split pays, given Ω). It
//! keeps no record of Ω: that is [`crate::omega::Omega`], owned by the
//! trainer. A commit to Ω says which deductions changed, and the grower
//! re-scores the cached candidates of its open leaves on those features,
//! which is what LightGBM's bugs #3679 and #5317 got wrong.
//!
//! Scores stay in gain units: `score = gain − S·(μ + c_j)` for a feature
//! whose bag is not yet paid, `gain` otherwise. Dividing by `S` instead
//! (`gain/S − μ − c_j`, the SPEC's form) ranks candidates identically; gain
//! units keep `μ = 0` bit-identical to the plain engine.

mod feature_set;
mod multitask;
mod new_feature;

pub use feature_set::FeatureSet;
pub use multitask::MultiTaskPenalty;
pub use new_feature::{NewFeaturePenalty, Scale};

use crate::omega::OmegaView;

/// A rule that makes some candidate splits pay.
pub trait Penalty: Sync {
    /// A tree starts; `root_scale` is `Σ g²/h − G²/H` over its root rows.
    fn begin_tree(&mut self, root_scale: f64);

    /// What a split on `feature` pays, in gain units (≥ 0; `f64::INFINITY`
    /// forbids it), when the job sees Ω as `omega`.
    fn deduction(&self, omega: OmegaView<'_>, feature: usize) -> f64;

    /// True if job view `view` may ever split on `feature`.
    fn allows(&self, _view: usize, _feature: usize) -> bool {
        true
    }

    /// The μ at and above which a split of `net_gain` (its gain less
    /// `min_gain`) on `feature`, not yet paid for, at a root of
    /// `root_scale` no longer pays: its share of μ_max (see
    /// [`crate::mu_max`]). `None` for a rule without a single μ.
    fn break_even_mu(&self, _root_scale: f64, _feature: usize, _net_gain: f64) -> Option<f64> {
        None
    }

    /// Make each μ given as a multiple of μ_max (the rule knows which)
    /// that multiple. Rules without μ have nothing to resolve.
    fn resolve_relative_mu(&mut self, _mu_max: f64) {}
    /// Whether some μ is given relative to μ_max (so μ_max must be
    /// measured before the first tree).
    fn is_relative(&self) -> bool {
        false
    }
}

/// What a commit changed, so that the grower re-scores only what it must.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Changed {
    /// No deduction changed.
    Nothing,
    /// These features (a newly paid bag) became free; no other deduction
    /// changed, so a leaf's best can only switch to one of them.
    Freed(Vec<usize>),
    /// Any deduction may have changed (for example, `max_features` closed
    /// the door to new features).
    Everything,
}

/// No penalty: the plain engine.
pub struct NoPenalty;

impl Penalty for NoPenalty {
    fn begin_tree(&mut self, _root_scale: f64) {}

    fn deduction(&self, _omega: OmegaView<'_>, _feature: usize) -> f64 {
        0.0
    }
}
