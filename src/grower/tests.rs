//! The grower gives up the histograms of leaves that no split can reach:
//! it must grow the same trees as a grower that keeps them all, with fewer
//! histograms in use.

use super::LocalGrower;
use crate::binning::{bin_matrix, BinnedData};
use crate::interrupt::never;
use crate::params::{BoosterParams, ObjectiveKind, PenaltyKind, SplitSearch};
use crate::rng::Rng;
use crate::selection::Selection;
use crate::tree::Tree;
use crate::units::Units;

/// n rows of d features whose target depends on many of them a little,
/// and the first gradients of squared error.
fn problem(n: usize, d: usize, seed: u64) -> (BinnedData, Vec<f64>, Vec<f64>) {
    let mut rng = Rng::new(seed);
    let x: Vec<f64> = (0..n * d).map(|_| rng.next_f64()).collect();
    let weights: Vec<f64> = (0..d).map(|_| rng.next_f64()).collect();
    let y: Vec<f64> = (0..n)
        .map(|i| {
            let row = &x[i * d..(i + 1) * d];
            let signal: f64 = row
                .iter()
                .zip(&weights)
                .map(|(v, w)| w * f64::from(u8::from(*v > 0.5)))
                .sum();
            signal + 0.5 * rng.next_f64()
        })
        .collect();
    let mean = y.iter().sum::<f64>() / n as f64;
    let grad = y.iter().map(|t| mean - t).collect();
    (
        bin_matrix(&x, n, d, 63, 100_000, 0, &never).unwrap(),
        grad,
        y,
    )
}

/// Grow `trees` trees on `data` (the same gradients each time, so that the
/// penalty's Ω carries over), keeping every histogram or not. Returns the
/// trees, the most full-layout histograms in use at once and how many
/// leaves were split without their histogram.
fn grow(
    data: &BinnedData,
    grad: &[f64],
    y: &[f64],
    params: &BoosterParams,
    release: bool,
    trees: usize,
) -> (Vec<Tree>, usize, usize) {
    let mut grower = LocalGrower::new(data, params, &never).unwrap();
    if !release {
        grower.grower.release = false;
    }
    let units = Units::for_data(ObjectiveKind::SquaredError, y, None);
    let d = data.mappers.len();
    let mut selection = Selection::single(params, d, &units);
    let hess = vec![1.0; grad.len()];
    let features: Vec<usize> = (0..d).collect();
    let grown = (0..trees)
        .map(|_| {
            let rows = (0..grad.len() as u32).collect();
            let view = &mut selection.view(0);
            grower
                .tree(grad, &hess, rows, &features, view)
                .unwrap()
                .tree
        })
        .collect();
    (grown, grower.grower.allocated, grower.grower.rebuilt)
}

fn params(max_leaves: usize, penalty: PenaltyKind, mu: f64, search: SplitSearch) -> BoosterParams {
    BoosterParams {
        max_leaves,
        min_samples_leaf: 5,
        penalty,
        mu,
        split_search: search,
        gt_n_features: 4,
        ..BoosterParams::plain()
    }
}

#[test]
fn unpenalised_trees_are_the_same_with_half_the_histograms() {
    for (seed, max_leaves) in [(1, 31), (2, 63), (3, 16)] {
        let (data, grad, y) = problem(3000, 25, seed);
        let p = params(max_leaves, PenaltyKind::None, 0.0, SplitSearch::Exhaustive);
        let (kept, kept_allocated, _) = grow(&data, &grad, &y, &p, false, 2);
        let (released, allocated, rebuilt) = grow(&data, &grad, &y, &p, true, 2);
        assert_eq!(kept, released, "seed {seed}");
        assert!(kept[0].nodes.len() == 2 * max_leaves - 1, "seed {seed}");
        // No leaf beaten by as many leaves as there are splits left is
        // ever split when the scores do not change.
        assert_eq!(rebuilt, 0, "seed {seed}");
        assert!(
            allocated <= max_leaves / 2 + 2 && allocated < kept_allocated,
            "seed {seed}: {allocated} histograms released, {kept_allocated} kept"
        );
    }
}

/// Structure exactly, values up to rounding: a child built from rows sums
/// in another order than parent − sibling.
fn assert_same_trees(a: &[Tree], b: &[Tree], what: &str) {
    assert_eq!(a.len(), b.len());
    for (ta, tb) in a.iter().zip(b) {
        assert_eq!(ta.nodes.len(), tb.nodes.len(), "{what}");
        for (na, nb) in ta.nodes.iter().zip(&tb.nodes) {
            let shape = |n: &crate::tree::Node| {
                (
                    n.is_leaf,
                    n.feature,
                    n.threshold_bin,
                    n.left,
                    n.right,
                    n.count,
                )
            };
            assert_eq!(shape(na), shape(nb), "{what}");
            assert!(
                (na.value - nb.value).abs() <= 1e-9 * (1.0 + na.value.abs()),
                "{what}"
            );
        }
    }
}

#[test]
fn a_leaf_split_after_giving_its_histogram_up_gets_the_same_children() {
    // Under a penalty a leaf's score rises when another leaf pays for its
    // feature, so a leaf that gave its histogram up may still be split:
    // its children are then built from rows (with per-node layouts too).
    for (search, what) in [
        (SplitSearch::Exhaustive, "exhaustive"),
        (SplitSearch::GroupTesting, "group testing"),
    ] {
        let mut rebuilt_total = 0;
        for seed in 0..6 {
            let (data, grad, y) = problem(2000, 30, 10 + seed);
            // μ above most deeper leaves' gains: they wait for a feature
            // that another leaf pays for.
            let p = params(31, PenaltyKind::Gbfs, 1000.0, search);
            let (kept, _, none) = grow(&data, &grad, &y, &p, false, 3);
            let (released, _, rebuilt) = grow(&data, &grad, &y, &p, true, 3);
            assert_eq!(none, 0);
            assert_same_trees(&kept, &released, &format!("{what}, seed {seed}"));
            rebuilt_total += rebuilt;
        }
        // The path under test was taken.
        assert!(
            rebuilt_total > 0,
            "{what}: no leaf was split without its histogram"
        );
    }
}

/// μ_max's root candidates of many features come a block at a time: the
/// same candidates as from one histogram of every feature.
#[test]
fn root_candidates_in_blocks_are_those_of_one_histogram() {
    let (data, grad, _) = problem(2000, 23, 4);
    let hess: Vec<f64> = grad.iter().map(|g| 1.0 + g.abs()).collect();
    let p = params(31, PenaltyKind::Agbm, 0.1, SplitSearch::Exhaustive);
    let features: Vec<usize> = (0..23).filter(|f| f % 7 != 3).collect();
    let rows: Vec<u32> = (0..2000).filter(|i| i % 5 != 0).collect();
    let whole = {
        let mut grower = LocalGrower::new(&data, &p, &never).unwrap();
        grower
            .root_candidates(&grad, &hess, &rows, &features)
            .unwrap()
    };
    for block in [1, 4, 19] {
        let mut grower = LocalGrower::new(&data, &p, &never).unwrap();
        grower.grower.root_block = block;
        let blocked = grower
            .root_candidates(&grad, &hess, &rows, &features)
            .unwrap();
        assert_eq!(blocked.0, whole.0, "block {block}");
        assert_eq!(blocked.1, whole.1, "block {block}");
        assert_eq!(grower.grower.allocated, 0, "block {block}");
    }
    assert_eq!(whole.1.len(), features.len());
}
