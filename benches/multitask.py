"""Multitask boosting against its baselines on a simulated problem (the
A-GBM paper's section 5.3 and Figure 4, on data with a known answer), with
a paired comparison over data seeds.

The problem (``sparseboost.datasets.make_multitask``): by default T = 4
tasks of 4000, 1500, 600 and 250 training rows (issue 14's problem) over
d = 100 iid U[0, 1] features. Features 0-3 matter to every task, each
through its own shape (linear, 2**x, sin, log2(1+x)) with a coefficient that
differs between tasks (a common value times 1 + 0.3 N(0, 1)); each task has
two relevant features of its own (4-5, 6-7, ...); noise N(0, 1). Every task
has 2000 held-out test rows drawn from the same tasks. The classification
variant labels a row 1 where its noisy target exceeds its task's median and
reports ROC AUC.

Methods, all A-GBM (``penalty="agbm"``) with the same trees (100 rounds,
learning rate 0.1, 31 leaves, 20 rows per leaf):

* ``Independent``: one ``SparseBoostRegressor`` per task, each with its own mu;
* ``SingleTask``: one pooled ``SparseBoostRegressor`` on all rows with the
  task one-hot encoded as T extra features (the paper's "SingleTask");
* ``GroupSparse``: ``MultiTaskSparseBoostRegressor`` with ``mu_task = 0``;
* ``Multitask``: ``MultiTaskSparseBoostRegressor`` with both penalties and
  ``shared_rounds = 0`` (every round one tree per task);
* ``Multitask+shared``: the same with ``shared_rounds`` chosen (0
  included: the first rounds fit one tree on all tasks' rows, which every
  task's model starts from) and ``mu_task`` one value per task;
* ``Multitask auto``: ``MultiTaskSparseBoostRegressor(shared_rounds="auto",
  mu_task="auto")`` with the default ``mu_group``, fitted once on all
  training rows: no hand-chosen setting, the estimator cross-validates
  both knobs on the training rows itself (its time includes that search).

Tuning, honest and the same for all: 25% of each task's training rows are a
validation split; every method picks its parameters from its grid (below) by
the size-weighted validation RMSE (Independent: each task its own mu, by that
task's validation RMSE; classification: by validation log-loss), is refitted
on all training rows, and is scored once on the test rows. The test rows
never take part in a choice. Grids: mu in {0.01, 0.03, 0.1} (Independent,
SingleTask), mu_group in {0.01, 0.03, 0.1} (GroupSparse), mu_group x mu_task
in {0.01, 0.03, 0.1}^2 (Multitask); for Multitask+shared, mu_group in
{0.01, 0.03, 0.1} x shared_rounds in {0, 10, 25}, and for each pair every
task's mu_task in {0.01, 0.03, 0.1} chosen by that task's validation loss
as Independent chooses each task's mu (27 fits, as many as Multitask's 9
x 3).

Reported per method: per-task and size-weighted (by training rows) test RMSE
(AUC), the features each task's model uses (and how many of them are
relevant to that task), the refit's fit time, and the parameters chosen
(means over data seeds); then the paired comparison: for each data seed the
difference between a multitask method and a baseline on the same draw
(positive = the multitask method is better: lower RMSE, higher AUC), per
task and size-weighted, as mean +- standard error over seeds. Results go to
``benches/results/multitask.md`` (and ``.json``). Run from the project
root::

    python benches/multitask.py                       # both variants, 5 seeds
    python benches/multitask.py --variant regression --repeats 2 --sizes 5000 1000 300
"""

from __future__ import annotations

import argparse
import itertools
import json
import shlex
import sys
import time
from pathlib import Path

import numpy as np
from sklearn.metrics import log_loss, roc_auc_score
from sparseboost import (
    MultiTaskSparseBoostClassifier,
    MultiTaskSparseBoostRegressor,
    SparseBoostClassifier,
    SparseBoostRegressor,
)
from sparseboost.datasets import make_multitask

GRID = (0.01, 0.03, 0.1)
SHARED_GRID = (0, 10, 25)
METHODS = (
    "Independent",
    "SingleTask",
    "GroupSparse",
    "Multitask",
    "Multitask+shared",
    "Multitask auto",
)
BASELINES = ("Independent", "SingleTask")
MULTITASK = ("Multitask", "Multitask+shared", "Multitask auto")
RESULTS = Path(__file__).resolve().parent / "results"


class Problem:
    """One draw: training rows (with a validation split) and test rows."""

    def __init__(self, sizes, n_features, test_rows, variant, seed):
        total = [n + test_rows for n in sizes]
        X, y, task, self.relevant = make_multitask(
            total, n_features, task=variant, random_state=seed
        )
        rng = np.random.default_rng(seed + 1000)
        train = np.zeros(len(y), dtype=bool)
        valid = np.zeros(len(y), dtype=bool)
        for t, n in enumerate(sizes):
            rows = rng.permutation(np.flatnonzero(task == t))
            train[rows[:n]] = True
            valid[rows[: n // 4]] = True
        self.variant = variant
        self.n_tasks = len(sizes)
        self.X, self.y, self.task = X, y, task
        self.train, self.valid = train, valid
        self.fit_rows = train & ~valid
        self.test = ~train

    def relevant_to(self, t):
        return set(self.relevant["shared"]) | set(self.relevant["private"][t])


def common_params(args):
    return {
        "n_estimators": args.n_estimators,
        "learning_rate": 0.1,
        "max_leaves": 31,
        "min_samples_leaf": 20,
        "penalty": "agbm",
        "n_jobs": args.n_jobs,
        "random_state": 0,
    }


# -- the four methods: fit(problem, rows, choice) -> (predict(rows), features per task)


def fit_independent(p, rows, mus, args):
    cls = SparseBoostRegressor if p.variant == "regression" else SparseBoostClassifier
    models = []
    for t in range(p.n_tasks):
        own = rows & (p.task == t)
        models.append(cls(mu=mus[t], **common_params(args)).fit(p.X[own], p.y[own]))

    def predict(eval_rows):
        out = np.empty(eval_rows.sum())
        tasks = p.task[eval_rows]
        for t, m in enumerate(models):
            out[tasks == t] = score(m, p.X[eval_rows][tasks == t])
        return out

    return predict, [list(m.selected_features_) for m in models]


def with_task_columns(p, rows):
    onehot = np.eye(p.n_tasks)[p.task[rows]]
    return np.hstack([p.X[rows], onehot])


def fit_pooled(p, rows, mu, args):
    cls = SparseBoostRegressor if p.variant == "regression" else SparseBoostClassifier
    model = cls(mu=mu, **common_params(args)).fit(with_task_columns(p, rows), p.y[rows])
    d = p.X.shape[1]
    # The pooled model is one model: every task "uses" its features.
    features = [j for j in model.selected_features_ if j < d]
    return (lambda eval_rows: score(model, with_task_columns(p, eval_rows))), [features] * p.n_tasks


def fit_multitask(p, rows, choice, args):
    mu_group, mu_task, shared_rounds = (*choice, 0)[:3]
    cls = (
        MultiTaskSparseBoostRegressor
        if p.variant == "regression"
        else MultiTaskSparseBoostClassifier
    )
    model = cls(
        mu_group=mu_group, mu_task=mu_task, shared_rounds=shared_rounds, **common_params(args)
    )
    model.fit(p.X[rows], p.y[rows], p.task[rows])
    features = [list(model.task_selected_features_[t]) for t in range(p.n_tasks)]

    def predict(eval_rows):
        return score(model, p.X[eval_rows], p.task[eval_rows])

    predict.model = model  # "auto" parameters: the values the fit chose
    return predict, features


def score(model, X, *task):
    """Regression value or positive-class probability."""
    if hasattr(model, "predict_proba"):
        return model.predict_proba(X, *task)[:, 1]
    return model.predict(X, *task)


# -- metrics


def per_task_metric(p, rows, pred, kind):
    """One value per task on ``rows``: RMSE, AUC or log-loss."""
    out = []
    for t in range(p.n_tasks):
        mask = p.task[rows] == t
        y, f = p.y[rows][mask], pred[mask]
        if kind == "rmse":
            out.append(float(np.sqrt(np.mean((y - f) ** 2))))
        elif kind == "auc":
            out.append(float(roc_auc_score(y, f)))
        else:
            out.append(float(log_loss(y, np.clip(f, 1e-12, 1 - 1e-12), labels=[0, 1])))
    return out


def weighted(p, values):
    """Average over tasks, weighted by training rows (the paper's "Total")."""
    sizes = [np.sum(p.train & (p.task == t)) for t in range(p.n_tasks)]
    return float(np.average(values, weights=sizes))


# -- tuning on the validation split, refit, test


def run_method(method, p, args):
    loss_kind = "rmse" if p.variant == "regression" else "logloss"

    def validation_losses(fit, choice):
        predict, _ = fit(p, p.fit_rows, choice, args)
        return per_task_metric(p, p.valid, predict(p.valid), loss_kind)

    if method == "Independent":
        # Each task its own mu: fit all tasks at each grid value, keep each
        # task's best.
        losses = {mu: validation_losses(fit_independent, [mu] * p.n_tasks) for mu in GRID}
        choice = [min(GRID, key=lambda mu: losses[mu][t]) for t in range(p.n_tasks)]
        fit = fit_independent
    elif method == "Multitask+shared":
        # mu_group x shared_rounds on the grid; mu_task chosen per task as
        # Independent chooses mu: fit with each grid value for every task,
        # keep each task's best (its validation loss at that value).
        fit, best = fit_multitask, None
        for mu_group, rounds in itertools.product(GRID, SHARED_GRID):
            losses = {v: validation_losses(fit, (mu_group, v, rounds)) for v in GRID}
            mu_task = [min(GRID, key=lambda v: losses[v][t]) for t in range(p.n_tasks)]
            loss = weighted(p, [losses[v][t] for t, v in enumerate(mu_task)])
            if best is None or loss < best[0]:
                best = (loss, (mu_group, mu_task, rounds))
        choice = best[1]
    elif method == "Multitask auto":
        # No grid and no validation split here: the estimator chooses
        # shared_rounds and each task's mu_task by its own cross-validation
        # on the training rows; mu_group stays at its default.
        fit, choice = fit_multitask, (0.01, "auto", "auto")
    else:
        fit, grid = {
            "SingleTask": (fit_pooled, GRID),
            "GroupSparse": (fit_multitask, [(mu, 0.0) for mu in GRID]),
            "Multitask": (fit_multitask, list(itertools.product(GRID, GRID))),
        }[method]
        choice = min(grid, key=lambda c: weighted(p, validation_losses(fit, c)))
    start = time.perf_counter()
    predict, features = fit(p, p.train, choice, args)
    seconds = time.perf_counter() - start
    if method == "Multitask auto":
        choice = (choice[0], list(predict.model.mu_task_), predict.model.shared_rounds_)
    metric = "rmse" if p.variant == "regression" else "auc"
    test = per_task_metric(p, p.test, predict(p.test), metric)
    return {
        "test": test,
        "weighted": weighted(p, test),
        "n_features": [len(f) for f in features],
        "n_relevant": [len(set(f) & p.relevant_to(t)) for t, f in enumerate(features)],
        "seconds": seconds,
        "choice": choice,
    }


def describe(method, choice):
    if method == "Independent":
        return "mu=" + "/".join(f"{m:g}" for m in choice)
    if method == "SingleTask":
        return f"mu={choice:g}"
    mu_task = choice[1]
    mu_task = "/".join(f"{m:g}" for m in mu_task) if isinstance(mu_task, list) else f"{mu_task:g}"
    text = f"mu_group={choice[0]:g}, mu_task={mu_task}"
    return text + (f", shared_rounds={choice[2]}" if len(choice) > 2 else "")


def table(variant, runs, sizes):
    """Markdown table of the mean over repeats."""
    metric = "RMSE" if variant == "regression" else "AUC"
    head = [f"T{t} (n={n})" for t, n in enumerate(sizes)]
    columns = [f"{metric} {h}" for h in head] + [f"{metric} size-weighted"]
    columns += ["features per task (relevant)", "fit s", "chosen (last seed)"]
    lines = ["| method | " + " | ".join(columns) + " |", "|---|" + "---|" * len(columns)]
    for method in METHODS:
        rs = [r[method] for r in runs]
        test = np.mean([r["test"] for r in rs], axis=0)
        feats = np.mean([r["n_features"] for r in rs], axis=0)
        rel = np.mean([r["n_relevant"] for r in rs], axis=0)
        cells = [f"{v:.4f}" for v in test]
        cells.append(f"{np.mean([r['weighted'] for r in rs]):.4f}")
        cells.append(" / ".join(f"{f:.0f} ({r:.0f})" for f, r in zip(feats, rel)))
        cells.append(f"{np.mean([r['seconds'] for r in rs]):.1f}")
        cells.append(describe(method, rs[-1]["choice"]))
        lines.append(f"| {method} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def paired(variant, runs, sizes):
    """Per-seed differences of each multitask method against each baseline
    (and of the shared start against plain Multitask), positive = better,
    as mean +- standard error over seeds; and whether the multitask method
    beats both baselines size-weighted with the smallest task gaining most."""
    metric = "RMSE" if variant == "regression" else "AUC"
    sign = 1 if variant == "regression" else -1  # lower RMSE / higher AUC is better
    head = [f"T{t} (n={n})" for t, n in enumerate(sizes)] + ["size-weighted"]
    lines = [
        f"Paired {metric} differences over {len(runs)} seed(s) (RMSE: baseline minus "
        "method; AUC: method minus baseline; positive = method better), mean +- standard "
        "error over seeds:",
        "",
        "| method vs baseline | " + " | ".join(head) + " | seeds method better (weighted) |",
        "|---|" + "---|" * (len(head) + 1),
    ]
    verdicts = []
    pairs = [(m, b) for m in MULTITASK for b in BASELINES] + [("Multitask+shared", "Multitask")]
    for method, base in pairs:
        diffs = np.array(
            [
                sign * (np.array(r[base]["test"] + [r[base]["weighted"]]))
                - sign * np.array(r[method]["test"] + [r[method]["weighted"]])
                for r in runs
            ]
        )
        mean = diffs.mean(axis=0)
        se = diffs.std(axis=0, ddof=1) / np.sqrt(len(runs)) if len(runs) > 1 else 0 * mean
        cells = [f"{m:+.4f} +- {s:.4f}" for m, s in zip(mean, se)]
        cells.append(f"{int(np.sum(diffs[:, -1] > 0))}/{len(runs)}")
        lines.append(f"| {method} vs {base} | " + " | ".join(cells) + " |")
        if base in BASELINES:
            verdicts.append(
                (method, base, mean[-1] > 0, int(np.argmax(mean[:-1])) == len(sizes) - 1)
            )
    lines.append("")
    for method in MULTITASK:
        mine = [v for v in verdicts if v[0] == method]
        beats = all(v[2] for v in mine)
        smallest = all(v[3] for v in mine)
        lines.append(
            f"{method}: beats {' and '.join(BASELINES)} size-weighted (mean paired difference "
            f"> 0): {'yes' if beats else 'no'}; smallest task gains most against both: "
            f"{'yes' if smallest else 'no'}"
        )
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[4000, 1500, 600, 250])
    ap.add_argument("--n-features", type=int, default=100)
    ap.add_argument("--test-rows", type=int, default=2000, help="held-out rows per task")
    ap.add_argument("--n-estimators", type=int, default=100)
    ap.add_argument("--repeats", type=int, default=5, help="data seeds 0..repeats-1")
    ap.add_argument("--variant", choices=("regression", "classification", "both"), default="both")
    ap.add_argument("--n-jobs", type=int, default=2)
    args = ap.parse_args(argv)
    command = "python " + shlex.join(["benches/multitask.py", *sys.argv[1:]])
    print(f"$ {command}")
    variants = ["regression", "classification"] if args.variant == "both" else [args.variant]
    report = [f"# Multitask benchmark\n\n`{command}`\n"]
    raw = {}
    for variant in variants:
        runs = []
        for seed in range(args.repeats):
            p = Problem(args.sizes, args.n_features, args.test_rows, variant, seed)
            run = {}
            for method in METHODS:
                run[method] = run_method(method, p, args)
                r = run[method]
                print(
                    f"{variant} seed {seed} {method:12s} test {np.round(r['test'], 4)} "
                    f"weighted {r['weighted']:.4f} features {r['n_features']} "
                    f"({describe(method, r['choice'])}, {r['seconds']:.1f}s)",
                    flush=True,
                )
            runs.append(run)
        raw[variant] = runs
        section = f"## {variant} (mean over {args.repeats} seed(s))\n\n" + table(
            variant, runs, args.sizes
        )
        section += "\n\n" + paired(variant, runs, args.sizes)
        print("\n" + section + "\n")
        report.append(section + "\n")
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "multitask.md").write_text("\n".join(report))
    (RESULTS / "multitask.json").write_text(json.dumps(raw, indent=1, default=str))
    print(f"written to {RESULTS / 'multitask.md'}")


if __name__ == "__main__":
    main()
