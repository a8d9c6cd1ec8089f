"""Type stubs of the native module (built from src/python/ by maturin)."""

from typing import Any, Callable, TypedDict

import numpy as np
import numpy.typing as npt

__version__: str
MAX_RELEVANCE: float
MAX_ABS_TARGET: float

class BoosterParams(TypedDict, total=False):
    """The engine parameters of `fit`, `fit_multitask`, `Shard`,
    `fit_sharded` and `check_params` (each key optional; its default is
    `engine_defaults("booster")`'s). The estimators' parameters
    (`sparseboost._params`) give most keys; tests/test_parameters_declared.py
    checks that these keys are the engine's."""

    objective: str
    n_classes: int
    lambdarank_truncation_level: int
    n_estimators: int
    learning_rate: float
    max_leaves: int
    max_depth: int | None
    min_samples_leaf: int
    min_split_fraction: float
    min_child_weight: float
    l2_regularization: float
    min_gain: float
    max_bins: int
    subsample: float
    colsample_bytree: float | int
    feature_sampling: str
    reweight_rate: float
    n_threads: int
    seed: int
    bin_sample_rows: int
    penalty: str
    mu: float
    mu_relative: bool
    feature_costs: list[float] | None
    feature_bags: list[int] | None
    categorical_features: list[int] | None
    max_selected_features: int | None
    split_search: str
    gt_n_features: int
    gt_delta: float
    gt_max_rows: int | None
    early_stopping_rounds: int | None
    eval_metric: str | list[str] | None
    record_train_loss: bool

class ForestParams(TypedDict, total=False):
    """The engine parameters of `fit_forest` (each key optional; its
    default is `engine_defaults("forest")`'s)."""

    n_estimators: int
    max_features: float | int
    bootstrap: bool
    categorical_features: list[int] | None
    max_depth: int | None
    min_samples_leaf: int
    max_leaf_nodes: int | None
    max_bins: int
    feature_sampling: str
    reweight_rate: float
    seed: int
    n_threads: int

def engine_defaults(kind: str) -> dict[str, Any]:
    """Every key of the engine's parameter dict `kind` ("booster" or
    "forest") with its default value, as the estimators would pass it."""

class Model:
    """A fitted ensemble. Picklable."""

    def predict_raw(self, x: npt.NDArray[np.float64], n_threads: int) -> npt.NDArray[np.float64]:
        """Raw scores of a C-contiguous (n, d) float64 matrix; shape (n,)
        for one output, (n, K) for K."""
    def importances(self, kind: str) -> npt.NDArray[np.float64]:
        """Per-feature "gain" or "split" importance, shape (d,)."""
    def to_json(self) -> str: ...
    @staticmethod
    def from_json(text: str) -> Model: ...
    @property
    def n_features(self) -> int: ...
    @property
    def categorical_features(self) -> list[int]: ...
    @property
    def category_codes_needed(self) -> list[int]: ...
    @property
    def n_trees(self) -> int: ...
    @property
    def n_outputs(self) -> int: ...
    @property
    def objective(self) -> str: ...
    @property
    def base_score(self) -> list[float]: ...
    @property
    def train_loss(self) -> list[float]: ...
    @property
    def selected_features(self) -> list[int]: ...
    @property
    def feature_entry_tree(self) -> list[int]: ...
    @property
    def n_selected_after_tree(self) -> list[int]: ...
    @property
    def gt_n_subsets(self) -> int | None: ...
    @property
    def gt_cache_bytes(self) -> int | None: ...
    @property
    def feature_weights(self) -> list[float]: ...

# (round, train_loss, eval values per set and metric, n_features, elapsed,
# the round's split features, their gains) -> stop?
RoundCallback = Callable[
    [int, float, list[list[float]], int, float, npt.NDArray[np.uintp], npt.NDArray[np.float64]],
    bool,
]

EvalSet = tuple[
    npt.NDArray[np.float64],
    npt.NDArray[np.float64],
    npt.NDArray[np.float64] | None,
    npt.NDArray[np.uintp] | None,
    npt.NDArray[np.uintp] | None,
]
"""(X, y, sample_weight, query sizes, task codes) of an evaluation set."""

def fit(
    x: npt.NDArray[np.float64],
    y: npt.NDArray[np.float64],
    sample_weight: npt.NDArray[np.float64] | None,
    params: BoosterParams,
    group: npt.NDArray[np.uintp] | None = None,
    eval_sets: list[EvalSet] = ...,
    callback: RoundCallback | None = None,
) -> tuple[Model, dict[str, Any]]:
    """Fit a model; returns (model, history: metrics, values, best, rounds).
    Releases the GIL; `callback` runs on the calling thread after each round
    (truthy: stop); Ctrl-C raises KeyboardInterrupt."""

def eval_metric_names(params: BoosterParams) -> list[str]:
    """The metrics a fit with these parameters evaluates."""

class MultiTaskModel:
    """A fitted multitask ensemble: one Model per task plus Omega_G. Picklable."""

    @property
    def tasks(self) -> list[Model]:
        """The model of each task, in task order."""
    @property
    def n_tasks(self) -> int: ...
    @property
    def n_features(self) -> int: ...
    @property
    def selected_features(self) -> list[int]:
        """Omega_G: features used by any task, in the order they entered."""
    @property
    def task_selected_features(self) -> list[list[int]]:
        """Omega_t of each task, in entry order."""
    def to_json(self) -> str: ...
    @staticmethod
    def from_json(text: str) -> MultiTaskModel: ...

def fit_forest(
    x: npt.NDArray[np.float64],
    targets: npt.NDArray[np.float64],
    sample_weight: npt.NDArray[np.float64] | None,
    params: ForestParams,
) -> tuple[Model, npt.NDArray[np.float64]]:
    """Fit a random forest on (K, n) targets; returns (model, (n, K)
    out-of-bag means, NaN where no tree left a row out). Releases the GIL;
    Ctrl-C raises KeyboardInterrupt."""

def fit_multitask(
    x: npt.NDArray[np.float64],
    y: npt.NDArray[np.float64],
    task: npt.NDArray[np.int64],
    n_tasks: int,
    sample_weight: npt.NDArray[np.float64] | None,
    params: BoosterParams,
    mu_group: tuple[float, bool],
    mu_task: tuple[list[float], bool],
    task_feature_mask: npt.NDArray[np.bool_] | None,
    shared_rounds: int = 0,
    eval_sets: list[EvalSet] = ...,
    callback: RoundCallback | None = None,
) -> tuple[MultiTaskModel, dict[str, Any]]:
    """Fit one ensemble per task (task codes in 0..n_tasks-1); releases the GIL;
    Ctrl-C raises KeyboardInterrupt."""

def group_testing_candidates(
    x: npt.NDArray[np.float64],
    y: npt.NDArray[np.float64],
    gt_n_features: int,
    gt_delta: float,
    seed: int,
    min_samples_leaf: int = 20,
    exclude: list[int] = ...,
) -> tuple[list[int], int, int]:
    """GT-GBM candidate features at a squared-error root: (candidates, p, cache bytes)."""

def _panic_for_tests() -> None: ...

class TwoPassPath:
    """The current logistic models (one per fold) of a two-pass forward
    stepwise search over the columns of a Fortran-ordered float64 matrix."""

    def __init__(
        self,
        x: npt.NDArray[np.float64],
        y: npt.NDArray[np.float64],
        folds: list[tuple[npt.NDArray[np.uintp] | None, npt.NDArray[np.uintp] | None]],
        c: float,
        tol: float,
        max_iter: int,
    ) -> None: ...
    def evaluate(
        self, candidates: list[int], metric: str | None, precision: float, n_threads: int
    ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64] | None, list[bool], list[int]]:
        """Fit each candidate added to the current models: (coef of shape
        (candidates, folds, 2 + selected), scores (candidates, folds) of
        "auc" or "recall_at_precision" or None, converged, Newton steps)."""
    def accept(self, feature: int, n_threads: int) -> None: ...
    @property
    def selected(self) -> list[int]: ...
    @property
    def coef(self) -> npt.NDArray[np.float64]: ...

def logistic_fit(
    x: npt.NDArray[np.float64],
    y: npt.NDArray[np.float64],
    features: list[int],
    c: float,
    tol: float,
    max_iter: int,
) -> tuple[npt.NDArray[np.float64], int, bool]:
    """L2-penalised logistic regression of `features`: ([intercept, coef...],
    Newton steps, converged)."""

def recall_at_precision(
    y: npt.NDArray[np.float64], scores: npt.NDArray[np.float64], precision: float
) -> float: ...
def available_cores() -> int:
    """The cores this process may use (CPU affinity and cgroup quotas
    included): the default and the cap of `n_jobs`."""

def check_params(params: BoosterParams, n_features: int) -> None:
    """Check engine parameters (a dict as for `fit`) for a model of
    `n_features` features without fitting: raises as `fit` would."""

def check_multitask_params(
    params: BoosterParams,
    mu_group: tuple[float, bool],
    mu_task: tuple[list[float], bool],
    n_tasks: int,
    n_features: int,
    task_feature_mask: npt.NDArray[np.bool_] | None,
    shared_rounds: int = 0,
) -> None:
    """Check a multitask fit's parameters without fitting: raises as
    `fit_multitask` would."""

class Shard:
    """Some rows of a training set, binned and boosted on request (one per
    Dask worker). `x` is a matrix as `engine_matrix(X, "csc")` makes it."""

    def __init__(
        self,
        x: Any,
        y: npt.NDArray[np.float64],
        sample_weight: npt.NDArray[np.float64] | None,
        group: npt.NDArray[np.uintp] | None,
        params: BoosterParams,
        task: npt.NDArray[np.uint32] | None = None,
    ) -> None: ...
    def handle(self, request: bytes) -> bytes:
        """Run one encoded request; the encoded reply. Releases the GIL."""

def fit_sharded(
    params: BoosterParams,
    exchange: Callable[[list[bytes]], list[bytes]],
    n_shards: int,
    n_features: int,
    eval_sets: list[EvalSet] = ...,
    callback: RoundCallback | None = None,
    init_model: Model | None = None,
    multitask: tuple[
        int, tuple[float, bool], tuple[list[float], bool], npt.NDArray[np.bool_] | None, int
    ]
    | None = None,
    shard_rows: list[list[int]] | None = None,
) -> tuple[Model | MultiTaskModel, dict[str, Any], dict[str, Any]]:
    """Fit on `n_shards` shards reached through `exchange` (one request per
    shard out, one reply per shard back); `(model, history, traffic)`. With
    `multitask = (n_tasks, mu_group, mu_task, task_feature_mask,
    shared_rounds)` the shards hold their rows' tasks and the model is a
    `MultiTaskModel`. An error during boosting carries the model of the
    rounds completed as its `partial_model` attribute."""

def _work_for_tests(seconds: float) -> None:
    """Work for `seconds` ignoring the stop flag, then succeed (tests)."""
