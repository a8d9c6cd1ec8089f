"""How the command line turns a user's table into the numbers the engine
takes, and back into the user's column names.

Numeric (and bool) columns pass through as float64, missing values as NaN
(the engine gives NaN a bin of its own). A string or categorical column
becomes one 0/1 indicator per category seen in training, and all the
indicators of one column share a feature bag: the selection penalty is paid
once per original column, not once per category. A missing string is a
category of its own (``<missing>``) when training had one; a category that
training never saw (or a missing string when training had none) sets no
indicator.

Matrices that arrive already numeric (svmlight, ``.npz``) are not encoded at
all, so a sparse matrix stays sparse.

The encoding travels inside ``model.json`` under ``input_encoding`` (see
``to_dict``), so ``sparseboost predict`` can encode new rows the same way.
A model file is untrusted input: ``from_dict`` checks every field and raises
``ValueError`` naming it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

MISSING = "<missing>"
TASKS = ("regression", "classification", "ranking")
# One-hot encoding a column with more categories than this would mostly
# encode identifiers; asking the user to drop or encode it is clearer.
MAX_CATEGORIES = 1000


@dataclass
class Column:
    name: str
    categories: list | None = None  # None: numeric

    @property
    def width(self) -> int:
        return 1 if self.categories is None else len(self.categories)


@dataclass
class Encoding:
    """The input layout a model was fitted on."""

    task: str
    target: str | None
    group: str | None
    # A table: its feature columns; a matrix: None (see feature_names).
    columns: list | None
    # A matrix: its column names, one per column; a table: None.
    feature_names: list | None = None
    # The encoded columns the model takes, in its order; None: all of them
    # (selectors that are not boosters refit a booster on their columns).
    model_columns: list | None = field(default=None)

    # -- layout ---------------------------------------------------------

    @property
    def n_encoded(self) -> int:
        if self.columns is None:
            return len(self.feature_names)
        return sum(c.width for c in self.columns)

    def origins(self) -> list:
        """The original column name of every encoded column."""
        if self.columns is None:
            return list(self.feature_names)
        return [c.name for c in self.columns for _ in range(c.width)]

    def encoded_names(self) -> list:
        """A name for every encoded column: the column's name, or
        ``column=category`` for an indicator."""
        if self.columns is None:
            return list(self.feature_names)
        names = []
        for c in self.columns:
            if c.categories is None:
                names.append(c.name)
            else:
                names.extend(f"{c.name}={v}" for v in c.categories)
        return names

    def bags(self) -> np.ndarray | None:
        """The bag of every encoded column, the index of its original column
        (so one original column is one bag), or None without indicators."""
        if self.columns is None or all(c.categories is None for c in self.columns):
            return None
        return np.repeat(np.arange(len(self.columns)), [c.width for c in self.columns])

    def original_order(self, encoded_indices) -> list:
        """The original columns of ``encoded_indices`` (entry order), each
        once, at its first appearance."""
        origins = self.origins()
        seen, names = set(), []
        for j in encoded_indices:
            name = origins[int(j)]
            if name not in seen:
                seen.add(name)
                names.append(name)
        return names

    # -- encoding -------------------------------------------------------

    @classmethod
    def fit(cls, frame, *, task, target, group):
        """The encoding of a pandas DataFrame of feature columns."""
        import pandas as pd

        columns = []
        for name in frame.columns:
            values = frame[name]
            if pd.api.types.is_bool_dtype(values) or (
                pd.api.types.is_numeric_dtype(values)
                and not isinstance(values.dtype, pd.CategoricalDtype)
            ):
                if pd.api.types.is_complex_dtype(values):
                    raise ValueError(f"column {name!r} holds complex numbers")
                columns.append(Column(str(name)))
            elif pd.api.types.is_datetime64_any_dtype(values) or pd.api.types.is_timedelta64_dtype(
                values
            ):
                raise ValueError(
                    f"column {name!r} holds dates or times; convert it to numbers or drop it"
                )
            else:
                strings = _as_strings(values)
                present = sorted(set(strings[strings != None]))  # noqa: E711 (elementwise)
                if len(present) > MAX_CATEGORIES:
                    raise ValueError(
                        f"column {name!r} has {len(present)} distinct strings (more than "
                        f"{MAX_CATEGORIES}); drop it or encode it as numbers"
                    )
                if (strings == None).any():  # noqa: E711
                    present.append(MISSING)
                columns.append(Column(str(name), present))
        return cls(task=task, target=target, group=group, columns=columns)

    def transform(self, frame, *, argument="DATA") -> np.ndarray:
        """The encoded float64 matrix of ``frame`` (which must hold every
        column the encoding names; others are ignored)."""
        import pandas as pd

        missing = [c.name for c in self.columns if c.name not in frame.columns]
        if missing:
            raise ValueError(f"{argument} lacks the model's column(s) {missing[:5]}")
        parts = []
        for c in self.columns:
            values = frame[c.name]
            if c.categories is None:
                if values.dtype == object or isinstance(values.dtype, pd.CategoricalDtype):
                    numbers = pd.to_numeric(values.astype(object), errors="coerce")
                    bad = numbers.isna() & values.notna()
                    if bad.any():
                        raise ValueError(
                            f"{argument}: column {c.name!r} must be numeric, got "
                            f"{values[bad].iloc[0]!r}"
                        )
                    values = numbers
                parts.append(values.astype("float64").to_numpy(na_value=np.nan).reshape(-1, 1))
            else:
                strings = _as_strings(values)
                strings[strings == None] = MISSING  # noqa: E711
                index = {v: k for k, v in enumerate(c.categories)}
                codes = np.fromiter((index.get(s, -1) for s in strings), np.intp, len(strings))
                block = np.zeros((len(strings), len(c.categories)))
                seen = codes >= 0
                block[np.flatnonzero(seen), codes[seen]] = 1.0
                parts.append(block)
        return np.hstack(parts) if parts else np.empty((len(frame), 0))

    # -- the model file's field ----------------------------------------

    def to_dict(self) -> dict:
        return {
            "task": self.task,
            "target": self.target,
            "group": self.group,
            "columns": None
            if self.columns is None
            else [{"name": c.name, "categories": c.categories} for c in self.columns],
            "feature_names": self.feature_names,
            "model_columns": self.model_columns,
        }

    @classmethod
    def from_dict(cls, value, n_model_features: int) -> Encoding:
        """Read the field back, checking it; ``n_model_features`` is the
        number of columns the saved model takes."""

        def fail(key, message):
            raise ValueError(f"input_encoding.{key} {message}")

        if not isinstance(value, dict):
            raise ValueError("input_encoding must be a JSON object")
        allowed = {"task", "target", "group", "columns", "feature_names", "model_columns"}
        unknown = sorted(set(value) - allowed)
        if unknown:
            fail(unknown[0], "is not a known field")
        task = value.get("task")
        if task not in TASKS:
            fail("task", f"must be one of {list(TASKS)}, got {task!r}")
        for key in ("target", "group"):
            if not isinstance(value.get(key), (str, type(None))):
                fail(key, "must be a string or null")
        columns, names = value.get("columns"), value.get("feature_names")
        if (columns is None) == (names is None):
            fail("columns", "or input_encoding.feature_names must be given (exactly one)")
        if names is not None:
            if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
                fail("feature_names", "must be a list of strings")
            parsed = None
        else:
            if not isinstance(columns, list) or not columns:
                fail("columns", "must be a non-empty list")
            parsed = []
            for i, c in enumerate(columns):
                if not isinstance(c, dict) or set(c) != {"name", "categories"}:
                    fail(f"columns[{i}]", 'must be {"name": ..., "categories": ...}')
                if not isinstance(c["name"], str):
                    fail(f"columns[{i}].name", "must be a string")
                cats = c["categories"]
                if cats is not None and (
                    not isinstance(cats, list)
                    or not cats
                    or not all(isinstance(v, str) for v in cats)
                    or len(set(cats)) != len(cats)
                ):
                    fail(f"columns[{i}].categories", "must be null or distinct strings")
                parsed.append(Column(c["name"], cats))
            if len({c.name for c in parsed}) != len(parsed):
                fail("columns", "must name each column once")
        encoding = cls(task, value.get("target"), value.get("group"), parsed, names)
        width = encoding.n_encoded
        model_columns = value.get("model_columns")
        if model_columns is None:
            if width != n_model_features:
                fail("columns", f"encode {width} columns but the model takes {n_model_features}")
        else:
            if (
                not isinstance(model_columns, list)
                or not all(isinstance(j, int) and not isinstance(j, bool) for j in model_columns)
                or not all(0 <= j < width for j in model_columns)
                or len(set(model_columns)) != len(model_columns)
            ):
                fail("model_columns", f"must be distinct ints in [0, {width})")
            if len(model_columns) != n_model_features:
                fail(
                    "model_columns",
                    f"has {len(model_columns)} entries but the model takes {n_model_features}",
                )
        encoding.model_columns = model_columns
        return encoding


def _as_strings(values) -> np.ndarray:
    """A column's values as an object array of str, None where missing
    (so 1 and "1" in one column are the same category, as in the CSV)."""
    import pandas as pd

    missing = pd.isna(values).to_numpy()
    out = np.asarray(values.astype(object).astype(str), dtype=object)
    out[missing] = None
    return out
