"""``sparseboost demo``: fit a booster
on the bundled synthetic problem and report accuracy, time and the features
the model relies on.

The problem (``sparseboost.datasets.make_synthetic``) has three relevant
features, columns 0, 1 and 2, among ``--n-features`` uniform noise columns,
so the report shows whether the model found them.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from ..datasets import RELEVANT_FEATURES, make_synthetic
from ..estimators import SparseBoostClassifier, SparseBoostRegressor
from .errors import PlainHelp


def at_least(minimum):
    """An argparse type: an int >= ``minimum``."""

    def parse(text):
        value = int(text)
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be >= {minimum}, got {value}")
        return value

    parse.__name__ = f"int >= {minimum}"
    return parse


def make_parser():
    parser = PlainHelp(prog="sparseboost demo", description=__doc__.split("\n\n")[0])
    parser.add_argument("--n-samples", type=at_least(1), default=10000, help="training rows")
    parser.add_argument("--n-features", type=at_least(3), default=500, help="features (>= 3)")
    parser.add_argument("--task", choices=["regression", "classification"], default="regression")
    parser.add_argument("--n-estimators", type=at_least(1), default=100)
    parser.add_argument("--random-state", type=at_least(0), default=0)
    parser.add_argument(
        "--split-search",
        choices=["exhaustive", "group_testing", "auto"],
        default="exhaustive",
        help="group_testing: GT-GBM with --gt-n-features expected features; auto: "
        "group testing where its estimated cost is below half of exhaustive search's",
    )
    parser.add_argument("--gt-n-features", type=at_least(1), default=3)
    parser.add_argument("--save", metavar="PATH", help="write the fitted model (JSON) here")
    return parser


def main(argv=None) -> int:
    """Run the main job; a bad argument exits with status 2 and a message
    naming it (argparse's convention)."""
    parser = make_parser()
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    try:
        return run(args)
    except (ValueError, OSError) as e:
        parser.error(str(e))


def run(args) -> int:
    common = {"n_features": args.n_features, "task": args.task}
    X, y = make_synthetic(args.n_samples, random_state=args.random_state, **common)
    X_test, y_test = make_synthetic(
        max(1000, args.n_samples // 4), random_state=args.random_state + 1, **common
    )
    cls = SparseBoostRegressor if args.task == "regression" else SparseBoostClassifier
    model = cls(
        n_estimators=args.n_estimators,
        random_state=args.random_state,
        split_search=args.split_search,
        gt_n_features=args.gt_n_features,
    )

    print(
        f"synthetic {args.task}: {X.shape[0]} x {X.shape[1]} "
        f"(relevant features: {list(RELEVANT_FEATURES)})"
    )
    start = time.perf_counter()
    model.fit(X, y)
    elapsed = time.perf_counter() - start
    print(f"fit: {model.n_trees_} trees in {elapsed:.2f} s")
    if model.gt_n_subsets_ is not None:
        print(
            f"group testing: {model.gt_n_subsets_} feature subsets, "
            f"prefix-sum cache {model.gt_cache_bytes_ / 2**20:.0f} MiB"
        )

    if args.task == "regression":
        rmse = np.sqrt(np.mean((model.predict(X_test) - y_test) ** 2))
        baseline = np.sqrt(np.mean((y.mean() - y_test) ** 2))
        print(f"test RMSE: {rmse:.4f} (predicting the mean: {baseline:.4f}; noise sd: 1.0)")
    else:
        print(f"test accuracy: {model.score(X_test, y_test):.4f}")

    importance = model.feature_importances_
    selected = model.selected_features_
    print(
        f"features used by the trees: {len(selected)} of {X.shape[1]} "
        f"(penalty {model.penalty!r}, mu={model.mu}); in order of entry: {selected[:10].tolist()}"
    )
    print("top features by gain share:")
    for j in [j for j in np.argsort(-importance)[:8] if importance[j] > 0]:
        mark = "  <- relevant" if j in RELEVANT_FEATURES else ""
        print(f"  x{j:<6d} {importance[j]:.3f}{mark}")
    found = set(np.argsort(-importance)[:3]) == set(RELEVANT_FEATURES)
    print(f"the three relevant features are the top 3: {'yes' if found else 'no'}")

    if args.save:
        model.save_model(args.save)
        print(f"model written to {args.save}")
    return 0
