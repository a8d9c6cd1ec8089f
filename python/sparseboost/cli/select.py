"""``sparseboost select [DATA] --target COL``: read a data file, select
features with a booster (or another selector), and write the selected
columns, the model, the test metrics and an HTML report to ``--out``.
Without DATA it runs on the embedded Madelon copy."""

from __future__ import annotations

import argparse
import json
import os
import re
import time

import numpy as np

from . import budget, methods, readers, splitting
from .encoding import Encoding
from .errors import CliError, Parser, need
from .output import staged
from .progress import Progress
from .scoring import test_metrics

# Validation rows drawn from the training rows, watched after every round.
VALIDATION_FRACTION = 0.2
MAX_SEED = 2**32 - 1
_RELATIVE_MU = re.compile(r"^\s*[0-9.eE+-]+\s*\*\s*mu_max\s*$")


def make_parser():
    p = Parser(prog="sparseboost select", description=__doc__.split("\n\n")[0])
    p.add_argument("data", nargs="?", metavar="DATA", help=".csv/.tsv/.parquet/.svm/.npz")
    p.add_argument("--target", metavar="COL", help="the column to predict (tables)")
    p.add_argument("--group", metavar="COL", help="query id column (ranking)")
    p.add_argument("--task", default="auto", choices=["auto", *splitting_tasks()])
    p.add_argument("--method", default="agbm", help="|".join(methods.METHODS) + " (agbm)")
    p.add_argument(
        "--n-features",
        type=_budget,
        default="auto",
        metavar="K",
        help="feature budget: an int, 'auto' (chosen by 5-fold CV on the training rows) or "
        "'none' (the penalty alone decides) (auto)",
    )
    p.add_argument("--mu", help="penalty: a number, or 'f*mu_max' (relative)")
    p.add_argument("--test-size", type=_fraction, default=0.25)
    p.add_argument("--random-state", type=_seed, default=0, help="0 .. 2**32-1 (0)")
    p.add_argument(
        "--drop",
        type=_names,
        default=(),
        metavar="COL[,COL...]",
        help="columns to leave out (tables)",
    )
    p.add_argument(
        "--categorical",
        type=_names,
        default=(),
        metavar="COL[,COL...]",
        help="columns to read as categories, whatever their cells (tables)",
    )
    p.add_argument(
        "--costs",
        metavar="FILE",
        help="a CSV of column,cost: what using each column costs (the penalised methods)",
    )
    p.add_argument("--n-jobs", type=_int_at_least(1), metavar="N", help="threads (all cores)")
    p.add_argument("--out", default="sparseboost-out", metavar="DIR")
    p.add_argument("--quiet", action="store_true", help="no progress output")
    return p


def _names(text):
    """A comma-separated list of column names."""
    names = [n.strip() for n in text.split(",")]
    if not all(names):
        raise argparse.ArgumentTypeError(f"expected COL[,COL...], got {text!r}")
    return tuple(names)


def _table_columns(option, names, columns, target, path) -> list:
    """The table's columns that ``option`` names: each name as given, or
    the one column equal to it once the spaces around the column's own
    name are stripped (as ``_names`` strips the option's; CSV headers
    often have them)."""
    found = []
    for name in names:
        if name in columns:
            found.append(name)
            continue
        near = [c for c in columns if str(c).strip() == name]
        if len(near) == 1:
            found.append(near[0])
        elif name == target or str(target).strip() == name:
            raise CliError(f"{option} names the target column {target!r}")
        else:
            raise CliError(f"{option} names no column of {path!r}: {name!r}")
    return found


def splitting_tasks():
    return ["regression", "classification", "ranking"]


def _int_at_least(minimum):
    def parse(text):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be an int, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be >= {minimum}, got {value}")
        return value

    parse.__name__ = "int"
    return parse


def _budget(text):
    if text in ("auto", "none"):
        return text
    try:
        return _int_at_least(1)(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(
            f"must be an int >= 1, 'auto' or 'none', got {text!r}"
        ) from None


def _seed(text):
    """``--random-state``: the seeds scikit-learn's splitters take."""
    value = _int_at_least(0)(text)
    if value > MAX_SEED:
        raise argparse.ArgumentTypeError(f"must be <= {MAX_SEED} (2**32 - 1), got {value}")
    return value


def _fraction(text):
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number in (0, 1), got {text!r}") from None
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"must be in (0, 1), got {value}")
    return value


def _mu(text):
    """``--mu``: a number >= 0 or ``f*mu_max`` (the estimators check ranges)."""
    if text is None:
        return None
    if _RELATIVE_MU.match(text):
        return text.replace(" ", "")
    try:
        value = float(text)
    except ValueError:
        raise CliError(f"--mu must be a number or 'f*mu_max', got {text!r}") from None
    if not np.isfinite(value) or value < 0:
        raise CliError(f"--mu must be >= 0, got {text!r}")
    return value


def main(argv) -> int:
    args = make_parser().parse_args(argv)
    if args.method not in methods.METHODS:
        raise CliError(f"--method must be one of {', '.join(methods.METHODS)}, got {args.method!r}")
    mu = _mu(args.mu)
    for option, value in (("--mu", mu), ("--costs", args.costs)):
        # (the selectors have no penalty to add them to: they would be unused)
        if value is not None and args.method not in methods.BOOSTERS:
            raise CliError(
                f"{option} applies to the penalised methods ({', '.join(methods.BOOSTERS)}), "
                f"not --method {args.method}"
            )
    # The report needs matplotlib whatever the input; say so before the work.
    need("matplotlib", "the report's plots")
    path = args.data or readers.madelon_path()
    readers.file_format(path)  # a wrong name fails before any progress line
    if not os.path.isfile(path):
        raise CliError(f"DATA {path!r}: no such file")
    with staged(args.out) as out:
        summary = run(args, mu, path, out)
    _print_summary(summary, args.out)
    return 0


def _penalty_record(model) -> dict:
    """μ as given (``mu``: a number or "f*mu_max"), as a number
    (``mu_value``), and ``mu_max``; None each without a penalty."""
    from .._validation import engine_mu

    mu_max = getattr(model, "mu_max_", None)
    if model.penalty == "none":
        return {"mu": None, "mu_value": None, "mu_max": mu_max}
    value, relative = engine_mu(model.mu)
    if relative:
        value = None if mu_max is None else value * mu_max
    return {"mu": model.mu, "mu_value": value, "mu_max": mu_max}


def run(args, mu, path, out) -> dict:
    """The whole job, writing into the folder ``out``; returns the summary."""
    progress = Progress(args.quiet)
    started = time.perf_counter()
    progress.stage(f"reading {path}")
    data = readers.read(path, target=args.target, group=args.group)
    data, dropped = splitting.drop_missing_targets(data)
    read_notes = list(data.notes)
    if dropped:
        read_notes.append(f"{dropped} row(s) without a target value left out")
    for note in read_notes:
        progress.note(note)
    task = splitting.resolve_task(args.task, data.y, data.groups is not None, data.file_rows)
    if data.kind == "table":
        drop = _table_columns("--drop", args.drop, data.frame.columns, args.target, path)
        categorical = _table_columns(
            "--categorical", args.categorical, data.frame.columns, args.target, path
        )
        progress.stage(f"encoding {data.shape[1]} columns")
        try:
            encoding = Encoding.fit(
                data.frame,
                task=task,
                target=args.target,
                group=args.group,
                categorical=set(categorical),
                drop=set(drop),
            )
        except ValueError as e:
            raise CliError(f"DATA {path!r}: {e}") from None
        for note in encoding.notes:
            progress.note(note)
        X = encoding.transform(data.frame, argument=f"DATA {path!r}")
    else:
        for option in ("drop", "categorical"):
            if getattr(args, option):
                raise CliError(f"--{option} names table columns, but {path!r} is a matrix")
        encoding = Encoding(
            task, None, None, None, data.feature_names, svmlight_zero_based=data.zero_based
        )
        X = data.X  # a scipy sparse matrix goes to the engine as it is
    y = data.y
    methods.check_complete(args.method, X, encoding.origins())
    costs = None if args.costs is None else read_costs(args.costs, encoding)

    # Seeds of the two splits, any --random-state in 0 .. 2**32-1.
    test_seed, val_seed = args.random_state, (args.random_state + 1) % (MAX_SEED + 1)
    train, test = splitting.split_rows(task, y, data.groups, args.test_size, test_seed)
    fit_rows, val_rows = splitting.split_rows(
        task,
        y[train],
        _part(data.groups, train),
        VALIDATION_FRACTION,
        val_seed,
        part="the training part",
    )
    fit_rows = train[fit_rows]
    val_rows = train[val_rows]
    parts = {
        name: _rows(X, y, data.groups, r)
        for name, r in (("fit", fit_rows), ("validation", val_rows), ("test", test))
    }

    if args.n_features == "auto":
        progress.stage(f"choosing the budget by {budget.FOLDS}-fold CV on the fit rows")
    chosen = budget.choose(
        None if args.n_features == "none" else args.n_features,
        args.method,
        task,
        *parts["fit"],
        mu=mu,
        bags=encoding.bags(),
        random_state=args.random_state,
        categorical=encoding.categorical_indices(),
        costs=costs,
        n_jobs=args.n_jobs,
    )
    if chosen.chosen_by == "cv":
        progress.note(f"budget chosen by CV: {chosen.k} feature(s)")

    label = f"{args.method} on {X.shape[0]} x {X.shape[1]}"
    n_rounds = methods.BOOSTER_DEFAULTS["n_estimators"]
    progress.stage(f"fitting ({label}; binning first)")
    callback = progress.rounds(n_rounds, label)
    fit_started = time.perf_counter()
    try:
        fitted = methods.run(
            args.method,
            task,
            *parts["fit"],
            parts["validation"],
            mu=mu,
            n_features=chosen.k,
            bags=encoding.bags(),
            random_state=args.random_state,
            callbacks=[callback],
            categorical=encoding.categorical_indices(),
            costs=costs,
            n_jobs=args.n_jobs,
            selected=chosen.selected,
        )
    finally:
        callback.close()
    fit_seconds = time.perf_counter() - fit_started
    history = progress.history

    model_X = {k: _model_input(v, fitted.model_columns) for k, v in parts.items()}
    metrics = test_metrics(task, fitted.model, *model_X["test"])
    selected_names = encoding.original_order(fitted.selected)
    encoding.model_columns = (
        None if fitted.model_columns is None else [int(j) for j in fitted.model_columns]
    )

    with open(os.path.join(out, "selected_features.txt"), "w", encoding="utf-8") as f:
        # One name a line: a line break in a name (a quoted header cell
        # over two lines) is written as \n.
        f.write("".join(f"{_one_line(name)}\n" for name in selected_names))
    from ..persistence import save_model

    save_model(fitted.model, os.path.join(out, "model.json"), input_encoding=encoding.to_dict())
    summary = {
        "data": os.path.abspath(path) if args.data else "embedded Madelon (sparseboost/data)",
        "task": task,
        "method": args.method,
        "split_search": fitted.model.split_search_,
        "parameters": {
            # None when the model has no penalty (a refit on chosen columns).
            **_penalty_record(fitted.model),
            "n_features": args.n_features,
            "test_size": args.test_size,
            "random_state": args.random_state,
        },
        "data_shape": {
            "rows": data.shape[0] + dropped,
            "rows_without_target": dropped,
            "columns": data.shape[1],
            "encoded_columns": int(X.shape[1]),
            "fit_rows": len(fit_rows),
            "validation_rows": len(val_rows),
            "test_rows": len(test),
        },
        "budget": chosen.record(),
        "n_selected": len(selected_names),
        "selected_features": selected_names,
        "test_metrics": metrics,
        "fit_seconds": round(fit_seconds, 3),
        "notes": read_notes + list(encoding.notes),
    }

    progress.stage("report: refits for the plots")
    from .report import write_report

    write_report(out, summary, encoding, fitted, parts, history, progress, chosen)
    summary["total_seconds"] = round(time.perf_counter() - started, 3)
    text = json.dumps(summary, indent=2, allow_nan=False)
    with open(os.path.join(out, "metrics.json"), "w", encoding="utf-8") as f:
        f.write(text + "\n")
    return summary


def read_costs(path, encoding) -> list:
    """``--costs``: a two-column CSV (a header is optional) of column and
    cost, as the cost of every encoded column (its original column's; 0
    for a column not listed)."""
    import pandas as pd

    try:
        table = pd.read_csv(path, header=None, dtype=str, keep_default_na=False)
    except (OSError, ValueError) as e:
        raise CliError(f"--costs {path!r} cannot be read: {e}") from None
    if table.shape[1] != 2:
        raise CliError(f"--costs {path!r} must have two columns (column, cost)")
    rows = [(str(a).strip(), str(b).strip()) for a, b in table.itertuples(index=False)]
    origins = encoding.origins()
    # A header is a first row that names no feature column and whose cost
    # is no number (a first row naming a column is data: a bad cost there
    # is an error, not a header).
    if rows and rows[0][0] not in origins:
        try:
            float(rows[0][1])
        except ValueError:
            rows = rows[1:]
    costs = {}
    for name, text in rows:
        try:
            cost = float(text)
        except ValueError:
            raise CliError(
                f"--costs {path!r}: the cost of {name!r} is not a number: {text!r}"
            ) from None
        if not (cost >= 0 and cost < float("inf")):
            raise CliError(f"--costs {path!r}: the cost of {name!r} must be a number >= 0")
        if name not in origins:
            raise CliError(f"--costs {path!r} names {name!r}, which is no feature column")
        if name in costs:
            raise CliError(f"--costs {path!r} lists {name!r} twice")
        costs[name] = cost
    return [costs.get(name, 0.0) for name in origins]


def _one_line(name: str) -> str:
    return name.replace("\r\n", "\\n").replace("\n", "\\n").replace("\r", "\\n")


def _part(values, rows):
    return None if values is None else values[rows]


def _rows(X, y, groups, rows):
    """``(X, y, query sizes)`` of ``rows``; a ranking's rows are reordered
    so that each query's rows are consecutive."""
    if groups is None:
        return X[rows], y[rows], None
    order, sizes = splitting.query_order(groups[rows])
    rows = rows[order]
    return X[rows], y[rows], sizes


def _model_input(part, model_columns):
    X, y, sizes = part
    return (X if model_columns is None else X[:, model_columns]), y, sizes


def _print_summary(summary, out):
    metrics = ", ".join(f"{k} {v:.4f}" for k, v in summary["test_metrics"].items() if v is not None)
    names = summary["selected_features"]
    shown = ", ".join(names[:12]) + (", ..." if len(names) > 12 else "")
    print(
        f"{summary['task']} with {summary['method']} (split search: {summary['split_search']}): "
        f"{summary['n_selected']} of the input's {summary['data_shape']['columns']} columns "
        f"selected in {summary['total_seconds']:.1f} s (the final fit "
        f"{summary['fit_seconds']:.1f} s of it)"
    )
    print(f"selected, in entry order: {shown}")
    print(f"test: {metrics}")
    print(f"written to {out}/: selected_features.txt, model.json, metrics.json, report.html")
