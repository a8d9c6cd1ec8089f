"""Training on a Dask cluster: the rows stay on the workers that hold them.

``DaskSparseBoostRegressor``, ``DaskSparseBoostClassifier`` and
``DaskSparseBoostRanker`` take Dask arrays or DataFrames (chunked by rows)
and the parameters of their single-machine estimators. ``fit`` persists the
data, finds which worker holds each chunk (``Client.who_has``) and creates
one actor per worker (``Client.submit(..., actor=True)``) over the chunks
already there: a Rust shard that bins its rows and answers the client's
requests with additive statistics. The boosting itself runs here, on the
client, in the engine (see ``docs/distributed.md``): it pools the targets
and a row sample for the cut points, then asks for root sums and node
histograms, one round trip per split, and makes every decision once.

A one-worker fit is the single-machine fit bit for bit. With several
workers the sums are added in another order, so the model may differ from
the single-machine one in the last bits of its values.

GT-GBM (``split_search="group_testing"``) runs its group tests on the
shards, every subset's binary search advancing several halvings per round
trip, so a node's messages hold a few hundred pseudo-feature bins per
subset and the exact histograms of Ω and the candidates only, not d × 255
bins. ``split_search="auto"`` chooses from the pooled bin counts by the
single machine's rule.

Row subsampling (``subsample < 1``) draws the single machine's sample of
the pooled rows on the client and sends each shard its part; with one
partition the fit is the single machine's bit for bit.

``DaskMultiTaskSparseBoostRegressor`` and ``DaskMultiTaskSparseBoostClassifier``
fit one model per task, as their single-machine classes do: every shard
holds its rows' tasks and computes each task's gradients and losses.

Early stopping without an ``eval_set`` holds out ``validation_fraction`` of
the rows (queries), drawn as the single machine draws them: the held-out
rows are computed here and scored on the client, the others stay on the
workers.
"""

from __future__ import annotations

import asyncio
import copy
import time

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from sklearn.utils.validation import _check_feature_names, check_is_fitted

from . import _core, _multitask_tuning, _training
from ._dask_inputs import (
    _as_dask_matrix,
    _as_dask_vector,
    _check_timeout,
    _computed,
    _distinct,
    _float_array,
    _predict_matrix,
    _refuse_categorical,
)
from ._matrix import engine_matrix
from ._params import document, signature_of
from ._validation import (
    _reject_non_numbers,
    check_labels_sortable,
    check_sample_weight,
    check_target,
    naming,
)
from .estimators import SparseBoostClassifier, SparseBoostRegressor
from .multitask import (
    MultiTaskSparseBoostClassifier,
    MultiTaskSparseBoostRegressor,
)
from .ranker import SparseBoostRanker

__all__ = [
    "DaskMultiTaskSparseBoostClassifier",
    "DaskMultiTaskSparseBoostRegressor",
    "DaskSparseBoostClassifier",
    "DaskSparseBoostRanker",
    "DaskSparseBoostRegressor",
    "ShardLostError",
]

# How often a reply that has not come is checked on: is its worker alive?
_POLL_SECONDS = 1.0


class _ShardActor:
    """The actor on one worker: its chunks of X, y (and weights, query
    sizes) as one ``_core.Shard``."""

    def __init__(self, x_parts, y_parts, w_parts, group, params, task_parts=None):
        if any(sp.issparse(p) for p in x_parts):
            X = sp.vstack([sp.csc_matrix(p) for p in x_parts], format="csc")
        else:
            X = np.concatenate([_float_array(p) for p in x_parts])
        self._x = engine_matrix(X, "csc")
        y = np.ascontiguousarray(np.concatenate(y_parts), dtype=np.float64)
        w = None
        if w_parts is not None:
            w = np.ascontiguousarray(np.concatenate(w_parts), dtype=np.float64)
        if group is not None:
            group = np.array(group, dtype=np.uintp)  # owned and aligned, whatever unpickling gave
        # The shard computes on its worker's threads, not the client's n_jobs.
        params = dict(params, n_threads=_worker_threads())
        task = None
        if task_parts is not None:
            task = np.ascontiguousarray(np.concatenate(task_parts), dtype=np.uint32)
        self._shard = _core.Shard(self._x, y, w, group, params, task)

    def handle(self, request: bytes) -> np.ndarray:
        # An array travels as an out-of-band buffer (pickle protocol 5),
        # not copied into the message as bytes are.
        return np.frombuffer(self._shard.handle(request), dtype=np.uint8)


def _worker_threads():
    from distributed import get_worker

    try:
        worker = get_worker()
    except ValueError:  # not on a worker: all cores
        return 0
    # The worker's state holds its threads in recent versions, the worker
    # itself in older ones.
    return int(getattr(getattr(worker, "state", worker), "nthreads", 0))


def _query_chunks(row_chunks, group):
    """Row chunks moved to end on query boundaries (a shard holds whole
    queries), and the query sizes within each chunk."""
    ends = np.cumsum(group)
    n = int(ends[-1])
    bounds = np.cumsum(row_chunks)[:-1]
    moved = ends[np.searchsorted(ends, bounds, side="left")]
    cuts = np.unique(np.concatenate([[0], moved, [n]]))
    chunks = tuple(int(c) for c in np.diff(cuts))
    sizes = [
        group[np.searchsorted(ends, a, side="right") : np.searchsorted(ends, b, side="right")]
        for a, b in zip(cuts[:-1], cuts[1:])
    ]
    return chunks, sizes


def _chunk_futures(array):
    """The futures of a persisted array's row chunks, in order."""
    from distributed import futures_of

    by_key = {f.key: f for f in futures_of(array)}
    keys = array.__dask_keys__()
    return [by_key[k[0] if isinstance(k, list) else k] for k in keys]


class _DaskExchange:
    """The engine's transport: request ``i`` to actor ``i``, waiting for
    every reply while checking that the workers are alive."""

    def __init__(self, client, actors, workers, timeout):
        self.client, self.actors, self.workers, self.timeout = client, actors, workers, timeout

    def __call__(self, requests):
        pending = [actor.handle(r) for actor, r in zip(self.actors, requests)]
        return [self._reply(i, f) for i, f in enumerate(pending)]

    def _reply(self, i, future):
        started = time.monotonic()
        worker = self.workers[i]
        while True:
            try:
                return future.result(timeout=_POLL_SECONDS)
            except (TimeoutError, asyncio.TimeoutError):  # one class from Python 3.11 on
                pass
            except OSError as e:  # the actor's worker cannot be reached
                raise _lost(worker, i) from e
            if worker not in self.client.ncores():
                raise _lost(worker, i)
            if self.timeout is not None and time.monotonic() - started > self.timeout:
                raise TimeoutError(
                    f"shard {i} on {worker} did not answer within timeout={self.timeout} s"
                )


class ShardLostError(RuntimeError):
    """A Dask worker holding a shard was lost during ``fit``.

    ``partial`` is the single-machine estimator of the rounds completed
    before the loss (None if no round was), and ``fit(..., init_model=partial)``
    resumes from them: the new actors add its trees to their scores, Ω and
    the evaluation history are replayed, and boosting goes on from the next
    round, as the fit would have (bit for bit on the same shards)."""

    partial = None


def _lost(worker, i):
    return ShardLostError(
        f"the Dask worker {worker} holding shard {i} was lost during the fit; the cluster "
        "is still usable: fit again (Dask recomputes or reloads the lost worker's rows), "
        "with init_model=error.partial to resume from the rounds already grown"
    )


class _DaskFit:
    """What the Dask estimators add to their single-machine classes."""

    _local_class: type

    def __init__(self, *, client=None, timeout=None, **params):
        super().__init__(**params)
        self.client = client
        self.timeout = timeout

    def __init_subclass__(cls, **kwargs):
        # scikit-learn reads an estimator's parameters from the signature
        # of its __init__ (get_params, clone, a repr of the changed ones):
        # each estimator gets one listing its local class's and these two.
        super().__init_subclass__(**kwargs)
        if "_local_class" not in cls.__dict__:
            return

        def __init__(self, *, client=None, timeout=None, **params):
            _DaskFit.__init__(self, client=client, timeout=timeout, **params)

        __init__.__signature__ = signature_of(cls.__name__)
        cls.__init__ = __init__

    # A Client holds a connection: it cannot be copied or pickled. Copies
    # and clones share it; a pickled estimator drops it and uses the
    # default client once unpickled (as LightGBM's Dask estimators).

    def __getstate__(self):
        return {**super().__getstate__(), "client": None}

    def __copy__(self):
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        return new

    def __deepcopy__(self, memo):
        new = object.__new__(type(self))
        memo[id(self)] = new
        for name, value in self.__dict__.items():
            setattr(new, name, value if name == "client" else copy.deepcopy(value, memo))
        return new

    def __sklearn_clone__(self):
        # scikit-learn's clone (which also keeps metadata requests and the
        # set_output configuration) of a copy without the client, which it
        # would deep-copy; then the client.
        without = copy.copy(self)
        without.client = None
        new = BaseEstimator.__sklearn_clone__(without)
        new.client = self.client
        return new

    def _dask_fit(
        self,
        X,
        y,
        sample_weight,
        group,
        eval_set,
        eval_sample_weight,
        eval_group,
        init_model,
        task=None,
    ):
        import dask.array as da
        from distributed import default_client, wait

        # A failed refit leaves an unfitted estimator, as on one machine
        # (not the old model under the new call's n_features_in_ and names);
        # a resume from this estimator's own model keeps a copy of it.
        if init_model is self and hasattr(self, "_model"):
            init_model = self.to_local()
        self.__dict__.pop("_model", None)
        _training.check_early_stopping(self)
        _check_timeout(self.timeout)
        _refuse_categorical(self.categorical_features, X)
        client = self.client if self.client is not None else default_client()
        X, frame = _as_dask_matrix(X)
        n, d = X.shape
        if self._ranking:
            group = _training.check_group(group, n)
        elif group is not None:
            raise TypeError(f"{type(self).__name__}.fit does not take group (only rankers do)")
        y = _as_dask_vector(y, "y", X.chunks[0])
        w = None
        if sample_weight is not None:
            if np.ndim(sample_weight) == 0 and not isinstance(sample_weight, da.Array):
                # A number is every row's weight, as on one machine.
                weight = check_sample_weight(sample_weight, np.empty((1, 1)))[0]
                sample_weight = da.full(n, weight, chunks=(X.chunks[0],), dtype=np.float64)
            w = _as_dask_vector(sample_weight, "sample_weight", X.chunks[0])
            _reject_non_numbers(w, "sample_weight")
            w = w.astype(np.float64)
        self.n_features_in_ = d
        # The names as scikit-learn reads a pandas frame's (strings only;
        # duplicates and mixed kinds refused), or none.
        with naming("X"):
            _check_feature_names(self, frame, reset=True)
        y, task = self._encode_dask_targets(y, task, w)
        params = self._engine_params()
        evals = self._eval_sets(eval_set, eval_sample_weight, eval_group)
        if not evals and self.early_stopping_rounds is not None:
            (X, y, w, group, task), evals = _hold_out(self, params["seed"], X, y, w, group, task)
            if task is not None:
                self._check_training_part(
                    y.compute(), task.compute(), None if w is None else w.compute()
                )
        row_chunks = X.chunks[0]
        chunk_groups = None
        if self._ranking:
            row_chunks, chunk_groups = _query_chunks(row_chunks, group)
            X = X.rechunk({0: row_chunks})
        y = y.rechunk((row_chunks,))
        w = None if w is None else w.rechunk((row_chunks,))
        task = None if task is None else task.rechunk((row_chunks,))
        init = self._check_init(init_model)
        named = {k: v for k, v in {"X": X, "y": y, "w": w, "task": task}.items() if v is not None}
        persisted = client.persist(list(named.values()))
        wait(persisted)
        chunks = {k: _chunk_futures(p) for k, p in zip(named, persisted)}
        holders = client.who_has(chunks["X"])
        owner = [sorted(holders[f.key])[0] for f in chunks["X"]]
        workers = list(dict.fromkeys(owner))
        # Each shard's rows (its chunks in order) by their row number in X:
        # the engine draws its row samples in X's order, so that they do
        # not depend on where Dask placed the chunks.
        starts = np.concatenate([[0], np.cumsum(row_chunks)]).astype(np.int64)
        shard_rows = [
            np.concatenate(
                [np.arange(starts[i], starts[i + 1]) for i, o in enumerate(owner) if o == worker]
            )
            for worker in workers
        ]
        futures = []
        for worker in workers:
            ids = [i for i, o in enumerate(owner) if o == worker]
            held = {k: [v[i] for i in ids] for k, v in chunks.items()}
            futures.append(
                client.submit(
                    _ShardActor,
                    held["X"],
                    held["y"],
                    held.get("w"),
                    None
                    if chunk_groups is None
                    else np.concatenate([chunk_groups[i] for i in ids]),
                    params,
                    held.get("task"),
                    workers=[worker],
                    allow_other_workers=False,
                    actor=True,
                    pure=False,
                )
            )
        try:
            actors = [f.result(timeout=self.timeout) for f in futures]
            set_names = [f"validation_{s}" for s in range(len(evals))]
            callback = _training.round_callback(self, set_names, _core.eval_metric_names(params))
            exchange = _DaskExchange(client, actors, workers, self.timeout)
            self._model, history, self.traffic_ = _core.fit_sharded(
                params,
                exchange,
                len(actors),
                d,
                eval_sets=evals,
                callback=callback,
                init_model=init,
                multitask=self._multitask_settings(),
                shard_rows=[rows.tolist() for rows in shard_rows],
            )
        except ShardLostError as e:
            e.partial = self._partial(getattr(e, "partial_model", None))
            raise
        finally:
            client.cancel(futures)
        _training.set_history(self, history, set_names)
        self.n_workers_ = len(workers)
        self.shard_rows_ = shard_rows
        self._after_fit(history)
        return self

    def _eval_sets(self, eval_set, eval_sample_weight, eval_group):
        return _training.eval_sets(
            self,
            _computed(eval_set),
            _computed(eval_sample_weight),
            eval_group,
            self._encode_eval_target,
        )

    def _multitask_settings(self):
        return None

    def _after_fit(self, history):
        self.mu_max_ = history["mu_max"]
        _training.warn_if_nothing_paid(self)

    def _encode_dask_targets(self, y, task, sample_weight):
        """``y`` as the engine's targets and the rows' task codes (Dask
        arrays chunked as ``y``; no tasks here, and so no task weights to
        check)."""
        if task is not None:
            raise TypeError(f"{type(self).__name__}.fit does not take task")
        return self._encode_dask_target(y), None

    def _encode_dask_target(self, y):
        _reject_non_numbers(y, "y")
        return y.astype(np.float64)

    def _check_init(self, init_model):
        """The engine model to resume from: ``init_model``'s, which must
        be a fitted estimator of this kind on X's columns (and classes)."""
        if init_model is None:
            return None
        if not isinstance(init_model, self._local_class) or not hasattr(init_model, "_model"):
            raise TypeError(
                f"init_model must be a fitted {self._local_class.__name__} (such as "
                f"ShardLostError.partial), got {type(init_model).__name__}"
            )
        if init_model.n_features_in_ != self.n_features_in_:
            raise ValueError(
                f"init_model has {init_model.n_features_in_} features, X has {self.n_features_in_}"
            )
        if not np.array_equal(getattr(init_model, "classes_", []), getattr(self, "classes_", [])):
            raise ValueError("init_model was fitted on other classes")
        return init_model._model

    def _local_copy(self, model, attributes):
        """The single-machine estimator of ``model`` with these parameters
        and the fitted ``attributes`` (names) this estimator has."""
        params = {k: v for k, v in self.get_params().items() if k not in ("client", "timeout")}
        local = self._local_class(**params)
        for name in attributes:
            if hasattr(self, name):
                setattr(local, name, getattr(self, name))
        local._model = model
        return local

    def _partial(self, model):
        """The single-machine estimator of a failed fit's completed rounds
        (with what this fit set before boosting, nothing of an earlier fit)."""
        if model is None:
            return None
        # (multitask: also its tasks and the knobs its fit used)
        fitted = ("n_features_in_", "feature_names_in_", "classes_", "tasks_")
        return self._local_copy(model, fitted + ("shared_rounds_", "mu_task_", "tuning_results_"))

    def to_local(self):
        """The fitted model as the single-machine estimator (same parameters
        and fitted attributes), to predict, save or pickle without Dask."""
        check_is_fitted(self)
        fitted = [n for n in vars(self) if n.endswith("_") and not n.startswith("__")]
        return self._local_copy(self._model, fitted)

    def _map_rows(self, X, method, shape_after, *task):
        """``method`` of the local estimator over every row chunk of a Dask
        ``X`` (a NumPy or SciPy ``X`` is predicted here). A multitask
        prediction's ``task``: each row's label (Dask or NumPy, chunked here
        as ``X``), or one label for every row."""
        import dask.array as da
        import dask.dataframe as dd

        local = self.to_local()
        call = getattr(local, method)
        if not isinstance(X, (da.Array, dd.DataFrame)):
            return call(X, *(_computed(t) for t in task))
        X = _predict_matrix(local, X)
        one_row = np.zeros((1, X.shape[1]), dtype=X.dtype)
        out = call(one_row, *((local.tasks_[:1],) if task else ()))
        # `meta` keeps Dask from calling the model on an empty 0 x 0 block.
        meta = np.empty((0,) * out.ndim, dtype=out.dtype)
        if not task or (np.ndim(task[0]) == 0 and not isinstance(task[0], da.Array)):
            # One label for every row goes to each block as it is (an array
            # of it would take a dtype of its own: da.full cut "ab" to "a").
            block = _empty_blocks_too(lambda x: call(x, *task), out)
            blocks = (X,)
        else:
            rows = _as_dask_vector(task[0], "task", X.chunks[0])
            block = _empty_blocks_too(lambda x, t: call(x, t[:, 0]), out)
            blocks = (X, rows[:, None])
        if shape_after:
            chunks = (X.chunks[0], (out.shape[1],))
            return da.map_blocks(block, *blocks, chunks=chunks, meta=meta)
        return da.map_blocks(block, *blocks, drop_axis=1, meta=meta)

    def predict(self, X):
        """Predictions: a Dask array mapped over ``X``'s row chunks."""
        return self._map_rows(X, "predict", False)

    def transform(self, X):
        """The selected columns of ``X``, mapped over its row chunks (a
        DataFrame's column names checked first, as ``predict`` checks them)."""
        return self._map_rows(X, "transform", True)


def _empty_blocks_too(predict, out):
    """``predict`` over a block, with an empty result for a block of no
    rows (a filtered partition), which scikit-learn's checks refuse;
    ``out`` is a prediction of one row, for the shape and dtype."""

    def block(x, *rest):
        if x.shape[0] == 0:
            return np.empty((0, *out.shape[1:]), dtype=out.dtype)
        return predict(x, *rest)

    return block


def _hold_out(estimator, seed, X, y, w, group, task):
    """Early stopping without ``eval_set``: the rows (queries) that
    ``validation_fraction`` holds out, drawn as the single-machine fit draws
    them (stratified by class or task). Returns the training part as Dask
    arrays ``(X, y, w, group, task)`` and the held-out part computed here,
    as the engine's evaluation set."""
    labels, tasks = estimator._labels, None if task is None else task.compute()
    strata = _training.holdout_strata(labels, y.compute() if labels else None, tasks)
    train, valid, train_group, valid_group = _training._holdout_rows(
        estimator.validation_fraction,
        X.shape[0],
        seed,
        strata,
        group,
        every_task=task is not None,
    )

    def held_out(v, dtype=np.float64):
        # Aligned: arrays unpickled from a worker may not be.
        return None if v is None else np.require(v[valid].compute(), dtype, ["C", "A"])

    X_v = X[valid].compute()
    X_v = X_v if sp.issparse(X_v) else _float_array(X_v)
    evals = [
        (engine_matrix(X_v, "csc"), held_out(y), held_out(w), valid_group, held_out(task, np.uintp))
    ]

    def kept(v):
        return None if v is None else v[train]

    return (kept(X), kept(y), kept(w), train_group, kept(task)), evals


@document
class DaskSparseBoostRegressor(_DaskFit, SparseBoostRegressor):
    """:class:`~sparseboost.SparseBoostRegressor` trained on a Dask cluster.

    Parameters are the single-machine estimator's, plus ``client`` (a
    ``distributed.Client``; the default client if None) and ``timeout``
    (seconds a shard may take to answer one request; None for no limit; a
    lost worker is detected within about a second either way). Fitted
    attributes are the single-machine ones, plus ``traffic_`` (round trips
    and bytes of the set-up and the boosting, trees, shards),
    ``n_workers_`` and ``shard_rows_`` (the rows of X each worker's shard
    held, in shard order: the fit's row order).
    """

    _local_class = SparseBoostRegressor

    def fit(
        self, X, y, sample_weight=None, *, eval_set=None, eval_sample_weight=None, init_model=None
    ):
        """Fit on a Dask ``X`` (rows chunked) and ``y``; ``eval_set`` is
        held and scored on the client; ``init_model`` resumes a failed fit
        (see :class:`ShardLostError`)."""
        return self._dask_fit(
            X, y, sample_weight, None, eval_set, eval_sample_weight, None, init_model
        )


@document
class DaskSparseBoostClassifier(_DaskFit, SparseBoostClassifier):
    """:class:`~sparseboost.SparseBoostClassifier` trained on a Dask cluster
    (parameters and attributes as :class:`DaskSparseBoostRegressor`)."""

    _local_class = SparseBoostClassifier

    def fit(
        self, X, y, sample_weight=None, *, eval_set=None, eval_sample_weight=None, init_model=None
    ):
        """Fit on a Dask ``X`` (rows chunked) and class labels ``y``."""
        return self._dask_fit(
            X, y, sample_weight, None, eval_set, eval_sample_weight, None, init_model
        )

    def _encode_dask_target(self, y):
        import dask

        # The labels each chunk holds, checked on the client as the
        # single-machine fit checks all of y (NaN, continuous values, mixed
        # kinds); da.unique would sort mixed kinds in a worker, and take NaN
        # and every distinct float for a class.
        parts = dask.compute(*[dask.delayed(_distinct)(b) for b in y.to_delayed().ravel()])
        distinct = list(dict.fromkeys(v for part in parts for v in part))
        labels = np.asarray(distinct, dtype=y.dtype)  # (the fit's label dtype kept)
        labels = check_target(self, labels, labels.shape[0], labels=True)
        self.classes_, _ = check_labels_sortable(labels, "y")
        if len(self.classes_) < 2:
            raise ValueError(
                "y must hold at least 2 classes, but the data contains only one class: "
                f"{self.classes_[0]!r}"
            )
        classes = self.classes_
        return y.map_blocks(
            lambda b: np.searchsorted(classes, b).astype(np.float64), dtype=np.float64
        )

    def predict_proba(self, X):
        """Class probabilities, mapped over ``X``'s row chunks."""
        return self._map_rows(X, "predict_proba", True)

    def decision_function(self, X):
        """Raw scores (one column per class for more than 2), mapped over
        ``X``'s row chunks."""
        check_is_fitted(self)
        return self._map_rows(X, "decision_function", len(self.classes_) > 2)


@document
class DaskSparseBoostRanker(_DaskFit, SparseBoostRanker):
    """:class:`~sparseboost.SparseBoostRanker` trained on a Dask cluster.
    Chunks are moved to end on query boundaries, so that every shard holds
    whole queries (parameters and attributes as
    :class:`DaskSparseBoostRegressor`)."""

    _local_class = SparseBoostRanker

    def fit(
        self,
        X,
        y,
        group=None,
        sample_weight=None,
        *,
        eval_set=None,
        eval_group=None,
        eval_sample_weight=None,
        init_model=None,
    ):
        """Fit on a Dask ``X``, relevance labels ``y`` and ``group`` (the
        query sizes, a NumPy array here on the client)."""
        return self._dask_fit(
            X, y, sample_weight, group, eval_set, eval_sample_weight, eval_group, init_model
        )


class _DaskMultiTask(_DaskFit):
    """What the Dask multitask estimators add to ``_DaskFit``: the rows'
    tasks travel to the shards beside ``y``, and ``predict`` maps each row
    chunk with its tasks."""

    _ranking = False

    def fit(self, X, y, task, sample_weight=None, *, eval_set=None, eval_sample_weight=None):
        """Fit on a Dask ``X`` (rows chunked), ``y`` and each row's ``task``
        label (Dask or NumPy, one per row); ``eval_set`` is a list of
        ``(X, y, task)`` held and scored on the client."""
        for name in ("shared_rounds", "mu_task"):
            if _multitask_tuning.is_auto(getattr(self, name)):
                local = self._local_class.__name__
                raise ValueError(
                    f"{name}='auto' is not available on Dask (its cross-validation refits "
                    f"the model up to {_multitask_tuning.MAX_FITS} times); choose it with {local}"
                    f"({name}='auto') on a sample of the rows and pass its {name}_"
                )
        self._shared_rounds()  # a bad shared_rounds fails before any work
        self.shared_rounds_, self.mu_task_, self.tuning_results_ = (
            self.shared_rounds,
            self.mu_task,
            None,
        )
        return self._dask_fit(
            X, y, sample_weight, None, eval_set, eval_sample_weight, None, None, task=task
        )

    def _encode_dask_targets(self, y, task, sample_weight):
        """Tasks, targets and each task's weight checked as the
        single-machine fit checks them (all 1-D, so they are computed
        here), then chunked as ``X``'s rows again."""
        import dask.array as da

        if task is None:
            raise ValueError("task must hold each row's task label, got None")
        chunks = y.chunks
        task = _as_dask_vector(task, "task", chunks[0])
        task, y, weight = (
            None if v is None else np.asarray(v) for v in da.compute(task, y, sample_weight)
        )
        y = check_target(self, y, len(task), labels=self._labels)
        y, codes = self._training_targets(y, task, len(task))
        self._check_task_weights(codes, weight)
        return da.from_array(y, chunks=chunks), da.from_array(
            codes.astype(np.uint32), chunks=chunks
        )

    def _eval_sets(self, eval_set, eval_sample_weight, eval_group):
        return _training.eval_sets(
            self,
            _computed(eval_set),
            _computed(eval_sample_weight),
            None,
            self._encode_eval_target,
            task=lambda t, n: np.ascontiguousarray(self._task_codes(t, n), dtype=np.uintp),
        )

    def _multitask_settings(self):
        return (
            len(self.tasks_),
            self._mu("mu_group"),
            self._mu_task(self.mu_task),
            self._mask(),
            self._shared_rounds(),
        )

    def _after_fit(self, history):
        self.mu_max_ = history["mu_max"]

    def _check_init(self, init_model):
        return None

    def predict(self, X, task):
        """Predictions: a Dask array mapped over ``X``'s row chunks with
        each row's ``task`` (or one label for every row)."""
        return self._map_rows(X, "predict", False, task)


@document
class DaskMultiTaskSparseBoostRegressor(_DaskMultiTask, MultiTaskSparseBoostRegressor):
    """:class:`~sparseboost.MultiTaskSparseBoostRegressor` trained on a Dask
    cluster (``client`` and ``timeout`` as :class:`DaskSparseBoostRegressor`).
    With one partition the model is the single machine's bit for bit."""

    _local_class = MultiTaskSparseBoostRegressor


@document
class DaskMultiTaskSparseBoostClassifier(_DaskMultiTask, MultiTaskSparseBoostClassifier):
    """:class:`~sparseboost.MultiTaskSparseBoostClassifier` trained on a
    Dask cluster (``client`` and ``timeout`` as
    :class:`DaskSparseBoostRegressor`)."""

    _local_class = MultiTaskSparseBoostClassifier

    def decision_function(self, X, task):
        """Logit of the positive class, mapped over ``X``'s row chunks."""
        return self._map_rows(X, "decision_function", False, task)

    def predict_proba(self, X, task):
        """Class probabilities, mapped over ``X``'s row chunks."""
        return self._map_rows(X, "predict_proba", True, task)
