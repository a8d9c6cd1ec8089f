//! The shards as the one grower's node source: every sum a tree needs is
//! asked of the shards behind the channel and added up in shard order, so
//! that [`crate::grower::TreeGrower`] grows a distributed tree as it grows
//! one on local rows (one shard gives the single machine's tree bit for
//! bit).
//!
//! Requests are batched as the grower's needs allow: a root's sums travel
//! with its histogram (exhaustive search), two siblings' histograms in one
//! exchange, and splits and exclusions wait for the next request.

use super::channel::{outputs, protocol_error, summed_histogram, Channel};
use super::group_search::ClientTests;
use super::protocol::{Op, Output};
use crate::binning::BinMapper;
use crate::error::Result;
use crate::grower::scale_from_sums;
use crate::grower::source::{NodeSource, RootHistogram, SiblingBins, Siblings};
use crate::grower::LeafSegment;
use crate::histogram::{HistBin, HistLayout, Histogram};
use crate::split::{NodeStats, SplitCandidate, SplitConstraints};

/// One tree's nodes on the shards: output `output` of the scores, over
/// `n_rows` rows: all of them, or each shard's part of a row sample
/// (`sample[s]`, ascending shard rows).
pub(super) struct ShardNodes<'c, 't> {
    pub channel: &'c mut Channel<'t>,
    pub output: usize,
    /// The plan's population the tree is grown on.
    pub population: usize,
    pub n_rows: usize,
    pub sample: Option<Vec<Vec<u32>>>,
    pub mappers: &'c [BinMapper],
    /// Group testing's subsets and plan, when the fit uses it.
    pub tests: Option<&'c ClientTests>,
}

impl ShardNodes<'_, '_> {
    fn listed(&self, features: &[usize]) -> HistLayout {
        HistLayout::listed(self.mappers, features)
    }
}

/// `summed` (the shards' histogram of `features`, listed) into `hist`
/// (laid out by `to`): taken as it is when `to` lists the same features,
/// else copied feature by feature.
fn copy_features(
    summed: Histogram,
    from: &HistLayout,
    hist: &mut Histogram,
    to: &HistLayout,
    features: &[usize],
) {
    if to.lists(features) {
        *hist = summed;
        return;
    }
    for &f in features {
        hist.bins[to.range(f)].copy_from_slice(summed.feature(from, f));
    }
}

impl NodeSource for ShardNodes<'_, '_> {
    fn root_count(&self) -> usize {
        self.n_rows
    }

    fn root(&mut self, hist: Option<RootHistogram>) -> Result<(NodeStats, f64)> {
        let histogram = hist.as_ref().map(|h| histogram_op(0, h.features));
        let requests = (0..self.channel.traffic.shards)
            .map(|s| {
                let rows = self.sample.as_ref().map(|sample| sample[s].clone());
                let root = Op::Root {
                    output: self.output as u32,
                    population: self.population as u32,
                    rows,
                };
                std::iter::once(root).chain(histogram.clone()).collect()
            })
            .collect();
        let replies = self.channel.each(requests)?;
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
        if let Some(request) = hist {
            let listed = self.listed(request.features);
            let summed = summed_histogram(&replies, 1, listed.total_bins())?;
            copy_features(
                summed,
                &listed,
                request.hist,
                request.layout,
                request.features,
            );
        }
        Ok((stats, scale_from_sums(per_row, stats)))
    }

    fn histogram(
        &mut self,
        node: LeafSegment,
        features: &[usize],
        layout: &HistLayout,
        hist: &mut Histogram,
    ) -> Result<()> {
        let replies = self.channel.all(vec![histogram_op(node.node, features)])?;
        let listed = self.listed(features);
        let summed = summed_histogram(&replies, 0, listed.total_bins())?;
        copy_features(summed, &listed, hist, layout, features);
        Ok(())
    }

    fn split(
        &mut self,
        node: LeafSegment,
        split: &SplitCandidate,
        left: usize,
    ) -> Result<(LeafSegment, LeafSegment)> {
        let missing = self.mappers[split.feature].missing_bin();
        self.channel.pending.push(Op::Split {
            node: node.node as u32,
            feature: split.feature as u32,
            left_bins: split.left_bins(missing),
            left: left as u32,
        });
        let child = |node, count: u32| LeafSegment {
            node,
            begin: 0,
            count: count as usize,
        };
        Ok((child(left, split.left.n), child(left + 1, split.right.n)))
    }

    fn siblings<'s>(
        &'s mut self,
        pair: Siblings<'_>,
        small_hist: &mut Histogram,
    ) -> Result<Box<dyn SiblingBins + 's>> {
        let mut ops = vec![histogram_op(pair.small.node, pair.features)];
        if !pair.large_missing.is_empty() {
            ops.push(histogram_op(pair.large.node, pair.large_missing));
        }
        let replies = self.channel.all(ops)?;
        let listed = self.listed(pair.features);
        let small = summed_histogram(&replies, 0, listed.total_bins())?;
        copy_features(small, &listed, small_hist, pair.layout, pair.features);
        let large = match pair.large_missing.is_empty() {
            true => None,
            false => {
                let layout = self.listed(pair.large_missing);
                Some((summed_histogram(&replies, 1, layout.total_bins())?, layout))
            }
        };
        Ok(Box::new(SummedBins { large }))
    }

    fn group_tests(
        &mut self,
        node: LeafSegment,
        stats: NodeStats,
        constraints: SplitConstraints,
    ) -> Result<Vec<usize>> {
        let tests = self.tests.expect("group testing");
        tests.candidates(self.channel, node.node, node.count, stats, constraints)
    }

    fn exclude(&mut self, features: &[usize]) {
        self.channel.pending.push(Op::Exclude {
            features: features.iter().map(|&f| f as u32).collect(),
        });
    }
}

/// The sibling pass over summed histograms: the smaller sibling's bins
/// are all in place already; the larger one's missing features come from
/// their own summed histogram.
struct SummedBins {
    large: Option<(Histogram, HistLayout)>,
}

impl SiblingBins for SummedBins {
    fn small(&self, _: usize, _: usize, _: &mut [HistBin]) {}

    fn large(&self, f: usize, bins: &mut [HistBin]) {
        let (hist, layout) = self.large.as_ref().expect("the larger sibling's histogram");
        bins.copy_from_slice(hist.feature(layout, f));
    }
}

fn histogram_op(node: usize, features: &[usize]) -> Op {
    Op::Histogram {
        node: node as u32,
        features: features.iter().map(|&f| f as u32).collect(),
    }
}
