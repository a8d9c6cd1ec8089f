//! A shard's side of distributed group testing: its rows' part of the
//! prefix-sum cache, and, over a node's tested rows, the bounds and the
//! histograms of the pseudo-features of the ranges the client asks for.
//! The pseudo-feature of a range is an exact integer sum, so a shard's
//! values are those the single-machine search computes at the same rows.

use crate::binning::BinnedData;
use crate::error::{Result, SbError};
use crate::group_testing::prefix_cache::SumWord;
use crate::group_testing::search::PseudoBins;
use crate::group_testing::{Excluded, PrefixCache};
use crate::histogram::{HistBin, NodeGradients};
use crate::interrupt::ShouldStop;
use rayon::prelude::*;

/// A `(subset, lo, hi)` range of a subset's positions.
pub type TestRange = (u32, u32, u32);

/// At most this many pseudo-feature values (of 2 or 4 bytes) are kept
/// from a bounds request for the histograms that follow it; beyond, they
/// are summed again.
const KEEP_VALUES: usize = 1 << 26;

/// The shard's group-testing state.
pub(super) struct ShardTests {
    cache: PrefixCache,
    excluded: Excluded,
    /// The ranges of the last bounds request and their values.
    kept: Option<(Vec<TestRange>, Kept)>,
}

/// Pseudo-feature values in the cache's word.
enum Kept {
    Narrow(Vec<Vec<u16>>),
    Wide(Vec<Vec<u32>>),
}

impl ShardTests {
    /// The cache of `subsets` over the shard's rows.
    pub(super) fn new(
        binned: &BinnedData,
        subsets: Vec<Vec<u32>>,
        should_stop: &ShouldStop,
    ) -> Result<Self> {
        let d = binned.n_features as u32;
        let len = subsets.first().map_or(0, Vec::len);
        if subsets
            .iter()
            .any(|s| s.len() != len || s.iter().any(|&f| f >= d))
        {
            return Err(SbError::InvalidInput(
                "malformed group-testing subsets".into(),
            ));
        }
        let cache = PrefixCache::build(binned, subsets, should_stop)?;
        Ok(ShardTests {
            excluded: Excluded::new(&cache),
            cache,
            kept: None,
        })
    }

    pub(super) fn bytes(&self) -> u64 {
        self.cache.memory_bytes() as u64
    }

    /// Leave `features` out of the pseudo-features from now on.
    pub(super) fn exclude(&mut self, features: &[u32]) {
        self.kept = None;
        for &f in features {
            self.excluded.add(&self.cache, f as usize);
        }
    }

    fn check(&self, ranges: &[TestRange]) -> Result<()> {
        let (p, len) = (self.cache.subsets().len(), self.cache.subset_len());
        if ranges
            .iter()
            .any(|&(g, lo, hi)| g as usize >= p || lo >= hi || hi as usize > len)
        {
            return Err(SbError::InvalidInput("a malformed group-test range".into()));
        }
        Ok(())
    }

    /// `(min, max)` of each range's pseudo-feature at `rows`. The values
    /// are kept (within [`KEEP_VALUES`]) for the histograms of the same
    /// ranges.
    pub(super) fn bounds(&mut self, rows: &[u32], ranges: &[TestRange]) -> Result<Vec<(u64, u64)>> {
        self.check(ranges)?;
        self.kept = None;
        let keep = rows.len() * ranges.len() <= KEEP_VALUES;
        let bounds;
        let kept = if self.cache.is_wide() {
            let values = self.each_indexed::<u32, _>(rows, ranges, |_, v| v.to_vec());
            bounds = values.iter().map(|v| bounds_of(v)).collect();
            Kept::Wide(values)
        } else {
            let values = self.each_indexed::<u16, _>(rows, ranges, |_, v| v.to_vec());
            bounds = values.iter().map(|v| bounds_of(v)).collect();
            Kept::Narrow(values)
        };
        if keep {
            self.kept = Some((ranges.to_vec(), kept));
        }
        Ok(bounds)
    }

    /// Each range's pseudo-feature histogram at `rows` (gradients
    /// `grads`), binned from its pooled `bounds` over `n_values` rows;
    /// ranges whose pseudo-feature cannot split have no bins.
    pub(super) fn histograms(
        &mut self,
        rows: &[u32],
        grads: NodeGradients,
        ranges: &[TestRange],
        bounds: &[(u64, u64)],
        n_values: u64,
    ) -> Result<Vec<HistBin>> {
        self.check(ranges)?;
        if bounds.len() != ranges.len() {
            return Err(SbError::InvalidInput("a bound per group-test range".into()));
        }
        let shift = if self.cache.is_wide() {
            u32::SHIFT
        } else {
            u16::SHIFT
        };
        let bins: Vec<Option<PseudoBins>> = bounds
            .iter()
            .map(|&(min, max)| PseudoBins::new(min, max, n_values, shift))
            .collect();
        let kept = self.kept.take().filter(|(r, _)| r == ranges);
        let per_range: Vec<Vec<HistBin>> = match kept {
            Some((_, Kept::Wide(values))) if values.iter().all(|v| v.len() == rows.len()) => values
                .par_iter()
                .enumerate()
                .map(|(i, v)| histogram(bins[i], v, grads))
                .collect(),
            Some((_, Kept::Narrow(values))) if values.iter().all(|v| v.len() == rows.len()) => {
                values
                    .par_iter()
                    .enumerate()
                    .map(|(i, v)| histogram(bins[i], v, grads))
                    .collect()
            }
            _ if self.cache.is_wide() => {
                self.each_indexed::<u32, _>(rows, ranges, |i, v| histogram(bins[i], v, grads))
            }
            _ => self.each_indexed::<u16, _>(rows, ranges, |i, v| histogram(bins[i], v, grads)),
        };
        Ok(per_range.concat())
    }

    /// `f(i, pseudo-feature of range i at rows)` for every range, in
    /// parallel.
    fn each_indexed<W: SumWord, T: Send>(
        &self,
        rows: &[u32],
        ranges: &[TestRange],
        f: impl Fn(usize, &[W]) -> T + Sync,
    ) -> Vec<T> {
        ranges
            .par_iter()
            .enumerate()
            .map_init(Vec::<W>::new, |values, (i, &(g, lo, hi))| {
                let (g, lo, hi) = (g as usize, lo as usize, hi as usize);
                values.clear();
                self.cache.range_sums(g, lo, hi, rows, values);
                self.excluded.subtract(&self.cache, g, lo, hi, rows, values);
                f(i, values)
            })
            .collect()
    }
}

/// The histogram of `values` in `bins` (none without bins).
fn histogram<W: SumWord>(
    bins: Option<PseudoBins>,
    values: &[W],
    grads: NodeGradients,
) -> Vec<HistBin> {
    let Some(bins) = bins else {
        return Vec::new();
    };
    let mut hist = vec![HistBin::default(); bins.n_bins as usize + 1];
    bins.fill(values, grads, &mut hist);
    hist
}

fn bounds_of<W: SumWord>(values: &[W]) -> (u64, u64) {
    values.iter().fold((u64::MAX, 0), |(lo, hi), &z| {
        let z = z.widen();
        (lo.min(z), hi.max(z))
    })
}

/// The rows a node tests: all of its `rows`, or with `sample = (N, k)` (a
/// node of N rows over all shards tests about k) every
/// `rows.len() / k'`-th of them, k' = ⌈k · rows.len() / N⌉: the single
/// machine's evenly spaced sample when one shard holds every row.
pub(super) fn tested_rows(rows: &[u32], sample: Option<(u64, u64)>) -> Vec<u32> {
    match sample {
        None => rows.to_vec(),
        Some((n, k)) => {
            let c = rows.len() as u128;
            let k = (u128::from(k) * c).div_ceil(u128::from(n.max(1))).min(c) as usize;
            (0..k).map(|i| rows[i * rows.len() / k]).collect()
        }
    }
}
