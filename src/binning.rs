//! Quantile binning of a dense feature matrix into `u8` bins.
//!
//! Every feature gets at most `max_bins` value bins (equal-frequency cuts on a
//! row sample, midway between distinct values) plus one bin of its own for
//! NaN. The binned matrix is stored column-major so that a histogram of one
//! feature reads one contiguous column.

use crate::error::{Result, SbError};
use crate::float_sort::sorted_distinct;
use crate::rng::Rng;
use rayon::prelude::*;

/// The cut points of one feature: value `v` falls in bin `b` when
/// `thresholds[b-1] < v <= thresholds[b]`; NaN falls in [`BinMapper::missing_bin`].
#[derive(Debug, Clone, PartialEq)]
pub struct BinMapper {
    /// Strictly increasing cut points, at most `max_bins - 1` of them.
    pub thresholds: Vec<f64>,
}

impl BinMapper {
    /// Learn the cut points from the non-NaN `values` of a feature (any order).
    pub fn fit(values: Vec<f64>, max_bins: usize) -> BinMapper {
        if values.is_empty() {
            return BinMapper {
                thresholds: Vec::new(),
            };
        }
        let (distinct, counts) = sorted_distinct(&values);
        let mut thresholds = Vec::new();
        if distinct.len() <= max_bins {
            for w in distinct.windows(2) {
                thresholds.push(midpoint(w[0], w[1]));
            }
            return BinMapper { thresholds };
        }
        // Equal-frequency cuts. The target size of the next bin is recomputed
        // after each cut from what is left, so that one heavy value does not
        // squeeze all later bins (LightGBM's greedy binning does the same).
        let total = values.len() as f64;
        let mut seen = 0usize;
        let mut since_cut = 0usize;
        let mut target = total / max_bins as f64;
        for i in 0..distinct.len() - 1 {
            seen += counts[i];
            since_cut += counts[i];
            if since_cut as f64 >= target {
                thresholds.push(midpoint(distinct[i], distinct[i + 1]));
                if thresholds.len() == max_bins - 1 {
                    break;
                }
                since_cut = 0;
                let bins_left = (max_bins - thresholds.len()) as f64;
                target = (total - seen as f64) / bins_left;
            }
        }
        BinMapper { thresholds }
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

/// A cut strictly below `b` and at or above `a` (`a < b`).
fn midpoint(a: f64, b: f64) -> f64 {
    let m = a + (b - a) / 2.0;
    if m < b {
        m
    } else {
        a
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
}

impl BinnedData {
    /// The bins of feature `f`, length n.
    #[inline]
    pub fn column(&self, f: usize) -> &[u8] {
        &self.bins[f * self.n_rows..(f + 1) * self.n_rows]
    }
}

/// Features handled together so that reads of the row-major input touch a
/// few cache lines per row instead of one per value.
const FEATURE_BLOCK: usize = 32;
const ROW_BLOCK: usize = 512;

/// Bin a row-major matrix `x` of shape (n_rows, n_features).
///
/// Cut points come from at most `sample_rows` rows drawn with `seed`. NaN is
/// allowed (it gets the missing bin); ±inf is rejected.
pub fn bin_matrix(
    x: &[f64],
    n_rows: usize,
    n_features: usize,
    max_bins: usize,
    sample_rows: usize,
    seed: u64,
) -> Result<BinnedData> {
    if x.len() != n_rows * n_features {
        return Err(SbError::InvalidInput(format!(
            "X has {} values, expected {n_rows} x {n_features}",
            x.len()
        )));
    }
    let sample: Vec<usize> = if n_rows > sample_rows {
        Rng::derive(seed, u64::MAX).sample_sorted(n_rows, sample_rows)
    } else {
        (0..n_rows).collect()
    };
    let mut bins = vec![0u8; n_rows * n_features];
    let block_len = FEATURE_BLOCK * n_rows.max(1);
    let mappers: Vec<Result<Vec<BinMapper>>> = bins
        .par_chunks_mut(block_len)
        .enumerate()
        .map(|(block, out)| {
            let f0 = block * FEATURE_BLOCK;
            let f1 = (f0 + FEATURE_BLOCK).min(n_features);
            let mappers = fit_block(x, n_features, f0, f1, &sample, max_bins)?;
            bin_block(x, n_rows, n_features, f0, &mappers, out);
            Ok(mappers)
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
    Ok(BinnedData {
        n_rows,
        n_features,
        bins,
        mappers: all,
    })
}

fn fit_block(
    x: &[f64],
    d: usize,
    f0: usize,
    f1: usize,
    sample: &[usize],
    max_bins: usize,
) -> Result<Vec<BinMapper>> {
    let mut values: Vec<Vec<f64>> = (f0..f1).map(|_| Vec::with_capacity(sample.len())).collect();
    for &r in sample {
        for (k, &v) in x[r * d + f0..r * d + f1].iter().enumerate() {
            if v.is_infinite() {
                return Err(SbError::InvalidInput(format!(
                    "X contains an infinite value (row {r}, feature {})",
                    f0 + k
                )));
            }
            if !v.is_nan() {
                values[k].push(v);
            }
        }
    }
    Ok(values
        .into_iter()
        .map(|v| BinMapper::fit(v, max_bins))
        .collect())
}

fn bin_block(x: &[f64], n: usize, d: usize, f0: usize, mappers: &[BinMapper], out: &mut [u8]) {
    let tables: Vec<BinTable> = mappers.iter().map(BinTable::new).collect();
    for r0 in (0..n).step_by(ROW_BLOCK) {
        let r1 = (r0 + ROW_BLOCK).min(n);
        for (k, table) in tables.iter().enumerate() {
            let column = &mut out[k * n..(k + 1) * n];
            for r in r0..r1 {
                column[r] = table.bin(x[r * d + f0 + k]);
            }
        }
    }
}

/// A mapper's thresholds padded to 256 with +∞, searched without branches:
/// [`BinMapper::bin`]'s binary search mispredicts about half its branches,
/// which made it most of the binning time.
struct BinTable {
    padded: [f64; 256],
    missing: u8,
}

impl BinTable {
    fn new(mapper: &BinMapper) -> Self {
        let mut padded = [f64::INFINITY; 256];
        padded[..mapper.thresholds.len()].copy_from_slice(&mapper.thresholds);
        BinTable {
            padded,
            missing: mapper.missing_bin(),
        }
    }

    /// The same bin as [`BinMapper::bin`] (values are finite or NaN).
    #[inline]
    fn bin(&self, value: f64) -> u8 {
        if value.is_nan() {
            return self.missing;
        }
        // Invariant: the first `below` thresholds are < value.
        let mut below = 0usize;
        for step in [128, 64, 32, 16, 8, 4, 2, 1] {
            below += step * usize::from(self.padded[below + step - 1] < value);
        }
        below as u8
    }
}

/// Check that no value of `x` is infinite (the sample used for the cut points
/// may not have seen every row).
pub fn check_no_infinite(x: &[f64]) -> Result<()> {
    match x.par_iter().position_any(|v| v.is_infinite()) {
        None => Ok(()),
        Some(i) => Err(SbError::InvalidInput(format!(
            "X contains an infinite value at flat position {i}"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    #[test]
    fn the_branchless_table_bins_like_the_mapper() {
        let mut rng = Rng::new(3);
        for n_distinct in [1, 2, 7, 255, 256, 5000] {
            let values: Vec<f64> = (0..5000)
                .map(|i| ((i % n_distinct) as f64 - 100.0) * 0.37)
                .collect();
            let mapper = BinMapper::fit(values, 255);
            let table = BinTable::new(&mapper);
            for _ in 0..2000 {
                let v = (rng.next_f64() - 0.5) * 4000.0;
                assert_eq!(table.bin(v), mapper.bin(v), "{v}");
            }
            for &t in &mapper.thresholds {
                assert_eq!(table.bin(t), mapper.bin(t));
            }
            assert_eq!(table.bin(f64::NAN), mapper.bin(f64::NAN));
        }
    }

    #[test]
    fn few_distinct_values_get_one_bin_each() {
        let m = BinMapper::fit(vec![3.0, 1.0, 2.0, 2.0, 1.0], 255);
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
        let m = BinMapper::fit(values.clone(), 10);
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
        let m = BinMapper::fit(values.clone(), 16);
        for v in values {
            for b in 0..m.n_value_bins() as u8 {
                assert_eq!(m.bin(v) <= b, v <= m.threshold_of_bin(b));
            }
        }
    }

    #[test]
    fn constant_and_all_nan_features_have_one_value_bin() {
        assert_eq!(BinMapper::fit(vec![5.0; 10], 255).n_value_bins(), 1);
        assert_eq!(BinMapper::fit(vec![], 255).n_value_bins(), 1);
    }

    #[test]
    fn matrix_is_column_major_and_rejects_inf() {
        // 3 rows x 2 features, row-major
        let x = [1.0, 10.0, 2.0, f64::NAN, 3.0, 30.0];
        let b = bin_matrix(&x, 3, 2, 255, 100, 0).unwrap();
        assert_eq!(b.column(0), &[0, 1, 2]);
        assert_eq!(b.column(1), &[0, 2, 1]);
        let bad = [1.0, f64::INFINITY];
        assert!(bin_matrix(&bad, 1, 2, 255, 100, 0).is_err());
        assert!(check_no_infinite(&bad).is_err());
    }
}
