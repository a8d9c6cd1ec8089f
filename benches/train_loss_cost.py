"""What recording the training loss costs a fit: the same estimator with
``record_train_loss`` False and True, alternated in one process (the trees
are the same; only the pass that computes the loss differs), on
``fit_speed.py``'s problems. Prints each setting's median fit time and the
median of the per-round ratios off / on. Run from the project root::

    python benches/train_loss_cost.py --rounds 15
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fit_speed import load  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--problems", default="small3,small50,multiclass,lambdarank")
    args = parser.parse_args()
    import sparseboost

    for problem in args.problems.split(","):
        X, y, group, trees, leaves, kind = load(problem)
        cls = (
            sparseboost.SparseBoostRanker if kind == "ranker" else sparseboost.SparseBoostClassifier
        )
        extra = {} if group is None else {"group": group}

        def fit(record):
            model = cls(
                penalty="none",
                n_estimators=trees,
                learning_rate=0.1,
                max_leaves=leaves,
                min_samples_leaf=20,
                n_jobs=2,
                random_state=0,
                record_train_loss=record,
            )
            return model.fit(X, y, **extra)

        same = np.array_equal(fit(False).predict(X), fit(True).predict(X))
        times = {False: [], True: []}
        for r in range(args.rounds):
            for record in (False, True) if r % 2 == 0 else (True, False):
                started = time.perf_counter()
                fit(record)
                times[record].append(time.perf_counter() - started)
        ratios = [a / b for a, b in zip(times[False], times[True])]
        print(
            f"{problem}: without the loss {statistics.median(times[False]):.4f} s, with it "
            f"{statistics.median(times[True]):.4f} s, ratio median {statistics.median(ratios):.3f} "
            f"(range {min(ratios):.2f}-{max(ratios):.2f}, {args.rounds} rounds); "
            f"same predictions: {same}",
            flush=True,
        )


if __name__ == "__main__":
    main()
