"""Feature selectors for scikit-learn pipelines."""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, MetaEstimatorMixin, clone
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import check_is_fitted

from ._base import BaseSparseBoost, FeatureSelectorMixin, TakesNanAndSparse
from ._params import document
from ._validation import check_X, naming
from .estimators import SparseBoostClassifier, SparseBoostRegressor


def with_categorical(estimator, selector, columns=None):
    """``estimator`` told which of its columns are the selector's
    categorical ones (``columns``: the selector's columns it gets, all by
    default); an estimator that is no sparseboost booster gets their codes
    as numbers."""
    categorical = getattr(selector, "categorical_features_", np.zeros(0, dtype=int))
    if not hasattr(estimator, "categorical_features"):
        return estimator
    if columns is None:
        positions = list(categorical)
    else:
        positions = [i for i, f in enumerate(np.sort(columns)) if f in set(categorical.tolist())]
    return estimator.set_params(categorical_features=[int(p) for p in positions] or None)


def default_booster(y, **params):
    """``SparseBoostClassifier(**params)`` for class labels,
    ``SparseBoostRegressor(**params)`` otherwise."""
    with naming("y"):
        is_labels = type_of_target(y) in ("binary", "multiclass")
    return (SparseBoostClassifier if is_labels else SparseBoostRegressor)(**params)


class WrapsBooster(TakesNanAndSparse):
    """What a selector wrapping a booster tells scikit-learn: NaN and
    sparse input are allowed, ``y`` is required, and it is fitted once it
    has ``estimator_``."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        return tags

    def __sklearn_is_fitted__(self):
        return hasattr(self, "estimator_")


@document  # the Parameters section: sparseboost._params
class SparseBoostSelector(WrapsBooster, MetaEstimatorMixin, FeatureSelectorMixin, BaseEstimator):
    """Keep the features a sparseboost booster selects while it learns.

    Attributes
    ----------
    estimator_ : the fitted booster.
    selected_features_ : ndarray of int
        The kept features, in the order they entered the booster.
    """

    def __init__(self, estimator=None, categorical_features="from_dtype"):
        self.estimator = estimator
        self.categorical_features = categorical_features

    def fit(self, X, y, **fit_params):
        """Fit the booster on ``X``, ``y``; ``fit_params`` go to its ``fit``."""
        self.__dict__.pop("estimator_", None)
        if self.estimator is not None and not isinstance(self.estimator, BaseSparseBoost):
            raise TypeError(
                "estimator must be a SparseBoostRegressor or SparseBoostClassifier (or None), "
                f"got {self.estimator!r}"
            )
        checked = check_X(self, X, reset=True)
        if self.estimator is None:
            estimator = default_booster(y)
        else:
            estimator = clone(self.estimator)
        # The booster checks y and the fit parameters. It gets X as given,
        # so that it records the same feature names as the selector (and
        # its predict accepts exactly what transform accepts), and the
        # selector's categorical columns.
        del checked
        estimator = with_categorical(estimator, self)
        self.estimator_ = estimator.fit(X, y, **fit_params)
        return self

    @property
    def selected_features_(self):
        """The kept features, in the order they entered the booster."""
        check_is_fitted(self)
        return self.estimator_.selected_features_
