"""Group testing (GT-GBM) against exhaustive search, and ``split_search="auto"``.

For every data set and feature budget B, A-GBM selects at most B features with
``SparseBoostClassifier(penalty="agbm", mu=MU, max_selected_features=B, <COMMON>)`` three
ways: ``split_search="exhaustive"``, ``"group_testing"`` (``gt_n_features`` and
``gt_delta`` at the estimator's defaults, 10 and 0.1) and ``"auto"``. Then:

* features: how many each selects, and the Jaccard index of GT's and
  exhaustive's sets;
* refit AUC: a plain model (``penalty="none"``, the same COMMON settings) is
  refit on the selected features of the training part and scored by ROC AUC on
  the held-out part; mean ± standard error over the splits;
* fit time of the selecting fit: the three configurations alternate (their
  order rotates from run to run), medians over every split and repeat; the
  ratios GT/exhaustive and auto/min(GT, exhaustive).

COMMON is the issue's protocol: 300 trees, learning rate 0.05, 15 leaves,
min_samples_leaf 5. Evaluation uses stratified splits of the *training* rows
only (75 % fit, 25 % held out; ``--splits`` of them, seeds 0, 1, ...): Dorothea's
valid file cannot be used with its reconstructed train matrix (different
column ids, see the data README), and the same protocol is used everywhere.

Data (``../shared/data`` relative to the project root; loaders of
``benches/selector_comparison.py``, plus Dorothea's):

* ``madelon`` 2000 x 500, ``arcene`` 100 x 10000, ``dexter`` 300 x 20000
  (densified), ``adult`` 32561 x 123 (all of ``adult.trn``), ``dorothea``
  800 x 88119 binary (reconstructed train).

Run from the project root::

    python benches/gt_vs_exhaustive.py            # everything
    python benches/gt_vs_exhaustive.py --quick    # 100 trees, 2 splits, B in {5, 10}
    python benches/gt_vs_exhaustive.py --datasets dorothea --budgets 10

The full run took 3 minutes on 2 cores (``benches/results/gt_vs_exhaustive.log``;
on the engine of issue 14 it took 31 minutes, most of it Dorothea's
exhaustive fits). JSON goes to ``benches/results/gt_vs_exhaustive[_quick].json``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np
import sparseboost as sb
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import StratifiedShuffleSplit

BENCH_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH_DIR))
from selector_comparison import load, load_dorothea  # noqa: E402

DATASETS = ("madelon", "arcene", "dexter", "dorothea", "adult")
METHODS = ("exhaustive", "group_testing", "auto")
SHORT = {"exhaustive": "exh", "group_testing": "gt", "auto": "auto"}
COMMON = dict(n_estimators=300, learning_rate=0.05, max_leaves=15, min_samples_leaf=5)


def training_rows(name):
    """(X, y) of a data set's training file."""
    if name == "dorothea":
        return load_dorothea()
    X, y, _, _, _ = load(name, adult_train=None)
    return X, y


def selector(args, method, budget):
    return sb.SparseBoostClassifier(
        **COMMON | dict(n_estimators=args.n_estimators),
        penalty="agbm",
        mu=args.mu,
        max_selected_features=budget,
        split_search=method,
        n_jobs=args.n_jobs,
        random_state=0,
    )


def refit_auc(args, X, y, X_test, y_test, features):
    if len(features) == 0:
        return 0.5
    model = sb.SparseBoostClassifier(
        **COMMON | dict(n_estimators=args.n_estimators),
        penalty="none",
        n_jobs=args.n_jobs,
        random_state=0,
    ).fit(X[:, features], y)
    return float(roc_auc_score(y_test, model.predict_proba(X_test[:, features])[:, 1]))


def jaccard(a, b):
    a, b = set(a), set(b)
    return len(a & b) / len(a | b) if a | b else 1.0


def mean_se(values):
    values = np.asarray(values, dtype=float)
    se = values.std(ddof=1) / np.sqrt(len(values)) if len(values) > 1 else float("nan")
    return float(values.mean()), float(se)


def run_dataset(name, args):
    X, y = training_rows(name)
    print(f"\n## {name}: {X.shape[0]} x {X.shape[1]} (training rows)", flush=True)
    splitter = StratifiedShuffleSplit(n_splits=args.splits, test_size=0.25, random_state=0)
    splits = list(splitter.split(X, y))
    out = {}
    turn = 0
    for budget in args.budgets:
        methods = args.methods
        times = {m: [] for m in methods}
        features = {m: [] for m in methods}
        aucs = {m: [] for m in methods}
        chosen = []
        for train, test in splits:
            Xtr, ytr = np.ascontiguousarray(X[train]), y[train]
            for _ in range(args.repeats):
                k = turn % len(methods)
                order = methods[k:] + methods[:k]
                turn += 1
                for method in order:
                    model = selector(args, method, budget)
                    start = time.perf_counter()
                    model.fit(Xtr, ytr)
                    times[method].append(time.perf_counter() - start)
                    if len(features[method]) < len(aucs[method]) + 1:
                        features[method].append(sorted(map(int, model.selected_features_)))
                        if method == "auto":
                            chosen.append(model.split_search_)
            scored = {}
            for method in methods:
                key = tuple(features[method][-1])
                if key not in scored:
                    scored[key] = refit_auc(args, Xtr, ytr, X[test], y[test], list(key))
                aucs[method].append(scored[key])
        row = {
            "n_features": {m: [len(f) for f in features[m]] for m in methods},
            "jaccard_gt_exh": [
                jaccard(a, b) for a, b in zip(features["group_testing"], features["exhaustive"])
            ],
            "auc": {m: aucs[m] for m in methods},
            "fit_seconds": {m: times[m] for m in methods},
            "auto_chose": chosen,
            "features": features,
        }
        out[budget] = row
        print_row(name, budget, row)
    return out


HEADER = (
    f"{'data':9} {'B':>3} {'#exh':>5} {'#gt':>5} {'jacc':>5} "
    f"{'AUC exh':>13} {'AUC gt':>13} {'t exh':>7} {'t gt':>7} {'t auto':>7} "
    f"{'gt/exh':>6} {'auto/min':>8} auto"
)


def print_row(name, budget, row):
    n = {m: np.mean(v) for m, v in row["n_features"].items()}
    t = {m: float(np.median(v)) for m, v in row["fit_seconds"].items()}
    t.setdefault("auto", float("nan"))
    auc = {m: mean_se(v) for m, v in row["auc"].items()}
    chose = ",".join(sorted({SHORT[c] for c in row["auto_chose"]}))
    print(HEADER)
    print(
        f"{name:9} {budget:>3} {n['exhaustive']:>5.1f} {n['group_testing']:>5.1f} "
        f"{np.mean(row['jaccard_gt_exh']):>5.2f} "
        f"{auc['exhaustive'][0]:.3f}±{auc['exhaustive'][1]:.3f} "
        f"{auc['group_testing'][0]:.3f}±{auc['group_testing'][1]:.3f} "
        f"{t['exhaustive']:>7.2f} {t['group_testing']:>7.2f} {t['auto']:>7.2f} "
        f"{t['group_testing'] / t['exhaustive']:>6.2f} "
        f"{t['auto'] / min(t['exhaustive'], t['group_testing']):>8.2f} {chose}",
        flush=True,
    )


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--datasets", default=",".join(DATASETS))
    parser.add_argument("--budgets", default="5,10,20")
    parser.add_argument("--mu", type=float, default=0.01)
    parser.add_argument("--splits", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=1, help="timed fits per split")
    parser.add_argument("--n-estimators", type=int, default=COMMON["n_estimators"])
    parser.add_argument("--n-jobs", type=int, default=None)
    parser.add_argument("--methods", default=",".join(METHODS), help="a subset of " + str(METHODS))
    parser.add_argument("--quick", action="store_true", help="100 trees, 2 splits, B in {5, 10}")
    args = parser.parse_args(argv)
    if args.quick:
        args.n_estimators, args.splits, args.budgets = 100, 2, "5,10"
    args.budgets = [int(b) for b in args.budgets.split(",")]
    args.datasets = args.datasets.split(",")
    args.methods = tuple(args.methods.split(","))
    unknown = set(args.datasets) - set(DATASETS)
    if unknown:
        parser.error(f"unknown data sets {sorted(unknown)}; choose from {', '.join(DATASETS)}")
    return args


def main(argv=None):
    args = parse_args(argv)
    print(
        f"sparseboost {sb.__version__}; {os.cpu_count()} CPUs; load {os.getloadavg()[0]:.2f}; "
        f"A-GBM mu={args.mu}, {COMMON | dict(n_estimators=args.n_estimators)}; "
        f"{args.splits} splits x {args.repeats} timed fits per configuration"
    )
    results = {"config": vars(args), "datasets": {}}
    for name in args.datasets:
        results["datasets"][name] = run_dataset(name, args)
    output = BENCH_DIR / "results" / f"gt_vs_exhaustive{'_quick' if args.quick else ''}.json"
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(results, indent=1, default=str))
    print(f"\nwrote {output}")


if __name__ == "__main__":
    main()
