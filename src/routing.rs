//! Which child a row takes at a split: the one rule, in the two spaces it
//! is applied in. A raw value goes left when it is at most the threshold,
//! NaN where the split sends it (`default_left`); a bin goes left when it is
//! at most the threshold bin, the feature's missing-value bin where the
//! split sends NaN. A bin goes where the values it holds go, because the
//! threshold is the upper edge of the threshold bin
//! ([`crate::binning::BinMapper::threshold_of_bin`]).
//!
//! Prediction ([`crate::predictor`], [`crate::tree`]), the training and
//! evaluation scores ([`crate::scores`]) and the partition of a node's rows
//! (the grower's and a shard's, [`partition_split`]) all route through
//! here.

use crate::binning::{BinnedData, Column};
use crate::partition::partition_segment;

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

/// Partition the rows of `segment` (ascending) by a split of `feature` at
/// bin `threshold`: the rows going left first, both parts ascending.
/// Returns how many go left.
pub fn partition_split(
    segment: &mut [u32],
    data: &BinnedData,
    feature: usize,
    threshold: u8,
    default_left: bool,
) -> usize {
    let missing = data.mappers[feature].missing_bin();
    let goes_left = |b: u8| bin_goes_left(b, threshold, missing, default_left);
    match data.column(feature) {
        Column::Dense(column) => partition_segment(segment, |r| goes_left(column[r as usize])),
        Column::Sparse(column) => partition_segment(segment, |r| goes_left(column.bin_of(r))),
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
