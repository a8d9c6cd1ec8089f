//! Squared error `(y − f)² / 2`: `g = f − y`, `h = 1`.

use super::{weight, weighted_mean, Objective};
use crate::error::Result;
use rayon::prelude::*;

/// Least squares regression.
pub struct SquaredError;

impl Objective for SquaredError {
    fn check_targets(&self, _y: &[f64]) -> Result<()> {
        Ok(())
    }

    fn init_score(&self, y: &[f64], weights: Option<&[f64]>) -> f64 {
        weighted_mean(y, weights)
    }

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
                let w = weight(weights, i);
                *g = w * (raw[i] - y[i]);
                *h = w;
            });
    }

    fn loss(&self, y: &[f64], raw: &[f64], weights: Option<&[f64]>) -> f64 {
        let sq: Vec<f64> = y.iter().zip(raw).map(|(a, b)| (a - b) * (a - b)).collect();
        weighted_mean(&sq, weights)
    }
}
