"""Is sparseboost's cal_housing RMSE systematically off LightGBM's?

``compare_peers.py --datasets cal_housing`` scores one 80/20 split (seed 0).
This script repeats the comparison over several random splits (same
settings: 100 trees, 31 leaves, 255 bins, learning rate 0.1, 2 threads;
sparseboost with ``penalty="none"``) and prints the RMSE ratio of each and
their mean and median. Run from the project root::

    python benches/cal_housing_splits.py --splits 8
"""

from __future__ import annotations

import argparse
from pathlib import Path

import lightgbm as lgb
import numpy as np
import pandas as pd
import sparseboost as sb
from scipy.io import arff
from sklearn.model_selection import train_test_split

DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "cal_housing"


def rmse(model, X_train, X_test, y_train, y_test):
    prediction = model.fit(X_train, y_train).predict(X_test)
    return float(np.sqrt(np.mean((prediction - y_test) ** 2)))


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--splits", type=int, default=8)
    args = p.parse_args(argv)
    frame = pd.DataFrame(arff.loadarff(DATA / "cal_housing.arff")[0])
    y = frame.pop("medianHouseValue").to_numpy(float)
    X = frame.to_numpy(float)
    ratios = []
    print(f"{'split':>5s} {'sparseboost':>12s} {'lightgbm':>10s} {'ratio':>7s}")
    for seed in range(args.splits):
        parts = train_test_split(X, y, test_size=0.2, random_state=seed)
        ours = rmse(sb.SparseBoostRegressor(penalty="none", n_jobs=2, random_state=0), *parts)
        theirs = rmse(lgb.LGBMRegressor(n_jobs=2, verbose=-1, random_state=0), *parts)
        ratios.append(ours / theirs)
        print(f"{seed:5d} {ours:12.1f} {theirs:10.1f} {ratios[-1]:7.4f}", flush=True)
    print(f"mean ratio {np.mean(ratios):.4f}, median {np.median(ratios):.4f}")


if __name__ == "__main__":
    main()
