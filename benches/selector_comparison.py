"""Selectors side by side: the same model refit on the features each selector keeps.

Every selector picks feature sets of about ``--sizes`` (default 5, 10, 20, 40)
features from the training split; a common LightGBM-like model,
``SparseBoostClassifier(penalty="none", n_estimators=300, learning_rate=0.05,
max_leaves=15, min_samples_leaf=5, random_state=0)``, is refit on each set on the
training split and scored on the validation (test) split by ROC AUC and by recall at
precision 0.33 (the largest recall over thresholds whose precision is >= 0.33,
``sparseboost.metrics.recall_at_precision``). The row "all features" is
the common model on every column, for reference. When positives make up >= 33% of
the validation rows (Madelon, Arcene and Dexter are balanced or nearly so), scoring
every row positive already has precision >= 0.33, so recall at precision 0.33 is 1
for any model; it tells selectors apart only on Adult (24% positive).

Selectors (boosters get the common model's settings unless said otherwise):

* ``GBFS``: ``SparseBoostClassifier(penalty="gbfs", mu=0.005 * n_train,
  max_selected_features=K)``, one fit per K, its ``selected_features_`` (GBFS's mu is in
  gain units, which grow with the number of rows: 10 on Madelon's 2000 rows; the
  rule was fixed before any run, not tuned);
* ``A-GBM``: the same with ``penalty="agbm", mu=0.01``;
* ``GT-GBM``: A-GBM with ``split_search="group_testing"`` (``gt_n_features=10``,
  ``gt_delta=0.1``);
* ``TopK``: ``TopKSelector(estimator=<the common model>, n_features_to_select=K,
  refit=False)``, fitted once for the largest K (the top K are a prefix);
* ``RF uniform`` and ``RF dynamic``: ``SparseForestClassifier(n_estimators=100,
  max_features="sqrt", random_state=0)`` with uniform sampling and with
  ``feature_sampling="dynamic"`` (``reweight_rate=5``), the top K by
  ``feature_importances_``;
* ``dyn-boost``: ``SparseBoostClassifier(penalty="none", colsample_bytree=0.1,
  feature_sampling="dynamic")``, the top K by ``feature_importances_``;
* ``linear fwd``: ``LinearForwardSelector`` (the 0/1 labels as numbers, the linear
  probability model), the first K of ``order_``;
* ``two-pass``: ``TwoPassForwardSelector(scoring="roc_auc", threshold=t)`` for each
  t in ``--twopass-thresholds``; its set size follows from t, so it gets a table
  of its own (threshold, size, AUC, recall, time).

RFE is not run (one booster fit per eliminated step is too slow for these widths).

Rankers (TopK, forests, dyn-boost, linear fwd) take only features with a positive
importance (every entered feature for linear fwd), so a set can be smaller than K;
the table then shows the size in brackets, e.g. ``0.812(4)``. The boosters with
``max_selected_features=K`` can also stop short of K. Selection time ("sel s") is the wall
clock of the selector's fits: the sum over the sizes for GBFS, A-GBM and GT-GBM
(one fit per K), one fit for the rankers. One run each, on a shared machine.

Data (``../shared/data`` relative to the project root; see its README):

* ``madelon``: train 2000 x 500, valid 600;
* ``arcene``: train 100 x 10000, valid 100;
* ``dexter``: train 300 x 20000 (sparse ``index:value`` rows, no label column;
  densified), valid 300;
* ``adult``: the LIBSVM binarisation, train ``adult.trn`` subsampled to
  ``--adult-train`` rows (default 10000, drawn with seed 0), test all 16281 rows of
  ``adult.tst``.

Columns constant on the training split are dropped before selection (they cannot
be split on, and the linear selector's Gram matrix on Dexter's 20000 columns would
need 3.2 GB); feature indices in the JSON refer to the original columns.

Run from the project root::

    python benches/selector_comparison.py                      # all four, ~5 min
    python benches/selector_comparison.py --quick              # smoke run
    python benches/selector_comparison.py --datasets madelon,arcene --sizes 5,10,20

Results: one table per data set, and JSON in
``benches/results/selector_comparison.json`` (``..._quick.json`` for ``--quick``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import sys
import time
from pathlib import Path

import numpy as np
import sparseboost as sb
from sklearn.datasets import load_svmlight_file
from sklearn.metrics import roc_auc_score
from sparseboost.metrics import recall_at_precision

sys.path.insert(0, str(Path(__file__).resolve().parent))
import sparse_data  # noqa: E402

BENCH_DIR = Path(__file__).resolve().parent
PROJECT_ROOT = BENCH_DIR.parent
DATA_DIR = PROJECT_ROOT.parent / "shared" / "data"
DATASETS = ("madelon", "arcene", "dexter", "adult")
PRECISION = 0.33
COMMON = dict(n_estimators=300, learning_rate=0.05, max_leaves=15, min_samples_leaf=5)


RECALL_SOURCE = "sparseboost.metrics.recall_at_precision"


# ------------------------------------------------------------------------ data


def _load_nolabel_svm(path, n_features, dense=True):
    X = sparse_data.load_nolabel_svm(path, n_features)
    return X.toarray() if dense else X


def _labels(path):
    return sparse_data.labels(path)


def load_dorothea(dense=True):
    """Dorothea's reconstructed training rows, float32 (dense, or CSR with
    ``dense=False``), labels 0/1."""
    X, y = sparse_data.load_dorothea(np.float32)
    return (X.toarray() if dense else X), y


def load(name, adult_train, dense=True):
    """(X_train, y_train, X_valid, y_valid, note) of a data set, labels 0/1.
    ``dense=False`` keeps Dexter as scipy CSR (the others are dense files)."""
    if name in ("madelon", "arcene"):
        d = DATA_DIR / name
        return (
            np.loadtxt(d / f"{name}_train.data"),
            _labels(d / f"{name}_train.labels"),
            np.loadtxt(d / f"{name}_valid.data"),
            _labels(d / f"{name}_valid.labels"),
            "train / valid",
        )
    if name == "dexter":
        d = DATA_DIR / "dexter"
        return (
            _load_nolabel_svm(d / "dexter_train.data", 20000, dense),
            _labels(d / "dexter_train.labels"),
            _load_nolabel_svm(d / "dexter_valid.data", 20000, dense),
            _labels(d / "dexter_valid.labels"),
            "train / valid",
        )
    if name == "adult":
        d = DATA_DIR / "adult_libsvm"
        X, y = load_svmlight_file(str(d / "adult.trn"), n_features=123, zero_based=True)
        X_test, y_test = load_svmlight_file(str(d / "adult.tst"), n_features=123, zero_based=True)
        X, X_test = X.toarray(), X_test.toarray()
        note = f"adult.trn ({len(y)} rows) / adult.tst"
        if adult_train and adult_train < len(y):
            rows = np.sort(np.random.default_rng(0).choice(len(y), adult_train, replace=False))
            X, y = X[rows], y[rows]
            note = f"adult.trn subsampled to {adult_train} rows (seed 0) / adult.tst"
        return X, (y > 0).astype(int), X_test, (y_test > 0).astype(int), note
    raise SystemExit(f"unknown data set {name!r}; choose from {', '.join(DATASETS)}")


# ------------------------------------------------------------------- selectors


def booster(args, **params):
    settings = dict(COMMON, n_estimators=args.n_estimators, random_state=0)
    settings.update(params)
    return sb.SparseBoostClassifier(**settings)


def top_by_importance(importances, k):
    order = np.argsort(-np.asarray(importances), kind="stable")
    order = order[np.asarray(importances)[order] > 0]
    return order[:k]


def per_k_selector(make):
    """A selector fitted once per K whose ``selected_features_`` is the set."""

    def select(X, y, sizes):
        sets, elapsed = {}, 0.0
        for k in sizes:
            model = make(k)
            start = time.perf_counter()
            model.fit(X, y)
            elapsed += time.perf_counter() - start
            sets[k] = np.asarray(model.selected_features_)[:k]
        return sets, elapsed

    return select


def ranking_selector(fit_rank):
    """A selector fitted once whose ranking's prefixes are the sets."""

    def select(X, y, sizes):
        start = time.perf_counter()
        ranking = fit_rank(X, y, max(sizes))
        elapsed = time.perf_counter() - start
        return {k: np.asarray(ranking[:k]) for k in sizes}, elapsed

    return select


def selectors(args, n_train):
    def topk(X, y, k):
        sel = sb.TopKSelector(
            estimator=booster(args, penalty="none"), n_features_to_select=k, refit=False
        ).fit(X, y)
        keep = sel.importances_[sel.selected_features_] > 0
        return np.asarray(sel.selected_features_)[keep]

    def forest(sampling):
        def rank(X, y, k):
            model = sb.SparseForestClassifier(
                n_estimators=args.forest_n_estimators,
                max_features="sqrt",
                feature_sampling=sampling,
                reweight_rate=5.0,
                random_state=0,
            ).fit(X, y)
            return top_by_importance(model.feature_importances_, k)

        return rank

    def dyn_boost(X, y, k):
        model = booster(args, penalty="none", colsample_bytree=0.1, feature_sampling="dynamic").fit(
            X, y
        )
        return top_by_importance(model.feature_importances_, k)

    def linear(X, y, k):
        return sb.LinearForwardSelector(n_features_to_select=1).fit(X, y).order_

    gbfs_mu = args.gbfs_mu_per_row * n_train
    return {
        "GBFS": per_k_selector(
            lambda k: booster(args, penalty="gbfs", mu=gbfs_mu, max_selected_features=k)
        ),
        "A-GBM": per_k_selector(
            lambda k: booster(args, penalty="agbm", mu=0.01, max_selected_features=k)
        ),
        "GT-GBM": per_k_selector(
            lambda k: booster(
                args,
                penalty="agbm",
                mu=0.01,
                max_selected_features=k,
                split_search="group_testing",
                gt_n_features=10,
                gt_delta=0.1,
            )
        ),
        "TopK": ranking_selector(topk),
        "RF uniform": ranking_selector(forest("uniform")),
        "RF dynamic": ranking_selector(forest("dynamic")),
        "dyn-boost": ranking_selector(dyn_boost),
        "linear fwd": ranking_selector(linear),
    }


# ------------------------------------------------------------------ evaluation


def refit_score(args, X, y, X_valid, y_valid, features):
    """Validation AUC and recall at precision 0.33 of the common model on ``features``."""
    if len(features) == 0:
        return float("nan"), float("nan")
    model = booster(args, penalty="none").fit(X[:, features], y)
    score = model.predict_proba(X_valid[:, features])[:, 1]
    recall = recall_at_precision(y_valid, score, precision=PRECISION)
    return float(roc_auc_score(y_valid, score)), float(recall)


def cell(value, size, k, reference=False):
    if value != value:  # NaN
        return "-"
    return f"{value:.3f}" if size == k or reference else f"{value:.3f}({size})"


def print_table(name, shape_note, sizes, rows, elapsed):
    auc_cols = [f"AUC@{k}" for k in sizes]
    rec_cols = [f"R@{k}" for k in sizes]
    width = 10
    print(f"\n{name}: {shape_note}")
    header = f"{'selector':<13}" + "".join(f"{c:>{width}}" for c in auc_cols + rec_cols)
    header += f"{'sel s':>9}"
    print(header)
    print("-" * len(header))
    for sel, r in rows.items():
        line = f"{sel:<13}"
        for metric in ("auc", "recall"):
            for k in sizes:
                e = r["sizes"][str(k)]
                ref = sel == "all features"
                line += f"{cell(e[metric], e['size'], k, ref):>{width}}"
        line += f"{r['selection_s']:>9.2f}" if r["selection_s"] is not None else f"{'':>9}"
        print(line)
    print(
        f"(R@K = recall at precision {PRECISION}; 'all features' uses every column; "
        f"{elapsed:.0f} s for this data set)"
    )


def run_dataset(name, args):
    X, y, X_valid, y_valid, note = load(name, args.adult_train)
    d_all = X.shape[1]
    keep = np.flatnonzero(np.ptp(X, axis=0) > 0)
    X, X_valid = np.ascontiguousarray(X[:, keep]), np.ascontiguousarray(X_valid[:, keep])
    shape_note = (
        f"{note}, train {X.shape[0]} x {d_all} ({X.shape[1]} not constant on train), "
        f"valid {X_valid.shape[0]}, positives train {y.mean():.2f} / valid {y_valid.mean():.2f}"
    )
    print(f"[{name}] {shape_note}", file=sys.stderr)
    sizes = [k for k in args.sizes if k <= X.shape[1]]
    start_ds = time.perf_counter()
    rows = {}
    # reference: the common model on all columns
    start = time.perf_counter()
    auc, rec = refit_score(args, X, y, X_valid, y_valid, np.arange(X.shape[1]))
    rows["all features"] = {
        "sizes": {str(k): {"size": X.shape[1], "auc": auc, "recall": rec} for k in sizes},
        "selection_s": None,
        "fit_s": time.perf_counter() - start,
    }
    for sel_name, select in selectors(args, X.shape[0]).items():
        if args.selectors and sel_name not in args.selectors:
            continue
        sets, elapsed = select(X, y, sizes)
        entry = {"sizes": {}, "selection_s": elapsed}
        for k in sizes:
            features = np.asarray(sets[k], dtype=int)
            auc, rec = refit_score(args, X, y, X_valid, y_valid, features)
            entry["sizes"][str(k)] = {
                "size": len(features),
                "auc": auc,
                "recall": rec,
                "features": keep[features].tolist(),
            }
        rows[sel_name] = entry
        print(f"[{name}] {sel_name}: {elapsed:.2f} s", file=sys.stderr)
    twopass = run_twopass(args, X, y, X_valid, y_valid, keep)
    elapsed = time.perf_counter() - start_ds
    print_table(name, shape_note, sizes, rows, elapsed)
    print("two-pass (TwoPassForwardSelector, scoring='roc_auc'):")
    print(f"{'threshold':>10} {'size':>6} {'AUC':>8} {'R@size':>8} {'sel s':>8}")
    for t in twopass:
        print(
            f"{t['threshold']:>10g} {t['size']:>6d} {t['auc']:>8.3f} {t['recall']:>8.3f}"
            f" {t['selection_s']:>8.2f}"
        )
    return {
        "data": shape_note,
        "n_features": d_all,
        "n_features_nonconstant": int(X.shape[1]),
        "sizes": sizes,
        "selectors": rows,
        "two_pass": twopass,
        "elapsed_s": elapsed,
        "load_average": os.getloadavg()[0],
    }


def run_twopass(args, X, y, X_valid, y_valid, keep):
    """Each threshold's set."""
    cls = sb.TwoPassForwardSelector
    out = []
    for t in args.twopass_thresholds:
        start = time.perf_counter()
        sel = cls(scoring="roc_auc", threshold=t).fit(X, y)
        elapsed = time.perf_counter() - start
        features = np.asarray(sel.selected_features_, dtype=int)
        auc, rec = refit_score(args, X, y, X_valid, y_valid, features)
        out.append(
            {
                "threshold": t,
                "size": len(features),
                "auc": auc,
                "recall": rec,
                "selection_s": elapsed,
                "features": keep[features].tolist(),
            }
        )
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--datasets", default=",".join(DATASETS))
    parser.add_argument("--sizes", default="5,10,20,40")
    parser.add_argument("--selectors", default="", help="comma list; empty for all")
    parser.add_argument("--n-estimators", type=int, default=COMMON["n_estimators"])
    parser.add_argument("--forest-n-estimators", type=int, default=100)
    parser.add_argument("--gbfs-mu-per-row", type=float, default=0.005)
    parser.add_argument("--adult-train", type=int, default=10000)
    parser.add_argument("--twopass-thresholds", default="0.001,0.005,0.01,0.02")
    parser.add_argument("--quick", action="store_true", help="smoke run")
    parser.add_argument("--output", default=None)
    args = parser.parse_args(argv)
    args.sizes = sorted({int(v) for v in args.sizes.split(",") if v.strip()})
    args.selectors = [s.strip() for s in args.selectors.split(",") if s.strip()]
    args.twopass_thresholds = [float(v) for v in args.twopass_thresholds.split(",") if v.strip()]
    datasets = [d.strip() for d in args.datasets.split(",") if d.strip()]
    if args.quick:
        args.n_estimators, args.forest_n_estimators, args.adult_train = 50, 20, 2000
        if args.datasets == ",".join(DATASETS):
            datasets = ["madelon", "arcene"]
        args.sizes = [k for k in args.sizes if k <= 10] or args.sizes[:1]
    output = Path(args.output) if args.output else None
    if output is None:
        stem = "selector_comparison_quick" if args.quick else "selector_comparison"
        output = BENCH_DIR / "results" / f"{stem}.json"

    print(
        "command: python " + shlex.join(["benches/selector_comparison.py", *(argv or sys.argv[1:])])
    )
    print(
        f"sparseboost {sb.__version__}, {platform.machine()}, {os.cpu_count()} cores, "
        f"load average at start {os.getloadavg()[0]:.2f}"
    )
    common = dict(COMMON, n_estimators=args.n_estimators)
    print(f"common model: SparseBoostClassifier(penalty='none', {common}); sizes {args.sizes}")
    print(f"recall at precision {PRECISION}: {RECALL_SOURCE}")
    results = {
        "config": {
            "argv": argv if argv is not None else sys.argv[1:],
            "sizes": args.sizes,
            "common_model": common,
            "forest_n_estimators": args.forest_n_estimators,
            "gbfs_mu_per_row": args.gbfs_mu_per_row,
            "adult_train": args.adult_train,
            "twopass_thresholds": args.twopass_thresholds,
            "recall_at_precision": RECALL_SOURCE,
            "sparseboost": sb.__version__,
            "cpu_count": os.cpu_count(),
        },
        "datasets": {},
    }
    for name in datasets:
        results["datasets"][name] = run_dataset(name, args)
        sys.stdout.flush()
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(results, indent=1))
    print(f"\nwrote {output}")


if __name__ == "__main__":
    main()
