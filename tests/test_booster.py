"""Behaviour of the fitted boosters: planted signals are found, steps are
fitted exactly, results do not depend on the thread count, and the training
loss goes down."""

import warnings

import numpy as np
import pytest
from sklearn.metrics import log_loss
from sparseboost import SparseBoostClassifier, SparseBoostRegressor


def rmse(a, b):
    return float(np.sqrt(np.mean((np.asarray(a) - np.asarray(b)) ** 2)))


def test_planted_features_carry_the_importance(synthetic_regression):
    X, y, X_test, y_test = synthetic_regression
    model = SparseBoostRegressor(n_estimators=100, random_state=0).fit(X, y)
    top3 = set(np.argsort(-model.feature_importances_)[:3])
    assert top3 == {0, 1, 2}
    # y's noise has sd 1, so a good model's test RMSE is close to 1.
    assert rmse(model.predict(X_test), y_test) < 1.1
    assert rmse(np.full_like(y_test, y.mean()), y_test) > 1.2


def test_step_function_is_fitted_exactly_with_one_tree():
    rng = np.random.default_rng(0)
    X = np.floor(rng.random((1000, 4)) * 10) / 10  # 10 distinct values per feature
    y = np.where(X[:, 2] > 0.45, 3.0, -1.0)
    model = SparseBoostRegressor(
        n_estimators=1, learning_rate=1.0, max_leaves=2, min_samples_leaf=1
    ).fit(X, y)
    np.testing.assert_allclose(model.predict(X), y, atol=1e-12)
    assert model.get_feature_importance("split").tolist() == [0, 0, 1, 0]


def test_same_random_state_same_model_whatever_the_thread_count(synthetic_classification):
    X, y, X_test, _ = synthetic_classification
    params = {"n_estimators": 30, "subsample": 0.7, "colsample_bytree": 0.6, "random_state": 7}
    one = SparseBoostClassifier(n_jobs=1, **params).fit(X, y)
    two = SparseBoostClassifier(n_jobs=2, **params).fit(X, y)
    assert one._model.to_json() == two._model.to_json()
    np.testing.assert_array_equal(one.predict_proba(X_test), two.predict_proba(X_test))
    other = SparseBoostClassifier(n_jobs=2, **{**params, "random_state": 8}).fit(X, y)
    assert other._model.to_json() != one._model.to_json()


def test_the_training_loss_is_computed_only_when_asked_and_changes_no_tree(
    synthetic_classification,
):
    X, y, _, _ = synthetic_classification
    seen = []
    params = dict(n_estimators=20, random_state=0, callbacks=[seen.append])
    plain = SparseBoostClassifier(**params).fit(X, y)
    assert not hasattr(plain, "train_loss_")
    with pytest.raises(AttributeError, match="record_train_loss=True"):
        plain.train_loss_
    assert "train_loss" not in plain.selection_path_
    assert all(np.isnan(report.train_loss) for report in seen)
    recorded = SparseBoostClassifier(**params, record_train_loss=True).fit(X, y)
    # The same trees: the loss is read, never used.
    np.testing.assert_array_equal(plain.predict_proba(X), recorded.predict_proba(X))
    assert recorded.selection_path_["train_loss"].size == recorded.n_trees_ == 20
    # The last tree's loss is the log loss of the fitted probabilities.
    expected = log_loss(y, recorded.predict_proba(X))
    assert recorded.train_loss_[-1] == pytest.approx(expected, rel=1e-9)
    assert seen[-1].train_loss == recorded.train_loss_[-1]
    # verbose prints the loss, so it records it.
    loud = SparseBoostClassifier(n_estimators=3, random_state=0, verbose=1).fit(X, y)
    assert loud.train_loss_.size == 3


def test_a_fit_of_no_tree_has_a_training_loss_only_when_asked(synthetic_classification):
    X, y, _, _ = synthetic_classification
    # mu at mu_max: no feature pays, so no tree (and a warning).
    params = dict(n_estimators=5, penalty="gbfs", mu="1*mu_max", random_state=0)
    with pytest.warns(UserWarning, match="no feature can pay"):
        plain = SparseBoostClassifier(**params).fit(X, y)
        recorded = SparseBoostClassifier(**params, record_train_loss=True).fit(X, y)
    assert plain.n_trees_ == recorded.n_trees_ == 0
    with pytest.raises(AttributeError, match="record_train_loss=True"):
        plain.train_loss_
    assert "train_loss" not in plain.selection_path_
    assert recorded.train_loss_.size == 0 and "train_loss" in recorded.selection_path_


def test_training_loss_decreases_and_classifier_is_calibrated(synthetic_classification):
    X, y, X_test, y_test = synthetic_classification
    model = SparseBoostClassifier(n_estimators=50, random_state=0, record_train_loss=True)
    loss = model.fit(X, y).train_loss_
    assert len(loss) == model.n_trees_ == 50
    assert np.all(np.diff(loss) < 0)
    proba = model.predict_proba(X_test)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    # The noise makes about a quarter of the labels unpredictable.
    assert model.score(X_test, y_test) > 0.7
    # predict agrees with the probabilities
    np.testing.assert_array_equal(
        model.predict(X_test), model.classes_[(proba[:, 1] > 0.5).astype(int)]
    )


def test_string_labels_and_sample_weights():
    rng = np.random.default_rng(1)
    X = rng.random((600, 3))
    y = np.where(X[:, 0] > 0.5, "spam", "ham")
    model = SparseBoostClassifier(n_estimators=20, random_state=0).fit(X, y)
    assert list(model.classes_) == ["ham", "spam"]
    assert (model.predict(X) == y).mean() > 0.95
    # Zero weight on the rows with x0 > 0.5 leaves only "ham" rows to learn from.
    w = np.where(X[:, 0] > 0.5, 0.0, 1.0)
    reg = SparseBoostRegressor(n_estimators=20, random_state=0)
    y_num = np.where(X[:, 0] > 0.5, 100.0, 0.0)
    np.testing.assert_allclose(reg.fit(X, y_num, sample_weight=w).predict(X), 0.0, atol=1e-9)


def test_tiny_weights_need_min_child_weight_scaled_alike_and_say_so():
    # min_child_weight is in the weights' units (LightGBM's
    # min_sum_hessian_in_leaf): weights of 2^-30 leave every child below
    # its default, and scaling it by 2^-30 too gives the weight-1 model.
    rng = np.random.default_rng(1)
    X = rng.normal(size=(500, 4))
    y = 2 * X[:, 0] + X[:, 1]
    w = np.full(500, 2.0**-30)
    plain = SparseBoostRegressor(n_estimators=10, random_state=0).fit(X, y)
    with pytest.warns(UserWarning, match="no split is possible.*min_child_weight=0.001"):
        empty = SparseBoostRegressor(n_estimators=10, random_state=0).fit(X, y, sample_weight=w)
    assert empty.n_trees_ == 0
    scaled = SparseBoostRegressor(n_estimators=10, random_state=0, min_child_weight=1e-3 * 2.0**-30)
    np.testing.assert_array_equal(scaled.fit(X, y, sample_weight=w).predict(X), plain.predict(X))
    with pytest.warns(UserWarning, match="no split is possible"):
        SparseBoostRegressor(n_estimators=10, penalty="none").fit(X, y, sample_weight=w)
    # A constant target needs no split: its constant is the model.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert SparseBoostRegressor(n_estimators=10).fit(X, np.ones(500)).n_trees_ == 0


def test_missing_values_follow_the_learned_direction():
    rng = np.random.default_rng(2)
    X = rng.random((2000, 2))
    missing = rng.random(2000) < 0.3
    X[missing, 0] = np.nan
    y = np.where(missing, 10.0, X[:, 1])
    model = SparseBoostRegressor(n_estimators=50, random_state=0).fit(X, y)
    X_new = np.array([[np.nan, 0.5], [0.3, 0.5]])
    pred = model.predict(X_new)
    assert pred[0] == pytest.approx(10.0, abs=0.5)
    assert pred[1] == pytest.approx(0.5, abs=0.5)


def test_max_depth_and_max_leaves_bound_the_trees(synthetic_regression):
    X, y, _, _ = synthetic_regression
    import json

    model = SparseBoostRegressor(n_estimators=5, max_leaves=8, max_depth=2).fit(X, y)
    trees = json.loads(model._model.to_json())["trees"]
    for tree in trees:
        leaves = [n for n in tree["nodes"] if n["is_leaf"]]
        assert len(leaves) <= 4  # depth 2 allows at most 4 leaves
    model = SparseBoostRegressor(n_estimators=5, max_leaves=5).fit(X, y)
    trees = json.loads(model._model.to_json())["trees"]
    assert max(sum(n["is_leaf"] for n in t["nodes"]) for t in trees) == 5


def test_constant_columns_change_nothing(synthetic_regression):
    # Constant features can never split; the engine skips their histograms.
    X, y, X_test, _ = synthetic_regression
    padded = np.hstack([X, np.zeros((len(X), 30)), np.full((len(X), 5), 7.0)])
    plain = SparseBoostRegressor(n_estimators=20, random_state=0).fit(X, y)
    wide = SparseBoostRegressor(n_estimators=20, random_state=0).fit(padded, y)
    test = np.hstack([X_test, np.zeros((len(X_test), 35))])
    assert np.array_equal(plain.predict(X_test), wide.predict(test))
    assert np.array_equal(plain.selected_features_, wide.selected_features_)
    # ...and skipping them keeps the real ones: the planted features lead.
    assert set(wide.selected_features_[:3]) == {0, 1, 2}


def test_an_object_array_with_pandas_missing_values_is_read_as_nan():
    # What DataFrame.to_numpy() gives for a nullable Int64 column.
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(
        {"a": pd.array([1, None, 3] * 100, dtype="Int64"), "b": np.arange(300.0) % 7}
    )
    y = np.arange(300.0) % 5 + frame["b"].to_numpy()
    as_nan = frame.astype("float64").to_numpy()
    expected = (
        SparseBoostRegressor(n_estimators=5, penalty="none", random_state=0)
        .fit(as_nan, y)
        .predict(as_nan)
    )
    objects = frame.to_numpy()
    assert objects.dtype == object and objects[1, 0] is pd.NA
    model = SparseBoostRegressor(n_estimators=5, penalty="none", random_state=0).fit(objects, y)
    np.testing.assert_array_equal(model.predict(objects), expected)


@pytest.mark.parametrize("kind", ["regression", "classification"])
def test_pure_nodes_are_not_split_on_rounding_noise(kind):
    # After the split on x0 both children are pure: every further split
    # gains exactly 0, which rounding made ~1e-14 > min_gain=0, and noise
    # features entered the model (LightGBM and scikit-learn split on x0 only).
    rng = np.random.default_rng(0)
    X = rng.normal(size=(1000, 6))
    if kind == "regression":
        model = SparseBoostRegressor(n_estimators=5, penalty="none", random_state=0)
        model.fit(X, np.where(X[:, 0] > 0, 0.7, 0.1))
    else:
        model = SparseBoostClassifier(n_estimators=5, penalty="none", random_state=0)
        model.fit(X, (X[:, 0] > 0).astype(int))
    assert list(model.selected_features_) == [0]
    assert model.get_feature_importance("split").sum() == 5
