//! Reading [`BoosterParams`] from the Python layer's dict. Every key must be
//! known; ranges are checked by [`BoosterParams::validate`]. Errors name the
//! parameter as the estimators spell it: a value of the wrong type is a
//! `TypeError`, one out of range a `ValueError`.
//!
//! The keys are one table ([`BOOSTER_KEYS`]): how each is read, and how its
//! value is shown back to Python. `engine_defaults` shows the defaults, so
//! that the Python tests can compare the keys and defaults with the
//! estimators' table of parameters (`sparseboost._params`).

use crate::feature_sampling::{FeatureCount, FeatureSampling};
use crate::metrics::Metric;
use crate::params::{BoosterParams, ObjectiveKind, PenaltyKind, SplitSearch};
use pyo3::conversion::FromPyObjectOwned;
use pyo3::exceptions::{PyOverflowError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyString};
use pyo3::IntoPyObjectExt;

/// `{key} must be {expected}, got {value!r} ({type})`.
fn wrong_type(key: &str, expected: &str, value: &Bound<'_, PyAny>) -> PyErr {
    let repr = value
        .repr()
        .map_or_else(|_| "?".to_string(), |r| r.to_string());
    let type_name = value
        .get_type()
        .name()
        .map_or_else(|_| "?".to_string(), |n| n.to_string());
    PyTypeError::new_err(format!(
        "{key} must be {expected}, got {repr} ({type_name})"
    ))
}

/// True for Python's and numpy's booleans (`np.True_` is no `bool`
/// subclass, and converts to 1.0 silently).
fn is_boolean(value: &Bound<'_, PyAny>) -> bool {
    value.is_instance_of::<PyBool>()
        || value
            .get_type()
            .name()
            .is_ok_and(|n| n == "bool_" || n == "bool")
}

/// A real number (an int or a float, not a bool or a string).
pub(super) fn real(key: &str, value: &Bound<'_, PyAny>) -> PyResult<f64> {
    if is_boolean(value) || value.is_instance_of::<PyString>() {
        return Err(wrong_type(key, "a real number", value));
    }
    value.extract::<f64>().map_err(|e| {
        if e.is_instance_of::<PyOverflowError>(value.py()) {
            PyValueError::new_err(format!("{key} is too large for a float64, got {value}"))
        } else {
            wrong_type(key, "a real number", value)
        }
    })
}

/// A count: an integer (not a bool, not a float), so that a negative one is
/// a range error (a `ValueError`). Beyond 2⁶³ it saturates: such counts
/// mean "no limit" everywhere they are used.
pub(super) fn count(key: &str, value: &Bound<'_, PyAny>) -> PyResult<usize> {
    count_or(key, value, "")
}

/// [`count`], with `hint` after the error for a negative value.
fn count_or(key: &str, value: &Bound<'_, PyAny>, hint: &str) -> PyResult<usize> {
    if is_boolean(value) || value.is_instance_of::<PyFloat>() || value.is_instance_of::<PyString>()
    {
        return Err(wrong_type(key, "an integer", value));
    }
    let v = match value.extract::<i64>() {
        Ok(v) => v,
        Err(e) if e.is_instance_of::<PyOverflowError>(value.py()) => {
            if value.gt(0)? {
                i64::MAX
            } else {
                i64::MIN
            }
        }
        Err(_) => return Err(wrong_type(key, "an integer", value)),
    };
    // Not "must be >= 0": most counts must be 1 or more, which the
    // parameter's own check says (a user told ">= 0" tries 0 next).
    usize::try_from(v).map_err(|_| {
        PyValueError::new_err(format!("{key} must not be negative, got {value}{hint}"))
    })
}

/// `None` or a count.
pub(super) fn optional_count(key: &str, value: &Bound<'_, PyAny>) -> PyResult<Option<usize>> {
    if value.is_none() {
        Ok(None)
    } else {
        // LightGBM writes -1 for "no limit"; here that is None.
        count_or(key, value, "; None means no limit (LightGBM's -1)").map(Some)
    }
}

/// A string (one of a few names, checked by the caller's parser).
pub(super) fn name(key: &str, value: &Bound<'_, PyAny>) -> PyResult<String> {
    value
        .extract::<String>()
        .map_err(|_| wrong_type(key, "a string", value))
}

/// A seed: an integer in [0, 2⁶⁴).
pub(super) fn seed(key: &str, value: &Bound<'_, PyAny>) -> PyResult<u64> {
    if is_boolean(value) {
        return Err(wrong_type(key, "an integer", value));
    }
    value.extract::<u64>().map_err(|e| {
        if e.is_instance_of::<PyOverflowError>(value.py()) {
            PyValueError::new_err(format!("{key} must be in [0, 2**64), got {value}"))
        } else {
            wrong_type(key, "an integer", value)
        }
    })
}

/// A boolean (Python's or numpy's).
pub(super) fn boolean(key: &str, value: &Bound<'_, PyAny>) -> PyResult<bool> {
    if !is_boolean(value) {
        return Err(wrong_type(key, "a boolean", value));
    }
    value.is_truthy()
}

/// A number of features: an integer is a count, a float a fraction
/// (scikit-learn's `max_features` convention).
pub(super) fn feature_count(key: &str, value: &Bound<'_, PyAny>) -> PyResult<FeatureCount> {
    if value.is_instance_of::<PyFloat>()
        || value
            .get_type()
            .name()
            .is_ok_and(|n| n.to_cow().is_ok_and(|s| s.starts_with("float")))
    {
        return Ok(FeatureCount::Fraction(real(key, value)?));
    }
    Ok(FeatureCount::Count(count(key, value)?))
}

/// `None`, a metric name or a list of them.
fn metrics(key: &str, value: &Bound<'_, PyAny>) -> PyResult<Vec<Metric>> {
    if value.is_none() {
        return Ok(Vec::new());
    }
    let names: Vec<String> = if value.is_instance_of::<PyString>() {
        vec![name(key, value)?]
    } else {
        value
            .extract()
            .map_err(|_| wrong_type(key, "a metric name or a list of them", value))?
    };
    names.iter().map(|n| parsed(Metric::parse(n))).collect()
}

/// A list of feature indices (the categorical features); `None` for none.
pub(super) fn feature_list(key: &str, value: &Bound<'_, PyAny>) -> PyResult<Vec<usize>> {
    Ok(optional_list(key, "a list of feature indices", value)?.unwrap_or_default())
}

/// `None` or a list (of costs, of bag labels).
fn optional_list<'py, T: FromPyObjectOwned<'py>>(
    key: &str,
    expected: &str,
    value: &Bound<'py, PyAny>,
) -> PyResult<Option<T>> {
    if value.is_none() {
        return Ok(None);
    }
    value
        .extract()
        .map(Some)
        .map_err(|_| wrong_type(key, expected, value))
}

pub(super) fn parsed<T>(result: crate::Result<T>) -> PyResult<T> {
    result.map_err(|e| PyValueError::new_err(e.to_string()))
}

/// One key of a parameter dict: how its value is read into the parameters
/// `P`, and how the parameters' value is shown to Python (as the
/// estimators would pass it).
pub(super) struct Key<P> {
    pub(super) name: &'static str,
    read: fn(&mut P, &str, &Bound<'_, PyAny>) -> PyResult<()>,
    show: for<'py> fn(&P, Python<'py>) -> PyResult<Bound<'py, PyAny>>,
}

impl<P> Key<P> {
    pub(super) const fn new(
        name: &'static str,
        read: fn(&mut P, &str, &Bound<'_, PyAny>) -> PyResult<()>,
        show: for<'py> fn(&P, Python<'py>) -> PyResult<Bound<'py, PyAny>>,
    ) -> Self {
        Key { name, read, show }
    }
}

/// `*field = value?` as a reader's result.
pub(super) fn set<T>(field: &mut T, value: PyResult<T>) -> PyResult<()> {
    *field = value?;
    Ok(())
}

/// A value as a Python object.
pub(super) fn shown<'py, T: IntoPyObjectExt<'py>>(
    py: Python<'py>,
    value: T,
) -> PyResult<Bound<'py, PyAny>> {
    value.into_bound_py_any(py)
}

/// A number of features as the estimators pass it: a fraction as a float,
/// a count as an int.
pub(super) fn shown_count<'py>(
    py: Python<'py>,
    value: FeatureCount,
) -> PyResult<Bound<'py, PyAny>> {
    match value {
        FeatureCount::Fraction(f) => shown(py, f),
        FeatureCount::Count(k) => shown(py, k),
    }
}

/// `start` with every key of `dict` read into it; an unknown key is an
/// error that names it.
pub(super) fn read<P>(keys: &[Key<P>], mut start: P, dict: &Bound<'_, PyDict>) -> PyResult<P> {
    for (key, value) in dict.iter() {
        let key: String = key.extract()?;
        let Some(entry) = keys.iter().find(|k| k.name == key) else {
            return Err(PyValueError::new_err(format!("unknown parameter '{key}'")));
        };
        (entry.read)(&mut start, &key, &value)?;
    }
    Ok(start)
}

/// Every key with its value in `params`.
pub(super) fn shown_all<'py, P>(
    py: Python<'py>,
    keys: &[Key<P>],
    params: &P,
) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    for key in keys {
        dict.set_item(key.name, (key.show)(params, py)?)?;
    }
    Ok(dict)
}

type B = BoosterParams;

/// The keys of a fit's dict (`fit`, `fit_multitask`, `Shard`,
/// `fit_sharded`, `check_params`).
pub(super) static BOOSTER_KEYS: &[Key<B>] = &[
    Key::new(
        "objective",
        |p, k, v| set(&mut p.objective, parsed(ObjectiveKind::parse(&name(k, v)?))),
        |p, py| shown(py, p.objective.name()),
    ),
    Key::new(
        "n_classes",
        |p, k, v| set(&mut p.n_classes, count(k, v)),
        |p, py| shown(py, p.n_classes),
    ),
    Key::new(
        "lambdarank_truncation_level",
        |p, k, v| set(&mut p.lambdarank_truncation_level, count(k, v)),
        |p, py| shown(py, p.lambdarank_truncation_level),
    ),
    Key::new(
        "n_estimators",
        |p, k, v| set(&mut p.n_estimators, count(k, v)),
        |p, py| shown(py, p.n_estimators),
    ),
    Key::new(
        "learning_rate",
        |p, k, v| set(&mut p.learning_rate, real(k, v)),
        |p, py| shown(py, p.learning_rate),
    ),
    Key::new(
        "max_leaves",
        |p, k, v| set(&mut p.max_leaves, count(k, v)),
        |p, py| shown(py, p.max_leaves),
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
        "min_split_fraction",
        |p, k, v| set(&mut p.min_split_fraction, real(k, v)),
        |p, py| shown(py, p.min_split_fraction),
    ),
    Key::new(
        "min_child_weight",
        |p, k, v| set(&mut p.min_child_weight, real(k, v)),
        |p, py| shown(py, p.min_child_weight),
    ),
    Key::new(
        "l2_regularization",
        |p, k, v| set(&mut p.l2_regularization, real(k, v)),
        |p, py| shown(py, p.l2_regularization),
    ),
    Key::new(
        "min_gain",
        |p, k, v| set(&mut p.min_gain, real(k, v)),
        |p, py| shown(py, p.min_gain),
    ),
    Key::new(
        "max_bins",
        |p, k, v| set(&mut p.max_bins, count(k, v)),
        |p, py| shown(py, p.max_bins),
    ),
    Key::new(
        "subsample",
        |p, k, v| set(&mut p.subsample, real(k, v)),
        |p, py| shown(py, p.subsample),
    ),
    Key::new(
        "colsample_bytree",
        |p, k, v| set(&mut p.colsample_bytree, feature_count(k, v)),
        |p, py| shown_count(py, p.colsample_bytree),
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
        "n_threads",
        |p, k, v| set(&mut p.n_threads, count(k, v)),
        |p, py| shown(py, p.n_threads),
    ),
    Key::new(
        "seed",
        |p, k, v| set(&mut p.seed, seed(k, v)),
        |p, py| shown(py, p.seed),
    ),
    Key::new(
        "bin_sample_rows",
        |p, k, v| set(&mut p.bin_sample_rows, count(k, v)),
        |p, py| shown(py, p.bin_sample_rows),
    ),
    Key::new(
        "penalty",
        |p, k, v| set(&mut p.penalty, parsed(PenaltyKind::parse(&name(k, v)?))),
        |p, py| shown(py, p.penalty.name()),
    ),
    Key::new(
        "mu",
        |p, k, v| set(&mut p.mu, real(k, v)),
        |p, py| shown(py, p.mu),
    ),
    Key::new(
        "mu_relative",
        |p, k, v| set(&mut p.mu_relative, boolean(k, v)),
        |p, py| shown(py, p.mu_relative),
    ),
    Key::new(
        "feature_costs",
        |p, k, v| {
            set(
                &mut p.feature_costs,
                optional_list(k, "a list of numbers", v),
            )
        },
        |p, py| shown(py, p.feature_costs.clone()),
    ),
    Key::new(
        "feature_bags",
        |p, k, v| {
            set(
                &mut p.feature_bags,
                optional_list(k, "a list of bag indices", v),
            )
        },
        |p, py| shown(py, p.feature_bags.clone()),
    ),
    Key::new(
        "max_selected_features",
        |p, k, v| set(&mut p.max_features, optional_count(k, v)),
        |p, py| shown(py, p.max_features),
    ),
    Key::new(
        "categorical_features",
        |p, k, v| set(&mut p.categorical_features, feature_list(k, v)),
        |p, py| shown(py, p.categorical_features.clone()),
    ),
    Key::new(
        "split_search",
        |p, k, v| {
            set(
                &mut p.split_search,
                parsed(SplitSearch::parse(&name(k, v)?)),
            )
        },
        |p, py| shown(py, p.split_search.name()),
    ),
    Key::new(
        "gt_n_features",
        |p, k, v| set(&mut p.gt_n_features, count(k, v)),
        |p, py| shown(py, p.gt_n_features),
    ),
    Key::new(
        "gt_delta",
        |p, k, v| set(&mut p.gt_delta, real(k, v)),
        |p, py| shown(py, p.gt_delta),
    ),
    Key::new(
        "gt_max_rows",
        |p, k, v| set(&mut p.gt_max_rows, optional_count(k, v)),
        |p, py| shown(py, p.gt_max_rows),
    ),
    Key::new(
        "early_stopping_rounds",
        |p, k, v| set(&mut p.early_stopping_rounds, optional_count(k, v)),
        |p, py| shown(py, p.early_stopping_rounds),
    ),
    Key::new(
        "record_train_loss",
        |p, k, v| set(&mut p.record_train_loss, boolean(k, v)),
        |p, py| shown(py, p.record_train_loss),
    ),
    Key::new(
        "eval_metric",
        |p, k, v| set(&mut p.eval_metrics, metrics(k, v)),
        // No metrics means the objective's own, which the estimators spell None.
        |p, py| match p.eval_metrics.as_slice() {
            [] => Ok(py.None().into_bound(py)),
            metrics => shown(py, metrics.iter().map(|m| m.name()).collect::<Vec<_>>()),
        },
    ),
];

/// Build and validate parameters from a dict of `name -> value`.
pub fn from_dict(dict: &Bound<'_, PyDict>) -> PyResult<BoosterParams> {
    let p = read(BOOSTER_KEYS, BoosterParams::default(), dict)?;
    parsed(p.validate())?;
    Ok(p)
}

/// Every key a fit's dict takes, with its default value.
pub(super) fn defaults(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    shown_all(py, BOOSTER_KEYS, &BoosterParams::default())
}
