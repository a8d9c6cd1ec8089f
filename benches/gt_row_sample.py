"""What group tests on a row sample (``gt_max_rows``) cost and save.

GT-GBM (A-GBM, mu = 0.01, s = 3, delta = 0.1, 100 trees, 2 threads) on the
synthetic problem, with each cap of ``--caps`` ("all" = no cap): median fit
time over seeds x repeats, the features selected for each seed, and the mean
test RMSE over seeds (test set: a separate draw, seed 1, 1200 rows). The
caps take turns within each repeat, so the machine's drift hits all alike.

Run from the project root::

    python benches/gt_row_sample.py                      # 6000 x 5000, 4 seeds, 2 repeats
    python benches/gt_row_sample.py --caps all,1000 --seeds 2 --repeats 1
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


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=6000)
    p.add_argument("--d", type=int, default=5000)
    p.add_argument("--caps", default="all,4000,2000,1000")
    p.add_argument("--seeds", type=int, default=4)
    p.add_argument("--repeats", type=int, default=2)
    args = p.parse_args(argv)
    print("$ python " + shlex.join(sys.argv), flush=True)
    caps = [None if c == "all" else int(c) for c in args.caps.split(",")]
    X, y = make_synthetic(args.n, args.d, random_state=0)
    X_test, y_test = make_synthetic(1200, args.d, random_state=1)
    times = {cap: [] for cap in caps}
    rmse = {cap: {} for cap in caps}
    features = {cap: {} for cap in caps}
    for _ in range(args.repeats):
        for seed in range(args.seeds):
            for cap in caps:
                model = SparseBoostRegressor(
                    split_search="group_testing",
                    gt_n_features=3,
                    gt_delta=0.1,
                    gt_max_rows=cap,
                    penalty="agbm",
                    mu=0.01,
                    n_jobs=2,
                    random_state=seed,
                )
                start = time.perf_counter()
                model.fit(X, y)
                times[cap].append(time.perf_counter() - start)
                error = model.predict(X_test) - y_test
                rmse[cap][seed] = float(np.sqrt(np.mean(error**2)))
                features[cap][seed] = sorted(int(f) for f in model.selected_features_)
    base = statistics.median(times[caps[0]])
    print(f"\n{args.n} x {args.d}, {args.seeds} seeds x {args.repeats} repeats")
    print("| gt_max_rows | median fit s | vs first | mean test RMSE | features per seed |")
    print("|---|---|---|---|---|")
    for cap in caps:
        t = statistics.median(times[cap])
        print(
            f"| {cap or 'all'} | {t:.2f} | {t / base:.2f} | "
            f"{statistics.mean(rmse[cap].values()):.4f} | {list(features[cap].values())} |"
        )


if __name__ == "__main__":
    main()
