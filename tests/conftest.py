"""Small data sets shared by the tests (made here, so a fresh checkout
needs nothing else)."""

import pytest
from sparseboost.datasets import make_synthetic


@pytest.fixture(scope="session")
def synthetic_regression():
    X, y = make_synthetic(3000, 20, random_state=0)
    X_test, y_test = make_synthetic(2000, 20, random_state=1)
    return X, y, X_test, y_test


@pytest.fixture(scope="session")
def synthetic_classification():
    X, y = make_synthetic(3000, 20, task="classification", random_state=0)
    X_test, y_test = make_synthetic(2000, 20, task="classification", random_state=1)
    return X, y, X_test, y_test


@pytest.fixture(scope="module")
def client():
    """A Dask ``LocalCluster`` of 2 worker processes and its client, one per
    test module that asks for it (tests/test_dask*.py)."""
    pytest.importorskip("distributed")
    from dask_cases import _cluster
    from distributed import Client

    with _cluster() as cluster, Client(cluster) as client:
        yield client


# -- hypothesis profiles for the property tests (tests/test_properties_*.py) --
#
# SPARSEBOOST_HYPOTHESIS_PROFILE=ci (default): a fixed seed and about 1.5-2
# minutes for all property tests; =long: random seeds and >= 10,000 examples
# (each property test runs contract.LONG_FACTOR times as many); =explore:
# ci, reporting every distinct failure of each test instead of the first;
# =floor (.ci/floor): ci with contract.FLOOR_FRACTION of its examples.

import os  # noqa: E402

from hypothesis import HealthCheck, Phase, settings  # noqa: E402
from hypothesis.database import DirectoryBasedExampleDatabase  # noqa: E402

_SLOW_IS_FINE = [
    HealthCheck.too_slow,
    HealthCheck.data_too_large,
    HealthCheck.filter_too_much,
    HealthCheck.large_base_example,
]
settings.register_profile(
    "ci",
    derandomize=True,
    deadline=None,
    database=None,
    print_blob=True,
    suppress_health_check=_SLOW_IS_FINE,
    # one shrunk failure per test: shrinking every distinct failure of a
    # library that still breaks the contract takes many minutes
    report_multiple_bugs=False,
    # no explain phase: it reruns a failing example hundreds of times
    phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink],
)
# "explore": ci, but every distinct failure of a test is shrunk and reported
settings.register_profile("explore", settings.get_profile("ci"), report_multiple_bugs=True)
settings.register_profile("floor", settings.get_profile("ci"))
settings.register_profile(
    "long",
    derandomize=False,
    deadline=None,
    print_blob=True,
    suppress_health_check=_SLOW_IS_FINE,
    database=DirectoryBasedExampleDatabase(
        os.path.join(
            os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
            ".pytest_cache",
            "hypothesis",
        )
    ),
)
settings.load_profile(os.environ.get("SPARSEBOOST_HYPOTHESIS_PROFILE", "ci"))


# Under pytest-xdist each worker process counts its own examples; the
# workers send their counts to the controller, which reports the total.
_WORKER_STATS = []


def pytest_sessionfinish(session):
    import sys

    contract = sys.modules.get("contract")
    if hasattr(session.config, "workeroutput") and contract is not None:
        session.config.workeroutput["contract_stats"] = dict(contract.STATS)


@pytest.hookimpl(optionalhook=True)  # (an xdist hook)
def pytest_testnodedown(node, error):
    stats = getattr(node, "workeroutput", {}).get("contract_stats")
    if stats:
        _WORKER_STATS.append(stats)


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """How many examples the property tests ran, and how many of them the
    library rejected (ValueError/TypeError) or accepted (summed over the
    worker processes)."""
    import sys

    contract = sys.modules.get("contract")
    counts = [dict(contract.STATS)] if contract is not None else []
    s = {
        key: sum(c.get(key, 0) for c in counts + _WORKER_STATS)
        for key in ("examples", "rejected", "accepted")
    }
    if not s["examples"]:
        return
    profile = contract.PROFILE if contract is not None else os.environ.get(
        "SPARSEBOOST_HYPOTHESIS_PROFILE", "ci"
    )
    terminalreporter.write_sep("-", "sparseboost property tests")
    terminalreporter.write_line(
        f"hypothesis profile {profile!r}: {s['examples']} examples ran, "
        f"{s['rejected']} rejected with ValueError/TypeError, {s['accepted']} accepted"
    )
