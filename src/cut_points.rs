//! The cut points of one feature: a cut midway between each two distinct
//! values when there are at most `max_bins` of them, else equal-frequency
//! cuts chosen greedily over the sorted distinct values (the target size of
//! the next bin is recomputed after each cut from what is left, so that one
//! heavy value does not squeeze all later bins; LightGBM's greedy binning
//! does the same).
//!
//! Sorting all values was most of the binning time, yet only the
//! neighbourhood of each cut matters. So the values are first counted into
//! n buckets of equal width (one linear pass; the bucket of a value never
//! decreases as the value grows, so buckets hold consecutive value ranges),
//! the greedy walk steps over whole buckets in which no cut can fall, and
//! only the few buckets that hold a cut are sorted. The cuts are exactly
//! those of the walk over all sorted values ([`sorted_cut_points`], also
//! used when the values are too few, too concentrated or too skewed for
//! buckets to pay).

use crate::float_sort::sorted_distinct;

/// The cut points of the non-NaN `values` (any order): strictly increasing,
/// at most `max_bins - 1` of them.
pub fn cut_points(values: &[f64], max_bins: usize) -> Vec<f64> {
    cut_points_and_buckets(values, max_bins).0
}

/// [`cut_points`], and the value buckets they were found with, if any: the
/// bucket of each value serves again to bin the same values
/// (`binning::BinTable::over_buckets`).
pub fn cut_points_and_buckets(values: &[f64], max_bins: usize) -> (Vec<f64>, Option<ValueBuckets>) {
    match bucketed_cut_points(values, max_bins) {
        Some((cuts, buckets)) => (cuts, Some(buckets)),
        None => (sorted_cut_points(values, max_bins), None),
    }
}

/// Equal-width buckets over the range of a feature's values, and the
/// bucket of each value. The bucket of a value never decreases as the value
/// grows, so each bucket holds a range of values.
#[derive(Debug, Clone)]
pub struct ValueBuckets {
    /// The smallest value.
    pub min: f64,
    /// Buckets per unit of value.
    pub scale: f64,
    /// Number of buckets.
    pub n_buckets: usize,
    /// The bucket of each value, in the order of the values; `n_buckets`
    /// for NaN.
    pub ids: Vec<u32>,
}

impl ValueBuckets {
    /// The bucket of a value that is not NaN (values out of the range go to
    /// the first or last bucket).
    #[inline]
    pub fn bucket_of(&self, value: f64) -> usize {
        // Clamped as a float: one conversion, no integer fix-ups.
        ((value - self.min) * self.scale).min(self.last_bucket()) as usize
    }

    /// The last bucket, as a float.
    #[inline]
    fn last_bucket(&self) -> f64 {
        (self.n_buckets - 1) as f64
    }
}

/// The greedy walk over every distinct value, after a full sort.
pub fn sorted_cut_points(values: &[f64], max_bins: usize) -> Vec<f64> {
    let (distinct, counts) = sorted_distinct(values);
    walk_distinct(&distinct, &counts, max_bins)
}

/// The cut points of `values` together with `zeros` more values equal to
/// 0.0: a sparse column's sample, whose zeros are not stored. The same cuts
/// as [`cut_points`] of the column written out in full, without writing
/// out the zeros.
pub fn cut_points_with_zeros(values: &[f64], zeros: usize, max_bins: usize) -> Vec<f64> {
    let (mut distinct, mut counts) = sorted_distinct(values);
    if zeros > 0 {
        let at = distinct.partition_point(|&v| v < 0.0);
        if distinct.get(at) == Some(&0.0) {
            counts[at] += zeros;
        } else {
            distinct.insert(at, 0.0);
            counts.insert(at, zeros);
        }
    }
    walk_distinct(&distinct, &counts, max_bins)
}

/// The cuts of ascending distinct values that occur `counts` times.
fn walk_distinct(distinct: &[f64], counts: &[usize], max_bins: usize) -> Vec<f64> {
    if distinct.len() <= max_bins {
        return distinct.windows(2).map(|w| midpoint(w[0], w[1])).collect();
    }
    let mut walk = GreedyWalk::new(counts.iter().sum(), max_bins);
    for i in 0..distinct.len() - 1 {
        if walk.step(distinct[i], counts[i], distinct[i + 1]) {
            break;
        }
    }
    walk.cuts
}

/// The same cuts as [`sorted_cut_points`], sorting only the buckets that
/// hold a cut, and the buckets; `None` when the values fill at most
/// `max_bins` buckets (then there may be few distinct values, which the
/// greedy walk does not handle) or their range cannot be cut into buckets.
fn bucketed_cut_points(values: &[f64], max_bins: usize) -> Option<(Vec<f64>, ValueBuckets)> {
    let (min, max, n) = range_and_count(values);
    let n_buckets = n / VALUES_PER_BUCKET;
    let width = max - min;
    let scale = n_buckets as f64 / width;
    if n_buckets <= max_bins || !(width.is_finite() && scale.is_finite() && width > 0.0) {
        return None;
    }
    let mut buckets = ValueBuckets {
        min,
        scale,
        n_buckets,
        ids: Vec::new(),
    };
    // NaN goes to an extra bucket at the end, which the walk ignores. The
    // ids are computed as floats in a loop of their own, which vectorizes.
    let (last, nan) = (buckets.last_bucket(), n_buckets as f64);
    buckets.ids = values
        .iter()
        .map(|&v| {
            let b = ((v - min) * scale).min(last);
            let b = if v.is_nan() { nan } else { b };
            // SAFETY: `b` is in 0..=n_buckets (v ≥ min, so the product is
            // not negative; NaN was replaced), and n_buckets ≤ n/2 < 2³¹.
            // Unchecked, the conversions vectorize; `as` saturates one
            // value at a time (15% of this function's time).
            unsafe { b.to_int_unchecked::<i32>() as u32 }
        })
        .collect();
    let mut starts = vec![0u32; n_buckets + 2];
    for &b in &buckets.ids {
        starts[b as usize + 1] += 1;
    }
    if starts[1..=n_buckets].iter().filter(|&&c| c > 0).count() <= max_bins {
        return None;
    }
    // The running total in a register (`starts[b + 1] += starts[b]` waits
    // for the store before it).
    let mut total = 0;
    for start in &mut starts {
        total += *start;
        *start = total;
    }
    // The values grouped by bucket (`-0.0` as `0.0`).
    let mut next = starts.clone();
    let mut grouped = vec![0.0; values.len()];
    for (&v, &b) in values.iter().zip(&buckets.ids) {
        let slot = &mut next[b as usize];
        grouped[*slot as usize] = v + 0.0;
        *slot += 1;
    }
    let bucket = |b: usize| starts[b] as usize..starts[b + 1] as usize;
    let next_non_empty = |b: usize| (b + 1..n_buckets).find(|&c| starts[c + 1] > starts[c]);
    let mut walk = GreedyWalk::new(n, max_bins);
    let mut b = 0; // it holds the minimum
    loop {
        // The last non-empty bucket is walked too: cuts fall among its
        // values when the largest values are bunched (a clipped column).
        let after = next_non_empty(b);
        if !walk.passes(bucket(b).len()) {
            let next_value = after.map(|a| {
                grouped[bucket(a)]
                    .iter()
                    .copied()
                    .fold(f64::INFINITY, f64::min)
            });
            let members = &mut grouped[bucket(b)];
            members.sort_unstable_by(f64::total_cmp);
            let mut j = 0;
            while j < members.len() {
                let v = members[j];
                let same = members[j..].iter().take_while(|&&w| w == v).count();
                j += same;
                // (The largest value has no cut after it.)
                let Some(following) = members.get(j).copied().or(next_value) else {
                    break;
                };
                if walk.step(v, same, following) {
                    return Some((walk.cuts, buckets));
                }
            }
        }
        match after {
            Some(a) => b = a,
            None => return Some((walk.cuts, buckets)),
        }
    }
}

/// Values per bucket, on average, in [`bucketed_cut_points`]: enough that
/// the passes over buckets cost little next to those over values, few
/// enough that sorting a bucket with a cut is quick.
const VALUES_PER_BUCKET: usize = 2;

/// The minimum, maximum and number of the non-NaN `values`, in independent
/// lanes that the compiler can vectorize (a single running minimum is one
/// long dependency chain).
fn range_and_count(values: &[f64]) -> (f64, f64, usize) {
    const LANES: usize = 8;
    let mut lo = [f64::INFINITY; LANES];
    let mut hi = [f64::NEG_INFINITY; LANES];
    let mut nan = [0usize; LANES];
    let chunks = values.chunks_exact(LANES);
    let tail = chunks.remainder();
    for chunk in chunks {
        for k in 0..LANES {
            let v = chunk[k];
            // Comparisons with NaN are false: NaN leaves both unchanged.
            lo[k] = if v < lo[k] { v } else { lo[k] };
            hi[k] = if v > hi[k] { v } else { hi[k] };
            nan[k] += usize::from(v.is_nan());
        }
    }
    for (k, &v) in tail.iter().enumerate() {
        lo[k] = if v < lo[k] { v } else { lo[k] };
        hi[k] = if v > hi[k] { v } else { hi[k] };
        nan[k] += usize::from(v.is_nan());
    }
    let min = lo.iter().copied().fold(f64::INFINITY, f64::min);
    let max = hi.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    (min, max, values.len() - nan.iter().sum::<usize>())
}

/// The greedy equal-frequency walk over distinct values in ascending order.
struct GreedyWalk {
    total: f64,
    max_bins: usize,
    seen: usize,
    since_cut: usize,
    target: f64,
    cuts: Vec<f64>,
}

impl GreedyWalk {
    fn new(total: usize, max_bins: usize) -> Self {
        GreedyWalk {
            total: total as f64,
            max_bins,
            seen: 0,
            since_cut: 0,
            target: total as f64 / max_bins as f64,
            cuts: Vec::new(),
        }
    }

    /// Takes `count` values at once if no cut can fall among them (the
    /// running count stays below the target even after the last of them).
    fn passes(&mut self, count: usize) -> bool {
        let passes = ((self.since_cut + count) as f64) < self.target;
        if passes {
            self.seen += count;
            self.since_cut += count;
        }
        passes
    }

    /// The distinct `value`, seen `count` times, followed by `next`; true
    /// once every cut is made.
    fn step(&mut self, value: f64, count: usize, next: f64) -> bool {
        self.seen += count;
        self.since_cut += count;
        if self.since_cut as f64 >= self.target {
            self.cuts.push(midpoint(value, next));
            if self.cuts.len() == self.max_bins - 1 {
                return true;
            }
            self.since_cut = 0;
            let bins_left = (self.max_bins - self.cuts.len()) as f64;
            self.target = (self.total - self.seen as f64) / bins_left;
        }
        false
    }
}

/// A cut strictly below `b` and at or above `a` (`a < b`).
fn midpoint(a: f64, b: f64) -> f64 {
    let m = a + (b - a) / 2.0;
    if m < b {
        m
    } else {
        a
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    #[test]
    fn buckets_give_the_cuts_of_the_full_sort() {
        let mut rng = Rng::new(8);
        let mut features: Vec<(Vec<f64>, bool)> = Vec::new();
        let uniform = (0..6000).map(|_| rng.next_f64()).collect();
        features.push((uniform, true));
        let bell = (0..6000)
            .map(|_| (0..4).map(|_| rng.next_f64()).sum::<f64>() - 2.0)
            .collect();
        features.push((bell, true));
        // Heavy values and ties among continuous ones; NaN and -0.0.
        let mut mixed: Vec<f64> = (0..3000)
            .map(|i| match i % 10 {
                0 => 0.5,
                1 => f64::NAN,
                2 => -0.0,
                3 => 0.0,
                _ => rng.next_f64() * 2.0 - 1.0,
            })
            .collect();
        mixed.extend(std::iter::repeat_n(0.25, 700));
        features.push((mixed, true));
        // Skewed: most values share few buckets, still more than max_bins.
        let skewed = (0..6000).map(|_| (8.0 * rng.next_f64()).exp()).collect();
        features.push((skewed, true));
        // The largest values bunched in the last bucket (a clipped
        // measurement, jittered): the cuts among them are there too.
        let clipped = (0..6000)
            .map(|_| (2.0 * rng.next_f64()).min(1.0) + 1e-9 * rng.next_f64())
            .collect();
        features.push((clipped, true));
        // Too few distinct values, or too concentrated: the full sort.
        let few = (0..6000).map(|i| (i % 200) as f64).collect();
        features.push((few, false));
        let outlier = (0..6000)
            .map(|i| if i == 0 { 1e15 } else { rng.next_f64() })
            .collect();
        features.push((outlier, false));
        for (values, bucketed) in features {
            for max_bins in [255, 64, 2] {
                let want = sorted_cut_points(&values, max_bins);
                let got = bucketed_cut_points(&values, max_bins).map(|(cuts, _)| cuts);
                if max_bins == 255 {
                    assert_eq!(got.is_some(), bucketed);
                }
                if let Some(got) = got {
                    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                    assert_eq!(bits(&got), bits(&want), "max_bins {max_bins}");
                }
                assert_eq!(cut_points(&values, max_bins), want);
                assert!(want.windows(2).all(|w| w[0] < w[1]));
                assert!(want.len() < max_bins);
            }
        }
    }

    #[test]
    fn the_last_bucket_is_walked() {
        // 2.5 and 3 share the last of 6 buckets; the cut between them is
        // the full sort's second.
        let values = [2.5, 0.0, 3.0, 0.0, 0.5, 0.0, 0.0, 0.5, 0.0, -1.0, 3.0, 3.0];
        let (cuts, _) = bucketed_cut_points(&values, 3).expect("bucketed");
        assert_eq!(cuts, sorted_cut_points(&values, 3));
        assert_eq!(cuts, vec![0.25, 2.75]);
    }

    /// Many shapes and sizes: clumps of equal values, gaps of empty
    /// buckets, heavy tails, NaN; every bucketed walk must make the cuts of
    /// the full sort.
    #[test]
    fn buckets_give_the_cuts_of_the_full_sort_on_random_columns() {
        let mut rng = Rng::new(21);
        let mut bucketed = 0;
        for case in 0..400 {
            let n = 100 + (rng.next_f64() * 8000.0) as usize;
            let clumps = (rng.next_f64() * 6.0) as usize;
            let tail = rng.next_f64() * 6.0;
            let values: Vec<f64> = (0..n)
                .map(|_| {
                    let u = rng.next_f64();
                    if u < 0.02 * clumps as f64 {
                        (u * 1000.0).round() / 50.0
                    } else if u > 0.99 {
                        f64::NAN
                    } else if u > 0.97 {
                        // a gap, then a heavy tail
                        10.0 + (tail * rng.next_f64()).exp()
                    } else {
                        rng.next_f64() * 3.0
                    }
                })
                .collect();
            let max_bins = [255, 64, 16, 3][case % 4];
            let want = sorted_cut_points(&values, max_bins);
            if let Some((got, _)) = bucketed_cut_points(&values, max_bins) {
                bucketed += 1;
                let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(
                    bits(&got),
                    bits(&want),
                    "case {case}, n {n}, max_bins {max_bins}"
                );
            }
        }
        assert!(bucketed > 300, "{bucketed} of 400 columns took buckets");
    }

    #[test]
    fn zeros_left_out_give_the_cuts_of_the_full_column() {
        let mut rng = Rng::new(9);
        for (n_values, zeros, max_bins) in [(50, 500, 255), (3000, 6000, 255), (3000, 10, 16)] {
            let values: Vec<f64> = (0..n_values)
                .map(|i| match i % 9 {
                    0 => f64::NAN,
                    1 => 0.0,
                    2 => -0.0,
                    _ => rng.next_f64() * 4.0 - 2.0,
                })
                .collect();
            let mut full = values.clone();
            full.extend(std::iter::repeat_n(0.0, zeros));
            assert_eq!(
                cut_points_with_zeros(&values, zeros, max_bins),
                cut_points(&full, max_bins),
                "{n_values} values, {zeros} zeros"
            );
        }
        let positive = [3.0, 1.0, 2.0];
        assert_eq!(
            cut_points_with_zeros(&positive, 4, 255),
            vec![0.5, 1.5, 2.5]
        );
        assert_eq!(cut_points_with_zeros(&[], 4, 255), Vec::<f64>::new());
    }
}
