"""Plain regression tests, one per known breach of the contract in
contract.py (each failed at commit 277ff20)."""

import copy
import json
import os

import numpy as np
import pytest
import sparseboost
from contract import attempt, check_predictions, names_any, tmp_path
from model_files import ModelFileWorker, check_worker_results, parameter_case_in_subprocess
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sparseboost import (
    MultiTaskSparseBoostClassifier,
    MultiTaskSparseBoostRegressor,
    SparseBoostClassifier,
    SparseBoostRegressor,
    SparseBoostSelector,
    _core,
)
from sparseboost.datasets import make_multitask, make_synthetic
from strategies import ALL_ESTIMATORS, classes_for

pytestmark = pytest.mark.filterwarnings("ignore")

RNG = np.random.default_rng(0)
X = RNG.random((40, 4))
Y = X[:, 0] * 3 + np.sin(4 * X[:, 1])
TASK = np.arange(40) % 2
SMALL = {"n_estimators": 3, "min_samples_leaf": 3, "random_state": 0, "n_jobs": 1}
ALL = ALL_ESTIMATORS


def fit_args(cls, y=None):
    multitask = cls.__name__.startswith("MultiTask")
    if y is None:
        y = classes_for(TASK) if "Classifier" in cls.__name__ else Y
    return (X, y, TASK) if multitask else (X, y)


def fits_finite_or_names(cls, params, y, name, sample_weight=None):
    """fit either raises ValueError/TypeError naming ``name`` or gives a
    model whose every output is finite."""
    args = fit_args(cls, y)
    est = cls(**{**SMALL, **params})
    ok, _ = attempt(lambda: est.fit(*args, sample_weight=sample_weight), {name}, "fit")
    if ok:
        check_predictions(est, X, len(X), task=args[2] if len(args) == 3 else None)


# -- 1. overflow to inf / NaN ------------------------------------------------------


@pytest.mark.parametrize("cls", ALL, ids=lambda c: c.__name__)
def test_sample_weight_of_1e308_gives_finite_outputs_or_is_rejected(cls):
    fits_finite_or_names(cls, {}, None, "sample_weight", sample_weight=np.full(40, 1e308))


@pytest.mark.parametrize("cls", ALL, ids=lambda c: c.__name__)
def test_learning_rate_1e308_gives_finite_outputs_or_is_rejected(cls):
    y = None if "Classifier" in cls.__name__ else 2 * Y  # residuals > 1.8: leaf values overflow
    fits_finite_or_names(cls, {"learning_rate": 1e308}, y, "learning_rate")


@pytest.mark.parametrize(
    "cls", [SparseBoostRegressor, MultiTaskSparseBoostRegressor], ids=lambda c: c.__name__
)
@pytest.mark.parametrize("target", ["plus_minus_1e308", "up_to_1e308", "1e308_and_1.7e308"])
def test_targets_near_1e308_give_finite_predictions_or_are_rejected(cls, target):
    y = {
        "plus_minus_1e308": np.where(X[:, 0] > 0.5, 1e308, -1e308),
        "up_to_1e308": 1e308 * X[:, 0],
        "1e308_and_1.7e308": np.where(X[:, 0] > 0.5, 1.7e308, 1e308),
    }[target]
    fits_finite_or_names(cls, {}, y, "y")


# -- 2. scale invariance -----------------------------------------------------------

SCALE_X = np.random.default_rng(1).random((60, 5))
SCALE_Y = (
    SCALE_X[:, 0] * 3
    + np.sin(4 * SCALE_X[:, 1])
    + 0.1 * np.random.default_rng(2).standard_normal(60)
)
SCALE_PARAMS = {"n_estimators": 5, "min_samples_leaf": 3, "random_state": 0, "n_jobs": 1}


@pytest.mark.parametrize("k", [-1000, -600, -200, 0, 200, 400, 1000])
def test_scaling_y_by_a_power_of_two_scales_predictions_exactly(k):
    base = SparseBoostRegressor(**SCALE_PARAMS).fit(SCALE_X, SCALE_Y)
    scaled = SparseBoostRegressor(**SCALE_PARAMS)
    ok, _ = attempt(lambda: scaled.fit(SCALE_X, np.ldexp(SCALE_Y, k)), {"y"}, f"fit on y * 2**{k}")
    if ok:
        np.testing.assert_array_equal(scaled.predict(SCALE_X), np.ldexp(base.predict(SCALE_X), k))
        np.testing.assert_array_equal(scaled.selected_features_, base.selected_features_)


@pytest.mark.parametrize("k", [-1000, 1000])
def test_scaling_X_by_a_power_of_two_keeps_predictions(k):
    base = SparseBoostRegressor(**SCALE_PARAMS).fit(SCALE_X, SCALE_Y)
    scaled = SparseBoostRegressor(**SCALE_PARAMS).fit(np.ldexp(SCALE_X, k), SCALE_Y)
    np.testing.assert_array_equal(scaled.predict(np.ldexp(SCALE_X, k)), base.predict(SCALE_X))


# -- 3. accepted though invalid ---------------------------------------------------


@pytest.mark.parametrize(
    "cls", [SparseBoostRegressor, MultiTaskSparseBoostRegressor], ids=lambda c: c.__name__
)
def test_datetime64_target_is_rejected_naming_y(cls):
    y = np.arange(40).astype("datetime64[s]")
    est = cls(**SMALL)
    with pytest.raises((ValueError, TypeError), match=r"\by\b"):
        est.fit(*fit_args(cls, y))


RAGGED = {
    "short_row": [[1.0, 2.0]] * 39 + [[1.0]],
    "nested_cell": [[1.0, [2.0]]] * 40,
    "nested_pair": [[[1.0], [2.0, 3.0]]] * 40,
    "arrays_of_two_lengths": [np.ones(2)] * 39 + [np.ones(3)],
}


@pytest.mark.parametrize("X_bad", list(RAGGED.values()), ids=list(RAGGED))
@pytest.mark.parametrize(
    "cls", [SparseBoostRegressor, MultiTaskSparseBoostRegressor], ids=lambda c: c.__name__
)
def test_ragged_nested_lists_as_X_are_rejected_naming_X(cls, X_bad):
    args = (X_bad, Y, TASK) if cls is MultiTaskSparseBoostRegressor else (X_bad, Y)
    with pytest.raises((ValueError, TypeError), match=r"\bX\b"):
        cls(**SMALL).fit(*args)


def bad_inputs():
    strings = X.astype(str)
    strings[0, :] = "abc"
    pos, neg = X.copy(), X.copy()
    pos[0, :] = np.inf
    neg[0, :] = -np.inf
    return {"strings": strings, "inf": pos, "-inf": neg}


@pytest.mark.parametrize("what", ["strings", "inf", "-inf"])
@pytest.mark.parametrize("owner", ["booster", "selector", "multitask"])
def test_transform_rejects_the_X_that_predict_rejects(owner, what):
    X_bad = bad_inputs()[what]
    if owner == "booster":
        est = SparseBoostRegressor(**SMALL).fit(X, Y)
        predictor = lambda: est.predict(X_bad)  # noqa: E731
    elif owner == "selector":
        est = SparseBoostSelector(SparseBoostRegressor(**SMALL)).fit(X, Y)
        predictor = lambda: est.estimator_.predict(X_bad)  # noqa: E731
    else:
        est = MultiTaskSparseBoostRegressor(**SMALL).fit(X, Y, TASK)
        predictor = lambda: est.predict(X_bad, TASK)  # noqa: E731
    with pytest.raises(ValueError):
        predictor()
    with pytest.raises((ValueError, TypeError), match=r"\bX\b"):
        est.transform(X_bad)


@pytest.mark.parametrize("noise", [np.nan, np.inf, -np.inf, 1e308])
@pytest.mark.parametrize("maker", ["make_synthetic", "make_multitask"])
def test_datasets_reject_non_finite_or_huge_noise(maker, noise):
    make = lambda: (
        make_synthetic(60, 4, noise=noise)
        if maker == "make_synthetic"  # noqa: E731
        else make_multitask((30, 30), 12, noise=noise)
    )
    ok, out = attempt(make, {"noise"}, f"{maker}(noise={noise})")
    if ok:
        assert np.all(np.isfinite(out[0])) and np.all(np.isfinite(out[1])), (
            f"{maker}(noise={noise}) gave y={out[1][:5]}"
        )


# -- 4. corrupted model files (loaded in a child process) --------------------------


@pytest.fixture(scope="module")
def worker():
    w = ModelFileWorker(timeout=10.0)
    yield w
    w.stop()


def saved(kind):
    if kind == "regressor":
        est = SparseBoostRegressor(**SMALL).fit(X, Y)
    elif kind == "classifier":
        est = SparseBoostClassifier(**SMALL).fit(X, np.where(Y > 2, "yes", "no"))
    elif kind == "multitask":
        est = MultiTaskSparseBoostRegressor(**SMALL).fit(X, Y, TASK)
    else:
        est = MultiTaskSparseBoostClassifier(**SMALL).fit(X, classes_for(TASK), TASK)
    path = tmp_path(".json")
    est.save_model(path)
    with open(path) as f:
        return json.load(f)


def first_split(doc):
    trees = doc["model"]["tasks"][0]["trees"] if "tasks" in doc["model"] else doc["model"]["trees"]
    return trees[0]["nodes"][0]


def leaves(doc, n_trees):
    trees = doc["model"]["tasks"][0]["trees"] if "tasks" in doc["model"] else doc["model"]["trees"]
    return [node for tree in trees[:n_trees] for node in tree["nodes"] if node["is_leaf"]]


def set_all(nodes, key, value):
    for node in nodes:
        node[key] = value


CORRUPTIONS = {
    "n_features_2**40": ("regressor", "n_features", lambda d: d["model"].update(n_features=2**40)),
    "n_features_2**62": ("regressor", "n_features", lambda d: d["model"].update(n_features=2**62)),
    "regressor_with_binary_logloss": (
        "regressor",
        "objective",
        lambda d: d["model"].update(objective="binary_logloss"),
    ),
    "classes_of_length_3": (
        "classifier",
        "classes_",
        lambda d: d["fitted"].update(classes_=["no", "yes", "maybe"]),
    ),
    "classes_duplicated": (
        "classifier",
        "classes_",
        lambda d: d["fitted"].update(classes_=["yes", "yes"]),
    ),
    "feature_names_of_wrong_length": (
        "regressor",
        "feature_names_in_",
        lambda d: d["fitted"].update(feature_names_in_=["a", "b"]),
    ),
    "single_task_file_named_multitask": (
        "regressor",
        "estimator",
        lambda d: d.update(estimator="MultiTaskSparseBoostRegressor"),
    ),
    "multitask_file_named_single_task": (
        "multitask",
        "estimator",
        lambda d: d.update(estimator="SparseBoostRegressor"),
    ),
    "tasks_duplicated": ("multitask", "tasks_", lambda d: d["fitted"].update(tasks_=[0, 0])),
    "selected_feature_out_of_range": (
        "regressor",
        "selected_features",
        lambda d: d["model"].update(selected_features=[0, 99]),
    ),
    "leaf_values_1e308_in_two_trees": (
        "regressor",
        "value",
        lambda d: set_all(leaves(d, 2), "value", 1e308),
    ),
    "child_points_to_itself": ("regressor", "left", lambda d: first_split(d).update(left=0)),
    "child_out_of_range": ("regressor", "left", lambda d: first_split(d).update(left=10**6)),
    "threshold_nan": (
        "regressor",
        "threshold",
        lambda d: first_split(d).update(threshold=float("nan")),
    ),
    "threshold_string": (
        "regressor",
        "threshold",
        lambda d: first_split(d).update(threshold="0.5"),
    ),
    "base_score_nan": (
        "regressor",
        "base_score",
        lambda d: d["model"].update(base_score=float("nan")),
    ),
    "n_features_in_string": (
        "regressor",
        "n_features_in_",
        lambda d: d["fitted"].update(n_features_in_="4"),
    ),
    "multitask_leaf_values_1e308": (
        "multitask_classifier",
        "value",
        lambda d: set_all(leaves(d, 2), "value", 1e308),
    ),
}


@pytest.mark.parametrize("case", list(CORRUPTIONS))
def test_corrupted_model_file_is_rejected_naming_the_field_or_predicts_finite(worker, case):
    kind, field, corrupt = CORRUPTIONS[case]
    doc = copy.deepcopy(saved(kind))
    corrupt(doc)
    path = tmp_path(".json")
    with open(path, "w") as f:
        json.dump(doc, f)
    results = worker.run(path, X[:6], TASK[:6] if kind.startswith("multitask") else None)
    problems = check_worker_results(results, {field}, 6)
    assert not problems, f"{case}: " + "; ".join(problems)


def test_n_jobs_100000_in_a_model_file_is_capped_or_rejected(worker):
    """load_model rejects the file naming n_jobs, or prediction works and
    finishes quickly (no 100000 threads)."""
    doc = saved("regressor")
    doc["params"]["n_jobs"] = 100000
    path = tmp_path(".json")
    with open(path, "w") as f:
        json.dump(doc, f)
    import time

    worker.run(tmp_path(".json"), X[:6])  # the child is up before the clock starts
    start = time.monotonic()
    results = worker.run(path, X[:6])
    elapsed = time.monotonic() - start
    assert not check_worker_results(results, {"n_jobs"}, 6), check_worker_results(
        results, {"n_jobs"}, 6
    )
    assert elapsed < 5, f"loading and predicting took {elapsed:.1f} s"


# -- 5. saving ------------------------------------------------------------------------


def test_save_that_fails_half_way_leaves_the_previous_file_intact(monkeypatch):
    """The JSON encoder fails after its first (half) chunk, whichever of
    json.dump or json.dumps save_model uses: the old file must survive."""
    path = tmp_path(".json")
    old = SparseBoostRegressor(**SMALL).fit(X, Y)
    old.save_model(path)
    before = open(path, "rb").read()
    new = SparseBoostRegressor(**{**SMALL, "n_estimators": 5}).fit(X, Y)
    real = json.JSONEncoder.iterencode

    def failing(self, o, _one_shot=False):
        for chunk in real(self, o, _one_shot):
            yield chunk[: len(chunk) // 2]
            raise OSError("No space left on device (simulated)")

    monkeypatch.setattr(json.JSONEncoder, "iterencode", failing)
    with pytest.raises(OSError, match="simulated"):
        new.save_model(path)
    monkeypatch.undo()
    assert open(path, "rb").read() == before, "the failed save changed the file at that path"
    np.testing.assert_array_equal(sparseboost.load_model(path).predict(X), old.predict(X))


def test_save_whose_final_rename_fails_leaves_the_previous_file_intact(monkeypatch):
    """A save that writes elsewhere and renames over the old file: if the
    rename fails, the old file is intact (a save that does not rename must
    simply succeed)."""
    path = tmp_path(".json")
    old = SparseBoostRegressor(**SMALL).fit(X, Y)
    old.save_model(path)
    before = open(path, "rb").read()
    new = SparseBoostRegressor(**{**SMALL, "n_estimators": 5}).fit(X, Y)

    def failing(*args, **kwargs):
        raise OSError("rename failed (simulated)")

    monkeypatch.setattr(os, "replace", failing)
    monkeypatch.setattr(os, "rename", failing)
    try:
        new.save_model(path)
    except OSError:
        monkeypatch.undo()
        assert open(path, "rb").read() == before, "the failed save changed the file at that path"
    else:
        monkeypatch.undo()
        np.testing.assert_array_equal(sparseboost.load_model(path).predict(X), new.predict(X))


def test_save_of_an_unserialisable_model_leaves_the_previous_file_intact():
    path = tmp_path(".json")
    old = MultiTaskSparseBoostRegressor(**SMALL).fit(X, Y, TASK)
    old.save_model(path)
    before = open(path, "rb").read()
    new = MultiTaskSparseBoostRegressor(**SMALL)
    objs = [object(), object()]
    task = np.array([objs[t] for t in TASK], dtype=object)
    ok, _ = attempt(lambda: new.fit(X, Y, task), {"task"}, "fit with object task labels")
    if not ok:  # the labels were refused: make the parameters unserialisable instead
        new = MultiTaskSparseBoostRegressor(**SMALL).fit(X, Y, TASK)
        new.gt_max_rows = object()
    try:
        new.save_model(path)
    except Exception:  # noqa: BLE001 - the save may fail; the old file must survive it
        assert open(path, "rb").read() == before, "the failed save changed the file at that path"
        np.testing.assert_array_equal(
            sparseboost.load_model(path).predict(X, TASK), old.predict(X, TASK)
        )
    else:
        sparseboost.load_model(path)  # a save that succeeded must give a loadable file


def test_feature_costs_dict_by_index_survives_save_and_load_and_refits():
    est = SparseBoostRegressor(**SMALL, feature_costs={3: 1.0}).fit(X, Y)
    path = tmp_path(".json")
    est.save_model(path)
    loaded = sparseboost.load_model(path)
    assert loaded.get_params() == est.get_params()
    refit = clone(loaded).fit(X, Y)
    assert refit._model.to_json() == est._model.to_json()


def test_uint64_labels_survive_save_and_load():
    labels = np.array([0, 2**64 - 1], dtype=np.uint64)
    y = labels[(Y > np.median(Y)).astype(int)]
    est = SparseBoostClassifier(**SMALL).fit(X, y)
    path = tmp_path(".json")
    est.save_model(path)
    loaded = sparseboost.load_model(path)
    assert loaded.classes_.dtype == np.uint64
    assert loaded.classes_.tolist() == [0, 2**64 - 1]
    np.testing.assert_array_equal(loaded.predict(X), est.predict(X))


# -- 6. messages that do not name the argument, or the wrong exception -------------

UNCLEAR = {
    "ragged_X": (lambda: SparseBoostRegressor(**SMALL).fit([[1.0, 2.0]] * 39 + [[1.0]], Y), "X"),
    "X_cell_is_a_list": (
        lambda: SparseBoostRegressor(**SMALL).fit(
            np.array([[1.0, [2.0]]] * 40 + [], dtype=object), Y
        ),
        "X",
    ),
    "X_cell_is_a_dict": (
        lambda: SparseBoostRegressor(**SMALL).fit(np.array([[{}, 1.0]] * 40, dtype=object), Y),
        "X",
    ),
    "X_of_non_numeric_strings": (
        lambda: SparseBoostRegressor(**SMALL).fit(np.full((40, 2), "a"), Y),
        "X",
    ),
    "labels_of_str_and_None": (
        lambda: SparseBoostClassifier(**SMALL).fit(
            X, np.array(["b", "a", None, "a"] * 10, dtype=object)
        ),
        "y",
    ),
    "sample_weight_ragged": (
        lambda: SparseBoostRegressor(**SMALL).fit(X, Y, sample_weight=[[1.0]] * 39 + [1.0]),
        "sample_weight",
    ),
    "feature_bags_of_str_and_int": (
        lambda: SparseBoostRegressor(**SMALL, feature_bags=[0, "a", 1, None]).fit(X, Y),
        "feature_bags",
    ),
    "random_state_2**64": (
        lambda: SparseBoostRegressor(**{**SMALL, "random_state": 2**64}).fit(X, Y),
        "random_state",
    ),
    "random_state_-1": (
        lambda: SparseBoostRegressor(**{**SMALL, "random_state": -1}).fit(X, Y),
        "random_state",
    ),
    "random_state_a_Generator": (
        lambda: SparseBoostRegressor(**{**SMALL, "random_state": np.random.default_rng(0)}).fit(
            X, Y
        ),
        "random_state",
    ),
    "gt_delta_1e-310": (
        lambda: SparseBoostRegressor(**SMALL, split_search="group_testing", gt_delta=1e-310).fit(
            X, Y
        ),
        "gt_delta",
    ),
    "X_with_0_rows": (lambda: SparseBoostRegressor(**SMALL).fit(X[:0], Y[:0]), "X"),
    "X_1d": (lambda: SparseBoostRegressor(**SMALL).fit(X[:, 0], Y), "X"),
    "X_and_y_of_different_lengths": (
        lambda: SparseBoostRegressor(**SMALL).fit(X, Y[:30]),
        ("X", "y"),
    ),
}


@pytest.mark.parametrize("case", list(UNCLEAR))
def test_error_message_names_the_argument(case):
    call, name = UNCLEAR[case]
    ok, _ = attempt(call, {name} if isinstance(name, str) else set(name), case)
    if ok and name not in ("random_state", "gt_delta"):
        pytest.fail(f"{case} was accepted")


def test_n_jobs_2_to_the_63_is_accepted_or_named():
    problem = parameter_case_in_subprocess("n_jobs", "2**63")
    assert problem is None, problem


def test_n_estimators_given_as_a_string_is_named_and_quoted():
    with pytest.raises(TypeError) as info:
        SparseBoostRegressor(**{**SMALL, "n_estimators": "3"}).fit(X, Y)
    message = str(info.value)
    assert names_any(message, {"n_estimators"}), message
    assert "'3'" in message or "str" in message, (
        f"the message hides that '3' is a string: {message}"
    )


UNFITTED_MEMBERS = [
    "get_support()",
    "transform(X)",
    "selected_feature_names_",
    "selected_features_",
    "feature_importances_",
    "get_feature_importance()",
    "predict(X)",
    "n_trees_",
    "train_loss_",
    "feature_entry_tree_",
    "selection_path_",
    "get_feature_names_out()",
]
MULTITASK_UNFITTED = [
    "task_feature_importances_",
    "task_selected_features_",
    "predict(X, TASK)",
    "score(X, Y, TASK)",
]


@pytest.mark.parametrize(
    "cls, member",
    [
        (c, m)
        for c in ALL
        for m in UNFITTED_MEMBERS
        if not (c.__name__.startswith("MultiTask") and m == "predict(X)")
        and hasattr(c, m.split("(")[0])
    ]
    + [
        (c, m)
        for c in (MultiTaskSparseBoostRegressor, MultiTaskSparseBoostClassifier)
        for m in MULTITASK_UNFITTED
    ]
    + [(SparseBoostSelector, m) for m in ("get_support()", "transform(X)", "selected_features_")],
    ids=lambda v: v.__name__ if isinstance(v, type) else v,
)
def test_unfitted_estimator_raises_not_fitted_error(cls, member):
    est = cls()
    with pytest.raises(NotFittedError):
        eval(f"est.{member}", {"est": est, "X": X, "Y": Y, "TASK": TASK, "PATH": tmp_path(".json")})


# -- 7. group testing with one long subset ------------------------------------------


@pytest.fixture(scope="module")
def one_planted_among_100000():
    d, j = 100_000, 77_777
    X_wide = np.zeros((40, d))
    X_wide[:, j] = np.random.default_rng(0).random(40)
    y = 2.0 * (X_wide[:, j] > 0.5) + X_wide[:, j]
    return X_wide, y, j


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_group_testing_with_one_long_subset_finds_the_planted_feature(
    one_planted_among_100000, seed
):
    """s = 1: one subset of all 100,000 features. Its quantized levels must
    not all be 0, or the binary search always keeps the left half and ends
    at the subset's first feature (the booster's root rescue hides this,
    so the candidates are checked directly)."""
    X_wide, y, j = one_planted_among_100000
    found, n_subsets, _ = _core.group_testing_candidates(
        X_wide, y, 1, 0.1, seed=seed, min_samples_leaf=2
    )
    assert j in found, (
        f"the candidates {found} of {n_subsets} subset(s) miss the planted feature {j}"
    )
    est = SparseBoostRegressor(
        n_estimators=2,
        min_samples_leaf=2,
        split_search="group_testing",
        gt_n_features=1,
        random_state=seed,
        n_jobs=1,
    ).fit(X_wide, y)
    assert est.selected_features_.tolist() == [j]


# -- found by the property suite (long profile) ----------------------------------------


def test_object_task_labels_with_a_one_row_task_are_rejected_naming_task():
    task = np.array([1] * 39 + [2], dtype=object)
    with pytest.raises((ValueError, TypeError), match=r"\btask\b"):
        MultiTaskSparseBoostRegressor(**SMALL).fit(X, Y, task)


@pytest.mark.parametrize(
    "name", ["learning_rate", "subsample", "colsample_bytree", "min_child_weight"]
)
def test_numpy_bool_parameter_is_rejected_or_survives_save_and_load(name):
    """True is refused for a real-valued parameter; np.True_ must be too, or
    the fitted model must save and load."""
    est = SparseBoostRegressor(**{**SMALL, name: np.True_})
    ok, _ = attempt(lambda: est.fit(X, Y), {name}, f"fit with {name}=np.True_")
    if ok:
        path = tmp_path(".json")
        est.save_model(path)
        np.testing.assert_array_equal(sparseboost.load_model(path).predict(X), est.predict(X))


@pytest.mark.parametrize(
    "cls", [SparseBoostRegressor, MultiTaskSparseBoostRegressor], ids=lambda c: c.__name__
)
def test_score_on_a_single_row_is_finite_or_rejected(cls):
    """R² of one row is undefined (scikit-learn returns NaN): a finite score
    or a ValueError naming X or y."""
    est = cls(**SMALL).fit(*fit_args(cls))
    args = (X[:1], Y[:1], TASK[:1]) if cls is MultiTaskSparseBoostRegressor else (X[:1], Y[:1])
    ok, score = attempt(lambda: est.score(*args), {"X", "y"}, "score on one row")
    if ok:
        assert np.isfinite(score), f"score on one row is {score}"


def test_object_labels_with_a_single_class_task_are_rejected_naming_y():
    y = np.array(["neg", "pos"] * 20, dtype=object)  # task 0 holds only "neg", task 1 only "pos"
    with pytest.raises((ValueError, TypeError), match=r"\by\b"):
        MultiTaskSparseBoostClassifier(**SMALL).fit(X, y, TASK)
