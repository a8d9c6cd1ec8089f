"""Fit time of multiclass and LambdaRank against LightGBM, alternated.

``compare_peers.py`` runs each library in its own process, one after the
other; on this shared 2-core machine LightGBM's timings swing by tens of
percent between runs. This script fits sparseboost (``penalty="none"``) and
LightGBM in turn in one process, ``--rounds`` times, on LightGBM's multiclass
example (7000 x 28, 5 classes) and its LambdaRank example (3005 x 300, 201
queries) from ``../shared/data`` (relative to the project root), with equal
settings (100 trees, 31 leaves, learning rate 0.1, 20 rows per leaf, 2
threads), and prints the median time of each and the median of the
per-round ratios sparseboost / LightGBM. Run from the project root::

    python benches/objectives_speed.py --rounds 9
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np

DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9)
    args = parser.parse_args()
    import lightgbm
    import sparseboost
    from sklearn.datasets import load_svmlight_file

    train = np.loadtxt(DATA / "lightgbm_multiclass" / "multiclass.train")
    X, y = train[:, 1:], train[:, 0].astype(int)
    rank = DATA / "lightgbm_lambdarank"
    Xr, yr = load_svmlight_file(str(rank / "rank.train"), n_features=300, zero_based=False)
    Xr, group = Xr.toarray(), np.loadtxt(rank / "rank.train.query", dtype=int)
    common = {"n_estimators": 100, "learning_rate": 0.1, "n_jobs": 2}
    fits = {
        ("multiclass", "sparseboost"): lambda: sparseboost.SparseBoostClassifier(
            penalty="none", max_leaves=31, min_samples_leaf=20, random_state=0, **common
        ).fit(X, y),
        ("multiclass", "lightgbm"): lambda: lightgbm.LGBMClassifier(
            num_leaves=31, min_child_samples=20, verbose=-1, **common
        ).fit(X, y),
        ("lambdarank", "sparseboost"): lambda: sparseboost.SparseBoostRanker(
            penalty="none", max_leaves=31, min_samples_leaf=20, random_state=0, **common
        ).fit(Xr, yr, group=group),
        ("lambdarank", "lightgbm"): lambda: lightgbm.LGBMRanker(
            num_leaves=31, min_child_samples=20, verbose=-1, **common
        ).fit(Xr, yr, group=group),
    }
    times = {key: [] for key in fits}
    for _ in range(args.rounds):
        for key, fit in fits.items():
            start = time.perf_counter()
            fit()
            times[key].append(time.perf_counter() - start)
    for problem in ("multiclass", "lambdarank"):
        ours, theirs = times[(problem, "sparseboost")], times[(problem, "lightgbm")]
        ratios = [a / b for a, b in zip(ours, theirs)]
        print(
            f"{problem}: sparseboost {statistics.median(ours):.3f} s, lightgbm "
            f"{statistics.median(theirs):.3f} s, ratio median {statistics.median(ratios):.3f} "
            f"(range {min(ratios):.2f}-{max(ratios):.2f}, {args.rounds} rounds)"
        )


if __name__ == "__main__":
    main()
