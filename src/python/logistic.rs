//! Bindings of the logistic model and the two-pass search state: the
//! `TwoPassPath` class that `sparseboost.two_pass` drives, one logistic
//! fit (for tests against scikit-learn) and the native metrics.

use super::{contiguous, run_interruptible, to_pyerr};
use crate::logistic::{self, Data, Settings};
use crate::metrics;
use crate::threads;
use crate::two_pass::{Fold, Path, Score};
use numpy::ndarray::Array;
use numpy::{
    PyArray1, PyArray2, PyArray3, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2,
    PyUntypedArrayMethods, ToPyArray,
};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use std::sync::atomic::Ordering;

/// A float64 (n, d) matrix as the solver reads it: columns contiguous.
fn fortran<'a>(x: &'a PyReadonlyArray2<'_, f64>) -> PyResult<numpy::ndarray::ArrayView2<'a, f64>> {
    if !x.is_fortran_contiguous() {
        return Err(PyValueError::new_err(
            "X must be a Fortran-ordered (column-major) float64 array",
        ));
    }
    Ok(x.as_array())
}

/// "auc" or "recall_at_precision" (with `precision`), or None.
fn native_score(metric: Option<&str>, precision: f64) -> PyResult<Option<Score>> {
    match metric {
        None => Ok(None),
        Some("auc") => Ok(Some(Score::Auc)),
        Some("recall_at_precision") if (0.0..=1.0).contains(&precision) => {
            Ok(Some(Score::RecallAtPrecision(precision)))
        }
        Some("recall_at_precision") => Err(PyValueError::new_err(format!(
            "precision must be in [0, 1], got {precision}"
        ))),
        Some(other) => Err(PyValueError::new_err(format!(
            "metric must be 'auc' or 'recall_at_precision', got '{other}'"
        ))),
    }
}

/// One fold as Python gives it: training rows and validation rows, each
/// an index array or None for every row.
type PyFold<'py> = (
    Option<PyReadonlyArray1<'py, usize>>,
    Option<PyReadonlyArray1<'py, usize>>,
);

/// The current logistic models of a two-pass search over the columns of
/// `x` (kept alive here, and read again by every call).
#[pyclass(module = "sparseboost._core", name = "TwoPassPath")]
struct PyTwoPassPath {
    x: Py<PyArray2<f64>>,
    path: Path,
}

#[pymethods]
impl PyTwoPassPath {
    /// `x`: Fortran-ordered finite float64 (n, d); `y`: float64 0/1 (n,);
    /// `folds`: a list of `(train_rows, validation_rows)` (uintp arrays or
    /// None for every row); `c`, `tol`, `max_iter`: the logistic model's.
    #[new]
    fn new<'py>(
        py: Python<'py>,
        x: Bound<'py, PyArray2<f64>>,
        y: PyReadonlyArray1<'py, f64>,
        folds: Vec<PyFold<'py>>,
        c: f64,
        tol: f64,
        max_iter: usize,
    ) -> PyResult<Self> {
        let n = x.shape()[0];
        let y = contiguous("y", &y)?.to_vec();
        let mut converted = Vec::with_capacity(folds.len());
        for (train, validation) in &folds {
            let weights = match train {
                None => None,
                Some(rows) => {
                    let mut w = vec![0.0; n];
                    for &i in contiguous("train rows", rows)? {
                        *w.get_mut(i).ok_or_else(|| {
                            PyValueError::new_err(format!("train row {i} is out of range"))
                        })? = 1.0;
                    }
                    Some(w)
                }
            };
            let validation = match validation {
                None => None,
                Some(rows) => Some(contiguous("validation rows", rows)?.to_vec()),
            };
            converted.push(Fold {
                weights,
                validation,
            });
        }
        let settings = Settings { c, tol, max_iter };
        let readonly = x.readonly();
        let view = fortran(&readonly)?;
        let path = run_interruptible(py, |_| Path::new(view, y, converted, settings))?;
        drop(readonly);
        Ok(PyTwoPassPath {
            x: x.unbind(),
            path,
        })
    }

    /// Fit each candidate added to the current models (in parallel on
    /// `n_threads`); returns `(coef, scores, converged, n_iter)`: coef of shape
    /// (candidates, folds, 2 + selected) `[intercept, selected...,
    /// candidate]`, scores (candidates, folds) of `metric` ("auc",
    /// "recall_at_precision" or None for no scores), converged (all folds)
    /// and the most Newton steps of a fold, per candidate.
    #[pyo3(signature = (candidates, metric, precision, n_threads))]
    #[allow(clippy::type_complexity)] // the tuple Python receives
    fn evaluate<'py>(
        &self,
        py: Python<'py>,
        candidates: Vec<usize>,
        metric: Option<&str>,
        precision: f64,
        n_threads: usize,
    ) -> PyResult<(
        Bound<'py, PyArray3<f64>>,
        Option<Bound<'py, PyArray2<f64>>>,
        Vec<bool>,
        Vec<usize>,
    )> {
        let score = native_score(metric, precision)?;
        let readonly = self.x.bind(py).readonly();
        let view = fortran(&readonly)?;
        let path = &self.path;
        let found = run_interruptible(py, |stop| {
            threads::install(n_threads, || {
                path.evaluate(view, &candidates, score, &|| stop.load(Ordering::Relaxed))
            })?
        })?;
        let k = self.path.selected().len() + 2;
        let folds = found.first().map_or(0, |c| c.coef.len());
        let coef: Vec<f64> = found.iter().flat_map(|c| c.coef.concat()).collect();
        let coef = Array::from_shape_vec((found.len(), folds, k), coef)
            .expect("each fit has 2 + selected coefficients");
        let scores = match score {
            None => None,
            Some(_) => {
                let flat: Vec<f64> = found
                    .iter()
                    .flat_map(|c| c.scores.clone().unwrap_or_default())
                    .collect();
                let array =
                    Array::from_shape_vec((found.len(), folds), flat).expect("one score per fold");
                Some(array.to_pyarray(py))
            }
        };
        let converged = found.iter().map(|c| c.converged).collect();
        let n_iter = found.iter().map(|c| c.n_iter).collect();
        Ok((coef.to_pyarray(py), scores, converged, n_iter))
    }

    /// Add `feature` to the current models (refitted on `n_threads`).
    fn accept(&mut self, py: Python<'_>, feature: usize, n_threads: usize) -> PyResult<()> {
        let readonly = self.x.bind(py).readonly();
        let view = fortran(&readonly)?;
        let path = &mut self.path;
        run_interruptible(py, |stop| {
            threads::install(n_threads, || {
                path.accept(view, feature, &|| stop.load(Ordering::Relaxed))
            })?
        })
    }

    /// The features of the current models, in the order they were added.
    #[getter]
    fn selected(&self) -> Vec<usize> {
        self.path.selected().to_vec()
    }

    /// The current models' coefficients `[intercept, selected...]`, one
    /// row per fold.
    #[getter]
    fn coef<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        Ok(PyArray2::from_vec2(py, &self.path.coef())?)
    }
}

/// Fit the L2-penalised logistic model of `features` (in this order) on
/// `x` (Fortran-ordered float64 (n, d)) and `y` (0/1); returns
/// `(coef, n_iter, converged)`, coef `[intercept, one per feature]`.
#[pyfunction]
fn logistic_fit<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'py, f64>,
    y: PyReadonlyArray1<'py, f64>,
    features: Vec<usize>,
    c: f64,
    tol: f64,
    max_iter: usize,
) -> PyResult<(Bound<'py, PyArray1<f64>>, usize, bool)> {
    let view = fortran(&x)?;
    let ys = contiguous("y", &y)?;
    logistic::check_finite(view).map_err(to_pyerr)?;
    let settings = Settings { c, tol, max_iter };
    let fit = run_interruptible(py, |stop| {
        let data = Data::new(view, ys, None)?;
        logistic::fit(&data, &settings, &features, &|| {
            stop.load(Ordering::Relaxed)
        })
    })?;
    Ok((PyArray1::from_vec(py, fit.coef), fit.n_iter, fit.converged))
}

/// The native recall at precision (see `sparseboost.metrics`) of scores
/// for 0/1 labels, for tests against the Python definition.
#[pyfunction]
fn recall_at_precision(
    y: PyReadonlyArray1<'_, f64>,
    scores: PyReadonlyArray1<'_, f64>,
    precision: f64,
) -> PyResult<f64> {
    let (y, s) = (contiguous("y", &y)?, contiguous("scores", &scores)?);
    if y.len() != s.len() {
        return Err(PyValueError::new_err(
            "y and scores must have the same length",
        ));
    }
    Ok(metrics::recall_at_precision(y, s, precision))
}

pub(super) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyTwoPassPath>()?;
    m.add_function(wrap_pyfunction!(logistic_fit, m)?)?;
    m.add_function(wrap_pyfunction!(recall_at_precision, m)?)?;
    Ok(())
}
