"""``sparseboost predict MODEL DATA --out predictions.csv``: score new rows
with a model written by ``sparseboost select``, encoding them as the
training rows were (the encoding is stored in the model file).

The CSV has one row per input row, in input order: ``prediction`` (the
value or the class), and for classification one ``proba_<class>`` column
per class; for ranking, ``score``. A target column in DATA is ignored."""

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
    data = readers.read(args.data, need_target=False)
    X = features(encoding, data, args.data)
    write(args.out, model, encoding, X)
    print(f"{X.shape[0]} predictions written to {args.out}")
    return 0


def features(encoding, data, path):
    """The columns the model takes, encoded as in training."""
    if encoding.columns is not None:
        X = encoding.transform(data.frame, argument=f"DATA {path!r}")
    else:
        X = data.X
        width = len(encoding.feature_names)
        if X.shape[1] > width:
            raise CliError(f"DATA {path!r} has {X.shape[1]} columns; the model knows {width}")
        if X.shape[1] < width:
            # svmlight files end at their last nonzero column; the rest are 0.
            import scipy.sparse as sp

            if not sp.issparse(X):
                raise CliError(f"DATA {path!r} has {X.shape[1]} columns; the model needs {width}")
            X = sp.csr_matrix((X.data, X.indices, X.indptr), shape=(X.shape[0], width))
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
