"""Synthetic problems with a known set of relevant features.

``make_synthetic`` is the problem of the GT-GBM paper (Han et al., 2020,
Figure 1) and of SPEC section 3: all features are iid U[0, 1] and

    y = 2 x1 - 3 * 2**x2 + log2(1 + x3) + N(0, noise**2)

so exactly three features (columns 0, 1, 2) carry signal.
"""

from __future__ import annotations

import numpy as np

RELEVANT_FEATURES = (0, 1, 2)


def make_synthetic(
    n_samples: int = 10000,
    n_features: int = 1000,
    noise: float = 1.0,
    task: str = "regression",
    random_state: int | None = 0,
    dtype=np.float64,
):
    """Draw ``(X, y)`` of the three-relevant-feature problem.

    Parameters
    ----------
    n_samples, n_features : int
        Shape of ``X`` (``n_features >= 3``).
    noise : float
        Standard deviation of the Gaussian noise added to ``y``.
    task : {"regression", "classification"}
        For "classification", ``y`` is 1 where the noisy regression target
        exceeds its median (a balanced binary problem with the same
        relevant features).
    random_state : int or None
        Seed of numpy's ``default_rng``.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,)
    """
    if n_features < 3:
        raise ValueError(f"n_features must be >= 3, got {n_features}")
    if n_samples < 1:
        raise ValueError(f"n_samples must be >= 1, got {n_samples}")
    if task not in ("regression", "classification"):
        raise ValueError(f"task must be 'regression' or 'classification', got {task!r}")
    rng = np.random.default_rng(random_state)
    X = rng.random((n_samples, n_features), dtype=dtype)
    x1, x2, x3 = (X[:, j].astype(np.float64) for j in RELEVANT_FEATURES)
    y = 2 * x1 - 3 * np.exp2(x2) + np.log2(1 + x3) + noise * rng.standard_normal(n_samples)
    if task == "classification":
        y = (y > np.median(y)).astype(np.float64)
    return X, y
