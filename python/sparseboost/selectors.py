"""Feature selectors for scikit-learn pipelines."""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, MetaEstimatorMixin, clone
from sklearn.feature_selection import SelectorMixin
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import check_is_fitted, validate_data

from .estimators import SparseBoostClassifier, SparseBoostRegressor


class SparseBoostSelector(MetaEstimatorMixin, SelectorMixin, BaseEstimator):
    """Keep the features a sparseboost booster selects while it learns.

    Parameters
    ----------
    estimator : SparseBoostRegressor or SparseBoostClassifier, default=None
        The booster to fit (cloned). None picks ``SparseBoostClassifier()``
        for class labels and ``SparseBoostRegressor()`` otherwise.

    Attributes
    ----------
    estimator_ : the fitted booster.
    selected_features_ : ndarray of int
        The kept features, in the order they entered the booster.
    """

    def __init__(self, estimator=None):
        self.estimator = estimator

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.target_tags.required = True
        return tags

    def fit(self, X, y, **fit_params):
        """Fit the booster on ``X``, ``y``; ``fit_params`` go to its ``fit``."""
        X, y = validate_data(self, X, y, ensure_all_finite="allow-nan", dtype=np.float64)
        if self.estimator is None:
            kind = type_of_target(y)
            is_labels = kind in ("binary", "multiclass")
            self.estimator_ = SparseBoostClassifier() if is_labels else SparseBoostRegressor()
        else:
            self.estimator_ = clone(self.estimator)
        self.estimator_.fit(X, y, **fit_params)
        return self

    @property
    def selected_features_(self) -> np.ndarray:
        check_is_fitted(self, "estimator_")
        return self.estimator_.selected_features_

    def _get_support_mask(self):
        check_is_fitted(self, "estimator_")
        return self.estimator_.get_support()
