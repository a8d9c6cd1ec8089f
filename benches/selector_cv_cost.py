"""What choosing the budget by cross-validation costs: the whole
``SparseBoostSelectorCV`` fit (5 folds, its default budgets and orders, final ordering
fit and refit) against one fit of the same A-GBM booster on all features.
Target (issue 28): <= 5x with the defaults (the budget grid, folds side by side under
n_jobs, refits that stop early).

The two are alternated ``--rounds`` times and the median of the per-round
ratios is printed (the machine is shared and noisy; only ratios from the
same round mean much). Settings: the selection_quality protocol (300 trees,
learning rate 0.05, 15 leaves, 5 rows per leaf, mu="0.05*mu_max").

    python benches/selector_cv_cost.py
    python benches/selector_cv_cost.py --datasets madelon --caps 20 --rounds 5
    python benches/selector_cv_cost.py --caps 20 --order entry,importance
    python benches/selector_cv_cost.py --caps 20 --rounds 1 --breakdown

``--breakdown`` runs the CV path with ``n_jobs=1`` instead and prints the
seconds of each kind of fit in it, summed: the penalised fits, the
extension fits at smaller mu, the unpenalised ranking's fits, the refits
(the folds' and the final one), and everything else.
"""

from __future__ import annotations

import argparse
import collections
import sys
import time
from pathlib import Path

import numpy as np
import sparseboost as sb

sys.path.insert(0, str(Path(__file__).resolve().parent))
from selection_quality import PROTOCOL, splits  # noqa: E402


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", default="madelon,dexter,adult")
    parser.add_argument("--caps", default="10,20")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--order", default=None, help="comma-separated orders (the selector's default if not given)"
    )
    parser.add_argument("--breakdown", action="store_true")
    args = parser.parse_args(argv)
    if args.breakdown:
        return breakdown(args)
    booster = sb.SparseBoostClassifier(**PROTOCOL, mu="0.05*mu_max", random_state=0)
    for name in args.datasets.split(","):
        X, y, _, _ = splits(name)[0][0]
        for cap in (int(c) for c in args.caps.split(",")):
            one, whole, ratios = [], [], []
            for _ in range(args.rounds):
                t = time.perf_counter()
                sb.SparseBoostClassifier(**booster.get_params()).fit(X, y)
                one.append(time.perf_counter() - t)
                t = time.perf_counter()
                orders = {} if args.order is None else {"order": tuple(args.order.split(","))}
                selector = sb.SparseBoostSelectorCV(
                    booster, max_selected_features=cap, cv=5, **orders
                ).fit(X, y)
                whole.append(time.perf_counter() - t)
                ratios.append(whole[-1] / one[-1])
            print(
                f"{name} {X.shape[0]} x {X.shape[1]}, B <= {cap}: one fit {np.median(one):.2f} s, "
                f"CV path {np.median(whole):.2f} s (ordering {selector.timings_['ordering']:.1f} s, "
                f"refits {selector.timings_['refits']:.1f} s in the last round); "
                f"ratio median {np.median(ratios):.2f} (range {min(ratios):.2f}-{max(ratios):.2f}, "
                f"{args.rounds} rounds)",
                flush=True,
            )


def breakdown(args):
    """The CV path on one thread, its seconds by kind of fit."""
    from sparseboost import selector_cv

    spent, calls = collections.Counter(), collections.Counter()

    def timed(owner, name, label):
        inner = getattr(owner, name)

        def wrapper(*a, **k):
            started = time.perf_counter()
            try:
                return inner(*a, **k)
            finally:
                spent[label] += time.perf_counter() - started
                calls[label] += 1

        setattr(owner, name, wrapper)

    timed(selector_cv, "_penalised_fit", "penalised")
    timed(selector_cv.SparseBoostSelectorCV, "_extend", "extension")
    timed(selector_cv, "_ranked_by_gain", "unpenalised")
    timed(selector_cv.SparseBoostSelectorCV, "_refit", "refits")
    booster = sb.SparseBoostClassifier(**PROTOCOL, mu="0.05*mu_max", random_state=0)
    for name in args.datasets.split(","):
        X, y, _, _ = splits(name)[0][0]
        for cap in (int(c) for c in args.caps.split(",")):
            spent.clear()
            calls.clear()
            started = time.perf_counter()
            sb.SparseBoostSelectorCV(booster, max_selected_features=cap, cv=5, n_jobs=1).fit(X, y)
            total = time.perf_counter() - started
            parts = ", ".join(f"{k} {spent[k]:.2f} s ({calls[k]} calls)" for k in spent)
            rest = total - sum(spent.values())
            print(f"{name}, B <= {cap}, n_jobs=1: {total:.2f} s = {parts}, the rest {rest:.2f} s")


if __name__ == "__main__":
    main()
