"""How GT-GBM's fit time grows with the number of features d at fixed n.

The issue's target: going from d = 5000 to d = 10000 at n = 6000 raises
GT-GBM's fit time by at most 1.3x (LightGBM's roughly doubles). On a noisy
2-core machine whose speed drifts by tens of percent over minutes, times
taken minutes apart do not give a ratio, so the shapes take turns: each
round fits every shape once, and the ratio is the median over rounds of the
within-round ratios (the medians of the times are printed too).

Problem: ``make_synthetic`` (three relevant features) at n x d; GT-GBM with
A-GBM (mu = 0.01), s = 3, delta = 0.1, 100 trees, 31 leaves, 2 threads.
``--lightgbm`` adds LightGBM (same settings as ``compare_peers.py``) to each
round (about 50 s and 100 s per fit).

Run from the project root::

    python benches/gt_scaling.py                     # 5 rounds, d = 5000, 10000
    python benches/gt_scaling.py --rounds 1 --lightgbm
    python benches/gt_scaling.py --d 5000,100000 --dtype float32   # the issue-26 target

Each GT-GBM fit's first three selected features are printed (the planted
ones are 0, 1 and 2).
"""

from __future__ import annotations

import argparse
import shlex
import statistics
import sys
import time

import numpy as np
from sparseboost import SparseBoostRegressor
from sparseboost.datasets import make_synthetic


def gt_model():
    return SparseBoostRegressor(
        split_search="group_testing",
        gt_n_features=3,
        gt_delta=0.1,
        penalty="agbm",
        mu=0.01,
        n_estimators=100,
        max_leaves=31,
        n_jobs=2,
        random_state=0,
    )


def lightgbm_model():
    import lightgbm as lgb

    return lgb.LGBMRegressor(
        n_estimators=100,
        learning_rate=0.1,
        num_leaves=31,
        max_bin=255,
        min_child_samples=20,
        n_jobs=2,
        random_state=0,
        verbose=-1,
    )


def seconds_to_fit(model, X, y):
    start = time.perf_counter()
    model.fit(X, y)
    return time.perf_counter() - start


def first_selected(model):
    """The first three features a sparseboost fit selected ("-" for others)."""
    chosen = getattr(model, "selected_features_", None)
    return "-" if chosen is None else ",".join(str(f) for f in chosen[:3])


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=6000)
    p.add_argument("--d", type=lambda t: [int(v) for v in t.split(",")], default=[5000, 10000])
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--lightgbm", action="store_true")
    p.add_argument("--dtype", choices=["float64", "float32"], default="float64")
    args = p.parse_args(argv)
    print("$ python " + shlex.join(sys.argv), flush=True)
    dtype = np.dtype(args.dtype)
    data = {d: make_synthetic(args.n, d, random_state=0, dtype=dtype) for d in args.d}
    makers = {"gt-gbm": gt_model} | ({"lightgbm": lightgbm_model} if args.lightgbm else {})
    times = {(lib, d): [] for lib in makers for d in args.d}
    for r in range(args.rounds):
        fits = []
        for lib, make in makers.items():
            for d in args.d:
                model = make()
                times[lib, d].append(seconds_to_fit(model, *data[d]))
                fits.append(f"{lib} d={d} {times[lib, d][-1]:.2f} s [{first_selected(model)}]")
        print(f"round {r + 1}: " + ", ".join(fits), flush=True)
    base = args.d[0]
    print(
        f"\nn = {args.n}, {args.rounds} rounds; fit seconds (median) and time ratio to d = {base}"
        " (median of the within-round ratios)"
    )
    print("| library | d | fit s | ratio |\n|---|---|---|---|")
    for (lib, d), t in times.items():
        ratios = np.array(t) / np.array(times[lib, base])
        print(f"| {lib} | {d} | {statistics.median(t):.2f} | {statistics.median(ratios):.2f} |")


if __name__ == "__main__":
    main()
