//! Which child a row takes at a split: the one rule, in the two spaces it
//! is applied in. A raw value goes left when it is at most the threshold,
//! NaN where the split sends it (`default_left`); a bin goes left when it is
//! at most the threshold bin, the feature's missing-value bin where the
//! split sends NaN. A bin goes where the values it holds go, because the
//! threshold is the upper edge of the threshold bin
//! ([`crate::binning::BinMapper::threshold_of_bin`]). A categorical split
//! sends the codes of its set left and every other value right
//! ([`crate::categorical`]); its codes are its bins.
//!
//! In bin space every split is a [`BinSet`], the bins that go left, so
//! that partitions and binned trees test one bit whatever the split.
//!
//! Prediction ([`crate::predictor`], [`crate::tree`]), the training and
//! evaluation scores ([`crate::scores`]) and the partition of a node's rows
//! (the grower's and a shard's, [`partition_split`]) all route through
//! here.

use crate::binning::{BinnedData, Column};
use crate::partition::partition_segment;
use crate::tree::Node;
use serde::{Deserialize, Serialize};

/// A set of bins of one feature (256 bits): the bins a split sends left,
/// or a categorical split's codes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct BinSet(pub [u64; 4]);

impl BinSet {
    /// Whether bin `b` is in the set.
    #[inline(always)]
    pub fn contains(&self, b: u8) -> bool {
        self.0[(b >> 6) as usize] >> (b & 63) & 1 == 1
    }

    pub fn insert(&mut self, b: u8) {
        self.0[(b >> 6) as usize] |= 1 << (b & 63);
    }

    /// The set of these codes (each below 256).
    pub fn of(codes: impl IntoIterator<Item = u32>) -> Self {
        let mut set = BinSet::default();
        for c in codes {
            set.insert(c as u8);
        }
        set
    }

    /// The bins a threshold split sends left (see [`bin_goes_left`]).
    pub fn threshold(threshold: u8, missing: u8, default_left: bool) -> Self {
        BinSet::of(
            (0..=255u8)
                .filter(|&b| bin_goes_left(b, threshold, missing, default_left))
                .map(u32::from),
        )
    }

    /// The bins `node` (an internal node on a feature whose NaN bin is
    /// `missing`) sends left.
    pub fn of_node(node: &Node, missing: u8) -> Self {
        match &node.categories {
            Some(codes) => BinSet::of(codes.iter().copied().filter(|&c| c < 256)),
            None => BinSet::threshold(node.threshold_bin, missing, node.default_left),
        }
    }

    /// The codes in the set, ascending.
    pub fn codes(&self) -> Vec<u32> {
        (0..=255u8)
            .filter(|&b| self.contains(b))
            .map(u32::from)
            .collect()
    }
}

/// Whether raw value `v` goes left at a split on `threshold`.
#[inline(always)]
pub fn value_goes_left(v: f64, threshold: f64, default_left: bool) -> bool {
    if v.is_nan() {
        default_left
    } else {
        v <= threshold
    }
}

/// Whether `bin` goes left at a split on threshold bin `threshold` of a
/// feature whose NaN bin is `missing`.
#[inline(always)]
pub fn bin_goes_left(bin: u8, threshold: u8, missing: u8, default_left: bool) -> bool {
    if bin == missing {
        default_left
    } else {
        bin <= threshold
    }
}

/// Partition the rows of `segment` (ascending) by a split of `feature`
/// that sends bins `left` left: the rows going left first, both parts
/// ascending. Returns how many go left.
pub fn partition_split(
    segment: &mut [u32],
    data: &BinnedData,
    feature: usize,
    left: &BinSet,
) -> usize {
    let goes_left = |b: u8| left.contains(b);
    match data.column(feature) {
        Column::Dense(column) => partition_segment(segment, |_, r| goes_left(column[r as usize])),
        Column::Sparse(column) => {
            let mut bins = vec![0u8; segment.len()];
            column.bins_of_ascending(segment, &mut bins);
            partition_segment(segment, |i, _| goes_left(bins[i]))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::binning::BinMapper;
    use crate::rng::Rng;

    #[test]
    fn a_bin_goes_where_its_values_go() {
        let mut rng = Rng::new(7);
        let mut values: Vec<f64> = (0..500).map(|_| (rng.next_f64() * 40.0).floor()).collect();
        values.extend([f64::NAN, -1e300, 1e300, 0.0]);
        for max_bins in [4, 16, 255] {
            let mapper = BinMapper::fit(&values, max_bins);
            let missing = mapper.missing_bin();
            for threshold in 0..mapper.n_value_bins() as u8 {
                let cut = mapper.threshold_of_bin(threshold);
                for default_left in [false, true] {
                    for &v in &values {
                        let by_bin = bin_goes_left(mapper.bin(v), threshold, missing, default_left);
                        assert_eq!(
                            by_bin,
                            value_goes_left(v, cut, default_left),
                            "{v} at {cut}"
                        );
                    }
                }
            }
        }
    }
}
