//! Bindings of multitask boosting: `fit_multitask` and the fitted
//! `MultiTaskModel`, whose per-task ensembles are ordinary `Model`s.

use super::{contiguous, importance_kind, run_observed, to_pyerr, training_data, PyModel};
use crate::multitask::{
    fit_multitask_with as fit_engine, MultiTaskData, MultiTaskModel, MultiTaskParams,
};
use numpy::{PyArray1, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use std::sync::atomic::Ordering;

/// A fitted multitask ensemble: one `Model` per task plus Ω_G. Picklable.
#[pyclass(module = "sparseboost._core", name = "MultiTaskModel", frozen)]
pub(super) struct PyMultiTaskModel {
    model: MultiTaskModel,
    /// The task models, wrapped once (each packs its own predictor).
    tasks: Vec<Py<PyModel>>,
}

impl PyMultiTaskModel {
    pub(super) fn wrap(py: Python<'_>, model: MultiTaskModel) -> PyResult<Self> {
        let tasks = model
            .tasks
            .iter()
            .map(|m| Py::new(py, PyModel::wrap(m.clone())))
            .collect::<PyResult<_>>()?;
        Ok(PyMultiTaskModel { model, tasks })
    }
}

#[pymethods]
impl PyMultiTaskModel {
    /// The model of each task, in task order.
    #[getter]
    fn tasks(&self, py: Python<'_>) -> Vec<Py<PyModel>> {
        self.tasks.iter().map(|m| m.clone_ref(py)).collect()
    }

    /// Number of tasks.
    #[getter]
    fn n_tasks(&self) -> usize {
        self.model.tasks.len()
    }

    /// Number of input features.
    #[getter]
    fn n_features(&self) -> usize {
        self.model.n_features()
    }

    /// Ω_G: features used by any task, in the order they entered.
    #[getter]
    fn selected_features(&self) -> Vec<usize> {
        self.model.selected_features.clone()
    }

    /// Ω_t of every task, each in the order its features entered.
    #[getter]
    fn task_selected_features(&self) -> Vec<Vec<usize>> {
        self.model
            .tasks
            .iter()
            .map(|m| m.selected_features.clone())
            .collect()
    }

    /// Per-feature importance (`kind` = "gain" or "split") of task `task`'s
    /// trees (an index), or of all tasks' trees for None; `normalize` makes
    /// it sum to 1.
    #[pyo3(signature = (kind, normalize=false, task=None))]
    fn importances<'py>(
        &self,
        py: Python<'py>,
        kind: &str,
        normalize: bool,
        task: Option<usize>,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let kind = importance_kind(kind)?;
        if task.is_some_and(|t| t >= self.model.tasks.len()) {
            return Err(PyValueError::new_err("task index out of range"));
        }
        Ok(PyArray1::from_vec(
            py,
            self.model.importances(kind, normalize, task),
        ))
    }

    /// The model as a JSON document (format documented in the Rust
    /// `multitask::model` module).
    fn to_json(&self) -> String {
        self.model.to_json()
    }

    /// Read a model written by `to_json`.
    #[staticmethod]
    fn from_json(py: Python<'_>, text: &str) -> PyResult<Self> {
        let model = MultiTaskModel::from_json(text).map_err(to_pyerr)?;
        PyMultiTaskModel::wrap(py, model)
    }

    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        super::reduce_through_json::<PyMultiTaskModel>(py, self.model.to_json())
    }
}

/// Fit one ensemble per task. `x`: C-contiguous float64 (n, d); `y`:
/// float64 (n,); `task`: int64 (n,), each row's task in `0..n_tasks`;
/// `sample_weight`: float64 (n,) or None; `mu_group` and `mu_task`: their
/// values and whether they are multiples of μ_max; `params`: the booster's engine
/// parameters (as for `fit`, without `mu`); `task_feature_mask`: bool
/// (n_tasks, d), True where the task has the feature, or None;
/// `shared_rounds`: rounds of trees on all tasks' rows first. Releases the
/// GIL; Ctrl-C stops the fit with KeyboardInterrupt. `eval_sets` and
/// `callback` are those of `fit` (each set with its `task` array); returns
/// `(model, history)`.
#[pyfunction]
#[pyo3(signature = (x, y, task, n_tasks, sample_weight, params, mu_group, mu_task, task_feature_mask, shared_rounds=0, eval_sets=Vec::new(), callback=None))]
#[allow(clippy::too_many_arguments)]
fn fit_multitask<'py>(
    py: Python<'py>,
    x: super::matrix::PyMatrix<'py>,
    y: PyReadonlyArray1<'py, f64>,
    task: PyReadonlyArray1<'py, i64>,
    n_tasks: usize,
    sample_weight: Option<PyReadonlyArray1<'py, f64>>,
    params: &Bound<'py, PyDict>,
    mu_group: (f64, bool),
    mu_task: (Vec<f64>, bool),
    task_feature_mask: Option<PyReadonlyArray2<'py, bool>>,
    shared_rounds: usize,
    eval_sets: Vec<super::training::PyEvalSet<'py>>,
    callback: Option<Bound<'py, PyAny>>,
) -> PyResult<(PyMultiTaskModel, Bound<'py, PyDict>)> {
    let params = super::params::from_dict(params)?;
    let n_features = x.view("X")?.n_features;
    let task: Vec<usize> = contiguous("task", &task)?
        .iter()
        .map(|&t| {
            usize::try_from(t)
                .map_err(|_| PyValueError::new_err(format!("task labels must be >= 0, got {t}")))
        })
        .collect::<PyResult<_>>()?;
    let mt = settings(
        (n_tasks, n_features),
        mu_group,
        mu_task,
        task_feature_mask,
        shared_rounds,
    )?;
    let data = MultiTaskData {
        data: training_data(&x, &y, &sample_weight)?,
        task: &task,
        n_tasks,
    };
    let evals = super::training::eval_sets(&eval_sets, n_features)?;
    let (model, history) = run_observed(
        py,
        |stop, observer| {
            fit_engine(
                &data,
                &params,
                &mt,
                &evals,
                &|| stop.load(Ordering::Relaxed),
                observer,
            )
        },
        callback.as_ref(),
    )?;
    Ok((
        PyMultiTaskModel::wrap(py, model)?,
        super::training::history(py, &history)?,
    ))
}

/// Check the parameters of a multitask fit (as `fit_multitask` takes them)
/// for `n_tasks` tasks and `n_features` features without fitting: raises as
/// `fit_multitask` would.
#[pyfunction]
#[pyo3(signature = (params, mu_group, mu_task, n_tasks, n_features, task_feature_mask, shared_rounds=0))]
fn check_multitask_params(
    params: &Bound<'_, PyDict>,
    mu_group: (f64, bool),
    mu_task: (Vec<f64>, bool),
    n_tasks: usize,
    n_features: usize,
    task_feature_mask: Option<PyReadonlyArray2<'_, bool>>,
    shared_rounds: usize,
) -> PyResult<()> {
    let params = super::params::from_dict(params)?;
    let mask = task_feature_mask.map(|m| m.as_array().iter().copied().collect());
    let mt = multitask_params(mu_group, mu_task, mask, shared_rounds);
    params.validate_for(n_features).map_err(to_pyerr)?;
    mt.validate(&params, n_tasks, n_features).map_err(to_pyerr)
}

/// The settings of a multitask fit of `n_tasks` tasks over `n_features`
/// features, as `fit_multitask` takes them.
pub(super) fn settings(
    (n_tasks, n_features): (usize, usize),
    mu_group: (f64, bool),
    mu_task: (Vec<f64>, bool),
    task_feature_mask: Option<PyReadonlyArray2<'_, bool>>,
    shared_rounds: usize,
) -> PyResult<MultiTaskParams> {
    let task_feature_mask = match &task_feature_mask {
        None => None,
        Some(mask) => {
            if mask.shape() != [n_tasks, n_features] {
                return Err(PyValueError::new_err(format!(
                    "task_feature_mask must have shape ({n_tasks}, {n_features}), got {:?}",
                    mask.shape()
                )));
            }
            Some(contiguous("task_feature_mask", mask)?.to_vec())
        }
    };
    Ok(multitask_params(
        mu_group,
        mu_task,
        task_feature_mask,
        shared_rounds,
    ))
}

/// The multitask settings; `mu_task` holds one μ_t for every task or one
/// per task.
fn multitask_params(
    (mu_group, mu_group_relative): (f64, bool),
    (mu_task, mu_task_relative): (Vec<f64>, bool),
    task_feature_mask: Option<Vec<bool>>,
    shared_rounds: usize,
) -> MultiTaskParams {
    let (mu_task, task_mu) = match mu_task[..] {
        [mu] => (mu, None),
        _ => (0.0, Some(mu_task)),
    };
    MultiTaskParams {
        mu_group,
        mu_task,
        mu_group_relative,
        mu_task_relative,
        task_mu,
        task_feature_mask,
        shared_rounds,
    }
}

/// Add the multitask class and function to the native module.
pub(super) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyMultiTaskModel>()?;
    m.add_function(wrap_pyfunction!(fit_multitask, m)?)?;
    m.add_function(wrap_pyfunction!(check_multitask_params, m)?)?;
    Ok(())
}
