"""Compare sparseboost with LightGBM, XGBoost and scikit-learn's HistGradientBoosting.

What it measures, per (library, problem), each in a fresh subprocess:

* fit time: median over ``--repeats`` whole ``fit`` calls (binning included); with
  ``--rounds R`` every library runs in R processes, the libraries alternating (the
  order rotated each round), and the median is over all R x repeats fits;
* predict time: median time of predicting the test set (``predict`` for regression
  and ranking, ``predict_proba`` for classification), the metric excluded;
* test metrics: RMSE (regression, lower is better), ROC AUC (binary classification),
  multi-logloss (lower is better) and accuracy (multiclass), NDCG@1, @3 and @5
  (ranking; LightGBM's definition, see ``ndcg_at``);
* features: how many features the fitted model splits on;
* peak fit memory: the peak RSS after the fits minus the RSS just before the first
  fit (data already loaded). The peak is the kernel's ``VmHWM``, reset just before
  the first fit (``/proc/self/clear_refs``) so that loading the data cannot set it;
  ``ru_maxrss`` where that is not possible. The total peak RSS is reported too;
  with ``--rounds`` both are medians over the rounds.

All libraries get 100 trees (boosting rounds; a multiclass round grows one tree per
class), at most 31 leaves, 255 bins, learning rate 0.1, 2 threads, at least 20
samples per leaf, no subsampling and no L2 regularisation.
Data is generated (or loaded) inside each subprocess from fixed seeds, so every
library sees the same data and the peak RSS is that library's alone. Ratios are
"library / LightGBM"; NDCG is compared by difference, "library - LightGBM".
Timings need a quiet machine: OpenMP libraries can slow down
tenfold when another process competes for the cores, so the load average is shown
(at the start and the end), and the workers run with ``OMP_WAIT_POLICY=PASSIVE``
(``--omp-wait-policy``) so that idle OpenMP threads sleep rather than spin.

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
  least LightGBM's minus 0.005;
* ``dexter`` and ``dorothea`` (NIPS 2003 feature-selection challenge, sparse): every
  library is given the same scipy CSR float32 matrix (LightGBM and XGBoost take it
  as is; sparseboost does not densify it; scikit-learn's HistGradientBoosting
  rejects sparse input, so its row reads "unsupported" with its error, found by a
  fit on 50 rows). Loaded by ``sparse_data.py``.

  - ``dexter``: Reuters bag of words, train 300 x 20000 (nnz 28218), test the 300
    labelled valid rows (AUC), plus a 5-fold CV of the training rows (below);
  - ``dorothea``: drug binding, the 800 x 88119 binary reconstructed training rows
    (nnz 727760, 78 positives). Its valid file numbers its columns differently, so
    there is no test set: it is scored by the 5-fold CV only, and its predict time
    is that of the training rows.

  CV: ``StratifiedKFold(5, shuffle=True, random_state=0)`` on the training rows,
  the same folds for every library, a fresh model per fold (row subsets of the
  same CSR matrix); the table shows the mean AUC +- its standard error (standard
  deviation over the folds / sqrt(5)). The CV fits come after the timed fits and
  the memory reading, and run in the first round only. Fit time and memory are
  those of the ``--repeats`` fits of all the training rows.

  Targets (printed below the table; ratios are library / LightGBM):
  (1) exhaustive sparseboost (``sparseboost``, ``sparseboost-agbm``) fits in at
  most 1.0x LightGBM's time (the issue is not done above 1.5x; both shown), on both;
  (2) on Dorothea ``sparseboost-gt`` fits in at most 0.2x LightGBM's time (>= 5x
  faster) with a mean CV AUC at least LightGBM's mean minus LightGBM's standard
  error (the paired per-fold difference is shown for information);
  (3) every sparseboost variant's peak fit memory is at most LightGBM's, on both.

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
    python benches/compare_peers.py --shapes none --datasets dexter,dorothea --repeats 5 \
        --rounds 3 --output benches/results/compare_peers_sparse.json

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
from peers_report import METRICS, NDCG_AT, SPARSEBOOST_VARIANTS, format_table, merge_rounds

BENCH_DIR = Path(__file__).resolve().parent
PROJECT_ROOT = BENCH_DIR.parent
DATA_DIR = PROJECT_ROOT.parent / "shared" / "data"
LIBS = ("sparseboost", "sparseboost-agbm", "sparseboost-gt", "lightgbm", "xgboost", "sklearn")
REAL_DATASETS = (
    "lightgbm_binary",
    "cal_housing",
    "lightgbm_multiclass",
    "lightgbm_lambdarank",
    "dexter",
    "dorothea",
)
# The sparse problems: every library gets the same scipy CSR matrix of this dtype.
SPARSE_DATASETS = ("dexter", "dorothea")
SPARSE_DTYPE = np.float32
CV_FOLDS = 5  # stratified, shuffled with seed SEED
N_TREES, N_LEAVES, N_BINS, LEARNING_RATE, N_THREADS, MIN_LEAF = 100, 31, 255, 0.1, 2, 20
SEED, TEST_SEED = 0, 1
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
    sizes (rows of a query are contiguous) of a ranking problem, else None.
    ``X_test``/``y_test`` are None when the problem has no test set (Dorothea);
    ``cv_folds`` > 0 adds a stratified ``cv_folds``-fold cross-validation on the
    training rows (binary classification only)."""

    task: str  # "regression", "classification" (binary), "multiclass" or "ranking"
    X: np.ndarray
    y: np.ndarray
    X_test: np.ndarray | None
    y_test: np.ndarray | None
    group: np.ndarray | None = None
    group_test: np.ndarray | None = None
    cv_folds: int = 0


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
    if problem in SPARSE_DATASETS:
        # The shared loaders (numpy, scipy, scikit-learn; not sparseboost).
        sys.path.insert(0, str(BENCH_DIR))
        import sparse_data

        if problem == "dexter":
            X, y, X_test, y_test = sparse_data.load_dexter(SPARSE_DTYPE)
            return Problem("classification", X, y, X_test, y_test, cv_folds=CV_FOLDS)
        # Dorothea's valid file indexes its columns differently: no test set.
        X, y = sparse_data.load_dorothea(SPARSE_DTYPE)
        return Problem("classification", X, y, None, None, cv_folds=CV_FOLDS)
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
    """The task's test metrics (``METRICS``), by name; none without a test set."""
    from sklearn.metrics import log_loss, roc_auc_score

    y_test = problem.y_test
    if y_test is None:
        return {}
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


def cross_validate(problem, factory):
    """Stratified ``problem.cv_folds``-fold CV (shuffled, seed ``SEED``) of binary AUC.

    Every library gets the same folds: row subsets of the same matrix (CSR stays
    CSR). Returns the per-fold AUCs and fit times, the mean AUC and its standard
    error (standard deviation over folds / sqrt(folds)).
    """
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import StratifiedKFold

    folds = StratifiedKFold(n_splits=problem.cv_folds, shuffle=True, random_state=SEED)
    aucs, fit_times = [], []
    for train, test in folds.split(np.zeros(len(problem.y)), problem.y):
        model = factory()
        t0 = time.perf_counter()
        model.fit(problem.X[train], problem.y[train])
        fit_times.append(time.perf_counter() - t0)
        scores = model.predict_proba(problem.X[test])[:, 1]
        aucs.append(float(roc_auc_score(problem.y[test], scores)))
    return {
        "folds": problem.cv_folds,
        "seed": SEED,
        "auc_folds": aucs,
        "fit_times_s": fit_times,
        "auc_mean": float(np.mean(aucs)),
        "auc_se": float(np.std(aucs, ddof=1) / np.sqrt(len(aucs))),
    }


def sparse_fit_unsupported(lib, factory, problem):
    """The reason ``lib`` cannot fit ``problem``'s scipy sparse matrix, else None.

    Probed with a fit on the first rows rather than assumed: scikit-learn's
    HistGradientBoosting rejects sparse input (a TypeError naming it), and the
    other libraries are expected to accept it.
    """
    import scipy.sparse as sp

    if lib != "sklearn" or not sp.issparse(problem.X):
        return None
    rows = np.arange(min(50, len(problem.y)))
    try:
        factory().fit(problem.X[rows], problem.y[rows])
    except (TypeError, ValueError) as exc:
        if "sparse" in str(exc).lower():
            return f"{type(exc).__name__}: {exc}"
        raise
    return None


def current_rss_mib():
    """Resident set size now, in MiB (psutil; /proc on Linux if psutil is missing)."""
    try:
        import psutil
    except ImportError:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    return psutil.Process().memory_info().rss / 2**20


def reset_peak_rss():
    """Reset the kernel's peak-RSS mark (Linux >= 4.0: ``/proc/self/clear_refs``).

    Loading a data set can peak above the fit itself (Dorothea's text parser does);
    after a reset the peak read by ``peak_rss_mib`` is the fits' own. Returns
    whether the reset worked; if not, the peak is ``ru_maxrss``, which may be the
    loading's.
    """
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return peak_rss_mib() is not None
    except OSError:
        return False


def peak_rss_mib():
    """Peak RSS (``VmHWM``) in MiB, or None when /proc does not give it."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return None


def run_worker(lib, problem_id, repeats, cv=True):
    """Measure one (library, problem) pair in this process; return a result dict.

    ``cv=False`` skips the problem's cross-validation (later ``--rounds``).
    """
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
    reason = sparse_fit_unsupported(lib, factory, problem)
    if reason:
        return {"status": "unsupported", "error": f"scipy sparse input not accepted: {reason}"}
    task, X, y, X_test = problem.task, problem.X, problem.y, problem.X_test
    # Without a test set, predict time is measured on the training rows.
    X_predict = X if X_test is None else X_test
    fit_kwargs = {"group": problem.group} if task == "ranking" else {}
    gc.collect()
    rss_before = current_rss_mib()
    # ru_maxrss is KiB on Linux; kept to show whether loading set the peak instead.
    maxrss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    peak_reset = reset_peak_rss()

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
        if peak_reset:
            peak_total = peak_rss_mib()
        else:
            peak_total = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
        for _ in range(repeats):
            t0 = time.perf_counter()
            predictions = predict(task, model, X_predict)
            predict_times.append(time.perf_counter() - t0)
        metrics = test_metrics(problem, model, predictions)
        n_used = n_features_used(model)
        model = None
        cv_result = None
        if problem.cv_folds and cv:
            try:
                cv_result = cross_validate(problem, factory)
            except pending as exc:
                return {"status": "unavailable", "error": f"{type(exc).__name__}: {exc}"}
    metric_name = next(iter(METRICS[task])) if metrics else "cv_auc"
    if cv_result is not None:
        metrics["cv_auc"] = cv_result["auc_mean"]
        metrics["cv_auc_se"] = cv_result["auc_se"]
    sparse_input = None
    if not isinstance(X, np.ndarray):  # scipy sparse
        sparse_input = {"format": X.format, "dtype": str(X.dtype), "nnz": int(X.nnz)}
    return {
        "status": "ok",
        "version": version,
        "task": task,
        "load_average": os.getloadavg()[0],
        "n_train": int(X.shape[0]),
        "n_test": None if X_test is None else int(X_test.shape[0]),
        "sparse_input": sparse_input,
        "omp_wait_policy": os.environ.get("OMP_WAIT_POLICY"),
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
        "metric": metrics.get(metric_name),
        "metrics": metrics,
        **({"cv": cv_result} if cv_result is not None else {}),
        "n_features_used": n_used,
        "rss_before_fit_mib": rss_before,
        "maxrss_before_fit_mib": maxrss_before,
        "peak_total_mib": peak_total,
        "peak_source": "VmHWM after reset" if peak_reset else "ru_maxrss",
        "peak_fit_mib": peak_total - rss_before,
    }


# ---------------------------------------------------------------- driver (parent side)


def run_in_subprocess(lib, problem, repeats, timeout, cv=True, omp_wait_policy=None):
    """Run one worker in a fresh interpreter; its last stdout line is the JSON result.

    ``omp_wait_policy`` sets ``OMP_WAIT_POLICY`` in the worker's environment
    (PASSIVE: idle OpenMP threads sleep instead of spinning, which LightGBM
    otherwise does when the cores are oversubscribed).
    """
    cmd = [
        sys.executable,
        str(Path(__file__).resolve()),
        "--worker",
        lib,
        problem,
        "--repeats",
        str(repeats),
        *([] if cv else ["--no-cv"]),
    ]
    env = dict(os.environ)
    if omp_wait_policy:
        env["OMP_WAIT_POLICY"] = omp_wait_policy
    try:
        proc = subprocess.run(
            cmd, check=False, capture_output=True, text=True, timeout=timeout, env=env
        )
    except subprocess.TimeoutExpired:
        return {"status": "failed", "error": f"timeout after {timeout} s"}
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        tail = proc.stderr.strip().splitlines()[-3:]
        return {"status": "failed", "error": f"exit {proc.returncode}: " + " | ".join(tail)}
    return json.loads(lines[-1])


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
    p.add_argument("--repeats", type=int, default=3, help="fits per worker process")
    p.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="worker processes per library, the libraries alternating (order rotated"
        " each round); times are medians over all fits of all rounds",
    )
    p.add_argument(
        "--omp-wait-policy",
        default="PASSIVE",
        help="OMP_WAIT_POLICY of the workers ('' to inherit the environment's)",
    )
    p.add_argument("--no-cv", action="store_true", help=argparse.SUPPRESS)
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
    if args.repeats < 1 or args.rounds < 1:
        p.error("--repeats and --rounds must be >= 1")
    return args


def main(argv=None):
    args = parse_args(argv)
    if args.worker:
        print(json.dumps(run_worker(*args.worker, args.repeats, cv=not args.no_cv)))
        return
    command = shlex.join(getattr(sys, "orig_argv", [sys.executable] + sys.argv))
    omp = args.omp_wait_policy or os.environ.get("OMP_WAIT_POLICY")
    print(f"$ {command}")
    print(
        f"# {platform.platform()}, {os.cpu_count()} CPUs, python {platform.python_version()},"
        f" {args.rounds} round(s) x {args.repeats} repeat(s), {N_THREADS} threads, {N_TREES} trees,"
        f" {N_LEAVES} leaves, {N_BINS} bins, OMP_WAIT_POLICY={omp or 'unset'}",
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
        "rounds": args.rounds,
        "omp_wait_policy": omp,
        "load_average_at_start": load,
        "load_averages_at_start": list(os.getloadavg()),
        "problems": {},
    }
    for problem in problem_ids(args):
        rounds = {lib: [] for lib in args.libs}
        for k in range(args.rounds):
            # Alternate the libraries, rotating the order each round, so that a
            # change of machine load hits all of them alike.
            shift = k % len(args.libs)
            for lib in args.libs[shift:] + args.libs[:shift]:
                print(f"  round {k + 1}: {lib} on {problem} ...", file=sys.stderr, flush=True)
                rounds[lib].append(
                    run_in_subprocess(
                        lib,
                        problem,
                        args.repeats,
                        args.timeout,
                        cv=k == 0,  # the CV (deterministic fits) once
                        omp_wait_policy=args.omp_wait_policy,
                    )
                )
        results = {lib: merge_rounds(rounds[lib]) for lib in args.libs}
        report["problems"][problem] = results
        print(format_table(problem, results) + "\n", flush=True)
    report["load_averages_at_end"] = list(os.getloadavg())
    print("# load average (1, 5, 15 min) at end: " + ", ".join(f"{x:.2f}" for x in os.getloadavg()))
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(report, indent=2) + "\n")
    print(f"results written to {args.output}")


if __name__ == "__main__":
    main()
