"""The "permutation" and "mu_path" orders of SparseBoostSelectorCV."""

from types import SimpleNamespace

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.inspection import permutation_importance
from sklearn.metrics import roc_auc_score
from sparseboost import SparseBoostClassifier, SparseBoostRanker, SparseBoostSelectorCV
from sparseboost.selector_cv import MU_PATH, _permutation_drops, _Rows, _shuffle_column


def _problem(seed=0, n=800, d=30):
    """Labels from features 4 (strong), 9 (medium) and 17 (weak); feature
    22 is a noisy copy of 4, redundant once 4 is in."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X[:, 22] = X[:, 4] + 0.8 * rng.normal(size=n)
    logit = 3.0 * X[:, 4] + 1.5 * X[:, 9] + 0.8 * X[:, 17]
    y = (logit + rng.logistic(size=n) > 0).astype(int)
    return X, y


def _booster(**params):
    base = dict(n_estimators=80, learning_rate=0.1, max_leaves=7, min_samples_leaf=10)
    return SparseBoostClassifier(**{**base, **params}, random_state=0)


@pytest.mark.parametrize("order", ["permutation", "mu_path"])
def test_the_planted_features_rank_first_in_order_of_strength(order):
    X, y = _problem()
    selector = SparseBoostSelectorCV(
        _booster(mu="0.05*mu_max"), max_selected_features=6, cv=3, order=order, random_state=0
    ).fit(X, y)
    ranking = selector.ranking_[order]
    assert ranking.size == 6 and np.unique(ranking).size == 6
    assert list(ranking[:2]) == [4, 9], ranking
    assert 17 in ranking[:4]
    assert set(selector.selected_features_) >= {4, 9}


def test_the_mu_path_ranks_by_the_strongest_penalty_a_feature_pays():
    """Fits from the strongest penalty down; each adds the features new to
    it, in its entry order, until the cap; then the entry order."""
    selected = {0.5: [7], 0.25: [3, 7], 0.1: [3, 7, 5, 1], 0.05: [2, 3, 7, 5, 1, 8]}
    fitted = []

    class Rows:
        def fit(self, model):
            # Relative to the mu_max each fit measures.
            assert model.mu.endswith("*mu_max")
            mu = float(model.mu.removesuffix("*mu_max"))
            fitted.append(mu)
            assert model.max_selected_features == 5
            return SimpleNamespace(selected_features_=np.array(selected[round(mu, 6)]))

    ranking = SparseBoostSelectorCV()._mu_path(_booster(), Rows(), 5, np.array([9, 2]), 10.0)
    assert fitted == [0.5, 0.25, 0.1, 0.05]  # the cap of 5 is reached: no 0.02 fit
    assert list(ranking) == [7, 3, 5, 1, 2]
    # Fewer on the whole path than the cap: the entry order fills it.
    selected = {f: [4] for f in MU_PATH}
    ranking = SparseBoostSelectorCV()._mu_path(_booster(), Rows(), 5, np.array([9, 4, 2]), 10.0)
    assert list(ranking) == [4, 9, 2]


def test_the_mu_path_of_a_group_tested_booster_with_an_absolute_mu_is_a_path():
    """A group-tested fit with an absolute mu does not measure mu_max
    (``mu_max_`` is None). The path's fits are relative to the mu_max they
    measure, so its ranking does not depend on the estimator's own mu when
    the path fills the cap (before, an unmeasured mu_max gave no path, and
    the "mu_path" order was the entry order in disguise)."""
    X, y = _problem(1)
    rankings = []
    for mu in (0.02, "0.05*mu_max"):  # (mu_max is about 0.3 here)
        booster = _booster(split_search="group_testing", gt_n_features=3, mu=mu)
        selector = SparseBoostSelectorCV(
            booster, max_selected_features=4, cv=3, order=("mu_path", "entry"), random_state=0
        ).fit(X, y)
        rankings.append(selector.ranking_)
    absolute, relative = rankings
    np.testing.assert_array_equal(absolute["mu_path"], relative["mu_path"])
    assert list(absolute["mu_path"][:2]) == [4, 9], absolute
    assert absolute["mu_path"].size == 4


def test_permutation_drops_match_scikit_learns_permutation_importance():
    """The mean drop of the score when a column is shuffled is scikit-learn's
    permutation importance (to the noise of the draws)."""
    X, y = _problem(2, n=3000)
    model = _booster(penalty="none").fit(X[:1000], y[:1000])
    held = _Rows(X[1000:], y[1000:])
    features = np.array([4, 9, 17, 22, 0])

    def auc(model, X_, y_, _queries, _weights):
        return roc_auc_score(y_, model.predict_proba(X_)[:, 1])

    ours = _permutation_drops(model, held, features, auc, np.random.default_rng(0), 30)
    reference = permutation_importance(
        model, held.X, held.y, scoring="roc_auc", n_repeats=30, random_state=0
    ).importances_mean[features]
    np.testing.assert_allclose(ours, reference, atol=0.004)
    assert ours[0] > ours[1] > ours[2] > 0.01 > abs(ours[4])


def test_permutation_on_a_ranker_holds_out_whole_queries():
    rng = np.random.default_rng(3)
    sizes = np.full(60, 10)
    X = rng.normal(size=(600, 12))
    y = np.clip(np.round(1.5 * X[:, 7] + 0.5 * rng.normal(size=600)) + 2, 0, 4)
    queries = np.repeat(np.arange(60), 10)
    inner, held = _Rows(X, y, queries).split(0.2, rng, stratify=False)
    assert not set(inner.queries) & set(held.queries)
    assert len(set(held.queries)) == 12 and held.y.size == 120
    ranker = SparseBoostRanker(n_estimators=40, max_leaves=7, min_samples_leaf=5, random_state=0)
    selector = SparseBoostSelectorCV(
        ranker, max_selected_features=3, cv=3, order="permutation", random_state=0
    ).fit(X, y, group=sizes)
    assert selector.ranking_["permutation"][0] == 7


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(1, 12),
    d=st.integers(1, 6),
    density=st.floats(0.0, 1.0),
    seed=st.integers(0, 2**16),
)
def test_shuffling_a_sparse_column_is_shuffling_it_dense(n, d, density, seed):
    rng = np.random.default_rng(seed)
    dense = np.round(rng.normal(size=(n, d)), 1) * (rng.random((n, d)) < density)
    feature, order = int(rng.integers(d)), rng.permutation(n)
    expected = dense.copy()
    expected[:, feature] = dense[order, feature]
    for matrix in (sp.csr_matrix(dense), sp.csc_matrix(dense)):
        shuffled = _shuffle_column(matrix, feature, order)
        np.testing.assert_array_equal(shuffled.toarray(), expected)
        np.testing.assert_array_equal(matrix.toarray(), dense)  # unchanged
    np.testing.assert_array_equal(_shuffle_column(dense, feature, order), expected)


def test_permutation_keeps_the_gain_order_when_the_hold_out_cannot_be_scored(monkeypatch):
    """A hold-out of one class (a class too rare to stratify) has no AUC:
    the ranking is then the fit's gain order, not an error."""
    X, y = _problem(4, n=400)
    rows = _Rows(X, y)
    one_class = _Rows(X[y == 0][:40], y[y == 0][:40])
    monkeypatch.setattr(_Rows, "split", lambda self, *a, **k: (rows, one_class))
    score = lambda model, X_, y_, *_: roc_auc_score(y_, model.predict_proba(X_)[:, 1])  # noqa: E731
    ranking = SparseBoostSelectorCV(random_state=0)._permutation(_booster(), rows, 3, score)
    plain = _booster(penalty="none").fit(X, y)
    by_gain = np.argsort(-plain.get_feature_importance("gain"), kind="stable")
    assert list(ranking) == list(by_gain[:3])


def test_a_single_row_or_query_has_no_hold_out():
    one = _Rows(np.zeros((1, 3)), np.zeros(1))
    assert one.split(0.1, np.random.default_rng(0), stratify=True) == (one, None)
    query = _Rows(np.zeros((4, 3)), np.arange(4.0), np.zeros(4, dtype=int))
    assert query.split(0.5, np.random.default_rng(0), stratify=False) == (query, None)


def test_permutation_hold_out_too_small_to_stratify_is_drawn_unstratified():
    # 5 classes, 40 training rows a fold: a 4-row hold-out cannot hold every
    # class, and train_test_split raised its own error.
    rng = np.random.default_rng(0)
    y = np.arange(60) % 5
    X = rng.normal(size=(60, 6))
    X[:, 0] += y
    booster = SparseBoostClassifier(n_estimators=5, random_state=0)
    selector = SparseBoostSelectorCV(booster, max_selected_features=3, order="permutation", cv=3)
    assert 0 in selector.fit(X, y).selected_features_
    inner, held = _Rows(X[:40], y[:40]).split(0.1, np.random.default_rng(0), stratify=True)
    assert (inner.y.size, held.y.size) == (36, 4)
