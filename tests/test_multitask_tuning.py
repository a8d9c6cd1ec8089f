"""``shared_rounds="auto"`` and ``mu_task="auto"``: the multitask boosters
choose their two knobs by task-stratified cross-validation on the training
rows (``sparseboost._multitask_tuning``)."""

import json
import pickle

import numpy as np
import pytest
from sparseboost import MultiTaskSparseBoostClassifier, MultiTaskSparseBoostRegressor, load_model
from sparseboost._multitask_tuning import MU_TASK_GRID, shared_rounds_grid
from sparseboost.datasets import make_multitask

LABELS = np.array(["large", "medium", "small"])


@pytest.fixture(scope="module")
def tasks():
    X, y, task, _ = make_multitask((600, 300, 150), n_features=20, noise=0.5, random_state=0)
    return X, y, LABELS[task]


def auto(cls=MultiTaskSparseBoostRegressor):
    return cls(n_estimators=20, random_state=0, shared_rounds="auto", mu_task="auto")


@pytest.mark.parametrize("classifier", [False, True])
def test_auto_is_the_fit_with_the_values_it_chose(tasks, classifier):
    X, y, task = tasks
    cls = MultiTaskSparseBoostClassifier if classifier else MultiTaskSparseBoostRegressor
    target = (y > np.median(y)).astype(int) if classifier else y
    model = auto(cls).fit(X, target, task)
    assert model.shared_rounds_ in shared_rounds_grid(20)
    assert len(model.mu_task_) == 3 and set(model.mu_task_) <= set(MU_TASK_GRID)
    explicit = cls(
        n_estimators=20, random_state=0, shared_rounds=model.shared_rounds_, mu_task=model.mu_task_
    ).fit(X, target, task)
    score = "decision_function" if classifier else "predict"
    np.testing.assert_array_equal(
        getattr(model, score)(X, task), getattr(explicit, score)(X, task)
    )
    # The parameters stay "auto" (scikit-learn's clone and get_params).
    assert model.get_params()["shared_rounds"] == "auto"


def test_the_choice_is_the_tables_best(tasks):
    X, y, task = tasks
    model = auto().fit(X, y, task)
    table = model.tuning_results_
    loss = table["loss"]  # (shared_rounds, mu_task, task), mean loss per row
    assert loss.shape == (len(table["shared_rounds"]), len(MU_TASK_GRID), 3)
    rows = np.bincount(np.searchsorted(model.tasks_, task))
    # Each task its best mu_task at each shared_rounds, then the shared_rounds
    # whose choices lose least over all rows.
    total = (loss.min(axis=1) * rows).sum(axis=1)
    i = int(np.argmin(total))
    assert model.shared_rounds_ == table["shared_rounds"][i]
    assert model.mu_task_ == [table["mu_task"][j] for j in loss[i].argmin(axis=0)]


@pytest.mark.parametrize("seed", [0, 1])
def test_a_task_whose_target_is_noise_pays_the_most_for_features(seed):
    """Planted: two tasks whose target is the sum of ten features (each a
    small share of the loss, kept out by a large mu_task) and a third whose
    target is pure noise (any feature it admits overfits): the noise task's
    cross-validated loss is lowest with the largest mu_task, the others'
    with a smaller one."""
    rng = np.random.default_rng(seed)
    n, d = 900, 30
    X = rng.uniform(size=(n, d))
    task = np.repeat(np.array(["a", "b", "noise"]), n // 3)
    y = X[:, :10].sum(axis=1) + rng.normal(0, 0.2, n)
    y[task == "noise"] = rng.normal(0, 1, n // 3)
    model = MultiTaskSparseBoostRegressor(
        n_estimators=30, shared_rounds=0, mu_task="auto", random_state=0
    ).fit(X, y, task)
    mu = dict(zip(model.tasks_, model.mu_task_))
    assert mu["noise"] == max(MU_TASK_GRID)
    assert mu["a"] < mu["noise"] and mu["b"] < mu["noise"]


def test_tasks_with_one_function_choose_a_shared_start():
    """Planted: three small tasks with the same function; a start learned on
    all their rows beats each task's own rows, so "auto" shares rounds."""
    rng = np.random.default_rng(1)
    n, d = 600, 10
    X = rng.uniform(size=(n, d))
    task = np.repeat(np.arange(3), n // 3)
    y = 4 * X[:, 0] + 3 * np.sin(5 * X[:, 1]) + 2 * X[:, 2] ** 2 + rng.normal(0, 0.5, n)
    model = MultiTaskSparseBoostRegressor(
        n_estimators=40, shared_rounds="auto", mu_task=0.01, random_state=0
    ).fit(X, y, task)
    assert model.shared_rounds_ == max(shared_rounds_grid(40))
    assert model.mu_task_ == 0.01  # not "auto": the user's value


def test_the_same_choice_with_one_and_two_threads(tasks):
    X, y, task = tasks
    one = auto().set_params(n_jobs=1).fit(X, y, task)
    two = auto().set_params(n_jobs=2).fit(X, y, task)
    assert (one.shared_rounds_, one.mu_task_) == (two.shared_rounds_, two.mu_task_)
    np.testing.assert_array_equal(one.tuning_results_["loss"], two.tuning_results_["loss"])
    np.testing.assert_array_equal(one.predict(X, task), two.predict(X, task))


def test_chosen_values_survive_save_load_and_pickle(tasks, tmp_path):
    X, y, task = tasks
    model = auto().fit(X, y, task)
    path = tmp_path / "auto.json"
    model.save_model(path)
    for copy in (load_model(path), pickle.loads(pickle.dumps(model))):
        assert copy.shared_rounds_ == model.shared_rounds_
        assert list(copy.mu_task_) == list(model.mu_task_)
        assert copy.get_params()["mu_task"] == "auto"
        np.testing.assert_array_equal(copy.predict(X, task), model.predict(X, task))


@pytest.mark.parametrize(
    "key, value, match",
    [
        ("shared_rounds_", "auto", "shared_rounds='auto' is resolved by fit"),
        ("shared_rounds_", -3, "shared_rounds must be an int >= 0"),
        ("mu_task_", "auto", "mu_task='auto' is resolved by fit"),
        ("mu_task_", {"__ndarray__": [0.1], "dtype": "not a dtype"}, "fitted.mu_task_"),
        ("mu_task_", [0.1, 0.1], "mu_task must hold one value per task"),
    ],
)
def test_a_model_file_with_bad_chosen_values_is_refused(tasks, tmp_path, key, value, match):
    X, y, task = tasks
    path = tmp_path / "auto.json"
    auto().set_params(n_estimators=5).fit(X, y, task).save_model(path)
    document = json.loads(path.read_text())
    document["fitted"][key] = value
    path.write_text(json.dumps(document))
    with pytest.raises(ValueError, match=match):
        load_model(path)


def test_a_class_with_one_row_in_a_task_is_named():
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(60, 5))
    task = np.repeat(["p", "q"], 30)
    y = (X[:, 0] > 0.5).astype(int)
    y[task == "q"] = 0
    y[np.flatnonzero(task == "q")[0]] = 1  # task q: a single positive row
    with pytest.raises(ValueError, match="task 'q' has 1 row of class 1"):
        auto(MultiTaskSparseBoostClassifier).fit(X, y, task)


def test_a_task_of_two_rows_is_named_with_the_auto_parameter():
    # Fit takes 2 rows a task; a fold's training part would hold 1.
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 4))
    task = np.where(np.arange(60) < 2, "small", "big")
    model = MultiTaskSparseBoostRegressor(n_estimators=5, shared_rounds="auto")
    with pytest.raises(ValueError, match="shared_rounds='auto' .*task 'small' has 2 rows"):
        model.fit(X, X[:, 0], task)
    task[2] = "small"
    assert model.fit(X, X[:, 0], task).shared_rounds_ >= 0


def test_a_mu_group_the_grid_cannot_add_to_is_named_with_the_grid():
    X = np.random.default_rng(0).normal(size=(90, 4))
    model = MultiTaskSparseBoostRegressor(n_estimators=3, mu_group=0.95, mu_task="auto")
    with pytest.raises(ValueError, match=r"mu_task='auto' tries .*mu_group=0.95 plus mu_task=0.1"):
        model.fit(X, X[:, 0], np.arange(90) % 2)


def test_without_a_penalty_auto_does_not_search_mu_task():
    X = np.random.default_rng(0).normal(size=(90, 4))
    model = MultiTaskSparseBoostRegressor(n_estimators=3, penalty="none", mu_task="auto")
    model.fit(X, X[:, 0], np.arange(90) % 2)
    assert model.tuning_results_["loss"].shape[1] == 1


def test_dask_refuses_auto_and_says_what_to_do():
    da = pytest.importorskip("dask.array")
    from sparseboost.dask import DaskMultiTaskSparseBoostRegressor

    X = da.from_array(np.random.default_rng(0).uniform(size=(40, 3)), chunks=(20, 3))
    y = da.from_array(np.arange(40.0), chunks=20)
    for name in ("shared_rounds", "mu_task"):
        model = DaskMultiTaskSparseBoostRegressor(**{name: "auto"})
        with pytest.raises(ValueError, match=f"{name}='auto' is not available on Dask"):
            model.fit(X, y, np.repeat([0, 1], 20))


def test_callbacks_see_the_final_fit_only(tasks):
    X, y, task = tasks
    rounds = []
    model = auto().set_params(callbacks=[lambda report: rounds.append(report.round)])
    model.fit(X, y, task)
    assert rounds == list(range(len(rounds))) and len(rounds) == 20


# The grid's largest mu_task leaves this small problem no feature: a warning.
@pytest.mark.filterwarnings("ignore:no feature can pay the penalty")
def test_the_search_fits_see_the_categorical_columns_the_final_fit_sees():
    # The search fits get the encoded array, without names or dtypes: they
    # must still split the categorical column as categories.
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(5)
    n = 600
    city = rng.integers(0, 12, n)
    task = np.array(["a", "b"])[rng.integers(0, 2, n)]
    y = np.isin(city, [1, 4, 9]) * 2.0 + (task == "b") + 0.3 * rng.normal(size=n)
    X = pd.DataFrame({"u": rng.random(n), "v": rng.random(n), "c": city})
    as_category = X.assign(c=X["c"].astype("category"))
    by_index = auto().set_params(categorical_features=[2]).fit(X.to_numpy(), y, task)
    for frame, spec in ((as_category, "from_dtype"), (X, ["c"])):
        model = auto().set_params(categorical_features=spec).fit(frame, y, task)
        assert list(model.categorical_features_) == [2]
        np.testing.assert_array_equal(
            model.tuning_results_["loss"], by_index.tuning_results_["loss"]
        )


def test_folds_keep_weight_in_every_task():
    # A task whose few rows of weight > 0 all fell in one validation part
    # failed the inner fit ("sample_weight of task 2 sums to zero") on 6
    # of 10 seeds; the folds now stratify by weight > 0 too.
    X, y, task, _ = make_multitask((200, 90, 40), n_features=15, random_state=1)
    codes = np.searchsorted(np.unique(task), task)
    weights = np.ones(len(y))
    rare = np.flatnonzero(codes == 2)
    weights[rare[2:]] = 0.0  # task 2: two rows of weight 1, 38 of weight 0
    for seed in range(6):
        MultiTaskSparseBoostRegressor(n_estimators=5, random_state=seed, mu_task="auto").fit(
            X, y, task, sample_weight=weights
        )
    weights[rare[1]] = 0.0  # one row that weighs: no fold's training part may lack it
    with pytest.raises(ValueError, match=r"mu_task='auto'.* 1 row\(s\) of sample_weight > 0"):
        MultiTaskSparseBoostRegressor(n_estimators=5, mu_task="auto").fit(
            X, y, task, sample_weight=weights
        )
