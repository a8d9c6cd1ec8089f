"""``--n-features auto`` (the default): the budget K chosen by
cross-validation on the fit rows, with ``SparseBoostSelectorCV`` over the
method's own order of the features (the order they enter the penalised
booster; gain importance for ``topk``). The method then runs with that K as
if it had been given, and ``metrics.json`` records how K was chosen.

The columns are then those CV kept (the first K of the order on all fit
rows), and the model is a booster without penalty on them, as for the
selectors: a penalised fit given the budget K might admit fewer than K
(its μ stops it first), and then K would not be what CV chose.

The rows used are the fit rows only: the validation rows stay for early
stopping and the report, the test rows for the test metrics.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np

from .. import _cv
from . import methods
from .errors import CliError

# The largest budget CV considers (the grid 1, 2, 3, 5, 8, 13, 20, 30).
AUTO_CAP = 30
FOLDS = 5
# Fewest features within one standard error of the best CV mean: a
# feature-selection user asks for few features, and on 5 folds the
# differences between neighbouring budgets are mostly noise.
RULE = "one_se"
# The methods whose order CV can rank: the boosters by entry, topk by gain.
ORDER = {**{m: "entry" for m in methods.BOOSTERS}, "topk": "unpenalised"}


@dataclass
class Budget:
    chosen_by: str  # "cv", "user", or "default" (a method CV cannot rank)
    k: int | None
    cv: list = field(default_factory=list)  # [{"k", "mean", "std"}] per order
    order: str | None = None
    rule: str | None = None
    folds: int | None = None
    scoring: str | None = None
    selected: np.ndarray | None = None  # the columns CV kept, in its order

    def record(self) -> dict:
        """The ``budget`` entry of ``metrics.json``."""
        record = {"chosen_by": self.chosen_by, "k": self.k}
        if self.chosen_by == "cv":
            record.update(
                cv=self.cv, order=self.order, rule=self.rule, folds=self.folds, scoring=self.scoring
            )
        return record


def choose(
    n_features, method, task, X, y, groups, *, mu, bags, random_state, categorical, costs, n_jobs
) -> Budget:
    """The budget: ``n_features`` when it is a number (None: no budget,
    the penalty alone decides; a selector, which has none, keeps its
    default count), else chosen by CV."""
    if n_features is None:
        if method not in methods.BOOSTERS:
            return Budget("default", methods.DEFAULT_COUNT)
        return Budget("user", None)
    if n_features != "auto":
        return Budget("user", int(n_features))
    if method not in ORDER:
        return Budget("default", methods.DEFAULT_COUNT)
    if groups is not None and len(groups) < 2:
        # (groups: the fit rows' query sizes.)
        raise CliError(
            "--n-features auto: the fit rows (what the test and validation splits leave) "
            f"hold {len(groups)} query of --group, and choosing the budget by CV needs 2 at "
            "least; give a table of more queries or an integer --n-features"
        )
    from ..selector_cv import SparseBoostSelectorCV

    template = methods.booster_class(task)(
        **methods.BOOSTER_DEFAULTS,
        **methods.penalty_params(
            "agbm" if method == "topk" else method,
            mu=mu,
            n_features=None,
            bags=bags,
            random_state=random_state,
        ),
        feature_costs=costs if method != "topk" else None,
        n_jobs=n_jobs,
    )
    if method == "topk":
        # Its order comes from the unpenalised fit; the penalised one only
        # has to run (a tenth of mu_max admits a few features on any data).
        template.set_params(mu="0.1*mu_max")
    selector = SparseBoostSelectorCV(
        template,
        max_selected_features=min(AUTO_CAP, X.shape[1]),
        order=ORDER[method],
        cv=FOLDS,
        rule=RULE,
        random_state=random_state,
        categorical_features=list(categorical) or None,
    )
    try:
        with warnings.catch_warnings():
            # An empty choice is the command's error, with its cause
            # (methods.nothing_selected), not a warning before it.
            warnings.filterwarnings("ignore", "no split is possible", UserWarning)
            if groups is None:
                selector.fit(X, y)
            else:
                selector.fit(X, y, group=groups)
    except ValueError as e:
        raise CliError(f"--n-features auto: {e}") from None
    results = selector.cv_results_
    n_folds = sum(key.startswith("split") for key in results)
    cv = [
        {
            "order": str(order),
            "k": int(k),
            "mean": float(mean),
            "std": float(std),
        }
        for order, k, mean, std in zip(
            results["order"],
            results["budget"],
            results["mean_test_score"],
            results["std_test_score"],
        )
    ]
    return Budget(
        "cv",
        int(selector.n_features_),
        cv,
        order=selector.order_,
        rule=RULE,
        folds=n_folds,
        scoring=_cv.default_scoring(
            y, classifier=task == "classification", ranking=task == "ranking"
        ),
        selected=np.asarray(selector.selected_features_, dtype=np.intp),
    )
