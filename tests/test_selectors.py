"""SparseBoostSelector in pipelines, and scikit-learn's checks on it."""

import numpy as np
import pytest
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.utils.estimator_checks import parametrize_with_checks
from sparseboost import (
    SparseBoostClassifier,
    SparseBoostRegressor,
    SparseBoostSelector,
    SparseBoostSelectorCV,
    TopKSelector,
)


def test_selector_keeps_the_planted_features_in_a_pipeline(synthetic_regression):
    X, y, X_test, y_test = synthetic_regression
    selector = SparseBoostSelector(SparseBoostRegressor(mu=0.02, random_state=0))
    pipe = make_pipeline(selector, LinearRegression()).fit(X, y)
    kept = pipe[0].selected_features_
    assert set(kept[:3]) == {0, 1, 2}
    assert pipe[0].transform(X).shape == (X.shape[0], len(kept))
    assert pipe.score(X_test, y_test) > 0.4


def test_default_estimator_follows_the_target(synthetic_classification):
    X, y, _, _ = synthetic_classification
    assert isinstance(SparseBoostSelector().fit(X, y).estimator_, SparseBoostClassifier)
    assert isinstance(
        SparseBoostSelector().fit(X, y + 0.5 * X[:, 0]).estimator_, SparseBoostRegressor
    )
    pipe = make_pipeline(SparseBoostSelector(), LogisticRegression()).fit(X, y)
    assert pipe.score(X, y) > 0.7


@parametrize_with_checks(
    [SparseBoostSelector(SparseBoostRegressor(n_estimators=10, min_samples_leaf=1))]
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_the_booster_records_the_selectors_feature_names():
    # Found by the long hypothesis profile: the selector passed its booster a
    # bare array, so the booster's predict accepted a DataFrame with other
    # column names that the selector's transform rejected.
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.random((60, 3)), columns=["a", "b", "c"])
    selector = SparseBoostSelector().fit(X, np.arange(60) % 4)
    assert list(selector.estimator_.feature_names_in_) == ["a", "b", "c"]
    renamed = X.rename(columns={"a": "z"})
    with pytest.raises(ValueError, match="feature names"):
        selector.transform(renamed)
    with pytest.raises(ValueError, match="feature names"):
        selector.estimator_.predict(renamed)


def test_metadata_routing_sends_the_weights_the_booster_requests():
    # As scikit-learn's SelectFromModel: under enable_metadata_routing the
    # booster's set_fit_request decides (the selectors routed nothing: a
    # Pipeline refused the weights, cross_validate dropped them silently).
    from sklearn import config_context
    from sklearn.linear_model import Ridge
    from sklearn.model_selection import KFold
    from sklearn.pipeline import make_pipeline
    from sparseboost import SparseBoostRegressor, SparseBoostSelectorCV, TopKSelector

    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 6))
    y = 2 * X[:, 0] + X[:, 1] + rng.normal(0, 0.3, 300)
    w = rng.uniform(0, 3, 300) * (rng.random(300) < 0.5)

    def booster():
        return SparseBoostRegressor(n_estimators=20, random_state=0)

    with config_context(enable_metadata_routing=True):
        for selector in (
            SparseBoostSelector(booster().set_fit_request(sample_weight=True)),
            TopKSelector(
                booster().set_fit_request(sample_weight=True), n_features_to_select=2, refit=False
            ),
        ):
            ridge = Ridge().set_fit_request(sample_weight=False)
            for train, _ in KFold(3).split(X):
                pipe = make_pipeline(selector, ridge)
                pipe.fit(X[train], y[train], sample_weight=w[train])
                weighted = booster().fit(X[train], y[train], sample_weight=w[train])
                np.testing.assert_array_equal(pipe[0].estimator_.predict(X), weighted.predict(X))
            # Not requested: an error, not weights dropped.
            unrequested = type(selector)(
                **{**selector.get_params(deep=False), "estimator": booster()}
            )
            with pytest.raises(ValueError, match="sample_weight"):
                make_pipeline(unrequested, Ridge()).fit(X, y, sample_weight=w)
            # The selector itself routes: called directly, or under an alias.
            with pytest.raises(ValueError, match="sample_weight"):
                unrequested.fit(X, y, sample_weight=w)
            aliased = type(selector)(
                **{
                    **selector.get_params(deep=False),
                    "estimator": booster().set_fit_request(sample_weight="selection_weight"),
                }
            )
            aliased.fit(X, y, selection_weight=w)
            weighted = booster().fit(X, y, sample_weight=w)
            np.testing.assert_array_equal(aliased.estimator_.predict(X), weighted.predict(X))
            # Without an estimator (nothing to ask), its fit parameters go to it.
            default = type(selector)(**{**selector.get_params(deep=False), "estimator": None})
            default.fit(X, y, sample_weight=w)
            plain = type(selector)(**{**selector.get_params(deep=False), "estimator": None})
            assert not np.array_equal(
                default.estimator_.predict(X), plain.fit(X, y).estimator_.predict(X)
            )
        # The CV selector takes sample_weight itself.
        cv = SparseBoostSelectorCV(booster(), max_selected_features=2, cv=2).set_fit_request(
            sample_weight=True
        )
        pipe = make_pipeline(cv, Ridge().set_fit_request(sample_weight=False)).fit(
            X, y, sample_weight=w
        )
        alone = SparseBoostSelectorCV(booster(), max_selected_features=2, cv=2).fit(
            X, y, sample_weight=w
        )
        np.testing.assert_array_equal(
            pipe[0].estimator_.predict(X[:, pipe[0].support_]),
            alone.estimator_.predict(X[:, alone.support_]),
        )


@pytest.mark.parametrize(
    "make",
    [
        lambda est: SparseBoostSelector(est),
        lambda est: TopKSelector(est, n_features_to_select=3),
        lambda est: SparseBoostSelectorCV(est, max_selected_features=3, cv=2),
    ],
    ids=["SparseBoostSelector", "TopKSelector", "SparseBoostSelectorCV"],
)
def test_a_selector_refitted_from_its_boosters_callback_keeps_the_running_fit(make):
    # A callback may call the library, even fit this selector on other
    # data: the running fit's state wins whole, not the inner fit's columns
    # with the outer fit's model.
    rng = np.random.default_rng(0)
    X, X2 = rng.normal(size=(400, 10)), rng.normal(size=(400, 4))
    y, y2 = (X[:, 0] + X[:, 1] > 0).astype(int), (X2[:, 0] > 0).astype(int)
    inner = []

    def refit(report):
        if report.round == 1 and not inner:
            inner.append(True)  # (first: the inner fit runs this callback too)
            selector.fit(X2, y2)

    selector = make(SparseBoostClassifier(n_estimators=10, random_state=0, callbacks=[refit]))
    selector.fit(X, y)
    assert inner and selector.n_features_in_ == 10
    assert selector.transform(X).shape[0] == 400
    plain = make(SparseBoostClassifier(n_estimators=10, random_state=0)).fit(X, y)
    np.testing.assert_array_equal(selector.get_support(), plain.get_support())
