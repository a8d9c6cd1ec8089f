//! Reading [`BoosterParams`] from the Python layer's dict. Every key must be
//! known; ranges are checked by [`BoosterParams::validate`]. Errors name the
//! parameter as the estimators spell it: a value of the wrong type is a
//! `TypeError`, one out of range a `ValueError`.

use crate::feature_sampling::{FeatureCount, FeatureSampling};
use crate::metrics::Metric;
use crate::params::{BoosterParams, ObjectiveKind, PenaltyKind, SplitSearch};
use pyo3::exceptions::{PyOverflowError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyString};

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
    usize::try_from(v)
        .map_err(|_| PyValueError::new_err(format!("{key} must be >= 0, got {value}")))
}

/// `None` or a count.
pub(super) fn optional_count(key: &str, value: &Bound<'_, PyAny>) -> PyResult<Option<usize>> {
    if value.is_none() {
        Ok(None)
    } else {
        count(key, value).map(Some)
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

pub(super) fn parsed<T>(result: crate::Result<T>) -> PyResult<T> {
    result.map_err(|e| PyValueError::new_err(e.to_string()))
}

/// Build and validate parameters from a dict of `name -> value`.
pub fn from_dict(dict: &Bound<'_, PyDict>) -> PyResult<BoosterParams> {
    let mut p = BoosterParams::default();
    for (key, value) in dict.iter() {
        let key: String = key.extract()?;
        let k = key.as_str();
        match k {
            "objective" => p.objective = parsed(ObjectiveKind::parse(&name(k, &value)?))?,
            "n_estimators" => p.n_estimators = count(k, &value)?,
            "learning_rate" => p.learning_rate = real(k, &value)?,
            "max_leaves" => p.max_leaves = count(k, &value)?,
            "max_depth" => p.max_depth = optional_count(k, &value)?,
            "min_samples_leaf" => p.min_samples_leaf = count(k, &value)?,
            "min_split_fraction" => p.min_split_fraction = real(k, &value)?,
            "min_child_weight" => p.min_child_weight = real(k, &value)?,
            "l2_regularization" => p.l2_regularization = real(k, &value)?,
            "min_gain" => p.min_gain = real(k, &value)?,
            "max_bins" => p.max_bins = count(k, &value)?,
            "subsample" => p.subsample = real(k, &value)?,
            "colsample_bytree" => p.colsample_bytree = feature_count(k, &value)?,
            "feature_sampling" => {
                p.feature_sampling = parsed(FeatureSampling::parse(&name(k, &value)?))?
            }
            "reweight_rate" => p.reweight_rate = real(k, &value)?,
            "n_threads" => p.n_threads = count(k, &value)?,
            "seed" => p.seed = seed(k, &value)?,
            "bin_sample_rows" => p.bin_sample_rows = count(k, &value)?,
            "penalty" => p.penalty = parsed(PenaltyKind::parse(&name(k, &value)?))?,
            "mu" => p.mu = real(k, &value)?,
            "mu_relative" => p.mu_relative = boolean(k, &value)?,
            "feature_costs" => {
                p.feature_costs = if value.is_none() {
                    None
                } else {
                    Some(
                        value
                            .extract()
                            .map_err(|_| wrong_type(k, "a list of numbers", &value))?,
                    )
                }
            }
            "feature_bags" => {
                p.feature_bags = if value.is_none() {
                    None
                } else {
                    Some(
                        value
                            .extract()
                            .map_err(|_| wrong_type(k, "a list of bag indices", &value))?,
                    )
                }
            }
            "max_features" => p.max_features = optional_count(k, &value)?,
            "split_search" => p.split_search = parsed(SplitSearch::parse(&name(k, &value)?))?,
            "gt_n_features" => p.gt_n_features = count(k, &value)?,
            "gt_delta" => p.gt_delta = real(k, &value)?,
            "gt_max_rows" => p.gt_max_rows = optional_count(k, &value)?,
            "n_classes" => p.n_classes = count(k, &value)?,
            "lambdarank_truncation_level" => p.lambdarank_truncation_level = count(k, &value)?,
            "early_stopping_rounds" => p.early_stopping_rounds = optional_count(k, &value)?,
            "eval_metric" => p.eval_metrics = metrics(k, &value)?,
            other => {
                return Err(PyValueError::new_err(format!(
                    "unknown parameter '{other}'"
                )))
            }
        }
    }
    parsed(p.validate())?;
    Ok(p)
}
