//! Checkpointed prefix sums of quantized feature values along each subset's
//! order.
//!
//! Each feature's bin index is quantized to a level in `0..=m` (NaN counts
//! 0). Sums are kept in 16 bits while that leaves at least
//! [`MIN_NARROW_LEVELS`] levels, i.e. for subsets of `L ≤ 4369` features,
//! with `m = min(255, ⌊65535 / L⌋)` so that the sum over any range of a
//! subset fits; longer subsets (d/s beyond 4369, up to the 2²⁴ features a
//! fit may have) keep 32-bit sums and every bin as its own level
//! (`m = 255`), where 16 bits would quantize every level to 0 or 1 and
//! leave the group test nothing to measure. Levels follow the quantile
//! bins: monotone in the feature and robust to outliers (the paper's
//! min-max scaling is not).
//!
//! For subset `g` with features `f_0, f_1, ...` and row `i`, let
//! `P[k][i] = Σ_{j<k} level(x_i, f_j)` modulo the word size. The cache
//! keeps `P` only at the checkpoints `k = 0, K, 2K, ...` and `k = L`
//! ([`CHECKPOINT`] = K). The pseudo-feature of a range whose ends are
//! checkpoints is `P[hi] − P[lo]` in wrapping arithmetic (exact: the true
//! sum fits the word); the binary search only cuts at checkpoints until a
//! range has at most K features, whose levels are then summed directly
//! from the level columns (one byte per row and feature, kept beside the
//! sums).
//!
//! Memory: `p · (⌈L/K⌉ + 1) · n` words and `n · d` level bytes, about
//! `2·e·ln(s/δ)/K + 1` bytes per (row, feature) with 16-bit words: 3.3 for
//! s = 3, δ = 0.1, 4.2 for s = 10 (the binned data itself is 1 byte); 32-bit
//! words double the first term. Subsets of up to 257 features keep every
//! bin as its own level; longer ones lose resolution (`m = 39` for 1667
//! features), which costs the group test little: the pseudo-feature sums
//! hundreds of features and is binned to at most 64 bins anyway.

use crate::binning::BinnedData;
use crate::error::Result;
use crate::interrupt::{self, ShouldStop};
use crate::memory::try_filled;
use rayon::prelude::*;

/// K: prefix sums are kept at every K-th position of a subset. Ranges of
/// at most K features are summed directly from the level columns. The
/// cache's build time and size halve with each doubling of K, while the
/// direct sums of the last halvings read more scattered rows: with K = 16
/// whole fits at 6000 × 5000 (s = 3) took 1.95 s against 1.65 s with
/// K = 8 (medians of 10, two builds alternating), so 8 (see docs/gt_gbm.md,
/// "GT-GBM").
pub const CHECKPOINT: usize = 8;

/// 16-bit sums are used while they leave at least this many levels per
/// feature (subsets of up to ⌊65535/15⌋ = 4369 features).
pub const MIN_NARROW_LEVELS: usize = 15;

/// An unsigned word holding range sums, added and subtracted modulo its
/// size (exact while true sums fit it).
pub trait SumWord: Copy + Default + Ord + Send + Sync + 'static {
    /// The largest value.
    const MAX: Self;
    /// Zero.
    const ZERO: Self;
    /// Bits of fixed point when mapping a range of values onto bins (the
    /// word's own width, so any range keeps a non-zero scale).
    const SHIFT: u32;
    /// A feature's level.
    fn from_level(level: u8) -> Self;
    /// `self + other` modulo the word size.
    fn wrapping_add(self, other: Self) -> Self;
    /// `self − other` modulo the word size.
    fn wrapping_sub(self, other: Self) -> Self;
    /// The value, widened.
    fn widen(self) -> u64;
    /// The cache's sums, if it keeps words of this type.
    fn sums(cache: &PrefixCache) -> Option<&[Self]>;
}

macro_rules! sum_word {
    ($word:ty, $variant:ident) => {
        impl SumWord for $word {
            const MAX: Self = <$word>::MAX;
            const ZERO: Self = 0;
            const SHIFT: u32 = <$word>::BITS;
            #[inline]
            fn from_level(level: u8) -> Self {
                Self::from(level)
            }
            #[inline]
            fn wrapping_add(self, other: Self) -> Self {
                <$word>::wrapping_add(self, other)
            }
            #[inline]
            fn wrapping_sub(self, other: Self) -> Self {
                <$word>::wrapping_sub(self, other)
            }
            #[inline]
            fn widen(self) -> u64 {
                u64::from(self)
            }
            fn sums(cache: &PrefixCache) -> Option<&[Self]> {
                match &cache.sums {
                    Sums::$variant(sums) => Some(sums),
                    _ => None,
                }
            }
        }
    };
}
sum_word!(u16, Narrow);
sum_word!(u32, Wide);

/// The prefix sums, in the word their subsets' length needs.
#[derive(Debug, Clone)]
enum Sums {
    Narrow(Vec<u16>),
    Wide(Vec<u32>),
}

/// The checkpointed prefix sums of every subset, checkpoint-major: each
/// (subset, checkpoint) is one contiguous column of n sums.
#[derive(Debug, Clone)]
pub struct PrefixCache {
    n_rows: usize,
    /// Features per subset, L.
    len: usize,
    /// Checkpoints per subset: 0, K, 2K, ... and L.
    n_checkpoints: usize,
    /// The highest level of a quantized value, m.
    max_level: u32,
    /// The level at every row of each feature held in a subset,
    /// column-major like the bins.
    levels: Vec<u8>,
    /// The column of `levels` of each of the d features, `u32::MAX` for a
    /// feature in no subset.
    column_of: Vec<u32>,
    subsets: Vec<Vec<u32>>,
    sums: Sums,
}

impl PrefixCache {
    /// Build the cache of `subsets` (all of the same length) over `data`,
    /// in parallel. Fails if the memory cannot be had or `should_stop`
    /// asks to stop (polled once per feature and per subset).
    pub fn build(
        data: &BinnedData,
        subsets: Vec<Vec<u32>>,
        should_stop: &ShouldStop,
    ) -> Result<Self> {
        let n = data.n_rows;
        let len = subsets.first().map_or(0, Vec::len);
        assert!(
            subsets.iter().all(|s| s.len() == len),
            "subsets must have one length"
        );
        let narrow = u16::MAX as usize / len.max(1) >= MIN_NARROW_LEVELS;
        let word_max = if narrow {
            u16::MAX as usize
        } else {
            u32::MAX as usize
        };
        let max_level = (word_max / len.max(1)).min(255) as u32;
        // Looked up once per feature rather than once per subset holding it
        // (about e·ln(s/δ) of them); adding u8 columns vectorizes where
        // lookups do not.
        // Only features in some subset have levels: on sparse data most
        // columns cannot split and are in none.
        let mut column_of = vec![u32::MAX; data.n_features];
        let mut held: Vec<usize> = Vec::new();
        for &f in subsets.iter().flatten() {
            if column_of[f as usize] == u32::MAX {
                column_of[f as usize] = held.len() as u32;
                held.push(f as usize);
            }
        }
        let mut levels = try_filled::<u8>(n * held.len(), "the group-testing levels")?;
        levels
            .par_chunks_mut(n.max(1))
            .zip(&held)
            .try_for_each(|(out, &f)| {
                interrupt::check(should_stop)?;
                let table = level_table(data, f, max_level);
                data.decode_column(f, out);
                for level in out.iter_mut() {
                    *level = table[*level as usize];
                }
                Ok(())
            })?;
        let n_checkpoints = len.div_ceil(CHECKPOINT) + 1;
        let n_sums = subsets.len() * n_checkpoints * n;
        let what = "the group-testing prefix-sum cache (lower gt_n_features or raise gt_delta)";
        let sums = if narrow {
            let mut sums = try_filled::<u16>(n_sums, what)?;
            fill_sums(&mut sums, &subsets, &levels, &column_of, n, should_stop)?;
            Sums::Narrow(sums)
        } else {
            let mut sums = try_filled::<u32>(n_sums, what)?;
            fill_sums(&mut sums, &subsets, &levels, &column_of, n, should_stop)?;
            Sums::Wide(sums)
        };
        Ok(PrefixCache {
            n_rows: n,
            len,
            n_checkpoints,
            max_level,
            levels,
            column_of,
            subsets,
            sums,
        })
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

    /// Whether the sums are 32-bit (long subsets).
    pub fn is_wide(&self) -> bool {
        matches!(self.sums, Sums::Wide(_))
    }

    /// The level of feature `f` (one in some subset) at every row.
    pub fn levels(&self, f: usize) -> &[u8] {
        level_column(&self.levels, &self.column_of, self.n_rows, f as u32)
    }

    /// Where the binary search may cut `lo..hi` (a range whose ends are
    /// checkpoints, of at least 2 features) into two non-empty halves: at a
    /// checkpoint near the middle while the range is longer than K, else at
    /// the middle.
    pub fn cut(&self, lo: usize, hi: usize) -> usize {
        cut(lo, hi)
    }

    /// Whether position `k` of a subset is a checkpoint.
    pub fn is_checkpoint(&self, k: usize) -> bool {
        self.checkpoint(k).is_some()
    }

    /// The prefix sums at checkpoint position `k` of subset `g` (the sum of
    /// positions `0..k`) at each of `rows`, appended to `out`. `W` must be
    /// the cache's word ([`PrefixCache::is_wide`]).
    pub fn prefix_sums<W: SumWord>(&self, g: usize, k: usize, rows: &[u32], out: &mut Vec<W>) {
        let c = self
            .checkpoint(k)
            .unwrap_or_else(|| panic!("position {k} is not a checkpoint"));
        let column = self.column::<W>(g, c);
        out.extend(rows.iter().map(|&r| column[r as usize]));
    }

    /// As [`PrefixCache::prefix_sums`] into `at`, and in the same pass
    /// their differences from `start` (the prefix sums at an earlier
    /// checkpoint, at the same rows) into `since`: the range between.
    pub fn prefix_sums_since<W: SumWord>(
        &self,
        g: usize,
        k: usize,
        rows: &[u32],
        start: &[W],
        at: &mut Vec<W>,
        since: &mut Vec<W>,
    ) {
        let c = self
            .checkpoint(k)
            .unwrap_or_else(|| panic!("position {k} is not a checkpoint"));
        let column = self.column::<W>(g, c);
        at.reserve(rows.len());
        since.reserve(rows.len());
        for (&r, &s) in rows.iter().zip(start) {
            let z = column[r as usize];
            at.push(z);
            since.push(z.wrapping_sub(s));
        }
    }

    /// The sum of the levels of positions `lo..hi` of subset `g` at each of
    /// `rows`, added up feature by feature (for short ranges), appended to
    /// `out`.
    pub fn direct_sums<W: SumWord>(
        &self,
        g: usize,
        lo: usize,
        hi: usize,
        rows: &[u32],
        out: &mut Vec<W>,
    ) {
        let first = out.len();
        out.resize(first + rows.len(), W::default());
        for &f in &self.subsets[g][lo..hi] {
            let levels = self.levels(f as usize);
            for (sum, &r) in out[first..].iter_mut().zip(rows) {
                *sum = sum.wrapping_add(W::from_level(levels[r as usize]));
            }
        }
    }

    /// The pseudo-feature of positions `lo..hi` of subset `g` at each of
    /// `rows`, appended to `out`: from the cache when both ends are
    /// checkpoints, else summed directly. A shard's test of any range of a
    /// distributed search, and the tests' reference (the single-machine
    /// search gets each half from one new column, [`super::search`]).
    pub fn range_sums<W: SumWord>(
        &self,
        g: usize,
        lo: usize,
        hi: usize,
        rows: &[u32],
        out: &mut Vec<W>,
    ) {
        match (self.checkpoint(lo), self.checkpoint(hi)) {
            (Some(a), Some(b)) => {
                let (start, end) = (self.column::<W>(g, a), self.column::<W>(g, b));
                out.extend(
                    rows.iter()
                        .map(|&r| end[r as usize].wrapping_sub(start[r as usize])),
                );
            }
            _ => self.direct_sums(g, lo, hi, rows, out),
        }
    }

    /// The checkpoint at position `k`, if it is one.
    fn checkpoint(&self, k: usize) -> Option<usize> {
        if k == self.len {
            Some(self.n_checkpoints - 1)
        } else if k.is_multiple_of(CHECKPOINT) {
            Some(k / CHECKPOINT)
        } else {
            None
        }
    }

    /// The sums at checkpoint `c` of subset `g`, for all rows.
    fn column<W: SumWord>(&self, g: usize, c: usize) -> &[W] {
        let sums = W::sums(self).expect("the search reads the cache's own word");
        let start = (g * self.n_checkpoints + c) * self.n_rows;
        &sums[start..start + self.n_rows]
    }

    /// Bytes held by the sums and the levels.
    pub fn memory_bytes(&self) -> usize {
        let sums = match &self.sums {
            Sums::Narrow(s) => std::mem::size_of_val(s.as_slice()),
            Sums::Wide(s) => std::mem::size_of_val(s.as_slice()),
        };
        sums + self.levels.len()
    }
}

/// Where the binary search cuts `lo..hi` (see [`PrefixCache::cut`]): it
/// depends on the range alone, so a distributed fit's client plans its
/// shards' tests without their caches.
pub fn cut(lo: usize, hi: usize) -> usize {
    if hi - lo > CHECKPOINT {
        lo + CHECKPOINT * ((hi - lo) / (2 * CHECKPOINT)).max(1)
    } else {
        lo + (hi - lo) / 2
    }
}

/// The levels of feature `f` (one in some subset) among `levels`.
fn level_column<'a>(levels: &'a [u8], column_of: &[u32], n: usize, f: u32) -> &'a [u8] {
    let c = column_of[f as usize];
    assert!(c != u32::MAX, "feature {f} is in no subset");
    &levels[c as usize * n..(c as usize + 1) * n]
}

/// Fill each subset's block of `n_checkpoints · n` sums (checkpoint-major).
fn fill_sums<W: SumWord>(
    sums: &mut [W],
    subsets: &[Vec<u32>],
    levels: &[u8],
    column_of: &[u32],
    n: usize,
    should_stop: &ShouldStop,
) -> Result<()> {
    let Some(len) = subsets.first().map(Vec::len) else {
        return Ok(());
    };
    let n_checkpoints = len.div_ceil(CHECKPOINT) + 1;
    let level_column = |f: u32| level_column(levels, column_of, n, f);
    sums.par_chunks_mut((n_checkpoints * n).max(1))
        .zip(subsets)
        .try_for_each(|(block, subset)| {
            // Column 0 stays 0; each later checkpoint adds the levels of
            // the features since the previous one.
            for (c, chunk) in subset.chunks(CHECKPOINT).enumerate() {
                if c % 64 == 0 {
                    interrupt::check(should_stop)?;
                }
                let (done, rest) = block.split_at_mut((c + 1) * n);
                let out = &mut rest[..n];
                out.copy_from_slice(&done[c * n..]);
                for &f in chunk {
                    for (sum, &level) in out.iter_mut().zip(level_column(f)) {
                        *sum = sum.wrapping_add(W::from_level(level));
                    }
                }
            }
            Ok(())
        })
}

/// The level of each bin of feature `f`: value bins spread evenly over
/// `0..=max_level`; the NaN bin is 0.
fn level_table(data: &BinnedData, f: usize, max_level: u32) -> [u8; 256] {
    let mapper = &data.mappers[f];
    let top = (mapper.n_value_bins() as u32).saturating_sub(1).max(1);
    let mut table = [0u8; 256];
    for (b, level) in table.iter_mut().enumerate().take(mapper.n_value_bins()) {
        *level = (b as u32 * max_level.min(top) / top) as u8;
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::binning::bin_matrix;
    use crate::group_testing::draw_subsets;
    use crate::interrupt::never;
    use crate::rng::Rng;

    /// Every range the binary search can ask for (ends at checkpoints, or at
    /// most K features) equals the direct sum of levels; returns the cache.
    fn check_every_range(n: usize, d: usize, s: usize, max_bins: usize) -> PrefixCache {
        let mut rng = Rng::new(9);
        let mut x: Vec<f64> = (0..n * d).map(|_| rng.next_f64()).collect();
        x[5 * d + 3] = f64::NAN;
        let data = bin_matrix(&x, n, d, max_bins, 1000, 0, &never).unwrap();
        let subsets = draw_subsets(d, s, 0.2, 1).unwrap();
        let cache = PrefixCache::build(&data, subsets, &never).unwrap();
        if cache.is_wide() {
            check_ranges::<u32>(&cache, &data, n);
        } else {
            check_ranges::<u16>(&cache, &data, n);
        }
        cache
    }

    fn check_ranges<W: SumWord>(cache: &PrefixCache, data: &BinnedData, n: usize) {
        let d = data.n_features;
        let m = cache.max_level();
        let level = |i: usize, f: u32| {
            let mapper = &data.mappers[f as usize];
            let b = data.bin_at(f as usize, i);
            if b == mapper.missing_bin() {
                0
            } else {
                let top = (mapper.n_value_bins() as u32 - 1).max(1);
                b as u32 * m.min(top) / top
            }
        };
        let rows: Vec<u32> = [0u32, 5, 77, n as u32 - 1]
            .into_iter()
            .filter(|&r| (r as usize) < n)
            .collect();
        let len = cache.subset_len();
        let ends: Vec<usize> = (0..=len)
            .filter(|&k| k.is_multiple_of(CHECKPOINT) || k == len)
            .collect();
        // Long subsets: every 97th start, or the pairs would be billions.
        let step = if len > 1000 { 97 } else { 1 };
        let mut ranges: Vec<(usize, usize)> = Vec::new();
        for (i, &lo) in ends.iter().enumerate().step_by(step) {
            ranges.extend(ends[i..].iter().step_by(step).map(|&hi| (lo, hi)));
            ranges.push((lo, len));
        }
        for lo in (0..len).step_by(step) {
            ranges.extend((lo..=len.min(lo + CHECKPOINT)).map(|hi| (lo, hi)));
        }
        let mut sums: Vec<W> = Vec::new();
        for (g, subset) in cache.subsets().iter().enumerate() {
            // The direct sum of any range at row i is a difference of these
            // running totals of the levels (in u64: no wrapping).
            let totals: Vec<Vec<u64>> = rows
                .iter()
                .map(|&i| {
                    let mut total = vec![0u64];
                    for &f in subset {
                        total.push(total.last().unwrap() + u64::from(level(i as usize, f)));
                    }
                    total
                })
                .collect();
            for &(lo, hi) in &ranges {
                sums.clear();
                cache.range_sums(g, lo, hi, &rows, &mut sums);
                for (total, &got) in totals.iter().zip(&sums) {
                    let direct = total[hi] - total[lo];
                    assert_eq!(got.widen(), direct, "subset {g}, range {lo}..{hi}");
                }
            }
        }
        let columns = len.div_ceil(CHECKPOINT) + 1;
        assert_eq!(
            cache.memory_bytes(),
            cache.subsets().len() * columns * n * std::mem::size_of::<W>() + d * n
        );
    }

    #[test]
    fn any_range_sum_equals_the_direct_sum() {
        // Short subsets (10 features, not a multiple of K) keep every bin
        // as its own level.
        check_every_range(300, 40, 4, 16);
    }

    #[test]
    fn long_subsets_are_quantized_so_sums_fit_16_bits() {
        // One subset of 600 features: levels 0..=109 instead of 255 bins,
        // or the sum of a long range would overflow 16 bits.
        let cache = check_every_range(300, 600, 1, 255);
        assert!(!cache.is_wide());
        assert_eq!(cache.max_level(), 109);
    }

    #[test]
    fn subsets_too_long_for_16_bits_keep_32_bit_sums_and_every_bin() {
        // 16 bits would leave 14 levels for 4370 features, and none at all
        // beyond 65535 (every level 0: the test could not tell features
        // apart).
        let cache = check_every_range(40, 4370, 1, 255);
        assert!(cache.is_wide());
        assert_eq!(cache.max_level(), 255);
        let cache = check_every_range(20, 100_000, 1, 255);
        assert!(cache.is_wide());
        assert_eq!(cache.max_level(), 255);
    }

    #[test]
    fn building_stops_when_asked() {
        let data = bin_matrix(&[0.5; 40 * 30], 40, 30, 8, 40, 0, &never).unwrap();
        let subsets = draw_subsets(30, 3, 0.1, 0).unwrap();
        let stop = || true;
        let e = PrefixCache::build(&data, subsets, &stop).unwrap_err();
        assert_eq!(e, crate::error::SbError::Interrupted);
    }

    #[test]
    fn cuts_fall_on_checkpoints_and_leave_two_nonempty_halves() {
        let data = bin_matrix(&[0.0; 10 * 50], 10, 50, 8, 10, 0, &never).unwrap();
        let cache = PrefixCache::build(&data, vec![(0..50).collect()], &never).unwrap();
        let mut stack = vec![(0, 50)];
        while let Some((lo, hi)) = stack.pop() {
            if hi - lo < 2 {
                continue;
            }
            let mid = cache.cut(lo, hi);
            assert!(lo < mid && mid < hi, "{lo}..{mid}..{hi}");
            if hi - lo > CHECKPOINT {
                assert!(mid.is_multiple_of(CHECKPOINT));
                assert!(mid - lo <= (hi - lo).div_ceil(2) + CHECKPOINT);
            }
            stack.extend([(lo, mid), (mid, hi)]);
        }
    }
}
