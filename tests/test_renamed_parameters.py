"""The boosters' and SparseBoostSelectorCV's feature budget is
``max_selected_features``; their old spelling ``max_features`` (which the
forests keep for scikit-learn's per-node draw) still works, with a
FutureWarning, and scikit-learn's clone, get_params and set_params keep
what was given."""

import json
import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sparseboost import (
    MultiTaskSparseBoostRegressor,
    SparseBoostClassifier,
    SparseBoostRegressor,
    SparseBoostSelectorCV,
    SparseForestRegressor,
    load_model,
)
from sparseboost.datasets import make_synthetic

RENAMED = "max_features was renamed max_selected_features"


@pytest.fixture(scope="module")
def data():
    return make_synthetic(600, 12, random_state=0)


def small(cls=SparseBoostRegressor, **params):
    return cls(**{"n_estimators": 20, "mu": 0.0, "random_state": 0, **params})


def test_the_old_spelling_warns_and_gives_the_budgets_model(data):
    X, y = data
    budget = small(max_selected_features=2).fit(X, y)
    with pytest.warns(FutureWarning, match=RENAMED) as record:
        old = small(max_features=2).fit(X, y)
    assert record[0].filename == __file__  # the warning points at the caller's fit
    assert len(old.selected_features_) == 2
    assert old._model.to_json() == budget._model.to_json()


def test_clone_get_params_and_set_params_keep_the_old_spelling_as_given():
    estimator = small(max_features=2)
    assert estimator.get_params()["max_features"] == 2
    assert estimator.get_params()["max_selected_features"] is None
    copy = clone(estimator)
    assert copy.max_features == 2 and copy.max_selected_features is None
    assert copy.set_params(max_features=3).max_features == 3


def test_the_new_spelling_and_the_default_do_not_warn(data):
    X, y = data
    with warnings.catch_warnings():
        warnings.simplefilter("error", FutureWarning)
        small(max_selected_features=3).fit(X, y)
        small().fit(X, y)
        SparseForestRegressor(n_estimators=3, max_features=2, random_state=0).fit(X, y)


def test_both_spellings_at_once_are_refused(data):
    X, y = data
    with pytest.raises(ValueError, match="max_features .* max_selected_features"):
        small(max_features=2, max_selected_features=3).fit(X, y)


def test_a_bad_value_of_the_old_spelling_is_named_as_given(data):
    X, y = data
    with pytest.warns(FutureWarning), pytest.raises(ValueError, match="^max_features"):
        small(max_features=0).fit(X, y)
    with pytest.warns(FutureWarning), pytest.raises(TypeError, match="^max_features"):
        small(SparseBoostClassifier, max_features=1.5).fit(X, y > np.median(y))


def test_the_multitask_boosters_take_neither_spelling():
    for name in ("max_features", "max_selected_features"):
        with pytest.raises(TypeError, match=name):
            MultiTaskSparseBoostRegressor(**{name: 2})


def test_the_selector_cv_reads_the_old_spelling_with_a_warning(data):
    X, y = data
    params = {"cv": 2, "order": "entry", "random_state": 0, "estimator": small(mu="0.05*mu_max")}
    new = SparseBoostSelectorCV(max_selected_features=3, **params).fit(X, y)
    with pytest.warns(FutureWarning, match=RENAMED):
        old = SparseBoostSelectorCV(max_features=3, **params).fit(X, y)
    assert old.selected_features_.tolist() == new.selected_features_.tolist()
    assert clone(old).get_params()["max_features"] == 3


def test_the_selector_cv_replaces_its_estimators_budget_under_either_spelling(data):
    X, y = data
    booster = small(mu="0.05*mu_max", max_features=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error", FutureWarning)
        selector = SparseBoostSelectorCV(booster, max_selected_features=3, cv=2, order="entry")
        selector.fit(X, y)
    assert selector.ordering_estimator_.max_selected_features == 3


def test_a_model_file_written_before_the_rename_loads_without_a_warning(data, tmp_path):
    X, y = data
    path = tmp_path / "model.json"
    small(max_selected_features=2).fit(X, y).save_model(path)
    document = json.loads(path.read_text())
    del document["params"]["max_selected_features"]
    document["params"]["max_features"] = 2
    path.write_text(json.dumps(document))
    with warnings.catch_warnings():
        warnings.simplefilter("error", FutureWarning)
        loaded = load_model(path)
    assert loaded.max_selected_features == 2 and loaded.max_features is None
