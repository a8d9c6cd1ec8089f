"""Evaluation sets, early stopping and round callbacks."""

import pickle
import warnings

import numpy as np
import pytest
from sklearn.metrics import log_loss, mean_squared_error, roc_auc_score
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sparseboost import (
    MultiTaskSparseBoostRegressor,
    RoundReport,
    SparseBoostClassifier,
    SparseBoostRegressor,
    load_model,
)
from sparseboost.datasets import make_synthetic


@pytest.fixture(scope="module")
def regression():
    X, y = make_synthetic(2000, 30, noise=1.0, random_state=0)
    X_val, y_val = make_synthetic(800, 30, noise=1.0, random_state=1)
    return X, y, X_val, y_val


def test_eval_metrics_are_those_of_the_predictions(regression):
    X, y, X_val, y_val = regression
    model = SparseBoostRegressor(
        n_estimators=30, eval_metric=["l2", "rmse"], random_state=0, record_train_loss=True
    )
    model.fit(X, y, eval_set=[(X, y), (X_val, y_val)])
    history = model.evals_result_
    assert list(history) == ["validation_0", "validation_1"]
    mse = mean_squared_error(y_val, model.predict(X_val))
    assert history["validation_1"]["l2"][-1] == pytest.approx(mse, rel=1e-12)
    assert history["validation_1"]["rmse"][-1] == pytest.approx(np.sqrt(mse), rel=1e-12)
    # The training set as an eval set: the binned scores are the training scores.
    assert history["validation_0"]["l2"][-1] == pytest.approx(model.train_loss_[-1], rel=1e-9)
    assert len(history["validation_1"]["l2"]) == model.n_trees_


def test_classification_metrics(regression):
    X, y, X_val, y_val = regression
    labels, labels_val = y > np.median(y), y_val > np.median(y)
    model = SparseBoostClassifier(
        n_estimators=20, eval_metric=["auc", "error", "logloss"], random_state=0
    ).fit(X, labels, eval_set=[(X_val, labels_val)])
    history = model.evals_result_["validation_0"]
    proba = model.predict_proba(X_val)[:, 1]
    assert history["auc"][-1] == pytest.approx(roc_auc_score(labels_val, proba), abs=1e-12)
    assert history["logloss"][-1] == pytest.approx(log_loss(labels_val, proba), rel=1e-9)
    error = np.mean(model.predict(X_val) != labels_val)
    assert history["error"][-1] == pytest.approx(error, abs=1e-12)


def test_early_stopping_keeps_the_best_round_consistently(tmp_path, regression):
    X, y, X_val, y_val = regression
    params = dict(learning_rate=0.5, max_leaves=63, min_samples_leaf=2, random_state=0)
    model = SparseBoostRegressor(n_estimators=400, early_stopping_rounds=10, **params)
    model.fit(X, y, eval_set=[(X_val, y_val)])
    best = model.best_iteration_
    rmse = model.evals_result_["validation_0"]["rmse"]
    assert len(rmse) == best + 11 < 400
    assert model.best_score_ == rmse.min() == rmse[best]
    assert model.n_trees_ == best + 1
    # The same trees as a fit of best + 1 rounds: predictions, selection,
    # transform and the file all agree.
    short = SparseBoostRegressor(n_estimators=best + 1, **params).fit(X, y)
    assert np.array_equal(model.predict(X_val), short.predict(X_val))
    assert np.array_equal(model.selected_features_, short.selected_features_)
    assert np.array_equal(model.feature_entry_tree_, short.feature_entry_tree_)
    assert np.array_equal(model.transform(X_val), short.transform(X_val))
    assert np.array_equal(model.selection_path_["n_features"], short.selection_path_["n_features"])
    path = tmp_path / "model.json"
    model.save_model(path)
    loaded = load_model(path)
    assert np.array_equal(loaded.predict(X_val), model.predict(X_val))
    assert loaded.best_iteration_ == best


def test_early_stopping_without_eval_set_holds_out_a_fraction(regression):
    X, y, _, _ = regression
    model = SparseBoostRegressor(
        n_estimators=500, learning_rate=0.5, early_stopping_rounds=5, random_state=0
    ).fit(X, y)
    assert model.best_iteration_ is not None and model.n_trees_ < 500
    # Inside a pipeline and a grid search (no way to pass an eval_set there).
    search = GridSearchCV(
        make_pipeline(
            StandardScaler(),
            SparseBoostRegressor(
                n_estimators=200, early_stopping_rounds=5, validation_fraction=0.2, random_state=0
            ),
        ),
        {"sparseboostregressor__learning_rate": [0.3, 0.6]},
        cv=2,
    ).fit(X, y)
    assert search.best_score_ > 0.3
    assert search.best_estimator_[-1].best_iteration_ < 199


def test_stratified_holdout_for_classifiers():
    rng = np.random.default_rng(0)
    X = rng.random((400, 5))
    y = np.where(rng.random(400) < 0.05, "rare", "common")
    model = SparseBoostClassifier(
        n_estimators=50, early_stopping_rounds=3, validation_fraction=0.25, random_state=0
    ).fit(X, y)
    assert model.best_iteration_ is not None


def test_callbacks_see_every_round_and_can_stop(regression, capsys):
    X, y, X_val, y_val = regression
    seen = []

    def record(report):
        assert isinstance(report, RoundReport)
        seen.append(report)
        return report.round == 4

    model = SparseBoostRegressor(
        n_estimators=50, callbacks=[record], verbose=2, random_state=0
    ).fit(X, y, eval_set=[(X_val, y_val)])
    assert [r.round for r in seen] == [0, 1, 2, 3, 4]
    assert model.n_trees_ == 5
    assert seen[-1].eval["validation_0"]["rmse"] == model.evals_result_["validation_0"]["rmse"][-1]
    assert seen[-1].train_loss == pytest.approx(model.train_loss_[-1], rel=1e-12)
    assert seen[-1].n_features == len(model.selected_features_)
    assert all(a.elapsed <= b.elapsed for a, b in zip(seen, seen[1:]))
    printed = capsys.readouterr().out.splitlines()
    assert [line.split("]")[0] for line in printed] == ["[0", "[2", "[4"]
    assert "validation_0-rmse=" in printed[0]


def test_a_failing_callback_raises_its_error(regression):
    X, y, _, _ = regression

    def broken(report):
        raise RuntimeError("callback broke")

    with pytest.raises(RuntimeError, match="callback broke"):
        SparseBoostRegressor(n_estimators=10, callbacks=[broken]).fit(X, y)


def test_estimators_with_callbacks_pickle_and_save_without_them(tmp_path, regression):
    X, y, _, _ = regression
    model = SparseBoostRegressor(n_estimators=3, callbacks=[print]).fit(X, y)
    model.save_model(tmp_path / "m.json")
    assert load_model(tmp_path / "m.json").callbacks is None
    assert pickle.loads(pickle.dumps(model)).n_trees_ == 3


def test_multitask_early_stopping_uses_every_task(regression):
    X, y, X_val, y_val = regression
    task = np.arange(len(y)) % 3
    task_val = np.arange(len(y_val)) % 3
    model = MultiTaskSparseBoostRegressor(
        n_estimators=300, learning_rate=0.5, early_stopping_rounds=5, random_state=0
    ).fit(X, y, task, eval_set=[(X_val, y_val, task_val)])
    best = model.best_iteration_
    assert best is not None and max(model.n_trees_) == best + 1
    predicted = model.predict(X_val, task_val)
    # The size-weighted mean of the tasks' RMSEs.
    per_task = [
        np.sqrt(mean_squared_error(y_val[task_val == t], predicted[task_val == t]))
        for t in range(3)
    ]
    weights = np.bincount(task_val)
    assert model.best_score_ == pytest.approx(np.average(per_task, weights=weights), rel=1e-12)
    assert set(model.selected_features_) == set(
        np.concatenate(list(model.task_selected_features_.values()))
    )


@pytest.mark.parametrize(
    "params, message",
    [
        (dict(early_stopping_rounds=0), "early_stopping_rounds"),
        (dict(eval_metric="ndcg@3"), "eval_metric 'ndcg@3'"),
        (dict(eval_metric="f1"), "eval_metric must be one of"),
        (dict(validation_fraction=1.0), "validation_fraction"),
        (dict(verbose=-1), "verbose"),
        (dict(callbacks=print), "callbacks"),
    ],
)
def test_bad_parameters_are_named(regression, params, message):
    X, y, _, _ = regression
    with pytest.raises((ValueError, TypeError), match=message):
        SparseBoostRegressor(n_estimators=2, **params).fit(X, y)


def test_bad_eval_sets_are_named(regression):
    X, y, X_val, y_val = regression
    with pytest.raises(ValueError, match=r"eval_set\[0\].*features"):
        SparseBoostRegressor(n_estimators=2).fit(X, y, eval_set=[(X_val[:, :5], y_val)])
    with pytest.raises(ValueError, match=r"eval_set\[0\]"):
        SparseBoostRegressor(n_estimators=2).fit(X, y, eval_set=[(X_val, y_val[:10])])
    with pytest.raises(TypeError, match=r"eval_set must be a list.*pass \[\(X, y\)\]"):
        SparseBoostRegressor(n_estimators=2).fit(X, y, eval_set=(X_val, y_val))


@pytest.mark.parametrize("scale", [1.0, 1e6])
def test_callbacks_see_every_split_and_their_gains_sum_to_the_importances(scale):
    """The rounds' split gains, summed per feature, are the model's gain
    importances (in the user's units, whatever the targets' and weights'
    scale: the engine fits in its own); every split is seen once."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(500, 8))
    y = scale * (X[:, 0] + 0.5 * X[:, 3] ** 2 + 0.1 * rng.normal(size=500))
    weight = scale * rng.uniform(0.5, 2.0, size=500)
    gains, splits = np.zeros(8), []

    def add(report):
        assert report.split_features.shape == report.split_gains.shape
        np.add.at(gains, report.split_features, report.split_gains)
        splits.append(report.split_features.size)

    model = SparseBoostRegressor(
        n_estimators=20, max_leaves=6, callbacks=[add], random_state=0
    ).fit(X, y, sample_weight=weight)
    assert splits == [5] * 20  # 6 leaves: 5 splits a tree
    np.testing.assert_allclose(gains, model.get_feature_importance("gain"), rtol=1e-12)
    assert gains[0] > 0 and gains[3] > 0


def test_softmax_rounds_report_the_splits_of_each_class_tree():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(600, 5))
    y = np.digitize(X[:, 1] + 0.3 * rng.normal(size=600), [-0.5, 0.5])
    gains, per_round = np.zeros(5), []

    def add(report):
        np.add.at(gains, report.split_features, report.split_gains)
        per_round.append(report.split_features.size)

    model = SparseBoostClassifier(
        n_estimators=10, max_leaves=4, callbacks=[add], random_state=0
    ).fit(X, y)
    assert per_round == [9] * 10  # three class trees of 3 splits
    np.testing.assert_allclose(gains, model.get_feature_importance("gain"), rtol=1e-12)


def test_an_evaluation_set_of_one_class_warns_that_its_auc_means_nothing():
    from sparseboost import MultiTaskSparseBoostClassifier, SparseBoostClassifier

    rng = np.random.default_rng(0)
    X = rng.random((300, 4))
    y = (X[:, 0] > 0.5).astype(int)
    positives = y == 1
    with pytest.warns(UserWarning, match="rows of validation_0 hold one class"):
        SparseBoostClassifier(n_estimators=3, eval_metric="auc").fit(
            X, y, eval_set=[(X[positives], y[positives])]
        )
    task = np.arange(300) % 2
    one_class_task = positives | (task == 0)
    with pytest.warns(UserWarning, match="a task's rows of validation_0 hold one class"):
        MultiTaskSparseBoostClassifier(n_estimators=3, eval_metric="auc").fit(
            X, y, task, eval_set=[(X[one_class_task], y[one_class_task], task[one_class_task])]
        )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        SparseBoostClassifier(n_estimators=3, eval_metric="auc").fit(X, y, eval_set=[(X, y)])


@pytest.mark.parametrize("shared_rounds", [0, 10])
def test_multitask_rounds_report_a_shared_tree_in_every_tasks_importances(shared_rounds):
    # A shared tree is part of each task's model: the importances count it
    # once per task, and so must the report's running sums.
    from sparseboost.datasets import make_multitask

    X, y, task, _ = make_multitask((300, 150, 60), n_features=10, random_state=0)
    gains, splits = np.zeros(10), []

    def add(report):
        np.add.at(gains, report.split_features, report.split_gains)
        splits.append(report.split_features.size)

    model = MultiTaskSparseBoostRegressor(
        n_estimators=20, shared_rounds=shared_rounds, callbacks=[add], random_state=0
    ).fit(X, y, task)
    np.testing.assert_allclose(gains, model.get_feature_importance("gain"), rtol=1e-12)
    assert sum(splits) == model.get_feature_importance("split").sum()


@pytest.mark.parametrize("search", ["exhaustive", "group_testing"])
def test_early_stopping_keeps_the_dynamic_weights_of_the_best_round(search, regression):
    # feature_weights_ (and the file's) follow the kept trees: those of a
    # fit of best_iteration_ + 1 rounds, not of the rounds thrown away.
    X, y, X_val, y_val = regression
    params = dict(
        feature_sampling="dynamic",
        colsample_bytree=0.3,
        learning_rate=0.5,
        max_leaves=31,
        split_search=search,
        random_state=0,
    )
    model = SparseBoostRegressor(n_estimators=300, early_stopping_rounds=5, **params)
    model.fit(X, y, eval_set=[(X_val, y_val)])
    assert model.n_trees_ < len(model.evals_result_["validation_0"]["rmse"])
    short = SparseBoostRegressor(n_estimators=model.best_iteration_ + 1, **params).fit(X, y)
    np.testing.assert_array_equal(model.predict(X_val), short.predict(X_val))
    np.testing.assert_array_equal(model.feature_weights_, short.feature_weights_)
