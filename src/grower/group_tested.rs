//! GT-GBM's group tests over local rows (SPEC section 3): the prefix-sum
//! cache of a fit's feature subsets, the features of Ω left out of the
//! tests, and the tests of a node (on a row sample above `gt_max_rows`).
//! Which nodes are tested, and what they scan, is decided in
//! `features.rs` (`GroupTested`).
//!
//! Only the smaller of two siblings runs group tests; the larger inherits
//! its parent's candidates. It holds most of the parent's rows, with the
//! same gradients, so its tests would mostly find them again, at the cost
//! of testing most of the parent's rows a second time. Skipping them cut a
//! 100-tree A-GBM fit at 6000 × 2000 (s = 3, one thread) from 8.9 s to
//! 4.6 s, with the same three features selected; the smaller child's tests
//! still reach every part of the tree.

use crate::binning::BinnedData;
use crate::error::Result;
use crate::group_testing::{
    candidate_features, draw_planned, Excluded, GroupTestNode, PrefixCache,
};
use crate::histogram::NodeGradients;
use crate::interrupt::ShouldStop;
use crate::params::BoosterParams;
use crate::split::{NodeStats, SplitConstraints};

/// The group tests of a fit on local rows.
pub(crate) struct LocalTests {
    cache: PrefixCache,
    /// Features of Ω left out of the tests.
    excluded: Excluded,
    /// `gt_max_rows`.
    max_rows: Option<usize>,
    /// Subsets a node searches (`group_testing::screening`).
    n_searched: usize,
}

impl LocalTests {
    /// Draw the subsets (from the fit's seed) and build their cache.
    pub(crate) fn new(
        data: &BinnedData,
        params: &BoosterParams,
        should_stop: &ShouldStop,
    ) -> Result<Self> {
        let (subsets, n_searched) = draw_subsets_over(&data.splittable, data.n_rows, params)?;
        let cache = PrefixCache::build(data, subsets, should_stop)?;
        Ok(LocalTests {
            excluded: Excluded::new(&cache),
            cache,
            max_rows: params.gt_max_rows,
            n_searched,
        })
    }

    /// (number of subsets, bytes of the cache).
    pub(crate) fn info(&self) -> (usize, usize) {
        (self.cache.subsets().len(), self.cache.memory_bytes())
    }

    /// Leave `feature` out of the tests from now on.
    pub(crate) fn exclude(&mut self, feature: usize) {
        self.excluded.add(&self.cache, feature);
    }

    /// The survivors of the group tests of a node (its rows, their
    /// gradients and sums). A node with more than `gt_max_rows` rows is
    /// tested on that many of them.
    pub(crate) fn candidates(
        &self,
        data: &BinnedData,
        rows: &[u32],
        grads: NodeGradients,
        stats: NodeStats,
        constraints: SplitConstraints,
    ) -> Vec<usize> {
        let sample = self
            .max_rows
            .filter(|&k| rows.len() > k)
            .map(|k| RowSample::new(rows, grads, k));
        let node = match &sample {
            Some(sample) => sample.node(data, constraints, rows.len(), &self.excluded),
            None => GroupTestNode {
                data,
                rows,
                grads,
                stats,
                constraints,
                excluded: &self.excluded,
            },
        };
        candidate_features(&self.cache, &node, self.n_searched)
    }
}

/// The subsets of a fit with `params` over `n_rows` rows, and how many of
/// them a node searches (`group_testing::plan`), drawn over the features
/// that can split (all of them when none can): a constant one
/// (an all-zero column of sparse data) adds the same to every row of a
/// pseudo-feature and can never be a candidate.
pub(crate) fn draw_subsets_over(
    splittable: &[bool],
    n_rows: usize,
    params: &BoosterParams,
) -> Result<(Vec<Vec<u32>>, usize)> {
    let d = splittable.len();
    // Categorical features are scanned exactly at every node instead: a
    // sum of codes means nothing.
    let categorical = &params.categorical_features;
    let splittable: Vec<u32> = (0..d as u32)
        .filter(|&f| splittable[f as usize] && categorical.binary_search(&(f as usize)).is_err())
        .collect();
    let pool = if splittable.is_empty() {
        (0..d as u32).collect()
    } else {
        splittable
    };
    let s = params.gt_n_features.clamp(1, pool.len().max(1));
    let (mut subsets, n_searched) =
        draw_planned(n_rows, pool.len(), s, params.gt_delta, params.seed)?;
    for subset in &mut subsets {
        for f in subset.iter_mut() {
            *f = pool[*f as usize];
        }
    }
    Ok((subsets, n_searched))
}

/// Evenly spaced rows of a large node, with their gradients, for its group
/// tests.
struct RowSample {
    rows: Vec<u32>,
    pairs: Vec<[f64; 2]>,
    grad: Vec<f64>,
    /// The hessian of every row, when all are equal.
    constant_hess: Option<f64>,
}

impl RowSample {
    /// `k` of the node's `rows` (every `rows.len() / k`-th, deterministic).
    fn new(rows: &[u32], grads: NodeGradients, k: usize) -> Self {
        let picks = (0..k).map(|i| i * rows.len() / k);
        let mut sample = RowSample {
            rows: picks.clone().map(|i| rows[i]).collect(),
            pairs: Vec::new(),
            grad: Vec::new(),
            constant_hess: None,
        };
        match grads {
            NodeGradients::Pairs(pairs) => sample.pairs = picks.map(|i| pairs[i]).collect(),
            NodeGradients::ConstantHessian { grad, hess } => {
                sample.grad = picks.map(|i| grad[i]).collect();
                sample.constant_hess = Some(hess);
            }
        }
        sample
    }

    /// The sample as a node to test, with the leaf limits of a node of
    /// `n_node` rows scaled down to the sample's size.
    fn node<'a>(
        &'a self,
        data: &'a BinnedData,
        constraints: SplitConstraints,
        n_node: usize,
        excluded: &'a Excluded,
    ) -> GroupTestNode<'a> {
        let fraction = self.rows.len() as f64 / n_node as f64;
        let n = self.rows.len() as u32;
        let (grads, stats) = match self.constant_hess {
            Some(hess) => (
                NodeGradients::ConstantHessian {
                    grad: &self.grad,
                    hess,
                },
                NodeStats {
                    g: self.grad.iter().sum(),
                    h: f64::from(n) * hess,
                    n,
                },
            ),
            None => (
                NodeGradients::Pairs(&self.pairs),
                NodeStats {
                    g: self.pairs.iter().map(|p| p[0]).sum(),
                    h: self.pairs.iter().map(|p| p[1]).sum(),
                    n,
                },
            ),
        };
        GroupTestNode {
            data,
            rows: &self.rows,
            grads,
            stats,
            constraints: scaled_constraints(constraints, fraction),
            excluded,
        }
    }
}

/// The limits of a node's children scaled to a fraction of its rows (the
/// group tests of a row sample).
pub(crate) fn scaled_constraints(c: SplitConstraints, fraction: f64) -> SplitConstraints {
    SplitConstraints {
        min_samples_leaf: ((f64::from(c.min_samples_leaf) * fraction).ceil() as u32).max(1),
        min_child_weight: c.min_child_weight * fraction,
        l2: c.l2 * fraction,
        ..c
    }
}

#[cfg(test)]
mod tests {
    use super::super::LocalGrower;
    use super::*;
    use crate::binning::bin_matrix;
    use crate::interrupt::never;
    use crate::params::SplitSearch;
    use crate::rng::Rng;
    use crate::selection::Selection;

    /// Random data whose best root feature varies with the seed, and the
    /// squared-error gradients of the first tree.
    fn problem(n: usize, d: usize, seed: u64) -> (BinnedData, Vec<f64>) {
        let mut rng = Rng::new(seed);
        let x: Vec<f64> = (0..n * d).map(|_| rng.next_f64()).collect();
        let (a, b) = (rng.below(d), rng.below(d));
        let y: Vec<f64> = (0..n)
            .map(|i| {
                let row = &x[i * d..(i + 1) * d];
                (row[a] > 0.4) as u8 as f64 + row[b] * row[b] + 0.8 * rng.next_f64()
            })
            .collect();
        let mean = y.iter().sum::<f64>() / n as f64;
        let grad = y.iter().map(|t| mean - t).collect();
        (bin_matrix(&x, n, d, 63, 100_000, 0, &never).unwrap(), grad)
    }

    fn params(split_search: SplitSearch, max_leaves: usize, seed: u64) -> BoosterParams {
        BoosterParams {
            split_search,
            max_leaves,
            gt_n_features: 4,
            seed,
            ..BoosterParams::plain()
        }
    }

    fn grow_tree(grower: &mut LocalGrower, grad: &[f64], d: usize) -> crate::tree::Tree {
        grow_with(grower, grad, d, &mut Selection::unpenalised(d))
    }

    fn grow_with(
        grower: &mut LocalGrower,
        grad: &[f64],
        d: usize,
        selection: &mut Selection,
    ) -> crate::tree::Tree {
        let hess = vec![1.0; grad.len()];
        let rows = (0..grad.len() as u32).collect();
        let features: Vec<usize> = (0..d).collect();
        grower
            .tree(grad, &hess, rows, &features, &mut selection.view(0))
            .unwrap()
            .tree
    }

    /// The root's candidates for the first tree's gradients (all rows), as
    /// a grower with `params` tests them (no feature of Ω yet).
    fn root_candidates(params: &BoosterParams, data: &BinnedData, grad: &[f64]) -> Vec<usize> {
        let tests = LocalTests::new(data, params, &never).unwrap();
        let n = grad.len();
        let rows: Vec<u32> = (0..n as u32).collect();
        let stats = NodeStats {
            g: grad.iter().sum(),
            h: n as f64,
            n: n as u32,
        };
        let grads = NodeGradients::ConstantHessian { grad, hess: 1.0 };
        let constraints = SplitConstraints {
            min_samples_leaf: params.min_samples_leaf as u32,
            min_child_weight: params.min_child_weight,
            l2: params.l2_regularization,
            categorical: params.categorical,
        };
        tests.candidates(data, &rows, grads, stats, constraints)
    }

    #[test]
    fn a_root_whose_tests_miss_every_useful_feature_is_scanned_exhaustively() {
        // 60 rows cannot tell the subsets of 1000 features that hold the
        // planted feature from the others: the tests miss it, and no noise
        // candidate's split beats min_gain.
        let (n, d, planted) = (60, 3000, 1234);
        let mut rng = Rng::new(4);
        let x: Vec<f64> = (0..n * d).map(|_| rng.next_f64()).collect();
        let y: Vec<f64> = (0..n)
            .map(|i| 5.0 * f64::from(u8::from(x[i * d + planted] > 0.5)) + 0.3 * rng.next_f64())
            .collect();
        let mean = y.iter().sum::<f64>() / n as f64;
        let grad: Vec<f64> = y.iter().map(|t| mean - t).collect();
        let data = bin_matrix(&x, n, d, 63, 100_000, 0, &never).unwrap();
        let with = |split_search| BoosterParams {
            gt_n_features: 3,
            min_gain: 200.0,
            ..params(split_search, 2, 0)
        };
        let (gt_params, exhaustive_params) = (
            with(SplitSearch::GroupTesting),
            with(SplitSearch::Exhaustive),
        );
        let mut grower = LocalGrower::new(&data, &gt_params, &never).unwrap();
        assert!(!root_candidates(&gt_params, &data, &grad).contains(&planted));
        let group_tested = grow_tree(&mut grower, &grad, d);
        let exhaustive = grow_tree(
            &mut LocalGrower::new(&data, &exhaustive_params, &never).unwrap(),
            &grad,
            d,
        );
        assert_eq!(group_tested.nodes[0].feature as usize, planted);
        assert_eq!(group_tested.nodes, exhaustive.nodes);
    }

    #[test]
    fn the_split_is_exhaustive_searchs_whenever_a_candidate_holds_its_feature() {
        let (n, d) = (800, 80);
        let mut contained = 0;
        for seed in 0..40 {
            let (data, grad) = problem(n, d, seed);
            let exhaustive_params = params(SplitSearch::Exhaustive, 2, seed);
            let gt_params = params(SplitSearch::GroupTesting, 2, seed);
            let exhaustive = grow_tree(
                &mut LocalGrower::new(&data, &exhaustive_params, &never).unwrap(),
                &grad,
                d,
            );
            let mut grower = LocalGrower::new(&data, &gt_params, &never).unwrap();
            let found = root_candidates(&gt_params, &data, &grad);
            let group_tested = grow_tree(&mut grower, &grad, d);
            let feature = exhaustive.nodes[0].feature as usize;
            if found.contains(&feature) {
                contained += 1;
                assert_eq!(group_tested.nodes, exhaustive.nodes, "seed {seed}");
            }
        }
        // The property must have been tested, not skipped.
        assert!(contained >= 20, "only {contained} of 40 roots");
    }

    #[test]
    fn with_every_feature_used_whole_trees_equal_exhaustive_ones() {
        // Ω = all features: every node scans all of them through per-node
        // histograms, inherited candidates and partial subtraction, and must
        // reproduce the exhaustive tree exactly.
        let d = 30;
        for seed in 0..5 {
            let (data, grad) = problem(1500, d, seed);
            let exhaustive_params = params(SplitSearch::Exhaustive, 16, seed);
            let gt_params = params(SplitSearch::GroupTesting, 16, seed);
            let exhaustive = grow_tree(
                &mut LocalGrower::new(&data, &exhaustive_params, &never).unwrap(),
                &grad,
                d,
            );
            let mut grower = LocalGrower::new(&data, &gt_params, &never).unwrap();
            let mut every_feature_used = Selection::unpenalised(d);
            for f in 0..d {
                every_feature_used.view(0).commit(f);
            }
            let group_tested = grow_with(&mut grower, &grad, d, &mut every_feature_used);
            assert!(exhaustive.nodes.len() > 20);
            assert_eq!(group_tested.nodes, exhaustive.nodes, "seed {seed}");
        }
    }
}
