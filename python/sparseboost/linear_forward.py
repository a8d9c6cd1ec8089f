"""Linear forward stepwise selection (Efroymson, 1960) by sweeps of the
Gram matrix.

Each step adds to a least-squares fit (with intercept) the feature that
raises R² most. With ``G`` the centred ``X'X`` and ``b`` the centred
``X'y``, the residual sums of the features and of ``y`` after the current
set ``A`` are the Schur complement of ``G[A, A]`` in the augmented matrix
``[[G, b], [b', y'y]]``; adding feature ``j`` lowers the residual sum of
squares of ``y`` by ``r_j**2 / S_jj`` (``r`` the residual covariances with
``y``, ``S_jj`` the residual variance of ``j``), and the complement after
the step is a rank-one update. That is a Cholesky factorisation of the
augmented matrix with the pivot chosen by that gain, so the whole path
costs about one least-squares fit once ``G`` is known. The rank-one
updates are gathered in blocks (a BLAS matrix product per block) and the
entered features are dropped from the matrix at each block's end, so the
work shrinks as the path grows.
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.utils.validation import check_is_fitted

from ._params import document
from ._validation import (
    check_labels_sortable,
    check_target,
    check_X,
    naming,
    resolve_n_features_to_select,
)

# A feature whose residual variance after the entered features falls below
# this fraction of its own centred variance is (numerically) a linear
# combination of them: entering it would divide by rounding noise.
RESIDUAL_TOL = 1e-10
# Rows of X centred at a time while the Gram matrix is accumulated: about
# 32 MiB of float64 per chunk, whatever the number of features.
CHUNK_VALUES = 2**22
# Rank-one updates gathered into one matrix product.
BLOCK = 64


@document  # the Parameters section: sparseboost._params
class LinearForwardSelector(SelectorMixin, BaseEstimator):
    """Rank features by their order of entry into a forward stepwise
    least-squares fit (Efroymson's linear forward selection).

    Every feature that can enter is ranked: each step adds the feature that
    raises the R² of the linear fit (with intercept) most. The path is
    computed by sweep (rank-one) updates of the centred Gram matrix, which
    is formed once (by BLAS, in chunks of rows), so ranking all features
    costs about as much as one least-squares fit.

    Attributes
    ----------
    order_ : ndarray of int
        The features that entered, in entry order.
    ranking_ : ndarray of int, shape ``(n_features_in_,)``
        1 for the first feature to enter, 2 for the second, ...; the features
        that never entered (see ``skipped_``) come after all entered ones,
        in column order.
    r2_path_ : ndarray of float, shape ``(len(order_),)``
        R² of the least-squares fit on the first k + 1 entered features
        (with intercept), non-decreasing. For a constant ``y`` the
        intercept fits it exactly and every value is 1.
    skipped_ : dict
        ``{feature: reason}`` for the features that could not enter:
        ``"constant"`` (one value in every row) or ``"collinear"`` (its
        residual variance after the features entered before it fell below
        ``RESIDUAL_TOL`` times its own variance, for example a copy or a sum
        of other columns, or any feature once ``n_samples - 1`` have
        entered). A warning summarises them.
    n_features_to_select_ : int
        The number of features ``get_support`` keeps.
    support_ : ndarray of bool, shape ``(n_features_in_,)``
        The kept features (``ranking_ <= n_features_to_select_``).
    classes_ : ndarray or None
        For class labels given as strings (or other non-numbers), the
        classes; None for a numeric ``y``.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when ``X`` has column names (a pandas DataFrame).

    Notes
    -----
    ``y`` holding numbers (int, float or bool) is a numeric target: binary
    0/1 labels are fitted as numbers, which is the linear probability model,
    and integer labels with more values are taken as numbers too. Class
    labels that are not numbers (strings, for example) are one-hot encoded
    (two classes: the indicator of the second), and each step then raises
    the R² of the joint fit of all indicator columns (the fraction of their
    total sum of squares explained) most. To rank for integer class labels
    as classes, pass them as strings.

    NaN and infinity in ``X`` or ``y`` are rejected: least squares has no
    notion of a missing value.
    """

    def __init__(self, n_features_to_select=None):
        self.n_features_to_select = n_features_to_select

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        return tags

    def fit(self, X, y):
        """Compute the whole forward path of ``X`` (n_samples, n_features)
        against ``y`` (n_samples,)."""
        X = check_X(self, X, reset=True, allow_nan=False, dense_only=True)
        n, d = X.shape
        Y, self.classes_ = _target_columns(self, y, n)
        self.n_features_to_select_ = resolve_n_features_to_select(
            self.n_features_to_select, d, default=max(1, d // 2)
        )

        constant = np.ptp(X, axis=0) == 0 if n else np.ones(d, dtype=bool)
        G = _centred_gram(X, Y)
        order, r2, collinear = _forward_path(G, d, constant)

        self.order_ = np.asarray(order, dtype=np.intp)
        self.r2_path_ = np.asarray(r2, dtype=np.float64)
        self.skipped_ = {int(j): "constant" for j in np.flatnonzero(constant)}
        self.skipped_.update({int(j): "collinear" for j in collinear})
        self.skipped_ = dict(sorted(self.skipped_.items()))
        ranking = np.empty(d, dtype=np.intp)
        ranking[self.order_] = np.arange(1, len(order) + 1)
        never = np.setdiff1d(np.arange(d), self.order_)  # sorted: column order
        ranking[never] = np.arange(len(order) + 1, d + 1)
        self.ranking_ = ranking
        self.support_ = ranking <= self.n_features_to_select_
        if self.skipped_:
            _warn_skipped(self.skipped_)
        return self

    def _get_support_mask(self):
        check_is_fitted(self)
        return self.support_


def _target_columns(estimator, y, n_rows):
    """``y`` as float64 columns: one for numbers, the class indicators for
    labels that are not numbers (one column for two classes); and the
    classes (None for numbers)."""
    kind = getattr(getattr(y, "dtype", None), "kind", None)
    if kind is None and y is not None:
        with naming("y"):
            kind = np.asarray(y).dtype.kind
    if kind in ("b", "i", "u", "f") or y is None:
        y = check_target(estimator, y, n_rows, labels=False)
        return y[:, None], None
    y = check_target(estimator, y, n_rows, labels=True)
    classes, codes = check_labels_sortable(y, "y")
    onehot = (codes[:, None] == np.arange(len(classes))).astype(np.float64)
    return (onehot[:, 1:] if len(classes) == 2 else onehot), classes


def _scaled(A, exponents) -> np.ndarray:
    """``A`` times 2**exponents per column, exactly: ``ldexp`` of the values
    (2**1074, which brings a subnormal column to [0.5, 1), is no float)."""
    return np.ldexp(A, exponents)


def _exponents(A) -> np.ndarray:
    """Per column, the power of two that brings its largest |value| into
    [0.5, 1) (0 for a column of zeros)."""
    peak = np.abs(A).max(axis=0) if len(A) else np.zeros(A.shape[1])
    return -np.frexp(peak)[1]


def _centred_gram(X, Y):
    """The augmented Gram matrix ``[X, Y]'[X, Y]`` of the centred columns,
    each first scaled by a power of two (exact, and R² does not depend on
    a column's scale: without it values near 1e155 overflowed the squares
    and values near 1e-170 underflowed them), accumulated over chunks of
    rows (the centred copy of all of ``X`` would double its memory)."""
    n, d = X.shape
    rows = max(1, CHUNK_VALUES // max(d, 1))
    unit = _exponents(X)
    mean_x = sum(_scaled(X[start : start + rows], unit).sum(axis=0) for start in range(0, n, rows))
    mean_x = mean_x / max(n, 1)
    Y = _scaled(Y, _exponents(Y))
    Yc = Y - Y.mean(axis=0)
    G = np.zeros((d + Y.shape[1], d + Y.shape[1]))
    for start in range(0, n, rows):
        chunk = _scaled(X[start : start + rows], unit) - mean_x
        # numpy hands chunk.T @ chunk to BLAS syrk (half the work of gemm)
        G[:d, :d] += chunk.T @ chunk
        G[:d, d:] += chunk.T @ Yc[start : start + rows]
    G[d:, :d] = G[:d, d:].T
    G[d:, d:] = Yc.T @ Yc
    return G


def _forward_path(G, d, constant):
    """Forward stepwise selection on the augmented centred Gram matrix ``G``
    (features first, then the target columns). Returns the entry order, R²
    after each entry, and the features found collinear (in the order they
    were found)."""
    # Work on correlations: pivots and the tolerance become relative to each
    # feature's own variance, and the target's total sum of squares is 1 so
    # the residual sum of squares is 1 - R².
    scale = np.sqrt(np.diag(G)).copy()
    scale[:d][constant] = 1.0
    total = float(np.sum(np.diag(G)[d:]))
    scale[d:] = np.sqrt(total) if total > 0 else 1.0
    M = G / scale[:, None] / scale[None, :]
    alive = np.flatnonzero(~constant)  # candidate features, in column order
    M = M[np.ix_(np.r_[alive, np.arange(d, G.shape[0])], np.r_[alive, np.arange(d, G.shape[0])])]
    rss = 1.0 if total > 0 else 0.0
    order, r2, collinear = [], [], []
    while len(alive):
        p = len(alive)
        block = np.zeros((M.shape[0], BLOCK))
        residual = M.diagonal()[:p].copy()  # residual variance of each candidate
        cross = M[:p, p:].copy()  # its residual covariance with each target column
        open_ = np.ones(p, dtype=bool)  # neither entered nor collinear yet
        m = 0
        while m < BLOCK:
            lost = open_ & ~(residual > RESIDUAL_TOL)
            if lost.any():
                collinear.extend(alive[lost].tolist())
                open_ &= ~lost
            if not open_.any():
                break
            candidates = np.flatnonzero(open_)
            gain = np.sum(cross[candidates] ** 2, axis=1) / residual[candidates]
            # argmax takes the first of equal gains: ties go to the lower column
            k = candidates[np.argmax(gain)]
            # column k of the Schur complement after this block's earlier steps
            column = M[:, k] - block[:, :m] @ block[k, :m]
            pivot = column[k]
            if not pivot > RESIDUAL_TOL:
                # the running diagonal and the recomputed column disagree only
                # by rounding; trust the column and drop the feature
                collinear.append(int(alive[k]))
                open_[k] = False
                continue
            v = column / np.sqrt(pivot)
            block[:, m] = v
            residual -= v[:p] ** 2
            cross -= np.outer(v[:p], v[p:])
            rss -= float(np.sum(v[p:] ** 2))
            open_[k] = False
            order.append(int(alive[k]))
            r2.append(1.0 - max(rss, 0.0) if total > 0 else 1.0)
            m += 1
        keep = np.r_[np.flatnonzero(open_), np.arange(p, M.shape[0])]
        used = block[keep, :m]
        M = M[np.ix_(keep, keep)] - used @ used.T
        alive = alive[open_]
        if m == 0:
            break
    return order, r2, collinear


def _warn_skipped(skipped):
    constant = [j for j, why in skipped.items() if why == "constant"]
    collinear = [j for j, why in skipped.items() if why == "collinear"]
    parts = []
    for name, features in (("constant", constant), ("collinear", collinear)):
        if features:
            shown = ", ".join(map(str, features[:10])) + (", ..." if len(features) > 10 else "")
            parts.append(f"{len(features)} {name} (features {shown})")
    warnings.warn(
        f"{len(skipped)} features could not enter the linear fit and are ranked last: "
        + "; ".join(parts)
        + ". See skipped_.",
        UserWarning,
        stacklevel=3,
    )
