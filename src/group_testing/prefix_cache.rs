//! Prefix sums of quantized feature values along each subset's order.
//!
//! Each feature's bin index is quantized to a level in `0..=m` (NaN counts
//! 0), where `m = min(255, ⌊65535 / L⌋)` for subsets of `L` features: then
//! the sum over any range of a subset fits in 16 bits. For subset `g` with
//! features `f_0, f_1, ...`, row `i` and position `k` the cache holds
//! `P[g][k][i] = Σ_{j<k} level(x_i, f_j) mod 2¹⁶`; the pseudo-feature of the
//! range `lo..hi` is `P[g][hi][i] − P[g][lo][i]` in wrapping arithmetic,
//! exact because the true sum is below 2¹⁶. Levels follow the quantile
//! bins, so they are monotone in the feature and robust to outliers (the
//! paper's min-max scaling is not).
//!
//! Memory: `p · (⌈d/s⌉ + 1) · n` `u16`s, about `2·e·ln(s/δ)` bytes per
//! (row, feature): 18.5 bytes for s = 3, δ = 0.1 (the binned data itself is
//! 1 byte). Subsets of up to 257 features keep every bin (`m = 255`); longer
//! ones lose resolution (`m = 39` for 1667 features), which costs the group
//! test little: the pseudo-feature sums hundreds of features and is binned
//! to 256 bins anyway.

use crate::binning::BinnedData;
use rayon::prelude::*;

/// The prefix sums of every subset, position-major: each (subset, position)
/// is one contiguous column of n sums.
#[derive(Debug, Clone)]
pub struct PrefixCache {
    n_rows: usize,
    /// Features per subset.
    len: usize,
    /// The highest level a feature's value is quantized to.
    max_level: u32,
    subsets: Vec<Vec<u32>>,
    sums: Vec<u16>,
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
        let max_level = (u16::MAX as usize / len.max(1)).min(255) as u32;
        let mut sums = vec![0u16; subsets.len() * (len + 1) * n];
        sums.par_chunks_mut(((len + 1) * n).max(1))
            .zip(&subsets)
            .for_each(|(block, subset)| {
                for (k, &f) in subset.iter().enumerate() {
                    let levels = level_table(data, f as usize, max_level);
                    let column = data.column(f as usize);
                    let (done, rest) = block.split_at_mut((k + 1) * n);
                    let previous = &done[k * n..];
                    for ((out, &prev), &b) in rest[..n].iter_mut().zip(previous).zip(column) {
                        *out = prev.wrapping_add(levels[b as usize]);
                    }
                }
            });
        PrefixCache {
            n_rows: n,
            len,
            max_level,
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

    /// The highest level of a quantized feature value.
    pub fn max_level(&self) -> u32 {
        self.max_level
    }

    /// The pseudo-feature of positions `lo..hi` of subset `g` at each of
    /// `rows`, appended to `out`.
    #[inline]
    pub fn range_sums(&self, g: usize, lo: usize, hi: usize, rows: &[u32], out: &mut Vec<u16>) {
        let (start, end) = (self.prefix(g, lo), self.prefix(g, hi));
        out.extend(
            rows.iter()
                .map(|&r| end[r as usize].wrapping_sub(start[r as usize])),
        );
    }

    /// `P[g][k]` for all rows (length n), in wrapping 16-bit arithmetic.
    #[inline]
    fn prefix(&self, g: usize, k: usize) -> &[u16] {
        let start = (g * (self.len + 1) + k) * self.n_rows;
        &self.sums[start..start + self.n_rows]
    }

    /// The quantized level of feature `f` at every row, as summed here.
    pub fn level_column(&self, data: &BinnedData, f: usize) -> Vec<u16> {
        let levels = level_table(data, f, self.max_level);
        data.column(f).iter().map(|&b| levels[b as usize]).collect()
    }

    /// Bytes held by the sums.
    pub fn memory_bytes(&self) -> usize {
        self.sums.len() * std::mem::size_of::<u16>()
    }
}

/// The level of each bin of feature `f`: value bins spread evenly over
/// `0..=max_level`; the NaN bin is 0.
fn level_table(data: &BinnedData, f: usize, max_level: u32) -> [u16; 256] {
    let mapper = &data.mappers[f];
    let top = (mapper.n_value_bins() as u32).saturating_sub(1).max(1);
    let mut table = [0u16; 256];
    for (b, level) in table.iter_mut().enumerate().take(mapper.n_value_bins()) {
        *level = (b as u32 * max_level.min(top) / top) as u16;
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::binning::bin_matrix;
    use crate::group_testing::draw_subsets;
    use crate::rng::Rng;

    fn check_every_range(n: usize, d: usize, s: usize, max_bins: usize) {
        let mut rng = Rng::new(9);
        let mut x: Vec<f64> = (0..n * d).map(|_| rng.next_f64()).collect();
        x[5 * d + 3] = f64::NAN;
        let data = bin_matrix(&x, n, d, max_bins, 1000, 0).unwrap();
        let cache = PrefixCache::build(&data, draw_subsets(d, s, 0.2, 1).unwrap());
        let m = cache.max_level();
        let level = |i: usize, f: u32| {
            let mapper = &data.mappers[f as usize];
            let b = data.column(f as usize)[i];
            if b == mapper.missing_bin() {
                0
            } else {
                let top = (mapper.n_value_bins() as u32 - 1).max(1);
                b as u32 * m.min(top) / top
            }
        };
        let rows = [0u32, 5, 77, n as u32 - 1];
        let mut sums = Vec::new();
        for (g, subset) in cache.subsets().iter().enumerate() {
            for lo in (0..subset.len()).step_by(subset.len() / 30 + 1) {
                for hi in lo..=subset.len() {
                    sums.clear();
                    cache.range_sums(g, lo, hi, &rows, &mut sums);
                    for (&i, &got) in rows.iter().zip(&sums) {
                        let direct: u32 =
                            subset[lo..hi].iter().map(|&f| level(i as usize, f)).sum();
                        assert_eq!(got as u32, direct);
                    }
                }
            }
        }
        let len = d.div_ceil(s);
        assert_eq!(
            cache.memory_bytes(),
            cache.subsets().len() * (len + 1) * n * 2
        );
    }

    #[test]
    fn any_range_sum_equals_the_direct_sum() {
        // Short subsets keep every bin as its own level.
        check_every_range(300, 40, 4, 16);
    }

    #[test]
    fn long_subsets_are_quantized_so_sums_fit_16_bits() {
        // One subset of 600 features: levels 0..=109 instead of 255 bins,
        // or the sum of a long range would overflow 16 bits.
        check_every_range(300, 600, 1, 255);
    }
}
