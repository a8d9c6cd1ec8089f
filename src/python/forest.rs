//! Binding of random forests: `fit_forest`, whose model is an ordinary
//! `Model` (raw output k: the average of the trees of output k).

use super::params::{boolean, count, feature_count, name, optional_count, parsed, real, seed};
use super::{contiguous, run_interruptible, PyModel};
use crate::feature_sampling::{FeatureCount, FeatureSampling};
use crate::forest::{fit_forest as fit_engine, ForestParams};
use numpy::{IntoPyArray, PyArray2, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::sync::atomic::Ordering;

/// Read a forest's parameters from a dict (every key must be known).
fn forest_params(dict: &Bound<'_, PyDict>) -> PyResult<ForestParams> {
    let mut p = ForestParams {
        n_estimators: 100,
        max_features: FeatureCount::Fraction(1.0),
        bootstrap: true,
        max_depth: None,
        min_samples_leaf: 1,
        max_leaves: None,
        max_bins: 255,
        feature_sampling: FeatureSampling::Uniform,
        reweight_rate: 5.0,
        seed: 0,
        n_threads: 0,
    };
    for (key, value) in dict.iter() {
        let key: String = key.extract()?;
        let (k, value) = (key.as_str(), &value);
        match k {
            "n_estimators" => p.n_estimators = count(k, value)?,
            "max_features" => p.max_features = feature_count(k, value)?,
            "bootstrap" => p.bootstrap = boolean(k, value)?,
            "max_depth" => p.max_depth = optional_count(k, value)?,
            "min_samples_leaf" => p.min_samples_leaf = count(k, value)?,
            "max_leaf_nodes" => p.max_leaves = optional_count(k, value)?,
            "max_bins" => p.max_bins = count(k, value)?,
            "feature_sampling" => {
                p.feature_sampling = parsed(FeatureSampling::parse(&name(k, value)?))?
            }
            "reweight_rate" => p.reweight_rate = real(k, value)?,
            "seed" => p.seed = seed(k, value)?,
            "n_threads" => p.n_threads = count(k, value)?,
            other => {
                return Err(PyValueError::new_err(format!(
                    "unknown parameter '{other}'"
                )))
            }
        }
    }
    if !(2..=255).contains(&p.max_bins) {
        return Err(PyValueError::new_err(format!(
            "max_bins must be in [2, 255], got {}",
            p.max_bins
        )));
    }
    Ok(p)
}

/// Fit a forest. `x`: a matrix (n, d) (see `PyMatrix`); `targets`: C-contiguous
/// float64 (K, n) (y, or class indicators); `sample_weight`: float64 (n,)
/// or None. Returns `(model, oob)` with `oob` the (n, K) out-of-bag means
/// (NaN where no tree left a row out). Releases the GIL; Ctrl-C stops it.
#[pyfunction]
#[pyo3(signature = (x, targets, sample_weight, params))]
fn fit_forest<'py>(
    py: Python<'py>,
    x: super::matrix::PyMatrix<'py>,
    targets: PyReadonlyArray2<'py, f64>,
    sample_weight: Option<PyReadonlyArray1<'py, f64>>,
    params: &Bound<'py, PyDict>,
) -> PyResult<(PyModel, Bound<'py, PyArray2<f64>>)> {
    let params = forest_params(params)?;
    let x = x.view("X")?;
    let targets = targets.as_array();
    let weights = match &sample_weight {
        Some(w) => Some(contiguous("sample_weight", w)?),
        None => None,
    };
    let forest = run_interruptible(py, |stop| {
        fit_engine(&x, targets, weights, &params, &|| {
            stop.load(Ordering::Relaxed)
        })
    })?;
    Ok((PyModel::wrap(forest.model), forest.oob.into_pyarray(py)))
}

pub(super) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(fit_forest, m)?)?;
    Ok(())
}
