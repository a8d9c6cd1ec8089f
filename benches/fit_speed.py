"""Fit time against LightGBM on problems where the engine's costs outside
the split search dominate (issue 26: "cheap rounds"), alternated in one
process.

``compare_peers.py`` runs each library in its own process, one after the
other; on this shared 2-core machine LightGBM's timings swing by tens of
percent between runs. This script fits sparseboost (``penalty="none"``) and
LightGBM in turn, ``--rounds`` times, with equal settings (learning rate
0.1, 20 rows per leaf, 2 threads, 255 bins), and prints the median time of
each and the median of the per-round ratios sparseboost / LightGBM:

* ``small3`` and ``small50``: ``make_synthetic`` classification (y > median)
  of 20000 rows and 3 or 50 features, 200 trees of 15 leaves;
* ``multiclass``: LightGBM's multiclass example (7000 x 28, 5 classes), 100
  trees of 31 leaves;
* ``lambdarank``: LightGBM's LambdaRank example (3005 x 300, 201 queries),
  100 trees of 31 leaves.

The last two read ``../shared/data`` (relative to the project root). Run
from the project root::

    python benches/fit_speed.py --rounds 9
    python benches/fit_speed.py --rounds 9 --problems small3,lambdarank
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np

DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data"
PROBLEMS = ("small3", "small50", "multiclass", "lambdarank")


def load(problem):
    """(X, y, group or None, trees, leaves, kind)."""
    if problem.startswith("small"):
        from sparseboost.datasets import make_synthetic

        X, y = make_synthetic(20000, int(problem[5:]), random_state=0)
        return X, (y > np.median(y)).astype(int), None, 200, 15, "classifier"
    if problem == "multiclass":
        train = np.loadtxt(DATA / "lightgbm_multiclass" / "multiclass.train")
        return train[:, 1:], train[:, 0].astype(int), None, 100, 31, "classifier"
    from sklearn.datasets import load_svmlight_file

    rank = DATA / "lightgbm_lambdarank"
    X, y = load_svmlight_file(str(rank / "rank.train"), n_features=300, zero_based=False)
    group = np.loadtxt(rank / "rank.train.query", dtype=int)
    return X.toarray(), y, group, 100, 31, "ranker"


def fits(problem):
    """{library: a function that fits once}."""
    import lightgbm
    import sparseboost

    X, y, group, trees, leaves, kind = load(problem)
    common = {"n_estimators": trees, "learning_rate": 0.1, "n_jobs": 2}
    ours = {
        "classifier": sparseboost.SparseBoostClassifier,
        "ranker": sparseboost.SparseBoostRanker,
    }
    theirs = {"classifier": lightgbm.LGBMClassifier, "ranker": lightgbm.LGBMRanker}
    extra = {} if group is None else {"group": group}
    return {
        "sparseboost": lambda: ours[kind](
            penalty="none", max_leaves=leaves, min_samples_leaf=20, random_state=0, **common
        ).fit(X, y, **extra),
        "lightgbm": lambda: theirs[kind](
            num_leaves=leaves, min_child_samples=20, verbose=-1, **common
        ).fit(X, y, **extra),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--problems", type=lambda s: s.split(","), default=list(PROBLEMS))
    args = parser.parse_args()
    for problem in args.problems:
        fit = fits(problem)
        times = {library: [] for library in fit}
        for library in fit:  # warm-up: imports, first-call costs
            fit[library]()
        for r in range(args.rounds):
            # The order flips every round.
            for library in list(fit)[:: 1 if r % 2 == 0 else -1]:
                start = time.perf_counter()
                fit[library]()
                times[library].append(time.perf_counter() - start)
        ours, theirs = times["sparseboost"], times["lightgbm"]
        ratios = [a / b for a, b in zip(ours, theirs)]
        print(
            f"{problem}: sparseboost {statistics.median(ours):.3f} s, lightgbm "
            f"{statistics.median(theirs):.3f} s, ratio median {statistics.median(ratios):.3f} "
            f"(range {min(ratios):.2f}-{max(ratios):.2f}, {args.rounds} rounds)",
            flush=True,
        )


if __name__ == "__main__":
    main()
