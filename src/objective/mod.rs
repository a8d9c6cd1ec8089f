//! Losses as gradient/hessian providers. One file per loss; the booster only
//! sees the [`Objective`] trait.

mod logloss;
mod squared_error;

pub use logloss::BinaryLogloss;
pub use squared_error::SquaredError;

use crate::error::Result;
use crate::params::ObjectiveKind;
use rayon::prelude::*;

/// A twice-differentiable loss `l(y, f)` of a raw score `f`. A loss defines
/// its per-row derivatives and value; weighting and the parallel loops over
/// rows are shared.
pub trait Objective: Sync {
    /// Reject targets the loss is not defined for.
    fn check_targets(&self, y: &[f64]) -> Result<()>;

    /// The constant raw score that minimises the weighted loss (the model's
    /// starting point, LightGBM's `boost_from_average`).
    fn init_score(&self, y: &[f64], weights: Option<&[f64]>) -> f64;

    /// `(∂l/∂f, ∂²l/∂f²)` of one row.
    fn derivatives(&self, y: f64, raw: f64) -> (f64, f64);

    /// `l(y, f)` of one row.
    fn row_loss(&self, y: f64, raw: f64) -> f64;

    /// Fill `grad[i] = w_i ∂l/∂f` and `hess[i] = w_i ∂²l/∂f²` at `raw[i]`.
    /// All slices have length n.
    fn gradients(
        &self,
        y: &[f64],
        raw: &[f64],
        weights: Option<&[f64]>,
        grad: &mut [f64],
        hess: &mut [f64],
    ) {
        grad.par_iter_mut()
            .zip(hess.par_iter_mut())
            .enumerate()
            .with_min_len(4096)
            .for_each(|(i, (g, h))| {
                let w = weights.map_or(1.0, |w| w[i]);
                let (dg, dh) = self.derivatives(y[i], raw[i]);
                *g = w * dg;
                *h = w * dh;
            });
    }

    /// Mean loss (weighted when `weights` is given), for reporting.
    fn loss(&self, y: &[f64], raw: &[f64], weights: Option<&[f64]>) -> f64 {
        let per_row: Vec<f64> = y
            .iter()
            .zip(raw)
            .map(|(&t, &f)| self.row_loss(t, f))
            .collect();
        weighted_mean(&per_row, weights)
    }
}

/// The implementation of `kind`.
pub fn objective_for(kind: ObjectiveKind) -> Box<dyn Objective> {
    match kind {
        ObjectiveKind::SquaredError => Box::new(SquaredError),
        ObjectiveKind::BinaryLogloss => Box::new(BinaryLogloss),
    }
}

/// Weighted mean of `v` (plain mean when `weights` is `None`).
pub(crate) fn weighted_mean(v: &[f64], weights: Option<&[f64]>) -> f64 {
    match weights {
        None => v.iter().sum::<f64>() / v.len() as f64,
        Some(w) => {
            let total: f64 = w.iter().sum();
            v.iter().zip(w).map(|(a, b)| a * b).sum::<f64>() / total
        }
    }
}
