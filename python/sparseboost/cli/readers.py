"""Reading the command line's data files.

The format comes from the file name (a compression suffix such as ``.gz``
is looked through for CSV):

- ``.csv``, ``.tsv``: a table with a header row, read by pandas;
- ``.parquet``, ``.pq``: a table, read by pandas through pyarrow;
- ``.svm``, ``.svmlight``, ``.libsvm``: ``label [qid:q] index:value ...``
  lines, read by scikit-learn's ``load_svmlight_file`` into a scipy CSR
  matrix that stays sparse; the label is the target and ``qid`` the query
  of a ranking row. A training file's indices are one-based (libsvm's
  convention) unless some row uses index 0; the model records which, and
  ``predict`` reads new files the same way. Column ``xK`` is the file's
  index K;
- ``.npz``: NumPy arrays ``X`` (2-D, dense) and ``y``, optionally
  ``feature_names`` (strings) and ``group`` (a query id per row). A sparse
  ``X`` is stored as the arrays that ``scipy.sparse.save_npz`` writes for a
  CSR or CSC matrix, each name prefixed with ``X_``: ``X_format``
  (``"csr"``/``"csc"``), ``X_data``, ``X_indices``, ``X_indptr``,
  ``X_shape``; it is read back as that scipy matrix.

Tables keep their columns by name (``--target`` and ``--group`` pick two of
them); svmlight and ``.npz`` files carry the target themselves. A training
table's column names must be distinct and non-empty (pandas would rename a
repeated ``a`` to ``a.1`` and an empty header cell to ``Unnamed: 1``, names
that are not in the file); a file to score must hold each column the model
takes once, under its name, and its other columns are ignored. ``.npz``
files with ``feature_names`` are matched by name too.
"""

from __future__ import annotations

import lzma
import os
import zipfile
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from .errors import CliError, need

TABLE_SUFFIXES = {".csv": "csv", ".tsv": "tsv", ".parquet": "parquet", ".pq": "parquet"}
MATRIX_SUFFIXES = {
    ".svm": "svmlight",
    ".svmlight": "svmlight",
    ".libsvm": "svmlight",
    ".npz": "npz",
}
COMPRESSION = (".gz", ".bz2", ".zip", ".xz", ".zst")


@dataclass
class Data:
    """What a file holds: a table (``frame``: the feature columns) or a
    matrix (``X``, dense or scipy sparse, with ``feature_names``), the
    target (None when the file has none) and query ids (ranking)."""

    kind: str  # "table" or "matrix"
    frame: object = None
    X: object = None
    feature_names: list | None = None
    y: np.ndarray | None = None
    groups: np.ndarray | None = None
    # A matrix: whether the file named its columns (npz feature_names).
    named: bool = False
    # Each row's row in the file (from 0), once rows without a target are
    # left out (None: every row, in order).
    file_rows: np.ndarray | None = None
    # An svmlight file: whether its indices start at 0.
    zero_based: bool | None = None
    # What the reading changed that the user should know (a dropped index).
    notes: list = field(default_factory=list)

    @property
    def shape(self) -> tuple:
        source = self.frame if self.kind == "table" else self.X
        return tuple(int(n) for n in source.shape)


def file_format(path: str) -> str:
    name = os.path.basename(path).lower()
    for suffix in COMPRESSION:
        if name.endswith(suffix):
            name = name[: -len(suffix)]
            break
    ext = os.path.splitext(name)[1]
    found = TABLE_SUFFIXES.get(ext) or MATRIX_SUFFIXES.get(ext)
    if found is None:
        known = ", ".join(sorted({**TABLE_SUFFIXES, **MATRIX_SUFFIXES}))
        raise CliError(f"DATA {path!r}: unknown file type {ext or '(none)'!r}; use one of {known}")
    return found


def read(
    path: str,
    *,
    target=None,
    group=None,
    need_target=True,
    columns=None,
    zero_based=None,
    n_features=None,
) -> Data:
    """Read ``path``; ``target`` and ``group`` name table columns.
    ``columns`` (scoring a new file): the names the model takes, which must
    each appear once; other columns are dropped. Without it (training),
    every column name must be distinct and non-empty. ``zero_based`` and
    ``n_features``: how to read a new svmlight file (as the training file
    was, to the model's width); None for a training file."""
    fmt = file_format(path)
    if not os.path.isfile(path):
        raise CliError(f"DATA {path!r}: no such file")
    try:
        if fmt in ("csv", "tsv", "parquet"):
            data = _table(path, fmt, target, group, need_target, columns)
        elif target is not None or group is not None:
            option = "--target" if target is not None else "--group"
            raise CliError(
                f"{option} names a table column, but {path!r} ({fmt}) carries its own "
                "target and query ids"
            )
        elif fmt == "svmlight":
            data = _svmlight(path, zero_based, n_features)
        else:
            data = _npz(path, need_target)
    except CliError:
        raise
    # (A damaged .xz or .zip raises LZMAError or BadZipFile; a .zst without
    # the zstandard package ImportError.)
    except (
        ValueError,
        OSError,
        KeyError,
        EOFError,
        UnicodeDecodeError,
        lzma.LZMAError,
        zipfile.BadZipFile,
        ImportError,
    ) as e:
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise CliError(f"DATA {path!r} cannot be read as {fmt}: {first}") from None
    if data.shape[0] == 0:
        raise CliError(f"DATA {path!r} has no rows")
    return data


def _table(path, fmt, target, group, need_target, columns) -> Data:
    need("pandas", "reading CSV and Parquet files")
    names, frame = _parquet(path) if fmt == "parquet" else _csv(path, fmt)
    for option, name in (("--target", target), ("--group", group)):
        if name is not None and name not in names:
            shown = ", ".join(map(repr, names[:8])) + (", ..." if len(names) > 8 else "")
            raise CliError(f"{option} {name!r}: no such column in {path!r} (columns: {shown})")
    notes = []
    if columns is None:
        names, frame, notes = _without_row_index(names, frame)
        _check_names(path, names)
        frame.columns = names
    else:
        frame = _take(path, names, frame, columns)
    y = groups = None
    if target is None and need_target:
        raise CliError(f"--target is required for a table ({path!r}): name the column to predict")
    if target is not None:
        if target == group:
            raise CliError("--target and --group must be different columns")
        y = frame.pop(target).to_numpy()
    if group is not None:
        ids = frame.pop(group)
        groups = ids.to_numpy()
        missing = np.flatnonzero(ids.isna().to_numpy())
        if missing.size:
            raise CliError(
                f"--group {group!r} is missing in {missing.size} row(s), the first in row "
                f"{missing[0] + 1} (from 1, the header not counted); give every row its query id"
            )
    if frame.shape[1] == 0:
        raise CliError(f"DATA {path!r} has no feature columns besides the target")
    return Data("table", frame=frame, y=y, groups=groups, notes=notes)


def _csv(path, fmt):
    """The header's names as written, and the rows under positional
    column labels (pandas renames repeated names, which must be caught)."""
    import pandas as pd

    sep = "\t" if fmt == "tsv" else ","
    header = pd.read_csv(path, sep=sep, header=None, nrows=1, dtype=str, na_filter=False)
    names = [str(v) for v in header.iloc[0].tolist()]
    # Excel's "sep=;" line, or a header of one field holding another
    # separator: the file is not separated as its name says.
    shown = {"\t": "tabs", ",": "commas"}[sep]
    if names and names[0].strip().lower().startswith("sep="):
        raise CliError(
            f"DATA {path!r} starts with Excel's {names[0].strip()!r} line; sparseboost reads "
            f".{fmt} files separated by {shown}: delete that line (and save the file with "
            f"{shown} if it uses another separator)"
        )
    for other in (";", "\t", "|") if len(names) == 1 else ():
        if other != sep and other in names[0]:
            raise CliError(
                f"DATA {path!r}: its header is one field holding {other!r}; sparseboost reads "
                f".{fmt} files separated by {shown} (save it with {shown}, and with '.' as the "
                "decimal mark)"
            )
    # round_trip: the float each number's text names (pandas' default
    # parser before 3.0 is not always correctly rounded: 1.5's was one unit
    # in the last place off; pandas 3 deprecates the option, its default
    # being exact).
    exact = {"float_precision": "round_trip"} if int(pd.__version__.split(".")[0]) < 3 else {}
    frame = pd.read_csv(path, sep=sep, **exact)
    # More fields in the rows than names: pandas makes the first an index.
    shifted = len(frame) and not isinstance(frame.index, pd.RangeIndex)
    if frame.shape[1] != len(names) or shifted:
        raise CliError(
            f"DATA {path!r}: its rows have more fields than its header has names "
            f"({len(names)}); name every column"
        )
    frame.columns = range(len(names))
    return names, frame


def _parquet(path):
    """As ``_csv``: the schema's names and the columns under positions
    (pandas cannot build a frame from a file with a repeated name). The
    pandas index that ``to_parquet`` may store is not a column."""
    need("pyarrow", "reading Parquet files")
    import json

    import pyarrow.parquet as pq

    table = pq.ParquetFile(path).read()
    metadata = (table.schema.metadata or {}).get(b"pandas")
    index = set()
    if metadata:
        index = {c for c in json.loads(metadata).get("index_columns", []) if isinstance(c, str)}
    keep = [i for i, name in enumerate(table.column_names) if name not in index]
    names = [str(table.column_names[i]) for i in keep]
    table = table.select(keep).replace_schema_metadata(None)
    frame = table.rename_columns([str(i) for i in range(len(keep))]).to_pandas()
    frame.columns = range(len(keep))
    return names, frame


def _without_row_index(names, frame):
    """Leave out a first column without a name that holds the row numbers
    (0, 1, 2, ... or 1, 2, 3, ...): the index that pandas' ``to_csv`` and
    R's ``write.csv`` write. It says nothing about a row but where it sat
    in the file, so it is not a feature (a row order sorted by the target
    would leak it); an unnamed column of anything else stays an error."""
    if len(names) < 2 or names[0].strip():
        return names, frame, []
    values = frame[0]
    if values.dtype.kind not in "iu" or len(values) == 0:
        return names, frame, []
    first = int(values.iloc[0])
    if first not in (0, 1) or not np.array_equal(
        values.to_numpy(), np.arange(first, first + len(values))
    ):
        return names, frame, []
    frame = frame.drop(columns=0)
    frame.columns = range(len(names) - 1)
    note = (
        f"column 1 has no name and holds the row numbers {first}..{first + len(values) - 1} "
        "(a written index): left out"
    )
    return names[1:], frame, [note]


def _check_names(path, names):
    """A training table's names are distinct and non-empty."""
    empty = [i + 1 for i, name in enumerate(names) if not name.strip()]
    if empty:
        raise CliError(
            f"DATA {path!r}: column {empty[0]} (of {len(names)}) has no name (an empty header "
            "cell); name it in the header, or remove the column"
        )
    counts = Counter(names)
    repeated = [name for name in names if counts[name] > 1]
    if repeated:
        where = [i + 1 for i, name in enumerate(names) if name == repeated[0]]
        raise CliError(
            f"DATA {path!r}: the column name {repeated[0]!r} appears {len(where)} times "
            f"(columns {', '.join(map(str, where))}); names must be distinct"
        )


def _take(path, names, frame, columns):
    """The ``columns`` a model takes, by name, each of which must appear
    once in the file."""
    counts = Counter(names)
    absent = [c for c in columns if counts[c] == 0]
    if absent:
        raise CliError(f"DATA {path!r} lacks the model's column(s) {absent[:5]}")
    repeated = [c for c in columns if counts[c] > 1]
    if repeated:
        raise CliError(
            f"DATA {path!r}: the model's column {repeated[0]!r} appears {counts[repeated[0]]} "
            "times; which one to use is ambiguous"
        )
    position = {name: i for i, name in enumerate(names)}
    taken = frame[[position[c] for c in columns]]
    taken.columns = list(columns)
    return taken


def _svmlight(path, zero_based=None, n_features=None) -> Data:
    """An svmlight file. ``zero_based`` None (a training file): one-based
    unless some row uses index 0. ``n_features``: the model's width."""
    from sklearn.datasets import load_svmlight_file

    width = None if n_features is None else n_features + (0 if zero_based else 1)
    # Read as written (indices as given), then drop the unused column 0 of
    # a one-based file: scikit-learn's "auto" guesses per file instead.
    try:
        X, y, qid = load_svmlight_file(path, zero_based=True, query_id=True, n_features=width)
    except ValueError as e:
        if width is None or "n_features was set" not in str(e):
            raise
        # scikit-learn counts index 0 of a one-based file: say it in the
        # model's columns.
        wider = load_svmlight_file(path, zero_based=True, query_id=True)[0].shape[1]
        offset = 0 if zero_based else 1
        raise CliError(
            f"DATA {path!r} has columns up to x{wider - 1}, but the model's training file had "
            f"{n_features} (x{offset} to x{n_features - 1 + offset})"
        ) from None
    if zero_based is None:
        zero_based = bool(X.nnz) and bool(X.indices.min() == 0)
    elif not zero_based and X.shape[1] and X[:, 0].nnz:
        raise CliError(
            f"DATA {path!r} uses feature index 0, but the model's training file was one-based"
        )
    offset = 0 if zero_based else 1
    if offset:
        X = X[:, 1:] if X.shape[1] else X
    groups = qid if qid.size and np.any(qid != 0) else None
    names = [f"x{j + offset}" for j in range(X.shape[1])]
    return Data("matrix", X=X, feature_names=names, y=y, groups=groups, zero_based=zero_based)


def _npz(path, need_target) -> Data:
    with np.load(path, allow_pickle=False) as arrays:
        keys = set(arrays.files)
        if "X" in keys:
            X = arrays["X"]
            if X.ndim != 2:
                raise CliError(f"DATA {path!r}: X must be 2-D, got shape {X.shape}")
        elif "X_format" in keys:
            X = _sparse(arrays, path)
        else:
            raise CliError(f"DATA {path!r} holds no array X (nor a sparse X_format, X_data, ...)")
        y = arrays["y"] if "y" in keys else None
        names = arrays["feature_names"].astype(str).tolist() if "feature_names" in keys else None
        groups = arrays["group"] if "group" in keys else None
    if y is None and need_target:
        raise CliError(f"DATA {path!r} holds no target array y")
    for label, values in (("y", y), ("group", groups)):
        if values is not None and (values.ndim != 1 or len(values) != X.shape[0]):
            raise CliError(f"DATA {path!r}: {label} must hold one value per row of X")
    named = names is not None
    if names is None:
        names = [f"x{j}" for j in range(X.shape[1])]
    elif (
        len(names) != X.shape[1]
        or len(set(names)) != len(names)
        or not all(n.strip() for n in names)
    ):
        raise CliError(f"DATA {path!r}: feature_names must name each column of X once")
    return Data("matrix", X=X, feature_names=names, y=y, groups=groups, named=named)


def _sparse(arrays, path):
    import scipy.sparse as sp

    fmt = str(arrays["X_format"].item() if arrays["X_format"].ndim == 0 else arrays["X_format"])
    build = {"csr": sp.csr_matrix, "csc": sp.csc_matrix}.get(fmt)
    if build is None:
        raise CliError(f"DATA {path!r}: X_format must be 'csr' or 'csc', got {fmt!r}")
    parts = [arrays[f"X_{k}"] for k in ("data", "indices", "indptr")]
    return build(tuple(parts), shape=tuple(int(n) for n in arrays["X_shape"]))


def madelon_path() -> str:
    """The embedded Madelon copy (see ``data/MADELON.txt``)."""
    return os.path.join(os.path.dirname(os.path.dirname(__file__)), "data", "madelon.npz")
