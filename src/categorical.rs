//! Categorical features (SPEC section 6): a column of category codes split
//! by a set of categories instead of a threshold.
//!
//! Codes are integers `0..C` (the Python layer assigns them by descending
//! frequency and pools the rarest categories beyond `max_bins − 1` into one
//! code), and code `c` is bin `c`: the cut points are the half-integers
//! between codes ([`crate::binning::BinMapper::categorical`]). A value that
//! is NaN, not an integer, or a code not seen in training falls in the
//! missing bin.
//!
//! A split sends the categories of its [`BinSet`] left and every other
//! category right — so **missing values and categories unseen in training
//! always go right**. The set is chosen as LightGBM chooses it:
//!
//! - with at most `max_cat_to_onehot` categories in the node, one category
//!   against the rest;
//! - with more, the categories of at least `cat_smooth` rows are sorted by
//!   `Σg / (Σh + cat_smooth)` and the best prefix of that order, from
//!   either end, of at most `max_cat_threshold` categories is taken, each
//!   side holding at least `min_data_per_group` rows, with `cat_l2` added
//!   to λ in its gain (rare categories go right).
//!
//! For a gain of the form `G²/H` the best two-way partition is a prefix of
//! the categories sorted by `G/H` (Fisher, 1958), so without smoothing and
//! caps the sorted scan finds the best partition (tested against brute
//! force).

use crate::binning::BinMapper;
use crate::error::{Result, SbError};
use crate::histogram::HistBin;
use crate::matrix::FeatureMatrix;
use crate::routing::BinSet;
use crate::split::{NodeStats, SplitCandidate, SplitConstraints};
use serde::{Deserialize, Serialize};

/// How categorical splits are searched (LightGBM's parameters of the same
/// names and defaults).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CategoricalParams {
    /// Up to this many categories in a node, one category against the rest.
    pub max_cat_to_onehot: usize,
    /// At most this many categories on the side of the sorted scan's prefix.
    pub max_cat_threshold: usize,
    /// Added to a category's hessian sum when sorting; categories of fewer
    /// rows are left out of the sorted scan.
    pub cat_smooth: f64,
    /// Added to λ in the gain of a sorted-scan split.
    pub cat_l2: f64,
    /// Rows each side of a sorted-scan split needs.
    pub min_data_per_group: usize,
}

impl Default for CategoricalParams {
    fn default() -> Self {
        CategoricalParams {
            max_cat_to_onehot: 4,
            max_cat_threshold: 32,
            cat_smooth: 10.0,
            cat_l2: 10.0,
            min_data_per_group: 100,
        }
    }
}

/// The categorical features `features` of a dense matrix `x`: checks their
/// codes, and writes each one's cut points ([`BinMapper::categorical`] of
/// its largest code + 1) and bins (its codes; NaN in the missing bin) over
/// what the numeric binning wrote (`bins`: column-major n × d).
pub(crate) fn bin_codes(
    x: &FeatureMatrix,
    features: &[usize],
    max_bins: usize,
    bins: &mut [u8],
    mappers: &mut [BinMapper],
) -> Result<()> {
    let n = x.n_rows;
    for &f in features {
        let mut n_codes = 1;
        for r in 0..n {
            let v = x.values.get(r * x.n_features + f);
            if v.is_nan() {
                continue;
            }
            if !(v >= 0.0 && v.fract() == 0.0 && v < max_bins as f64) {
                return Err(SbError::InvalidInput(format!(
                    "feature {f} is categorical (categorical_features), so its values must be \
                     category codes 0..{max_bins} (max_bins) or NaN; row {r} has {v}"
                )));
            }
            n_codes = n_codes.max(v as usize + 1);
        }
        let mapper = BinMapper::categorical(n_codes);
        for (r, out) in bins[f * n..(f + 1) * n].iter_mut().enumerate() {
            *out = mapper.bin(x.values.get(r * x.n_features + f));
        }
        mappers[f] = mapper;
    }
    Ok(())
}

/// Overwrite the bins (column-major n × d) of `x`'s categorical features
/// (as `mappers` say) with [`BinMapper::code_bin`]: a code unseen in
/// training, or a value that is no code, in the missing bin.
pub(crate) fn rebin_codes(x: &FeatureMatrix, mappers: &[BinMapper], bins: &mut [u8]) {
    let n = x.n_rows;
    for (f, mapper) in mappers.iter().enumerate().filter(|(_, m)| m.categorical) {
        for (r, out) in bins[f * n..(f + 1) * n].iter_mut().enumerate() {
            *out = mapper.bin(x.values.get(r * x.n_features + f));
        }
    }
}

/// Whether raw value `v` of a categorical feature goes left at a split on
/// `codes` (ascending): only an integer code listed there does.
#[inline]
pub fn code_goes_left(v: f64, codes: &[u32]) -> bool {
    v >= 0.0 && v.fract() == 0.0 && v <= u32::MAX as f64 && codes.binary_search(&(v as u32)).is_ok()
}

/// The best categorical split of one feature's histogram (`bins`: one per
/// code, the missing bin last), or `None` if none meets the constraints.
pub fn best_categorical_split(
    feature: usize,
    bins: &[HistBin],
    parent: NodeStats,
    c: &SplitConstraints,
) -> Option<SplitCandidate> {
    let p = c.categorical;
    let values = &bins[..bins.len() - 1];
    let used: Vec<usize> = (0..values.len()).filter(|&b| values[b].n > 0).collect();
    if used.len() < 2 && bins[bins.len() - 1].n == 0 {
        return None;
    }
    let mut best: Option<SplitCandidate> = None;
    let mut consider = |left_bins: &[usize], l2: f64, min_rows: u32| {
        let mut left = NodeStats::default();
        for &b in left_bins {
            left.g += values[b].g;
            left.h += values[b].h;
            left.n += values[b].n;
        }
        let right = NodeStats {
            g: parent.g - left.g,
            h: parent.h - left.h,
            n: parent.n - left.n,
        };
        let min_n = c.min_samples_leaf.max(min_rows);
        let allows = |s: &NodeStats| s.n >= min_n && s.h >= c.min_child_weight && s.h + l2 > 0.0;
        if !allows(&left) || !allows(&right) {
            return;
        }
        let gain = left.score(l2) + right.score(l2) - parent.score(l2);
        if best.is_none_or(|s| gain > s.gain) {
            let mut set = BinSet::default();
            left_bins.iter().for_each(|&b| set.insert(b as u8));
            best = Some(SplitCandidate {
                feature,
                bin: 0,
                default_left: false,
                gain,
                left,
                right,
                categories: Some(set),
            });
        }
    };
    if used.len() <= p.max_cat_to_onehot {
        // Two categories and no missing rows make one partition: the first
        // one left, as a threshold split of the codes makes it.
        let no_missing = bins[bins.len() - 1].n == 0;
        let alone = if used.len() == 2 && no_missing {
            &used[..1]
        } else {
            &used[..]
        };
        for &b in alone {
            consider(&[b], c.l2, 0);
        }
        return best;
    }
    let mut sorted: Vec<usize> = used
        .into_iter()
        .filter(|&b| f64::from(values[b].n) >= p.cat_smooth)
        .collect();
    let key = |b: usize| values[b].g / (values[b].h + p.cat_smooth);
    sorted.sort_by(|&a, &b| key(a).total_cmp(&key(b)).then(a.cmp(&b)));
    let (l2, min_rows) = (
        c.l2 + p.cat_l2,
        p.min_data_per_group.min(u32::MAX as usize) as u32,
    );
    let most = p
        .max_cat_threshold
        .min(sorted.len().saturating_sub(1))
        .max(1);
    for k in 1..=most.min(sorted.len()) {
        consider(&sorted[..k], l2, min_rows);
        let tail = &sorted[sorted.len() - k..];
        consider(tail, l2, min_rows);
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    fn constraints(p: CategoricalParams) -> SplitConstraints {
        SplitConstraints {
            min_samples_leaf: 1,
            min_child_weight: 0.0,
            l2: 0.0,
            categorical: p,
        }
    }

    fn exact() -> CategoricalParams {
        CategoricalParams {
            max_cat_to_onehot: 1,
            max_cat_threshold: 255,
            cat_smooth: 0.0,
            cat_l2: 0.0,
            min_data_per_group: 1,
        }
    }

    /// The best gain over every two-way partition of the used codes (the
    /// missing bin always right), by enumeration.
    fn brute_force(bins: &[HistBin], parent: NodeStats) -> f64 {
        let values = &bins[..bins.len() - 1];
        let mut best = f64::NEG_INFINITY;
        for mask in 1u32..(1 << values.len()) - 1 {
            let mut left = NodeStats::default();
            for (b, v) in values.iter().enumerate() {
                if mask >> b & 1 == 1 {
                    left.g += v.g;
                    left.h += v.h;
                    left.n += v.n;
                }
            }
            let right = NodeStats {
                g: parent.g - left.g,
                h: parent.h - left.h,
                n: parent.n - left.n,
            };
            if left.n == 0 || right.n == 0 {
                continue;
            }
            best = best.max(left.score(0.0) + right.score(0.0) - parent.score(0.0));
        }
        best
    }

    #[test]
    fn the_sorted_scan_finds_the_best_partition() {
        let mut rng = crate::rng::Rng::new(9);
        for trial in 0..200 {
            let k = 3 + trial % 8;
            let mut bins: Vec<HistBin> = (0..=k)
                .map(|_| {
                    let n = 1 + (rng.next_f64() * 30.0) as u32;
                    let h = n as f64 * (0.2 + rng.next_f64());
                    HistBin {
                        g: (rng.next_f64() - 0.5) * h * 3.0,
                        h,
                        n,
                    }
                })
                .collect();
            if trial % 3 == 0 {
                bins[k] = HistBin::default(); // no missing rows
            }
            let parent = bins.iter().fold(NodeStats::default(), |s, b| NodeStats {
                g: s.g + b.g,
                h: s.h + b.h,
                n: s.n + b.n,
            });
            let found = best_categorical_split(0, &bins, parent, &constraints(exact())).unwrap();
            let expected = brute_force(&bins, parent);
            assert!(
                (found.gain - expected).abs() <= 1e-9 * expected.abs().max(1.0),
                "{trial}"
            );
            let set = found.categories.unwrap();
            assert!(!set.contains(k as u8), "the missing bin goes right");
            let left_n: u32 = set.codes().iter().map(|&c| bins[c as usize].n).sum();
            assert_eq!(left_n, found.left.n);
        }
    }

    #[test]
    fn few_categories_split_one_against_the_rest_and_rare_ones_go_right() {
        let bin = |g: f64, n: u32| HistBin { g, h: n as f64, n };
        let bins = [bin(-5.0, 10), bin(1.0, 10), bin(4.0, 10), bin(0.0, 0)];
        let parent = NodeStats {
            g: 0.0,
            h: 30.0,
            n: 30,
        };
        let p = CategoricalParams::default();
        let s = best_categorical_split(0, &bins, parent, &constraints(p)).unwrap();
        assert_eq!(s.categories.unwrap().codes(), [0]);
        // Many categories: a rare one (2 rows < cat_smooth) never goes left.
        let mut bins: Vec<HistBin> = (0..8)
            .map(|i| bin(if i < 4 { -30.0 } else { 30.0 }, 200))
            .collect();
        bins.push(bin(-9.0, 2));
        bins.push(HistBin::default());
        let parent = bins.iter().fold(NodeStats::default(), |s, b| NodeStats {
            g: s.g + b.g,
            h: s.h + b.h,
            n: s.n + b.n,
        });
        let s = best_categorical_split(0, &bins, parent, &constraints(p)).unwrap();
        let left = s.categories.unwrap().codes();
        assert!(left == [0, 1, 2, 3] || left == [4, 5, 6, 7], "{left:?}");
    }

    #[test]
    fn codes_route_as_their_set_says() {
        let codes = [1, 4, 7];
        assert!(code_goes_left(4.0, &codes));
        assert!(!code_goes_left(5.0, &codes));
        assert!(!code_goes_left(f64::NAN, &codes));
        assert!(!code_goes_left(4.5, &codes));
        assert!(!code_goes_left(-1.0, &codes));
        assert!(!code_goes_left(1e300, &codes));
        let set = BinSet::of([0, 63, 64, 200, 255]);
        assert_eq!(set.codes(), [0, 63, 64, 200, 255]);
        assert!(set.contains(64) && !set.contains(65));
    }
}
