"""What a fit does besides growing trees: evaluation sets (given, or held out
by ``validation_fraction`` for early stopping), round reports to user
callbacks and ``verbose`` printing, and the evaluation history as fitted
attributes. The engine scores the evaluation sets itself, after every tree
(binned with the training cut points); the callbacks run on the calling
thread while the fit thread waits.
"""

from __future__ import annotations

import functools
import numbers
import warnings
from dataclasses import dataclass

import numpy as np

from ._matrix import engine_matrix
from ._validation import check_sample_weight, check_X, engine_mu, naming


@dataclass(frozen=True)
class RoundReport:
    """What a callback learns after each boosting round.

    Attributes
    ----------
    round : int
        The round, from 0.
    train_loss : float
        Mean training loss after the round (multitask: the tasks' mean,
        weighted by their rows); NaN unless the estimator has
        ``record_train_loss=True`` or ``verbose`` > 0.
    eval : dict
        ``{set name: {metric: value}}`` for every evaluation set
        (``validation_0``, ``validation_1``, ...).
    n_features : int
        Features used by any tree so far.
    elapsed : float
        Seconds since the fit started.
    split_features, split_gains : ndarray
        The feature and the gain of every split of the round's trees (a
        multitask tree shared by k tasks k times, as it is part of each
        task's model). Summed over the rounds, each
        feature's gains are its ``get_feature_importance("gain")``: a
        callback can follow the importances as they grow, as LightGBM's
        callbacks read them from the booster.
    """

    round: int
    train_loss: float
    eval: dict
    n_features: int
    elapsed: float
    split_features: np.ndarray
    split_gains: np.ndarray


def check_early_stopping(estimator) -> None:
    """Type checks of the parameters the engine does not see."""
    fraction = estimator.validation_fraction
    if isinstance(fraction, (bool, np.bool_)) or not isinstance(fraction, numbers.Real):
        raise TypeError(f"validation_fraction must be a float in (0, 1), got {fraction!r}")
    if not 0 < fraction < 1:
        raise ValueError(f"validation_fraction must be in (0, 1), got {fraction!r}")
    verbose = estimator.verbose
    if not isinstance(verbose, (numbers.Integral, bool, np.bool_)):
        raise TypeError(f"verbose must be an int >= 0 (print every k rounds), got {verbose!r}")
    if verbose < 0:
        raise ValueError(f"verbose must be >= 0, got {verbose!r}")
    callbacks = estimator.callbacks
    if callbacks is not None:
        # A list or tuple only: a generator would be used up by this check
        # (or by clone and get_params) and the fit would call nothing.
        if not isinstance(callbacks, (list, tuple)) or not all(callable(c) for c in callbacks):
            raise TypeError(
                f"callbacks must be a list or tuple of callables (each called with a "
                f"RoundReport), got {callbacks!r}"
            )


def eval_sets(estimator, eval_set, eval_sample_weight, eval_group, encode, *, task=None):
    """The evaluation sets as the engine takes them: ``(X, y, weight, group,
    task)`` arrays, each checked as ``predict``/``fit`` check theirs, with
    ``encode`` turning labels into the engine's targets."""
    if eval_set is None:
        if eval_sample_weight is not None or eval_group is not None:
            raise ValueError("eval_sample_weight and eval_group need an eval_set")
        return []
    shape = "(X, y, task)" if task else "(X, y)"
    if not isinstance(eval_set, (list, tuple)):
        raise TypeError(f"eval_set must be a list of {shape} tuples, got {type(eval_set).__name__}")
    odd = next((p for p in eval_set if not isinstance(p, (list, tuple))), None)
    if odd is not None:
        raise TypeError(
            f"eval_set must be a list of {shape} tuples, got a {type(eval_set).__name__} "
            f"holding a {type(odd).__name__} (for one set, pass [{shape}])"
        )
    for s, pair in enumerate(eval_set):
        if len(pair) != len(shape.split(",")):
            raise TypeError(f"eval_set[{s}] must be an {shape} tuple, got {len(pair)} items")
    for name, values in (("eval_sample_weight", eval_sample_weight), ("eval_group", eval_group)):
        if values is not None and len(values) != len(eval_set):
            raise ValueError(f"{name} needs one entry per eval_set, got {len(values)}")
    sets = []
    for s, pair in enumerate(eval_set):
        with naming(f"eval_set[{s}]"):
            X = check_X(estimator, pair[0], reset=False)
            y = encode(pair[1], X.shape[0], f"eval_set[{s}]")
            weight = None
            if eval_sample_weight is not None:
                weight = check_sample_weight(eval_sample_weight[s], X)
            group = None
            if eval_group is not None:
                group = check_group(eval_group[s], X.shape[0], f"eval_group[{s}]")
            codes = task(pair[2], X.shape[0]) if task else None
        sets.append((engine_matrix(X, "csc"), y, weight, group, codes))
    return sets


def warn_if_auc_undefined(evals, set_names, metrics) -> None:
    """AUC needs both classes: an evaluation set (or a task's rows of it)
    of one class is reported at 0.5, which says nothing; say so."""
    if "auc" not in metrics:
        return
    for name, (_, y, _, _, codes) in zip(set_names, evals, strict=True):
        groups = (
            [np.arange(len(y))]
            if codes is None
            else [np.flatnonzero(codes == t) for t in np.unique(codes)]
        )
        if any(rows.size and np.unique(y[rows]).size < 2 for rows in groups):
            where = f"the rows of {name}" if codes is None else f"a task's rows of {name}"
            warnings.warn(
                f"{where} hold one class, on which AUC is undefined: it is reported as 0.5 "
                "(and a multitask set's AUC averages that in)",
                UserWarning,
                stacklevel=4,
            )


def check_group(group, n_rows: int, arg: str = "group") -> np.ndarray:
    """Query sizes (LightGBM's convention: the sizes of consecutive groups of
    rows) as a uintp array of positive ints summing to ``n_rows``."""
    if group is None:
        raise ValueError(f"{arg} is required: the sizes of the consecutive query groups")
    sizes = np.asarray(group)
    if sizes.ndim != 1 or sizes.dtype.kind not in "iu":
        raise ValueError(f"{arg} must be a 1-D array of query sizes (ints), got {sizes.dtype}")
    if np.any(sizes < 1):
        raise ValueError(f"{arg} must hold sizes >= 1")
    if sizes.sum() != n_rows:
        raise ValueError(f"{arg} sizes sum to {sizes.sum()}, but X has {n_rows} rows")
    return np.ascontiguousarray(sizes, dtype=np.uintp)


def hold_out(estimator, seed: int, X, y, sample_weight, *, group=None, task=None):
    """Early stopping without ``eval_set``: ``validation_fraction`` of the
    rows (stratified by ``holdout_strata``), or of the queries of ``group``,
    drawn with ``seed``. Returns the training part ``(X, y, sample_weight,
    group, task)`` and the evaluation sets (the held-out part, as the
    engine takes them)."""
    train, valid, train_group, valid_group = _holdout_rows(
        estimator.validation_fraction,
        len(y),
        seed,
        holdout_strata(estimator._labels, y, task),
        group,
        every_task=task is not None,
    )

    def part(rows):
        return (
            X[rows],
            y[rows],
            None if sample_weight is None else sample_weight[rows],
            None if task is None else np.ascontiguousarray(task[rows], dtype=np.uintp),
        )

    X_v, y_v, w_v, task_v = part(valid)
    X_t, y_t, w_t, task_t = part(train)
    # The held-out rows go to the engine as an eval_set does (a scipy
    # sparse part as the engine's sparse matrix).
    held_out = (engine_matrix(X_v, "csc"), y_v, w_v, valid_group, task_v)
    return (X_t, y_t, w_t, train_group, task_t), [held_out]


def holdout_strata(labels: bool, y, task):
    """What early stopping's hold-out is stratified by (finest first): the
    class; the task; or for a multitask classifier the task and class, else
    the task (every task scored, and trained on both classes)."""
    if task is None:
        return y if labels else None
    task = np.asarray(task).astype(np.int64)
    if not labels:
        return task
    y = np.asarray(y).astype(np.int64)
    return (task * (int(y.max()) + 1) + y, task)


def _holdout_rows(fraction, n_rows, seed, strata, group, every_task=False):
    """(training rows, validation rows, their query sizes or None).
    ``strata``: None, or one array or a tuple of arrays (the finest first)
    to stratify the rows by; ``every_task``: the last of them is the task,
    and a hold-out that cannot hold every task is an error."""
    from sklearn.model_selection import train_test_split

    rng = np.random.RandomState(seed % 2**32)
    units = len(group) if group is not None else n_rows
    unit = "queries" if group is not None else "rows"
    # scikit-learn's sizes: ceil(fraction * n) held out, the rest kept.
    n_valid = int(np.ceil(fraction * units))
    if units < 2 or n_valid < 1 or n_valid >= units:
        raise ValueError(
            f"validation_fraction={fraction!r} of {units} {unit} holds out {n_valid} for early "
            f"stopping and leaves {units - n_valid} to train on; each needs at least one. "
            f"Pass an eval_set, change validation_fraction, or fit on more {unit}"
        )
    if group is not None:
        group = group.astype(np.int64)
        train_q, valid_q = train_test_split(
            np.arange(len(group)), test_size=fraction, random_state=rng
        )
        train_q, valid_q = np.sort(train_q), np.sort(valid_q)
        starts = np.concatenate([[0], np.cumsum(group)[:-1]])

        def rows(queries):
            return np.concatenate([np.arange(starts[q], starts[q] + group[q]) for q in queries])

        def sizes(queries):
            return np.ascontiguousarray(group[queries], dtype=np.uintp)

        return rows(train_q), rows(valid_q), sizes(train_q), sizes(valid_q)
    rows, kept, stratify = _strata_split(fraction, n_rows, n_valid, strata, every_task)
    train, valid = train_test_split(rows, test_size=n_valid, random_state=rng, stratify=stratify)
    return np.sort(np.concatenate([train, kept])), np.sort(valid), None, None


def _strata_split(fraction, n_rows, n_valid, strata, every_task):
    """The rows to split, the rows that always train, and what to stratify
    the split by (None: a plain split): the first of ``strata`` that can
    put a row of each stratum on each side.

    A stratum of one row (a class's or task's only row) cannot be in both
    parts: it trains, so that no class or task is fitted without it. A
    constant stratum is no stratification (a one-task fit draws the
    single-task booster's rows)."""
    rows = np.arange(n_rows)
    if strata is None:
        return rows, rows[:0], None
    candidates = strata if isinstance(strata, tuple) else (strata,)
    # (The finest strata's single rows: a coarser stratum of one row is one
    # of them too.)
    _, inverse, counts = np.unique(candidates[0], return_inverse=True, return_counts=True)
    single = counts[inverse] == 1
    rest = rows[~single]
    if n_valid >= rest.size:
        raise ValueError(
            f"validation_fraction={fraction!r} holds out {n_valid} of {n_rows} rows for "
            f"early stopping, but {n_rows - rest.size} of them are the only row of their "
            "class or task and must train; pass an eval_set or change validation_fraction"
        )
    for candidate in candidates:
        counts = np.unique(candidate[rest], return_counts=True)[1]
        n_strata = counts.size
        if n_strata <= 1:
            return rest, rows[single], None
        if counts.min() >= 2 and n_strata <= n_valid <= rest.size - n_strata:
            return rest, rows[single], candidate[rest]
    if every_task:
        n_tasks = np.unique(candidates[-1]).size
        raise ValueError(
            f"validation_fraction={fraction!r} holds out {n_valid} of {n_rows} rows for early "
            f"stopping, which cannot give each of the {n_tasks} tasks held-out rows and "
            "training rows; pass an eval_set (with task labels) or change validation_fraction"
        )
    return rest, rows[single], None


def round_callback(estimator, set_names, metrics):
    """The function the engine calls after each round (None when there is
    nothing to call): it builds a ``RoundReport``, prints every ``verbose``
    rounds and calls the user's callbacks; any truthy return stops the fit."""
    callbacks = list(estimator.callbacks or [])
    every = int(estimator.verbose)
    if not callbacks and not every:
        return None

    def on_round(round_, train_loss, values, n_features, elapsed, split_features, split_gains):
        evals = {
            name: dict(zip(metrics, per_set, strict=True))
            for name, per_set in zip(set_names, values, strict=True)
        }
        report = RoundReport(
            round_, train_loss, evals, n_features, elapsed, split_features, split_gains
        )
        if every and (round_ % every == 0):
            scores = " ".join(
                f"{name}-{metric}={value:.6g}"
                for name, per_set in evals.items()
                for metric, value in per_set.items()
            )
            print(
                f"[{round_}] train_loss={train_loss:.6g} {scores} features={n_features} "
                f"elapsed={elapsed:.2f}s".replace("  ", " "),
                flush=True,
            )
        stop = False
        try:
            for callback in callbacks:
                stop = bool(callback(report)) or stop
        finally:
            _restore_fitted_state(estimator, state)
        return stop

    # A callback may refit this very estimator (documented as allowed): the
    # fit that is running keeps the input it checked (feature names, widths,
    # classes, categories), or its trees would be read with another fit's
    # columns.
    state = _fitted_state(estimator)
    return on_round


def _fitted_state(estimator) -> dict:
    """What a fit sets on the estimator: attributes ending or starting
    with an underscore (parameters do neither)."""
    return {k: v for k, v in vars(estimator).items() if k.endswith("_") or k.startswith("_")}


def _restore_fitted_state(estimator, state: dict) -> None:
    for name in _fitted_state(estimator).keys() - state.keys():
        delattr(estimator, name)
    vars(estimator).update(state)


def fits_apart(fit):
    """Decorate a meta-estimator's ``fit``: it runs on a stand-in whose
    fitted state then replaces the estimator's (a failed fit leaves it
    unfitted). A callback of the wrapped estimator may fit this same
    meta-estimator (the docs allow calling the library from a callback); its
    state would otherwise mix with the running fit's (the inner fit's
    columns, the outer fit's model). The running fit's whole state wins, as
    for the boosters."""

    def fitted(obj) -> list:
        return [k for k in vars(obj) if k.endswith("_") and not k.startswith("__")]

    @functools.wraps(fit)
    def wrapper(self, *args, **kwargs):
        stand_in = object.__new__(type(self))
        vars(stand_in).update({k: v for k, v in vars(self).items() if k not in fitted(self)})
        try:
            fit(stand_in, *args, **kwargs)
        finally:
            for name in fitted(self):
                delattr(self, name)
        vars(self).update(vars(stand_in))
        return self

    return wrapper


def constant_within(y, groups=None, weights=None) -> bool:
    """Whether ``y`` is constant within every group (task or query; all
    rows one group for None), over the rows of positive weight: then no
    split can gain anything."""
    y = np.asarray(y, dtype=np.float64)
    if weights is not None:
        kept = np.asarray(weights) > 0
        y = y[kept]
        groups = None if groups is None else np.asarray(groups)[kept]
    if groups is None:
        return bool(y.size == 0 or np.ptp(y) == 0)
    order = np.argsort(groups, kind="stable")
    ends = np.flatnonzero(np.diff(np.asarray(groups)[order])) + 1
    return all(np.ptp(part) == 0 for part in np.split(y[order], ends) if part.size)


def set_history(estimator, history: dict, set_names) -> None:
    """``evals_result_``, ``best_iteration_``, ``best_score_`` from the
    engine's history."""
    estimator.evals_result_ = {
        name: {
            metric: np.asarray(values)
            for metric, values in zip(history["metrics"], per_set, strict=True)
        }
        for name, per_set in zip(set_names, history["values"], strict=True)
    }
    best = history["best"] if set_names else None
    estimator.best_iteration_ = None if best is None else int(best[0])
    estimator.best_score_ = None if best is None else float(best[1])


def warn_if_nothing_paid(estimator, penalty: str | None = None, *, constant=False) -> None:
    """Warn when the penalty kept every feature out: μ ≥ μ_max, so the
    first round grew no tree and the model predicts its base score; or
    when no split was possible at all, unless the target was ``constant``
    (then the constant is the right model). ``penalty``: how the
    estimator's μ reads (its ``mu`` when None; a multitask estimator's
    two)."""
    mu_max = estimator.mu_max_
    if np.any(estimator.n_trees_):
        return
    unmeasured = mu_max is None and getattr(estimator, "split_search_", None) == "group_testing"
    if unmeasured and getattr(estimator, "penalty", "none") != "none":
        paid = penalty or f"mu={estimator.mu!r}"
        warnings.warn(
            f"the first round admitted no feature at {paid}, so the model has no tree and "
            "predicts a constant: the penalty may be at or above mu_max, which a group-tested "
            "fit with an absolute mu does not measure (give mu as 'f*mu_max' to have it)",
            UserWarning,
            stacklevel=4,
        )
        return
    if not mu_max:  # (None: no penalty, which grows a tree if it can)
        if not constant:
            # No split gains anything at any μ, as LightGBM's "no more
            # leaves that meet the split requirements".
            warnings.warn(
                "no split is possible, so the model has no tree and predicts a constant: "
                "every split leaves a child with fewer than "
                f"min_samples_leaf={estimator.min_samples_leaf!r} rows or a hessian sum below "
                f"min_child_weight={estimator.min_child_weight!r} (a sum of hessians times "
                "sample_weight: scale it with very small weights, or set it to 0)",
                UserWarning,
                stacklevel=4,
            )
        return
    if penalty is None:
        value, relative = engine_mu(estimator.mu)
        mu = value * mu_max if relative else value
        penalty = f"mu={estimator.mu!r} ({mu:.6g})"
        if mu < mu_max:
            # Only sampled rounds can all miss what pays (see the trainer).
            warnings.warn(
                f"no round's sample of rows and features (subsample={estimator.subsample!r}, "
                f"colsample_bytree={estimator.colsample_bytree!r}) held a split that pays the "
                f"penalty {penalty}, below mu_max={mu_max:.6g}; the model has no tree and "
                "predicts a constant. Draw more features or rows, or use more rounds.",
                UserWarning,
                stacklevel=4,
            )
            return
    warnings.warn(
        f"no feature can pay the penalty: {penalty} >= mu_max={mu_max:.6g}, "
        "the smallest mu at which the first round admits no feature; the model has no tree "
        "and predicts a constant. Use a smaller mu, or one relative to mu_max "
        "(for example mu='0.3*mu_max').",
        UserWarning,
        stacklevel=4,
    )
