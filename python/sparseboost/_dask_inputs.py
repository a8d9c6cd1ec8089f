"""How the Dask estimators read their inputs: as the single machine reads
them (the same dtypes refused, a DataFrame's names and nullable columns read
alike), before any of it reaches a worker; and what they compute on the
client (evaluation sets, a task per row) as the single machine's checks
expect it."""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.utils.validation import _check_feature_names, column_or_1d

from ._validation import _as_array, _missing_as_nan, _reject_non_numbers, naming


def _float_array(part):
    # A DataFrame's nullable columns come as objects holding pd.NA, which
    # is missing (NaN), as on one machine.
    part = _missing_as_nan(np.asarray(part))
    if part.dtype not in (np.float32, np.float64):
        try:
            part = part.astype(np.float64)
        except (TypeError, ValueError) as e:
            raise ValueError(f"X must hold numbers: {e}") from None
    return np.ascontiguousarray(part)


def _refuse_categorical(spec, X) -> None:
    """Categorical columns are not distributed yet: say so, naming the
    parameter, rather than failing on strings in the workers. A dask
    DataFrame's other columns must be numbers, as on one machine: dates
    and time spans never are, and with ``categorical_features=None``
    neither are strings nor pandas categories (its message, by column)."""
    import dask.dataframe as dd

    explicit = spec is not None and not (isinstance(spec, str) and spec == "from_dtype")
    # A mask chooses with True; indices or names by being there (index 0 too).
    values = np.asarray(spec) if explicit else np.zeros(0)
    if values.any() if values.dtype == bool else values.size:
        raise ValueError(
            "categorical_features: the Dask estimators take numeric columns only; encode "
            "the categorical ones as numbers, or fit the single-machine estimator"
        )
    if not isinstance(X, dd.DataFrame):
        return  # (an array's dtype is checked with it; anything else is refused there)
    frame = X._meta  # (an empty pandas frame of its columns)
    if spec is None:
        _reject_non_numbers(frame, "X")
        return
    _reject_non_numbers(frame.select_dtypes(include=["datetime", "datetimetz", "timedelta"]), "X")
    import pandas as pd

    for name, dtype in frame.dtypes.items():
        if not (pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype)):
            raise ValueError(
                f"categorical_features: column {name!r} ({dtype}) would be categorical, "
                "but the Dask estimators take numeric columns only; encode it as numbers, "
                "pass categorical_features=None to read it as numbers, or fit the "
                "single-machine estimator"
            )


def _as_dask_matrix(X):
    """X as a 2-D Dask array with known chunk sizes and one chunk of
    columns, and (a DataFrame's) an empty pandas frame of its columns, or
    None."""
    import dask.array as da
    import dask.dataframe as dd

    frame = None
    if isinstance(X, dd.DataFrame):
        frame = X._meta  # (an empty pandas frame of its columns)
        X = X.to_dask_array(lengths=True)
    if not isinstance(X, da.Array):
        raise TypeError(
            f"X must be a dask array or dask DataFrame, got {type(X).__name__} "
            "(use the single-machine estimator, or dask.array.from_array)"
        )
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D, got {X.ndim} dimensions")
    # As the single machine refuses them, rather than astype in a worker
    # (complex parts dropped, "1.5" read as 1.5).
    _reject_non_numbers(X, "X")
    if any(np.isnan(c) for c in X.chunks[0]):
        X = X.compute_chunk_sizes()
    return X.rechunk({1: -1}), frame


def _as_dask_vector(v, arg, row_chunks):
    """A 1-D Dask array chunked as X's rows."""
    import dask.array as da
    import dask.dataframe as dd

    if isinstance(v, (dd.Series, dd.DataFrame)):
        if _is_extension(getattr(v, "dtype", None)):
            # Its values as one machine reads a pandas Series of them (int
            # categories as ints, Int64 and boolean as floats, as
            # scikit-learn does); to_dask_array would make them objects.
            import pandas as pd

            def values(s):
                return pd.Series(column_or_1d(_as_array(s, arg)), index=s.index, name=s.name)

            v = v.map_partitions(values, meta=values(v._meta))
        v = v.to_dask_array(lengths=True)
    elif not isinstance(v, da.Array):
        v = da.from_array(np.asarray(v), chunks=-1)
    if v.ndim == 2 and v.shape[1] == 1:
        v = v[:, 0]
    if v.ndim != 1:
        raise ValueError(f"{arg} must be 1-D, got shape {v.shape}")
    if any(np.isnan(c) for c in v.chunks[0]):
        v = v.compute_chunk_sizes()
    n = sum(row_chunks)
    if v.shape[0] != n:
        raise ValueError(f"{arg} has {v.shape[0]} values but X has {n} rows")
    return v.rechunk((row_chunks,))


def _check_timeout(timeout) -> None:
    """``timeout``: None or a number of seconds > 0."""
    number = isinstance(timeout, numbers.Real) and not isinstance(timeout, (bool, np.bool_))
    if timeout is not None and not (number and 0 < timeout < np.inf):
        raise ValueError(
            f"timeout must be None (no limit) or a number of seconds > 0, got {timeout!r}"
        )


def _is_extension(dtype) -> bool:
    import pandas as pd

    return isinstance(dtype, pd.api.extensions.ExtensionDtype)


def _distinct(block) -> list:
    """The distinct values of a chunk of labels (any kinds, NaN and None
    among them)."""
    return list(dict.fromkeys(np.asarray(block).tolist()))


def _predict_matrix(local, X):
    """A Dask ``X`` to predict on, as a Dask array; a DataFrame's column
    names are checked against the fit's first, as the local estimator
    checks a pandas DataFrame's. The blocks it becomes have no names, so
    ``local`` (a copy made for this prediction) then forgets the fit's,
    which would only warn that the blocks lack them."""
    if hasattr(X, "columns"):
        import pandas as pd

        # (scikit-learn reads the names of pandas frames only: an empty one.)
        with naming("X"):
            _check_feature_names(local, pd.DataFrame(columns=X.columns), reset=False)
        local.__dict__.pop("feature_names_in_", None)
    return _as_dask_matrix(X)[0]


def _computed(value):
    """Dask collections inside ``value`` (lists, tuples) computed here."""
    import dask

    if value is None:
        return None
    if isinstance(value, (list, tuple)):
        return type(value)(_computed(v) for v in value)
    if dask.is_dask_collection(value):
        value = value.compute()
        if hasattr(value, "iloc"):
            # A DataFrame or Series stays one, for the single machine's
            # checks to read (column names; nullable dtypes). (Copied:
            # blocks unpickled from a worker may not be aligned.)
            return value.copy()
        # Aligned: arrays unpickled from a worker may not be.
        return np.require(np.asarray(value), requirements=["C", "A"])
    return value
