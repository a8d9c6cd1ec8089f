"""Sparse (CSR, CSC) and float32 input give the model of the same matrix
passed dense as float64: the engine reads them without converting them to a
dense float64 copy, and must bin them, store them and split on them alike.

Models are compared through their engine JSON (every threshold, leaf value
and gain) and their predictions, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone
from sparseboost import (
    LinearForwardSelector,
    MultiTaskSparseBoostRegressor,
    SparseBoostClassifier,
    SparseBoostRanker,
    SparseBoostRegressor,
    SparseForestClassifier,
    TwoPassForwardSelector,
)


def sparse_problem(n=400, d=40, density=0.06, seed=0, nan_rate=0.01):
    """Mostly-zero features with values exactly representable in float32
    (quarters), a few missing values, three dense features and a target
    driven by one sparse and one dense feature."""
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, d)) * 4) / 4 * (rng.random((n, d)) < density)
    X[:, :3] = np.round(rng.normal(size=(n, 3)) * 16) / 16
    X[rng.random((n, d)) < nan_rate] = np.nan
    signal = 3 * (np.nan_to_num(X[:, 5]) != 0) + np.nan_to_num(X[:, 0]) + 0.5 * rng.normal(size=n)
    return X, signal


def formats(X):
    """The same matrix in every input format the estimators take."""
    return {
        "csr": sp.csr_matrix(X),
        "csc": sp.csc_matrix(X),
        "float32": X.astype(np.float32),
        "csr float32": sp.csr_matrix(X.astype(np.float32)),
        "coo": sp.coo_matrix(X),
    }


def assert_same_model(reference, other, X):
    assert other._model.to_json() == reference._model.to_json()
    np.testing.assert_array_equal(other._raw_predict(X), reference._raw_predict(X))


ESTIMATORS = [
    pytest.param(lambda: SparseBoostRegressor(n_estimators=20, random_state=0), id="regressor"),
    pytest.param(
        lambda: SparseBoostRegressor(
            n_estimators=20,
            penalty="agbm",
            mu=0.02,
            subsample=0.7,
            colsample_bytree=0.8,
            random_state=1,
        ),
        id="agbm-sampled",
    ),
    pytest.param(
        lambda: SparseBoostRegressor(
            n_estimators=15,
            penalty="agbm",
            mu=0.01,
            split_search="group_testing",
            random_state=2,
        ),
        id="group-testing",
    ),
]


@pytest.mark.parametrize("make", ESTIMATORS)
def test_sparse_and_float32_input_give_the_dense_model(make):
    X, y = sparse_problem()
    reference = make().fit(X, y)
    assert reference._model.to_json() != make().fit(X[:, ::-1], y)._model.to_json()
    for name, M in formats(X).items():
        other = make().fit(M, y)
        assert_same_model(reference, other, X)
        # Predicting from the sparse or float32 matrix itself.
        np.testing.assert_array_equal(other.predict(M), reference.predict(X), err_msg=name)


def test_classifiers_rankers_and_forests_take_sparse_input():
    X, signal = sparse_problem(seed=3)
    labels = np.digitize(signal, np.quantile(signal, [0.33, 0.66]))
    group = np.full(20, 20)
    relevance = np.clip(labels, 0, 3)
    cases = [
        (SparseBoostClassifier(n_estimators=15, random_state=0), (labels > 0).astype(int), {}),
        (SparseBoostClassifier(n_estimators=10, random_state=0), labels, {}),
        (SparseBoostRanker(n_estimators=10, random_state=0), relevance, {"group": group}),
        (SparseForestClassifier(n_estimators=10, random_state=0), labels, {}),
    ]
    for estimator, target, kwargs in cases:
        reference = clone(estimator).fit(X, target, **kwargs)
        for name, M in formats(X).items():
            other = clone(estimator).fit(M, target, **kwargs)
            assert other._model.to_json() == reference._model.to_json(), (estimator, name)


def test_multitask_and_eval_sets_take_sparse_input():
    X, y = sparse_problem(seed=4)
    task = np.arange(len(y)) % 2
    make = lambda: MultiTaskSparseBoostRegressor(n_estimators=10, random_state=0)  # noqa: E731
    reference = make().fit(X, y, task=task)
    other = make().fit(sp.csr_matrix(X), y, task=task)
    assert other._model.to_json() == reference._model.to_json()
    np.testing.assert_array_equal(
        other.predict(sp.csr_matrix(X), task=task), reference.predict(X, task=task)
    )

    early = dict(n_estimators=200, early_stopping_rounds=5, random_state=0)
    dense = SparseBoostRegressor(**early).fit(X[:300], y[:300], eval_set=[(X[300:], y[300:])])
    sparse = SparseBoostRegressor(**early).fit(
        sp.csc_matrix(X[:300]), y[:300], eval_set=[(sp.csr_matrix(X[300:]), y[300:])]
    )
    assert sparse.best_iteration_ == dense.best_iteration_
    assert sparse._model.to_json() == dense._model.to_json()


@pytest.mark.parametrize(
    "make",
    [
        lambda: SparseBoostRegressor(n_estimators=200, early_stopping_rounds=5, random_state=0),
        lambda: SparseBoostClassifier(n_estimators=200, early_stopping_rounds=5, random_state=0),
        lambda: MultiTaskSparseBoostRegressor(
            n_estimators=200, early_stopping_rounds=5, random_state=0
        ),
    ],
    ids=["regressor", "classifier", "multitask"],
)
def test_early_stopping_without_an_eval_set_holds_out_sparse_rows(make):
    # The held-out rows were once handed to the engine as a scipy matrix.
    X, y = sparse_problem(seed=5)
    if isinstance(make(), SparseBoostClassifier):
        y = (y > np.median(y)).astype(int)
    kwargs = (
        {"task": np.arange(len(y)) % 2} if isinstance(make(), MultiTaskSparseBoostRegressor) else {}
    )
    dense = make().fit(X, y, **kwargs)
    sparse = make().fit(sp.csr_matrix(X), y, **kwargs)
    assert sparse.best_iteration_ == dense.best_iteration_
    assert sparse._model.to_json() == dense._model.to_json()


def test_stored_zeros_unsorted_and_repeated_indices_and_the_users_matrix_is_kept():
    X, y = sparse_problem(seed=5)
    reference = SparseBoostRegressor(n_estimators=10, random_state=0).fit(X, y)
    # The same matrix with each column's entries in reverse order, column
    # 5's first value split into two entries of one row (scipy sums them)
    # and a stored zero in column 6.
    csc = sp.csc_matrix(X)
    data, indices, indptr = [], [], [0]
    for j in range(X.shape[1]):
        rows = list(csc.indices[csc.indptr[j] : csc.indptr[j + 1]][::-1])
        values = list(csc.data[csc.indptr[j] : csc.indptr[j + 1]][::-1])
        if j == 5:
            values[0] /= 2
            rows.append(rows[0])
            values.append(values[0])
        if j == 6:
            rows.append(int(np.flatnonzero(X[:, 6] == 0)[0]))
            values.append(0.0)
        indices += rows
        data += values
        indptr.append(len(indices))
    messy = sp.csc_matrix((data, indices, indptr), shape=X.shape)
    assert not messy.has_canonical_format
    before = (messy.data.copy(), messy.indices.copy(), messy.indptr.copy())
    other = SparseBoostRegressor(n_estimators=10, random_state=0).fit(messy, y)
    assert other._model.to_json() == reference._model.to_json()
    for kept, was in zip((messy.data, messy.indices, messy.indptr), before):
        np.testing.assert_array_equal(kept, was)


def test_sparse_infinity_and_dense_only_estimators_are_named_errors():
    X, y = sparse_problem(seed=6)
    bad = sp.csr_matrix(X)
    bad.data[3] = np.inf
    with pytest.raises(ValueError, match="X"):
        SparseBoostRegressor(n_estimators=2).fit(bad, y)
    for selector in (LinearForwardSelector(), TwoPassForwardSelector()):
        with pytest.raises(TypeError, match="X is a scipy sparse matrix"):
            selector.fit(sp.csr_matrix(np.nan_to_num(X)), y > np.median(y))


@settings(max_examples=25, deadline=None)
@given(
    n=st.integers(30, 120),
    d=st.integers(1, 12),
    density=st.floats(0.0, 0.5),
    seed=st.integers(0, 2**16),
)
def test_any_sparse_matrix_gives_the_dense_model(n, d, density, seed):
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, d)) * 8) / 8 * (rng.random((n, d)) < density)
    y = rng.normal(size=n) + (X[:, 0] > 0)
    params = dict(n_estimators=5, min_samples_leaf=3, max_leaves=7, random_state=seed)
    reference = SparseBoostRegressor(**params).fit(X, y)
    for M in (sp.csc_matrix(X), sp.csr_matrix(X).astype(np.float32)):
        other = SparseBoostRegressor(**params).fit(M, y)
        assert other._model.to_json() == reference._model.to_json()


def test_selectors_select_the_same_features_from_sparse_input():
    from sparseboost import SparseBoostSelectorCV, TopKSelector

    X, signal = sparse_problem(seed=7)
    y = (signal > np.median(signal)).astype(int)
    for selector in (
        SparseBoostSelectorCV(max_selected_features=4, cv=2, random_state=0),
        TopKSelector(n_features_to_select=3),
    ):
        dense = clone(selector).fit(X, y)
        sparse = clone(selector).fit(sp.csr_matrix(X), y)
        np.testing.assert_array_equal(sparse.get_support(), dense.get_support())
        assert sp.issparse(sparse.transform(sp.csr_matrix(X)))


def test_a_column_with_its_largest_values_bunched_gets_the_same_cuts_dense_and_sparse():
    # A clipped measurement: half the values share the top value bucket of
    # the dense binning, where cuts must fall too (they once did not: the
    # dense model fitted R^2 0.64 against 0.997 on the same matrix as CSC).
    rng = np.random.default_rng(0)
    n = 4000
    x = np.minimum(rng.normal(0.9, 0.3, n), 1) + 1e-9 * rng.random(n)
    y = np.sin(20 * np.argsort(np.argsort(x)) / n) + 0.01 * rng.normal(size=n)
    X = np.column_stack([x, rng.random(n)])
    make = lambda: SparseBoostRegressor(  # noqa: E731
        n_estimators=20, penalty="none", max_leaves=63, min_samples_leaf=5, random_state=0
    )
    dense = make().fit(X, y)
    assert dense.score(X, y) > 0.95
    # (float32 would be another matrix: it rounds the jitter away.)
    for name in ("csr", "csc", "coo"):
        other = make().fit(formats(X)[name], y)
        assert other._model.to_json() == dense._model.to_json(), name
