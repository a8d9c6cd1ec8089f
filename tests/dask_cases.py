"""What the Dask tests share: a cluster of 2 worker processes and small
problems whose target depends on features 1 and 4 (tests/test_dask*.py)."""

from __future__ import annotations

import numpy as np
from distributed import LocalCluster
from sparseboost import (
    MultiTaskSparseBoostClassifier,
    MultiTaskSparseBoostRegressor,
    SparseBoostClassifier,
    SparseBoostRanker,
    SparseBoostRegressor,
)
from sparseboost.dask import (
    DaskMultiTaskSparseBoostClassifier,
    DaskMultiTaskSparseBoostRegressor,
    DaskSparseBoostClassifier,
    DaskSparseBoostRanker,
    DaskSparseBoostRegressor,
)


def _cluster(n_workers=2):
    return LocalCluster(
        n_workers=n_workers,
        threads_per_worker=1,
        processes=True,
        dashboard_address=None,
        silence_logs=40,
    )


def _problem(kind, n=1200, d=8, seed=0):
    """y depends on features 1 and 4; ranking queries of 4 to 11 rows."""
    rng = np.random.default_rng(seed)
    X = rng.random((n, d))
    X[rng.random((n, d)) < 0.05] = np.nan
    s = 3 * np.nan_to_num(X[:, 1], nan=0.5) - 2 * np.nan_to_num(X[:, 4], nan=0.5)
    group = None
    if kind == "regression":
        y = s + 0.1 * rng.random(n)
    elif kind == "binary":
        y = np.where(s + 0.3 * rng.random(n) > 0.5, "yes", "no")
    elif kind == "multiclass":
        y = np.digitize(s, [-0.5, 0.5]).astype(int)
    else:
        y = np.clip(np.floor(s + 2), 0, 4)
        sizes = []
        while sum(sizes) < n:
            sizes.append(min(4 + len(sizes) % 8, n - sum(sizes)))
        group = np.asarray(sizes)
    return X, y, group


_ESTIMATORS = {
    "regression": (DaskSparseBoostRegressor, SparseBoostRegressor),
    "binary": (DaskSparseBoostClassifier, SparseBoostClassifier),
    "multiclass": (DaskSparseBoostClassifier, SparseBoostClassifier),
    "ranking": (DaskSparseBoostRanker, SparseBoostRanker),
}
_PARAMS = dict(n_estimators=8, max_leaves=7, min_samples_leaf=5, random_state=3, mu=0.002)


def _fit(estimator, X, y, group, **kw):
    if group is not None:
        return estimator.fit(X, y, group=group, **kw)
    return estimator.fit(X, y, **kw)


def _tasks_problem(n=900, d=10, seed=9):
    """Three tasks (string labels) of about 450, 300 and 150 rows:
    feature 0 matters to all, feature 5 to task "b" only."""
    rng = np.random.default_rng(seed)
    X = rng.random((n, d))
    task = np.array(["a", "a", "a", "b", "b", "c"])[rng.integers(0, 6, n)]
    y = 3 * X[:, 0] + 2.5 * (task == "b") * X[:, 5] + 0.2 * rng.random(n)
    return X, y, task


_MULTITASK = {
    "regression": (DaskMultiTaskSparseBoostRegressor, MultiTaskSparseBoostRegressor),
    "binary": (DaskMultiTaskSparseBoostClassifier, MultiTaskSparseBoostClassifier),
}
