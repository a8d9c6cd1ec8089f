"""Training on Dask against the single-machine fit, and the messages per tree.

Two parts:

* ``fit`` (default): for each shape (``--shapes``, default 200000x2000 and
  20000x20000) the synthetic problem of ``sparseboost.datasets.make_synthetic``
  (regression, float32) is fitted by ``SparseBoostRegressor(n_jobs=2)`` on this
  machine and by ``DaskSparseBoostRegressor`` on a ``LocalCluster`` of 2 worker
  processes x 1 thread (the same 2 cores), with exhaustive search and with GT-GBM
  (``split_search="group_testing"``, its defaults), ``--trees`` trees of 31 leaves,
  ``penalty="none"``. X is persisted on the workers (two row chunks) before the
  timed fits, so a Dask fit's time is what ``fit`` adds: the actors, binning,
  pooling the cut-point sample, and boosting. The two fits of a configuration
  alternate (their order flips every repeat); times are medians over
  ``--repeats``. From the fit's own counters (``traffic_``): round trips and
  bytes (both directions, summed over shards) per tree while boosting, and the
  set-up's bytes. Targets (issue 16): GT-GBM moves >= 10x fewer bytes per tree
  than exhaustive search at d = 20000, takes <= 300 round trips per 31-leaf tree,
  and the Dask fit takes <= 2x the single-machine time.
* ``--messages``: no Dask. Shards served in this process (the engine's in-process
  transport, through ``_core.fit_sharded``) at n = ``--message-rows`` rows, for
  d in ``--message-features`` and 1, 2, 4 shards: round trips and bytes per tree
  from the same counters, for docs/distributed.md.

Run from the project root (the ``dask`` extra installed)::

    python benches/distributed.py                       # fit part, both shapes
    python benches/distributed.py --shapes 20000x2000 --trees 5 --repeats 1
    python benches/distributed.py --messages

JSON goes to ``--output`` (default ``benches/results/distributed[_messages].json``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

# This file is named distributed.py (as the issue asks): drop its own folder
# from the path, or `import distributed` would import this script.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).parent.resolve()]

import numpy as np  # noqa: E402
from sparseboost import SparseBoostRegressor, _core  # noqa: E402
from sparseboost._matrix import engine_matrix  # noqa: E402
from sparseboost.datasets import make_synthetic  # noqa: E402

SEARCHES = ("exhaustive", "group_testing")


def _params(search, trees, seed=0):
    return dict(
        n_estimators=trees,
        max_leaves=31,
        penalty="none",
        split_search=search,
        random_state=seed,
    )


def _shape(text):
    n, d = text.lower().split("x")
    return int(n), int(d)


def _per_tree(traffic):
    trees = max(traffic["trees"], 1)
    boosting = traffic["boosting"]
    return {
        "round_trips_per_tree": boosting["round_trips"] / trees,
        "bytes_per_tree": (boosting["bytes_sent"] + boosting["bytes_received"]) / trees,
        "setup_bytes": traffic["setup"]["bytes_sent"] + traffic["setup"]["bytes_received"],
        "trees": traffic["trees"],
        # set-up, boosting, and waiting for the shards (of both), seconds
        "seconds": traffic["seconds"],
    }


def fit_part(args):
    import dask.array as da
    from distributed import Client, LocalCluster, wait
    from sparseboost.dask import DaskSparseBoostRegressor

    results = []
    with (
        LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            memory_limit=0,
            silence_logs=40,
        ) as cluster,
        Client(cluster) as client,
    ):
        for n, d in args.shapes:
            X, y = make_synthetic(n, d, task="regression", random_state=0, dtype=np.float32)
            dX = da.from_array(X, chunks=((n + 1) // 2, d))
            dy = da.from_array(y, chunks=((n + 1) // 2,))
            dX, dy = client.persist([dX, dy])
            wait([dX, dy])
            print(f"# {n} x {d}: data on the workers", flush=True)
            for search in args.searches:
                times = {"single": [], "dask": []}
                row = {"n": n, "d": d, "search": search}
                for r in range(args.repeats):
                    order = ["single", "dask"] if r % 2 == 0 else ["dask", "single"]
                    for who in order:
                        if who == "single":
                            est = SparseBoostRegressor(n_jobs=2, **_params(search, args.trees))
                            started = time.perf_counter()
                            est.fit(X, y)
                        else:
                            est = DaskSparseBoostRegressor(
                                client=client, **_params(search, args.trees)
                            )
                            started = time.perf_counter()
                            est.fit(dX, dy)
                            row.update(_per_tree(est.traffic_))
                            row["n_workers"] = est.n_workers_
                        times[who].append(time.perf_counter() - started)
                        row[f"{who}_features"] = sorted(int(f) for f in est.selected_features_)
                        row[f"{who}_trees"] = int(est.n_trees_)
                for who, ts in times.items():
                    row[f"{who}_seconds"] = statistics.median(ts)
                    row[f"{who}_all_seconds"] = ts
                row["ratio"] = row["dask_seconds"] / row["single_seconds"]
                results.append(row)
                sec = row["seconds"]
                print(
                    f"{n:>7} x {d:<6} {search:<13} single {row['single_seconds']:8.2f} s  "
                    f"dask {row['dask_seconds']:8.2f} s  ratio {row['ratio']:5.2f}  "
                    f"round trips/tree {row['round_trips_per_tree']:6.1f}  "
                    f"MB/tree {row['bytes_per_tree'] / 1e6:9.2f}  "
                    f"setup MB {row['setup_bytes'] / 1e6:8.1f}  "
                    f"(last Dask fit: set-up {sec['setup']:.1f} s, "
                    f"boosting {sec['boosting']:.1f} s, waiting {sec['waiting']:.1f} s)",
                    flush=True,
                )
            del dX, dy
    shapes = sorted({(r["n"], r["d"]) for r in results})
    for n, d in shapes:
        by = {r["search"]: r for r in results if (r["n"], r["d"]) == (n, d)}
        if set(SEARCHES) <= set(by):
            fewer = by["exhaustive"]["bytes_per_tree"] / by["group_testing"]["bytes_per_tree"]
            print(f"{n} x {d}: exhaustive / GT bytes per tree = {fewer:.1f}x")
    return results


def messages_part(args):
    """Counters of in-process shards as d and the number of shards grow."""
    results = []
    n = args.message_rows
    for d in args.message_features:
        X, y = make_synthetic(n, d, task="regression", random_state=0, dtype=np.float32)
        for search in args.searches:
            for shards in (1, 2, 4):
                est = SparseBoostRegressor(**_params(search, args.message_trees))
                est.n_features_in_ = d
                params = est._engine_params(draw_seed=False)
                cuts = np.linspace(0, n, shards + 1).astype(int)
                parts = [
                    _core.Shard(
                        engine_matrix(X[a:b], "csc"),
                        np.ascontiguousarray(y[a:b]),
                        None,
                        None,
                        params,
                    )
                    for a, b in zip(cuts[:-1], cuts[1:])
                ]

                def exchange(requests, parts=parts):
                    return [s.handle(r) for s, r in zip(parts, requests)]

                started = time.perf_counter()
                _, _, traffic = _core.fit_sharded(params, exchange, shards, d)
                row = {"n": n, "d": d, "search": search, "shards": shards}
                row.update(_per_tree(traffic))
                row["seconds"] = time.perf_counter() - started
                results.append(row)
                print(
                    f"d={d:<6} {search:<13} shards={shards}  round trips/tree "
                    f"{row['round_trips_per_tree']:6.1f}  "
                    f"MB/tree {row['bytes_per_tree'] / 1e6:9.3f}  "
                    f"setup MB {row['setup_bytes'] / 1e6:8.2f}  ({row['seconds']:.1f} s)",
                    flush=True,
                )
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--shapes",
        type=lambda s: [_shape(x) for x in s.split(",")],
        default=[(200000, 2000), (20000, 20000)],
    )
    parser.add_argument("--searches", type=lambda s: s.split(","), default=list(SEARCHES))
    parser.add_argument("--trees", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--messages", action="store_true")
    parser.add_argument("--message-rows", type=int, default=5000)
    parser.add_argument(
        "--message-features",
        type=lambda s: [int(x) for x in s.split(",")],
        default=[500, 2000, 8000, 20000],
    )
    parser.add_argument("--message-trees", type=int, default=3)
    parser.add_argument("--output", type=Path)
    args = parser.parse_args()
    load = os.getloadavg()
    print(f"# load average {load[0]:.2f}", flush=True)
    if args.messages:
        results = messages_part(args)
        output = args.output or Path("benches/results/distributed_messages.json")
    else:
        results = fit_part(args)
        output = args.output or Path("benches/results/distributed.json")
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(
        json.dumps(
            {
                "args": vars(args) | {"output": str(output)},
                "results": results,
                "load_start": load[0],
                "load_end": os.getloadavg()[0],
            },
            indent=1,
            default=str,
        )
    )
    print(f"# wrote {output}; load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
