"""Time LinearForwardSelector.fit: rank all features of a seeded
50000 x 2000 float64 matrix (the target of issue 13: <= 15 s on a 2-core
machine). Prints the Gram and path times of one fit and the median of
``--repeats`` fits.

    python benches/linear_forward_speed.py [--n-samples 50000] [--n-features 2000]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
from sparseboost import LinearForwardSelector
from sparseboost import linear_forward as lf


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n-samples", type=int, default=50000)
    parser.add_argument("--n-features", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    X = rng.standard_normal((args.n_samples, args.n_features))
    # a target on 20 planted features, so the path has something to find
    y = X[:, :20] @ rng.uniform(0.5, 1.5, 20) + rng.standard_normal(args.n_samples)

    start = time.perf_counter()
    Y = y[:, None]
    G = lf._centred_gram(X, Y)
    gram = time.perf_counter() - start
    start = time.perf_counter()
    order, _, _ = lf._forward_path(G, X.shape[1], np.zeros(X.shape[1], dtype=bool))
    path = time.perf_counter() - start
    print(f"one fit's parts: Gram {gram:.2f} s, path of {len(order)} entries {path:.2f} s")

    times = []
    for _ in range(args.repeats):
        start = time.perf_counter()
        selector = LinearForwardSelector().fit(X, y)
        times.append(time.perf_counter() - start)
    assert set(selector.order_[:20]) == set(range(20)), selector.order_[:20]
    print(
        f"LinearForwardSelector.fit, {args.n_samples} x {args.n_features}: "
        f"median {statistics.median(times):.2f} s of {args.repeats} "
        f"({', '.join(f'{t:.2f}' for t in times)})"
    )


if __name__ == "__main__":
    main()
