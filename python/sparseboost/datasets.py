"""Synthetic problems with a known set of relevant features.

``make_synthetic`` is the problem of the GT-GBM paper (Han et al., 2020,
Figure 1) and of SPEC section 3: all features are iid U[0, 1] and

    y = 2 x1 - 3 * 2**x2 + log2(1 + x3) + N(0, noise**2)

so exactly three features (columns 0, 1, 2) carry signal.

``make_multitask`` draws several related tasks that share some relevant
features and have a few of their own (SPEC section 4).
"""

from __future__ import annotations

import numbers

import numpy as np

RELEVANT_FEATURES = (0, 1, 2)

# At most this many values in X (8 GiB of float64): a larger request is a
# typo more often than a wish, and numpy would fail with a MemoryError.
MAX_VALUES = 2**30
# The largest noise: targets stay far inside what the estimators take.
MAX_NOISE = 1e100


def _count(name, value, minimum):
    if not isinstance(value, numbers.Integral) or isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be an int, got {value!r} ({type(value).__name__})")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    return int(value)


def _check_common(noise, task, n_values, size="n_samples x n_features"):
    if not isinstance(noise, numbers.Real) or isinstance(noise, (bool, np.bool_)):
        raise TypeError(f"noise must be a real number, got {noise!r}")
    if not 0 <= noise <= MAX_NOISE:
        raise ValueError(f"noise must be in [0, {MAX_NOISE:g}], got {noise}")
    if task not in ("regression", "classification"):
        raise ValueError(f"task must be 'regression' or 'classification', got {task!r}")
    if n_values > MAX_VALUES:
        raise ValueError(
            f"{size} = {n_values} values is more than {MAX_VALUES} "
            f"({MAX_VALUES * 8 / 2**30:.0f} GiB)"
        )


def _rng(random_state):
    try:
        return np.random.default_rng(random_state)
    except (TypeError, ValueError) as e:
        raise type(e)(f"random_state: {e}") from None


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
    n_samples = _count("n_samples", n_samples, 1)
    n_features = _count("n_features", n_features, 3)
    _check_common(noise, task, n_samples * n_features)
    try:
        dtype = np.dtype(dtype)
    except TypeError as e:
        raise TypeError(f"dtype: {e}") from None
    if dtype not in (np.float32, np.float64):
        raise ValueError(f"dtype must be float32 or float64, got {dtype}")
    rng = _rng(random_state)
    X = rng.random((n_samples, n_features), dtype=dtype)
    x1, x2, x3 = (X[:, j].astype(np.float64) for j in RELEVANT_FEATURES)
    y = 2 * x1 - 3 * np.exp2(x2) + np.log2(1 + x3) + noise * rng.standard_normal(n_samples)
    if task == "classification":
        y = (y > np.median(y)).astype(np.float64)
    return X, y


def make_multitask(
    task_sizes=(5000, 1000, 300),
    n_features: int = 500,
    n_shared: int = 4,
    n_private: int = 2,
    noise: float = 1.0,
    task: str = "regression",
    random_state: int | None = 0,
):
    """Draw a multitask problem (SPEC section 4) with known shared and
    task-specific features.

    All features are iid U[0, 1]. Features ``0 .. n_shared-1`` matter to
    every task, each through its own shape (linear, ``2**x``, ``sin``,
    ``log2(1+x)``, repeating) with a coefficient that differs between tasks
    (a common value times ``1 + 0.3 N(0, 1)``); task t also uses
    ``n_private`` features of its own, ``n_shared + t * n_private + k``.
    Task t's target is the sum of its terms plus ``N(0, noise**2)``; for
    "classification" it is 1 where that exceeds the task's median.

    Parameters
    ----------
    task_sizes : sequence of int
        Rows of each task (tasks are numbered 0..T-1 in this order).
    n_features : int
        d, at least ``n_shared + T * n_private``.
    n_shared, n_private : int
        Relevant features common to all tasks, and private to each task.
    noise : float
        Standard deviation of the Gaussian noise.
    task : {"regression", "classification"}
    random_state : int or None
        Seed of numpy's ``default_rng``. It fixes the coefficients as well
        as the rows, so take training and test rows from one draw (split
        each task's rows) rather than from two seeds.

    Returns
    -------
    X : ndarray of shape (sum(task_sizes), n_features)
    y : ndarray of shape (sum(task_sizes),)
    task : ndarray of int, shape (sum(task_sizes),)
        Each row's task; rows of a task are contiguous.
    relevant : dict
        ``{"shared": [...], "private": {t: [...]}}``, the planted features.
    """
    try:
        sizes = [_count("task_sizes", k, 1) for k in task_sizes]
    except TypeError as e:
        raise TypeError(f"task_sizes must be a sequence of ints >= 1: {e}") from None
    n_tasks = len(sizes)
    if n_tasks < 1:
        raise ValueError(f"task_sizes must name at least one task, got {task_sizes!r}")
    n_shared = _count("n_shared", n_shared, 0)
    n_private = _count("n_private", n_private, 0)
    n_features = _count("n_features", n_features, 1)
    if n_features < n_shared + n_tasks * n_private:
        raise ValueError(
            f"n_features must be >= n_shared + n_tasks * n_private = "
            f"{n_shared + n_tasks * n_private}, got {n_features}"
        )
    _check_common(noise, task, sum(sizes) * n_features, "sum(task_sizes) x n_features")
    rng = _rng(random_state)
    shapes = (lambda x: x, np.exp2, lambda x: np.sin(2 * np.pi * x), lambda x: np.log2(1 + x))
    common = rng.choice([-1.0, 1.0], n_shared) * rng.uniform(1.5, 2.5, n_shared)
    shared_coef = common * (1 + 0.3 * rng.standard_normal((n_tasks, n_shared)))
    private_coef = rng.choice([-1.0, 1.0], (n_tasks, n_private)) * rng.uniform(
        1.5, 2.5, (n_tasks, n_private)
    )
    X = rng.random((sum(sizes), n_features))
    labels = np.repeat(np.arange(n_tasks), sizes)
    y = np.empty(len(labels))
    private = {}
    for t in range(n_tasks):
        rows = labels == t
        own = [n_shared + t * n_private + k for k in range(n_private)]
        private[t] = own
        terms = [(j, shared_coef[t, j]) for j in range(n_shared)]
        terms += [(j, private_coef[t, k]) for k, j in enumerate(own)]
        signal = sum(c * shapes[j % len(shapes)](X[rows, j]) for j, c in terms)
        y[rows] = signal + noise * rng.standard_normal(rows.sum())
        if task == "classification":
            y[rows] = (y[rows] > np.median(y[rows])).astype(np.float64)
    return X, y, labels, {"shared": list(range(n_shared)), "private": private}
