//! Squared error: `g = f − y`, `h = 1`. The reported loss is the mean
//! squared error.

use super::{weighted_mean, Pointwise};
use crate::error::{Result, SbError};

/// The largest |y| squared error takes: squared errors (the reported
/// training loss) of targets beyond it could overflow `f64`.
pub const MAX_ABS_TARGET: f64 = 1e150;

/// Least squares regression.
pub struct SquaredError;

impl Pointwise for SquaredError {
    fn check_targets(&self, y: &[f64]) -> Result<()> {
        match y.iter().position(|v| v.abs() > MAX_ABS_TARGET) {
            None => Ok(()),
            Some(i) => Err(SbError::InvalidInput(format!(
                "y contains {:?} (row {i}); squared error takes |y| <= {MAX_ABS_TARGET:e} \
                 (rescale y)",
                y[i]
            ))),
        }
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
