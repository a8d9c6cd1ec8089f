//! How a binned feature is stored: a dense column of n bins, or, when all
//! but a few rows share one bin (the zeros of sparse data, a frequent
//! category, mostly-missing values), only the other rows and their bins.
//!
//! The choice depends on the bins alone, never on how the caller passed X
//! (dense or sparse, float64 or float32), so the same matrix gives the same
//! storage, the same histograms and the same model in every format.
//! A sparse column's histogram costs its stored rows, not the node's rows:
//! the shared ("default") bin is the node's total minus the other bins
//! (LightGBM's "most frequent bin" trick); see [`crate::histogram`].

/// A column is stored sparse when at most one row in this many is outside
/// its most frequent bin. A sparse histogram reads each stored row once per
/// node built (about one node per leaf), a dense one each of the node's
/// rows (a few times n per tree, over a tree's levels): sparse pays below
/// about one row in 10–20.
pub const SPARSE_RATIO: usize = 16;

/// [`SparseColumn::bins_of_ascending`] merges while the stored rows in
/// the node's range are at most this many times its rows (a merge step
/// costs about a row's binary search over a few hundred stored rows
/// divided by this).
const MERGE_RATIO: usize = 16;

/// A feature's rows outside its default bin, ascending, with their bins.
#[derive(Debug, Clone, PartialEq)]
pub struct SparseColumn {
    /// Rows whose bin is not `default_bin`, ascending.
    pub rows: Vec<u32>,
    /// The bin of each of `rows`.
    pub bins: Vec<u8>,
    /// The bin of every other row (the most frequent bin).
    pub default_bin: u8,
}

impl SparseColumn {
    /// The non-default rows and bins of a dense column.
    pub fn compress(column: &[u8], default_bin: u8) -> Self {
        let (rows, bins) = column
            .iter()
            .enumerate()
            .filter(|&(_, &b)| b != default_bin)
            .map(|(r, &b)| (r as u32, b))
            .unzip();
        SparseColumn {
            rows,
            bins,
            default_bin,
        }
    }

    /// The bin of row `r` (a binary search).
    #[inline]
    pub fn bin_of(&self, r: u32) -> u8 {
        match self.rows.binary_search(&r) {
            Ok(i) => self.bins[i],
            Err(_) => self.default_bin,
        }
    }

    /// The bins of `rows` (ascending, as a node's segment is) into `out`:
    /// a merge of `rows` with the stored rows between their first and
    /// last, or, when those outnumber `rows` many times (a small node of
    /// a column with many stored rows), a binary search a row. Looking
    /// every row up by [`Self::bin_of`] (about ten dependent loads each)
    /// was the largest cost of small fits on one-hot columns (a fifth of
    /// a one-thread refit on Adult's columns).
    pub fn bins_of_ascending(&self, rows: &[u32], out: &mut [u8]) {
        debug_assert_eq!(rows.len(), out.len());
        debug_assert!(rows.windows(2).all(|w| w[0] <= w[1]), "rows not ascending");
        out.fill(self.default_bin);
        let (Some(&first), Some(&last)) = (rows.first(), rows.last()) else {
            return;
        };
        let lo = self.rows.partition_point(|&s| s < first);
        let hi = lo + self.rows[lo..].partition_point(|&s| s <= last);
        let (stored, bins) = (&self.rows[lo..hi], &self.bins[lo..hi]);
        if stored.len() > MERGE_RATIO * rows.len() {
            for (o, r) in out.iter_mut().zip(rows) {
                if let Ok(i) = stored.binary_search(r) {
                    *o = bins[i];
                }
            }
            return;
        }
        let mut j = 0;
        for (o, &r) in out.iter_mut().zip(rows) {
            while j < stored.len() && stored[j] < r {
                j += 1;
            }
            if j < stored.len() && stored[j] == r {
                *o = bins[j];
            }
        }
    }

    /// Write the bin of every row to `out` (length n).
    pub fn decode(&self, out: &mut [u8]) {
        out.fill(self.default_bin);
        for (&r, &b) in self.rows.iter().zip(&self.bins) {
            out[r as usize] = b;
        }
    }
}

/// One feature's bins as stored.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Stored {
    /// A dense column starting at this offset of the dense bins.
    Dense(usize),
    /// The rows outside the default bin.
    Sparse(SparseColumn),
}

/// A feature's bins, borrowed.
#[derive(Debug, Clone, Copy)]
pub enum Column<'a> {
    /// The bin of every row.
    Dense(&'a [u8]),
    /// The rows outside the default bin.
    Sparse(&'a SparseColumn),
}

/// What the bin counts of a column say about it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Shape {
    /// The most frequent bin (the lowest on ties).
    pub default_bin: u8,
    /// Rows in it.
    pub most: usize,
    /// Bins with rows.
    pub occupied: usize,
}

impl Shape {
    /// The shape of a column with these bin counts.
    pub fn of_counts(counts: &[u32; 256]) -> Shape {
        Shape::of_bin_counts(counts.iter().map(|&c| u64::from(c)))
    }

    /// The shape of a column with these counts, bin after bin (a
    /// distributed fit's counts pooled from its shards).
    pub fn of_bin_counts(counts: impl Iterator<Item = u64>) -> Shape {
        let (mut default_bin, mut most, mut occupied) = (0, 0, 0);
        for (b, c) in counts.enumerate() {
            if c > most {
                (default_bin, most) = (b, c);
            }
            occupied += usize::from(c > 0);
        }
        Shape {
            default_bin: default_bin as u8,
            most: most as usize,
            occupied,
        }
    }

    /// The shape of a dense column.
    pub fn of_column(column: &[u8]) -> Shape {
        let mut counts = [0u32; 256];
        for &b in column {
            counts[b as usize] += 1;
        }
        Shape::of_counts(&counts)
    }

    /// Stored sparse (see [`SPARSE_RATIO`]).
    pub fn is_sparse(&self, n_rows: usize) -> bool {
        n_rows > 0 && (n_rows - self.most) * SPARSE_RATIO <= n_rows
    }

    /// A quarter of the rows or more share one bin: dense histograms of the
    /// column accumulate in interleaved copies (see [`crate::histogram`]).
    pub fn is_skewed(&self, n_rows: usize) -> bool {
        n_rows > 0 && 4 * self.most >= n_rows
    }

    /// Rows fall in two bins at least, so a split can use the feature.
    pub fn is_splittable(&self) -> bool {
        self.occupied >= 2
    }

    /// Splittable, with `min_samples_leaf` of the `n_rows` rows outside the
    /// most frequent bin (see [`super::BinnedData::require_rows_per_leaf`]).
    pub fn can_split(&self, n_rows: usize, min_samples_leaf: usize) -> bool {
        self.is_splittable() && n_rows - self.most >= min_samples_leaf
    }

    /// The share of the rows a histogram of the column reads: its rows
    /// outside the most frequent bin when it is stored sparse, else all.
    pub fn density(&self, n_rows: usize) -> f64 {
        if self.is_sparse(n_rows) {
            (n_rows - self.most) as f64 / n_rows as f64
        } else {
            1.0
        }
    }
}

/// Column-major dense bins of `n_features` columns of `n_rows`, stored: the
/// mostly-default columns become sparse, and the others are moved together
/// (in place) into the returned dense bins. Also returns each feature's
/// shape.
pub(super) fn store_dense(
    mut bins: Vec<u8>,
    n_rows: usize,
    n_features: usize,
) -> (Vec<u8>, Vec<Stored>, Vec<Shape>) {
    use rayon::prelude::*;
    let n = n_rows;
    let (shapes, sparse): (Vec<Shape>, Vec<Option<SparseColumn>>) = (0..n_features)
        .into_par_iter()
        .map(|f| {
            let column = &bins[f * n..(f + 1) * n];
            let shape = Shape::of_column(column);
            let sparse = shape
                .is_sparse(n)
                .then(|| SparseColumn::compress(column, shape.default_bin));
            (shape, sparse)
        })
        .unzip();
    let mut stored = Vec::with_capacity(n_features);
    let mut kept = 0;
    for (f, sparse) in sparse.into_iter().enumerate() {
        match sparse {
            Some(column) => stored.push(Stored::Sparse(column)),
            None => {
                bins.copy_within(f * n..(f + 1) * n, kept * n);
                stored.push(Stored::Dense(kept * n));
                kept += 1;
            }
        }
    }
    bins.truncate(kept * n);
    bins.shrink_to_fit();
    (bins, stored, shapes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mostly_default_columns_are_stored_sparse_and_decode_to_their_bins() {
        let n = 32;
        // Column 0: 2 rows of 32 outside bin 3 (sparse); column 1: all
        // distinct (dense); column 2: constant.
        let mut bins = vec![3u8; n];
        bins[5] = 1;
        bins[30] = 7;
        bins.extend((0..n).map(|r| r as u8));
        bins.extend(std::iter::repeat_n(2u8, n));
        let (dense, stored, shapes) = store_dense(bins.clone(), n, 3);
        let skewed: Vec<bool> = shapes.iter().map(|s| s.is_skewed(n)).collect();
        let splittable: Vec<bool> = shapes.iter().map(Shape::is_splittable).collect();
        assert_eq!(dense, bins[n..2 * n]);
        let Stored::Sparse(col) = &stored[0] else {
            panic!("column 0 is sparse")
        };
        assert_eq!(
            (col.rows.as_slice(), col.bins.as_slice()),
            (&[5, 30][..], &[1, 7][..])
        );
        assert_eq!(stored[1], Stored::Dense(0));
        assert!(matches!(&stored[2], Stored::Sparse(c) if c.rows.is_empty()));
        assert_eq!(skewed, [true, false, true]);
        assert_eq!(splittable, [true, true, false]);
        let mut out = vec![0; n];
        col.decode(&mut out);
        assert_eq!(out, bins[..n]);
        assert_eq!(
            (0..n as u32).map(|r| col.bin_of(r)).collect::<Vec<_>>(),
            &bins[..n]
        );
    }

    #[test]
    fn the_bins_of_ascending_rows_are_those_of_a_lookup_a_row() {
        // Columns from 0.1% to 60% stored rows; node rows from every row to
        // a few (so both the merge and the binary searches run), including
        // rows before the first and after the last stored one.
        let mut rng = crate::rng::Rng::new(7);
        let n = 5000;
        for case in 0..200 {
            let stored_share = [0.001, 0.01, 0.05, 0.3, 0.6][case % 5];
            let column: Vec<u8> = (0..n)
                .map(|_| match rng.next_f64() < stored_share {
                    true => 1 + rng.below(5) as u8,
                    false => 0,
                })
                .collect();
            let sparse = SparseColumn::compress(&column, 0);
            let keep = [1.0, 0.5, 0.05, 0.002][case % 4];
            let rows: Vec<u32> = (0..n as u32).filter(|_| rng.next_f64() < keep).collect();
            let mut out = vec![9u8; rows.len()];
            sparse.bins_of_ascending(&rows, &mut out);
            let expected: Vec<u8> = rows.iter().map(|&r| column[r as usize]).collect();
            assert_eq!(out, expected, "case {case}");
        }
        let mut out: Vec<u8> = Vec::new();
        SparseColumn::compress(&[0, 3, 0], 0).bins_of_ascending(&[], &mut out);
    }

    #[test]
    fn the_default_bin_is_the_most_frequent_and_the_lowest_on_ties() {
        let mut counts = [0u32; 256];
        counts[4] = 10;
        counts[2] = 10;
        counts[9] = 3;
        let s = Shape::of_counts(&counts);
        assert_eq!((s.default_bin, s.most, s.occupied), (2, 10, 3));
    }
}
