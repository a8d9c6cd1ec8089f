"""Metrics for choosing features by what a business needs of a classifier.

``recall_at_precision`` is the blog post's fraud-review metric (SPEC
section 5): when people review every case a model flags, the precision
fixes the caseload they can afford, and the recall is what the model finds
at that caseload. ``make_recall_at_precision_scorer`` turns it into a
scikit-learn scorer (for ``cross_val_score``, ``GridSearchCV`` or
``TwoPassForwardSelector(scoring=...)``, which computes it natively).
"""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.utils.validation import check_consistent_length, column_or_1d

from ._validation import naming

__all__ = ["RecallAtPrecisionScorer", "make_recall_at_precision_scorer", "recall_at_precision"]


def _check_precision(precision) -> float:
    if not isinstance(precision, numbers.Real) or isinstance(precision, (bool, np.bool_)):
        raise TypeError(f"precision must be a number in [0, 1], got {precision!r}")
    if not 0.0 <= precision <= 1.0:
        raise ValueError(f"precision must be in [0, 1], got {precision}")
    return float(precision)


def recall_at_precision(y_true, y_score, precision=0.33, *, pos_label=1) -> float:
    """The largest recall among the thresholds whose precision is at least
    ``precision``; 0 when none reaches it (or there is no positive row).

    A row is called positive when its score is at least the threshold; the
    thresholds are the distinct scores, so rows with tied scores are
    called together (as ``sklearn.metrics.precision_recall_curve`` does).
    ``y_true == pos_label`` marks the positive rows (bools work as 0/1).
    """
    precision = _check_precision(precision)
    with naming("y_true"):
        y_true = column_or_1d(y_true)
    with naming("y_score"):
        y_score = column_or_1d(np.asarray(y_score, dtype=np.float64))
        if not np.all(np.isfinite(y_score)):
            raise ValueError("y_score must be finite")
    check_consistent_length(y_true, y_score)
    positive = np.asarray(y_true == pos_label)
    n_positive = int(positive.sum())
    if n_positive == 0 or y_score.size == 0:
        return 0.0
    order = np.argsort(-y_score, kind="stable")
    scores = y_score[order]
    hits = np.cumsum(positive[order])
    # The last row of each run of tied scores ends a threshold.
    ends = np.flatnonzero(np.r_[scores[1:] != scores[:-1], True])
    hits, called = hits[ends], ends + 1
    reach = hits / called >= precision
    return float(hits[reach].max() / n_positive) if reach.any() else 0.0


class RecallAtPrecisionScorer:
    """A scikit-learn scorer ``scorer(estimator, X, y)`` of
    :func:`recall_at_precision` at ``precision``, on the estimator's
    ``decision_function`` (else the probability of ``classes_[1]``); the
    positive class is ``estimator.classes_[1]``.

    ``TwoPassForwardSelector`` recognises it and computes the metric in
    Rust; anywhere else it is an ordinary scorer.
    """

    def __init__(self, precision=0.33):
        self.precision = _check_precision(precision)

    def __call__(self, estimator, X, y_true, sample_weight=None):
        if sample_weight is not None:
            raise ValueError("recall_at_precision does not take sample_weight")
        if hasattr(estimator, "decision_function"):
            scores = estimator.decision_function(X)
        else:
            scores = estimator.predict_proba(X)[:, 1]
        positive = estimator.classes_[1]
        return recall_at_precision(
            np.asarray(y_true) == positive, scores, self.precision, pos_label=True
        )

    def __repr__(self):
        return f"make_recall_at_precision_scorer(precision={self.precision!r})"

    def __eq__(self, other):
        return type(other) is type(self) and other.precision == self.precision

    def __hash__(self):
        return hash((type(self), self.precision))


def make_recall_at_precision_scorer(precision=0.33) -> RecallAtPrecisionScorer:
    """The scorer of :func:`recall_at_precision` at ``precision`` (0.33,
    the blog post's, by default)."""
    return RecallAtPrecisionScorer(precision)
