"""The scikit-learn estimators: a regressor, a (binary or multiclass)
classifier and a ranker."""

from __future__ import annotations

import numpy as np
from scipy.special import expit, softmax
from sklearn.base import ClassifierMixin, RegressorMixin
from sklearn.metrics import accuracy_score, r2_score

from . import persistence
from ._base import BaseSparseBoost
from ._params import document
from ._validation import check_labels_sortable


@document  # the Parameters section: sparseboost._params
class SparseBoostRegressor(RegressorMixin, BaseSparseBoost):
    """Histogram gradient boosting for regression (squared error) that
    selects its own features.

    It is also a feature selector: ``transform(X)`` keeps the columns of
    ``selected_features_`` and ``get_support()`` gives their mask.

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
        ``n_features`` used and (with ``record_train_loss``) ``train_loss``
        after each tree.
    feature_importances_ : ndarray of shape ``(n_features_in_,)``
        Normalised total gain per feature.
    feature_weights_ : ndarray of shape ``(n_features_in_,)``
        Final feature sampling probabilities (uniform unless
        ``feature_sampling="dynamic"``).
    n_trees_ : int
        Trees fitted.
    mu_max_ : float or None
        "agbm" and "gbfs": the smallest mu at which the first round admits
        no feature (its best root split, over every feature, cannot pay
        mu), on the scale of ``mu``; computed by exhaustive search on the
        first trees' rows. None for ``penalty="none"``, and for a
        group-tested fit (``split_search_ == "group_testing"``) whose mu is
        absolute: measuring it scans every feature at the root, the work
        group testing avoids (give mu as ``"f*mu_max"`` to have it).
    train_loss_ : ndarray of shape ``(n_trees_,)``
        Mean training loss (mean squared error) after each tree; with
        ``record_train_loss=True`` (or ``verbose`` > 0) only.
    split_search_ : str
        The search the fit ran: "exhaustive" or "group_testing" (what
        ``split_search="auto"`` chose).
    gt_n_subsets_, gt_cache_bytes_ : int or None
        With group testing: the number of subsets p and the prefix-sum
        cache's bytes; None otherwise.
    evals_result_ : dict
        ``{"validation_0": {metric: array of one value per round}, ...}``
        (empty without evaluation sets).
    best_iteration_, best_score_ : int, float or None
        The round (from 0) with the best last metric on the last evaluation
        set, and that value; None without evaluation sets.
    """

    _objective = "squared_error"
    _labels = False

    def _encode_target(self, y):
        return y

    def fit(self, X, y, sample_weight=None, *, eval_set=None, eval_sample_weight=None):
        """Fit on ``X`` (n_samples, n_features; NaN allowed) and ``y``
        (n_samples,), with optional non-negative ``sample_weight``;
        ``eval_set`` is a list of ``(X, y)`` scored after every round
        (``eval_sample_weight``: one weight array or None per set)."""
        return self._fit(
            X, y, sample_weight, eval_set=eval_set, eval_sample_weight=eval_sample_weight
        )

    def predict(self, X):
        """Predicted values, shape (n_samples,)."""
        return self._raw_predict(X)

    def score(self, X, y, sample_weight=None):
        """R² of ``predict(X)`` (at least 2 rows)."""
        predicted = self.predict(X)
        y, sample_weight = self._score_target(predicted, y, sample_weight)
        return r_squared(y, predicted, sample_weight)


@document  # the Parameters section: sparseboost._params
class SparseBoostClassifier(ClassifierMixin, BaseSparseBoost):
    """Histogram gradient boosting for classification that selects its own
    features: binary log-loss for 2 classes, softmax (multiclass log-loss,
    one tree per class and round) for more.

    With K > 2 classes each round grows K trees, one per class, in class
    order; they share the selected features, so the tree of class k + 1
    uses for free the features class k just selected. A-GBM's scale is each
    class tree's own root scale.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class labels, sorted; for 2 classes ``classes_[1]`` is the
        positive class.
    Others : as :class:`SparseBoostRegressor`.
    """

    _objective = "binary_logloss"
    _labels = True

    def _engine_objective(self) -> dict:
        if len(getattr(self, "classes_", ())) > 2:
            return {"objective": "multi_logloss", "n_classes": len(self.classes_)}
        return {"objective": "binary_logloss"}

    def _encode_target(self, y):
        self.classes_, encoded = check_labels_sortable(y, "y")
        if len(self.classes_) < 2:
            raise ValueError(
                "y holds a single class: SparseBoostClassifier needs samples of at least 2 "
                f"classes, but the data contains only one class: {self.classes_[0]!r}"
            )
        return encoded.astype(np.float64)

    def fit(self, X, y, sample_weight=None, *, eval_set=None, eval_sample_weight=None):
        """Fit on ``X`` (n_samples, n_features; NaN allowed) and class
        labels ``y`` (n_samples,), with optional ``sample_weight``;
        ``eval_set`` is a list of ``(X, y)`` scored after every round."""
        return self._fit(
            X, y, sample_weight, eval_set=eval_set, eval_sample_weight=eval_sample_weight
        )

    def decision_function(self, X):
        """Raw scores: the logit of the positive class, shape (n_samples,),
        for 2 classes; the K class scores (softmax inputs), shape
        (n_samples, K), for more."""
        return self._raw_predict(X)

    def predict_proba(self, X):
        """Class probabilities, shape (n_samples, n_classes), columns in
        ``classes_`` order."""
        raw = self.decision_function(X)
        if raw.ndim == 2:
            return softmax(raw, axis=1)
        return probabilities(raw)

    def predict(self, X):
        """Most probable class label, shape (n_samples,)."""
        raw = self.decision_function(X)
        if raw.ndim == 2:
            return self.classes_[np.argmax(raw, axis=1)]
        return self.classes_[(raw > 0).astype(int)]

    def score(self, X, y, sample_weight=None):
        """Accuracy of ``predict(X)``."""
        predicted = self.predict(X)
        y, sample_weight = self._score_target(predicted, y, sample_weight)
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


persistence.register(SparseBoostRegressor, {"squared_error"})
persistence.register(SparseBoostClassifier, {"binary_logloss", "multi_logloss"})
