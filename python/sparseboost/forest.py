"""Random forests on the sparseboost engine, with dynamic feature
reweighting as an option (Borisov, Eruhimov and Tuv), usable as feature
selectors."""

from __future__ import annotations

import numbers
import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.metrics import accuracy_score, r2_score
from sklearn.utils.validation import check_is_fitted

from . import _core, _params
from ._base import FeatureSelectorMixin, TakesNanAndSparse, categorical_indices
from ._matrix import engine_matrix
from ._params import document
from ._validation import (
    check_labels_sortable,
    check_sample_weight,
    check_target,
    check_X,
    naming,
    resolve_n_jobs,
    resolve_seed,
)

_THRESHOLDS = ("mean", "median")


class _BaseForest(TakesNanAndSparse, FeatureSelectorMixin, BaseEstimator):
    """What the forest regressor and classifier share."""

    _labels = False
    _default_max_features: object = 1.0

    def __init__(
        self,
        *,
        n_estimators=100,
        max_features="default",
        bootstrap=True,
        oob_score=False,
        max_depth=None,
        min_samples_leaf=1,
        max_leaf_nodes=None,
        max_bins=255,
        categorical_features="from_dtype",
        feature_sampling="uniform",
        reweight_rate=5.0,
        threshold="mean",
        n_jobs=None,
        random_state=None,
    ):
        self.n_estimators = n_estimators
        self.max_features = max_features
        self.bootstrap = bootstrap
        self.oob_score = oob_score
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.max_leaf_nodes = max_leaf_nodes
        self.max_bins = max_bins
        self.categorical_features = categorical_features
        self.feature_sampling = feature_sampling
        self.reweight_rate = reweight_rate
        self.threshold = threshold
        self.n_jobs = n_jobs
        self.random_state = random_state

    def _engine_max_features(self):
        """``max_features`` as the engine takes it: a fraction or a count."""
        value = self.max_features
        if isinstance(value, str) and value == "default":
            value = self._default_max_features
        d = self.n_features_in_
        if isinstance(value, str):
            if value == "sqrt":
                return max(1, int(np.sqrt(d)))
            if value == "log2":
                return max(1, int(np.log2(d))) if d > 1 else 1
            raise ValueError(
                f"max_features must be 'sqrt', 'log2', 'default', an int >= 1, a float in "
                f"(0, 1] or None, got {value!r}"
            )
        if value is None:
            return 1.0
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
            raise TypeError(
                f"max_features must be 'sqrt', 'log2', an int, a float or None, got {value!r}"
            )
        if isinstance(value, numbers.Integral) and value > d:
            raise ValueError(
                f"max_features must be at most the number of features, {d}, got {value!r} "
                "(a float in (0, 1] is a share of them)"
            )
        return int(value) if isinstance(value, numbers.Integral) else float(value)

    def _engine_params(self, draw_seed: bool = True) -> dict:
        """The engine's parameter dict: every parameter the engine reads,
        under its engine key (``_params``); ``n_features_in_`` must be set."""
        names = _params.engine_names(_params.table_name(type(self)))
        params = {key: getattr(self, name) for name, key in names.items()}
        params["max_features"] = self._engine_max_features()
        params["bootstrap"] = bool(self.bootstrap)
        params["categorical_features"] = categorical_indices(self)
        params["n_threads"] = resolve_n_jobs(self.n_jobs)
        params["seed"] = resolve_seed(self.random_state, draw_seed)
        return params

    def _fit_targets(self, y) -> np.ndarray:
        """The (K, n) targets the trees fit."""
        raise NotImplementedError

    def fit(self, X, y, sample_weight=None):
        """Grow the forest on ``X`` (NaN allowed) and ``y``."""
        self.__dict__.pop("_model", None)
        if not isinstance(self.oob_score, (bool, np.bool_)):
            raise TypeError(f"oob_score must be a bool, got {self.oob_score!r}")
        if not isinstance(self.bootstrap, (bool, np.bool_)):
            raise TypeError(f"bootstrap must be a bool, got {self.bootstrap!r}")
        if self.oob_score and not self.bootstrap:
            raise ValueError("oob_score=True needs bootstrap=True")
        X = check_X(self, X, reset=True)
        y = check_target(self, y, X.shape[0], labels=self._labels)
        sample_weight = check_sample_weight(sample_weight, X)
        targets = np.ascontiguousarray(self._fit_targets(y), dtype=np.float64)
        self._parsed_threshold()  # a bad threshold fails the fit, not transform
        model, oob = _core.fit_forest(
            engine_matrix(X, "csc"), targets, sample_weight, self._engine_params()
        )
        self._model = model
        if self.oob_score:
            unseen = int(np.isnan(oob).any(axis=1).sum())
            if unseen:
                warnings.warn(
                    f"{unseen} of the {X.shape[0]} rows were in every tree's bootstrap sample, "
                    "so they have no out-of-bag prediction and oob_score_ leaves them out "
                    "(NaN if fewer than 2 rows remain): grow more trees (n_estimators) for a "
                    "reliable estimate",
                    UserWarning,
                    stacklevel=2,
                )
            self._set_oob(oob, y, sample_weight)
        return self

    def _raw(self, X) -> np.ndarray:
        """The average of the trees, (n,) for one output, else (n, K)."""
        check_is_fitted(self)
        X = check_X(self, X, reset=False)
        return self._model.predict_raw(engine_matrix(X, "csr"), resolve_n_jobs(self.n_jobs))

    # -- the forest as a selector ----------------------------------------

    @property
    def feature_importances_(self) -> np.ndarray:
        """Total squared-error (for classes, Gini) decrease per feature over
        all trees, normalised to sum to 1, shape ``(n_features_in_,)``."""
        check_is_fitted(self)
        return self._model.importances("gain", True)

    @property
    def feature_weights_(self) -> np.ndarray:
        """Final feature sampling probabilities (uniform unless
        ``feature_sampling="dynamic"``), shape ``(n_features_in_,)``."""
        check_is_fitted(self)
        return np.asarray(self._model.feature_weights, dtype=float)

    def _parsed_threshold(self):
        """``threshold`` as ``(scale, base)``: a number is ``(value, None)``,
        "k*mean" is ``(k, "mean")`` (SelectFromModel's convention)."""
        t = self.threshold
        if isinstance(t, (bool, np.bool_)) or not isinstance(t, (numbers.Real, str)):
            raise TypeError(f"threshold must be a number or a string, got {t!r}")
        if not isinstance(t, str):
            return float(t), None
        scale, star, base = t.rpartition("*")
        try:
            scale = float(scale) if star else 1.0
        except ValueError:
            scale = None
        if scale is None or base.strip() not in _THRESHOLDS:
            raise ValueError(f"threshold must be a number, 'mean', 'median' or 'k*mean', got {t!r}")
        return scale, base.strip()

    def _threshold_value(self, importances: np.ndarray) -> float:
        """The importance a feature needs: the number, or k times the mean
        or median of the importances."""
        scale, base = self._parsed_threshold()
        if base is None:
            return scale
        reference = np.median(importances) if base == "median" else importances.mean()
        return scale * float(reference)

    @property
    def selected_features_(self) -> np.ndarray:
        """Features whose importance reaches ``threshold`` (and is > 0),
        most important first."""
        importances = self.feature_importances_
        keep = (importances >= self._threshold_value(importances)) & (importances > 0)
        order = np.argsort(-importances, kind="stable")
        return order[keep[order]].astype(np.intp)


@document  # the Parameters section: sparseboost._params
class SparseForestRegressor(RegressorMixin, _BaseForest):
    """A random forest regressor: the average of ``n_estimators``
    squared-error trees, each on a bootstrap sample, drawing
    ``max_features`` features at every node.

    With ``feature_sampling="dynamic"`` each node draws its features with
    weights ``reweight_rate * I0 + (squared error each feature removed in
    the trees so far)`` (I0: the first tree's root squared error), which
    steers the draws away from noise features; trees are then grown in
    order instead of in parallel.

    Attributes
    ----------
    feature_importances_ : ndarray of shape ``(n_features_in_,)``
        Normalised total squared-error decrease per feature.
    feature_weights_ : ndarray of shape ``(n_features_in_,)``
        Final feature sampling probabilities.
    selected_features_ : ndarray of int
        Features whose importance reaches ``threshold``, most important
        first.
    oob_score_, oob_prediction_ : float, ndarray
        With ``oob_score=True``: R² and the out-of-bag predictions.
    n_features_in_, feature_names_in_ : as in scikit-learn.
    """

    _default_max_features = 1.0

    def _fit_targets(self, y):
        return y.astype(np.float64)[None, :]

    def predict(self, X):
        """The average prediction of the trees, shape (n_samples,)."""
        return self._raw(X)

    def _set_oob(self, oob, y, sample_weight):
        prediction = oob[:, 0]
        seen = ~np.isnan(prediction)
        self.oob_prediction_ = prediction
        self.oob_score_ = (
            float(
                r2_score(
                    y[seen],
                    prediction[seen],
                    sample_weight=None if sample_weight is None else sample_weight[seen],
                )
            )
            if seen.sum() > 1
            else float("nan")
        )


@document  # the Parameters section: sparseboost._params
class SparseForestClassifier(ClassifierMixin, _BaseForest):
    """A random forest classifier (binary and multiclass).

    How its trees split: a tree fits the indicator of a class by squared
    error. With two classes one tree per member fits the 0/1 label; the
    squared error it removes is twice the Gini decrease, so its splits are
    those of scikit-learn's Gini trees, and a leaf's value is the fraction
    of the positive class. With K > 2 classes each member has one such
    tree per class (one-vs-rest), since the engine grows single-output
    trees; scikit-learn's one multi-class Gini tree instead picks splits by
    the sum of the K indicators' squared error. Class probabilities are
    the averaged (and, for K > 2, clipped and renormalised) indicators.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class labels, sorted.
    oob_score_, oob_decision_function_ : float, ndarray
        With ``oob_score=True``: the out-of-bag accuracy and probabilities.
    Others : as :class:`SparseForestRegressor`.
    """

    _labels = True
    _default_max_features = "sqrt"

    def _fit_targets(self, y):
        with naming("y"):
            self.classes_, encoded = check_labels_sortable(y, "y")
        if len(self.classes_) < 2:
            raise ValueError(
                "y holds a single class: SparseForestClassifier needs samples of at least 2 "
                f"classes, but the data contains only one class: {self.classes_[0]!r}"
            )
        if len(self.classes_) == 2:
            return encoded.astype(np.float64)[None, :]
        return (encoded[None, :] == np.arange(len(self.classes_))[:, None]).astype(np.float64)

    def _probabilities(self, raw: np.ndarray) -> np.ndarray:
        if raw.ndim == 1:
            p = np.clip(raw, 0.0, 1.0)
            return np.column_stack([1.0 - p, p])
        p = np.clip(raw, 0.0, None)
        total = p.sum(axis=1, keepdims=True)
        uniform = np.full_like(p, 1.0 / p.shape[1])
        return np.divide(p, total, out=uniform, where=total > 0)

    def predict_proba(self, X):
        """Class probabilities, shape (n_samples, n_classes), in ``classes_``
        order."""
        return self._probabilities(self._raw(X))

    def predict(self, X):
        """The most probable class (ties: the first in ``classes_``)."""
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]

    def _set_oob(self, oob, y, sample_weight):
        seen = ~np.isnan(oob).any(axis=1)
        raw = np.where(np.isnan(oob), 0.0, oob)
        proba = self._probabilities(raw[:, 0] if raw.shape[1] == 1 else raw)
        proba[~seen] = np.nan
        self.oob_decision_function_ = proba
        predicted = self.classes_[np.argmax(np.nan_to_num(proba[seen]), axis=1)]
        self.oob_score_ = (
            float(
                accuracy_score(
                    y[seen],
                    predicted,
                    sample_weight=None if sample_weight is None else sample_weight[seen],
                )
            )
            if seen.any()
            else float("nan")
        )
