"""The contract shared by the property tests (``tests/test_properties_*.py``),
with the hypothesis profile, example budgets and counters they use.

The contract (what every public call must do, for any input):

(a) raise ``ValueError`` or ``TypeError`` whose message names the offending
    argument as the user spelled it (``X``, ``y``, ``sample_weight``,
    ``task`` or a parameter name), and no other exception type; or
(b) succeed, with outputs of the documented shape that are finite (see the
    ``check_*`` helpers below).

``STATS`` counts the examples the property tests ran; ``conftest.py`` prints
it at the end of the session. The inputs come from ``strategies.py``; model
files and risky parameter values are run in child processes by
``model_files.py``.
"""

from __future__ import annotations

import atexit
import itertools
import math
import numbers
import os
import pickle
import re
import shutil
import tempfile
import warnings

import numpy as np
import pandas as pd
import scipy.sparse as sp
import sparseboost
from sklearn.exceptions import NotFittedError

# -- profiles and counters ---------------------------------------------------

PROFILE = os.environ.get("SPARSEBOOST_HYPOTHESIS_PROFILE", "ci")
# The long profile runs every property test this many times as often as ci.
LONG_FACTOR = 12
# The floor profile (.ci/floor: the same tests against the lowest declared
# versions) runs this fraction of ci's examples, the first ones ci draws
# (both derandomized): it checks that the old versions run the contract, and
# the main run has already explored it.
FLOOR_FRACTION = 0.25


def budget(n_ci: int) -> int:
    """Examples of one property test: ``n_ci`` in the ci profile, more in
    long, fewer in floor."""
    if PROFILE == "long":
        return n_ci * LONG_FACTOR
    if PROFILE == "floor":
        return max(1, math.ceil(n_ci * FLOOR_FRACTION))
    return n_ci


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
            A = check_array(
                X,
                dtype=np.float64,
                ensure_all_finite=False,
                accept_sparse=True,
                ensure_min_samples=0,
                ensure_min_features=0,
            )
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
        return np.array(
            [[math.nan if v is None or v is pd.NA else float(v) for v in row] for row in out],
            dtype=np.float64,
        ).reshape(out.shape)
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
        raise ContractViolation(
            f"feature_importances_ has shape {fi.shape}, expected ({n_features},)"
        )
    if not (bool(np.all(np.isfinite(fi)))):
        raise ContractViolation(f"feature_importances_ is not finite: {fi}")
    if not (bool(np.all(fi >= 0))):
        raise ContractViolation(f"feature_importances_ has negative entries: {fi}")
    total = float(fi.sum())
    if not (total == 0.0 or abs(total - 1.0) <= 1e-9):
        raise ContractViolation(f"feature_importances_ sums to {total!r}")
    gain = must(
        lambda: np.asarray(est.get_feature_importance("gain")), "get_feature_importance('gain')"
    )
    if not (gain.shape == (n_features,) and np.all(np.isfinite(gain)) and np.all(gain >= 0)):
        raise ContractViolation(
            f"gain importances are not finite and >= 0 of shape ({n_features},): {gain}"
        )
    split = must(
        lambda: np.asarray(est.get_feature_importance("split")), "get_feature_importance('split')"
    )
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
        raise ContractViolation(
            f"transform(X) returned non-numeric values (dtype {out.dtype}): {out[:3]!r}"
        )
    A = as_float_matrix(X)
    if A is not None and A.ndim == 2 and A.shape[1] == d:
        finite_in = np.isfinite(A[:, np.sort(sel)]) if len(sel) else np.zeros((n, 0), bool)
        if not (bool(np.all(np.isfinite(values[finite_in])))):
            raise ContractViolation("transform(X) is not finite where X is finite")
    if hasattr(est, "inverse_transform") and n:
        # (an empty selection gives no columns, which X may not have)
        ok, back = attempt(
            lambda: est.inverse_transform(values), {"X"}, "inverse_transform(transform(X))"
        )
        if ok and np.asarray(back).shape != (n, d):
            raise ContractViolation(
                f"inverse_transform(transform(X)) has shape {back.shape}, expected {(n, d)}"
            )
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
        k = len(est.classes_)
        dec = must(lambda: np.asarray(est.decision_function(*args)), "decision_function")
        if not (dec.shape == ((n,) if k == 2 else (n, k))):
            raise ContractViolation(f"decision_function has shape {dec.shape} for {k} classes")
        if not (bool(np.all(np.isfinite(dec)))):
            raise ContractViolation(f"decision_function is not finite: {dec[:5]}")
        proba = must(lambda: np.asarray(est.predict_proba(*args)), "predict_proba")
        if not (proba.shape == (n, k)):
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
                raise ContractViolation(
                    f"{key} after {how} has dtype {got[key].dtype}, before {value.dtype}: "
                    f"{got[key][:3]!r} against {value[:3]!r}"
                )
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
