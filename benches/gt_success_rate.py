"""Reproduce Figure 1 of Han et al. (2020): how often GT-GBM's group testing
puts all three relevant features in its candidate set at the root.

Problem (SPEC section 3): y = 2 x1 - 3 * 2**x2 + log2(1 + x3) + N(0, 1), all
features iid U[0, 1]. Group testing with s = 3, delta = 0.1 (p = 28 random
subsets of ceil(d/3) features, one binary search each). A replicate succeeds
when the candidate set contains x1, x2 and x3. The success rate over
``--replicates`` draws is printed as a table (d down, n across) and saved as
a heat map.

Two searches are measured on the same replicates: pass 1 is the paper's;
pass 2 repeats the search with pass 1's candidates subtracted from every
pseudo-feature and adds what it finds (SPEC section 3's "subtract Omega"
refinement, which the grower applies at every node with the features already
used). A strong feature wins every half it lands in, so a weaker one sharing
its subset is lost in pass 1; pass 2 gives it those subsets back.

Run from the project root (needs matplotlib: ``pip install ".[bench]"``)::

    python benches/gt_success_rate.py                  # 50 replicates, full grid
    python benches/gt_success_rate.py --replicates 10 --d 100,1000 --n 500,10000
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from pathlib import Path

import numpy as np
from sparseboost import _core
from sparseboost.datasets import RELEVANT_FEATURES, make_synthetic

RESULTS = Path(__file__).resolve().parent / "results"


def success_rates(n, d, replicates, s, delta):
    """Fractions of replicates whose candidate set holds every relevant
    feature, after pass 1 and after pass 2."""
    hits = np.zeros(2)
    for rep in range(replicates):
        X, y = make_synthetic(n, d, random_state=1000 * rep + 7)
        first, _, _ = _core.group_testing_candidates(X, y, s, delta, seed=rep)
        second, _, _ = _core.group_testing_candidates(X, y, s, delta, seed=rep, exclude=first)
        hits[0] += set(RELEVANT_FEATURES) <= set(first)
        hits[1] += set(RELEVANT_FEATURES) <= set(first) | set(second)
    return hits / replicates


def save_heat_map(table, ds, ns, path, title):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(1.2 * len(ns) + 2, 0.8 * len(ds) + 1.5))
    image = ax.imshow(table, vmin=0, vmax=1, cmap="viridis", origin="lower", aspect="auto")
    ax.set_xticks(range(len(ns)), [str(n) for n in ns])
    ax.set_yticks(range(len(ds)), [str(d) for d in ds])
    ax.set_xlabel("n (rows)")
    ax.set_ylabel("d (features)")
    ax.set_title(title)
    for i in range(len(ds)):
        for j in range(len(ns)):
            ax.text(j, i, f"{table[i, j]:.2f}", ha="center", va="center", color="w")
    fig.colorbar(image, ax=ax, label="success rate")
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def ints(text):
    return [int(v) for v in text.split(",") if v.strip()]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--d", type=ints, default=[100, 300, 1000, 3000])
    p.add_argument("--n", type=ints, default=[500, 2000, 5000, 10000, 20000])
    p.add_argument("--replicates", type=int, default=50)
    p.add_argument("--s", type=int, default=3)
    p.add_argument("--delta", type=float, default=0.1)
    p.add_argument("--output", type=Path, default=RESULTS / "gt_success_rate.png")
    args = p.parse_args(argv)
    print("$ python " + shlex.join(sys.argv), flush=True)
    tables = np.zeros((2, len(args.d), len(args.n)))
    start = time.perf_counter()
    for i, d in enumerate(args.d):
        for j, n in enumerate(args.n):
            tables[:, i, j] = success_rates(n, d, args.replicates, args.s, args.delta)
            print(
                f"  d={d:5d} n={n:6d}: pass 1 {tables[0, i, j]:.2f}, pass 2 {tables[1, i, j]:.2f}",
                flush=True,
            )
    args.output.parent.mkdir(parents=True, exist_ok=True)
    for table, name, path in [
        (tables[0], "pass 1 (the paper's search)", args.output),
        (
            tables[1],
            "pass 2 (pass 1's candidates subtracted)",
            args.output.with_name(args.output.stem + "_pass2" + args.output.suffix),
        ),
    ]:
        print(
            f"\nsuccess rate, {name} (s={args.s}, delta={args.delta}, "
            f"{args.replicates} replicates, {time.perf_counter() - start:.0f} s)"
        )
        print("d \\ n  " + "".join(f"{n:>8d}" for n in args.n))
        for d, row in zip(args.d, table):
            print(f"{d:6d} " + "".join(f"{v:8.2f}" for v in row))
        title = f"GT-GBM {name.split(' (')[0]}: x1, x2, x3 in C (s={args.s}, delta={args.delta})"
        save_heat_map(table, args.d, args.n, path, title)
        print(f"heat map written to {path}")


if __name__ == "__main__":
    main()
