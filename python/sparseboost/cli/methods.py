"""The selection methods ``sparseboost select --method`` offers, each turned
into the same result: the encoded columns it selected (in the order they
entered, or by rank for the selectors that rank), and a fitted booster that
``predict`` can save and reload.

The boosters (agbm, gbfs, gt, dynamic) select while they fit, and that fit
is the model. The other selectors (topk, forest, linear, twopass) only
choose columns; a booster without penalty is then fitted on those columns
(in selection order), and the model file records which encoded columns it
takes (``model_columns``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..estimators import SparseBoostClassifier, SparseBoostRegressor
from ..ranker import SparseBoostRanker
from .errors import CliError

METHODS = ("agbm", "gbfs", "gt", "topk", "forest", "dynamic", "linear", "twopass")
BOOSTERS = ("agbm", "gbfs", "gt", "dynamic")
# The booster settings of the command line: fewer, smaller trees than the
# library's defaults so that a run on a laptop takes about a minute.
BOOSTER_DEFAULTS = {"n_estimators": 200, "learning_rate": 0.1, "max_leaves": 15}
# Rounds without improvement on the validation rows (carved from the
# training rows) after which a fit stops and keeps its best round: every
# extra round can only add features that no longer help.
EARLY_STOPPING_ROUNDS = 20
# When neither --n-features nor --mu bounds a selector that needs a count.
DEFAULT_COUNT = 10


@dataclass
class Fitted:
    model: object  # a fitted sparseboost booster
    selected: np.ndarray  # encoded column indices, entry (or rank) order
    model_columns: np.ndarray | None  # columns the model takes; None: all


def booster_class(task: str):
    return {
        "regression": SparseBoostRegressor,
        "classification": SparseBoostClassifier,
        "ranking": SparseBoostRanker,
    }[task]


def fit_booster(task, X, y, groups, eval_set, *, callbacks=None, **params):
    """Fit the task's booster; ``groups`` are query sizes (ranking)."""
    model = booster_class(task)(**{**BOOSTER_DEFAULTS, **params}, callbacks=callbacks)
    fit_kwargs = {}
    if eval_set is not None:
        X_val, y_val, groups_val = eval_set
        fit_kwargs["eval_set"] = [(X_val, y_val)]
        model.set_params(early_stopping_rounds=EARLY_STOPPING_ROUNDS)
        if task == "ranking":
            fit_kwargs["eval_group"] = [groups_val]
    if task == "ranking":
        return model.fit(X, y, groups, **fit_kwargs)
    return model.fit(X, y, **fit_kwargs)


def nothing_selected(method, n_rows: int, mu_max: float | None) -> CliError:
    """The error of a selection without any column, with its cause when
    known: rows too few for two leaves of ``min_samples_leaf`` (then no
    split is possible, ``mu_max`` = 0), or a penalty that admitted none
    (``mu_max`` > 0; None when the fit did not measure it: no penalty, or
    group testing with an absolute mu)."""
    leaf = SparseBoostRegressor().min_samples_leaf
    if n_rows < 2 * leaf:
        why = (
            f": no split is possible, the {n_rows} fit rows are too few for two leaves of "
            f"min_samples_leaf={leaf} rows (the fit rows are what --test-size and the "
            "validation part leave of the table)"
        )
    elif mu_max is None:
        why = ""
    elif mu_max > 0:
        why = ": no feature paid the penalty; give a smaller --mu"
    else:
        why = ": no split is possible on the fit rows"
    return CliError(f"--method {method} selected no feature{why}")


def penalty_params(method, *, mu, n_features, bags, random_state) -> dict:
    """The booster parameters of a penalised method."""
    params = {
        "penalty": "gbfs" if method == "gbfs" else "agbm",
        "max_selected_features": n_features,
        "feature_bags": bags,
        "random_state": random_state,
        "split_search": "group_testing" if method == "gt" else "auto",
    }
    if mu is not None:
        params["mu"] = mu
    elif method == "gbfs":
        # gbfs's μ is in gain units, which differ between data sets; a
        # fraction of mu_max means the same on any data.
        params["mu"] = "0.05*mu_max"
    if method == "dynamic":
        params.update(feature_sampling="dynamic", colsample_bytree=0.3)
    return params


def run(
    method,
    task,
    X,
    y,
    groups,
    eval_set,
    *,
    mu,
    n_features,
    bags,
    random_state,
    callbacks,
    categorical=(),
    costs=None,
    n_jobs=None,
    selected=None,
):
    """Fit ``method`` on the training rows; ``eval_set`` is
    ``(X_val, y_val, groups_val)``, watched after every round.
    ``categorical``: the encoded columns that are categorical features;
    ``costs``: what each encoded column costs (the penalised methods);
    ``selected``: columns already chosen (by CV with the method's order),
    which only need the model."""
    common = {"random_state": random_state, "n_jobs": n_jobs}
    if selected is None and method in BOOSTERS:
        params = penalty_params(
            method, mu=mu, n_features=n_features, bags=bags, random_state=random_state
        )
        params.update(common, categorical_features=list(categorical) or None, feature_costs=costs)
        model = fit_booster(task, X, y, groups, eval_set, callbacks=callbacks, **params)
        if len(model.selected_features_) == 0:
            raise nothing_selected(method, len(y), model.mu_max_)
        return Fitted(model, model.selected_features_, None)
    if task == "ranking" and method not in (*BOOSTERS, "topk"):
        raise CliError(f"--method {method} does not rank; use agbm, gbfs, gt, dynamic or topk")
    from_cv = selected is not None
    if selected is None:
        count = n_features or DEFAULT_COUNT
        selected = _select(method, task, X, y, groups, count, categorical, common)
    if len(selected) == 0:
        # A CV budget of no column means no split was possible (mu_max = 0).
        raise nothing_selected(method, len(y), 0.0 if from_cv else None)
    columns = np.asarray(selected, dtype=np.intp)
    # The categorical columns among the kept ones, by position there.
    kept_categorical = [i for i, c in enumerate(columns) if c in set(categorical)]
    model = fit_booster(
        task,
        _columns(X, columns),
        y,
        groups,
        None if eval_set is None else (_columns(eval_set[0], columns), *eval_set[1:]),
        callbacks=callbacks,
        penalty="none",
        categorical_features=kept_categorical or None,
        **common,
    )
    return Fitted(model, columns, columns)


def check_complete(method, X, origins) -> None:
    """The least-squares methods (linear, twopass) need every cell: name
    the columns with missing ones before anything is fitted."""
    if method not in ("linear", "twopass"):
        return
    import scipy.sparse as sp

    if sp.issparse(X):
        stored = X.tocoo()
        missing = np.zeros(X.shape[1], dtype=bool)
        missing[stored.col[np.isnan(stored.data)]] = True
    else:
        missing = np.isnan(X).any(axis=0)
    if not missing.any():
        return
    names = list(dict.fromkeys(str(origins[j]) for j in np.flatnonzero(missing)))
    raise CliError(
        f"--method {method} needs a value in every cell, but column(s) {names[:5]} "
        f"{'(and more) ' if len(names) > 5 else ''}have missing ones: fill them, drop the "
        "columns (--drop), or use a boosting method (they take missing values)"
    )


def _select(method, task, X, y, groups, count, categorical, common) -> np.ndarray:
    """The columns a selector keeps, best (or first) first, at most ``count``
    (the linear and two-pass selectors read categorical codes as numbers)."""
    categorical = list(categorical) or None
    if method == "topk":
        plain = fit_booster(
            task, X, y, groups, None, penalty="none", categorical_features=categorical, **common
        )
        gains = plain.get_feature_importance("gain")
        order = np.argsort(-gains, kind="stable")
        return order[gains[order] > 0][:count]
    if method == "forest":
        from ..forest import SparseForestClassifier, SparseForestRegressor

        cls = SparseForestClassifier if task == "classification" else SparseForestRegressor
        forest = cls(n_estimators=100, categorical_features=categorical, **common).fit(X, y)
        return forest.selected_features_[:count]
    if method == "linear":
        from ..linear_forward import LinearForwardSelector

        if task == "classification":
            y = np.asarray(y).astype(str)  # rank classes as classes, not as numbers
        selector = LinearForwardSelector(n_features_to_select=min(count, X.shape[1])).fit(X, y)
        return selector.order_[: selector.n_features_to_select_]
    if method == "twopass":
        from ..two_pass import TwoPassForwardSelector

        if task != "classification" or len(np.unique(y)) != 2:
            raise CliError("--method twopass needs a binary classification target")
        return TwoPassForwardSelector().fit(X, y).selected_features_[:count]
    raise CliError(f"--method must be one of {', '.join(METHODS)}, got {method!r}")


def _columns(X, columns):
    """``X[:, columns]`` (a scipy sparse matrix stays sparse)."""
    return X[:, columns]
