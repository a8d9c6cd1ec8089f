"""Hypothesis strategies and contract checks shared by the property tests
(``tests/test_properties_*.py``).

The contract (what every public call must do, for any input):

(a) raise ``ValueError`` or ``TypeError`` whose message names the offending
    argument as the user spelled it (``X``, ``y``, ``sample_weight``,
    ``task`` or a parameter name), and no other exception type; or
(b) succeed, with outputs of the documented shape that are finite (see the
    ``check_*`` helpers below).

``STATS`` counts the examples the property tests ran; ``conftest.py`` prints
it at the end of the session.
"""

from __future__ import annotations

import atexit
import itertools
import json
import math
import numbers
import os
import pickle
import re
import select
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from decimal import Decimal
from fractions import Fraction

import hypothesis.extra.numpy as hnp
import hypothesis.extra.pandas as hpd
import hypothesis.strategies as st
import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.exceptions import NotFittedError

import sparseboost

# -- profiles and counters ---------------------------------------------------

PROFILE = os.environ.get("SPARSEBOOST_HYPOTHESIS_PROFILE", "ci")
# The long profile runs every property test this many times as often as ci.
LONG_FACTOR = 12


def budget(n_ci: int) -> int:
    """Examples of one property test: ``n_ci`` in the ci profile, more in long."""
    return n_ci * LONG_FACTOR if PROFILE == "long" else n_ci


STATS = {"examples": 0, "rejected": 0, "accepted": 0}


def example() -> None:
    """Count one example (call first thing in every example)."""
    STATS["examples"] += 1


def tally(accepted: bool) -> None:
    """Count the outcome of an example's main call: accepted, or rejected
    with a ValueError/TypeError that met the contract."""
    STATS["accepted" if accepted else "rejected"] += 1


TESTS_DIR = os.path.dirname(os.path.abspath(__file__))
_TMP = tempfile.mkdtemp(prefix="sparseboost-props-")
atexit.register(shutil.rmtree, _TMP, True)
_counter = itertools.count()


def tmp_path(suffix: str = "") -> str:
    """A fresh path in this session's temporary directory."""
    return os.path.join(_TMP, f"f{next(_counter)}{suffix}")


# -- the contract --------------------------------------------------------------


class ContractViolation(AssertionError):
    pass


def names_any(message: str, names, plural: bool = False) -> bool:
    """Does ``message`` name one of ``names`` as a whole word (``plural``:
    or with an ``s`` appended, as in "leaf values" for ``value``)?"""
    s = "s?" if plural else ""
    return any(re.search(rf"\b{re.escape(n)}{s}\b", message) for n in names)


def attempt(fn, names, what: str, *, unfitted: bool = False):
    """Call ``fn()``. Returns ``(True, result)`` if it succeeds and
    ``(False, exception)`` if it raises a ValueError/TypeError whose message
    names one of ``names``; anything else is a ContractViolation.
    ``unfitted``: a NotFittedError is an accepted rejection whatever its
    message (the estimator itself is at fault, not an argument)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return True, fn()
    except KeyboardInterrupt:
        raise
    except NotFittedError as e:
        if unfitted:
            return False, e
        raise ContractViolation(f"{what} raised NotFittedError on a fitted estimator: {e}") from e
    except (ValueError, TypeError) as e:
        message = str(e)
        if not names_any(message, names):
            raise ContractViolation(
                f"{what} raised {type(e).__name__} whose message names none of "
                f"{sorted(names)}: {message[:400]!r}"
            ) from e
        return False, e
    except BaseException as e:  # noqa: BLE001 - PanicException is a BaseException
        raise ContractViolation(
            f"{what} raised {type(e).__module__}.{type(e).__name__} (only ValueError or "
            f"TypeError may be raised): {str(e)[:400]!r}"
        ) from e


def must(fn, what: str):
    """Call ``fn()``, which must succeed (any exception is a violation)."""
    ok, value = attempt(fn, (), what)
    assert ok
    return value


def as_float_matrix(X):
    """X as a dense float64 2-D array, or None if it cannot be converted."""
    from sklearn.utils import check_array

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            A = check_array(X, dtype=np.float64, ensure_all_finite=False, accept_sparse=True,
                            ensure_min_samples=0, ensure_min_features=0)
        return A.toarray() if sp.issparse(A) else np.asarray(A)
    except Exception:  # noqa: BLE001
        return None


def _to_float(out):
    """A transform output as float64 (missing values of pandas as NaN), or
    None if it holds something that is not a number."""
    try:
        return out.astype(np.float64)
    except (ValueError, TypeError):
        pass
    try:
        return np.array([[math.nan if v is None or v is pd.NA else float(v) for v in row] for row in out],
                        dtype=np.float64).reshape(out.shape)
    except (ValueError, TypeError):
        return None


def n_rows(X):
    if sp.issparse(X) or hasattr(X, "shape"):
        return X.shape[0]
    return len(X)


def rows_of(X, default):
    """The number of rows X claims to have (``default`` if it has none)."""
    shape = getattr(X, "shape", None)
    if shape is not None and len(shape) >= 1:
        return shape[0]
    if isinstance(X, (list, tuple)):
        return len(X)
    return default


def check_importances(est, n_features):
    fi = must(lambda: np.asarray(est.feature_importances_), "feature_importances_")
    if not (fi.shape == (n_features,)):
        raise ContractViolation(f"feature_importances_ has shape {fi.shape}, expected ({n_features},)")
    if not (bool(np.all(np.isfinite(fi)))):
        raise ContractViolation(f"feature_importances_ is not finite: {fi}")
    if not (bool(np.all(fi >= 0))):
        raise ContractViolation(f"feature_importances_ has negative entries: {fi}")
    total = float(fi.sum())
    if not (total == 0.0 or abs(total - 1.0) <= 1e-9):
        raise ContractViolation(f"feature_importances_ sums to {total!r}")
    gain = must(lambda: np.asarray(est.get_feature_importance("gain")), "get_feature_importance('gain')")
    if not (gain.shape == (n_features,) and np.all(np.isfinite(gain)) and np.all(gain >= 0)):
        raise ContractViolation(f"gain importances are not finite and >= 0 of shape ({n_features},): {gain}")
    split = must(lambda: np.asarray(est.get_feature_importance("split")), "get_feature_importance('split')")
    if not (split.shape == (n_features,)):
        raise ContractViolation(f"split importances have shape {split.shape}")
    if not (bool(np.all(np.isfinite(split)) and np.all(split >= 0))):
        raise ContractViolation(f"split importances: {split}")


def check_selection(est, X, n):
    """get_support, selected_features_ and transform."""
    d = est.n_features_in_
    sel = must(lambda: np.asarray(est.selected_features_), "selected_features_")
    if not (len(set(sel.tolist())) == len(sel)):
        raise ContractViolation(f"selected_features_ has duplicates: {sel}")
    if not (bool(np.all((sel >= 0) & (sel < d)))):
        raise ContractViolation(f"selected_features_ out of range: {sel}")
    mask = must(lambda: np.asarray(est.get_support()), "get_support()")
    if not (mask.shape == (d,) and mask.dtype == bool):
        raise ContractViolation(f"get_support() gives {mask.dtype} {mask.shape}")
    if not (int(mask.sum()) == len(sel)):
        raise ContractViolation(f"get_support() has {mask.sum()} True, {len(sel)} selected")
    out = must(lambda: est.transform(X), "transform(X)")
    if sp.issparse(out):
        out = out.toarray()
    out = np.asarray(out)
    if not (out.shape == (n, len(sel))):
        raise ContractViolation(f"transform(X) has shape {out.shape}, expected {(n, len(sel))}")
    values = _to_float(out)
    if values is None:
        raise ContractViolation(f"transform(X) returned non-numeric values (dtype {out.dtype}): {out[:3]!r}")
    A = as_float_matrix(X)
    if A is not None and A.ndim == 2 and A.shape[1] == d:
        finite_in = np.isfinite(A[:, np.sort(sel)]) if len(sel) else np.zeros((n, 0), bool)
        if not (bool(np.all(np.isfinite(values[finite_in])))):
            raise ContractViolation("transform(X) is not finite where X is finite")
    if hasattr(est, "inverse_transform") and n:
        # (an empty selection gives no columns, which X may not have)
        ok, back = attempt(lambda: est.inverse_transform(values), {"X"}, "inverse_transform(transform(X))")
        if ok and np.asarray(back).shape != (n, d):
            raise ContractViolation(f"inverse_transform(transform(X)) has shape {back.shape}, expected {(n, d)}")
    return sel


def check_predictions(est, X, n, *, task=None, y=None):
    """Outputs of a fitted estimator on an X it accepts (task: multitask)."""
    args = (X,) if task is None else (X, task)
    is_clf = hasattr(est, "classes_") or hasattr(type(est), "predict_proba")
    pred = must(lambda: np.asarray(est.predict(*args)), "predict")
    if not (pred.shape == (n,)):
        raise ContractViolation(f"predict has shape {pred.shape}, expected ({n},)")
    if is_clf:
        if not (bool(np.all(np.isin(pred, est.classes_)))):
            raise ContractViolation(f"predict gives labels outside classes_: {pred[:5]}")
        dec = must(lambda: np.asarray(est.decision_function(*args)), "decision_function")
        if not (dec.shape == (n,)):
            raise ContractViolation(f"decision_function has shape {dec.shape}")
        if not (bool(np.all(np.isfinite(dec)))):
            raise ContractViolation(f"decision_function is not finite: {dec[:5]}")
        proba = must(lambda: np.asarray(est.predict_proba(*args)), "predict_proba")
        if not (proba.shape == (n, 2)):
            raise ContractViolation(f"predict_proba has shape {proba.shape}")
        if not (bool(np.all(np.isfinite(proba)))):
            raise ContractViolation(f"predict_proba is not finite: {proba[:3]}")
        if not (bool(np.all((proba >= 0) & (proba <= 1)))):
            raise ContractViolation(f"predict_proba outside [0, 1]: {proba[:3]}")
        if not (bool(np.all(np.abs(proba.sum(axis=1) - 1) <= 1e-12))):
            raise ContractViolation("predict_proba rows do not sum to 1")
    else:
        if not (pred.dtype.kind == "f" and bool(np.all(np.isfinite(pred)))):
            raise ContractViolation(f"predict is not finite: {pred[:5]}")
    if y is not None:
        # (a score may be undefined for the rows given, e.g. R² of one row)
        ok, score = attempt(lambda: est.score(*args[:1], y, *args[1:]), {"X", "y"}, "score")
        if ok and not (isinstance(score, (float, np.floating)) and math.isfinite(score)):
            raise ContractViolation(f"score is not a finite float: {score!r}")
    return pred


def outputs(est, X, task=None):
    """What the round-trip comparisons compare."""
    args = (X,) if task is None else (X, task)
    out = {"predict": est.predict(*args)}
    if hasattr(type(est), "predict_proba"):
        out["predict_proba"] = est.predict_proba(*args)
    return out


def _kind(v):
    if isinstance(v, (bool, np.bool_)):
        return "bool"
    if isinstance(v, str):
        return "str"
    if isinstance(v, bytes):
        return "bytes"
    if isinstance(v, numbers.Integral):
        return "int"
    if isinstance(v, numbers.Real):
        return "float"
    return type(v).__name__


def same_kind_of_values(a, b):
    """The same dtype, or (object arrays) the same values of the same kinds:
    labels that come back as float64 instead of uint64 are not the same."""
    if a.dtype == b.dtype:
        return True
    la, lb = a.ravel().tolist(), b.ravel().tolist()
    return la == lb and [_kind(v) for v in la] == [_kind(v) for v in lb]


def check_round_trips(est, X, task=None):
    """save_model + load_model and pickle give bit-identical outputs."""
    expected = must(lambda: outputs(est, X, task), "predict before a round trip")
    path = tmp_path(".json")
    must(lambda: est.save_model(path), "save_model")
    loaded = must(lambda: sparseboost.load_model(path), "load_model")
    copy = must(lambda: pickle.loads(pickle.dumps(est)), "pickle")
    for how, other in (("save_model/load_model", loaded), ("pickle", copy)):
        if not (type(other) is type(est)):
            raise ContractViolation(f"{how} gives a {type(other).__name__}")
        got = must(lambda: outputs(other, X, task), f"predict after {how}")
        for key, value in expected.items():
            if not same_kind_of_values(got[key], value):
                raise ContractViolation(f"{key} after {how} has dtype {got[key].dtype}, before {value.dtype}: "
                                        f"{got[key][:3]!r} against {value[:3]!r}")
            np.testing.assert_array_equal(got[key], value, err_msg=f"{key} after {how}")
    os.remove(path)


def check_fitted(est, X, y, *, task=None, round_trip=True):
    """Every output of an estimator that accepted (X, y[, task]) in fit."""
    n = n_rows(X)
    check_predictions(est, X, n, task=task, y=y)
    check_selection(est, X, n)
    check_importances(est, est.n_features_in_)
    if round_trip:
        check_round_trips(est, X, task)


# -- values ------------------------------------------------------------------

FLOAT_SPECIALS = [
    math.nan, math.inf, -math.inf, 1e308, -1e308, 5e-324, -5e-324, 0.0, -0.0,
    2.2250738585072014e-308, 1.7976931348623157e308,
]
ordinary_floats = st.one_of(
    st.floats(-100, 100, allow_nan=False, allow_infinity=False),
    st.integers(-3, 3).map(float),
)
dirty_floats = st.one_of(ordinary_floats, ordinary_floats, st.sampled_from(FLOAT_SPECIALS), st.floats())
HUGE_INTS = [2**31, 2**53 + 1, 2**63 - 1, 2**63, 2**64 - 1, 2**64, 2**70, -(2**63), -(2**70)]
# text that never spells an argument name (a message quoting it would pass the check)
_ARG_NAMES = {"X", "y", "task", "sample_weight", "x", "Y"}
texts = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=6).filter(
    lambda s: not any(re.search(rf"\b{n}\b", s) for n in _ARG_NAMES)
)
numeric_texts = st.one_of(
    ordinary_floats.map(repr), st.sampled_from(["nan", "inf", "-inf", "1e400", " 2 ", "0x1", "1_0", ""]),
)

n_rows_st = st.one_of(st.sampled_from([0, 1, 2, 3]), st.integers(4, 60), st.integers(10, 40))
n_cols_st = st.one_of(st.sampled_from([0, 1]), st.integers(2, 8))
good_n = st.integers(8, 60)
good_d = st.integers(1, 8)

INT_DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
FLOAT_DTYPES = ["float16", "float32", "float64"]


def float_matrix(n, d, dirty=False):
    return hnp.arrays(np.float64, (n, d), elements=dirty_floats if dirty else ordinary_floats)


def _cast(A, dtype):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return A.astype(dtype)


@st.composite
def object_matrix(draw, n, d, mixed):
    scalar = st.one_of(
        ordinary_floats, dirty_floats, st.integers(-5, 5), st.sampled_from(HUGE_INTS),
        st.booleans(), st.none(),
        st.sampled_from([np.int64(3), np.float32(0.5), np.uint64(2**64 - 1), np.float16(2.5)]),
    )
    if mixed:
        scalar = st.one_of(
            scalar, numeric_texts, texts, st.binary(max_size=3),
            st.sampled_from([Decimal("1.5"), Fraction(1, 3), 1 + 2j, [1.0], (1, 2), {}, object()]),
        )
    A = np.empty((n, d), dtype=object)
    for i in range(n):
        for j in range(d):
            A[i, j] = draw(scalar)
    return A


@st.composite
def layouts(draw, n, d):
    """A float64 matrix in an unusual memory layout."""
    kind = draw(st.sampled_from(["fortran", "columns_step", "reversed", "readonly", "memmap", "transposed"]))
    dirty = draw(st.booleans())
    if kind == "columns_step":
        return draw(float_matrix(n, 2 * d, dirty))[:, ::2]
    A = draw(float_matrix(n, d, dirty))
    if kind == "fortran":
        return np.asfortranarray(A)
    if kind == "reversed":
        return A[::-1, ::-1]
    if kind == "transposed":
        return np.ascontiguousarray(A.T).T
    if kind == "readonly":
        A.setflags(write=False)
        return A
    if A.size == 0:
        return A
    mm = np.memmap(tmp_path(".mm"), dtype=np.float64, mode="w+", shape=A.shape)
    mm[:] = A
    return mm


column_names = st.one_of(
    st.integers(-3, 100),
    st.sampled_from(["", " ", "é", "列", "x0", "a b", "0", "\x00", "None", "nan"]),
    texts,
)


@st.composite
def frame_column(draw, n):
    kind = draw(st.sampled_from(
        ["float", "dirty", "int", "Int64", "Float64", "boolean", "bool", "category_num",
         "category_str", "string", "object_num", "uint64"]
    ))
    if kind in ("float", "dirty"):
        return pd.Series(draw(float_matrix(n, 1, kind == "dirty"))[:, 0])
    if kind in ("int", "uint64"):
        dt = "int64" if kind == "int" else "uint64"
        return pd.Series(draw(hnp.arrays(dt, n)))
    if kind == "bool":
        return pd.Series(draw(hnp.arrays(bool, n)))
    missing = st.one_of(st.none(), st.just(pd.NA))
    if kind == "Int64":
        vals = draw(st.lists(st.one_of(st.integers(-5, 5), missing), min_size=n, max_size=n))
        return pd.Series(pd.array(vals, dtype="Int64"))
    if kind == "Float64":
        vals = draw(st.lists(st.one_of(ordinary_floats, missing), min_size=n, max_size=n))
        return pd.Series(pd.array(vals, dtype="Float64"))
    if kind == "boolean":
        vals = draw(st.lists(st.one_of(st.booleans(), missing), min_size=n, max_size=n))
        return pd.Series(pd.array(vals, dtype="boolean"))
    if kind == "category_num":
        return pd.Series(pd.Categorical(draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))))
    if kind == "category_str":
        return pd.Series(pd.Categorical(draw(st.lists(st.sampled_from(["a", "b", "1.5"]), min_size=n, max_size=n))))
    if kind == "string":
        return pd.Series(draw(st.lists(numeric_texts, min_size=n, max_size=n)), dtype="string")
    return pd.Series(draw(st.lists(st.one_of(st.integers(-5, 5), ordinary_floats), min_size=n, max_size=n)),
                     dtype=object)


@st.composite
def dataframes(draw, n, d):
    """pandas DataFrames: odd column names, nullable and categorical columns."""
    names_kind = draw(st.sampled_from(["strings", "ints", "mixed", "duplicates", "odd"]))
    if names_kind == "strings":
        names = [f"c{j}" for j in range(d)]
    elif names_kind == "ints":
        names = list(range(d))
    elif names_kind == "mixed":
        names = [j if j % 2 else f"c{j}" for j in range(d)]
    elif names_kind == "duplicates":
        names = ["a"] * d
    else:
        names = draw(st.lists(column_names, min_size=d, max_size=d))
    if draw(st.booleans()):
        # the simple case through hypothesis.extra.pandas: numpy dtypes only
        dtype = draw(st.sampled_from(["float64", "float32", "int64", "bool"]))
        elements = ordinary_floats if dtype.startswith("float") else None
        frame = draw(hpd.data_frames(
            columns=[hpd.column(f"tmp{j}", dtype=dtype, elements=elements) for j in range(d)],
            index=hpd.range_indexes(min_size=n, max_size=n),
        ))
        frame.columns = pd.Index(names, dtype=object) if d else frame.columns
        return frame
    cols = [draw(frame_column(n)).reset_index(drop=True) for _ in range(d)]
    frame = pd.concat(cols, axis=1) if cols else pd.DataFrame(index=range(n))
    if d:
        frame.columns = pd.Index(names, dtype=object)
    return frame


@st.composite
def sparse_matrices(draw, n, d):
    A = draw(float_matrix(n, d, draw(st.booleans())))
    A[draw(hnp.arrays(bool, (n, d)))] = 0.0
    fmt = draw(st.sampled_from(["csr", "csc", "coo", "csr_int"]))
    if fmt == "csr_int":
        return sp.csr_matrix(_cast(np.nan_to_num(A, posinf=1, neginf=-1), np.int64))
    return {"csr": sp.csr_matrix, "csc": sp.csc_matrix, "coo": sp.coo_matrix}[fmt](A)


@st.composite
def odd_containers(draw, n, d):
    """Lists, ragged lists, scalars, None, 1-D and 3-D arrays."""
    kind = draw(st.sampled_from(
        ["list", "tuples", "ragged", "ragged_nested", "scalar", "none", "1d", "3d", "empty_list", "list_of_empty"]
    ))
    A = draw(float_matrix(n, max(d, 1), draw(st.booleans())))
    if kind == "list":
        return A.tolist()
    if kind == "tuples":
        return [tuple(r) for r in A.tolist()]
    if kind == "ragged":
        rows = A.tolist()
        if rows:
            rows[draw(st.integers(0, len(rows) - 1))].append(1.0)
        else:
            rows = [[1.0], [1.0, 2.0]]
        return rows
    if kind == "ragged_nested":
        rows = A.tolist()
        if rows:
            rows[0][0] = [rows[0][0], 1.0]
        else:
            rows = [[[1.0, 2.0]], [1.0]]
        return rows
    if kind == "scalar":
        return draw(st.one_of(ordinary_floats, st.integers(), texts))
    if kind == "none":
        return None
    if kind == "1d":
        return A[:, 0]
    if kind == "3d":
        return np.repeat(A[:, :, None], 2, axis=2)
    if kind == "empty_list":
        return []
    return [[] for _ in range(n)]


@st.composite
def any_X(draw, n, d):
    """X in any form the public API might be handed (rows: n where that applies)."""
    kind = draw(st.sampled_from(
        ["float", "float", "dirty", "float_cast", "int", "bool", "object_num", "object_mixed",
         "unicode", "bytes", "datetime", "timedelta", "complex", "layout", "layout",
         "frame", "frame", "sparse", "odd"]
    ))
    if kind == "float":
        return draw(float_matrix(n, d))
    if kind == "dirty":
        return draw(float_matrix(n, d, dirty=True))
    if kind == "float_cast":
        return _cast(draw(float_matrix(n, d, draw(st.booleans()))), draw(st.sampled_from(FLOAT_DTYPES)))
    if kind == "int":
        return draw(hnp.arrays(draw(st.sampled_from(INT_DTYPES)), (n, d)))
    if kind == "bool":
        return draw(hnp.arrays(bool, (n, d)))
    if kind in ("object_num", "object_mixed"):
        return draw(object_matrix(n, d, kind == "object_mixed"))
    if kind == "unicode":
        vals = draw(st.lists(st.one_of(numeric_texts, texts), min_size=n * d, max_size=n * d))
        return np.array(vals, dtype=str).reshape(n, d)
    if kind == "bytes":
        vals = draw(st.lists(numeric_texts, min_size=n * d, max_size=n * d))
        return np.array([v.encode() for v in vals], dtype=bytes).reshape(n, d)
    if kind in ("datetime", "timedelta"):
        unit = draw(st.sampled_from(["s", "ns", "D"]))
        ints = draw(hnp.arrays(np.int64, (n, d), elements=st.integers(-(10**9), 10**9)))
        base = "datetime64" if kind == "datetime" else "timedelta64"
        A = ints.astype(f"{base}[{unit}]")
        if A.size and draw(st.booleans()):
            A.flat[0] = np.datetime64("NaT") if kind == "datetime" else np.timedelta64("NaT")
        return A
    if kind == "complex":
        real = draw(float_matrix(n, d))
        imag = draw(float_matrix(n, d)) if draw(st.booleans()) else 0.0
        return (real + 1j * imag).astype(draw(st.sampled_from(["complex64", "complex128"])))
    if kind == "layout":
        return draw(layouts(n, d))
    if kind == "frame":
        return draw(dataframes(n, d))
    if kind == "sparse":
        return draw(sparse_matrices(n, d))
    return draw(odd_containers(n, d))


# -- targets, weights, task labels --------------------------------------------


@st.composite
def regression_targets(draw, n):
    kind = draw(st.sampled_from(
        ["clean", "clean", "dirty", "scaled", "int", "bool", "datetime", "timedelta", "strings",
         "complex", "object", "ragged", "wrong_length", "2d", "list", "scalar", "none", "series"]
    ))
    clean = draw(hnp.arrays(np.float64, n, elements=ordinary_floats))
    if kind == "clean":
        return clean
    if kind == "dirty":
        return draw(hnp.arrays(np.float64, n, elements=dirty_floats))
    if kind == "scaled":
        with np.errstate(all="ignore"):
            return np.ldexp(clean, draw(st.integers(-1100, 1100)))
    if kind == "int":
        return draw(hnp.arrays(draw(st.sampled_from(INT_DTYPES)), n))
    if kind == "bool":
        return draw(hnp.arrays(bool, n))
    if kind == "datetime":
        return np.arange(n).astype("datetime64[s]")
    if kind == "timedelta":
        return np.arange(n).astype("timedelta64[ms]")
    if kind == "strings":
        return np.array(draw(st.lists(st.one_of(numeric_texts, texts), min_size=n, max_size=n)), dtype=str)
    if kind == "complex":
        return clean + 1j * draw(st.sampled_from([0.0, 1.0]))
    if kind == "object":
        return draw(object_matrix(n, 1, True))[:, 0]
    if kind == "ragged":
        rows = [[v] for v in clean.tolist()]
        if rows:
            rows[0] = [1.0, 2.0]
        return rows
    if kind == "wrong_length":
        m = draw(st.sampled_from([0, max(n - 1, 0), n + 1, 2 * n + 2]).filter(lambda m: m != n))
        return draw(hnp.arrays(np.float64, m, elements=ordinary_floats))
    if kind == "2d":
        return np.repeat(clean[:, None], draw(st.integers(1, 3)), axis=1)
    if kind == "list":
        return clean.tolist()
    if kind == "scalar":
        return draw(st.one_of(ordinary_floats, texts))
    if kind == "none":
        return None
    vals = draw(st.lists(st.one_of(ordinary_floats, st.just(pd.NA)), min_size=n, max_size=n))
    return pd.Series(pd.array(vals, dtype="Float64"))


LABEL_PAIRS = [
    (0, 1), (-1, 1), (1, 2), (2**63 - 1, -(2**63)), ("a", "b"), ("no", "yes"), (False, True),
    (0.5, 1.5), (-0.0, 1e308), ("é", "列"), (b"n", b"y"),
]


@st.composite
def class_labels(draw, n):
    kind = draw(st.sampled_from(
        ["pair", "pair", "pair", "uint64", "one_class", "three", "nan", "mixed", "none", "series_cat",
         "wrong_length", "2d_column", "floats"]
    ))
    pattern = np.arange(n) % 2 if draw(st.booleans()) else draw(hnp.arrays(np.int64, n, elements=st.integers(0, 1)))
    if kind == "pair":
        a, b = draw(st.sampled_from(LABEL_PAIRS))
        return np.where(pattern == 1, np.array([b]), np.array([a]))
    if kind == "uint64":
        return np.where(pattern == 1, np.uint64(2**64 - 1), np.uint64(draw(st.sampled_from([0, 2**64 - 2, 2**63]))))
    if kind == "one_class":
        return np.full(n, draw(st.sampled_from([0, 1, "a"])))
    if kind == "three":
        return np.arange(n) % 3
    if kind == "nan":
        y = pattern.astype(np.float64)
        if n:
            y[0] = np.nan
        return y
    if kind == "mixed":
        return np.array([1 if p else "a" for p in pattern], dtype=object)
    if kind == "none":
        return np.array([None if p else "a" for p in pattern], dtype=object)
    if kind == "series_cat":
        return pd.Series(pd.Categorical(np.where(pattern == 1, "pos", "neg")))
    if kind == "wrong_length":
        return np.arange(n + 1) % 2
    if kind == "2d_column":
        return pattern[:, None]
    return pattern + draw(st.sampled_from([0.0, 0.25, 1e-300]))


@st.composite
def sample_weights(draw, n):
    kind = draw(st.sampled_from(
        ["none", "scalar", "positive", "positive", "special", "all_zero", "all_huge", "tiny",
         "wrong_length", "2d", "strings", "list", "int"]
    ))
    if kind == "none":
        return None
    if kind == "scalar":
        return draw(st.sampled_from([1, 0, -1, 2.5, math.nan, math.inf, 1e308, np.float32(2), "1", True]))
    if kind == "positive":
        return draw(hnp.arrays(np.float64, n, elements=st.floats(0.01, 10)))
    if kind == "special":
        values = st.one_of(st.floats(0.01, 10), st.sampled_from([0.0, -1.0, math.nan, math.inf, 1e308, 1e-308, 5e-324]))
        return draw(hnp.arrays(np.float64, n, elements=values))
    if kind == "all_zero":
        return np.zeros(n)
    if kind == "all_huge":
        return np.full(n, draw(st.sampled_from([1e308, 1.7976931348623157e308, 1e300, 1e200])))
    if kind == "tiny":
        return np.full(n, draw(st.sampled_from([1e-308, 5e-324, 1e-300])))
    if kind == "wrong_length":
        return np.ones(draw(st.sampled_from([0, n + 1, max(n - 1, 0)]).filter(lambda m: m != n)))
    if kind == "2d":
        return np.ones((n, 1))
    if kind == "strings":
        return np.array(["1"] * n)
    if kind == "list":
        return [1.0] * n
    return draw(hnp.arrays(draw(st.sampled_from(["int8", "uint64", "int64"])), n))


def tasks_for(n, T):
    """Task codes 0..T-1 for n rows, each task with >= 2 rows when n allows."""
    T = max(1, min(T, n // 2))
    return np.arange(n) % T


def classes_for(task):
    """Binary labels with both classes inside every task of ``task``."""
    task = np.asarray(task)
    out = np.zeros(len(task), dtype=np.int64)
    for t in np.unique(task):
        rows = np.flatnonzero(task == t)
        out[rows] = np.arange(len(rows)) % 2
    return out


@st.composite
def task_labels(draw, n):
    kind = draw(st.sampled_from(
        ["ints", "ints", "strings", "mixed", "nan", "one_row_task", "bools", "floats", "uint64",
         "none", "wrong_length", "2d", "scalar", "object", "list"]
    ))
    T = draw(st.integers(1, 4))
    codes = tasks_for(n, T)
    if kind == "ints":
        labels = draw(st.lists(st.integers(-(2**63), 2**63 - 1), min_size=4, max_size=4, unique=True))
        return np.asarray(labels)[codes]
    if kind == "strings":
        return np.array(["t0", "t1", "é", ""])[codes]
    if kind == "mixed":
        return np.array([1, "a", 2.5, None], dtype=object)[codes]
    if kind == "nan":
        t = codes.astype(np.float64)
        if n:
            t[-1] = np.nan
        return t
    if kind == "one_row_task":
        t = codes.copy()
        if n:
            t[-1] = 99
        return t
    if kind == "bools":
        return (codes % 2).astype(bool)
    if kind == "floats":
        return codes * 0.5
    if kind == "uint64":
        return np.uint64(2**64 - 1) - codes.astype(np.uint64)
    if kind == "none":
        return None
    if kind == "wrong_length":
        return np.arange(n + 1) % 2
    if kind == "2d":
        return codes[:, None]
    if kind == "scalar":
        return 0
    if kind == "object":
        objs = [object(), object()]
        return np.array([objs[c % 2] for c in codes], dtype=object)
    return codes.tolist()


# -- parameters --------------------------------------------------------------

NASTY = [
    None, True, False, 0, 1, -1, 2, 3, 3.0, 0.5, -0.5, 1.5, math.nan, math.inf, -math.inf,
    1e308, -1e308, 1e-310, 5e-324, 2**31, 2**63, 2**64, 2**70, -(2**63), "3", "0.1", "abc", "",
    np.int64(3), np.float32(0.1), np.float64(0.5), np.int8(-1), np.uint64(2**64 - 1),
    np.bool_(True), [1], (), {},
]

# Values whose acceptance could start an enormous fit or thousands of
# threads in the test process: these are exercised in a subprocess instead
# (test_properties_params.py::test_dangerous_parameter_values_in_a_subprocess).
DANGEROUS = {
    "n_estimators": lambda v: _is_big_int(v, 10),
    "n_jobs": lambda v: _is_big_int(v, 4),
}


def _is_big_int(v, limit):
    try:
        return not isinstance(v, (str, bytes)) and float(v) > limit
    except (TypeError, ValueError):
        return False


VALID = {
    "n_estimators": [1, 2, 3, 5, np.int64(3)],
    "learning_rate": [0.1, 1.0, 0.5, 1e-3, 2.0, np.float32(0.1)],
    "max_leaves": [2, 3, 8, 31, 10**6],
    "max_depth": [None, 1, 2, 5, 10**6],
    "min_samples_leaf": [1, 2, 5, 20, 10**6],
    "min_split_fraction": [0.0, 0.1, 0.5, 0.999],
    "min_child_weight": [0.0, 1e-3, 1.0, 1e3],
    "l2_regularization": [0.0, 1.0, 1e6, 1e-300],
    "min_gain": [0.0, 0.1, 1e6],
    "max_bins": [2, 3, 16, 255],
    "subsample": [1.0, 0.5, 0.1, 1e-9],
    "colsample_bytree": [1.0, 0.5, 0.1, 1e-9],
    "penalty": ["agbm", "gbfs", "none"],
    "mu": [0.0, 0.01, 0.5, 0.999, 30.0],
    "max_features": [None, 1, 2, 10**6],
    "split_search": ["exhaustive", "group_testing"],
    "gt_n_features": [1, 2, 3, 10, 10**6],
    "gt_delta": [0.1, 0.5, 0.999, 1e-6, 1e-300],
    "gt_max_rows": [None, 2, 3, 10, 10**6],
    "n_jobs": [None, -1, -2, 1, 2, np.int64(2), -(2**63)],
    "random_state": [None, 0, 1, 2**32, 2**63, 2**64 - 1, np.int64(7), np.uint64(2**64 - 1),
                     np.random.RandomState(0)],
}
SCALAR_PARAMETERS = sorted(VALID)
MULTITASK_EXTRA = {
    "mu_group": [0.0, 0.01, 0.3, 0.999, 30.0],
    "mu_task": [0.0, 0.01, 0.3, 0.999, 30.0],
}
EXTRA_NASTY = {
    "n_jobs": [0, 1.5, "2", -3, -(2**63)],
    "random_state": [-1, 2**64, 2**70, -(2**63), "3", 3.0, np.random.default_rng(0)],
    "penalty": ["AGBM", "lasso", " agbm"],
    "split_search": ["Group_testing", "gt"],
    "gt_delta": [1e-310, 1.0, 0.0, 5e-324],
    "n_estimators": ["3", 3.0, 0, -3],
    "learning_rate": [1e308, 1e300, 1e-310, 0.0],
}


def parameter_values(name):
    """Valid, boundary and invalid values of one constructor parameter."""
    values = VALID.get(name, []) + MULTITASK_EXTRA.get(name, []) + EXTRA_NASTY.get(name, [])
    danger = DANGEROUS.get(name, lambda v: False)
    safe_nasty = [v for v in NASTY if not danger(v)]
    return st.one_of(st.sampled_from(values), st.sampled_from(safe_nasty))


@st.composite
def feature_costs_values(draw, d, names):
    kind = draw(st.sampled_from(["array", "special_array", "wrong_length", "dict_index", "dict_name",
                                 "dict_bad", "list", "scalar", "strings"]))
    if kind == "array":
        return draw(hnp.arrays(np.float64, d, elements=st.floats(0, 10)))
    if kind == "special_array":
        return draw(hnp.arrays(np.float64, d, elements=st.one_of(st.floats(0, 10), st.sampled_from(FLOAT_SPECIALS + [-1.0]))))
    if kind == "wrong_length":
        return np.ones(d + 1)
    if kind == "dict_index":
        keys = st.one_of(st.integers(0, d - 1), st.integers(0, d - 1).map(np.int64))
        return draw(st.dictionaries(keys, st.floats(0, 10), max_size=3))
    if kind == "dict_name" and names is not None:
        return draw(st.dictionaries(st.sampled_from(list(names)), st.floats(0, 10), max_size=3))
    if kind == "dict_bad":
        keys = st.one_of(st.integers(-3, d + 3), st.text(max_size=2), st.floats(0, 3), st.sampled_from([2**64, (0,), None]))
        vals = st.one_of(st.floats(0, 10), st.sampled_from([-1.0, math.nan, math.inf, "1", None]))
        return draw(st.dictionaries(keys, vals, max_size=3))
    if kind == "list":
        return [1.0] * d
    if kind == "strings":
        return ["1"] * d
    return draw(st.sampled_from([0.5, "abc", None, 1e308]))


@st.composite
def feature_bags_values(draw, d):
    kind = draw(st.sampled_from(["ints", "strings", "mixed", "wrong_length", "2d", "floats_nan", "none", "scalar"]))
    if kind == "ints":
        return draw(st.lists(st.integers(-3, 3), min_size=d, max_size=d))
    if kind == "strings":
        return draw(st.lists(st.sampled_from(["a", "b", "", "é"]), min_size=d, max_size=d))
    if kind == "mixed":
        return draw(st.lists(st.sampled_from([0, "a", 1, None]), min_size=d, max_size=d))
    if kind == "wrong_length":
        return list(range(d + 1))
    if kind == "2d":
        return [[0]] * d
    if kind == "floats_nan":
        return [math.nan] * d
    if kind == "none":
        return None
    return "a"


@st.composite
def task_feature_masks(draw, T, d):
    kind = draw(st.sampled_from(["bool", "bool", "all_false", "ints", "wrong_shape", "list", "none", "scalar"]))
    if kind == "bool":
        return draw(hnp.arrays(bool, (T, d)))
    if kind == "all_false":
        return np.zeros((T, d), dtype=bool)
    if kind == "ints":
        return draw(hnp.arrays(np.int64, (T, d), elements=st.integers(0, 1)))
    if kind == "wrong_shape":
        return np.ones((T + 1, d), dtype=bool)
    if kind == "list":
        return np.ones((T, d), dtype=bool).tolist()
    if kind == "none":
        return None
    return True


FAST = {"n_estimators": 3, "min_samples_leaf": 1, "random_state": 0, "n_jobs": 1}


@st.composite
def valid_params(draw, multitask=False):
    """Small, valid constructor parameters (the fit stays tiny)."""
    p = {
        "n_estimators": draw(st.integers(1, 5)),
        "learning_rate": draw(st.sampled_from([0.1, 0.5, 1.0])),
        "max_leaves": draw(st.integers(2, 8)),
        "max_depth": draw(st.sampled_from([None, 1, 3])),
        "min_samples_leaf": draw(st.integers(1, 6)),
        "max_bins": draw(st.sampled_from([2, 7, 255])),
        "subsample": draw(st.sampled_from([1.0, 0.7])),
        "colsample_bytree": draw(st.sampled_from([1.0, 0.6])),
        "l2_regularization": draw(st.sampled_from([0.0, 1.0])),
        "penalty": draw(st.sampled_from(["agbm", "gbfs", "none"])),
        "split_search": draw(st.sampled_from(["exhaustive", "group_testing"])),
        "gt_n_features": draw(st.integers(1, 4)),
        "gt_max_rows": draw(st.sampled_from([None, 4])),
        "random_state": draw(st.integers(0, 2**32)),
    }
    if multitask:
        p["mu_group"] = draw(st.sampled_from([0.0, 0.01, 0.2]))
        p["mu_task"] = draw(st.sampled_from([0.0, 0.01, 0.2]))
    else:
        p["mu"] = draw(st.sampled_from([0.0, 0.01, 0.2]))
        p["max_features"] = draw(st.sampled_from([None, 1, 3]))
    return p


# -- model files ---------------------------------------------------------------


def leaf_paths(doc, prefix=()):
    """Every path (tuple of keys and indices) into a JSON document."""
    out = [prefix] if prefix else []
    if isinstance(doc, dict):
        for k, v in doc.items():
            out += leaf_paths(v, prefix + (k,))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            out += leaf_paths(v, prefix + (i,))
    return out


def get_path(doc, path):
    for p in path:
        doc = doc[p]
    return doc


def set_path(doc, path, value):
    get_path(doc, path[:-1])[path[-1]] = value


def path_names(path):
    """The names a message may use for the field at ``path``: its keys,
    without a trailing underscore and in the singular (``trees`` -> ``tree``)."""
    names = set()
    for p in path:
        if isinstance(p, str):
            for name in (p, p.rstrip("_")):
                names.add(name)
                if name.endswith("s") and len(name) > 2:
                    names.add(name[:-1])
    return names


# The worker: a child process that loads model files and calls every method
# of the loaded estimator, so that a file that aborts the interpreter (or
# hangs in it) is reported as a failure instead of killing pytest.

_WORKER_CODE = """
import json, sys, warnings, traceback
warnings.simplefilter("ignore")
import numpy as np
import sparseboost

def call(fn):
    try:
        value = fn()
        if hasattr(value, "toarray"):
            value = value.toarray()
        value = np.asarray(value)
        try:
            listed = value.astype(np.float64).tolist()
        except (TypeError, ValueError):
            listed = [str(v) for v in value.ravel().tolist()]
        return {"status": "ok", "value": listed, "dtype": str(value.dtype), "shape": list(value.shape)}
    except BaseException as e:
        if isinstance(e, KeyboardInterrupt):
            raise
        return {"status": "raised", "type": type(e).__name__, "module": type(e).__module__,
                "allowed": isinstance(e, (ValueError, TypeError)), "message": str(e)[:600]}

out = sys.stdout
sys.stdout = sys.stderr
for line in sys.stdin:
    request = json.loads(line)
    X = np.asarray(request["X"], dtype=np.float64)
    task = request.get("task")
    results = {}
    holder = {}

    def load():
        holder["est"] = sparseboost.load_model(request["path"])
        return np.zeros(0)

    results["load_model"] = call(load)
    if results["load_model"]["status"] == "ok":
        est = holder["est"]
        args = (X,) if task is None else (X, np.asarray(task))
        results["predict"] = call(lambda: est.predict(*args))
        if hasattr(type(est), "predict_proba"):
            results["predict_proba"] = call(lambda: est.predict_proba(*args))
            results["decision_function"] = call(lambda: est.decision_function(*args))
            results["classes_"] = call(lambda: est.classes_)
        results["feature_importances_"] = call(lambda: est.feature_importances_)
        results["split_importance"] = call(lambda: est.get_feature_importance("split"))
        results["get_support"] = call(lambda: est.get_support())
        results["transform"] = call(lambda: est.transform(X))
        results["selected_features_"] = call(lambda: est.selected_features_)
        results["n_features_in_"] = call(lambda: est.n_features_in_)
        if hasattr(est, "feature_names_in_"):
            results["feature_names_in_"] = call(lambda: est.feature_names_in_)
    out.write("@@" + json.dumps(results) + "\\n")
    out.flush()
"""


class ModelFileWorker:
    """One child Python that answers requests; restarted after a crash or
    a hang (a request that takes longer than ``timeout`` seconds)."""

    def __init__(self, timeout=10.0):
        self.timeout = timeout
        self.proc = None

    def _start(self):
        self.stderr = open(tmp_path(".stderr"), "w+")
        self.proc = subprocess.Popen(
            [sys.executable, "-c", _WORKER_CODE], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=self.stderr, text=True, cwd=TESTS_DIR,
            env={**os.environ, "RUST_BACKTRACE": "0"},
        )

    def stop(self):
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc = None

    def _stderr_tail(self):
        self.stderr.flush()
        self.stderr.seek(0)
        return self.stderr.read()[-600:]

    def run(self, path, X, task=None):
        """Results of every call on the model at ``path``, or
        ``{"crash": description}`` if the child died or hung."""
        if self.proc is None or self.proc.poll() is not None:
            self._start()
        request = {"path": path, "X": np.asarray(X).tolist(),
                   "task": None if task is None else np.asarray(task).tolist()}
        try:
            self.proc.stdin.write(json.dumps(request) + "\n")
            self.proc.stdin.flush()
        except BrokenPipeError:
            pass
        deadline = time.monotonic() + self.timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                self.stop()
                return {"crash": f"no answer within {self.timeout} s (hung); stderr: {self._stderr_tail()!r}"}
            ready, _, _ = select.select([self.proc.stdout], [], [], left)
            if not ready:
                continue
            line = self.proc.stdout.readline()
            if not line:
                code = self.proc.wait()
                tail = self._stderr_tail()
                self.proc = None
                return {"crash": f"the interpreter died (exit code {code}); stderr: {tail!r}"}
            if line.startswith("@@"):
                return json.loads(line[2:])


def check_worker_results(results, field_names, n):
    """The contract for the calls on a loaded (possibly corrupted) model:
    each call either raises ValueError/TypeError naming one of
    ``field_names`` (any message if None: a file that is not JSON has no
    field to name) or gives valid outputs. Returns a list of problems."""
    if "crash" in results:
        return [results["crash"]]
    problems = []
    for call, r in results.items():
        if r["status"] == "raised":
            if not r["allowed"]:
                problems.append(f"{call} raised {r['module']}.{r['type']}: {r['message'][:300]!r}")
            elif field_names is not None and not names_any(r["message"], field_names, plural=True):
                problems.append(f"{call} raised {r['type']} naming none of {sorted(field_names)}: "
                                f"{r['message'][:300]!r}")
    if problems or results["load_model"]["status"] != "ok":
        return problems
    ok = {k: np.asarray(r["value"]) for k, r in results.items() if r["status"] == "ok" and k != "load_model"}
    d = int(ok["n_features_in_"]) if "n_features_in_" in ok else None
    if "predict" in ok:
        p = ok["predict"]
        if p.shape != (n,):
            problems.append(f"predict has shape {p.shape}")
        if "classes_" in ok:
            if not np.all(np.isin(p, ok["classes_"])):
                problems.append(f"predict gives labels outside classes_ {ok['classes_']}: {p[:4]}")
        elif p.dtype.kind != "f" or not np.all(np.isfinite(p)):
            problems.append(f"predict is not finite: {p[:4]}")
    for key in ("decision_function",):
        if key in ok and (ok[key].shape != (n,) or not np.all(np.isfinite(ok[key]))):
            problems.append(f"{key} is not finite or has shape {ok[key].shape}: {ok[key][:4]}")
    if "predict_proba" in ok:
        pp = ok["predict_proba"]
        if pp.shape != (n, 2) or not np.all(np.isfinite(pp)) or not np.all((pp >= 0) & (pp <= 1)) \
                or not np.all(np.abs(pp.sum(axis=1) - 1) <= 1e-12):
            problems.append(f"predict_proba is invalid: {pp[:2]}")
    if "classes_" in ok:
        c = results["classes_"]
        if c["shape"] != [2] or len({json.dumps(v) for v in c["value"]}) != 2:
            problems.append(f"classes_ is not 2 distinct labels: {c['value']}")
    for key in ("feature_importances_", "split_importance"):
        if key in ok:
            fi = ok[key]
            if d is not None and fi.shape != (d,):
                problems.append(f"{key} has shape {fi.shape}, n_features_in_ is {d}")
            elif not np.all(np.isfinite(fi)) or not np.all(fi >= 0):
                problems.append(f"{key} is not finite and >= 0: {fi}")
            elif key == "feature_importances_" and not (fi.sum() == 0 or abs(fi.sum() - 1) <= 1e-9):
                problems.append(f"feature_importances_ sums to {fi.sum()}")
    if "feature_names_in_" in results and d is not None and results["feature_names_in_"]["shape"] != [d]:
        problems.append(f"feature_names_in_ has shape {results['feature_names_in_']['shape']}, "
                        f"n_features_in_ is {d}")
    if "selected_features_" in ok and d is not None:
        sel = ok["selected_features_"]
        if sel.size and (np.any(sel < 0) or np.any(sel >= d) or len(set(sel.tolist())) != sel.size):
            problems.append(f"selected_features_ {sel} is not distinct indices < {d}")
        if "transform" in ok and ok["transform"].shape != (n, sel.size):
            problems.append(f"transform has shape {ok['transform'].shape}")
    return problems


# -- parameter values that may hang the process (thousands of threads) -------

_PARAMETER_CASE = """
import sys, warnings
warnings.simplefilter("ignore")
import numpy as np
from sparseboost import SparseBoostRegressor
name, value = sys.argv[1], eval(sys.argv[2])
X = np.random.default_rng(0).random((30, 3))
# a constant target: no tree can split, so a huge n_estimators ends at once
y = np.ones(30) if name == "n_estimators" else X[:, 0]
try:
    est = SparseBoostRegressor(n_estimators=2, **{name: value}).fit(X, y)
    p = est.predict(X)
    print("OK", bool(np.all(np.isfinite(p))) and p.shape == (30,))
except (ValueError, TypeError) as e:
    print("REJECTED", type(e).__name__, str(e).replace("\\n", " "))
except BaseException as e:
    print("RAISED", type(e).__module__ + "." + type(e).__name__, str(e).replace("\\n", " "))
"""


def parameter_case_in_subprocess(name, value, timeout=25):
    """Fit and predict a regressor with ``name=eval(value)`` in a child
    process. None if it met the contract (finite predictions within
    ``timeout`` s, or a ValueError/TypeError naming ``name``), else what
    went wrong."""
    example()
    try:
        done = subprocess.run([sys.executable, "-c", _PARAMETER_CASE, name, value], capture_output=True,
                              text=True, timeout=timeout, cwd=TESTS_DIR,
                              env={**os.environ, "RUST_BACKTRACE": "0"})
    except subprocess.TimeoutExpired:
        return f"{name}={value}: fit + predict did not finish within {timeout} s"
    last = (done.stdout.strip().splitlines() or [""])[-1]
    if done.returncode != 0:
        return f"{name}={value}: the interpreter died ({done.returncode}): {done.stderr[-500:]}"
    tally(last.startswith("OK"))
    if last.startswith("REJECTED"):
        return None if names_any(last, {name}) else f"{name}={value}: the message does not name {name}: {last}"
    return None if last == "OK True" else f"{name}={value}: {last}"
