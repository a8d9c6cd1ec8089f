"""The feature matrix as the Rust engine reads it, without copying values:
a C-contiguous float64 or float32 array, or a scipy sparse matrix passed as
its arrays (compressed sparse columns for training, rows for prediction).

A sparse matrix's absent entries are zeros, as in scipy and LightGBM, not
missing values; a stored NaN is missing. Converting between CSR and CSC, or
sorting a matrix's indices, copies its stored entries (never the zeros), and
the caller's matrix is never modified.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp


def engine_matrix(X, layout: str):
    """``X`` (checked by ``_validation.check_X``) for the engine: ``layout``
    is "csc" (training: binning reads columns) or "csr" (prediction reads
    rows); it only matters for a sparse ``X``."""
    if not sp.issparse(X):
        return _aligned(X)
    X = X.tocsc() if layout == "csc" else X.tocsr()
    if not X.has_canonical_format:
        # Sorted, without repeated indices: a copy, so that the user's
        # matrix is left as it was.
        X = X.copy()
        X.sum_duplicates()
    if X.shape[0 if layout == "csc" else 1] > np.iinfo(np.int32).max:
        raise ValueError(
            f"a sparse X with {X.shape[0]} rows and {X.shape[1]} columns is too large: "
            "at most 2^31 - 1 rows (and columns, for prediction) are supported"
        )
    data = X.data if X.data.dtype in (np.float32, np.float64) else X.data.astype(np.float64)
    return (
        layout,
        _aligned(data),
        _aligned(X.indices, np.int32),
        _aligned(X.indptr, np.int64),
        int(X.shape[0]),
        int(X.shape[1]),
    )


def _aligned(a, dtype=None):
    """``a`` C-contiguous and aligned (copied only if it is not): an array
    unpickled from a buffer, as Dask workers receive them, can be
    unaligned, and the engine reads aligned memory only."""
    return np.require(a, dtype=dtype, requirements=["C_CONTIGUOUS", "ALIGNED"])
