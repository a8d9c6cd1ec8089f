//! Helpers shared by the Rust integration tests.

use sparseboost::{fit, BoosterParams, Model, TrainingData};

/// A stop callback that never stops.
pub fn never() -> bool {
    false
}

/// Fit on a row-major `x` with `d` columns and targets `y`.
pub fn fit_xy(x: &[f64], d: usize, y: &[f64], params: &BoosterParams) -> Model {
    let data = TrainingData {
        x: sparseboost::matrix::FeatureMatrix::dense(x, y.len(), d),
        y,
        weights: None,
        group_sizes: None,
    };
    fit(&data, params, &never).unwrap()
}
