//! Sorting a feature's values for its quantile cuts, the bulk of binning
//! time. The values are spread into buckets by value (one linear pass, as a
//! feature's values are usually spread fairly evenly between their minimum
//! and maximum), the rare large bucket is sorted on its own, and one
//! insertion pass finishes the rest: about 1.4x faster than a comparison
//! sort of 6000 Gaussian values. Skewed features still sort correctly, in a
//! few large buckets. Floats are compared as integers that order like them.
//! (An LSD radix sort of those keys was slower: seven of its eight byte
//! passes are needed, each a random scatter.)

/// The distinct values of `values` that are not NaN, ascending, with how
/// often each occurs. `-0.0` counts as `0.0`.
pub fn sorted_distinct(values: &[f64]) -> (Vec<f64>, Vec<usize>) {
    let finite: Vec<f64> = values
        .iter()
        .filter(|v| !v.is_nan())
        .map(|&v| v + 0.0)
        .collect();
    let mut distinct = Vec::new();
    let mut counts: Vec<usize> = Vec::new();
    let mut previous = None;
    for k in sorted_keys(&finite) {
        if previous == Some(k) {
            *counts.last_mut().expect("a previous value") += 1;
        } else {
            distinct.push(value(k));
            counts.push(1);
            previous = Some(k);
        }
    }
    (distinct, counts)
}

/// Buckets larger than this are sorted on their own, not by the final
/// insertion pass, which would take quadratic time in them.
const SMALL_BUCKET: usize = 16;

/// The keys of `values` (no NaN), ascending: bucket sort on the values.
fn sorted_keys(values: &[f64]) -> Vec<u64> {
    let n = values.len();
    let (min, max) = values
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| {
            (lo.min(v), hi.max(v))
        });
    let width = max - min;
    let scale = n as f64 / width;
    if n <= SMALL_BUCKET || !(width.is_finite() && scale.is_finite() && width > 0.0) {
        let mut keys: Vec<u64> = values.iter().map(|&v| key(v)).collect();
        keys.sort_unstable();
        return keys;
    }
    // Non-decreasing in the value (a rounded difference and product are
    // monotone, the cast saturates), so a bucket's values all lie below the
    // next bucket's and no key moves across a bucket boundary below.
    let bucket_of = |v: f64| (((v - min) * scale) as usize).min(n - 1);
    let mut starts = vec![0u32; n + 1];
    let buckets: Vec<u32> = values
        .iter()
        .map(|&v| {
            let b = bucket_of(v);
            starts[b + 1] += 1;
            b as u32
        })
        .collect();
    for b in 0..n {
        starts[b + 1] += starts[b];
    }
    let mut next = starts.clone();
    let mut keys = vec![0u64; n];
    for (&v, &b) in values.iter().zip(&buckets) {
        let slot = &mut next[b as usize];
        keys[*slot as usize] = key(v);
        *slot += 1;
    }
    for b in starts.windows(2) {
        if (b[1] - b[0]) as usize > SMALL_BUCKET {
            keys[b[0] as usize..b[1] as usize].sort_unstable();
        }
    }
    for i in 1..n {
        let k = keys[i];
        let mut j = i;
        while j > 0 && keys[j - 1] > k {
            keys[j] = keys[j - 1];
            j -= 1;
        }
        keys[j] = k;
    }
    keys
}

/// An integer with the order of the float: flip all bits of negatives, the
/// sign bit of the rest (without branches: the signs of a feature's values
/// are unpredictable).
fn key(v: f64) -> u64 {
    let bits = v.to_bits();
    bits ^ ((((bits as i64) >> 63) as u64) | 1 << 63)
}

fn value(k: u64) -> f64 {
    f64::from_bits(k ^ ((k >> 63).wrapping_sub(1) | 1 << 63))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    fn reference(values: &[f64]) -> (Vec<f64>, Vec<usize>) {
        let mut sorted: Vec<f64> = values
            .iter()
            .filter(|v| !v.is_nan())
            .map(|v| v + 0.0)
            .collect();
        sorted.sort_by(|a, b| a.total_cmp(b));
        let mut distinct: Vec<f64> = Vec::new();
        let mut counts: Vec<usize> = Vec::new();
        for v in sorted {
            if distinct.last() == Some(&v) {
                *counts.last_mut().unwrap() += 1;
            } else {
                distinct.push(v);
                counts.push(1);
            }
        }
        (distinct, counts)
    }

    #[test]
    fn agrees_with_a_comparison_sort() {
        let mut rng = Rng::new(4);
        let wide: Vec<f64> = (0..3000)
            .map(|_| (rng.next_f64() - 0.5) * 10f64.powi(rng.below(40) as i32 - 20))
            .collect();
        let narrow: Vec<f64> = (0..3000).map(|_| 1.0 + rng.next_f64()).collect();
        let ties: Vec<f64> = (0..3000).map(|i| (i % 7) as f64 - 3.0).collect();
        let mut special = vec![0.0, -0.0, f64::MIN, f64::MAX, 1e-300, -1e-300, 5e-324];
        special.extend(&narrow[..100]);
        // Bell-shaped, as most features: dense buckets in the middle.
        let bell: Vec<f64> = (0..6000)
            .map(|_| (0..4).map(|_| rng.next_f64()).sum::<f64>())
            .collect();
        // One far outlier puts nearly every value in the first bucket.
        let mut outlier: Vec<f64> = (0..3000).map(|_| rng.next_f64()).collect();
        outlier.push(1e12);
        // Subnormal spread: the bucket scale overflows, a plain sort is used.
        let tiny: Vec<f64> = (0..500).map(|i| (i % 13) as f64 * 5e-324).collect();
        let mut with_nan = narrow.clone();
        with_nan.extend([f64::NAN, -0.0, f64::NAN]);
        let cases = [wide, narrow, ties, special, bell, outlier, tiny, with_nan];
        for values in cases
            .into_iter()
            .chain([vec![2.0, 1.0], vec![f64::NAN], vec![]])
        {
            let (distinct, counts) = sorted_distinct(&values);
            let (want_distinct, want_counts) = reference(&values);
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&distinct), bits(&want_distinct));
            assert_eq!(counts, want_counts);
        }
    }
}
