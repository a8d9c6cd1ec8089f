//! Where the one grower's node statistics come from: a [`NodeSource`].
//!
//! The grower ([`super::TreeGrower`]) makes every decision of a tree — the
//! leaf to split, the features a node considers, the split, the penalty —
//! from sums: a node's gradient sums, histograms of its features, the
//! scores of group tests. A source computes those sums over the tree's
//! rows. There are two:
//!
//! - `LocalRows` (`local.rs`): the rows are here, with their gradients;
//! - [`crate::distributed`]'s shard source: the rows are spread over
//!   shards behind a transport, which sum their part; the source adds the
//!   parts up in shard order.
//!
//! A node is named by its [`LeafSegment`]: its index in the tree's nodes,
//! and (for a local source) where its rows sit.

use super::LeafSegment;
use crate::error::Result;
use crate::histogram::{HistBin, HistLayout, Histogram};
use crate::split::{NodeStats, SplitCandidate, SplitConstraints};

/// The sums a tree's nodes are grown from.
pub(crate) trait NodeSource {
    /// Rows at the tree's root.
    fn root_count(&self) -> usize;

    /// The root's sums and scale (`Σ g²/h − G²/H`, A-GBM's `S`), and, when
    /// `hist` is given, its histogram of those features into it (zeroed,
    /// laid out by its layout). One exchange for a remote source.
    fn root(&mut self, hist: Option<RootHistogram>) -> Result<(NodeStats, f64)>;

    /// The histogram of `features` over the rows of `node` into `hist`
    /// (zeroed, laid out by `layout`).
    fn histogram(
        &mut self,
        node: LeafSegment,
        features: &[usize],
        layout: &HistLayout,
        hist: &mut Histogram,
    ) -> Result<()>;

    /// Split the rows of `node` by `split`; its children become nodes
    /// `left` and `left + 1`. Returns their segments.
    fn split(
        &mut self,
        node: LeafSegment,
        split: &SplitCandidate,
        left: usize,
    ) -> Result<(LeafSegment, LeafSegment)>;

    /// Prepare the histograms of two new siblings (see [`Siblings`]):
    /// whatever the source fills at once goes into `small_hist`; the rest
    /// comes, feature by feature, from the [`SiblingBins`] returned.
    fn siblings<'s>(
        &'s mut self,
        pair: Siblings<'_>,
        small_hist: &mut Histogram,
    ) -> Result<Box<dyn SiblingBins + 's>>;

    /// The features that the group tests of `node` (sums `stats`, leaf
    /// limits `constraints`) single out, ascending, before the tree's
    /// feature sample is applied.
    fn group_tests(
        &mut self,
        node: LeafSegment,
        stats: NodeStats,
        constraints: SplitConstraints,
    ) -> Result<Vec<usize>>;

    /// Leave these features (of Ω) out of the group tests from now on.
    fn exclude(&mut self, features: &[usize]);
}

/// The root histogram a source fills with the root's sums.
pub(crate) struct RootHistogram<'a> {
    pub hist: &'a mut Histogram,
    pub layout: &'a HistLayout,
    pub features: &'a [usize],
}

/// Two new siblings whose histograms of `features` (laid out by `layout`)
/// are wanted: the smaller one's for every feature, the larger one's for
/// `large_missing` only (the features its parent's histogram does not
/// hold; the grower subtracts the others).
#[derive(Clone, Copy)]
pub(crate) struct Siblings<'a> {
    pub small: LeafSegment,
    pub large: LeafSegment,
    pub features: &'a [usize],
    pub layout: &'a HistLayout,
    pub large_missing: &'a [usize],
}

/// The per-feature half of the sibling pass, called from worker threads.
pub(crate) trait SiblingBins: Sync {
    /// Complete the smaller sibling's bins of `features[k]` (= `f`).
    fn small(&self, k: usize, f: usize, bins: &mut [HistBin]);

    /// The larger sibling's bins of `f`, one of `large_missing`.
    fn large(&self, f: usize, bins: &mut [HistBin]);

    /// Whether a node of `node_rows` rows whose bins of `f` are `bins` (and
    /// every node below it) may still split on `f`; features that may not
    /// are left out of the node's subtree.
    fn stays_live(
        &self,
        _f: usize,
        _bins: &[HistBin],
        _node_rows: u32,
        _c: &SplitConstraints,
    ) -> bool {
        true
    }

    /// Features per parallel task.
    fn min_features_per_task(&self) -> usize {
        4
    }
}
