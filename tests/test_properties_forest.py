"""Property tests: the forests on any X, y, sample_weight and parameters
(see contract.py for the contract: accept with finite, well-formed outputs,
or reject with a ValueError/TypeError naming the argument)."""

import pickle

import numpy as np
import pytest
from contract import (
    ContractViolation,
    attempt,
    budget,
    check_selection,
    example,
    must,
    rows_of,
    tally,
)
from hypothesis import given, settings
from hypothesis import strategies as st
from sparseboost import SparseForestClassifier, SparseForestRegressor
from strategies import (
    any_X,
    class_labels,
    float_matrix,
    good_d,
    good_n,
    n_cols_st,
    n_rows_st,
    regression_targets,
    sample_weights,
)

pytestmark = pytest.mark.filterwarnings("ignore")

FORESTS = [SparseForestRegressor, SparseForestClassifier]
SMALL = {"n_estimators": 4, "random_state": 0, "n_jobs": 1}


@st.composite
def forest_params(draw):
    """Small valid settings, and now and then a bad one."""
    p = dict(SMALL)
    p["max_features"] = draw(
        st.sampled_from(["default", "sqrt", "log2", None, 1, 3, 0.5, 1.0, 10**6])
    )
    p["bootstrap"] = draw(st.booleans())
    p["oob_score"] = p["bootstrap"] and draw(st.booleans())
    p["max_depth"] = draw(st.sampled_from([None, 1, 3]))
    p["min_samples_leaf"] = draw(st.sampled_from([1, 2, 5]))
    p["max_leaf_nodes"] = draw(st.sampled_from([None, 2, 7]))
    p["max_bins"] = draw(st.sampled_from([2, 16, 255]))
    p["feature_sampling"] = draw(st.sampled_from(["uniform", "dynamic"]))
    p["reweight_rate"] = draw(st.sampled_from([0.0, 5.0, 10.0]))
    if draw(st.integers(0, 4)) == 0:
        name = draw(st.sampled_from(sorted(p)))
        p[name] = draw(
            st.sampled_from([-1, 0, 1.5, "x", None, float("nan"), True, 2**70, [1], -0.5])
        )
    return p


def check_outputs(est, X, n):
    """Predictions, probabilities, importances and selection of a fitted
    forest on an X it accepts."""
    pred = must(lambda: np.asarray(est.predict(X)), "predict")
    if pred.shape != (n,):
        raise ContractViolation(f"predict has shape {pred.shape}, expected ({n},)")
    if isinstance(est, SparseForestClassifier):
        if not np.all(np.isin(pred, est.classes_)):
            raise ContractViolation("predict gives labels outside classes_")
        proba = must(lambda: np.asarray(est.predict_proba(X)), "predict_proba")
        if proba.shape != (n, len(est.classes_)) or not np.all(np.isfinite(proba)):
            raise ContractViolation(f"predict_proba: shape {proba.shape} or not finite")
        if not np.all((proba >= 0) & (proba <= 1)) or np.any(np.abs(proba.sum(1) - 1) > 1e-12):
            raise ContractViolation("predict_proba is not a distribution per row")
    elif not (pred.dtype.kind == "f" and np.all(np.isfinite(pred))):
        raise ContractViolation(f"predict is not finite: {pred[:5]}")
    for name in ("feature_importances_", "feature_weights_"):
        values = must(lambda: np.asarray(getattr(est, name)), name)
        total = float(values.sum())
        if values.shape != (est.n_features_in_,) or not np.all(np.isfinite(values)):
            raise ContractViolation(f"{name}: shape {values.shape} or not finite")
        if np.any(values < 0) or not (total == 0.0 or abs(total - 1.0) <= 1e-9):
            raise ContractViolation(f"{name} is not a distribution: {values}")
    check_selection(est, X, n)


@settings(max_examples=budget(200))
@given(data=st.data())
def test_fit_accepts_X_or_names_it(data):
    example()
    cls = data.draw(st.sampled_from(FORESTS), label="estimator")
    n = data.draw(n_rows_st, label="n")
    d = data.draw(n_cols_st, label="d")
    X = data.draw(any_X(n, d), label="X")
    rows = rows_of(X, n)
    y = np.arange(rows) % 2 if cls is SparseForestClassifier else np.arange(rows) % 5 + 0.5
    names = {"X"} if (cls is SparseForestRegressor or rows >= 2) else {"X", "y"}
    est = cls(**SMALL)
    ok, _ = attempt(lambda: est.fit(X, y), names, "fit(X, y)")
    tally(ok)
    if ok:
        check_outputs(est, X, rows)


@settings(max_examples=budget(200))
@given(data=st.data())
def test_fit_accepts_y_weights_and_parameters_or_names_them(data):
    example()
    cls = data.draw(st.sampled_from(FORESTS), label="estimator")
    n = data.draw(good_n, label="n")
    d = data.draw(good_d, label="d")
    X = data.draw(float_matrix(n, d), label="X")
    if cls is SparseForestClassifier:
        y = data.draw(class_labels(n), label="y")
    else:
        y = data.draw(regression_targets(n), label="y")
    weights = data.draw(st.one_of(st.none(), sample_weights(n)), label="sample_weight")
    params = data.draw(forest_params(), label="params")
    est = cls(**params)
    names = {"y", "sample_weight", *params}
    ok, _ = attempt(lambda: est.fit(X, y, sample_weight=weights), names, "fit(X, y, w)")
    tally(ok)
    if not ok:
        return
    check_outputs(est, X, n)
    if est.oob_score:
        score = est.oob_score_
        if not isinstance(score, float):
            raise ContractViolation(f"oob_score_ is not a float: {score!r}")
    again = must(lambda: pickle.loads(pickle.dumps(est)), "pickle")
    if not np.array_equal(again.predict(X), est.predict(X)):
        raise ContractViolation("a pickled forest predicts differently")
    two = must(lambda: cls(**{**params, "n_jobs": 2}).fit(X, y, sample_weight=weights), "n_jobs=2")
    if two._model.to_json() != est._model.to_json():
        raise ContractViolation("the forest depends on the number of threads")
