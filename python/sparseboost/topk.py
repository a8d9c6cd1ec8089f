"""The GBDT-topK baseline: keep the K features a boosted model (fitted on
all of them, with no selection penalty) finds most important."""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, MetaEstimatorMixin, clone
from sklearn.utils.validation import check_is_fitted

from ._base import BaseSparseBoost, FeatureSelectorMixin
from ._params import document
from ._refit import RefitDelegates
from ._routing import RoutesFitParams
from ._training import fits_apart
from ._validation import check_X, naming, resolve_n_features_to_select
from .selectors import default_booster, with_categorical


@document  # the Parameters section: sparseboost._params
class TopKSelector(
    RefitDelegates, RoutesFitParams, MetaEstimatorMixin, FeatureSelectorMixin, BaseEstimator
):
    """Keep the ``n_features_to_select`` most important features of a model
    fitted on all features (the GBDT-topK baseline).

    Attributes
    ----------
    selected_features_ : ndarray of int
        The kept features, most important first (equal importances in
        column order).
    support_ : ndarray of bool, shape ``(n_features_in_,)``
    importances_ : ndarray of float, shape ``(n_features_in_,)``
        Each feature's importance in the model on all features.
    estimator_ : estimator
        The refitted model on the kept columns (in column order, the
        columns of ``transform(X)``), or with ``refit=False`` the model on
        all features.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when ``X`` has column names (a pandas DataFrame).
    """

    def __init__(
        self,
        estimator=None,
        n_features_to_select=10,
        importance="gain",
        refit=True,
        categorical_features="from_dtype",
    ):
        self.estimator = estimator
        self.n_features_to_select = n_features_to_select
        self.importance = importance
        self.refit = refit
        self.categorical_features = categorical_features

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        if self.estimator is None or isinstance(self.estimator, BaseSparseBoost):
            tags.input_tags.allow_nan = True
            tags.input_tags.sparse = True
        else:
            inner = self.estimator.__sklearn_tags__().input_tags
            tags.input_tags.allow_nan = inner.allow_nan
            tags.input_tags.sparse = inner.sparse
        return tags

    def __sklearn_is_fitted__(self):
        return hasattr(self, "estimator_")

    @fits_apart
    def fit(self, X, y, **fit_params):
        """Fit the estimator on all of ``X``, keep the top K features and
        (``refit``) fit a clone on them; ``fit_params`` go to both fits
        (an ``eval_set``'s ``X`` cut to the kept columns for the refit;
        under metadata routing, those the estimator requests)."""
        if self.importance not in ("gain", "split"):
            raise ValueError(f"importance must be 'gain' or 'split', got {self.importance!r}")
        if not isinstance(self.refit, (bool, np.bool_)):
            raise TypeError(f"refit must be True or False, got {self.refit!r}")
        sparseboost = self.estimator is None or isinstance(self.estimator, BaseSparseBoost)
        if not sparseboost and self.importance == "split":
            raise ValueError(
                "importance='split' needs a sparseboost booster as estimator; "
                f"{type(self.estimator).__name__} offers only feature_importances_ "
                "(use importance='gain')"
            )
        fit_params = self._routed_fit_params(fit_params)
        checked = check_X(self, X, reset=True)
        d = checked.shape[1]
        k = resolve_n_features_to_select(self.n_features_to_select, d, default=10)
        if self.estimator is None:
            estimator = default_booster(y, penalty="none")
        else:
            estimator = clone(self.estimator)

        # The models get plain arrays: feature names stay with the selector,
        # which checks them in transform and predict (and an eval set's).
        if fit_params.get("eval_set") is not None:
            fit_params = {**fit_params, "eval_set": _checked_eval_set(self, fit_params["eval_set"])}
        full = with_categorical(clone(estimator), self).fit(checked, y, **fit_params)
        if sparseboost:
            importances = full.get_feature_importance(self.importance)
        elif hasattr(full, "feature_importances_"):
            importances = full.feature_importances_
        else:
            raise TypeError(
                f"estimator {type(full).__name__} has no feature_importances_ after fit; "
                "TopKSelector needs a model that scores its features"
            )
        importances = np.asarray(importances, dtype=np.float64)
        if importances.shape != (d,):
            raise ValueError(
                f"estimator's feature_importances_ has shape {importances.shape}, expected ({d},)"
            )
        # a stable sort of the negated importances keeps equal ones in column order
        ranked = np.argsort(-importances, kind="stable")
        self.importances_ = importances
        self.selected_features_ = ranked[:k]
        self.support_ = np.zeros(d, dtype=bool)
        self.support_[self.selected_features_] = True
        if self.refit:
            refit = with_categorical(clone(estimator), self, self.selected_features_)
            kept_params = dict(fit_params)
            if fit_params.get("eval_set") is not None:
                kept_params["eval_set"] = _kept_columns(fit_params["eval_set"], self.support_)
            self.estimator_ = refit.fit(checked[:, self.support_], y, **kept_params)
        else:
            self.estimator_ = full
        return self

    def _get_support_mask(self):
        check_is_fitted(self)
        return self.support_


def _checked_eval_set(selector, eval_set):
    """Each evaluation set's ``X`` as the selector's own ``X`` goes to its
    models: checked against its columns (names, order), categorical columns
    as their codes, a plain array; its other members (``y``, ...) as they
    are."""
    if not isinstance(eval_set, (list, tuple)):
        return eval_set  # the booster names what is wrong with it
    checked = []
    for i, entry in enumerate(eval_set):
        if not isinstance(entry, (list, tuple)) or not entry:
            return eval_set
        with naming(f"eval_set[{i}]"):
            checked.append((check_X(selector, entry[0], reset=False), *entry[1:]))
    return checked


def _kept_columns(eval_set, support):
    """Each (checked) evaluation set's ``X`` cut to the kept columns."""
    if not isinstance(eval_set, list):
        return eval_set
    return [(X[:, support], *rest) for X, *rest in eval_set]
