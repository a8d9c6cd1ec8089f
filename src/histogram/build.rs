//! Building a node's histogram from its rows: dense columns (by feature,
//! or by blocks of rows when there are few features), sparse columns (their
//! stored rows, then the zeros from the node total) and the accumulation
//! loops they share.

use super::*;

/// A histogram of at most this many features is built in parallel over
/// blocks of rows (each feature's work is too large to leave one core idle
/// and too few to share out by feature). A constant, not the number of
/// threads: the blocks decide the order of the sums, which must not depend
/// on the threads.
const FEW_FEATURES: usize = 8;

/// Rows per block of a histogram built by rows; nodes of fewer than two
/// blocks are built in one.
const ROW_BLOCK: usize = 8192;

/// Whether a histogram of `n_features` features is built by blocks of rows.
pub fn by_rows(n_features: usize) -> bool {
    n_features <= FEW_FEATURES
}

/// [`build_feature`] over blocks of [`ROW_BLOCK`] rows in parallel, their
/// bins added in block order, for a dense column of a node of two blocks
/// or more; otherwise [`build_feature`].
pub fn build_feature_by_rows(out: &mut [HistBin], data: &BinnedData, f: usize, node: NodeRows) {
    let Column::Dense(column) = data.column(f) else {
        return build_feature(out, data, f, node);
    };
    let n = node.rows.len();
    if n < 2 * ROW_BLOCK {
        return build_feature(out, data, f, node);
    }
    let lanes = data.skewed.get(f).copied().unwrap_or(false);
    let every_row = n == data.n_rows;
    let blocks: Vec<Vec<HistBin>> = (0..n.div_ceil(ROW_BLOCK))
        .into_par_iter()
        .map(|b| {
            let range = b * ROW_BLOCK..((b + 1) * ROW_BLOCK).min(n);
            let grads = match node.grads {
                NodeGradients::Pairs(p) => NodeGradients::Pairs(&p[range.clone()]),
                NodeGradients::ConstantHessian { grad, hess } => NodeGradients::ConstantHessian {
                    grad: &grad[range.clone()],
                    hess,
                },
            };
            let mut bins = vec![HistBin::default(); out.len()];
            if every_row {
                fill_bins(&mut bins, column[range].iter().copied(), grads, lanes);
            } else {
                let rows = &node.rows[range];
                fill_bins(
                    &mut bins,
                    rows.iter().map(|&r| column[r as usize]),
                    grads,
                    lanes,
                );
            }
            bins
        })
        .collect();
    out.fill(HistBin::default());
    for block in &blocks {
        for (o, b) in out.iter_mut().zip(block) {
            o.g += b.g;
            o.h += b.h;
            o.n += b.n;
        }
    }
}

/// Fill `out` (feature `f`'s bins) from a node's rows.
pub fn build_feature(out: &mut [HistBin], data: &BinnedData, f: usize, node: NodeRows) {
    debug_assert_eq!(node.rows.len(), node.grads.len());
    let (rows, grads) = (node.rows, node.grads);
    match data.column(f) {
        Column::Dense(column) => {
            let lanes = data.skewed.get(f).copied().unwrap_or(false);
            if rows.len() == data.n_rows {
                fill_bins(out, column.iter().copied(), grads, lanes);
            } else {
                fill_bins(out, rows.iter().map(|&r| column[r as usize]), grads, lanes);
            }
        }
        Column::Sparse(column) => {
            let slots = node.slots.expect("a node's row slots for a sparse column");
            fill_sparse(out, column, slots, grads);
        }
    }
}

/// Fill `out` from a sparse column: its stored rows that are the node's
/// add to their bins; the default bin gets what is left of the node's
/// totals. The cost is the column's stored rows, not the node's.
fn fill_sparse(out: &mut [HistBin], column: &SparseColumn, slots: SlotView, grads: NodeGradients) {
    out.fill(HistBin::default());
    let stored = column.rows.iter().zip(&column.bins);
    match grads {
        NodeGradients::Pairs(pairs) => {
            for (&r, &b) in stored {
                if let Some(k) = slots.position(r) {
                    let slot = &mut out[b as usize];
                    slot.g += pairs[k][0];
                    slot.h += pairs[k][1];
                    slot.n += 1;
                }
            }
        }
        NodeGradients::ConstantHessian { grad, .. } => {
            for (&r, &b) in stored {
                if let Some(k) = slots.position(r) {
                    let slot = &mut out[b as usize];
                    slot.g += grad[k];
                    slot.n += 1;
                }
            }
        }
    }
    finish_sparse(out, column, slots, grads);
}

/// Give a sparse column's default bin what its stored rows left of the
/// node's totals, once `out` holds the sums of the node's stored rows
/// (filled by [`fill_sparse`] or by rows, [`crate::sparse_rows`]).
pub fn finish_sparse(
    out: &mut [HistBin],
    column: &SparseColumn,
    slots: SlotView,
    grads: NodeGradients,
) {
    let mut rest = HistBin::default();
    for slot in out.iter() {
        rest.g += slot.g;
        rest.h += slot.h;
        rest.n += slot.n;
    }
    let total = slots.total;
    let default = &mut out[column.default_bin as usize];
    default.n = total.n - rest.n;
    if default.n > 0 {
        default.g = total.g - rest.g;
        // Rounding must not make a sum of non-negative hessians negative.
        default.h = (total.h - rest.h).max(0.0);
    }
    if let NodeGradients::ConstantHessian { hess, .. } = grads {
        for slot in out.iter_mut() {
            slot.h = slot.n as f64 * hess;
        }
    }
}

/// Fill `out` from the bin of each of a node's rows (`bins`, in the order
/// of `grads`): a histogram of any per-row binned value. `lanes`: the
/// values crowd into few bins, so accumulate in interleaved copies.
#[inline]
pub fn fill_bins(
    out: &mut [HistBin],
    bins: impl Iterator<Item = u8>,
    grads: NodeGradients,
    lanes: bool,
) {
    out.fill(HistBin::default());
    match grads {
        NodeGradients::Pairs(pairs) => accumulate_pairs(out, bins, pairs, lanes),
        NodeGradients::ConstantHessian { grad, hess } => {
            accumulate_gradients(out, bins, grad, lanes);
            for slot in out.iter_mut() {
                slot.h = slot.n as f64 * hess;
            }
        }
    }
}

/// Rows go round-robin to this many copies of a feature's bins, summed at
/// the end. When most rows fall in one bin (a feature that is mostly zero,
/// a frequent category), one copy makes every addition wait for the one
/// before it to the same slot; four copies let four run at once.
const LANES: usize = 4;

/// Rows per bin from which the copies pay for their merge (a few percent
/// of the additions).
const ROWS_PER_BIN_FOR_LANES: usize = 32;

thread_local! {
    /// The extra copies of the thread's current feature (reused).
    static LANE_SCRATCH: std::cell::RefCell<Vec<HistBin>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// Accumulate `(bin, value)` pairs into `out` with `add`, through
/// [`LANES`] copies when asked (`lanes`: most rows crowd into a few bins)
/// and the node has many rows per bin. (On values spread over the bins the
/// copies only add their merge.) The order of the additions depends only on
/// the rows' order, never on threads.
#[inline]
fn accumulate<T: Copy>(
    out: &mut [HistBin],
    bins: impl Iterator<Item = u8>,
    values: &[T],
    lanes: bool,
    add: impl Fn(&mut HistBin, T),
) {
    let n_bins = out.len();
    if !lanes || values.len() < ROWS_PER_BIN_FOR_LANES * n_bins {
        for (b, &v) in bins.zip(values) {
            add(&mut out[b as usize], v);
        }
        return;
    }
    LANE_SCRATCH.with(|scratch| {
        let mut scratch = scratch.borrow_mut();
        scratch.clear();
        scratch.resize((LANES - 1) * n_bins, HistBin::default());
        let (one, rest) = scratch.split_at_mut(n_bins);
        let (two, three) = rest.split_at_mut(n_bins);
        let mut bins = bins;
        let mut chunks = values.chunks_exact(LANES);
        for chunk in &mut chunks {
            let mut next = || bins.next().unwrap_or(0) as usize;
            let (b0, b1, b2, b3) = (next(), next(), next(), next());
            add(&mut out[b0], chunk[0]);
            add(&mut one[b1], chunk[1]);
            add(&mut two[b2], chunk[2]);
            add(&mut three[b3], chunk[3]);
        }
        for (b, &v) in bins.zip(chunks.remainder()) {
            add(&mut out[b as usize], v);
        }
        for (i, slot) in out.iter_mut().enumerate() {
            for lane in [&one[i], &two[i], &three[i]] {
                slot.g += lane.g;
                slot.h += lane.h;
                slot.n += lane.n;
            }
        }
    });
}

#[inline]
fn accumulate_pairs(
    out: &mut [HistBin],
    bins: impl Iterator<Item = u8>,
    pairs: &[[f64; 2]],
    lanes: bool,
) {
    accumulate(out, bins, pairs, lanes, |slot, [g, h]| {
        slot.g += g;
        slot.h += h;
        slot.n += 1;
    });
}

#[inline]
fn accumulate_gradients(
    out: &mut [HistBin],
    bins: impl Iterator<Item = u8>,
    grad: &[f64],
    lanes: bool,
) {
    accumulate(out, bins, grad, lanes, |slot, g| {
        slot.g += g;
        slot.n += 1;
    });
}
