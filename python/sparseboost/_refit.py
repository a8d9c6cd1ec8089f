"""What a selector that refits on its kept columns offers: the refitted
model's predictions from ``X`` with all columns, as scikit-learn's ``RFE``
does. The selector has ``support_`` and ``estimator_`` once fitted; a
``refit`` attribute set to False turns the predictions off."""

from __future__ import annotations

from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from ._validation import check_X


def _refit_estimator_has(method):
    """``method`` is offered when the selector refits and its estimator has it."""

    def check(self):
        if not getattr(self, "refit", True):
            return False
        if hasattr(self, "estimator_"):
            return hasattr(self.estimator_, method)
        return self.estimator is None or hasattr(self.estimator, method)

    return check


class RefitDelegates:
    """``predict``, ``predict_proba``, ``decision_function``, ``score`` and
    ``classes_`` of the refitted model, from the kept columns of ``X``."""

    def __sklearn_tags__(self):
        # A classifier's selector predicts as one (scikit-learn's RFE says
        # so too): is_classifier, stratified folds in a search. Without an
        # estimator the kind is known only from y, at fit.
        tags = super().__sklearn_tags__()
        if getattr(self, "estimator", None) is not None and getattr(self, "refit", True):
            inner = self.estimator.__sklearn_tags__()
            tags.estimator_type = inner.estimator_type
            tags.classifier_tags = inner.classifier_tags
            tags.regressor_tags = inner.regressor_tags
        return tags

    def _kept_columns(self, X):
        # The models were fitted on plain arrays (the selector keeps the
        # column names), so they get plain arrays whatever set_output says.
        check_is_fitted(self)
        return check_X(self, X, reset=False)[:, self.support_]

    @available_if(_refit_estimator_has("predict"))
    def predict(self, X):
        """The refitted model's prediction from the kept columns of ``X``."""
        kept = self._kept_columns(X)
        return self.estimator_.predict(kept)

    @available_if(_refit_estimator_has("predict_proba"))
    def predict_proba(self, X):
        """The refitted model's class probabilities from the kept columns."""
        kept = self._kept_columns(X)
        return self.estimator_.predict_proba(kept)

    @available_if(_refit_estimator_has("decision_function"))
    def decision_function(self, X):
        """The refitted model's raw score from the kept columns."""
        kept = self._kept_columns(X)
        return self.estimator_.decision_function(kept)

    @available_if(_refit_estimator_has("score"))
    def score(self, X, y, **score_params):
        """The refitted model's score on the kept columns of ``X``."""
        kept = self._kept_columns(X)
        return self.estimator_.score(kept, y, **score_params)

    @property
    def classes_(self):
        """The refitted classifier's classes."""
        check_is_fitted(self)
        return self.estimator_.classes_
