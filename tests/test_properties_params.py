"""Property tests: every constructor parameter, the same seed giving the
same model whatever n_jobs is, sparseboost.datasets and the main command
(see contract.py for the contract)."""

import contextlib
import io
import math
import os

import numpy as np
import pandas as pd
import pytest
import sparseboost
from contract import ContractViolation, attempt, budget, check_fitted, example, tally, tmp_path
from hypothesis import given, settings
from hypothesis import strategies as st
from model_files import parameter_case_in_subprocess
from parameter_strategies import (
    FAST,
    SCALAR_PARAMETERS,
    feature_bags_values,
    feature_costs_values,
    parameter_values,
    task_feature_masks,
    valid_params,
)
from sparseboost import (
    MultiTaskSparseBoostClassifier,
    MultiTaskSparseBoostRegressor,
    SparseBoostClassifier,
    SparseBoostRegressor,
)
from sparseboost.cli.demo import main  # the synthetic demo's options
from sparseboost.datasets import make_multitask, make_synthetic
from strategies import classes_for, estimator_classes, float_matrix, good_d

pytestmark = pytest.mark.filterwarnings("ignore")


def training_data(data, d, frame):
    X = data.draw(float_matrix(30, d), label="X")
    names = [f"c{j}" for j in range(d)]
    if frame:
        X = pd.DataFrame(X, columns=names)
    return X, names if frame else None


def companions(data, name):
    """split_search and penalty, so that the gt_* and mu values are used."""
    extra = {}
    if name != "split_search":
        extra["split_search"] = data.draw(
            st.sampled_from(["exhaustive", "group_testing"]), label="split_search"
        )
    if name != "penalty":
        extra["penalty"] = data.draw(st.sampled_from(["agbm", "gbfs", "none"]), label="penalty")
    return extra


@settings(max_examples=budget(480))
@given(data=st.data())
def test_any_parameter_value_is_accepted_or_named(data):
    example()
    cls = data.draw(
        st.sampled_from([SparseBoostRegressor, SparseBoostClassifier]), label="estimator"
    )
    name = data.draw(
        st.sampled_from(SCALAR_PARAMETERS + ["feature_costs", "feature_bags"]), label="parameter"
    )
    d = data.draw(good_d, label="d")
    X, names = training_data(data, d, data.draw(st.booleans(), label="DataFrame"))
    if name == "feature_costs":
        value = data.draw(feature_costs_values(d, names), label="value")
    elif name == "feature_bags":
        value = data.draw(feature_bags_values(d), label="value")
    else:
        value = data.draw(parameter_values(name), label="value")
    y = (
        np.arange(30) % 2
        if cls is SparseBoostClassifier
        else np.asarray(X.iloc[:, 0] if names else X[:, 0]) * 3 + np.arange(30) % 3
    )
    params = {**FAST, **companions(data, name), name: value}
    ok, est = attempt(lambda: cls(**params), {name}, f"{cls.__name__}({name}={value!r})")
    if ok:
        ok, _ = attempt(lambda: est.fit(X, y), {name}, f"fit with {name}={value!r}")
    tally(ok)
    if ok:
        check_fitted(est, X, y)


SINGLE_TASK_ONLY = ("mu", "max_selected_features", "max_features")
MULTITASK_PARAMETERS = [p for p in SCALAR_PARAMETERS if p not in SINGLE_TASK_ONLY] + [
    "mu_group",
    "mu_task",
    "shared_rounds",
    "task_feature_mask",
    "feature_costs",
    "feature_bags",
    *SINGLE_TASK_ONLY,
]


@settings(max_examples=budget(320))
@given(data=st.data())
def test_any_multitask_parameter_value_is_accepted_or_named(data):
    example()
    cls = data.draw(
        st.sampled_from([MultiTaskSparseBoostRegressor, MultiTaskSparseBoostClassifier]),
        label="estimator",
    )
    name = data.draw(st.sampled_from(MULTITASK_PARAMETERS), label="parameter")
    d = data.draw(good_d, label="d")
    T = data.draw(st.integers(1, 3), label="n_tasks")
    X, _ = training_data(data, d, data.draw(st.booleans(), label="DataFrame"))
    task = np.arange(30) % T
    if name == "task_feature_mask":
        value = data.draw(task_feature_masks(T, d), label="value")
    elif name in ("feature_costs", "feature_bags"):
        value = np.ones(d)
    else:
        value = data.draw(parameter_values(name), label="value")
    y = classes_for(task) if cls is MultiTaskSparseBoostClassifier else np.arange(30) % 4 * 1.0
    params = {**FAST, **companions(data, name), name: value}
    ok, est = attempt(lambda: cls(**params), {name}, f"{cls.__name__}({name}={value!r})")
    if ok:
        ok, _ = attempt(lambda: est.fit(X, y, task), {name}, f"fit with {name}={value!r}")
    tally(ok)
    if ok:
        check_fitted(est, X, y, task=task)


@settings(max_examples=budget(240))
@given(data=st.data())
def test_same_int_random_state_gives_the_same_model_with_1_and_2_threads(data):
    example()
    cls = data.draw(estimator_classes, label="estimator")
    multitask = cls.__name__.startswith("MultiTask")
    params = data.draw(valid_params(multitask=multitask), label="params")
    n = data.draw(st.integers(8, 60), label="n")
    d = data.draw(good_d, label="d")
    X = data.draw(
        float_matrix(n, d, dirty=True).map(lambda A: np.where(np.isinf(A), np.nan, A)), label="X"
    )
    task = np.arange(n) % data.draw(st.integers(1, 3), label="n_tasks")
    if cls in (SparseBoostClassifier, MultiTaskSparseBoostClassifier):
        y = classes_for(task)
    else:
        y = np.nan_to_num(X[:, 0], nan=1.0) + np.arange(n) % 3
    fit_args = (X, y, task) if multitask else (X, y)
    models = []
    for n_jobs in (1, 2, 2):
        est = cls(**{**params, "n_jobs": n_jobs})
        ok, _ = attempt(
            lambda: est.fit(*fit_args), set(params) | {"X", "y"}, f"fit with n_jobs={n_jobs}"
        )
        if not ok:
            tally(False)
            return
        models.append(est._model.to_json())
    tally(True)
    if not models[0] == models[1] == models[2]:
        raise ContractViolation(
            "the same random_state gave different models with n_jobs=1 and n_jobs=2"
        )


# -- values that could start thousands of threads or a fit without end ------


@pytest.mark.parametrize(
    "name, value",
    [
        ("n_jobs", "2000"),
        ("n_jobs", "100000"),
        ("n_jobs", "2**31"),
        ("n_jobs", "2**63"),
        ("n_jobs", "2**64"),
        ("n_jobs", "2**70"),
        ("n_estimators", "2**62"),
        ("n_estimators", "2**63"),
        ("n_estimators", "2**70"),
    ],
)
def test_dangerous_parameter_values_in_a_subprocess(name, value):
    """Accepted (finite predictions, within 25 s) or rejected naming the
    parameter; never a hang, a crash or thousands of threads' worth of time."""
    problem = parameter_case_in_subprocess(name, value)
    assert problem is None, problem


# -- sparseboost.datasets -------------------------------------------------------

SIZE_NASTY = [0, -1, 3.0, 2.5, "3", None, math.nan, True, np.int64(4), 2**63, 2**70, -(2**63), [3]]
NOISE_VALUES = [
    0.0,
    1.0,
    0.5,
    1e-310,
    math.nan,
    math.inf,
    -math.inf,
    1e308,
    -1.0,
    "1",
    None,
    np.float32(2),
    True,
]
RANDOM_STATES = [
    0,
    1,
    None,
    2**32,
    2**64 - 1,
    2**64,
    -1,
    2**70,
    "0",
    1.5,
    np.int64(3),
    np.random.default_rng(0),
]


def dataset_argument(data, valid, nasty, name):
    return data.draw(st.one_of(st.sampled_from(valid), st.sampled_from(nasty)), label=name)


@settings(max_examples=budget(480))
@given(data=st.data())
def test_make_synthetic_accepts_arguments_or_names_them(data):
    example()
    args = {
        "n_samples": data.draw(st.integers(1, 60), label="n_samples"),
        "n_features": data.draw(st.integers(3, 8), label="n_features"),
        "noise": 1.0,
        "task": data.draw(st.sampled_from(["regression", "classification"]), label="task"),
        "random_state": 0,
        "dtype": np.float64,
    }
    name = data.draw(st.sampled_from(sorted(args)), label="argument")
    choices = {
        "n_samples": ([1, 2, 60], SIZE_NASTY),
        "n_features": ([3, 8], SIZE_NASTY + [2, 2**62]),
        "noise": (NOISE_VALUES[:3], NOISE_VALUES[3:]),
        "task": (["regression", "classification"], ["Regression", "", None, 1, "multiclass"]),
        "random_state": (RANDOM_STATES[:4], RANDOM_STATES[4:]),
        "dtype": (
            [np.float64, np.float32, "float32"],
            [np.float16, np.int64, object, "f8x", None, str],
        ),
    }[name]
    args[name] = dataset_argument(data, *choices, name)
    ok, out = attempt(
        lambda: make_synthetic(**args), {name}, f"make_synthetic({name}={args[name]!r})"
    )
    tally(ok)
    if ok:
        X, y = out
        n, d = int(args["n_samples"]), int(args["n_features"])
        if not (isinstance(X, np.ndarray) and X.shape == (n, d) and np.all(np.isfinite(X))):
            raise ContractViolation(
                f"make_synthetic gave X of shape {getattr(X, 'shape', None)} (wanted {(n, d)})"
            )
        if not (y.shape == (n,) and np.all(np.isfinite(y))):
            raise ContractViolation(
                f"make_synthetic gave a non-finite y or shape {y.shape}: {y[:5]}"
            )


@settings(max_examples=budget(480))
@given(data=st.data())
def test_make_multitask_accepts_arguments_or_names_them(data):
    example()
    args = {
        "task_sizes": tuple(
            data.draw(st.lists(st.integers(1, 15), min_size=1, max_size=3), label="task_sizes")
        ),
        "n_features": 12,
        "n_shared": data.draw(st.integers(0, 3), label="n_shared"),
        "n_private": data.draw(st.integers(0, 2), label="n_private"),
        "noise": 1.0,
        "task": data.draw(st.sampled_from(["regression", "classification"]), label="task"),
        "random_state": 0,
    }
    name = data.draw(st.sampled_from(sorted(args)), label="argument")
    choices = {
        "task_sizes": (
            [(3,), (2, 5), np.array([4, 4])],
            [(), (0,), (-1, 3), (2.5,), ("3",), None, 3, (2**63,), (math.nan,), [[2, 2]], "ab"],
        ),
        "n_features": ([10, 12], SIZE_NASTY),
        "n_shared": ([0, 2], SIZE_NASTY),
        "n_private": ([0, 1], SIZE_NASTY),
        "noise": (NOISE_VALUES[:3], NOISE_VALUES[3:]),
        "task": (["regression", "classification"], ["Regression", "", None, 1]),
        "random_state": (RANDOM_STATES[:4], RANDOM_STATES[4:]),
    }[name]
    args[name] = dataset_argument(data, *choices, name)
    ok, out = attempt(
        lambda: make_multitask(**args), {name}, f"make_multitask({name}={args[name]!r})"
    )
    tally(ok)
    if ok:
        X, y, task, relevant = out
        n = int(np.sum(args["task_sizes"]))
        if not (X.shape == (n, int(args["n_features"])) and np.all(np.isfinite(X))):
            raise ContractViolation(f"make_multitask gave X of shape {X.shape}")
        if not (y.shape == (n,) and task.shape == (n,) and np.all(np.isfinite(y))):
            raise ContractViolation(f"make_multitask gave a non-finite y or wrong shapes: {y[:5]}")


# -- the main command ---------------------------------------------------------------

OPTION_VALUES = {
    "--n-samples": ["20", "40", "60", "1", "0", "-5", "2.5", "abc", "", "9" * 30],
    "--n-features": ["3", "5", "8", "2", "0", "-1", "x"],
    "--task": ["regression", "classification", "ranking", ""],
    "--n-estimators": ["1", "3", "5", "0", "-2", "1e3"],
    "--random-state": ["0", "7", "-1", str(2**64), str(2**63), "0x10"],
    "--split-search": ["exhaustive", "group_testing", "gt"],
    "--gt-n-features": ["1", "3", "0", "-4", "100"],
    "--save": ["FILE", "DIR", "/nonexistent-dir/model.json", ""],
}


@settings(max_examples=budget(320))
@given(data=st.data())
def test_main_returns_0_or_exits_with_a_message(data):
    example()
    argv = ["--n-samples", "40", "--n-features", "4", "--n-estimators", "3"]
    options = data.draw(
        st.lists(st.sampled_from(sorted(OPTION_VALUES)), max_size=4, unique=True), label="options"
    )
    saved = None
    for option in options:
        value = data.draw(st.sampled_from(OPTION_VALUES[option]), label=option)
        if value == "FILE":
            value = saved = tmp_path(".json")
        elif value == "DIR":
            value = os.path.dirname(tmp_path())
        argv += [option, value]
    if data.draw(st.booleans(), label="a stray token"):
        argv.append(
            data.draw(st.sampled_from(["--bogus", "extra", "-h", "--n-samples"]), label="token")
        )
    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(argv)
    except SystemExit as e:
        tally(False)
        if (
            e.code not in (0, None)
            and not (isinstance(e.code, str) and e.code.strip())
            and not err.getvalue().strip()
        ):
            raise ContractViolation(f"main({argv}) exited with {e.code!r} and no message")
        return
    except BaseException as e:  # noqa: BLE001
        raise ContractViolation(
            f"main({argv}) raised {type(e).__name__} instead of returning 0 or exiting with a message: {e}"
        ) from e
    tally(True)
    if code != 0:
        raise ContractViolation(f"main({argv}) returned {code!r}")
    if saved is not None:
        est = sparseboost.load_model(saved)
        p = est.predict(np.random.default_rng(0).random((5, est.n_features_in_)))
        if not np.all(np.isfinite(p)):
            raise ContractViolation(f"the model saved by main({argv}) predicts {p}")


@settings(max_examples=budget(100))
@given(data=st.data())
def test_get_feature_importance_accepts_its_arguments_or_names_them(data):
    example()
    multitask = data.draw(st.booleans(), label="multitask")
    X = data.draw(float_matrix(30, 3), label="X")
    if multitask:
        est = MultiTaskSparseBoostRegressor(**FAST).fit(
            X, np.arange(30) % 4 * 1.0, np.arange(30) % 2
        )
    else:
        est = SparseBoostRegressor(**FAST).fit(X, np.arange(30) % 4 * 1.0)
    args = {}
    names = set()
    for name, values in (
        ("kind", ["gain", "split", "Gain", "weight", None, 3, b"gain"]),
        ("normalize", [True, False, None, "yes", 2, np.bool_(True)]),
        ("task", [0, 1, 5, "a", None, [0], np.int64(1), np.nan]),
    ):
        if (name != "task" or multitask) and data.draw(st.booleans(), label=f"pass {name}"):
            args[name] = data.draw(st.sampled_from(values), label=name)
            names.add(name)
    ok, values = attempt(
        lambda: est.get_feature_importance(**args), names, f"get_feature_importance(**{args})"
    )
    tally(ok)
    if ok:
        values = np.asarray(values)
        if not (values.shape == (3,) and np.all(np.isfinite(values)) and np.all(values >= 0)):
            raise ContractViolation(f"get_feature_importance(**{args}) gave {values!r}")
