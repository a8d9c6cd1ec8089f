//! Binning compressed sparse columns (scipy CSC) without writing out the
//! zeros: each column's cut points come from its stored values and a count
//! of the zeros of the row sample ([`cut_points_with_zeros`]), and its bins
//! are stored sparse whenever the zeros' bin holds most rows, at the cost of
//! the stored values only. The cut points, bins and storage equal those of
//! the same matrix passed dense.

use super::columns::{Shape, SparseColumn, Stored};
use super::BinMapper;
use crate::cut_points::cut_points_with_zeros;
use crate::error::{Result, SbError};
use crate::interrupt::{self, ShouldStop};
use crate::matrix::{Compressed, Value};
use rayon::prelude::*;

/// A binned CSC matrix: dense bins of the columns kept dense
/// (column-major), each column's storage, cut points and shape.
pub(super) type BinnedColumns = (Vec<u8>, Vec<Stored>, Vec<BinMapper>, Vec<Shape>);

/// One column, binned.
struct Binned {
    mapper: BinMapper,
    shape: Shape,
    /// The column's bins, sparse or (rarely, for a column stored sparse by
    /// scipy but mostly non-zero) dense.
    column: std::result::Result<SparseColumn, Vec<u8>>,
}

/// Bin CSC `values` of shape (n_rows, n_features); cut points come from the
/// rows of `sample` (all rows for `None`). ±inf is rejected;
/// `should_stop` is polled once per column.
pub(super) fn bin_csc<T: Value>(
    values: &[T],
    csc: Compressed,
    n_rows: usize,
    n_features: usize,
    max_bins: usize,
    sample: Option<&[usize]>,
    should_stop: &ShouldStop,
) -> Result<BinnedColumns> {
    let in_sample: Option<Vec<bool>> = sample.map(|rows| {
        let mut mask = vec![false; n_rows];
        for &r in rows {
            mask[r] = true;
        }
        mask
    });
    let sample_len = sample.map_or(n_rows, <[usize]>::len);
    let binned: Vec<Binned> = (0..n_features)
        .into_par_iter()
        .with_min_len(64)
        .map_init(Vec::new, |scratch, f| {
            interrupt::check(should_stop)?;
            let range = csc.range(f);
            let rows = &csc.indices[range.clone()];
            let column = &values[range];
            scratch.clear();
            let mut stored_in_sample = 0;
            for (&r, &v) in rows.iter().zip(column) {
                let v = v.to_f64();
                if v.is_infinite() {
                    return Err(SbError::InvalidInput(format!(
                        "X contains an infinite value (row {r}, feature {f})"
                    )));
                }
                if in_sample.as_ref().is_none_or(|mask| mask[r as usize]) {
                    scratch.push(v);
                    stored_in_sample += 1;
                }
            }
            let zeros = sample_len - stored_in_sample;
            let mapper = BinMapper::numeric(cut_points_with_zeros(scratch, zeros, max_bins));
            let (shape, column) = bin_column(&mapper, rows, column, n_rows, mapper.bin(0.0));
            Ok(Binned {
                mapper,
                shape,
                column,
            })
        })
        .collect::<Result<_>>()?;
    let mut dense = Vec::new();
    let mut stored = Vec::with_capacity(n_features);
    let mut mappers = Vec::with_capacity(n_features);
    let mut shapes = Vec::with_capacity(n_features);
    for b in binned {
        shapes.push(b.shape);
        mappers.push(b.mapper);
        stored.push(match b.column {
            Ok(sparse) => Stored::Sparse(sparse),
            Err(column) => {
                dense.extend_from_slice(&column);
                Stored::Dense(dense.len() - n_rows)
            }
        });
    }
    Ok((dense, stored, mappers, shapes))
}

/// The bins of one stored column whose absent rows are in `zero_bin`.
fn bin_column<T: Value>(
    mapper: &BinMapper,
    rows: &[i32],
    values: &[T],
    n_rows: usize,
    zero_bin: u8,
) -> (Shape, std::result::Result<SparseColumn, Vec<u8>>) {
    let bins: Vec<u8> = values.iter().map(|&v| mapper.bin(v.to_f64())).collect();
    let mut counts = [0u32; 256];
    counts[zero_bin as usize] += (n_rows - rows.len()) as u32;
    for &b in &bins {
        counts[b as usize] += 1;
    }
    let shape = Shape::of_counts(&counts);
    if shape.is_sparse(n_rows) && shape.default_bin == zero_bin {
        let (rows, bins) = rows
            .iter()
            .zip(&bins)
            .filter(|&(_, &b)| b != zero_bin)
            .map(|(&r, &b)| (r as u32, b))
            .unzip();
        let column = SparseColumn {
            rows,
            bins,
            default_bin: zero_bin,
        };
        return (shape, Ok(column));
    }
    let mut column = vec![zero_bin; n_rows];
    for (&r, &b) in rows.iter().zip(&bins) {
        column[r as usize] = b;
    }
    if shape.is_sparse(n_rows) {
        return (
            shape,
            Ok(SparseColumn::compress(&column, shape.default_bin)),
        );
    }
    (shape, Err(column))
}

/// The bins, column-major (n_features, n_rows), of CSC `values` with known
/// cut points (an evaluation set): zeros take their bin, stored values
/// theirs. ±inf is rejected.
pub(super) fn bin_csc_with<T: Value>(
    values: &[T],
    csc: Compressed,
    n_rows: usize,
    mappers: &[BinMapper],
    should_stop: &ShouldStop,
) -> Result<Vec<u8>> {
    let mut bins = crate::memory::try_filled::<u8>(n_rows * mappers.len(), "the binned matrix")?;
    bins.par_chunks_mut(n_rows.max(1))
        .zip(mappers)
        .enumerate()
        .try_for_each(|(f, (out, mapper))| {
            interrupt::check(should_stop)?;
            out.fill(mapper.bin(0.0));
            let range = csc.range(f);
            for (&r, &v) in csc.indices[range.clone()].iter().zip(&values[range]) {
                let v = v.to_f64();
                if v.is_infinite() {
                    return Err(SbError::InvalidInput(format!(
                        "X contains an infinite value (row {r}, feature {f})"
                    )));
                }
                out[r as usize] = mapper.bin(v);
            }
            Ok(())
        })?;
    Ok(bins)
}
