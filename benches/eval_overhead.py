"""What monitoring an eval set costs in fit time.

Times sparseboost fits without and with ``eval_set=[(X_val, y_val)]`` (the metric
recorded after every tree in ``evals_result_``), where the eval set is as large as
the training set: a copy of the training data, so that the engine does the full work
of a held-out set (it cannot recognise the training arrays and reuse their scores).
Two problems:

* ``regression``: ``SparseBoostRegressor(n_estimators=200, penalty="none")`` on the
  synthetic problem of ``sparseboost.datasets.make_synthetic`` at 100000 x 100
  (seed 0, the training set of ``compare_peers.py``);
* ``multiclass``: ``SparseBoostClassifier(n_estimators=200, penalty="none")`` on
  LightGBM's multiclass example (``../shared/data/lightgbm_multiclass/multiclass.train``
  relative to the project root: 7000 x 28, 5 classes).

Both use 31 leaves, learning rate 0.1 and 2 threads. Each of ``--rounds`` rounds fits
both configurations in this one process, taking turns which goes first, so a slow
spell of the noisy machine hits both alike. Prints every timing, the medians, and the
ratio of the medians, with / without (target: at most 1.10). A problem whose fit
raises (this build lacks ``eval_set`` or multiclass) is reported as unavailable and
skipped. Run from the project root::

    python benches/eval_overhead.py
    python benches/eval_overhead.py --rounds 3 --problems multiclass
"""

from __future__ import annotations

import argparse
import shlex
import statistics
import sys
import time
from pathlib import Path

import numpy as np
from sparseboost import SparseBoostClassifier, SparseBoostRegressor
from sparseboost.datasets import make_synthetic

DATA_DIR = Path(__file__).resolve().parent.parent.parent / "shared" / "data"
PARAMS = {
    "n_estimators": 200,
    "penalty": "none",
    "max_leaves": 31,
    "learning_rate": 0.1,
    "n_jobs": 2,
    "random_state": 0,
}
TARGET = 1.10
# What a build without eval_set (TypeError) or multiclass (ValueError) raises.
UNAVAILABLE_ERRORS = (TypeError, ValueError, AttributeError, NotImplementedError)


def load(problem):
    """``(estimator class, X, y)`` of a problem."""
    if problem == "regression":
        X, y = make_synthetic(100000, 100, random_state=0)
        return SparseBoostRegressor, X, y
    data = np.loadtxt(DATA_DIR / "lightgbm_multiclass" / "multiclass.train", delimiter="\t")
    return SparseBoostClassifier, data[:, 1:], data[:, 0]


def fit_seconds(cls, X, y, eval_set):
    model = cls(**PARAMS)
    kwargs = {} if eval_set is None else {"eval_set": eval_set}
    start = time.perf_counter()
    model.fit(X, y, **kwargs)
    return time.perf_counter() - start, model


def describe_evals(result, prefix=""):
    """Lines "name: n values, last v" for the metric histories in ``evals_result_``."""
    if isinstance(result, dict):
        return [line for k, v in result.items() for line in describe_evals(v, f"{prefix}{k}/")]
    if isinstance(result, (list, tuple)) and result and isinstance(result[0], dict):
        return [line for i, v in enumerate(result) for line in describe_evals(v, f"{prefix}{i}/")]
    values = np.asarray(result, dtype=np.float64).ravel()
    last = f", last {values[-1]:.6g}" if values.size else ""
    return [f"{prefix.rstrip('/') or 'evals_result_'}: {values.size} values{last}"]


def measure(problem, rounds):
    cls, X, y = load(problem)
    eval_set = [(X.copy(), y.copy())]
    print(
        f"\n== {problem}: {cls.__name__}, {X.shape[0]} x {X.shape[1]}, eval set {X.shape[0]} rows"
    )
    print(f"   {PARAMS}")
    configs = {"without": None, "with eval_set": eval_set}
    times = {name: [] for name in configs}
    model = None
    for i in range(rounds):
        order = list(configs) if i % 2 == 0 else list(configs)[::-1]
        for name in order:
            try:
                seconds, fitted = fit_seconds(cls, X, y, configs[name])
            except UNAVAILABLE_ERRORS as exc:
                if i > 0:
                    raise
                print(f"   unavailable ({name}): {type(exc).__name__}: {exc}", flush=True)
                return
            times[name].append(seconds)
            if configs[name] is not None:
                model = fitted
        print(
            f"round {i + 1}: " + ", ".join(f"{n} {times[n][-1]:.3f} s" for n in configs),
            flush=True,
        )
    if not hasattr(model, "evals_result_"):
        print("   WARNING: the model fitted with eval_set has no evals_result_")
    else:
        for line in describe_evals(model.evals_result_):
            print(f"   evals_result_ {line}")
    base, monitored = (statistics.median(times[n]) for n in configs)
    ratio = monitored / base
    verdict = "ok" if ratio <= TARGET else "MISSED"
    print(f"median of {rounds}: without {base:.3f} s, with eval_set {monitored:.3f} s")
    print(f"ratio with / without: {ratio:.3f}  (target <= {TARGET:.2f}: {verdict})", flush=True)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--problems", default="regression,multiclass")
    args = p.parse_args(argv)
    problems = [s.strip() for s in args.problems.split(",") if s.strip()]
    for problem in problems:
        if problem not in ("regression", "multiclass"):
            p.error(f"unknown problem {problem!r}; choose from regression,multiclass")
    if args.rounds < 1:
        p.error("--rounds must be >= 1")
    print("$ python " + shlex.join(sys.argv))
    for problem in problems:
        measure(problem, args.rounds)


if __name__ == "__main__":
    main()
