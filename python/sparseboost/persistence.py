"""Saving and loading fitted estimators as JSON.

File layout (version 1)::

    {
      "format": "sparseboost",
      "version": 1,
      "estimator": "SparseBoostRegressor" | "SparseBoostClassifier" | "SparseBoostRanker"
                   | "MultiTaskSparseBoostRegressor" | "MultiTaskSparseBoostClassifier",
      "params": {...},            # get_params(); random_state kept only if an int,
                                  # callbacks not kept (null); dicts and arrays
                                  # tagged (see _encode)
      "fitted": {
        "n_features_in_": d,
        "feature_names_in_": [...] | null,
        "classes_": [...] | null, # classifier labels, in order
        "classes_dtype": "...",   # their numpy dtype (optional)
        "best_iteration_": k | null,  # with evaluation sets (optional;
        "best_score_": v | null,      # evals_result_ is not saved)
        "tasks_": [...],          # multitask estimators only: the task labels
        "tasks_dtype": "...",     # their numpy dtype (optional)
        "shared_rounds_": s,      # multitask: the values the fit used ("auto"
        "mu_task_": ...           # parameters resolved; optional, as the params)
      },
      "model": {...},             # the engine's model, format "sparseboost-model"
                                  # ("sparseboost-multitask-model" for multitask)
      "input_encoding": {...}     # optional: how the command line encoded the
                                  # user's columns (sparseboost.cli.encoding)
    }

The engine's part is documented in the Rust modules ``model`` (trees as flat
node lists; ``x <= threshold`` goes left, NaN follows ``default_left``) and
``multitask::model`` (one such model per task, plus the features used by any
task).

A model file is untrusted input. ``load_model`` checks every field against
the others (the estimator against the model's kind and objective, the
fitted attributes against the model's sizes, the parameters as ``fit``
would) and the engine checks the trees, so a file either loads into an
estimator that predicts finite values or is rejected with a ``ValueError``
naming the field.
"""

from __future__ import annotations

import json
import math
import numbers
import os
import tempfile

import numpy as np

from . import _core, _params
from ._files import publish_mode
from ._json_arrays import exact_array

FORMAT = "sparseboost"
VERSION = 1
# The estimator kinds a file may name: name -> (class, the engine objectives
# its models have, whether it is multitask). Filled by ``register`` where
# each class is defined, so that this module imports no estimator (the
# estimators import it to save themselves).
_KINDS: dict = {}


def register(cls, objectives, *, multitask=False):
    """Let files name ``cls``: its models have one of ``objectives``."""
    _KINDS[cls.__name__] = (cls, frozenset(objectives), multitask)
    return cls


def _kind_of(estimator):
    """The registered kind an estimator is saved as: its own class, or for
    an estimator that has a single-machine equivalent (the Dask
    estimators' ``to_local``), that one's."""
    kind = _KINDS.get(type(estimator).__name__)
    if kind is not None and kind[0] is type(estimator):
        return estimator, kind
    to_local = getattr(estimator, "to_local", None)
    if callable(to_local):
        return _kind_of(to_local())
    raise TypeError(
        f"cannot save a {type(estimator).__name__}: a model file holds one of {sorted(_KINDS)}"
    )


# Label dtypes a file may restore (kinds: bool, int, uint, float, str).
_LABEL_KINDS = "biufU"


def _encode(value):
    """A parameter value as JSON: numpy scalars as Python numbers; dicts
    (whose keys may be ints) and arrays tagged so that they come back as
    they were."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return {"__ndarray__": value.tolist(), "dtype": value.dtype.str}
    if isinstance(value, dict):
        return {"__dict__": [[_encode(k), _encode(v)] for k, v in value.items()]}
    if isinstance(value, (list, tuple)):
        return [_encode(v) for v in value]
    return value


def _decode(value):
    if isinstance(value, dict) and set(value) == {"__ndarray__", "dtype"}:
        return np.asarray(value["__ndarray__"], dtype=np.dtype(value["dtype"]))
    if isinstance(value, dict) and set(value) == {"__dict__"}:
        return {_hashable(k): _decode(v) for k, v in value["__dict__"]}
    return value


def _hashable(key):
    return tuple(key) if isinstance(key, list) else key


def _jsonable_params(estimator) -> dict:
    params = estimator.get_params(deep=False)
    if not isinstance(params.get("random_state"), (numbers.Integral, type(None))):
        params["random_state"] = None  # a RandomState object cannot be written
    if "callbacks" in params:
        params["callbacks"] = None  # functions cannot be written
    return {k: _encode(v) for k, v in params.items()}


def _labels(values: np.ndarray):
    """Labels as a JSON list and their dtype."""
    return values.tolist(), values.dtype.str


def _categorical(fields, fitted, estimator, engine_model, multitask) -> None:
    """The categorical columns and their categories (``fitted.categorical``,
    absent without any), checked against the engine model's."""
    from ._categorical import Encoding

    models = engine_model.tasks if multitask else [engine_model]
    expected = models[0].categorical_features if models else []
    data = fitted.get("categorical")
    if data is None:
        if expected:
            fields.fail("fitted.categorical", f"is missing for categorical features {expected}")
        if hasattr(estimator, "categorical_features"):
            estimator._categorical = Encoding([], [])
            estimator.categorical_features_ = np.zeros(0, dtype=np.intp)
            estimator.categories_ = []
        return
    try:
        encoding = Encoding.from_json(data)
    except (KeyError, TypeError, ValueError) as e:
        fields.fail("fitted.categorical", f"is invalid: {e}")
    if encoding.features != list(expected):
        fields.fail(
            "fitted.categorical",
            f"names categorical features {encoding.features}, but the model's are {list(expected)}",
        )
    max_bins = int(getattr(estimator, "max_bins", 255))
    for feature, codes in zip(encoding.features, encoding.categories):
        if codes.n_codes > max_bins:
            fields.fail(
                "fitted.categorical",
                f"gives feature {feature} {codes.n_codes} category codes, more than "
                f"params.max_bins = {max_bins}",
            )
    for model in models:
        for feature, codes, needed in zip(
            encoding.features, encoding.categories, model.category_codes_needed, strict=True
        ):
            if needed > codes.n_codes:
                fields.fail(
                    "fitted.categorical",
                    f"gives feature {feature} {codes.n_codes} categories, but a split of the "
                    f"model sends code {needed - 1} left",
                )
    estimator._categorical = encoding
    estimator.categorical_features_ = np.asarray(encoding.features, dtype=np.intp)
    estimator.categories_ = [c.values for c in encoding.categories]


def save_model(estimator, path, *, input_encoding=None) -> None:
    """Write a fitted sparseboost estimator to ``path`` (JSON). The file is
    written to a temporary file beside ``path`` and renamed over it, so a
    failure never leaves a partial file where a model was.
    ``input_encoding`` (a dict, see ``sparseboost.cli.encoding``) records
    how the command line encoded the user's columns; it is checked as
    ``load_model`` will check it."""
    from sklearn.utils.validation import check_is_fitted

    check_is_fitted(estimator)
    estimator, (_, _, multitask) = _kind_of(estimator)
    names = getattr(estimator, "feature_names_in_", None)
    classes = getattr(estimator, "classes_", None)
    fitted = {
        "n_features_in_": int(estimator.n_features_in_),
        "feature_names_in_": None if names is None else [str(n) for n in names],
        "classes_": None,
    }
    if classes is not None:
        fitted["classes_"], fitted["classes_dtype"] = _labels(classes)
    for key in ("best_iteration_", "best_score_", "mu_max_"):
        fitted[key] = getattr(estimator, key, None)
    encoding = getattr(estimator, "_categorical", None)
    if encoding is not None and encoding.features:
        fitted["categorical"] = encoding.to_json()
    if multitask:
        fitted["tasks_"], fitted["tasks_dtype"] = _labels(estimator.tasks_)
        # The values the fit used ("auto" parameters are resolved by it).
        fitted["shared_rounds_"] = _encode(estimator.shared_rounds_)
        fitted["mu_task_"] = _encode(estimator.mu_task_)
    document = {
        "format": FORMAT,
        "version": VERSION,
        "estimator": type(estimator).__name__,
        "params": _jsonable_params(estimator),
        "fitted": fitted,
        "model": json.loads(estimator._model.to_json()),
    }
    if input_encoding is not None:
        _input_encoding(input_encoding, estimator)
        document["input_encoding"] = input_encoding
    try:
        text = json.dumps(document, allow_nan=False)
    except (TypeError, ValueError) as e:
        raise ValueError(f"the estimator cannot be written as JSON: {e}") from None
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    handle, temporary = tempfile.mkstemp(prefix=".sparseboost-", suffix=".json", dir=directory)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as f:
            f.write(text)
        publish_mode(temporary, path)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


def _non_finite(value, path):
    """The path of the first NaN or infinite number in ``value`` (Python's
    JSON reader accepts them; JSON itself and the engine do not), or None."""
    if isinstance(value, float) and not np.isfinite(value):
        return path
    if isinstance(value, dict):
        items = ((f"{path}.{k}", v) for k, v in value.items())
    elif isinstance(value, list):
        items = ((f"{path}[{i}]", v) for i, v in enumerate(value))
    else:
        return None
    for sub_path, sub_value in items:
        found = _non_finite(sub_value, sub_path)
        if found is not None:
            return found
    return None


class _Fields:
    """Reads a model file's fields, raising ``ValueError`` that names the
    field for anything missing or of the wrong kind."""

    def __init__(self, path, document):
        self.path = path
        if not isinstance(document, dict):
            self.fail("the document", "must be a JSON object")
        self.document = document

    def fail(self, field, message):
        raise ValueError(f"model file {self.path}: {field} {message}")

    def get(self, *keys, kind=None, optional=False):
        value = self.document
        for depth, key in enumerate(keys):
            if not isinstance(value, dict) or key not in value:
                if optional:
                    return None
                self.fail(".".join(keys[: depth + 1]), "is missing")
            value = value[key]
        if kind is not None and not isinstance(value, kind):
            self.fail(".".join(keys), f"has the wrong type ({type(value).__name__})")
        return value

    def labels(self, key, dtype_key):
        """Labels saved with ``_labels``; unique and sorted (as fitting
        makes them)."""
        values = self.get("fitted", key, kind=list)
        dtype = self.get("fitted", dtype_key, kind=str, optional=True)
        try:
            labels = exact_array(values, None if dtype is None else np.dtype(dtype))
        except (TypeError, ValueError) as e:
            self.fail(f"fitted.{key}", str(e))
        readable = labels.dtype.kind in _LABEL_KINDS or (
            labels.dtype == object and all(isinstance(v, (str, bool, int, float)) for v in values)
        )
        if not readable:  # (flat and finite: exact_array checked)
            self.fail(f"fitted.{key}", f"must be a list of numbers or strings, got {values!r}")
        if len(np.unique(labels)) != len(labels) or not np.array_equal(np.sort(labels), labels):
            self.fail(f"fitted.{key}", f"must be distinct and sorted, got {values!r}")
        return labels


def _best_round(fields, fitted, engine_model):
    """``fitted.best_iteration_`` (null, or a round with a tree: an int in
    [0, number of trees)) and ``fitted.best_score_`` (null or finite)."""
    tasks = getattr(engine_model, "tasks", [engine_model])
    n_trees = sum(m.n_trees for m in tasks)
    best_iteration = fitted.get("best_iteration_")
    if best_iteration is not None and (
        isinstance(best_iteration, bool)
        or not isinstance(best_iteration, int)
        or not 0 <= best_iteration < n_trees
    ):
        fields.fail(
            "fitted.best_iteration_",
            f"must be null or an int in [0, {n_trees}) (a round with a tree), "
            f"got {best_iteration!r}",
        )
    best_score = fitted.get("best_score_")
    if best_score is None:
        return best_iteration, None
    try:
        finite = (
            isinstance(best_score, (int, float))
            and not isinstance(best_score, bool)
            and math.isfinite(float(best_score))
        )
    except (TypeError, ValueError, OverflowError):
        finite = False
    if not finite:
        fields.fail("fitted.best_score_", f"must be a finite number or null, got {best_score!r}")
    return best_iteration, float(best_score)


def _input_encoding(value, estimator):
    """The ``input_encoding`` field, checked against the model
    (``ValueError`` naming the field); imported late because only the
    command line writes it."""
    from .cli.encoding import Encoding

    return Encoding.from_dict(value, estimator)


def load_input_encoding(path):
    """The ``input_encoding`` of the model file at ``path`` (an
    ``Encoding``, checked against the model), or None if it has none. Also
    returns the estimator: ``(estimator, encoding)``."""
    estimator = load_model(path)
    with open(path, encoding="utf-8") as f:
        value = json.load(f).get("input_encoding")
    if value is None:
        return estimator, None
    try:
        return estimator, _input_encoding(value, estimator)
    except ValueError as e:
        raise ValueError(f"model file {path}: {e}") from None


def load_model(path):
    """Read an estimator written by ``save_model``; it predicts exactly as
    the saved one did. Raises ``ValueError`` naming the field of a file that
    is not a consistent sparseboost model."""
    with open(path, encoding="utf-8") as f:
        try:
            document = json.load(f)
        except RecursionError:
            raise ValueError(f"model file {path}: nested too deeply") from None
        except ValueError as e:
            raise ValueError(f"model file {path} is not JSON: {e}") from None
    fields = _Fields(path, document)
    if (
        fields.get("format", optional=True) != FORMAT
        or fields.get("version", optional=True) != VERSION
    ):
        raise ValueError(
            f"{path} is not a sparseboost model file (format {document.get('format')!r}, "
            f"version {document.get('version')!r})"
        )
    name = fields.get("estimator")
    kind = _KINDS.get(name) if isinstance(name, str) else None
    if kind is None:
        fields.fail("estimator", f"must be one of {sorted(_KINDS)}, got {name!r}")
    cls, allowed_objectives, multitask = kind
    model_format = fields.get("model", "format", kind=str)
    expected_format = "sparseboost-multitask-model" if multitask else "sparseboost-model"
    if model_format != expected_format:
        fields.fail("estimator", f"{name!r} does not match model.format {model_format!r}")
    bad = _non_finite(document["model"], "model")
    if bad is not None:
        fields.fail(bad, "must be a finite number")
    try:
        if multitask:
            engine_model = _core.MultiTaskModel.from_json(json.dumps(document["model"]))
            objectives = {m.objective for m in engine_model.tasks}
        else:
            engine_model = _core.Model.from_json(json.dumps(document["model"]))
            objectives = {engine_model.objective}
    except ValueError as e:
        fields.fail("model", f"is invalid: {e}")
    if len(objectives) > 1 or not objectives <= allowed_objectives:
        fields.fail(
            "estimator",
            f"{name!r} needs model.objective in {sorted(allowed_objectives)}, got {objectives}",
        )
    params = fields.get("params", kind=dict)
    # A file written before a parameter was renamed names it the old way.
    params = _params.current_spelling(name, params)
    try:
        estimator = cls(**{key: _decode(value) for key, value in params.items()})
    except (TypeError, ValueError) as e:
        fields.fail("params", f"do not fit {name}: {e}")
    fitted = fields.get("fitted", kind=dict)
    d = fields.get("fitted", "n_features_in_", kind=int)
    if engine_model.n_features != d:
        fields.fail(
            "fitted.n_features_in_", f"is {d} but the model has {engine_model.n_features} features"
        )
    estimator.n_features_in_ = d
    names = fields.get("fitted", "feature_names_in_")
    if names is not None:
        if not (isinstance(names, list) and all(isinstance(n, str) for n in names)):
            fields.fail("fitted.feature_names_in_", "must be a list of strings or null")
        if len(names) != d:
            fields.fail("fitted.feature_names_in_", f"has {len(names)} names for {d} features")
        if len(set(names)) != len(names):
            twice = sorted({n for n in names if names.count(n) > 1})
            fields.fail("fitted.feature_names_in_", f"names a column more than once: {twice}")
        estimator.feature_names_in_ = np.asarray(names, dtype=object)
    outputs = engine_model.tasks[0].n_outputs if multitask else engine_model.n_outputs
    if not estimator._labels and outputs != 1:
        # (the engine allows several squared-error outputs, for forests)
        fields.fail("model.n_outputs", f"must be 1 for {name}, got {outputs}")
    if estimator._labels:
        estimator.classes_ = fields.labels("classes_", "classes_dtype")
        expected = 2 if outputs == 1 else outputs
        if len(estimator.classes_) != expected:
            fields.fail(
                "fitted.classes_",
                f"must hold {expected} labels for the model, got {len(estimator.classes_)}",
            )
    elif fitted.get("classes_") is not None:
        fields.fail("fitted.classes_", f"must be null for {name}")
    if multitask:
        estimator.tasks_ = fields.labels("tasks_", "tasks_dtype")
        if engine_model.n_tasks != len(estimator.tasks_):
            fields.fail(
                "fitted.tasks_",
                f"has {len(estimator.tasks_)} labels for {engine_model.n_tasks} tasks",
            )
        # Files written before "auto" existed: the parameters are the values.
        # _check_params below checks them either way.
        for key in ("shared_rounds_", "mu_task_"):
            try:
                value = _decode(fitted[key]) if key in fitted else getattr(estimator, key[:-1])
            except (TypeError, ValueError) as e:
                fields.fail(f"fitted.{key}", f"is not a value of {key[:-1]}: {e}")
            setattr(estimator, key, value)
        estimator.tuning_results_ = None
    estimator.best_iteration_, estimator.best_score_ = _best_round(fields, fitted, engine_model)
    mu_max = fitted.get("mu_max_")  # absent from files written before it existed
    if mu_max is not None and (
        isinstance(mu_max, bool)
        or not isinstance(mu_max, (int, float))
        or not math.isfinite(mu_max)
        or mu_max < 0
    ):
        fields.fail("fitted.mu_max_", f"must be a number >= 0 or null, got {mu_max!r}")
    estimator.mu_max_ = None if mu_max is None else float(mu_max)
    _categorical(fields, fitted, estimator, engine_model, multitask)
    estimator._model = engine_model
    try:
        estimator._check_params()
    except (TypeError, ValueError) as e:
        fields.fail(
            "params",
            "disagree with fitted.n_features_in_, fitted.feature_names_in_ or fitted.tasks_, "
            f"or are invalid: {e}",
        )
    if document.get("input_encoding") is not None:
        try:
            _input_encoding(document["input_encoding"], estimator)
        except ValueError as e:
            raise ValueError(f"model file {path}: {e}") from None
    return estimator
