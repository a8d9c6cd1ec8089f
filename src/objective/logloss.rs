//! Binary log-loss on labels in {0, 1}; the raw score is the logit:
//! `p = σ(f)`, `g = p − y`, `h = p(1 − p)`.

use super::{weighted_mean, Objective};
use crate::error::{Result, SbError};

/// Binary classification.
pub struct BinaryLogloss;

/// The logistic function.
#[inline]
pub fn sigmoid(f: f64) -> f64 {
    1.0 / (1.0 + (-f).exp())
}

impl Objective for BinaryLogloss {
    fn check_targets(&self, y: &[f64]) -> Result<()> {
        match y.iter().find(|&&v| v != 0.0 && v != 1.0) {
            None => Ok(()),
            Some(v) => Err(SbError::InvalidInput(format!(
                "binary_logloss needs labels 0 or 1, found {v}"
            ))),
        }
    }

    fn init_score(&self, y: &[f64], weights: Option<&[f64]>) -> f64 {
        // Clipped so that a single-class y gives a large but finite logit.
        let p = weighted_mean(y, weights).clamp(1e-15, 1.0 - 1e-15);
        (p / (1.0 - p)).ln()
    }

    #[inline]
    fn derivatives(&self, y: f64, raw: f64) -> (f64, f64) {
        let p = sigmoid(raw);
        (p - y, p * (1.0 - p))
    }

    /// `log(1 + e^f) − y f`, computed without overflow.
    fn row_loss(&self, y: f64, raw: f64) -> f64 {
        raw.max(0.0) + (-raw.abs()).exp().ln_1p() - y * raw
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gradient_matches_finite_difference() {
        let obj = BinaryLogloss;
        let y = [1.0, 0.0];
        let raw = [0.3, -1.2];
        let mut g = [0.0; 2];
        let mut h = [0.0; 2];
        obj.gradients(&y, &raw, None, &mut g, &mut h);
        let eps = 1e-6;
        for i in 0..2 {
            let lo = obj.loss(&y[i..=i], &[raw[i] - eps], None);
            let hi = obj.loss(&y[i..=i], &[raw[i] + eps], None);
            assert!(((hi - lo) / (2.0 * eps) - g[i]).abs() < 1e-6);
        }
        assert!(obj.check_targets(&[0.0, 2.0]).is_err());
    }

    #[test]
    fn init_score_is_log_odds() {
        let s = BinaryLogloss.init_score(&[1.0, 1.0, 1.0, 0.0], None);
        assert!((s - 3f64.ln()).abs() < 1e-12);
    }
}
