"""Compare sparseboost with LightGBM, XGBoost and scikit-learn's HistGradientBoosting.

What it measures, per (library, problem), each in a fresh subprocess:

* fit time: median over ``--repeats`` whole ``fit`` calls (binning included);
* predict time: median time of predicting the test set (``predict`` for regression
  and ranking, ``predict_proba`` for classification), the metric excluded;
* test metrics: RMSE (regression, lower is better), ROC AUC (binary classification),
  multi-logloss (lower is better) and accuracy (multiclass), NDCG@1, @3 and @5
  (ranking; LightGBM's definition, see ``ndcg_at``);
* features: how many features the fitted model splits on;
* peak fit memory: ``ru_maxrss`` after the fits minus the RSS just before the first
  fit (data already loaded); the total peak RSS is reported too.

All libraries get 100 trees (boosting rounds; a multiclass round grows one tree per
class), at most 31 leaves, 255 bins, learning rate 0.1, 2 threads, at least 20
samples per leaf, no subsampling and no L2 regularisation.
Data is generated (or loaded) inside each subprocess from fixed seeds, so every
library sees the same data and the peak RSS is that library's alone. Ratios are
"library / LightGBM"; NDCG is compared by difference, "library - LightGBM".
Timings need a quiet machine: OpenMP libraries can slow down
tenfold when another process competes for the cores, so the load average is shown.

Problems: the synthetic problem of ``sparseboost.datasets.make_synthetic``
(y = 2 x1 - 3 * 2**x2 + log2(1 + x3) + N(0, 1), iid U[0, 1] features) at
100000 x 100 and 6000 x 5000, for regression and classification (y > median).
The test set is a separate draw (seed 1) of 20% of the training size, at most
20000 rows. ``--datasets`` adds real data sets from ``../shared/data`` relative to
the project root:

* ``lightgbm_binary`` (binary classification) and ``cal_housing`` (regression);
* ``lightgbm_multiclass``: LightGBM's multiclass example, 7000 + 500 rows x 28
  features, 5 classes. Target: sparseboost's multi-logloss within 1% of LightGBM's;
* ``lightgbm_lambdarank``: LightGBM's lambdarank example, 3005 rows in 201 queries
  for training, 768 rows in 50 queries for testing, 300 features, relevance 0..4.
  LightGBM fits ``LGBMRanker(objective="lambdarank")``, sparseboost
  ``SparseBoostRanker``; both get the query sizes as ``fit(X, y, group=sizes)``.
  XGBoost and scikit-learn are not run on it. Target: each NDCG@k of sparseboost at
  least LightGBM's minus 0.005.

The targets are checked below each table. A sparseboost variant whose estimator or
``fit`` raises ImportError, AttributeError, TypeError or NotImplementedError (an API
this build does not have yet) reads "unavailable", with the error under the table.

Run from the project root. Needs ``pip install lightgbm xgboost`` (the project's
``bench`` extra) and an installed sparseboost, else its rows read "unavailable"::

    python benches/compare_peers.py                       # full run, up to an hour
    python benches/compare_peers.py --quick               # smoke run, seconds
    python benches/compare_peers.py --libs lightgbm,xgboost --shapes 6000x5000 --repeats 1
    python benches/compare_peers.py --datasets lightgbm_binary,cal_housing
    python benches/compare_peers.py --shapes none --datasets lightgbm_multiclass,lightgbm_lambdarank

Results are printed as one table per problem and written as JSON to
``benches/results/compare_peers.json`` (``compare_peers_quick.json`` for ``--quick``;
see ``--output``).
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import importlib.util
import json
import os
import platform
import resource
import shlex
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import NamedTuple

import numpy as np

BENCH_DIR = Path(__file__).resolve().parent
PROJECT_ROOT = BENCH_DIR.parent
DATA_DIR = PROJECT_ROOT.parent / "shared" / "data"
LIBS = ("sparseboost", "sparseboost-agbm", "sparseboost-gt", "lightgbm", "xgboost", "sklearn")
# sparseboost's variants: the plain engine (the like-for-like comparison),
# exhaustive A-GBM, and GT-GBM (A-GBM with group-testing split search, s = 3).
SPARSEBOOST_VARIANTS = {
    "sparseboost": {"penalty": "none"},
    "sparseboost-agbm": {"penalty": "agbm", "mu": 0.01},
    "sparseboost-gt": {
        "penalty": "agbm",
        "mu": 0.01,
        "split_search": "group_testing",
        "gt_n_features": 3,
        "gt_delta": 0.1,
    },
}
REAL_DATASETS = ("lightgbm_binary", "cal_housing", "lightgbm_multiclass", "lightgbm_lambdarank")
N_TREES, N_LEAVES, N_BINS, LEARNING_RATE, N_THREADS, MIN_LEAF = 100, 31, 255, 0.1, 2, 20
SEED, TEST_SEED = 0, 1
NDCG_AT = (1, 3, 5)
# Test metrics per task, the first one the headline "metric" of the JSON results.
# "ratio" metrics are compared with LightGBM as library / LightGBM, "diff" ones as
# library - LightGBM.
METRICS = {
    "regression": {"rmse": "ratio"},
    "classification": {"auc": "ratio"},
    "multiclass": {"mlogloss": "ratio", "accuracy": "ratio"},
    "ranking": {f"ndcg@{k}": "diff" for k in NDCG_AT},
}
# Targets for sparseboost, checked below the table: (metric, comparison, bound);
# the ratio must not exceed the bound, the difference must not fall below it.
TARGETS = {
    "multiclass": [("mlogloss", "ratio", 1.01)],
    "ranking": [(f"ndcg@{k}", "diff", -0.005) for k in NDCG_AT],
}
# Raised by an estimator or its fit when this sparseboost build lacks an API the
# problem needs (SparseBoostRanker, a keyword); such a row reads "unavailable".
PENDING_API_ERRORS = (ImportError, AttributeError, TypeError, NotImplementedError)


class Unsupported(Exception):
    """The library has no estimator for the task; its row reads "unsupported"."""


# ---------------------------------------------------------------- data (worker side)


def load_make_synthetic():
    """Load ``make_synthetic`` straight from the source tree.

    Loading by path (datasets.py needs only numpy) gives every library the same
    generator without importing the sparseboost package, whose memory would
    otherwise be counted against the other libraries, and works before it is built.
    """
    path = PROJECT_ROOT / "python" / "sparseboost" / "datasets.py"
    spec = importlib.util.spec_from_file_location("_sb_datasets", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.make_synthetic


class Problem(NamedTuple):
    """Train and test data of one problem; ``group``/``group_test`` are the query
    sizes (rows of a query are contiguous) of a ranking problem, else None."""

    task: str  # "regression", "classification" (binary), "multiclass" or "ranking"
    X: np.ndarray
    y: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray
    group: np.ndarray | None = None
    group_test: np.ndarray | None = None


def load_problem(problem):
    """Return the :class:`Problem` of a problem id.

    Ids are ``synthetic-<task>-<n>x<p>`` or the name of a real data set.
    """
    if problem.startswith("synthetic-"):
        _, task, shape = problem.split("-")
        n, p = (int(s) for s in shape.split("x"))
        make_synthetic = load_make_synthetic()
        X, y = make_synthetic(n, p, task=task, random_state=SEED)
        # A separate draw with another seed: same distribution, unseen rows.
        X_test, y_test = make_synthetic(
            min(max(n // 5, 1), 20000), p, task=task, random_state=TEST_SEED
        )
        return Problem(task, X, y, X_test, y_test)
    if problem in ("lightgbm_binary", "lightgbm_multiclass"):
        # TSV: the label (0/1, or 0..4), then the 28 features.
        kind = problem.removeprefix("lightgbm_")
        train = np.loadtxt(DATA_DIR / problem / f"{kind}.train", delimiter="\t")
        test = np.loadtxt(DATA_DIR / problem / f"{kind}.test", delimiter="\t")
        task = "classification" if kind == "binary" else "multiclass"
        return Problem(task, train[:, 1:], train[:, 0], test[:, 1:], test[:, 0])
    if problem == "lightgbm_lambdarank":
        from sklearn.datasets import load_svmlight_file

        def load(part):  # libsvm with 1-based indices; one query size per line
            X, y = load_svmlight_file(
                str(DATA_DIR / problem / f"rank.{part}"), n_features=300, zero_based=False
            )
            sizes = np.loadtxt(DATA_DIR / problem / f"rank.{part}.query", dtype=np.int64, ndmin=1)
            if sizes.sum() != X.shape[0]:
                raise ValueError(f"rank.{part}.query sums to {sizes.sum()}, not {X.shape[0]} rows")
            return X.toarray(), y, sizes

        X, y, group = load("train")
        X_test, y_test, group_test = load("test")
        return Problem("ranking", X, y, X_test, y_test, group, group_test)
    if problem == "cal_housing":
        import pandas as pd
        from scipy.io import arff
        from sklearn.model_selection import train_test_split

        df = pd.DataFrame(arff.loadarff(DATA_DIR / "cal_housing" / "cal_housing.arff")[0])
        y = df.pop("medianHouseValue").to_numpy(np.float64)
        X = df.to_numpy(np.float64)
        X, X_test, y, y_test = train_test_split(X, y, test_size=0.2, random_state=SEED)
        return Problem("regression", X, y, X_test, y_test)
    raise ValueError(f"unknown problem {problem!r}")


# ---------------------------------------------------------------- estimators (worker side)


def make_estimator_factory(lib, task):
    """Return ``(factory, version)``; ``factory()`` builds an unfitted estimator.

    Imports happen here, before the baseline RSS is taken, so that the library's
    own import footprint is not counted as fit memory. Multiclass uses the same
    classifiers as binary classification (each detects the number of classes).
    """
    clf = task in ("classification", "multiclass")
    rank = task == "ranking"
    if lib in SPARSEBOOST_VARIANTS:
        import sparseboost as sb

        # SparseBoostRanker: AttributeError (row "unavailable") until it lands.
        if rank:
            cls = sb.SparseBoostRanker
        else:
            cls = sb.SparseBoostClassifier if clf else sb.SparseBoostRegressor
        params = {
            "n_estimators": N_TREES,
            "learning_rate": LEARNING_RATE,
            "max_leaves": N_LEAVES,
            "max_bins": N_BINS,
            "min_samples_leaf": MIN_LEAF,
            "n_jobs": N_THREADS,
            "random_state": SEED,
            **SPARSEBOOST_VARIANTS[lib],
        }
        return (lambda: cls(**params)), sb.__version__
    if lib == "lightgbm":
        import lightgbm as lgb

        if rank:
            cls = lgb.LGBMRanker
        else:
            cls = lgb.LGBMClassifier if clf else lgb.LGBMRegressor
        params = {
            **({"objective": "lambdarank"} if rank else {}),
            "n_estimators": N_TREES,
            "learning_rate": LEARNING_RATE,
            "num_leaves": N_LEAVES,
            "max_bin": N_BINS,
            "min_child_samples": MIN_LEAF,
            "n_jobs": N_THREADS,
            "subsample": 1.0,
            "colsample_bytree": 1.0,
            "random_state": SEED,
            "verbose": -1,
        }
        return (lambda: cls(**params)), lgb.__version__
    if rank:
        raise Unsupported(f"{lib} is not run on ranking problems")
    if lib == "xgboost":
        import xgboost as xgb

        cls = xgb.XGBClassifier if clf else xgb.XGBRegressor
        # XGBoost has no "min samples per leaf"; its min_child_weight is a hessian
        # sum, set to LightGBM's default min_sum_hessian_in_leaf. reg_lambda=0
        # makes its gain the plain Newton gain used by the other libraries.
        # lossguide + max_depth=0 grows leaf-wise like LightGBM.
        params = {
            "n_estimators": N_TREES,
            "learning_rate": LEARNING_RATE,
            "tree_method": "hist",
            "grow_policy": "lossguide",
            "max_leaves": N_LEAVES,
            "max_depth": 0,
            "max_bin": N_BINS,
            "min_child_weight": 1e-3,
            "reg_lambda": 0.0,
            "subsample": 1.0,
            "colsample_bytree": 1.0,
            "n_jobs": N_THREADS,
            "random_state": SEED,
        }
        return (lambda: cls(**params)), xgb.__version__
    if lib == "sklearn":
        import sklearn
        from sklearn.ensemble import HistGradientBoostingClassifier as HGBC
        from sklearn.ensemble import HistGradientBoostingRegressor as HGBR

        cls = HGBC if clf else HGBR
        params = {
            "max_iter": N_TREES,
            "learning_rate": LEARNING_RATE,
            "max_leaf_nodes": N_LEAVES,
            "max_bins": N_BINS,
            "min_samples_leaf": MIN_LEAF,
            "early_stopping": False,
            "random_state": SEED,
        }
        return (lambda: cls(**params)), sklearn.__version__
    raise ValueError(f"unknown library {lib!r}")


def thread_limit(lib):
    """Context that caps scikit-learn's OpenMP pool (HGB has no n_jobs)."""
    if lib == "sklearn":
        from threadpoolctl import threadpool_limits

        return threadpool_limits(limits=N_THREADS)
    return contextlib.nullcontext()


def predict(task, model, X_test):
    """Scores of the test set: probabilities for classification, else ``predict``."""
    if task in ("classification", "multiclass"):
        return model.predict_proba(X_test)
    return model.predict(X_test)


def ndcg_at(y_true, scores, group_sizes, k):
    """Mean NDCG@k over the queries, as LightGBM computes it.

    Gain 2**label - 1, discount 1 / log2(rank + 1); a query's rows are ranked by
    decreasing score, ties in the order of the rows (a stable sort, as LightGBM
    does), and its ideal DCG sorts the labels themselves. Queries shorter than k
    use all their rows. A query whose ideal DCG is 0 (no relevant row) counts as
    NDCG 1, as in LightGBM.
    """
    y_true, scores = np.asarray(y_true, dtype=np.float64), np.asarray(scores, dtype=np.float64)
    discounts = 1.0 / np.log2(np.arange(2, k + 2))
    ends = np.cumsum(group_sizes)
    values = []
    for start, end in zip(ends - group_sizes, ends):
        labels = y_true[start:end]
        top = min(k, end - start)
        ranked = labels[np.argsort(-scores[start:end], kind="stable")[:top]]
        ideal = np.sort(labels)[::-1][:top]
        ideal_dcg = np.dot(2.0**ideal - 1.0, discounts[:top])
        dcg = np.dot(2.0**ranked - 1.0, discounts[:top])
        values.append(dcg / ideal_dcg if ideal_dcg > 0 else 1.0)
    return float(np.mean(values))


def test_metrics(problem, model, predictions):
    """The task's test metrics (``METRICS``), by name."""
    from sklearn.metrics import log_loss, roc_auc_score

    y_test = problem.y_test
    if problem.task == "regression":
        return {"rmse": float(np.sqrt(np.mean((predictions - y_test) ** 2)))}
    if problem.task == "classification":
        return {"auc": float(roc_auc_score(y_test, predictions[:, 1]))}
    if problem.task == "multiclass":
        classes = model.classes_
        return {
            "mlogloss": float(log_loss(y_test, predictions, labels=classes)),
            "accuracy": float(np.mean(classes[np.argmax(predictions, axis=1)] == y_test)),
        }
    return {f"ndcg@{k}": ndcg_at(y_test, predictions, problem.group_test, k) for k in NDCG_AT}


def n_features_used(model):
    """Features the fitted model splits on (None when the library does not say)."""
    if hasattr(model, "selected_features_"):
        return len(model.selected_features_)
    importances = getattr(model, "feature_importances_", None)
    return None if importances is None else int(np.count_nonzero(importances))


def current_rss_mib():
    """Resident set size now, in MiB (psutil; /proc on Linux if psutil is missing)."""
    try:
        import psutil
    except ImportError:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    return psutil.Process().memory_info().rss / 2**20


def run_worker(lib, problem_id, repeats):
    """Measure one (library, problem) pair in this process; return a result dict."""
    # Only sparseboost's API is in flux: elsewhere these errors are bugs.
    pending = PENDING_API_ERRORS if lib in SPARSEBOOST_VARIANTS else (ImportError,)
    try:
        problem = load_problem(problem_id)  # pandas/scipy for cal_housing
    except ImportError as exc:
        return {"status": "unavailable", "error": f"{type(exc).__name__}: {exc}"}
    try:
        factory, version = make_estimator_factory(lib, problem.task)
    except Unsupported as exc:
        return {"status": "unsupported", "error": str(exc)}
    except pending as exc:
        return {"status": "unavailable", "error": f"{type(exc).__name__}: {exc}"}
    task, X, y, X_test = problem.task, problem.X, problem.y, problem.X_test
    fit_kwargs = {"group": problem.group} if task == "ranking" else {}
    gc.collect()
    rss_before = current_rss_mib()
    # ru_maxrss is KiB on Linux; kept to show whether loading set the peak instead.
    maxrss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0

    fit_times, predict_times, model = [], [], None
    with thread_limit(lib):
        for _ in range(repeats):
            model = None  # free the previous model so the peak reflects a single fit
            gc.collect()
            try:
                model = factory()
                t0 = time.perf_counter()
                model.fit(X, y, **fit_kwargs)
            except pending as exc:
                return {"status": "unavailable", "error": f"{type(exc).__name__}: {exc}"}
            fit_times.append(time.perf_counter() - t0)
        peak_total = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
        for _ in range(repeats):
            t0 = time.perf_counter()
            predictions = predict(task, model, X_test)
            predict_times.append(time.perf_counter() - t0)
    metrics = test_metrics(problem, model, predictions)
    metric_name = next(iter(METRICS[task]))
    return {
        "status": "ok",
        "version": version,
        "task": task,
        "load_average": os.getloadavg()[0],
        "n_train": int(X.shape[0]),
        "n_test": int(X_test.shape[0]),
        "n_features": int(X.shape[1]),
        **(
            {"n_queries": len(problem.group), "n_test_queries": len(problem.group_test)}
            if task == "ranking"
            else {}
        ),
        "fit_s": statistics.median(fit_times),
        "fit_times_s": fit_times,
        "predict_s": statistics.median(predict_times),
        "predict_times_s": predict_times,
        "metric_name": metric_name,
        "metric": metrics[metric_name],
        "metrics": metrics,
        "n_features_used": n_features_used(model),
        "rss_before_fit_mib": rss_before,
        "maxrss_before_fit_mib": maxrss_before,
        "peak_total_mib": peak_total,
        "peak_fit_mib": peak_total - rss_before,
    }


# ---------------------------------------------------------------- driver (parent side)


def run_in_subprocess(lib, problem, repeats, timeout):
    """Run one worker in a fresh interpreter; its last stdout line is the JSON result."""
    cmd = [
        sys.executable,
        str(Path(__file__).resolve()),
        "--worker",
        lib,
        problem,
        "--repeats",
        str(repeats),
    ]
    try:
        proc = subprocess.run(cmd, check=False, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"status": "failed", "error": f"timeout after {timeout} s"}
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        tail = proc.stderr.strip().splitlines()[-3:]
        return {"status": "failed", "error": f"exit {proc.returncode}: " + " | ".join(tail)}
    return json.loads(lines[-1])


def ratio(value, reference, digits=2):
    if value is None or reference in (None, 0):
        return "-"
    return f"{value / reference:.{digits}f}"


def difference(value, reference):
    if value is None or reference is None:
        return "-"
    return f"{value - reference:+.4f}"


def metric_columns(name, comparison):
    """Header of a metric's value column and of its comparison with LightGBM."""
    label = name.upper()
    if comparison == "diff":
        return [label, f"{label}-lgb"]
    return [label, f"{label}/lgb"]


def format_table(problem, results):
    """Aligned plain-text table for one problem; ratios are relative to LightGBM."""
    ref = results.get("lightgbm", {})
    ref = ref if ref.get("status") == "ok" else {}
    ok = [r for r in results.values() if r.get("status") == "ok"]
    metrics = METRICS[ok[0]["task"]] if ok else {"metric": "ratio"}
    header = ["library", "fit s", "fit/lgb", "predict s", "pred/lgb"]
    for name, comparison in metrics.items():
        header += metric_columns(name, comparison)
    header += ["features", "fit MiB", "mem/lgb", "peak MiB"]
    rows = []
    for lib, r in results.items():
        if r.get("status") != "ok":
            rows.append([lib, r.get("status", "?")] + [""] * (len(header) - 2))
            continue
        row = [
            lib,
            f"{r['fit_s']:.3f}",
            ratio(r["fit_s"], ref.get("fit_s")),
            f"{r['predict_s']:.4f}",
            ratio(r["predict_s"], ref.get("predict_s")),
        ]
        for name, comparison in metrics.items():
            value, reference = r["metrics"][name], ref.get("metrics", {}).get(name)
            if comparison == "diff":
                row += [f"{value:.4f}", difference(value, reference)]
            else:
                row += [f"{value:.4f}", ratio(value, reference, digits=3)]
        row += [
            str(r.get("n_features_used", "-")),
            f"{r['peak_fit_mib']:.0f}",
            ratio(r["peak_fit_mib"], ref.get("peak_fit_mib")),
            f"{r['peak_total_mib']:.0f}",
        ]
        rows.append(row)
    widths = [max(len(row[i]) for row in [header] + rows) for i in range(len(header))]

    def fmt(row):  # library name left-aligned, numbers right-aligned
        return "  ".join(
            c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))
        )

    title = f"== {problem}"
    if ok:
        title += f" ({ok[0]['n_train']} x {ok[0]['n_features']}, {ok[0]['n_test']} test rows"
        if "n_queries" in ok[0]:
            title += f"; {ok[0]['n_queries']} + {ok[0]['n_test_queries']} queries"
        title += ")"
    lines = [title, fmt(header), fmt(["-" * w for w in widths])]
    lines += [fmt(row) for row in rows]
    errors = [f"   {lib}: {r['error']}" for lib, r in results.items() if r.get("error")]
    return "\n".join(lines + errors + target_lines(results))


def target_lines(results):
    """The task's ``TARGETS``, then per sparseboost variant that ran: met or missed."""
    ref = results.get("lightgbm", {})
    ok = {lib: r for lib, r in results.items() if r.get("status") == "ok"}
    checks = TARGETS.get(next(iter(ok.values()))["task"], []) if ok else []
    variants = [lib for lib in ok if lib in SPARSEBOOST_VARIANTS]
    if not checks or not variants:
        return []
    rules = [
        f"{name} >= lgb {bound:+g}" if comparison == "diff" else f"{name} <= lgb x {bound:g}"
        for name, comparison, bound in checks
    ]
    lines = ["   targets: " + ", ".join(rules)]
    for lib in variants:
        if ref.get("status") != "ok":
            lines.append(f"   {lib}: no LightGBM result to compare with")
            continue
        parts = []
        for name, comparison, bound in checks:
            value, reference = ok[lib]["metrics"][name], ref["metrics"][name]
            if comparison == "diff":
                delta = value - reference
                parts.append(f"{name} {delta:+.4f} {'ok' if delta >= bound else 'MISSED'}")
            else:
                rel = value / reference
                parts.append(f"{name} x {rel:.4f} {'ok' if rel <= bound else 'MISSED'}")
        lines.append(f"   {lib}: " + ", ".join(parts))
    return lines


def problem_ids(args):
    """Synthetic problems (task x shape) followed by the requested real data sets."""
    ids = [f"synthetic-{task}-{shape}" for shape in args.shapes for task in args.tasks]
    for name in args.datasets:
        if name not in REAL_DATASETS:
            raise SystemExit(f"unknown dataset {name!r}; choose from {sorted(REAL_DATASETS)}")
        ids.append(name)
    return ids


def csv_list(text):
    return [item.strip() for item in text.split(",") if item.strip()]


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--libs", type=csv_list, default=list(LIBS))
    p.add_argument("--tasks", type=csv_list, default=["regression", "classification"])
    p.add_argument(
        "--shapes",
        type=csv_list,
        default=["100000x100", "6000x5000"],
        help="synthetic shapes NxD, comma-separated, or 'none'",
    )
    p.add_argument(
        "--datasets",
        type=csv_list,
        default=[],
        help="real data sets to add: " + ",".join(REAL_DATASETS),
    )
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--quick", action="store_true", help="smoke run: 5000x20, 1 repeat")
    p.add_argument("--timeout", type=float, default=3600.0, help="seconds per worker")
    p.add_argument(
        "--output",
        type=Path,
        default=None,
        help="JSON file (default benches/results/compare_peers[_quick].json)",
    )
    p.add_argument("--worker", nargs=2, metavar=("LIB", "PROBLEM"), help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.shapes == ["none"]:  # only the real data sets
        args.shapes = []
    if args.quick:
        args.shapes, args.repeats = ["5000x20"], 1
    if args.output is None:  # a smoke run must not overwrite the real results
        name = "compare_peers_quick.json" if args.quick else "compare_peers.json"
        args.output = BENCH_DIR / "results" / name
    for lib in args.libs:
        if lib not in LIBS:
            p.error(f"unknown library {lib!r}; choose from {','.join(LIBS)}")
    if args.repeats < 1:
        p.error("--repeats must be >= 1")
    return args


def main(argv=None):
    args = parse_args(argv)
    if args.worker:
        print(json.dumps(run_worker(*args.worker, args.repeats)))
        return
    command = shlex.join(getattr(sys, "orig_argv", [sys.executable] + sys.argv))
    print(f"$ {command}")
    print(
        f"# {platform.platform()}, {os.cpu_count()} CPUs, python {platform.python_version()},"
        f" {args.repeats} repeat(s), {N_THREADS} threads, {N_TREES} trees, {N_LEAVES} leaves,"
        f" {N_BINS} bins",
        flush=True,
    )
    # Other busy processes ruin OpenMP timings (spinning threads lose their core), so
    # record the load the run started under.
    load = os.getloadavg()[0]
    print(
        f"# load average at start: {load:.2f}"
        + ("  (WARNING: machine busy, timings unreliable)" if load > 0.5 else "")
        + "\n"
    )
    report = {
        "command": command,
        "date": time.strftime("%Y-%m-%d %H:%M:%S"),
        "platform": platform.platform(),
        "cpu_count": os.cpu_count(),
        "repeats": args.repeats,
        "load_average_at_start": load,
        "problems": {},
    }
    for problem in problem_ids(args):
        results = {}
        for lib in args.libs:
            print(f"  running {lib} on {problem} ...", file=sys.stderr, flush=True)
            results[lib] = run_in_subprocess(lib, problem, args.repeats, args.timeout)
        report["problems"][problem] = results
        print(format_table(problem, results) + "\n", flush=True)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(report, indent=2) + "\n")
    print(f"results written to {args.output}")


if __name__ == "__main__":
    main()
