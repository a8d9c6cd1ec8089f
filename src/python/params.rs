//! Reading [`BoosterParams`] from the Python layer's dict. Every key must be
//! known; ranges are checked by [`BoosterParams::validate`].

use crate::params::{BoosterParams, ObjectiveKind, PenaltyKind, SplitSearch};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

fn get<'py, T: FromPyObjectOwned<'py>>(key: &str, value: &Bound<'py, PyAny>) -> PyResult<T> {
    value
        .extract::<T>()
        .map_err(|_| PyTypeError::new_err(format!("parameter '{key}' has the wrong type: {value}")))
}

/// `None` or a value.
fn optional<'py, T: FromPyObjectOwned<'py>>(
    key: &str,
    value: &Bound<'py, PyAny>,
) -> PyResult<Option<T>> {
    if value.is_none() {
        Ok(None)
    } else {
        get(key, value).map(Some)
    }
}

/// A count: an integer, so that a negative one is a range error (a
/// `ValueError`), not a type error.
fn count(key: &str, value: &Bound<'_, PyAny>) -> PyResult<usize> {
    let v: i64 = get(key, value)?;
    usize::try_from(v).map_err(|_| PyValueError::new_err(format!("{key} must be >= 0, got {v}")))
}

/// `None` or a count.
fn optional_count(key: &str, value: &Bound<'_, PyAny>) -> PyResult<Option<usize>> {
    if value.is_none() {
        Ok(None)
    } else {
        count(key, value).map(Some)
    }
}

/// Build and validate parameters from a dict of `name -> value`.
pub fn from_dict(dict: &Bound<'_, PyDict>) -> PyResult<BoosterParams> {
    let mut p = BoosterParams::default();
    for (key, value) in dict.iter() {
        let key: String = key.extract()?;
        match key.as_str() {
            "objective" => {
                p.objective = ObjectiveKind::parse(&get::<String>(&key, &value)?)
                    .map_err(|e| PyValueError::new_err(e.to_string()))?
            }
            "n_estimators" => p.n_estimators = count(&key, &value)?,
            "learning_rate" => p.learning_rate = get(&key, &value)?,
            "max_leaves" => p.max_leaves = count(&key, &value)?,
            "max_depth" => p.max_depth = optional_count(&key, &value)?,
            "min_samples_leaf" => p.min_samples_leaf = count(&key, &value)?,
            "min_split_fraction" => p.min_split_fraction = get(&key, &value)?,
            "min_child_weight" => p.min_child_weight = get(&key, &value)?,
            "l2_regularization" => p.l2_regularization = get(&key, &value)?,
            "min_gain" => p.min_gain = get(&key, &value)?,
            "max_bins" => p.max_bins = count(&key, &value)?,
            "subsample" => p.subsample = get(&key, &value)?,
            "colsample_bytree" => p.colsample_bytree = get(&key, &value)?,
            "n_threads" => p.n_threads = count(&key, &value)?,
            "seed" => p.seed = get(&key, &value)?,
            "bin_sample_rows" => p.bin_sample_rows = count(&key, &value)?,
            "penalty" => {
                p.penalty = PenaltyKind::parse(&get::<String>(&key, &value)?)
                    .map_err(|e| PyValueError::new_err(e.to_string()))?
            }
            "mu" => p.mu = get(&key, &value)?,
            "feature_costs" => p.feature_costs = optional(&key, &value)?,
            "feature_bags" => p.feature_bags = optional(&key, &value)?,
            "max_features" => p.max_features = optional_count(&key, &value)?,
            "split_search" => {
                p.split_search = SplitSearch::parse(&get::<String>(&key, &value)?)
                    .map_err(|e| PyValueError::new_err(e.to_string()))?
            }
            "gt_n_features" => p.gt_n_features = count(&key, &value)?,
            "gt_delta" => p.gt_delta = get(&key, &value)?,
            "gt_max_rows" => p.gt_max_rows = optional_count(&key, &value)?,
            other => {
                return Err(PyValueError::new_err(format!(
                    "unknown parameter '{other}'"
                )))
            }
        }
    }
    p.validate()
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(p)
}
