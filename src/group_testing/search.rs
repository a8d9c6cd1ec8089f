//! The group test and the binary search over one subset.

use super::prefix_cache::SumWord;
use super::screening::most_promising;
use super::{Excluded, PrefixCache};
use crate::binning::BinnedData;
use crate::histogram::{fill_bins, HistBin, NodeGradients};
use crate::split::{best_split_of_feature, NodeStats, SplitConstraints};
use rayon::prelude::*;

/// At most this many bins for a pseudo-feature: its integer values are
/// mapped linearly onto them (binning instead of sorting, SPEC section 3).
/// On the SPEC's problem 32 bins found x₁..x₃ as often as 256 or an exact
/// sort (`benches/gt_success_rate.py`), and the bins are scanned once per
/// test, so more would cost time on small nodes for nothing.
const MAX_PSEUDO_BINS: u32 = 64;

/// Rows per pseudo-bin on small nodes (at least 8 bins).
const ROWS_PER_PSEUDO_BIN: u32 = 8;

/// A node to search: its rows, their gradients (in the order of `rows`),
/// their sums, and the limits a split must meet.
#[derive(Debug, Clone, Copy)]
pub struct GroupTestNode<'a> {
    /// The binned training data.
    pub data: &'a BinnedData,
    /// The node's row indices.
    pub rows: &'a [u32],
    /// Gradients (and hessians) of `rows`, in that order.
    pub grads: NodeGradients<'a>,
    /// Sums over the node.
    pub stats: NodeStats,
    /// Limits every child must meet.
    pub constraints: SplitConstraints,
    /// Features left out of every pseudo-feature.
    pub excluded: &'a Excluded,
}

/// The group test: the best split gain of a pseudo-feature, given by its
/// value at each of the node's rows (0 if it has no valid split).
pub fn pseudo_feature_gain<W: SumWord>(values: &[W], node: &GroupTestNode) -> f64 {
    let bounds = values.iter().fold(Bounds::EMPTY, |b, &z| b.with(z));
    gain_within(values, bounds, node)
}

/// The smallest and largest of some pseudo-feature values.
#[derive(Debug, Clone, Copy)]
struct Bounds<W> {
    min: W,
    max: W,
}

impl<W: SumWord> Bounds<W> {
    const EMPTY: Self = Bounds {
        min: W::MAX,
        max: W::ZERO,
    };

    #[inline]
    fn with(self, z: W) -> Self {
        Bounds {
            min: self.min.min(z),
            max: self.max.max(z),
        }
    }
}

/// [`pseudo_feature_gain`] of values whose bounds are known.
fn gain_within<W: SumWord>(values: &[W], bounds: Bounds<W>, node: &GroupTestNode) -> f64 {
    let Some(bins) = PseudoBins::new(
        bounds.min.widen(),
        bounds.max.widen(),
        values.len() as u64,
        W::SHIFT,
    ) else {
        return 0.0;
    };
    // The last slot is the (empty) NaN bin the split finder expects.
    let mut hist = [HistBin::default(); MAX_PSEUDO_BINS as usize + 1];
    let hist = &mut hist[..bins.n_bins as usize + 1];
    bins.fill(values, node.grads, hist);
    pseudo_gain(hist, node.stats, &node.constraints)
}

/// How a pseudo-feature's values map onto its bins: linearly from their
/// minimum to their maximum over the tested rows, into more bins for more
/// rows. A distributed fit pools the minimum, maximum and row count over
/// its shards, so that every shard bins alike.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PseudoBins {
    min: u64,
    /// Value bins (the histogram has one more, the empty NaN bin).
    pub n_bins: u32,
    scale: u128,
    shift: u32,
    /// `(max − min)·scale` fits 64 bits (always with 16-bit sums), so the
    /// bins can be computed in `u64`: the same bins, without a 128-bit
    /// multiplication per row.
    narrow: bool,
}

impl PseudoBins {
    /// The bins of values in `min..=max` over `n_values` rows, for sums
    /// of `shift` bits; `None` when the values are constant or absent
    /// (the pseudo-feature cannot split).
    pub fn new(min: u64, max: u64, n_values: u64, shift: u32) -> Option<Self> {
        if !PseudoBins::can_split(min, max, n_values) {
            return None;
        }
        let n_bins = PseudoBins::len_for(n_values) as u32 - 1;
        // Fixed point instead of a division per row: bin = (z − min)·scale >> shift,
        // at most n_bins − 1 (in u128: 32-bit sums times the scale need 70 bits).
        let scale = (u128::from(n_bins - 1) << shift) / u128::from(max - min);
        Some(PseudoBins {
            min,
            n_bins,
            scale,
            shift,
            narrow: u128::from(max - min) * scale <= u128::from(u64::MAX),
        })
    }

    /// Whether values in `min..=max` over `n_values` rows get bins at all
    /// (else the pseudo-feature is constant or absent).
    pub fn can_split(min: u64, max: u64, n_values: u64) -> bool {
        n_values > 0 && min < max
    }

    /// Bins (and the NaN bin) for a node of `n_values` rows.
    pub fn len_for(n_values: u64) -> usize {
        (n_values.min(u64::from(u32::MAX)) as u32 / ROWS_PER_PSEUDO_BIN).clamp(8, MAX_PSEUDO_BINS)
            as usize
            + 1
    }

    /// Add each row's gradients (`grads`, in the order of `values`) to the
    /// bin of its value in `hist` (`n_bins + 1` bins).
    pub fn fill<W: SumWord>(&self, values: &[W], grads: NodeGradients, hist: &mut [HistBin]) {
        // Pseudo-feature sums spread over their bins: no interleaved copies.
        if self.narrow {
            let (min, scale, shift) = (self.min, self.scale as u64, self.shift);
            let to_bin = |z: W| (((z.widen() - min) * scale) >> shift) as u8;
            fill_bins(hist, values.iter().map(|&z| to_bin(z)), grads, false);
        } else {
            let to_bin =
                |z: W| ((u128::from(z.widen() - self.min) * self.scale) >> self.shift) as u8;
            fill_bins(hist, values.iter().map(|&z| to_bin(z)), grads, false);
        }
    }
}

/// The best split gain of a pseudo-feature's histogram (0 without a split
/// that meets `constraints`).
pub fn pseudo_gain(hist: &[HistBin], stats: NodeStats, constraints: &SplitConstraints) -> f64 {
    best_split_of_feature(0, hist, stats, constraints).map_or(0.0, |s| s.gain)
}

/// The pseudo-features of one subset's search at the node's rows, reused
/// from one subset to the next.
#[derive(Debug, Default)]
pub struct SearchBuffers<W> {
    /// The range being halved.
    whole: Vec<W>,
    /// Its two halves.
    left: Vec<W>,
    right: Vec<W>,
    /// The prefix sums at a checkpoint (the range's start while that is one).
    start: Vec<W>,
    /// The prefix sums at the cut.
    at_cut: Vec<W>,
}

/// Binary search in subset `g`: halve the range (at a checkpoint of the
/// cache while it is long), keep the half whose pseudo-feature splits the
/// node better, until one feature is left. `W` is the cache's word.
///
/// Each halving reads one new column of the cache: the left half is the
/// prefix sum at the cut minus the one at the range's start (kept from the
/// halving before), and the right half is the range minus the left half
/// (SPEC section 3: "the other half's pseudo-feature can come by
/// subtraction"). The values are those of summing each half on its own.
pub fn search_subset<W: SumWord>(
    cache: &PrefixCache,
    g: usize,
    node: &GroupTestNode,
    buf: &mut SearchBuffers<W>,
) -> usize {
    let rows = node.rows;
    let (mut lo, mut hi) = (0, cache.subset_len());
    // `buf.start` holds the prefix sums at this position (0 at position 0).
    let mut start_at = 0;
    buf.start.clear();
    buf.start.resize(rows.len(), W::default());
    buf.whole.clear();
    cache.prefix_sums(g, hi, rows, &mut buf.whole);
    node.excluded
        .subtract(cache, g, lo, hi, rows, &mut buf.whole);
    while hi - lo > 1 {
        let mid = cache.cut(lo, hi);
        let from_cache = start_at == lo && cache.is_checkpoint(mid);
        buf.left.clear();
        if from_cache {
            buf.at_cut.clear();
            cache.prefix_sums_since(g, mid, rows, &buf.start, &mut buf.at_cut, &mut buf.left);
        } else {
            cache.direct_sums(g, lo, mid, rows, &mut buf.left);
        }
        node.excluded
            .subtract(cache, g, lo, mid, rows, &mut buf.left);
        // The right half and both halves' bounds in one pass.
        let (mut left_bounds, mut right_bounds) = (Bounds::EMPTY, Bounds::EMPTY);
        buf.right.clear();
        buf.right
            .extend(buf.whole.iter().zip(&buf.left).map(|(&whole, &left)| {
                let right = whole.wrapping_sub(left);
                left_bounds = left_bounds.with(left);
                right_bounds = right_bounds.with(right);
                right
            }));
        let left_gain = gain_within(&buf.left, left_bounds, node);
        let right_gain = gain_within(&buf.right, right_bounds, node);
        if left_gain >= right_gain {
            hi = mid;
            std::mem::swap(&mut buf.whole, &mut buf.left);
        } else {
            std::mem::swap(&mut buf.whole, &mut buf.right);
            if from_cache {
                std::mem::swap(&mut buf.start, &mut buf.at_cut);
                start_at = mid;
            }
            lo = mid;
        }
    }
    cache.subsets()[g][lo] as usize
}

/// The candidate set C: the survivor of the search of each of the
/// `n_searched` subsets whose whole range tests best (every subset when
/// there are no more; see [`super::screening`]), ascending and without
/// repeats. Subsets are tested and searched in parallel.
pub fn candidate_features(
    cache: &PrefixCache,
    node: &GroupTestNode,
    n_searched: usize,
) -> Vec<usize> {
    let mut found = if cache.is_wide() {
        search_all::<u32>(cache, node, n_searched)
    } else {
        search_all::<u16>(cache, node, n_searched)
    };
    found.sort_unstable();
    found.dedup();
    found
}

fn search_all<W: SumWord>(
    cache: &PrefixCache,
    node: &GroupTestNode,
    n_searched: usize,
) -> Vec<usize> {
    let p = cache.subsets().len();
    let searched = if n_searched >= p {
        (0..p).collect()
    } else {
        let len = cache.subset_len();
        let gains: Vec<f64> = (0..p)
            .into_par_iter()
            .map_init(Vec::<W>::new, |whole, g| {
                whole.clear();
                cache.prefix_sums(g, len, node.rows, whole);
                node.excluded.subtract(cache, g, 0, len, node.rows, whole);
                pseudo_feature_gain(whole, node)
            })
            .collect();
        most_promising(&gains, n_searched)
    };
    searched
        .into_par_iter()
        .map_init(SearchBuffers::<W>::default, |buf, g| {
            search_subset(cache, g, node, buf)
        })
        .collect()
}

/// The candidates at the root of a squared-error fit of `y` (all rows, the
/// first tree's gradients), with `excluded` left out of the pseudo-features,
/// searching the `n_searched` subsets that test best: what the paper's
/// Figure 1 measures.
pub fn squared_error_root_candidates(
    data: &BinnedData,
    y: &[f64],
    cache: &PrefixCache,
    excluded: &Excluded,
    min_samples_leaf: u32,
    n_searched: usize,
) -> Vec<usize> {
    let n = y.len();
    let mean = y.iter().sum::<f64>() / n as f64;
    let grad: Vec<f64> = y.iter().map(|t| mean - t).collect();
    let rows: Vec<u32> = (0..n as u32).collect();
    let node = GroupTestNode {
        data,
        rows: &rows,
        grads: NodeGradients::ConstantHessian {
            grad: &grad,
            hess: 1.0,
        },
        stats: NodeStats {
            g: grad.iter().sum(),
            h: n as f64,
            n: n as u32,
        },
        constraints: SplitConstraints {
            min_samples_leaf,
            min_child_weight: 1e-3,
            l2: 0.0,
            categorical: Default::default(),
        },
        excluded,
    };
    candidate_features(cache, &node, n_searched)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::binning::bin_matrix;
    use crate::group_testing::{draw_planned, draw_subsets, n_subsets, Excluded};
    use crate::interrupt::never;
    use crate::rng::Rng;

    /// Root-node candidates for squared error on row-major `x`.
    fn root_candidates(x: &[f64], y: &[f64], d: usize, s: usize, seed: u64) -> Vec<usize> {
        let data = bin_matrix(x, y.len(), d, 255, 200_000, 0, &never).unwrap();
        let subsets = draw_subsets(d, s, 0.1, seed).unwrap();
        let cache = PrefixCache::build(&data, subsets, &never).unwrap();
        squared_error_root_candidates(&data, y, &cache, &Excluded::new(&cache), 20, usize::MAX)
    }

    #[test]
    fn a_planted_feature_among_500_is_found_for_every_seed() {
        let (n, d, planted) = (5000, 501, 123);
        let mut rng = Rng::new(1);
        let x: Vec<f64> = (0..n * d).map(|_| rng.next_f64()).collect();
        let y: Vec<f64> = (0..n)
            .map(|i| 2.0 * (x[i * d + planted] > 0.5) as u8 as f64 + 0.5 * (rng.next_f64() - 0.5))
            .collect();
        for seed in 0..5 {
            let c = root_candidates(&x, &y, d, 10, seed);
            assert!(c.contains(&planted), "seed {seed}: {c:?}");
            assert!(c.len() <= draw_subsets(d, 10, 0.1, seed).unwrap().len());
        }
    }

    #[test]
    fn one_subset_of_100000_features_still_finds_the_planted_one() {
        // s = 1: a single subset of all d features. Its range sums need 32
        // bits; with 16 every level was 0, every test a tie, and the search
        // returned the subset's first feature whatever the data.
        let (n, d, planted) = (40, 100_000, 76_543);
        let mut x = vec![0.0; n * d];
        let mut rng = Rng::new(3);
        let y: Vec<f64> = (0..n)
            .map(|i| {
                let v = rng.next_f64();
                x[i * d + planted] = v;
                if v > 0.5 {
                    3.0
                } else {
                    0.0
                }
            })
            .collect();
        let data = bin_matrix(&x, n, d, 255, 200_000, 0, &never).unwrap();
        let subsets = draw_subsets(d, 1, 0.1, 0).unwrap();
        let cache = PrefixCache::build(&data, subsets, &never).unwrap();
        assert!(cache.is_wide());
        let found =
            squared_error_root_candidates(&data, &y, &cache, &Excluded::new(&cache), 5, usize::MAX);
        assert_eq!(found, vec![planted]);
    }

    #[test]
    fn screening_searches_the_subsets_whose_whole_range_tests_best() {
        // 400 rows, 2000 features, s = 10: subsets of 40 features, p = 200,
        // of which the paper's 126 that test best are searched (the plan
        // screens only on more rows; the search takes any number).
        let (n, d, planted) = (400, 2000, 1234);
        let mut rng = Rng::new(8);
        let x: Vec<f64> = (0..n * d).map(|_| rng.next_f64()).collect();
        let y: Vec<f64> = (0..n)
            .map(|i| 2.0 * (x[i * d + planted] > 0.5) as u8 as f64 + 0.3 * rng.next_f64())
            .collect();
        let data = bin_matrix(&x, n, d, 255, 200_000, 0, &never).unwrap();
        let (subsets, _) = draw_planned(n, d, 10, 0.1, 1).unwrap();
        let searched = n_subsets(10, 0.1);
        assert_eq!((subsets.len(), searched), (200, 126));
        let holding: Vec<usize> = (0..subsets.len())
            .filter(|&g| subsets[g].contains(&(planted as u32)))
            .collect();
        assert!(!holding.is_empty());
        let cache = PrefixCache::build(&data, subsets, &never).unwrap();
        let excluded = Excluded::new(&cache);
        let found = squared_error_root_candidates(&data, &y, &cache, &excluded, 5, searched);
        assert!(found.contains(&planted), "{found:?}");
        assert!(found.len() <= searched);
        // Screened down to as many subsets as hold the planted feature, the
        // search still finds it (the subsets of weakest whole ranges would not).
        let few = squared_error_root_candidates(&data, &y, &cache, &excluded, 5, holding.len());
        assert!(few.contains(&planted), "{few:?}");
        assert!(few.len() <= holding.len());
    }

    /// The search as the paper states it: both halves summed on their own.
    fn reference_search(cache: &PrefixCache, g: usize, node: &GroupTestNode) -> usize {
        let half = |lo: usize, hi: usize| {
            let mut values: Vec<u16> = Vec::new();
            cache.range_sums(g, lo, hi, node.rows, &mut values);
            node.excluded
                .subtract(cache, g, lo, hi, node.rows, &mut values);
            pseudo_feature_gain(&values, node)
        };
        let (mut lo, mut hi) = (0, cache.subset_len());
        while hi - lo > 1 {
            let mid = cache.cut(lo, hi);
            if half(lo, mid) >= half(mid, hi) {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        cache.subsets()[g][lo] as usize
    }

    #[test]
    fn halves_by_subtraction_give_the_search_of_halves_summed_alone() {
        let (n, d) = (1200, 300);
        let mut rng = Rng::new(6);
        let x: Vec<f64> = (0..n * d).map(|_| rng.next_f64()).collect();
        let data = bin_matrix(&x, n, d, 255, 200_000, 0, &never).unwrap();
        // Subsets of 23 and 100 features: ranges end off checkpoints too.
        for s in [13, 3] {
            let subsets = draw_subsets(d, s, 0.1, 2).unwrap();
            let cache = PrefixCache::build(&data, subsets, &never).unwrap();
            let mut excluded = Excluded::new(&cache);
            for f in [5, 77, 150, 299] {
                excluded.add(&cache, f);
            }
            let rows: Vec<u32> = (0..n as u32).filter(|_| rng.next_f64() < 0.6).collect();
            let grad: Vec<f64> = rows
                .iter()
                .map(|&r| x[r as usize * d + 40] + x[r as usize * d + 41] * rng.next_f64())
                .collect();
            let hess: Vec<f64> = rows.iter().map(|_| 0.5 + rng.next_f64()).collect();
            let pairs: Vec<[f64; 2]> = grad.iter().zip(&hess).map(|(&g, &h)| [g, h]).collect();
            let node = GroupTestNode {
                data: &data,
                rows: &rows,
                grads: NodeGradients::Pairs(&pairs),
                stats: NodeStats {
                    g: grad.iter().sum(),
                    h: hess.iter().sum(),
                    n: rows.len() as u32,
                },
                constraints: SplitConstraints {
                    min_samples_leaf: 10,
                    min_child_weight: 1e-3,
                    l2: 0.0,
                    categorical: Default::default(),
                },
                excluded: &excluded,
            };
            let mut buf = SearchBuffers::<u16>::default();
            let mut distinct = Vec::new();
            for g in 0..cache.subsets().len() {
                let found = search_subset(&cache, g, &node, &mut buf);
                assert_eq!(
                    found,
                    reference_search(&cache, g, &node),
                    "s {s}, subset {g}"
                );
                distinct.push(found);
            }
            distinct.sort_unstable();
            distinct.dedup();
            // Searches ending in different places: not one path tested over and over.
            assert!(distinct.len() > cache.subsets().len() / 3, "{distinct:?}");
        }
    }
}
