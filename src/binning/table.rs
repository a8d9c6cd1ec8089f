//! A fast [`BinMapper::bin`] for whole columns.

use super::BinMapper;
use crate::cut_points::ValueBuckets;

/// [`BinMapper::bin`] for a whole column, fast: its binary search mispredicts
/// about half its branches, which made it most of the binning time.
///
/// The range of the thresholds is cut into [`LOOKUP_BUCKETS`] equal buckets
/// (or, to bin the values the cut points were found from, the range of the
/// values into the buckets they were sorted into, so that each value's
/// bucket is known already), each knowing how many thresholds lie in
/// earlier buckets. A value's bin is
/// that count plus how many of the next [`LOOKUP_WIDTH`] thresholds are below
/// it: thresholds in later buckets are above the value (the bucket of a
/// value never decreases as the value grows), so the sum is exact as long as
/// no bucket holds more than [`LOOKUP_WIDTH`] thresholds. Features whose
/// thresholds crowd (heavy tails) use a branchless binary search instead.
pub(super) struct BinTable {
    /// The thresholds, padded with +∞ to 256 + [`LOOKUP_WIDTH`] entries.
    padded: Vec<f64>,
    /// Thresholds in buckets before each bucket; empty for the binary search.
    pub(super) before: Vec<u8>,
    /// The buckets (their ranges only; no ids).
    buckets: ValueBuckets,
    pub(super) missing: u8,
}

const LOOKUP_BUCKETS: usize = 2048;
const LOOKUP_WIDTH: usize = 4;

impl BinTable {
    pub(super) fn new(mapper: &BinMapper) -> Self {
        let thresholds = &mapper.thresholds;
        let (first, last) = match thresholds.as_slice() {
            [] => (0.0, 0.0),
            [first, .., last] => (*first, *last),
            [only] => (*only, *only),
        };
        let mut table = BinTable::with_buckets(
            mapper,
            ValueBuckets {
                min: first,
                scale: LOOKUP_BUCKETS as f64 / (last - first),
                n_buckets: LOOKUP_BUCKETS,
                ids: Vec::new(),
            },
        );
        table.count_thresholds();
        table
    }

    /// The table over the buckets a feature's values were already sorted
    /// into (their ids then need not be computed again); `None` if a bucket
    /// holds too many thresholds.
    pub(super) fn over_buckets(mapper: &BinMapper, buckets: &ValueBuckets) -> Option<Self> {
        let mut table = BinTable::with_buckets(
            mapper,
            ValueBuckets {
                ids: Vec::new(),
                ..*buckets
            },
        );
        table.count_thresholds();
        (!table.before.is_empty()).then_some(table)
    }

    fn with_buckets(mapper: &BinMapper, buckets: ValueBuckets) -> Self {
        let thresholds = &mapper.thresholds;
        let mut padded = vec![f64::INFINITY; 256 + LOOKUP_WIDTH];
        padded[..thresholds.len()].copy_from_slice(thresholds);
        BinTable {
            padded,
            before: Vec::new(),
            buckets,
            missing: mapper.missing_bin(),
        }
    }

    /// Fill `before` if no bucket holds more than [`LOOKUP_WIDTH`]
    /// thresholds.
    fn count_thresholds(&mut self) {
        let n_thresholds = usize::from(self.missing) - 1;
        // The thresholds ascend, so their buckets do too.
        let bucket_of_threshold: Vec<usize> = self.padded[..n_thresholds]
            .iter()
            .map(|&t| self.buckets.bucket_of(t))
            .collect();
        let crowded = bucket_of_threshold
            .windows(LOOKUP_WIDTH + 1)
            .any(|w| w[0] == w[LOOKUP_WIDTH]);
        if crowded {
            return;
        }
        self.before = vec![0; self.buckets.n_buckets];
        let mut k = 0;
        for (b, before) in self.before.iter_mut().enumerate() {
            while k < n_thresholds && bucket_of_threshold[k] < b {
                k += 1;
            }
            *before = k as u8;
        }
    }

    /// The same bin as [`BinMapper::bin`] (values are finite or NaN).
    #[inline]
    pub(super) fn bin(&self, value: f64) -> u8 {
        if value.is_nan() {
            return self.missing;
        }
        if self.before.is_empty() {
            return self.searched_bin(value);
        }
        self.bin_in(value, self.buckets.bucket_of(value))
    }

    /// The bin of `value` (not NaN), given its bucket.
    #[inline]
    pub(super) fn bin_in(&self, value: f64, bucket: usize) -> u8 {
        let start = self.before[bucket] as usize;
        let next = &self.padded[start..start + LOOKUP_WIDTH];
        let above: usize = next.iter().map(|&t| usize::from(t < value)).sum();
        (start + above) as u8
    }

    /// Binary search without branches. Invariant: the first `below`
    /// thresholds are < value.
    #[inline]
    fn searched_bin(&self, value: f64) -> u8 {
        let mut below = 0usize;
        for step in [128, 64, 32, 16, 8, 4, 2, 1] {
            below += step * usize::from(self.padded[below + step - 1] < value);
        }
        below as u8
    }
}
