//! The units a fit computes in.
//!
//! Squared-error targets and sample weights are divided by powers of two
//! so that the largest |y| and the largest weight lie in [0.5, 1) before
//! any gradient is computed. Scaling by a power of two is exact, so in the
//! range where nothing overflows or underflows the fit is bit for bit the
//! one in the user's units (every gain, hessian sum and threshold scales by
//! the same power of two); outside it the fit stays exact where the raw
//! arithmetic would not: `Σ g²` over n rows of targets near 1e154, or of
//! weights near 1e308, would overflow, and targets near 1e-160 would
//! underflow to gains of 0. Scaling y by any power of two therefore scales
//! the model's outputs by it and changes nothing else.
//!
//! Parameters in gain units (`min_gain`, GBFS's μ and costs) and in hessian
//! units (`min_child_weight`, `l2_regularization`) are converted once,
//! before the fit; the fitted leaf values, base score and training loss
//! are converted back. Split gains stay in the fit's units, with
//! [`Units::gain_exponent`] recorded in the model to convert them.

use crate::params::{BoosterParams, ObjectiveKind};

/// How a fit's internal units relate to the user's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct Units {
    /// Targets (squared error) are divided by `2^target_exponent`.
    target_exponent: i32,
    /// Weights are divided by `2^weight_exponent`.
    weight_exponent: i32,
}

impl Units {
    /// The units for these targets and weights (finite, weights ≥ 0).
    pub fn for_data(objective: ObjectiveKind, y: &[f64], weights: Option<&[f64]>) -> Units {
        let target_exponent = match objective {
            ObjectiveKind::SquaredError => exponent(y.iter().fold(0.0, |m: f64, v| m.max(v.abs()))),
            // Labels are classes or relevance grades and the raw scores
            // logits or ranking scores: no unit.
            ObjectiveKind::BinaryLogloss
            | ObjectiveKind::MultiLogloss
            | ObjectiveKind::LambdaRank => 0,
        };
        let weight_exponent =
            weights.map_or(0, |w| exponent(w.iter().fold(0.0, |m: f64, &v| m.max(v))));
        Units {
            target_exponent,
            weight_exponent,
        }
    }

    /// The targets in the fit's units.
    pub fn targets(&self, y: &[f64]) -> Vec<f64> {
        y.iter().map(|&v| ldexp(v, -self.target_exponent)).collect()
    }

    /// The weights in the fit's units.
    pub fn weights(&self, w: Option<&[f64]>) -> Option<Vec<f64>> {
        w.map(|w| w.iter().map(|&v| ldexp(v, -self.weight_exponent)).collect())
    }

    /// A gain (or a penalty in gain units) in the fit's units.
    pub fn gain(&self, value: f64) -> f64 {
        ldexp(value, -self.gain_exponent())
    }

    /// A gain of the fit in the user's units.
    pub fn gain_in_user_units(&self, value: f64) -> f64 {
        user_gain(value, self.gain_exponent())
    }

    /// A hessian sum in the fit's units.
    pub fn hessian(&self, value: f64) -> f64 {
        ldexp(value, -self.weight_exponent)
    }

    /// A raw score (leaf value, base score) in the user's units.
    pub fn output(&self, value: f64) -> f64 {
        ldexp(value, self.target_exponent)
    }

    /// A raw score in the user's units back in the fit's.
    pub fn from_output(&self, value: f64) -> f64 {
        ldexp(value, -self.target_exponent)
    }

    /// A mean loss in the user's units back in the fit's.
    pub fn from_loss(&self, value: f64) -> f64 {
        ldexp(value, -2 * self.target_exponent)
    }

    /// A mean loss in the user's units (weights cancel in a weighted mean).
    pub fn loss(&self, value: f64) -> f64 {
        ldexp(value, 2 * self.target_exponent)
    }

    /// A gain of the fit is `2^gain_exponent` gains in the user's units:
    /// gradients carry one power of the weights and of the targets, and a
    /// gain is `G²/H`.
    pub fn gain_exponent(&self) -> i32 {
        self.weight_exponent + 2 * self.target_exponent
    }

    /// `params` with the settings in gain and hessian units converted
    /// (μ and the costs are the penalty's, see `booster::penalty_for`).
    pub fn internal_params(&self, params: &BoosterParams) -> BoosterParams {
        BoosterParams {
            min_gain: self.gain(params.min_gain),
            min_child_weight: self.hessian(params.min_child_weight),
            l2_regularization: self.hessian(params.l2_regularization),
            ..params.clone()
        }
    }
}

/// `(m, k)` with `x = m · 2^k` and `|m|` in [0.5, 1), for finite non-zero x.
fn frexp(x: f64) -> (f64, i32) {
    let bits = x.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i32;
    if biased == 0 {
        // Subnormal: 2^64 · x is normal and exact.
        let (m, k) = frexp(x * f64::from_bits((64 + 1023) << 52));
        return (m, k - 64);
    }
    let m = f64::from_bits((bits & !(0x7ff << 52)) | (1022 << 52));
    (m, biased - 1022)
}

/// The `e` with `|v| / 2^e` in [0.5, 1); 0 for 0.
fn exponent(v: f64) -> i32 {
    if v == 0.0 || !v.is_finite() {
        0
    } else {
        frexp(v).1
    }
}

/// A gain of a fit whose gains are `2^gain_exponent` of the user's, in the
/// user's units, saturating at the largest `f64` (a sum of gains then never
/// becomes infinite).
pub fn user_gain(value: f64, gain_exponent: i32) -> f64 {
    ldexp(value, gain_exponent).min(f64::MAX)
}

/// `x · 2^e`, rounded once (exact whenever the result is a normal number);
/// 0 or ±∞ beyond the range of `f64`.
pub fn ldexp(x: f64, e: i32) -> f64 {
    if x == 0.0 || !x.is_finite() || e == 0 {
        return x;
    }
    let (m, k) = frexp(x);
    let t = k.saturating_add(e);
    if t > 1024 {
        return m.signum() * f64::INFINITY;
    }
    if t >= -1021 {
        // m's significand with a new exponent: exact.
        let bits = m.to_bits() & !(0x7ff << 52);
        return f64::from_bits(bits | (((t + 1022) as u64) << 52));
    }
    if t < -1074 {
        return m.signum() * 0.0;
    }
    // A subnormal result: one correctly rounded product by an exact power.
    m * f64::from_bits(1u64 << (t + 1074))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exponents_put_the_largest_value_in_half_to_one() {
        for v in [1.0, 0.75, 3.0, 1e300, 1e-300, 5e-324, f64::MAX] {
            let e = exponent(v);
            let scaled = ldexp(v, -e);
            assert!((0.5..1.0).contains(&scaled), "{v}: {scaled}");
        }
        assert_eq!(exponent(0.0), 0);
    }

    #[test]
    fn ldexp_is_exact_and_saturates() {
        assert_eq!(ldexp(3.0, 4), 48.0);
        assert_eq!(ldexp(5e-324, 1074), 1.0);
        assert_eq!(ldexp(1.0, -1074), 5e-324);
        assert_eq!(ldexp(f64::MAX, -1023), f64::MAX / 2f64.powi(1023));
        assert_eq!(ldexp(ldexp(f64::MAX, -1100), 1100), f64::MAX);
        assert_eq!(ldexp(1.5, 2000), f64::INFINITY);
        assert_eq!(ldexp(-1.5, -2000), -0.0);
        assert_eq!(ldexp(0.0, 5000), 0.0);
        let x = 0.123_456_789;
        assert_eq!(ldexp(ldexp(x, 900), -900), x);
        assert_eq!(ldexp(ldexp(x, -1000), 1000), x);
    }
}
