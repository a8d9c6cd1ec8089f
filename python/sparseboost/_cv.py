"""Folds and fold scores for choosing a budget by cross-validation
(``SparseBoostSelectorCV``): what may go wrong on ordinary data is decided
here once, for classifiers, regressors and rankers.

- A class rarer than the folds leaves some held-out folds without it. The
  default scores are told every class of ``y`` (a log loss over all of
  them; a fold's model that never saw a class gives it probability 0), so
  such a fold still scores. With two classes, AUC needs both in every
  held-out fold: the folds become fewer, with a warning, down to the
  minority's count; below 2 it is an error naming the class.
- A ranking's folds keep queries whole (``GroupKFold`` over query ids), and
  are scored by the mean NDCG@10 over queries.

``_Rows`` are the rows a fit sees (a fold's, a hold-out's, all of them),
with their weights and query ids, and how they split and score.
"""

from __future__ import annotations

import inspect
import numbers
import warnings

import numpy as np
from sklearn.metrics import check_scoring, log_loss, roc_auc_score
from sklearn.model_selection import GroupKFold, check_cv, train_test_split

# The cut-off of the rankers' default score: the first page of results.
NDCG_AT = 10


def query_ids(sizes) -> np.ndarray:
    """One id per row from consecutive query sizes."""
    return np.repeat(np.arange(len(sizes)), np.asarray(sizes, dtype=np.int64))


def query_sizes(ids) -> np.ndarray:
    """Sizes of the runs of equal ids (rows of a query are consecutive)."""
    if len(ids) == 0:
        return np.zeros(0, dtype=np.uintp)
    starts = np.flatnonzero(np.r_[True, ids[1:] != ids[:-1]])
    return np.diff(np.r_[starts, len(ids)]).astype(np.uintp)


def folds(cv, y, *, classifier: bool, queries=None, scoring=None) -> list:
    """``[(train, test)]`` row indices, in increasing order (so a query's
    rows stay consecutive), following ``cv`` as scikit-learn does:
    stratified for a classifier, grouped by query for a ranker."""
    if queries is not None:
        if isinstance(cv, numbers.Integral):
            n_queries = np.unique(queries).size
            if n_queries < 2:
                raise ValueError("group: CV needs at least 2 queries")
            if n_queries < cv:
                warnings.warn(
                    f"cv={cv} folds, but there are only {n_queries} queries: "
                    f"using {n_queries} folds",
                    UserWarning,
                    stacklevel=3,
                )
                cv = n_queries
            cv = GroupKFold(n_splits=cv)
        split = check_cv(cv).split(np.zeros((len(y), 1)), y, groups=queries)
    else:
        if classifier and isinstance(cv, numbers.Integral) and scoring is None:
            cv = _binary_folds(cv, y)
        split = check_cv(cv, y, classifier=classifier).split(np.zeros((len(y), 1)), y)
    return [(np.sort(train), np.sort(test)) for train, test in split]


def _binary_folds(cv: int, y) -> int:
    """``cv``, or fewer folds when a class of a two-class ``y`` has fewer
    rows than folds (AUC needs both classes in every held-out fold)."""
    classes, counts = np.unique(y, return_counts=True)
    if classes.size != 2 or counts.min() >= cv:
        return cv
    rare = classes[np.argmin(counts)]
    rare = rare.item() if isinstance(rare, np.generic) else rare  # 1, not np.int64(1)
    if counts.min() < 2:
        raise ValueError(
            f"y: class {rare!r} has {counts.min()} row; choosing a budget by CV needs at "
            "least 2 rows of each class"
        )
    warnings.warn(
        f"cv={cv} folds, but class {rare!r} of y has only {counts.min()} rows: "
        f"using {counts.min()} folds",
        UserWarning,
        stacklevel=4,
    )
    return int(counts.min())


def default_scoring(y, *, classifier: bool, ranking: bool) -> str:
    """The name of ``scorer``'s default score (for reports)."""
    if ranking:
        return f"ndcg@{NDCG_AT}"
    if not classifier:
        return "neg_root_mean_squared_error"
    return "roc_auc" if np.unique(y).size == 2 else "neg_log_loss"


def scorer(scoring, template, y, *, classifier: bool, ranking: bool):
    """``score(model, X, y, queries, weights)``: higher is better;
    ``weights`` (or None) weight the held-out rows, and a ranking's queries
    by their rows' mean weight, as the engine's metrics do. ``scoring``
    None is AUC for two classes, log loss over every class of ``y`` for
    more, RMSE for a regressor and NDCG@10 for a ranker (negated losses);
    else as in scikit-learn (a ranker's ``scoring`` is then called per fold
    without the queries)."""
    if scoring is not None:
        score = check_scoring(template, scoring=scoring)
        # A scorer (a name, make_scorer) takes the weights; a plain callable
        # only if its signature has sample_weight (scikit-learn's contract
        # for a scoring callable is (estimator, X, y)).
        weighs = not callable(scoring) or _takes_sample_weight(score)

        def given(model, X, y_true, queries, weights):
            if weights is None or not weighs:
                return score(model, X, y_true)
            return score(model, X, y_true, sample_weight=weights)

        return given
    if ranking:
        return lambda model, X, y_true, queries, weights: mean_ndcg(
            y_true, model.predict(X), queries, NDCG_AT, weights
        )
    if not classifier:
        return lambda model, X, y_true, queries, weights: (
            -float(np.sqrt(_mean((model.predict(X) - y_true) ** 2, weights)))
        )
    classes = np.unique(y)

    def score(model, X, y_true, queries, weights):
        proba = _proba_of(model, X, classes)
        if classes.size == 2:
            return float(roc_auc_score(y_true == classes[1], proba[:, 1], sample_weight=weights))
        return -float(log_loss(y_true, proba, labels=classes, sample_weight=weights))

    return score


def _takes_sample_weight(function) -> bool:
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):  # (no signature to read)
        return False
    return any(p.name == "sample_weight" or p.kind is p.VAR_KEYWORD for p in parameters)


def _mean(values, weights) -> float:
    """The (weighted) mean of ``values``; NaN when the weights sum to 0."""
    if weights is None:
        return float(np.mean(values))
    total = float(np.sum(weights))
    return float(np.dot(values, weights) / total) if total > 0 else float("nan")


def _proba_of(model, X, classes) -> np.ndarray:
    """``model``'s class probabilities as columns of ``classes`` (0 for a
    class the fold's training rows lacked)."""
    proba = model.predict_proba(X)
    full = np.zeros((proba.shape[0], classes.size))
    full[:, np.searchsorted(classes, model.classes_)] = proba
    return full


def mean_ndcg(relevance, score, queries, k: int, weights=None) -> float:
    """The mean over queries of NDCG@k, with gains 2^rel - 1 (LightGBM's);
    a query without a relevant row counts as 1, as in LightGBM. With
    ``weights``, each query counts by its rows' mean weight."""
    relevance = np.asarray(relevance, dtype=float)
    score = np.asarray(score, dtype=float)
    values, query_weights = [], []
    for q in np.unique(queries):
        rows = np.flatnonzero(queries == q)
        query_weights.append(1.0 if weights is None else float(np.mean(weights[rows])))
        gains = 2.0 ** relevance[rows] - 1.0
        discount = 1.0 / np.log2(np.arange(2, min(k, rows.size) + 2))
        ideal = np.sort(gains)[::-1][: discount.size] @ discount
        if ideal <= 0:
            values.append(1.0)
            continue
        # Ties in the score rank the less relevant row first (the
        # pessimistic order), so that a constant model earns no credit.
        order = np.lexsort((gains, -score[rows]))
        values.append(gains[order][: discount.size] @ discount / ideal)
    return _mean(np.array(values), None if weights is None else np.array(query_weights))


class _Rows:
    """The rows a fit sees: ``X``, ``y``, their ``weights`` (or None) and,
    for a ranking, one query id per row (the rows of a query consecutive)."""

    def __init__(self, X, y, queries=None, weights=None, cancel=None):
        self.X, self.y, self.queries, self.weights = X, y, queries, weights
        self.cancel = cancel

    def take(self, rows, cancel=None) -> _Rows:
        """The ``rows`` (indices, or ``slice(None)``: all, not copied) of
        these, stopped by ``cancel``."""
        if isinstance(rows, slice) and rows == slice(None):
            return _Rows(self.X, self.y, self.queries, self.weights, cancel)
        return _Rows(
            self.X[rows],
            self.y[rows],
            _part(self.queries, rows),
            _part(self.weights, rows),
            cancel,
        )

    def score(self, score, model, X=None) -> float:
        """``score`` (the CV's) of ``model`` on these rows (on ``X``, some
        of their columns, when given); NaN when their weights sum to 0."""
        if self.weights is not None and not self.weights.sum() > 0:
            return float("nan")
        X = self.X if X is None else X
        return score(model, X, self.y, self.queries, self.weights)

    def fit(self, model, X=None):
        """``model`` fitted on these rows (on ``X``, some of their columns,
        when given), with the query sizes for a ranker. With ``cancel`` (an
        event), the fit stops after the round in which it is set, and
        raises KeyboardInterrupt."""
        X = self.X if X is None else X
        callbacks = model.callbacks
        if self.cancel is not None:
            cancelled = self.cancel.is_set
            model.set_params(callbacks=[*(callbacks or ()), lambda report: cancelled()])
        if self.queries is None:
            model.fit(X, self.y, sample_weight=self.weights)
        else:
            sizes = query_sizes(self.queries)
            model.fit(X, self.y, group=sizes, sample_weight=self.weights)
        # The returned model keeps the caller's callbacks only (it may be
        # kept, and pickled).
        model.set_params(callbacks=callbacks)
        if self.cancel is not None and self.cancel.is_set():
            raise KeyboardInterrupt
        return model

    def split(self, fraction, rng, *, stratify: bool) -> tuple[_Rows, _Rows]:
        """(the rest, a held-out ``fraction``): of the rows (stratified by
        ``y`` when asked and possible) or, for a ranking, of the queries;
        (self, None) when there is only one."""
        units = self.y.size if self.queries is None else np.unique(self.queries).size
        if units < 2:
            return self, None
        if self.queries is None:
            n = self.y.size
            counts = np.unique(self.y, return_counts=True)[1]
            # Stratified when every class has 2 rows and each part room for
            # every class (as train_test_split requires), else not.
            held_rows = int(np.ceil(fraction * n))
            room = min(held_rows, n - held_rows) >= counts.size
            strata = self.y if stratify and counts.min() >= 2 and room else None
            kept, held = train_test_split(
                np.arange(n), test_size=fraction, random_state=rng.integers(2**31), stratify=strata
            )
        else:
            ids = np.unique(self.queries)
            _, held_ids = train_test_split(
                ids, test_size=fraction, random_state=rng.integers(2**31)
            )
            in_held = np.isin(self.queries, held_ids)
            kept, held = np.flatnonzero(~in_held), np.flatnonzero(in_held)
        return self.take(np.sort(kept), self.cancel), self.take(np.sort(held), self.cancel)

    def half(self, rng) -> _Rows:
        """Half the rows, or half the queries of a ranking, drawn by ``rng``."""
        if self.queries is None:
            n = self.y.size
            rows = np.sort(rng.choice(n, size=max(n // 2, 2), replace=False))
        else:
            ids = np.unique(self.queries)
            kept = rng.choice(ids, size=max(ids.size // 2, 1), replace=False)
            rows = np.flatnonzero(np.isin(self.queries, kept))
        return self.take(rows, self.cancel)


def _part(values, rows):
    return None if values is None else values[rows]
