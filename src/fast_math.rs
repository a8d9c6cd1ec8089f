//! Branch-free `exp` and `ln(1 + t)` that the compiler vectorises, for the
//! reported training loss, which is computed over every row after every
//! round. libm's `exp` and `log1p` are scalar calls; these are a few
//! multiplications and additions on several rows at once (no `mul_add`:
//! without the FMA target feature it is a libm call). They agree with libm
//! to a few units in the last place (tested below), which a reported mean
//! loss does not see; gradients, which decide the trees, keep libm's.

/// `e^x` for `x ≤ 0` (arguments below −708 give 0 within 1e-307).
#[inline(always)]
pub fn exp_nonpositive(x: f64) -> f64 {
    const LN2_HI: f64 = 0.693_147_180_369_123_8;
    const LN2_LO: f64 = 1.908_214_929_270_587_7e-10;
    // 1.5 · 2⁵²: adding it rounds to an integer (in its low bits), without
    // `round` (a libm call before SSE4.1) or a float-to-int conversion
    // (scalar only before AVX-512).
    const SHIFT: f64 = 6_755_399_441_055_744.0;
    let x = x.max(-708.0);
    // x = k ln 2 + r, |r| ≤ ln 2 / 2.
    let shifted = x * std::f64::consts::LOG2_E + SHIFT;
    let k = shifted - SHIFT;
    let k_int = shifted.to_bits() as i64 - SHIFT.to_bits() as i64;
    let r = (x - k * LN2_HI) - k * LN2_LO;
    // e^r by its Taylor series to r¹³ (|r|¹⁴/14! < 2e-19), in Estrin's
    // scheme: short dependency chains, so that rows overlap.
    const C: [f64; 14] = [
        1.0,
        1.0,
        1.0 / 2.0,
        1.0 / 6.0,
        1.0 / 24.0,
        1.0 / 120.0,
        1.0 / 720.0,
        1.0 / 5_040.0,
        1.0 / 40_320.0,
        1.0 / 362_880.0,
        1.0 / 3_628_800.0,
        1.0 / 39_916_800.0,
        1.0 / 479_001_600.0,
        1.0 / 6_227_020_800.0,
    ];
    let (r2, r4) = (r * r, r * r * r * r);
    let r8 = r4 * r4;
    let pair = |k: usize| C[k] + C[k + 1] * r;
    let low = (pair(0) + pair(2) * r2) + (pair(4) + pair(6) * r2) * r4;
    let high = (pair(8) + pair(10) * r2) + pair(12) * r4;
    let p = low + high * r8;
    // 2^k as bits: k ≥ −1022 after the clamp above.
    p * f64::from_bits(((k_int + 1023) as u64) << 52)
}

/// `ln(1 + t)` for `0 ≤ t ≤ 1`: `k ln 2 + 2 atanh(s)` with
/// `s = (m − 1)/(m + 1)`, `1 + t = 2^k m`, `m` within `[√½, √2]` (so
/// `s² ≤ 0.03`), and `s` computed from `t` without cancellation.
#[inline(always)]
pub fn ln_1p_unit(t: f64) -> f64 {
    let halve = t > std::f64::consts::SQRT_2 - 1.0;
    let s = if halve {
        (t - 1.0) / (t + 3.0)
    } else {
        t / (2.0 + t)
    };
    let (s2, s4) = (s * s, s * s * s * s);
    let s8 = s4 * s4;
    // atanh(s)/s = Σ s^2k / (2k + 1) to s²², in Estrin's scheme.
    const C: [f64; 13] = [
        1.0,
        1.0 / 3.0,
        1.0 / 5.0,
        1.0 / 7.0,
        1.0 / 9.0,
        1.0 / 11.0,
        1.0 / 13.0,
        1.0 / 15.0,
        1.0 / 17.0,
        1.0 / 19.0,
        1.0 / 21.0,
        1.0 / 23.0,
        1.0 / 25.0,
    ];
    let pair = |k: usize| C[k] + C[k + 1] * s2;
    let low = (pair(0) + pair(2) * s4) + (pair(4) + pair(6) * s4) * s8;
    let high = (pair(8) + pair(10) * s4) + C[12] * s8;
    let p = low + high * (s8 * s8);
    let k = if halve { std::f64::consts::LN_2 } else { 0.0 };
    k + 2.0 * s * p
}

/// `ln(1 + e^{−|f|})`: the softplus of `−|f|`, the part of the logistic
/// loss that needs transcendentals.
#[inline(always)]
pub fn softplus_neg_abs(f: f64) -> f64 {
    ln_1p_unit(exp_nonpositive(-f.abs()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ulps(a: f64, b: f64) -> f64 {
        ((a - b) / b.abs().max(f64::MIN_POSITIVE)).abs() / f64::EPSILON
    }

    #[test]
    fn agree_with_libm_to_a_few_units_in_the_last_place() {
        let mut x = -700.0;
        while x <= 0.0 {
            assert!(ulps(exp_nonpositive(x), x.exp()) < 4.0, "exp({x})");
            x += 0.0137;
        }
        for x in [0.0, -1e-300, -1e-10, -0.5, -1.0, -37.0] {
            assert!(ulps(exp_nonpositive(x), x.exp()) < 4.0, "exp({x})");
        }
        let mut t = 0.0;
        while t <= 1.0 {
            let (fast, libm) = (ln_1p_unit(t), t.ln_1p());
            assert!(fast == libm || ulps(fast, libm) < 4.0, "ln_1p({t})");
            t += 0.000_731;
        }
        for t in [1e-300, 1e-20, 1e-9, 1.0] {
            assert!(ulps(ln_1p_unit(t), t.ln_1p()) < 4.0, "ln_1p({t})");
        }
        for f in [-800.0, -40.0, -3.0, 0.0, 2.5, 40.0, 800.0] {
            let libm = (-f64::abs(f)).exp().ln_1p();
            let fast = softplus_neg_abs(f);
            // (Below e^-708 the fast one stops at e^-708 ≈ 3e-308, libm at 0.)
            assert!(
                (fast - libm).abs() <= 4.0 * f64::EPSILON * libm + 1e-300,
                "{f}"
            );
        }
    }
}
