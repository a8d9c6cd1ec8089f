"""Checking what users pass in: one place for every method that takes X, y,
sample weights, task labels, n_jobs or random_state.

Every rejection is a ``ValueError`` (or a ``TypeError`` for an object of
the wrong kind) whose message names the argument as the user spelled it;
the checks of scikit-learn are reused, and their messages get the
argument's name in front when they do not already say it.
"""

from __future__ import annotations

import numbers
import re
import sys
import warnings
from contextlib import contextmanager

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import NotFittedError
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import (
    _check_feature_names,
    _check_sample_weight,
    check_array,
    column_or_1d,
    validate_data,
)

from . import _core

# dtype kinds numpy cannot turn into numbers on its own terms: datetimes,
# timedeltas, byte and unicode strings, raw records. (Complex numbers get
# a message of their own, in scikit-learn's words.)
_NOT_NUMBERS = {
    "M": "dates",
    "m": "time spans",
    "S": "byte strings",
    "U": "strings",
    "V": "records",
}


@contextmanager
def naming(arg: str):
    """Re-raise a ``ValueError``/``TypeError`` (or an ``OverflowError`` from a
    conversion) with ``arg`` in front of its message unless it names it."""
    try:
        yield
    except NotFittedError:
        raise
    except (ValueError, TypeError, OverflowError) as e:
        if getattr(e, "names_parameter", False) or re.search(
            # (Not \b: a name ending in "]" is followed by no word boundary.)
            rf"(?<![\w.]){re.escape(arg)}(?!\w)",
            str(e),
        ):
            raise
        kind = TypeError if isinstance(e, TypeError) else ValueError
        raise kind(f"{arg}: {e}") from e


# A numeric target with at most this many distinct integer values is taken
# as class labels (-1/+1, 0..9 digits); more is a count or a measurement.
# The estimators apply it to floats only (ints and text are labels, as in
# scikit-learn); the main job, which reads every number from text, to all.
MAX_INTEGER_CLASSES = 10


def _as_array(values, arg: str):
    """Lists and other sequences as a numpy array; ragged ones rejected."""
    if values is None or sp.issparse(values) or isinstance(values, np.ndarray):
        return values
    if hasattr(values, "dtypes"):  # pandas
        return values
    if hasattr(values, "__array__") or isinstance(values, (list, tuple)):
        try:
            return np.asarray(values)
        except ValueError as e:
            if "inhomogeneous" in str(e) or "sequence" in str(e):
                raise ValueError(
                    f"{arg} is ragged: its rows have different lengths ({e})"
                ) from None
            raise
    return values


def _missing_as_nan(values):
    """An object array's missing cells (``pd.NA``, as ``to_numpy()`` of a
    nullable column gives, ``None``, ``NaT``) as NaN: numpy converts
    ``None`` to a float but not ``pd.NA``."""
    if not (isinstance(values, np.ndarray) and values.dtype == object):
        return values
    if "pandas" not in sys.modules:  # then no cell is pd.NA
        return values
    import pandas as pd

    missing = pd.isna(values)
    return np.where(missing, np.nan, values) if missing.any() else values


def _reject_non_numbers(values, arg: str, *, labels: bool = False, sparse_ok: bool = False) -> None:
    """Reject dtypes that are not numbers (for class labels, strings are
    fine), and sparse matrices unless ``sparse_ok``."""
    if sp.issparse(values):
        if sparse_ok:
            return
        raise TypeError(
            f"{arg} is a scipy sparse matrix; this estimator needs a dense array "
            f"(for example {arg}.toarray())"
        )
    dtypes = getattr(values, "dtypes", None)
    if dtypes is not None and hasattr(dtypes, "items"):  # a DataFrame
        import pandas as pd

        for name, dtype in dtypes.items():
            numeric = pd.api.types.is_bool_dtype(dtype) or pd.api.types.is_numeric_dtype(dtype)
            if not (numeric or dtype == object) or isinstance(dtype, pd.CategoricalDtype):
                raise ValueError(
                    f"{arg} column {name!r} has dtype {dtype}; sparseboost needs numbers "
                    "(bool, int or float; encode categories and dates first)"
                )
        return
    kind = getattr(getattr(values, "dtype", None), "kind", None)
    if kind == "c":  # (scikit-learn's checks look for its words)
        raise ValueError(
            f"Complex data not supported: {arg} must hold real numbers (dtype {values.dtype})"
        )
    if kind in _NOT_NUMBERS and not (labels and kind == "U"):
        raise ValueError(
            f"{arg} must hold numbers, got {_NOT_NUMBERS[kind]} (dtype {values.dtype})"
        )


@contextmanager
def converting(arg: str):
    """Say that ``arg`` must hold numbers when numpy cannot convert a value
    (its own message, "could not convert string to float" or "float()
    argument must be...", names neither the argument nor the rule)."""
    try:
        yield
    except (TypeError, ValueError) as e:
        if re.search(r"could not convert|argument must be a|cannot convert", str(e)):
            kind = TypeError if isinstance(e, TypeError) else ValueError
            raise kind(f"{arg} must hold numbers (or NaN for missing values): {e}") from e
        raise


def check_X(
    estimator,
    X,
    *,
    reset: bool,
    order: str = "C",
    allow_nan: bool = True,
    dense_only: bool = False,
):
    """``X`` as an array in ``order`` (NaN allowed unless not ``allow_nan``,
    ±inf never). With ``reset`` it sets ``n_features_in_`` (and
    ``feature_names_in_``), else it checks ``X`` against them.

    float32 stays float32 and a scipy sparse matrix stays sparse (CSR or
    CSC; other formats become CSR), unless ``dense_only``: the engine reads
    them as they are (see ``_matrix.engine_matrix``). Anything else becomes
    float64.

    An estimator with a ``categorical_features`` parameter gets its
    categorical columns as codes (``_categorical``): learned with
    ``reset``, applied otherwise."""
    with naming("X"), converting("X"):
        X = _missing_as_nan(_as_array(X, "X"))
        if not reset and hasattr(X, "columns"):
            # Names first: reordered columns are that error, not one about
            # a categorical column's dtype in the wrong place.
            _check_feature_names(estimator, X, reset=False)
        X = _categorical_codes(estimator, X, reset)
        _reject_non_numbers(X, "X", sparse_ok=not dense_only)
        return validate_data(
            estimator,
            X,
            reset=reset,
            accept_sparse=False if dense_only else ["csr", "csc"],
            dtype=np.float64 if dense_only else [np.float64, np.float32],
            order=order,
            ensure_all_finite="allow-nan" if allow_nan else True,
        )


def _categorical_codes(estimator, X, reset: bool):
    """``X`` with ``estimator``'s categorical columns as their codes (see
    ``_categorical``); with ``reset`` the columns and their categories are
    learned first (``categorical_features_``, ``categories_``)."""
    if not hasattr(estimator, "categorical_features") or getattr(X, "ndim", None) != 2:
        return X  # (no X at all, or not 2-D: the checks below say so)
    from ._categorical import Encoding

    if reset:
        spec = estimator.categorical_features
        inner = getattr(estimator, "estimator", None)
        if isinstance(spec, str) and spec == "from_dtype" and inner is not None:
            # A selector left at its default takes the booster's own columns.
            spec = getattr(inner, "categorical_features", spec)
        with naming("categorical_features"):
            encoding = Encoding.fit(spec, X, lambda: _category_cap(estimator))
        estimator._categorical = encoding
        estimator.categorical_features_ = np.asarray(encoding.features, dtype=np.intp)
        estimator.categories_ = [c.values for c in encoding.categories]
    encoding = getattr(estimator, "_categorical", None)
    return X if encoding is None else encoding.encode(X)


def _category_cap(estimator) -> int:
    """The most categories a column keeps apart: ``max_bins`` (the engine
    checks it too, but only after the encoding has used it)."""
    max_bins = getattr(estimator, "max_bins", 255)
    error = None
    if isinstance(max_bins, (bool, np.bool_)) or not isinstance(max_bins, (int, np.integer)):
        error = TypeError(
            f"max_bins must be an integer, got {max_bins!r} ({type(max_bins).__name__})"
        )
    elif not 2 <= max_bins <= 255:
        error = ValueError(f"max_bins must be in [2, 255], got {max_bins!r}")
    if error is not None:
        error.names_parameter = True  # (so that ``naming`` leaves it as it is)
        raise error
    return int(max_bins)


def check_target(estimator, y, n_rows: int, *, labels: bool) -> np.ndarray:
    """``y`` as a 1-D array of ``n_rows`` values: finite float64 numbers, or
    (``labels``) class labels of one kind (numbers, bools or strings)."""
    with naming("y"):
        if y is None:
            raise ValueError(
                f"{type(estimator).__name__} requires y to be passed, but the target y is None"
            )
        y = _as_array(y, "y")
        _reject_non_numbers(y, "y", labels=labels)
        y = column_or_1d(y, warn=True)
        if y.shape[0] != n_rows:
            raise ValueError(f"y has {y.shape[0]} values but X has {n_rows} rows")
        if not labels:
            with converting("y"):
                return check_array(y, ensure_2d=False, dtype=np.float64, input_name="y")
        kinds = sorted({_label_kind(v) for v in y}) if y.dtype == object else []
        if len(kinds) > 1 or (kinds and kinds[0] not in ("str", "bool", "number")):
            raise ValueError(
                f"y holds labels of type {', '.join(kinds)}; class labels must all be "
                "numbers, all bools or all strings"
            )
        check_classification_targets(y)
        return y


def _label_kind(value) -> str:
    if isinstance(value, str):
        return "str"
    if isinstance(value, (bool, np.bool_)):
        return "bool"
    if isinstance(value, numbers.Number):
        return "number"
    return type(value).__name__


def check_labels_sortable(values: np.ndarray, arg: str):
    """``np.unique(values, return_inverse=True)``, with a clear error when the
    labels cannot be ordered."""
    try:
        unique, inverse = np.unique(values, return_inverse=True)
    except TypeError as e:
        raise ValueError(
            f"{arg} labels must be mutually comparable (all numbers or all strings): {e}"
        ) from None
    return unique, inverse.ravel()


def check_sample_weight(sample_weight, X: np.ndarray):
    """``None``, or the weights as a contiguous float64 array of one finite
    non-negative value per row of ``X`` (a scalar is every row's weight)."""
    if sample_weight is None:
        return None
    with naming("sample_weight"), converting("sample_weight"):
        sample_weight = _as_array(sample_weight, "sample_weight")
        _reject_non_numbers(sample_weight, "sample_weight")
        if isinstance(sample_weight, (bool, np.bool_)):
            raise TypeError(f"sample_weight must be numbers, got {sample_weight!r}")
        weights = _check_sample_weight(sample_weight, X, dtype=np.float64, ensure_non_negative=True)
        return np.ascontiguousarray(weights)


def resolve_n_jobs(n_jobs) -> int:
    """joblib's convention, capped at the cores this process may use
    (affinity and container quotas included): None or -1 = all of them,
    -2 = all but one, k > 0 = k."""
    cores = _core.available_cores()
    if n_jobs is None:
        return cores
    if not isinstance(n_jobs, numbers.Integral) or isinstance(n_jobs, (bool, np.bool_)):
        raise TypeError(f"n_jobs must be an int or None, got {n_jobs!r} ({type(n_jobs).__name__})")
    n_jobs = int(n_jobs)
    if n_jobs == 0:
        raise ValueError("n_jobs must be a non-zero int or None, got 0")
    if n_jobs < 0:
        return max(1, cores + 1 + n_jobs)
    return min(n_jobs, cores)


def resolve_seed(random_state, draw: bool = True) -> int:
    """An int in [0, 2**64) is the seed itself (same int, same model); None,
    a ``RandomState`` or a ``Generator`` draws one (or, without ``draw``,
    gives 0, leaving the generator alone: only the type is checked)."""
    if isinstance(random_state, numbers.Integral) and not isinstance(
        random_state, (bool, np.bool_)
    ):
        if not 0 <= random_state < 2**64:
            raise ValueError(f"random_state must be in [0, 2**64), got {random_state}")
        return int(random_state)
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(0, 2**63)) if draw else 0
    if random_state is None or isinstance(random_state, np.random.RandomState):
        if not draw:
            return 0
        return int(check_random_state(random_state).randint(np.iinfo(np.int32).max))
    raise TypeError(
        "random_state must be None, an int, a numpy RandomState or Generator, got "
        f"{random_state!r} ({type(random_state).__name__})"
    )


def resolve_n_features_to_select(value, n_features: int, *, default: int) -> int:
    """How many features a selector keeps: an int >= 1 (more than
    ``n_features`` keeps them all, with a warning, as scikit-learn's
    ``SelectKBest`` does), a float in (0, 1] as a fraction of ``n_features``
    (rounded down, at least 1; the convention of scikit-learn's ``RFE``), or
    None for ``default``."""
    if value is None:
        return default
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(
            f"n_features_to_select must be an int, a float in (0, 1] or None, got {value!r} "
            f"({type(value).__name__})"
        )
    if isinstance(value, numbers.Integral):
        if value < 1:
            raise ValueError(f"n_features_to_select must be >= 1, got {value}")
        if value > n_features:
            warnings.warn(
                f"n_features_to_select = {value} is more than the {n_features} features of X; "
                "all of them are kept",
                UserWarning,
                stacklevel=3,
            )
            return n_features
        return int(value)
    if not 0 < value <= 1:
        raise ValueError(f"n_features_to_select as a fraction must be in (0, 1], got {value}")
    return max(1, int(value * n_features))


_RELATIVE_MU = re.compile(r"^\s*(\S+?)\s*\*\s*mu_max\s*$")


def engine_mu(mu, name: str = "mu") -> tuple[object, bool]:
    """``(value, relative)``: ``mu`` as given, or the factor of a string
    ``"f*mu_max"`` (μ relative to μ_max, the smallest μ at which the first
    round admits no feature). The engine checks the value's range."""
    if not isinstance(mu, str):
        return mu, False
    match = _RELATIVE_MU.match(mu)
    factor = None
    if match is not None:
        try:
            factor = float(match.group(1))
        except ValueError:
            factor = None
    if factor is None:
        raise ValueError(
            f"{name} must be a number or a string 'f*mu_max' (a multiple f >= 0 of mu_max), "
            f"got {mu!r}"
        )
    return factor, True
