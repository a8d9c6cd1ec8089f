"""``shared_rounds="auto"`` and ``mu_task="auto"`` of the multitask boosters:
chosen by task-stratified K-fold cross-validation on the training rows.

Multitask boosting beats independent per-task models only with its two
knobs set for the data (issue 14's measurement): how many rounds start from
one tree on all tasks' rows, and how much a task pays for a feature it does
not use yet. A small task wants a start learned from everyone's rows and
often a larger ``mu_task`` (its noise features gain more against its own
root scale); a large task wants neither. So the search is the one
``benches/multitask.py`` runs by hand:

- every candidate ``shared_rounds`` (0, 10% and 25% of ``n_estimators``;
  or the user's int) is fitted with every candidate ``mu_task`` (0.01,
  0.03 and 0.1 for A-GBM, those fractions of ``mu_max`` for GBFS; or the
  user's value), the same value for every task;
- each task keeps the ``mu_task`` with its lowest cross-validated loss
  (squared error, or log-loss for the classifier) at that
  ``shared_rounds``, as independent models would each choose their own μ;
- the ``shared_rounds`` whose per-task choices give the lowest loss summed
  over all rows (each task weighs by its rows) wins.

The folds are stratified by task (by task and class for the classifier), so
every task is scored in every fold; they are drawn from ``random_state``.
The cost is ``folds x |shared_rounds grid| x |mu_task grid|`` fits on
``(folds - 1)/folds`` of the rows (27 by default) before the final fit.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import clone

from .selectors import with_categorical

AUTO = "auto"

# Folds of the search.
FOLDS = 3

# shared_rounds candidates, as fractions of n_estimators (0 = no shared start).
SHARED_FRACTIONS = (0.0, 0.1, 0.25)

# mu_task candidates: A-GBM's mu is already a fraction of the tree's root
# loss; GBFS's is in gain units, so its candidates are fractions of mu_max.
MU_TASK_GRID = (0.01, 0.03, 0.1)

# Fits of the search when both knobs are "auto", before the final fit.
MAX_FITS = FOLDS * len(SHARED_FRACTIONS) * len(MU_TASK_GRID)


def is_auto(value) -> bool:
    return isinstance(value, str) and value == AUTO


def shared_rounds_grid(n_estimators: int) -> list[int]:
    return sorted({int(round(f * n_estimators)) for f in SHARED_FRACTIONS})


def mu_task_grid(penalty: str) -> list:
    if penalty == "gbfs":
        return [f"{f}*mu_max" for f in MU_TASK_GRID]
    return list(MU_TASK_GRID)


def _auto(estimator) -> str:
    """The parameters set to "auto", as the user wrote them."""
    names = [n for n in ("shared_rounds", "mu_task") if is_auto(getattr(estimator, n))]
    return " and ".join(f"{n}='auto'" for n in names)


def _folds(estimator, codes, y_classes, seed, weight=None):
    """Task-stratified folds (by task and class for the classifier, and
    by whether a row weighs anything when some weigh 0, so that every
    fold's training part keeps weight in every task): (train rows,
    validation rows) pairs."""
    from sklearn.model_selection import StratifiedKFold

    per_task = np.bincount(codes)
    # Fit checks >= 2 rows per task; a fold's training part of a 2-row task
    # would hold 1.
    _each_task_has(estimator, per_task, 3, "rows")
    strata = codes if y_classes is None else codes * 2 + y_classes
    counts = np.bincount(strata)
    present = counts[counts > 0]
    if present.min() < 2:
        # Every task has >= 2 rows (fit checks it first), so this is a class
        # with one row in a task: a fold without that row cannot fit the task.
        task, cls = divmod(int(np.flatnonzero(counts == 1)[0]), 2)
        raise ValueError(
            f"{_auto(estimator)} cross-validates on folds stratified by "
            f"task and class; task {estimator.tasks_.tolist()[task]!r} has 1 row of class "
            f"{estimator.classes_.tolist()[cls]!r}, and each needs at least 2"
        )
    if weight is not None and (weight == 0).any():
        positive = np.bincount(codes, weights=weight > 0, minlength=per_task.size)
        # (else a fold's training part could weigh nothing in a task)
        _each_task_has(estimator, positive, 2, "row(s) of sample_weight > 0")
        weighted = strata * 2 + (weight > 0)
        counts = np.bincount(weighted)
        if counts[counts > 0].min() >= 2:
            strata, present = weighted, counts[counts > 0]
    # A stratum rarer than the folds: fewer folds, rather than a fold whose
    # training part lacks it.
    n_splits = int(min(FOLDS, present.min()))
    splitter = StratifiedKFold(n_splits=n_splits, shuffle=True, random_state=seed % 2**32)
    return list(splitter.split(np.zeros(len(codes)), strata))


def _each_task_has(estimator, counts, least: int, what: str) -> None:
    """An error naming the first task of fewer than ``least`` ``what``
    (``counts``: each task's)."""
    if counts.min() < least:
        task = int(np.argmin(counts))
        raise ValueError(
            f"{_auto(estimator)} cross-validates on folds stratified by task; task "
            f"{estimator.tasks_.tolist()[task]!r} has {int(counts[task])} {what}, and each "
            f"needs at least {least} (give numbers instead of 'auto')"
        )


def _task_losses(model, X, y, codes, weight, n_tasks, classifier):
    """Summed (weighted) loss of each task's rows: squared error, or the
    log-loss of the positive class's probability."""
    tasks = model.tasks_[codes]
    if classifier:
        p = model.predict_proba(X, tasks)[:, 1]
        p = np.clip(p, 1e-15, 1 - 1e-15)
        loss = -(y * np.log(p) + (1 - y) * np.log1p(-p))
    else:
        loss = (model.predict(X, tasks) - y) ** 2
    if weight is not None:
        loss = loss * weight
    return np.bincount(codes, weights=loss, minlength=n_tasks)


def choose(estimator, X, y_encoded, codes, sample_weight, seed):
    """``(shared_rounds, mu_task)`` for ``estimator`` (whose ``tasks_`` is
    set), by cross-validation on ``X`` and the engine's targets
    ``y_encoded`` (0/1 for the classifier) with each row's task ``codes``.
    Returns the user's value for a knob that is not ``"auto"``; a chosen
    ``mu_task`` is one value per task, in ``tasks_`` order. Also returns the
    search's table: ``{"shared_rounds": [...], "mu_task": [...],
    "loss": array (shared, mu, task)}``, the mean loss per row."""
    classifier = estimator._labels
    n_tasks = len(estimator.tasks_)
    shared = (
        shared_rounds_grid(estimator.n_estimators)
        if is_auto(estimator.shared_rounds)
        else [estimator.shared_rounds]
    )
    mus = mu_task_grid(estimator.penalty) if is_auto(estimator.mu_task) else [estimator.mu_task]
    if estimator.penalty == "none":
        mus = mus[:1]  # no penalty: mu_task changes nothing
    labels = estimator.classes_ if classifier else None
    y_user = labels[y_encoded.astype(int)] if classifier else y_encoded
    y_classes = y_encoded.astype(int) if classifier else None
    folds = _folds(estimator, codes, y_classes, seed, sample_weight)

    loss = np.zeros((len(shared), len(mus), n_tasks))
    weight_per_task = np.zeros(n_tasks)
    for train, valid in folds:
        w_valid = None if sample_weight is None else sample_weight[valid]
        weight_per_task += np.bincount(codes[valid], weights=w_valid, minlength=n_tasks)
        for i, s in enumerate(shared):
            for j, mu in enumerate(mus):
                # The user's callbacks and round reports follow the final
                # fit only, not the search's. `X` is encoded and has no
                # names: the clone is told which of its columns are
                # categorical, and gets costs and bags as lists.
                model = clone(estimator).set_params(
                    shared_rounds=s, mu_task=mu, callbacks=None, verbose=0
                )
                model = with_categorical(model, estimator)
                try:
                    model.fit(
                        X[train],
                        y_user[train],
                        estimator.tasks_[codes[train]],
                        None if sample_weight is None else sample_weight[train],
                    )
                except ValueError as e:
                    if "mu_group + mu_task" in str(e) and is_auto(estimator.mu_task):
                        raise ValueError(
                            f"mu_task='auto' tries {mus}, and mu_group={estimator.mu_group!r} "
                            f"plus mu_task={mu!r} is not below 1 (penalty 'agbm' needs "
                            "mu_group + mu_task < 1): lower mu_group or give mu_task"
                        ) from None
                    raise
                loss[i, j] += _task_losses(
                    model, X[valid], y_encoded[valid], codes[valid], w_valid, n_tasks, classifier
                )
    mean_loss = loss / np.maximum(weight_per_task, np.finfo(float).tiny)
    # Each task's best mu_task at each shared_rounds; then the shared_rounds
    # whose per-task choices lose least over all rows.
    best_mu = loss.argmin(axis=1)  # (shared, task)
    total = loss.min(axis=1).sum(axis=1)  # (shared,)
    i = int(total.argmin())
    if is_auto(estimator.mu_task):
        mu_task = [mus[j] for j in best_mu[i]]
    else:
        mu_task = estimator.mu_task
    return shared[i], mu_task, {"shared_rounds": shared, "mu_task": mus, "loss": mean_loss}
