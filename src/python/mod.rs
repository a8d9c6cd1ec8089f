//! The PyO3 bindings: the only place that knows about Python.
//!
//! Every long call goes through [`run_interruptible`]: it releases the GIL,
//! runs the work on a helper thread, polls Python's signal handlers so that
//! Ctrl-C stops a fit between two trees, and turns a Rust panic into a Python
//! `RuntimeError` instead of aborting the interpreter.

mod distributed;
mod forest;
mod logistic;
mod matrix;
mod multitask;
mod params;
mod training;

use matrix::PyMatrix;

use crate::booster::fit_with;
use crate::data::TrainingData;
use crate::error::SbError;
use crate::group_testing;
use crate::model::{ImportanceKind, Model};
use crate::predictor::Predictor;
use crate::threads;
use crate::trainer::{Observer, RoundReport};
use numpy::{PyArray1, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::{PyKeyboardInterrupt, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Duration;

fn to_pyerr(e: SbError) -> PyErr {
    match e {
        SbError::Interrupted => PyKeyboardInterrupt::new_err("sparseboost fit interrupted"),
        other => PyValueError::new_err(other.to_string()),
    }
}

fn panic_message(payload: Box<dyn std::any::Any + Send>) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_string())
}

/// Run `work` without the GIL on a helper thread. `work` receives a flag that
/// becomes true when Python has a pending KeyboardInterrupt (or any error
/// from a signal handler), which is then re-raised. A signal that arrives
/// while the work ends (in the last polling interval, or as the work
/// returns its result or another error) is raised too: Ctrl-C is never
/// lost, whatever the work returned.
fn run_interruptible<T: Send>(
    py: Python<'_>,
    work: impl FnOnce(&AtomicBool) -> crate::Result<T> + Send,
) -> PyResult<T> {
    run_observed(py, |stop, _| work(stop), None)
}

/// What the helper thread tells the main thread.
enum Message<T> {
    /// The work ended (or panicked).
    Done(std::thread::Result<crate::Result<T>>),
    /// A round ended; the fit waits for the callback's answer (true: go on).
    Round(RoundReport, mpsc::SyncSender<bool>),
}

/// [`run_interruptible`] for a fit that reports its rounds: each
/// [`RoundReport`] is passed, on this (the main) thread and with the GIL,
/// to `callback` as `(round, train_loss, eval, n_features, elapsed)`; a
/// truthy return stops the fit after that round, an exception stops it and
/// is raised. The fit thread never takes the GIL. Without a callback no
/// report is sent.
fn run_observed<T: Send>(
    py: Python<'_>,
    work: impl FnOnce(&AtomicBool, &mut Observer) -> crate::Result<T> + Send,
    callback: Option<&Bound<'_, PyAny>>,
) -> PyResult<T> {
    let stop = AtomicBool::new(false);
    let mut raised: Option<PyErr> = None;
    let observed = callback.is_some();
    let callback = callback.map(|c| c.clone().unbind());
    let outcome = py.detach(|| {
        std::thread::scope(|scope| {
            let (messages, inbox) = mpsc::channel::<Message<T>>();
            let stop = &stop;
            let reports = messages.clone();
            scope.spawn(move || {
                let mut observer = |report: &RoundReport| -> bool {
                    if !observed {
                        return true;
                    }
                    let (reply, answer) = mpsc::sync_channel(1);
                    if reports.send(Message::Round(report.clone(), reply)).is_err() {
                        return false;
                    }
                    answer.recv().unwrap_or(false)
                };
                let result = catch_unwind(AssertUnwindSafe(|| work(stop, &mut observer)));
                let _ = messages.send(Message::Done(result));
            });
            loop {
                match inbox.recv_timeout(Duration::from_millis(50)) {
                    Ok(Message::Done(result)) => return result,
                    Ok(Message::Round(report, reply)) => {
                        let go_on = Python::attach(|py| {
                            let Some(callback) = &callback else {
                                return true;
                            };
                            let (features, gains): (Vec<usize>, Vec<f64>) =
                                report.splits.iter().copied().unzip();
                            let args = (
                                report.round,
                                report.train_loss,
                                report.eval.clone(),
                                report.n_features,
                                report.elapsed,
                                PyArray1::from_vec(py, features),
                                PyArray1::from_vec(py, gains),
                            );
                            match callback.call1(py, args).and_then(|r| r.is_truthy(py)) {
                                Ok(stop_now) => !stop_now,
                                Err(e) => {
                                    raised.get_or_insert(e);
                                    false
                                }
                            }
                        });
                        let _ = reply.send(go_on);
                    }
                    Err(mpsc::RecvTimeoutError::Timeout) => {
                        if raised.is_none() {
                            if let Err(e) = Python::attach(|py| py.check_signals()) {
                                raised = Some(e);
                                stop.store(true, Ordering::Relaxed);
                            }
                        }
                    }
                    Err(mpsc::RecvTimeoutError::Disconnected) => {
                        return Err(Box::new("worker thread ended without a result")
                            as Box<dyn std::any::Any + Send>);
                    }
                }
            }
        })
    });
    if raised.is_none() {
        raised = py.check_signals().err();
    }
    if let Some(e) = raised {
        return Err(e);
    }
    match outcome {
        Err(panic) => Err(PyRuntimeError::new_err(format!(
            "internal error in sparseboost (please report it): {}",
            panic_message(panic)
        ))),
        Ok(result) => result.map_err(to_pyerr),
    }
}

/// "gain" or "split".
fn importance_kind(kind: &str) -> PyResult<ImportanceKind> {
    match kind {
        "gain" => Ok(ImportanceKind::Gain),
        "split" => Ok(ImportanceKind::Split),
        other => Err(PyValueError::new_err(format!(
            "importance kind must be 'gain' or 'split', got '{other}'"
        ))),
    }
}

fn contiguous<'a, T: numpy::Element>(
    name: &str,
    a: &'a numpy::PyReadonlyArray<'_, T, impl numpy::ndarray::Dimension>,
) -> PyResult<&'a [T]> {
    // as_slice() also accepts Fortran order, which would be read transposed.
    let c_order = a.is_c_contiguous();
    a.as_slice()
        .ok()
        .filter(|_| c_order)
        .ok_or_else(|| PyValueError::new_err(format!("{name} must be a C-contiguous array")))
}

/// A fitted ensemble (Rust side). Picklable.
#[pyclass(module = "sparseboost._core", name = "Model", frozen)]
struct PyModel {
    model: Model,
    predictor: Predictor,
}

impl PyModel {
    fn wrap(model: Model) -> Self {
        let predictor = Predictor::new(&model);
        PyModel { model, predictor }
    }
}

#[pymethods]
impl PyModel {
    /// Raw scores (regression value, logit, class scores or ranking
    /// score) of a C-contiguous float64 matrix of shape (n, d); returns
    /// shape (n,) for one output, (n, K) for K.
    fn predict_raw<'py>(
        &self,
        py: Python<'py>,
        x: PyMatrix<'py>,
        n_threads: usize,
    ) -> PyResult<Bound<'py, PyAny>> {
        let x = x.view("X")?;
        let n = x.n_rows;
        let out = run_interruptible(py, |stop| {
            threads::install(n_threads, || {
                self.predictor
                    .predict_raw(&x, &|| stop.load(Ordering::Relaxed))
            })?
        })?;
        let k = self.predictor.n_outputs();
        let flat = PyArray1::from_vec(py, out);
        if k == 1 {
            Ok(flat.into_any())
        } else {
            Ok(flat.reshape([n, k])?.into_any())
        }
    }

    /// K, the raw scores per row (the classes of a multiclass model).
    #[getter]
    fn n_outputs(&self) -> usize {
        self.model.n_outputs
    }

    /// Per-feature importance, `kind` = "gain" or "split"; `normalize`
    /// makes it sum to 1 (all zeros without splits).
    #[pyo3(signature = (kind, normalize=false))]
    fn importances<'py>(
        &self,
        py: Python<'py>,
        kind: &str,
        normalize: bool,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let kind = importance_kind(kind)?;
        Ok(PyArray1::from_vec(
            py,
            self.model.importances(kind, normalize),
        ))
    }

    /// The model as a JSON document (format documented in the Rust `model` module).
    fn to_json(&self) -> String {
        self.model.to_json()
    }

    /// Read a model written by `to_json`.
    #[staticmethod]
    fn from_json(text: &str) -> PyResult<Self> {
        Model::from_json(text).map(PyModel::wrap).map_err(to_pyerr)
    }

    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        reduce_through_json::<PyModel>(py, self.model.to_json())
    }

    /// Number of input features.
    #[getter]
    fn n_features(&self) -> usize {
        self.model.n_features
    }

    /// The categorical features (their splits are sets of codes).
    #[getter]
    fn categorical_features(&self) -> Vec<usize> {
        self.model.categorical_features.clone()
    }

    /// For each categorical feature, the codes its splits need (one more
    /// than the largest they name).
    #[getter]
    fn category_codes_needed(&self) -> Vec<usize> {
        self.model.category_codes_needed()
    }

    /// The loss the model was fitted for: "squared_error" or "binary_logloss".
    #[getter]
    fn objective(&self) -> &'static str {
        self.model.objective.name()
    }

    /// Number of trees.
    #[getter]
    fn n_trees(&self) -> usize {
        self.model.trees.len()
    }

    /// The raw scores before any tree, one per output.
    #[getter]
    fn base_score(&self) -> Vec<f64> {
        self.model.base_score.clone()
    }

    /// Mean training loss after each tree.
    #[getter]
    fn train_loss(&self) -> Vec<f64> {
        self.model.train_loss.clone()
    }

    /// Features used by any split, in the order they entered.
    #[getter]
    fn selected_features(&self) -> Vec<usize> {
        self.model.selected_features.clone()
    }

    /// The tree at which each selected feature entered.
    #[getter]
    fn feature_entry_tree(&self) -> Vec<usize> {
        self.model.feature_entry_tree.clone()
    }

    /// Number of features used after each tree.
    #[getter]
    fn n_selected_after_tree(&self) -> Vec<usize> {
        self.model.n_selected_after_tree.clone()
    }

    /// With group testing: the number of feature subsets p (else None).
    #[getter]
    fn gt_n_subsets(&self) -> Option<usize> {
        self.model.gt_n_subsets
    }

    /// With group testing: the prefix-sum cache's bytes (else None).
    #[getter]
    fn gt_cache_bytes(&self) -> Option<usize> {
        self.model.gt_cache_bytes
    }

    /// Final feature sampling probabilities (empty for old files).
    #[getter]
    fn feature_weights(&self) -> Vec<f64> {
        self.model.feature_weights.clone()
    }
}

/// Fit a model. `x`: C-contiguous float64 (n, d); `y`: float64 (n,);
/// `sample_weight`: float64 (n,) or None; `params`: a dict of engine
/// parameters (see `sparseboost._base`); `group`: ranking query sizes
/// (uintp) or None; `eval_sets`: a list of `(x, y, sample_weight, group,
/// None)`; `callback`: called after each round (see [`run_observed`]).
/// Returns `(model, history)`, the history a dict of `metrics`, `values`
/// (per set, per metric, per round), `best` (round, score) or None, and
/// `rounds`. Releases the GIL; Ctrl-C stops the fit with
/// KeyboardInterrupt.
#[pyfunction]
#[pyo3(signature = (x, y, sample_weight, params, group=None, eval_sets=Vec::new(), callback=None))]
#[allow(clippy::too_many_arguments)] // mirrors the Python keyword arguments
fn fit<'py>(
    py: Python<'py>,
    x: PyMatrix<'py>,
    y: PyReadonlyArray1<'py, f64>,
    sample_weight: Option<PyReadonlyArray1<'py, f64>>,
    params: &Bound<'py, PyDict>,
    group: Option<PyReadonlyArray1<'py, usize>>,
    eval_sets: Vec<training::PyEvalSet<'py>>,
    callback: Option<Bound<'py, PyAny>>,
) -> PyResult<(PyModel, Bound<'py, PyDict>)> {
    let params = params::from_dict(params)?;
    let mut data = training_data(&x, &y, &sample_weight)?;
    data.group_sizes = match &group {
        Some(g) => Some(contiguous("group", g)?),
        None => None,
    };
    let evals = training::eval_sets(&eval_sets, data.n_features())?;
    let (model, history) = run_observed(
        py,
        |stop, observer| {
            fit_with(
                &data,
                &params,
                &evals,
                &|| stop.load(Ordering::Relaxed),
                observer,
            )
        },
        callback.as_ref(),
    )?;
    Ok((PyModel::wrap(model), training::history(py, &history)?))
}

/// The arrays of a fit as the engine's [`TrainingData`] (shapes are checked
/// by the engine).
fn training_data<'a>(
    x: &'a PyMatrix<'_>,
    y: &'a PyReadonlyArray1<'_, f64>,
    sample_weight: &'a Option<PyReadonlyArray1<'_, f64>>,
) -> PyResult<TrainingData<'a>> {
    Ok(TrainingData {
        x: x.view("X")?,
        y: contiguous("y", y)?,
        weights: match sample_weight {
            Some(w) => Some(contiguous("sample_weight", w)?),
            None => None,
        },
        group_sizes: None,
    })
}

/// Pickle support: `(T.from_json, (json,))`, so a model pickles as its
/// model file.
pub(crate) fn reduce_through_json<'py, T: pyo3::PyTypeInfo>(
    py: Python<'py>,
    json: String,
) -> PyResult<Bound<'py, PyTuple>> {
    let constructor = py.get_type::<T>().getattr("from_json")?;
    PyTuple::new(
        py,
        [
            constructor.into_any(),
            (json,).into_pyobject(py)?.into_any(),
        ],
    )
}

/// GT-GBM's candidate features at the root of a squared-error problem:
/// returns `(candidates, n_subsets, cache_bytes)`. `x`: C-contiguous float64
/// (n, d); `y`: float64 (n,); `exclude`: features subtracted from every
/// pseudo-feature. For measuring the group test (the paper's Figure 1).
#[allow(clippy::too_many_arguments)] // mirrors the Python keyword arguments
#[pyfunction]
#[pyo3(signature = (x, y, gt_n_features, gt_delta, seed, min_samples_leaf=20, exclude=Vec::new()))]
fn group_testing_candidates<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'py, f64>,
    y: PyReadonlyArray1<'py, f64>,
    gt_n_features: usize,
    gt_delta: f64,
    seed: u64,
    min_samples_leaf: u32,
    exclude: Vec<usize>,
) -> PyResult<(Vec<usize>, usize, usize)> {
    let (n, d) = (x.shape()[0], x.shape()[1]);
    let (xs, ys) = (contiguous("X", &x)?, contiguous("y", &y)?);
    if let Some(&f) = exclude.iter().find(|&&f| f >= d) {
        return Err(PyValueError::new_err(format!(
            "exclude names feature {f} but X has {d} features"
        )));
    }
    if ys.len() != n || n == 0 {
        return Err(PyValueError::new_err(
            "y must have one value per row of a non-empty X",
        ));
    }
    run_interruptible(py, |stop| {
        let should_stop = || stop.load(Ordering::Relaxed);
        let data = crate::binning::bin_matrix(xs, n, d, 255, 200_000, seed, &should_stop)?;
        let subsets = group_testing::draw_subsets(d, gt_n_features, gt_delta, seed)?;
        let n_subsets = subsets.len();
        let cache = group_testing::PrefixCache::build(&data, subsets, &should_stop)?;
        let mut excluded = group_testing::Excluded::new(&cache);
        for &f in &exclude {
            excluded.add(&cache, f);
        }
        let found = group_testing::squared_error_root_candidates(
            &data,
            ys,
            &cache,
            &excluded,
            min_samples_leaf,
            usize::MAX, // the paper's subsets: every one is searched
        );
        Ok((found, n_subsets, cache.memory_bytes()))
    })
}

/// The cores this process may use (CPU affinity and cgroup quotas
/// included): the default and the cap of `n_jobs`.
#[pyfunction]
fn available_cores() -> usize {
    threads::available_cores()
}

/// Check engine parameters (a dict as for `fit`) for a model of
/// `n_features` features without fitting: raises as `fit` would.
#[pyfunction]
fn check_params(params: &Bound<'_, PyDict>, n_features: usize) -> PyResult<()> {
    params::from_dict(params)?
        .validate_for(n_features)
        .map_err(to_pyerr)
}

/// Every key of the engine's parameter dict `kind` ("booster": `fit`,
/// `fit_multitask`, `Shard`, `fit_sharded`; "forest": `fit_forest`) with
/// its default value, as the estimators would pass it.
#[pyfunction]
fn engine_defaults<'py>(py: Python<'py>, kind: &str) -> PyResult<Bound<'py, PyDict>> {
    match kind {
        "booster" => params::defaults(py),
        "forest" => forest::defaults(py),
        other => Err(PyValueError::new_err(format!(
            "kind must be 'booster' or 'forest', got '{other}'"
        ))),
    }
}

/// The names of the metrics a fit with these engine parameters evaluates
/// (those of `eval_metric`, else the objective's own).
#[pyfunction]
fn eval_metric_names(params: &Bound<'_, PyDict>) -> PyResult<Vec<String>> {
    let params = params::from_dict(params)?;
    let metrics = crate::trainer::metrics_for(&params).map_err(to_pyerr)?;
    Ok(metrics.iter().map(|m| m.name()).collect())
}

/// Deliberately panic inside Rust (tests check that this raises instead of
/// aborting the interpreter).
#[pyfunction]
fn _panic_for_tests(py: Python<'_>) -> PyResult<()> {
    run_interruptible(py, |_| -> crate::Result<()> {
        panic!("requested by a test")
    })
}

/// Work for `seconds` without looking at the stop flag, then succeed: a
/// Ctrl-C meanwhile must still raise KeyboardInterrupt (tests).
#[pyfunction]
fn _work_for_tests(py: Python<'_>, seconds: f64) -> PyResult<()> {
    run_interruptible(py, |_| {
        std::thread::sleep(Duration::from_secs_f64(seconds.clamp(0.0, 60.0)));
        Ok(())
    })
}

/// The native part of sparseboost.
#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyModel>()?;
    m.add_function(wrap_pyfunction!(fit, m)?)?;
    m.add_function(wrap_pyfunction!(_panic_for_tests, m)?)?;
    m.add_function(wrap_pyfunction!(_work_for_tests, m)?)?;
    m.add_function(wrap_pyfunction!(group_testing_candidates, m)?)?;
    m.add_function(wrap_pyfunction!(available_cores, m)?)?;
    m.add_function(wrap_pyfunction!(check_params, m)?)?;
    m.add_function(wrap_pyfunction!(engine_defaults, m)?)?;
    m.add_function(wrap_pyfunction!(eval_metric_names, m)?)?;
    multitask::register(m)?;
    forest::register(m)?;
    logistic::register(m)?;
    distributed::register(m)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    // The largest relevance label LambdaRank takes and the largest |y|
    // squared error takes, for checks made before the engine sees the
    // targets (the main job's, on the user's rows).
    m.add("MAX_RELEVANCE", crate::objective::MAX_RELEVANCE)?;
    m.add("MAX_ABS_TARGET", crate::objective::MAX_ABS_TARGET)?;
    Ok(())
}
