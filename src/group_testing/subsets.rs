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

/// How many subsets group testing draws and how long they are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plan {
    /// Features per subset, L.
    pub subset_len: usize,
    /// Subsets, p.
    pub n_subsets: usize,
    /// Subsets a node binary-searches, those whose whole range tests best
    /// (`screening`): all of them, or the paper's p on
    /// [`SCREEN_MIN_ROWS`] rows or more.
    pub n_searched: usize,
}

/// A shortened plan over at least this many rows searches only the paper's
/// p subsets whose whole ranges test best (`screening`); below, every
/// subset is searched. On few rows a whole range's test is mostly noise,
/// and the survivors of all p searches, scanned exactly, are what finds
/// good features: with every shortened plan screened,
/// `benches/gt_vs_exhaustive.py` lost on Dorothea (600 training rows,
/// refit AUC 0.799 → 0.692 at 10 features) and Arcene, while on the
/// paper's problem at 6000 × 100000 the fit went from 40 s to 9 s with the
/// same three features first. 2000 lies between those row counts (about
/// their geometric mean); it was chosen knowing both data sets, and no
/// data set between them was measured.
pub const SCREEN_MIN_ROWS: usize = 2000;

/// A subset holds at most this many features per training row (and at
/// least [`MIN_SUBSET_LEN`]): see [`plan`].
pub const SUBSET_LEN_PER_ROW: f64 = 0.1;

/// How many shortened subsets (see [`plan`]) hold each feature, on average.
pub const SUBSETS_PER_FEATURE: f64 = 4.0;

/// The shortest subset [`plan`] shortens to.
pub const MIN_SUBSET_LEN: usize = 16;

/// The subsets of a fit on `n_rows` rows and `d` features, for `s`
/// expected features and failure probability `δ`.
///
/// The paper's subsets (`⌈d/s⌉` features, `p = n_subsets(s, δ)`) while
/// they hold at most `max(16, n_rows/10)` features. Longer ones are
/// shortened to that many: a group test needs more rows the more features
/// its pseudo-feature sums (the paper's Theorem 4.2 asks for
/// `n ≳ L² log log L`), and with few rows and many sparse features
/// (Dorothea: 600 rows, subsets of 8812 features at s = 10, about 90 of
/// them non-zero in every row) the sum of a half is noise, the search
/// follows it and the survivors are close to random features. Shortened
/// subsets come `SUBSETS_PER_FEATURE` times per feature:
/// `p = ⌈4·d/L⌉`. Measured on splits of the training rows of Dorothea,
/// Arcene and Dexter (A-GBM, budgets 5/10/20, `benches/gt_vs_exhaustive.py`
/// and docs/gt_gbm.md): `n/2` features per subset was weaker than `n/10` on
/// Arcene and Dorothea; 2 subsets per feature lost on Dorothea at 5
/// features; the paper's density (`e·ln(s/δ)` ≈ 12.5 per feature) was no
/// better than 4 within the standard errors at three times the tests.
pub fn plan(n_rows: usize, d: usize, s: usize, delta: f64) -> Plan {
    let s = s.clamp(1, d.max(1));
    let paper_p = n_subsets(s, delta);
    let paper = Plan {
        subset_len: d.div_ceil(s),
        n_subsets: paper_p,
        n_searched: paper_p,
    };
    let longest = ((SUBSET_LEN_PER_ROW * n_rows as f64) as usize).max(MIN_SUBSET_LEN);
    if paper.subset_len <= longest {
        return paper;
    }
    let p = (SUBSETS_PER_FEATURE * d as f64 / longest as f64).ceil() as usize;
    Plan {
        subset_len: longest,
        n_subsets: p,
        n_searched: if n_rows >= SCREEN_MIN_ROWS {
            paper_p.min(p)
        } else {
            p
        },
    }
}

/// Draw `n_subsets(s, δ)` subsets of `0..d`, each of `⌈d/s⌉` distinct
/// features in a random order (for `s = 1`: one subset, all of `0..d`,
/// shuffled). Determined by `seed` alone.
pub fn draw_subsets(d: usize, s: usize, delta: f64, seed: u64) -> Result<Vec<Vec<u32>>> {
    check(d, s, delta)?;
    draw(
        d,
        Plan {
            subset_len: d.div_ceil(s),
            n_subsets: n_subsets(s, delta),
            n_searched: n_subsets(s, delta),
        },
        seed,
    )
}

/// Draw the subsets of [`plan`]`(n_rows, d, s, δ)`; also returns how many
/// of them a node searches.
pub fn draw_planned(
    n_rows: usize,
    d: usize,
    s: usize,
    delta: f64,
    seed: u64,
) -> Result<(Vec<Vec<u32>>, usize)> {
    check(d, s, delta)?;
    let plan = plan(n_rows, d, s, delta);
    Ok((draw(d, plan, seed)?, plan.n_searched))
}

fn check(d: usize, s: usize, delta: f64) -> Result<()> {
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
    Ok(())
}

/// `plan.n_subsets` subsets of `plan.subset_len` distinct features of
/// `0..d`, each in a random order.
fn draw(d: usize, plan: Plan, seed: u64) -> Result<Vec<Vec<u32>>> {
    let Plan {
        subset_len: size,
        n_subsets: p,
        ..
    } = plan;
    if p.saturating_mul(size) > MAX_SUBSET_ENTRIES {
        return Err(SbError::InvalidParameter(format!(
            "group testing would draw {p} subsets of {size} features, more than \
             {MAX_SUBSET_ENTRIES} entries; lower gt_n_features or raise gt_delta"
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

    #[test]
    fn few_rows_shorten_the_subsets() {
        // Many rows: the paper's subsets.
        let paper = Plan {
            subset_len: 100,
            n_subsets: 126,
            n_searched: 126,
        };
        assert_eq!(plan(10_000, 1000, 10, 0.1), paper);
        // 600 rows, 88119 features: subsets of 60, each feature in 4 of them.
        let short = plan(600, 88_119, 10, 0.1);
        assert_eq!(short.subset_len, 60);
        assert_eq!(short.n_subsets, (4.0 * 88_119.0 / 60.0_f64).ceil() as usize);
        // ... all of them searched on 600 rows,
        assert_eq!(short.n_searched, short.n_subsets);
        // ... but on 6000 rows only the paper's p of them.
        let many = plan(6000, 100_000, 3, 0.1);
        assert_eq!((many.subset_len, many.n_subsets), (600, 667));
        assert_eq!(many.n_searched, 28);
        // Fewer shortened subsets (4·30000/2000) than the paper's p: all searched.
        let few = plan(20_000, 30_000, 10, 0.1);
        assert_eq!((few.n_subsets, few.n_searched), (60, 60));
        // Never below 16 features.
        assert_eq!(plan(20, 10_000, 10, 0.1).subset_len, 16);
        let (drawn, searched) = draw_planned(600, 88_119, 10, 0.1, 3).unwrap();
        assert_eq!(searched, drawn.len());
        assert_eq!(drawn.len(), short.n_subsets);
        assert!(drawn.iter().all(|g| g.len() == 60));
    }
}
