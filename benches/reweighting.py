"""Dynamic feature reweighting: Borisov, Eruhimov and Tuv's experiments repeated.

The paper (seed 002) draws data sets from Friedman's random function generator with
50 features of which K = 4 or 10 are relevant, splits each 3:2 into train and test,
and compares, on the test rows:

* boosting (MART) where every tree sees all features, against trees that see only
  m = 3 features, drawn uniformly or with dynamic reweighting (weights
  ``(1 - m/M)**(a*i) * I0 + importance so far``); the paper reports that dynamic
  m = 3 is slightly more accurate than all features in binary classification with
  K = 10, and 50/3 ~ 17 times faster;
* random forests with uniform feature sampling against dynamic reweighting
  (weights ``a * I0 + importance so far``, a = 5..10); the paper reports a large
  cut in the test error with 4 relevant of 50 features and a slight one with 10.

What it measures, for each problem (binary classification and regression, K = 4 and
10) over ``--datasets`` data sets ``make_friedman_random(n, 50, K, task,
random_state=i)``, i = 0, 1, ... (the first 3/5 of the rows train, the rest test;
classification cuts the same f at its median, so both tasks share X and f):

* accuracy (classification) or relative error, test MSE / variance of y_test
  (regression), as the mean over the data sets with its standard error;
* the median fit time over the data sets (one fit each, wall clock, all cores; the
  machine is shared, so the load average is printed with the results).

Boosting: ``SparseBoostClassifier``/``SparseBoostRegressor(penalty="none",
n_estimators=200, learning_rate=0.1, max_leaves=15)`` (other parameters at their
defaults: min_samples_leaf=20, 255 bins, no row subsampling), with all features,
``colsample_bytree=3`` (uniform) and ``colsample_bytree=3,
feature_sampling="dynamic"`` with ``reweight_rate`` a = 0.5, 1 and 2 (all three are
reported; none was picked by its test score). Ratios: accuracy (or relative error)
of a variant / the all-features one; speed-up = median all-features fit time /
median fit time of the variant. Targets, checked for the classification problems:
dynamic m = 3 keeps >= 0.99 of the all-features accuracy and fits >= 5x faster
(the paper's headline is binary classification with K = 10).

Forests: ``SparseForestClassifier``/``SparseForestRegressor(n_estimators=100,
max_features="sqrt")`` (7 of the 50 features per node), uniform against
``feature_sampling="dynamic"`` with ``reweight_rate`` 5 and 10. Trees are grown
with ``min_samples_leaf=1`` for classification and 5 for regression (the defaults of
Breiman and Cutler's randomForest; with 1, regression forests on 12000 rows take
~20 s each here, which would put the default run over budget). Error: error rate
(classification) and relative error (regression); ratio = mean error of the variant
/ mean error of the uniform forest. Target: dynamic cuts the uniform forest's test
error by >= 10% (ratio <= 0.90) with 4 relevant of 50 features.

Run from the project root (an installed sparseboost)::

    python benches/reweighting.py                    # 20 data sets of 20000 rows, ~9 min
    python benches/reweighting.py --quick            # smoke run, seconds
    python benches/reweighting.py --datasets 100 --parts boosting
    python benches/reweighting.py --n-samples 20000 --forest-n-samples 5000

Results are printed as one table per (model family, problem) and written as JSON to
``benches/results/reweighting.json`` (``reweighting_quick.json`` for ``--quick``;
see ``--output``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import sparseboost as sb
from sparseboost.datasets import make_friedman_random

BENCH_DIR = Path(__file__).resolve().parent
N_FEATURES = 50
PROBLEMS = (("classification", 10), ("classification", 4), ("regression", 4), ("regression", 10))
ACCURACY_RATIO_TARGET, SPEEDUP_TARGET, FOREST_RATIO_TARGET = 0.99, 5.0, 0.90


def split(X, y):
    """Train/test split 3:2 (the rows are iid, so the first 3/5 train)."""
    k = len(y) * 3 // 5
    return X[:k], y[:k], X[k:], y[k:]


def evaluate(model, X, y, task):
    """Accuracy (classification) or relative error MSE / var(y) (regression)."""
    predicted = model.predict(X)
    if task == "classification":
        return float(np.mean(predicted == y))
    return float(np.mean((predicted - y) ** 2) / np.var(y))


def boosting_variants(rates, m):
    variants = {"all features": {}, f"uniform m={m}": {"colsample_bytree": m}}
    for a in rates:
        variants[f"dynamic m={m} a={a:g}"] = {
            "colsample_bytree": m,
            "feature_sampling": "dynamic",
            "reweight_rate": a,
        }
    return variants


def forest_variants(rates):
    variants = {"uniform": {}}
    for a in rates:
        variants[f"dynamic a={a:g}"] = {"feature_sampling": "dynamic", "reweight_rate": a}
    return variants


def make_model(family, task, params, args):
    if family == "boosting":
        cls = sb.SparseBoostClassifier if task == "classification" else sb.SparseBoostRegressor
        return cls(
            penalty="none",
            n_estimators=args.n_estimators,
            learning_rate=args.learning_rate,
            max_leaves=args.max_leaves,
            random_state=0,
            **params,
        )
    cls = sb.SparseForestClassifier if task == "classification" else sb.SparseForestRegressor
    return cls(
        n_estimators=args.forest_n_estimators,
        max_features=args.forest_max_features,
        min_samples_leaf=1 if task == "classification" else 5,
        random_state=0,
        **params,
    )


def run_problem(family, task, k, variants, n_samples, args):
    """Scores and fit times of every variant on every data set of one problem."""
    out = {name: {"score": [], "fit_s": []} for name in variants}
    for i in range(args.datasets):
        X, y = make_friedman_random(n_samples, N_FEATURES, k, task=task, random_state=i)
        X_train, y_train, X_test, y_test = split(X, y)
        for name, params in variants.items():
            model = make_model(family, task, params, args)
            start = time.perf_counter()
            model.fit(X_train, y_train)
            out[name]["fit_s"].append(time.perf_counter() - start)
            out[name]["score"].append(evaluate(model, X_test, y_test, task))
        print(f"  {family} {task} K={k}: data set {i + 1}/{args.datasets}", file=sys.stderr)
    return out


def mean_se(values):
    values = np.asarray(values, dtype=float)
    se = values.std(ddof=1) / np.sqrt(len(values)) if len(values) > 1 else float("nan")
    return float(values.mean()), float(se)


def summarise(family, task, k, raw, reference):
    """Per-variant summary: mean +- SE, ratio to the reference variant, median time
    and speed-up against the reference."""
    ref_mean = float(np.mean(raw[reference]["score"]))
    ref_time = statistics.median(raw[reference]["fit_s"])
    rows = {}
    for name, r in raw.items():
        mean, se = mean_se(r["score"])
        if family == "forest" and task == "classification":
            mean = 1.0 - mean  # error rate; its SE is the accuracy's
            ref = 1.0 - ref_mean
        else:
            ref = ref_mean
        median_t = statistics.median(r["fit_s"])
        rows[name] = {
            "mean": mean,
            "se": se,
            "ratio": mean / ref if ref else float("nan"),
            "median_fit_s": median_t,
            "speedup": ref_time / median_t,
        }
    return rows


def metric_name(family, task):
    if task == "regression":
        return "rel. error"
    return "accuracy" if family == "boosting" else "error rate"


def print_table(family, task, k, n_samples, rows, reference):
    metric = metric_name(family, task)
    print(
        f"\n{family}, {'binary classification' if task == 'classification' else task}, "
        f"K={k} relevant of {N_FEATURES}, n={n_samples} (train {n_samples * 3 // 5})"
    )
    header = f"{'variant':<22} {metric + ' (mean +- SE)':>24} {'/ ' + reference:>16}"
    header += f" {'median fit s':>13} {'speed-up':>9}"
    print(header)
    print("-" * len(header))
    for name, r in rows.items():
        value = f"{r['mean']:.4f} +- {r['se']:.4f}"
        print(
            f"{name:<22} {value:>24} {r['ratio']:>16.4f} {r['median_fit_s']:>13.3f}"
            f" {r['speedup']:>8.1f}x"
        )


def check_targets(family, task, k, rows):
    """Target lines (met/missed) for one problem; returns them as dicts."""
    checks = []
    for name, r in rows.items():
        if not name.startswith("dynamic"):
            continue
        if family == "boosting" and task == "classification":
            ok_acc = r["ratio"] >= ACCURACY_RATIO_TARGET
            ok_speed = r["speedup"] >= SPEEDUP_TARGET
            checks.append(
                {
                    "variant": name,
                    "target": f"accuracy ratio >= {ACCURACY_RATIO_TARGET}",
                    "value": r["ratio"],
                    "met": ok_acc,
                }
            )
            checks.append(
                {
                    "variant": name,
                    "target": f"speed-up >= {SPEEDUP_TARGET:g}x",
                    "value": r["speedup"],
                    "met": ok_speed,
                }
            )
        elif family == "forest" and k == 4:
            checks.append(
                {
                    "variant": name,
                    "target": f"error ratio to uniform <= {FOREST_RATIO_TARGET}",
                    "value": r["ratio"],
                    "met": r["ratio"] <= FOREST_RATIO_TARGET,
                }
            )
    for c in checks:
        status = "met" if c["met"] else "MISSED"
        print(f"  target {c['target']:<32} {c['variant']:<22} {c['value']:8.4f}  {status}")
    return checks


def parse_floats(text):
    return [float(v) for v in text.split(",") if v.strip()]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n-samples", type=int, default=20000, help="rows per data set")
    parser.add_argument(
        "--forest-n-samples", type=int, default=None, help="rows per forest data set"
    )
    parser.add_argument("--datasets", type=int, default=20, help="data sets per problem")
    parser.add_argument("--parts", default="boosting,forest", help="boosting, forest or both")
    parser.add_argument("--n-estimators", type=int, default=200)
    parser.add_argument("--learning-rate", type=float, default=0.1)
    parser.add_argument("--max-leaves", type=int, default=15)
    parser.add_argument("--m", type=int, default=3, help="features per boosted tree")
    parser.add_argument("--rates", default="0.5,1,2", help="boosting reweight_rate values")
    parser.add_argument("--forest-n-estimators", type=int, default=100)
    parser.add_argument("--forest-max-features", default="sqrt")
    parser.add_argument("--forest-rates", default="5,10", help="forest reweight_rate values")
    parser.add_argument("--quick", action="store_true", help="tiny smoke run")
    parser.add_argument("--output", default=None)
    args = parser.parse_args(argv)
    if args.quick:
        args.n_samples, args.datasets = 2000, 3
        args.n_estimators, args.forest_n_estimators = 50, 20
    forest_n = args.forest_n_samples or args.n_samples
    try:
        args.forest_max_features = int(args.forest_max_features)
    except ValueError:
        pass
    parts = [p.strip() for p in args.parts.split(",") if p.strip()]
    output = Path(args.output) if args.output else None
    if output is None:
        output = (
            BENCH_DIR / "results" / ("reweighting_quick.json" if args.quick else "reweighting.json")
        )

    print("command: python " + shlex.join(["benches/reweighting.py", *(argv or sys.argv[1:])]))
    print(
        f"sparseboost {sb.__version__}, {platform.machine()}, {os.cpu_count()} cores, "
        f"load average at start {os.getloadavg()[0]:.2f}"
    )
    print(
        f"boosting: {args.n_estimators} trees, learning rate {args.learning_rate}, "
        f"{args.max_leaves} leaves, penalty='none'; forests: {args.forest_n_estimators} trees, "
        f"max_features={args.forest_max_features!r}; {args.datasets} data sets per problem"
    )
    results = {
        "config": {
            "argv": argv if argv is not None else sys.argv[1:],
            "n_samples": args.n_samples,
            "forest_n_samples": forest_n,
            "datasets": args.datasets,
            "n_features": N_FEATURES,
            "boosting": {
                "n_estimators": args.n_estimators,
                "learning_rate": args.learning_rate,
                "max_leaves": args.max_leaves,
                "m": args.m,
                "rates": parse_floats(args.rates),
            },
            "forest": {
                "n_estimators": args.forest_n_estimators,
                "max_features": args.forest_max_features,
                "rates": parse_floats(args.forest_rates),
                "min_samples_leaf": {"classification": 1, "regression": 5},
            },
            "sparseboost": sb.__version__,
            "cpu_count": os.cpu_count(),
        },
        "problems": [],
    }
    start_all = time.perf_counter()
    for family in ("boosting", "forest"):
        if family not in parts:
            continue
        if family == "boosting":
            variants, reference, n = (
                boosting_variants(parse_floats(args.rates), args.m),
                "all features",
                args.n_samples,
            )
        else:
            variants, reference, n = (
                forest_variants(parse_floats(args.forest_rates)),
                "uniform",
                forest_n,
            )
        for task, k in PROBLEMS:
            raw = run_problem(family, task, k, variants, n, args)
            rows = summarise(family, task, k, raw, reference)
            print_table(family, task, k, n, rows, reference)
            checks = check_targets(family, task, k, rows)
            results["problems"].append(
                {
                    "family": family,
                    "task": task,
                    "n_relevant": k,
                    "n_samples": n,
                    "metric": metric_name(family, task),
                    "reference": reference,
                    "summary": rows,
                    "targets": checks,
                    "raw": raw,
                    "load_average": os.getloadavg()[0],
                }
            )
            sys.stdout.flush()
    elapsed = time.perf_counter() - start_all
    results["elapsed_s"] = elapsed
    print(f"\ntotal {elapsed:.0f} s, load average at end {os.getloadavg()[0]:.2f}")
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(results, indent=1))
    print(f"wrote {output}")


if __name__ == "__main__":
    main()
