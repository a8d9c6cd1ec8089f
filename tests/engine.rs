//! Engine-level tests: exact fits of step functions, the invariants of the
//! grown trees, prediction against a slow reference, determinism across
//! thread counts, and the model file round trip.

mod common;

use common::{fit_xy, never};
use sparseboost::feature_sampling::FeatureCount;
use sparseboost::params::SplitSearch;
use sparseboost::rng::Rng;
use sparseboost::{fit, BoosterParams, Model, ObjectiveKind, Predictor, TrainingData};

/// Row-major uniform features in [0, 1).
fn uniform(n: usize, d: usize, seed: u64) -> Vec<f64> {
    let mut rng = Rng::new(seed);
    (0..n * d).map(|_| rng.next_f64()).collect()
}

fn predict(model: &Model, x: &[f64], d: usize) -> Vec<f64> {
    Predictor::new(model)
        .predict_raw(
            &sparseboost::matrix::FeatureMatrix::dense(x, x.len() / d, d),
            &common::never,
        )
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
        ..BoosterParams::plain()
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
        ..BoosterParams::plain()
    };
    let model = fit_xy(&x, d, &y, &params);
    let tree = &model.trees[0];
    // First-round gradients of squared error: g = base − y, h = 1.
    let grad: Vec<f64> = y.iter().map(|t| model.base_score[0] - t).collect();
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
        colsample_bytree: FeatureCount::Fraction(0.7),
        seed: 5,
        ..BoosterParams::plain()
    };
    let model = fit_xy(&x, d, &y, &params);
    let fast = predict(&model, &x, d);
    for i in 0..n {
        let row = &x[i * d..(i + 1) * d];
        let slow: f64 =
            model.base_score[0] + model.trees.iter().map(|t| t.predict_row(row)).sum::<f64>();
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
        colsample_bytree: FeatureCount::Fraction(0.5),
        seed: 11,
        ..BoosterParams::plain()
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
            ..BoosterParams::plain()
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
    let params = BoosterParams::plain();
    let x = [0.0, 1.0, 2.0, 3.0];
    let run = |x: &[f64], y: &[f64], d: usize| {
        let data = TrainingData {
            x: sparseboost::matrix::FeatureMatrix::dense(x, y.len(), d),
            y,
            weights: None,
            group_sizes: None,
        };
        fit(&data, &params, &never).unwrap_err().to_string()
    };
    assert!(run(&x, &[1.0, f64::NAN], 2).contains("non-finite"));
    assert!(run(&x, &[1.0, 2.0, 3.0], 2).contains("expected"));
    assert!(run(&[], &[], 2).contains("no rows"));
    assert!(run(&[0.0, f64::INFINITY, 1.0, 1.0], &[1.0, 2.0], 2).contains("infinite"));
    let stop = || true;
    let data = TrainingData {
        x: sparseboost::matrix::FeatureMatrix::dense(&x, 2, 2),
        y: &[1.0, 2.0],
        weights: None,
        group_sizes: None,
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
        ..BoosterParams::plain()
    };
    let model = fit_xy(&x, 1, &y, &params);
    let pred = predict(&model, &x, 1);
    assert!(pred.iter().zip(&y).all(|(p, t)| (p - t).abs() < 1e-9));
    let back = Model::from_json(&model.to_json()).unwrap();
    assert_eq!(predict(&back, &x, 1), pred);
}

/// Fit with optional weights.
fn try_fit(
    x: &[f64],
    d: usize,
    y: &[f64],
    w: Option<&[f64]>,
    params: &BoosterParams,
) -> sparseboost::Result<Model> {
    let data = TrainingData {
        x: sparseboost::matrix::FeatureMatrix::dense(x, y.len(), d),
        y,
        weights: w,
        group_sizes: None,
    };
    fit(&data, params, &never)
}

fn fit_weighted(
    x: &[f64],
    d: usize,
    y: &[f64],
    w: Option<&[f64]>,
    params: &BoosterParams,
) -> Model {
    try_fit(x, d, y, w, params).unwrap()
}

/// A node without its value: leaf, feature, threshold bits, children, gain bits.
type Shape = (bool, u32, u64, u32, u32, u64);

/// The trees without their leaf values (structure, thresholds, gains).
fn shapes(model: &Model) -> Vec<Vec<Shape>> {
    model
        .trees
        .iter()
        .map(|t| {
            t.nodes
                .iter()
                .map(|n| {
                    (
                        n.is_leaf,
                        n.feature,
                        n.threshold.to_bits(),
                        n.left,
                        n.right,
                        n.gain.to_bits(),
                    )
                })
                .collect()
        })
        .collect()
}

#[test]
fn scaling_targets_by_a_power_of_two_scales_the_outputs_and_changes_nothing_else() {
    // Beyond about 1e154 (or below 1e-154) squared gradients overflow (or
    // underflow) in plain arithmetic; the fit's units keep it exact.
    let (n, d) = (1500, 6);
    let x = uniform(n, d, 11);
    // Targets in [7, 11]: every scaled target stays a normal number (a
    // subnormal one has fewer digits, and then the data itself differ).
    let y: Vec<f64> = (0..n)
        .map(|i| {
            let (a, b, c) = (x[i * d], x[i * d + 3], x[i * d + 5]);
            10.0 - 3.0 * a - 2.0 * f64::from(u8::from(b > 0.5)) + 0.1 * c
        })
        .collect();
    let agbm = BoosterParams {
        n_estimators: 15,
        penalty: sparseboost::PenaltyKind::Agbm,
        mu: 0.05,
        l2_regularization: 1.0,
        ..BoosterParams::plain()
    };
    // GBFS's mu and min_gain are in gain units: scaled with y², so only
    // while 2^(2k) is a float.
    let gbfs = BoosterParams {
        penalty: sparseboost::PenaltyKind::Gbfs,
        mu: 0.5,
        min_gain: 1e-3,
        ..agbm.clone()
    };
    let cases = [
        (&agbm, vec![-1015, -520, -300, 300, 490]),
        (&gbfs, vec![-480, -300, 300, 480]),
    ];
    for (params, exponents) in cases {
        let reference = fit_xy(&x, d, &y, params);
        let reference_pred = predict(&reference, &x, d);
        for k in exponents {
            let scale = |v: f64, k: i32| v * 2f64.powi(k / 2) * 2f64.powi(k - k / 2);
            let scaled_y: Vec<f64> = y.iter().map(|&v| scale(v, k)).collect();
            let scaled_params = BoosterParams {
                min_gain: scale(params.min_gain, 2 * k),
                mu: if params.penalty == sparseboost::PenaltyKind::Gbfs {
                    scale(params.mu, 2 * k)
                } else {
                    params.mu
                },
                ..params.clone()
            };
            let model = fit_xy(&x, d, &scaled_y, &scaled_params);
            let same = shapes(&model) == shapes(&reference);
            assert!(same, "{:?}, k = {k}: other trees", params.penalty);
            assert_eq!(model.gain_exponent, reference.gain_exponent + 2 * k);
            assert_eq!(model.base_score[0], scale(reference.base_score[0], k));
            let pred = predict(&model, &x, d);
            let scaled_pred: Vec<f64> = reference_pred.iter().map(|&r| scale(r, k)).collect();
            assert!(
                pred == scaled_pred,
                "{:?}, k = {k}: other predictions",
                params.penalty
            );
            assert_eq!(model.selected_features, reference.selected_features);
            let normalized = |m: &Model| m.importances(sparseboost::ImportanceKind::Gain, true);
            assert_eq!(normalized(&model), normalized(&reference));
        }
    }
    // Targets whose squared errors could overflow are refused.
    let huge: Vec<f64> = y.iter().map(|v| v * 1e160).collect();
    let e = try_fit(&x, d, &huge, None, &agbm).unwrap_err().to_string();
    assert!(e.contains("y contains"), "{e}");
}

#[test]
fn scaling_the_weights_by_a_power_of_two_changes_only_the_unit_of_the_gains() {
    let (n, d) = (1200, 4);
    let x = uniform(n, d, 12);
    let y: Vec<f64> = (0..n).map(|i| (x[i * d + 1] > 0.3) as u8 as f64).collect();
    let w: Vec<f64> = (0..n).map(|i| 1.0 + (i % 3) as f64).collect();
    for objective in [ObjectiveKind::SquaredError, ObjectiveKind::BinaryLogloss] {
        let params = BoosterParams {
            objective,
            n_estimators: 8,
            min_child_weight: 0.5,
            ..BoosterParams::plain()
        };
        let reference = fit_weighted(&x, d, &y, Some(&w), &params);
        for k in [-1000, -40, 40, 1020] {
            let scaled: Vec<f64> = w.iter().map(|v| v * 2f64.powi(k)).collect();
            // min_child_weight is in hessian (weight) units.
            let scaled_params = BoosterParams {
                min_child_weight: params.min_child_weight * 2f64.powi(k),
                ..params.clone()
            };
            let model = fit_weighted(&x, d, &y, Some(&scaled), &scaled_params);
            let same = shapes(&model) == shapes(&reference);
            assert!(same, "{objective:?} k = {k}: other trees");
            assert_eq!(model.gain_exponent, reference.gain_exponent + k);
            assert_eq!(predict(&model, &x, d), predict(&reference, &x, d));
        }
    }
}

#[test]
fn gains_times_two_to_the_gain_exponent_are_loss_reductions_in_the_targets_units() {
    let (n, d) = (1000, 3);
    let x = uniform(n, d, 13);
    let y: Vec<f64> = (0..n).map(|i| 300.0 * x[i * d + 2] + x[i * d]).collect();
    let params = BoosterParams {
        n_estimators: 1,
        max_leaves: 2,
        ..BoosterParams::plain()
    };
    let model = fit_xy(&x, d, &y, &params);
    let root = &model.trees[0].nodes[0];
    let sse = |rows: &[f64]| {
        let mean = rows.iter().sum::<f64>() / rows.len() as f64;
        rows.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>()
    };
    let (left, right): (Vec<f64>, Vec<f64>) = (0..n)
        .map(|i| (x[i * d + root.feature as usize] <= root.threshold, y[i]))
        .fold(
            (Vec::new(), Vec::new()),
            |(mut l, mut r), (goes_left, v)| {
                if goes_left {
                    l.push(v)
                } else {
                    r.push(v)
                }
                (l, r)
            },
        );
    let expected = sse(&y) - sse(&left) - sse(&right);
    let reported =
        model.importances(sparseboost::ImportanceKind::Gain, false)[root.feature as usize];
    assert!(
        (reported - expected).abs() <= 1e-9 * expected,
        "{reported} vs {expected}"
    );
    assert!(model.gain_exponent != 0, "the test should exercise a unit");
}

#[test]
fn huge_weights_give_finite_probabilities_and_a_divergent_learning_rate_is_an_error() {
    let (n, d) = (400, 3);
    let x = uniform(n, d, 14);
    let y: Vec<f64> = (0..n).map(|i| (x[i * d] > 0.5) as u8 as f64).collect();
    let w = vec![1e308; n];
    let params = BoosterParams {
        objective: ObjectiveKind::BinaryLogloss,
        n_estimators: 5,
        record_train_loss: true,
        ..BoosterParams::plain()
    };
    let model = fit_weighted(&x, d, &y, Some(&w), &params);
    assert!(model.trees.len() == 5);
    assert!(predict(&model, &x, d).iter().all(|v| v.is_finite()));
    assert_eq!(model.train_loss.len(), 5);
    assert!(model.train_loss.iter().all(|v| v.is_finite()));
    let reckless = BoosterParams {
        learning_rate: 1e308,
        ..BoosterParams::plain()
    };
    let e = try_fit(&x, d, &y, None, &reckless).unwrap_err().to_string();
    assert!(e.contains("learning_rate"), "{e}");
    // Without the losses only the end is checked: the message says "by",
    // and how to find the tree.
    assert!(
        e.contains("diverged by tree") && e.contains("record_train_loss"),
        "{e}"
    );
    let recorded = BoosterParams {
        record_train_loss: true,
        ..reckless
    };
    let e = try_fit(&x, d, &y, None, &recorded).unwrap_err().to_string();
    assert!(e.contains("diverged at tree 0"), "{e}");
}

#[test]
fn row_and_feature_counts_are_checked_before_anything_is_read() {
    let rows = TrainingData {
        x: sparseboost::matrix::FeatureMatrix::dense(&[], 1 << 32, 1),
        y: &[],
        weights: None,
        group_sizes: None,
    };
    let e = rows.validate().unwrap_err().to_string();
    assert!(e.contains("rows") && e.contains("2^32"), "{e}");
    let features = TrainingData {
        x: sparseboost::matrix::FeatureMatrix::dense(&[], 1, (1 << 24) + 1),
        ..rows
    };
    let e = features.validate().unwrap_err().to_string();
    assert!(e.contains("features") && e.contains("2^24"), "{e}");
}

#[test]
fn a_stop_request_ends_binning_growing_and_prediction() {
    let (n, d) = (500, 4);
    let x = uniform(n, d, 15);
    let y: Vec<f64> = (0..n).map(|i| x[i * d]).collect();
    let stop = || true;
    let data = TrainingData {
        x: sparseboost::matrix::FeatureMatrix::dense(&x, n, d),
        y: &y,
        weights: None,
        group_sizes: None,
    };
    for split_search in [SplitSearch::Exhaustive, SplitSearch::GroupTesting] {
        let params = BoosterParams {
            split_search,
            gt_n_features: 2,
            ..BoosterParams::plain()
        };
        assert_eq!(
            fit(&data, &params, &stop).unwrap_err(),
            sparseboost::SbError::Interrupted
        );
    }
    let model = fit_xy(&x, d, &y, &BoosterParams::plain());
    let e = Predictor::new(&model)
        .predict_raw(
            &sparseboost::matrix::FeatureMatrix::dense(&x, x.len() / d, d),
            &stop,
        )
        .unwrap_err();
    assert_eq!(e, sparseboost::SbError::Interrupted);
}

#[test]
fn a_model_file_is_checked_as_untrusted_input() {
    let (n, d) = (600, 4);
    let x = uniform(n, d, 16);
    let y: Vec<f64> = (0..n).map(|i| x[i * d] + x[i * d + 2]).collect();
    let params = BoosterParams {
        n_estimators: 3,
        max_leaves: 4,
        ..BoosterParams::plain()
    };
    let model = fit_xy(&x, d, &y, &params);
    let text = model.to_json();
    assert_eq!(Model::from_json(&text).unwrap(), model);
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let edited = |edit: &dyn Fn(&mut serde_json::Value)| {
        let mut v = json.clone();
        edit(&mut v);
        Model::from_json(&v.to_string())
            .map(|_| ())
            .unwrap_err()
            .to_string()
    };
    let root = |v: &mut serde_json::Value| v["trees"][0]["nodes"][0].clone();
    type Edit = Box<dyn Fn(&mut serde_json::Value)>;
    let cases: Vec<(&str, Edit)> = vec![
        // importances would allocate 8 TiB
        (
            "n_features",
            Box::new(|v| v["n_features"] = (1u64 << 40).into()),
        ),
        ("n_features", Box::new(|v| v["n_features"] = 0.into())),
        ("n_features", Box::new(|v| v["n_features"] = (-1).into())),
        ("base_score", Box::new(|v| v["base_score"] = "x".into())),
        (
            "left",
            Box::new(|v| v["trees"][0]["nodes"][0]["left"] = 0.into()),
        ),
        (
            "right",
            Box::new(|v| v["trees"][0]["nodes"][0]["right"] = 99.into()),
        ),
        (
            "parents",
            Box::new(|v| {
                let right = v["trees"][0]["nodes"][0]["left"].clone();
                v["trees"][0]["nodes"][0]["right"] = right;
            }),
        ),
        (
            "feature",
            Box::new(|v| v["trees"][1]["nodes"][0]["feature"] = 4.into()),
        ),
        (
            "trees[0]",
            Box::new(|v| v["trees"][0]["nodes"] = serde_json::json!([])),
        ),
        (
            "train_loss",
            Box::new(|v| v["train_loss"] = serde_json::json!([0.5])),
        ),
        (
            "selected_features",
            Box::new(|v| v["selected_features"] = serde_json::json!([3, 1])),
        ),
        (
            "feature_entry_tree",
            Box::new(|v| v["feature_entry_tree"] = serde_json::json!([2, 2])),
        ),
        (
            "gain",
            Box::new(|v| v["trees"][0]["nodes"][0]["gain"] = (-1.0).into()),
        ),
        (
            "float64",
            Box::new(|v| {
                // Two leaves of 1e308: finite each, but a prediction would overflow.
                for t in 0..2 {
                    let nodes = v["trees"][t]["nodes"].as_array_mut().unwrap();
                    for node in nodes.iter_mut().filter(|n| n["is_leaf"] == true) {
                        node["value"] = 1e308.into();
                    }
                }
            }),
        ),
        ("format", Box::new(|v| v["format"] = "lightgbm".into())),
        ("objective", Box::new(|v| v["objective"] = "poisson".into())),
        (
            "is_leaf",
            Box::new(move |v| {
                let mut node = root(v);
                node["is_leaf"] = "yes".into();
                v["trees"][0]["nodes"][0] = node;
            }),
        ),
    ];
    for (field, edit) in &cases {
        let e = edited(edit.as_ref());
        assert!(e.contains(field), "{field}: {e}");
    }
}

#[test]
fn an_observer_may_use_the_shared_pools_on_one_thread() {
    // A Python callback that predicts or fits runs inside the observer, on
    // the shared pools. A one-thread fit on the shared one-thread pool
    // blocked that pool's only thread while waiting for the observer, so
    // the observer's work waited for it forever.
    let (n, d) = (300, 3);
    let x = uniform(n, d, 4);
    let y: Vec<f64> = (0..n).map(|i| x[i * d]).collect();
    let (done, finished) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let data = TrainingData {
            x: sparseboost::matrix::FeatureMatrix::dense(&x, n, d),
            y: &y,
            weights: None,
            group_sizes: None,
        };
        let params = BoosterParams {
            n_estimators: 3,
            n_threads: 1,
            ..BoosterParams::plain()
        };
        let mut observed = 0;
        let inner_params = BoosterParams {
            n_estimators: 2,
            n_threads: 1,
            ..BoosterParams::plain()
        };
        // The Python bindings run callbacks on the caller's thread, not on
        // the fit's: so does this observer.
        let mut observer = |_: &sparseboost::RoundReport| {
            let inner = std::thread::scope(|scope| {
                scope
                    .spawn(|| {
                        sparseboost::threads::install(1, || fit(&data, &inner_params, &never))
                    })
                    .join()
                    .unwrap()
            });
            observed += usize::from(inner.unwrap().is_ok());
            true
        };
        let fitted = sparseboost::fit_with(&data, &params, &[], &never, &mut observer);
        let _ = done.send((fitted.is_ok(), observed));
    });
    let (ok, observed) = finished
        .recv_timeout(std::time::Duration::from_secs(60))
        .expect("the fit waited for its own observer (deadlock)");
    assert!(ok);
    assert_eq!(observed, 3);
}
