"""Feature selection while boosting: GBFS and A-GBM penalties, costs, bags,
max_selected_features, and the selection report."""

import numpy as np
import pytest
from sparseboost import SparseBoostClassifier, SparseBoostRegressor
from sparseboost.datasets import make_synthetic


@pytest.fixture(scope="module")
def wide_synthetic():
    """SPEC section 3's problem at n = 10000, d = 1000."""
    X, y = make_synthetic(10000, 1000, random_state=0)
    X_test, y_test = make_synthetic(5000, 1000, random_state=1)
    return X, y, X_test, y_test


def rmse(a, b):
    return float(np.sqrt(np.mean((a - b) ** 2)))


def test_agbm_selects_the_planted_features_first(wide_synthetic):
    X, y, X_test, y_test = wide_synthetic
    sparse = SparseBoostRegressor(penalty="agbm", mu=0.01, random_state=0, record_train_loss=True)
    sparse.fit(X, y)
    plain = SparseBoostRegressor(penalty="none", random_state=0).fit(X, y)
    selected = list(sparse.selected_features_)
    assert set(selected[:3]) == {0, 1, 2}
    assert len(selected) <= 6
    assert len(plain.selected_features_) > 100  # the plain model touches most features
    assert rmse(sparse.predict(X_test), y_test) <= rmse(plain.predict(X_test), y_test)
    assert sparse.feature_entry_tree_[0] == 0
    path = sparse.selection_path_
    assert path["n_features"][-1] == len(selected)
    assert np.all(np.diff(path["n_features"]) >= 0)
    assert len(path["train_loss"]) == sparse.n_trees_


def test_mu_zero_is_the_plain_engine(synthetic_regression):
    X, y, _, _ = synthetic_regression
    plain = SparseBoostRegressor(penalty="none", n_estimators=20, random_state=0).fit(X, y)
    for penalty in ("gbfs", "agbm"):
        zero = SparseBoostRegressor(penalty=penalty, mu=0.0, n_estimators=20, random_state=0)
        assert zero.fit(X, y)._model.to_json() == plain._model.to_json()


def test_costs_by_name_steer_selection_to_a_free_twin():
    pd = pytest.importorskip("pandas")
    X, y = make_synthetic(3000, 10, random_state=2)
    frame = pd.DataFrame(X, columns=[f"f{j}" for j in range(10)])
    frame["f0_copy"] = frame["f0"]
    model = SparseBoostRegressor(mu=0.01, feature_costs={"f0": 0.5}, random_state=0).fit(frame, y)
    names = list(model.selected_feature_names_)
    assert "f0_copy" in names and "f0" not in names
    free = SparseBoostRegressor(mu=0.01, random_state=0).fit(frame, y)
    assert "f0" in free.selected_feature_names_


def test_costs_and_bags_as_a_series_are_read_by_their_index():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.normal(size=(1000, 4)), columns=["a", "b", "c", "d"])
    frame["b"] = frame.a + 0.05 * rng.normal(size=1000)
    y = 2 * frame.a + frame.c
    common = dict(n_estimators=30, random_state=0, mu=0.05)

    def model(**kw):
        return SparseBoostRegressor(**common, **kw).fit(frame, y)._model.to_json()

    # The index in another order than the columns: by name, as a dict.
    by_name = pd.Series({"d": 0.0, "c": 0.0, "b": 0.0, "a": 100.0})
    assert model(feature_costs=by_name) == model(feature_costs={"a": 100.0})
    assert model(feature_costs=by_name) != model(feature_costs=list(by_name))
    bags = pd.Series({"d": "g3", "c": "g2", "b": "g1", "a": "g1"})
    assert model(feature_bags=bags) == model(feature_bags=["g1", "g1", "g2", "g3"])
    with pytest.raises(ValueError, match="feature_bags as a Series must be indexed by the 4"):
        model(feature_bags=bags.drop("a"))


def test_selectors_map_a_wrapped_boosters_costs_by_name():
    pd = pytest.importorskip("pandas")
    from sparseboost import SparseBoostSelectorCV, TopKSelector

    X, y = make_synthetic(2000, 6, random_state=2)
    frame = pd.DataFrame(X, columns=[f"f{j}" for j in range(6)])
    frame["f0_copy"] = frame["f0"]
    booster = SparseBoostRegressor(mu=0.01, feature_costs={"f0": 0.5}, random_state=0)
    top = TopKSelector(booster, n_features_to_select=3).fit(frame, y)
    names = list(top.get_feature_names_out())
    assert "f0_copy" in names and "f0" not in names
    cv = SparseBoostSelectorCV(booster, max_selected_features=3, cv=3, order="entry").fit(frame, y)
    assert cv.ordering_estimator_.feature_costs[0] == 0.5
    assert "f0" not in list(cv.get_feature_names_out())
    with pytest.raises(ValueError, match="feature_costs names an unknown feature: 'nope'"):
        TopKSelector(booster.set_params(feature_costs={"nope": 1.0})).fit(frame, y)


def test_bags_make_a_weak_feature_free_once_its_bag_is_paid():
    # Binary f0 is worth about n·25 = 100000 in gain, binary f1 about
    # n·0.25 = 1000: below μ = 2000 alone, free in a bag with f0.
    rng = np.random.default_rng(3)
    X = np.column_stack([rng.integers(0, 2, 4000), rng.integers(0, 2, 4000), rng.random(4000)])
    y = 10.0 * X[:, 0] + 1.0 * X[:, 1]
    common = {"penalty": "gbfs", "mu": 2000.0, "n_estimators": 5, "random_state": 0}
    alone = SparseBoostRegressor(**common).fit(X, y)
    assert list(alone.selected_features_) == [0]
    bagged = SparseBoostRegressor(feature_bags=["ab", "ab", "c"], **common).fit(X, y)
    assert list(bagged.selected_features_) == [0, 1]


def test_max_selected_features_caps_the_selection(synthetic_regression):
    X, y, _, _ = synthetic_regression
    model = SparseBoostRegressor(penalty="none", max_selected_features=2, random_state=0)
    model.fit(X, y)
    assert len(model.selected_features_) == 2
    assert model.transform(X).shape == (X.shape[0], 2)
    assert model.get_support().sum() == 2


def test_the_booster_is_a_selector(synthetic_classification):
    X, y, _, _ = synthetic_classification
    model = SparseBoostClassifier(mu=0.02, random_state=0).fit(X, y)
    support = model.get_support()
    assert set(np.flatnonzero(support)) == set(model.selected_features_)
    np.testing.assert_array_equal(model.transform(X), X[:, support])
    assert list(model.get_feature_names_out()) == [f"x{j}" for j in np.flatnonzero(support)]


@pytest.mark.parametrize(
    "params, match",
    [
        ({"penalty": "agbm", "mu": 1.0}, "mu"),
        ({"penalty": "agbm", "mu": -0.1}, "mu"),
        ({"penalty": "gbfs", "mu": -1.0}, "mu"),
        ({"penalty": "lasso"}, "penalty"),
        ({"feature_costs": [1.0, 2.0]}, "feature_costs"),
        ({"feature_costs": {"nope": 1.0}}, "unknown feature"),
        ({"feature_bags": [0, 1]}, "feature_bags"),
        ({"max_selected_features": 0}, "max_selected_features"),
    ],
)
def test_bad_selection_parameters(params, match):
    X = np.random.default_rng(0).random((50, 4))
    with pytest.raises(ValueError, match=match):
        SparseBoostRegressor(**params).fit(X, X[:, 0])


def test_gbfs_selects_the_features_lightgbm_cegb_selects():
    """GBFS with μ in gain units is LightGBM's cost-effective boosting with
    ``cegb_penalty_feature_coupled=[μ]*d`` and ``cegb_tradeoff=1``. The two
    bin their features differently, so gains differ slightly; a μ far from
    every feature's gain makes the selected sets comparable exactly."""
    lgb = pytest.importorskip("lightgbm")
    X, y = make_synthetic(5000, 50, random_state=4)
    mu = 100.0
    ours = SparseBoostRegressor(penalty="gbfs", mu=mu, random_state=0).fit(X, y)
    theirs = lgb.LGBMRegressor(
        n_estimators=100,
        num_leaves=31,
        min_child_samples=20,
        cegb_penalty_feature_coupled=[mu] * X.shape[1],
        cegb_tradeoff=1.0,
        verbose=-1,
    ).fit(X, y)
    lgb_used = set(np.flatnonzero(theirs.booster_.feature_importance("split")))
    assert set(ours.selected_features_) == lgb_used
    assert set(ours.selected_features_[:3]) == {0, 1, 2}


@pytest.mark.parametrize("sampling", [dict(colsample_bytree=0.5), dict(subsample=0.3)])
def test_a_sampled_round_that_cannot_pay_the_penalty_does_not_end_the_fit(sampling):
    # x0 and x1 matter: a round that draws neither (or rows on which no
    # split pays mu) grows no tree, and the next round draws again. mu_max
    # describes the data, not the first round's draw.
    rng = np.random.default_rng(0)
    X = rng.normal(size=(500, 4))
    y = 2 * X[:, 0] + X[:, 1] + 0.1 * rng.normal(size=500)
    params = dict(n_estimators=20, mu="0.2*mu_max", random_state=2)
    full = SparseBoostRegressor(**params).fit(X, y)
    sampled = SparseBoostRegressor(**params, **sampling).fit(X, y, eval_set=[(X, y)])
    assert sampled.mu_max_ == full.mu_max_
    assert sampled.n_trees_ >= 10
    assert sampled.score(X, y) > 0.8
    # Every round is a round of the history, with or without a tree.
    (history,) = sampled.evals_result_.values()
    assert [len(v) for v in history.values()] == [20]
    # The default (absolute) mu: the same.
    assert (
        SparseBoostRegressor(n_estimators=20, random_state=2, **sampling).fit(X, y).n_trees_ >= 10
    )


def test_rounds_that_grow_no_tree_do_not_use_up_early_stopping_patience():
    from sparseboost import SparseBoostClassifier

    # 3 of 20 features a round: most draws hold neither x0 nor x1, and add
    # no tree; early stopping must not count them as rounds without gain.
    rng = np.random.default_rng(0)
    X = rng.normal(size=(1500, 20))
    y = (X[:, 0] * 2 + np.sin(X[:, 1]) * 3 + rng.normal(0, 0.3, 1500) > 0).astype(int)
    params = dict(n_estimators=25, mu=0.05, colsample_bytree=3, random_state=4, learning_rate=0.3)
    stopped = SparseBoostClassifier(**params, early_stopping_rounds=3).fit(X, y)
    assert stopped.n_trees_ >= 4 and {0, 1} <= set(stopped.selected_features_)
    # When no round's draw pays mu < mu_max, the warning says so.
    X4, y4 = X[:, :4], 2 * X[:, 0]
    with pytest.warns(UserWarning, match="no round's sample of rows and features"):
        SparseBoostRegressor(
            n_estimators=1, mu="0.5*mu_max", colsample_bytree=1, random_state=0
        ).fit(X4, y4)


@pytest.mark.parametrize("costs", [[True, False, False], ["1", "0", "0"], [1.0, None, 0.0]])
def test_costs_of_bools_or_strings_are_refused_as_in_a_dict(costs):
    # numpy would read True as 1.0 and "1" as 1.0; a dict of them is refused.
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(60, 3)), rng.normal(size=60)
    with pytest.raises(TypeError, match="feature_costs"):
        SparseBoostRegressor(n_estimators=2, feature_costs=costs).fit(X, y)
