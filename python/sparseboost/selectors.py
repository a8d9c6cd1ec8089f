"""Feature selectors for scikit-learn pipelines."""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, MetaEstimatorMixin, clone
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import check_is_fitted

from ._base import (
    BaseSparseBoost,
    FeatureSelectorMixin,
    TakesNanAndSparse,
    feature_bags_array,
    feature_costs_array,
)
from ._params import document
from ._routing import RoutesFitParams
from ._training import fits_apart
from ._validation import MAX_INTEGER_CLASSES, check_X, naming
from .estimators import SparseBoostClassifier, SparseBoostRegressor


def with_categorical(estimator, selector, columns=None):
    """``estimator`` told about the selector's columns it gets (``columns``,
    ascending; all by default): which are categorical, and its
    ``feature_costs`` and ``feature_bags`` as lists over them. The columns a
    selector passes on are an array without names, so costs or bags keyed
    by name are mapped through the selector's ``feature_names_in_`` here.
    An estimator that is no sparseboost booster gets categorical codes as
    numbers."""
    categorical = getattr(selector, "categorical_features_", np.zeros(0, dtype=int))
    if not hasattr(estimator, "categorical_features"):
        return estimator
    kept = np.arange(selector.n_features_in_) if columns is None else np.sort(columns)
    categorical = set(categorical.tolist())
    positions = [i for i, f in enumerate(kept) if f in categorical]
    estimator.set_params(categorical_features=[int(p) for p in positions] or None)
    for name, as_list in (
        ("feature_costs", feature_costs_array),
        ("feature_bags", feature_bags_array),
    ):
        given = getattr(estimator, name, None)
        if given is not None:
            values = as_list(given, selector)
            estimator.set_params(**{name: [values[f] for f in kept]})
    return estimator


def default_booster(y, **params):
    """``SparseBoostClassifier(**params)`` for class labels,
    ``SparseBoostRegressor(**params)`` otherwise. Labels are as scikit-learn's
    ``type_of_target`` says, except floats of more than
    ``MAX_INTEGER_CLASSES`` distinct integer values: a count held as floats
    (scikit-learn would call it hundreds of classes)."""
    with naming("y"):
        is_labels = type_of_target(y) in ("binary", "multiclass")
        values = np.asarray(y)
        # (y's own dtype: a pandas Float64 Series is objects to older numpy)
        dtype = getattr(y, "dtype", values.dtype)
        if is_labels and getattr(dtype, "kind", None) == "f":
            is_labels = np.unique(values).size <= MAX_INTEGER_CLASSES
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
class SparseBoostSelector(
    WrapsBooster, RoutesFitParams, MetaEstimatorMixin, FeatureSelectorMixin, BaseEstimator
):
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

    @fits_apart
    def fit(self, X, y, **fit_params):
        """Fit the booster on ``X``, ``y``; ``fit_params`` go to its ``fit``
        (under metadata routing, those it requests)."""
        if self.estimator is not None and not isinstance(self.estimator, BaseSparseBoost):
            raise TypeError(
                "estimator must be a SparseBoostRegressor or SparseBoostClassifier (or None), "
                f"got {self.estimator!r}"
            )
        fit_params = self._routed_fit_params(fit_params)
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
