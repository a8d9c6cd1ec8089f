//! Binary log-loss on labels in {0, 1}; the raw score is the logit:
//! `p = σ(f)`, `g = p − y`, `h = max(p(1 − p), 1e-15)`.
//!
//! The floor on the hessian is LightGBM's `kEpsilon`: once |f| > 34.5,
//! `p(1 − p)` falls below it, and beyond |f| ≈ 37 it rounds to 0, so that a
//! single confidently wrong row would count `g²/h ≈ 1e16` in the A-GBM root
//! scale `Σ g²/h` one round and nothing the next. With the floor its share
//! is at most `1/1e-15` and changes smoothly with f.

use super::{weighted_mean, Pointwise};
use crate::error::{Result, SbError};
use crate::fast_math::ln_1p_unit;

/// Binary classification.
pub struct BinaryLogloss;

/// The smallest hessian of a row (times its weight); see the module docs.
pub const MIN_HESSIAN: f64 = 1e-15;

/// The logistic function.
#[inline]
pub fn sigmoid(f: f64) -> f64 {
    1.0 / (1.0 + (-f).exp())
}

impl Pointwise for BinaryLogloss {
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
        derivatives_from_exp(y, (-raw).exp())
    }

    #[inline]
    fn row_loss(&self, y: f64, raw: f64) -> f64 {
        loss_from_exp(y, raw, (-raw).exp())
    }

    /// One `exp` per row serves both (the trainer's fused pass, see
    /// [`super::Objective::gradients_and_loss`]): libm's, whose calls keep
    /// this first loop scalar; the loss's logarithm, in a second loop,
    /// vectorises.
    #[inline(always)]
    fn derivatives_and_losses(
        &self,
        y: &[f64],
        raw: &[f64],
        (g, h): (&mut [f64], &mut [f64]),
        l: &mut [f64],
    ) {
        for (i, (&t, &f)) in y.iter().zip(raw).enumerate() {
            let e = (-f).exp();
            (g[i], h[i]) = derivatives_from_exp(t, e);
            l[i] = e;
        }
        for ((l, &t), &f) in l.iter_mut().zip(y).zip(raw) {
            *l = loss_from_exp(t, f, *l);
        }
    }
}

/// The derivatives at a raw score f given `e = e^{−f}`: `p = σ(f)` as
/// [`sigmoid`] computes it.
#[inline(always)]
fn derivatives_from_exp(y: f64, e: f64) -> (f64, f64) {
    let p = 1.0 / (1.0 + e);
    (p - y, (p * (1.0 - p)).max(MIN_HESSIAN))
}

/// `log(1 + e^f) − y f = max(f, 0) + ln(1 + e^{−|f|}) − y f` (no overflow)
/// given `e = e^{−f}`: `e^{−|f|}` is `e` or `1/e` (`1/∞ = 0` below
/// f ≈ −709), and its `ln(1 + t)` vectorises (see [`crate::fast_math`]).
#[inline(always)]
fn loss_from_exp(y: f64, raw: f64, e: f64) -> f64 {
    let t = if raw >= 0.0 { e } else { 1.0 / e };
    raw.max(0.0) + ln_1p_unit(t) - y * raw
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gradient_matches_finite_difference() {
        let obj = BinaryLogloss;
        let eps = 1e-6;
        for (y, raw) in [(1.0, 0.3), (0.0, -1.2)] {
            let (g, _) = obj.derivatives(y, raw);
            let lo = obj.row_loss(y, raw - eps);
            let hi = obj.row_loss(y, raw + eps);
            assert!(((hi - lo) / (2.0 * eps) - g).abs() < 1e-6);
        }
        assert!(obj.check_targets(&[0.0, 2.0]).is_err());
    }

    #[test]
    fn the_hessian_has_a_floor_that_bounds_a_rows_share_of_the_root_scale() {
        for raw in [30.0, 36.0, 37.0, 40.0, 800.0] {
            let (g, h) = BinaryLogloss.derivatives(0.0, raw);
            assert!(h >= MIN_HESSIAN, "{raw}: {h}");
            assert!(g * g / h <= 1.0 / MIN_HESSIAN, "{raw}");
            let (_, h) = BinaryLogloss.derivatives(1.0, -raw);
            assert!(h >= MIN_HESSIAN);
        }
        let (g, h) = BinaryLogloss.derivatives(1.0, 0.0);
        assert_eq!((g, h), (-0.5, 0.25));
    }

    #[test]
    fn init_score_is_log_odds() {
        let s = BinaryLogloss.init_score(&[1.0, 1.0, 1.0, 0.0], None);
        assert!((s - 3f64.ln()).abs() < 1e-12);
    }
}
