//! `split_search = "auto"`: group testing only where it pays.
//!
//! Both searches grow the same trees; they differ in what a node reads.
//! The rule estimates the work of the whole fit, in reads per row plus
//! fixed costs per feature and node:
//!
//! - exhaustive: every tree reads the histogram of each splittable feature
//!   (`d'` of them) in every built node: `d' · (R + J·(b̄ + F))` per tree
//!   (R scaled by each sparse-stored column's share of stored rows),
//!   where `R = n·(1 + log₂J / 2)` is the rows a tree's built nodes hold
//!   (the root and the smaller child of each split; J = `max_leaves`), `b̄`
//!   the mean bins of a feature and F = [`FEATURE_OVERHEAD`];
//! - group testing: the prefix cache, `n · (p·(L/K + 1) + d')` once; then,
//!   while a new feature may enter, `m·⌈log₂L⌉` halvings per tree, each
//!   `TEST_READS · R + 2·J·b_pseudo`, and at most m candidates scanned
//!   exactly, where m ≤ p subsets are searched (when m < p, each of the p
//!   subsets' whole ranges is tested first: half a halving each); once Ω
//!   holds `max_features` features (no bags) a tree scans only Ω. With
//!   `max_features = B` the tests are expected to run in the first
//!   `min(T, B)` trees (at least one new feature per tree; usually several
//!   enter at once) and Ω to hold B features, otherwise in all T trees with
//!   Ω of s = `gt_n_features` features.
//!
//! Group testing is chosen when its expected work is below [`MARGIN`] times
//! exhaustive search's, and a tree that runs tests costs at most
//! [`MAX_OPEN_RATIO`] exhaustive trees (the guard for a budget that is
//! never filled: A-GBM on Adult with `max_features = 5` stops at 4 features,
//! and its tests, 16 exhaustive trees' work each, ran in all 300 trees).
//! p and L are those of [`super::plan`] over the `d'` splittable features.
//!
//! The constants come from timing single trees (A-GBM, 15 leaves, one
//! tree and six trees per fit): a halving cost 0.9, 1.4 and 4.4 times an
//! exhaustive feature on Dexter (225 rows), Dorothea (600) and Adult
//! (24420): about 4 reads per row against one, and a fixed cost of an
//! exhaustive feature of about 190 per node.
use super::plan;
use super::prefix_cache::CHECKPOINT;
use crate::binning::{BinMapper, BinnedData, Column, Shape};
use crate::params::BoosterParams;

/// What the estimate reads of the data: rows, and per feature whether it
/// can split, its bins and the share of rows its histograms read (1 for a
/// dense-stored column, its stored rows / n for a sparse-stored one). A
/// distributed fit's client makes it from pooled bin counts, so that it
/// chooses as the single machine would.
#[derive(Debug, Clone, PartialEq)]
pub struct DataShape {
    pub n_rows: usize,
    pub splittable: Vec<bool>,
    pub n_bins: Vec<usize>,
    pub density: Vec<f64>,
}

impl DataShape {
    /// The shape of binned data.
    pub fn of(data: &BinnedData) -> Self {
        let n = data.n_rows as f64;
        DataShape {
            n_rows: data.n_rows,
            splittable: data.splittable.clone(),
            n_bins: data.mappers.iter().map(BinMapper::n_bins).collect(),
            density: (0..data.n_features)
                .map(|f| match data.column(f) {
                    Column::Sparse(column) => column.rows.len() as f64 / n.max(1.0),
                    Column::Dense(_) => 1.0,
                })
                .collect(),
        }
    }

    /// The shape of `n_rows` rows binned by `mappers`, from each feature's
    /// bin counts over all rows (`shapes`): a feature is stored sparse as
    /// binning would store it.
    pub(crate) fn of_shapes(
        n_rows: usize,
        mappers: &[BinMapper],
        splittable: &[bool],
        shapes: &[Shape],
    ) -> Self {
        DataShape {
            n_rows,
            splittable: splittable.to_vec(),
            n_bins: mappers.iter().map(BinMapper::n_bins).collect(),
            density: shapes.iter().map(|s| s.density(n_rows)).collect(),
        }
    }
}

/// Reads per row of one halving relative to a histogram's: a column of
/// sums (u16/u32, not u8), the subtraction giving the other half, and two
/// pseudo-features binned and accumulated.
pub const TEST_READS: f64 = 4.0;

/// Fixed work of an exhaustive feature in one node (its histogram's
/// slots, the split scan), in reads.
pub const FEATURE_OVERHEAD: f64 = 190.0;

/// Group testing must be estimated at most this fraction of exhaustive
/// search's work: the estimate of how long tests run is rough.
pub const MARGIN: f64 = 0.5;

/// A tree that runs group tests may cost at most this many exhaustive
/// trees.
pub const MAX_OPEN_RATIO: f64 = 4.0;

/// Estimated work of a fit with each search (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SearchCost {
    /// Exhaustive search.
    pub exhaustive: f64,
    /// Group testing, prefix cache included.
    pub group_testing: f64,
    /// A tree of group testing that runs tests, in exhaustive trees.
    pub open_tree_ratio: f64,
}

impl SearchCost {
    /// The estimates for `params` on data of this shape.
    pub fn estimate(data: &DataShape, params: &BoosterParams) -> Self {
        let n = data.n_rows as f64;
        let splittable: Vec<usize> = (0..data.splittable.len())
            .filter(|&f| data.splittable[f])
            .collect();
        let d = splittable.len().max(1);
        let mean_bins = splittable
            .iter()
            .map(|&f| data.n_bins[f] as f64)
            .sum::<f64>()
            / d as f64;
        let leaves = params.max_leaves.max(2) as f64;
        let trees = params.n_estimators as f64;
        let rows = n * (1.0 + leaves.log2() / 2.0);
        let per_feature = rows + leaves * (mean_bins + FEATURE_OVERHEAD);
        // A sparse column's histograms read its stored rows, not all rows.
        let density: f64 = splittable.iter().map(|&f| data.density[f]).sum();
        let exhaustive =
            trees * (density * rows + d as f64 * leaves * (mean_bins + FEATURE_OVERHEAD));

        let s = params.gt_n_features.clamp(1, d);
        let plan = plan(data.n_rows, d, s, params.gt_delta);
        let (p, len) = (plan.n_subsets as f64, plan.subset_len as f64);
        let searched = plan.n_searched as f64;
        let screened = if searched < p { p / 2.0 } else { 0.0 };
        let halvings = len.log2().ceil().max(0.0);
        let pseudo_bins = (n / 8.0).clamp(8.0, 64.0);
        let cache = n * (p * (len / CHECKPOINT as f64 + 1.0) + d as f64);
        let budget = params
            .max_features
            .filter(|_| params.feature_bags.is_none());
        let open_trees = budget.map_or(trees, |b| trees.min(b as f64));
        let omega = (budget.unwrap_or(s) as f64).min(d as f64);
        let tests =
            (searched * halvings + screened) * (TEST_READS * rows + 2.0 * leaves * pseudo_bins);
        let open_tree = tests + (searched.min(d as f64) + omega) * per_feature;
        let closed_tree = omega * per_feature;
        let group_testing = cache + open_trees * open_tree + (trees - open_trees) * closed_tree;
        SearchCost {
            exhaustive,
            group_testing,
            open_tree_ratio: open_tree / (d as f64 * per_feature),
        }
    }

    /// True if group testing pays.
    pub fn prefers_group_testing(&self) -> bool {
        self.group_testing < MARGIN * self.exhaustive && self.open_tree_ratio <= MAX_OPEN_RATIO
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::binning::bin_matrix;
    use crate::interrupt::never;
    use crate::rng::Rng;

    fn binary(n: usize, d: usize, density: f64) -> BinnedData {
        let mut rng = Rng::new(1);
        let x: Vec<f64> = (0..n * d)
            .map(|_| f64::from(u8::from(rng.next_f64() < density)))
            .collect();
        bin_matrix(&x, n, d, 255, 200_000, 0, &never).unwrap()
    }

    fn budget(b: usize) -> BoosterParams {
        BoosterParams {
            n_estimators: 300,
            max_leaves: 15,
            max_features: Some(b),
            ..BoosterParams::plain()
        }
    }

    #[test]
    fn wide_data_with_a_budget_prefers_group_testing_narrow_data_does_not() {
        let wide = SearchCost::estimate(&DataShape::of(&binary(300, 3000, 0.05)), &budget(10));
        assert!(wide.prefers_group_testing(), "{wide:?}");
        let narrow = SearchCost::estimate(&DataShape::of(&binary(2000, 40, 0.3)), &budget(10));
        assert!(!narrow.prefers_group_testing(), "{narrow:?}");
        // Without a budget the tests run in every tree: exhaustive.
        let unbudgeted = BoosterParams {
            max_features: None,
            ..budget(10)
        };
        let wide = SearchCost::estimate(&DataShape::of(&binary(300, 3000, 0.05)), &unbudgeted);
        assert!(!wide.prefers_group_testing(), "{wide:?}");
    }

    #[test]
    fn the_shape_from_pooled_bin_counts_is_the_binned_datas() {
        for (n, d, density) in [(300, 50, 0.05), (2000, 40, 0.3), (1000, 20, 0.01)] {
            let data = binary(n, d, density);
            let shapes: Vec<Shape> = (0..d)
                .map(|f| Shape::of_bin_counts(data.bin_counts(f).into_iter()))
                .collect();
            let pooled = DataShape::of_shapes(n, &data.mappers, &data.splittable, &shapes);
            assert_eq!(pooled, DataShape::of(&data));
            // The splittable rule from the counts is the binned data's.
            let rule: Vec<bool> = shapes.iter().map(|s| s.can_split(n, 0)).collect();
            assert_eq!(rule, data.splittable);
        }
    }
}
