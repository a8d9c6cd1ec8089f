//! μ_max: the smallest μ at which the first round of a fit admits no
//! feature, as glmnet's λ_max is the smallest λ that keeps every
//! coefficient at zero. With μ ≥ μ_max the first round grows no tree, the
//! gradients never change, and the model is its base score; a μ given
//! relative to μ_max (`mu_relative`) means the same at any data scale.
//!
//! Every feature is new at the first round's roots, so a split of gain `g`
//! on feature j pays while `g − S·(μ + c_j) > min_gain` (SPEC section 2),
//! that is while `μ < (g − min_gain)/S − c_j`. μ_max is the largest of
//! these over the features of every job of the first round, each job's
//! root on the rows and features its first tree draws. It is computed by
//! exhaustive search: with group testing the first root scans only its
//! candidates, so a μ just below μ_max may still grow nothing there.

use crate::params::{BoosterParams, PenaltyKind};
use crate::selection::Selection;
use crate::units::{ldexp, Units};

/// The largest μ at which one of a root's `candidates` (of root scale
/// `scale`) still beats `min_gain`: μ_max of one root.
pub(crate) fn of_root(
    selection: &Selection,
    min_gain: f64,
    scale: f64,
    candidates: &[crate::split::SplitCandidate],
) -> f64 {
    let mut mu_max = 0.0_f64;
    for split in candidates {
        if let Some(mu) = selection.break_even_mu(scale, split.feature, split.gain - min_gain) {
            mu_max = mu_max.max(mu);
        }
    }
    mu_max
}

/// μ_max in the user's units: GBFS's μ is a gain, A-GBM's a fraction of
/// the root scale (the same in any units).
pub(crate) fn in_user_units(mu_max: f64, params: &BoosterParams, units: &Units) -> f64 {
    match params.penalty {
        PenaltyKind::Gbfs => ldexp(mu_max, units.gain_exponent()),
        _ => mu_max,
    }
}
