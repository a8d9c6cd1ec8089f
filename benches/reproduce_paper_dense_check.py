"""Same engine, same matrix, scipy sparse against densified float64 input.

Separates the two changes behind the Dexter/Flight rerun of
``benches/reproduce_paper.py``: the input format (this script) and the
engine merged from main. For each (data set, method) it fits
``reproduce_paper.booster`` on the loader's CSR matrix and on its dense
float64 copy (alternating, ``--rounds`` times each), and reports the fit
times, the test AUC and whether the test predictions are bit-for-bit equal.

    python benches/reproduce_paper_dense_check.py
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import reproduce_paper as rp  # noqa: E402

CHECKS = [("dexter", "unpenalised", None), ("dexter", "A-GBM", 0.1),
          ("dexter", "GT-GBM", 0.1), ("flight", "unpenalised", None)]


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    print("| data set | method (f) | sparse fit (s) | dense float64 fit (s) | test AUC | "
          "same predictions |")
    print("|---|---|---:|---:|---:|---|")
    data = {}
    for name, method, f in CHECKS:
        if name not in data:
            (X, y, Xt, yt), = rp.splits(name, False, 3)[0]
            data[name] = dict(sparse=(X, Xt), dense=(X.toarray().astype(np.float64),
                                                     Xt.toarray().astype(np.float64)), y=(y, yt))
        d = data[name]
        y, yt = d["y"]
        times = dict(sparse=[], dense=[])
        preds = {}
        for _ in range(args.rounds):
            for kind in ("sparse", "dense"):
                A, At = d[kind]
                model, t = rp.timed_fit(rp.booster(rp.PROTOCOL[name], method, f), A, y)
                times[kind].append(t)
                preds[kind] = model.predict_proba(At)[:, 1]
        auc = rp.scores(yt, preds["sparse"])["auc"]
        label = "GBDT-Full" if method == "unpenalised" else f"{method} ({f})"
        print(f"| {name} | {label} | {statistics.median(times['sparse']):.2f} | "
              f"{statistics.median(times['dense']):.2f} | {100 * auc:.2f} | "
              f"{np.array_equal(preds['sparse'], preds['dense'])} |", flush=True)


if __name__ == "__main__":
    main()
