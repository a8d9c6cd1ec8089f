//! Squared error: `g = f − y`, `h = 1`. The reported loss is the mean
//! squared error.

use super::{weighted_mean, Objective};
use crate::error::Result;

/// Least squares regression.
pub struct SquaredError;

impl Objective for SquaredError {
    fn check_targets(&self, _y: &[f64]) -> Result<()> {
        Ok(())
    }

    fn init_score(&self, y: &[f64], weights: Option<&[f64]>) -> f64 {
        weighted_mean(y, weights)
    }

    #[inline]
    fn derivatives(&self, y: f64, raw: f64) -> (f64, f64) {
        (raw - y, 1.0)
    }

    fn row_loss(&self, y: f64, raw: f64) -> f64 {
        (y - raw) * (y - raw)
    }
}
