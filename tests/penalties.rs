//! The new-feature penalties (GBFS, A-GBM, costs, bags, max_features) at
//! the engine level.

mod common;

use common::fit_xy;
use sparseboost::rng::Rng;
use sparseboost::{BoosterParams, Model, PenaltyKind};

/// Row-major binary features (0 or 1) and uniform noise features.
fn binary_and_noise(n: usize, n_binary: usize, n_noise: usize, seed: u64) -> Vec<f64> {
    let mut rng = Rng::new(seed);
    let d = n_binary + n_noise;
    let mut x = Vec::with_capacity(n * d);
    for _ in 0..n {
        for j in 0..d {
            x.push(if j < n_binary {
                (rng.next_f64() < 0.5) as u8 as f64
            } else {
                rng.next_f64()
            });
        }
    }
    x
}

fn split_features(model: &Model, tree: usize) -> Vec<u32> {
    model.trees[tree]
        .nodes
        .iter()
        .filter(|n| !n.is_leaf)
        .map(|n| n.feature)
        .collect()
}

#[test]
fn mu_zero_reproduces_the_plain_engine_bit_for_bit() {
    let (n, d) = (3000, 30);
    let mut rng = Rng::new(1);
    let x: Vec<f64> = (0..n * d).map(|_| rng.next_f64()).collect();
    let y: Vec<f64> = (0..n)
        .map(|i| x[i * d] * 2.0 + (x[i * d + 3] * 5.0).sin() + rng.next_f64())
        .collect();
    let plain = BoosterParams {
        n_estimators: 30,
        subsample: 0.8,
        seed: 3,
        ..BoosterParams::plain()
    };
    let reference = fit_xy(&x, d, &y, &plain);
    for penalty in [PenaltyKind::Gbfs, PenaltyKind::Agbm] {
        let zero = BoosterParams {
            penalty,
            mu: 0.0,
            ..plain.clone()
        };
        assert_eq!(fit_xy(&x, d, &y, &zero), reference, "{penalty:?}");
    }
    // and a positive μ does change the model
    let agbm = BoosterParams {
        penalty: PenaltyKind::Agbm,
        mu: 0.05,
        ..plain
    };
    assert!(fit_xy(&x, d, &y, &agbm).selected_features.len() < reference.selected_features.len());
}

#[test]
fn a_feature_paid_for_in_one_leaf_is_free_for_the_cached_choice_of_another() {
    // y = 10·f0 + 4·f1 where f0 = 0, and + 1·f1 where f0 = 1. The root splits
    // on f0. In the left child f1 is worth 8000 in gain, in the right child
    // only 500: below μ = 2000. Once the left child pays for f1, the right
    // child's cached choice is stale: it must now split on f1 too
    // (LightGBM's bugs #3679 and #5317 were this cache going stale).
    let n = 4000;
    let d = 3;
    let x = binary_and_noise(n, 2, 1, 2);
    let y: Vec<f64> = (0..n)
        .map(|i| {
            let (f0, f1) = (x[i * d], x[i * d + 1]);
            10.0 * f0 + if f0 == 0.0 { 4.0 * f1 } else { f1 }
        })
        .collect();
    let params = BoosterParams {
        n_estimators: 1,
        max_leaves: 4,
        penalty: PenaltyKind::Gbfs,
        mu: 2000.0,
        ..BoosterParams::plain()
    };
    let model = fit_xy(&x, d, &y, &params);
    let root = &model.trees[0].nodes[0];
    assert_eq!(root.feature, 0);
    let children = [root.left as usize, root.right as usize];
    for c in children {
        let node = &model.trees[0].nodes[c];
        assert!(!node.is_leaf && node.feature == 1, "child {c}: {node:?}");
    }
    assert_eq!(model.selected_features, vec![0, 1]);
}

#[test]
fn costs_steer_selection_to_the_free_twin_of_a_costly_feature() {
    let (n, d) = (2000, 4);
    let mut x = binary_and_noise(n, 0, d, 3);
    for i in 0..n {
        x[i * d + 2] = x[i * d]; // feature 2 is an exact copy of feature 0
    }
    let y: Vec<f64> = (0..n).map(|i| 3.0 * x[i * d]).collect();
    let base = BoosterParams {
        n_estimators: 20,
        penalty: PenaltyKind::Gbfs,
        mu: 0.0,
        ..BoosterParams::plain()
    };
    // Without costs the tie goes to the lower index.
    assert_eq!(fit_xy(&x, d, &y, &base).selected_features[0], 0);
    let costly = BoosterParams {
        feature_costs: Some(vec![50.0, 0.0, 0.0, 0.0]),
        ..base
    };
    let model = fit_xy(&x, d, &y, &costly);
    assert_eq!(model.selected_features[0], 2);
    assert!(!model.selected_features.contains(&0));
}

#[test]
fn a_bag_is_free_once_one_of_its_features_is_used() {
    // f0 is worth a lot, f1 a little (less than μ). In a bag with f0, f1
    // becomes free once f0 is used, so the model picks it up.
    let (n, d) = (4000, 3);
    let x = binary_and_noise(n, 2, 1, 4);
    let y: Vec<f64> = (0..n)
        .map(|i| 10.0 * x[i * d] + 1.0 * x[i * d + 1])
        .collect();
    let base = BoosterParams {
        n_estimators: 5,
        penalty: PenaltyKind::Gbfs,
        mu: 2000.0,
        ..BoosterParams::plain()
    };
    let alone = fit_xy(&x, d, &y, &base);
    assert_eq!(alone.selected_features, vec![0]);
    let bagged = fit_xy(
        &x,
        d,
        &y,
        &BoosterParams {
            feature_bags: Some(vec![0, 0, 1]),
            ..base
        },
    );
    assert_eq!(bagged.selected_features, vec![0, 1]);
    assert!(split_features(&bagged, 0).contains(&1));
}

#[test]
fn max_features_stops_admitting_new_features() {
    let (n, d) = (3000, 10);
    let mut rng = Rng::new(5);
    let x: Vec<f64> = (0..n * d).map(|_| rng.next_f64()).collect();
    let y: Vec<f64> = (0..n)
        .map(|i| (0..d).map(|j| x[i * d + j] * (j + 1) as f64).sum())
        .collect();
    let params = BoosterParams {
        n_estimators: 20,
        penalty: PenaltyKind::Agbm,
        mu: 0.0,
        max_features: Some(3),
        ..BoosterParams::plain()
    };
    let model = fit_xy(&x, d, &y, &params);
    assert_eq!(model.selected_features.len(), 3);
    assert_eq!(model.n_selected_after_tree.last(), Some(&3));
    for tree in 0..model.trees.len() {
        assert!(split_features(&model, tree)
            .iter()
            .all(|f| model.selected_features.contains(&(*f as usize))));
    }
}

#[test]
fn agbm_mu_outside_zero_one_is_rejected() {
    let params = BoosterParams {
        penalty: PenaltyKind::Agbm,
        mu: 1.0,
        ..BoosterParams::plain()
    };
    assert!(params.validate().unwrap_err().to_string().contains("mu"));
    let params = BoosterParams {
        feature_costs: Some(vec![1.0]),
        ..BoosterParams::plain()
    };
    assert!(params
        .validate_for(2)
        .unwrap_err()
        .to_string()
        .contains("feature_costs"));
}
