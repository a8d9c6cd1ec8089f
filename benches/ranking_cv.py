"""LambdaRank against LightGBM over query folds of LightGBM's ranking example.

The example's test split has only 50 queries, and both libraries fit the
training queries perfectly, so a single split's NDCG is noisy. This script
pools the 201 training and 50 test queries of ``../shared/data/lightgbm_lambdarank``
(relative to the project root), splits them into ``--folds`` folds by query
(seed 0), fits ``SparseBoostRanker(penalty="none")`` and ``lightgbm.LGBMRanker``
with the same settings (100 trees, 31 leaves, learning rate 0.1, 20 rows per
leaf, 2 threads) on the other folds, and prints the mean NDCG@1/3/5 of each
and the mean and standard deviation over folds of their difference. NDCG as
LightGBM computes it: gains 2^y - 1, discounts 1/log2(2 + rank), ties in
score in row order, a query without relevant rows counts 1. Run from the
project root::

    python benches/ranking_cv.py
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "lightgbm_lambdarank"


def load(part):
    from sklearn.datasets import load_svmlight_file

    X, y = load_svmlight_file(str(DATA / f"rank.{part}"), n_features=300, zero_based=False)
    return X.toarray(), y, np.loadtxt(DATA / f"rank.{part}.query", dtype=int)


def ndcg(y, scores, sizes, k):
    values, start = [], 0
    for size in sizes:
        yq, sq = y[start : start + size], scores[start : start + size]
        start += size
        discount = 1 / np.log2(np.arange(2, size + 2))
        dcg = ((2.0 ** yq[np.argsort(-sq, kind="stable")] - 1) * discount)[:k].sum()
        ideal = ((2.0 ** np.sort(yq)[::-1] - 1) * discount)[:k].sum()
        values.append(dcg / ideal if ideal > 0 else 1.0)
    return float(np.mean(values))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folds", type=int, default=5)
    args = parser.parse_args()
    import lightgbm
    import sparseboost

    parts = [load("train"), load("test")]
    X = np.vstack([p[0] for p in parts])
    y = np.concatenate([p[1] for p in parts])
    sizes = np.concatenate([p[2] for p in parts])
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    fold = np.random.default_rng(0).permutation(len(sizes)) % args.folds
    models = {
        "sparseboost": lambda: sparseboost.SparseBoostRanker(
            n_estimators=100, penalty="none", n_jobs=2, random_state=0
        ),
        "lightgbm": lambda: lightgbm.LGBMRanker(n_estimators=100, n_jobs=2, verbose=-1),
    }
    results = {name: [] for name in models}
    for f in range(args.folds):
        train_q, valid_q = np.flatnonzero(fold != f), np.flatnonzero(fold == f)

        def rows(queries):
            return np.concatenate([np.arange(starts[q], starts[q] + sizes[q]) for q in queries])

        train, valid = rows(train_q), rows(valid_q)
        for name, make in models.items():
            model = make().fit(X[train], y[train], group=sizes[train_q])
            scores = model.predict(X[valid])
            results[name].append([ndcg(y[valid], scores, sizes[valid_q], k) for k in (1, 3, 5)])
    for name, values in results.items():
        print(f"{name:12s} mean NDCG@1/3/5 {np.round(np.mean(values, axis=0), 4)}")
    diff = np.asarray(results["sparseboost"]) - np.asarray(results["lightgbm"])
    print(
        f"sparseboost - lightgbm: mean {np.round(diff.mean(axis=0), 4)}, "
        f"sd over folds {np.round(diff.std(axis=0, ddof=1), 4)}"
    )


if __name__ == "__main__":
    main()
