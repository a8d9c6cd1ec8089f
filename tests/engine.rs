//! Engine-level tests: exact fits of step functions, the invariants of the
//! grown trees, prediction against a slow reference, determinism across
//! thread counts, and the model file round trip.

mod common;

use common::{fit_xy, never};
use sparseboost::rng::Rng;
use sparseboost::{fit, BoosterParams, Model, ObjectiveKind, Predictor, TrainingData};

/// Row-major uniform features in [0, 1).
fn uniform(n: usize, d: usize, seed: u64) -> Vec<f64> {
    let mut rng = Rng::new(seed);
    (0..n * d).map(|_| rng.next_f64()).collect()
}

fn predict(model: &Model, x: &[f64], d: usize) -> Vec<f64> {
    Predictor::new(model)
        .predict_raw(x, d, &common::never)
        .unwrap()
}

#[test]
fn one_tree_fits_a_four_level_step_function_exactly() {
    let (n, d) = (2000, 3);
    // 20 distinct values per feature, so every step lies between two bins
    // (a step inside a bin cannot be fitted by any histogram GBDT).
    let x: Vec<f64> = uniform(n, d, 1)
        .iter()
        .map(|v| (v * 20.0).floor() / 20.0)
        .collect();
    // y depends on feature 1 only, through 4 levels
    let level = |v: f64| [-3.0, 1.0, 4.0, 10.0][(v * 4.0) as usize];
    let y: Vec<f64> = (0..n).map(|i| level(x[i * d + 1])).collect();
    let params = BoosterParams {
        n_estimators: 1,
        learning_rate: 1.0,
        max_leaves: 4,
        min_samples_leaf: 1,
        ..Default::default()
    };
    let model = fit_xy(&x, d, &y, &params);
    assert_eq!(model.trees[0].n_leaves(), 4);
    let pred = predict(&model, &x, d);
    for (p, t) in pred.iter().zip(&y) {
        assert!((p - t).abs() < 1e-9, "{p} vs {t}");
    }
    // Every split is on the relevant feature.
    assert!(model.trees[0]
        .nodes
        .iter()
        .all(|n| n.is_leaf || n.feature == 1));
}

#[test]
fn node_sums_add_up_and_leaf_values_are_newton_steps() {
    let (n, d) = (3000, 5);
    let x = uniform(n, d, 2);
    let y: Vec<f64> = (0..n)
        .map(|i| (x[i * d] * 6.0).sin() + x[i * d + 2])
        .collect();
    let params = BoosterParams {
        n_estimators: 1,
        learning_rate: 0.5,
        l2_regularization: 2.0,
        ..Default::default()
    };
    let model = fit_xy(&x, d, &y, &params);
    let tree = &model.trees[0];
    // First-round gradients of squared error: g = base − y, h = 1.
    let grad: Vec<f64> = y.iter().map(|t| model.base_score - t).collect();
    // Sum of gradients and counts of the rows reaching each node, by traversal.
    let mut g_sum = vec![0.0; tree.nodes.len()];
    let mut count = vec![0u32; tree.nodes.len()];
    for i in 0..n {
        let row = &x[i * d..(i + 1) * d];
        let mut node = 0usize;
        loop {
            g_sum[node] += grad[i];
            count[node] += 1;
            let nd = &tree.nodes[node];
            if nd.is_leaf {
                break;
            }
            node = nd.child_for_value(row[nd.feature as usize]) as usize;
        }
    }
    for (i, nd) in tree.nodes.iter().enumerate() {
        assert_eq!(count[i], nd.count, "node {i}");
        if !nd.is_leaf {
            let (l, r) = (nd.left as usize, nd.right as usize);
            assert_eq!(count[l] + count[r], count[i]);
            assert!((g_sum[l] + g_sum[r] - g_sum[i]).abs() < 1e-9);
            assert!(nd.count >= 2 * params.min_samples_leaf as u32);
        } else {
            let expected = -g_sum[i] / (count[i] as f64 + 2.0) * 0.5;
            assert!(
                (nd.value - expected).abs() < 1e-9,
                "leaf {i}: {} vs {expected}",
                nd.value
            );
            assert!(nd.count >= params.min_samples_leaf as u32);
        }
    }
}

#[test]
fn packed_predictor_matches_tree_by_tree_traversal() {
    let (n, d) = (1500, 8);
    let mut x = uniform(n, d, 3);
    for i in (0..n).step_by(7) {
        x[i * d + 3] = f64::NAN; // missing values take the learned direction
    }
    let y: Vec<f64> = (0..n)
        .map(|i| {
            x[i * d] * 3.0 - x[i * d + 1]
                + if x[i * d + 3].is_nan() {
                    2.0
                } else {
                    x[i * d + 3]
                }
        })
        .collect();
    let params = BoosterParams {
        n_estimators: 30,
        subsample: 0.8,
        colsample_bytree: 0.7,
        seed: 5,
        ..Default::default()
    };
    let model = fit_xy(&x, d, &y, &params);
    let fast = predict(&model, &x, d);
    for i in 0..n {
        let row = &x[i * d..(i + 1) * d];
        let slow: f64 =
            model.base_score + model.trees.iter().map(|t| t.predict_row(row)).sum::<f64>();
        assert!((fast[i] - slow).abs() < 1e-12);
    }
}

#[test]
fn same_seed_gives_the_same_model_with_one_or_two_threads() {
    let (n, d) = (4000, 20);
    let x = uniform(n, d, 4);
    let y: Vec<f64> = (0..n)
        .map(|i| if x[i * d + 5] > 0.3 { 1.0 } else { 0.0 })
        .collect();
    let base = BoosterParams {
        objective: ObjectiveKind::BinaryLogloss,
        n_estimators: 20,
        subsample: 0.7,
        colsample_bytree: 0.5,
        seed: 11,
        ..Default::default()
    };
    let one = fit_xy(
        &x,
        d,
        &y,
        &BoosterParams {
            n_threads: 1,
            ..base.clone()
        },
    );
    let two = fit_xy(
        &x,
        d,
        &y,
        &BoosterParams {
            n_threads: 2,
            ..base.clone()
        },
    );
    assert_eq!(one, two);
    let other_seed = fit_xy(
        &x,
        d,
        &y,
        &BoosterParams {
            n_threads: 2,
            seed: 12,
            ..base
        },
    );
    assert_ne!(one, other_seed);
}

#[test]
fn model_file_round_trip_is_exact() {
    let (n, d) = (1000, 4);
    let x = uniform(n, d, 6);
    let y: Vec<f64> = (0..n).map(|i| x[i * d].powi(2) * 1.234_567_891).collect();
    let model = fit_xy(
        &x,
        d,
        &y,
        &BoosterParams {
            n_estimators: 10,
            ..Default::default()
        },
    );
    let back = Model::from_json(&model.to_json()).unwrap();
    assert_eq!(model, back);
    assert!(Model::from_json("{\"format\": \"other\"}").is_err());
    // A node pointing backwards would make prediction loop forever.
    let looping = model.to_json().replacen("\"left\":1", "\"left\":0", 1);
    assert!(Model::from_json(&looping).is_err());
}

#[test]
fn bad_inputs_are_errors_not_panics() {
    let params = BoosterParams::default();
    let x = [0.0, 1.0, 2.0, 3.0];
    let run = |x: &[f64], y: &[f64], d: usize| {
        let data = TrainingData {
            x,
            n_rows: y.len(),
            n_features: d,
            y,
            weights: None,
        };
        fit(&data, &params, &never).unwrap_err().to_string()
    };
    assert!(run(&x, &[1.0, f64::NAN], 2).contains("non-finite"));
    assert!(run(&x, &[1.0, 2.0, 3.0], 2).contains("expected"));
    assert!(run(&[], &[], 2).contains("no rows"));
    assert!(run(&[0.0, f64::INFINITY, 1.0, 1.0], &[1.0, 2.0], 2).contains("infinite"));
    let stop = || true;
    let data = TrainingData {
        x: &x,
        n_rows: 2,
        n_features: 2,
        y: &[1.0, 2.0],
        weights: None,
    };
    assert_eq!(
        fit(&data, &params, &stop).unwrap_err(),
        sparseboost::SbError::Interrupted
    );
}

#[test]
fn a_split_between_values_and_nan_survives_the_model_file() {
    // y depends only on whether feature 0 is missing.
    let n = 400;
    let x: Vec<f64> = (0..n)
        .map(|i| if i % 2 == 0 { f64::NAN } else { (i % 7) as f64 })
        .collect();
    let y: Vec<f64> = (0..n)
        .map(|i| if i % 2 == 0 { 5.0 } else { -5.0 })
        .collect();
    let params = BoosterParams {
        n_estimators: 1,
        learning_rate: 1.0,
        max_leaves: 2,
        ..Default::default()
    };
    let model = fit_xy(&x, 1, &y, &params);
    let pred = predict(&model, &x, 1);
    assert!(pred.iter().zip(&y).all(|(p, t)| (p - t).abs() < 1e-9));
    let back = Model::from_json(&model.to_json()).unwrap();
    assert_eq!(predict(&back, &x, 1), pred);
}
