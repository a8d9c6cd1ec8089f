//! Prefix sums of bin indices along each subset's feature order.
//!
//! For subset `g` with features `f_0, f_1, ...`, row `i` and position `k`,
//! `P[g][k][i] = Σ_{j<k} bin(x_i, f_j)` (NaN counts 0). The pseudo-feature
//! of the range `lo..hi` of a subset is `P[g][hi][i] − P[g][lo][i]`: an
//! integer sum of bins, a monotone stand-in for the paper's sum of features
//! scaled to [0, 1].
//!
//! Memory: `p · (⌈d/s⌉ + 1) · n` `u32`s, about `4·e·ln(s/δ)` bytes per
//! (row, feature) — 37 bytes for s = 3, δ = 0.1, against 1 byte for the
//! binned data. Narrower sums and checkpointing are the next steps (SPEC
//! section 3).

use crate::binning::BinnedData;
use rayon::prelude::*;

/// The prefix sums of every subset, position-major: each (subset, position)
/// is one contiguous column of n sums.
#[derive(Debug, Clone)]
pub struct PrefixCache {
    n_rows: usize,
    /// Features per subset.
    len: usize,
    subsets: Vec<Vec<u32>>,
    sums: Vec<u32>,
}

impl PrefixCache {
    /// Build the cache of `subsets` (all of the same length) over `data`,
    /// in parallel over subsets.
    pub fn build(data: &BinnedData, subsets: Vec<Vec<u32>>) -> Self {
        let n = data.n_rows;
        let len = subsets.first().map_or(0, Vec::len);
        assert!(
            subsets.iter().all(|s| s.len() == len),
            "subsets must have one length"
        );
        let mut sums = vec![0u32; subsets.len() * (len + 1) * n];
        sums.par_chunks_mut(((len + 1) * n).max(1))
            .zip(&subsets)
            .for_each(|(block, subset)| {
                for (k, &f) in subset.iter().enumerate() {
                    let column = data.column(f as usize);
                    let missing = data.mappers[f as usize].missing_bin();
                    let (done, rest) = block.split_at_mut((k + 1) * n);
                    let previous = &done[k * n..];
                    for ((out, &prev), &b) in rest[..n].iter_mut().zip(previous).zip(column) {
                        *out = prev + if b == missing { 0 } else { b as u32 };
                    }
                }
            });
        PrefixCache {
            n_rows: n,
            len,
            subsets,
            sums,
        }
    }

    /// The subsets, each in its search order.
    pub fn subsets(&self) -> &[Vec<u32>] {
        &self.subsets
    }

    /// Features per subset.
    pub fn subset_len(&self) -> usize {
        self.len
    }

    /// `P[g][k]` for all rows (length n).
    #[inline]
    pub fn prefix(&self, g: usize, k: usize) -> &[u32] {
        let start = (g * (self.len + 1) + k) * self.n_rows;
        &self.sums[start..start + self.n_rows]
    }

    /// Bytes held by the sums.
    pub fn memory_bytes(&self) -> usize {
        self.sums.len() * std::mem::size_of::<u32>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::binning::bin_matrix;
    use crate::group_testing::draw_subsets;
    use crate::rng::Rng;

    #[test]
    fn any_range_sum_equals_the_direct_sum() {
        let (n, d) = (300, 40);
        let mut rng = Rng::new(9);
        let mut x: Vec<f64> = (0..n * d).map(|_| rng.next_f64()).collect();
        x[5 * d + 3] = f64::NAN;
        let data = bin_matrix(&x, n, d, 16, 1000, 0).unwrap();
        let cache = PrefixCache::build(&data, draw_subsets(d, 4, 0.2, 1).unwrap());
        let bin = |i: usize, f: u32| {
            let b = data.column(f as usize)[i];
            if b == data.mappers[f as usize].missing_bin() {
                0
            } else {
                b as u32
            }
        };
        for (g, subset) in cache.subsets().iter().enumerate() {
            for lo in 0..subset.len() {
                for hi in lo..=subset.len() {
                    for i in [0, 5, 77, n - 1] {
                        let direct: u32 = subset[lo..hi].iter().map(|&f| bin(i, f)).sum();
                        assert_eq!(cache.prefix(g, hi)[i] - cache.prefix(g, lo)[i], direct);
                    }
                }
            }
        }
        assert_eq!(cache.memory_bytes(), cache.subsets().len() * 11 * n * 4);
    }
}
