"""How the command line turns a user's table into the numbers the engine
takes, and back into the user's column names.

Numeric (and bool) columns pass through as float64, missing values as NaN
(the engine gives NaN a bin of its own). So do columns that pandas holds as
Python objects although every cell is a number (Parquet ``decimal128``, CSV
integers beyond 64 bits, numbers stored as text); a note says when float64
rounds some of them. A string or categorical column (or one named by
``--categorical``) becomes one native categorical feature: its cells become
the index of their category among those seen in training, which the
estimators split by sets of categories (``categorical_features``). A missing
string is a category of its own (``<missing>``) when training had one; a
category that training never saw (or a missing string when training had
none) becomes NaN, which every categorical split sends right. A date column
(dates, or strings that spell dates) becomes four numbers: year, month, day
and weekday, which share a feature bag, so the selection penalty is paid
once per date column.

Columns that cannot help are left out, with a note: a string column holding
a different value in every row (an identifier) and a column with one value
(or none). ``--drop`` leaves out more.

Model files written before categories were native hold one 0/1 indicator
per category (``native_categories`` absent): they still load and predict.

Whether a column is numeric or categorical is decided once, on the training
file, and stored; every later file's cells are read as that kind, whatever
dtype pandas guessed for them (see ``values``): category values that are
numbers match as numbers, so ``1``, ``'1'`` and ``1.0`` are one category.

Matrices that arrive already numeric (svmlight, ``.npz``) are not encoded at
all, so a sparse matrix stays sparse.

The encoding travels inside ``model.json`` under ``input_encoding`` (see
``to_dict``), so ``sparseboost predict`` can encode new rows the same way.
A model file is untrusted input: ``from_dict`` checks every field and raises
``ValueError`` naming it.
"""

from __future__ import annotations

import datetime
import numbers
import re
import warnings
from dataclasses import dataclass, field

import numpy as np

from . import values as cells

MISSING = "<missing>"
TASKS = ("regression", "classification", "ranking")
# What a date column becomes.
DATE_PARTS = ("year", "month", "day", "weekday")
# A string column is an identifier (a different value in every row) only
# from this many rows on: a few rows may well all differ by chance.
MIN_ROWS_FOR_IDENTIFIER = 20
# A text column of which this share of cells are numbers gets a note.
MOSTLY_NUMBERS = 0.8
# A text column of which this share of the present cells spell dates is a
# date column: the others ("?", "-", "unknown") are missing dates, counted.
MOSTLY_DATES = 0.9
# A number with thousands separators, a currency sign or a percent sign.
_NUMBER_WITH_UNITS = r"^\s*[-+]?[$€£¥]?\s*(\d+|\d{1,3}(,\d{3})+)(\.\d*)?([eE][-+]?\d+)?\s*%?\s*$"
# Strings that spell dates: 2024-01-31, 31/01/2024, 1/31/24, 31.01.2024,
# with an optional time. Dotted dates need a four-digit year: 2.3.14 is a
# version far more often than a date.
_DATE = (
    r"^\s*(\d{4}[-/.]\d{1,2}[-/.]\d{1,2}|\d{1,2}[-/]\d{1,2}[-/]\d{2,4}|\d{1,2}\.\d{1,2}\.\d{4})"
    r"([ T]\S*)?\s*$"
)
# A time's zone offset (Z, +01:00, -0500, or +01 as PostgreSQL writes
# it), after the time it follows.
_OFFSET = r"(\d:\d\d(?::\d\d(?:\.\d+)?)?)\s*(?:Z|[+-]\d\d(?::?\d\d)?)\s*$"
# A date whose year comes last: its first two numbers, and the separator.
_YEAR_LAST = r"^\s*(\d{1,2})([/.-])(\d{1,2})[/.-]\d{2,4}"


@dataclass
class Column:
    name: str
    categories: list | None = None  # None: numeric (or a date)
    date: bool = False
    # A date column whose dates with the year last put the day first
    # (31/01/2024), decided once on the training file.
    day_first: bool = False

    def width(self, native: bool) -> int:
        """Encoded columns: one, a date's four parts, or (files written
        before categories were native) one indicator per category."""
        if self.date:
            return len(DATE_PARTS)
        return 1 if self.categories is None or native else len(self.categories)


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
    # svmlight training files: whether their column indices started at 0
    # (a file with no index 0 is one-based). New files are read the same
    # way: a zero-based file whose rows lack feature 0 must not shift.
    svmlight_zero_based: bool | None = None
    # Categorical columns are native (one code column each); False in
    # files written before, whose categories are one indicator each.
    native: bool = True
    # What reading the training file changed, for the user (not saved).
    notes: list = field(default_factory=list, compare=False, repr=False)

    # -- layout ---------------------------------------------------------

    @property
    def n_encoded(self) -> int:
        if self.columns is None:
            return len(self.feature_names)
        return sum(c.width(self.native) for c in self.columns)

    def origins(self) -> list:
        """The original column name of every encoded column."""
        if self.columns is None:
            return list(self.feature_names)
        return [c.name for c in self.columns for _ in range(c.width(self.native))]

    def encoded_names(self) -> list:
        """A name for every encoded column: the column's name, a date's
        ``column.part``, or ``column=category`` for an indicator."""
        if self.columns is None:
            return list(self.feature_names)
        names = []
        for c in self.columns:
            if c.date:
                names.extend(f"{c.name}.{part}" for part in DATE_PARTS)
            elif c.categories is None or self.native:
                names.append(c.name)
            else:
                names.extend(f"{c.name}={v}" for v in c.categories)
        return names

    def bags(self) -> np.ndarray | None:
        """The bag of every encoded column, the index of its original column
        (so one original column is one bag), or None when every original
        column is one encoded column."""
        if self.columns is None:
            return None
        widths = [c.width(self.native) for c in self.columns]
        if all(w == 1 for w in widths):
            return None
        return np.repeat(np.arange(len(self.columns)), widths)

    def categorical_indices(self) -> list:
        """The encoded columns that are native categorical features."""
        if self.columns is None or not self.native:
            return []
        starts = np.cumsum([0] + [c.width(True) for c in self.columns])
        return [
            int(starts[i])
            for i, c in enumerate(self.columns)
            if c.categories is not None and not c.date
        ]

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
    def fit(cls, frame, *, task, target, group, categorical=(), drop=()):
        """The encoding of a pandas DataFrame of feature columns:
        ``categorical`` names columns to read as categories whatever their
        cells, ``drop`` columns to leave out. Notes on what the reading
        changed (columns left out, numbers that float64 rounds) are in
        ``notes``."""
        import pandas as pd

        columns, notes = [], []
        for name in frame.columns:
            if name in drop:
                continue
            values = frame[name]
            dtype = values.dtype
            if pd.api.types.is_complex_dtype(dtype):
                raise ValueError(f"column {name!r} holds complex numbers")
            if pd.api.types.is_timedelta64_dtype(dtype):
                raise ValueError(
                    f"column {name!r} holds time spans; convert it to numbers or drop it"
                )
            try:
                distinct = values.nunique(dropna=False)
            except TypeError:  # unhashable cells: Parquet lists, structs, maps
                raise ValueError(
                    f"column {name!r} holds nested values (lists or records); flatten it "
                    "into columns of numbers or text, or drop it (--drop)"
                ) from None
            if distinct <= 1:
                notes.append(f"column {name!r} holds one value (or none); left out")
                continue
            if name not in categorical and _is_date(values):
                day_first = _day_first(values)
                columns.append(Column(str(name), date=True, day_first=day_first))
                order = " (day first)" if day_first else ""
                notes.append(
                    f"column {name!r} holds dates{order}; read as its {', '.join(DATE_PARTS)}"
                )
                parts = _date_parts(values, day_first)
                lost = int((values.notna().to_numpy() & np.isnan(parts[:, 0])).sum())
                if lost:
                    notes.append(
                        f"column {name!r}: {lost} of its {int(values.notna().sum())} cells "
                        "spell no date ('?' or a 31st of February, say) and are read as missing"
                    )
                continue
            categorical_dtype = isinstance(dtype, pd.CategoricalDtype)
            numeric = name not in categorical and (
                pd.api.types.is_bool_dtype(dtype)
                or (pd.api.types.is_numeric_dtype(dtype) and not categorical_dtype)
            )
            if not numeric and not categorical_dtype and name not in categorical:
                if cells.looks_numeric(values):
                    numeric = True  # numbers that pandas holds as objects
                    _, _, rounded = cells.numbers(values)
                    if rounded is not None:
                        notes.append(
                            f"column {name!r} holds numbers stored as "
                            f"{type(rounded).__name__}; they are read as float64, which "
                            f"rounds some ({rounded} becomes {float(rounded)!r})"
                        )
            if numeric:
                columns.append(Column(str(name)))
                continue
            keys = cells.category_keys(values)
            present_keys = keys[keys != None]  # noqa: E711 (elementwise)
            present = sorted(set(present_keys))
            if MISSING in present:
                raise ValueError(
                    f"column {name!r} holds the value {MISSING!r}, which names missing cells "
                    "in the model file; rename that value (or leave those cells empty)"
                )
            if name not in categorical and not categorical_dtype:
                notes.extend(_mostly_numbers(name, values, len(present)))
            unique_per_row = len(present) == len(present_keys) >= MIN_ROWS_FOR_IDENTIFIER
            if unique_per_row and name not in categorical:
                notes.append(
                    f"column {name!r} holds a different value in every row (an identifier); "
                    "left out"
                )
                continue
            if (keys == None).any():  # noqa: E711
                present.append(MISSING)
            columns.append(Column(str(name), present))
        if not columns:
            raise ValueError("no feature column is left (every one was dropped or left out)")
        return cls(task=task, target=target, group=group, columns=columns, notes=notes)

    def transform(self, frame, *, argument="DATA") -> np.ndarray:
        """The encoded float64 matrix of ``frame`` (which must hold every
        column the encoding names; others are ignored)."""
        missing = [c.name for c in self.columns if c.name not in frame.columns]
        if missing:
            raise ValueError(f"{argument} lacks the model's column(s) {missing[:5]}")
        parts = []
        for c in self.columns:
            values = frame[c.name]
            if c.date:
                bad = _not_a_date(values)
                if bad is not None:
                    raise ValueError(
                        f"{argument}: column {c.name!r} held dates in training, got {bad!r} "
                        "(write dates such as 2024-01-31, or leave the cell empty)"
                    )
                parts.append(_date_parts(values, c.day_first))
            elif c.categories is not None and self.native:
                keys = cells.category_keys(values)
                keys[keys == None] = MISSING  # noqa: E711
                index = {v: float(k) for k, v in enumerate(c.categories)}
                codes = np.fromiter((index.get(s, np.nan) for s in keys), np.float64, len(keys))
                parts.append(codes.reshape(-1, 1))
            elif c.categories is None:
                numbers, bad, _ = cells.numbers(values)
                if bad is not None:
                    raise ValueError(f"{argument}: column {c.name!r} must be numeric, got {bad!r}")
                infinite = np.flatnonzero(np.isinf(numbers))
                if infinite.size:
                    raise ValueError(
                        f"{argument}: column {c.name!r} holds {infinite.size} infinite "
                        f"value(s), the first in row {_file_row(values, infinite[0])} (from 1, "
                        "the header not "
                        "counted); the boosters take finite numbers and missing cells: replace "
                        "them, say by an empty cell, or drop the column"
                    )
                parts.append(numbers.reshape(-1, 1))
            else:
                keys = cells.category_keys(values)
                keys[keys == None] = MISSING  # noqa: E711
                index = {v: k for k, v in enumerate(c.categories)}
                codes = np.fromiter((index.get(s, -1) for s in keys), np.intp, len(keys))
                block = np.zeros((len(keys), len(c.categories)))
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
            else [
                {
                    "name": c.name,
                    "categories": c.categories,
                    **({"date": True} if c.date else {}),
                    **({"day_first": True} if c.day_first else {}),
                }
                for c in self.columns
            ],
            "native_categories": self.native,
            "feature_names": self.feature_names,
            "model_columns": self.model_columns,
            "svmlight_zero_based": self.svmlight_zero_based,
        }

    @classmethod
    def from_dict(cls, value, estimator) -> Encoding:
        """Read the field back, checking it against ``estimator``, the saved
        model: its class must be the task's booster, and it must take the
        columns the encoding gives."""
        from .methods import booster_class

        n_model_features = int(estimator.n_features_in_)

        def fail(key, message):
            raise ValueError(f"input_encoding.{key} {message}")

        if not isinstance(value, dict):
            raise ValueError("input_encoding must be a JSON object")
        allowed = {
            "task",
            "target",
            "group",
            "columns",
            "feature_names",
            "model_columns",
            "svmlight_zero_based",
            "native_categories",
        }
        unknown = sorted(set(value) - allowed)
        if unknown:
            fail(unknown[0], "is not a known field")
        task = value.get("task")
        if task not in TASKS:
            fail("task", f"must be one of {list(TASKS)}, got {task!r}")
        if type(estimator) is not booster_class(task):
            fail(
                "task",
                f"is {task!r}, which sparseboost select fits with a "
                f"{booster_class(task).__name__}, but the model is a {type(estimator).__name__}",
            )
        for key in ("target", "group"):
            if not isinstance(value.get(key), (str, type(None))):
                fail(key, "must be a string or null")
        columns, names = value.get("columns"), value.get("feature_names")
        if (columns is None) == (names is None):
            fail("columns", "or input_encoding.feature_names must be given (exactly one)")
        zero_based = value.get("svmlight_zero_based")
        if not isinstance(zero_based, (bool, type(None))) or (
            zero_based is not None and names is None
        ):
            fail("svmlight_zero_based", "must be true, false or null (null for tables)")
        if names is not None:
            if (
                not isinstance(names, list)
                or not all(isinstance(n, str) and n for n in names)
                or len(set(names)) != len(names)
            ):
                fail("feature_names", "must be a list of distinct non-empty strings")
            parsed = None
        else:
            if not isinstance(columns, list) or not columns:
                fail("columns", "must be a non-empty list")
            parsed = []
            for i, c in enumerate(columns):
                if not isinstance(c, dict) or not (
                    {"name", "categories"} <= set(c) <= {"name", "categories", "date", "day_first"}
                ):
                    fail(
                        f"columns[{i}]",
                        'must be {"name": ..., "categories": ...[, "date": true'
                        '[, "day_first": true]]}',
                    )
                date = c.get("date", False)
                if date is not True and "date" in c:
                    fail(f"columns[{i}].date", "must be true when given")
                day_first = c.get("day_first", False)
                if "day_first" in c and (day_first is not True or not date):
                    fail(f"columns[{i}].day_first", "must be true when given, for a date column")
                if date and c["categories"] is not None:
                    fail(f"columns[{i}].categories", "must be null for a date column")
                if not isinstance(c["name"], str) or not c["name"]:
                    fail(f"columns[{i}].name", "must be a non-empty string")
                cats = c["categories"]
                if cats is not None:
                    if not isinstance(cats, list) or not cats:
                        fail(f"columns[{i}].categories", "must be null or a non-empty list")
                    if not all(isinstance(v, str) for v in cats):
                        fail(f"columns[{i}].categories", "must be null or distinct strings")
                    # as new cells will be read (files written before
                    # categories were canonical may hold '2.0' for '2')
                    cats = [v if v == MISSING else cells.category_key(v) for v in cats]
                    if len(set(cats)) != len(cats):
                        fail(
                            f"columns[{i}].categories",
                            "must be distinct strings (numbers compared as numbers)",
                        )
                parsed.append(Column(c["name"], cats, date=bool(date), day_first=day_first))
            if len({c.name for c in parsed}) != len(parsed):
                fail("columns", "must name each column once")
        native = value.get("native_categories", False)
        if not isinstance(native, bool):
            fail("native_categories", "must be true or false")
        encoding = cls(task, value.get("target"), value.get("group"), parsed, names, native=native)
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
        encoding.svmlight_zero_based = zero_based
        _check_categorical_columns(encoding, estimator, fail)
        return encoding


def _check_categorical_columns(encoding, estimator, fail) -> None:
    """The model's categorical features must be the encoding's native
    categorical columns, in the model's positions, with every category code
    the model knows (an edited file could otherwise feed codes to a numeric
    split, or numbers to a categorical one, without a word)."""
    encoded = encoding.categorical_indices()
    positions = encoding.model_columns or list(range(encoding.n_encoded))
    expected = [j for j, k in enumerate(positions) if k in set(encoded)]
    model = [int(j) for j in getattr(estimator, "categorical_features_", [])]
    if sorted(model) != expected:
        fail(
            "columns",
            f"give categorical columns at the model's inputs {expected}, but its categorical "
            f"features are {sorted(model)}",
        )
    starts = np.cumsum([0] + [c.width(encoding.native) for c in encoding.columns or []])
    widths = {
        int(starts[i]): len(c.categories)
        for i, c in enumerate(encoding.columns or [])
        if c.categories is not None and not c.date
    }
    for j, values in zip(model, getattr(estimator, "categories_", [])):
        known = np.asarray(values, dtype=np.float64)
        if known.size and known.max() >= widths[positions[j]]:
            fail(
                "columns",
                f"give the model's input {j} {widths[positions[j]]} categories, but the model "
                f"knows code {int(known.max())}",
            )


def _mostly_numbers(name, values, n_categories) -> list:
    """A note when a text column read as categories is mostly numbers: a
    "?" for missing, a thousands separator or a unit makes a numeric column
    categorical, and each number a category that new rows rarely share."""
    import pandas as pd

    numbers, _, _ = cells.numbers(values)
    present = values.notna().to_numpy()
    text = pd.Series(values[present & np.isnan(numbers)], dtype=object).astype(str)
    written = text.str.match(_NUMBER_WITH_UNITS).to_numpy()
    n_numbers = int((present & ~np.isnan(numbers)).sum()) + int(written.sum())
    if n_numbers < MOSTLY_NUMBERS * present.sum():
        return []
    examples = list(dict.fromkeys(text[written]))[:2] + list(dict.fromkeys(text[~written]))[:2]
    shown = ", ".join(repr(v) for v in examples)
    return [
        f"column {name!r} is read as {n_categories} categories, though {n_numbers} of its "
        f"{int(present.sum())} cells look like numbers; cells such as {shown} are no numbers "
        "to the reader: if the column is numeric, leave missing cells empty and write numbers "
        "without separators or units"
    ]


def _is_date(values) -> bool:
    """Dates (datetime64, or Python dates, as pyarrow gives a Parquet DATE
    column), or strings that spell dates (``MOSTLY_DATES`` of the present
    ones: a "?" for a missing date leaves a date column one)."""
    import pandas as pd

    if pd.api.types.is_datetime64_any_dtype(values.dtype):
        return True
    if values.dtype != object and not pd.api.types.is_string_dtype(values.dtype):
        return False
    present = values.dropna()
    if len(present) == 0:
        return False
    if all(isinstance(v, datetime.date) for v in present):
        return True
    if not all(isinstance(v, str) for v in present):
        return False
    return bool(present.str.match(_DATE).mean() >= MOSTLY_DATES)


def _file_row(values, position: int) -> int:
    """The file's row (from 1) of ``values``' cell at ``position``: its
    index, which the reader numbers from 0 and keeps when rows without a
    target are left out."""
    label = values.index[position]
    return int(label) + 1 if isinstance(label, (int, np.integer)) else position + 1


def _not_a_date(values):
    """A present cell of a date column that says the column is written
    otherwise than in training, or None: the first number (20240131, an
    Excel serial: no date column holds numbers), or the first cell when
    none spells a date. (Text among dates that is none, "unknown" or
    2024-02-31, is a missing date, as in training.)"""
    import pandas as pd

    if pd.api.types.is_datetime64_any_dtype(values.dtype):
        return None
    present = values.dropna().tolist()
    dates = 0
    for v in present:
        if isinstance(v, (datetime.date, np.datetime64)):
            dates += 1
        elif isinstance(v, str):
            dates += bool(re.match(_DATE, v))
        elif isinstance(v, (numbers.Number, np.generic)) and not isinstance(v, bool):
            return v
    return present[0] if present and not dates else None


def _naive(value):
    """A Python date or datetime as a datetime without a time zone; text as
    it is (pandas reads it, or makes it missing); anything else (a number
    is no date: pandas would count nanoseconds from 1970) missing."""
    if isinstance(value, datetime.datetime):
        return value.replace(tzinfo=None)
    if isinstance(value, datetime.date):
        return datetime.datetime(value.year, value.month, value.day)
    return value if isinstance(value, str) else None


def _day_first(values) -> bool:
    """Whether a date column's dates with the year last (31/01/2024 or
    01/31/2024) put the day first: yes if more of their first numbers than
    of their second ones exceed 12; where none does (01/02/2024), as their
    separator suggests: dots day first (as in Europe), slashes and dashes
    month first (pandas' default)."""
    if values.dtype != object and not _is_text_dtype(values.dtype):
        return False
    present = values.dropna()
    text = present[present.map(lambda v: isinstance(v, str))]
    parts = text.str.extract(_YEAR_LAST).dropna()
    if parts.empty:
        return False
    day_first = int((parts[0].astype(int) > 12).sum())
    month_first = int((parts[2].astype(int) > 12).sum())
    if day_first or month_first:
        return day_first > month_first
    return bool((parts[1] == ".").mean() > 0.5)


def _is_text_dtype(dtype) -> bool:
    import pandas as pd

    return pd.api.types.is_string_dtype(dtype)


def _date_parts(values, day_first: bool = False) -> np.ndarray:
    """Year, month, day and weekday (Monday 0) of each cell, NaN where it
    is missing or spells no date. A cell's own date as written: a time
    zone offset is ignored (offsets that change with daylight saving
    would otherwise mix time zones), and each cell is parsed on its own
    (a cell with a time beside one without), the day first or not as the
    column's ``day_first`` says where the cell leaves it open."""
    import pandas as pd

    if pd.api.types.is_datetime64_any_dtype(values.dtype):
        dates = pd.to_datetime(values)
    else:
        present = values.notna()
        text = values.astype(object).where(present, None)
        if all(isinstance(v, str) for v in text[present]):
            text = text.str.replace(_OFFSET, r"\1", regex=True)
        else:  # Python dates and datetimes (with or without a zone)
            text = text.map(_naive, na_action="ignore")
        # pandas 2 infers one format from the first cell unless told
        # "mixed"; pandas 1.5 (the floor) parses each cell on its own.
        mixed = {"format": "mixed"} if int(pd.__version__.split(".")[0]) >= 2 else {}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            dates = pd.to_datetime(text, errors="coerce", dayfirst=day_first, **mixed)
    parts = [dates.dt.year, dates.dt.month, dates.dt.day, dates.dt.day_of_week]
    return np.column_stack([p.to_numpy(dtype=np.float64, na_value=np.nan) for p in parts])
