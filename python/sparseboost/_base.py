"""What the regressor and the classifier share: parameters, input checks,
the call into the Rust engine, importances and persistence."""

from __future__ import annotations

import numbers
import os

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import _check_sample_weight, check_is_fitted, validate_data

from . import _core

# Estimator attribute -> engine parameter, for the parameters whose names
# differ; every other engine parameter has the estimator's name.
_RENAMED = {"n_jobs": "n_threads", "random_state": "seed"}
_ENGINE_PARAMS = (
    "n_estimators",
    "learning_rate",
    "max_leaves",
    "max_depth",
    "min_samples_leaf",
    "min_split_fraction",
    "min_child_weight",
    "l2_regularization",
    "min_gain",
    "max_bins",
    "subsample",
    "colsample_bytree",
    "penalty",
    "mu",
    "max_features",
    "split_search",
    "gt_n_features",
    "gt_delta",
    "gt_max_rows",
)


def resolve_n_jobs(n_jobs) -> int:
    """joblib's convention: None or -1 = all cores, -2 = all but one, k > 0 = k."""
    if n_jobs is None:
        return os.cpu_count() or 1
    if not isinstance(n_jobs, numbers.Integral) or isinstance(n_jobs, bool) or n_jobs == 0:
        raise ValueError(f"n_jobs must be a non-zero integer or None, got {n_jobs!r}")
    if n_jobs < 0:
        return max(1, (os.cpu_count() or 1) + 1 + int(n_jobs))
    return int(n_jobs)


def resolve_seed(random_state) -> int:
    """An int is used as the seed itself (same int, same model); None or a
    RandomState draws a seed from it."""
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        if random_state < 0:
            raise ValueError(f"random_state must be >= 0, got {random_state}")
        return int(random_state)
    return int(check_random_state(random_state).randint(np.iinfo(np.int32).max))


def check_fit_input(estimator, X, y, sample_weight):
    """``X`` as C-ordered float64 (NaN allowed), ``y`` checked against it
    (numeric for squared error), and ``sample_weight`` (if any) as a
    contiguous non-negative float64 array; sets ``n_features_in_``."""
    X, y = validate_data(
        estimator,
        X,
        y,
        dtype=np.float64,
        order="C",
        ensure_all_finite="allow-nan",
        y_numeric=estimator._objective == "squared_error",
    )
    if sample_weight is not None:
        sample_weight = np.ascontiguousarray(
            _check_sample_weight(sample_weight, X, dtype=np.float64, ensure_non_negative=True)
        )
    return X, y, sample_weight


def feature_costs_array(costs, estimator):
    """Costs as a list of d floats: from an array of d numbers, or from a
    dict ``{feature name or index: cost}`` (unlisted features cost 0)."""
    d = estimator.n_features_in_
    if costs is None:
        return None
    if isinstance(costs, dict):
        names = list(getattr(estimator, "feature_names_in_", []))
        out = np.zeros(d)
        for key, cost in costs.items():
            if key in names:
                out[names.index(key)] = cost
            elif isinstance(key, numbers.Integral) and 0 <= key < d:
                out[key] = cost
            else:
                raise ValueError(f"feature_costs names an unknown feature: {key!r}")
    else:
        out = np.asarray(costs, dtype=np.float64)
        if out.shape != (d,):
            raise ValueError(f"feature_costs must have {d} entries (one per feature), got shape {out.shape}")
    if not np.all(np.isfinite(out)) or np.any(out < 0):
        raise ValueError("feature_costs must be finite numbers >= 0")
    return out.tolist()


def feature_bags_array(bags, d):
    """Bag labels (any hashable values, one per feature) as integers."""
    if bags is None:
        return None
    labels = np.asarray(bags)
    if labels.shape != (d,):
        raise ValueError(f"feature_bags must have {d} entries (one per feature), got shape {labels.shape}")
    return np.unique(labels, return_inverse=True)[1].ravel().tolist()


class BaseSparseBoost(SelectorMixin, BaseEstimator):
    """Parameters and engine calls common to every sparseboost booster.

    Subclasses define ``_objective`` (the engine's loss name) and
    ``_encode_target``.
    """

    _objective: str

    def __init__(
        self,
        *,
        n_estimators=100,
        learning_rate=0.1,
        max_leaves=31,
        max_depth=None,
        min_samples_leaf=20,
        min_split_fraction=0.0,
        min_child_weight=1e-3,
        l2_regularization=0.0,
        min_gain=0.0,
        max_bins=255,
        subsample=1.0,
        colsample_bytree=1.0,
        penalty="agbm",
        mu=0.01,
        feature_costs=None,
        feature_bags=None,
        max_features=None,
        split_search="exhaustive",
        gt_n_features=10,
        gt_delta=0.1,
        gt_max_rows=None,
        n_jobs=None,
        random_state=None,
    ):
        self.n_estimators = n_estimators
        self.learning_rate = learning_rate
        self.max_leaves = max_leaves
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.min_split_fraction = min_split_fraction
        self.min_child_weight = min_child_weight
        self.l2_regularization = l2_regularization
        self.min_gain = min_gain
        self.max_bins = max_bins
        self.subsample = subsample
        self.colsample_bytree = colsample_bytree
        self.penalty = penalty
        self.mu = mu
        self.feature_costs = feature_costs
        self.feature_bags = feature_bags
        self.max_features = max_features
        self.split_search = split_search
        self.gt_n_features = gt_n_features
        self.gt_delta = gt_delta
        self.gt_max_rows = gt_max_rows
        self.n_jobs = n_jobs
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags

    # -- fitting -------------------------------------------------------

    def _engine_params(self) -> dict:
        params = {name: getattr(self, name) for name in _ENGINE_PARAMS}
        params["objective"] = self._objective
        params["feature_costs"] = feature_costs_array(self.feature_costs, self)
        params["feature_bags"] = feature_bags_array(self.feature_bags, self.n_features_in_)
        params["n_threads"] = resolve_n_jobs(self.n_jobs)
        params["seed"] = resolve_seed(self.random_state)
        return params

    def _fit(self, X, y, sample_weight):
        X, y, sample_weight = check_fit_input(self, X, y, sample_weight)
        y = np.ascontiguousarray(self._encode_target(y), dtype=np.float64)
        self._model = _core.fit(X, y, sample_weight, self._engine_params())
        return self

    def _raw_predict(self, X) -> np.ndarray:
        check_is_fitted(self, "_model")
        X = validate_data(
            self, X, dtype=np.float64, order="C", ensure_all_finite="allow-nan", reset=False
        )
        return self._model.predict_raw(X, resolve_n_jobs(self.n_jobs))

    # -- fitted attributes ---------------------------------------------

    @property
    def n_trees_(self) -> int:
        """Number of trees actually fitted (fewer than ``n_estimators`` when
        no leaf could be split any more)."""
        check_is_fitted(self, "_model")
        return self._model.n_trees

    @property
    def gt_n_subsets_(self) -> int | None:
        """With ``split_search="group_testing"``: the number of random
        feature subsets, p = ceil(e * s * ln(s / delta)); None otherwise."""
        check_is_fitted(self, "_model")
        return self._model.gt_n_subsets

    @property
    def gt_cache_bytes_(self) -> int | None:
        """With ``split_search="group_testing"``: the bytes held by the
        prefix-sum cache during the fit; None otherwise."""
        check_is_fitted(self, "_model")
        return self._model.gt_cache_bytes

    @property
    def train_loss_(self) -> np.ndarray:
        """Mean training loss after each tree, shape (n_trees_,)."""
        check_is_fitted(self, "_model")
        return np.asarray(self._model.train_loss)

    @property
    def selected_features_(self) -> np.ndarray:
        """Indices of the features used by any split, in the order they
        entered the model (Ω)."""
        check_is_fitted(self, "_model")
        return np.asarray(self._model.selected_features, dtype=np.intp)

    @property
    def selected_feature_names_(self) -> np.ndarray:
        """Names of ``selected_features_`` (``feature_names_in_`` for
        DataFrames, else ``x0, x1, ...``), in entry order."""
        names = getattr(self, "feature_names_in_", None)
        if names is None:
            return np.asarray([f"x{j}" for j in self.selected_features_], dtype=object)
        return np.asarray(names, dtype=object)[self.selected_features_]

    @property
    def feature_entry_tree_(self) -> np.ndarray:
        """The tree (0-based) at which each of ``selected_features_`` entered."""
        check_is_fitted(self, "_model")
        return np.asarray(self._model.feature_entry_tree, dtype=np.intp)

    @property
    def selection_path_(self) -> dict:
        """After each tree: ``n_features`` used so far and the mean
        ``train_loss``; arrays of length ``n_trees_``."""
        check_is_fitted(self, "_model")
        return {
            "n_features": np.asarray(self._model.n_selected_after_tree, dtype=np.intp),
            "train_loss": np.asarray(self._model.train_loss),
        }

    def _get_support_mask(self):
        mask = np.zeros(self.n_features_in_, dtype=bool)
        mask[self.selected_features_] = True
        return mask

    @property
    def feature_importances_(self) -> np.ndarray:
        """Total split gain per feature, normalised to sum to 1 (all zeros
        when the model has no split), shape (n_features_in_,)."""
        return self.get_feature_importance("gain", normalize=True)

    def get_feature_importance(self, kind: str = "gain", normalize: bool = False) -> np.ndarray:
        """Per-feature importance: ``kind="gain"`` (total split gain) or
        ``"split"`` (number of splits), shape (n_features_in_,)."""
        check_is_fitted(self, "_model")
        values = self._model.importances(kind)
        if normalize and values.sum() > 0:
            values = values / values.sum()
        return values

    # -- persistence ---------------------------------------------------

    def save_model(self, path) -> None:
        """Write the fitted estimator to ``path`` as JSON (see
        :func:`sparseboost.load_model`)."""
        from .persistence import save_model

        save_model(self, path)
