"""Thread pools: capped at the cores the process may use, shared between
calls, and safe after fork."""

import multiprocessing
import os
import sys

import numpy as np
import pytest
from sparseboost import SparseBoostRegressor, _core
from sparseboost._validation import resolve_n_jobs

X = np.random.default_rng(0).random((300, 5))
y = X[:, 0] + X[:, 1]


def threads_of_this_process() -> int:
    return len(os.listdir("/proc/self/task"))


def test_n_jobs_is_capped_at_the_available_cores():
    cores = _core.available_cores()
    assert 1 <= cores <= (os.cpu_count() or 1)
    if hasattr(os, "sched_getaffinity"):
        assert cores <= len(os.sched_getaffinity(0))
    assert resolve_n_jobs(None) == cores
    assert resolve_n_jobs(-1) == cores
    assert resolve_n_jobs(2000) == cores
    assert resolve_n_jobs(2**63) == cores
    assert resolve_n_jobs(-(10**9)) == 1


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="Linux /proc")
def test_many_requested_threads_start_no_more_than_the_cores():
    before = threads_of_this_process()
    model = SparseBoostRegressor(n_estimators=5, n_jobs=2000).fit(X, y)
    for _ in range(20):
        model.predict(X)  # one shared pool, not one per call
    added = threads_of_this_process() - before
    # At most one pool of each size (1..cores) plus the helper thread.
    cores = _core.available_cores()
    assert added <= cores * (cores + 1) // 2 + 1, added


def fit_and_predict(_):
    model = SparseBoostRegressor(n_estimators=5, random_state=0).fit(X, y)
    return model.predict(X[:3]).tolist()


@pytest.mark.skipif(sys.platform != "linux", reason="fork")
def test_a_forked_child_fits_with_pools_of_its_own():
    # The parent's pools exist before the fork; the child must not send work
    # to their threads, which it does not have (it would wait forever).
    expected = fit_and_predict(None)
    with multiprocessing.get_context("fork").Pool(1) as pool:
        result = pool.map_async(fit_and_predict, [None]).get(timeout=60)
    assert result == [expected]
