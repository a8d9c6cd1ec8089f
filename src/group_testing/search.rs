//! The group test and the binary search over one subset.

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

/// The group test: the best split gain of the pseudo-feature of positions
/// `lo..hi` of subset `g` on the node's rows (0 if it has no valid split).
/// `scratch` is reused between calls.
pub fn group_gain(
    cache: &PrefixCache,
    g: usize,
    lo: usize,
    hi: usize,
    node: &GroupTestNode,
    scratch: &mut Vec<u16>,
) -> f64 {
    scratch.clear();
    cache.range_sums(node.data, g, lo, hi, node.rows, scratch);
    node.excluded.subtract(g, lo, hi, node.rows, scratch);
    let (min, max) = scratch
        .iter()
        .fold((u16::MAX, 0), |(a, b), &z| (a.min(z), b.max(z)));
    if scratch.is_empty() || min == max {
        return 0.0;
    }
    let n_bins = (scratch.len() as u32 / ROWS_PER_PSEUDO_BIN).clamp(8, MAX_PSEUDO_BINS);
    // Fixed point instead of a division per row: bin = (z − min)·scale >> 16,
    // at most n_bins − 1.
    let scale = (u64::from(n_bins - 1) << 16) / u64::from(max - min);
    let to_bin = |z: u16| ((u64::from(z - min) * scale) >> 16) as u8;
    // The last slot is the (empty) NaN bin the split finder expects.
    let mut hist = [HistBin::default(); MAX_PSEUDO_BINS as usize + 1];
    let hist = &mut hist[..n_bins as usize + 1];
    fill_bins(hist, scratch.iter().map(|&z| to_bin(z)), node.grads);
    best_split_of_feature(0, hist, node.stats, &node.constraints).map_or(0.0, |s| s.gain)
}

/// Binary search in subset `g`: halve the range (at a checkpoint of the
/// cache while it is long), keep the half whose pseudo-feature splits the
/// node better, until one feature is left.
pub fn search_subset(
    cache: &PrefixCache,
    g: usize,
    node: &GroupTestNode,
    scratch: &mut Vec<u16>,
) -> usize {
    let (mut lo, mut hi) = (0, cache.subset_len());
    while hi - lo > 1 {
        let mid = cache.cut(lo, hi);
        let left = group_gain(cache, g, lo, mid, node, scratch);
        let right = group_gain(cache, g, mid, hi, node, scratch);
        if left >= right {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    cache.subsets()[g][lo] as usize
}

/// The candidate set C: the survivor of every subset's search, ascending
/// and without repeats. Subsets are searched in parallel.
pub fn candidate_features(cache: &PrefixCache, node: &GroupTestNode) -> Vec<usize> {
    let mut found: Vec<usize> = (0..cache.subsets().len())
        .into_par_iter()
        .map_init(Vec::new, |scratch, g| {
            search_subset(cache, g, node, scratch)
        })
        .collect();
    found.sort_unstable();
    found.dedup();
    found
}

/// The candidates at the root of a squared-error fit of `y` (all rows, the
/// first tree's gradients), with `excluded` left out of the pseudo-features:
/// what the paper's Figure 1 measures.
pub fn squared_error_root_candidates(
    data: &BinnedData,
    y: &[f64],
    cache: &PrefixCache,
    excluded: &Excluded,
    min_samples_leaf: u32,
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
        },
        excluded,
    };
    candidate_features(cache, &node)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::binning::bin_matrix;
    use crate::group_testing::{draw_subsets, Excluded};
    use crate::rng::Rng;

    /// Root-node candidates for squared error on row-major `x`.
    fn root_candidates(x: &[f64], y: &[f64], d: usize, s: usize, seed: u64) -> Vec<usize> {
        let data = bin_matrix(x, y.len(), d, 255, 200_000, 0).unwrap();
        let cache = PrefixCache::build(&data, draw_subsets(d, s, 0.1, seed).unwrap());
        squared_error_root_candidates(&data, y, &cache, &Excluded::new(&cache), 20)
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
}
