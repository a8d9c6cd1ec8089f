"""Property tests: save_model/load_model and pickle round trips are exact,
and a corrupted model file is rejected (naming the field) or still gives a
model with finite outputs; corrupted files are loaded in a child process, so
that one which aborts the interpreter is a failure, not the end of pytest."""

import copy
import functools
import json
import math

import numpy as np
import pandas as pd
import pytest
import sparseboost
from contract import (
    ContractViolation,
    attempt,
    budget,
    check_round_trips,
    example,
    must,
    tally,
    tmp_path,
)
from hypothesis import Phase, given, settings
from hypothesis import strategies as st
from model_files import ModelFileWorker, check_worker_results, get_path, leaf_paths, path_names
from parameter_strategies import valid_params
from sklearn.base import clone
from sparseboost import (
    MultiTaskSparseBoostClassifier,
    MultiTaskSparseBoostRegressor,
    SparseBoostClassifier,
    SparseBoostRegressor,
)
from strategies import classes_for, estimator_classes, float_matrix, good_d

pytestmark = pytest.mark.filterwarnings("ignore")

# labels the classifiers accept (test_properties_inputs.py tries the others)
LABELS = [
    (0, 1),
    (-3, 7),
    ("a", "b"),
    ("é", "列"),
    (False, True),
    (np.uint64(0), np.uint64(2**64 - 1)),
    (np.int64(-(2**63)), np.int64(2**63 - 1)),
    (np.int8(-1), np.int8(1)),
    (0.0, 1.0),
]
TASKS = [
    np.array([0, 1, 2]),
    np.array(["t0", "t1", "t2"]),
    np.array([-5, 2**40, 7]),
    np.array([0, 2**64 - 1, 2**63], dtype=np.uint64),
    np.array([0.5, 1.5, -2.0]),
]


@settings(max_examples=budget(190))
@given(data=st.data())
def test_save_load_and_pickle_are_exact_and_the_loaded_estimator_refits(data):
    example()
    cls = data.draw(estimator_classes, label="estimator")
    multitask = cls.__name__.startswith("MultiTask")
    params = data.draw(valid_params(multitask=multitask), label="params")
    n = data.draw(st.integers(12, 60), label="n")
    d = data.draw(good_d, label="d")
    X = data.draw(
        float_matrix(n, d, dirty=True).map(lambda A: np.where(np.isinf(A), np.nan, A)), label="X"
    )
    names = None
    if data.draw(st.booleans(), label="DataFrame"):
        names = data.draw(
            st.lists(
                st.text(min_size=1, max_size=4).filter(lambda s: s.strip()),
                min_size=d,
                max_size=d,
                unique=True,
            ),
            label="columns",
        )
        X = pd.DataFrame(X, columns=names)
    if not multitask and data.draw(st.booleans(), label="feature_costs"):
        keys = (
            st.one_of(st.integers(0, d - 1), st.sampled_from(names))
            if names
            else st.integers(0, d - 1)
        )
        params["feature_costs"] = data.draw(
            st.dictionaries(keys, st.floats(0, 2), max_size=2), label="costs"
        )
    task_labels = data.draw(st.sampled_from(TASKS), label="task labels")
    codes = np.arange(n) % 3
    task = task_labels[codes] if multitask else None
    if cls in (SparseBoostClassifier, MultiTaskSparseBoostClassifier):
        a, b = data.draw(st.sampled_from(LABELS), label="labels")
        y = np.where(classes_for(codes) == 1, np.array([b]), np.array([a]))
    else:
        y = np.nan_to_num(np.asarray(X)[:, 0].astype(float), nan=0.5) + codes
    fit_args = (X, y, task) if multitask else (X, y)
    est = cls(**params)
    ok, _ = attempt(lambda: est.fit(*fit_args), {"y", "task"} | set(params), "fit")
    tally(ok)
    if not ok:
        return
    check_round_trips(est, X, task)
    path = tmp_path(".json")
    est.save_model(path)
    loaded = must(lambda: sparseboost.load_model(path), "load_model")
    if loaded.get_params() != est.get_params():
        raise ContractViolation(
            f"parameters changed in a save: {est.get_params()} -> {loaded.get_params()}"
        )
    for attr in ("classes_", "tasks_", "feature_names_in_"):
        if hasattr(est, attr):
            a, b = getattr(est, attr), getattr(loaded, attr, None)
            if b is None or a.dtype != b.dtype or a.tolist() != b.tolist():
                raise ContractViolation(f"{attr} changed in a save: {a!r} -> {b!r}")
    refit = clone(loaded)
    must(lambda: refit.fit(*fit_args), "clone(load_model(path)).fit")
    if refit._model.to_json() != est._model.to_json():
        raise ContractViolation("the loaded estimator refits to a different model")


# -- corrupted model files ---------------------------------------------------

JSON_NASTY = [
    None,
    True,
    False,
    0,
    1,
    -1,
    2,
    7,
    2**31,
    2**40,
    2**53 + 1,
    2**62,
    2**63,
    2**64,
    -(2**63),
    10**30,
    0.5,
    -0.5,
    1e308,
    -1e308,
    5e-324,
    math.nan,
    math.inf,
    -math.inf,
    "",
    "0.5",
    "abc",
    "binary_logloss",
    "squared_error",
    "SparseBoostRegressor",
    "MultiTaskSparseBoostClassifier",
    [],
    [0],
    [0, 0],
    [1, 0],
    ["a", "a"],
    {},
    {"a": 1},
]


@functools.lru_cache(maxsize=None)
def base_documents():
    """Saved files of small real fits, by name."""
    rng = np.random.default_rng(0)
    X = rng.random((40, 4))
    y = X[:, 0] * 3 + X[:, 1]
    task = np.arange(40) % 2
    small = {
        "n_estimators": 2,
        "max_leaves": 4,
        "min_samples_leaf": 3,
        "random_state": 0,
        "n_jobs": 1,
    }
    models = {
        "regressor": SparseBoostRegressor(**small).fit(X, y),
        "regressor_names": SparseBoostRegressor(**small, feature_costs={"b": 1.0}).fit(
            pd.DataFrame(X, columns=["a", "b", "c", "d"]), y
        ),
        "classifier": SparseBoostClassifier(**small).fit(X, np.where(y > 2, "yes", "no")),
        "multitask_regressor": MultiTaskSparseBoostRegressor(**small).fit(
            X, y, np.array(["s", "t"])[task]
        ),
        "multitask_classifier": MultiTaskSparseBoostClassifier(**small).fit(
            X, classes_for(task), task
        ),
    }
    docs = {}
    for name, model in models.items():
        path = tmp_path(".json")
        model.save_model(path)
        with open(path) as f:
            docs[name] = f.read()
    return docs, X[:6]


def region(path):
    if len(path) == 1:
        return "header"
    if path[0] in ("params", "fitted"):
        return path[0]
    return "nodes" if "nodes" in path else "model"


@pytest.fixture(scope="module")
def worker():
    w = ModelFileWorker(timeout=10.0)
    yield w
    w.stop()


def apply_mutation(doc, op, path, value):
    parent = get_path(doc, path[:-1])
    key = path[-1]
    if op == "set":
        # A copy: the same nasty value set twice (a dict, then a path inside
        # that dict) would make the document contain itself.
        parent[key] = copy.deepcopy(value)
    elif op == "delete":
        del parent[key]
    else:
        target = parent[key]
        if not isinstance(target, list) or not target:
            raise KeyError(key)
        if op == "duplicate":
            target.append(copy.deepcopy(target[0]))
        else:
            target.pop()


def corrupted_file(data):
    docs, X = base_documents()
    name = data.draw(st.sampled_from(sorted(docs)), label="model file")
    doc = json.loads(docs[name])
    by_region = {}
    for p in leaf_paths(doc):
        by_region.setdefault(region(p), []).append(p)
    mutations = []
    for _ in range(data.draw(st.integers(1, 2), label="number of changes")):
        where = data.draw(st.sampled_from(sorted(by_region)), label="region")
        path = data.draw(st.sampled_from(by_region[where]), label="path")
        op = data.draw(
            st.sampled_from(["set", "set", "set", "delete", "duplicate", "drop"]), label="change"
        )
        value = (
            data.draw(
                st.one_of(st.sampled_from(JSON_NASTY), st.integers(), st.floats()), label="value"
            )
            if op == "set"
            else None
        )
        try:
            apply_mutation(doc, op, path, value)
        except (KeyError, IndexError, TypeError):
            continue
        mutations.append((op, path, value))
    path = tmp_path(".json")
    with open(path, "w") as f:
        json.dump(doc, f)
    task = (
        np.array(["s", "t"] * 3)
        if name == "multitask_regressor"
        else (np.array([0, 1] * 3) if name.startswith("multitask") else None)
    )
    return name, mutations, path, X, task


@settings(max_examples=budget(480), phases=[Phase.explicit, Phase.reuse, Phase.generate])
@given(data=st.data())
def test_corrupted_model_file_is_rejected_naming_the_field_or_predicts_finite(worker, data):
    example()
    name, mutations, path, X, task = corrupted_file(data)
    allowed = set().union(*(path_names(p) for _, p, _ in mutations)) if mutations else set()
    if data.draw(st.integers(0, 9), label="damage the bytes") == 0:
        with open(path, "rb") as f:
            raw = f.read()
        cut = data.draw(st.integers(0, len(raw)), label="keep bytes")
        tail = data.draw(
            st.sampled_from([b"", b"\xff\xfe", b"}", b"]]]", b"\x00", b"[" * 10000]), label="tail"
        )
        with open(path, "wb") as f:
            f.write(raw[:cut] + tail)
        mutations.append(("bytes", cut, tail[:20]))
        allowed = None
    results = worker.run(path, X, task)
    tally(results.get("load_model", {}).get("status") == "ok")
    problems = check_worker_results(results, allowed, len(X))
    if problems:
        raise ContractViolation(f"{name} with {mutations}: " + "; ".join(problems))


def test_a_value_set_twice_never_makes_the_document_contain_itself():
    # Found by the long profile: a harness defect, not the library's. The
    # same dict was set at "params" and then at "params.subsample" (inside
    # itself), and json.dump of the corrupted document failed.
    nasty = {"a": 1, "subsample": 2}
    doc = {"params": {"subsample": 1.0}}
    apply_mutation(doc, "set", ("params",), nasty)
    apply_mutation(doc, "set", ("params", "subsample"), nasty)
    assert json.loads(json.dumps(doc)) == {"params": {"a": 1, "subsample": nasty}}
