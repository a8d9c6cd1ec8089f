"""sparseboost: gradient boosted decision trees that select their own
features, with a Rust core and a scikit-learn API."""

from ._core import __version__
from .estimators import SparseBoostClassifier, SparseBoostRegressor
from .persistence import load_model

__all__ = ["SparseBoostClassifier", "SparseBoostRegressor", "load_model", "__version__"]
