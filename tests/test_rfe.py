"""scikit-learn's RFE and RFECV drive the boosters through
``feature_importances_``."""

import numpy as np
import pytest
from sklearn.feature_selection import RFE, RFECV
from sklearn.model_selection import KFold, StratifiedKFold
from sparseboost import SparseBoostClassifier, SparseBoostRegressor
from sparseboost.datasets import make_synthetic


@pytest.fixture(params=["regression", "classification"])
def problem(request):
    # little noise: the three planted features (columns 0, 1, 2) explain
    # nearly all of y, so cross-validation can tell them from the other 17
    X, y = make_synthetic(1000, 20, noise=0.1, task=request.param, random_state=0)
    if request.param == "regression":
        booster = SparseBoostRegressor(n_estimators=20, penalty="none", random_state=0)
        cv = KFold(3)
    else:
        booster = SparseBoostClassifier(n_estimators=20, penalty="none", random_state=0)
        cv = StratifiedKFold(3)
    return X, y, booster, cv


def test_rfe_keeps_the_planted_features(problem):
    X, y, booster, _ = problem
    rfe = RFE(booster, n_features_to_select=3, step=2).fit(X, y)
    assert set(np.flatnonzero(rfe.support_)) == {0, 1, 2}
    assert rfe.estimator_.n_features_in_ == 3
    assert rfe.predict(X).shape == (len(X),)
    # the strongest effect (-3 * 2**x2, column 1) is the last to go
    assert np.flatnonzero(RFE(booster, n_features_to_select=1).fit(X, y).support_) == [1]


def test_rfecv_keeps_the_planted_features(problem):
    X, y, booster, cv = problem
    rfecv = RFECV(booster, step=1, cv=cv).fit(X, y)
    kept = set(np.flatnonzero(rfecv.support_))
    assert {0, 1, 2} <= kept
    # the planted features are the last three eliminated: with them alone the
    # score is as good as with all features, with two of them it is worse
    scores = rfecv.cv_results_["mean_test_score"]
    np.testing.assert_array_equal(rfecv.cv_results_["n_features"], np.arange(1, 21))
    assert scores[2] > scores.max() - 0.01
    assert scores[1] < scores[2] - 0.02


@pytest.mark.parametrize("task", ["regression", "classification"])
def test_rfe_with_forests_keeps_the_planted_features(task):
    from sparseboost import SparseForestClassifier, SparseForestRegressor

    X, y = make_synthetic(600, 12, noise=0.1, task=task, random_state=0)
    forest = (SparseForestRegressor if task == "regression" else SparseForestClassifier)(
        n_estimators=30, random_state=0
    )
    rfe = RFE(forest, n_features_to_select=3, step=3).fit(X, y)
    assert set(np.flatnonzero(rfe.support_)) == {0, 1, 2}
