//! Evaluation sets from numpy arrays and a fit's evaluation history back
//! to Python.

use super::contiguous;
use super::matrix::PyMatrix;
use crate::trainer::{EvalSet, History};
use numpy::PyReadonlyArray1;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// `(x, y, sample_weight, group, task)` of one evaluation set: a matrix
/// (m, d) (see [`PyMatrix`]), float64 (m,), float64 (m,) or None, uintp query sizes or None,
/// uintp tasks (multitask) or None.
pub(super) type PyEvalSet<'py> = (
    PyMatrix<'py>,
    PyReadonlyArray1<'py, f64>,
    Option<PyReadonlyArray1<'py, f64>>,
    Option<PyReadonlyArray1<'py, usize>>,
    Option<PyReadonlyArray1<'py, usize>>,
);

/// The engine's view of the evaluation sets of a fit on `n_features`.
pub(super) fn eval_sets<'a>(
    sets: &'a [PyEvalSet<'_>],
    n_features: usize,
) -> PyResult<Vec<EvalSet<'a>>> {
    sets.iter()
        .enumerate()
        .map(|(s, (x, y, w, group, task))| {
            let name = |what: &str| format!("eval_set[{s}] {what}");
            let x = x.view(&name("X"))?;
            if x.n_features != n_features {
                return Err(PyValueError::new_err(format!(
                    "eval_set[{s}]: X has {} features, but the training X has {n_features}",
                    x.n_features
                )));
            }
            Ok(EvalSet {
                x,
                y: contiguous(&name("y"), y)?,
                weights: match w {
                    Some(w) => Some(contiguous(&name("sample_weight"), w)?),
                    None => None,
                },
                group_sizes: match group {
                    Some(g) => Some(contiguous(&name("group"), g)?),
                    None => None,
                },
                task: match task {
                    Some(t) => Some(contiguous(&name("task"), t)?),
                    None => None,
                },
            })
        })
        .collect()
}

/// The history as a dict: `metrics`, `values`, `best`, `rounds`.
pub(super) fn history<'py>(py: Python<'py>, history: &History) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    dict.set_item("metrics", history.metrics.clone())?;
    dict.set_item("values", history.values.clone())?;
    dict.set_item("best", history.best)?;
    dict.set_item("rounds", history.rounds)?;
    dict.set_item("mu_max", history.mu_max)?;
    Ok(dict)
}
