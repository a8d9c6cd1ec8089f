//! Nodes whose features differ from node to node: the seam between the
//! grower and the sources of a node's features. With exhaustive search
//! every node scans all the tree's features (no source). Otherwise a
//! [`PerNode`] source says which features a node scans:
//!
//! - group testing (GT-GBM): Ω and the candidates its tests find, both
//!   siblings scanning the union of their sets (see `group_tested.rs`);
//! - sampling (random forests): m of the tree's features drawn at each
//!   node, uniformly or by dynamic weights; each sibling scans only its own
//!   draw.
//!
//! Either way a node's histogram holds its features only (laid out per
//! node), and the larger sibling takes by subtraction the features its
//! parent holds.

use super::group_tested::GroupTesting;
use super::{OpenLeaf, TreeGrower};
use crate::binning::BinnedData;
use crate::feature_sampling::draw;
use crate::histogram::{
    build_feature, subtract_feature, HistLayout, Histogram, NodeGradients, NodeRows,
};
use crate::rng::Rng;
use crate::selection::TreeSelection;
use crate::split::{
    best_split_of_feature, split_candidates, NodeStats, SplitCandidate, SplitConstraints,
};
use rayon::prelude::*;
use std::sync::Arc;

/// Where a node's features come from.
pub(super) enum PerNode {
    GroupTesting(GroupTesting),
    Sampled(NodeSampling),
}

/// m features per node, drawn from the tree's features.
pub struct NodeSampling {
    /// Features per node.
    pub m: usize,
    /// Sampling weights by feature (`None`: uniform).
    pub weights: Option<Arc<Vec<f64>>>,
    /// Seed of the tree's draws; node k draws from `Rng::derive(seed, k)`,
    /// so the draws do not depend on the order nodes are split in.
    pub seed: u64,
    /// The tree's features (ascending).
    features: Vec<usize>,
}

impl NodeSampling {
    /// `m` features per node, with `weights` (or uniformly), seeded by `seed`.
    pub fn new(m: usize, weights: Option<Arc<Vec<f64>>>, seed: u64) -> Self {
        NodeSampling {
            m,
            weights,
            seed,
            features: Vec::new(),
        }
    }

    /// Node `node`'s features.
    fn draw(&self, node: usize) -> Vec<usize> {
        let mut rng = Rng::derive(self.seed, node as u64);
        draw(
            &mut rng,
            &self.features,
            self.m,
            self.weights.as_deref().map(Vec::as_slice),
        )
    }
}

impl PerNode {
    /// A tree starts that may use `features` (ascending), with Ω in entry
    /// order (`closed` once no feature outside it may enter).
    pub(super) fn begin_tree(&mut self, features: &[usize], omega: &[usize], closed: bool) {
        match self {
            PerNode::GroupTesting(gt) => {
                gt.begin_tree(features);
                gt.follow(omega, closed);
            }
            PerNode::Sampled(s) => s.features = features.to_vec(),
        }
    }

    /// A split was made and Ω (in entry order) may have grown or closed.
    pub(super) fn follow(&mut self, omega: &[usize], closed: bool) {
        if let PerNode::GroupTesting(gt) = self {
            gt.follow(omega, closed);
        }
    }

    /// The features node `node` found on its own: group tests of its rows,
    /// or its draw.
    fn found(&self, node: usize, test: TestedNode) -> Vec<usize> {
        match self {
            PerNode::GroupTesting(gt) => gt.candidates(
                test.data,
                test.rows,
                test.grads,
                test.stats,
                test.constraints,
            ),
            PerNode::Sampled(s) => s.draw(node),
        }
    }

    /// The features two siblings' histograms hold, ascending.
    fn node_features(&self, omega: &[usize], found: &[&[usize]]) -> Vec<usize> {
        match self {
            PerNode::GroupTesting(gt) => gt.node_features(omega, found),
            PerNode::Sampled(_) => {
                let mut features: Vec<usize> =
                    found.iter().flat_map(|c| c.iter().copied()).collect();
                features.sort_unstable();
                features.dedup();
                features
            }
        }
    }
}

/// The feature of the best of a root's `candidates` under the penalty, if
/// it beats `min_gain` (the first one on ties): the root's rescue when its
/// group tests found nothing worth a split.
pub(crate) fn best_feature(
    candidates: &[SplitCandidate],
    selection: &TreeSelection,
    min_gain: f64,
) -> Option<usize> {
    candidates
        .iter()
        .map(|s| (s.feature, s.gain - selection.deduction(s.feature)))
        .filter(|&(_, score)| score > min_gain)
        .fold(None, |best: Option<(usize, f64)>, (f, score)| match best {
            Some((_, b)) if b >= score => best,
            _ => Some((f, score)),
        })
        .map(|(f, _)| f)
}

/// A node's rows and gradients, for its group tests.
#[derive(Clone, Copy)]
struct TestedNode<'a> {
    data: &'a BinnedData,
    rows: &'a [u32],
    grads: NodeGradients<'a>,
    stats: NodeStats,
    constraints: SplitConstraints,
}

impl TreeGrower<'_> {
    /// The root's features, histogram and best split. `features` are the
    /// tree's.
    ///
    /// Group testing: when neither Ω nor the candidates give the root a
    /// split, the group tests may have missed every feature worth one, and
    /// the fit would end here (the next round would see the same
    /// gradients). So the root is then scanned over all `features`, once,
    /// and the best of them joins its candidates: group testing never stops
    /// a fit that exhaustive search would go on with. (A sampled root
    /// without a split is a leaf, as in a random forest.)
    pub(super) fn evaluate_root_per_node(
        &mut self,
        root: &mut OpenLeaf,
        rows: &[u32],
        grad: &[f64],
        hess: &[f64],
        features: &[usize],
        selection: &TreeSelection,
    ) {
        let source = self.per_node.as_ref().expect("a per-node source");
        let mut buf = std::mem::take(&mut self.node_buf);
        let node = buf.gather(self.data, rows, grad, hess, self.constant_hess);
        let test = TestedNode {
            data: self.data,
            rows,
            grads: node.grads,
            stats: root.stats,
            constraints: self.constraints,
        };
        root.found = source.found(root.segment.node, test);
        // (Not once Ω is full: no feature outside it could be split on.)
        let rescues = matches!(source, PerNode::GroupTesting(gt) if gt.open());
        self.evaluate_root_features(root, node, selection);
        if root.best.is_none() && rescues {
            if let Some(f) = self.best_root_feature(root.stats, node, features, selection) {
                root.found.push(f);
                root.found.sort_unstable();
                self.evaluate_root_features(root, node, selection);
            }
        }
        self.node_buf = buf;
    }

    /// The root's histogram and best split over its features.
    fn evaluate_root_features(
        &mut self,
        root: &mut OpenLeaf,
        node: NodeRows,
        selection: &TreeSelection,
    ) {
        let source = self.per_node.as_ref().expect("a per-node source");
        let features = source.node_features(selection.used_in_order(), &[&root.found]);
        let layout = HistLayout::for_features(self.data, &features);
        let mut hist = Histogram::zeros(&layout);
        hist.build(&layout, self.data, &features, node);
        let candidates = split_candidates(&hist, &layout, &features, root.stats, &self.constraints);
        root.layout = Some(Arc::new(layout));
        self.attach(root, hist, candidates, selection);
    }

    /// The feature of the root's best split over all `features`, as
    /// exhaustive search finds it (if it beats `min_gain`).
    fn best_root_feature(
        &self,
        stats: NodeStats,
        node: NodeRows,
        features: &[usize],
        selection: &TreeSelection,
    ) -> Option<usize> {
        let mut hist = Histogram::zeros(&self.layout);
        hist.build(&self.layout, self.data, features, node);
        let candidates = split_candidates(&hist, &self.layout, features, stats, &self.constraints);
        best_feature(&candidates, selection, self.params.min_gain)
    }

    /// Features, histograms and best splits of two new siblings, the
    /// smaller first; each comes with whether it may be split. `parent` is
    /// the parent's histogram and the features it holds.
    ///
    /// Group testing: only the smaller sibling runs tests; the larger keeps
    /// its parent's candidates, and both scan the union of their sets (a
    /// superset of a node's own can only find a better split). Sampling:
    /// each draws its own features and scans only those.
    pub(super) fn evaluate_siblings_per_node(
        &mut self,
        siblings: [(&mut OpenLeaf, bool); 2],
        parent: (Histogram, Arc<HistLayout>),
        rows: &[u32],
        grad: &[f64],
        hess: &[f64],
        selection: &TreeSelection,
    ) {
        let [(small, small_ok), (large, large_ok)] = siblings;
        let (parent_hist, parent_layout) = parent;
        let segment_rows = |leaf: &OpenLeaf| {
            let seg = leaf.segment;
            &rows[seg.begin..seg.begin + seg.count]
        };
        let (small_rows, large_rows) = (segment_rows(small), segment_rows(large));
        let mut large_buf = std::mem::take(&mut self.large_buf);
        let mut small_buf = std::mem::take(&mut self.node_buf);
        let small_node = small_buf.gather(self.data, small_rows, grad, hess, self.constant_hess);
        let large_node = large_buf.gather(self.data, large_rows, grad, hess, self.constant_hess);
        let source = self.per_node.as_ref().expect("a per-node source");
        let own_only = matches!(source, PerNode::Sampled(_));
        small.found = if small_ok {
            let test = TestedNode {
                data: self.data,
                rows: small_rows,
                grads: small_node.grads,
                stats: small.stats,
                constraints: self.constraints,
            };
            source.found(small.segment.node, test)
        } else {
            Vec::new()
        };
        if !large_ok {
            large.found = Vec::new();
        } else if own_only {
            let test = TestedNode {
                data: self.data,
                rows: large_rows,
                grads: large_node.grads,
                stats: large.stats,
                constraints: self.constraints,
            };
            large.found = source.found(large.segment.node, test);
        }
        let features =
            source.node_features(selection.used_in_order(), &[&small.found, &large.found]);
        let layout = Arc::new(HistLayout::for_features(self.data, &features));
        let mut small_hist = Histogram::zeros(&layout);
        let mut large_hist = Histogram::zeros(&layout);
        let (data, c) = (self.data, &self.constraints);
        let (small_stats, large_stats) = (small.stats, large.stats);
        let (small_own, large_own) = (&small.found, &large.found);
        let scans = |own: &[usize], f: usize| !own_only || own.binary_search(&f).is_ok();
        let per_feature: Vec<(Option<SplitCandidate>, Option<SplitCandidate>)> = small_hist
            .feature_slices_mut(&layout, &features)
            .into_par_iter()
            .zip(large_hist.feature_slices_mut(&layout, &features))
            .with_min_len(4)
            .map(|((f, small_bins), (_, large_bins))| {
                build_feature(small_bins, data, f, small_node);
                // The larger sibling's bins are filled for every feature of
                // the layout, scanned or not: its children subtract from them.
                let best_large = large_ok.then(|| {
                    if parent_layout.contains(f) {
                        large_bins.copy_from_slice(parent_hist.feature(&parent_layout, f));
                        subtract_feature(large_bins, small_bins);
                    } else {
                        build_feature(large_bins, data, f, large_node);
                    }
                    scans(large_own, f)
                        .then(|| best_split_of_feature(f, large_bins, large_stats, c))
                        .flatten()
                });
                let best_small = (small_ok && scans(small_own, f))
                    .then(|| best_split_of_feature(f, small_bins, small_stats, c));
                (best_small.flatten(), best_large.flatten())
            })
            .collect();
        self.node_buf = small_buf;
        self.large_buf = large_buf;
        let small_candidates = per_feature.iter().filter_map(|c| c.0).collect();
        let large_candidates = per_feature.iter().filter_map(|c| c.1).collect();
        small.layout = Some(Arc::clone(&layout));
        large.layout = Some(layout);
        self.attach(small, small_hist, small_candidates, selection);
        self.attach(large, large_hist, large_candidates, selection);
    }
}
