"""Learning to rank: LambdaRank with query groups, NDCG/MAP/MRR metrics."""

import pickle

import numpy as np
import pytest
from sparseboost import SparseBoostRanker, load_model

PLANTED = [5, 60, 150]


def planted_ranking(n_queries=150, size=20, d=200, seed=0):
    """Relevance 0..3 decided by 3 of 200 features, in queries of `size`
    rows (a few queries shorter)."""
    rng = np.random.default_rng(seed)
    sizes = np.full(n_queries, size)
    sizes[::7] = size // 2
    X = rng.random((sizes.sum(), d))
    score = 2 * X[:, PLANTED[0]] + X[:, PLANTED[1]] - X[:, PLANTED[2]]
    y = np.digitize(score + 0.1 * rng.normal(size=len(score)), [0.6, 1.2, 1.8])
    return X, y, sizes


def ndcg(y, scores, sizes, k):
    """Mean NDCG@k by definition (ties in score keep row order; a query
    without relevant rows counts 1)."""
    values, start = [], 0
    for size in sizes:
        yq, sq = y[start : start + size], scores[start : start + size]
        start += size
        order = np.argsort(-sq, kind="stable")
        discount = 1 / np.log2(np.arange(2, size + 2))
        dcg = ((2.0 ** yq[order] - 1) * discount)[:k].sum()
        ideal = ((2.0 ** np.sort(yq)[::-1] - 1) * discount)[:k].sum()
        values.append(dcg / ideal if ideal > 0 else 1.0)
    return float(np.mean(values))


@pytest.fixture(scope="module")
def data():
    return planted_ranking(), planted_ranking(n_queries=60, seed=1)


@pytest.mark.parametrize(
    "params",
    [
        dict(penalty="agbm", mu=0.05),
        dict(penalty="gbfs", mu=0.5),
        dict(penalty="agbm", mu=0.05, split_search="group_testing", gt_n_features=3),
    ],
)
def test_the_planted_features_are_selected_first(data, params):
    (X, y, g), (X_test, y_test, g_test) = data
    model = SparseBoostRanker(n_estimators=60, random_state=0, **params).fit(X, y, group=g)
    assert set(model.selected_features_[:3]) == set(PLANTED), model.selected_features_
    assert ndcg(y_test, model.predict(X_test), g_test, 5) > 0.9


def test_eval_metrics_equal_their_definition(data):
    (X, y, g), (X_test, y_test, g_test) = data
    model = SparseBoostRanker(
        n_estimators=15, random_state=0, eval_metric=["map@5", "mrr", "ndcg@3"]
    ).fit(X, y, group=g, eval_set=[(X_test, y_test)], eval_group=[g_test])
    history = model.evals_result_["validation_0"]
    scores = model.predict(X_test)
    assert history["ndcg@3"][-1] == pytest.approx(ndcg(y_test, scores, g_test, 3), abs=1e-12)
    # MRR: rows with label > 0 are relevant.
    rr, start = [], 0
    for size in g_test:
        order = np.argsort(-scores[start : start + size], kind="stable")
        hits = np.flatnonzero(y_test[start : start + size][order] > 0)
        rr.append(1 / (hits[0] + 1) if len(hits) else 0.0)
        start += size
    assert history["mrr"][-1] == pytest.approx(np.mean(rr), abs=1e-12)
    assert 0 < history["map@5"][-1] <= 1


def test_early_stopping_holds_out_whole_queries(data):
    (X, y, g), _ = data
    model = SparseBoostRanker(
        n_estimators=300, learning_rate=0.3, early_stopping_rounds=5, random_state=0
    ).fit(X, y, group=g)
    assert model.best_iteration_ is not None
    assert model.n_trees_ == model.best_iteration_ + 1
    assert list(model.evals_result_["validation_0"]) == ["ndcg@30"]


def test_round_trips_and_threads(tmp_path, data):
    (X, y, g), (X_test, _, _) = data
    model = SparseBoostRanker(n_estimators=10, subsample=0.5, random_state=1).fit(X, y, group=g)
    path = tmp_path / "ranker.json"
    model.save_model(path)
    for other in (load_model(path), pickle.loads(pickle.dumps(model))):
        assert np.array_equal(other.predict(X_test), model.predict(X_test))
    two = SparseBoostRanker(n_estimators=10, subsample=0.5, random_state=1, n_jobs=1)
    assert two.fit(X, y, group=g)._model.to_json() == model._model.to_json()


@pytest.mark.parametrize(
    "group, message",
    [
        (None, "group is required"),
        ([10, 10], "sum to 20"),
        ([0, 2990], "sizes >= 1"),
        ([1.5] * 2, "query sizes"),
    ],
)
def test_bad_groups_are_named(data, group, message):
    (X, y, g), _ = data
    with pytest.raises(ValueError, match=message):
        SparseBoostRanker(n_estimators=2).fit(X, y, group=group)


def test_bad_relevance_labels_are_named(data):
    (X, y, g), _ = data
    with pytest.raises(ValueError, match="relevance labels"):
        SparseBoostRanker(n_estimators=2).fit(X, y + 0.5, group=g)
    with pytest.raises(ValueError, match="eval_group"):
        SparseBoostRanker(n_estimators=2).fit(X, y, group=g, eval_set=[(X, y)])


def test_the_rankers_parameters_are_its_signatures():
    # scikit-learn reads parameters from __init__'s signature: with
    # **params there, its repr listed every default and its
    # check_do_not_raise_errors_in_init_or_set_params failed.
    import inspect

    from sklearn.base import clone
    from sklearn.utils.estimator_checks import check_do_not_raise_errors_in_init_or_set_params
    from sparseboost import SparseBoostRanker, SparseBoostRegressor

    parameters = inspect.signature(SparseBoostRanker).parameters
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in parameters.values())
    assert set(parameters) == set(SparseBoostRegressor().get_params()) | {
        "lambdarank_truncation_level"
    }
    ranker = SparseBoostRanker(n_estimators=5, lambdarank_truncation_level=10)
    assert repr(ranker) == "SparseBoostRanker(lambdarank_truncation_level=10, n_estimators=5)"
    assert clone(ranker).get_params() == ranker.get_params()
    check_do_not_raise_errors_in_init_or_set_params("SparseBoostRanker", SparseBoostRanker())
