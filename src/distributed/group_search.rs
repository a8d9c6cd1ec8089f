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
//! walks each subset down L levels.

use super::channel::{outputs, protocol_error, summed_histogram, Channel};
use super::protocol::{Op, Output};
use crate::error::Result;
use crate::group_testing::prefix_cache::cut;
use crate::group_testing::search::{pseudo_gain, PseudoBins};
use crate::grower::{draw_subsets_over, scaled_constraints};
use crate::params::BoosterParams;
use crate::split::{NodeStats, SplitConstraints};
use std::collections::HashMap;

/// Blocks of a node's tests: a search of h halvings looks ⌈h / 4⌉ halvings
/// ahead per block, so a tested node costs at most 2 · 4 + 1 round trips,
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
}

impl ClientTests {
    /// The subsets of a fit of `n_rows` rows (drawn as the single machine
    /// draws them); the shards build their caches from `request()`.
    pub(super) fn new(params: &BoosterParams, splittable: &[bool], n_rows: usize) -> Result<Self> {
        let subsets = draw_subsets_over(splittable, n_rows, params)?;
        let len = subsets.first().map_or(0, Vec::len) as u32;
        Ok(ClientTests {
            lookahead: halvings(0, len).div_ceil(MAX_BLOCKS).max(1),
            subsets,
            max_rows: params.gt_max_rows,
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
    /// all shards, sums `stats`), ascending.
    pub(super) fn candidates(
        &self,
        channel: &mut Channel,
        node: usize,
        n_node: usize,
        stats: NodeStats,
        constraints: SplitConstraints,
    ) -> Result<Vec<usize>> {
        let sample = self
            .max_rows
            .filter(|&k| n_node > k)
            .map(|k| (n_node as u64, k as u64));
        let len = self.subsets.first().map_or(0, Vec::len) as u32;
        let mut searches: Vec<(u32, u32)> = vec![(0, len); self.subsets.len()];
        loop {
            let mut ranges = Vec::new();
            for (g, &(lo, hi)) in searches.iter().enumerate() {
                plan(g as u32, lo, hi, self.lookahead, &mut ranges);
            }
            if ranges.is_empty() {
                break;
            }
            let replies = channel.all(vec![Op::Bounds {
                node: node as u32,
                sample,
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
            let (tested, limits) = match sample {
                Some(_) => {
                    let fraction = n_values as f64 / n_node as f64;
                    (tested, scaled_constraints(constraints, fraction))
                }
                None => (stats, constraints),
            };
            let replies = channel.all(vec![Op::PseudoHistograms {
                node: node as u32,
                sample,
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
            for (g, search) in searches.iter_mut().enumerate() {
                *search = walk(g as u32, *search, self.lookahead, &gains)?;
            }
        }
        let mut found: Vec<usize> = searches
            .iter()
            .zip(&self.subsets)
            .map(|(&(lo, _), subset)| subset[lo as usize] as usize)
            .collect();
        found.sort_unstable();
        found.dedup();
        Ok(found)
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
