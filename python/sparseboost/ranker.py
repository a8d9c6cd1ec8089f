"""The learning-to-rank estimator: LambdaRank for NDCG, with the feature
selection of every sparseboost booster."""

from __future__ import annotations

import numpy as np

from . import persistence
from ._base import BaseSparseBoost
from ._params import default_of, document, signature_of

_TRUNCATION_DEFAULT = default_of("SparseBoostRanker", "lambdarank_truncation_level")


@document  # the Parameters section: sparseboost._params
class SparseBoostRanker(BaseSparseBoost):
    """Gradient boosting for ranking (LambdaRank, LightGBM's defaults) that
    selects its own features.

    Rows come in query groups: ``fit(X, y, group=sizes)`` takes the sizes
    of consecutive groups (LightGBM's convention), ``y`` graded relevance
    labels (integers 0..30, gain ``2^y - 1``). The gradients are
    LambdaRank's for NDCG@``lambdarank_truncation_level`` (σ = 1, pairs
    whose better-ranked row is within the truncation level, normalised
    lambdas). ``subsample`` draws whole queries.

    The default ``eval_metric`` is ``ndcg@lambdarank_truncation_level``;
    "ndcg@k", "map@k" and "mrr" are available.

    Attributes
    ----------
    As :class:`SparseBoostRegressor`.
    """

    _objective = "lambdarank"
    _ranking = True

    def __init__(self, **params):
        truncation = params.pop("lambdarank_truncation_level", _TRUNCATION_DEFAULT)
        super().__init__(**params)
        self.lambdarank_truncation_level = truncation

    def _encode_target(self, y):
        return y

    def fit(
        self,
        X,
        y,
        group=None,
        sample_weight=None,
        *,
        eval_set=None,
        eval_group=None,
        eval_sample_weight=None,
    ):
        """Fit on ``X`` (n_samples, n_features; NaN allowed), relevance
        labels ``y`` and ``group``, the sizes of the consecutive query
        groups (summing to n_samples). ``eval_set`` is a list of ``(X, y)``
        scored after every round, with ``eval_group`` their query sizes."""
        return self._fit(
            X,
            y,
            sample_weight,
            group=group,
            eval_set=eval_set,
            eval_sample_weight=eval_sample_weight,
            eval_group=eval_group,
        )

    def predict(self, X) -> np.ndarray:
        """Ranking scores, shape (n_samples,): within a query, higher ranks
        first."""
        return self._raw_predict(X)


SparseBoostRanker.__init__.__signature__ = signature_of("SparseBoostRanker")

persistence.register(SparseBoostRanker, {"lambdarank"})
