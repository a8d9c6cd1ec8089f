"""Dynamic feature reweighting in the boosters (Borisov, Eruhimov and Tuv)."""

import json
import pickle

import numpy as np
import pytest
from sparseboost import SparseBoostClassifier, SparseBoostRegressor, load_model
from sparseboost.datasets import make_synthetic


@pytest.fixture(scope="module")
def regression():
    X, y = make_synthetic(1500, 50, noise=1.0, random_state=0)
    return X[:1000], y[:1000], X[1000:], y[1000:]


@pytest.mark.parametrize("penalty", ["none", "agbm"])
@pytest.mark.parametrize("split_search", ["exhaustive", "group_testing"])
def test_with_all_features_and_rate_zero_dynamic_equals_uniform(regression, penalty, split_search):
    X, y, _, _ = regression
    kw = dict(n_estimators=25, penalty=penalty, split_search=split_search, random_state=0)
    uniform = SparseBoostRegressor(**kw).fit(X, y)
    dynamic = SparseBoostRegressor(feature_sampling="dynamic", reweight_rate=0.0, **kw).fit(X, y)
    trees = lambda m: json.loads(m._model.to_json())["trees"]  # noqa: E731
    assert trees(dynamic) == trees(uniform)
    # Only the reported weights differ: the dynamic ones moved.
    assert np.allclose(uniform.feature_weights_, 1 / 50)
    assert not np.allclose(dynamic.feature_weights_, 1 / 50)


def test_three_features_a_tree_find_the_signal(regression):
    X, y, X_test, y_test = regression
    kw = dict(n_estimators=300, penalty="none", colsample_bytree=3, random_state=0)
    uniform = SparseBoostRegressor(**kw).fit(X, y)
    dynamic = SparseBoostRegressor(feature_sampling="dynamic", **kw).fit(X, y)
    # make_synthetic puts its strongest signal in features 0 and 1.
    assert {0, 1} <= set(np.argsort(-dynamic.feature_weights_)[:3])
    assert dynamic.score(X_test, y_test) > uniform.score(X_test, y_test) + 0.03


def test_multiclass_weights_sum_over_the_class_trees():
    rng = np.random.default_rng(0)
    X = rng.random((900, 30))
    y = (X[:, 4] > 0.5).astype(int) + 2 * (X[:, 9] > 0.5)
    model = SparseBoostClassifier(
        n_estimators=40,
        penalty="none",
        colsample_bytree=2,
        feature_sampling="dynamic",
        random_state=0,
    ).fit(X, y)
    assert set(np.argsort(-model.feature_weights_)[:2]) == {4, 9}
    assert model.score(X, y) > 0.95


def test_weights_survive_save_load_and_pickle(tmp_path, regression):
    X, y, _, _ = regression
    model = SparseBoostRegressor(
        n_estimators=20, colsample_bytree=0.2, feature_sampling="dynamic", random_state=1
    ).fit(X, y)
    path = tmp_path / "m.json"
    model.save_model(path)
    for again in (load_model(path), pickle.loads(pickle.dumps(model))):
        np.testing.assert_array_equal(again.feature_weights_, model.feature_weights_)
        np.testing.assert_array_equal(again.predict(X), model.predict(X))


def test_same_model_with_one_and_two_threads(regression):
    X, y, _, _ = regression
    kw = dict(n_estimators=30, colsample_bytree=4, feature_sampling="dynamic", random_state=2)
    one = SparseBoostRegressor(n_jobs=1, **kw).fit(X, y)
    two = SparseBoostRegressor(n_jobs=2, **kw).fit(X, y)
    assert one._model.to_json() == two._model.to_json()


@pytest.mark.parametrize(
    "params, message",
    [
        ({"feature_sampling": "weighted"}, "feature_sampling"),
        ({"reweight_rate": -0.5}, "reweight_rate"),
        ({"reweight_rate": float("nan")}, "reweight_rate"),
        ({"colsample_bytree": 0}, "colsample_bytree"),
        ({"colsample_bytree": 1.5}, "colsample_bytree"),
        ({"colsample_bytree": "3"}, "colsample_bytree"),
    ],
)
def test_bad_parameters_are_named(regression, params, message):
    X, y, _, _ = regression
    with pytest.raises((ValueError, TypeError), match=message):
        SparseBoostRegressor(n_estimators=2, **params).fit(X, y)
