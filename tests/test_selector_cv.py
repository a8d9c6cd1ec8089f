"""SparseBoostSelectorCV: a feature budget chosen by cross-validation."""

import pickle
import warnings
from types import SimpleNamespace

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.utils.estimator_checks import parametrize_with_checks
from sparseboost import SparseBoostClassifier, SparseBoostRegressor, SparseBoostSelectorCV
from sparseboost.selector_cv import (
    PENALISED_PATIENCE,
    RANKING_PATIENCE,
    REFIT_PATIENCE,
    REFIT_STOP_MIN_ROWS,
    _Rows,
    _stop_when_settled,
    budget_grid,
)


def _planted(seed=0, n=600, d=30):
    """Class labels from features 3, 11 and 20 (linear, a step, a
    threshold); the rest are noise."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    logit = 2.5 * X[:, 3] + 2.0 * np.sign(X[:, 11]) + 2.0 * (X[:, 20] > 0.5)
    y = (logit + rng.logistic(size=n) > 0).astype(int)
    return X, y


def _booster(**params):
    base = dict(n_estimators=60, learning_rate=0.1, max_leaves=7, min_samples_leaf=10)
    return SparseBoostClassifier(**{**base, **params}, random_state=0)


@parametrize_with_checks(
    [SparseBoostSelectorCV(max_selected_features=2, cv=2, random_state=0)],
    # Without an estimator the selector picks a classifier from y at fit, so
    # it gains predict_proba while its tags (fixed before fit) are not a
    # classifier's; the sparse checks then read classifier_tags, which is
    # None. Sparse input itself works (see tests/test_sparse_input.py).
    # Weight 2 is not a duplicated row: folds split rows (a duplicate may
    # be held out while its twin trains), and the boosters' binning and
    # min_samples_leaf count rows (see tests/test_sklearn_api.py).
    expected_failed_checks=lambda est: {
        **{
            f"check_estimator_sparse_{kind}": "predict_proba without classifier tags"
            for kind in ("array", "matrix")
        },
        **{
            f"check_sample_weight_equivalence_on_{kind}_data": "folds count rows, not weights"
            for kind in ("dense", "sparse")
        },
    },
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_finds_the_planted_features_and_keeps_no_noise_under_one_se():
    X, y = _planted()
    selector = SparseBoostSelectorCV(_booster(), max_selected_features=8, rule="one_se", cv=4).fit(
        X, y
    )
    assert set(selector.selected_features_) == {3, 11, 20}
    assert selector.n_features_ == 3
    assert np.flatnonzero(selector.get_support()).tolist() == [3, 11, 20]
    assert selector.transform(X).shape == (X.shape[0], 3)
    proba = selector.predict_proba(X)
    assert proba.shape == (X.shape[0], 2) and selector.score(X, y) > 0.8


def test_cv_results_describe_the_choice():
    X, y = _planted(1)
    selector = SparseBoostSelectorCV(
        _booster(),
        max_selected_features=6,
        budgets=[1, 2, 4, 6],
        cv=3,
        order=["entry", "importance"],
    ).fit(X, y)
    results = selector.cv_results_
    assert list(results["budget"]) == [1, 2, 4, 6] * 2
    assert list(results["order"]) == ["entry"] * 4 + ["importance"] * 4
    splits = np.column_stack([results[f"split{i}_test_score"] for i in range(3)])
    np.testing.assert_allclose(results["mean_test_score"], splits.mean(axis=1))
    np.testing.assert_allclose(results["std_test_score"], splits.std(axis=1))
    assert np.all(results["n_features"] <= results["budget"])
    best = np.argmax(results["mean_test_score"])
    assert results["rank_test_score"][best] == 1
    assert selector.order_ == results["order"][best]
    assert selector.n_features_ == min(
        results["budget"][best], len(selector.ranking_[selector.order_])
    )
    # The first budget's score is a 1-feature model: worse than the best.
    assert results["mean_test_score"][0] < results["mean_test_score"][best]


def test_one_se_keeps_fewer_features_within_one_standard_error():
    X, y = _planted(2)
    params = dict(max_selected_features=8, cv=4, order="entry")
    best = SparseBoostSelectorCV(_booster(), **params).fit(X, y)
    one_se = SparseBoostSelectorCV(_booster(), rule="one_se", **params).fit(X, y)
    results = one_se.cv_results_
    top = np.argmax(results["mean_test_score"])
    se = results["std_test_score"][top] / np.sqrt(4)
    chosen = list(results["budget"]).index(one_se.n_features_)
    assert one_se.n_features_ <= best.n_features_
    assert results["mean_test_score"][chosen] >= results["mean_test_score"][top] - se
    smaller = results["n_features"] < results["n_features"][chosen]
    assert np.all(results["mean_test_score"][smaller] < results["mean_test_score"][top] - se)


def test_each_fold_orders_features_on_its_training_rows_only():
    """Column 30 predicts rows 0-199 perfectly and is noise on the others:
    an ordering fit that saw fold 0's held-out rows (0-199) would rank it
    first."""
    X, y = _planted(3, n=400)
    folds = [(np.arange(200, 400), np.arange(200)), (np.arange(200), np.arange(200, 400))]
    leak = np.random.default_rng(0).normal(size=len(y))
    leak[:200] = y[:200] * 10.0
    X = np.column_stack([X, leak])
    booster = _booster(max_selected_features=3)
    selector = SparseBoostSelectorCV(booster, max_selected_features=3, cv=folds, order="entry").fit(
        X, y
    )
    fold0 = selector.fold_rankings_[0]["entry"]
    np.testing.assert_array_equal(fold0, clone(booster).fit(X[200:], y[200:]).selected_features_)
    assert 30 not in fold0
    assert selector.ranking_["entry"][0] == 30  # on all rows it does enter first


def test_regression_and_a_pipeline():
    rng = np.random.default_rng(4)
    X = rng.uniform(size=(500, 20))
    y = 3 * X[:, 2] + np.sin(6 * X[:, 7]) + rng.normal(0, 0.1, 500)
    booster = SparseBoostRegressor(n_estimators=60, min_samples_leaf=10, random_state=0)
    selector = SparseBoostSelectorCV(booster, max_selected_features=5, cv=3, rule="one_se").fit(
        X, y
    )
    assert set(selector.selected_features_) == {2, 7}
    assert np.all(selector.cv_results_["mean_test_score"] <= 0)  # negated RMSE
    Xc, yc = _planted(5)
    pipe = make_pipeline(
        SparseBoostSelectorCV(_booster(), max_selected_features=4, cv=3), LogisticRegression()
    )
    pipe.fit(Xc, yc)
    assert pipe.score(Xc, yc) > 0.7
    assert pipe[0].n_features_ == pipe[1].coef_.shape[1]


def test_same_random_state_same_result():
    X, y = _planted(6)
    a = SparseBoostSelectorCV(max_selected_features=5, cv=3, random_state=7).fit(X, y)
    b = clone(a).fit(X, y)
    np.testing.assert_array_equal(a.selected_features_, b.selected_features_)
    np.testing.assert_array_equal(
        a.cv_results_["mean_test_score"], b.cv_results_["mean_test_score"]
    )


@pytest.mark.parametrize(
    ("params", "name"),
    [
        (dict(max_selected_features=0), "max_selected_features"),
        (dict(max_selected_features=2.5), "max_selected_features"),
        (dict(budgets=[0, 1]), "budgets"),
        (dict(budgets=[1, 9]), "budgets"),
        (dict(order="alphabetical"), "order"),
        (dict(order=None), "order"),
        (dict(order=[1]), "order"),
        (dict(rule="two_se"), "rule"),
        (dict(n_subsamples=0), "n_subsamples"),
        # Bools are no counts; a 2-D list is no list of budgets.
        (dict(n_subsamples=True), "n_subsamples"),
        (dict(budgets=[True, 3]), "budgets"),
        (dict(budgets=[[1, 2], [3, 5]]), "budgets"),
    ],
)
def test_bad_parameters_are_named(params, name):
    X, y = _planted(7, n=100)
    with pytest.raises(ValueError, match=name):
        SparseBoostSelectorCV(_booster(), cv=2, **{"max_selected_features": 4, **params}).fit(X, y)


def test_labels_of_mixed_types_are_named():
    X, y = _planted(7, n=100)
    mixed = y.astype(object)
    mixed[y == 1] = "one"
    with pytest.raises(ValueError, match="y holds labels of type number, str"):
        SparseBoostSelectorCV(_booster(), cv=2, max_selected_features=2).fit(X, mixed)


def test_a_penalty_that_selects_nothing_is_an_error_naming_mu_max():
    X, y = _planted(8, n=200)
    with pytest.raises(ValueError, match="mu_max"):
        with pytest.warns(UserWarning):
            SparseBoostSelectorCV(_booster(mu=0.99), max_selected_features=3, cv=2).fit(X, y)


def test_candidates_with_a_nan_score_rank_last_and_all_nan_is_an_error():
    X, y = _planted(12, n=300)

    def no_two(estimator, X, y):  # a scorer that cannot score two columns
        return np.nan if X.shape[1] == 2 else estimator.score(X, y)

    params = dict(max_selected_features=3, budgets="all", order="entry", cv=2)
    with pytest.warns(UserWarning, match="1 of 3 .* NaN cross-validation score"):
        selector = SparseBoostSelectorCV(_booster(), scoring=no_two, **params).fit(X, y)
    mean = selector.cv_results_["mean_test_score"]
    rank = selector.cv_results_["rank_test_score"]
    assert np.isnan(mean[1]) and rank[1] == 3 and rank[~np.isnan(mean)].max() < 3
    assert selector.n_features_ != 2
    with pytest.raises(ValueError, match="every cross-validation score is NaN"):
        SparseBoostSelectorCV(_booster(), scoring=lambda *_: np.nan, **params).fit(X, y)


def test_rows_too_few_for_any_split_warn_that_nothing_is_selected():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(36, 2))
    with pytest.warns(UserWarning, match="no split is possible on the 36 rows .*leaf=20"):
        selector = SparseBoostSelectorCV(random_state=0).fit(X, 3 * X[:, 0])
    assert selector.n_features_ == 0


def test_stability_and_unpenalised_orders_rank_the_planted_features_first():
    X, y = _planted(9)
    selector = SparseBoostSelectorCV(
        _booster(),
        max_selected_features=5,
        cv=2,
        order=["stability", "unpenalised"],
        n_subsamples=6,
    ).fit(X, y)
    for name in ("stability", "unpenalised"):
        assert set(selector.ranking_[name][:3]) == {3, 11, 20}, name


def test_a_ranking_fit_stops_once_every_prefix_has_stood_still_for_the_patience():
    d, depths, patience = 4, [1, 2], 3
    stop = _stop_when_settled(d, depths, patience)
    rounds = [  # (features, gains) of each round's splits
        ([0], [5.0]),  # ranked 0: too few for the deepest prefix
        ([1], [3.0]),  # 0, 1
        ([1], [3.0]),  # 1, 0: the first prefix changed
        ([2], [1.0]),  # 1, 0, 2: the prefixes stand (1 round)
        ([], []),  # (2)
        ([0], [0.25]),  # 1 (6) before 0 (5.25) still: 3 rounds
        ([0], [0.25]),
        ([0], [0.75]),  # 0 (6) ties 1 and ranks first (the lower index)
    ]
    said = [
        stop(SimpleNamespace(split_features=np.array(f, dtype=int), split_gains=np.array(g)))
        for f, g in rounds
    ]
    assert said == [False] * 5 + [True, True, False]


def test_the_unpenalised_ranking_fit_stops_early_with_the_full_fits_first_features():
    X, y = _planted(12, n=800, d=40)
    settled = _stop_when_settled(X.shape[1], [1, 2, 3, 5], 10)
    stopped = _booster(penalty="none", n_estimators=300, callbacks=[settled]).fit(X, y)
    full = _booster(penalty="none", n_estimators=300).fit(X, y)
    assert 10 < stopped.n_trees_ < 150 and full.n_trees_ == 300

    def first(model, k):
        return set(np.argsort(-model.get_feature_importance("gain"), kind="stable")[:k])

    assert first(stopped, 3) == first(full, 3) == {3, 11, 20}


def test_a_penalised_fit_may_stop_short_of_the_deepest_prefix_but_not_before_a_feature():
    stop = _stop_when_settled(5, [1, 2, 5], 2, full=False)
    rounds = [([], [])] * 3 + [([4], [2.0]), ([4], [1.0]), ([4], [1.0]), ([1], [0.5])]
    said = [
        stop(SimpleNamespace(split_features=np.array(f, dtype=int), split_gains=np.array(g)))
        for f, g in rounds
    ]
    # No feature in the first three rounds: no stop, however long nothing
    # changes. Then one feature of the five stands for two rounds.
    assert said == [False] * 5 + [True, False]


def test_the_penalised_ordering_fit_stops_once_its_ranking_settles_and_pickles():
    X, y = _planted(13, n=800, d=40)
    booster = _booster(n_estimators=300, mu="0.05*mu_max")
    selector = SparseBoostSelectorCV(booster, max_selected_features=5, cv=2, order="entry")
    selector.fit(X, y)
    stopped = selector.ordering_estimator_
    full = clone(booster).set_params(max_selected_features=5).fit(X, y)
    assert PENALISED_PATIENCE < stopped.n_trees_ < 150 and full.n_trees_ == 300
    # The rounds before the stop are the full fit's: its entries so far.
    entered = stopped.selected_features_
    np.testing.assert_array_equal(entered, full.selected_features_[: entered.size])
    assert set(selector.ranking_["entry"][:3]) == {3, 11, 20}
    # The kept model has the caller's callbacks, not the selector's.
    assert stopped.callbacks is None
    again = pickle.loads(pickle.dumps(selector))
    np.testing.assert_array_equal(again.ordering_estimator_.predict(X), stopped.predict(X))


def test_the_rfe_order_eliminates_down_to_the_planted_features():
    X, y = _planted(11)
    selector = SparseBoostSelectorCV(_booster(), max_selected_features=6, cv=2, order="rfe").fit(
        X, y
    )
    ranking = selector.ranking_["rfe"]
    assert ranking.size == 6 and np.unique(ranking).size == 6
    assert set(ranking[:3]) == {3, 11, 20}
    # It ranks the first 2 x 6 features of an unpenalised fit's gain
    # importance (on all rows here), and no others.
    # (That fit stops as the selector's does, once its prefixes settle.)
    settled = _stop_when_settled(X.shape[1], [*budget_grid(6), 12], RANKING_PATIENCE)
    plain = _booster(penalty="none", callbacks=[settled]).fit(X, y)
    gain = plain.get_feature_importance("gain")
    start = np.argsort(-gain, kind="stable")[:12]
    assert set(ranking) <= set(start.tolist())
    assert list(ranking) != list(start[:6])  # not merely the unpenalised order


def test_a_ranking_shorter_than_the_cap_goes_on_along_a_falling_penalty():
    X, y = _planted(10)
    booster = _booster(mu="0.6*mu_max")
    alone = clone(booster).set_params(max_selected_features=8).fit(X, y).selected_features_
    assert alone.size < 8  # the strong penalty admits few features
    selector = SparseBoostSelectorCV(booster, max_selected_features=8, cv=2, order="entry").fit(
        X, y
    )
    ranking = selector.ranking_["entry"]
    assert ranking.size == 8 and np.unique(ranking).size == 8
    np.testing.assert_array_equal(ranking[: alone.size], alone)


def test_the_default_budgets_are_a_grid_and_all_is_every_budget():
    from sparseboost.selector_cv import budget_grid

    assert budget_grid(20).tolist() == [1, 2, 3, 5, 8, 13, 20]
    assert budget_grid(4).tolist() == [1, 2, 3, 4]
    assert budget_grid(100).tolist() == [1, 2, 3, 5, 8, 13, 20, 30, 50, 80, 100]
    X, y = _planted(8, n=300)
    grid = SparseBoostSelectorCV(_booster(), max_selected_features=6, cv=2).fit(X, y)
    every = SparseBoostSelectorCV(_booster(), max_selected_features=6, cv=2, budgets="all")
    every.fit(X, y)
    assert sorted(set(grid.cv_results_["budget"])) == [1, 2, 3, 5, 6]
    assert sorted(set(every.cv_results_["budget"])) == [1, 2, 3, 4, 5, 6]


def test_a_class_rarer_than_the_folds_still_scores_under_the_default_cv():
    """7 classes, the smallest with 3 rows: 2 of the 5 stratified held-out
    folds lack it (scikit-learn's scorer raised "y_true and y_prob contain
    different number of classes")."""
    rng = np.random.default_rng(9)
    sizes = [60, 50, 40, 30, 20, 10, 3]
    y = np.repeat(np.arange(7), sizes)
    X = rng.normal(size=(y.size, 12))
    X[:, 4] += 2.0 * y  # the planted feature
    selector = SparseBoostSelectorCV(_booster(), max_selected_features=4, random_state=0)
    with pytest.warns(UserWarning, match="least populated class"):
        selector.fit(X, y)
    assert np.all(np.isfinite(selector.cv_results_["mean_test_score"]))
    assert selector.selected_features_[0] == 4
    assert selector.predict_proba(X).shape == (y.size, 7)


def test_two_classes_get_fewer_folds_when_one_is_rarer_than_them():
    X, y = _planted(10, n=200)
    y = np.zeros(200, dtype=int)
    y[[5, 50, 100]] = 1  # 3 rows of class 1, cv=5
    X[y == 1, 3] += 5.0
    with pytest.warns(UserWarning, match="class 1 of y has only 3 rows: using 3 folds"):
        selector = SparseBoostSelectorCV(_booster(min_samples_leaf=1), max_selected_features=2).fit(
            X, y
        )
    assert sum(k.startswith("split") for k in selector.cv_results_) == 3
    y[[50, 100]] = 0
    with pytest.raises(ValueError, match="y: class 1 has 1 row"):
        SparseBoostSelectorCV(_booster(), max_selected_features=2).fit(X, y)


def _ranking_problem(seed=11, n_queries=60, d=15):
    """Relevance 0-3 from feature 6 (and a little of 2) within each query;
    queries of 5 to 20 rows (so that folds of rows would cut some)."""
    rng = np.random.default_rng(seed)
    group = rng.integers(5, 21, n_queries)
    n = int(group.sum())
    X = rng.normal(size=(n, d))
    signal = 1.5 * X[:, 6] + 0.5 * X[:, 2] + rng.normal(0, 0.3, n)
    y = np.clip(np.round(signal + 1.5), 0, 3).astype(int)
    return X, y, group


def test_ranking_cv_keeps_queries_whole_and_finds_the_planted_feature():
    from sparseboost import SparseBoostRanker
    from sparseboost._cv import folds, query_ids

    X, y, group = _ranking_problem()
    queries = query_ids(group)
    for train, test in folds(5, y, classifier=False, queries=queries):
        assert not set(queries[train]) & set(queries[test])
        assert set(queries[train]) | set(queries[test]) == set(queries)
    ranker = SparseBoostRanker(n_estimators=40, max_leaves=7, mu="0.05*mu_max", random_state=0)
    selector = SparseBoostSelectorCV(ranker, max_selected_features=5, random_state=0)
    selector.fit(X, y, group=group)
    assert selector.selected_features_[0] == 6
    scores = selector.cv_results_["mean_test_score"]
    assert np.all((0 <= scores) & (scores <= 1))  # NDCG@10
    with pytest.raises(ValueError, match="group is required"):
        SparseBoostSelectorCV(ranker).fit(X, y)
    with pytest.raises(TypeError, match="group is taken only with a SparseBoostRanker"):
        SparseBoostSelectorCV(_booster()).fit(X, y > 1, group=group)


def test_ndcg_matches_scikit_learn_on_queries_without_ties():
    from sklearn.metrics import ndcg_score
    from sparseboost._cv import mean_ndcg

    rng = np.random.default_rng(12)
    relevance = rng.integers(0, 4, 40)
    score = rng.normal(size=40)
    queries = np.repeat([0, 1, 2, 3], 10)
    expected = np.mean(
        [
            ndcg_score([2.0 ** relevance[queries == q] - 1], [score[queries == q]], k=10)
            for q in range(4)
        ]
    )
    assert mean_ndcg(relevance, score, queries, 10) == pytest.approx(expected)


def test_the_same_selection_with_one_and_two_threads():
    X, y = _planted(13)
    one = SparseBoostSelectorCV(max_selected_features=6, random_state=3, n_jobs=1).fit(X, y)
    two = SparseBoostSelectorCV(max_selected_features=6, random_state=3, n_jobs=2).fit(X, y)
    np.testing.assert_array_equal(one.selected_features_, two.selected_features_)
    np.testing.assert_array_equal(
        one.cv_results_["mean_test_score"], two.cv_results_["mean_test_score"]
    )
    assert one.estimator_._model.to_json() == two.estimator_._model.to_json()
    # The rankings on all rows (fitted beside the folds with two threads).
    for order in one.ranking_:
        np.testing.assert_array_equal(one.ranking_[order], two.ranking_[order])
    assert one.ordering_estimator_._model.to_json() == two.ordering_estimator_._model.to_json()
    assert two.ordering_estimator_.get_params() == one.ordering_estimator_.get_params()
    # Nothing of the folds' machinery (the cancel callback) stays in it.
    again = pickle.loads(pickle.dumps(two))
    np.testing.assert_array_equal(again.predict(X), two.predict(X))


@pytest.mark.parametrize("n, stops", [(800, False), (10_000, True)])
def test_a_folds_refit_stops_early_only_on_a_hold_out_large_enough_to_judge(n, stops):
    """Stopped on the 10% hold-out of a small fold, the stopping round is
    noise; from REFIT_STOP_MIN_ROWS held-out rows, refits stop early."""
    assert (0.1 * n >= REFIT_STOP_MIN_ROWS) is stops
    X, y = _planted(3, n=n, d=21)
    template = _booster(n_estimators=200, learning_rate=0.3)
    kept = np.array([3, 11, 20])
    model = SparseBoostSelectorCV()._fit_plain(template, _Rows(X, y), kept, in_fold=True)
    assert (model.early_stopping_rounds == REFIT_PATIENCE) is stops
    assert (model.n_trees_ < 200) is stops


def _weighted_problem(seed=3, n=500, d=12):
    """Rows of weight 1 whose labels follow feature 2, and as many of
    weight 0 whose labels follow feature 7."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(2 * n, d))
    y = np.r_[X[:n, 2] > 0, X[n:, 7] > 0].astype(int)
    weights = np.r_[np.ones(n), np.zeros(n)]
    return X, y, weights


@pytest.mark.parametrize("rule", ["best", "one_se"])
def test_rows_of_weight_zero_change_nothing(rule):
    # Their labels shuffled, nothing may change: not the fits (ordering,
    # refits), not the held-out scores. Unstratified folds, so that the
    # folds themselves do not follow those labels.
    from sklearn.model_selection import KFold

    X, y, weights = _weighted_problem()
    shuffled = y.copy()
    zero = weights == 0
    shuffled[zero] = np.random.default_rng(1).permutation(y[zero])
    assert (shuffled != y).sum() > 100
    fits = [
        SparseBoostSelectorCV(
            _booster(mu="0.05*mu_max"),
            max_selected_features=4,
            cv=KFold(3, shuffle=True, random_state=0),
            rule=rule,
        ).fit(X, labels, sample_weight=weights)
        for labels in (y, shuffled)
    ]
    np.testing.assert_array_equal(fits[0].selected_features_, fits[1].selected_features_)
    for key in ("mean_test_score", "split0_test_score", "split2_test_score"):
        np.testing.assert_array_equal(fits[0].cv_results_[key], fits[1].cv_results_[key])
    # The weighted rows' feature leads; unweighted, the two halves tie.
    assert fits[0].selected_features_[0] == 2
    assert fits[0].ordering_estimator_.selected_features_[0] == 2
    np.testing.assert_array_equal(fits[0].predict(X[:50]), fits[1].predict(X[:50]))


def test_weighted_scores_are_scikit_learns():
    from sklearn.metrics import log_loss, mean_squared_error, roc_auc_score
    from sparseboost._cv import scorer

    rng = np.random.default_rng(4)
    X = rng.normal(size=(300, 4))
    weights = rng.uniform(0, 3, 300)
    for y, classifier in (
        ((X[:, 0] + rng.normal(size=300) > 0).astype(int), True),
        (np.digitize(X[:, 0] + rng.normal(size=300), [-1, 0, 1]), True),
        (X[:, 0] + rng.normal(size=300), False),
    ):
        model = (_booster if classifier else SparseBoostRegressor)(n_estimators=5).fit(X, y)
        score = scorer(None, model, y, classifier=classifier, ranking=False)
        got = score(model, X, y, None, weights)
        if not classifier:
            expected = -np.sqrt(mean_squared_error(y, model.predict(X), sample_weight=weights))
        elif np.unique(y).size == 2:
            expected = roc_auc_score(y, model.predict_proba(X)[:, 1], sample_weight=weights)
        else:
            expected = -log_loss(y, model.predict_proba(X), sample_weight=weights)
        assert got == pytest.approx(expected, rel=1e-12)
        assert got != pytest.approx(score(model, X, y, None, None), rel=1e-6)
        named = scorer(
            "accuracy" if classifier else "r2", model, y, classifier=classifier, ranking=False
        )
        assert named(model, X, y, None, weights) == pytest.approx(
            model.score(X, y, sample_weight=weights), rel=1e-12
        )


def test_weighted_ndcg_is_the_engines():
    # The engine's ndcg@10 weights each query by its rows' mean weight.
    # (The unweighted values agree first: the engine and mean_ndcg order
    # tied scores differently, so a tie between labels would show there.)
    from sparseboost import SparseBoostRanker
    from sparseboost._cv import mean_ndcg, query_ids

    X, y, group = _ranking_problem()
    X_eval, y_eval, group_eval = _ranking_problem(seed=12)
    weights = np.random.default_rng(5).uniform(0, 2, y_eval.size)
    ranker = SparseBoostRanker(n_estimators=60, eval_metric="ndcg@10", random_state=0)
    ranker.fit(
        X,
        y,
        group=group,
        eval_set=[(X_eval, y_eval)] * 2,
        eval_group=[group_eval] * 2,
        eval_sample_weight=[None, weights],
    )
    predicted = ranker.predict(X_eval)
    queries = query_ids(group_eval)
    plain = mean_ndcg(y_eval, predicted, queries, 10)
    assert plain == pytest.approx(ranker.evals_result_["validation_0"]["ndcg@10"][-1], rel=1e-9)
    weighted = mean_ndcg(y_eval, predicted, queries, 10, weights)
    assert weighted == pytest.approx(ranker.evals_result_["validation_1"]["ndcg@10"][-1], rel=1e-9)
    assert weighted != pytest.approx(plain, rel=1e-6)


def test_ranking_with_weights_ignores_queries_of_weight_zero():
    from sparseboost import SparseBoostRanker

    X, y, group = _ranking_problem()
    n = y.size
    starts = np.r_[0, np.cumsum(group)[:-1]]
    zero_queries = np.arange(group.size) % 2 == 1
    weights = np.ones(n)
    for s, g in zip(starts[zero_queries], group[zero_queries]):
        weights[s : s + g] = 0.0
    shuffled = y.copy()
    rng = np.random.default_rng(2)
    for s, g in zip(starts[zero_queries], group[zero_queries]):
        shuffled[s : s + g] = rng.integers(0, 4, g)
    ranker = SparseBoostRanker(n_estimators=30, max_leaves=7, mu="0.05*mu_max", random_state=0)
    fits = [
        SparseBoostSelectorCV(ranker, max_selected_features=4, cv=3, random_state=0).fit(
            X, labels, group=group, sample_weight=weights
        )
        for labels in (y, shuffled)
    ]
    np.testing.assert_array_equal(fits[0].selected_features_, fits[1].selected_features_)
    np.testing.assert_array_equal(
        fits[0].cv_results_["mean_test_score"], fits[1].cv_results_["mean_test_score"]
    )
    assert fits[0].selected_features_[0] == 6


def test_sample_weight_is_checked_and_named():
    X, y = _planted(n=100)
    with pytest.raises(ValueError, match="sample_weight"):
        SparseBoostSelectorCV(cv=2).fit(X, y, sample_weight=np.ones(99))
    with pytest.raises(ValueError, match="sample_weight"):
        SparseBoostSelectorCV(cv=2).fit(X, y, sample_weight=-np.ones(100))


@pytest.mark.parametrize("kind", ["regression", "classification"])
def test_a_held_out_fold_of_weight_zero_is_named(kind):
    # Its score is NaN (for AUC and log loss scikit-learn raised its own
    # error, for RMSE the error blamed scoring and cv only).
    from sklearn.model_selection import KFold

    X, y = _planted(3, n=300)
    if kind == "regression":
        y = X[:, 3] + X[:, 11]
    weights = np.r_[np.zeros(100), np.ones(200)]
    with pytest.raises(ValueError, match="sample_weight sums to 0"):
        SparseBoostSelectorCV(max_selected_features=2, cv=KFold(3)).fit(X, y, sample_weight=weights)


def test_a_scoring_callable_gets_the_weights_only_if_it_takes_them():
    # scikit-learn's contract for a scoring callable is (estimator, X, y);
    # one without sample_weight raised TypeError when weights were given.
    from sparseboost._cv import scorer

    X, y = _planted(5, n=200)
    weights = np.random.default_rng(0).uniform(0, 2, 200)
    model = _booster(n_estimators=5).fit(X, y)
    seen = []

    def plain(estimator, X_, y_):
        seen.append(None)
        return estimator.score(X_, y_)

    def weighing(estimator, X_, y_, sample_weight=None):
        seen.append(sample_weight)
        return estimator.score(X_, y_, sample_weight=sample_weight)

    for callable_ in (plain, weighing):
        score = scorer(callable_, model, y, classifier=True, ranking=False)
        score(model, X, y, None, weights)
    assert seen[0] is None and seen[1] is weights
    SparseBoostSelectorCV(_booster(), scoring=plain, max_selected_features=2, cv=2).fit(
        X, y, sample_weight=weights
    )


def test_an_unpenalised_estimator_does_not_warn_of_no_split():
    # Its mu_max_ is None, which read as 0: "no feature is selected".
    X, y = _planted(6, n=300)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        selector = SparseBoostSelectorCV(_booster(penalty="none"), max_selected_features=3, cv=3)
        selector.fit(X, y)
    assert selector.n_features_ > 0


def test_rankings_hold_at_most_the_cap_when_bags_stay_open():
    # A bag paid for stays open past the budget: the penalised fit used all
    # features of one bag under a cap of 5, and so did its rankings.
    X, y = _planted(9, n=300)
    booster = _booster(feature_bags=[0] * 30)
    selector = SparseBoostSelectorCV(
        booster, max_selected_features=5, cv=2, order=["entry", "importance"]
    )
    selector.fit(X, y)
    assert selector.ordering_estimator_.selected_features_.size > 5
    for ranking in [selector.ranking_, *selector.fold_rankings_]:
        assert all(r.size <= 5 for r in ranking.values())


def test_all_rows_are_taken_without_a_copy():
    # The ordering on all rows held a second copy of X (a slice of a sparse
    # matrix copies it).
    import scipy.sparse as sp

    X = sp.random(50, 8, density=0.3, format="csr", random_state=0)
    rows = _Rows(X, np.arange(50.0), None, np.ones(50))
    everything = rows.take(slice(None))
    assert everything.X is X and everything.weights is rows.weights
    part = rows.take(np.arange(10))
    assert part.X.shape == (10, 8) and part.weights.shape == (10,)
