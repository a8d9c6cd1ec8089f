"""Property tests: the single-task boosters and the selector on any X, y and
sample_weight (see contract.py for the contract)."""

import numpy as np
import pytest
from contract import (
    ContractViolation,
    as_float_matrix,
    attempt,
    budget,
    check_fitted,
    check_predictions,
    check_selection,
    example,
    rows_of,
    tally,
)
from hypothesis import given, settings
from hypothesis import strategies as st
from parameter_strategies import FAST
from sparseboost import SparseBoostClassifier, SparseBoostRegressor, SparseBoostSelector
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

BOOSTERS = [SparseBoostRegressor, SparseBoostClassifier]


def clean_target(cls, X, n):
    if cls is SparseBoostClassifier:
        return np.arange(n) % 2
    # continuous values (never all integers), so that a selector without an
    # estimator picks the regressor
    A = as_float_matrix(X)
    if A is not None and A.ndim == 2 and A.shape[0] == n and A.shape[1] >= 1:
        col = np.clip(np.nan_to_num(A[:, 0], nan=0.0, posinf=0.0, neginf=0.0), -1e6, 1e6)
        return (col > np.median(col)) * 3.0 + np.arange(n) % 3 + 0.5
    return (np.arange(n) % 5) + 0.5


@settings(max_examples=budget(400))
@given(data=st.data())
def test_fit_accepts_X_or_names_it(data):
    example()
    cls = data.draw(st.sampled_from(BOOSTERS), label="estimator")
    n = data.draw(n_rows_st, label="n")
    d = data.draw(n_cols_st, label="d")
    X = data.draw(any_X(n, d), label="X")
    rows = rows_of(X, n)
    y = clean_target(cls, X, rows)
    names = {"X"} if (cls is SparseBoostRegressor or rows >= 2) else {"X", "y"}
    est = cls(**FAST)
    ok, _ = attempt(lambda: est.fit(X, y), names, "fit(X, y)")
    tally(ok)
    if ok:
        check_fitted(est, X, y)


def fitted_booster(data):
    """A booster fitted on clean data (with feature names or without)."""
    cls = data.draw(st.sampled_from(BOOSTERS), label="estimator")
    d = data.draw(good_d, label="d")
    X_fit = data.draw(float_matrix(30, d), label="X_fit")
    if data.draw(st.booleans(), label="fit on a DataFrame"):
        import pandas as pd

        X_fit = pd.DataFrame(X_fit, columns=[f"c{j}" for j in range(d)])
    return cls(**FAST).fit(X_fit, clean_target(cls, X_fit, 30)), d


@settings(max_examples=budget(240))
@given(data=st.data())
def test_predict_and_score_accept_X_or_name_it(data):
    example()
    est, d = fitted_booster(data)
    n = data.draw(n_rows_st, label="n")
    d_new = data.draw(st.one_of(st.just(d), st.just(d), n_cols_st), label="d at predict")
    X = data.draw(any_X(n, d_new), label="X")
    rows = rows_of(X, n)
    ok, _ = attempt(lambda: est.predict(X), {"X"}, "predict(X)")
    tally(ok)
    if ok:
        check_predictions(est, X, rows)
    if isinstance(est, SparseBoostClassifier):
        for method in ("decision_function", "predict_proba"):
            attempt(lambda: getattr(est, method)(X), {"X"}, f"{method}(X)")
        y = clean_target(SparseBoostClassifier, X, rows)
    else:
        y = np.arange(rows) % 4 * 1.0
    ok, score = attempt(lambda: est.score(X, y), {"X", "y"}, "score(X, y)")
    if ok and not (isinstance(score, float) and np.isfinite(score)):
        raise ContractViolation(f"score(X, y) is not a finite float: {score!r}")


@settings(max_examples=budget(190))
@given(data=st.data())
def test_transform_accepts_exactly_what_predict_accepts(data):
    example()
    est, d = fitted_booster(data)
    n = data.draw(n_rows_st, label="n")
    d_new = data.draw(st.one_of(st.just(d), st.just(d), n_cols_st), label="d at predict")
    X = data.draw(any_X(n, d_new), label="X")
    ok, _ = attempt(lambda: est.transform(X), {"X"}, "transform(X)")
    tally(ok)
    if ok:
        check_selection(est, X, rows_of(X, n))
    predicted, _ = attempt(lambda: est.predict(X), {"X"}, "predict(X)")
    if ok != predicted:
        raise ContractViolation(
            f"transform {'accepts' if ok else 'rejects'} an X that predict {'accepts' if predicted else 'rejects'}"
        )


@settings(max_examples=budget(240))
@given(data=st.data())
def test_regressor_accepts_y_or_names_it(data):
    example()
    n = data.draw(st.one_of(good_n, n_rows_st), label="n")
    d = data.draw(good_d, label="d")
    X = data.draw(
        float_matrix(n, d, dirty=data.draw(st.booleans())).map(
            lambda A: np.where(np.isinf(A), 0.0, A)
        ),
        label="X",
    )
    y = data.draw(regression_targets(n), label="y")
    est = SparseBoostRegressor(**FAST)
    ok, _ = attempt(lambda: est.fit(X, y), {"y"} if n else {"X", "y"}, "fit(X, y)")
    tally(ok)
    if ok:
        check_fitted(est, X, y)


@settings(max_examples=budget(240))
@given(data=st.data())
def test_classifier_accepts_labels_or_names_y(data):
    example()
    n = data.draw(st.one_of(good_n, n_rows_st), label="n")
    d = data.draw(good_d, label="d")
    X = data.draw(float_matrix(n, d), label="X")
    y = data.draw(class_labels(n), label="y")
    est = SparseBoostClassifier(**FAST)
    ok, _ = attempt(lambda: est.fit(X, y), {"y"} if n else {"X", "y"}, "fit(X, y)")
    tally(ok)
    if ok:
        check_fitted(est, X, y)


@settings(max_examples=budget(240))
@given(data=st.data())
def test_fit_accepts_sample_weight_or_names_it(data):
    example()
    cls = data.draw(st.sampled_from(BOOSTERS), label="estimator")
    n = data.draw(good_n, label="n")
    d = data.draw(good_d, label="d")
    X = data.draw(float_matrix(n, d), label="X")
    y = clean_target(cls, X, n)
    w = data.draw(sample_weights(n), label="sample_weight")
    est = cls(**FAST)
    ok, _ = attempt(
        lambda: est.fit(X, y, sample_weight=w), {"sample_weight"}, "fit(X, y, sample_weight)"
    )
    tally(ok)
    if ok:
        check_fitted(est, X, y)


@settings(max_examples=budget(190))
@given(data=st.data())
def test_selector_accepts_X_or_names_it(data):
    example()
    inner = data.draw(
        st.sampled_from([None, SparseBoostRegressor(**FAST), SparseBoostClassifier(**FAST)]),
        label="estimator",
    )
    n = data.draw(n_rows_st, label="n")
    d = data.draw(n_cols_st, label="d")
    X = data.draw(any_X(n, d), label="X")
    rows = rows_of(X, n)
    cls = (
        SparseBoostClassifier if isinstance(inner, SparseBoostClassifier) else SparseBoostRegressor
    )
    y = clean_target(cls, X, rows)
    selector = SparseBoostSelector(inner)
    names = {"X"} if (cls is SparseBoostRegressor or rows >= 2) else {"X", "y"}
    ok, _ = attempt(lambda: selector.fit(X, y), names, "SparseBoostSelector.fit(X, y)")
    tally(ok)
    if ok:
        check_selection(selector, X, rows)
    else:
        selector.fit(np.random.default_rng(0).random((30, max(d, 1))), np.arange(30) % 2)
    X2 = data.draw(
        any_X(data.draw(n_rows_st, label="n2"), data.draw(n_cols_st, label="d2")), label="X2"
    )
    ok, _ = attempt(lambda: selector.transform(X2), {"X"}, "SparseBoostSelector.transform(X2)")
    if ok:
        check_selection(selector, X2, rows_of(X2, 0))
    predicted, _ = attempt(lambda: selector.estimator_.predict(X2), {"X"}, "estimator_.predict(X2)")
    if ok != predicted:
        raise ContractViolation(
            f"SparseBoostSelector.transform {'accepts' if ok else 'rejects'} an X that "
            f"its estimator's predict {'accepts' if predicted else 'rejects'}"
        )


SELECTOR_ESTIMATORS = [
    None,
    SparseBoostRegressor(**FAST),
    SparseBoostClassifier(**FAST),
    SparseBoostRegressor,
    "abc",
    3,
    np.float64(1.0),
    [SparseBoostRegressor(**FAST)],
]


@settings(max_examples=budget(60))
@given(data=st.data())
def test_selector_accepts_its_estimator_or_names_it(data):
    example()
    from sklearn.linear_model import LinearRegression
    from sparseboost import MultiTaskSparseBoostRegressor

    inner = data.draw(
        st.sampled_from(
            SELECTOR_ESTIMATORS + [MultiTaskSparseBoostRegressor(**FAST), LinearRegression()]
        ),
        label="estimator",
    )
    X = data.draw(float_matrix(30, data.draw(good_d, label="d")), label="X")
    y = clean_target(
        SparseBoostClassifier if isinstance(inner, SparseBoostClassifier) else SparseBoostRegressor,
        X,
        30,
    )
    selector = SparseBoostSelector(inner)
    ok, _ = attempt(
        lambda: selector.fit(X, y), {"estimator"}, f"SparseBoostSelector({inner!r}).fit(X, y)"
    )
    tally(ok)
    if ok:
        check_selection(selector, X, 30)
