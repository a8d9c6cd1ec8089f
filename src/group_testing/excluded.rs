//! Features taken out of every pseudo-feature: SPEC section 3's refinement
//! "subtract Ω's features from a group, so that the search looks for new
//! features". A strong used feature otherwise wins every half it lands in,
//! so each subset holding it can only return it again, and a weaker new
//! feature sharing its subset is never found.

use super::prefix_cache::SumWord;
use super::PrefixCache;

/// The excluded features and where they sit in each subset.
#[derive(Debug, Clone, Default)]
pub struct Excluded {
    features: Vec<usize>,
    /// Per subset: (position in the subset, feature).
    positions: Vec<Vec<(usize, usize)>>,
}

impl Excluded {
    /// No feature excluded yet.
    pub fn new(cache: &PrefixCache) -> Self {
        Excluded {
            features: Vec::new(),
            positions: vec![Vec::new(); cache.subsets().len()],
        }
    }

    /// The excluded features, in the order they were added.
    pub fn features(&self) -> &[usize] {
        &self.features
    }

    /// Exclude `feature` from now on (O(p·d/s)).
    pub fn add(&mut self, cache: &PrefixCache, feature: usize) {
        if self.features.contains(&feature) {
            return;
        }
        self.features.push(feature);
        for (subset, positions) in cache.subsets().iter().zip(&mut self.positions) {
            if let Some(pos) = subset.iter().position(|&f| f as usize == feature) {
                positions.push((pos, feature));
            }
        }
    }

    /// Take the excluded features at positions `lo..hi` of subset `g` out of
    /// the pseudo-feature values `sums` of `rows`.
    #[inline]
    pub fn subtract<W: SumWord>(
        &self,
        cache: &PrefixCache,
        g: usize,
        lo: usize,
        hi: usize,
        rows: &[u32],
        sums: &mut [W],
    ) {
        let Some(positions) = self.positions.get(g) else {
            return;
        };
        for &(pos, feature) in positions {
            if (lo..hi).contains(&pos) {
                let levels = cache.levels(feature);
                for (z, &r) in sums.iter_mut().zip(rows) {
                    *z = z.wrapping_sub(W::from_level(levels[r as usize]));
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
    use crate::interrupt::never;
    use crate::rng::Rng;

    #[test]
    fn an_excluded_feature_no_longer_counts_in_any_range() {
        let (n, d) = (200, 30);
        let mut rng = Rng::new(2);
        let x: Vec<f64> = (0..n * d).map(|_| rng.next_f64()).collect();
        let data = bin_matrix(&x, n, d, 32, 1000, 0, &never).unwrap();
        let subsets = draw_subsets(d, 3, 0.2, 5).unwrap();
        let cache = PrefixCache::build(&data, subsets, &never).unwrap();
        let mut excluded = Excluded::new(&cache);
        excluded.add(&cache, 7);
        excluded.add(&cache, 7);
        excluded.add(&cache, 12);
        assert_eq!(excluded.features(), &[7, 12]);
        let rows: Vec<u32> = (0..n as u32).step_by(3).collect();
        // The levels of the range's other features, added up.
        let without = |g: usize, lo: usize, hi: usize, skip: &[usize]| -> Vec<u16> {
            let kept: Vec<usize> = cache.subsets()[g][lo..hi]
                .iter()
                .map(|&f| f as usize)
                .filter(|f| !skip.contains(f))
                .collect();
            rows.iter()
                .map(|&r| {
                    kept.iter()
                        .map(|&f| u16::from(cache.levels(f)[r as usize]))
                        .sum()
                })
                .collect()
        };
        let mut tested = 0;
        for g in 0..cache.subsets().len() {
            for (lo, hi) in [(0, 10), (0, 4), (4, 10), (3, 4), (2, 6), (8, 10)] {
                let mut sums: Vec<u16> = Vec::new();
                cache.range_sums(g, lo, hi, &rows, &mut sums);
                excluded.subtract(&cache, g, lo, hi, &rows, &mut sums);
                assert_eq!(sums, without(g, lo, hi, &[7, 12]));
                let holds = |f: u32| cache.subsets()[g][lo..hi].contains(&f);
                tested += usize::from(holds(7) || holds(12));
            }
        }
        assert!(tested > 5);
    }
}
