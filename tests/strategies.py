"""Hypothesis strategies shared by the property tests
(``tests/test_properties_*.py``): values, X in every form, targets, sample
weights and task labels (constructor parameters are in
``parameter_strategies.py``). The contract these inputs are checked against
is in ``contract.py``.
"""

from __future__ import annotations

import math
import re
import warnings
from decimal import Decimal
from fractions import Fraction

import hypothesis.extra.numpy as hnp
import hypothesis.extra.pandas as hpd
import hypothesis.strategies as st
import numpy as np
import pandas as pd
import scipy.sparse as sp
from contract import tmp_path
from sparseboost import (
    MultiTaskSparseBoostClassifier,
    MultiTaskSparseBoostRegressor,
    SparseBoostClassifier,
    SparseBoostRegressor,
)

# Every booster, single-task and multitask.
ALL_ESTIMATORS = [
    SparseBoostRegressor,
    SparseBoostClassifier,
    MultiTaskSparseBoostRegressor,
    MultiTaskSparseBoostClassifier,
]
estimator_classes = st.sampled_from(ALL_ESTIMATORS)

# -- values ------------------------------------------------------------------

FLOAT_SPECIALS = [
    math.nan,
    math.inf,
    -math.inf,
    1e308,
    -1e308,
    5e-324,
    -5e-324,
    0.0,
    -0.0,
    2.2250738585072014e-308,
    1.7976931348623157e308,
]
ordinary_floats = st.one_of(
    st.floats(-100, 100, allow_nan=False, allow_infinity=False),
    st.integers(-3, 3).map(float),
)
dirty_floats = st.one_of(
    ordinary_floats, ordinary_floats, st.sampled_from(FLOAT_SPECIALS), st.floats()
)
HUGE_INTS = [2**31, 2**53 + 1, 2**63 - 1, 2**63, 2**64 - 1, 2**64, 2**70, -(2**63), -(2**70)]
# text that never spells an argument name (a message quoting it would pass the check)
_ARG_NAMES = {"X", "y", "task", "sample_weight", "x", "Y"}
texts = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=6).filter(
    lambda s: not any(re.search(rf"\b{n}\b", s) for n in _ARG_NAMES)
)
numeric_texts = st.one_of(
    ordinary_floats.map(repr),
    st.sampled_from(["nan", "inf", "-inf", "1e400", " 2 ", "0x1", "1_0", ""]),
)

n_rows_st = st.one_of(st.sampled_from([0, 1, 2, 3]), st.integers(4, 60), st.integers(10, 40))
n_cols_st = st.one_of(st.sampled_from([0, 1]), st.integers(2, 8))
good_n = st.integers(8, 60)
good_d = st.integers(1, 8)

INT_DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
FLOAT_DTYPES = ["float16", "float32", "float64"]


def float_matrix(n, d, dirty=False):
    return hnp.arrays(np.float64, (n, d), elements=dirty_floats if dirty else ordinary_floats)


def _cast(A, dtype):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return A.astype(dtype)


@st.composite
def object_matrix(draw, n, d, mixed):
    scalar = st.one_of(
        ordinary_floats,
        dirty_floats,
        st.integers(-5, 5),
        st.sampled_from(HUGE_INTS),
        st.booleans(),
        st.none(),
        st.sampled_from([np.int64(3), np.float32(0.5), np.uint64(2**64 - 1), np.float16(2.5)]),
    )
    if mixed:
        scalar = st.one_of(
            scalar,
            numeric_texts,
            texts,
            st.binary(max_size=3),
            st.sampled_from([Decimal("1.5"), Fraction(1, 3), 1 + 2j, [1.0], (1, 2), {}, object()]),
        )
    A = np.empty((n, d), dtype=object)
    for i in range(n):
        for j in range(d):
            A[i, j] = draw(scalar)
    return A


@st.composite
def layouts(draw, n, d):
    """A float64 matrix in an unusual memory layout."""
    kind = draw(
        st.sampled_from(["fortran", "columns_step", "reversed", "readonly", "memmap", "transposed"])
    )
    dirty = draw(st.booleans())
    if kind == "columns_step":
        return draw(float_matrix(n, 2 * d, dirty))[:, ::2]
    A = draw(float_matrix(n, d, dirty))
    if kind == "fortran":
        return np.asfortranarray(A)
    if kind == "reversed":
        return A[::-1, ::-1]
    if kind == "transposed":
        return np.ascontiguousarray(A.T).T
    if kind == "readonly":
        A.setflags(write=False)
        return A
    if A.size == 0:
        return A
    mm = np.memmap(tmp_path(".mm"), dtype=np.float64, mode="w+", shape=A.shape)
    mm[:] = A
    return mm


column_names = st.one_of(
    st.integers(-3, 100),
    st.sampled_from(["", " ", "é", "列", "x0", "a b", "0", "\x00", "None", "nan"]),
    texts,
)


@st.composite
def frame_column(draw, n):
    kind = draw(
        st.sampled_from(
            [
                "float",
                "dirty",
                "int",
                "Int64",
                "Float64",
                "boolean",
                "bool",
                "category_num",
                "category_str",
                "string",
                "object_num",
                "uint64",
            ]
        )
    )
    if kind in ("float", "dirty"):
        return pd.Series(draw(float_matrix(n, 1, kind == "dirty"))[:, 0])
    if kind in ("int", "uint64"):
        dt = "int64" if kind == "int" else "uint64"
        return pd.Series(draw(hnp.arrays(dt, n)))
    if kind == "bool":
        return pd.Series(draw(hnp.arrays(bool, n)))
    missing = st.one_of(st.none(), st.just(pd.NA))
    if kind == "Int64":
        vals = draw(st.lists(st.one_of(st.integers(-5, 5), missing), min_size=n, max_size=n))
        return pd.Series(pd.array(vals, dtype="Int64"))
    if kind == "Float64":
        vals = draw(st.lists(st.one_of(ordinary_floats, missing), min_size=n, max_size=n))
        return pd.Series(pd.array(vals, dtype="Float64"))
    if kind == "boolean":
        vals = draw(st.lists(st.one_of(st.booleans(), missing), min_size=n, max_size=n))
        return pd.Series(pd.array(vals, dtype="boolean"))
    if kind == "category_num":
        return pd.Series(pd.Categorical(draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))))
    if kind == "category_str":
        return pd.Series(
            pd.Categorical(
                draw(st.lists(st.sampled_from(["a", "b", "1.5"]), min_size=n, max_size=n))
            )
        )
    if kind == "string":
        return pd.Series(draw(st.lists(numeric_texts, min_size=n, max_size=n)), dtype="string")
    return pd.Series(
        draw(st.lists(st.one_of(st.integers(-5, 5), ordinary_floats), min_size=n, max_size=n)),
        dtype=object,
    )


@st.composite
def dataframes(draw, n, d):
    """pandas DataFrames: odd column names, nullable and categorical columns."""
    names_kind = draw(st.sampled_from(["strings", "ints", "mixed", "duplicates", "odd"]))
    if names_kind == "strings":
        names = [f"c{j}" for j in range(d)]
    elif names_kind == "ints":
        names = list(range(d))
    elif names_kind == "mixed":
        names = [j if j % 2 else f"c{j}" for j in range(d)]
    elif names_kind == "duplicates":
        names = ["a"] * d
    else:
        names = draw(st.lists(column_names, min_size=d, max_size=d))
    if draw(st.booleans()):
        # the simple case through hypothesis.extra.pandas: numpy dtypes only
        dtype = draw(st.sampled_from(["float64", "float32", "int64", "bool"]))
        elements = ordinary_floats if dtype.startswith("float") else None
        frame = draw(
            hpd.data_frames(
                columns=[hpd.column(f"tmp{j}", dtype=dtype, elements=elements) for j in range(d)],
                index=hpd.range_indexes(min_size=n, max_size=n),
            )
        )
        frame.columns = pd.Index(names, dtype=object) if d else frame.columns
        return frame
    cols = [draw(frame_column(n)).reset_index(drop=True) for _ in range(d)]
    frame = pd.concat(cols, axis=1) if cols else pd.DataFrame(index=range(n))
    if d:
        frame.columns = pd.Index(names, dtype=object)
    return frame


@st.composite
def sparse_matrices(draw, n, d):
    A = draw(float_matrix(n, d, draw(st.booleans())))
    A[draw(hnp.arrays(bool, (n, d)))] = 0.0
    fmt = draw(st.sampled_from(["csr", "csc", "coo", "csr_int"]))
    if fmt == "csr_int":
        return sp.csr_matrix(_cast(np.nan_to_num(A, posinf=1, neginf=-1), np.int64))
    return {"csr": sp.csr_matrix, "csc": sp.csc_matrix, "coo": sp.coo_matrix}[fmt](A)


@st.composite
def odd_containers(draw, n, d):
    """Lists, ragged lists, scalars, None, 1-D and 3-D arrays."""
    kind = draw(
        st.sampled_from(
            [
                "list",
                "tuples",
                "ragged",
                "ragged_nested",
                "scalar",
                "none",
                "1d",
                "3d",
                "empty_list",
                "list_of_empty",
            ]
        )
    )
    A = draw(float_matrix(n, max(d, 1), draw(st.booleans())))
    if kind == "list":
        return A.tolist()
    if kind == "tuples":
        return [tuple(r) for r in A.tolist()]
    if kind == "ragged":
        rows = A.tolist()
        if rows:
            rows[draw(st.integers(0, len(rows) - 1))].append(1.0)
        else:
            rows = [[1.0], [1.0, 2.0]]
        return rows
    if kind == "ragged_nested":
        rows = A.tolist()
        if rows:
            rows[0][0] = [rows[0][0], 1.0]
        else:
            rows = [[[1.0, 2.0]], [1.0]]
        return rows
    if kind == "scalar":
        return draw(st.one_of(ordinary_floats, st.integers(), texts))
    if kind == "none":
        return None
    if kind == "1d":
        return A[:, 0]
    if kind == "3d":
        return np.repeat(A[:, :, None], 2, axis=2)
    if kind == "empty_list":
        return []
    return [[] for _ in range(n)]


@st.composite
def any_X(draw, n, d):
    """X in any form the public API might be handed (rows: n where that applies)."""
    kind = draw(
        st.sampled_from(
            [
                "float",
                "float",
                "dirty",
                "float_cast",
                "int",
                "bool",
                "object_num",
                "object_mixed",
                "unicode",
                "bytes",
                "datetime",
                "timedelta",
                "complex",
                "layout",
                "layout",
                "frame",
                "frame",
                "sparse",
                "odd",
            ]
        )
    )
    if kind == "float":
        return draw(float_matrix(n, d))
    if kind == "dirty":
        return draw(float_matrix(n, d, dirty=True))
    if kind == "float_cast":
        return _cast(
            draw(float_matrix(n, d, draw(st.booleans()))), draw(st.sampled_from(FLOAT_DTYPES))
        )
    if kind == "int":
        return draw(hnp.arrays(draw(st.sampled_from(INT_DTYPES)), (n, d)))
    if kind == "bool":
        return draw(hnp.arrays(bool, (n, d)))
    if kind in ("object_num", "object_mixed"):
        return draw(object_matrix(n, d, kind == "object_mixed"))
    if kind == "unicode":
        vals = draw(st.lists(st.one_of(numeric_texts, texts), min_size=n * d, max_size=n * d))
        return np.array(vals, dtype=str).reshape(n, d)
    if kind == "bytes":
        vals = draw(st.lists(numeric_texts, min_size=n * d, max_size=n * d))
        return np.array([v.encode() for v in vals], dtype=bytes).reshape(n, d)
    if kind in ("datetime", "timedelta"):
        unit = draw(st.sampled_from(["s", "ns", "D"]))
        ints = draw(hnp.arrays(np.int64, (n, d), elements=st.integers(-(10**9), 10**9)))
        base = "datetime64" if kind == "datetime" else "timedelta64"
        A = ints.astype(f"{base}[{unit}]")
        if A.size and draw(st.booleans()):
            A.flat[0] = np.datetime64("NaT") if kind == "datetime" else np.timedelta64("NaT")
        return A
    if kind == "complex":
        real = draw(float_matrix(n, d))
        imag = draw(float_matrix(n, d)) if draw(st.booleans()) else 0.0
        return (real + 1j * imag).astype(draw(st.sampled_from(["complex64", "complex128"])))
    if kind == "layout":
        return draw(layouts(n, d))
    if kind == "frame":
        return draw(dataframes(n, d))
    if kind == "sparse":
        return draw(sparse_matrices(n, d))
    return draw(odd_containers(n, d))


# -- targets, weights, task labels --------------------------------------------


@st.composite
def regression_targets(draw, n):
    kind = draw(
        st.sampled_from(
            [
                "clean",
                "clean",
                "dirty",
                "scaled",
                "int",
                "bool",
                "datetime",
                "timedelta",
                "strings",
                "complex",
                "object",
                "ragged",
                "wrong_length",
                "2d",
                "list",
                "scalar",
                "none",
                "series",
            ]
        )
    )
    clean = draw(hnp.arrays(np.float64, n, elements=ordinary_floats))
    if kind == "clean":
        return clean
    if kind == "dirty":
        return draw(hnp.arrays(np.float64, n, elements=dirty_floats))
    if kind == "scaled":
        with np.errstate(all="ignore"):
            return np.ldexp(clean, draw(st.integers(-1100, 1100)))
    if kind == "int":
        return draw(hnp.arrays(draw(st.sampled_from(INT_DTYPES)), n))
    if kind == "bool":
        return draw(hnp.arrays(bool, n))
    if kind == "datetime":
        return np.arange(n).astype("datetime64[s]")
    if kind == "timedelta":
        return np.arange(n).astype("timedelta64[ms]")
    if kind == "strings":
        return np.array(
            draw(st.lists(st.one_of(numeric_texts, texts), min_size=n, max_size=n)), dtype=str
        )
    if kind == "complex":
        return clean + 1j * draw(st.sampled_from([0.0, 1.0]))
    if kind == "object":
        return draw(object_matrix(n, 1, True))[:, 0]
    if kind == "ragged":
        rows = [[v] for v in clean.tolist()]
        if rows:
            rows[0] = [1.0, 2.0]
        return rows
    if kind == "wrong_length":
        m = draw(st.sampled_from([0, max(n - 1, 0), n + 1, 2 * n + 2]).filter(lambda m: m != n))
        return draw(hnp.arrays(np.float64, m, elements=ordinary_floats))
    if kind == "2d":
        return np.repeat(clean[:, None], draw(st.integers(1, 3)), axis=1)
    if kind == "list":
        return clean.tolist()
    if kind == "scalar":
        return draw(st.one_of(ordinary_floats, texts))
    if kind == "none":
        return None
    vals = draw(st.lists(st.one_of(ordinary_floats, st.just(pd.NA)), min_size=n, max_size=n))
    return pd.Series(pd.array(vals, dtype="Float64"))


LABEL_PAIRS = [
    (0, 1),
    (-1, 1),
    (1, 2),
    (2**63 - 1, -(2**63)),
    ("a", "b"),
    ("no", "yes"),
    (False, True),
    (0.5, 1.5),
    (-0.0, 1e308),
    ("é", "列"),
    (b"n", b"y"),
]


@st.composite
def class_labels(draw, n):
    kind = draw(
        st.sampled_from(
            [
                "pair",
                "pair",
                "pair",
                "uint64",
                "one_class",
                "three",
                "nan",
                "mixed",
                "none",
                "series_cat",
                "wrong_length",
                "2d_column",
                "floats",
            ]
        )
    )
    pattern = (
        np.arange(n) % 2
        if draw(st.booleans())
        else draw(hnp.arrays(np.int64, n, elements=st.integers(0, 1)))
    )
    if kind == "pair":
        a, b = draw(st.sampled_from(LABEL_PAIRS))
        return np.where(pattern == 1, np.array([b]), np.array([a]))
    if kind == "uint64":
        return np.where(
            pattern == 1,
            np.uint64(2**64 - 1),
            np.uint64(draw(st.sampled_from([0, 2**64 - 2, 2**63]))),
        )
    if kind == "one_class":
        return np.full(n, draw(st.sampled_from([0, 1, "a"])))
    if kind == "three":
        return np.arange(n) % 3
    if kind == "nan":
        y = pattern.astype(np.float64)
        if n:
            y[0] = np.nan
        return y
    if kind == "mixed":
        return np.array([1 if p else "a" for p in pattern], dtype=object)
    if kind == "none":
        return np.array([None if p else "a" for p in pattern], dtype=object)
    if kind == "series_cat":
        return pd.Series(pd.Categorical(np.where(pattern == 1, "pos", "neg")))
    if kind == "wrong_length":
        return np.arange(n + 1) % 2
    if kind == "2d_column":
        return pattern[:, None]
    return pattern + draw(st.sampled_from([0.0, 0.25, 1e-300]))


@st.composite
def sample_weights(draw, n):
    kind = draw(
        st.sampled_from(
            [
                "none",
                "scalar",
                "positive",
                "positive",
                "special",
                "all_zero",
                "all_huge",
                "tiny",
                "wrong_length",
                "2d",
                "strings",
                "list",
                "int",
            ]
        )
    )
    if kind == "none":
        return None
    if kind == "scalar":
        return draw(
            st.sampled_from([1, 0, -1, 2.5, math.nan, math.inf, 1e308, np.float32(2), "1", True])
        )
    if kind == "positive":
        return draw(hnp.arrays(np.float64, n, elements=st.floats(0.01, 10)))
    if kind == "special":
        values = st.one_of(
            st.floats(0.01, 10),
            st.sampled_from([0.0, -1.0, math.nan, math.inf, 1e308, 1e-308, 5e-324]),
        )
        return draw(hnp.arrays(np.float64, n, elements=values))
    if kind == "all_zero":
        return np.zeros(n)
    if kind == "all_huge":
        return np.full(n, draw(st.sampled_from([1e308, 1.7976931348623157e308, 1e300, 1e200])))
    if kind == "tiny":
        return np.full(n, draw(st.sampled_from([1e-308, 5e-324, 1e-300])))
    if kind == "wrong_length":
        return np.ones(draw(st.sampled_from([0, n + 1, max(n - 1, 0)]).filter(lambda m: m != n)))
    if kind == "2d":
        return np.ones((n, 1))
    if kind == "strings":
        return np.array(["1"] * n)
    if kind == "list":
        return [1.0] * n
    return draw(hnp.arrays(draw(st.sampled_from(["int8", "uint64", "int64"])), n))


def tasks_for(n, T):
    """Task codes 0..T-1 for n rows, each task with >= 2 rows when n allows."""
    T = max(1, min(T, n // 2))
    return np.arange(n) % T


def classes_for(task):
    """Binary labels with both classes inside every task of ``task``."""
    task = np.asarray(task)
    out = np.zeros(len(task), dtype=np.int64)
    for t in np.unique(task):
        rows = np.flatnonzero(task == t)
        out[rows] = np.arange(len(rows)) % 2
    return out


@st.composite
def task_labels(draw, n):
    kind = draw(
        st.sampled_from(
            [
                "ints",
                "ints",
                "strings",
                "mixed",
                "nan",
                "one_row_task",
                "bools",
                "floats",
                "uint64",
                "none",
                "wrong_length",
                "2d",
                "scalar",
                "object",
                "list",
            ]
        )
    )
    T = draw(st.integers(1, 4))
    codes = tasks_for(n, T)
    if kind == "ints":
        labels = draw(
            st.lists(st.integers(-(2**63), 2**63 - 1), min_size=4, max_size=4, unique=True)
        )
        return np.asarray(labels)[codes]
    if kind == "strings":
        return np.array(["t0", "t1", "é", ""])[codes]
    if kind == "mixed":
        return np.array([1, "a", 2.5, None], dtype=object)[codes]
    if kind == "nan":
        t = codes.astype(np.float64)
        if n:
            t[-1] = np.nan
        return t
    if kind == "one_row_task":
        t = codes.copy()
        if n:
            t[-1] = 99
        return t
    if kind == "bools":
        return (codes % 2).astype(bool)
    if kind == "floats":
        return codes * 0.5
    if kind == "uint64":
        return np.uint64(2**64 - 1) - codes.astype(np.uint64)
    if kind == "none":
        return None
    if kind == "wrong_length":
        return np.arange(n + 1) % 2
    if kind == "2d":
        return codes[:, None]
    if kind == "scalar":
        return 0
    if kind == "object":
        objs = [object(), object()]
        return np.array([objs[c % 2] for c in codes], dtype=object)
    return codes.tolist()
