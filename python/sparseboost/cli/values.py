"""What a table cell means, whatever type pandas or Parquet stored it as.

pandas guesses a column's dtype from the cells of one file: a column of
category codes ``1, 2, x`` is read as strings, but the same column in a
file whose cells are ``1, 2, <empty>`` is read as floats (``2.0``);
Parquet keeps ``decimal128`` columns, and pandas keeps integers beyond 64
bits from a CSV, as Python objects. The command line decides what a column
is once, from the training file, and then reads every file's cells through
the two functions here, so that the same text means the same thing in every
file:

- ``numbers``: a numeric column's cells as float64. Numbers of any storage
  (ints, floats, ``Decimal``, big integers, bools as 1/0) and strings that
  spell a number are accepted; anything else is reported.
- ``category_keys``: a categorical column's cells as strings, with every
  value that is a number written in one canonical form, so ``1``, ``'1'``,
  ``1.0`` and ``'1.0'`` are one category (``'1'``) and ``2.5`` and ``'2.5'``
  another (``'2.5'``): an integer, in any storage or as text, is its
  digits, another number its float64 ``repr``. Other strings are kept as
  they are.

Both work on the distinct values of a column (``pandas.factorize``), so a
column of a million rows costs one pass plus a Python call per distinct
value.
"""

from __future__ import annotations

import decimal
import math
import numbers as _numbers
import re

import numpy as np

# A decimal number as text: what a CSV cell holding a number looks like.
_NUMBER = re.compile(r"^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$")
_INFINITY = re.compile(r"^\s*([+-]?)(inf|infinity)\s*$", re.IGNORECASE)
# Integers of at most this size are exact in float64.
_EXACT_INT = 2**53


def _distinct(values):
    """(codes, distinct values, missing mask) of a pandas Series; codes
    index the distinct values, -1 where the cell is missing."""
    import pandas as pd

    codes, uniques = pd.factorize(values, use_na_sentinel=True)
    return codes, list(np.asarray(uniques, dtype=object)), codes < 0


def _as_number(value):
    """``(float, exact)`` of a cell that holds a number (exact: float64
    keeps it), None for one that does not."""
    if isinstance(value, (bool, np.bool_)):
        return float(value), True
    if isinstance(value, _numbers.Integral):
        value = int(value)
        try:
            as_float = float(value)
        except OverflowError:
            return math.copysign(math.inf, value), False
        return as_float, abs(value) <= _EXACT_INT or int(as_float) == value
    if isinstance(value, decimal.Decimal):
        if value.is_nan():
            return None
        return _from_decimal(value)
    if isinstance(value, _numbers.Real):
        return float(value), True
    if isinstance(value, str):
        if _NUMBER.match(value):
            # Through Decimal, to tell whether float64 rounds the text.
            return _from_decimal(decimal.Decimal(value.strip()))
        infinity = _INFINITY.match(value)
        if infinity:
            return (-math.inf if infinity.group(1) == "-" else math.inf), True
        if value.strip().lower() in ("true", "false"):
            return float(value.strip().lower() == "true"), True
    return None


def _from_decimal(value: decimal.Decimal):
    """``(float, exact)``: exact when the float's shortest text is the same
    number (1.10 is 1.1; 12345678901234567891 is not 12345678901234567000)."""
    as_float = float(value)
    return as_float, not math.isfinite(as_float) or decimal.Decimal(repr(as_float)) == value


def looks_numeric(values) -> bool:
    """Whether every present cell of an object (or string) column is a
    number of some storage or text that spells one, and one is present."""
    _, uniques, _ = _distinct(values)
    return bool(uniques) and all(_as_number(v) is not None for v in uniques)


def numbers(values):
    """A numeric column's cells as float64 (NaN where missing), the first
    cell that is not a number (None if all are) and the first number that
    float64 rounds (None if none)."""
    codes, uniques, missing = _distinct(values)
    converted = [_as_number(v) for v in uniques]
    bad = next((v for v, c in zip(uniques, converted) if c is None), None)
    rounded = next((v for v, c in zip(uniques, converted) if c is not None and not c[1]), None)
    table = np.array([np.nan if c is None else c[0] for c in converted] + [np.nan])
    return table[codes], bad, rounded


def _key(value) -> str:
    """A category's canonical text: an integer (in any storage, or as text)
    by its digits, another number by its float64 ``repr``, anything else
    as ``str`` gives it."""
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, str):
        if _NUMBER.match(value):
            return _decimal_key(decimal.Decimal(value.strip()))
        infinity = _INFINITY.match(value)
        if infinity:
            return f"{infinity.group(1) if infinity.group(1) == '-' else ''}inf"
        return value
    if isinstance(value, _numbers.Integral):
        return str(int(value))
    if isinstance(value, decimal.Decimal):
        return _decimal_key(value)
    if isinstance(value, _numbers.Real):
        as_float = float(value)
        return str(int(as_float)) if as_float.is_integer() else repr(as_float)
    return str(value)


def _decimal_key(value: decimal.Decimal) -> str:
    if value.is_finite() and value == value.to_integral_value():
        return str(int(value))
    return repr(float(value))


def category_key(value) -> str:
    """The canonical text of one category value (a model file's, say)."""
    return _key(value)


def category_keys(values) -> np.ndarray:
    """A categorical column's cells as an object array of canonical
    strings, None where missing."""
    codes, uniques, missing = _distinct(values)
    table = np.array([_key(v) for v in uniques] + [None], dtype=object)
    return table[codes]
