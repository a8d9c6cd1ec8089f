"""``sparseboost predict MODEL DATA --out predictions.csv``: score new rows
with a model written by ``sparseboost select``, encoding them as the
training rows were (the encoding is stored in the model file).

The CSV has one row per input row, in input order: ``prediction`` (the
value or the class), and for classification one ``proba_<class>`` column
per class; for ranking, ``score``. DATA's columns are found by name (a
table's header, an ``.npz``'s ``feature_names``; columns the model does not
take, the target among them, are ignored), or by position in a matrix
without names (an svmlight file is read with the training file's index
base)."""

from __future__ import annotations

import csv
import os

import numpy as np

from . import readers
from .errors import CliError, Parser


def make_parser():
    p = Parser(prog="sparseboost predict", description=__doc__.split("\n\n")[0])
    p.add_argument("model", metavar="MODEL", help="model.json written by sparseboost select")
    p.add_argument("data", metavar="DATA", help="rows to score (the same kind of file)")
    p.add_argument("--out", default="predictions.csv", metavar="FILE")
    return p


def main(argv) -> int:
    args = make_parser().parse_args(argv)
    if not os.path.isfile(args.model):
        raise CliError(f"MODEL {args.model!r}: no such file")
    folder = os.path.dirname(os.path.abspath(args.out))
    if not os.path.isdir(folder):
        # (before scoring, and naming the option)
        raise CliError(f"--out {args.out!r}: no such folder {folder!r}")
    from ..persistence import load_input_encoding

    model, encoding = load_input_encoding(args.model)
    if encoding is None:
        raise CliError(
            f"MODEL {args.model!r} has no input_encoding (it was not written by sparseboost select)"
        )
    table = readers.file_format(args.data) in ("csv", "tsv", "parquet")
    if table != (encoding.columns is not None):
        kind = (
            "a table (CSV/Parquet)" if encoding.columns is not None else "a matrix (svmlight/npz)"
        )
        raise CliError(f"DATA {args.data!r}: the model was fitted on {kind}")
    data = read(args.data, encoding)
    X = features(encoding, data, args.data)
    write(args.out, model, encoding, X)
    print(f"{X.shape[0]} predictions written to {args.out}")
    return 0


def read(path, encoding):
    """A file to score, read as the training file was: a table's model
    columns by name, an svmlight file with the training file's index base
    and the model's width."""
    if encoding.columns is not None:
        return readers.read(path, need_target=False, columns=[c.name for c in encoding.columns])
    return readers.read(
        path,
        need_target=False,
        zero_based=encoding.svmlight_zero_based,
        n_features=len(encoding.feature_names) if readers.file_format(path) == "svmlight" else None,
    )


def features(encoding, data, path):
    """The columns the model takes, encoded as in training."""
    if encoding.columns is not None:
        X = encoding.transform(data.frame, argument=f"DATA {path!r}")
    else:
        X = data.X
        model_names = encoding.feature_names
        if data.named:
            # npz feature_names: columns by name, in the model's order.
            position = {name: j for j, name in enumerate(data.feature_names)}
            absent = [name for name in model_names if name not in position]
            if absent:
                raise CliError(
                    f"DATA {path!r}: its feature_names lack the model's column(s) {absent[:5]}"
                )
            X = X[:, [position[name] for name in model_names]]
        elif X.shape[1] != len(model_names):
            raise CliError(
                f"DATA {path!r} has {X.shape[1]} columns; the model takes {len(model_names)}"
            )
    if encoding.model_columns is not None:
        X = X[:, encoding.model_columns]
    return X


def write(out, model, encoding, X):
    if encoding.task == "classification":
        proba = model.predict_proba(X)
        classes = model.classes_
        header = ["prediction", *[f"proba_{c}" for c in classes]]
        labels = classes[np.argmax(proba, axis=1)]
        rows = ([label, *map(repr_float, p)] for label, p in zip(labels.tolist(), proba))
    else:
        header = ["score" if encoding.task == "ranking" else "prediction"]
        rows = ([repr_float(v)] for v in model.predict(X))
    with open(out, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(header)
        writer.writerows(rows)


def repr_float(value) -> str:
    """The shortest text that reads back as the same float64."""
    return repr(float(value))
