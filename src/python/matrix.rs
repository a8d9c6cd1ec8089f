//! A feature matrix from Python, borrowed without a copy: a C-contiguous
//! float64 or float32 array, or a scipy sparse matrix passed as its arrays
//! (`sparseboost._matrix.engine_matrix` builds them; this checks them).

use super::contiguous;
use crate::matrix::{Compressed, FeatureMatrix, Layout, Values};
use numpy::{PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// `X` as Python passes it: a 2-D array, or `(format, data, indices,
/// indptr, n_rows, n_features)` with format "csc" or "csr", int32
/// indices and int64 indptr.
#[derive(FromPyObject)]
pub(super) enum PyMatrix<'py> {
    Dense64(PyReadonlyArray2<'py, f64>),
    Dense32(PyReadonlyArray2<'py, f32>),
    Sparse64(
        String,
        PyReadonlyArray1<'py, f64>,
        PyReadonlyArray1<'py, i32>,
        PyReadonlyArray1<'py, i64>,
        usize,
        usize,
    ),
    Sparse32(
        String,
        PyReadonlyArray1<'py, f32>,
        PyReadonlyArray1<'py, i32>,
        PyReadonlyArray1<'py, i64>,
        usize,
        usize,
    ),
}

impl PyMatrix<'_> {
    /// The engine's view, named `name` in errors; its index arrays are
    /// checked ([`FeatureMatrix::validate`]).
    pub(super) fn view(&self, name: &str) -> PyResult<FeatureMatrix<'_>> {
        let (shape, values, layout) = match self {
            PyMatrix::Dense64(x) => (x.shape(), Values::F64(contiguous(name, x)?), Layout::Dense),
            PyMatrix::Dense32(x) => (x.shape(), Values::F32(contiguous(name, x)?), Layout::Dense),
            PyMatrix::Sparse64(format, data, indices, indptr, n, d) => (
                &[*n, *d][..],
                Values::F64(contiguous(name, data)?),
                sparse_layout(name, format, indices, indptr)?,
            ),
            PyMatrix::Sparse32(format, data, indices, indptr, n, d) => (
                &[*n, *d][..],
                Values::F32(contiguous(name, data)?),
                sparse_layout(name, format, indices, indptr)?,
            ),
        };
        let matrix = FeatureMatrix {
            n_rows: shape[0],
            n_features: shape[1],
            values,
            layout,
        };
        matrix
            .validate()
            .map_err(|e| PyValueError::new_err(format!("{name}: {e}")))?;
        Ok(matrix)
    }
}

fn sparse_layout<'a>(
    name: &str,
    format: &str,
    indices: &'a PyReadonlyArray1<'_, i32>,
    indptr: &'a PyReadonlyArray1<'_, i64>,
) -> PyResult<Layout<'a>> {
    let compressed = Compressed {
        indptr: contiguous(name, indptr)?,
        indices: contiguous(name, indices)?,
    };
    match format {
        "csc" => Ok(Layout::Csc(compressed)),
        "csr" => Ok(Layout::Csr(compressed)),
        other => Err(PyValueError::new_err(format!(
            "{name}: unknown sparse format {other:?} (expected csc or csr)"
        ))),
    }
}
