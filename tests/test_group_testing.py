"""GT-GBM's group testing at the root (the grower does not use it yet)."""

import numpy as np
import pytest
from sparseboost import _core
from sparseboost.datasets import RELEVANT_FEATURES, make_synthetic


def test_candidates_contain_the_three_relevant_features():
    """SPEC section 3's problem at n = 10000, d = 1000, with s = 3."""
    X, y = make_synthetic(10000, 1000, random_state=0)
    found, n_subsets, cache_bytes = _core.group_testing_candidates(X, y, 3, 0.1, seed=0)
    assert set(RELEVANT_FEATURES) <= set(found)
    assert n_subsets == 28  # ceil(e * 3 * ln(30))
    assert len(found) <= n_subsets
    assert cache_bytes == 28 * (334 + 1) * 10000 * 4


@pytest.mark.parametrize("seed", range(5))
def test_a_single_planted_feature_among_500_is_found(seed):
    rng = np.random.default_rng(seed)
    X = rng.random((5000, 501))
    y = 2.0 * (X[:, 321] > 0.5) + 0.5 * rng.standard_normal(5000)
    found, _, _ = _core.group_testing_candidates(X, y, 10, 0.1, seed=seed)
    assert 321 in found


def test_bad_group_testing_parameters():
    X = np.random.default_rng(0).random((100, 5))
    with pytest.raises(ValueError, match="gt_n_features"):
        _core.group_testing_candidates(X, X[:, 0].copy(), 6, 0.1, seed=0)
    with pytest.raises(ValueError, match="gt_delta"):
        _core.group_testing_candidates(X, X[:, 0].copy(), 2, 1.5, seed=0)
