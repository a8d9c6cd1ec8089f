"""Property tests: the multitask boosters on any X, y, task and
sample_weight, and predict with any task labels (see strategies.py)."""

import numpy as np
import pytest
from contract import (
    ContractViolation,
    attempt,
    budget,
    check_fitted,
    check_predictions,
    example,
    rows_of,
    tally,
)
from hypothesis import given, settings
from hypothesis import strategies as st
from parameter_strategies import FAST
from sparseboost import MultiTaskSparseBoostClassifier, MultiTaskSparseBoostRegressor
from strategies import (
    any_X,
    class_labels,
    classes_for,
    float_matrix,
    good_d,
    good_n,
    n_cols_st,
    n_rows_st,
    regression_targets,
    sample_weights,
    task_labels,
    tasks_for,
)

pytestmark = pytest.mark.filterwarnings("ignore")

MULTITASK = [MultiTaskSparseBoostRegressor, MultiTaskSparseBoostClassifier]


def clean_target(cls, task, n):
    if cls is MultiTaskSparseBoostClassifier:
        return classes_for(task)
    return (np.arange(n) % 5).astype(np.float64) * (1 + np.asarray(task) % 2)


@settings(max_examples=budget(240))
@given(data=st.data())
def test_multitask_fit_accepts_X_or_names_it(data):
    example()
    cls = data.draw(st.sampled_from(MULTITASK), label="estimator")
    n = data.draw(n_rows_st, label="n")
    d = data.draw(n_cols_st, label="d")
    X = data.draw(any_X(n, d), label="X")
    rows = rows_of(X, n)
    task = tasks_for(rows, data.draw(st.integers(1, 3), label="n_tasks"))
    y = clean_target(cls, task, rows)
    names = {"X"} if rows >= 2 else {"X", "y", "task"}
    est = cls(**FAST)
    ok, _ = attempt(lambda: est.fit(X, y, task), names, "fit(X, y, task)")
    tally(ok)
    if ok:
        check_fitted(est, X, y, task=task)


@settings(max_examples=budget(190))
@given(data=st.data())
def test_multitask_fit_accepts_y_or_names_it(data):
    example()
    cls = data.draw(st.sampled_from(MULTITASK), label="estimator")
    n = data.draw(good_n, label="n")
    d = data.draw(good_d, label="d")
    X = data.draw(float_matrix(n, d), label="X")
    task = tasks_for(n, data.draw(st.integers(1, 3), label="n_tasks"))
    if cls is MultiTaskSparseBoostClassifier:
        y = data.draw(class_labels(n), label="y")
        names = {"y"}
    else:
        y = data.draw(regression_targets(n), label="y")
        names = {"y"}
    est = cls(**FAST)
    ok, _ = attempt(lambda: est.fit(X, y, task), names, "fit(X, y, task)")
    tally(ok)
    if ok:
        check_fitted(est, X, y, task=task)


@settings(max_examples=budget(190))
@given(data=st.data())
def test_multitask_fit_accepts_task_or_names_it(data):
    example()
    cls = data.draw(st.sampled_from(MULTITASK), label="estimator")
    n = data.draw(st.one_of(good_n, n_rows_st.filter(lambda n: n >= 1)), label="n")
    d = data.draw(good_d, label="d")
    X = data.draw(float_matrix(n, d), label="X")
    task = data.draw(task_labels(n), label="task")
    try:
        codes = np.unique(np.asarray(task, dtype=object).ravel().astype(str), return_inverse=True)[
            1
        ]
        y = clean_target(cls, codes if len(codes) == n else np.zeros(n, int), n)
    except Exception:  # noqa: BLE001 - a target for tasks that cannot even be compared
        y = clean_target(cls, np.zeros(n, int), n)
    names = {"task"} if cls is MultiTaskSparseBoostRegressor else {"task", "y"}
    est = cls(**FAST)
    ok, _ = attempt(lambda: est.fit(X, y, task), names, "fit(X, y, task)")
    tally(ok)
    if ok:
        check_fitted(est, X, y, task=task)


@settings(max_examples=budget(160))
@given(data=st.data())
def test_multitask_fit_accepts_sample_weight_or_names_it(data):
    example()
    cls = data.draw(st.sampled_from(MULTITASK), label="estimator")
    n = data.draw(good_n, label="n")
    X = data.draw(float_matrix(n, data.draw(good_d, label="d")), label="X")
    task = tasks_for(n, data.draw(st.integers(1, 3), label="n_tasks"))
    y = clean_target(cls, task, n)
    w = data.draw(sample_weights(n), label="sample_weight")
    est = cls(**FAST)
    ok, _ = attempt(
        lambda: est.fit(X, y, task, sample_weight=w),
        {"sample_weight"},
        "fit(X, y, task, sample_weight)",
    )
    tally(ok)
    if ok:
        check_fitted(est, X, y, task=task)


def fitted_multitask(data):
    cls = data.draw(st.sampled_from(MULTITASK), label="estimator")
    d = data.draw(good_d, label="d")
    labels = data.draw(
        st.sampled_from([np.array([0, 1, 2]), np.array(["a", "b", "c"]), np.array([-5, 7, 2**40])]),
        label="task labels",
    )
    X = data.draw(float_matrix(36, d), label="X_fit")
    task = labels[np.arange(36) % 3]
    y = clean_target(cls, np.arange(36) % 3, 36)
    return cls(**FAST).fit(X, y, task), d, labels


@settings(max_examples=budget(190))
@given(data=st.data())
def test_multitask_predict_accepts_task_or_names_it(data):
    example()
    est, d, labels = fitted_multitask(data)
    n = data.draw(st.one_of(st.integers(1, 12), n_rows_st), label="n")
    X = data.draw(float_matrix(n, d), label="X")
    task = data.draw(
        st.one_of(
            task_labels(n),
            st.sampled_from(labels.tolist()),
            st.lists(st.sampled_from(labels.tolist()), min_size=n, max_size=n).map(np.array),
            st.sampled_from([3, "z", None, -1, 2.5, np.nan, "0"]),
        ),
        label="task",
    )
    names = {"task"} if n else {"task", "X"}
    ok, _ = attempt(lambda: est.predict(X, task), names, "predict(X, task)")
    tally(ok)
    if ok:
        check_predictions(est, X, n, task=task)
        y = (
            np.arange(n) % 2
            if isinstance(est, MultiTaskSparseBoostClassifier)
            else np.arange(n) * 1.0
        )
        if isinstance(est, MultiTaskSparseBoostClassifier):
            y = est.classes_[y]
        ok, score = attempt(lambda: est.score(X, y, task), names | {"X", "y"}, "score(X, y, task)")
        if ok and not np.isfinite(score):
            raise ContractViolation(f"score(X, y, task) is not a finite float: {score!r}")


@settings(max_examples=budget(160))
@given(data=st.data())
def test_multitask_predict_accepts_X_or_names_it(data):
    example()
    est, d, labels = fitted_multitask(data)
    n = data.draw(n_rows_st, label="n")
    X = data.draw(
        any_X(n, data.draw(st.one_of(st.just(d), n_cols_st), label="d at predict")), label="X"
    )
    rows = rows_of(X, n)
    task = labels[np.arange(rows) % 3]
    ok, _ = attempt(lambda: est.predict(X, task), {"X"}, "predict(X, task)")
    tally(ok)
    if ok:
        check_predictions(est, X, rows, task=task)
    if isinstance(est, MultiTaskSparseBoostClassifier):
        for method in ("decision_function", "predict_proba"):
            attempt(lambda: getattr(est, method)(X, task), {"X"}, f"{method}(X, task)")
    transformed, _ = attempt(lambda: est.transform(X), {"X"}, "transform(X)")
    if transformed != ok:
        raise ContractViolation(
            f"transform {'accepts' if transformed else 'rejects'} an X that predict "
            f"{'accepts' if ok else 'rejects'}"
        )
