//! Leaf-wise (best-first) growth of one tree, as in LightGBM: repeatedly
//! split the open leaf with the largest gain until `max_leaves` is reached or
//! no leaf has a split worth making.
//!
//! This is the one grower: a single-machine fit, a forest and a
//! distributed fit's client all grow their trees here. It makes every
//! choice from sums that a [`source::NodeSource`] computes: over rows held
//! here (`LocalRows`), or over shards ([`crate::distributed`]). Which
//! features a node considers is decided in `features.rs`: all the tree's
//! (exhaustive search), Ω and the candidates of group tests (GT-GBM), or a
//! draw per node (forests).

mod features;
mod group_tested;
mod local;
mod siblings;
pub(crate) mod source;
#[cfg(test)]
mod tests;

use crate::binning::BinMapper;
use crate::error::Result;
use crate::histogram::{HistLayout, Histogram};
use crate::interrupt::{self, ShouldStop};
use crate::params::BoosterParams;
use crate::penalty::Changed;
use crate::selection::TreeSelection;
use crate::split::{split_candidates, NodeStats, SplitCandidate, SplitConstraints};
use crate::tree::{Node, Tree};
pub use features::NodeSampling;
use features::{AllFeatures, FeatureChoice, GroupTested};
pub(crate) use group_tested::{draw_subsets_over, scaled_constraints};
pub(crate) use local::{root_sums, NodeBuffers};
pub use local::{GrownTree, LocalGrower};
use source::{NodeSource, RootHistogram};
use std::sync::Arc;

/// Features per histogram when the root's candidates of many features are
/// found for μ_max (about 12 MB of bins at 255 bins a feature).
const ROOT_BLOCK: usize = 2048;

/// A node of a growing tree: its index in the tree's nodes, and where its
/// rows sit in a local source's row array ([`GrownTree::rows`]; a remote
/// source uses only `node` and `count`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LeafSegment {
    /// The leaf's index in the tree's nodes.
    pub node: usize,
    /// First position in `rows`.
    pub begin: usize,
    /// Number of rows.
    pub count: usize,
}

/// A tree the grower grew: the tree, its leaves and its root scale.
pub(crate) struct Grown {
    pub tree: Tree,
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
    /// The features `hist` holds, when not all of them (per-node features).
    /// Shared by two siblings, which hold the same features.
    layout: Option<Arc<HistLayout>>,
    /// The features this leaf found on its own (group tests, a draw); with
    /// group testing its children inherit them.
    found: Vec<usize>,
    /// The best split of every feature that has one (ascending features);
    /// kept so that the leaf can be re-scored when the penalty changes.
    candidates: Vec<SplitCandidate>,
    /// The candidate with the best penalized score, if it beats `min_gain`.
    best: Option<Scored>,
    /// Exhaustive search: the tree's features that this leaf (and its
    /// subtree) can still split on, when some cannot; `None` for all.
    live: Option<Arc<Vec<usize>>>,
}

impl OpenLeaf {
    fn new(segment: LeafSegment, depth: usize, stats: NodeStats) -> Self {
        OpenLeaf {
            segment,
            depth,
            stats,
            hist: None,
            layout: None,
            found: Vec::new(),
            candidates: Vec::new(),
            best: None,
            live: None,
        }
    }
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
    match split.categories {
        None => {
            parent.threshold = mapper.threshold_of_bin(split.bin);
            parent.threshold_bin = split.bin;
            parent.default_left = split.default_left;
        }
        // Codes are bins; missing values go right.
        Some(set) => parent.categories = Some(set.codes()),
    }
    parent.left = left_id as u32;
    parent.right = left_id as u32 + 1;
    parent.gain = split.gain;
    left_id
}

/// Grows trees from the sums of a [`NodeSource`]; keeps its histogram
/// buffers from one tree to the next.
pub(crate) struct TreeGrower<'a> {
    mappers: &'a [BinMapper],
    /// Slots for every feature that can split: exhaustive search's layout.
    layout: HistLayout,
    params: &'a BoosterParams,
    constraints: SplitConstraints,
    /// The papers' α·n: nodes with fewer rows are not split.
    min_split_rows: usize,
    /// Histogram buffers of `layout` not in use (allocating and zeroing
    /// d·256 bins per node would cost more than building the histogram).
    pool: Vec<Histogram>,
    /// Full-layout histograms allocated: the most that were ever in use
    /// at once.
    allocated: usize,
    /// Leaves split after giving their histogram up (their children were
    /// built from rows).
    rebuilt: usize,
    /// Whether leaves give up histograms that no split can reach (see
    /// [`TreeGrower::release_unreachable`]); off only to test that it
    /// changes no tree.
    release: bool,
    /// Features per histogram of the root's candidates (see
    /// [`ROOT_BLOCK`]); smaller only in tests.
    root_block: usize,
    /// Which features a node considers.
    choice: Box<dyn FeatureChoice>,
    /// Polled before every split, so that a large tree stops early.
    should_stop: &'a ShouldStop<'a>,
}

impl<'a> TreeGrower<'a> {
    /// A grower of trees over features binned by `mappers` (those that can
    /// split flagged in `splittable`) on `n_rows` rows, by group testing or
    /// exhaustive search.
    pub(crate) fn new(
        mappers: &'a [BinMapper],
        splittable: &[bool],
        n_rows: usize,
        params: &'a BoosterParams,
        group_testing: bool,
        should_stop: &'a ShouldStop<'a>,
    ) -> Self {
        let choice: Box<dyn FeatureChoice> = if group_testing {
            let categorical = (0..mappers.len()).filter(|&f| mappers[f].categorical);
            Box::new(GroupTested::new(mappers.len(), categorical.collect()))
        } else {
            Box::new(AllFeatures)
        };
        TreeGrower {
            mappers,
            layout: HistLayout::for_mappers(mappers, splittable),
            params,
            constraints: SplitConstraints {
                min_samples_leaf: params.min_samples_leaf.min(u32::MAX as usize) as u32,
                min_child_weight: params.min_child_weight,
                l2: params.l2_regularization,
                categorical: params.categorical,
            },
            min_split_rows: (params.min_split_fraction * n_rows as f64).ceil() as usize,
            pool: Vec::new(),
            allocated: 0,
            rebuilt: 0,
            release: true,
            root_block: ROOT_BLOCK,
            choice,
            should_stop,
        }
    }

    /// Nodes of the following trees consider the features `choice` gives.
    fn choose_features(&mut self, choice: Box<dyn FeatureChoice>) {
        self.choice = choice;
    }

    /// Grow one tree from `source`, considering only `features`
    /// (ascending), with splits scored by `selection`. Fails when asked to
    /// stop, or when the source fails.
    pub(crate) fn grow<S: NodeSource>(
        &mut self,
        source: &mut S,
        features: &[usize],
        selection: &mut TreeSelection,
    ) -> Result<Grown> {
        let (lr, l2) = (self.params.learning_rate, self.constraints.l2);
        let (omega, closed) = (selection.used_in_order(), selection.omega_closed());
        let excluded = self.choice.begin_tree(features, omega, closed);
        if !excluded.is_empty() {
            source.exclude(&excluded);
        }
        let count = source.root_count();
        let splits = self.may_split(count, 0);
        // Exhaustive search asks for the root's histogram with its sums.
        let mut hist = (splits && !self.choice.per_node()).then(|| self.take_hist());
        let request = hist.as_mut().map(|hist| RootHistogram {
            hist,
            layout: &self.layout,
            features,
        });
        let (root_stats, root_scale) = source.root(request)?;
        let mut nodes = vec![Node::leaf(root_stats.leaf_value(l2) * lr, root_stats.n)];
        let segment = LeafSegment {
            node: 0,
            begin: 0,
            count,
        };
        let mut root = OpenLeaf::new(segment, 0, root_stats);
        selection.begin_tree(root_scale);
        if let Some(hist) = hist {
            let candidates = split_candidates(
                &hist,
                &self.layout,
                self.mappers,
                features,
                root.stats,
                &self.constraints,
            );
            self.attach(&mut root, hist, candidates, selection);
        } else if splits {
            self.evaluate_root_per_node(source, &mut root, features, selection)?;
        }
        let mut leaves = vec![root];
        while leaves.len() < self.params.max_leaves {
            interrupt::check(self.should_stop)?;
            let Some(i) = best_of(leaves.iter().map(|l| l.best)) else {
                break;
            };
            let split = leaves[i]
                .best
                .take()
                .expect("best_of returns leaves with a split")
                .split;
            leaves[i].candidates = Vec::new();
            // None when the leaf gave its histogram up (see
            // `release_unreachable`): its children are then built from rows.
            let parent_hist = leaves[i].hist.take();
            self.rebuilt += usize::from(parent_hist.is_none());
            let parent_layout = leaves[i].layout.take();
            let parent = &leaves[i];
            let mapper = &self.mappers[split.feature];
            let left_id =
                record_split(&mut nodes, parent.segment.node, &split, mapper, self.params);
            let (left_segment, right_segment) = source.split(parent.segment, &split, left_id)?;
            let child = |segment, stats| OpenLeaf {
                found: parent.found.clone(),
                live: parent.live.clone(),
                ..OpenLeaf::new(segment, parent.depth + 1, stats)
            };
            let (mut left, mut right) = (
                child(left_segment, split.left),
                child(right_segment, split.right),
            );
            // A feature (or bag) just became free, or the door to new
            // features closed: the cached choices of the other leaves are
            // stale.
            let changed = selection.commit(split.feature);
            let excluded = self
                .choice
                .follow(selection.used_in_order(), selection.omega_closed());
            if !excluded.is_empty() {
                source.exclude(&excluded);
            }
            match changed {
                Changed::Nothing => {}
                Changed::Freed(freed) => {
                    let min_gain = self.params.min_gain;
                    for leaf in leaves.iter_mut() {
                        let c = &leaf.candidates;
                        leaf.best = best_after_freed(leaf.best, c, &freed, selection, min_gain);
                    }
                }
                Changed::Everything => {
                    for leaf in leaves.iter_mut() {
                        self.rescore(leaf, selection);
                    }
                }
            }
            if leaves.len() + 1 < self.params.max_leaves {
                let parent = parent_hist.map(|hist| (hist, parent_layout));
                let pair = [&mut left, &mut right];
                self.evaluate_siblings(source, pair, parent, features, selection)?;
            } else if let Some(hist) = parent_hist {
                self.recycle(hist, parent_layout.as_deref());
            }
            leaves[i] = left;
            leaves.push(right);
            self.release_unreachable(&mut leaves);
        }
        for leaf in &mut leaves {
            if let Some(h) = leaf.hist.take() {
                self.recycle(h, leaf.layout.as_deref());
            }
        }
        Ok(Grown {
            tree: Tree {
                output: 0,
                round: None,
                root_scale: None,
                nodes,
            },
            leaves: leaves.iter().map(|l| l.segment).collect(),
            root_scale,
        })
    }

    /// The root scale of a tree from `source` and the best split of each
    /// of `features` at its root, by exhaustive search whatever the
    /// features a node would consider: what μ_max is computed from (see
    /// [`crate::mu_max`]).
    pub(crate) fn root_candidates<S: NodeSource>(
        &mut self,
        source: &mut S,
        features: &[usize],
    ) -> Result<(f64, Vec<SplitCandidate>)> {
        let count = source.root_count();
        if !self.may_split(count, 0) {
            return Ok((source.root(None)?.1, Vec::new()));
        }
        if features.len() > self.root_block {
            return self.root_candidates_in_blocks(source, features, count);
        }
        let mut hist = self.take_hist();
        let request = RootHistogram {
            hist: &mut hist,
            layout: &self.layout,
            features,
        };
        let (stats, scale) = source.root(Some(request))?;
        let candidates = split_candidates(
            &hist,
            &self.layout,
            self.mappers,
            features,
            stats,
            &self.constraints,
        );
        self.recycle(hist, None);
        Ok((scale, candidates))
    }

    /// [`TreeGrower::root_candidates`] a block of features at a time, each in
    /// a histogram of its own: the same candidates (a feature's bins do not
    /// depend on the others), without a histogram of every feature, which
    /// at d = 100000 is 600 MB that group testing never uses again.
    fn root_candidates_in_blocks<S: NodeSource>(
        &mut self,
        source: &mut S,
        features: &[usize],
        count: usize,
    ) -> Result<(f64, Vec<SplitCandidate>)> {
        let (stats, scale) = source.root(None)?;
        let root = LeafSegment {
            node: 0,
            begin: 0,
            count,
        };
        let mut candidates = Vec::new();
        for block in features.chunks(self.root_block) {
            interrupt::check(self.should_stop)?;
            let layout = HistLayout::listed(self.mappers, block);
            let mut hist = Histogram::zeros(&layout);
            source.histogram(root, block, &layout, &mut hist)?;
            candidates.extend(split_candidates(
                &hist,
                &layout,
                self.mappers,
                block,
                stats,
                &self.constraints,
            ));
        }
        Ok((scale, candidates))
    }

    /// Whether a node of `count` rows at `depth` may be split.
    fn may_split(&self, count: usize, depth: usize) -> bool {
        may_split(self.params, self.min_split_rows, count, depth)
    }

    fn can_split(&self, leaf: &OpenLeaf) -> bool {
        self.may_split(leaf.segment.count, leaf.depth)
    }

    /// Keep a histogram of the full layout (`layout` None) for a later
    /// node; drop one laid out for a node's own features.
    fn recycle(&mut self, hist: Histogram, layout: Option<&HistLayout>) {
        if layout.is_none() {
            self.pool.push(hist);
        }
    }

    fn take_hist(&mut self) -> Histogram {
        self.pool.pop().unwrap_or_else(|| {
            self.allocated += 1;
            Histogram::zeros(&self.layout)
        })
    }

    /// Give back the histograms of leaves that the splits left cannot
    /// reach: a leaf is split only once every leaf whose score beats its
    /// own has been, so a leaf beaten by as many leaves as there are splits
    /// left is never split while the scores stand. (They stand unless the
    /// penalty changes; a leaf split without its histogram has both
    /// children built from rows.) Without this a tree of L leaves holds up
    /// to L histograms of d·256 bins at once; with it about L/2.
    fn release_unreachable(&mut self, leaves: &mut [OpenLeaf]) {
        let splits_left = self.params.max_leaves.saturating_sub(leaves.len());
        // Fewer leaves than splits left: none is beaten by that many. (In
        // O(1), as forests grow trees of thousands of leaves.)
        if !self.release || leaves.len() < splits_left || splits_left == 0 {
            return;
        }
        let mut scores: Vec<f64> = leaves
            .iter()
            .filter_map(|l| l.best)
            .map(|b| b.score)
            .collect();
        // A leaf is beaten by `splits_left` leaves when its score is below
        // the `splits_left`-th best (ties with it are kept).
        let cutoff = match scores.len() >= splits_left {
            true => {
                *scores
                    .select_nth_unstable_by(splits_left - 1, |a, b| b.total_cmp(a))
                    .1
            }
            false => f64::NEG_INFINITY,
        };
        for leaf in leaves.iter_mut().filter(|l| l.hist.is_some()) {
            let unreachable = match leaf.best {
                Some(b) => b.score < cutoff,
                // Every scored leaf comes first.
                None => scores.len() >= splits_left,
            };
            if unreachable {
                let layout = leaf.layout.take();
                if let Some(h) = leaf.hist.take() {
                    self.recycle(h, layout.as_deref());
                }
            }
        }
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
            let layout = leaf.layout.take();
            if let Some(h) = leaf.hist.take() {
                self.recycle(h, layout.as_deref());
            }
        }
    }

    /// The root's features (per-node choice), histogram and best split.
    /// `features` are the tree's. A root that the choice rescues
    /// ([`FeatureChoice::rescues_root`]) and that has no split is scanned
    /// over all `features` once, and the best of them joins what it found.
    fn evaluate_root_per_node<S: NodeSource>(
        &mut self,
        source: &mut S,
        root: &mut OpenLeaf,
        features: &[usize],
        selection: &TreeSelection,
    ) -> Result<()> {
        let c = self.constraints;
        root.found = self.choice.found(root.segment, root.stats, c, source)?;
        self.evaluate_root_features(source, root, selection)?;
        if root.best.is_some() || !self.choice.rescues_root() {
            return Ok(());
        }
        // Scanned in blocks of features, each in a histogram of its own:
        // one of all d features would be d·256 bins (614 MB at d = 100000),
        // zeroed for a single scan. The candidates come in the same order.
        let mut candidates = Vec::new();
        for block in features.chunks(RESCUE_BLOCK) {
            let layout = HistLayout::listed(self.mappers, block);
            let mut hist = Histogram::zeros(&layout);
            source.histogram(root.segment, block, &layout, &mut hist)?;
            candidates.extend(split_candidates(
                &hist,
                &layout,
                self.mappers,
                block,
                root.stats,
                &c,
            ));
        }
        let best = best_feature(&candidates, selection, self.params.min_gain);
        if let Some(f) = best {
            root.found.push(f);
            root.found.sort_unstable();
            self.evaluate_root_features(source, root, selection)?;
        }
        Ok(())
    }

    /// The root's histogram over the features it considers and its best
    /// split.
    fn evaluate_root_features<S: NodeSource>(
        &mut self,
        source: &mut S,
        root: &mut OpenLeaf,
        selection: &TreeSelection,
    ) -> Result<()> {
        let features = self
            .choice
            .node_features(selection.used_in_order(), &[&root.found]);
        let layout = HistLayout::listed(self.mappers, &features);
        let mut hist = Histogram::zeros(&layout);
        source.histogram(root.segment, &features, &layout, &mut hist)?;
        let candidates = split_candidates(
            &hist,
            &layout,
            self.mappers,
            &features,
            root.stats,
            &self.constraints,
        );
        root.layout = Some(Arc::new(layout));
        self.attach(root, hist, candidates, selection);
        Ok(())
    }
}

/// Features per block of the root's rescue scan (see
/// `evaluate_root_per_node`): 4096 features of 256 bins are 25 MB.
const RESCUE_BLOCK: usize = 4096;

/// The feature of the best of a root's `candidates` under the penalty, if
/// it beats `min_gain` (the first one on ties): the root's rescue when its
/// group tests found nothing worth a split.
fn best_feature(
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

/// The root scale from `Σ g²/h` over the root's rows and their sums.
pub(crate) fn scale_from_sums(per_row: f64, root: NodeStats) -> f64 {
    let total = if root.h > 0.0 {
        root.g * root.g / root.h
    } else {
        0.0
    };
    (per_row - total).max(0.0)
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
