"""Native categorical features against LightGBM's, with one-hot columns
beside both (issue 27's targets: test AUC or RMSE within 1% of LightGBM
with native categoricals at the same trees, and a fit at most 2x
LightGBM's).

Data, from ``../shared/data`` (relative to the project root), each split
80/20 (seed 0; stratified for classification):

* ``flight``: ``flight_delays_100k`` (100000 rows): is the departure
  delayed by 15 minutes or more (AUC). ``Month``, ``DayofMonth``,
  ``DayOfWeek`` (strings like ``c-8``), ``UniqueCarrier``, ``Origin`` and
  ``Dest`` are categorical (Origin and Dest about 300 airports each);
  ``DepTime`` and ``Distance`` numeric.
* ``diamonds``: 53940 diamonds' prices (RMSE); ``cut``, ``color`` and
  ``clarity`` categorical, six numeric columns.

Methods, all with 100 trees of 31 leaves, learning rate 0.1, 20 rows per
leaf, 255 bins, 2 threads, no penalty:

* ``sparseboost``: the DataFrame as it is (string columns are categorical
  by ``categorical_features="from_dtype"``);
* ``lightgbm``: the same columns as pandas ``category`` (LightGBM's native
  categorical splits, its default settings for them);
* ``sparseboost-onehot`` and ``lightgbm-onehot``: ``pd.get_dummies`` of the
  categorical columns (sparseboost's indicators of one column in one
  feature bag, as the command line bagged them before).

Fit times are medians over ``--rounds`` rounds, the methods alternating
(the order rotated every round), in one process. Run from the project
root::

    python benches/categorical.py --rounds 5
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np

DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data"
COMMON = {"n_estimators": 100, "learning_rate": 0.1, "n_jobs": 2}


def load(name):
    """(X frame, y, categorical column names, task)."""
    import pandas as pd

    if name == "flight":
        frame = pd.read_csv(DATA / "flight_delays_100k" / "flight_delays_train.csv")
        y = (frame.pop("dep_delayed_15min") == "Y").to_numpy().astype(int)
        categorical = ["Month", "DayofMonth", "DayOfWeek", "UniqueCarrier", "Origin", "Dest"]
        return frame, y, categorical, "classification"
    frame = pd.read_csv(DATA / "diamonds" / "diamonds.csv", index_col=0)
    y = frame.pop("price").to_numpy().astype(float)
    for c in ("cut", "color", "clarity"):
        frame[c] = frame[c].astype(str)
    return frame, y, ["cut", "color", "clarity"], "regression"


def methods(frame, categorical, task):
    """{name: (fit(X, y) -> model, X transform)}."""
    import lightgbm
    import pandas as pd
    from sparseboost import SparseBoostClassifier, SparseBoostRegressor

    ours = SparseBoostClassifier if task == "classification" else SparseBoostRegressor
    theirs = lightgbm.LGBMClassifier if task == "classification" else lightgbm.LGBMRegressor
    categories = {c: sorted(frame[c].dropna().unique()) for c in categorical}

    def as_category(X):
        X = X.copy()
        for c in categorical:
            X[c] = pd.Categorical(X[c], categories=categories[c])
        return X

    def one_hot(X):
        return pd.get_dummies(as_category(X), columns=categorical, dtype=float)

    # One bag per categorical column's indicators, one per numeric column.
    bags, next_bag = [], len(categorical)
    for column in one_hot(frame.head(1000)).columns:
        owner = [k for k, c in enumerate(categorical) if str(column).startswith(f"{c}_")]
        bags.append(owner[0] if owner else next_bag)
        next_bag += not owner
    sparse = {"penalty": "none", "max_leaves": 31, "min_samples_leaf": 20, "random_state": 0}
    light = {"num_leaves": 31, "min_child_samples": 20, "verbose": -1, "random_state": 0}
    return {
        "sparseboost": (lambda X, y: ours(**sparse, **COMMON).fit(X, y), lambda X: X),
        "lightgbm": (lambda X, y: theirs(**light, **COMMON).fit(X, y), as_category),
        "sparseboost-onehot": (
            lambda X, y: ours(**sparse, feature_bags=bags, **COMMON).fit(X, y),
            one_hot,
        ),
        "lightgbm-onehot": (lambda X, y: theirs(**light, **COMMON).fit(X, y), one_hot),
    }


def score(model, X, y, task):
    from sklearn.metrics import mean_squared_error, roc_auc_score

    if task == "classification":
        return roc_auc_score(y, model.predict_proba(X)[:, 1])
    return float(np.sqrt(mean_squared_error(y, model.predict(X))))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--datasets", default="flight,diamonds")
    args = parser.parse_args()
    from sklearn.model_selection import train_test_split

    for name in args.datasets.split(","):
        frame, y, categorical, task = load(name)
        stratify = y if task == "classification" else None
        train, test = train_test_split(
            np.arange(len(y)), test_size=0.2, random_state=0, stratify=stratify
        )
        X_train, X_test = frame.iloc[train], frame.iloc[test]
        fits = methods(frame, categorical, task)
        inputs = {m: (encode(X_train), encode(X_test)) for m, (_, encode) in fits.items()}
        times = {m: [] for m in fits}
        models = {}
        order = list(fits)
        for r in range(args.rounds + 1):
            for m in order[r % len(order) :] + order[: r % len(order)]:
                started = time.perf_counter()
                models[m] = fits[m][0](inputs[m][0], y[train])
                if r > 0:  # the first round warms up
                    times[m].append(time.perf_counter() - started)
        metric = "AUC" if task == "classification" else "RMSE"
        print(
            f"== {name}: {len(y)} rows, {frame.shape[1]} columns ({len(categorical)} categorical)"
        )
        print(
            f"{'method':<20} {'fit s':>8} {'fit/lgb':>8} {metric:>10} {metric + '/lgb':>10} {'features':>9}"
        )
        reference = statistics.median(times["lightgbm"])
        ref_score = score(models["lightgbm"], inputs["lightgbm"][1], y[test], task)
        results = {}
        for m in fits:
            fit = statistics.median(times[m])
            s = score(models[m], inputs[m][1], y[test], task)
            used = getattr(models[m], "n_features_in_", None)
            results[m] = (fit, s)
            print(
                f"{m:<20} {fit:8.3f} {fit / reference:8.2f} {s:10.4f} {s / ref_score:10.4f} "
                f"{used!s:>9}"
            )
        fit, s = results["sparseboost"]
        within = s >= 0.99 * ref_score if task == "classification" else s <= 1.01 * ref_score
        print(
            f"targets: {metric} within 1% of LightGBM native: {'met' if within else 'MISSED'} "
            f"({s / ref_score:.4f}); fit <= 2x LightGBM's: "
            f"{'met' if fit <= 2 * reference else 'MISSED'} ({fit / reference:.2f}x); "
            f"{args.rounds} rounds"
        )


if __name__ == "__main__":
    main()
