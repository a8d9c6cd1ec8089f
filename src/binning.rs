//! Quantile binning of a dense feature matrix into `u8` bins.
//!
//! Every feature gets at most `max_bins` value bins (equal-frequency cuts on a
//! row sample, midway between distinct values: [`crate::cut_points`]) plus
//! one bin of its own for NaN. The binned matrix is stored column-major so that a histogram of one
//! feature reads one contiguous column.

use crate::cut_points::{cut_points, cut_points_and_buckets, ValueBuckets};
use crate::error::{Result, SbError};
use crate::interrupt::{self, ShouldStop};
use crate::memory::try_filled;
use crate::rng::Rng;
use rayon::prelude::*;
use std::ops::Range;

/// The cut points of one feature: value `v` falls in bin `b` when
/// `thresholds[b-1] < v <= thresholds[b]`; NaN falls in [`BinMapper::missing_bin`].
#[derive(Debug, Clone, PartialEq)]
pub struct BinMapper {
    /// Strictly increasing cut points, at most `max_bins - 1` of them.
    pub thresholds: Vec<f64>,
}

impl BinMapper {
    /// Learn the cut points from the values of a feature (any order; NaN
    /// values are skipped).
    pub fn fit(values: &[f64], max_bins: usize) -> BinMapper {
        BinMapper {
            thresholds: cut_points(values, max_bins),
        }
    }

    /// Number of bins for real values (≥ 1).
    pub fn n_value_bins(&self) -> usize {
        self.thresholds.len() + 1
    }

    /// The bin of NaN: the last one.
    pub fn missing_bin(&self) -> u8 {
        self.thresholds.len() as u8 + 1
    }

    /// Value bins plus the NaN bin.
    pub fn n_bins(&self) -> usize {
        self.thresholds.len() + 2
    }

    /// The bin of `value`.
    #[inline]
    pub fn bin(&self, value: f64) -> u8 {
        if value.is_nan() {
            self.missing_bin()
        } else {
            self.thresholds.partition_point(|&t| t < value) as u8
        }
    }

    /// The real threshold of a split that sends bins `<= bin` left:
    /// `x <= threshold` goes left. `f64::MAX` for the last value bin (a split
    /// that separates the NaN rows from all others; infinite values are
    /// rejected, and JSON has no infinity).
    pub fn threshold_of_bin(&self, bin: u8) -> f64 {
        self.thresholds
            .get(bin as usize)
            .copied()
            .unwrap_or(f64::MAX)
    }
}

/// A feature matrix after binning.
#[derive(Debug, Clone)]
pub struct BinnedData {
    /// Number of rows, n.
    pub n_rows: usize,
    /// Number of features, d.
    pub n_features: usize,
    /// Column-major bins, shape (d, n): feature `f` is `bins[f*n .. (f+1)*n]`.
    pub bins: Vec<u8>,
    /// The cut points of each feature, length d.
    pub mappers: Vec<BinMapper>,
    /// Whether a quarter of the rows or more share one bin of a feature
    /// (mostly-zero and few-valued features), length d: their histograms
    /// are accumulated in interleaved copies (see [`crate::histogram`]).
    pub skewed: Vec<bool>,
    /// Whether a feature's rows fall in two bins at least, length d: a
    /// constant feature (all zero, say) can never split, so no node builds
    /// its histogram.
    pub splittable: Vec<bool>,
}

impl BinnedData {
    /// The bins of feature `f`, length n.
    #[inline]
    pub fn column(&self, f: usize) -> &[u8] {
        &self.bins[f * self.n_rows..(f + 1) * self.n_rows]
    }
}

/// Features binned together by one task: their values are gathered row by
/// row, a few cache lines per row, into columns that serve both the cut
/// points and the bins.
const FEATURE_BLOCK: usize = 64;
/// Rows gathered at a time when the cut points come from a row sample.
const ROW_CHUNK: usize = 4096;

/// Bin a row-major matrix `x` of shape (n_rows, n_features).
///
/// Cut points come from at most `sample_rows` rows drawn with `seed`. NaN is
/// allowed (it gets the missing bin); ±inf is rejected. `should_stop` is
/// polled every few thousand rows of every block of features.
pub fn bin_matrix(
    x: &[f64],
    n_rows: usize,
    n_features: usize,
    max_bins: usize,
    sample_rows: usize,
    seed: u64,
    should_stop: &ShouldStop,
) -> Result<BinnedData> {
    if x.len() != n_rows * n_features {
        return Err(SbError::InvalidInput(format!(
            "X has {} values, expected {n_rows} x {n_features}",
            x.len()
        )));
    }
    let sample: Option<Vec<usize>> = (n_rows > sample_rows)
        .then(|| Rng::derive(seed, u64::MAX).sample_sorted(n_rows, sample_rows));
    let matrix = RowMajor {
        x,
        n_rows,
        n_features,
        should_stop,
    };
    let mut bins = try_filled::<u8>(n_rows * n_features, "the binned matrix")?;
    let block_len = FEATURE_BLOCK * n_rows.max(1);
    // Each worker reuses one buffer of gathered columns: fresh pages cost a
    // fault each, as much as gathering them.
    let mappers: Vec<Result<Vec<BinMapper>>> = bins
        .par_chunks_mut(block_len)
        .enumerate()
        .map_init(Vec::new, |columns, (block, out)| {
            let f0 = block * FEATURE_BLOCK;
            let features = f0..(f0 + FEATURE_BLOCK).min(n_features);
            matrix.bin_block(features, sample.as_deref(), max_bins, out, columns)
        })
        .collect();
    let mut all = Vec::with_capacity(n_features);
    for block in mappers {
        all.extend(block?);
    }
    if n_rows == 0 {
        all = (0..n_features)
            .map(|_| BinMapper {
                thresholds: Vec::new(),
            })
            .collect();
    }
    let (skewed, splittable) = column_shapes(&bins, n_rows, n_features);
    Ok(BinnedData {
        n_rows,
        n_features,
        bins,
        mappers: all,
        skewed,
        splittable,
    })
}

/// For each column of `bins` (column-major, `n_rows` each): whether a
/// quarter of its rows or more share one bin, and whether it has rows in
/// two bins at least (else no split can use it).
fn column_shapes(bins: &[u8], n_rows: usize, n_features: usize) -> (Vec<bool>, Vec<bool>) {
    if n_rows == 0 {
        return (vec![false; n_features], vec![false; n_features]);
    }
    bins.par_chunks(n_rows)
        .map(|column| {
            let mut counts = [0u32; 256];
            for &b in column {
                counts[b as usize] += 1;
            }
            let most = counts.iter().copied().max().unwrap_or(0) as usize;
            let occupied = counts.iter().filter(|&&c| c > 0).count();
            (4 * most >= n_rows, occupied >= 2)
        })
        .unzip()
}

/// A matrix binned with cut points found before (an evaluation set, with
/// the training data's), column-major like [`BinnedData`]: it is only ever
/// routed through trees, a few rows at a time in lockstep, so neighbouring
/// rows read neighbouring bytes of a split's column. Against row-major
/// storage (a row's bins in one place), routing a 100000 x 100 eval set
/// through a 31-leaf tree took 0.16 ms instead of 1.0 ms a round.
#[derive(Debug, Clone)]
pub struct BinnedMatrix {
    /// Rows.
    pub n_rows: usize,
    /// Features.
    pub n_features: usize,
    /// Column-major bins: feature j is `bins[j*n_rows..(j+1)*n_rows]`.
    pub bins: Vec<u8>,
    /// The NaN bin of each feature.
    pub missing: Vec<u8>,
}

/// Bin a row-major matrix `x` of shape (n_rows, mappers.len()) with known
/// cut points, through the lookup tables of [`bin_matrix`]: the same bins
/// the training binning gives the same values. ±inf is rejected;
/// `should_stop` is polled per block of rows.
pub fn bin_rows_with(
    x: &[f64],
    n_rows: usize,
    mappers: &[BinMapper],
    should_stop: &ShouldStop,
) -> Result<BinnedMatrix> {
    let d = mappers.len();
    if x.len() != n_rows * d {
        return Err(SbError::InvalidInput(format!(
            "X has {} values, expected {n_rows} x {d}",
            x.len()
        )));
    }
    let matrix = RowMajor {
        x,
        n_rows,
        n_features: d,
        should_stop,
    };
    let mut bins = try_filled::<u8>(n_rows * d, "the binned matrix")?;
    // Blocks of a few features, so that every thread has some (there are
    // no cut points to fit, which made large blocks pay in `bin_matrix`).
    let width = d
        .div_ceil(4 * rayon::current_num_threads())
        .clamp(8, FEATURE_BLOCK);
    bins.par_chunks_mut(width * n_rows.max(1))
        .enumerate()
        .map_init(Vec::new, |columns, (block, out)| {
            let f0 = block * width;
            let features = f0..(f0 + width).min(d);
            let tables: Vec<BinTable> = mappers[features.clone()]
                .iter()
                .map(BinTable::new)
                .collect();
            matrix.bin_rows(features, &tables, out, columns)
        })
        .collect::<Result<()>>()?;
    Ok(BinnedMatrix {
        n_rows,
        n_features: d,
        bins,
        missing: mappers.iter().map(BinMapper::missing_bin).collect(),
    })
}

struct RowMajor<'a> {
    x: &'a [f64],
    n_rows: usize,
    n_features: usize,
    should_stop: &'a ShouldStop<'a>,
}

impl RowMajor<'_> {
    /// Fit the cut points of `features` and write their bins, column-major,
    /// to `out`. Every value is read once from `x` when all rows are the
    /// sample (the usual case): the block's columns serve both steps.
    /// `columns` is space for the gathered values.
    fn bin_block(
        &self,
        features: Range<usize>,
        sample: Option<&[usize]>,
        max_bins: usize,
        out: &mut [u8],
        columns: &mut Vec<f64>,
    ) -> Result<Vec<BinMapper>> {
        let n = self.n_rows;
        let fit = |columns: &[f64], rows: usize| -> Vec<BinMapper> {
            columns
                .chunks(rows.max(1))
                .map(|column| BinMapper::fit(column, max_bins))
                .collect()
        };
        let tables = |mappers: &[BinMapper]| mappers.iter().map(BinTable::new).collect::<Vec<_>>();
        let Some(sample) = sample else {
            self.columns(features, 0..n, columns)?;
            return columns
                .chunks(n.max(1))
                .zip(out.chunks_mut(n.max(1)))
                .map(|(column, bins)| {
                    interrupt::check(self.should_stop)?;
                    Ok(fit_and_bin(column, max_bins, bins))
                })
                .collect();
        };
        self.columns(features.clone(), sample.iter().copied(), columns)?;
        let mappers = fit(columns, sample.len());
        self.bin_rows(features, &tables(&mappers), out, columns)?;
        Ok(mappers)
    }

    /// Bin every row of `features` with their `tables` into `out`
    /// (column-major), a chunk of rows at a time; `columns` is space for
    /// the gathered values.
    fn bin_rows(
        &self,
        features: Range<usize>,
        tables: &[BinTable],
        out: &mut [u8],
        columns: &mut Vec<f64>,
    ) -> Result<()> {
        let n = self.n_rows;
        for start in (0..n).step_by(ROW_CHUNK) {
            interrupt::check(self.should_stop)?;
            let rows = start..(start + ROW_CHUNK).min(n);
            self.columns(features.clone(), rows.clone(), columns)?;
            bin_columns(columns, tables, out, n, start);
        }
        Ok(())
    }

    /// The values of `features` at `rows` into `columns`, column-major (one
    /// column per feature, in the order of `rows`). Rejects ±inf.
    fn columns(
        &self,
        features: Range<usize>,
        rows: impl ExactSizeIterator<Item = usize> + Clone,
        columns: &mut Vec<f64>,
    ) -> Result<()> {
        let m = rows.len();
        columns.resize(features.len() * m, 0.0); // every value is overwritten below
        let mut any_infinite = false;
        let ahead: Vec<usize> = rows.clone().skip(PREFETCH_ROWS).collect();
        for (i, r) in rows.clone().enumerate() {
            if i % ROW_CHUNK == 0 {
                interrupt::check(self.should_stop)?;
            }
            if let Some(&next) = ahead.get(i) {
                let row = &self.x[next * self.n_features..][features.clone()];
                for line in row.chunks(8) {
                    prefetch(line.as_ptr());
                }
            }
            let row = &self.x[r * self.n_features..][features.clone()];
            for (k, &v) in row.iter().enumerate() {
                any_infinite |= v.is_infinite();
                columns[k * m + i] = v;
            }
        }
        if any_infinite {
            let (i, k) = (0..columns.len())
                .find(|&at| columns[at].is_infinite())
                .map(|at| (at % m, at / m))
                .expect("an infinite value");
            let r = rows.clone().nth(i).expect("a row");
            return Err(SbError::InvalidInput(format!(
                "X contains an infinite value (row {r}, feature {})",
                features.start + k
            )));
        }
        Ok(())
    }
}

/// Rows are read this far ahead. A row's block of values sits a whole row
/// (d values) after the previous row's, too far for the hardware
/// prefetcher; without the hint, gathering was a quarter of binning time at
/// d = 2000.
const PREFETCH_ROWS: usize = 8;

#[inline(always)]
fn prefetch(p: *const f64) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is a hint; it never faults, and `p` points into a
    // live slice anyway.
    unsafe {
        std::arch::x86_64::_mm_prefetch(p as *const i8, std::arch::x86_64::_MM_HINT_T0);
    }
}

/// The cut points of all the values of a feature, and their bins, written
/// to `bins`. The buckets that found the cut points give each value's
/// bucket in the lookup table for free.
fn fit_and_bin(values: &[f64], max_bins: usize, bins: &mut [u8]) -> BinMapper {
    let (thresholds, buckets) = cut_points_and_buckets(values, max_bins);
    let mapper = BinMapper { thresholds };
    let over_buckets = buckets.and_then(|b| Some((BinTable::over_buckets(&mapper, &b)?, b)));
    match over_buckets {
        Some((table, buckets)) => {
            for ((bin, &v), &id) in bins.iter_mut().zip(values).zip(&buckets.ids) {
                *bin = if v.is_nan() {
                    table.missing
                } else {
                    table.bin_in(v, id as usize)
                };
            }
        }
        None => bin_columns(values, &[BinTable::new(&mapper)], bins, values.len(), 0),
    }
    mapper
}

/// Bin the column-major `columns` (one per table, `columns.len() / tables.len()`
/// rows each) into rows `first_row..` of the (n-row) columns of `out`.
fn bin_columns(columns: &[f64], tables: &[BinTable], out: &mut [u8], n: usize, first_row: usize) {
    let m = columns.len() / tables.len().max(1);
    for (k, table) in tables.iter().enumerate() {
        let column = &mut out[k * n + first_row..k * n + first_row + m];
        for (bin, &v) in column.iter_mut().zip(&columns[k * m..(k + 1) * m]) {
            *bin = table.bin(v);
        }
    }
}

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
struct BinTable {
    /// The thresholds, padded with +∞ to 256 + [`LOOKUP_WIDTH`] entries.
    padded: Vec<f64>,
    /// Thresholds in buckets before each bucket; empty for the binary search.
    before: Vec<u8>,
    /// The buckets (their ranges only; no ids).
    buckets: ValueBuckets,
    missing: u8,
}

const LOOKUP_BUCKETS: usize = 2048;
const LOOKUP_WIDTH: usize = 4;

impl BinTable {
    fn new(mapper: &BinMapper) -> Self {
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
    fn over_buckets(mapper: &BinMapper, buckets: &ValueBuckets) -> Option<Self> {
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
    fn bin(&self, value: f64) -> u8 {
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
    fn bin_in(&self, value: f64, bucket: usize) -> u8 {
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

#[cfg(test)]
mod tests {
    #[test]
    fn constant_and_mostly_one_value_columns_are_flagged() {
        let n = 100;
        // Columns: constant 0; constant with NaNs; 30% zeros; all distinct.
        let x: Vec<f64> = (0..n)
            .flat_map(|r| {
                let nan_or_zero = if r % 2 == 0 { f64::NAN } else { 0.0 };
                let some_zeros = if r % 10 < 3 { 0.0 } else { r as f64 };
                [0.0, nan_or_zero, some_zeros, r as f64]
            })
            .collect();
        let binned = bin_matrix(&x, n, 4, 255, n, 0, &never).unwrap();
        assert_eq!(binned.splittable, [false, true, true, true]);
        assert_eq!(binned.skewed, [true, true, true, false]);
    }

    #[test]
    fn known_cut_points_bin_a_matrix_as_its_own_binning_did() {
        let mut rng = Rng::new(4);
        let (n, d) = (3000, 70);
        let x: Vec<f64> = (0..n * d)
            .map(|i| match i % 7 {
                0 => f64::NAN,
                1 => 0.0,
                _ => (rng.next_f64() - 0.5) * 1e3,
            })
            .collect();
        // All rows as the sample, and a sample of 500 rows (the others are
        // binned with tables over cut points they did not shape).
        for sample_rows in [n, 500] {
            let binned = bin_matrix(&x, n, d, 255, sample_rows, 1, &never).unwrap();
            let again = bin_rows_with(&x, n, &binned.mappers, &never).unwrap();
            assert_eq!(again.bins, binned.bins, "sample of {sample_rows}");
        }
        let mappers = bin_matrix(&x, n, d, 255, n, 1, &never).unwrap().mappers;
        assert!(bin_rows_with(&x[..10], 1, &mappers, &never).is_err());
        let mut infinite = x[..d].to_vec();
        infinite[3] = f64::INFINITY;
        assert!(bin_rows_with(&infinite, 1, &mappers, &never).is_err());
    }

    use super::*;
    use crate::interrupt::never;
    use crate::rng::Rng;

    #[test]
    fn the_bucketed_table_bins_like_the_mapper() {
        let mut rng = Rng::new(3);
        let mut features: Vec<(Vec<f64>, bool)> = [1, 2, 7, 255, 256, 5000]
            .into_iter()
            .map(|n_distinct| {
                let values = (0..5000)
                    .map(|i| ((i % n_distinct) as f64 - 100.0) * 0.37)
                    .collect();
                (values, true)
            })
            .collect();
        let bell = (0..5000)
            .map(|_| (0..4).map(|_| rng.next_f64()).sum::<f64>())
            .collect();
        features.push((bell, true));
        // Several thresholds share the low buckets.
        features.push(((0..300).map(|i| (i as f64).powf(1.7)).collect(), true));
        // Thresholds crowd at the low end: the binary search is used.
        let heavy_tail = (0..5000).map(|_| (30.0 * rng.next_f64()).exp()).collect();
        features.push((heavy_tail, false));
        let mut crowded = false;
        for (values, bucketed) in features {
            let mapper = BinMapper::fit(&values, 255);
            let table = BinTable::new(&mapper);
            assert_eq!(!table.before.is_empty(), bucketed);
            crowded |= table.before.windows(2).any(|w| w[1] - w[0] >= 2);
            let mut probes: Vec<f64> = values.clone();
            for &t in &mapper.thresholds {
                probes.extend([t, t.next_down(), t.next_up()]);
            }
            probes.extend((0..2000).map(|_| (rng.next_f64() - 0.5) * 4000.0));
            probes.extend([f64::NAN, f64::MAX, f64::MIN, 0.0]);
            for v in probes {
                assert_eq!(table.bin(v), mapper.bin(v), "{v}");
            }
            // Binned through the buckets that found the cut points.
            let mut with_nan = values.clone();
            with_nan.extend([f64::NAN, -0.0]);
            let mut bins = vec![0; with_nan.len()];
            let mapper = BinMapper::fit(&with_nan, 255);
            assert_eq!(fit_and_bin(&with_nan, 255, &mut bins), mapper);
            for (&v, &b) in with_nan.iter().zip(&bins) {
                assert_eq!(b, mapper.bin(v), "{v}");
            }
        }
        assert!(crowded, "no bucket holds two thresholds: a weak test");
    }

    #[test]
    fn few_distinct_values_get_one_bin_each() {
        let m = BinMapper::fit(&[3.0, 1.0, 2.0, 2.0, 1.0], 255);
        assert_eq!(m.thresholds, vec![1.5, 2.5]);
        assert_eq!(m.bin(1.0), 0);
        assert_eq!(m.bin(2.0), 1);
        assert_eq!(m.bin(2.5), 1);
        assert_eq!(m.bin(9.0), 2);
        assert_eq!(m.bin(f64::NAN), 3);
        assert_eq!(m.n_bins(), 4);
    }

    #[test]
    fn many_values_are_cut_into_equal_frequency_bins() {
        let values: Vec<f64> = (0..10_000).map(|i| i as f64).collect();
        let m = BinMapper::fit(&values, 10);
        assert_eq!(m.n_value_bins(), 10);
        let mut counts = [0usize; 10];
        for v in values {
            counts[m.bin(v) as usize] += 1;
        }
        assert!(counts.iter().all(|&c| c == 1000), "{counts:?}");
    }

    #[test]
    fn bin_and_threshold_agree() {
        let values: Vec<f64> = (0..1000).map(|i| ((i * 37) % 101) as f64 * 0.37).collect();
        let m = BinMapper::fit(&values, 16);
        for v in values {
            for b in 0..m.n_value_bins() as u8 {
                assert_eq!(m.bin(v) <= b, v <= m.threshold_of_bin(b));
            }
        }
    }

    #[test]
    fn constant_and_all_nan_features_have_one_value_bin() {
        assert_eq!(BinMapper::fit(&[5.0; 10], 255).n_value_bins(), 1);
        assert_eq!(BinMapper::fit(&[], 255).n_value_bins(), 1);
    }

    #[test]
    fn every_row_gets_its_mappers_bin_with_or_without_a_row_sample() {
        let (n, d) = (10_000, 70); // more rows than a chunk, features than a block
        let mut rng = Rng::new(5);
        let x: Vec<f64> = (0..n * d)
            .map(|i| match i % 7 {
                0 => f64::NAN,
                1 => (rng.below(5)) as f64,
                _ => rng.next_f64() * 10.0 - 5.0,
            })
            .collect();
        for sample_rows in [500, n] {
            let binned = bin_matrix(&x, n, d, 63, sample_rows, 1, &never).unwrap();
            for f in 0..d {
                let mapper = &binned.mappers[f];
                for r in 0..n {
                    assert_eq!(binned.column(f)[r], mapper.bin(x[r * d + f]), "{r} {f}");
                }
            }
        }
        let mut bad = x.clone();
        bad[9_876 * d + 66] = f64::NEG_INFINITY;
        for sample_rows in [500, n] {
            let err = bin_matrix(&bad, n, d, 63, sample_rows, 1, &never).unwrap_err();
            assert!(err.to_string().contains("row 9876, feature 66"), "{err}");
        }
    }

    #[test]
    fn matrix_is_column_major_and_rejects_inf() {
        // 3 rows x 2 features, row-major
        let x = [1.0, 10.0, 2.0, f64::NAN, 3.0, 30.0];
        let b = bin_matrix(&x, 3, 2, 255, 100, 0, &never).unwrap();
        assert_eq!(b.column(0), &[0, 1, 2]);
        assert_eq!(b.column(1), &[0, 2, 1]);
        let bad = [1.0, f64::INFINITY];
        assert!(bin_matrix(&bad, 1, 2, 255, 100, 0, &never).is_err());
    }
}
