"""Random forests: one tree equals the engine's single tree and
scikit-learn's, out-of-bag scores, dynamic node weights, the selector."""

import pickle
import warnings

import numpy as np
import pytest
from sklearn.datasets import make_classification, make_friedman1
from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor
from sklearn.utils.estimator_checks import parametrize_with_checks
from sparseboost import SparseBoostRegressor, SparseForestClassifier, SparseForestRegressor


def integer_grid(n=400, d=6, seed=0):
    """Features on a grid of 20 values (binning is exact) and a continuous
    target (no ties between splits)."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 20, (n, d)).astype(float)
    y = np.sin(X[:, 0] / 3) + 0.1 * X[:, 1] * (X[:, 2] > 9) + 0.3 * rng.standard_normal(n)
    return X, y


def test_one_tree_without_bootstrap_is_the_engines_single_tree():
    X, y = integer_grid()
    forest = SparseForestRegressor(
        n_estimators=1, bootstrap=False, max_features=None, min_samples_leaf=5, random_state=0
    ).fit(X, y)
    tree = SparseBoostRegressor(
        n_estimators=1,
        learning_rate=1.0,
        penalty="none",
        max_leaves=10**6,
        min_samples_leaf=5,
        min_child_weight=0.0,
        random_state=0,
    ).fit(X, y)
    X_new, _ = integer_grid(seed=1)
    np.testing.assert_allclose(forest.predict(X_new), tree.predict(X_new), rtol=1e-9, atol=1e-12)
    assert forest._model.n_trees == 1


@pytest.mark.parametrize("min_samples_leaf", [1, 5])
def test_one_tree_without_bootstrap_is_scikit_learns_tree(min_samples_leaf):
    X, y = integer_grid()
    ours = SparseForestRegressor(
        n_estimators=1, bootstrap=False, max_features=None, min_samples_leaf=min_samples_leaf
    ).fit(X, y)
    theirs = DecisionTreeRegressor(min_samples_leaf=min_samples_leaf, random_state=0).fit(X, y)
    # Same partition of the grid: same predictions at every grid point seen.
    np.testing.assert_allclose(ours.predict(X), theirs.predict(X), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_binary_class_trees_split_as_gini_does(seed):
    # Squared error on the 0/1 label removes twice the Gini decrease, so the
    # splits are scikit-learn's. Shallow trees: deeper down, 0/1 labels make
    # equal-gain ties, which the two break differently.
    X, y = integer_grid(seed=seed)
    labels = (y > np.median(y)).astype(int)
    ours = SparseForestClassifier(n_estimators=1, bootstrap=False, max_features=None, max_depth=2)
    ours.fit(X, labels)
    theirs = DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, labels)
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), atol=1e-12)


def test_accuracy_and_oob_are_close_to_scikit_learns():
    X, y = make_friedman1(2000, n_features=20, noise=1.0, random_state=0)
    X_test, y_test = X[1500:], y[1500:]
    X, y = X[:1500], y[:1500]
    ours = SparseForestRegressor(n_estimators=60, max_features=0.33, oob_score=True)
    ours.set_params(random_state=0).fit(X, y)
    theirs = RandomForestRegressor(60, max_features=0.33, oob_score=True, random_state=0)
    theirs.fit(X, y)
    assert abs(ours.score(X_test, y_test) - theirs.score(X_test, y_test)) < 0.03
    assert abs(ours.oob_score_ - theirs.oob_score_) < 0.03
    assert ours.oob_prediction_.shape == (1500,)
    # The out-of-bag score is an honest estimate: near the test score.
    assert abs(ours.oob_score_ - ours.score(X_test, y_test)) < 0.05


def test_multiclass_probabilities_oob_and_scikit_learn():
    X, y = make_classification(1500, 20, n_informative=5, n_classes=3, random_state=0)
    labels = np.array(["a", "b", "c"])[y]
    X_test, y_test, X, labels = X[1000:], labels[1000:], X[:1000], labels[:1000]
    ours = SparseForestClassifier(n_estimators=60, oob_score=True, random_state=0)
    ours.fit(X, labels)
    proba = ours.predict_proba(X_test)
    assert proba.shape == (500, 3)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert list(ours.classes_) == ["a", "b", "c"]
    theirs = RandomForestClassifier(60, oob_score=True, random_state=0).fit(X, labels)
    assert ours.score(X_test, y_test) > theirs.score(X_test, y_test) - 0.04
    assert abs(ours.oob_score_ - theirs.oob_score_) < 0.05
    assert ours.oob_decision_function_.shape == (1000, 3)


def noisy_friedman(n=1500, noise_features=60, seed=0):
    X, y = make_friedman1(n, n_features=5, noise=0.5, random_state=seed)
    rng = np.random.default_rng(seed)
    return np.hstack([X, rng.random((n, noise_features))]), y


def test_dynamic_weights_find_the_signal_and_follow_the_importances():
    X, y = noisy_friedman()
    kw = dict(n_estimators=60, max_features=3, random_state=0)
    uniform = SparseForestRegressor(**kw).fit(X[:1000], y[:1000])
    dynamic = SparseForestRegressor(feature_sampling="dynamic", **kw).fit(X[:1000], y[:1000])
    assert np.allclose(uniform.feature_weights_, 1 / X.shape[1])
    weights = dynamic.feature_weights_
    assert weights.sum() == pytest.approx(1.0)
    # The relevant features (0-4) gain weight over the 60 noise features,
    # and the forest, which draws 3 features a node, stops splitting on noise
    # so often.
    assert weights[:5].sum() > 1.5 * 5 / X.shape[1]
    assert dynamic.score(X[1000:], y[1000:]) > uniform.score(X[1000:], y[1000:]) + 0.1


def test_the_forest_is_a_selector():
    X, y = noisy_friedman(noise_features=20)
    forest = SparseForestRegressor(n_estimators=40, random_state=0).fit(X, y)
    assert set(forest.selected_features_[:4]) == {0, 1, 3, 4} or set(
        forest.selected_features_[:3]
    ) <= {0, 1, 2, 3, 4}
    assert forest.transform(X).shape == (len(X), len(forest.selected_features_))
    strict = forest.set_params(threshold="2*mean")
    assert len(strict.selected_features_) < len(
        SparseForestRegressor(n_estimators=40, random_state=0).fit(X, y).selected_features_
    )


@pytest.mark.parametrize("sampling", ["uniform", "dynamic"])
def test_same_forest_with_one_and_two_threads_and_after_pickling(sampling):
    X, y = noisy_friedman(n=400, noise_features=10)
    kw = dict(n_estimators=12, max_features="sqrt", feature_sampling=sampling, random_state=3)
    one = SparseForestRegressor(n_jobs=1, **kw).fit(X, y)
    two = SparseForestRegressor(n_jobs=2, **kw).fit(X, y)
    assert one._model.to_json() == two._model.to_json()
    again = pickle.loads(pickle.dumps(two))
    np.testing.assert_array_equal(again.predict(X), two.predict(X))


@pytest.mark.parametrize(
    "params, message",
    [
        ({"max_features": "cube"}, "max_features"),
        ({"max_features": 0}, "max_features"),
        ({"max_features": 1.5}, "max_features"),
        ({"n_estimators": 0}, "n_estimators"),
        ({"min_samples_leaf": 0}, "min_samples_leaf"),
        ({"max_leaf_nodes": 1}, "max_leaf_nodes"),
        ({"feature_sampling": "weighted"}, "feature_sampling"),
        ({"reweight_rate": -1.0}, "reweight_rate"),
        ({"threshold": "mode"}, "threshold"),
        ({"oob_score": True, "bootstrap": False}, "bootstrap"),
    ],
)
def test_bad_parameters_are_named(params, message):
    X, y = integer_grid(n=60)
    with pytest.raises((ValueError, TypeError), match=message):
        SparseForestRegressor(**{"n_estimators": 3, **params}).fit(X, y)


@parametrize_with_checks(
    [
        SparseForestRegressor(n_estimators=5),
        SparseForestClassifier(n_estimators=5),
    ],
    expected_failed_checks=lambda est: {
        f"check_sample_weight_equivalence_on_{kind}_data": (
            "bootstrap counts are drawn per row: a row repeated twice is drawn twice"
        )
        for kind in ("dense", "sparse")
    },
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_targets_near_the_float_limit_give_a_model_that_round_trips():
    # Found by the long hypothesis profile: the training loss of targets near
    # f64::MAX overflowed to inf in the user's units, and the model file
    # (which holds finite numbers only) could not be read back.
    X = np.zeros((20, 1))
    y = np.zeros(20)
    y[-1] = np.finfo(float).max
    forest = SparseForestRegressor(n_estimators=4, bootstrap=False, random_state=0).fit(X, y)
    assert np.isfinite(forest._model.train_loss).all()
    again = pickle.loads(pickle.dumps(forest))
    np.testing.assert_array_equal(again.predict(X), forest.predict(X))


def test_rows_without_an_out_of_bag_prediction_are_a_warning_and_max_features_is_bounded():
    # scikit-learn's forests warn on the first and refuse the second.
    rng = np.random.default_rng(0)
    X = rng.random((60, 4))
    y = X[:, 0]
    with pytest.warns(UserWarning, match="no out-of-bag prediction"):
        SparseForestRegressor(n_estimators=2, oob_score=True, random_state=0).fit(X, y)
    with pytest.warns(UserWarning, match="no out-of-bag prediction"):
        SparseForestClassifier(n_estimators=2, oob_score=True, random_state=0).fit(X, y > 0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        SparseForestRegressor(n_estimators=60, oob_score=True, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="max_features must be at most the number of features, 4"):
        SparseForestRegressor(max_features=5).fit(X, y)
    assert SparseForestRegressor(max_features=4, n_estimators=2).fit(X, y).n_features_in_ == 4
