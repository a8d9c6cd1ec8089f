"""What the boosters share: ``BoosterCommon`` (single-task and multitask:
tags, the engine's parameter dict, the selected features, importances,
saving) and ``BaseSparseBoost`` (the single-task regressor, classifier and
ranker: parameters, the call into the Rust engine, fitted attributes)."""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.utils._set_output import _get_output_config
from sklearn.utils.validation import check_array, check_is_fitted

from . import _core, _params, _training
from ._matrix import engine_matrix
from ._validation import (
    check_sample_weight,
    check_target,
    check_X,
    engine_mu,
    naming,
    resolve_n_jobs,
    resolve_seed,
)


def categorical_indices(estimator) -> list:
    """The indices of the categorical columns the fit found (none before)."""
    encoding = getattr(estimator, "_categorical", None)
    return [] if encoding is None else list(encoding.features)


def check_fit_input(estimator, X, y, sample_weight, *, labels: bool):
    """``X`` as C-ordered float64 (NaN allowed; sets ``n_features_in_``),
    ``y`` checked against it (finite numbers, or class labels), and
    ``sample_weight`` (if any) as a contiguous non-negative float64 array.
    A previous fit's model is dropped first, so that a failed refit leaves
    an unfitted estimator, not one whose model disagrees with its
    ``n_features_in_``."""
    estimator.__dict__.pop("_model", None)
    X = check_X(estimator, X, reset=True)
    y = check_target(estimator, y, X.shape[0], labels=labels)
    return X, y, check_sample_weight(sample_weight, X)


def feature_costs_array(costs, estimator):
    """Costs as a list of d floats: from an array of d numbers, or from a
    dict or pandas Series ``{feature name or index: cost}`` (unlisted
    features cost 0; a Series is read by its index, as a dict)."""
    d = estimator.n_features_in_
    if costs is None:
        return None
    if _is_series(costs):
        costs = costs.to_dict()
    with naming("feature_costs"):
        if isinstance(costs, dict):
            names = list(getattr(estimator, "feature_names_in_", []))
            out = np.zeros(d)
            for key, cost in costs.items():
                index = _feature_index(key, names, d)
                if index is None:
                    raise ValueError(f"feature_costs names an unknown feature: {key!r}")
                out[index] = _real(cost)
        else:
            given = np.asarray(costs)
            # As a dict's values: bools and strings are not costs (numpy
            # would turn True into 1.0 and "1" into 1.0).
            if given.dtype.kind in "bSUO" and not all(
                isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_))
                for v in given.ravel().tolist()
            ):
                raise TypeError(f"feature_costs must hold real numbers, got dtype {given.dtype}")
            out = given.astype(np.float64)
            if out.shape != (d,):
                raise ValueError(
                    f"feature_costs must have {d} entries (one per feature), got shape {out.shape}"
                )
        if not np.all(np.isfinite(out)) or np.any(out < 0):
            raise ValueError("feature_costs must be finite numbers >= 0")
    return out.tolist()


def _feature_index(key, names, d):
    """The column of a feature named ``key`` (a name of ``feature_names_in_``
    or an index in [0, d)), else None."""
    if isinstance(key, str):
        return names.index(key) if key in names else None
    if isinstance(key, numbers.Integral) and not isinstance(key, (bool, np.bool_)) and 0 <= key < d:
        return int(key)
    return None


def _real(value) -> float:
    if isinstance(value, (bool, np.bool_, str)) or not isinstance(value, numbers.Real):
        raise TypeError(f"costs must be real numbers, got {value!r}")
    return float(value)


def _is_series(value) -> bool:
    """A pandas Series (read by its index, not by position)."""
    return hasattr(value, "index") and hasattr(value, "to_dict") and getattr(value, "ndim", 0) == 1


def feature_bags_array(bags, estimator):
    """Bag labels (numbers or strings, one per feature) as integers; a
    pandas Series is read by its index (feature names or indices), which
    must name every feature once."""
    d = estimator.n_features_in_
    if bags is None:
        return None
    with naming("feature_bags"):
        if _is_series(bags):
            names = list(getattr(estimator, "feature_names_in_", []))
            index = [_feature_index(key, names, d) for key in bags.index]
            if sorted(i for i in index if i is not None) != list(range(d)):
                raise ValueError(
                    f"feature_bags as a Series must be indexed by the {d} features (their "
                    f"names or indices), each once; got index {list(bags.index)!r}"
                )
            bags = np.asarray(bags)[np.argsort(index)]
        labels = np.asarray(bags)
        if labels.shape != (d,):
            raise ValueError(
                f"feature_bags must have {d} entries (one per feature), got shape {labels.shape}"
            )
        if labels.dtype.kind not in "biuU" and not (
            labels.dtype == object and all(isinstance(v, (str, numbers.Integral)) for v in labels)
        ):
            raise ValueError(
                f"feature_bags must hold ints or strings (bag labels), got dtype {labels.dtype}"
            )
        from ._validation import check_labels_sortable

        return check_labels_sortable(labels, "feature_bags")[1].tolist()


def recorded_loss(model, asked: bool) -> np.ndarray:
    """The engine model's training loss after each tree; an AttributeError
    (so that ``hasattr`` says no) when its fit did not record it. A model
    of no tree has no loss either way: it was recorded when the
    estimator's parameters (``asked``) say so."""
    loss = model.train_loss
    if not loss and (model.n_trees or not asked):
        raise AttributeError(
            "train_loss_ is recorded only by a fit with record_train_loss=True (or verbose > 0)"
        )
    return np.asarray(loss, dtype=float)


class FeatureSelectorMixin(SelectorMixin):
    """What every sparseboost booster has as a feature selector: the
    features its trees use (``selected_features_``) are the support, and
    ``transform`` checks ``X`` as ``predict`` does."""

    def __sklearn_is_fitted__(self):
        return hasattr(self, "_model")

    def _get_support_mask(self):
        check_is_fitted(self)
        mask = np.zeros(self.n_features_in_, dtype=bool)
        mask[self.selected_features_] = True
        return mask

    def transform(self, X):
        """The columns of ``X`` that the model selected
        (``selected_features_``, in column order), shape (n_samples,
        n_selected). ``X`` is checked as ``predict`` checks it. A categorical
        column comes out as the numeric codes the model reads (its values
        with ``set_output(transform="pandas")``)."""
        check_is_fitted(self)
        checked = check_X(self, X, reset=False)
        output = _get_output_config("transform", estimator=self)["dense"]
        keep_frame = output != "default" and hasattr(X, "iloc")
        return self._transform(X if keep_frame else checked)

    def inverse_transform(self, X):
        """``X`` of the selected columns back to all ``n_features_in_``
        columns (zeros where a feature was not selected; NaN stays NaN).
        A categorical column comes back as its codes: from codes in an
        array, from the values in a DataFrame (as ``transform`` gives them
        with ``set_output(transform="pandas")``)."""
        support = self.get_support()
        if hasattr(X, "iloc") and X.shape[1] == support.sum():
            X = self._selected_codes(X, np.flatnonzero(support))
        with naming("X"):
            X = check_array(X, dtype=np.float64, ensure_all_finite="allow-nan")
        if X.shape[1] != support.sum():
            raise ValueError(
                f"X has {X.shape[1]} columns, but the model selected {support.sum()} features"
            )
        full = np.zeros((X.shape[0], support.size))
        full[:, support] = X
        return full

    def _selected_codes(self, frame, kept):
        """``frame`` (the ``kept`` columns) with its categorical columns'
        values as their codes."""
        from ._categorical import Encoding

        encoding = getattr(self, "_categorical", None)
        if encoding is None:
            return frame
        at = {f: k for k, f in enumerate(kept)}
        pairs = [(at[f], c) for f, c in zip(encoding.features, encoding.categories) if f in at]
        if not pairs:
            return frame
        return Encoding([k for k, _ in pairs], [c for _, c in pairs]).encode(frame)


class TakesNanAndSparse:
    """The tags of an estimator whose engine reads NaN, and CSR/CSC input
    without a dense copy."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.sparse = True
        return tags


class BoosterCommon(TakesNanAndSparse, FeatureSelectorMixin, BaseEstimator):
    """What every booster shares, single-task or multitask: the engine's
    parameter dict, the checks of evaluation and scoring targets, the
    selected features, importances and saving.

    Subclasses define ``_objective`` (the engine's loss name) and
    ``_labels`` (whether ``y`` holds class labels, then in ``classes_``).
    """

    _objective: str
    _labels = False

    def _engine_objective(self) -> dict:
        """The engine's objective and its configuration."""
        return {"objective": self._objective}

    def _searched(self):
        """The engine model that records the fit's split search (a
        multitask fit's tasks share one)."""
        return self._model

    @property
    def split_search_(self) -> str:
        """The search the fit ran, "exhaustive" or "group_testing" (with
        ``split_search="auto"``: the one the cost rule chose)."""
        check_is_fitted(self)
        return "exhaustive" if self._searched().gt_n_subsets is None else "group_testing"

    @property
    def gt_n_subsets_(self) -> int | None:
        """With group testing: the number of random feature subsets,
        p = ceil(e * s * ln(s / delta)), or ceil(4 * d' / L) for subsets
        shortened to L = max(16, n_rows / 10) features; None otherwise."""
        check_is_fitted(self)
        return self._searched().gt_n_subsets

    @property
    def gt_cache_bytes_(self) -> int | None:
        """With ``split_search="group_testing"``: the bytes held by the
        prefix-sum cache during the fit; None otherwise."""
        check_is_fitted(self)
        return self._searched().gt_cache_bytes

    def _verbose(self) -> bool:
        """Whether ``verbose`` prints (and so records) the training loss."""
        return isinstance(self.verbose, numbers.Integral) and self.verbose > 0

    def _records_loss(self) -> bool:
        """Whether a fit with these parameters records the training loss."""
        return self.record_train_loss is True or self._verbose()

    def _engine_params(self, draw_seed: bool = True) -> dict:
        """The engine's parameter dict: every parameter the engine reads,
        under its engine key (``_params``), and the objective. A deprecated
        spelling's value (with a FutureWarning) counts as its new name's."""
        table = _params.table_name(type(self))
        keys = _params.engine_names(table)
        params = {key: getattr(self, name) for name, key in keys.items()}
        for new, (old, value) in _params.renamed_values(self, table).items():
            with naming(old):  # a bad value's error names the spelling given
                _core.check_params({keys[new]: value}, 1)
            params[keys[new]] = value
        params.update(self._engine_objective())
        # verbose prints the loss, so it is computed for it (a bad verbose,
        # or a record_train_loss that is not a bool, is left to the checks).
        if self._verbose() and params["record_train_loss"] is False:
            params["record_train_loss"] = True
        params["categorical_features"] = categorical_indices(self)
        params["n_threads"] = resolve_n_jobs(self.n_jobs)
        params["seed"] = resolve_seed(self.random_state, draw_seed)
        return params

    def _known_classes(self, y) -> np.ndarray:
        """Labels of ``classes_`` as their indices (float64); any other
        label is an error."""
        known = np.isin(y, self.classes_)
        if not known.all():
            raise ValueError(
                f"y holds labels not seen in fit: {np.unique(y[~known])[:5]!r} "
                f"(classes_ are {self.classes_!r})"
            )
        return np.searchsorted(self.classes_, y).astype(np.float64)

    def _encode_eval_target(self, y, n_rows: int, arg: str) -> np.ndarray:
        """An evaluation set's targets as the engine takes them."""
        with naming(arg):
            y = check_target(self, y, n_rows, labels=self._labels)
            if self._labels:
                y = self._known_classes(y)
            return np.ascontiguousarray(y, dtype=np.float64)

    def _score_target(self, predicted, y, sample_weight):
        """The checked ``y`` and ``sample_weight`` that ``score`` compares
        with ``predicted``."""
        y = check_target(self, y, predicted.shape[0], labels=self._labels)
        return y, check_sample_weight(sample_weight, predicted.reshape(-1, 1))

    @property
    def selected_features_(self) -> np.ndarray:
        """Indices of the features used by any split (of any task), in the
        order they entered the model: Ω (Ω_G for the multitask boosters)."""
        check_is_fitted(self)
        return np.asarray(self._model.selected_features, dtype=np.intp)

    def _importances(self, kind, normalize, *task) -> np.ndarray:
        """The engine's importances of ``kind`` (of one task's trees if a
        task index is given)."""
        check_is_fitted(self)
        if not isinstance(kind, str):
            raise TypeError(f"kind must be 'gain' or 'split', got {kind!r}")
        return self._model.importances(kind, bool(normalize), *task)

    @property
    def feature_importances_(self) -> np.ndarray:
        """Total split gain per feature (over all tasks), normalised to sum
        to 1 (all zeros when the model has no split), shape
        ``(n_features_in_,)``."""
        return self.get_feature_importance("gain", normalize=True)

    def save_model(self, path) -> None:
        """Write the fitted estimator to ``path`` as JSON (see
        :func:`sparseboost.load_model`)."""
        from .persistence import save_model

        save_model(self, path)


class BaseSparseBoost(BoosterCommon):
    """Parameters and engine calls common to the single-task boosters.

    Subclasses define ``_objective``, ``_labels`` and ``_encode_target``.
    """

    _ranking = False

    def __init__(
        self,
        *,
        n_estimators=100,
        learning_rate=0.1,
        max_leaves=31,
        max_depth=None,
        min_samples_leaf=20,
        min_split_fraction=0.0,
        min_child_weight=1e-3,
        l2_regularization=0.0,
        min_gain=0.0,
        max_bins=255,
        categorical_features="from_dtype",
        subsample=1.0,
        colsample_bytree=1.0,
        feature_sampling="uniform",
        reweight_rate=1.0,
        penalty="agbm",
        mu=0.01,
        feature_costs=None,
        feature_bags=None,
        max_selected_features=None,
        max_features=None,
        split_search="exhaustive",
        gt_n_features=10,
        gt_delta=0.1,
        gt_max_rows=None,
        early_stopping_rounds=None,
        eval_metric=None,
        validation_fraction=0.1,
        callbacks=None,
        verbose=0,
        record_train_loss=False,
        n_jobs=None,
        random_state=None,
    ):
        self.n_estimators = n_estimators
        self.learning_rate = learning_rate
        self.max_leaves = max_leaves
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.min_split_fraction = min_split_fraction
        self.min_child_weight = min_child_weight
        self.l2_regularization = l2_regularization
        self.min_gain = min_gain
        self.max_bins = max_bins
        self.categorical_features = categorical_features
        self.subsample = subsample
        self.colsample_bytree = colsample_bytree
        self.feature_sampling = feature_sampling
        self.reweight_rate = reweight_rate
        self.penalty = penalty
        self.mu = mu
        self.feature_costs = feature_costs
        self.feature_bags = feature_bags
        self.max_selected_features = max_selected_features
        self.max_features = max_features
        self.split_search = split_search
        self.gt_n_features = gt_n_features
        self.gt_delta = gt_delta
        self.gt_max_rows = gt_max_rows
        self.early_stopping_rounds = early_stopping_rounds
        self.eval_metric = eval_metric
        self.validation_fraction = validation_fraction
        self.callbacks = callbacks
        self.verbose = verbose
        self.record_train_loss = record_train_loss
        self.n_jobs = n_jobs
        self.random_state = random_state

    # -- fitting -------------------------------------------------------

    def _engine_params(self, draw_seed: bool = True) -> dict:
        params = super()._engine_params(draw_seed)
        params["mu"], params["mu_relative"] = engine_mu(self.mu)
        params["feature_costs"] = feature_costs_array(self.feature_costs, self)
        params["feature_bags"] = feature_bags_array(self.feature_bags, self)
        return params

    def _check_params(self) -> None:
        """Raise as ``fit`` would for a bad parameter, without fitting (for
        a loaded model; ``n_features_in_`` must be set)."""
        _core.check_params(self._engine_params(draw_seed=False), self.n_features_in_)
        _training.check_early_stopping(self)

    def _fit(
        self,
        X,
        y,
        sample_weight,
        *,
        group=None,
        eval_set=None,
        eval_sample_weight=None,
        eval_group=None,
    ):
        _training.check_early_stopping(self)
        X, y, sample_weight = check_fit_input(self, X, y, sample_weight, labels=self._labels)
        if self._ranking:
            group = _training.check_group(group, X.shape[0])
        elif group is not None:
            raise TypeError(f"{type(self).__name__}.fit does not take group (only rankers do)")
        y = np.ascontiguousarray(self._encode_target(y), dtype=np.float64)
        params = self._engine_params()
        evals = _training.eval_sets(
            self, eval_set, eval_sample_weight, eval_group, self._encode_eval_target
        )
        if self._ranking and evals and eval_group is None:
            raise ValueError(
                "eval_group is required with an eval_set (the query sizes of each set)"
            )
        if not evals and self.early_stopping_rounds is not None:
            (X, y, sample_weight, group, _), evals = _training.hold_out(
                self, params["seed"], X, y, sample_weight, group=group
            )
        names = [f"validation_{s}" for s in range(len(evals))]
        metrics = _core.eval_metric_names(params)
        _training.warn_if_auc_undefined(evals, names, metrics)
        callback = _training.round_callback(self, names, metrics)
        self._model, history = _core.fit(
            engine_matrix(X, "csc"),
            y,
            sample_weight,
            params,
            group=group,
            eval_sets=evals,
            callback=callback,
        )
        _training.set_history(self, history, names)
        self.mu_max_ = history["mu_max"]
        queries = (
            None if group is None else np.repeat(np.arange(len(group)), group.astype(np.int64))
        )
        constant = _training.constant_within(y, queries, sample_weight)
        _training.warn_if_nothing_paid(self, constant=constant)
        return self

    def _raw_predict(self, X) -> np.ndarray:
        check_is_fitted(self)
        X = check_X(self, X, reset=False)
        return self._model.predict_raw(engine_matrix(X, "csr"), resolve_n_jobs(self.n_jobs))

    # -- fitted attributes ---------------------------------------------

    @property
    def n_trees_(self) -> int:
        """Number of trees actually fitted (fewer than ``n_estimators`` when
        no leaf could be split any more)."""
        check_is_fitted(self)
        return self._model.n_trees

    @property
    def feature_weights_(self) -> np.ndarray:
        """The final feature sampling probabilities, shape ``(n_features_in_,)``,
        summing to 1: uniform, or with ``feature_sampling="dynamic"`` the
        dynamic weights the next tree would have been drawn with."""
        check_is_fitted(self)
        weights = np.asarray(self._model.feature_weights, dtype=float)
        if weights.size == 0:  # a model file written before the weights existed
            weights = np.full(self.n_features_in_, 1.0 / self.n_features_in_)
        return weights

    @property
    def train_loss_(self) -> np.ndarray:
        """Mean training loss after each tree, shape ``(n_trees_,)``; the K trees of a
        multiclass round share the loss after the round. Only with
        ``record_train_loss=True`` (or ``verbose`` > 0)."""
        check_is_fitted(self)
        return recorded_loss(self._model, self._records_loss())

    @property
    def selected_feature_names_(self) -> np.ndarray:
        """Names of ``selected_features_`` (``feature_names_in_`` for
        DataFrames, else ``x0, x1, ...``), in entry order."""
        check_is_fitted(self)
        names = getattr(self, "feature_names_in_", None)
        if names is None:
            return np.asarray([f"x{j}" for j in self.selected_features_], dtype=object)
        return np.asarray(names, dtype=object)[self.selected_features_]

    @property
    def feature_entry_tree_(self) -> np.ndarray:
        """The tree (0-based) at which each of ``selected_features_`` entered."""
        check_is_fitted(self)
        return np.asarray(self._model.feature_entry_tree, dtype=np.intp)

    @property
    def selection_path_(self) -> dict:
        """After each tree: ``n_features`` used so far and (with
        ``record_train_loss``) the mean ``train_loss``; arrays of length
        ``n_trees_``."""
        check_is_fitted(self)
        path = {"n_features": np.asarray(self._model.n_selected_after_tree, dtype=np.intp)}
        if hasattr(self, "train_loss_"):  # (recorded)
            path["train_loss"] = self.train_loss_
        return path

    def get_feature_importance(self, kind: str = "gain", normalize: bool = False) -> np.ndarray:
        """Per-feature importance: ``kind="gain"`` (total split gain, in the
        units of ``y`` squared times the weights) or ``"split"`` (number of
        splits), shape ``(n_features_in_,)``; ``normalize`` makes it sum to 1."""
        return self._importances(kind, normalize)
