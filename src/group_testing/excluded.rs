//! Features taken out of every pseudo-feature: SPEC section 3's refinement
//! "subtract Ω's features from a group, so that the search looks for new
//! features". A strong used feature otherwise wins every half it lands in,
//! so each subset holding it can only return it again, and a weaker new
//! feature sharing its subset is never found.

use super::PrefixCache;
use crate::binning::BinnedData;

/// The excluded features, their quantized values and where they sit in
/// each subset.
#[derive(Debug, Clone, Default)]
pub struct Excluded {
    features: Vec<usize>,
    /// The level of each excluded feature at every row (as in the cache).
    levels: Vec<Vec<u16>>,
    /// Per subset: (position in the subset, index into `levels`).
    positions: Vec<Vec<(usize, usize)>>,
}

impl Excluded {
    /// No feature excluded yet.
    pub fn new(cache: &PrefixCache) -> Self {
        Excluded {
            features: Vec::new(),
            levels: Vec::new(),
            positions: vec![Vec::new(); cache.subsets().len()],
        }
    }

    /// The excluded features, in the order they were added.
    pub fn features(&self) -> &[usize] {
        &self.features
    }

    /// Exclude `feature` from now on (O(n + p·d/s)).
    pub fn add(&mut self, cache: &PrefixCache, data: &BinnedData, feature: usize) {
        if self.features.contains(&feature) {
            return;
        }
        let index = self.levels.len();
        self.features.push(feature);
        self.levels.push(cache.level_column(data, feature));
        for (subset, positions) in cache.subsets().iter().zip(&mut self.positions) {
            if let Some(pos) = subset.iter().position(|&f| f as usize == feature) {
                positions.push((pos, index));
            }
        }
    }

    /// Take the excluded features at positions `lo..hi` of subset `g` out of
    /// the pseudo-feature values `sums` of `rows`.
    #[inline]
    pub fn subtract(&self, g: usize, lo: usize, hi: usize, rows: &[u32], sums: &mut [u16]) {
        let Some(positions) = self.positions.get(g) else {
            return;
        };
        for &(pos, index) in positions {
            if (lo..hi).contains(&pos) {
                let levels = &self.levels[index];
                for (z, &r) in sums.iter_mut().zip(rows) {
                    *z = z.wrapping_sub(levels[r as usize]);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::binning::bin_matrix;
    use crate::group_testing::draw_subsets;
    use crate::rng::Rng;

    #[test]
    fn an_excluded_feature_no_longer_counts_in_any_range() {
        let (n, d) = (200, 30);
        let mut rng = Rng::new(2);
        let x: Vec<f64> = (0..n * d).map(|_| rng.next_f64()).collect();
        let data = bin_matrix(&x, n, d, 32, 1000, 0).unwrap();
        let cache = PrefixCache::build(&data, draw_subsets(d, 3, 0.2, 5).unwrap());
        let mut excluded = Excluded::new(&cache);
        excluded.add(&cache, &data, 7);
        excluded.add(&cache, &data, 7);
        excluded.add(&cache, &data, 12);
        assert_eq!(excluded.features(), &[7, 12]);
        let rows: Vec<u32> = (0..n as u32).step_by(3).collect();
        let without = |g: usize, lo: usize, hi: usize, skip: &[usize]| -> Vec<u16> {
            let mut kept = Vec::new();
            cache.range_sums(&data, g, lo, hi, &rows, &mut kept);
            for &f in skip {
                let column = cache.level_column(&data, f);
                if cache.subsets()[g][lo..hi].contains(&(f as u32)) {
                    for (z, &r) in kept.iter_mut().zip(&rows) {
                        *z -= column[r as usize];
                    }
                }
            }
            kept
        };
        let mut tested = 0;
        for g in 0..cache.subsets().len() {
            for (lo, hi) in [(0, 10), (0, 4), (4, 10), (3, 4), (2, 6), (8, 10)] {
                let mut sums = Vec::new();
                cache.range_sums(&data, g, lo, hi, &rows, &mut sums);
                excluded.subtract(g, lo, hi, &rows, &mut sums);
                assert_eq!(sums, without(g, lo, hi, &[7, 12]));
                let holds = |f: u32| cache.subsets()[g][lo..hi].contains(&f);
                tested += usize::from(holds(7) || holds(12));
            }
        }
        assert!(tested > 5);
    }
}
