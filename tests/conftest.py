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
