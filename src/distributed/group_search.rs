//! GT-GBM's group tests, run by the client over all shards at once: the
//! same subsets, halvings and choices as the single-machine search
//! (`crate::group_testing::search`), level-synchronously.
//!
//! A node's tests advance every subset's binary search L halvings per
//! block (L from [`MAX_BLOCKS`]). For each subset the client asks for every
//! range the next L halvings could reach (both halves at each level:
//! 2^(L+1) − 2 ranges), in two round trips: the pseudo-features' bounds, pooled to set
//! bin edges every shard shares (the single machine bins each
//! pseudo-feature from its minimum to its maximum over the node's rows, so
//! pooled bounds give one shard the same bins), then their histograms. The
//! client adds these up, scores each range as the single machine does, and
//! walks each subset down L levels. Under a shortened plan, one more pair
//! of round trips first tests each subset's whole range, to choose the
//! subsets searched, as the single machine does.

use super::channel::{outputs, protocol_error, summed_histogram, Channel};
use super::protocol::{Op, Output};
use crate::error::Result;
use crate::group_testing::prefix_cache::cut;
use crate::group_testing::screening::most_promising;
use crate::group_testing::search::{pseudo_gain, PseudoBins};
use crate::grower::{draw_subsets_over, scaled_constraints};
use crate::params::BoosterParams;
use crate::split::{NodeStats, SplitConstraints};
use std::collections::HashMap;

/// Blocks of a node's tests: a search of h halvings looks ⌈h / 4⌉ halvings
/// ahead per block, so a tested node costs at most 2 · 4 + 1 round trips
/// (2 more to screen the subsets of a shortened plan),
/// with the fewest ranges per subset that allows (a block of L halvings
/// asks for 2^(L+1) − 2 ranges, where a sequential search tests 2L). See
/// docs/distributed.md for the measured trade-off.
pub const MAX_BLOCKS: usize = 4;

/// The client's group-testing state of a fit: the subsets and how far
/// each block of a node's tests looks ahead. (Which nodes are tested, and
/// which features they keep, is the grower's choice.)
pub(super) struct ClientTests {
    subsets: Vec<Vec<u32>>,
    max_rows: Option<usize>,
    /// Halvings per block.
    lookahead: usize,
    /// Subsets a node searches.
    n_searched: usize,
}

impl ClientTests {
    /// The subsets of a fit of `n_rows` rows (drawn as the single machine
    /// draws them); the shards build their caches from `request()`.
    pub(super) fn new(params: &BoosterParams, splittable: &[bool], n_rows: usize) -> Result<Self> {
        let (subsets, n_searched) = draw_subsets_over(splittable, n_rows, params)?;
        let len = subsets.first().map_or(0, Vec::len) as u32;
        Ok(ClientTests {
            lookahead: halvings(0, len).div_ceil(MAX_BLOCKS).max(1),
            subsets,
            max_rows: params.gt_max_rows,
            n_searched,
        })
    }

    /// The request that makes the shards build their caches.
    pub(super) fn request(&self) -> Op {
        Op::GroupTests {
            subsets: self.subsets.clone(),
        }
    }

    pub(super) fn n_subsets(&self) -> usize {
        self.subsets.len()
    }

    /// The survivors of `node`'s group tests (a node of `n_node` rows over
    /// all shards, sums `stats`), ascending: the subsets whose whole ranges
    /// test best (`group_testing::screening`), then their searches.
    pub(super) fn candidates(
        &self,
        channel: &mut Channel,
        node: usize,
        n_node: usize,
        stats: NodeStats,
        constraints: SplitConstraints,
    ) -> Result<Vec<usize>> {
        let test = NodeTest {
            node: node as u32,
            n_node,
            stats,
            constraints,
            sample: self
                .max_rows
                .filter(|&k| n_node > k)
                .map(|k| (n_node as u64, k as u64)),
        };
        let len = self.subsets.first().map_or(0, Vec::len) as u32;
        let p = self.subsets.len();
        let searched = if self.n_searched >= p {
            (0..p).collect()
        } else {
            let wholes: Vec<(u32, u32, u32)> = (0..p as u32).map(|g| (g, 0, len)).collect();
            let gains = test.gains(channel, wholes.clone())?;
            let gains: Vec<f64> = wholes.iter().map(|r| gains[r]).collect();
            most_promising(&gains, self.n_searched)
        };
        let mut searches: Vec<(u32, (u32, u32))> =
            searched.into_iter().map(|g| (g as u32, (0, len))).collect();
        loop {
            let mut ranges = Vec::new();
            for &(g, (lo, hi)) in &searches {
                plan(g, lo, hi, self.lookahead, &mut ranges);
            }
            if ranges.is_empty() {
                break;
            }
            let gains = test.gains(channel, ranges)?;
            for (g, search) in searches.iter_mut() {
                *search = walk(*g, *search, self.lookahead, &gains)?;
            }
        }
        let mut found: Vec<usize> = searches
            .iter()
            .map(|&(g, (lo, _))| self.subsets[g as usize][lo as usize] as usize)
            .collect();
        found.sort_unstable();
        found.dedup();
        Ok(found)
    }
}

/// One node's group tests: its rows over all shards, their sums, the limits
/// a split must meet, and the row sample the tests use (if any).
struct NodeTest {
    node: u32,
    n_node: usize,
    stats: NodeStats,
    constraints: SplitConstraints,
    /// (the node's rows, rows tested) when the tests use a sample.
    sample: Option<(u64, u64)>,
}

impl NodeTest {
    /// The gain of each range's pseudo-feature on the node, in two round
    /// trips: bounds pooled over the shards, then histograms binned alike.
    fn gains(
        &self,
        channel: &mut Channel,
        ranges: Vec<(u32, u32, u32)>,
    ) -> Result<HashMap<(u32, u32, u32), f64>> {
        let replies = channel.all(vec![Op::Bounds {
            node: self.node,
            sample: self.sample,
            ranges: ranges.clone(),
        }])?;
        let parts = outputs(&replies, 0, "group-test bounds", |o| match o {
            Output::Bounds { g, h, n, bounds } if bounds.len() == ranges.len() => Some((
                NodeStats {
                    g: *g,
                    h: *h,
                    n: *n,
                },
                bounds.clone(),
            )),
            _ => None,
        })?;
        let mut tested = parts[0].0;
        let mut bounds = parts[0].1.clone();
        for (s, b) in &parts[1..] {
            tested = NodeStats {
                g: tested.g + s.g,
                h: tested.h + s.h,
                n: tested.n + s.n,
            };
            for (pooled, part) in bounds.iter_mut().zip(b) {
                *pooled = (pooled.0.min(part.0), pooled.1.max(part.1));
            }
        }
        let n_values = u64::from(tested.n);
        // A sampled node is tested with its sample's sums and limits
        // scaled to it; otherwise with the node's own.
        let (tested, limits) = match self.sample {
            Some(_) => {
                let fraction = n_values as f64 / self.n_node as f64;
                (tested, scaled_constraints(self.constraints, fraction))
            }
            None => (self.stats, self.constraints),
        };
        let replies = channel.all(vec![Op::PseudoHistograms {
            node: self.node,
            sample: self.sample,
            ranges: ranges.clone(),
            bounds: bounds.clone(),
            n_values,
        }])?;
        let width = PseudoBins::len_for(n_values);
        let binned: Vec<bool> = bounds
            .iter()
            .map(|&(min, max)| PseudoBins::can_split(min, max, n_values))
            .collect();
        let total = width * binned.iter().filter(|&&b| b).count();
        let hist = summed_histogram(&replies, 0, total)?;
        let mut gains: HashMap<(u32, u32, u32), f64> = HashMap::with_capacity(ranges.len());
        let mut at = 0;
        for (range, has_bins) in ranges.iter().zip(binned) {
            let gain = if has_bins {
                at += width;
                pseudo_gain(&hist.bins[at - width..at], tested, &limits)
            } else {
                0.0
            };
            gains.insert(*range, gain);
        }
        Ok(gains)
    }
}

/// Append to `ranges` both halves of `lo..hi` of subset `g` and, `depth − 1`
/// levels further, of each half: every range the next `depth` halvings may
/// test.
fn plan(g: u32, lo: u32, hi: u32, depth: usize, ranges: &mut Vec<(u32, u32, u32)>) {
    if depth == 0 || hi - lo <= 1 {
        return;
    }
    let mid = cut(lo as usize, hi as usize) as u32;
    ranges.push((g, lo, mid));
    ranges.push((g, mid, hi));
    plan(g, lo, mid, depth - 1, ranges);
    plan(g, mid, hi, depth - 1, ranges);
}

/// The most halvings a search of `lo..hi` takes.
fn halvings(lo: u32, hi: u32) -> usize {
    if hi - lo <= 1 {
        return 0;
    }
    let mid = cut(lo as usize, hi as usize) as u32;
    1 + halvings(lo, mid).max(halvings(mid, hi))
}

/// Subset `g`'s search from `lo..hi` after up to `depth` halvings, each
/// keeping the half whose pseudo-feature splits better (the left one on
/// ties), as the single-machine search does.
fn walk(
    g: u32,
    (mut lo, mut hi): (u32, u32),
    depth: usize,
    gains: &HashMap<(u32, u32, u32), f64>,
) -> Result<(u32, u32)> {
    for _ in 0..depth {
        if hi - lo <= 1 {
            break;
        }
        let mid = cut(lo as usize, hi as usize) as u32;
        let gain = |r| {
            gains
                .get(&r)
                .copied()
                .ok_or_else(|| protocol_error("a tested range"))
        };
        if gain((g, lo, mid))? >= gain((g, mid, hi))? {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Ok((lo, hi))
}
