"""Synthetic problems with a known set of relevant features.

``make_synthetic`` is the problem of the GT-GBM paper (Han et al., 2020,
Figure 1) and of SPEC section 3: all features are iid U[0, 1] and

    y = 2 x1 - 3 * 2**x2 + log2(1 + x3) + N(0, noise**2)

so exactly three features (columns 0, 1, 2) carry signal.

``make_multitask`` draws several related tasks that share some relevant
features and have a few of their own (SPEC section 4).

``make_friedman_random`` is Friedman's random function generator (1999,
"Greedy function approximation", section 6), as in the reweighting
experiments of Borisov et al.: a sum of 20 random Gaussian bumps of random
subsets of a few relevant Gaussian features.
"""

from __future__ import annotations

import numbers

import numpy as np

__all__ = ["make_synthetic", "make_multitask", "make_friedman_random", "load_madelon"]

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


# Friedman's generator sums this many random functions.
FRIEDMAN_N_FUNCTIONS = 20


def make_friedman_random(
    n_samples: int,
    n_features: int = 50,
    n_relevant: int = 4,
    task: str = "regression",
    n_classes: int = 2,
    random_state: int | None = None,
    return_relevant: bool = False,
):
    """Draw ``(X, y)`` from Friedman's random function generator.

    All features are iid N(0, 1); ``n_relevant`` of them, at random column
    positions, carry the signal

        f(x) = sum_{l=1..20} a_l exp(-(z_l - mu_l)' V_l (z_l - mu_l) / 2)

    where ``z_l`` is a random subset of ``n_l`` relevant features, ``n_l =
    min(floor(1.5 + r), n_relevant)`` with ``r`` exponential of mean 2,
    ``a_l ~ U[-1, 1]``, ``mu_l ~ N(0, I)``, and ``V_l = U_l D_l U_l'`` with
    ``U_l`` a random (Haar) orthonormal matrix and ``D_l`` diagonal with
    square roots of its entries ~ U[0.1, 2] (Friedman 1999, section 6).
    The random state fixes the function as well as the rows: take training
    and test rows from one draw.

    Parameters
    ----------
    n_samples : int
        Rows, >= 1.
    n_features : int, default=50
        Columns, >= ``n_relevant``.
    n_relevant : int, default=4
        Features the target depends on, >= 1.
    task : {"regression", "classification"}, default="regression"
        For "classification", ``f`` is cut at its ``1/n_classes, ...``
        quantiles into ``n_classes`` balanced classes 0, 1, ... (in
        increasing ``f``).
    n_classes : int, default=2
        Classes for "classification", >= 2.
    random_state : int or None
        Seed of numpy's ``default_rng``.
    return_relevant : bool, default=False
        Also return the relevant columns.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,)
        ``f(x)`` (float), or the class (int) for "classification".
    relevant : ndarray of int, shape (n_relevant,)
        The relevant columns, in increasing order; only with
        ``return_relevant``.
    """
    n_samples = _count("n_samples", n_samples, 1)
    n_relevant = _count("n_relevant", n_relevant, 1)
    n_features = _count("n_features", n_features, 1)
    if n_features < n_relevant:
        raise ValueError(f"n_features must be >= n_relevant = {n_relevant}, got {n_features}")
    n_classes = _count("n_classes", n_classes, 2)
    _check_common(0.0, task, n_samples * n_features)
    if not isinstance(return_relevant, (bool, np.bool_)):
        raise TypeError(f"return_relevant must be True or False, got {return_relevant!r}")
    rng = _rng(random_state)
    Z = rng.standard_normal((n_samples, n_relevant))
    f = np.zeros(n_samples)
    for _ in range(FRIEDMAN_N_FUNCTIONS):
        size = min(int(np.floor(1.5 + rng.exponential(2.0))), n_relevant)
        subset = rng.choice(n_relevant, size, replace=False)
        a = rng.uniform(-1, 1)
        mu = rng.standard_normal(size)
        # QR of a Gaussian matrix, its columns' signs fixed by R's diagonal,
        # is a uniformly (Haar) distributed orthonormal matrix
        q, r = np.linalg.qr(rng.standard_normal((size, size)))
        U = q * np.sign(np.diag(r))
        D = rng.uniform(0.1, 2.0, size) ** 2
        centred = Z[:, subset] - mu
        projected = centred @ U  # (z - mu)' V (z - mu) = sum_j D_j (U'(z - mu))_j^2
        f += a * np.exp(-0.5 * (projected**2) @ D)
    X = np.empty((n_samples, n_features))
    columns = rng.permutation(n_features)
    relevant = columns[:n_relevant]
    X[:, relevant] = Z
    X[:, columns[n_relevant:]] = rng.standard_normal((n_samples, n_features - n_relevant))
    if task == "classification":
        cuts = np.quantile(f, np.arange(1, n_classes) / n_classes)
        y = np.searchsorted(cuts, f, side="right")
    else:
        y = f
    if return_relevant:
        return X, y, np.sort(relevant)
    return X, y


def load_madelon(split: str = "all"):
    """The Madelon data set shipped with the package: ``(X, y)``.

    Madelon (NIPS 2003 feature selection challenge) is synthetic by design:
    500 integer features of which 20 are relevant (5 informative ones and
    15 linear combinations of them) and 480 are probes of pure noise; which
    columns are relevant is not published. The package holds the
    challenge's training set (2000 rows) and validation set (600 rows),
    whose labels are public; see ``sparseboost/data/MADELON.txt`` for the
    source, licence (CC BY 4.0) and citation. ``sparseboost select`` runs
    on it by default.

    Parameters
    ----------
    split : {"all", "train", "valid"}, default="all"
        The challenge's training rows, its validation rows, or both
        stacked in that order (2600 rows).

    Returns
    -------
    X : ndarray of shape (n_rows, 500), float64
        The file's integers as floats.
    y : ndarray of shape (n_rows,), int
        The class, 0 or 1 (the file's -1 and +1).
    """
    import importlib.resources

    rows = {"all": slice(None), "train": slice(0, 2000), "valid": slice(2000, None)}
    if not isinstance(split, str) or split not in rows:
        raise ValueError(f"split must be 'all', 'train' or 'valid', got {split!r}")
    with importlib.resources.as_file(
        importlib.resources.files("sparseboost") / "data" / "madelon.npz"
    ) as path, np.load(path) as data:
        X = data["X"][rows[split]].astype(np.float64)
        y = (data["y"][rows[split]] > 0).astype(np.int64)
    return X, y
