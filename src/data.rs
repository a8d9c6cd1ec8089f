//! The training set and the limits of a fit.

use crate::binning::{bin_features, BinnedData};
use crate::error::{Result, SbError};
use crate::interrupt::ShouldStop;
use crate::matrix::FeatureMatrix;
use crate::params::BoosterParams;
use std::ops::Range;

/// The training set: a feature matrix `x` of shape (n_rows, n_features)
/// (dense or sparse, float64 or float32), targets `y` (n_rows) and optional
/// non-negative sample weights (n_rows).
#[derive(Debug, Clone, Copy)]
pub struct TrainingData<'a> {
    /// Features, NaN for missing.
    pub x: FeatureMatrix<'a>,
    /// Targets.
    pub y: &'a [f64],
    /// Sample weights, or `None` for all ones.
    pub weights: Option<&'a [f64]>,
    /// Ranking: the sizes of consecutive query groups (summing to n), or
    /// `None`.
    pub group_sizes: Option<&'a [usize]>,
}

/// The most rows a fit takes: rows are counted in `u32`.
pub const MAX_ROWS: usize = u32::MAX as usize;

/// The most features a fit (or a model file) may have: per-feature arrays
/// of a model (importances) stay below 128 MiB, and group-testing range
/// sums of up to 2²⁴ levels of 255 fit 32 bits.
pub const MAX_FEATURES: usize = 1 << 24;

impl<'a> TrainingData<'a> {
    /// Dense row-major float64 features of shape (n_rows, n_features).
    pub fn dense(x: &'a [f64], n_rows: usize, n_features: usize, y: &'a [f64]) -> Self {
        TrainingData {
            x: FeatureMatrix::dense(x, n_rows, n_features),
            y,
            weights: None,
            group_sizes: None,
        }
    }

    /// n.
    pub fn n_rows(&self) -> usize {
        self.x.n_rows
    }

    /// d.
    pub fn n_features(&self) -> usize {
        self.x.n_features
    }

    /// Reject shapes and values no fit can use.
    pub fn validate(&self) -> Result<()> {
        let bad = |m: String| Err(SbError::InvalidInput(m));
        if self.n_rows() == 0 {
            return bad("X has no rows".into());
        }
        if self.n_rows() > MAX_ROWS {
            return bad(format!(
                "X has {} rows; at most {MAX_ROWS} (2^32 - 1) are supported",
                self.n_rows()
            ));
        }
        if self.n_features() == 0 {
            return bad("X has no features".into());
        }
        if self.n_features() > MAX_FEATURES {
            return bad(format!(
                "X has {} features; at most {MAX_FEATURES} (2^24) are supported",
                self.n_features()
            ));
        }
        self.x.validate()?;
        validate_targets(self.n_rows(), self.y, self.weights, self.group_sizes)
    }

    /// The queries as consecutive row ranges (ranking), else `None`.
    pub fn queries(&self) -> Option<Vec<Range<usize>>> {
        self.group_sizes.map(query_ranges)
    }
}

/// Reject targets no fit can use: `y` (finite), `weights` (finite, ≥ 0, not
/// all zero) and ranking `group_sizes` (positive, summing to `n_rows`), of
/// a training set of `n_rows` rows (whole or pooled from shards).
pub fn validate_targets(
    n_rows: usize,
    y: &[f64],
    weights: Option<&[f64]>,
    group_sizes: Option<&[usize]>,
) -> Result<()> {
    let bad = |m: String| Err(SbError::InvalidInput(m));
    if y.len() != n_rows {
        return bad(format!(
            "y has {} values but X has {} rows",
            y.len(),
            n_rows
        ));
    }
    if let Some(i) = y.iter().position(|v| !v.is_finite()) {
        return bad(format!(
            "y contains a non-finite value ({:?}) at row {i}",
            y[i]
        ));
    }
    if let Some(w) = weights {
        if w.len() != n_rows {
            return bad(format!(
                "sample_weight has {} values but X has {} rows",
                w.len(),
                n_rows
            ));
        }
        if let Some(i) = w.iter().position(|v| !v.is_finite() || *v < 0.0) {
            return bad(format!(
                "sample_weight must be finite and >= 0, got {:?} at row {i}",
                w[i]
            ));
        }
        if w.iter().sum::<f64>() <= 0.0 {
            return bad("sample_weight sums to zero".into());
        }
    }
    if let Some(sizes) = group_sizes {
        if let Some(q) = sizes.iter().position(|&s| s == 0) {
            return bad(format!("group has an empty query (group[{q}] = 0)"));
        }
        let total = sizes.iter().try_fold(0usize, |a, &s| a.checked_add(s));
        if total != Some(n_rows) {
            return bad(format!(
                "group sizes must sum to the number of rows of X ({}), got {}",
                n_rows,
                total.map_or("more than 2^64".to_string(), |t| t.to_string())
            ));
        }
    }
    Ok(())
}

/// Consecutive groups of these sizes as row ranges.
pub fn query_ranges(sizes: &[usize]) -> Vec<Range<usize>> {
    let mut start = 0;
    sizes
        .iter()
        .map(|&len| {
            start += len;
            start - len..start
        })
        .collect()
}

/// Bin the training matrix once, for every tree of the fit.
pub fn bin_training_data(
    data: &TrainingData,
    params: &BoosterParams,
    should_stop: &ShouldStop,
) -> Result<BinnedData> {
    let mut binned = bin_features(
        &data.x,
        params.max_bins,
        params.bin_sample_rows,
        params.seed,
        &params.categorical_features,
        should_stop,
    )?;
    binned.require_rows_per_leaf(params.min_samples_leaf);
    Ok(binned)
}
