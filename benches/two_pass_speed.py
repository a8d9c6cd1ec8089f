"""Two-pass forward stepwise: time of TwoPassForwardSelector on a large
synthetic binary problem, and against a plain scikit-learn implementation
of the same algorithm on a smaller one.

    python benches/two_pass_speed.py                     # 50000 x 2000, roc_auc, cv=None
    python benches/two_pass_speed.py --threshold 1e-4    # another threshold
    python benches/two_pass_speed.py --compare 5000 200  # ours vs scikit-learn at that size

The data: standard normal features, a few dozen of them informative with
decreasing weights (the rest noise), labels drawn from the logistic model.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import get_scorer
from sparseboost import TwoPassForwardSelector


def make_problem(n, d, n_informative, seed=0):
    rng = np.random.default_rng(seed)
    # Drawn feature by feature, so X is Fortran-ordered: the selector then
    # reads it without a copy (8 bytes x n x d: 800 MB at 50000 x 2000).
    X = rng.standard_normal((d, n)).T
    informative = rng.choice(d, n_informative, replace=False)
    weights = rng.choice([-1, 1], n_informative) * np.geomspace(1.0, 0.05, n_informative)
    logit = X[:, informative] @ weights
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int)
    return X, y, set(informative.tolist())


def sklearn_two_pass(X, y, threshold, C):
    """The blog post's algorithm with one LogisticRegression per model."""
    scorer = get_scorer("roc_auc")

    def score(columns):
        model = LogisticRegression(C=C).fit(X[:, columns], y)
        return scorer(model, X[:, columns], y)

    d = X.shape[1]
    pass1 = np.array([score([j]) for j in range(d)])
    ranking = np.lexsort((np.arange(d), -pass1))
    selected, current = [int(ranking[0])], pass1[ranking[0]]
    for j in ranking[1:]:
        candidate = score(selected + [int(j)])
        if candidate - current > threshold:
            selected.append(int(j))
            current = candidate
    return selected


def run_ours(X, y, threshold, n_jobs):
    start = time.perf_counter()
    selector = TwoPassForwardSelector(scoring="roc_auc", threshold=threshold, n_jobs=n_jobs)
    selector.fit(X, y)
    return selector, time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-samples", type=int, default=50_000)
    parser.add_argument("--n-features", type=int, default=2_000)
    parser.add_argument("--n-informative", type=int, default=40)
    parser.add_argument("--threshold", type=float, default=0.0)
    parser.add_argument("--n-jobs", type=int, default=None)
    parser.add_argument("--compare", type=int, nargs=2, metavar=("N", "D"), default=None)
    args = parser.parse_args()

    if args.compare:
        n, d = args.compare
        X, y, _ = make_problem(n, d, min(args.n_informative, d // 4))
        selector, ours = run_ours(X, y, args.threshold, args.n_jobs)
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            reference = sklearn_two_pass(X, y, args.threshold, 1.0)
        theirs = time.perf_counter() - start
        same = reference == selector.selected_features_.tolist()
        print(
            f"{n} x {d}, threshold={args.threshold}: sparseboost {ours:.2f} s "
            f"({selector.n_model_fits_} models, {len(selector.selected_features_)} selected), "
            f"scikit-learn {theirs:.2f} s ({len(reference)} selected, same selection: {same}); "
            f"ratio {theirs / ours:.1f}x"
        )
        return

    start = time.perf_counter()
    X, y, informative = make_problem(args.n_samples, args.n_features, args.n_informative)
    print(f"data {X.shape[0]} x {X.shape[1]} made in {time.perf_counter() - start:.1f} s")
    selector, seconds = run_ours(X, y, args.threshold, args.n_jobs)
    chosen = selector.selected_features_
    found = len(informative & set(chosen.tolist()))
    print(
        f"TwoPassForwardSelector(scoring='roc_auc', threshold={args.threshold}), cv=None: "
        f"{seconds:.1f} s, {selector.n_model_fits_} models, {len(chosen)} selected "
        f"({found} of the {len(informative)} informative), final AUC "
        f"{selector.scores_path_[-1]:.4f}"
    )


if __name__ == "__main__":
    main()
