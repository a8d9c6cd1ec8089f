//! The feature matrix a fit or a prediction reads, borrowed from the caller
//! without a copy: dense row-major, or compressed sparse columns (CSC, for
//! binning) or rows (CSR, for prediction), of float64 or float32 values.
//!
//! A sparse matrix's absent entries are zeros (not missing values, as in
//! scipy and LightGBM); NaN must be stored explicitly to mean missing.

use crate::error::{Result, SbError};

/// A float type the engine reads (converted to f64 one value at a time).
pub trait Value: Copy + Send + Sync + 'static {
    /// The value as f64 (exact for f32).
    fn to_f64(self) -> f64;
}

impl Value for f64 {
    #[inline(always)]
    fn to_f64(self) -> f64 {
        self
    }
}

impl Value for f32 {
    #[inline(always)]
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
}

/// The stored values, in the caller's precision.
#[derive(Debug, Clone, Copy)]
pub enum Values<'a> {
    /// float64.
    F64(&'a [f64]),
    /// float32: read as is, never copied to float64.
    F32(&'a [f32]),
}

impl Values<'_> {
    /// Number of stored values.
    pub fn len(&self) -> usize {
        match self {
            Values::F64(v) => v.len(),
            Values::F32(v) => v.len(),
        }
    }

    /// True when nothing is stored.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The i-th stored value as f64.
    #[inline]
    pub fn get(&self, i: usize) -> f64 {
        match self {
            Values::F64(v) => v[i],
            Values::F32(v) => f64::from(v[i]),
        }
    }
}

/// Where the stored values sit.
#[derive(Debug, Clone, Copy)]
pub enum Layout<'a> {
    /// All n·d values, row-major.
    Dense,
    /// Compressed sparse columns: column j's entries are
    /// `indptr[j]..indptr[j+1]`, at rows `indices[..]`, ascending.
    Csc(Compressed<'a>),
    /// Compressed sparse rows: row i's entries are `indptr[i]..indptr[i+1]`,
    /// in columns `indices[..]`, ascending.
    Csr(Compressed<'a>),
}

/// The index arrays of a compressed sparse matrix (scipy's).
#[derive(Debug, Clone, Copy)]
pub struct Compressed<'a> {
    /// Offsets of each major slice into `indices` (length majors + 1).
    pub indptr: &'a [i64],
    /// The minor index of each stored value.
    pub indices: &'a [i32],
}

impl Compressed<'_> {
    /// The entries of major slice `j` (a column of CSC, a row of CSR).
    #[inline]
    pub fn range(&self, j: usize) -> std::ops::Range<usize> {
        self.indptr[j] as usize..self.indptr[j + 1] as usize
    }
}

/// A feature matrix of shape (n_rows, n_features).
#[derive(Debug, Clone, Copy)]
pub struct FeatureMatrix<'a> {
    /// n.
    pub n_rows: usize,
    /// d.
    pub n_features: usize,
    /// The stored values.
    pub values: Values<'a>,
    /// How they are laid out.
    pub layout: Layout<'a>,
}

impl<'a> FeatureMatrix<'a> {
    /// A dense row-major float64 matrix.
    pub fn dense(x: &'a [f64], n_rows: usize, n_features: usize) -> Self {
        FeatureMatrix {
            n_rows,
            n_features,
            values: Values::F64(x),
            layout: Layout::Dense,
        }
    }

    /// A dense row-major float32 matrix.
    pub fn dense_f32(x: &'a [f32], n_rows: usize, n_features: usize) -> Self {
        FeatureMatrix {
            n_rows,
            n_features,
            values: Values::F32(x),
            layout: Layout::Dense,
        }
    }

    /// Whether the matrix is compressed sparse (CSC or CSR).
    pub fn is_sparse(&self) -> bool {
        !matches!(self.layout, Layout::Dense)
    }

    /// Check that the arrays describe an (n_rows, n_features) matrix: a
    /// sparse matrix's index arrays come from outside and are read
    /// unchecked later, so an index out of range or unsorted must be caught
    /// here.
    pub fn validate(&self) -> Result<()> {
        let bad = |m: String| Err(SbError::InvalidInput(m));
        let (n, d) = (self.n_rows, self.n_features);
        let (compressed, majors, minors, what) = match self.layout {
            Layout::Dense => {
                if Some(self.values.len()) != n.checked_mul(d) {
                    return bad(format!(
                        "X has {} values, expected {n} x {d}",
                        self.values.len()
                    ));
                }
                return Ok(());
            }
            Layout::Csc(c) => (c, d, n, "column"),
            Layout::Csr(c) => (c, n, d, "row"),
        };
        if minors > i32::MAX as usize {
            return bad(format!(
                "sparse X has {minors} {}s; at most 2^31 - 1 are supported",
                if what == "column" { "row" } else { "column" }
            ));
        }
        let Compressed { indptr, indices } = compressed;
        if indptr.len() != majors + 1 || indptr[0] != 0 {
            return bad(format!(
                "sparse X: indptr has {} entries starting at {:?}, expected {} starting at 0",
                indptr.len(),
                indptr.first(),
                majors + 1
            ));
        }
        let nnz = indices.len();
        if indptr[majors] as usize != nnz || self.values.len() != nnz {
            return bad(format!(
                "sparse X: indptr ends at {} but there are {nnz} indices and {} values",
                indptr[majors],
                self.values.len()
            ));
        }
        for j in 0..majors {
            let (a, b) = (indptr[j], indptr[j + 1]);
            if b < a {
                return bad(format!("sparse X: indptr decreases at {what} {j}"));
            }
            let slice = &indices[a as usize..b as usize];
            let in_range = slice.iter().all(|&i| i >= 0 && (i as usize) < minors);
            let ascending = slice.windows(2).all(|w| w[0] < w[1]);
            if !in_range || !ascending {
                return bad(format!(
                    "sparse X: the indices of {what} {j} are out of range, unsorted or repeated"
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_sparse_index_arrays_are_errors() {
        let values = [1.0, 2.0, 3.0];
        let csc = |indptr: &'static [i64], indices: &'static [i32]| FeatureMatrix {
            n_rows: 3,
            n_features: 2,
            values: Values::F64(&values),
            layout: Layout::Csc(Compressed { indptr, indices }),
        };
        assert!(csc(&[0, 2, 3], &[0, 2, 1]).validate().is_ok());
        for (indptr, indices, says) in [
            (&[0, 2][..], &[0, 2, 1][..], "indptr has 2"),
            (&[0, 2, 4], &[0, 2, 1], "indptr ends at 4"),
            (&[0, 2, 3], &[2, 0, 1], "unsorted"),
            (&[0, 2, 3], &[0, 3, 1], "out of range"),
            (&[0, 2, 3], &[0, 0, 1], "repeated"),
            (&[0, 3, 3], &[0, 1, 2], "indptr"),
        ] {
            let indptr: &'static [i64] = Box::leak(indptr.to_vec().into_boxed_slice());
            let indices: &'static [i32] = Box::leak(indices.to_vec().into_boxed_slice());
            let e = csc(indptr, indices).validate();
            if says == "indptr" {
                assert!(e.is_ok(), "an empty column is fine");
                continue;
            }
            let e = e.unwrap_err().to_string();
            assert!(e.contains(says), "{e}");
        }
        let dense = FeatureMatrix::dense(&values, 2, 2);
        assert!(dense
            .validate()
            .unwrap_err()
            .to_string()
            .contains("3 values"));
    }
}
