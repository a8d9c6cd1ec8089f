//! The stored entries of sparse columns, row by row (CSR), so that one pass
//! over a node's rows fills the histograms of all its sparse columns.
//!
//! Column by column ([`crate::histogram::build_feature`]), a sparse
//! column's histogram reads every stored row of the column, the node's or
//! not; below the root a node holds a fraction of the rows, and row by row
//! it reads only its own rows' entries. The grower takes whichever reads
//! fewer entries. Both add each (feature, bin)'s rows in ascending row order
//! (a leaf's rows ascend), so the sums, and the model, are the same.

use crate::binning::{BinnedData, Column};
use crate::histogram::{HistLayout, Histogram, NodeGradients, NodeRows};

/// Entries of the kept sparse columns, row by row.
#[derive(Debug, Clone)]
pub struct SparseRows {
    /// Row r's entries are `indptr[r]..indptr[r+1]`.
    indptr: Vec<usize>,
    /// Feature and bin of each entry, ascending features within a row.
    entries: Vec<(u32, u8)>,
    /// Whether each feature's entries are here, length d.
    kept: Vec<bool>,
    /// Scratch, length d: where a feature's bins start in the histogram
    /// being filled, `usize::MAX` for features not being filled.
    starts: Vec<usize>,
}

impl SparseRows {
    /// The entries of `data`'s sparse-stored features that `keep` allows;
    /// `None` when there are none.
    pub fn new(data: &BinnedData, keep: impl Fn(usize) -> bool) -> Option<Self> {
        let kept: Vec<usize> = (0..data.n_features)
            .filter(|&f| keep(f) && matches!(data.column(f), Column::Sparse(_)))
            .collect();
        if kept.is_empty() {
            return None;
        }
        let mut indptr = vec![0usize; data.n_rows + 1];
        for &f in &kept {
            if let Column::Sparse(column) = data.column(f) {
                for &r in &column.rows {
                    indptr[r as usize + 1] += 1;
                }
            }
        }
        for r in 0..data.n_rows {
            indptr[r + 1] += indptr[r];
        }
        let mut next = indptr.clone();
        let mut entries = vec![(0u32, 0u8); indptr[data.n_rows]];
        for &f in &kept {
            if let Column::Sparse(column) = data.column(f) {
                for (&r, &b) in column.rows.iter().zip(&column.bins) {
                    entries[next[r as usize]] = (f as u32, b);
                    next[r as usize] += 1;
                }
            }
        }
        let mut is_kept = vec![false; data.n_features];
        for &f in &kept {
            is_kept[f] = true;
        }
        Some(SparseRows {
            indptr,
            entries,
            kept: is_kept,
            starts: vec![usize::MAX; data.n_features],
        })
    }

    /// Whether feature `f`'s entries are here.
    pub fn holds(&self, f: usize) -> bool {
        self.kept[f]
    }

    /// Entries a row-by-row fill of `rows` reads.
    pub fn cost(&self, rows: &[u32]) -> usize {
        if rows.len() + 1 == self.indptr.len() {
            return self.entries.len();
        }
        rows.iter()
            .map(|&r| self.indptr[r as usize + 1] - self.indptr[r as usize])
            .sum()
    }

    /// Fill the stored-row sums of the sparse columns among `features`
    /// (the ones held here) in `hist`, from the node's rows; their default
    /// bins are left to [`crate::histogram::finish_sparse`]. Returns which
    /// of `features` it filled.
    pub fn fill(
        &mut self,
        hist: &mut Histogram,
        layout: &HistLayout,
        features: &[usize],
        node: NodeRows,
    ) -> Vec<bool> {
        debug_assert!(
            node.rows.windows(2).all(|w| w[0] < w[1]),
            "node rows ascend"
        );
        let filled: Vec<bool> = features.iter().map(|&f| self.kept[f]).collect();
        for (&f, &yes) in features.iter().zip(&filled) {
            if yes {
                let range = layout.range(f);
                hist.bins[range.clone()].fill(Default::default());
                self.starts[f] = range.start;
            }
        }
        let bins = &mut hist.bins;
        for (k, &r) in node.rows.iter().enumerate() {
            let (g, h) = match node.grads {
                NodeGradients::Pairs(pairs) => (pairs[k][0], pairs[k][1]),
                NodeGradients::ConstantHessian { grad, .. } => (grad[k], 0.0),
            };
            let row = &self.entries[self.indptr[r as usize]..self.indptr[r as usize + 1]];
            for &(f, b) in row {
                let start = self.starts[f as usize];
                if start != usize::MAX {
                    let slot = &mut bins[start + b as usize];
                    slot.g += g;
                    slot.h += h;
                    slot.n += 1;
                }
            }
        }
        for (&f, &yes) in features.iter().zip(&filled) {
            if yes {
                self.starts[f] = usize::MAX;
            }
        }
        filled
    }
}
