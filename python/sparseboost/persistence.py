"""Saving and loading fitted estimators as JSON.

File layout (version 1)::

    {
      "format": "sparseboost",
      "version": 1,
      "estimator": "SparseBoostRegressor" | "SparseBoostClassifier"
                   | "MultiTaskSparseBoostRegressor" | "MultiTaskSparseBoostClassifier",
      "params": {...},            # get_params(); random_state kept only if an int
      "fitted": {
        "n_features_in_": d,
        "feature_names_in_": [...] | null,
        "classes_": [...] | null, # classifier labels, in order
        "tasks_": [...]           # multitask estimators only: the task labels
      },
      "model": {...}              # the engine's model, format "sparseboost-model"
                                  # ("sparseboost-multitask-model" for multitask)
    }

The engine's part is documented in the Rust modules ``model`` (trees as flat
node lists; ``x <= threshold`` goes left, NaN follows ``default_left``) and
``multitask::model`` (one such model per task, plus the features used by any
task).
"""

from __future__ import annotations

import json
import numbers

import numpy as np

from . import _core
from .estimators import SparseBoostClassifier, SparseBoostRegressor
from .multitask import MultiTaskSparseBoostClassifier, MultiTaskSparseBoostRegressor

FORMAT = "sparseboost"
VERSION = 1
_MULTITASK = (MultiTaskSparseBoostRegressor, MultiTaskSparseBoostClassifier)
_CLASSES = {c.__name__: c for c in (SparseBoostRegressor, SparseBoostClassifier, *_MULTITASK)}


def _jsonable_params(estimator) -> dict:
    params = estimator.get_params(deep=False)
    if not isinstance(params.get("random_state"), (numbers.Integral, type(None))):
        params["random_state"] = None  # a RandomState object cannot be written
    return {k: _plain(v) for k, v in params.items()}


def _plain(value):
    """numpy scalars and arrays as the Python values JSON can hold."""
    if isinstance(value, (np.generic, np.ndarray)):
        return value.tolist()
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def save_model(estimator, path) -> None:
    """Write a fitted sparseboost estimator to ``path`` (JSON)."""
    if not hasattr(estimator, "_model"):
        raise ValueError("only a fitted estimator can be saved; call fit first")
    names = getattr(estimator, "feature_names_in_", None)
    classes = getattr(estimator, "classes_", None)
    document = {
        "format": FORMAT,
        "version": VERSION,
        "estimator": type(estimator).__name__,
        "params": _jsonable_params(estimator),
        "fitted": {
            "n_features_in_": int(estimator.n_features_in_),
            "feature_names_in_": None if names is None else [str(n) for n in names],
            "classes_": None if classes is None else classes.tolist(),
        },
        "model": json.loads(estimator._model.to_json()),
    }
    if isinstance(estimator, _MULTITASK):
        document["fitted"]["tasks_"] = estimator.tasks_.tolist()
    with open(path, "w", encoding="utf-8") as f:
        json.dump(document, f)


def load_model(path):
    """Read an estimator written by ``save_model``; it predicts exactly as
    the saved one did."""
    with open(path, encoding="utf-8") as f:
        document = json.load(f)
    if document.get("format") != FORMAT or document.get("version") != VERSION:
        raise ValueError(
            f"{path} is not a sparseboost model file (format {document.get('format')!r}, "
            f"version {document.get('version')!r})"
        )
    cls = _CLASSES.get(document.get("estimator"))
    if cls is None:
        raise ValueError(f"unknown estimator {document.get('estimator')!r} in {path}")
    estimator = cls(**document["params"])
    fitted = document["fitted"]
    estimator.n_features_in_ = fitted["n_features_in_"]
    if fitted["feature_names_in_"] is not None:
        estimator.feature_names_in_ = np.asarray(fitted["feature_names_in_"], dtype=object)
    if fitted["classes_"] is not None:
        estimator.classes_ = np.asarray(fitted["classes_"])
    if issubclass(cls, _MULTITASK):
        estimator.tasks_ = np.asarray(fitted["tasks_"])
        estimator._model = _core.MultiTaskModel.from_json(json.dumps(document["model"]))
    else:
        estimator._model = _core.Model.from_json(json.dumps(document["model"]))
    return estimator
