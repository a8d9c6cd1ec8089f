"""Multitask boosting (SPEC section 4): shared and task-specific features,
masks, one task = the single-task booster, task labels, persistence."""

import inspect
import pickle

import numpy as np
import pytest
from sklearn.base import clone
from sparseboost import (
    MultiTaskSparseBoostClassifier,
    MultiTaskSparseBoostRegressor,
    SparseBoostClassifier,
    SparseBoostRegressor,
    load_model,
)
from sparseboost.datasets import make_multitask

SIZES = (1500, 800, 400)
LABELS = np.array(["large", "medium", "small"])


@pytest.fixture(scope="module")
def tasks():
    """Three tasks over 30 features: 0-3 shared, two private each (4-9)."""
    X, y, task, relevant = make_multitask(SIZES, n_features=30, noise=0.3, random_state=0)
    return X, y, LABELS[task], relevant


def fit(X, y, task, **params):
    params = {"n_estimators": 40, "random_state": 0, **params}
    return MultiTaskSparseBoostRegressor(**params).fit(X, y, task)


def test_shared_features_are_selected_once_and_reused_by_every_task(tasks):
    X, y, task, relevant = tasks
    model = fit(X, y, task, mu_group=0.1, mu_task=0.03)
    omega = list(model.selected_features_)
    assert len(set(omega)) == len(omega)
    for label, features in model.task_selected_features_.items():
        assert set(relevant["shared"]) <= set(features), label
        assert set(features) <= set(omega)
    union = set().union(*(set(f) for f in model.task_selected_features_.values()))
    assert union == set(omega)
    assert set(np.flatnonzero(model.get_support())) == set(omega)


def test_a_private_feature_is_selected_only_by_its_task(tasks):
    X, y, task, relevant = tasks
    model = fit(X, y, task, mu_group=0.1, mu_task=0.03)
    for t, label in enumerate(LABELS):
        features = set(model.task_selected_features_[label])
        for owner, private in relevant["private"].items():
            if owner == t:
                assert set(private) <= features, (label, private)
            else:
                assert not set(private) & features, (label, owner, features)
        importance = model.get_feature_importance("split", task=label)
        assert set(np.flatnonzero(importance)) == features


def test_mu_task_zero_gives_every_task_the_same_features(tasks):
    X, y, task, relevant = tasks
    model = fit(X, y, task, mu_group=0.1, mu_task=0.0)
    omega = set(model.selected_features_)
    assert all(set(p) <= omega for p in relevant["private"].values())
    for label, features in model.task_selected_features_.items():
        assert set(features) == omega, label


def test_a_masked_feature_is_never_used_by_its_task(tasks):
    X, y, task, _ = tasks
    free = fit(X, y, task, mu_group=0.05, mu_task=0.02)
    assert 0 in free.task_selected_features_["medium"]
    mask = np.ones((3, X.shape[1]), dtype=bool)
    mask[1, 0] = False  # "medium" (tasks_[1]) does not have feature 0
    model = fit(X, y, task, mu_group=0.05, mu_task=0.02, task_feature_mask=mask)
    assert 0 not in model.task_selected_features_["medium"]
    assert model.task_feature_importances_[1, 0] == 0.0
    assert 0 in model.task_selected_features_["large"]
    assert 0 in model.task_selected_features_["small"]


@pytest.mark.parametrize("mu_group, mu_task", [(0.02, 0.0), (0.01, 0.02)])
def test_one_task_alone_is_the_single_task_booster_bit_for_bit(tasks, mu_group, mu_task):
    X, y, _, _ = tasks
    common = {"n_estimators": 20, "subsample": 0.8, "colsample_bytree": 0.7, "random_state": 3}
    single = SparseBoostRegressor(mu=mu_group + mu_task, **common).fit(X, y)
    multi = MultiTaskSparseBoostRegressor(mu_group=mu_group, mu_task=mu_task, **common)
    multi.fit(X, y, np.zeros(len(y), dtype=int))
    assert multi._model.tasks[0].to_json() == single._model.to_json()
    np.testing.assert_array_equal(multi.predict(X, 0), single.predict(X))
    np.testing.assert_array_equal(multi.selected_features_, single.selected_features_)


@pytest.mark.parametrize("penalty", ["agbm", "gbfs"])
def test_relative_mus_are_their_multiple_of_mu_max(tasks, penalty):
    X, y, task, _ = tasks
    relative = fit(X, y, task, penalty=penalty, mu_group="0.3*mu_max", mu_task="0.1*mu_max")
    mu_max = relative.mu_max_
    assert mu_max > 0
    absolute = fit(X, y, task, penalty=penalty, mu_group=0.3 * mu_max, mu_task=0.1 * mu_max)
    assert absolute.mu_max_ == mu_max
    for a, r in zip(absolute._model.tasks, relative._model.tasks, strict=True):
        assert a.to_json() == r.to_json()
    per_task = fit(X, y, task, penalty=penalty, mu_group="0.3*mu_max", mu_task=["0.1*mu_max"] * 3)
    assert per_task._model.to_json() == relative._model.to_json()
    # mu_max bounds mu_group + mu_task: at it nothing enters, just below it does.
    none = fit(X, y, task, penalty=penalty, mu_group="0.5*mu_max", mu_task="0.5*mu_max")
    assert list(none.n_trees_) == [0, 0, 0] and none.selected_features_.size == 0
    some = fit(X, y, task, penalty=penalty, mu_group="0.49*mu_max", mu_task="0.5*mu_max")
    assert some.selected_features_.size >= 1


def test_one_task_relative_mu_is_the_single_task_relative_mu(tasks):
    X, y, _, _ = tasks
    single = SparseBoostRegressor(mu="0.2*mu_max", n_estimators=20, random_state=3).fit(X, y)
    multi = MultiTaskSparseBoostRegressor(
        mu_group="0.15*mu_max", mu_task="0.05*mu_max", n_estimators=20, random_state=3
    ).fit(X, y, np.zeros(len(y), dtype=int))
    assert multi.mu_max_ == single.mu_max_
    np.testing.assert_array_equal(multi.selected_features_, single.selected_features_)
    np.testing.assert_allclose(multi.predict(X, 0), single.predict(X), rtol=1e-12)


@pytest.mark.parametrize(
    "params, error, match",
    [
        (dict(mu_group="a lot"), ValueError, "mu_group must be a number or a string"),
        (dict(mu_task="-1*mu_max"), ValueError, "mu_task"),
        (dict(mu_task=["0.1*mu_max", 0.1, 0.2]), TypeError, "'f\\*mu_max' strings only"),
    ],
)
def test_bad_relative_mus_are_named(tasks, params, error, match):
    X, y, task, _ = tasks
    with pytest.raises(error, match=match):
        fit(X, y, task, n_estimators=2, **params)


def test_one_task_classifier_is_the_single_task_classifier(tasks):
    X, y, _, _ = tasks
    labels = np.where(y > np.median(y), "yes", "no")
    single = SparseBoostClassifier(mu=0.03, n_estimators=15, random_state=0).fit(X, labels)
    multi = MultiTaskSparseBoostClassifier(mu_group=0.03, mu_task=0.0, n_estimators=15)
    multi.set_params(random_state=0).fit(X, labels, ["only"] * len(y))
    assert multi._model.tasks[0].to_json() == single._model.to_json()
    np.testing.assert_array_equal(multi.predict_proba(X, "only"), single.predict_proba(X))
    assert list(multi.classes_) == ["no", "yes"]


def test_group_testing_passes_through_to_the_multitask_engine(tasks):
    X, y, task, relevant = tasks
    gt = {"split_search": "group_testing", "gt_n_features": 6, "n_estimators": 15}
    single = SparseBoostRegressor(mu=0.05, random_state=0, **gt).fit(X, y)
    one = MultiTaskSparseBoostRegressor(mu_group=0.05, mu_task=0.0, random_state=0, **gt)
    one.fit(X, y, np.zeros(len(y), dtype=int))
    assert one._model.tasks[0].to_json() == single._model.to_json()
    assert one._model.tasks[0].gt_n_subsets is not None
    gt["n_estimators"] = 40
    model = fit(X, y, task, mu_group=0.1, mu_task=0.03, **gt)
    for features in model.task_selected_features_.values():
        assert set(relevant["shared"]) <= set(features)


def test_predictions_follow_each_rows_task(tasks):
    X, y, task, _ = tasks
    model = fit(X, y, task, n_estimators=15)
    order = np.random.default_rng(0).permutation(len(y))
    shuffled = model.predict(X[order], task[order])
    for label in LABELS:
        rows = task[order] == label
        np.testing.assert_array_equal(shuffled[rows], model.predict(X[order][rows], label))
    assert model.score(X, y, task) > 0.9
    # Integer labels work the same way (tasks_ sorted).
    codes = np.searchsorted(LABELS, task)
    by_int = fit(X, y, codes + 10, n_estimators=15)
    assert list(by_int.tasks_) == [10, 11, 12]
    np.testing.assert_array_equal(by_int.predict(X, codes + 10), model.predict(X, task))


def test_the_classifier_predicts_per_task(tasks):
    X, y, task, _ = tasks
    labels = np.zeros(len(y), dtype=int)
    for label in LABELS:
        rows = task == label
        labels[rows] = y[rows] > np.median(y[rows])
    model = MultiTaskSparseBoostClassifier(n_estimators=30, random_state=0).fit(X, labels, task)
    proba = model.predict_proba(X, task)
    assert proba.shape == (len(y), 2)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert model.score(X, labels, task) > 0.8


def test_bad_task_labels_at_predict_time_are_named(tasks):
    X, y, task, _ = tasks
    model = fit(X, y, task, n_estimators=5)
    with pytest.raises(ValueError, match=r"unknown task label\(s\) \['tiny'\]"):
        model.predict(X[:3], ["large", "tiny", "small"])
    with pytest.raises(ValueError, match="unknown task"):
        model.predict(X[:3], 1)  # an int is not one of the string labels
    with pytest.raises(ValueError, match="one label per row"):
        model.predict(X[:3], ["large", "small"])


def test_bad_fit_input_raises_clear_errors(tasks):
    X, y, task, _ = tasks
    with pytest.raises(ValueError, match="one label per row"):
        fit(X, y, task[:-1])
    with pytest.raises(ValueError, match="at least 2 rows.*'lonely': 1"):
        fit(X, y, np.where(np.arange(len(y)) == 0, "lonely", task))
    with pytest.raises(ValueError, match="task_feature_mask must have shape"):
        fit(X, y, task, task_feature_mask=np.ones((2, X.shape[1]), dtype=bool))
    with pytest.raises(ValueError, match="booleans"):
        fit(X, y, task, task_feature_mask=np.ones((3, X.shape[1])))
    with pytest.raises(ValueError, match="mu_group \\+ mu_task must be < 1"):
        fit(X, y, task, mu_group=0.6, mu_task=0.4)
    with pytest.raises(ValueError, match="mu_task must be a finite number >= 0"):
        fit(X, y, task, mu_task=-0.1)
    with pytest.raises(TypeError, match="mu_group and mu_task instead of mu"):
        MultiTaskSparseBoostRegressor(mu=0.1)
    one_class = (task == "small").astype(int)
    with pytest.raises(ValueError, match="single class .* in the rows of task 'large'"):
        MultiTaskSparseBoostClassifier(n_estimators=2).fit(X, one_class, task)


def test_every_single_task_booster_parameter_is_a_multitask_parameter():
    single = set(inspect.signature(SparseBoostRegressor).parameters)
    multi = set(inspect.signature(MultiTaskSparseBoostRegressor).parameters)
    only_single = {"mu", "feature_costs", "feature_bags", "max_selected_features", "max_features"}
    extra = {"mu_group", "mu_task", "task_feature_mask", "shared_rounds"}
    assert multi == (single - only_single) | extra
    model = MultiTaskSparseBoostRegressor(max_leaves=7, mu_task=0.2)
    assert clone(model).get_params() == model.get_params()
    assert model.get_params()["max_leaves"] == 7 and model.max_bins == 255


def test_save_load_and_pickle_round_trips(tasks, tmp_path):
    X, y, task, _ = tasks
    mask = np.ones((3, X.shape[1]), dtype=bool)
    mask[2, 1] = False
    model = fit(X, y, task, n_estimators=10, task_feature_mask=mask)
    path = tmp_path / "multitask.json"
    model.save_model(path)
    for copy in (load_model(path), pickle.loads(pickle.dumps(model))):
        assert type(copy) is MultiTaskSparseBoostRegressor
        np.testing.assert_array_equal(copy.predict(X, task), model.predict(X, task))
        assert list(copy.tasks_) == list(model.tasks_)
        np.testing.assert_array_equal(copy.selected_features_, model.selected_features_)
        for label in LABELS:
            np.testing.assert_array_equal(
                copy.task_selected_features_[label], model.task_selected_features_[label]
            )
        assert copy.get_params()["max_leaves"] == model.max_leaves


def test_a_saved_classifier_keeps_its_classes_and_integer_tasks(tasks, tmp_path):
    X, y, task, _ = tasks
    codes = np.searchsorted(LABELS, task)
    labels = np.where(y > np.median(y), "hi", "lo")
    model = MultiTaskSparseBoostClassifier(n_estimators=5, random_state=0).fit(X, labels, codes)
    model.save_model(tmp_path / "clf.json")
    copy = load_model(tmp_path / "clf.json")
    assert list(copy.classes_) == ["hi", "lo"] and list(copy.tasks_) == [0, 1, 2]
    np.testing.assert_array_equal(copy.predict_proba(X, codes), model.predict_proba(X, codes))


@pytest.mark.parametrize("classifier", [False, True])
def test_a_task_whose_weights_underflow_gets_finite_predictions(classifier):
    # Found by the long hypothesis profile: weights rescaled by the largest
    # (1e308) underflow to 0 for a task whose weights are all 1e-308; its base
    # score was 0/0 and every prediction of the task NaN.
    X = np.zeros((36, 6))
    X[:, 0] = np.arange(36) % 3
    task = np.arange(36) % 2
    y = (np.arange(36) // 2) % 2 if classifier else np.arange(36) % 5 * 1.0
    w = np.full(36, 1e-308)
    w[0] = 1e308
    cls = MultiTaskSparseBoostClassifier if classifier else MultiTaskSparseBoostRegressor
    model = cls(n_estimators=3, min_samples_leaf=1, random_state=0)
    model.fit(X, y, task=task, sample_weight=w)
    assert np.isfinite(model.predict(X, task).astype(float)).all()
    if classifier:
        assert np.isfinite(model.predict_proba(X, task)).all()


# -- the shared start and per-task mu_task


def planted_small_task(n_small=80, test_rows=3000):
    """Two large tasks and a small one with the same shared effects (shapes
    and, up to 30%, coefficients); training rows and test rows of the small
    task."""
    sizes = (3000, 1500, n_small + test_rows)
    X, y, task, _ = make_multitask(sizes, n_features=20, noise=0.5, random_state=3)
    test = np.flatnonzero(task == 2)[n_small:]
    train = np.setdiff1d(np.arange(len(y)), test)
    return X, y, task, train, test


def test_a_shared_start_predicts_a_small_task_better_than_its_own_rows():
    X, y, task, train, test = planted_small_task()
    params = {"n_estimators": 60, "mu_group": 0.01, "mu_task": 0.01, "random_state": 0}
    mse = {}
    for rounds in (0, 20):
        model = fit(X[train], y[train], task[train], shared_rounds=rounds, **params)
        mse[rounds] = np.mean((model.predict(X[test], 2) - y[test]) ** 2)
    assert mse[20] < 0.8 * mse[0], mse


@pytest.mark.parametrize("classifier", [False, True])
def test_the_shared_start_is_part_of_the_saved_and_pickled_model(tasks, tmp_path, classifier):
    X, y, task, _ = tasks
    cls = MultiTaskSparseBoostClassifier if classifier else MultiTaskSparseBoostRegressor
    target = (y > np.median(y)).astype(int) if classifier else y
    params = {"n_estimators": 12, "random_state": 0, "mu_group": 0.01}
    model = cls(shared_rounds=5, mu_task=[0.01, 0.02, 0.05], **params).fit(X, target, task)
    plain = cls(shared_rounds=0, mu_task=[0.01, 0.02, 0.05], **params).fit(X, target, task)
    score = model.decision_function if classifier else model.predict
    assert not np.allclose(
        score(X, task), (plain.decision_function if classifier else plain.predict)(X, task)
    )
    path = tmp_path / "shared.json"
    model.save_model(path)
    for copy in (load_model(path), pickle.loads(pickle.dumps(model))):
        copy_score = copy.decision_function if classifier else copy.predict
        np.testing.assert_array_equal(copy_score(X, task), score(X, task))
        assert copy.get_params()["shared_rounds"] == 5
        assert list(copy.get_params()["mu_task"]) == [0.01, 0.02, 0.05]
    # The same fit whatever n_jobs.
    again = cls(shared_rounds=5, mu_task=[0.01, 0.02, 0.05], n_jobs=1, **params)
    np.testing.assert_array_equal(
        again.fit(X, target, task).predict(X, task), model.predict(X, task)
    )
    # Every round shared: each task's trees are the shared ones, and its
    # predictions differ from another task's only by their base scores.
    pooled = cls(**{**params, "shared_rounds": 12}).fit(X, target, task)
    s = pooled.decision_function if classifier else pooled.predict
    gap = s(X, "large") - s(X, "small")
    np.testing.assert_allclose(gap, gap[0], atol=1e-9)


def test_mu_task_per_task_equal_values_is_the_scalar(tasks):
    X, y, task, _ = tasks
    scalar = fit(X, y, task, n_estimators=10, mu_task=0.03)
    listed = fit(X, y, task, n_estimators=10, mu_task=np.array([0.03, 0.03, 0.03]))
    np.testing.assert_array_equal(scalar.predict(X, task), listed.predict(X, task))
    # A large mu_t for the small task alone keeps its private features out.
    strict = fit(X, y, task, mu_group=0.05, mu_task=[0.02, 0.02, 0.9])
    assert set(strict.task_selected_features_["large"]) >= {4, 5}
    assert not {8, 9} & set(strict.task_selected_features_["small"])


def test_shared_rounds_and_mu_task_are_validated(tasks):
    X, y, task, _ = tasks
    for bad in (1.5, True, "2", None):
        with pytest.raises(TypeError, match="shared_rounds must be an int >= 0"):
            fit(X, y, task, shared_rounds=bad)
    with pytest.raises(ValueError, match="shared_rounds must be an int >= 0, got -1"):
        fit(X, y, task, shared_rounds=-1)
    with pytest.raises(ValueError, match="shared_rounds must be <= n_estimators = 40, got 41"):
        fit(X, y, task, shared_rounds=41)
    with pytest.raises(ValueError, match="shared_rounds must be <= n_estimators = 40, got 11805"):
        fit(X, y, task, shared_rounds=2**70)
    with pytest.raises(ValueError, match="mu_task must hold one value per task \\(3"):
        fit(X, y, task, mu_task=[0.1, 0.1])
    with pytest.raises(TypeError, match="mu_task must hold real numbers"):
        fit(X, y, task, mu_task=[0.1, "a", 0.1])
    with pytest.raises(TypeError, match="mu_task must be a real number, 'f\\*mu_max', or a sequence"):
        fit(X, y, task, mu_task=np.full((3, 1), 0.1))
    with pytest.raises(ValueError, match="mu_task must be a finite number >= 0"):
        fit(X, y, task, mu_task=[0.1, -0.1, 0.1])
    with pytest.raises(ValueError, match="mu_group \\+ mu_task must be < 1"):
        fit(X, y, task, mu_group=0.5, mu_task=[0.1, 0.6, 0.1])


def test_a_task_of_zero_weight_is_named_by_its_label():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    task = np.where(np.arange(40) < 20, "big", "small")
    w = np.where(task == "small", 0.0, 1.0)
    with pytest.raises(ValueError, match="sample_weight of task 'small' sums to zero"):
        MultiTaskSparseBoostRegressor(n_estimators=3).fit(X, X[:, 0], task, sample_weight=w)


def test_a_penalty_no_feature_can_pay_warns_as_the_single_task_booster_does():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 3))
    with pytest.warns(UserWarning, match="no feature can pay the penalty"):
        model = MultiTaskSparseBoostRegressor(n_estimators=3, mu_group="1*mu_max")
        model.fit(X, X[:, 0], np.arange(80) % 2)
    assert not np.any(model.n_trees_)


@pytest.mark.parametrize("search", ["group_testing", "exhaustive"])
def test_the_split_search_that_ran_is_reported_as_for_one_task(search):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(500, 50))
    task = np.arange(500) % 2
    model = MultiTaskSparseBoostRegressor(n_estimators=3, split_search=search)
    model.fit(X, X[:, 0] + task, task)
    assert model.split_search_ == search
    exhaustive = search != "group_testing"
    assert (model.gt_n_subsets_ is None) == (model.gt_cache_bytes_ is None) == exhaustive


@pytest.mark.parametrize("shared_rounds", [0, 5])
def test_mu_max_bounds_the_first_round_with_a_shared_start(shared_rounds):
    # A shared first round whose tree cannot split runs the per-task trees
    # instead: mu_max_ covers both, so at "1*mu_max" nothing enters and just
    # below it something does, with or without a shared start.
    X, y, task, _ = make_multitask((300, 100, 40), n_features=20, random_state=0)
    common = {"n_estimators": 20, "random_state": 0, "shared_rounds": shared_rounds}
    at = MultiTaskSparseBoostRegressor(mu_group="1*mu_max", mu_task=0.0, **common)
    with pytest.warns(UserWarning, match="no feature"):
        at.fit(X, y, task)
    assert at.selected_features_.size == 0 and list(at.n_trees_) == [0, 0, 0]
    below = MultiTaskSparseBoostRegressor(mu_group="0.99*mu_max", mu_task=0.0, **common)
    assert below.fit(X, y, task).selected_features_.size >= 1


@pytest.mark.parametrize("classifier", [False, True])
def test_one_task_with_early_stopping_holds_out_the_single_task_boosters_rows(tasks, classifier):
    X, y, _, _ = tasks
    common = {"n_estimators": 20, "random_state": 1, "early_stopping_rounds": 3}
    if classifier:
        y = (y > np.median(y)).astype(int)
        single = SparseBoostClassifier(mu=0.03, **common).fit(X, y)
        multi = MultiTaskSparseBoostClassifier(mu_group=0.01, mu_task=0.02, **common)
    else:
        single = SparseBoostRegressor(mu=0.03, **common).fit(X, y)
        multi = MultiTaskSparseBoostRegressor(mu_group=0.01, mu_task=0.02, **common)
    multi.fit(X, y, np.zeros(len(y), dtype=int))
    assert multi._model.tasks[0].to_json() == single._model.to_json()
    assert multi.best_iteration_ == single.best_iteration_


@pytest.mark.parametrize("seed", range(6))
def test_early_stopping_keeps_a_tasks_only_row_of_a_class_for_training(seed):
    # Held out, the small task's one row of class 0 would leave it one class
    # to train on (probability 1 for every row of it): it always trains.
    rng = np.random.default_rng(0)
    X = rng.normal(size=(205, 5))
    y = (X[:, 0] + 0.5 * rng.normal(size=205) > 0).astype(int)
    y[200:] = [0, 1, 1, 1, 1]
    task = np.array(["big"] * 200 + ["small"] * 5)
    model = MultiTaskSparseBoostClassifier(
        n_estimators=20, early_stopping_rounds=5, random_state=seed
    ).fit(X, y, task)
    assert np.all(np.abs(model.decision_function(X[200:], "small")) < 5)


@pytest.mark.parametrize("seed", range(4))
def test_a_hold_out_too_small_for_every_task_is_the_same_clear_error_for_any_seed(seed):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(24, 4))
    task = np.repeat([f"t{i}" for i in range(8)], 3)
    model = MultiTaskSparseBoostRegressor(
        n_estimators=10, early_stopping_rounds=2, random_state=seed, min_samples_leaf=1
    )
    with pytest.raises(ValueError, match="each of the 8 tasks"):
        model.fit(X, X[:, 0], task)
    # an eval_set is the way out
    model.fit(X, X[:, 0], task, eval_set=[(X, X[:, 0], task)])
