"""Multitask boosting (SPEC section 4, the A-GBM paper's Algorithm 1).

T related tasks share one feature space. Every boosting round fits one tree
per task, in task order, on that task's rows; a split on a feature that no
task uses yet pays ``mu_group``, one on a feature this task does not use yet
pays ``mu_task``. So the tasks share features (a small task reuses what a
large one found) and can still pick their own. With ``shared_rounds`` the
first rounds grow one tree on all tasks' rows together (a start model that
every task's prediction includes), so that a small task also borrows the
*shapes* of the shared effects, not only their features.
"""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.base import ClassifierMixin, RegressorMixin
from sklearn.metrics import accuracy_score
from sklearn.utils.validation import check_is_fitted

from . import _core, _multitask_tuning, _params, _training, persistence
from ._base import BoosterCommon, check_fit_input, recorded_loss
from ._matrix import engine_matrix
from ._params import document
from ._validation import check_labels_sortable, check_X, engine_mu, naming, resolve_n_jobs
from .estimators import probabilities, r_squared

# The parameters of both multitask boosters (the table lists the same ones
# for each).
_PARAMETERS = _params.parameters_of("MultiTaskSparseBoostRegressor")


def _encode_tasks(task, n_rows):
    """Task labels (ints, strings or bools, one kind) -> (sorted unique
    labels, code in 0..T-1 of each row)."""
    with naming("task"):
        if task is None:
            raise ValueError("task must hold each row's task label, got None")
        task = np.asarray(task)
        if task.ndim != 1 or task.shape[0] != n_rows:
            raise ValueError(
                f"task must hold one label per row of X ({n_rows} rows), got shape {task.shape}"
            )
        if task.dtype.kind == "f" and not np.isfinite(task).all():
            raise ValueError("task labels must not be NaN or infinite")
        if task.dtype.kind not in "biuUf" and not (
            task.dtype == object
            and (
                all(isinstance(t, str) for t in task)
                or all(isinstance(t, numbers.Integral) for t in task)
            )
        ):
            raise ValueError(
                "task labels must be all integers or all strings (or bools), got "
                f"dtype {task.dtype}"
            )
        return check_labels_sortable(task, "task")


class BaseMultiTaskSparseBoost(BoosterCommon):
    """What the multitask regressor and classifier share. Subclasses define
    ``_objective``, ``_labels`` and ``_encode_target``."""

    def __init__(self, **params):
        # The table's parameters (the signature below lists them).
        for p in _PARAMETERS:
            setattr(self, p.name, params.pop(p.name, p.default))
        if params:
            hint = " (use mu_group and mu_task instead of mu)" if "mu" in params else ""
            raise TypeError(
                f"{type(self).__name__} got unexpected parameters {sorted(params)}{hint}"
            )

    # -- fitting -------------------------------------------------------

    def _engine_params(self, draw_seed: bool = True) -> dict:
        params = super()._engine_params(draw_seed)
        # The engine's mu is the single-task penalty: multitask boosting pays
        # mu_group and mu_task (passed beside this dict) and refuses a mu.
        params["mu"] = 0.0
        return params

    def _check_params(self) -> None:
        """Raise as ``fit`` would for a bad parameter, without fitting (for
        a loaded model; ``n_features_in_`` and ``tasks_`` must be set)."""
        _core.check_multitask_params(
            self._engine_params(draw_seed=False),
            self._mu("mu_group"),
            self._mu_task(self.mu_task_),
            len(self.tasks_),
            self.n_features_in_,
            self._mask(),
            self._shared_rounds(self.shared_rounds_),
        )
        _training.check_early_stopping(self)

    def _mu(self, name, value=None) -> tuple[float, bool]:
        """``(value, relative)`` of parameter ``name`` (or of ``value``, a
        value for it): a number, or the factor of ``"f*mu_max"``."""
        value = getattr(self, name) if value is None else value
        if isinstance(value, str):
            return float(engine_mu(value, name)[0]), True
        if not isinstance(value, numbers.Real) or isinstance(value, (bool, np.bool_)):
            raise TypeError(f"{name} must be a real number or 'f*mu_max', got {value!r}")
        return float(value), False

    def _mu_task(self, value) -> tuple[list, bool]:
        """``value`` (a ``mu_task``, not ``"auto"``) as the engine takes it:
        ``([mu], relative)`` for every task, or one value per task
        (``tasks_`` order; ``tasks_`` must be set), all numbers or all
        ``"f*mu_max"``."""
        if _multitask_tuning.is_auto(value):
            raise ValueError(
                "mu_task='auto' is resolved by fit's cross-validation; "
                "this needs a number, 'f*mu_max' or one per task"
            )
        if isinstance(value, str) or (
            isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))
        ):
            one, relative = self._mu("mu_task", value)
            return [one], relative
        if isinstance(value, (bytes, bool, np.bool_)) or np.ndim(value) != 1:
            raise TypeError(
                "mu_task must be a real number, 'f*mu_max', or a sequence of one per task, "
                f"got {value!r}"
            )
        values = list(value)
        relative = bool(values) and all(isinstance(v, str) for v in values)
        if relative:
            values = [engine_mu(v, "mu_task")[0] for v in values]
        elif not all(
            isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_)) for v in values
        ):
            raise TypeError(
                f"mu_task must hold real numbers, or 'f*mu_max' strings only, got {value!r}"
            )
        if len(values) != len(self.tasks_):
            raise ValueError(
                f"mu_task must hold one value per task ({len(self.tasks_)}, in the order of "
                f"tasks_ = {self.tasks_.tolist()}), got {len(values)}"
            )
        return [float(v) for v in values], relative

    def _shared_rounds(self, value=None) -> int:
        """``value`` (default: the parameter) as an int checked against
        ``n_estimators``; ``"auto"`` is resolved by fit, not here."""
        value = self.shared_rounds if value is None else value
        if _multitask_tuning.is_auto(value):
            raise ValueError(
                "shared_rounds='auto' is resolved by fit's cross-validation; this needs an int >= 0"
            )
        if not isinstance(value, numbers.Integral) or isinstance(value, (bool, np.bool_)):
            raise TypeError(f"shared_rounds must be an int >= 0, got {value!r}")
        if value < 0:
            raise ValueError(f"shared_rounds must be an int >= 0, got {value!r}")
        n = self.n_estimators
        if isinstance(n, numbers.Integral) and not isinstance(n, (bool, np.bool_)) and value > n:
            raise ValueError(f"shared_rounds must be <= n_estimators = {n}, got {value}")
        if value > np.iinfo(np.int64).max:
            raise ValueError(f"shared_rounds must be <= n_estimators, got {value}")
        return int(value)

    def _mask(self):
        """``task_feature_mask`` as a C-contiguous bool array (n_tasks, d)."""
        if self.task_feature_mask is None:
            return None
        with naming("task_feature_mask"):
            mask = np.asarray(self.task_feature_mask)
        shape = (len(self.tasks_), self.n_features_in_)
        if mask.shape != shape:
            raise ValueError(
                f"task_feature_mask must have shape (n_tasks, n_features) = {shape} "
                f"(rows in the order of tasks_ = {self.tasks_.tolist()}), got {mask.shape}"
            )
        if mask.dtype != bool:
            raise ValueError(f"task_feature_mask must hold booleans, got dtype {mask.dtype}")
        return np.ascontiguousarray(mask)

    def _training_targets(self, y, task, n_rows):
        """``tasks_`` from the training rows' ``task`` labels (every task
        needs 2 rows), and ``y`` as the engine's targets with each row's
        task code."""
        self.tasks_, codes = _encode_tasks(task, n_rows)
        counts = np.bincount(codes, minlength=len(self.tasks_))
        if np.any(counts < 2):
            labels = self.tasks_.tolist()
            few = {labels[t]: int(counts[t]) for t in np.flatnonzero(counts < 2)}
            raise ValueError(f"every task needs at least 2 rows; rows per task: {few}")
        return np.ascontiguousarray(self._encode_target(y, codes), dtype=np.float64), codes

    def _check_training_part(self, y, codes, sample_weight) -> None:
        """After early stopping's hold-out: every task still has 2 rows, a
        positive weight and (a classifier) both classes to train on."""
        held = (
            f"once validation_fraction={self.validation_fraction!r} is held out for early stopping"
        )
        codes = codes.astype(np.int64)  # (uintp: numpy < 2's bincount refuses it)
        counts = np.bincount(codes, minlength=len(self.tasks_))
        for t, label in enumerate(self.tasks_.tolist()):
            rows = codes == t
            if counts[t] < 2 or (self._labels and np.unique(y[rows]).size < 2):
                what = f"{counts[t]} row(s)" if counts[t] < 2 else "one class"
                raise ValueError(
                    f"task {label!r} has {what} to train on {held}; pass an eval_set (with "
                    "task labels) or change validation_fraction"
                )
        try:
            self._check_task_weights(codes, sample_weight)
        except ValueError as e:
            raise ValueError(f"{e} {held}") from None

    def _check_task_weights(self, codes, sample_weight) -> None:
        """Every task needs a positive weight: name the first that lacks it."""
        if sample_weight is None:
            return
        weight = np.bincount(codes, weights=sample_weight, minlength=len(self.tasks_))
        if np.any(weight <= 0):
            label = self.tasks_.tolist()[int(np.flatnonzero(weight <= 0)[0])]
            raise ValueError(f"sample_weight of task {label!r} sums to zero")

    def _fit(self, X, y, task, sample_weight, eval_set=None, eval_sample_weight=None):
        _training.check_early_stopping(self)
        tuned = any(_multitask_tuning.is_auto(v) for v in (self.shared_rounds, self.mu_task))
        if not _multitask_tuning.is_auto(self.shared_rounds):
            self._shared_rounds()  # a bad value fails before any work
        X, y, sample_weight = check_fit_input(self, X, y, sample_weight, labels=self._labels)
        y, codes = self._training_targets(y, task, X.shape[0])
        self._check_task_weights(codes, sample_weight)
        params = self._engine_params()
        if tuned:
            self.shared_rounds_, self.mu_task_, self.tuning_results_ = _multitask_tuning.choose(
                self, X, y, codes, sample_weight, params["seed"]
            )
        else:
            self.shared_rounds_, self.mu_task_, self.tuning_results_ = (
                self.shared_rounds,
                self.mu_task,
                None,
            )
        shared_rounds = self._shared_rounds(self.shared_rounds_)
        mu_task = self._mu_task(self.mu_task_)
        evals = _training.eval_sets(
            self,
            eval_set,
            eval_sample_weight,
            None,
            self._encode_eval_target,
            task=lambda t, n: np.ascontiguousarray(self._task_codes(t, n), dtype=np.uintp),
        )
        if not evals and self.early_stopping_rounds is not None:
            # Stratified by task (and class), so that every task is scored.
            (X, y, sample_weight, _, codes), evals = _training.hold_out(
                self, params["seed"], X, y, sample_weight, task=codes
            )
            self._check_training_part(y, codes, sample_weight)
        names = [f"validation_{s}" for s in range(len(evals))]
        metrics = _core.eval_metric_names(params)
        _training.warn_if_auc_undefined(evals, names, metrics)
        callback = _training.round_callback(self, names, metrics)
        self._model, history = _core.fit_multitask(
            engine_matrix(X, "csc"),
            y,
            codes.astype(np.int64),
            len(self.tasks_),
            sample_weight,
            params,
            self._mu("mu_group"),
            mu_task,
            self._mask(),
            shared_rounds,
            eval_sets=evals,
            callback=callback,
        )
        _training.set_history(self, history, names)
        self.mu_max_ = history["mu_max"]
        _training.warn_if_nothing_paid(
            self,
            f"mu_group={self.mu_group!r} plus mu_task={self.mu_task_!r}",
            constant=_training.constant_within(y, codes, sample_weight),
        )
        return self

    def _searched(self):
        # Every task's model records the one search its shared fit ran.
        return self._model.tasks[0]

    def _task_codes(self, task, n_rows):
        """Each row's task index in ``tasks_``; a single label means every row."""
        if np.ndim(task) == 0 and task is not None:
            task = np.full(n_rows, task, dtype=np.asarray(task).dtype)
        labels, inverse = _encode_tasks(task, n_rows)
        index = {label: t for t, label in enumerate(self.tasks_.tolist())}
        unknown = [label for label in labels.tolist() if label not in index]
        if unknown:
            raise ValueError(
                f"unknown task label(s) {unknown}; the model was fitted on tasks "
                f"{self.tasks_.tolist()}"
            )
        codes = [index[label] for label in labels.tolist()]
        return np.asarray(codes, dtype=np.intp)[inverse]

    def _raw_predict(self, X, task) -> np.ndarray:
        check_is_fitted(self)
        X = check_X(self, X, reset=False)
        codes = self._task_codes(task, X.shape[0])
        out = np.empty(X.shape[0])
        models = self._model.tasks
        n_threads = resolve_n_jobs(self.n_jobs)
        for t in np.unique(codes):
            rows = codes == t
            out[rows] = models[t].predict_raw(engine_matrix(X[rows], "csr"), n_threads)
        return out

    # -- fitted attributes ---------------------------------------------

    @property
    def task_selected_features_(self) -> dict:
        """Ω_t of every task: ``{task label: feature indices in entry order}``."""
        check_is_fitted(self)
        return {
            label: np.asarray(features, dtype=np.intp)
            for label, features in zip(self.tasks_.tolist(), self._model.task_selected_features)
        }

    @property
    def n_trees_(self) -> np.ndarray:
        """Trees fitted for each task, in ``tasks_`` order."""
        check_is_fitted(self)
        return np.asarray([m.n_trees for m in self._model.tasks], dtype=np.intp)

    @property
    def train_loss_(self) -> dict:
        """Per task label, the mean training loss after each of the task's trees
        (``{label: array}``); only with ``record_train_loss=True`` (or
        ``verbose`` > 0)."""
        check_is_fitted(self)
        return {
            label: recorded_loss(m, self._records_loss())
            for label, m in zip(self.tasks_.tolist(), self._model.tasks)
        }

    def get_feature_importance(self, kind="gain", normalize=False, task=None) -> np.ndarray:
        """Per-feature importance, ``kind="gain"`` (total split gain) or
        ``"split"`` (number of splits), of one task's trees (``task``: a
        label of ``tasks_``) or of all tasks' trees (``task=None``); shape
        ``(n_features_in_,)``."""
        check_is_fitted(self)
        index = None if task is None else int(self._task_codes(task, 1)[0])
        return self._importances(kind, normalize, index)

    @property
    def task_feature_importances_(self) -> np.ndarray:
        """Each task's normalised gain importances, shape
        ``(n_tasks, n_features_in_)``, rows in ``tasks_`` order."""
        check_is_fitted(self)
        return np.vstack(
            [self._model.importances("gain", True, t) for t in range(len(self.tasks_))]
        )


# (The regressor's and the classifier's parameters are the same.)
BaseMultiTaskSparseBoost.__init__.__signature__ = _params.signature_of(
    "MultiTaskSparseBoostRegressor"
)

# The docstrings' end; ``document`` puts the Parameters section before it.
_DOC_END = """
    Attributes
    ----------
    tasks_ : ndarray
        The task labels, sorted; task-indexed outputs follow this order.
    n_features_in_, feature_names_in_ : as in scikit-learn.
    selected_features_ : ndarray of int
        Omega_G, the features used by any task, in the order they entered.
    task_selected_features_ : dict
        ``{task label: Omega_t}``, each in the order its features entered.
    feature_importances_ : ndarray of shape ``(n_features_in_,)``
        Normalised total gain over all tasks.
    task_feature_importances_ : ndarray of shape ``(n_tasks, n_features_in_)``
        Normalised total gain of each task's trees.
    n_trees_ : ndarray of shape (n_tasks,)
        Trees in each task's model, the shared start's included (a task
        whose tree cannot split gets none that round; the fit stops when a
        round grows no tree).
    train_loss_ : dict
        ``{task label: mean training loss after each of its trees}``; with
        ``record_train_loss=True`` (or ``verbose`` > 0) only.
    mu_max_ : float or None
        The smallest ``mu_group + mu_task`` at which the first round admits
        no feature (None without a penalty, and with group testing when
        neither is given as ``"f*mu_max"``: it is measured by scanning
        every feature at the root); ``"f*mu_max"`` values of ``mu_group``
        and ``mu_task`` are multiples of it.
    shared_rounds_, mu_task_ : int; float, str or list
        The values the fit used: the parameters, or what cross-validation
        chose for an ``"auto"`` one (``mu_task_`` then one value per task).
    tuning_results_ : dict or None
        With an ``"auto"`` parameter, the search: ``"shared_rounds"`` and
        ``"mu_task"`` (the candidates) and ``"loss"``, an array of shape
        ``(n_shared_rounds, n_mu_task, n_tasks)`` of each task's mean
        cross-validated loss per row (squared error, or log-loss); else
        None. Pickle keeps it; a model file (``save_model``) keeps only
        ``shared_rounds_`` and ``mu_task_``, so it is None after
        ``load_model``.

    Notes
    -----
    The parameters are those of :class:`SparseBoostRegressor` (same meaning
    and defaults) except ``mu``, ``feature_costs``, ``feature_bags`` and
    ``max_selected_features``, plus ``mu_group``, ``mu_task``,
    ``task_feature_mask`` and ``shared_rounds``. With ``penalty="agbm"``
    ``mu_group`` and ``mu_task`` are relative to the tree's root loss scale
    and ``mu_group + mu_task < 1``; with ``"gbfs"`` they are in gain units.
    ``n_estimators`` counts rounds: each round fits one tree per task.

    Rows of every task are binned together. Every per-task round fits the
    tasks in ``tasks_`` order, so a task sees the features the tasks before
    it selected in that round. With a single task the model is exactly the
    single-task booster's with ``mu = mu_group + mu_task``.
"""


@document  # the Parameters section: sparseboost._params
class MultiTaskSparseBoostRegressor(RegressorMixin, BaseMultiTaskSparseBoost):
    __doc__ = (
        """Multitask gradient boosting for regression (squared error) with
    shared and task-specific feature selection (SPEC section 4).

    ``fit(X, y, task)`` takes each row's task label (any sortable values);
    ``predict(X, task)`` predicts every row with its task's trees. The
    estimator is also a selector of Omega_G (``transform``, ``get_support``).
"""
        + _DOC_END
    )

    _objective = "squared_error"
    _labels = False

    def _encode_target(self, y, codes):
        return y

    def fit(self, X, y, task, sample_weight=None, *, eval_set=None, eval_sample_weight=None):
        """Fit on ``X`` (n_samples, n_features; NaN allowed), ``y``
        (n_samples,) and each row's ``task`` label (n_samples,);
        ``eval_set`` is a list of ``(X, y, task)`` scored after every round
        (early stopping watches the tasks' metrics averaged by their rows)."""
        return self._fit(X, y, task, sample_weight, eval_set, eval_sample_weight)

    def predict(self, X, task):
        """Predicted values, shape (n_samples,); ``task``: each row's label
        (or one label for all rows)."""
        return self._raw_predict(X, task)

    def score(self, X, y, task, sample_weight=None):
        """R² of ``predict(X, task)`` over all rows (at least 2)."""
        predicted = self.predict(X, task)
        y, sample_weight = self._score_target(predicted, y, sample_weight)
        return r_squared(y, predicted, sample_weight)


@document  # the Parameters section: sparseboost._params
class MultiTaskSparseBoostClassifier(ClassifierMixin, BaseMultiTaskSparseBoost):
    __doc__ = (
        """Multitask gradient boosting for binary classification (log-loss
    per task) with shared and task-specific feature selection (SPEC
    section 4). The two classes are shared by all tasks and every task must
    have samples of both; ``classes_[1]`` is the positive class.
"""
        + _DOC_END
    )

    _objective = "binary_logloss"
    _labels = True

    def _encode_target(self, y, codes):
        self.classes_, encoded = check_labels_sortable(y, "y")
        if len(self.classes_) != 2:
            raise ValueError(
                "MultiTaskSparseBoostClassifier is binary: y must hold exactly 2 classes, "
                f"got {len(self.classes_)}"
            )
        for t, label in enumerate(self.tasks_.tolist()):
            present = np.unique(encoded[codes == t])
            if len(present) < 2:
                raise ValueError(
                    f"y holds a single class ({self.classes_.tolist()[present[0]]!r}) in the "
                    f"rows of task {label!r}; every task needs samples of both classes"
                )
        return encoded.astype(np.float64)

    def fit(self, X, y, task, sample_weight=None, *, eval_set=None, eval_sample_weight=None):
        """Fit on ``X`` (n_samples, n_features; NaN allowed), binary labels
        ``y`` and each row's ``task`` label (n_samples,); ``eval_set`` is a
        list of ``(X, y, task)`` scored after every round."""
        return self._fit(X, y, task, sample_weight, eval_set, eval_sample_weight)

    def decision_function(self, X, task):
        """Logit of the positive class, shape (n_samples,)."""
        return self._raw_predict(X, task)

    def predict_proba(self, X, task):
        """Class probabilities, shape (n_samples, 2), columns in ``classes_`` order."""
        return probabilities(self.decision_function(X, task))

    def predict(self, X, task):
        """Most probable class label, shape (n_samples,)."""
        positive = self.decision_function(X, task) > 0
        return self.classes_[positive.astype(int)]

    def score(self, X, y, task, sample_weight=None):
        """Accuracy of ``predict(X, task)`` over all rows."""
        predicted = self.predict(X, task)
        y, sample_weight = self._score_target(predicted, y, sample_weight)
        return float(accuracy_score(y, predicted, sample_weight=sample_weight))


persistence.register(MultiTaskSparseBoostRegressor, {"squared_error"}, multitask=True)
persistence.register(MultiTaskSparseBoostClassifier, {"binary_logloss"}, multitask=True)
