"""Every bad input gets a ValueError or TypeError that names the problem,
never a crash or a silent wrong answer."""

import numpy as np
import pytest
from sparseboost import SparseBoostClassifier, SparseBoostRegressor, _core

X = np.random.default_rng(0).random((50, 4))
y = X[:, 0] + X[:, 1]
labels = (y > np.median(y)).astype(int)


@pytest.mark.parametrize(
    "X_bad, y_bad, match",
    [
        (X[:, 0], y, "2D array"),  # 1-D X
        (X[None], y, "dim"),  # 3-D X
        (X[:40], y, "y has 50 values but X has 40 rows"),
        (np.empty((0, 4)), np.empty(0), "0 sample"),
        (np.empty((50, 0)), y, "0 feature"),
        (np.where(X > 0.9, np.inf, X), y, "infinity"),
        (X, np.where(y > 1.5, np.nan, y), "NaN"),
        (X, np.where(y > 1.5, np.inf, y), "infinity"),
        (np.full((50, 4), "a"), y, "X must hold numbers"),
    ],
)
def test_bad_training_data_is_rejected(X_bad, y_bad, match):
    with pytest.raises(ValueError, match=match):
        SparseBoostRegressor(n_estimators=2).fit(X_bad, y_bad)


@pytest.mark.parametrize(
    "params, match",
    [
        ({"n_estimators": 0}, "n_estimators"),
        ({"n_estimators": -3}, "n_estimators"),
        ({"learning_rate": 0.0}, "learning_rate"),
        ({"learning_rate": float("nan")}, "learning_rate"),
        ({"max_leaves": 1}, "max_leaves"),
        ({"max_depth": 0}, "max_depth"),
        ({"min_samples_leaf": 0}, "min_samples_leaf"),
        ({"min_split_fraction": 1.0}, "min_split_fraction"),
        ({"l2_regularization": -1.0}, "l2_regularization"),
        ({"min_gain": -0.1}, "min_gain"),
        ({"max_bins": 256}, "max_bins"),
        ({"max_bins": 1}, "max_bins"),
        ({"subsample": 1.5}, "subsample"),
        ({"colsample_bytree": 0.0}, "colsample_bytree"),
        ({"n_jobs": 0}, "n_jobs"),
        ({"random_state": -1}, "random_state"),
    ],
)
def test_out_of_range_parameters_are_named(params, match):
    with pytest.raises(ValueError, match=match):
        SparseBoostRegressor(**params).fit(X, y)


def test_wrongly_typed_parameter_is_a_type_error():
    with pytest.raises(TypeError, match="max_leaves"):
        SparseBoostRegressor(max_leaves="many").fit(X, y)


def test_bad_sample_weights_are_rejected():
    with pytest.raises(ValueError, match="(?i)sample.weight"):
        SparseBoostRegressor().fit(X, y, sample_weight=-np.ones(50))
    with pytest.raises(ValueError, match="(?i)sample.weight"):
        SparseBoostRegressor().fit(X, y, sample_weight=np.zeros(50))
    with pytest.raises(ValueError):
        SparseBoostRegressor().fit(X, y, sample_weight=np.ones(49))


def test_classifier_rejects_continuous_and_single_class_targets():
    with pytest.raises(ValueError, match="Unknown label type"):
        SparseBoostClassifier().fit(X, y)
    with pytest.raises(ValueError, match="one class"):
        SparseBoostClassifier().fit(X, np.zeros(50))


def test_prediction_input_is_checked():
    model = SparseBoostRegressor(n_estimators=3).fit(X, y)
    with pytest.raises(ValueError, match="features"):
        model.predict(X[:, :3])
    with pytest.raises(ValueError, match="infinity"):
        model.predict(np.where(X > 0.5, np.inf, X))
    with pytest.raises(Exception, match="not fitted"):
        SparseBoostRegressor().predict(X)


def test_constant_features_are_harmless():
    X_const = np.column_stack([np.ones(50), X[:, 0], np.zeros(50)])
    model = SparseBoostRegressor(n_estimators=5, min_samples_leaf=2).fit(X_const, y)
    importances = model.feature_importances_
    assert importances[0] == 0 and importances[2] == 0 and importances[1] == 1
    all_const = SparseBoostRegressor(n_estimators=5).fit(np.ones((50, 3)), y)
    np.testing.assert_allclose(all_const.predict(X[:, :3]), y.mean())


def test_engine_rejects_non_contiguous_or_unknown_parameters():
    with pytest.raises(ValueError, match="C-contiguous"):
        _core.fit(np.asfortranarray(X), y, None, {})
    with pytest.raises(ValueError, match="unknown parameter"):
        _core.fit(X, y, None, {"num_leaves": 3})


def test_a_rust_panic_is_a_python_exception_not_a_crash():
    with pytest.raises(RuntimeError, match="internal error"):
        _core._panic_for_tests()


def test_eval_set_errors_name_the_entry_once():
    from sparseboost import MultiTaskSparseBoostRegressor, SparseBoostClassifier

    rng = np.random.default_rng(0)
    X = rng.random((60, 3))
    y = (X[:, 0] > 0.5).astype(int)
    classifier = SparseBoostClassifier(n_estimators=2)
    with pytest.raises(TypeError, match=r"^eval_set\[0\] must be an \(X, y\) tuple, got 3 items$"):
        classifier.fit(X, y, eval_set=[(X, y, y)])
    with pytest.raises(ValueError, match=r"^eval_set\[0\]: y holds labels not seen in fit"):
        classifier.fit(X, y, eval_set=[(X, y + 1)])
    multitask = MultiTaskSparseBoostRegressor(n_estimators=2)
    with pytest.raises(TypeError, match=r"eval_set\[1\] must be an \(X, y, task\) tuple, got 2"):
        multitask.fit(X, X[:, 0], y, eval_set=[(X, X[:, 0], y), (X, X[:, 0])])


@pytest.mark.parametrize(
    "params, message",
    [
        # ">= 0" sent users to 0, which the count's own check then refused.
        ({"n_estimators": -1}, "n_estimators must not be negative, got -1"),
        ({"max_selected_features": -2}, "max_selected_features must not be negative"),
        # LightGBM's "no limit" is None here.
        ({"max_depth": -1}, "max_depth must not be negative, got -1; None means no limit"),
    ],
)
def test_a_negative_count_is_not_told_to_be_zero_or_more(params, message):
    with pytest.raises(ValueError, match=message) as caught:
        SparseBoostRegressor(**params).fit(X, y)
    assert ">= 0" not in str(caught.value)


def test_a_feature_count_of_zero_is_named_without_rust_text():
    from sparseboost import SparseForestRegressor

    for value, shown in ((0, "got 0"), (1.5, "got 1.5")):
        with pytest.raises(ValueError, match=f"max_features must be a fraction .* {shown}$"):
            SparseForestRegressor(n_estimators=2, max_features=value).fit(X, y)
