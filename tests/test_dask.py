"""Training on a real Dask cluster (a ``LocalCluster`` of 2 worker
processes): the Dask fit equals the engine's in-process transport over the
same shards bit for bit, one shard equals the single-machine estimator,
empty and imbalanced shards work, and a killed worker gives an error, not a
hang. Every test has a timeout."""

from __future__ import annotations

import json
import os
import pickle
import signal
import time

import numpy as np
import pytest

pytest.importorskip("distributed")
da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")

import dask  # noqa: E402
from distributed import Client, wait  # noqa: E402
from sparseboost import (  # noqa: E402
    SparseBoostRanker,
    SparseBoostRegressor,
    _core,
    load_model,
)
from sparseboost._matrix import engine_matrix  # noqa: E402
from sparseboost.dask import (  # noqa: E402
    DaskSparseBoostClassifier,
    DaskSparseBoostRanker,
    DaskSparseBoostRegressor,
    ShardLostError,
    _query_chunks,
)

pytestmark = pytest.mark.timeout(180)
from dask_cases import _ESTIMATORS, _MULTITASK, _PARAMS, _cluster, _fit, _problem, _tasks_problem  # noqa: E402


def _in_process(estimator, X, y, group, weight=None):
    """The engine's in-process transport over the shards the Dask fit used
    (``shard_rows_``), with its parameters: the oracle."""
    params = estimator._engine_params(draw_seed=False)
    if hasattr(estimator, "classes_"):
        y = np.searchsorted(estimator.classes_, y)
    ends = None if group is None else np.cumsum(group)
    shards = []
    for rows in estimator.shard_rows_:
        sizes = None
        if group is not None:
            # Shards hold whole queries: their sizes are the runs of query ids.
            _, sizes = np.unique(np.searchsorted(ends, rows, side="right"), return_counts=True)
            sizes = sizes.astype(np.uintp)
        w = None if weight is None else np.ascontiguousarray(weight[rows])
        shards.append(
            _core.Shard(
                engine_matrix(np.ascontiguousarray(X[rows]), "csc"),
                np.ascontiguousarray(y[rows], dtype=np.float64),
                w,
                sizes,
                params,
            )
        )

    def exchange(requests):
        return [s.handle(r) for s, r in zip(shards, requests)]

    placed = [rows.tolist() for rows in estimator.shard_rows_]
    model, _, traffic = _core.fit_sharded(
        params, exchange, len(shards), X.shape[1], shard_rows=placed
    )
    return model, traffic


@pytest.mark.parametrize("search", ["exhaustive", "group_testing"])
@pytest.mark.parametrize("kind", list(_ESTIMATORS))
def test_dask_fit_equals_the_in_process_transport_over_the_same_shards(client, kind, search):
    X, y, group = _problem(kind, d=30)
    # Chunks of about 250 rows (on query boundaries for ranking), placed on
    # the workers in turn: 2 shards of interleaved chunks.
    chunks = (250,) * 4 + (200,)
    if group is not None:
        chunks, _ = _query_chunks(chunks, group)
    cut = np.cumsum(chunks)[:-1]
    workers = [sorted(client.ncores())[i % 2] for i in range(len(chunks))]
    dX = _placed(client, np.split(X, cut), workers)
    dy = _placed(client, np.split(y, cut), workers)
    dask_cls, local_cls = _ESTIMATORS[kind]
    params = dict(_PARAMS, split_search=search, gt_n_features=3, gt_max_rows=300)
    est = _fit(dask_cls(client=client, **params), dX, dy, group)
    starts = np.concatenate([[0], np.cumsum(chunks)])
    held = [
        np.concatenate([np.arange(starts[i], starts[i + 1]) for i in range(k, len(chunks), 2)])
        for k in (0, 1)
    ]
    for rows, expected in zip(est.shard_rows_, held, strict=True):
        np.testing.assert_array_equal(rows, expected)
    model, traffic = _in_process(est, X, y, group)
    assert est._model.to_json() == model.to_json()
    timing = ("seconds",)
    assert {k: v for k, v in est.traffic_.items() if k not in timing} == {
        k: v for k, v in traffic.items() if k not in timing
    }
    assert {1, 4} <= set(est.selected_features_)
    # Predictions mapped over the chunks are the local estimator's.
    local = est.to_local()
    assert type(local) is local_cls
    np.testing.assert_array_equal(est.predict(dX).compute(), local.predict(X))
    if kind in ("binary", "multiclass"):
        np.testing.assert_array_equal(est.predict_proba(dX).compute(), local.predict_proba(X))


@pytest.mark.parametrize("search", ["exhaustive", "group_testing"])
@pytest.mark.parametrize("kind", list(_ESTIMATORS))
def test_one_shard_is_the_single_machine_estimator(client, kind, search, tmp_path):
    X, y, group = _problem(kind, n=600, d=30, seed=1)
    dX = da.from_array(X, chunks=-1)
    dask_cls, local_cls = _ESTIMATORS[kind]
    # Row subsampling: the shards grow each tree on the single machine's
    # sample of the rows.
    params = dict(_PARAMS, split_search=search, gt_n_features=3, gt_max_rows=200, subsample=0.8)
    if search == "exhaustive":
        # Dynamic feature sampling: weights from the trees' gains and roots.
        params.update(feature_sampling="dynamic", colsample_bytree=0.4)
    est = _fit(dask_cls(client=client, **params), dX, da.from_array(y, chunks=-1), group)
    assert est.n_workers_ == 1
    local = _fit(local_cls(**params), X, y, group)
    assert est._model.to_json() == local._model.to_json()
    restored = pickle.loads(pickle.dumps(est.to_local()))
    np.testing.assert_array_equal(restored.predict(X), local.predict(X))
    # A Dask estimator's file loads as the equivalent single-machine one.
    path = tmp_path / "dask.json"
    est.save_model(path)
    loaded = load_model(path)
    assert type(loaded) is local_cls
    assert loaded._model.to_json() == local._model.to_json()
    np.testing.assert_array_equal(loaded.predict(X), local.predict(X))


def _placed(client, blocks, workers):
    """A persisted Dask array whose i-th row chunk is ``blocks[i]``, held by
    ``workers[i]``."""
    futures, parts = [], []
    for block, worker in zip(blocks, workers):
        futures.append(client.scatter(block, workers=[worker], hash=False))
        parts.append(da.from_delayed(dask.delayed(futures[-1]), block.shape, dtype=block.dtype))
    array = client.persist(da.concatenate(parts))
    wait(array)  # computed where the scattered blocks are, while they are held
    return array


def test_empty_and_imbalanced_shards(client):
    X, y, _ = _problem("regression", n=1000, seed=2)
    w = np.random.default_rng(0).random(len(y)) + 0.5
    a, b = sorted(client.ncores())
    for bounds, owners in [((0, 1000), (b, a)), ((100, 900), (a, b)), ((1000, 0), (a, b))]:
        cut = np.cumsum(bounds)[:-1]
        split = lambda v: np.split(v, cut)  # noqa: E731
        dX = _placed(client, split(X), owners)
        dy, dw = _placed(client, split(y), owners), _placed(client, split(w), owners)
        est = DaskSparseBoostRegressor(client=client, **_PARAMS).fit(dX, dy, sample_weight=dw)
        assert [len(r) for r in est.shard_rows_] == [b for b in bounds if b or est.n_workers_ == 2]
        model, _ = _in_process(est, X, y, None, weight=w)
        assert est._model.to_json() == model.to_json()
        assert {1, 4} <= set(est.selected_features_)


@pytest.mark.parametrize("kind", ["regression", "ranking"])
def test_a_row_sample_does_not_depend_on_where_dask_put_the_chunks(client, kind):
    # Rows are sampled in X's order, not in the order of the shards' rows:
    # interleaved chunks, on either worker, draw the single machine's
    # samples (only the order of the shards' sums differs).
    X, y, group = _problem(kind, n=900, seed=5)
    cut = [300, 450, 700]
    if group is not None:
        ends = np.cumsum(group)
        cut = [int(ends[np.searchsorted(ends, c)]) for c in cut]  # whole queries
    params = dict(_PARAMS, n_estimators=12, subsample=0.6)
    local = (SparseBoostRanker if group is not None else SparseBoostRegressor)(**params)
    local = _fit(local, X, y, group)
    a, b = sorted(client.ncores())
    for owners in [(a, b, a, b), (b, a, b, a), (b, b, a, a)]:
        dX = _placed(client, np.split(X, cut), owners)
        dy = _placed(client, np.split(y, cut), owners)
        cls = DaskSparseBoostRanker if group is not None else DaskSparseBoostRegressor
        est = _fit(cls(client=client, **params), dX, dy, group)
        assert est.n_workers_ == 2
        np.testing.assert_allclose(est.to_local().predict(X), local.predict(X), rtol=0, atol=1e-9)
        assert list(est.selected_features_) == list(local.selected_features_)


@pytest.mark.timeout(120)
def test_a_killed_worker_is_an_error_within_60_seconds_and_the_cluster_stays_usable():
    X, y, _ = _problem("regression", n=2000, seed=6)
    with _cluster() as cluster, Client(cluster) as client:
        dX = da.from_array(X, chunks=(500, X.shape[1]))
        dy = da.from_array(y, chunks=500)
        victim = sorted(client.ncores())[1]
        pid = client.run(os.getpid, workers=[victim])[victim]

        def kill(report):
            if report.round == 1:
                os.kill(pid, signal.SIGKILL)

        params = dict(n_estimators=40, random_state=0, mu=0.001)
        est = DaskSparseBoostRegressor(client=client, callbacks=[kill], **params)
        started = time.monotonic()
        with pytest.raises(ShardLostError, match="lost") as lost:
            est.fit(dX, dy)
        assert time.monotonic() - started < 60
        # The rounds completed before the loss come back, as a local model.
        partial = lost.value.partial
        assert isinstance(partial, SparseBoostRegressor) and 1 <= partial.n_trees_ < 40
        client.wait_for_workers(2, timeout=60)
        resumed = DaskSparseBoostRegressor(client=client, **params)
        resumed.fit(dX, dy, init_model=partial)
        assert resumed.n_trees_ == 40
        trees = json.loads(resumed.to_local()._model.to_json())["trees"]
        assert trees[: partial.n_trees_] == json.loads(partial._model.to_json())["trees"]


def test_a_resumed_fit_is_the_uninterrupted_fit(client):
    X, y, _ = _problem("multiclass", n=900, d=12, seed=7)
    dX, dy = da.from_array(X, chunks=(300, X.shape[1])), da.from_array(y, chunks=300)
    # Held here, so that every fit finds the chunks where the first left
    # them: the same shards.
    dX, dy = client.persist([dX, dy])
    params = dict(_PARAMS, n_estimators=10, split_search="group_testing", gt_n_features=3)
    whole = DaskSparseBoostClassifier(client=client, **params).fit(dX, dy)
    # A failed fit's completed rounds: those of a fit of 4 rounds.
    short = DaskSparseBoostClassifier(client=client, **dict(params, n_estimators=4))
    partial = short.fit(dX, dy).to_local()
    assert 0 < partial.n_trees_ < whole.n_trees_
    resumed = DaskSparseBoostClassifier(client=client, **params).fit(dX, dy, init_model=partial)
    for a, b in zip(resumed.shard_rows_, whole.shard_rows_, strict=True):
        np.testing.assert_array_equal(a, b)
    assert resumed._model.to_json() == whole._model.to_json()
    with pytest.raises(ValueError, match="features"):
        other = DaskSparseBoostClassifier(client=client, **params)
        other.fit(dX[:, :5], dy, init_model=partial)


@pytest.mark.parametrize("kind", list(_ESTIMATORS))
def test_early_stopping_without_an_eval_set_holds_out_the_single_machines_rows(client, kind):
    X, y, group = _problem(kind, n=700, d=10, seed=8)
    params = dict(_PARAMS, n_estimators=80, early_stopping_rounds=3, validation_fraction=0.2)
    # One chunk: the fit is the single machine's, held-out rows included.
    dX, dy = da.from_array(X, chunks=-1), da.from_array(y, chunks=-1)
    dask_cls, local_cls = _ESTIMATORS[kind]
    est = _fit(dask_cls(client=client, **params), dX, dy, group)
    local = _fit(local_cls(**params), X, y, group)
    assert est._model.to_json() == local._model.to_json()
    assert est.best_iteration_ == local.best_iteration_ is not None
    assert est.n_trees_ < 80 * (3 if kind == "multiclass" else 1)
    for name, metrics in local.evals_result_.items():
        for metric, values in metrics.items():
            np.testing.assert_array_equal(est.evals_result_[name][metric], values)
    # Several chunks on both workers: the held-out rows are not trained on.
    chunks = (175,) * 4
    if group is not None:
        chunks, _ = _query_chunks(chunks, group)
    est = _fit(dask_cls(client=client, **params), dX.rechunk((chunks, -1)), dy, group)
    trained = sum(len(rows) for rows in est.shard_rows_)
    if group is None:
        assert trained == len(y) - int(np.ceil(0.2 * len(y)))
    else:
        assert trained < len(y)
    assert {1, 4} <= set(est.selected_features_)


@pytest.mark.parametrize("kind", list(_MULTITASK))
def test_dask_multitask_is_the_single_machine_multitask_fit(client, kind, tmp_path):
    X, y, task = _tasks_problem()
    if kind == "binary":
        y = np.where(y > np.median(y), "hi", "lo")
    dask_cls, local_cls = _MULTITASK[kind]
    variants = [
        # Few rounds: a round's parity is the same with many or few.
        dict(n_estimators=10, random_state=1),
        dict(n_estimators=10, random_state=2, shared_rounds=3, subsample=0.8, mu_task=0.02),
        dict(
            # A large step, so that the fit stops early (rounds 7 and 11).
            n_estimators=30,
            learning_rate=0.5,
            random_state=3,
            early_stopping_rounds=3,
            split_search="group_testing",
            gt_n_features=2,
        ),
        # Relative mus, resolved against the mu_max the shards' roots give.
        dict(n_estimators=10, random_state=4, mu_group="0.2*mu_max", mu_task="0.05*mu_max"),
    ]
    for params in variants:
        # One chunk: the single machine's model bit for bit.
        est = dask_cls(client=client, **params).fit(
            da.from_array(X, chunks=-1), da.from_array(y, chunks=-1), task
        )
        local = local_cls(**params).fit(X, y, task)
        assert est._model.to_json() == local._model.to_json(), params
        assert est.best_iteration_ == local.best_iteration_
        if "early_stopping_rounds" in params:
            assert est.best_iteration_ < params["n_estimators"] - 3, "it stopped early"
        assert est.mu_max_ == local.mu_max_
        # (Group testing with absolute mus does not measure mu_max.)
        if params.get("split_search") == "group_testing":
            assert local.mu_max_ is None
        else:
            assert local.mu_max_ > 0
        np.testing.assert_array_equal(est.tasks_, local.tasks_)
    # Two shards of interleaved chunks: the planted features; predictions
    # mapped with each chunk's tasks are the local estimator's.
    chunks = (225,) * 4
    cut = np.cumsum(chunks)[:-1]
    workers = [sorted(client.ncores())[i % 2] for i in range(len(chunks))]
    dX = _placed(client, np.split(X, cut), workers)
    dy = _placed(client, np.split(y, cut), workers)
    dtask = _placed(client, np.split(task, cut), workers)
    est = dask_cls(client=client, n_estimators=25, random_state=0).fit(dX, dy, dtask)
    assert est.n_workers_ == 2
    assert {0, 5} <= set(est.selected_features_)
    assert 5 in est.task_selected_features_["b"]
    local = est.to_local()
    assert type(local) is local_cls
    np.testing.assert_array_equal(est.predict(dX, dtask).compute(), local.predict(X, task))
    np.testing.assert_array_equal(est.predict(dX, "c").compute(), local.predict(X, "c"))
    if kind == "binary":
        np.testing.assert_array_equal(
            est.predict_proba(dX, dtask).compute(), local.predict_proba(X, task)
        )
    path = tmp_path / "multitask.json"
    est.save_model(path)
    loaded = load_model(path)
    assert type(loaded) is local_cls
    np.testing.assert_array_equal(loaded.predict(X, task), local.predict(X, task))


@pytest.mark.timeout(180)
def test_a_multiclass_fit_resumed_after_a_killed_worker_is_the_uninterrupted_fit():
    X, y, _ = _problem("multiclass", n=1200, d=12, seed=10)
    cut = np.cumsum((300,) * 4)[:-1]
    with _cluster() as cluster, Client(cluster) as client:

        def placed():
            # Chunks 0 and 2 on one worker, 1 and 3 on the other: the same
            # two shards, whichever workers hold them.
            first, second = sorted(client.ncores())
            workers = [first, second, first, second]
            return [_placed(client, np.split(v, cut), workers) for v in (X, y)]

        params = dict(_PARAMS, n_estimators=12, split_search="group_testing", gt_n_features=3)
        dX, dy = placed()
        whole = DaskSparseBoostClassifier(client=client, **params).fit(dX, dy)
        victim = sorted(client.ncores())[1]
        pid = client.run(os.getpid, workers=[victim])[victim]

        def kill(report):
            if report.round == 4:
                os.kill(pid, signal.SIGKILL)

        with pytest.raises(ShardLostError) as lost:
            DaskSparseBoostClassifier(client=client, callbacks=[kill], **params).fit(dX, dy)
        partial = lost.value.partial
        assert 0 < partial.n_trees_ < whole.n_trees_
        client.wait_for_workers(2, timeout=60)
        dX, dy = placed()
        resumed = DaskSparseBoostClassifier(client=client, **params)
        resumed.fit(dX, dy, init_model=partial)
        for a, b in zip(resumed.shard_rows_, whole.shard_rows_, strict=True):
            np.testing.assert_array_equal(a, b)
        assert resumed._model.to_json() == whole._model.to_json()
        np.testing.assert_array_equal(resumed.evals_result_, whole.evals_result_)
