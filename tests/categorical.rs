//! Categorical features at the engine level: two categories split as the
//! numeric 0/1 column does, a planted categorical feature is selected
//! first by every selector, missing and unseen codes go right, the binned
//! routing (evaluation sets, scores) agrees with prediction on raw codes,
//! the model file keeps the category sets, and the model does not depend
//! on the threads.

mod common;

use common::{fit_xy, never};
use sparseboost::matrix::FeatureMatrix;
use sparseboost::params::SplitSearch;
use sparseboost::rng::Rng;
use sparseboost::trainer::EvalSet;
use sparseboost::{
    fit, fit_with, BoosterParams, Model, ObjectiveKind, PenaltyKind, Predictor, TrainingData,
};

/// `n` rows of `d` features: feature 0 holds codes of 20 categories
/// (category c in about 1/20 of the rows, NaN in 3%), the rest uniform
/// noise; y = 3 when the code is 2, 7 or 11, plus noise.
fn planted(n: usize, d: usize, seed: u64) -> (Vec<f64>, Vec<f64>) {
    let mut rng = Rng::new(seed);
    let mut x = vec![0.0; n * d];
    let mut y = vec![0.0; n];
    for r in 0..n {
        let code = rng.below(20) as f64;
        x[r * d] = if rng.next_f64() < 0.03 {
            f64::NAN
        } else {
            code
        };
        for f in 1..d {
            x[r * d + f] = rng.next_f64();
        }
        y[r] = 3.0 * f64::from([2.0, 7.0, 11.0].contains(&x[r * d]) as u8) + 0.5 * rng.next_f64();
    }
    (x, y)
}

fn params(categorical: bool) -> BoosterParams {
    BoosterParams {
        n_estimators: 30,
        max_leaves: 8,
        categorical_features: if categorical { vec![0] } else { Vec::new() },
        n_threads: 2,
        ..BoosterParams::plain()
    }
}

fn predict(model: &Model, x: &[f64], d: usize) -> Vec<f64> {
    Predictor::new(model)
        .predict_raw(&FeatureMatrix::dense(x, x.len() / d, d), &never)
        .unwrap()
}

#[test]
fn two_categories_split_as_the_numeric_zero_one_column() {
    let (mut x, y) = planted(2000, 5, 1);
    let d = 5;
    for r in 0..2000 {
        let c = x[r * d];
        x[r * d] = if c.is_nan() || c < 10.0 { 0.0 } else { 1.0 };
    }
    let numeric = fit_xy(&x, d, &y, &params(false));
    let categorical = fit_xy(&x, d, &y, &params(true));
    for (a, b) in numeric.trees.iter().zip(&categorical.trees) {
        for (m, n) in a.nodes.iter().zip(&b.nodes) {
            assert_eq!((m.feature, m.value, m.gain), (n.feature, n.value, n.gain));
        }
    }
    assert_eq!(predict(&numeric, &x, d), predict(&categorical, &x, d));
    let splits = |m: &Model| -> Vec<(u32, Option<Vec<u32>>)> {
        let internal = m
            .trees
            .iter()
            .flat_map(|t| t.nodes.iter().filter(|n| !n.is_leaf));
        internal
            .map(|n| (n.feature, n.categories.clone()))
            .collect()
    };
    let (a, b) = (splits(&numeric), splits(&categorical));
    assert_eq!(a.len(), b.len());
    for ((fa, ca), (fb, cb)) in a.iter().zip(&b) {
        assert_eq!(fa, fb);
        assert!(ca.is_none());
        assert_eq!(cb.is_some(), *fb == 0);
    }
    assert!(b.iter().any(|s| s.0 == 0), "the 0/1 feature is split on");
}

#[test]
fn a_planted_categorical_feature_is_selected_first() {
    let d = 12;
    let (x, y) = planted(3000, d, 2);
    for (penalty, mu, search) in [
        (PenaltyKind::Agbm, 0.01, SplitSearch::Exhaustive),
        (PenaltyKind::Gbfs, 0.5, SplitSearch::Exhaustive),
        (PenaltyKind::Agbm, 0.01, SplitSearch::GroupTesting),
    ] {
        let p = BoosterParams {
            penalty,
            mu,
            split_search: search,
            gt_n_features: 2,
            ..params(true)
        };
        let model = fit_xy(&x, d, &y, &p);
        assert_eq!(
            model.selected_features.first(),
            Some(&0),
            "{penalty:?} {search:?}"
        );
        let root = &model.trees[0].nodes[0];
        let codes = root.categories.as_ref().expect("a categorical root split");
        // The root separates the three planted categories from the rest.
        let planted = [2, 7, 11];
        let left_is_planted = planted.iter().all(|c| codes.contains(c)) && codes.len() == 3;
        let right_is_planted = planted.iter().all(|c| !codes.contains(c)) && codes.len() == 17;
        assert!(
            left_is_planted || right_is_planted,
            "{penalty:?} {search:?}: {codes:?}"
        );
    }
}

#[test]
fn missing_and_unseen_codes_go_right() {
    let d = 3;
    let (x, y) = planted(2000, d, 3);
    let stump = BoosterParams {
        n_estimators: 1,
        max_leaves: 2,
        learning_rate: 1.0,
        ..params(true)
    };
    let model = fit_xy(&x, d, &y, &stump);
    let root = &model.trees[0].nodes[0];
    assert!(root.categories.is_some());
    let right = model.trees[0].nodes[root.right as usize].value + model.base_score[0];
    let left_code = root.categories.as_ref().unwrap()[0] as f64;
    let rows = [f64::NAN, 20.0, 99.0, -1.0, 2.5, left_code];
    let x: Vec<f64> = rows.iter().flat_map(|&c| [c, 0.5, 0.5]).collect();
    let p = predict(&model, &x, d);
    assert_eq!(&p[..5], &[right; 5]);
    assert_ne!(p[5], right);
}

#[test]
fn binned_routing_agrees_with_raw_codes_and_files_keep_the_sets() {
    let d = 6;
    let (x, y) = planted(2500, d, 4);
    // An evaluation set with codes unseen in training (20..25) and
    // fractions: binned with the training cut points, they must route as
    // the raw values do.
    let (mut xe, ye) = planted(700, d, 5);
    for r in (0..700).step_by(7) {
        xe[r * d] = 20.0 + (r % 5) as f64;
    }
    xe[3 * d] = 4.5;
    let data = TrainingData {
        x: FeatureMatrix::dense(&x, 2500, d),
        y: &y,
        weights: None,
        group_sizes: None,
    };
    let eval = EvalSet {
        x: FeatureMatrix::dense(&xe, 700, d),
        y: &ye,
        weights: None,
        group_sizes: None,
        task: None,
    };
    let (model, history) = fit_with(&data, &params(true), &[eval], &never, &mut |_| true).unwrap();
    let predicted = predict(&model, &xe, d);
    let rmse = (predicted
        .iter()
        .zip(&ye)
        .map(|(p, t)| (p - t) * (p - t))
        .sum::<f64>()
        / 700.0)
        .sqrt();
    let last = *history.values[0][0].last().unwrap();
    assert!((rmse - last).abs() <= 1e-9 * rmse, "{rmse} vs {last}");
    let again = Model::from_json(&model.to_json()).unwrap();
    assert_eq!(again, model);
    assert_eq!(again.categorical_features, [0]);
    assert_eq!(predict(&again, &xe, d), predicted);
}

#[test]
fn the_model_does_not_depend_on_the_threads() {
    let d = 8;
    let (x, y) = planted(3000, d, 6);
    let labels: Vec<f64> = y.iter().map(|&v| (v > 1.5) as u8 as f64).collect();
    let fit_on = |threads: usize, search: SplitSearch| {
        let p = BoosterParams {
            objective: ObjectiveKind::BinaryLogloss,
            n_threads: threads,
            split_search: search,
            gt_n_features: 2,
            ..params(true)
        };
        fit_xy(&x, d, &labels, &p).to_json()
    };
    for search in [SplitSearch::Exhaustive, SplitSearch::GroupTesting] {
        assert_eq!(fit_on(1, search), fit_on(2, search), "{search:?}");
    }
}

#[test]
fn codes_that_are_not_codes_are_errors_naming_the_feature() {
    let d = 2;
    let (mut x, y) = planted(200, d, 7);
    let data = |x: &[f64]| {
        fit(
            &TrainingData {
                x: FeatureMatrix::dense(x, 200, d),
                y: &y,
                weights: None,
                group_sizes: None,
            },
            &params(true),
            &never,
        )
    };
    for bad in [1.5, -1.0, 255.0] {
        x[4 * d] = bad;
        let message = data(&x).unwrap_err().to_string();
        assert!(
            message.contains("feature 0 is categorical"),
            "{bad}: {message}"
        );
    }
    let mut out_of_range = params(true);
    out_of_range.categorical_features = vec![2];
    let err = fit(
        &TrainingData {
            x: FeatureMatrix::dense(&x, 200, d),
            y: &y,
            weights: None,
            group_sizes: None,
        },
        &out_of_range,
        &never,
    )
    .unwrap_err();
    assert!(err.to_string().contains("categorical_features"), "{err}");
}
