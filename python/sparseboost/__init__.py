"""sparseboost: gradient boosted decision trees that select their own
features, with a Rust core and a scikit-learn API."""

from . import metrics
from ._core import __version__
from ._training import RoundReport
from .estimators import SparseBoostClassifier, SparseBoostRegressor
from .multitask import MultiTaskSparseBoostClassifier, MultiTaskSparseBoostRegressor
from .persistence import load_model
from .ranker import SparseBoostRanker
from .selectors import SparseBoostSelector
from .two_pass import TwoPassForwardSelector

__all__ = [
    "MultiTaskSparseBoostClassifier",
    "MultiTaskSparseBoostRegressor",
    "RoundReport",
    "SparseBoostClassifier",
    "SparseBoostRanker",
    "SparseBoostRegressor",
    "SparseBoostSelector",
    "TwoPassForwardSelector",
    "__version__",
    "load_model",
    "metrics",
]
