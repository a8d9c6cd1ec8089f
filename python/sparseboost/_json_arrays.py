"""Arrays read back from a model file's JSON lists in their saved dtype.

A model file is untrusted input: a declared dtype that cannot hold the
listed values (``"<U1"`` for ``["no", "yes"]``, ``"<i8"`` for ``[0.5]``,
``"|b1"`` for ``[0, 7]``) would turn them into other values without a word,
and the model would answer in labels or categories it was never fitted on.
"""

from __future__ import annotations

import math

import numpy as np


def exact_array(values: list, dtype: np.dtype | None) -> np.ndarray:
    """``values`` as a 1-d array of ``dtype``; ``ValueError`` unless every
    value comes back as it was written (same value, same Python type) and
    is finite."""
    try:
        array = np.asarray(values, dtype=dtype)
    except (TypeError, ValueError, OverflowError) as e:
        raise ValueError(f"cannot be read as {dtype}: {e}") from None
    if array.ndim != 1:
        raise ValueError(f"must be a flat list, got {values!r}")
    back = array.tolist()
    if any(isinstance(v, float) and not math.isfinite(v) for v in back):
        raise ValueError("must not hold NaN or infinity")
    if back != values or [type(v) for v in back] != [type(v) for v in values]:
        raise ValueError(f"do not survive dtype {array.dtype.str}: {values!r} became {back!r}")
    return array
