"""What the parameter table is made of: the estimator families (by class
name) and the record of one parameter. The table itself is in
``_params`` (the boosters) and ``_params_selectors`` (the forests and the
selectors)."""

from __future__ import annotations

from dataclasses import dataclass

# -- which estimators ----------------------------------------------------

REGRESSOR_CLASSIFIER = ("SparseBoostRegressor", "SparseBoostClassifier")
RANKER = ("SparseBoostRanker",)
DASK_REGRESSOR_CLASSIFIER = ("DaskSparseBoostRegressor", "DaskSparseBoostClassifier")
DASK_RANKER = ("DaskSparseBoostRanker",)
DASK_MULTITASK = ("DaskMultiTaskSparseBoostRegressor", "DaskMultiTaskSparseBoostClassifier")
DASK = DASK_REGRESSOR_CLASSIFIER + DASK_RANKER + DASK_MULTITASK
SINGLE_TASK = REGRESSOR_CLASSIFIER + RANKER + DASK_REGRESSOR_CLASSIFIER + DASK_RANKER
MULTITASK = ("MultiTaskSparseBoostRegressor", "MultiTaskSparseBoostClassifier") + DASK_MULTITASK
BOOSTERS = REGRESSOR_CLASSIFIER + RANKER + MULTITASK + DASK_REGRESSOR_CLASSIFIER + DASK_RANKER
FORESTS = ("SparseForestRegressor", "SparseForestClassifier")
SELECTOR_CV = ("SparseBoostSelectorCV",)
SELECTOR = ("SparseBoostSelector",)
TOP_K = ("TopKSelector",)
TWO_PASS = ("TwoPassForwardSelector",)
LINEAR_FORWARD = ("LinearForwardSelector",)

# The engine's parameter dicts and the estimators that fill them: a key of
# one of these dicts is a parameter's ``engine`` name, or one of the keys
# below.
ENGINES = {"booster": BOOSTERS, "forest": FORESTS}

# Keys of the engine's dicts that no parameter spells: the estimators
# derive them, or leave them at the engine's default.
ENGINE_ONLY_KEYS = {
    "booster": {
        "objective": "the estimator's loss",
        "n_classes": "the number of classes (multiclass classifiers)",
        "mu_relative": 'whether mu was given as "f*mu_max"',
        "bin_sample_rows": "rows sampled for the bin thresholds, left at the engine's 200,000",
        "categorical_features": "the indices of the categorical columns fit found",
    },
    "forest": {
        "categorical_features": "the indices of the categorical columns fit found",
    },
}


@dataclass(frozen=True)
class Param:
    """One parameter of some estimators."""

    name: str
    # As numpydoc writes it: "int", "float or str", '{"a", "b"}'.
    type: str
    default: object
    # The numbers allowed, as an interval "[1, inf)" (the tests probe the
    # engine at its ends), or a sentence; "" when the type says it all.
    range: str
    doc: str
    estimators: tuple
    # The key of the engine's parameter dict that carries it; None for a
    # parameter the Python layer handles.
    engine: str | None = None
    # A deprecated spelling: the parameter that replaced it.
    renamed_to: str | None = None
