//! The node source of rows held here ([`LocalRows`]), and [`LocalGrower`]:
//! the one grower over a binned data set, as the trainer, the forests and
//! μ_max use it.

use super::features::{NodeSampling, Sampled};
use super::group_tested::LocalTests;
use super::source::{NodeSource, RootHistogram, SiblingBins, Siblings};
use super::{Grown, LeafSegment, TreeGrower};
use crate::binning::{BinnedData, Column};
use crate::error::Result;
use crate::group_testing::DataShape;
use crate::histogram::{
    self, build_feature, build_feature_by_rows, finish_sparse, HistBin, HistLayout, Histogram,
    NodeGradients, NodeRows, RowSlots,
};
use crate::interrupt::ShouldStop;
use crate::params::{BoosterParams, SplitSearch};
use crate::routing::partition_split;
use crate::selection::TreeSelection;
use crate::sparse_rows::SparseRows;
use crate::split::{NodeStats, SplitCandidate, SplitConstraints};
use crate::tree::Tree;

/// A grown tree with the rows of each leaf (for updating the training
/// predictions without traversing the tree).
#[derive(Debug, Clone)]
pub struct GrownTree {
    /// The tree.
    pub tree: Tree,
    /// The rows the tree was grown on, grouped by leaf.
    pub rows: Vec<u32>,
    /// The segment of every leaf.
    pub leaves: Vec<LeafSegment>,
    /// `Σ g²/h − G²/H` over the root's rows (the A-GBM scale; the root SSE
    /// for squared error).
    pub root_scale: f64,
}

/// What a local source keeps from one tree to the next: buffers, the
/// sparse columns row by row, and group testing's cache.
pub(crate) struct LocalState {
    /// Gathered gradients of the node being built (the smaller sibling).
    small: NodeBuffers,
    /// Gathered gradients of the larger sibling (features its parent's
    /// histogram lacks).
    large: NodeBuffers,
    /// The splittable sparse columns row by row, when there are any.
    sparse_rows: Option<SparseRows>,
    tests: Option<LocalTests>,
}

/// Grows trees on one binned data set.
pub struct LocalGrower<'a> {
    data: &'a BinnedData,
    pub(super) grower: TreeGrower<'a>,
    state: LocalState,
}

impl<'a> LocalGrower<'a> {
    /// A grower for `data` with `params`. With group testing this draws the
    /// subsets and builds their cache, which can fail (memory, Ctrl-C).
    pub fn new(
        data: &'a BinnedData,
        params: &'a BoosterParams,
        should_stop: &'a ShouldStop<'a>,
    ) -> Result<Self> {
        let search = params.split_search.resolve(&DataShape::of(data), params);
        let tests = match search {
            SplitSearch::GroupTesting => Some(LocalTests::new(data, params, should_stop)?),
            SplitSearch::Exhaustive | SplitSearch::Auto => None,
        };
        let grower = TreeGrower::new(
            &data.mappers,
            &data.splittable,
            data.n_rows,
            params,
            tests.is_some(),
            should_stop,
        );
        Ok(LocalGrower {
            data,
            grower,
            state: LocalState {
                small: NodeBuffers::default(),
                large: NodeBuffers::default(),
                sparse_rows: SparseRows::new(data, |f| data.splittable[f]),
                tests,
            },
        })
    }

    /// With group testing: the number of feature subsets p and the bytes of
    /// the prefix-sum cache.
    pub fn group_testing_info(&self) -> Option<(usize, usize)> {
        self.state.tests.as_ref().map(LocalTests::info)
    }

    /// Each node of the following trees scans only the features `sampling`
    /// draws for it (random forests). Not with group testing.
    pub fn sample_per_node(&mut self, sampling: NodeSampling) {
        assert!(
            self.state.tests.is_none(),
            "per-node sampling replaces group testing"
        );
        self.grower
            .choose_features(Box::new(Sampled::new(sampling)));
    }

    /// Grow one tree on `rows` (ascending; all rows `0..n` when not
    /// subsampling), considering only `features` (ascending), with splits
    /// scored by `selection`. `grad`/`hess` have one entry per row of the
    /// data. Fails only when asked to stop.
    pub fn tree(
        &mut self,
        grad: &[f64],
        hess: &[f64],
        rows: Vec<u32>,
        features: &[usize],
        selection: &mut TreeSelection,
    ) -> Result<GrownTree> {
        let mut source = LocalRows::new(self.data, &mut self.state, grad, hess, rows);
        let Grown {
            tree,
            leaves,
            root_scale,
        } = self.grower.grow(&mut source, features, selection)?;
        Ok(GrownTree {
            tree,
            rows: source.rows,
            leaves,
            root_scale,
        })
    }

    /// The root scale of a tree on `rows` and the best split of each of
    /// `features` at its root, by exhaustive search (what μ_max is
    /// computed from, see [`crate::mu_max`]).
    pub fn root_candidates(
        &mut self,
        grad: &[f64],
        hess: &[f64],
        rows: &[u32],
        features: &[usize],
    ) -> Result<(f64, Vec<SplitCandidate>)> {
        let mut source = LocalRows::new(self.data, &mut self.state, grad, hess, rows.to_vec());
        self.grower.root_candidates(&mut source, features)
    }
}

/// The rows of one tree, with their gradients: a [`NodeSource`] that
/// computes every sum itself. Its rows are partitioned as the tree grows,
/// so that each node's rows are a contiguous segment.
pub(crate) struct LocalRows<'a> {
    data: &'a BinnedData,
    state: &'a mut LocalState,
    grad: &'a [f64],
    hess: &'a [f64],
    rows: Vec<u32>,
    /// The hessian of every row, when all are equal (squared error without
    /// weights).
    constant_hess: Option<f64>,
}

impl<'a> LocalRows<'a> {
    fn new(
        data: &'a BinnedData,
        state: &'a mut LocalState,
        grad: &'a [f64],
        hess: &'a [f64],
        rows: Vec<u32>,
    ) -> Self {
        let constant_hess = hess.iter().all(|&h| h == hess[0]).then(|| hess[0]);
        LocalRows {
            data,
            state,
            grad,
            hess,
            rows,
            constant_hess,
        }
    }
}

impl NodeSource for LocalRows<'_> {
    fn root_count(&self) -> usize {
        self.rows.len()
    }

    fn root(&mut self, hist: Option<RootHistogram>) -> Result<(NodeStats, f64)> {
        let (stats, per_row) = root_sums(&self.rows, self.grad, self.hess);
        let scale = super::scale_from_sums(per_row, stats);
        if let Some(RootHistogram {
            hist,
            layout,
            features,
        }) = hist
        {
            let root = LeafSegment {
                node: 0,
                begin: 0,
                count: self.rows.len(),
            };
            self.histogram(root, features, layout, hist)?;
        }
        Ok((stats, scale))
    }

    fn histogram(
        &mut self,
        node: LeafSegment,
        features: &[usize],
        layout: &HistLayout,
        hist: &mut Histogram,
    ) -> Result<()> {
        let rows = &self.rows[node.begin..node.begin + node.count];
        let (grad, hess, ch) = (self.grad, self.hess, self.constant_hess);
        let gathered = self.state.small.gather(self.data, rows, grad, hess, ch);
        hist.build(layout, self.data, features, gathered);
        Ok(())
    }

    fn split(
        &mut self,
        node: LeafSegment,
        split: &SplitCandidate,
        left: usize,
    ) -> Result<(LeafSegment, LeafSegment)> {
        let segment = &mut self.rows[node.begin..node.begin + node.count];
        let f = split.feature;
        let left_bins = split.left_bins(self.data.mappers[f].missing_bin());
        let n_left = partition_split(segment, self.data, f, &left_bins);
        debug_assert_eq!(n_left as u32, split.left.n);
        Ok((
            LeafSegment {
                node: left,
                begin: node.begin,
                count: n_left,
            },
            LeafSegment {
                node: left + 1,
                begin: node.begin + n_left,
                count: node.count - n_left,
            },
        ))
    }

    fn siblings<'s>(
        &'s mut self,
        pair: Siblings<'_>,
        small_hist: &mut Histogram,
    ) -> Result<Box<dyn SiblingBins + 's>> {
        let data = self.data;
        let (grad, hess, ch) = (self.grad, self.hess, self.constant_hess);
        let small_rows = &self.rows[pair.small.begin..pair.small.begin + pair.small.count];
        let large_rows = &self.rows[pair.large.begin..pair.large.begin + pair.large.count];
        let LocalState {
            small,
            large,
            sparse_rows,
            ..
        } = &mut *self.state;
        let small = small.gather(data, small_rows, grad, hess, ch);
        // The sparse columns row by row when the node's rows hold fewer of
        // their entries than the columns do (below the root, usually).
        let by_rows = match sparse_rows {
            Some(sparse) if sparse.cost(small_rows) < column_cost(data, sparse, pair.features) => {
                sparse.fill(small_hist, pair.layout, pair.features, small)
            }
            _ => vec![false; pair.features.len()],
        };
        let large = (!pair.large_missing.is_empty())
            .then(|| large.gather(data, large_rows, grad, hess, ch));
        Ok(Box::new(LocalBins {
            data,
            small,
            large,
            by_rows,
            few: histogram::by_rows(pair.features.len()),
        }))
    }

    fn group_tests(
        &mut self,
        node: LeafSegment,
        stats: NodeStats,
        constraints: SplitConstraints,
    ) -> Result<Vec<usize>> {
        let rows = &self.rows[node.begin..node.begin + node.count];
        let (grad, hess, ch) = (self.grad, self.hess, self.constant_hess);
        let tests = self.state.tests.as_ref().expect("group testing");
        let gathered = self.state.small.gather(self.data, rows, grad, hess, ch);
        Ok(tests.candidates(self.data, rows, gathered.grads, stats, constraints))
    }

    fn exclude(&mut self, features: &[usize]) {
        let tests = self.state.tests.as_mut().expect("group testing");
        for &f in features {
            tests.exclude(f);
        }
    }
}

/// The local half of the sibling pass: the smaller sibling's bins built
/// from its gathered rows (or finished, for sparse columns filled row by
/// row), the larger one's from its own where its parent lacks a feature.
struct LocalBins<'a> {
    data: &'a BinnedData,
    small: NodeRows<'a>,
    large: Option<NodeRows<'a>>,
    /// Sparse columns filled row by row.
    by_rows: Vec<bool>,
    /// Few features: each built over blocks of rows in parallel.
    few: bool,
}

impl SiblingBins for LocalBins<'_> {
    fn small(&self, k: usize, f: usize, bins: &mut [HistBin]) {
        match self.data.column(f) {
            Column::Sparse(column) if self.by_rows[k] => finish_sparse(
                bins,
                column,
                self.small.slots.expect("slots"),
                self.small.grads,
            ),
            _ if self.few => build_feature_by_rows(bins, self.data, f, self.small),
            _ => build_feature(bins, self.data, f, self.small),
        }
    }

    fn large(&self, f: usize, bins: &mut [HistBin]) {
        let large = self.large.expect("the larger sibling's rows");
        match self.few {
            true => build_feature_by_rows(bins, self.data, f, large),
            false => build_feature(bins, self.data, f, large),
        }
    }

    /// A sparse column needs `min_samples_leaf` of the node's rows outside
    /// its default bin, since the child without that bin holds only such
    /// rows. Features that fail are left out of the node's subtree, so that
    /// histograms of sparse data cost the columns that can still split, not
    /// every column with a few non-zeros.
    fn stays_live(&self, f: usize, bins: &[HistBin], node_rows: u32, c: &SplitConstraints) -> bool {
        match self.data.column(f) {
            Column::Dense(_) => true,
            Column::Sparse(column) => {
                node_rows - bins[column.default_bin as usize].n >= c.min_samples_leaf
            }
        }
    }

    fn min_features_per_task(&self) -> usize {
        // A sparse column's histogram is a few stored rows: tasks of a few
        // features would cost rayon more than the work they hold.
        if self.data.has_sparse() {
            64
        } else {
            4
        }
    }
}

/// Entries a column-by-column fill of `features`' sparse columns held by
/// `sparse` reads.
fn column_cost(data: &BinnedData, sparse: &SparseRows, features: &[usize]) -> usize {
    features
        .iter()
        .filter(|&&f| sparse.holds(f))
        .map(|&f| match data.column(f) {
            Column::Sparse(column) => column.rows.len(),
            Column::Dense(_) => 0,
        })
        .sum()
}

/// Space for one node's gathered gradients and the positions of its rows.
#[derive(Default)]
pub(crate) struct NodeBuffers {
    pairs: Vec<[f64; 2]>,
    grad: Vec<f64>,
    slots: RowSlots,
}

impl NodeBuffers {
    /// The node of `rows`: their gradients (and hessians, unless all equal
    /// `constant_hess`) in the order of `rows`, and, when `data` stores some
    /// feature sparse, the rows' positions.
    pub(crate) fn gather<'a>(
        &'a mut self,
        data: &BinnedData,
        rows: &'a [u32],
        grad: &[f64],
        hess: &[f64],
        constant_hess: Option<f64>,
    ) -> NodeRows<'a> {
        let grads = match constant_hess {
            Some(h) => {
                self.grad.clear();
                self.grad.extend(rows.iter().map(|&r| grad[r as usize]));
                NodeGradients::ConstantHessian {
                    grad: &self.grad,
                    hess: h,
                }
            }
            None => {
                self.pairs.clear();
                self.pairs
                    .extend(rows.iter().map(|&r| [grad[r as usize], hess[r as usize]]));
                NodeGradients::Pairs(&self.pairs)
            }
        };
        let slots = data
            .has_sparse()
            .then(|| self.slots.mark(data.n_rows, rows, grads));
        NodeRows { rows, grads, slots }
    }
}

/// The sums over `rows` and `Σ g²/h` (the additive part of a root's
/// scale), in one pass; each sum is added in row order.
pub(crate) fn root_sums(rows: &[u32], grad: &[f64], hess: &[f64]) -> (NodeStats, f64) {
    let (mut g_sum, mut h_sum, mut scale) = (0.0, 0.0, 0.0);
    for &r in rows {
        let (g, h) = (grad[r as usize], hess[r as usize]);
        g_sum += g;
        h_sum += h;
        scale += if h > 0.0 { g * g / h } else { 0.0 };
    }
    let stats = NodeStats {
        g: g_sum,
        h: h_sum,
        n: rows.len() as u32,
    };
    (stats, scale)
}
