//! Distributed training from Python: `Shard` (the state a Dask actor
//! holds on its worker) and `fit_sharded` (the client's fit, which reaches
//! the shards through a Python callable; see `sparseboost.dask`).

use super::matrix::PyMatrix;
use super::multitask::PyMultiTaskModel;
use super::{contiguous, run_interruptible, run_observed, training, PyModel};
use crate::distributed::protocol::{decode, encode, Request};
use crate::distributed::{fit_sharded as fit, fit_sharded_multitask as fit_multitask};
use crate::distributed::{Shard, Transport};
use crate::error::SbError;
use numpy::{PyReadonlyArray1, PyReadonlyArray2};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

/// Some rows of a training set, binned and boosted on request. `x` is a
/// matrix as `engine_matrix(X, "csc")` makes it, kept (not copied) for
/// the binning and sampling requests.
#[pyclass(module = "sparseboost._core", name = "Shard")]
struct PyShard {
    x: Py<PyAny>,
    shard: Shard,
}

#[pymethods]
impl PyShard {
    /// `task`: each row's task (in `0..n_tasks`), for a multitask fit.
    #[new]
    #[pyo3(signature = (x, y, sample_weight, group, params, task=None))]
    fn new(
        x: Bound<'_, PyAny>,
        y: PyReadonlyArray1<'_, f64>,
        sample_weight: Option<PyReadonlyArray1<'_, f64>>,
        group: Option<PyReadonlyArray1<'_, usize>>,
        params: &Bound<'_, PyDict>,
        task: Option<PyReadonlyArray1<'_, u32>>,
    ) -> PyResult<Self> {
        let params = super::params::from_dict(params)?;
        let matrix: PyMatrix = x.extract()?;
        let view = matrix.view("X")?;
        let weights = match &sample_weight {
            Some(w) => Some(contiguous("sample_weight", w)?.to_vec()),
            None => None,
        };
        let group = match &group {
            Some(g) => Some(contiguous("group", g)?.to_vec()),
            None => None,
        };
        let y = contiguous("y", &y)?.to_vec();
        let mut shard = Shard::new(params, view.n_rows, view.n_features, y, weights, group)
            .map_err(super::to_pyerr)?;
        if let Some(task) = &task {
            let task = contiguous("task", task)?.to_vec();
            shard = shard.with_tasks(task).map_err(super::to_pyerr)?;
        }
        Ok(PyShard {
            x: x.unbind(),
            shard,
        })
    }

    /// Run one encoded request; the encoded reply. Releases the GIL.
    fn handle<'py>(&mut self, py: Python<'py>, request: &[u8]) -> PyResult<Bound<'py, PyBytes>> {
        let request: Request = decode(request, "request").map_err(super::to_pyerr)?;
        let matrix: PyMatrix = self.x.bind(py).extract()?;
        let view = matrix.view("X")?;
        let shard = &mut self.shard;
        let reply = run_interruptible(py, |stop| {
            shard.handle(&view, request, &|| stop.load(Ordering::Relaxed))
        })?;
        Ok(PyBytes::new(py, &encode(&reply)))
    }
}

/// Shards reached through `exchange(list of request bytes) -> list of
/// reply bytes` (one per shard, in order). A Python exception there ends
/// the fit and is raised as it is.
struct PyTransport {
    exchange: Py<PyAny>,
    n_shards: usize,
    raised: Arc<Mutex<Option<PyErr>>>,
    shard_rows: Option<Vec<Vec<u32>>>,
}

impl Transport for PyTransport {
    fn n_shards(&self) -> usize {
        self.n_shards
    }

    fn shard_rows(&self) -> Option<Vec<Vec<u32>>> {
        self.shard_rows.clone()
    }

    fn exchange(&mut self, requests: Vec<Vec<u8>>) -> crate::Result<Vec<Vec<u8>>> {
        Python::attach(|py| {
            let list: Vec<Bound<PyBytes>> = requests.iter().map(|r| PyBytes::new(py, r)).collect();
            let replies = self.exchange.call1(py, (list,)).and_then(|out| {
                out.bind(py)
                    .try_iter()?
                    .map(|r| reply_bytes(&r?))
                    .collect::<PyResult<Vec<Vec<u8>>>>()
            });
            replies.map_err(|e| {
                let message = e.to_string();
                *self.raised.lock().expect("not poisoned") = Some(e);
                SbError::InvalidInput(format!("the transport to the shards failed: {message}"))
            })
        })
    }
}

/// A reply as `bytes` or a 1-D uint8 array (what a Dask actor sends
/// fastest).
fn reply_bytes(reply: &Bound<'_, PyAny>) -> PyResult<Vec<u8>> {
    if let Ok(bytes) = reply.cast::<PyBytes>() {
        return Ok(bytes.as_bytes().to_vec());
    }
    let array: PyReadonlyArray1<u8> = reply.extract().map_err(|_| {
        pyo3::exceptions::PyTypeError::new_err(format!(
            "a shard's reply must be bytes or a uint8 array, got {}",
            reply.get_type()
        ))
    })?;
    Ok(array
        .as_slice()
        .map_err(|_| pyo3::exceptions::PyValueError::new_err("a reply array must be contiguous"))?
        .to_vec())
}

/// The settings of a multitask fit as `fit_multitask` takes them: tasks,
/// μ_G, μ_t (one, or one per task), the task-feature mask, shared rounds.
type MultiTask<'py> = (
    usize,
    (f64, bool),
    (Vec<f64>, bool),
    Option<PyReadonlyArray2<'py, bool>>,
    usize,
);

/// Fit on `n_shards` shards reached through `exchange` (see
/// [`PyTransport`]), with `params` and evaluation sets of `n_features`
/// columns held here, resuming from `init_model`'s rounds if given; one
/// model per task with `multitask` (the shards hold their rows' tasks).
/// `shard_rows`: the data's row number of each shard's rows (ascending in
/// each), when the shards are not in row order; samples are drawn in the
/// data's order. Returns `(model, history, traffic)`; releases the GIL between
/// exchanges, and Ctrl-C stops the fit. An error during boosting carries
/// the model of the rounds completed as its `partial_model` attribute
/// (None without one).
#[pyfunction]
#[pyo3(signature = (params, exchange, n_shards, n_features, eval_sets=Vec::new(), callback=None, init_model=None, multitask=None, shard_rows=None))]
#[allow(clippy::too_many_arguments)] // mirrors the Python keyword arguments
fn fit_sharded<'py>(
    py: Python<'py>,
    params: &Bound<'py, PyDict>,
    exchange: Bound<'py, PyAny>,
    n_shards: usize,
    n_features: usize,
    eval_sets: Vec<training::PyEvalSet<'py>>,
    callback: Option<Bound<'py, PyAny>>,
    init_model: Option<PyRef<'py, PyModel>>,
    multitask: Option<MultiTask<'py>>,
    shard_rows: Option<Vec<Vec<u32>>>,
) -> PyResult<(Py<PyAny>, Bound<'py, PyDict>, Bound<'py, PyDict>)> {
    let params = super::params::from_dict(params)?;
    let multitask = match multitask {
        Some((n_tasks, mu_group, mu_task, mask, shared_rounds)) => {
            let shape = (n_tasks, n_features);
            let mt = super::multitask::settings(shape, mu_group, mu_task, mask, shared_rounds)?;
            Some((n_tasks, mt))
        }
        None => None,
    };
    let evals = training::eval_sets(&eval_sets, n_features)?;
    let raised = Arc::new(Mutex::new(None));
    let mut transport = PyTransport {
        exchange: exchange.unbind(),
        n_shards,
        raised: raised.clone(),
        shard_rows,
    };
    let init = init_model.as_ref().map(|m| &m.model);
    let mut partial = None;
    let result = run_observed(
        py,
        |stop, observer| {
            let should_stop = &|| stop.load(Ordering::Relaxed);
            let transport = &mut transport;
            match &multitask {
                None => fit(
                    &params,
                    transport,
                    &evals,
                    init,
                    &mut partial,
                    should_stop,
                    observer,
                )
                .map(|(m, h, t)| (Fitted::Model(m), h, t)),
                Some((n_tasks, mt)) => fit_multitask(
                    &params,
                    mt,
                    *n_tasks,
                    transport,
                    &evals,
                    should_stop,
                    observer,
                )
                .map(|(m, h, t)| (Fitted::MultiTask(m), h, t)),
            }
        },
        callback.as_ref(),
    );
    let raised = raised.lock().expect("not poisoned").take();
    let (model, history, traffic) = match (result, raised) {
        (Ok(fitted), None) => fitted,
        (result, raised) => {
            let error = match (raised, result) {
                (Some(e), _) => e,
                (None, Err(e)) => e,
                (None, Ok(_)) => unreachable!("an error was raised or returned"),
            };
            let partial = partial.map(PyModel::wrap);
            error.value(py).setattr("partial_model", partial)?;
            return Err(error);
        }
    };
    let counts = PyDict::new(py);
    for (phase, c) in [("setup", traffic.setup), ("boosting", traffic.boosting)] {
        let d = PyDict::new(py);
        d.set_item("round_trips", c.round_trips)?;
        d.set_item("bytes_sent", c.bytes_sent)?;
        d.set_item("bytes_received", c.bytes_received)?;
        counts.set_item(phase, d)?;
    }
    let seconds = PyDict::new(py);
    seconds.set_item("setup", traffic.seconds.setup)?;
    seconds.set_item("boosting", traffic.seconds.boosting)?;
    seconds.set_item("waiting", traffic.seconds.waiting)?;
    counts.set_item("seconds", seconds)?;
    counts.set_item("trees", traffic.trees)?;
    counts.set_item("shards", traffic.shards)?;
    let model = match model {
        Fitted::Model(m) => Py::new(py, PyModel::wrap(m))?.into_any(),
        Fitted::MultiTask(m) => Py::new(py, PyMultiTaskModel::wrap(py, m)?)?.into_any(),
    };
    Ok((model, training::history(py, &history)?, counts))
}

/// What `fit_sharded` made.
enum Fitted {
    Model(crate::model::Model),
    MultiTask(crate::multitask::MultiTaskModel),
}

pub(super) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyShard>()?;
    m.add_function(wrap_pyfunction!(fit_sharded, m)?)?;
    Ok(())
}
