"""How much faster dynamic feature sampling of m = 3 of 50 features fits
than all features (issue 26's target: >= 5x at >= 0.99 of the accuracy,
the accuracy being measured by ``reweighting.py``).

``make_friedman_random(20000, 50, K=4, "classification", random_state=0)``,
the first 3/5 of the rows (as ``reweighting.py`` splits them);
``SparseBoostClassifier(penalty="none", n_estimators=200, max_leaves=15)``
with all features against ``colsample_bytree=3,
feature_sampling="dynamic", reweight_rate=1``. The two alternate in one
process for ``--rounds`` rounds after one warm-up fit each; medians and
their ratio are printed. Run from the project root::

    python benches/dynamic_speed.py --rounds 15
"""

from __future__ import annotations

import argparse
import statistics
import time

from sparseboost import SparseBoostClassifier
from sparseboost.datasets import make_friedman_random


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    X, y = make_friedman_random(20000, 50, 4, "classification", random_state=0)
    X, y = X[:12000], y[:12000]
    common = dict(
        penalty="none", n_estimators=200, learning_rate=0.1, max_leaves=15, random_state=0
    )
    fits = {
        "all features": lambda: SparseBoostClassifier(**common).fit(X, y),
        "dynamic m=3": lambda: SparseBoostClassifier(
            colsample_bytree=3, feature_sampling="dynamic", reweight_rate=1.0, **common
        ).fit(X, y),
    }
    times = {name: [] for name in fits}
    for fit in fits.values():
        fit()
    for r in range(args.rounds):
        for name in list(fits)[:: 1 if r % 2 == 0 else -1]:
            start = time.perf_counter()
            fits[name]()
            times[name].append(time.perf_counter() - start)
    medians = {name: statistics.median(t) for name, t in times.items()}
    print(
        ", ".join(f"{name} {m:.4f} s" for name, m in medians.items())
        + f"; speed-up {medians['all features'] / medians['dynamic m=3']:.2f}x "
        f"({args.rounds} rounds)"
    )


if __name__ == "__main__":
    main()
