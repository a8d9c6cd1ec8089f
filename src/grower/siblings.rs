//! The sibling pass of the one grower: once a leaf is split, its two
//! children's histograms and best splits, in one pass over the features
//! (the larger child's bins from the parent's minus the smaller one's, or
//! from rows when the parent gave its histogram up).

use super::source::{NodeSource, Siblings};
use super::{OpenLeaf, TreeGrower};
use crate::error::Result;
use crate::histogram::{subtract_feature, HistLayout, Histogram};
use crate::selection::TreeSelection;
use crate::split::{best_split, SplitCandidate};
use rayon::prelude::*;
use std::sync::Arc;

impl TreeGrower<'_> {
    /// Features, histograms and best splits of two new siblings, in one
    /// pass over the features: complete the smaller child's bins of a
    /// feature, subtract them from the parent's to get the larger child's
    /// (or take them from the source, for a feature the parent does not
    /// hold), and scan both while they are in cache. (Separate passes would
    /// stream every d·256-bin histogram through memory several times per
    /// split.) `parent` is the parent's histogram and its layout (`None`:
    /// the full layout), if it kept one; `features` are the tree's.
    ///
    /// Exhaustive search: both siblings hold the parent's live features in
    /// the full layout, and the larger one's histogram is the parent's,
    /// subtracted in place. A parent without a histogram has the larger
    /// sibling's bins built from its rows too. Per-node features: the
    /// smaller sibling finds its features (the larger one too when each
    /// finds its own, else it inherits its parent's), and both hold the
    /// union, laid out for them.
    pub(super) fn evaluate_siblings<S: NodeSource>(
        &mut self,
        source: &mut S,
        pair: [&mut OpenLeaf; 2],
        parent: Option<(Histogram, Option<Arc<HistLayout>>)>,
        features: &[usize],
        selection: &TreeSelection,
    ) -> Result<()> {
        let [left, right] = pair;
        let (small, large) = if left.segment.count <= right.segment.count {
            (left, right)
        } else {
            (right, left)
        };
        let small_ok = self.can_split(small);
        let large_ok = self.can_split(large);
        if !small_ok && !large_ok {
            if let Some((hist, layout)) = parent {
                self.recycle(hist, layout.as_deref());
            }
            return Ok(());
        }
        let c = self.constraints;
        let per_node = self.choice.per_node();
        let own_only = self.choice.each_finds_own();
        // The features both siblings hold, and their layout (None: the full
        // layout, shared with the parent).
        let (held, layout): (Vec<usize>, Option<Arc<HistLayout>>) = if per_node {
            small.found = match small_ok {
                true => self.choice.found(small.segment, small.stats, c, source)?,
                false => Vec::new(),
            };
            if !large_ok {
                large.found = Vec::new();
            } else if own_only {
                large.found = self.choice.found(large.segment, large.stats, c, source)?;
            }
            let found = [small.found.as_slice(), large.found.as_slice()];
            let held = self.choice.node_features(selection.used_in_order(), &found);
            let layout = Arc::new(HistLayout::listed(self.mappers, &held));
            (held, Some(layout))
        } else {
            // The parent's live features (both siblings start with them).
            let live = small.live.clone();
            (
                live.as_deref().map_or(features, Vec::as_slice).to_vec(),
                None,
            )
        };
        let same_layout = layout.is_none();
        // Where the larger sibling's bins come from: the parent's histogram
        // subtracted in place (`Parent::InPlace`), a copy of the parent's
        // bins minus the smaller sibling's, or its rows.
        let (mut small_hist, mut large_hist, parent) = match (&layout, parent) {
            (None, Some((parent_hist, None))) => (self.take_hist(), parent_hist, Parent::InPlace),
            (None, parent) => (
                self.take_hist(),
                self.take_hist(),
                parent.map_or(Parent::Absent, |(h, l)| Parent::Copy(h, l)),
            ),
            (Some(lay), parent) => (
                Histogram::zeros(lay),
                Histogram::zeros(lay),
                parent.map_or(Parent::Absent, |(h, l)| Parent::Copy(h, l)),
            ),
        };
        let lay: &HistLayout = layout.as_deref().unwrap_or(&self.layout);
        let parent_holds = |f: usize| match &parent {
            Parent::InPlace => true,
            Parent::Copy(_, parent_layout) => {
                parent_layout.as_deref().unwrap_or(&self.layout).contains(f)
            }
            Parent::Absent => false,
        };
        let missing: Vec<usize> = match large_ok {
            true => held.iter().copied().filter(|&f| !parent_holds(f)).collect(),
            false => Vec::new(),
        };
        let request = Siblings {
            small: small.segment,
            large: large.segment,
            features: &held,
            layout: lay,
            large_missing: &missing,
        };
        let bins = source.siblings(request, &mut small_hist)?;
        let (small_stats, large_stats) = (small.stats, large.stats);
        let (small_own, large_own) = (&small.found, &large.found);
        let scans = |own: &[usize], f: usize| !own_only || own.binary_search(&f).is_ok();
        let min_len = bins.min_features_per_task();
        let (mappers, full) = (self.mappers, &self.layout);
        let per_feature: Vec<(Option<SplitCandidate>, Option<SplitCandidate>, [bool; 2])> =
            small_hist
                .feature_slices_mut(lay, &held)
                .into_par_iter()
                .zip(large_hist.feature_slices_mut(lay, &held))
                .enumerate()
                .with_min_len(min_len)
                .map(|(k, ((f, small_bins), (_, large_bins)))| {
                    bins.small(k, f, small_bins);
                    // The larger sibling's bins are filled for every held
                    // feature, scanned or not: its children subtract them.
                    let best_large = large_ok.then(|| {
                        match &parent {
                            Parent::InPlace => subtract_feature(large_bins, small_bins),
                            Parent::Copy(hist, hist_layout) if parent_holds(f) => {
                                let hist_layout = hist_layout.as_deref().unwrap_or(full);
                                large_bins.copy_from_slice(hist.feature(hist_layout, f));
                                subtract_feature(large_bins, small_bins);
                            }
                            _ => bins.large(f, large_bins),
                        }
                        scans(large_own, f)
                            .then(|| best_split(f, &mappers[f], large_bins, large_stats, &c))
                            .flatten()
                    });
                    let best_small = (small_ok && scans(small_own, f))
                        .then(|| best_split(f, &mappers[f], small_bins, small_stats, &c));
                    let live = [
                        small_ok && bins.stays_live(f, small_bins, small_stats.n, &c),
                        large_ok && bins.stays_live(f, large_bins, large_stats.n, &c),
                    ];
                    (best_small.flatten(), best_large.flatten(), live)
                })
                .collect();
        drop(bins);
        if let Parent::Copy(hist, hist_layout) = parent {
            self.recycle(hist, hist_layout.as_deref());
        }
        if same_layout {
            for (side, leaf) in [&mut *small, &mut *large].into_iter().enumerate() {
                if per_feature.iter().any(|p| !p.2[side]) {
                    let live = held.iter().zip(&per_feature).filter(|(_, p)| p.2[side]);
                    leaf.live = Some(Arc::new(live.map(|(&f, _)| f).collect()));
                }
            }
        }
        let small_candidates = per_feature.iter().filter_map(|c| c.0).collect();
        let large_candidates = per_feature.iter().filter_map(|c| c.1).collect();
        small.layout = layout.clone();
        large.layout = layout;
        self.attach(small, small_hist, small_candidates, selection);
        self.attach(large, large_hist, large_candidates, selection);
        Ok(())
    }
}

/// Where the larger of two new siblings gets its bins (see
/// [`TreeGrower::evaluate_siblings`]).
enum Parent {
    /// Its histogram is the parent's, in the same layout: subtract the
    /// smaller sibling's bins in place.
    InPlace,
    /// The parent's histogram and its layout (`None`: the full layout):
    /// copy the bins of the features it holds, then subtract.
    Copy(Histogram, Option<Arc<HistLayout>>),
    /// The parent gave its histogram up: build from rows.
    Absent,
}
