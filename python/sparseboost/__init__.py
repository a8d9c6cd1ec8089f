"""sparseboost: gradient boosted decision trees that select their own
features, with a Rust core and a scikit-learn API."""

from . import metrics
from ._core import __version__
from ._training import RoundReport
from .estimators import SparseBoostClassifier, SparseBoostRegressor
from .forest import SparseForestClassifier, SparseForestRegressor
from .linear_forward import LinearForwardSelector
from .multitask import MultiTaskSparseBoostClassifier, MultiTaskSparseBoostRegressor
from .persistence import load_model
from .ranker import SparseBoostRanker
from .selector_cv import SparseBoostSelectorCV
from .selectors import SparseBoostSelector
from .topk import TopKSelector
from .two_pass import TwoPassForwardSelector

__all__ = [
    "LinearForwardSelector",
    "MultiTaskSparseBoostClassifier",
    "MultiTaskSparseBoostRegressor",
    "RoundReport",
    "SparseBoostClassifier",
    "SparseBoostRanker",
    "SparseBoostRegressor",
    "SparseBoostSelector",
    "SparseBoostSelectorCV",
    "SparseForestClassifier",
    "SparseForestRegressor",
    "TopKSelector",
    "TwoPassForwardSelector",
    "__version__",
    "load_model",
    "metrics",
]
