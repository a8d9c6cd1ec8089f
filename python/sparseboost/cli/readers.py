"""Reading the command line's data files.

The format comes from the file name (a compression suffix such as ``.gz``
is looked through for CSV):

- ``.csv``, ``.tsv``: a table with a header row, read by pandas;
- ``.parquet``, ``.pq``: a table, read by pandas through pyarrow;
- ``.svm``, ``.svmlight``, ``.libsvm``: ``label [qid:q] index:value ...``
  lines, read by scikit-learn's ``load_svmlight_file`` into a scipy CSR
  matrix that stays sparse (indices 0- or 1-based, as scikit-learn's
  ``zero_based="auto"`` decides); the label is the target and ``qid`` the
  query of a ranking row;
- ``.npz``: NumPy arrays ``X`` (2-D, dense) and ``y``, optionally
  ``feature_names`` (strings) and ``group`` (a query id per row). A sparse
  ``X`` is stored as the arrays that ``scipy.sparse.save_npz`` writes for a
  CSR or CSC matrix, each name prefixed with ``X_``: ``X_format``
  (``"csr"``/``"csc"``), ``X_data``, ``X_indices``, ``X_indptr``,
  ``X_shape``; it is read back as that scipy matrix.

Tables keep their columns by name (``--target`` and ``--group`` pick two of
them); svmlight and ``.npz`` files carry the target themselves.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

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


def read(path: str, *, target=None, group=None, need_target=True) -> Data:
    """Read ``path``; ``target`` and ``group`` name table columns."""
    fmt = file_format(path)
    if not os.path.isfile(path):
        raise CliError(f"DATA {path!r}: no such file")
    try:
        if fmt in ("csv", "tsv", "parquet"):
            return _table(path, fmt, target, group, need_target)
        if target is not None or group is not None:
            option = "--target" if target is not None else "--group"
            raise CliError(
                f"{option} names a table column, but {path!r} ({fmt}) carries its own "
                "target and query ids"
            )
        return _svmlight(path) if fmt == "svmlight" else _npz(path, need_target)
    except CliError:
        raise
    except (ValueError, OSError, KeyError, EOFError, UnicodeDecodeError) as e:
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise CliError(f"DATA {path!r} cannot be read as {fmt}: {first}") from None


def _table(path, fmt, target, group, need_target) -> Data:
    pd = need("pandas", "reading CSV and Parquet files")
    if fmt == "parquet":
        need("pyarrow", "reading Parquet files")
        frame = pd.read_parquet(path, engine="pyarrow")
    else:
        # round_trip: the float each number's text names (pandas' default
        # parser before 2.0 could be one unit in the last place off).
        frame = pd.read_csv(path, sep="\t" if fmt == "tsv" else ",", float_precision="round_trip")
    frame.columns = [str(c) for c in frame.columns]
    if len(set(frame.columns)) != len(frame.columns):
        raise CliError(f"DATA {path!r}: column names must be distinct")
    y = groups = None
    for option, name in (("--target", target), ("--group", group)):
        if name is not None and name not in frame.columns:
            shown = ", ".join(list(frame.columns)[:8])
            raise CliError(f"{option} {name!r}: no such column in {path!r} (columns: {shown}, ...)")
    if target is None and need_target:
        raise CliError(f"--target is required for a table ({path!r}): name the column to predict")
    if target is not None:
        if target == group:
            raise CliError("--target and --group must be different columns")
        y = frame.pop(target).to_numpy()
    if group is not None:
        groups = frame.pop(group).to_numpy()
    if frame.shape[1] == 0:
        raise CliError(f"DATA {path!r} has no feature columns besides the target")
    return Data("table", frame=frame, y=y, groups=groups)


def _svmlight(path) -> Data:
    from sklearn.datasets import load_svmlight_file

    X, y, qid = load_svmlight_file(path, query_id=True)
    groups = qid if qid.size and np.any(qid != 0) else None
    return Data(
        "matrix", X=X, feature_names=[f"x{j}" for j in range(X.shape[1])], y=y, groups=groups
    )


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
    if names is None:
        names = [f"x{j}" for j in range(X.shape[1])]
    elif len(names) != X.shape[1] or len(set(names)) != len(names):
        raise CliError(f"DATA {path!r}: feature_names must name each column of X once")
    return Data("matrix", X=X, feature_names=names, y=y, groups=groups)


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
