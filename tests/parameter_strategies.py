"""Hypothesis strategies of constructor parameters for the property tests:
nasty and valid values of every parameter, feature costs, bags and task
feature masks, and whole valid parameter sets (the inputs themselves are in
``strategies.py``).
"""

from __future__ import annotations

import math

import hypothesis.extra.numpy as hnp
import hypothesis.strategies as st
import numpy as np
from strategies import FLOAT_SPECIALS

# -- parameters --------------------------------------------------------------

NASTY = [
    None,
    True,
    False,
    0,
    1,
    -1,
    2,
    3,
    3.0,
    0.5,
    -0.5,
    1.5,
    math.nan,
    math.inf,
    -math.inf,
    1e308,
    -1e308,
    1e-310,
    5e-324,
    2**31,
    2**63,
    2**64,
    2**70,
    -(2**63),
    "3",
    "0.1",
    "abc",
    "",
    np.int64(3),
    np.float32(0.1),
    np.float64(0.5),
    np.int8(-1),
    np.uint64(2**64 - 1),
    np.bool_(True),
    [1],
    (),
    {},
]

# Values whose acceptance could start an enormous fit or thousands of
# threads in the test process: these are exercised in a subprocess instead
# (test_properties_params.py::test_dangerous_parameter_values_in_a_subprocess).
DANGEROUS = {
    "n_estimators": lambda v: _is_big_int(v, 10),
    "n_jobs": lambda v: _is_big_int(v, 4),
}


def _is_big_int(v, limit):
    try:
        return not isinstance(v, (str, bytes)) and float(v) > limit
    except (TypeError, ValueError):
        return False


VALID = {
    "n_estimators": [1, 2, 3, 5, np.int64(3)],
    "learning_rate": [0.1, 1.0, 0.5, 1e-3, 2.0, np.float32(0.1)],
    "max_leaves": [2, 3, 8, 31, 10**6],
    "max_depth": [None, 1, 2, 5, 10**6],
    "min_samples_leaf": [1, 2, 5, 20, 10**6],
    "min_split_fraction": [0.0, 0.1, 0.5, 0.999],
    "min_child_weight": [0.0, 1e-3, 1.0, 1e3],
    "l2_regularization": [0.0, 1.0, 1e6, 1e-300],
    "min_gain": [0.0, 0.1, 1e6],
    "max_bins": [2, 3, 16, 255],
    "subsample": [1.0, 0.5, 0.1, 1e-9],
    "colsample_bytree": [1.0, 0.5, 0.1, 1e-9, 1, 3, 10**6, np.int64(2)],
    "feature_sampling": ["uniform", "dynamic"],
    "reweight_rate": [0.0, 0.5, 1.0, 5.0, 1e6],
    "penalty": ["agbm", "gbfs", "none"],
    "mu": [0.0, 0.01, 0.5, 0.999, 30.0],
    "max_selected_features": [None, 1, 2, 10**6],
    "max_features": [None, 1, 2, 10**6],  # the deprecated spelling of max_selected_features
    "split_search": ["exhaustive", "group_testing", "auto"],
    "gt_n_features": [1, 2, 3, 10, 10**6],
    "gt_delta": [0.1, 0.5, 0.999, 1e-6, 1e-300],
    "gt_max_rows": [None, 2, 3, 10, 10**6],
    "n_jobs": [None, -1, -2, 1, 2, np.int64(2), -(2**63)],
    "random_state": [
        None,
        0,
        1,
        2**32,
        2**63,
        2**64 - 1,
        np.int64(7),
        np.uint64(2**64 - 1),
        np.random.RandomState(0),
    ],
}
SCALAR_PARAMETERS = sorted(VALID)
MULTITASK_EXTRA = {
    "mu_group": [0.0, 0.01, 0.3, 0.999, 30.0],
    "mu_task": [0.0, 0.01, 0.3, 0.999, 30.0, [0.01, 0.2, 0.0], [0.1], np.array([0.0, 0.5])],
    "shared_rounds": [0, 1, 3, 4, np.int64(2)],
}
EXTRA_NASTY = {
    "n_jobs": [0, 1.5, "2", -3, -(2**63)],
    "random_state": [-1, 2**64, 2**70, -(2**63), "3", 3.0, np.random.default_rng(0)],
    "penalty": ["AGBM", "lasso", " agbm"],
    "split_search": ["Group_testing", "gt"],
    "gt_delta": [1e-310, 1.0, 0.0, 5e-324],
    "n_estimators": ["3", 3.0, 0, -3],
    "learning_rate": [1e308, 1e300, 1e-310, 0.0],
    "shared_rounds": [-1, 1.5, "2", True, 2**70],
}


def parameter_values(name):
    """Valid, boundary and invalid values of one constructor parameter."""
    values = VALID.get(name, []) + MULTITASK_EXTRA.get(name, []) + EXTRA_NASTY.get(name, [])
    danger = DANGEROUS.get(name, lambda v: False)
    safe_nasty = [v for v in NASTY if not danger(v)]
    return st.one_of(st.sampled_from(values), st.sampled_from(safe_nasty))


@st.composite
def feature_costs_values(draw, d, names):
    kind = draw(
        st.sampled_from(
            [
                "array",
                "special_array",
                "wrong_length",
                "dict_index",
                "dict_name",
                "dict_bad",
                "list",
                "scalar",
                "strings",
            ]
        )
    )
    if kind == "array":
        return draw(hnp.arrays(np.float64, d, elements=st.floats(0, 10)))
    if kind == "special_array":
        return draw(
            hnp.arrays(
                np.float64,
                d,
                elements=st.one_of(st.floats(0, 10), st.sampled_from(FLOAT_SPECIALS + [-1.0])),
            )
        )
    if kind == "wrong_length":
        return np.ones(d + 1)
    if kind == "dict_index":
        keys = st.one_of(st.integers(0, d - 1), st.integers(0, d - 1).map(np.int64))
        return draw(st.dictionaries(keys, st.floats(0, 10), max_size=3))
    if kind == "dict_name" and names is not None:
        return draw(st.dictionaries(st.sampled_from(list(names)), st.floats(0, 10), max_size=3))
    if kind == "dict_bad":
        keys = st.one_of(
            st.integers(-3, d + 3),
            st.text(max_size=2),
            st.floats(0, 3),
            st.sampled_from([2**64, (0,), None]),
        )
        vals = st.one_of(st.floats(0, 10), st.sampled_from([-1.0, math.nan, math.inf, "1", None]))
        return draw(st.dictionaries(keys, vals, max_size=3))
    if kind == "list":
        return [1.0] * d
    if kind == "strings":
        return ["1"] * d
    return draw(st.sampled_from([0.5, "abc", None, 1e308]))


@st.composite
def feature_bags_values(draw, d):
    kind = draw(
        st.sampled_from(
            ["ints", "strings", "mixed", "wrong_length", "2d", "floats_nan", "none", "scalar"]
        )
    )
    if kind == "ints":
        return draw(st.lists(st.integers(-3, 3), min_size=d, max_size=d))
    if kind == "strings":
        return draw(st.lists(st.sampled_from(["a", "b", "", "é"]), min_size=d, max_size=d))
    if kind == "mixed":
        return draw(st.lists(st.sampled_from([0, "a", 1, None]), min_size=d, max_size=d))
    if kind == "wrong_length":
        return list(range(d + 1))
    if kind == "2d":
        return [[0]] * d
    if kind == "floats_nan":
        return [math.nan] * d
    if kind == "none":
        return None
    return "a"


@st.composite
def task_feature_masks(draw, T, d):
    kind = draw(
        st.sampled_from(
            ["bool", "bool", "all_false", "ints", "wrong_shape", "list", "none", "scalar"]
        )
    )
    if kind == "bool":
        return draw(hnp.arrays(bool, (T, d)))
    if kind == "all_false":
        return np.zeros((T, d), dtype=bool)
    if kind == "ints":
        return draw(hnp.arrays(np.int64, (T, d), elements=st.integers(0, 1)))
    if kind == "wrong_shape":
        return np.ones((T + 1, d), dtype=bool)
    if kind == "list":
        return np.ones((T, d), dtype=bool).tolist()
    if kind == "none":
        return None
    return True


FAST = {"n_estimators": 3, "min_samples_leaf": 1, "random_state": 0, "n_jobs": 1}


@st.composite
def valid_params(draw, multitask=False):
    """Small, valid constructor parameters (the fit stays tiny)."""
    p = {
        "n_estimators": draw(st.integers(1, 5)),
        "learning_rate": draw(st.sampled_from([0.1, 0.5, 1.0])),
        "max_leaves": draw(st.integers(2, 8)),
        "max_depth": draw(st.sampled_from([None, 1, 3])),
        "min_samples_leaf": draw(st.integers(1, 6)),
        "max_bins": draw(st.sampled_from([2, 7, 255])),
        "subsample": draw(st.sampled_from([1.0, 0.7])),
        "colsample_bytree": draw(st.sampled_from([1.0, 0.6, 2])),
        "feature_sampling": draw(st.sampled_from(["uniform", "dynamic"])),
        "reweight_rate": draw(st.sampled_from([0.0, 1.0, 2.0])),
        "l2_regularization": draw(st.sampled_from([0.0, 1.0])),
        "penalty": draw(st.sampled_from(["agbm", "gbfs", "none"])),
        "split_search": draw(st.sampled_from(["exhaustive", "group_testing"])),
        "gt_n_features": draw(st.integers(1, 4)),
        "gt_max_rows": draw(st.sampled_from([None, 4])),
        "random_state": draw(st.integers(0, 2**32)),
    }
    if multitask:
        p["mu_group"] = draw(st.sampled_from([0.0, 0.01, 0.2]))
        p["mu_task"] = draw(st.sampled_from([0.0, 0.01, 0.2]))
        p["shared_rounds"] = draw(st.integers(0, p["n_estimators"]))
    else:
        p["mu"] = draw(st.sampled_from([0.0, 0.01, 0.2]))
        p["max_selected_features"] = draw(st.sampled_from([None, 1, 3]))
    return p
