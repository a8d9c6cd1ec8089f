"""Time two builds of sparseboost against each other: a refactoring must not
change the models or slow the fits.

Each case is a whole ``fit`` (binning included) in a fresh process, of the
build installed in the interpreter ``--old`` and of the one in ``--new``,
alternated (the order flips every round); the medians of ``--rounds`` runs
and their ratio are printed, with whether every run of a case predicted the
same (a digest of the predictions of 100 training rows, or 500 rows of the
distributed cases).

Make the old build with, for example::

    git worktree add /tmp/old HEAD~1 && python3 -m venv /tmp/venv-old \\
        && /tmp/venv-old/bin/pip install /tmp/old
    python benches/compare_builds.py --old /tmp/venv-old/bin/python \\
        --new .venv/bin/python --rounds 5

Cases (2 threads unless said): ``small`` (20000 x 3 classifier, 200 trees of
15 leaves), ``dense100k`` (100000 x 100 regression, 100 x 31 leaves),
``wide_exh`` (6000 x 2000 classifier, exhaustive), ``wide_gt`` (6000 x 5000
float32, GT-GBM, s = 3), ``sparse`` (2000 x 20000 CSR, 1% dense),
``forest`` (50 trees, 20000 x 50), ``dist_exh`` and ``dist_gt`` (2
in-process shards of 20000 x 500 float32, 30 trees, through the transport).
Not run unless named: ``wide_gt_100k`` (6000 x 100000 float32, GT-GBM as
``gt_scaling.py``: A-GBM with mu = 0.01 of mu_max, s = 3; about 2.4 GB)
and ``onehot_refit`` (the first 13 columns of Adult's first 26000 training
rows, from ``../shared/data``: three of them one-hot columns stored sparse;
a classifier without penalty, 300 trees of 15 leaves, learning rate 0.05,
5 rows per leaf, early stopping after 20 rounds, one thread: a refit of
``SparseBoostSelectorCV``'s folds).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import statistics
import subprocess
import sys
import time

CASES = ("small", "dense100k", "wide_exh", "wide_gt", "sparse", "forest", "dist_exh", "dist_gt")
EXTRA_CASES = ("wide_gt_100k", "onehot_refit")


def run_case(case: str) -> None:
    """Fit one case in this process; print its seconds and a digest."""
    import numpy as np
    import scipy.sparse as sp
    from sparseboost import SparseBoostClassifier, SparseBoostRegressor
    from sparseboost.datasets import make_synthetic
    from sparseboost.forest import SparseForestRegressor

    def digest(values) -> str:
        return hashlib.sha1(np.ascontiguousarray(values, dtype=np.float64).tobytes()).hexdigest()

    common = dict(n_jobs=2, random_state=0)
    if case.startswith("dist"):
        from sparseboost import _core
        from sparseboost._matrix import engine_matrix

        X, y = make_synthetic(20000, 500, random_state=0, dtype=np.float32)
        search = "group_testing" if case == "dist_gt" else "exhaustive"
        est = SparseBoostRegressor(
            n_estimators=30, max_leaves=31, penalty="none", split_search=search, random_state=0
        )
        est.n_features_in_ = X.shape[1]
        params = est._engine_params(draw_seed=False)
        shards = [
            _core.Shard(
                engine_matrix(X[a:b], "csc"), np.ascontiguousarray(y[a:b]), None, None, params
            )
            for a, b in ((0, 10000), (10000, 20000))
        ]

        def exchange(requests):
            return [s.handle(r) for s, r in zip(shards, requests)]

        started = time.perf_counter()
        model, _, _ = _core.fit_sharded(params, exchange, len(shards), X.shape[1])
        seconds = time.perf_counter() - started
        rows = engine_matrix(np.ascontiguousarray(X[:500]), "csr")
        print(f"{seconds:.4f} {digest(model.predict_raw(rows, 1))}")
        return
    if case == "small":
        X, y = make_synthetic(20000, 3, task="classification", random_state=0)
        est = SparseBoostClassifier(n_estimators=200, max_leaves=15, penalty="none", **common)
    elif case == "dense100k":
        X, y = make_synthetic(100000, 100, random_state=0)
        est = SparseBoostRegressor(n_estimators=100, max_leaves=31, penalty="none", **common)
    elif case == "wide_exh":
        X, y = make_synthetic(6000, 2000, task="classification", random_state=0)
        est = SparseBoostClassifier(n_estimators=100, max_leaves=31, penalty="none", **common)
    elif case == "wide_gt":
        X, y = make_synthetic(6000, 5000, random_state=0, dtype=np.float32)
        est = SparseBoostRegressor(
            n_estimators=100, split_search="group_testing", gt_n_features=3, **common
        )
    elif case == "wide_gt_100k":
        from gt_scaling import gt_model  # this script's directory is on sys.path

        X, y = make_synthetic(6000, 100000, random_state=0, dtype=np.float32)
        est = gt_model()
    elif case == "onehot_refit":
        from selection_quality import splits  # this script's directory is on sys.path

        X, y, _, _ = splits("adult")[0][0]
        X, y = np.ascontiguousarray(X[:26000, :13]), y[:26000]
        est = SparseBoostClassifier(
            n_estimators=300,
            learning_rate=0.05,
            max_leaves=15,
            min_samples_leaf=5,
            penalty="none",
            early_stopping_rounds=20,
            n_jobs=1,
            random_state=0,
        )
    elif case == "sparse":
        rng = np.random.default_rng(0)
        X = sp.random(2000, 20000, density=0.01, format="csr", random_state=0, dtype=np.float32)
        y = np.asarray(X[:, :50].sum(axis=1)).ravel() + rng.normal(0, 0.01, 2000)
        est = SparseBoostRegressor(n_estimators=100, max_leaves=31, penalty="none", **common)
    elif case == "forest":
        X, y = make_synthetic(20000, 50, random_state=0)
        est = SparseForestRegressor(n_estimators=50, **common)
    else:
        raise SystemExit(f"unknown case {case!r}; one of {', '.join(CASES + EXTRA_CASES)}")
    started = time.perf_counter()
    est.fit(X, y)
    seconds = time.perf_counter() - started
    print(f"{seconds:.4f} {digest(est.predict(X[:100]))}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--old", required=True, help="python of the old build")
    parser.add_argument("--new", required=True, help="python of the new build")
    parser.add_argument("--cases", type=lambda s: s.split(","), default=list(CASES))
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--case", help=argparse.SUPPRESS)  # one fit, in a worker process
    args = parser.parse_args()
    # (absolute: the workers run in /tmp, away from the checkout's python/)
    builds = {"old": os.path.abspath(args.old), "new": os.path.abspath(args.new)}
    times = {(c, b): [] for c in args.cases for b in builds}
    digests: dict[str, set] = {}
    for r in range(args.rounds):
        for case in args.cases:
            order = list(builds) if r % 2 == 0 else list(builds)[::-1]
            for build in order:
                done = subprocess.run(
                    [
                        builds[build],
                        os.path.abspath(__file__),
                        "--old",
                        "-",
                        "--new",
                        "-",
                        "--case",
                        case,
                    ],
                    capture_output=True,
                    text=True,
                    check=True,
                    cwd="/tmp",
                )
                seconds, value = done.stdout.split()
                times[(case, build)].append(float(seconds))
                digests.setdefault(case, set()).add(value)
    for case in args.cases:
        old = statistics.median(times[(case, "old")])
        new = statistics.median(times[(case, "new")])
        same = len(digests[case]) == 1
        print(
            f"{case:10s} old {old:8.3f} s  new {new:8.3f} s  new/old {new / old:.3f}  "
            f"same predictions: {same}  ({args.rounds} runs each, alternated)",
            flush=True,
        )


if __name__ == "__main__":
    if "--case" in sys.argv:
        run_case(sys.argv[sys.argv.index("--case") + 1])
    else:
        main()
