"""TopKSelector: the GBDT-topK baseline."""

import numpy as np
import pytest
from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor
from sklearn.linear_model import LinearRegression
from sklearn.pipeline import make_pipeline
from sklearn.utils.estimator_checks import parametrize_with_checks
from sparseboost import SparseBoostClassifier, SparseBoostRegressor, TopKSelector


def test_keeps_the_planted_features_in_importance_order(synthetic_regression):
    X, y, X_test, y_test = synthetic_regression
    booster = SparseBoostRegressor(n_estimators=30, penalty="none", random_state=0)
    selector = TopKSelector(booster, n_features_to_select=3).fit(X, y)
    full = SparseBoostRegressor(n_estimators=30, penalty="none", random_state=0).fit(X, y)
    importances = full.get_feature_importance("gain")
    np.testing.assert_allclose(selector.importances_, importances)
    np.testing.assert_array_equal(selector.selected_features_, np.argsort(-importances)[:3])
    assert set(selector.selected_features_) == {0, 1, 2}
    assert np.all(np.diff(selector.importances_[selector.selected_features_]) <= 0)
    np.testing.assert_array_equal(np.flatnonzero(selector.support_), [0, 1, 2])
    # the refit model predicts from the kept columns
    assert selector.estimator_.n_features_in_ == 3
    np.testing.assert_allclose(
        selector.predict(X_test), selector.estimator_.predict(X_test[:, [0, 1, 2]])
    )
    assert selector.score(X_test, y_test) > 0.5
    assert selector.transform(X_test).shape == (len(X_test), 3)


def test_split_importance_and_ties_in_column_order():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((400, 6))
    y = X[:, 4] + 0.1 * rng.standard_normal(400)
    # one tree with one split: a single feature has importance, the others tie at 0
    booster = SparseBoostRegressor(n_estimators=1, max_leaves=2, penalty="none")
    selector = TopKSelector(booster, n_features_to_select=3, importance="split").fit(X, y)
    np.testing.assert_array_equal(selector.importances_, [0, 0, 0, 0, 1, 0])
    np.testing.assert_array_equal(selector.selected_features_, [4, 0, 1])


def test_default_estimator_is_the_plain_gbdt_for_the_target(synthetic_classification):
    X, y, X_test, y_test = synthetic_classification
    selector = TopKSelector(n_features_to_select=3).fit(X, y)
    assert isinstance(selector.estimator_, SparseBoostClassifier)
    assert selector.estimator_.penalty == "none"
    assert set(selector.selected_features_) == {0, 1, 2}
    assert selector.predict_proba(X_test).shape == (len(X_test), 2)
    np.testing.assert_array_equal(selector.classes_, [0.0, 1.0])
    regressor = TopKSelector(n_features_to_select=3).fit(X, y + 0.5 * X[:, 0])
    assert isinstance(regressor.estimator_, SparseBoostRegressor)
    assert regressor.estimator_.penalty == "none"


@pytest.mark.parametrize(
    ("values", "kind"),
    [
        # A count held as floats: scikit-learn's type_of_target calls it 40
        # classes; it is a regression target.
        (lambda z: np.round(20 + 5 * z).astype(float), SparseBoostRegressor),
        (lambda z: (z > 0).astype(float), SparseBoostClassifier),  # 0./1.
        (lambda z: np.digitize(z, [-1, 0, 1]).astype(float) - 1.0, SparseBoostClassifier),
        (lambda z: np.round(20 + 5 * z).astype(int), SparseBoostClassifier),  # ints: labels
        (lambda z: np.where(z > 0, "yes", "no"), SparseBoostClassifier),
        # A count in a pandas nullable Float64 Series (objects to numpy
        # under pandas < 2.1).
        (
            lambda z: __import__("pandas").Series(np.round(20 + 5 * z), dtype="Float64"),
            SparseBoostRegressor,
        ),
        # The boundary: 10 distinct float values are classes, 11 a count.
        (lambda z: np.digitize(z, np.linspace(-2, 2, 9)).astype(float), SparseBoostClassifier),
        (lambda z: np.digitize(z, np.linspace(-2, 2, 10)).astype(float), SparseBoostRegressor),
    ],
)
def test_which_targets_are_class_labels(values, kind):
    from sparseboost import SparseBoostSelector, SparseBoostSelectorCV

    rng = np.random.default_rng(0)
    X = rng.standard_normal((300, 4))
    y = values(X[:, 1])
    assert (np.unique(y).size > 10) == (kind is SparseBoostRegressor or y.dtype == int)
    assert type(TopKSelector(n_features_to_select=2).fit(X, y).estimator_) is kind
    assert type(SparseBoostSelector().fit(X, y).estimator_) is kind
    if kind is SparseBoostRegressor:  # (40 classes would be a slow CV)
        cv = SparseBoostSelectorCV(max_selected_features=1, cv=2, order="entry")
        assert type(cv.fit(X, y).estimator_) is kind


def test_any_estimator_with_feature_importances(synthetic_regression, synthetic_classification):
    X, y, _, _ = synthetic_regression
    forest = RandomForestRegressor(n_estimators=20, max_depth=6, random_state=0)
    selector = TopKSelector(forest, n_features_to_select=3).fit(X[:600], y[:600])
    assert set(selector.selected_features_) == {0, 1, 2}
    assert isinstance(selector.estimator_, RandomForestRegressor)
    Xc, yc, _, _ = synthetic_classification
    clf = TopKSelector(
        RandomForestClassifier(n_estimators=20, random_state=0), n_features_to_select=3
    ).fit(Xc[:600], yc[:600])
    assert clf.predict_proba(Xc[:5]).shape == (5, 2)
    with pytest.raises(ValueError, match="importance='split' needs a sparseboost booster"):
        TopKSelector(forest, importance="split").fit(X[:100], y[:100])
    with pytest.raises(TypeError, match="LinearRegression has no feature_importances_"):
        TopKSelector(LinearRegression()).fit(X[:100], y[:100])


def test_refit_false_keeps_the_model_on_all_features(synthetic_regression):
    X, y, _, _ = synthetic_regression
    booster = SparseBoostRegressor(n_estimators=10, random_state=0)
    selector = TopKSelector(booster, n_features_to_select=2, refit=False).fit(X, y)
    assert selector.estimator_.n_features_in_ == X.shape[1]
    assert not hasattr(selector, "predict")
    assert selector.transform(X).shape == (len(X), 2)


def test_in_a_pipeline(synthetic_regression):
    X, y, X_test, y_test = synthetic_regression
    selector = TopKSelector(SparseBoostRegressor(n_estimators=20), n_features_to_select=3)
    pipe = make_pipeline(selector, LinearRegression()).fit(X, y)
    assert pipe.score(X_test, y_test) > 0.4


def test_bad_arguments_are_named(synthetic_regression):
    X, y, _, _ = synthetic_regression
    X, y = X[:100], y[:100]
    with pytest.raises(ValueError, match="importance must be 'gain' or 'split', got 'cover'"):
        TopKSelector(importance="cover").fit(X, y)
    with pytest.raises(ValueError, match="n_features_to_select must be >= 1, got 0"):
        TopKSelector(n_features_to_select=0).fit(X, y)
    with pytest.raises(TypeError, match="refit must be True or False"):
        TopKSelector(refit="yes").fit(X, y)
    with pytest.warns(UserWarning, match="all of them are kept"):
        kept = TopKSelector(SparseBoostRegressor(n_estimators=5), n_features_to_select=50)
        assert kept.fit(X, y).get_support().all()


@parametrize_with_checks(
    [
        TopKSelector(SparseBoostRegressor(n_estimators=5, min_samples_leaf=1), 2),
        TopKSelector(n_features_to_select=2, refit=False),
    ]
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_a_selector_of_a_given_estimator_is_of_its_kind():
    # As scikit-learn's RFE: a search over the selector then stratifies
    # a classifier's folds, and scorers call predict_proba.
    from sklearn.base import is_classifier, is_regressor
    from sparseboost import SparseBoostClassifier, SparseBoostRegressor, SparseBoostSelectorCV

    for cls in (TopKSelector, SparseBoostSelectorCV):
        assert is_classifier(cls(estimator=SparseBoostClassifier()))
        assert is_regressor(cls(estimator=SparseBoostRegressor()))
        assert not is_classifier(cls()) and not is_regressor(cls())  # known at fit only
    assert not is_classifier(TopKSelector(estimator=SparseBoostClassifier(), refit=False))


def test_the_refit_gets_the_evaluation_sets_on_the_kept_columns():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    X = rng.normal(size=(600, 8))
    y = 2 * X[:, 0] + X[:, 1] + X[:, 5]
    X_val = rng.normal(size=(200, 8))
    y_val = 2 * X_val[:, 0] + X_val[:, 1] + X_val[:, 5]
    booster = SparseBoostRegressor(
        n_estimators=300, early_stopping_rounds=5, penalty="none", random_state=0
    )
    for given in (X_val, pd.DataFrame(X_val), X_val.tolist()):
        selector = TopKSelector(booster, n_features_to_select=3).fit(
            X, y, eval_set=[(given, y_val)]
        )
        assert sorted(selector.selected_features_) == [0, 1, 5]
        alone = SparseBoostRegressor(**booster.get_params()).fit(
            X[:, [0, 1, 5]], y, eval_set=[(X_val[:, [0, 1, 5]], y_val)]
        )
        np.testing.assert_array_equal(selector.predict(X), alone.predict(X[:, [0, 1, 5]]))
        assert selector.estimator_.best_iteration_ == alone.best_iteration_


def test_evaluation_frames_are_checked_and_encoded_as_the_selectors_X():
    # They went to the models as given: reordered columns were scored (and
    # early-stopped on), string categories all read as unseen.
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(1)

    def frame(n):
        city = rng.choice(["a", "b", "c", "d"], n)
        x = rng.normal(size=(n, 3))
        y = x[:, 0] + np.select([city == "a", city == "b"], [2.0, -2.0], 0.0)
        return pd.DataFrame({"x0": x[:, 0], "city": city, "x1": x[:, 1], "x2": x[:, 2]}), y

    X, y = frame(600)
    X_val, y_val = frame(300)
    booster = SparseBoostRegressor(n_estimators=60, random_state=0, penalty="none")
    with pytest.raises(ValueError, match=r"eval_set\[0\]: X: The feature names should match"):
        TopKSelector(booster, n_features_to_select=2).fit(
            X, y, eval_set=[(X_val[X_val.columns[::-1]], y_val)]
        )
    selector = TopKSelector(booster, n_features_to_select=4, refit=False)
    selector.fit(X, y, eval_set=[(X_val, y_val)])
    alone = SparseBoostRegressor(**booster.get_params()).fit(X, y, eval_set=[(X_val, y_val)])
    np.testing.assert_allclose(
        selector.estimator_.evals_result_["validation_0"]["rmse"],
        alone.evals_result_["validation_0"]["rmse"],
    )
    kept = TopKSelector(booster, n_features_to_select=2).fit(X, y, eval_set=[(X_val, y_val)])
    assert set(kept.selected_features_) == {0, 1}
    refit = kept.estimator_.evals_result_["validation_0"]["rmse"][-1]
    assert refit == pytest.approx(np.sqrt(np.mean((kept.predict(X_val) - y_val) ** 2)))
