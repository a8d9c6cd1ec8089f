"""Group testing on wide sparse binary data with few rows, and
``split_search="auto"``."""

import numpy as np
import pytest
from sklearn.base import clone
from sparseboost import SparseBoostClassifier, SparseBoostRegressor

PLANTED = (17, 1234, 2718)


def sparse_binary_problem(seed, n=300, d=3000, density=0.02, planted_density=0.05):
    """n x d binary features, about 2% ones; the label is 1 when any of the
    three planted features is (each about 5% ones), with 10% of labels
    flipped. Subsets of d/s = 300 features (the paper's, s = 10) sum about
    6 ones per row: on 300 rows their tests miss planted features."""
    rng = np.random.default_rng(seed)
    X = (rng.random((n, d)) < density).astype(float)
    for j in PLANTED:
        X[:, j] = rng.random(n) < planted_density
    y = (X[:, list(PLANTED)].sum(axis=1) >= 1).astype(int)
    flip = rng.random(n) < 0.1
    return X, np.where(flip, 1 - y, y)


def selector(split_search, seed, **params):
    settings = dict(
        n_estimators=20,
        max_leaves=8,
        min_samples_leaf=5,
        learning_rate=0.1,
        penalty="agbm",
        mu=0.01,
        max_selected_features=3,
        split_search=split_search,
        random_state=seed,
    )
    return SparseBoostClassifier(**{**settings, **params})


@pytest.mark.parametrize("seed", range(6))
def test_group_testing_finds_the_planted_features_exhaustive_search_finds(seed):
    X, y = sparse_binary_problem(seed)
    gt = selector("group_testing", seed).fit(X, y)
    exhaustive = selector("exhaustive", seed).fit(X, y)
    assert set(exhaustive.selected_features_) == set(PLANTED)
    assert set(gt.selected_features_) == set(PLANTED)
    assert gt.split_search_ == "group_testing"
    assert exhaustive.split_search_ == "exhaustive"


def test_auto_picks_exhaustive_on_narrow_data_and_group_testing_on_wide_data():
    X, y = sparse_binary_problem(0)
    wide = selector("auto", 0).fit(X, y)
    assert wide.split_search_ == "group_testing"
    assert wide.gt_n_subsets_ is not None
    # The same model as asking for group testing.
    asked = selector("group_testing", 0).fit(X, y)
    assert wide._model.to_json() == asked._model.to_json()
    rng = np.random.default_rng(1)
    X_narrow = rng.random((2000, 20))
    y_narrow = (X_narrow[:, 3] + 0.3 * rng.random(2000) > 0.6).astype(int)
    narrow = selector("auto", 0).fit(X_narrow, y_narrow)
    assert narrow.split_search_ == "exhaustive"
    assert narrow.gt_n_subsets_ is None
    # Without a budget the tests would run in every tree: exhaustive.
    unbudgeted = selector("auto", 0, max_selected_features=None).fit(X, y)
    assert unbudgeted.split_search_ == "exhaustive"


def test_auto_goes_through_get_params_set_params_and_clone():
    model = SparseBoostRegressor(split_search="auto")
    assert model.get_params()["split_search"] == "auto"
    assert clone(model).get_params()["split_search"] == "auto"
    other = SparseBoostRegressor().set_params(split_search="auto")
    assert other.split_search == "auto"
    X = np.random.default_rng(0).random((200, 4))
    fitted = clone(other).set_params(n_estimators=3).fit(X, X[:, 0])
    assert fitted.split_search_ == "exhaustive"


def test_a_bad_split_search_names_the_argument_and_lists_auto():
    X = np.random.default_rng(0).random((100, 5))
    with pytest.raises(ValueError, match="split_search") as error:
        SparseBoostRegressor(split_search="fastest").fit(X, X[:, 0])
    assert "'auto'" in str(error.value)
    assert "'exhaustive'" in str(error.value) and "'group_testing'" in str(error.value)
