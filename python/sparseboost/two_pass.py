"""Two-pass forward stepwise selection (SPEC section 5; Square's blog post
"Comparing Two Forward Feature Selection Algorithms").

Pass 1 fits a univariate logistic regression per feature and ranks the
features by its score. Pass 2 starts from the best feature and walks down
the ranking once, keeping a candidate when the logistic model with it
scores more than ``threshold`` above the current model: 2d − 1 models in
all, where forward stepwise proper needs d(d + 1)/2.

The logistic fits run in Rust (``src/logistic.rs``, ``src/two_pass.rs``),
in parallel over candidates: pass 1 all at once, pass 2 a few of the next
candidates at a time against the current model, keeping the first that
passes (those before it were rejected against the same model, so the
result is the one-at-a-time result). ROC AUC and recall at precision are
computed there too; any other scorer is called here on each fit.
"""

from __future__ import annotations

import numbers
import warnings

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning
from sklearn.feature_selection import SelectorMixin
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import get_scorer
from sklearn.model_selection import check_cv
from sklearn.utils import ClassifierTags
from sklearn.utils.validation import check_is_fitted

from . import _core
from ._params import document
from ._validation import check_labels_sortable, check_target, check_X, naming, resolve_n_jobs
from .metrics import RecallAtPrecisionScorer

# The blog post's precision for "recall at precision".
_DEFAULT_PRECISION = 0.33


def _real(value, name: str, *, low: float, low_open: bool) -> float:
    """A finite real number above ``low`` (or at least ``low``)."""
    if not isinstance(value, numbers.Real) or isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be a number, got {value!r} ({type(value).__name__})")
    value = float(value)
    if not np.isfinite(value) or value < low or (low_open and value == low):
        bound = f"> {low:g}" if low_open else f">= {low:g}"
        raise ValueError(f"{name} must be a finite number {bound}, got {value}")
    return value


@document  # the Parameters section: sparseboost._params
class TwoPassForwardSelector(SelectorMixin, BaseEstimator):
    """Two-pass forward stepwise feature selection with L2-penalised
    logistic regression, for binary classification.

    Attributes
    ----------
    selected_features_ : ndarray of int
        The kept features, in the order they were added.
    pass1_scores_ : ndarray of float, shape ``(n_features_in_,)``
        Each feature's univariate model score (pass 1).
    ranking_ : ndarray of int
        The features by pass-1 score, best first (ties by index): the order
        pass 2 tried them in.
    scores_path_ : ndarray of float
        The current model's score after each addition.
    coef_, intercept_ : ndarray
        The final model's coefficients (one per selected feature, in
        ``selected_features_`` order) and intercept; with ``cv``, those of
        the first fold's model.
    n_iter_ : int
        The most Newton steps any fit took (at most ``max_iter``).
    n_model_fits_ : int
        Models scored: d in pass 1, d − 1 in pass 2 (each is fitted once per
        fold; speculative fits discarded by pass 2's batches not counted).
    n_features_in_, feature_names_in_ : as in scikit-learn.
    """

    def __init__(
        self,
        scoring="roc_auc",
        threshold=0.0,
        cv=None,
        C=1.0,
        n_jobs=None,
        max_iter=100,
        tol=1e-6,
    ):
        self.scoring = scoring
        self.threshold = threshold
        self.cv = cv
        self.C = C
        self.n_jobs = n_jobs
        self.max_iter = max_iter
        self.tol = tol

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        # Binary targets only: the tag scikit-learn's checks read to give
        # an estimator two classes (it adds no classifier checks).
        tags.classifier_tags = ClassifierTags(multi_class=False)
        return tags

    def __sklearn_is_fitted__(self):
        return hasattr(self, "selected_features_")

    def _get_support_mask(self):
        check_is_fitted(self)
        mask = np.zeros(self.n_features_in_, dtype=bool)
        mask[self.selected_features_] = True
        return mask

    def _check_params(self):
        """The parameters as the engine takes them; errors name them."""
        threshold = _real(self.threshold, "threshold", low=0.0, low_open=False)
        C = _real(self.C, "C", low=0.0, low_open=True)
        tol = _real(self.tol, "tol", low=0.0, low_open=False)
        if not isinstance(self.max_iter, numbers.Integral) or isinstance(
            self.max_iter, (bool, np.bool_)
        ):
            raise TypeError(f"max_iter must be an int, got {self.max_iter!r}")
        if self.max_iter < 1:
            raise ValueError(f"max_iter must be >= 1, got {self.max_iter}")
        return threshold, C, tol, int(self.max_iter), resolve_n_jobs(self.n_jobs)

    def _resolve_scoring(self):
        """``(metric, precision, scorer)``: a metric Rust computes, or a
        Python scorer."""
        scoring = self.scoring
        if isinstance(scoring, str):
            if scoring == "roc_auc":
                return "auc", 0.0, None
            if scoring == "recall_at_precision":
                return "recall_at_precision", _DEFAULT_PRECISION, None
            with naming("scoring"):
                return None, 0.0, get_scorer(scoring)
        if isinstance(scoring, RecallAtPrecisionScorer):
            return "recall_at_precision", scoring.precision, None
        if callable(scoring):
            return None, 0.0, scoring
        raise TypeError(
            "scoring must be a scikit-learn scorer name or a callable scorer(estimator, X, y), "
            f"got {scoring!r}"
        )

    def fit(self, X, y):
        """Select features of ``X`` (numbers, no NaN) for the binary target ``y``."""
        for name in ("selected_features_", "pass1_scores_", "scores_path_"):
            self.__dict__.pop(name, None)
        threshold, C, tol, max_iter, n_threads = self._check_params()
        metric, precision, scorer = self._resolve_scoring()
        X = check_X(self, X, reset=True, order="F", allow_nan=False, dense_only=True)
        y = check_target(self, y, X.shape[0], labels=True)
        classes, codes = check_labels_sortable(y, "y")
        if classes.size != 2:
            raise ValueError(
                "y must have exactly two classes (TwoPassForwardSelector is for binary "
                f"classification), got {classes.size} class{'es' if classes.size != 1 else ''}"
            )
        self.classes_ = classes
        folds = self._folds(X, y)
        path = _core.TwoPassPath(X, codes.astype(np.float64), folds, C, tol, max_iter)
        search = _Search(self, X, y, folds, path, metric, precision, scorer, n_threads)
        d = X.shape[1]

        # Pass 1: every feature against the intercept-only model.
        self.pass1_scores_ = search.scores(np.arange(d), stop_above=None)
        self.ranking_ = np.lexsort((np.arange(d), -self.pass1_scores_))

        # Pass 2: down the ranking, each candidate tried once.
        first = int(self.ranking_[0])
        path.accept(first, n_threads)
        current = float(self.pass1_scores_[first])
        path_scores = [current]
        queue = [int(f) for f in self.ranking_[1:]]
        batch = max(1, n_threads)
        start = 0
        while start < len(queue):
            candidates = queue[start : start + batch]
            scores = search.scores(np.asarray(candidates), stop_above=current + threshold)
            passed = np.flatnonzero(scores - current > threshold)
            if passed.size == 0:
                start += len(candidates)
                continue
            winner = int(passed[0])
            path.accept(candidates[winner], n_threads)
            current = float(scores[winner])
            path_scores.append(current)
            start += winner + 1

        self.selected_features_ = np.asarray(path.selected, dtype=np.intp)
        self.scores_path_ = np.asarray(path_scores)
        coef = path.coef[0]
        self.intercept_ = coef[:1].copy()
        self.coef_ = coef[1:].copy()
        self.n_model_fits_ = d + len(queue)
        self.n_iter_ = search.n_iter
        if search.not_converged:
            warnings.warn(
                f"{search.not_converged} logistic fits did not converge within "
                f"max_iter={max_iter} Newton steps; increase max_iter",
                ConvergenceWarning,
                stacklevel=2,
            )
        return self

    def _folds(self, X, y):
        """``[(train_rows, validation_rows)]``; None stands for every row."""
        if self.cv is None:
            return [(None, None)]
        if isinstance(self.cv, (bool, np.bool_)):
            raise TypeError(f"cv must be None, an int, or a splitter, got {self.cv!r}")
        with naming("cv"):
            splitter = check_cv(self.cv, y, classifier=True)
            folds = [
                (np.asarray(train, dtype=np.uintp), np.asarray(test, dtype=np.uintp))
                for train, test in splitter.split(X, y)
            ]
            if not folds:
                raise ValueError("cv gave no folds")
            for train, test in folds:
                if train.size == 0 or test.size == 0:
                    raise ValueError("cv gave a fold without training or validation rows")
        return folds


class _Search:
    """Scores of candidate models for one fit of the selector."""

    def __init__(self, selector, X, y, folds, path, metric, precision, scorer, n_threads):
        self.selector = selector
        self.X, self.y, self.folds, self.path = X, y, folds, path
        self.metric, self.precision, self.scorer = metric, precision, scorer
        self.n_threads = n_threads
        self.not_converged = 0
        self.n_iter = 0

    def scores(self, candidates, stop_above):
        """Each candidate's model score (mean over folds) added to the
        current model. With a Python scorer and ``stop_above``, candidates
        after the first whose score exceeds it are not scored (NaN)."""
        coef, native, converged, n_iter = self.path.evaluate(
            candidates.tolist(), self.metric, self.precision, self.n_threads
        )
        self.not_converged += int(np.size(converged) - np.count_nonzero(converged))
        self.n_iter = max([self.n_iter, *n_iter])
        if native is not None:
            return native.mean(axis=1)
        scores = np.full(len(candidates), np.nan)
        selected = list(self.path.selected)
        for c, feature in enumerate(candidates):
            columns = selected + [int(feature)]
            per_fold = [
                self._python_score(coef[c, k], columns, rows)
                for k, (_, rows) in enumerate(self.folds)
            ]
            scores[c] = np.mean(per_fold)
            if stop_above is not None and scores[c] > stop_above:
                break
        return scores

    def _python_score(self, coef, columns, rows):
        model = LogisticRegression(
            C=self.selector.C, tol=self.selector.tol, max_iter=self.selector.max_iter
        )
        model.classes_ = self.selector.classes_
        model.coef_ = coef[None, 1:].copy()
        model.intercept_ = coef[:1].copy()
        model.n_features_in_ = len(columns)
        model.n_iter_ = np.zeros(1, dtype=np.int32)
        if rows is None:
            X, y = self.X[:, columns], self.y
        else:
            X, y = self.X[np.ix_(rows, columns)], self.y[rows]
        return float(self.scorer(model, X, y))
