//! The random feature subsets of group testing.

use crate::error::{Result, SbError};
use crate::rng::Rng;

/// `p = ⌈e · s · ln(s/δ)⌉` (Theorem 4.1 of Han et al.), and 1 when `s = 1`.
pub fn n_subsets(s: usize, delta: f64) -> usize {
    if s <= 1 {
        return 1;
    }
    let ratio = s as f64 / delta;
    // A subnormal δ overflows s/δ; the logarithm itself is always finite.
    let log = if ratio.is_finite() {
        ratio.ln()
    } else {
        (s as f64).ln() - delta.ln()
    };
    (std::f64::consts::E * s as f64 * log).ceil() as usize
}

/// The most subset entries (p · ⌈d/s⌉) a fit may draw: 2³¹ `u32`s are
/// 8 GiB before the cache itself, which needs more.
pub const MAX_SUBSET_ENTRIES: usize = 1 << 31;

/// Draw `n_subsets(s, δ)` subsets of `0..d`, each of `⌈d/s⌉` distinct
/// features in a random order (for `s = 1`: one subset, all of `0..d`,
/// shuffled). Determined by `seed` alone.
pub fn draw_subsets(d: usize, s: usize, delta: f64, seed: u64) -> Result<Vec<Vec<u32>>> {
    if s == 0 || s > d {
        return Err(SbError::InvalidParameter(format!(
            "gt_n_features must be in [1, {d}] (the number of features), got {s}"
        )));
    }
    if !(delta > 0.0 && delta < 1.0) {
        return Err(SbError::InvalidParameter(format!(
            "gt_delta must be in (0, 1), got {delta:?}"
        )));
    }
    let size = d.div_ceil(s);
    let p = n_subsets(s, delta);
    if p.saturating_mul(size) > MAX_SUBSET_ENTRIES {
        return Err(SbError::InvalidParameter(format!(
            "group testing would draw {p} subsets of {size} features (gt_n_features={s}, \
             gt_delta={delta:?}), more than {MAX_SUBSET_ENTRIES} entries; lower gt_n_features \
             or raise gt_delta"
        )));
    }
    let mut rng = Rng::derive(seed, 0x6775_7073); // a stream of its own
    Ok((0..p)
        .map(|_| {
            let mut subset: Vec<u32> = rng
                .sample_sorted(d, size)
                .into_iter()
                .map(|f| f as u32)
                .collect();
            rng.shuffle(&mut subset);
            subset
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn count_and_sizes_follow_the_paper() {
        assert_eq!(n_subsets(3, 0.1), 28); // ⌈e·3·ln 30⌉ = ⌈27.74⌉
        assert_eq!(n_subsets(1, 0.1), 1);
        let subsets = draw_subsets(100, 3, 0.1, 7).unwrap();
        assert_eq!(subsets.len(), 28);
        for s in &subsets {
            assert_eq!(s.len(), 34);
            let mut sorted = s.clone();
            sorted.sort_unstable();
            sorted.dedup();
            assert_eq!(sorted.len(), 34);
        }
        assert_eq!(draw_subsets(100, 3, 0.1, 7).unwrap(), subsets);
        assert_ne!(draw_subsets(100, 3, 0.1, 8).unwrap(), subsets);
        assert!(draw_subsets(10, 0, 0.1, 0).is_err());
        // A subnormal δ: s/δ overflows, p does not.
        assert_eq!(n_subsets(10, 1e-310), 19_466);
        assert_eq!(draw_subsets(20, 10, 1e-310, 0).unwrap().len(), 19_466);
        let e = draw_subsets(1 << 24, 1 << 24, 1e-310, 0).unwrap_err();
        assert!(e.to_string().contains("gt_delta"), "{e}");
        assert!(draw_subsets(10, 3, 1.0, 0).is_err());
    }
}
