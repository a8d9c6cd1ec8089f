"""How good are the features each method selects, and what do they cost?

For each problem it fits, on the training rows, and scores on held-out rows:

* ``lgbm``: plain LightGBM on all features;
* ``lgbm-topK``: LightGBM refit on the K features with the largest gain in
  the plain model (the papers' GBDT-topK baseline), for K in ``--top-k``;
* ``lgbm-cegb``: LightGBM's cost-effective boosting with
  ``cegb_penalty_feature_coupled=[mu]*d`` (the GBFS penalty), over the GBFS grid;
* ``sb-gbfs``: sparseboost with ``penalty="gbfs"`` over the same grid of mu;
* ``sb-agbm``: sparseboost with ``penalty="agbm"`` over the A-GBM grid of mu.

It reports the number of features the model uses, the held-out metric
(AUC for classification, RMSE for regression) and the fit time (one fit; the
machine is noisy, so compare within a run).

Problems:

* ``madelon``: ``../shared/data/madelon``, train (2000 x 500) vs valid (600);
  20 of the 500 features are relevant (5 informative + 15 combinations).
* ``synthetic``: ``sparseboost.datasets.make_synthetic`` at 10000 x 1000 (test:
  5000 rows of another draw); 3 relevant features.

Run from the project root (needs lightgbm: ``pip install ".[bench]"``)::

    python benches/selection_quality.py
    python benches/selection_quality.py --problems madelon --n-estimators 600 \
        --min-samples-leaf 10 --subsample 0.7 --gbfs-mu 10,20,30 --agbm-mu 0.01,0.02,0.03
    python benches/selection_quality.py --problems synthetic --n-estimators 100 \
        --learning-rate 0.1 --gbfs-mu 10,30,100 --agbm-mu 0.005,0.01,0.02

Every method gets the same booster settings. The Madelon settings above were
picked by looking at the valid set among six candidates (see the closing note
of issue 3), so its AUCs are optimistic for every method alike.
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from pathlib import Path

import lightgbm as lgb
import numpy as np
import sparseboost as sb
from sklearn.metrics import roc_auc_score
from sparseboost.datasets import make_synthetic

DATA_DIR = Path(__file__).resolve().parent.parent.parent / "shared" / "data"


def load_problem(name):
    """(X_train, y_train, X_test, y_test, task) of a problem."""
    if name == "madelon":
        folder = DATA_DIR / "madelon"
        X = np.loadtxt(folder / "madelon_train.data")
        y = (np.loadtxt(folder / "madelon_train.labels") > 0).astype(int)
        X_test = np.loadtxt(folder / "madelon_valid.data")
        y_test = (np.loadtxt(folder / "madelon_valid.labels") > 0).astype(int)
        return X, y, X_test, y_test, "classification"
    if name == "synthetic":
        X, y = make_synthetic(10000, 1000, random_state=0)
        X_test, y_test = make_synthetic(5000, 1000, random_state=1)
        return X, y, X_test, y_test, "regression"
    raise SystemExit(f"unknown problem {name!r}")


def score(model, X, y, task):
    if task == "classification":
        return roc_auc_score(y, model.predict_proba(X)[:, 1])
    return float(np.sqrt(np.mean((model.predict(X) - y) ** 2)))


def lgbm(task, args, **extra):
    cls = lgb.LGBMClassifier if task == "classification" else lgb.LGBMRegressor
    return cls(
        n_estimators=args.n_estimators,
        learning_rate=args.learning_rate,
        num_leaves=args.max_leaves,
        min_child_samples=args.min_samples_leaf,
        subsample=args.subsample,
        subsample_freq=1 if args.subsample < 1 else 0,
        n_jobs=args.n_jobs,
        random_state=0,
        verbose=-1,
        **extra,
    )


def sparse(task, args, **extra):
    cls = sb.SparseBoostClassifier if task == "classification" else sb.SparseBoostRegressor
    return cls(
        n_estimators=args.n_estimators,
        learning_rate=args.learning_rate,
        max_leaves=args.max_leaves,
        min_samples_leaf=args.min_samples_leaf,
        subsample=args.subsample,
        n_jobs=args.n_jobs,
        random_state=0,
        **extra,
    )


def used_by_lgbm(model):
    return np.flatnonzero(model.booster_.feature_importance("split"))


def timed_fit(model, X, y):
    start = time.perf_counter()
    model.fit(X, y)
    return time.perf_counter() - start


def run_problem(name, args):
    X, y, X_test, y_test, task = load_problem(name)
    rows = []

    def add(method, mu, model, n_used, seconds):
        rows.append((method, mu, n_used, score(model, X_test, y_test, task), seconds))
        print(
            f"  {method:10s} mu={mu!s:8s} features={n_used:4d} "
            f"{'AUC' if task == 'classification' else 'RMSE'}={rows[-1][3]:.4f} "
            f"fit={seconds:.2f}s",
            flush=True,
        )

    plain = lgbm(task, args)
    seconds = timed_fit(plain, X, y)
    add("lgbm", "-", plain, len(used_by_lgbm(plain)), seconds)
    ranking = np.argsort(-plain.booster_.feature_importance("gain"))
    for k in args.top_k:
        keep = np.sort(ranking[:k])
        refit = lgbm(task, args)
        seconds = timed_fit(refit, X[:, keep], y)
        rows.append(
            ("lgbm-topK", f"K={k}", k, score(refit, X_test[:, keep], y_test, task), seconds)
        )
        print(
            f"  lgbm-topK  K={k:<6d} features={k:4d} metric={rows[-1][3]:.4f} fit={seconds:.2f}s",
            flush=True,
        )
    d = X.shape[1]
    for mu in args.gbfs_mu:
        model = lgbm(task, args, cegb_penalty_feature_coupled=[mu] * d, cegb_tradeoff=1.0)
        seconds = timed_fit(model, X, y)
        add("lgbm-cegb", mu, model, len(used_by_lgbm(model)), seconds)
    for penalty, grid in (("gbfs", args.gbfs_mu), ("agbm", args.agbm_mu)):
        for mu in grid:
            model = sparse(task, args, penalty=penalty, mu=mu)
            seconds = timed_fit(model, X, y)
            add(f"sb-{penalty}", mu, model, len(model.selected_features_), seconds)
    return task, rows


def print_table(name, task, rows):
    metric = "AUC" if task == "classification" else "RMSE"
    print(f"\n== {name}")
    print(f"{'method':10s}  {'mu / K':>8s}  {'features':>8s}  {metric:>7s}  {'fit s':>7s}")
    for method, mu, n_used, value, seconds in rows:
        print(f"{method:10s}  {mu!s:>8s}  {n_used:8d}  {value:7.4f}  {seconds:7.2f}")


def floats(text):
    return [float(v) for v in text.split(",") if v.strip()]


def ints(text):
    return [int(v) for v in text.split(",") if v.strip()]


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--problems", default="madelon,synthetic")
    p.add_argument("--n-estimators", type=int, default=300)
    p.add_argument("--learning-rate", type=float, default=0.05)
    p.add_argument("--max-leaves", type=int, default=31)
    p.add_argument("--min-samples-leaf", type=int, default=20)
    p.add_argument(
        "--subsample",
        type=float,
        default=1.0,
        help="row fraction per tree (LightGBM: bagging every tree)",
    )
    p.add_argument("--n-jobs", type=int, default=2)
    p.add_argument("--top-k", type=ints, default=[5, 10, 20])
    p.add_argument("--gbfs-mu", type=floats, default=[1.0, 3.0, 10.0, 30.0])
    p.add_argument("--agbm-mu", type=floats, default=[0.005, 0.01, 0.02, 0.05])
    return p.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    print("$ python " + shlex.join(sys.argv))
    for name in args.problems.split(","):
        print(f"\n{name}:")
        task, rows = run_problem(name, args)
        print_table(name, task, rows)


if __name__ == "__main__":
    main()
