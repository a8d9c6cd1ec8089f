//! Binning a dense row-major matrix (float64 or float32): the values of a
//! block of features are gathered row by row, a few cache lines per row,
//! into columns that serve both the cut points and the bins.

use super::table::BinTable;
use super::BinMapper;
use crate::cut_points::cut_points_and_buckets;
use crate::error::{Result, SbError};
use crate::interrupt::{self, ShouldStop};
use crate::matrix::Value;
use crate::memory::try_filled;
use rayon::prelude::*;
use std::ops::Range;

/// Features binned together by one task.
const FEATURE_BLOCK: usize = 64;
/// Rows gathered at a time when the cut points come from a row sample.
const ROW_CHUNK: usize = 4096;

/// The bins of a row-major matrix `x` of shape (n_rows, n_features),
/// column-major (feature `f` is `bins[f*n .. (f+1)*n]`), and the cut points
/// of each feature, found on the rows of `sample` (all rows for `None`).
/// NaN is allowed (it gets the missing bin); ±inf is rejected.
/// `should_stop` is polled every few thousand rows of every block of
/// features.
pub(super) fn bin_dense<T: Value>(
    x: &[T],
    n_rows: usize,
    n_features: usize,
    max_bins: usize,
    sample: Option<&[usize]>,
    should_stop: &ShouldStop,
) -> Result<(Vec<u8>, Vec<BinMapper>)> {
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
            matrix.bin_block(features, sample, max_bins, out, columns)
        })
        .collect();
    let mut all = Vec::with_capacity(n_features);
    for block in mappers {
        all.extend(block?);
    }
    Ok((bins, all))
}

/// The bins of a row-major matrix with known cut points, column-major,
/// through the lookup tables of [`bin_dense`]: the same bins the training
/// binning gives the same values.
pub(super) fn bin_dense_with<T: Value>(
    x: &[T],
    n_rows: usize,
    mappers: &[BinMapper],
    should_stop: &ShouldStop,
) -> Result<Vec<u8>> {
    let d = mappers.len();
    let matrix = RowMajor {
        x,
        n_rows,
        n_features: d,
        should_stop,
    };
    let mut bins = try_filled::<u8>(n_rows * d, "the binned matrix")?;
    // Blocks of a few features, so that every thread has some (there are
    // no cut points to fit, which made large blocks pay in `bin_dense`).
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
    Ok(bins)
}

struct RowMajor<'a, T> {
    x: &'a [T],
    n_rows: usize,
    n_features: usize,
    should_stop: &'a ShouldStop<'a>,
}

impl<T: Value> RowMajor<'_, T> {
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
                for line in row.chunks(64 / std::mem::size_of::<T>()) {
                    prefetch(line.as_ptr());
                }
            }
            let row = &self.x[r * self.n_features..][features.clone()];
            for (k, &v) in row.iter().enumerate() {
                let v = v.to_f64();
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
fn prefetch<T>(p: *const T) {
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
pub(super) fn fit_and_bin(values: &[f64], max_bins: usize, bins: &mut [u8]) -> BinMapper {
    let (thresholds, buckets) = cut_points_and_buckets(values, max_bins);
    let mapper = BinMapper::numeric(thresholds);
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
