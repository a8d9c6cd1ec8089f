//! Gradient histograms: for each feature and bin, the sums of gradients,
//! hessians and row counts of a node's rows.
//!
//! All features share one flat buffer; [`HistLayout`] gives each feature's
//! range. A child's histogram is either built from its rows or obtained by
//! subtraction, parent − sibling (LightGBM's and scikit-learn's trick: only
//! the smaller child is ever built).

use crate::binning::{BinMapper, BinnedData, Column, SparseColumn};
use rayon::prelude::*;

mod build;
pub use build::{build_feature, build_feature_by_rows, by_rows, fill_bins, finish_sparse};

/// Sums over the rows that fall in one bin.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct HistBin {
    /// Σ gradient.
    pub g: f64,
    /// Σ hessian.
    pub h: f64,
    /// Number of rows.
    pub n: u32,
}

/// Where each feature's bins sit in the flat buffer.
#[derive(Debug, Clone)]
pub struct HistLayout {
    /// Which features have bins.
    features: Slots,
    /// `offsets[i]..offsets[i+1]` are the bins of the i-th feature with bins.
    offsets: Vec<usize>,
}

/// The features with bins and how a feature finds its position among them.
#[derive(Debug, Clone)]
enum Slots {
    /// All d features, in order.
    All,
    /// A few features, ascending (found by binary search).
    Listed(Vec<usize>),
    /// Many of d features: the position of each feature, `u32::MAX` for
    /// none.
    Mapped(Vec<u32>),
}

impl HistLayout {
    /// The layout for binned data: every feature has `n_bins()` slots.
    pub fn new(data: &BinnedData) -> Self {
        HistLayout {
            features: Slots::All,
            offsets: offsets(data.mappers.iter().map(|m| m.n_bins())),
        }
    }

    /// A layout with bins for `features` (ascending) only. GT-GBM's nodes
    /// scan a few features of d, so its size follows them, not d.
    pub fn for_features(data: &BinnedData, features: &[usize]) -> Self {
        HistLayout::listed(&data.mappers, features)
    }

    /// [`HistLayout::for_features`] from the cut points alone.
    pub fn listed(mappers: &[BinMapper], features: &[usize]) -> Self {
        HistLayout {
            features: Slots::Listed(features.to_vec()),
            offsets: offsets(features.iter().map(|&f| mappers[f].n_bins())),
        }
    }

    /// A layout with bins for the features that can split: a histogram
    /// holds no slots for the rest (most columns of sparse data).
    pub fn for_splittable(data: &BinnedData) -> Self {
        HistLayout::for_mappers(&data.mappers, &data.splittable)
    }

    /// [`HistLayout::for_splittable`] from the cut points and splittable
    /// flags alone (a distributed fit's client holds no rows).
    pub fn for_mappers(mappers: &[BinMapper], splittable: &[bool]) -> Self {
        let d = mappers.len();
        let features: Vec<usize> = (0..d).filter(|&f| splittable[f]).collect();
        if features.len() == d {
            return HistLayout {
                features: Slots::All,
                offsets: offsets(mappers.iter().map(|m| m.n_bins())),
            };
        }
        let mut mapped = vec![u32::MAX; d];
        for (i, &f) in features.iter().enumerate() {
            mapped[f] = i as u32;
        }
        HistLayout {
            features: Slots::Mapped(mapped),
            offsets: offsets(features.iter().map(|&f| mappers[f].n_bins())),
        }
    }

    /// Position of feature `f` among the features with bins.
    #[inline]
    fn slot(&self, f: usize) -> Option<usize> {
        match &self.features {
            Slots::All => Some(f),
            Slots::Listed(listed) => listed.binary_search(&f).ok(),
            Slots::Mapped(mapped) => match mapped[f] {
                u32::MAX => None,
                i => Some(i as usize),
            },
        }
    }

    /// Whether this is the layout [`HistLayout::listed`] makes for
    /// `features` (so that a histogram of it can be taken as it is).
    pub fn lists(&self, features: &[usize]) -> bool {
        matches!(&self.features, Slots::Listed(listed) if listed == features)
    }

    /// Whether feature `f` has bins in this layout.
    pub fn contains(&self, f: usize) -> bool {
        self.slot(f).is_some()
    }

    /// Total number of bins over all features.
    pub fn total_bins(&self) -> usize {
        *self.offsets.last().unwrap()
    }

    /// The bins of feature `f` within the flat buffer (it must have bins).
    pub fn range(&self, f: usize) -> std::ops::Range<usize> {
        let i = self
            .slot(f)
            .unwrap_or_else(|| panic!("feature {f} has no bins in this layout"));
        self.offsets[i]..self.offsets[i + 1]
    }
}

/// Running totals of `widths`, starting at 0.
fn offsets(widths: impl Iterator<Item = usize>) -> Vec<usize> {
    let mut offsets = vec![0];
    for w in widths {
        offsets.push(offsets.last().unwrap() + w);
    }
    offsets
}

/// One node's histogram over all features (only the features being
/// considered are kept up to date).
#[derive(Debug, Clone)]
pub struct Histogram {
    /// Flat bins, indexed through a [`HistLayout`].
    pub bins: Vec<HistBin>,
}

impl Histogram {
    /// An all-zero histogram for `layout`.
    pub fn zeros(layout: &HistLayout) -> Self {
        Histogram {
            bins: vec![HistBin::default(); layout.total_bins()],
        }
    }

    /// The bins of feature `f`.
    pub fn feature(&self, layout: &HistLayout, f: usize) -> &[HistBin] {
        &self.bins[layout.range(f)]
    }

    /// The disjoint mutable bins of `features` (ascending), for parallel
    /// per-feature work.
    pub fn feature_slices_mut<'a>(
        &'a mut self,
        layout: &HistLayout,
        features: &[usize],
    ) -> Vec<(usize, &'a mut [HistBin])> {
        let mut rest: &'a mut [HistBin] = &mut self.bins;
        let mut out = Vec::with_capacity(features.len());
        let mut consumed = 0;
        for &f in features {
            let range = layout.range(f);
            let (_, tail) = std::mem::take(&mut rest).split_at_mut(range.start - consumed);
            let (mine, tail) = tail.split_at_mut(range.len());
            out.push((f, mine));
            rest = tail;
            consumed = range.end;
        }
        out
    }

    /// Rebuild the bins of `features` (ascending) from a node's rows, in
    /// parallel over features, or over blocks of rows when there are few
    /// (see [`build_feature`] for the arguments).
    pub fn build(
        &mut self,
        layout: &HistLayout,
        data: &BinnedData,
        features: &[usize],
        node: NodeRows,
    ) {
        let by_rows = by_rows(features.len());
        self.feature_slices_mut(layout, features)
            .into_par_iter()
            .with_min_len(4)
            .for_each(|(f, out)| match by_rows {
                true => build_feature_by_rows(out, data, f, node),
                false => build_feature(out, data, f, node),
            });
    }
}

/// The gradients and hessians of a node's rows, in the order of its rows.
#[derive(Debug, Clone, Copy)]
pub enum NodeGradients<'a> {
    /// `[g, h]` of each row, interleaved so the inner loop reads one stream.
    Pairs(&'a [[f64; 2]]),
    /// The gradient of each row; every hessian equals `hess` (squared error
    /// without weights), so bins only sum gradients and counts and
    /// `h = count × hess`.
    ConstantHessian {
        /// Gradient per row.
        grad: &'a [f64],
        /// The common hessian.
        hess: f64,
    },
}

impl NodeGradients<'_> {
    /// Number of rows.
    pub fn len(&self) -> usize {
        match self {
            NodeGradients::Pairs(p) => p.len(),
            NodeGradients::ConstantHessian { grad, .. } => grad.len(),
        }
    }

    /// True for a node without rows.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A node's rows and their gradients, as a histogram reads them.
#[derive(Debug, Clone, Copy)]
pub struct NodeRows<'a> {
    /// The node's row indices. When they cover every row of the data, they
    /// must be `0..n` in order (dense columns are then read directly).
    pub rows: &'a [u32],
    /// The gradients of `rows`: the k-th entry belongs to `rows[k]`
    /// (gathered beforehand so that dense loops read them in order).
    pub grads: NodeGradients<'a>,
    /// Where each row of the data sits among `rows`, and their totals: what
    /// sparse columns need (`None` when the data has none).
    pub slots: Option<SlotView<'a>>,
}

/// The positions of one node's rows among all rows (see [`RowSlots`]) and
/// the node's totals.
#[derive(Debug, Clone, Copy)]
pub struct SlotView<'a> {
    /// `generation << 32 | position` per row of the data; empty when the
    /// node holds every row (row r is then at position r).
    slots: &'a [u64],
    generation: u64,
    total: HistBin,
}

impl SlotView<'_> {
    /// The position of row `r` among the node's rows, if it is one of them.
    #[inline(always)]
    fn position(&self, r: u32) -> Option<usize> {
        if self.slots.is_empty() {
            return Some(r as usize);
        }
        let s = self.slots[r as usize];
        (s >> 32 == self.generation).then_some((s & 0xffff_ffff) as usize)
    }
}

/// Space to mark a node's rows among all n rows, reused from node to node:
/// a stamp per row instead of a cleared array, so marking costs the node's
/// rows, not n.
#[derive(Debug, Clone, Default)]
pub struct RowSlots {
    slots: Vec<u64>,
    generation: u64,
}

impl RowSlots {
    /// Mark `rows` (of `n_rows`), whose gradients are `grads`.
    pub fn mark(&mut self, n_rows: usize, rows: &[u32], grads: NodeGradients) -> SlotView<'_> {
        let total = node_total(grads);
        if rows.len() == n_rows {
            return SlotView {
                slots: &[],
                generation: 0,
                total,
            };
        }
        if self.slots.len() != n_rows || self.generation >= u32::MAX as u64 {
            self.slots = vec![0; n_rows];
            self.generation = 0;
        }
        self.generation += 1;
        let stamp = self.generation << 32;
        for (k, &r) in rows.iter().enumerate() {
            self.slots[r as usize] = stamp | k as u64;
        }
        SlotView {
            slots: &self.slots,
            generation: self.generation,
            total,
        }
    }
}

/// Σ g, Σ h and the count of a node's gathered gradients.
fn node_total(grads: NodeGradients) -> HistBin {
    let mut total = HistBin::default();
    match grads {
        NodeGradients::Pairs(pairs) => {
            for &[g, h] in pairs {
                total.g += g;
                total.h += h;
            }
        }
        NodeGradients::ConstantHessian { grad, hess } => {
            total.g = grad.iter().sum();
            total.h = grad.len() as f64 * hess;
        }
    }
    total.n = grads.len() as u32;
    total
}

/// Turn a parent's bins into the sibling's: `parent − child`, bin by bin.
#[inline]
pub fn subtract_feature(parent: &mut [HistBin], child: &[HistBin]) {
    for (p, c) in parent.iter_mut().zip(child) {
        p.g -= c.g;
        p.h -= c.h;
        p.n -= c.n;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::binning::bin_matrix;

    fn small_data() -> BinnedData {
        // 6 rows x 2 features, row-major
        let x = [
            0.0,
            5.0,
            1.0,
            5.0,
            2.0,
            6.0,
            0.0,
            6.0,
            1.0,
            f64::NAN,
            2.0,
            7.0,
        ];
        bin_matrix(&x, 6, 2, 255, 100, 0, &crate::interrupt::never).unwrap()
    }

    #[test]
    fn interleaved_copies_sum_what_one_copy_sums() {
        let mut rng = crate::rng::Rng::new(5);
        let n = 20_000;
        // 80% of the rows in bin 0, the rest over 12 bins.
        let bins: Vec<u8> = (0..n)
            .map(|_| {
                if rng.next_f64() < 0.8 {
                    0
                } else {
                    1 + rng.below(12) as u8
                }
            })
            .collect();
        let pairs: Vec<[f64; 2]> = (0..n)
            .map(|_| [rng.next_f64() - 0.5, rng.next_f64()])
            .collect();
        let (mut one, mut four) = (vec![HistBin::default(); 14], vec![HistBin::default(); 14]);
        fill_bins(
            &mut one,
            bins.iter().copied(),
            NodeGradients::Pairs(&pairs),
            false,
        );
        fill_bins(
            &mut four,
            bins.iter().copied(),
            NodeGradients::Pairs(&pairs),
            true,
        );
        for (a, b) in one.iter().zip(&four) {
            assert_eq!(a.n, b.n);
            assert!((a.g - b.g).abs() <= 1e-9 * (1.0 + a.g.abs()), "{a:?} {b:?}");
            assert!((a.h - b.h).abs() <= 1e-9 * (1.0 + a.h.abs()), "{a:?} {b:?}");
        }
        assert_eq!(four.iter().map(|b| b.n).sum::<u32>(), n as u32);
    }

    /// Build `hist` over `rows`, with row slots as the grower gives them.
    fn build(
        hist: &mut Histogram,
        layout: &HistLayout,
        data: &BinnedData,
        features: &[usize],
        rows: &[u32],
        grads: NodeGradients,
    ) {
        let mut slots = RowSlots::default();
        let slots = Some(slots.mark(data.n_rows, rows, grads));
        hist.build(layout, data, features, NodeRows { rows, grads, slots });
    }

    #[test]
    fn sparse_columns_give_the_bins_of_the_rows() {
        let mut rng = crate::rng::Rng::new(11);
        let (n, d) = (400, 3);
        // Feature 0 is 2% non-zero (stored sparse), feature 1 mostly NaN
        // (sparse with NaN as the default bin), feature 2 dense.
        let x: Vec<f64> = (0..n * d)
            .map(|i| match i % d {
                0 if rng.next_f64() < 0.02 => 1.0 + rng.below(3) as f64,
                0 => 0.0,
                1 if rng.next_f64() < 0.03 => rng.next_f64(),
                1 => f64::NAN,
                _ => rng.next_f64(),
            })
            .collect();
        let data = bin_matrix(&x, n, d, 255, n, 0, &crate::interrupt::never).unwrap();
        assert!(matches!(data.column(0), Column::Sparse(_)));
        assert!(matches!(data.column(1), Column::Sparse(_)));
        assert!(matches!(data.column(2), Column::Dense(_)));
        let layout = HistLayout::new(&data);
        let g: Vec<f64> = (0..n).map(|_| rng.next_f64() - 0.5).collect();
        let h: Vec<f64> = (0..n).map(|_| 0.1 + rng.next_f64()).collect();
        let all: Vec<u32> = (0..n as u32).collect();
        let some: Vec<u32> = (0..n as u32)
            .filter(|_| rng.next_f64() < 0.3)
            .rev()
            .collect();
        for rows in [&all, &some] {
            let node_pairs: Vec<[f64; 2]> = rows
                .iter()
                .map(|&r| [g[r as usize], h[r as usize]])
                .collect();
            let mut hist = Histogram::zeros(&layout);
            build(
                &mut hist,
                &layout,
                &data,
                &[0, 1, 2],
                rows,
                NodeGradients::Pairs(&node_pairs),
            );
            for f in 0..d {
                let mut want = vec![HistBin::default(); data.mappers[f].n_bins()];
                for &r in rows.iter() {
                    let slot = &mut want[data.bin_at(f, r as usize) as usize];
                    slot.g += g[r as usize];
                    slot.h += h[r as usize];
                    slot.n += 1;
                }
                for (a, b) in hist.feature(&layout, f).iter().zip(&want) {
                    assert_eq!(a.n, b.n, "feature {f}");
                    assert!(
                        (a.g - b.g).abs() < 1e-9 && (a.h - b.h).abs() < 1e-9,
                        "{a:?} {b:?}"
                    );
                }
            }
        }
    }

    fn pairs(g: &[f64], h: &[f64]) -> Vec<[f64; 2]> {
        g.iter().zip(h).map(|(&g, &h)| [g, h]).collect()
    }

    #[test]
    fn bins_sum_to_node_totals() {
        let data = small_data();
        let layout = HistLayout::new(&data);
        let rows: Vec<u32> = (0..6).collect();
        let g = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
        let h = [1.0; 6];
        let mut hist = Histogram::zeros(&layout);
        build(
            &mut hist,
            &layout,
            &data,
            &[0, 1],
            &rows,
            NodeGradients::Pairs(&pairs(&g, &h)),
        );
        for f in 0..2 {
            let total: f64 = hist.feature(&layout, f).iter().map(|b| b.g).sum();
            let count: u32 = hist.feature(&layout, f).iter().map(|b| b.n).sum();
            assert_eq!(total, 21.0);
            assert_eq!(count, 6);
        }
        // feature 0: value 0 at rows 0, 3 -> g = 1 + 4
        assert_eq!(hist.feature(&layout, 0)[0].g, 5.0);
        // feature 1: NaN bin holds row 4
        let missing = data.mappers[1].missing_bin() as usize;
        assert_eq!(hist.feature(&layout, 1)[missing].g, 5.0);
    }

    #[test]
    fn constant_hessians_give_the_same_bins() {
        let data = small_data();
        let layout = HistLayout::new(&data);
        let rows: Vec<u32> = vec![0, 2, 3, 5];
        let g = [0.5, -1.0, 2.0, 0.25];
        let mut per_row = Histogram::zeros(&layout);
        let grads = pairs(&g, &[2.0; 4]);
        build(
            &mut per_row,
            &layout,
            &data,
            &[0, 1],
            &rows,
            NodeGradients::Pairs(&grads),
        );
        let mut constant = Histogram::zeros(&layout);
        build(
            &mut constant,
            &layout,
            &data,
            &[0, 1],
            &rows,
            NodeGradients::ConstantHessian {
                grad: &g,
                hess: 2.0,
            },
        );
        assert_eq!(per_row.bins, constant.bins);
    }

    #[test]
    fn subtraction_equals_direct_build() {
        let data = small_data();
        let layout = HistLayout::new(&data);
        let g = [1.0, -2.0, 3.0, 0.5, 5.0, 6.0];
        let h = [1.0, 2.0, 1.0, 2.0, 1.0, 2.0];
        let all: Vec<u32> = (0..6).collect();
        let left: Vec<u32> = vec![0, 2, 5];
        let right: Vec<u32> = vec![1, 3, 4];
        let gather =
            |rows: &[u32], v: &[f64]| rows.iter().map(|&r| v[r as usize]).collect::<Vec<_>>();
        let mut parent = Histogram::zeros(&layout);
        build(
            &mut parent,
            &layout,
            &data,
            &[0, 1],
            &all,
            NodeGradients::Pairs(&pairs(&g, &h)),
        );
        let mut l = Histogram::zeros(&layout);
        build(
            &mut l,
            &layout,
            &data,
            &[0, 1],
            &left,
            NodeGradients::Pairs(&pairs(&gather(&left, &g), &gather(&left, &h))),
        );
        let mut r = Histogram::zeros(&layout);
        build(
            &mut r,
            &layout,
            &data,
            &[0, 1],
            &right,
            NodeGradients::Pairs(&pairs(&gather(&right, &g), &gather(&right, &h))),
        );
        for f in 0..2 {
            let child = l.feature(&layout, f).to_vec();
            subtract_feature(&mut parent.bins[layout.range(f)], &child);
        }
        for (a, b) in parent.bins.iter().zip(&r.bins) {
            assert!((a.g - b.g).abs() < 1e-12 && (a.h - b.h).abs() < 1e-12 && a.n == b.n);
        }
    }
}
