//! Finding the best split of a node from its histogram.
//!
//! Newton gain, as in LightGBM and the SPEC:
//! `G_L²/(H_L+λ) + G_R²/(H_R+λ) − G²/(H+λ)`. For squared error with λ = 0
//! it is exactly `SSE_parent − SSE_L − SSE_R`.

use crate::binning::BinMapper;
use crate::categorical::{best_categorical_split, CategoricalParams};
use crate::histogram::{HistBin, HistLayout, Histogram};
use crate::routing::BinSet;
use rayon::prelude::*;

/// Sums over a node's rows.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct NodeStats {
    /// Σ gradient.
    pub g: f64,
    /// Σ hessian.
    pub h: f64,
    /// Number of rows.
    pub n: u32,
}

impl NodeStats {
    /// The sums over `rows` of the per-row gradients and hessians.
    pub fn of_rows(rows: &[u32], grad: &[f64], hess: &[f64]) -> Self {
        NodeStats {
            g: rows.iter().map(|&r| grad[r as usize]).sum(),
            h: rows.iter().map(|&r| hess[r as usize]).sum(),
            n: rows.len() as u32,
        }
    }

    fn add(self, b: &HistBin) -> Self {
        NodeStats {
            g: self.g + b.g,
            h: self.h + b.h,
            n: self.n + b.n,
        }
    }

    fn minus(self, o: NodeStats) -> Self {
        NodeStats {
            g: self.g - o.g,
            h: self.h - o.h,
            n: self.n - o.n,
        }
    }

    /// `G²/(H+λ)`: the loss reduction of a leaf against value zero.
    #[inline]
    pub fn score(&self, l2: f64) -> f64 {
        self.g * self.g / (self.h + l2)
    }

    /// The Newton step `−G/(H+λ)` (before shrinkage).
    pub fn leaf_value(&self, l2: f64) -> f64 {
        if self.h + l2 > 0.0 {
            -self.g / (self.h + l2)
        } else {
            0.0
        }
    }
}

/// `gain`, the gain of splitting a node into `left` and `right`, or 0 if it
/// is within the rounding error of the sums. Children with the parent's
/// mean gradient (a pure node's, whose rows all have one residual) gain
/// exactly 0, but the three rounded scores differ by ~1e-15 of their size,
/// and such a "gain" above `min_gain = 0` split pure nodes on noise
/// features (LightGBM and scikit-learn do not). The bound is that of
/// summing the node's `n` gradients: a relative error of at most `n·ε` in
/// each sum. (Applied to a feature's best split only, not in the scan: the
/// best of gains that are all noise is noise.)
#[inline]
pub fn beyond_rounding(gain: f64, left: &NodeStats, right: &NodeStats, l2: f64) -> f64 {
    let children = left.score(l2) + right.score(l2);
    if gain.abs() <= f64::EPSILON * f64::from(left.n + right.n) * children {
        0.0
    } else {
        gain
    }
}

/// Limits every child of a split must meet.
#[derive(Debug, Clone, Copy)]
pub struct SplitConstraints {
    /// Minimum rows in a child.
    pub min_samples_leaf: u32,
    /// Minimum hessian sum in a child.
    pub min_child_weight: f64,
    /// λ.
    pub l2: f64,
    /// How categorical features' splits are searched.
    pub categorical: CategoricalParams,
}

impl SplitConstraints {
    #[inline]
    fn allows(&self, child: &NodeStats) -> bool {
        child.n >= self.min_samples_leaf
            && child.h >= self.min_child_weight
            && child.h + self.l2 > 0.0
    }
}

/// A split: rows whose bin of `feature` is `<= bin` go left, NaN rows go
/// left iff `default_left`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SplitCandidate {
    /// The feature.
    pub feature: usize,
    /// The last bin sent left.
    pub bin: u8,
    /// Where the NaN bin goes.
    pub default_left: bool,
    /// Newton gain of the split.
    pub gain: f64,
    /// Sums over the left child.
    pub left: NodeStats,
    /// Sums over the right child.
    pub right: NodeStats,
    /// A categorical feature's split: the bins (codes) sent left; `bin`
    /// and `default_left` are unused, and missing values go right.
    pub categories: Option<BinSet>,
}

/// The best split of one feature, or `None` if no split meets `c`.
///
/// `bins` are the feature's histogram bins, the last one being NaN's;
/// `parent` the node's sums. Both directions for NaN rows are tried when the
/// node has any; otherwise NaN (at prediction time) follows the larger child.
pub fn best_split_of_feature(
    feature: usize,
    bins: &[HistBin],
    parent: NodeStats,
    c: &SplitConstraints,
) -> Option<SplitCandidate> {
    let n_value_bins = bins.len() - 1;
    if n_value_bins < 2 && bins[n_value_bins].n == 0 {
        return None;
    }
    let missing = NodeStats::default().add(&bins[n_value_bins]);
    let parent_score = parent.score(c.l2);
    let min_n = c.min_samples_leaf;
    let mut best: Option<SplitCandidate> = None;
    // Scan thresholds left to right. An empty bin repeats the previous
    // candidate (same children), so it is skipped; once the right child is
    // too small it only gets smaller, so the scan stops.
    let mut scan = |bins: &[HistBin], start: NodeStats, default_left: Option<bool>| {
        let mut left = start;
        for (b, bin) in bins.iter().enumerate() {
            if bin.n == 0 {
                continue;
            }
            left = left.add(bin);
            if left.n < min_n {
                continue;
            }
            let right = parent.minus(left);
            if right.n < min_n {
                break;
            }
            if !c.allows(&left) || !c.allows(&right) {
                continue;
            }
            let gain = left.score(c.l2) + right.score(c.l2) - parent_score;
            if best.is_none_or(|s| gain > s.gain) {
                // Without NaN rows in the node, NaN (at prediction) follows
                // the larger child.
                let default_left = default_left.unwrap_or(left.n >= right.n);
                best = Some(SplitCandidate {
                    feature,
                    bin: b as u8,
                    default_left,
                    gain,
                    left,
                    right,
                    categories: None,
                });
            }
        }
    };
    if missing.n > 0 {
        // NaN rows to the right; the last threshold separates "all values"
        // from "NaN".
        scan(&bins[..n_value_bins], NodeStats::default(), Some(false));
        // NaN rows to the left.
        scan(&bins[..n_value_bins - 1], missing, Some(true));
    } else {
        scan(&bins[..n_value_bins - 1], NodeStats::default(), None);
    }
    best
}

impl SplitCandidate {
    /// The bins it sends left, on a feature whose NaN bin is `missing`.
    pub fn left_bins(&self, missing: u8) -> BinSet {
        match self.categories {
            Some(set) => set,
            None => BinSet::threshold(self.bin, missing, self.default_left),
        }
    }
}

/// The best split of feature `f` (cut points `mapper`) from its bins: by
/// threshold, or by a set of categories for a categorical feature.
#[inline]
pub fn best_split(
    f: usize,
    mapper: &BinMapper,
    bins: &[HistBin],
    parent: NodeStats,
    c: &SplitConstraints,
) -> Option<SplitCandidate> {
    let best = match mapper.categorical {
        true => best_categorical_split(f, bins, parent, c),
        false => best_split_of_feature(f, bins, parent, c),
    };
    best.map(|mut s| {
        s.gain = beyond_rounding(s.gain, &s.left, &s.right, c.l2);
        s
    })
}

/// The best split of every feature in `features` (ascending; cut points
/// `mappers`) that has one meeting `c`, in feature order; computed in
/// parallel.
pub fn split_candidates(
    hist: &Histogram,
    layout: &HistLayout,
    mappers: &[BinMapper],
    features: &[usize],
    parent: NodeStats,
    c: &SplitConstraints,
) -> Vec<SplitCandidate> {
    features
        .par_iter()
        .with_min_len(16)
        .filter_map(|&f| best_split(f, &mappers[f], hist.feature(layout, f), parent, c))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bin(g: f64, n: u32) -> HistBin {
        HistBin { g, h: n as f64, n }
    }

    fn loose() -> SplitConstraints {
        SplitConstraints {
            min_samples_leaf: 1,
            min_child_weight: 0.0,
            l2: 0.0,
            categorical: CategoricalParams::default(),
        }
    }

    #[test]
    fn finds_the_step_and_gain_is_sse_reduction() {
        // residuals: 2 rows of -1 in bin 0, 2 rows of +1 in bin 1, none NaN
        let bins = [bin(-2.0, 2), bin(2.0, 2), bin(0.0, 0)];
        let parent = NodeStats {
            g: 0.0,
            h: 4.0,
            n: 4,
        };
        let s = best_split_of_feature(0, &bins, parent, &loose()).unwrap();
        assert_eq!(s.bin, 0);
        // SSE parent = 4, children 0 each
        assert!((s.gain - 4.0).abs() < 1e-12);
        assert_eq!(s.left.n + s.right.n, parent.n);
        assert_eq!(s.left.g + s.right.g, parent.g);
    }

    #[test]
    fn nan_rows_go_where_they_help() {
        // values: bin0 g=-3 (3 rows), bin1 g=+1 (1 row); NaN rows g=-2 (2 rows)
        let bins = [bin(-3.0, 3), bin(1.0, 1), bin(-2.0, 2)];
        let parent = NodeStats {
            g: -4.0,
            h: 6.0,
            n: 6,
        };
        let s = best_split_of_feature(0, &bins, parent, &loose()).unwrap();
        assert!(s.default_left, "{s:?}");
        assert_eq!(s.bin, 0);
        assert_eq!(s.left.n, 5);
    }

    #[test]
    fn a_split_of_a_pure_node_gains_nothing_despite_rounding() {
        // Every row has the residual 0.1 (three tenths are not a float, so
        // the rounded sums and scores differ by ~1e-16 of their size).
        let (g, n) = (0.1_f64, 997u32);
        for k in 1..n {
            let left = NodeStats {
                g: (0..k).map(|_| g).sum(),
                h: f64::from(k),
                n: k,
            };
            let parent = NodeStats {
                g: (0..n).map(|_| g).sum(),
                h: f64::from(n),
                n,
            };
            let right = parent.minus(left);
            let gain = left.score(0.0) + right.score(0.0) - parent.score(0.0);
            assert_eq!(beyond_rounding(gain, &left, &right, 0.0), 0.0, "k {k}");
        }
        // A real gain, however small against the scores, stays.
        let left = NodeStats {
            g: 1.0,
            h: 1.0,
            n: 1,
        };
        let right = NodeStats {
            g: 1.0 + 1e-6,
            h: 1.0,
            n: 1,
        };
        let parent = NodeStats {
            g: 2.0 + 1e-6,
            h: 2.0,
            n: 2,
        };
        let gain = left.score(0.0) + right.score(0.0) - parent.score(0.0);
        assert!(beyond_rounding(gain, &left, &right, 0.0) > 0.0);
    }

    #[test]
    fn min_samples_leaf_is_respected() {
        let bins = [bin(-1.0, 1), bin(1.0, 5), bin(0.0, 0)];
        let parent = NodeStats {
            g: 0.0,
            h: 6.0,
            n: 6,
        };
        let c = SplitConstraints {
            min_samples_leaf: 2,
            ..loose()
        };
        assert!(best_split_of_feature(0, &bins, parent, &c).is_none());
    }

    /// Every (threshold, NaN direction) pair, evaluated without shortcuts.
    fn brute_force(bins: &[HistBin], parent: NodeStats, c: &SplitConstraints) -> Option<f64> {
        let nb = bins.len() - 1;
        let mut best: Option<f64> = None;
        for b in 0..nb {
            let values = bins[..=b]
                .iter()
                .fold(NodeStats::default(), |s, x| s.add(x));
            for left in [values, values.add(&bins[nb])] {
                let right = parent.minus(left);
                if c.allows(&left) && c.allows(&right) {
                    let gain = left.score(c.l2) + right.score(c.l2) - parent.score(c.l2);
                    best = Some(best.map_or(gain, |g: f64| g.max(gain)));
                }
            }
        }
        best
    }

    #[test]
    fn scan_with_shortcuts_matches_brute_force() {
        let mut rng = crate::rng::Rng::new(42);
        for case in 0..500 {
            let nb = 2 + rng.below(30);
            let mut bins: Vec<HistBin> = (0..=nb)
                .map(|_| {
                    let n = if rng.next_f64() < 0.4 {
                        0
                    } else {
                        rng.below(20) as u32
                    };
                    let h = n as f64 * (0.1 + rng.next_f64());
                    HistBin {
                        g: (rng.next_f64() - 0.5) * 10.0 * n as f64,
                        h,
                        n,
                    }
                })
                .collect();
            if case % 3 == 0 {
                bins[nb] = HistBin::default(); // no NaN rows
            }
            let parent = bins.iter().fold(NodeStats::default(), |s, x| s.add(x));
            let c = SplitConstraints {
                min_samples_leaf: 1 + rng.below(10) as u32,
                min_child_weight: 1e-3,
                l2: rng.next_f64(),
                categorical: CategoricalParams::default(),
            };
            let fast = best_split_of_feature(0, &bins, parent, &c).map(|s| s.gain);
            let slow = brute_force(&bins, parent, &c);
            match (fast, slow) {
                (None, None) => {}
                (Some(a), Some(b)) => assert!(
                    (a - b).abs() <= 1e-9 * b.abs().max(1.0),
                    "case {case}: {a} vs {b}"
                ),
                other => panic!("case {case}: {other:?}"),
            }
        }
    }

    #[test]
    fn a_tie_goes_to_the_first_threshold_and_to_nan_right() {
        // Thresholds 0 and 1 give the same children, mirrored.
        let bins = [bin(-1.0, 1), bin(2.0, 2), bin(-1.0, 1), bin(0.0, 0)];
        let parent = NodeStats {
            g: 0.0,
            h: 4.0,
            n: 4,
        };
        let s = best_split_of_feature(0, &bins, parent, &loose()).unwrap();
        assert_eq!((s.bin, s.left.n), (0, 1));
        // NaN rows of no gradient: each threshold gains as much with them
        // on either side, and the scan with NaN right comes first.
        let bins = [bin(-1.0, 1), bin(1.0, 1), bin(0.0, 2)];
        let parent = NodeStats {
            g: 0.0,
            h: 4.0,
            n: 4,
        };
        let s = best_split_of_feature(0, &bins, parent, &loose()).unwrap();
        assert!(!s.default_left, "{s:?}");
        assert_eq!((s.bin, s.left.n), (0, 1));
    }

    #[test]
    fn constant_feature_has_no_split() {
        let bins = [bin(3.0, 10), bin(0.0, 0)];
        let parent = NodeStats {
            g: 3.0,
            h: 10.0,
            n: 10,
        };
        assert!(best_split_of_feature(0, &bins, parent, &loose()).is_none());
    }
}
