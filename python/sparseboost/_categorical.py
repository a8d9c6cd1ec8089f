"""Categorical columns: which columns of X are categorical
(``categorical_features``) and the codes their values become.

The engine splits a categorical feature by sets of integer codes (see the
Rust ``categorical`` module). Here each categorical column's values become
codes ordered by frequency in the training rows, most frequent first (ties
by value), and the rarest categories beyond ``max_bins - 1`` share the
last code. Missing values (None, NaN, pandas' NA) and, at prediction time,
categories not seen in training become NaN: the engine sends both to the
right child of every categorical split.

A column's categories may be strings, integers, floats or bools, but of
one kind.
"""

from __future__ import annotations

import numbers
import warnings

import numpy as np
import scipy.sparse as sp

from ._json_arrays import exact_array

SPEC_HELP = (
    '"from_dtype" (pandas category, string, object and bool columns), None, indices, '
    "feature names or a boolean mask"
)


def _is_dataframe(X) -> bool:
    return hasattr(X, "dtypes") and hasattr(X, "columns") and hasattr(X, "iloc")


def resolve(spec, X) -> list:
    """The indices (ascending) of the columns of ``X`` that ``spec`` makes
    categorical."""
    n_features = X.shape[1] if getattr(X, "ndim", 2) == 2 else 0
    if spec is None:
        return []
    if isinstance(spec, str):
        if spec != "from_dtype":
            raise ValueError(f"categorical_features must be {SPEC_HELP}, got {spec!r}")
        if not _is_dataframe(X):
            return []
        import pandas as pd

        return [
            j
            for j, dtype in enumerate(X.dtypes)
            if isinstance(dtype, pd.CategoricalDtype)
            or pd.api.types.is_bool_dtype(dtype)
            or pd.api.types.is_string_dtype(dtype)
            or dtype == object
        ]
    values = np.asarray(spec)
    if values.ndim != 1:
        raise ValueError(f"categorical_features must be {SPEC_HELP}, got {spec!r}")
    if values.dtype == bool:
        if values.shape[0] != n_features:
            raise ValueError(
                f"categorical_features is a mask of {values.shape[0]} entries, but X has "
                f"{n_features} features"
            )
        return [int(j) for j in np.flatnonzero(values)]
    if values.size == 0:
        return []
    if values.dtype.kind in "US" or values.dtype == object:
        names = list(map(str, X.columns)) if _is_dataframe(X) else None
        indices = []
        for name in values.tolist():
            if not isinstance(name, str):
                raise TypeError(
                    f"categorical_features must hold all names or all indices, got {name!r}"
                )
            if names is None or name not in names:
                raise ValueError(
                    f"categorical_features names {name!r}, which is not a column of X"
                    + ("" if names is not None else " (X has no column names)")
                )
            indices.append(names.index(name))
    elif values.dtype.kind in "iu":
        indices = [int(j) for j in values]
        bad = [j for j in indices if not 0 <= j < n_features]
        if bad:
            raise ValueError(
                f"categorical_features has indices {bad} out of range for {n_features} features"
            )
    else:
        raise TypeError(f"categorical_features must be {SPEC_HELP}, got {spec!r}")
    if len(set(indices)) != len(indices):
        raise ValueError(f"categorical_features lists a feature twice: {spec!r}")
    return sorted(indices)


def _missing(values: np.ndarray) -> np.ndarray:
    """Where an object or numeric column holds None, NaN or pandas' NA."""
    if values.dtype.kind == "f":
        return np.isnan(values)
    if values.dtype != object:
        return np.zeros(values.shape, dtype=bool)
    out = np.zeros(values.shape, dtype=bool)
    for i, v in enumerate(values):
        out[i] = v is None or (isinstance(v, float) and v != v) or type(v).__name__ == "NAType"
    return out


def _kind(value) -> str:
    if isinstance(value, (bool, np.bool_)):
        return "bool"
    if isinstance(value, numbers.Number):
        return "number"
    if isinstance(value, str):
        return "string"
    return type(value).__name__


class Categories:
    """The codes of one categorical column: ``values`` are its training
    categories by descending frequency; value ``i`` has code
    ``min(i, n_codes - 1)``."""

    def __init__(self, values: np.ndarray, n_codes: int):
        self.values = values
        self.n_codes = n_codes

    @classmethod
    def fit(cls, column: np.ndarray, max_codes: int, name: str) -> Categories:
        pd = _pandas()
        if pd is not None:  # hashing: much faster than sorting strings
            series = pd.Series(column)
            counts = series[~series.isna()].value_counts(sort=False)
            uniques, counts = counts.index.to_numpy(), counts.to_numpy()
        else:
            uniques, counts = np.unique(column[~_missing(column)], return_counts=True)
        kinds = sorted({_kind(v) for v in uniques}) if uniques.dtype == object else []
        if len(kinds) > 1:
            raise TypeError(
                f"categorical column {name} holds values of several kinds ({', '.join(kinds)}); "
                "its categories must be all strings or all numbers"
            )
        odd = uniques.dtype.kind not in "biufUSO" or any(
            k not in ("bool", "number", "string") for k in kinds
        )
        if odd:
            # Dates, timedeltas and other objects: a model file could not
            # hold them (Categories.to_json), so they are refused here.
            kind = kinds[0] if kinds else str(uniques.dtype)
            raise TypeError(
                f"categorical column {name} holds values of kind {kind}; its categories "
                "must be strings, numbers or bools (turn dates into numbers or strings first)"
            )
        if uniques.dtype == object and kinds == ["number"]:
            uniques = _numbers_exactly(uniques, name)
        if uniques.dtype.kind == "f" and not np.isfinite(uniques).all():
            # As infinity anywhere else in X (and a model file holds finite
            # categories only).
            raise ValueError(
                f"categorical column {name} holds an infinite value; its categories must be "
                "finite numbers, strings or bools"
            )
        by_value = np.argsort(uniques, kind="stable")
        uniques, counts = uniques[by_value], counts[by_value]
        # By descending count, ties by value.
        values = uniques[np.argsort(-counts, kind="stable")]
        return cls(values, max(1, min(len(values), max_codes)))

    def codes(self, column: np.ndarray) -> np.ndarray:
        """The code of each value (NaN: missing, or not a training category)."""
        pd = _pandas()
        if column.dtype == object and self.values.dtype.kind in "iuf":
            position = self._number_positions(column)
        elif pd is not None:
            position = pd.Index(self.values).get_indexer(column)
        else:
            position = self._positions(column)
        out = np.minimum(position, self.n_codes - 1).astype(np.float64)
        out[position < 0] = np.nan
        return out

    def warn_if_another_kind(self, column: np.ndarray, name: str) -> None:
        """Warn when ``column``, none of whose values is a training
        category, holds values of another kind (strings for numbers, say):
        every row would go the way of unseen categories, which is more
        likely a change of type than new categories."""
        present = column[~_missing(column)]
        if present.size == 0 or self.values.size == 0:
            return
        example = self.values[0]
        example = example.item() if hasattr(example, "item") else example
        seen, given = _kind(example), _kind(present[0])
        if seen != given:
            # (Not for unseen values of the categories' kind: new categories
            # are expected, and go right as documented.)
            warnings.warn(
                f"{name} holds {given} values, but its categories in fit were {seen} values "
                f"(such as {example!r}); none matches, so every row goes the way of "
                "unseen categories. Pass the values as in fit.",
                UserWarning,
                stacklevel=2,
            )

    def _number_positions(self, column: np.ndarray) -> np.ndarray:
        """Each number's index in the numeric ``values`` (-1: missing,
        unseen, or no number), compared as Python numbers: exact for
        integers beyond 2**53, which float64 would merge, and 5.0 is 5."""
        index = {v: i for i, v in enumerate(self.values.tolist())}
        # Float categories were made from the training values by float()
        # (_numbers_exactly): a Decimal or Fraction is looked up the same
        # way (Decimal("0.1") is not the float 0.1), as is an integer among
        # fractions. Integer categories compare exactly.
        key = float if self.values.dtype.kind == "f" else (lambda v: v)
        return np.array(
            [
                index.get(key(v), -1)
                if isinstance(v, numbers.Number) and not isinstance(v, bool) and v == v
                else -1
                for v in column.tolist()
            ],
            dtype=np.int64,
        )

    def _positions(self, column: np.ndarray) -> np.ndarray:
        """Each value's index in ``values`` (-1: missing or unseen), by
        sorting (without pandas)."""
        index = {v: i for i, v in enumerate(self.values.tolist())}
        missing = _missing(column)
        return np.array(
            [-1 if m else index.get(v, -1) for v, m in zip(column.tolist(), missing)],
            dtype=np.int64,
        )

    def to_json(self) -> dict:
        values = self.values
        return {"values": values.tolist(), "dtype": values.dtype.str, "n_codes": self.n_codes}

    @classmethod
    def from_json(cls, data) -> Categories:
        dtype = np.dtype(data["dtype"])
        if dtype.kind not in "biufUO":
            raise ValueError(f"a categorical column's values cannot have dtype {dtype}")
        if not isinstance(data["values"], list):
            raise ValueError("a categorical column's values must be a list")
        try:
            values = exact_array(data["values"], dtype)
        except ValueError as e:
            raise ValueError(f"a categorical column's values {e}") from None
        n_codes = data["n_codes"]
        if not isinstance(n_codes, int) or isinstance(n_codes, bool):
            raise TypeError(
                f"a categorical column's n_codes has the wrong type "
                f"({type(n_codes).__name__}: {n_codes!r}); it must be an integer"
            )
        if values.ndim != 1 or not 1 <= n_codes <= max(1, len(values)):
            raise ValueError("a categorical column's values and n_codes do not agree")
        if len(set(values.tolist())) != len(values):
            raise ValueError("a categorical column's values must be distinct")
        return cls(values, n_codes)


def _pandas():
    try:
        import pandas
    except ImportError:  # an optional dependency
        return None
    return pandas


def _numbers_exactly(uniques: np.ndarray, name: str) -> np.ndarray:
    """Distinct numbers held as objects, in a numeric dtype that keeps them
    distinct: int64 or uint64 for integers (64-bit IDs exceed float64's
    2**53), else float64. Numbers that float64 would merge are an error."""
    if all(isinstance(v, numbers.Integral) for v in uniques):
        for dtype in (np.int64, np.uint64):
            try:
                return np.array([int(v) for v in uniques], dtype=dtype)
            except OverflowError:
                continue
    as_float = uniques.astype(np.float64)
    if len(np.unique(as_float)) != len(as_float):
        raise ValueError(
            f"categorical column {name} holds numbers that float64 cannot tell apart "
            "(integers beyond 64 bits, or mixed with fractions beyond 2**53); "
            "pass its categories as strings"
        )
    return as_float


class Encoding:
    """The categorical columns of X (``features``, ascending) and their
    categories."""

    def __init__(self, features: list, categories: list):
        self.features = list(features)
        self.categories = list(categories)

    @classmethod
    def fit(cls, spec, X, category_cap) -> Encoding:
        """``category_cap()`` gives ``max_bins``; it is asked only when there
        is a categorical column, so that a bad ``max_bins`` on numeric data is
        left to the engine's check."""
        features = resolve(spec, X)
        if features and sp.issparse(X):
            raise ValueError(
                "categorical_features: a sparse X has numeric columns only; pass a dense "
                "array or a DataFrame"
            )
        names = list(map(str, X.columns)) if _is_dataframe(X) else None
        max_bins = category_cap() if features else 0
        categories = [
            Categories.fit(_column(X, j), max_bins, repr(names[j]) if names else str(j))
            for j in features
        ]
        return cls(features, categories)

    def encode(self, X):
        """``X`` with every categorical column replaced by its codes (a
        float64 DataFrame for a DataFrame, else a float64 array)."""
        if not self.features or X.shape[1] <= self.features[-1]:
            return X  # (too few columns: the checks that follow say so)
        if sp.issparse(X):
            raise ValueError("X is sparse, but the model has categorical features")
        codes = {}
        for j, cats in zip(self.features, self.categories):
            column = _column(X, j)
            codes[j] = cats.codes(column)
            if np.isnan(codes[j]).all():
                name = repr(X.columns[j]) if _is_dataframe(X) else str(j)
                cats.warn_if_another_kind(column, f"categorical column {name} of X")
        if _is_dataframe(X):
            X = X.copy()
            for j, c in codes.items():
                X.isetitem(j, c)
            return X
        X = np.asarray(X)
        if X.ndim != 2:
            return X
        numeric = [j for j in range(X.shape[1]) if j not in codes]
        out = np.empty(X.shape, dtype=np.float64)
        if numeric:
            from ._validation import converting

            with converting("X"):
                out[:, numeric] = X[:, numeric].astype(np.float64)
        for j, c in codes.items():
            out[:, j] = c
        return out

    def to_json(self):
        return {"features": self.features, "categories": [c.to_json() for c in self.categories]}

    @classmethod
    def from_json(cls, data) -> Encoding:
        features = [int(j) for j in data["features"]]
        categories = [Categories.from_json(c) for c in data["categories"]]
        if len(features) != len(categories) or features != sorted(set(features)):
            raise ValueError("categorical features and their categories do not agree")
        return cls(features, categories)


def _column(X, j) -> np.ndarray:
    if _is_dataframe(X):
        column = X.iloc[:, j]
        dtype = column.dtype
        import pandas as pd

        # A category dtype, and pandas' nullable and Arrow dtypes, as Python
        # objects: their to_numpy() would make an Int64 column with NA
        # float64, merging 64-bit IDs beyond 2**53.
        if isinstance(dtype, pd.CategoricalDtype) or not isinstance(dtype, np.dtype):
            column = column.astype(object)
        values = column.to_numpy(dtype=object) if column.dtype == object else column.to_numpy()
        if values.dtype != object and values.dtype.kind not in "biuf":
            values = values.astype(object)
        return values
    return np.asarray(X)[:, j]
