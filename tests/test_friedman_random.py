"""make_friedman_random: Friedman's random function generator."""

import numpy as np
import pytest
from sparseboost import SparseBoostClassifier, SparseBoostRegressor
from sparseboost.datasets import make_friedman_random


def test_shapes_and_relevant_columns():
    X, y, relevant = make_friedman_random(
        300, n_features=12, n_relevant=3, random_state=0, return_relevant=True
    )
    assert X.shape == (300, 12) and y.shape == (300,)
    assert relevant.dtype.kind == "i" and len(relevant) == 3
    assert np.all(np.diff(relevant) > 0) and relevant.max() < 12
    assert y.dtype == np.float64 and np.all(np.isfinite(y))
    X2, y2 = make_friedman_random(300, n_features=12, n_relevant=3, random_state=0)
    np.testing.assert_array_equal(X, X2)
    np.testing.assert_array_equal(y, y2)


def test_determinism_and_seeds():
    a = make_friedman_random(200, random_state=7, return_relevant=True)
    b = make_friedman_random(200, random_state=7, return_relevant=True)
    for u, v in zip(a, b):
        np.testing.assert_array_equal(u, v)
    c = make_friedman_random(200, random_state=8, return_relevant=True)
    assert not np.array_equal(a[1], c[1])


def test_relevant_columns_are_randomly_placed():
    positions = {
        tuple(make_friedman_random(5, n_features=30, random_state=s, return_relevant=True)[2])
        for s in range(10)
    }
    assert len(positions) > 1
    assert positions != {(0, 1, 2, 3)}


def test_the_target_depends_only_on_the_relevant_columns():
    X, y, relevant = make_friedman_random(
        1500, n_features=10, n_relevant=4, random_state=3, return_relevant=True
    )
    # y is a function of the relevant columns alone: changing the others
    # leaves it unchanged, so a model on the relevant columns is far better
    others = np.setdiff1d(np.arange(10), relevant)
    train, test = slice(0, 1000), slice(1000, None)
    booster = SparseBoostRegressor(n_estimators=150, penalty="none", random_state=0)
    with_relevant = booster.fit(X[train][:, relevant], y[train])
    r2_with = with_relevant.score(X[test][:, relevant], y[test])
    without = SparseBoostRegressor(n_estimators=150, penalty="none", random_state=0)
    r2_without = without.fit(X[train][:, others], y[train]).score(X[test][:, others], y[test])
    assert r2_with > 0.6
    assert r2_without < 0.1


def test_classification_is_balanced_and_learnable():
    X, y, relevant = make_friedman_random(
        1200,
        n_features=8,
        n_relevant=3,
        task="classification",
        n_classes=3,
        random_state=4,
        return_relevant=True,
    )
    assert set(np.unique(y)) == {0, 1, 2}
    np.testing.assert_array_equal(np.bincount(y), [400, 400, 400])
    _, f = make_friedman_random(1200, n_features=8, n_relevant=3, random_state=4)
    # the classes are the regression target cut at its terciles
    assert np.all(np.diff([f[y == k].mean() for k in range(3)]) > 0)
    assert f[y == 0].max() <= f[y == 1].min() and f[y == 1].max() <= f[y == 2].min()
    others = np.setdiff1d(np.arange(8), relevant)
    clf = SparseBoostClassifier(n_estimators=60, penalty="none", random_state=0)
    acc_with = clf.fit(X[:800][:, relevant], y[:800]).score(X[800:][:, relevant], y[800:])
    acc_without = clf.fit(X[:800][:, others], y[:800]).score(X[800:][:, others], y[800:])
    assert acc_with > acc_without + 0.2


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({"n_samples": 0}, ValueError, "n_samples must be >= 1, got 0"),
        ({"n_samples": 2.5}, TypeError, "n_samples must be an int"),
        ({"n_relevant": 0}, ValueError, "n_relevant must be >= 1, got 0"),
        ({"n_features": 3}, ValueError, "n_features must be >= n_relevant = 4, got 3"),
        ({"n_classes": 1}, ValueError, "n_classes must be >= 2, got 1"),
        ({"task": "ranking"}, ValueError, "task must be 'regression' or 'classification'"),
        ({"random_state": "x"}, TypeError, "random_state"),
        ({"return_relevant": "yes"}, TypeError, "return_relevant must be True or False"),
        ({"n_samples": 2**20, "n_features": 2**12}, ValueError, "n_samples x n_features"),
    ],
)
def test_bad_arguments_are_named(kwargs, error, message):
    kwargs = {"n_samples": 10, **kwargs}
    with pytest.raises(error, match=message):
        make_friedman_random(**kwargs)
