"""The scikit-learn estimators: a regressor and a binary classifier."""

from __future__ import annotations

import numpy as np
from scipy.special import expit
from sklearn.base import ClassifierMixin, RegressorMixin
from sklearn.metrics import accuracy_score, r2_score
from sklearn.utils.multiclass import type_of_target

from ._base import BaseSparseBoost
from ._validation import check_labels_sortable


class SparseBoostRegressor(RegressorMixin, BaseSparseBoost):
    """Histogram gradient boosting for regression (squared error) that
    selects its own features.

    It is also a feature selector: ``transform(X)`` keeps the columns of
    ``selected_features_`` and ``get_support()`` gives their mask.

    Parameters
    ----------
    n_estimators : int, default=100
        Number of boosting rounds (one tree each).
    learning_rate : float, default=0.1
        Shrinkage of every leaf value, > 0.
    max_leaves : int, default=31
        Maximum leaves per tree (leaf-wise growth), >= 2.
    max_depth : int or None, default=None
        Maximum tree depth; None for no limit.
    min_samples_leaf : int, default=20
        Minimum training rows in a leaf.
    min_split_fraction : float, default=0.0
        The papers' alpha in [0, 1): a node with fewer than
        ``alpha * n_samples`` rows is not split.
    min_child_weight : float, default=1e-3
        Minimum hessian sum in a leaf (LightGBM's ``min_sum_hessian_in_leaf``).
    l2_regularization : float, default=0.0
        L2 penalty lambda on leaf values.
    min_gain : float, default=0.0
        A split is made only if its gain exceeds this.
    max_bins : int, default=255
        Value bins per feature, in [2, 255]; NaN always gets a bin of its own.
    subsample : float, default=1.0
        Fraction of rows drawn (without replacement) for each tree.
    colsample_bytree : float, default=1.0
        Fraction of features drawn for each tree.
    penalty : {"agbm", "gbfs", "none"}, default="agbm"
        The new-feature penalty (SPEC section 2). A split on a feature the
        ensemble does not use yet must beat the best split on used features
        by ``mu`` (plus the feature's cost): relative to the tree's root
        loss scale for "agbm" (A-GBM, Han et al. 2020), in gain units for
        "gbfs" (GBFS, Xu et al. 2014; equals LightGBM's
        ``cegb_penalty_feature_coupled=[mu]*d``). "none" is the plain GBDT.
    mu : float, default=0.01
        The penalty: in [0, 1) for "agbm", >= 0 for "gbfs". ``mu=0`` without
        costs gives exactly the plain GBDT.
    feature_costs : array of shape (n_features,) or dict, default=None
        Extra non-negative cost of each feature, on the same scale as
        ``mu``; a dict maps feature names (or indices) to costs, others 0.
    feature_bags : array of shape (n_features,), default=None
        Bag label of each feature: the penalty is paid once per bag, after
        which every feature of the bag is free.
    max_features : int or None, default=None
        Stop admitting new features once this many are used.
    split_search : {"exhaustive", "group_testing"}, default="exhaustive"
        How a node finds its split. "exhaustive" scans every feature.
        "group_testing" (GT-GBM) scans only the features already used and
        the candidates found by binary searches over random feature subsets
        (each half tested through the summed "pseudo-feature" of its
        features), so a node costs about ``p * log2(d / s)`` cheap tests plus
        a few exact scans instead of d exact scans. Costs a prefix-sum cache
        of about ``e * ln(s / delta) / 4 + 1`` bytes per (row, feature), see
        ``gt_cache_bytes_``.
    gt_n_features : int, default=10
        s, the number of relevant features group testing expects (clipped to
        the number of features). Subsets have ``ceil(d / s)`` features.
    gt_delta : float in (0, 1), default=0.1
        delta, the failure probability of the group-testing theorem; with s
        it sets the number of subsets ``p = ceil(e * s * ln(s / delta))``.
    gt_max_rows : int >= 2 or None, default=None
        Group tests of a node with more rows than this use that many of
        them, evenly spaced (the candidates they find are still scanned on
        all rows). Faster on large nodes, at some loss of the tests' power;
        None tests on all rows.
    n_jobs : int or None, default=None
        Threads: None or -1 for all cores, -2 for all but one, k > 0 for k.
        The fitted model does not depend on it.
    random_state : int, RandomState or None, default=None
        Seed of the row/feature sampling and of the binning sample. The same
        int gives the same model.

    Attributes
    ----------
    n_features_in_, feature_names_in_ : as in scikit-learn.
    selected_features_ : ndarray of int
        Features used by any split, in the order they entered the model.
    selected_feature_names_ : ndarray of str
        Their names, in the same order.
    feature_entry_tree_ : ndarray of int
        The tree at which each selected feature entered.
    selection_path_ : dict of arrays
        ``n_features`` used and ``train_loss`` after each tree.
    feature_importances_ : ndarray of shape (n_features_in_,)
        Normalised total gain per feature.
    n_trees_ : int
        Trees fitted.
    train_loss_ : ndarray of shape (n_trees_,)
        Mean training loss (mean squared error) after each tree.
    gt_n_subsets_, gt_cache_bytes_ : int or None
        With group testing: the number of subsets p and the prefix-sum
        cache's bytes; None otherwise.
    """

    _objective = "squared_error"
    _labels = False

    def _encode_target(self, y):
        return y

    def fit(self, X, y, sample_weight=None):
        """Fit on ``X`` (n_samples, n_features; NaN allowed) and ``y``
        (n_samples,), with optional non-negative ``sample_weight``."""
        return self._fit(X, y, sample_weight)

    def predict(self, X):
        """Predicted values, shape (n_samples,)."""
        return self._raw_predict(X)

    def score(self, X, y, sample_weight=None):
        """R² of ``predict(X)`` (at least 2 rows)."""
        predicted, y, sample_weight = self._score_inputs(X, y, sample_weight)
        return r_squared(y, predicted, sample_weight)


class SparseBoostClassifier(ClassifierMixin, BaseSparseBoost):
    """Histogram gradient boosting for binary classification (log-loss)
    that selects its own features.

    Parameters are those of :class:`SparseBoostRegressor`. Multiclass
    targets are not supported yet and raise ``ValueError``.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        The class labels; ``classes_[1]`` is the positive class.
    """

    _objective = "binary_logloss"
    _labels = True

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

    def _encode_target(self, y):
        self.classes_, encoded = check_labels_sortable(y, "y")
        if len(self.classes_) < 2:
            raise ValueError(
                "y holds a single class: SparseBoostClassifier needs samples of at least 2 "
                f"classes, but the data contains only one class: {self.classes_[0]!r}"
            )
        if len(self.classes_) > 2:
            raise ValueError(
                f"Only binary classification is supported, but y has {len(self.classes_)} "
                f"classes (type of target: {type_of_target(y)}); multiclass is not "
                "implemented yet."
            )
        return encoded.astype(np.float64)

    def fit(self, X, y, sample_weight=None):
        """Fit on ``X`` (n_samples, n_features; NaN allowed) and binary
        labels ``y`` (n_samples,), with optional ``sample_weight``."""
        return self._fit(X, y, sample_weight)

    def decision_function(self, X):
        """Logit of the positive class, shape (n_samples,)."""
        return self._raw_predict(X)

    def predict_proba(self, X):
        """Class probabilities, shape (n_samples, 2), columns in ``classes_`` order."""
        return probabilities(self.decision_function(X))

    def predict(self, X):
        """Most probable class label, shape (n_samples,)."""
        positive = self.decision_function(X) > 0
        return self.classes_[positive.astype(int)]

    def score(self, X, y, sample_weight=None):
        """Accuracy of ``predict(X)``."""
        predicted, y, sample_weight = self._score_inputs(X, y, sample_weight)
        return float(accuracy_score(y, predicted, sample_weight=sample_weight))


def r_squared(y, predicted, sample_weight) -> float:
    """R² of ``predicted``; one row has none (scikit-learn would return NaN)."""
    if len(y) < 2:
        raise ValueError(f"score needs at least 2 rows of y (R² of {len(y)} is undefined)")
    return float(r2_score(y, predicted, sample_weight=sample_weight))


def probabilities(logit: np.ndarray) -> np.ndarray:
    """``[1 - p, p]`` with ``p = σ(logit)``, shape (n, 2), without overflow."""
    p = expit(logit)
    return np.column_stack([expit(-logit), p])
