//! The client's tree growth: leaf-wise, as [`crate::grower::TreeGrower`]
//! grows a tree on one machine, with the statistics summed over the shards
//! instead of computed from rows. Every choice goes through the functions
//! the single-machine grower uses ([`best_scored`], [`best_after_freed`],
//! [`best_of`], [`may_split`], [`record_split`], [`best_feature`],
//! [`split_candidates`]), in the same order, so that one shard grows the
//! single machine's tree.
//!
//! With exhaustive search every node holds the tree's features. With group
//! testing a node holds Ω and the candidates of its group tests
//! ([`super::group_search`]); only the smaller sibling is tested, the
//! larger inherits its parent's candidates, both hold the union, and the
//! larger takes by subtraction the features its parent holds and asks the
//! shards for the others.

use super::channel::{outputs, protocol_error, summed_histogram, Channel};
use super::group_search::ClientTests;
use super::protocol::{Op, Output};
use crate::binning::BinMapper;
use crate::error::Result;
use crate::grower::{
    best_after_freed, best_feature, best_of, best_scored, may_split, record_split, scale_from_sums,
    Scored,
};
use crate::histogram::{subtract_feature, HistLayout, Histogram};
use crate::interrupt::{self, ShouldStop};
use crate::params::BoosterParams;
use crate::penalty::Changed;
use crate::selection::TreeSelection;
use crate::split::{split_candidates, NodeStats, SplitCandidate, SplitConstraints};
use crate::tree::{Node, Tree};
use std::sync::Arc;

/// What every tree of a distributed fit shares.
pub(super) struct ShardedGrower<'a> {
    /// The fit's parameters in its units.
    pub params: &'a BoosterParams,
    pub mappers: &'a [BinMapper],
    /// The papers' α·n.
    pub min_split_rows: usize,
    /// Rows over all shards.
    pub n_rows: usize,
    pub should_stop: &'a ShouldStop<'a>,
    /// Group testing's state, when the fit uses it.
    pub tests: Option<ClientTests>,
}

/// Features a histogram holds, with their layout.
struct Held {
    features: Vec<usize>,
    layout: HistLayout,
}

impl Held {
    fn new(mappers: &[BinMapper], features: Vec<usize>) -> Arc<Held> {
        Arc::new(Held {
            layout: HistLayout::listed(mappers, &features),
            features,
        })
    }
}

/// A leaf that may still be split (the single-machine grower's `OpenLeaf`
/// without rows).
struct Leaf {
    node: usize,
    depth: usize,
    stats: NodeStats,
    hist: Option<(Histogram, Arc<Held>)>,
    /// Group testing: this leaf's candidates (its children inherit them).
    found: Vec<usize>,
    candidates: Vec<SplitCandidate>,
    best: Option<Scored>,
}

impl Leaf {
    fn new(node: usize, depth: usize, stats: NodeStats, found: Vec<usize>) -> Leaf {
        Leaf {
            node,
            depth,
            stats,
            hist: None,
            found,
            candidates: Vec::new(),
            best: None,
        }
    }
}

impl ShardedGrower<'_> {
    fn constraints(&self) -> SplitConstraints {
        SplitConstraints {
            min_samples_leaf: self.params.min_samples_leaf.min(u32::MAX as usize) as u32,
            min_child_weight: self.params.min_child_weight,
            l2: self.params.l2_regularization,
        }
    }

    /// Start a tree on output `output`: the root's sums and scale, and,
    /// when asked, its histogram of `features` in the same round trip.
    fn root(
        &self,
        channel: &mut Channel,
        output: usize,
        features: Option<&[usize]>,
    ) -> Result<(NodeStats, f64, Option<Histogram>)> {
        let mut ops = vec![Op::Root {
            output: output as u32,
        }];
        if let Some(features) = features {
            ops.push(histogram_op(0, features));
        }
        let replies = channel.all(ops)?;
        let sums = outputs(&replies, 0, "root sums", |o| match o {
            Output::Root { g, h, n, scale } => Some((
                NodeStats {
                    g: *g,
                    h: *h,
                    n: *n,
                },
                *scale,
            )),
            _ => None,
        })?;
        let (mut stats, mut per_row) = sums[0];
        for (s, scale) in &sums[1..] {
            stats = NodeStats {
                g: stats.g + s.g,
                h: stats.h + s.h,
                n: stats.n + s.n,
            };
            per_row += scale;
        }
        if stats.n as usize != self.n_rows {
            return Err(protocol_error("every row at the root"));
        }
        let hist = match features {
            Some(f) => Some(summed_histogram(&replies, 1, self.layout(f).total_bins())?),
            None => None,
        };
        Ok((stats, scale_from_sums(per_row, stats), hist))
    }

    /// The root scale and best split of each of `features` at a root on
    /// output `output`, by exhaustive search: what μ_max is computed from.
    pub(super) fn root_candidates(
        &self,
        channel: &mut Channel,
        output: usize,
        features: &[usize],
    ) -> Result<(f64, Vec<SplitCandidate>)> {
        let splits = may_split(self.params, self.min_split_rows, self.n_rows, 0);
        let (stats, scale, hist) = self.root(channel, output, splits.then_some(features))?;
        let candidates = match hist {
            Some(hist) => split_candidates(
                &hist,
                &self.layout(features),
                features,
                stats,
                &self.constraints(),
            ),
            None => Vec::new(),
        };
        Ok((scale, candidates))
    }

    fn layout(&self, features: &[usize]) -> HistLayout {
        HistLayout::listed(self.mappers, features)
    }

    /// Give `leaf` its candidates and the histogram they came from, and
    /// choose its best split.
    fn attach(
        &self,
        leaf: &mut Leaf,
        hist: (Histogram, Arc<Held>),
        candidates: Vec<SplitCandidate>,
        selection: &TreeSelection,
    ) {
        leaf.candidates = candidates;
        leaf.hist = Some(hist);
        self.rescore(leaf, selection);
    }

    /// Choose the leaf's best candidate; a leaf without a promising one
    /// drops its candidates and histogram.
    fn rescore(&self, leaf: &mut Leaf, selection: &TreeSelection) {
        let min_gain = self.params.min_gain;
        leaf.best = best_scored(&leaf.candidates, selection, min_gain);
        if !leaf.candidates.iter().any(|s| s.gain > min_gain) {
            leaf.candidates = Vec::new();
            leaf.hist = None;
        }
    }

    /// Grow one tree on output `output` over `features` (the tree's); the
    /// tree (in the fit's units) and its root scale.
    pub(super) fn grow(
        &mut self,
        channel: &mut Channel,
        output: usize,
        features: &[usize],
        selection: &mut TreeSelection,
    ) -> Result<(Tree, f64)> {
        let params = self.params;
        if let Some(tests) = &mut self.tests {
            tests.begin_tree(features);
            let (omega, closed) = (selection.used_in_order(), selection.omega_closed());
            tests.follow(omega, closed, &mut channel.pending);
        }
        let splits = may_split(params, self.min_split_rows, self.n_rows, 0);
        let exhaustive = splits && self.tests.is_none();
        let (stats, scale, hist) = self.root(channel, output, exhaustive.then_some(features))?;
        let value = stats.leaf_value(params.l2_regularization) * params.learning_rate;
        let mut nodes = vec![Node::leaf(value, stats.n)];
        selection.begin_tree(scale);
        let mut root = Leaf::new(0, 0, stats, Vec::new());
        if let Some(hist) = hist {
            let held = Held::new(self.mappers, features.to_vec());
            let c = split_candidates(&hist, &held.layout, features, stats, &self.constraints());
            self.attach(&mut root, (hist, held), c, selection);
        } else if splits {
            self.evaluate_tested_root(channel, &mut root, features, selection)?;
        }
        let mut leaves = vec![root];
        while leaves.len() < params.max_leaves {
            interrupt::check(self.should_stop)?;
            let Some(i) = best_of(leaves.iter().map(|l| l.best)) else {
                break;
            };
            let split = leaves[i].best.take().expect("a best split").split;
            leaves[i].candidates = Vec::new();
            let parent = leaves[i]
                .hist
                .take()
                .expect("a leaf with a split keeps its histogram");
            let (node, depth) = (leaves[i].node, leaves[i].depth + 1);
            let left = record_split(
                &mut nodes,
                node,
                &split,
                &self.mappers[split.feature],
                params,
            );
            channel.pending.push(Op::Split {
                node: node as u32,
                feature: split.feature as u32,
                bin: split.bin,
                default_left: split.default_left,
                left: left as u32,
            });
            let changed = selection.commit(split.feature);
            if let Some(tests) = &mut self.tests {
                let (omega, closed) = (selection.used_in_order(), selection.omega_closed());
                tests.follow(omega, closed, &mut channel.pending);
            }
            match changed {
                Changed::Nothing => {}
                Changed::Freed(freed) => {
                    for leaf in leaves.iter_mut() {
                        let (c, min_gain) = (&leaf.candidates, params.min_gain);
                        leaf.best = best_after_freed(leaf.best, c, &freed, selection, min_gain);
                    }
                }
                Changed::Everything => {
                    for leaf in leaves.iter_mut() {
                        self.rescore(leaf, selection);
                    }
                }
            }
            let found = &leaves[i].found;
            let mut l = Leaf::new(left, depth, split.left, found.clone());
            let mut r = Leaf::new(left + 1, depth, split.right, found.clone());
            if leaves.len() + 1 < params.max_leaves {
                self.evaluate_siblings(channel, &mut l, &mut r, parent, selection)?;
            }
            leaves[i] = l;
            leaves.push(r);
        }
        Ok((
            Tree {
                output: 0,
                round: None,
                nodes,
            },
            scale,
        ))
    }

    /// A group-tested root: its tests' candidates and Ω, and when they give
    /// it no split while features may still enter, the best split of all
    /// the tree's `features` joins them (the single-machine rescue).
    fn evaluate_tested_root(
        &self,
        channel: &mut Channel,
        root: &mut Leaf,
        features: &[usize],
        selection: &TreeSelection,
    ) -> Result<()> {
        let tests = self.tests.as_ref().expect("group testing");
        let c = self.constraints();
        root.found = tests.candidates(channel, 0, self.n_rows, root.stats, c)?;
        let held = Held::new(
            self.mappers,
            tests.node_features(selection.used_in_order(), &[&root.found]),
        );
        let hist = self.histogram(channel, 0, &held.features)?;
        let candidates = split_candidates(&hist, &held.layout, &held.features, root.stats, &c);
        self.attach(root, (hist, held), candidates, selection);
        if root.best.is_some() || !tests.open() {
            return Ok(());
        }
        let all = self.histogram(channel, 0, features)?;
        let layout = self.layout(features);
        let candidates = split_candidates(&all, &layout, features, root.stats, &c);
        let Some(f) = best_feature(&candidates, selection, self.params.min_gain) else {
            return Ok(());
        };
        root.found.push(f);
        root.found.sort_unstable();
        let held = Held::new(
            self.mappers,
            tests.node_features(selection.used_in_order(), &[&root.found]),
        );
        // The same sums the shards would send again.
        let mut hist = Histogram::zeros(&held.layout);
        for &g in &held.features {
            hist.bins[held.layout.range(g)].copy_from_slice(all.feature(&layout, g));
        }
        let candidates = split_candidates(&hist, &held.layout, &held.features, root.stats, &c);
        self.attach(root, (hist, held), candidates, selection);
        Ok(())
    }

    /// The histogram of `features` over `node`'s rows, summed.
    fn histogram(
        &self,
        channel: &mut Channel,
        node: usize,
        features: &[usize],
    ) -> Result<Histogram> {
        let replies = channel.all(vec![histogram_op(node, features)])?;
        summed_histogram(&replies, 0, self.layout(features).total_bins())
    }

    /// Histograms and best splits of two new siblings: the smaller one's
    /// from the shards, the larger one's by subtraction from `parent`
    /// (and from the shards for features the parent does not hold).
    fn evaluate_siblings(
        &self,
        channel: &mut Channel,
        left: &mut Leaf,
        right: &mut Leaf,
        parent: (Histogram, Arc<Held>),
        selection: &TreeSelection,
    ) -> Result<()> {
        let (small, large) = if left.stats.n <= right.stats.n {
            (left, right)
        } else {
            (right, left)
        };
        let ok = |leaf: &Leaf| {
            may_split(
                self.params,
                self.min_split_rows,
                leaf.stats.n as usize,
                leaf.depth,
            )
        };
        let (small_ok, large_ok) = (ok(small), ok(large));
        if !small_ok && !large_ok {
            return Ok(());
        }
        let c = self.constraints();
        let (parent_hist, parent_held) = parent;
        let held = match &self.tests {
            None => parent_held.clone(),
            Some(tests) => {
                small.found = if small_ok {
                    tests.candidates(channel, small.node, small.stats.n as usize, small.stats, c)?
                } else {
                    Vec::new()
                };
                if !large_ok {
                    large.found = Vec::new();
                }
                let found = [small.found.as_slice(), large.found.as_slice()];
                Held::new(
                    self.mappers,
                    tests.node_features(selection.used_in_order(), &found),
                )
            }
        };
        let parent_has = |f: usize| parent_held.features.binary_search(&f).is_ok();
        let missing: Vec<usize> = match large_ok {
            true => held
                .features
                .iter()
                .copied()
                .filter(|&f| !parent_has(f))
                .collect(),
            false => Vec::new(),
        };
        let mut ops = vec![histogram_op(small.node, &held.features)];
        if !missing.is_empty() {
            ops.push(histogram_op(large.node, &missing));
        }
        let replies = channel.all(ops)?;
        let small_hist = summed_histogram(&replies, 0, held.layout.total_bins())?;
        let mut large_hist = Histogram::zeros(&held.layout);
        let mut large_candidates = Vec::new();
        if large_ok {
            let from_shards = match missing.is_empty() {
                true => None,
                false => {
                    let layout = self.layout(&missing);
                    Some((summed_histogram(&replies, 1, layout.total_bins())?, layout))
                }
            };
            for &f in &held.features {
                let out = &mut large_hist.bins[held.layout.range(f)];
                match &from_shards {
                    Some((hist, layout)) if !parent_has(f) => {
                        out.copy_from_slice(hist.feature(layout, f))
                    }
                    _ => {
                        out.copy_from_slice(parent_hist.feature(&parent_held.layout, f));
                        subtract_feature(out, small_hist.feature(&held.layout, f));
                    }
                }
            }
            large_candidates =
                split_candidates(&large_hist, &held.layout, &held.features, large.stats, &c);
        }
        let small_candidates = match small_ok {
            true => split_candidates(&small_hist, &held.layout, &held.features, small.stats, &c),
            false => Vec::new(),
        };
        self.attach(
            small,
            (small_hist, held.clone()),
            small_candidates,
            selection,
        );
        self.attach(large, (large_hist, held), large_candidates, selection);
        Ok(())
    }
}

fn histogram_op(node: usize, features: &[usize]) -> Op {
    Op::Histogram {
        node: node as u32,
        features: features.iter().map(|&f| f as u32).collect(),
    }
}
