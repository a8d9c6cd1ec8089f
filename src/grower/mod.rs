//! Leaf-wise (best-first) growth of one tree, as in LightGBM: repeatedly
//! split the open leaf with the largest gain until `max_leaves` is reached or
//! no leaf has a split worth making.
//!
//! A node scans every feature of its tree (exhaustive search) or the
//! features a per-node source gives it (see `per_node.rs`): with GT-GBM the
//! used features and the candidates of its group tests, in a forest m
//! features drawn for the node.

mod group_tested;
mod per_node;

use crate::binning::{BinnedData, Column};
use crate::error::Result;
use crate::histogram::{
    build_feature, finish_sparse, subtract_feature, HistBin, HistLayout, Histogram, NodeGradients,
    NodeRows, RowSlots,
};
use crate::interrupt::{self, ShouldStop};
use crate::params::{BoosterParams, SplitSearch};
use crate::penalty::Changed;
use crate::routing::partition_split;
use crate::selection::TreeSelection;
use crate::sparse_rows::SparseRows;
use crate::split::{
    best_split_of_feature, split_candidates, NodeStats, SplitCandidate, SplitConstraints,
};
use crate::tree::{Node, Tree};
use group_tested::GroupTesting;
pub(crate) use group_tested::{
    draw_subsets_over, newly_excluded, node_features, scaled_constraints,
};
pub(crate) use per_node::best_feature;
pub use per_node::NodeSampling;
use per_node::PerNode;
use rayon::prelude::*;
use std::sync::Arc;

/// Where a leaf's rows sit in [`GrownTree::rows`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LeafSegment {
    /// The leaf's index in the tree's nodes.
    pub node: usize,
    /// First position in `rows`.
    pub begin: usize,
    /// Number of rows.
    pub count: usize,
}

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

/// A leaf that may still be split.
struct OpenLeaf {
    segment: LeafSegment,
    depth: usize,
    stats: NodeStats,
    /// Kept only while the leaf has a split candidate (needed for the
    /// subtraction trick when it is split).
    hist: Option<Histogram>,
    /// The features `hist` holds, when not all of them (group testing).
    /// Shared by two siblings, which hold the same features.
    layout: Option<Arc<HistLayout>>,
    /// Group testing: the candidates found for this leaf (its children
    /// inherit them).
    found: Vec<usize>,
    /// The best split of every feature that has one (ascending features);
    /// kept so that the leaf can be re-scored when the penalty changes.
    candidates: Vec<SplitCandidate>,
    /// The candidate with the best penalized score, if it beats `min_gain`.
    best: Option<Scored>,
    /// Exhaustive search: the tree's features that this leaf (and its
    /// subtree) can still split on, when some cannot (see [`stays_live`]);
    /// `None` for all of them.
    live: Option<Arc<Vec<usize>>>,
}

/// A split and its penalized score (`gain − deduction`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Scored {
    pub split: SplitCandidate,
    pub score: f64,
}

/// The candidate with the best penalized score, if it beats `min_gain`
/// (the first one on ties).
pub(crate) fn best_scored(
    candidates: &[SplitCandidate],
    selection: &TreeSelection,
    min_gain: f64,
) -> Option<Scored> {
    let mut best: Option<Scored> = None;
    for split in candidates {
        let score = split.gain - selection.deduction(split.feature);
        if score > min_gain && best.is_none_or(|b| score > b.score) {
            best = Some(Scored {
                split: *split,
                score,
            });
        }
    }
    best
}

/// `best` after only `freed` features got cheaper: it changes only if one
/// of their `candidates` (ascending features) now beats it.
pub(crate) fn best_after_freed(
    mut best: Option<Scored>,
    candidates: &[SplitCandidate],
    freed: &[usize],
    selection: &TreeSelection,
    min_gain: f64,
) -> Option<Scored> {
    for &f in freed {
        let Ok(k) = candidates.binary_search_by_key(&f, |s| s.feature) else {
            continue;
        };
        let split = candidates[k];
        let score = split.gain - selection.deduction(f);
        let better = match best {
            None => true,
            Some(b) => score > b.score || (score == b.score && f < b.split.feature),
        };
        if score > min_gain && better {
            best = Some(Scored { split, score });
        }
    }
    best
}

/// Whether a node of `count` rows at `depth` may be split at all;
/// `min_split_rows` is the papers' α·n.
pub(crate) fn may_split(
    params: &BoosterParams,
    min_split_rows: usize,
    count: usize,
    depth: usize,
) -> bool {
    let depth_ok = params.max_depth.is_none_or(|m| depth < m);
    depth_ok && count >= 2 && count >= 2 * params.min_samples_leaf && count >= min_split_rows
}

/// Turn leaf `node` of `nodes` into the internal node of `split` (cut
/// points `mapper`) with two new leaves; returns the left leaf's index (the
/// right one follows it).
pub(crate) fn record_split(
    nodes: &mut Vec<Node>,
    node: usize,
    split: &SplitCandidate,
    mapper: &crate::binning::BinMapper,
    params: &BoosterParams,
) -> usize {
    let (lr, l2) = (params.learning_rate, params.l2_regularization);
    let left_id = nodes.len();
    nodes.push(Node::leaf(split.left.leaf_value(l2) * lr, split.left.n));
    nodes.push(Node::leaf(split.right.leaf_value(l2) * lr, split.right.n));
    let parent = &mut nodes[node];
    parent.is_leaf = false;
    parent.feature = split.feature as u32;
    parent.threshold = mapper.threshold_of_bin(split.bin);
    parent.threshold_bin = split.bin;
    parent.default_left = split.default_left;
    parent.left = left_id as u32;
    parent.right = left_id as u32 + 1;
    parent.gain = split.gain;
    left_id
}

/// Grows trees on one binned data set; keeps its histogram buffers from one
/// tree to the next.
pub struct TreeGrower<'a> {
    data: &'a BinnedData,
    layout: HistLayout,
    params: &'a BoosterParams,
    constraints: SplitConstraints,
    /// The papers' α·n: nodes with fewer rows are not split.
    min_split_rows: usize,
    /// Histogram buffers not in use (allocating and zeroing d·256 bins per
    /// node would cost more than building the histogram).
    pool: Vec<Histogram>,
    /// Gathered gradients of the node being built (reused between nodes).
    node_buf: NodeBuffers,
    /// The hessian of every row, when all are equal (set per tree).
    constant_hess: Option<f64>,
    /// Where each node's features come from, when not all the tree's
    /// (group testing, per-node sampling).
    per_node: Option<PerNode>,
    /// Gathered gradients of the larger sibling (per-node features).
    large_buf: NodeBuffers,
    /// Polled before every split, so that a large tree stops early.
    should_stop: &'a ShouldStop<'a>,
    /// The splittable sparse columns row by row, when there are any.
    sparse_rows: Option<SparseRows>,
}

impl<'a> TreeGrower<'a> {
    /// A grower for `data` with `params`. With group testing this draws the
    /// subsets and builds their cache, which can fail (memory, Ctrl-C).
    pub fn new(
        data: &'a BinnedData,
        params: &'a BoosterParams,
        should_stop: &'a ShouldStop<'a>,
    ) -> Result<Self> {
        let per_node = match params.split_search.resolve(data, params) {
            SplitSearch::GroupTesting => Some(PerNode::GroupTesting(GroupTesting::new(
                data,
                params,
                should_stop,
            )?)),
            SplitSearch::Exhaustive | SplitSearch::Auto => None,
        };
        Ok(TreeGrower {
            data,
            layout: HistLayout::for_splittable(data),
            params,
            constraints: SplitConstraints {
                min_samples_leaf: params.min_samples_leaf.min(u32::MAX as usize) as u32,
                min_child_weight: params.min_child_weight,
                l2: params.l2_regularization,
            },
            min_split_rows: (params.min_split_fraction * data.n_rows as f64).ceil() as usize,
            pool: Vec::new(),
            node_buf: NodeBuffers::default(),
            constant_hess: None,
            per_node,
            large_buf: NodeBuffers::default(),
            should_stop,
            sparse_rows: SparseRows::new(data, |f| data.splittable[f]),
        })
    }

    /// With group testing: the number of feature subsets p and the bytes of
    /// the prefix-sum cache.
    pub fn group_testing_info(&self) -> Option<(usize, usize)> {
        match &self.per_node {
            Some(PerNode::GroupTesting(gt)) => Some(gt.info()),
            _ => None,
        }
    }

    /// Each node of the following trees scans only the features `sampling`
    /// draws for it (random forests). Not with group testing.
    pub fn sample_per_node(&mut self, sampling: NodeSampling) {
        assert!(
            !matches!(self.per_node, Some(PerNode::GroupTesting(_))),
            "per-node sampling replaces group testing"
        );
        self.per_node = Some(PerNode::Sampled(sampling));
    }

    /// Grow one tree on `rows` (ascending; all rows `0..n` when not
    /// subsampling), considering only `features` (ascending), with splits
    /// scored by `penalty`. `grad`/`hess` have one entry per row of the data.
    /// Fails only when asked to stop.
    pub fn grow(
        &mut self,
        grad: &[f64],
        hess: &[f64],
        rows: Vec<u32>,
        features: &[usize],
        selection: &mut TreeSelection,
    ) -> Result<GrownTree> {
        let lr = self.params.learning_rate;
        let l2 = self.constraints.l2;
        let mut rows = rows;
        let root_stats = NodeStats::of_rows(&rows, grad, hess);
        let mut nodes = vec![Node::leaf(root_stats.leaf_value(l2) * lr, root_stats.n)];
        let mut root = OpenLeaf {
            segment: LeafSegment {
                node: 0,
                begin: 0,
                count: rows.len(),
            },
            depth: 0,
            stats: root_stats,
            hist: None,
            layout: None,
            found: Vec::new(),
            candidates: Vec::new(),
            best: None,
            live: None,
        };
        if let Some(source) = &mut self.per_node {
            source.begin_tree(
                features,
                selection.used_in_order(),
                selection.omega_closed(),
            );
        }
        let root_scale = root_scale(&rows, grad, hess, root_stats);
        selection.begin_tree(root_scale);
        // Squared error without weights: every hessian is the same.
        self.constant_hess = hess.iter().all(|&h| h == hess[0]).then(|| hess[0]);
        if self.can_split(&root) && self.per_node.is_some() {
            self.evaluate_root_per_node(&mut root, &rows, grad, hess, features, selection);
        } else if self.can_split(&root) {
            let (hist, candidates) = self.scan_root(&rows, grad, hess, features, root.stats);
            self.attach(&mut root, hist, candidates, selection);
        }
        let mut leaves = vec![root];
        while leaves.len() < self.params.max_leaves {
            interrupt::check(self.should_stop)?;
            let Some(i) = best_leaf(&leaves) else { break };
            let split = leaves[i]
                .best
                .take()
                .expect("best_leaf returns leaves with a split")
                .split;
            leaves[i].candidates = Vec::new();
            let parent_hist = leaves[i]
                .hist
                .take()
                .expect("a leaf with a split keeps its histogram");
            let parent_layout = leaves[i].layout.take();
            let (mut left, mut right) = self.apply_split(&mut nodes, &mut rows, &leaves[i], &split);
            // A feature (or bag) just became free, or the door to new
            // features closed: the cached choices of the other leaves are
            // stale.
            let changed = selection.commit(split.feature);
            if let Some(source) = &mut self.per_node {
                source.follow(selection.used_in_order(), selection.omega_closed());
            }
            match changed {
                Changed::Nothing => {}
                Changed::Freed(features) => {
                    for leaf in leaves.iter_mut() {
                        self.consider_freed(leaf, &features, selection);
                    }
                }
                Changed::Everything => {
                    for leaf in leaves.iter_mut() {
                        self.rescore(leaf, selection);
                    }
                }
            }
            if leaves.len() + 1 < self.params.max_leaves {
                self.evaluate_siblings(
                    &mut left,
                    &mut right,
                    parent_hist,
                    parent_layout,
                    &rows,
                    grad,
                    hess,
                    features,
                    selection,
                );
            } else {
                self.recycle(parent_hist);
            }
            leaves[i] = left;
            leaves.push(right);
        }
        for leaf in &mut leaves {
            if let Some(h) = leaf.hist.take() {
                self.recycle(h);
            }
        }
        Ok(GrownTree {
            tree: Tree {
                output: 0,
                round: None,
                nodes,
            },
            rows,
            leaves: leaves.iter().map(|l| l.segment).collect(),
            root_scale,
        })
    }

    /// The root scale of a tree on `rows` and the best split of each of
    /// `features` at its root, by exhaustive search whatever the per-node
    /// source: what μ_max is computed from (see [`crate::mu_max`]).
    pub fn root_candidates(
        &mut self,
        grad: &[f64],
        hess: &[f64],
        rows: &[u32],
        features: &[usize],
    ) -> (f64, Vec<SplitCandidate>) {
        let stats = NodeStats::of_rows(rows, grad, hess);
        let scale = root_scale(rows, grad, hess, stats);
        let root = LeafSegment {
            node: 0,
            begin: 0,
            count: rows.len(),
        };
        if !self.can_split_segment(root, 0) {
            return (scale, Vec::new());
        }
        self.constant_hess = hess.iter().all(|&h| h == hess[0]).then(|| hess[0]);
        let (hist, candidates) = self.scan_root(rows, grad, hess, features, stats);
        self.recycle(hist);
        (scale, candidates)
    }

    /// A histogram of `features` over all the root's rows, and their best
    /// splits.
    fn scan_root(
        &mut self,
        rows: &[u32],
        grad: &[f64],
        hess: &[f64],
        features: &[usize],
        stats: NodeStats,
    ) -> (Histogram, Vec<SplitCandidate>) {
        let mut hist = self.take_hist();
        let mut buf = std::mem::take(&mut self.node_buf);
        let node = buf.gather(self.data, rows, grad, hess, self.constant_hess);
        hist.build(&self.layout, self.data, features, node);
        let candidates = split_candidates(&hist, &self.layout, features, stats, &self.constraints);
        self.node_buf = buf;
        (hist, candidates)
    }

    fn can_split(&self, leaf: &OpenLeaf) -> bool {
        self.can_split_segment(leaf.segment, leaf.depth)
    }

    fn can_split_segment(&self, segment: LeafSegment, depth: usize) -> bool {
        may_split(self.params, self.min_split_rows, segment.count, depth)
    }

    /// Keep a histogram of all features for a later node; drop one of a
    /// node's own features (group testing sizes each one to its node).
    fn recycle(&mut self, hist: Histogram) {
        if self.per_node.is_none() {
            self.pool.push(hist);
        }
    }

    fn take_hist(&mut self) -> Histogram {
        self.pool
            .pop()
            .unwrap_or_else(|| Histogram::zeros(&self.layout))
    }

    /// Give `leaf` its candidates and the histogram they came from, and
    /// choose its best split.
    fn attach(
        &mut self,
        leaf: &mut OpenLeaf,
        hist: Histogram,
        candidates: Vec<SplitCandidate>,
        selection: &TreeSelection,
    ) {
        leaf.candidates = candidates;
        leaf.hist = Some(hist);
        self.rescore(leaf, selection);
    }

    /// Only `freed` features got cheaper: the leaf's best changes only if
    /// one of their candidates now beats it.
    fn consider_freed(&self, leaf: &mut OpenLeaf, freed: &[usize], selection: &TreeSelection) {
        let min_gain = self.params.min_gain;
        leaf.best = best_after_freed(leaf.best, &leaf.candidates, freed, selection, min_gain);
    }

    /// Choose the leaf's best candidate under the current penalty; a leaf
    /// left without one gives its histogram back to the pool.
    fn rescore(&mut self, leaf: &mut OpenLeaf, selection: &TreeSelection) {
        leaf.best = best_scored(&leaf.candidates, selection, self.params.min_gain);
        // A candidate that only the penalty holds back may win once its
        // feature is paid for; a leaf with none worth anything is done.
        let promising = leaf
            .candidates
            .iter()
            .any(|s| s.gain > self.params.min_gain);
        if !promising {
            leaf.candidates = Vec::new();
            leaf.layout = None;
            if let Some(h) = leaf.hist.take() {
                self.recycle(h);
            }
        }
    }

    /// Turn `parent` into an internal node; partition its rows; return the
    /// two new leaves (without histograms).
    fn apply_split(
        &self,
        nodes: &mut Vec<Node>,
        rows: &mut [u32],
        parent: &OpenLeaf,
        split: &SplitCandidate,
    ) -> (OpenLeaf, OpenLeaf) {
        let seg = parent.segment;
        let mapper = &self.data.mappers[split.feature];
        let segment = &mut rows[seg.begin..seg.begin + seg.count];
        let (f, bin, default_left) = (split.feature, split.bin, split.default_left);
        let n_left = partition_split(segment, self.data, f, bin, default_left);
        debug_assert_eq!(n_left as u32, split.left.n);
        let left_id = record_split(nodes, seg.node, split, mapper, self.params);
        let child = |node, begin, count, stats| OpenLeaf {
            segment: LeafSegment { node, begin, count },
            depth: parent.depth + 1,
            stats,
            hist: None,
            layout: None,
            found: parent.found.clone(),
            candidates: Vec::new(),
            best: None,
            live: parent.live.clone(),
        };
        (
            child(left_id, seg.begin, n_left, split.left),
            child(
                left_id + 1,
                seg.begin + n_left,
                seg.count - n_left,
                split.right,
            ),
        )
    }

    /// Histograms and best splits of two new siblings, in one pass over the
    /// features: build the smaller child's bins of a feature, subtract them
    /// from the parent's to get the larger child's, and scan both while they
    /// are in cache. (Separate passes would stream every d·256-bin histogram
    /// through memory several times per split.)
    #[allow(clippy::too_many_arguments)]
    fn evaluate_siblings(
        &mut self,
        left: &mut OpenLeaf,
        right: &mut OpenLeaf,
        parent_hist: Histogram,
        parent_layout: Option<Arc<HistLayout>>,
        rows: &[u32],
        grad: &[f64],
        hess: &[f64],
        features: &[usize],
        selection: &TreeSelection,
    ) {
        let (small, large) = if left.segment.count <= right.segment.count {
            (left, right)
        } else {
            (right, left)
        };
        let small_ok = self.can_split(small);
        let large_ok = self.can_split(large);
        if !small_ok && !large_ok {
            self.recycle(parent_hist);
            return;
        }
        if let Some(parent_layout) = parent_layout {
            let parent = (parent_hist, parent_layout);
            let siblings = [(small, small_ok), (large, large_ok)];
            self.evaluate_siblings_per_node(siblings, parent, rows, grad, hess, selection);
            return;
        }
        let seg = small.segment;
        let seg_rows = &rows[seg.begin..seg.begin + seg.count];
        let mut buf = std::mem::take(&mut self.node_buf);
        let node = buf.gather(self.data, seg_rows, grad, hess, self.constant_hess);
        let mut small_hist = self.take_hist();
        let mut large_hist = parent_hist;
        let (data, c) = (self.data, &self.constraints);
        let (small_stats, large_stats) = (small.stats, large.stats);
        // The parent's live features (both siblings start with them).
        let parent_live = small.live.clone();
        let features = parent_live.as_deref().map_or(features, Vec::as_slice);
        // A sparse column's histogram is a few stored rows: tasks of a few
        // features would cost rayon more than the work they hold.
        let min_len = if data.has_sparse() { 64 } else { 4 };
        // The sparse columns row by row when the node's rows hold fewer of
        // their entries than the columns do (below the root, usually).
        let by_rows = match &mut self.sparse_rows {
            Some(sparse) if sparse.cost(seg_rows) < column_cost(data, sparse, features) => {
                sparse.fill(&mut small_hist, &self.layout, features, node)
            }
            _ => vec![false; features.len()],
        };
        let per_feature: Vec<(Option<SplitCandidate>, Option<SplitCandidate>, [bool; 2])> =
            small_hist
                .feature_slices_mut(&self.layout, features)
                .into_par_iter()
                .zip(large_hist.feature_slices_mut(&self.layout, features))
                .zip(&by_rows)
                .with_min_len(min_len)
                .map(|(((f, small_bins), (_, large_bins)), &filled)| {
                    match data.column(f) {
                        Column::Sparse(column) if filled => finish_sparse(
                            small_bins,
                            column,
                            node.slots.expect("slots"),
                            node.grads,
                        ),
                        _ => build_feature(small_bins, data, f, node),
                    }
                    let best_large = large_ok.then(|| {
                        subtract_feature(large_bins, small_bins);
                        best_split_of_feature(f, large_bins, large_stats, c)
                    });
                    let best_small =
                        small_ok.then(|| best_split_of_feature(f, small_bins, small_stats, c));
                    let live = [
                        small_ok && stays_live(data, f, small_bins, small_stats.n, c),
                        large_ok && stays_live(data, f, large_bins, large_stats.n, c),
                    ];
                    (best_small.flatten(), best_large.flatten(), live)
                })
                .collect();
        self.node_buf = buf;
        for (side, leaf) in [&mut *small, &mut *large].into_iter().enumerate() {
            if per_feature.iter().any(|p| !p.2[side]) {
                let live = features.iter().zip(&per_feature).filter(|(_, p)| p.2[side]);
                leaf.live = Some(Arc::new(live.map(|(&f, _)| f).collect()));
            }
        }
        let small_candidates = per_feature.iter().filter_map(|c| c.0).collect();
        let large_candidates = per_feature.iter().filter_map(|c| c.1).collect();
        self.attach(small, small_hist, small_candidates, selection);
        self.attach(large, large_hist, large_candidates, selection);
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

/// Whether a node of `node_rows` rows whose histogram of feature `f` is
/// `bins` (and so every node below it) may still split on `f`: a sparse
/// column needs
/// `min_samples_leaf` of the node's rows outside its default bin, since the
/// child without that bin holds only such rows. Features that fail are left
/// out of the node's subtree, so that histograms of sparse data cost the
/// columns that can still split, not every column with a few non-zeros.
fn stays_live(
    data: &BinnedData,
    f: usize,
    bins: &[HistBin],
    node_rows: u32,
    c: &SplitConstraints,
) -> bool {
    match data.column(f) {
        Column::Dense(_) => true,
        Column::Sparse(column) => {
            node_rows - bins[column.default_bin as usize].n >= c.min_samples_leaf
        }
    }
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

/// `Σ g²/h − G²/H` over the root rows: the largest gain any split of the
/// tree could reach in total (the root SSE for squared error). A-GBM's
/// scale `S`.
fn root_scale(rows: &[u32], grad: &[f64], hess: &[f64], root: NodeStats) -> f64 {
    scale_from_sums(row_scale_sum(rows, grad, hess), root)
}

/// `Σ g²/h` over `rows`: the additive part of [`root_scale`].
pub(crate) fn row_scale_sum(rows: &[u32], grad: &[f64], hess: &[f64]) -> f64 {
    rows.iter()
        .map(|&r| {
            let (g, h) = (grad[r as usize], hess[r as usize]);
            if h > 0.0 {
                g * g / h
            } else {
                0.0
            }
        })
        .sum()
}

/// The root scale from `Σ g²/h` over the root's rows and their sums.
pub(crate) fn scale_from_sums(per_row: f64, root: NodeStats) -> f64 {
    let total = if root.h > 0.0 {
        root.g * root.g / root.h
    } else {
        0.0
    };
    (per_row - total).max(0.0)
}

/// The open leaf with the best score (the first one on ties).
fn best_leaf(leaves: &[OpenLeaf]) -> Option<usize> {
    best_of(leaves.iter().map(|l| l.best))
}

/// The index of the best of these leaves' best splits (the first on ties).
pub(crate) fn best_of(bests: impl Iterator<Item = Option<Scored>>) -> Option<usize> {
    let mut best: Option<(usize, f64)> = None;
    for (i, b) in bests.enumerate() {
        if let Some(b) = b {
            if best.is_none_or(|(_, s)| b.score > s) {
                best = Some((i, b.score));
            }
        }
    }
    best.map(|(i, _)| i)
}
