"""Loaders of the sparse NIPS 2003 data sets (Dexter, Dorothea) as scipy CSR matrices.

Shared by ``selector_comparison.py`` (which densifies them), the scripts importing
its loaders, and ``compare_peers.py`` (which passes the CSR matrices to every
library). Needs only numpy, scipy and scikit-learn, not sparseboost, so that a
peer library's benchmark process does not carry sparseboost's memory.

The files are in ``../shared/data`` relative to the project root; see its README
for their provenance. Labels are returned as 0/1 integers (the files hold -1/+1).
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import scipy.sparse as sp

DATA_DIR = Path(__file__).resolve().parent.parent.parent / "shared" / "data"
DEXTER_FEATURES = 20000
DOROTHEA_FEATURES = 88119  # the reconstructed train file's kept columns


def labels(path):
    """A ``.labels`` file (-1/+1, one per line) as 0/1 integers."""
    return (np.loadtxt(path) > 0).astype(int)


def load_nolabel_svm(path, n_features, dtype=np.float64):
    """Rows of 1-based ``index:value`` pairs with no label column, as CSR."""
    from sklearn.datasets import load_svmlight_file

    with open(path, "rb") as f:
        buf = b"".join(b"0 " + line for line in f)
    X = load_svmlight_file(io.BytesIO(buf), n_features=n_features, zero_based=False, dtype=dtype)[0]
    X.sum_duplicates()  # canonical: sorted, no repeated indices
    # int32 indices, as scipy builds Dorothea's (the loader gives int64).
    return sp.csr_matrix(
        (X.data, X.indices.astype(np.int32), X.indptr.astype(np.int32)), shape=X.shape
    )


def load_dexter(dtype=np.float64):
    """Dexter: ``(X_train, y_train, X_valid, y_valid)``, 300 + 300 rows x 20000, CSR."""
    d = DATA_DIR / "dexter"
    return (
        load_nolabel_svm(d / "dexter_train.data", DEXTER_FEATURES, dtype),
        labels(d / "dexter_train.labels"),
        load_nolabel_svm(d / "dexter_valid.data", DEXTER_FEATURES, dtype),
        labels(d / "dexter_valid.labels"),
    )


def load_dorothea(dtype=np.float32):
    """Dorothea's reconstructed training rows: ``(X, y)``, 800 x 88119 binary CSR.

    Each line holds the 1-based indices of the row's features equal to 1. The
    column indices are positions among the columns kept by the reconstruction, not
    the original ids, so the valid file cannot be paired with these rows.
    """
    d = DATA_DIR / "dorothea"
    rows, cols = [], []
    n = 0
    with open(d / "dorothea_train_reconstructed.data") as f:
        for i, line in enumerate(f):
            for token in line.split():
                rows.append(i)
                cols.append(int(token) - 1)
            n = i + 1
    X = sp.csr_matrix(
        (np.ones(len(rows), dtype), (rows, cols)), shape=(n, DOROTHEA_FEATURES)
    )
    X.sum_duplicates()  # also sorts the indices
    return X, labels(d / "dorothea_train.labels")
