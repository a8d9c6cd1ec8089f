//! Binding of random forests: `fit_forest`, whose model is an ordinary
//! `Model` (raw output k: the average of the trees of output k).

use super::params::{
    boolean, count, feature_count, feature_list, name, optional_count, parsed, read, real, seed,
    set, shown, shown_all, shown_count, Key,
};
use super::{contiguous, run_interruptible, PyModel};
use crate::feature_sampling::FeatureSampling;
use crate::forest::{fit_forest as fit_engine, ForestParams};
use numpy::{IntoPyArray, PyArray2, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::sync::atomic::Ordering;

type F = ForestParams;

/// The keys of a forest's dict.
static FOREST_KEYS: &[Key<F>] = &[
    Key::new(
        "n_estimators",
        |p, k, v| set(&mut p.n_estimators, count(k, v)),
        |p, py| shown(py, p.n_estimators),
    ),
    Key::new(
        "max_features",
        |p, k, v| set(&mut p.max_features, feature_count(k, v)),
        |p, py| shown_count(py, p.max_features),
    ),
    Key::new(
        "bootstrap",
        |p, k, v| set(&mut p.bootstrap, boolean(k, v)),
        |p, py| shown(py, p.bootstrap),
    ),
    Key::new(
        "categorical_features",
        |p, k, v| set(&mut p.categorical_features, feature_list(k, v)),
        |p, py| shown(py, p.categorical_features.clone()),
    ),
    Key::new(
        "max_depth",
        |p, k, v| set(&mut p.max_depth, optional_count(k, v)),
        |p, py| shown(py, p.max_depth),
    ),
    Key::new(
        "min_samples_leaf",
        |p, k, v| set(&mut p.min_samples_leaf, count(k, v)),
        |p, py| shown(py, p.min_samples_leaf),
    ),
    Key::new(
        "max_leaf_nodes",
        |p, k, v| set(&mut p.max_leaves, optional_count(k, v)),
        |p, py| shown(py, p.max_leaves),
    ),
    Key::new(
        "max_bins",
        |p, k, v| set(&mut p.max_bins, count(k, v)),
        |p, py| shown(py, p.max_bins),
    ),
    Key::new(
        "feature_sampling",
        |p, k, v| {
            set(
                &mut p.feature_sampling,
                parsed(FeatureSampling::parse(&name(k, v)?)),
            )
        },
        |p, py| shown(py, p.feature_sampling.name()),
    ),
    Key::new(
        "reweight_rate",
        |p, k, v| set(&mut p.reweight_rate, real(k, v)),
        |p, py| shown(py, p.reweight_rate),
    ),
    Key::new(
        "seed",
        |p, k, v| set(&mut p.seed, seed(k, v)),
        |p, py| shown(py, p.seed),
    ),
    Key::new(
        "n_threads",
        |p, k, v| set(&mut p.n_threads, count(k, v)),
        |p, py| shown(py, p.n_threads),
    ),
];

/// Read a forest's parameters from a dict (every key must be known).
fn forest_params(dict: &Bound<'_, PyDict>) -> PyResult<ForestParams> {
    let p = read(FOREST_KEYS, ForestParams::default(), dict)?;
    if !(2..=255).contains(&p.max_bins) {
        return Err(PyValueError::new_err(format!(
            "max_bins must be in [2, 255], got {}",
            p.max_bins
        )));
    }
    Ok(p)
}

/// Every key a forest's dict takes, with its default value.
pub(super) fn defaults(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    shown_all(py, FOREST_KEYS, &ForestParams::default())
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
