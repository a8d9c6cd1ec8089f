"""What the feature-selection machinery costs in fit time.

Times sparseboost fits on the engine benchmark shapes (the synthetic problem
at 100000 x 100 and 6000 x 5000; 100 trees, 31 leaves, 2 threads) with:

* ``none``: the plain engine;
* ``agbm mu=1e-12``: A-GBM with a penalty too small to change a split, so the
  trees are the plain engine's and the difference is the penalty's bookkeeping
  (per-leaf candidate lists, re-scoring when a feature enters);
* ``agbm mu=0.01`` and ``gbfs mu=10``: realistic penalties (fewer features,
  different trees; usually faster).

Prints the median fit time of each and its ratio to ``none`` from the same
run; the configurations take turns within each repeat. Run from the project root::

    python benches/penalty_overhead.py
    python benches/penalty_overhead.py --shapes 100000x100 --repeats 5
"""

from __future__ import annotations

import argparse
import shlex
import statistics
import sys
import time

from sparseboost import SparseBoostRegressor
from sparseboost.datasets import make_synthetic

CONFIGS = [
    ("none", {"penalty": "none"}),
    ("agbm mu=1e-12", {"penalty": "agbm", "mu": 1e-12}),
    ("agbm mu=0.01", {"penalty": "agbm", "mu": 0.01}),
    ("gbfs mu=10", {"penalty": "gbfs", "mu": 10.0}),
]


def fit_seconds(X, y, params):
    model = SparseBoostRegressor(
        n_estimators=100, max_leaves=31, n_jobs=2, random_state=0, **params
    )
    start = time.perf_counter()
    model.fit(X, y)
    return time.perf_counter() - start, len(model.selected_features_)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--shapes", default="100000x100,6000x5000")
    p.add_argument("--repeats", type=int, default=3)
    args = p.parse_args(argv)
    print("$ python " + shlex.join(sys.argv))
    for shape in args.shapes.split(","):
        n, d = (int(v) for v in shape.split("x"))
        X, y = make_synthetic(n, d, random_state=0)
        print(f"\n== {n} x {d}, median of {args.repeats} fit(s)")
        print(f"{'penalty':16s} {'fit s':>8s} {'ratio':>6s} {'features':>8s}")
        # Configurations take turns, so that a slow spell of the noisy
        # machine hits all of them alike.
        times = {name: [] for name, _ in CONFIGS}
        n_used = {}
        for _ in range(args.repeats):
            for name, params in CONFIGS:
                seconds, n_used[name] = fit_seconds(X, y, params)
                times[name].append(seconds)
        base = statistics.median(times[CONFIGS[0][0]])
        for name, _ in CONFIGS:
            seconds = statistics.median(times[name])
            print(f"{name:16s} {seconds:8.3f} {seconds / base:6.2f} {n_used[name]:8d}", flush=True)


if __name__ == "__main__":
    main()
