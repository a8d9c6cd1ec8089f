//! Sharded fits through the in-process transport: one shard is the
//! single-machine fit bit for bit; several shards give the same model
//! whatever else varies (threads), find the planted features, and survive
//! empty shards.

use sparseboost::distributed::Transport;
use sparseboost::distributed::{fit_sharded, fit_sharded_multitask, InProcess, Shard, Traffic};
use sparseboost::feature_sampling::{FeatureCount, FeatureSampling};
use sparseboost::interrupt::never;
use sparseboost::matrix::FeatureMatrix;
use sparseboost::params::SplitSearch;
use sparseboost::rng::Rng;
use sparseboost::trainer::{EvalSet, History};
use sparseboost::{
    fit_multitask, fit_with, BoosterParams, Model, MultiTaskData, MultiTaskModel, MultiTaskParams,
    ObjectiveKind, PenaltyKind, SbError, TrainingData,
};

struct Problem {
    x: Vec<f64>,
    y: Vec<f64>,
    w: Option<Vec<f64>>,
    groups: Option<Vec<usize>>,
    n: usize,
    d: usize,
}

/// y depends on features 0, 3 and 5 of `d`; labels per `objective`.
fn problem(n: usize, d: usize, objective: ObjectiveKind, seed: u64) -> Problem {
    let mut rng = Rng::new(seed);
    let x: Vec<f64> = (0..n * d)
        .map(|i| {
            let v = rng.next_f64();
            if i % 17 == 0 {
                f64::NAN
            } else {
                v
            }
        })
        .collect();
    let at = |r: usize, f: usize| {
        let v = x[r * d + f];
        if v.is_nan() {
            0.5
        } else {
            v
        }
    };
    let signal: Vec<f64> = (0..n)
        .map(|r| 3.0 * at(r, 0) - 2.0 * at(r, 3) + (at(r, 5) > 0.5) as u8 as f64)
        .collect();
    let y = signal
        .iter()
        .map(|&s| match objective {
            ObjectiveKind::SquaredError => s + 0.1 * rng.next_f64(),
            ObjectiveKind::BinaryLogloss => (s + 0.5 * rng.next_f64() > 1.2) as u8 as f64,
            ObjectiveKind::MultiLogloss => ((s + 1.0).clamp(0.0, 2.99)).floor(),
            ObjectiveKind::LambdaRank => ((s + 1.0).clamp(0.0, 3.99)).floor(),
        })
        .collect();
    let groups = (objective == ObjectiveKind::LambdaRank).then(|| {
        let mut sizes = Vec::new();
        let mut left = n;
        while left > 0 {
            let s = (5 + sizes.len() % 7).min(left);
            sizes.push(s);
            left -= s;
        }
        sizes
    });
    let w = (objective == ObjectiveKind::BinaryLogloss)
        .then(|| (0..n).map(|r| 0.5 + (r % 3) as f64).collect());
    Problem {
        x,
        y,
        w,
        groups,
        n,
        d,
    }
}

fn params(objective: ObjectiveKind) -> BoosterParams {
    BoosterParams {
        objective,
        n_classes: if objective == ObjectiveKind::MultiLogloss {
            3
        } else {
            2
        },
        n_estimators: 12,
        max_leaves: 7,
        min_samples_leaf: 5,
        split_search: SplitSearch::Exhaustive,
        n_threads: 2,
        ..BoosterParams::plain()
    }
}

/// Shards of `p` ending at `bounds` (row counts, ascending, last = n; on
/// query boundaries for ranking), fitted through the in-process transport.
fn sharded(p: &Problem, params: &BoosterParams, bounds: &[usize]) -> (Model, Traffic) {
    let (model, _, traffic) = sharded_with_history(p, params, bounds);
    (model, traffic)
}

/// [`sharded`], with the fit's history.
fn sharded_with_history(
    p: &Problem,
    params: &BoosterParams,
    bounds: &[usize],
) -> (Model, History, Traffic) {
    let mut transport = InProcess::new(shards(p, params, bounds), &never);
    fit_sharded(
        params,
        &mut transport,
        &[],
        None,
        &mut None,
        &never,
        &mut |_| true,
    )
    .unwrap()
}

fn shards<'a>(
    p: &'a Problem,
    params: &BoosterParams,
    bounds: &[usize],
) -> Vec<(FeatureMatrix<'a>, Shard)> {
    let mut shards = Vec::new();
    let mut start = 0;
    let mut query = 0;
    for &end in bounds {
        let rows = start..end;
        let groups = p.groups.as_ref().map(|g| {
            let mut sizes = Vec::new();
            let mut covered = start;
            while covered < end {
                sizes.push(g[query]);
                covered += g[query];
                query += 1;
            }
            assert_eq!(covered, end, "shards end on query boundaries");
            sizes
        });
        let x = FeatureMatrix::dense(&p.x[start * p.d..end * p.d], end - start, p.d);
        let shard = Shard::new(
            params.clone(),
            end - start,
            p.d,
            p.y[rows.clone()].to_vec(),
            p.w.as_ref().map(|w| w[rows.clone()].to_vec()),
            groups,
        )
        .unwrap();
        shards.push((x, shard));
        start = end;
    }
    shards
}

fn single(p: &Problem, params: &BoosterParams) -> Model {
    let data = TrainingData {
        x: FeatureMatrix::dense(&p.x, p.n, p.d),
        y: &p.y,
        weights: p.w.as_deref(),
        group_sizes: p.groups.as_deref(),
    };
    fit_with(&data, params, &[], &never, &mut |_| true)
        .unwrap()
        .0
}

const OBJECTIVES: [ObjectiveKind; 4] = [
    ObjectiveKind::SquaredError,
    ObjectiveKind::BinaryLogloss,
    ObjectiveKind::MultiLogloss,
    ObjectiveKind::LambdaRank,
];

#[test]
fn one_shard_is_the_single_machine_fit_bit_for_bit() {
    for objective in OBJECTIVES {
        let p = problem(600, 40, objective, 3);
        for search in [SplitSearch::Exhaustive, SplitSearch::GroupTesting] {
            // (penalty, row subsample, dynamic feature sampling)
            let variants = [
                (PenaltyKind::None, 1.0, false),
                (PenaltyKind::Gbfs, 1.0, false),
                (PenaltyKind::Agbm, 0.7, false),
                (PenaltyKind::None, 0.8, true),
            ];
            for (penalty, subsample, dynamic) in variants {
                let params = BoosterParams {
                    penalty,
                    mu: match penalty {
                        PenaltyKind::None => 0.0,
                        PenaltyKind::Gbfs => 0.05,
                        PenaltyKind::Agbm => 0.01,
                    },
                    subsample,
                    feature_sampling: if dynamic {
                        FeatureSampling::Dynamic
                    } else {
                        FeatureSampling::Uniform
                    },
                    colsample_bytree: FeatureCount::Fraction(if dynamic { 0.3 } else { 0.8 }),
                    bin_sample_rows: 400,
                    split_search: search,
                    gt_n_features: 3,
                    // Nodes of more rows test a sample of them.
                    gt_max_rows: Some(150),
                    ..params(objective)
                };
                let (model, traffic) = sharded(&p, &params, &[p.n]);
                let whole = single(&p, &params);
                let what = format!("{objective:?} {search:?} {penalty:?} {subsample} {dynamic}");
                assert_eq!(model.to_json(), whole.to_json(), "{what}");
                assert!(traffic.trees > 0, "{what}");
                assert_eq!(
                    model.gt_n_subsets.is_some(),
                    search == SplitSearch::GroupTesting
                );
            }
        }
    }
}

#[test]
fn one_shard_is_the_single_machine_fit_when_the_tests_screen_their_subsets() {
    // 2000 rows and 3000 features with s = 3: subsets of 200 features (not
    // the paper's 1000), p = 4·3000/200 = 60 of them, of which each node
    // searches the 28 whose whole ranges test best.
    for objective in [ObjectiveKind::SquaredError, ObjectiveKind::BinaryLogloss] {
        let p = problem(2000, 3000, objective, 4);
        for max_rows in [None, Some(500)] {
            let params = BoosterParams {
                penalty: PenaltyKind::Agbm,
                mu: 0.01,
                split_search: SplitSearch::GroupTesting,
                gt_n_features: 3,
                gt_max_rows: max_rows,
                ..params(objective)
            };
            let (model, _) = sharded(&p, &params, &[p.n]);
            let whole = single(&p, &params);
            assert_eq!(model.gt_n_subsets, Some(60));
            assert_eq!(
                model.to_json(),
                whole.to_json(),
                "{objective:?} {max_rows:?}"
            );
            assert!(model.selected_features.contains(&0), "{objective:?}");
        }
    }
}

#[test]
fn several_shards_find_the_planted_features_and_do_not_depend_on_threads() {
    for objective in OBJECTIVES {
        let p = problem(700, 12, objective, 5);
        // Ranking shards end on query boundaries: cut after whole queries.
        let bounds: Vec<usize> = match &p.groups {
            Some(g) => {
                let ends: Vec<usize> = g
                    .iter()
                    .scan(0, |s, &q| {
                        *s += q;
                        Some(*s)
                    })
                    .collect();
                vec![ends[ends.len() / 10], ends[ends.len() / 2], p.n]
            }
            None => vec![70, 350, p.n],
        };
        for (search, subsample) in [
            (SplitSearch::Exhaustive, 1.0),
            (SplitSearch::GroupTesting, 1.0),
            (SplitSearch::Exhaustive, 0.7),
            (SplitSearch::GroupTesting, 0.7),
        ] {
            let params = BoosterParams {
                split_search: search,
                gt_n_features: 3,
                subsample,
                ..params(objective)
            };
            let one = sharded(&p, &params, &bounds).0;
            let other = BoosterParams {
                n_threads: 1,
                ..params.clone()
            };
            assert_eq!(one.to_json(), sharded(&p, &other, &bounds).0.to_json());
            let used = &one.selected_features;
            for f in [0, 3] {
                assert!(used.contains(&f), "{objective:?} {search:?}: {used:?}");
            }
        }
        let one = sharded(&p, &params(objective), &bounds).0;
        // The sums are added in another order, not to other values: the
        // model is the single-machine one up to rounding.
        let whole = single(&p, &params(objective));
        assert_eq!(one.trees.len(), whole.trees.len(), "{objective:?}");
    }
}

#[test]
fn empty_shards_change_nothing() {
    let p = problem(400, 6, ObjectiveKind::SquaredError, 8);
    let params = params(ObjectiveKind::SquaredError);
    let (a, _) = sharded(&p, &params, &[0, 150, 150, p.n, p.n]);
    let (b, _) = sharded(&p, &params, &[150, p.n]);
    assert_eq!(a.to_json(), b.to_json());
}

#[test]
fn round_trips_per_tree_follow_the_splits() {
    let p = problem(800, 10, ObjectiveKind::SquaredError, 2);
    let params = BoosterParams {
        max_leaves: 31,
        min_samples_leaf: 2,
        ..params(ObjectiveKind::SquaredError)
    };
    for record_train_loss in [false, true] {
        let params = BoosterParams {
            record_train_loss,
            ..params.clone()
        };
        let (model, traffic) = sharded(&p, &params, &[300, p.n]);
        let leaves: usize = model.trees.iter().map(|t| t.n_leaves()).sum();
        // A root request, one per split but the last of each tree, and one
        // loss per round when it is recorded, else one at the end (the
        // divergence check).
        let losses = if record_train_loss {
            model.trees.len()
        } else {
            1
        };
        let expected = model.trees.len() + (leaves - 2 * model.trees.len()) + losses;
        assert_eq!(traffic.boosting.round_trips, expected);
        assert_eq!(traffic.trees, model.trees.len());
    }
}

/// `x` (row-major) as CSC arrays: (values, row indices, column pointers).
fn csc(x: &[f64], n: usize, d: usize) -> (Vec<f64>, Vec<i32>, Vec<i64>) {
    let (mut values, mut rows, mut indptr) = (Vec::new(), Vec::new(), vec![0i64]);
    for f in 0..d {
        for r in 0..n {
            let v = x[r * d + f];
            if v != 0.0 {
                values.push(v);
                rows.push(r as i32);
            }
        }
        indptr.push(values.len() as i64);
    }
    (values, rows, indptr)
}

#[test]
fn float32_and_sparse_shards_are_the_single_machine_fit_bit_for_bit() {
    let mut p = problem(500, 30, ObjectiveKind::BinaryLogloss, 9);
    // Mostly zeros, so that binning and histograms take their sparse paths.
    for (i, v) in p.x.iter_mut().enumerate() {
        if i % 30 > 5 && i % 7 != 0 {
            *v = 0.0;
        }
    }
    for search in [SplitSearch::Exhaustive, SplitSearch::GroupTesting] {
        let params = BoosterParams {
            split_search: search,
            gt_n_features: 3,
            bin_sample_rows: 300,
            ..params(ObjectiveKind::BinaryLogloss)
        };
        let x32: Vec<f32> = p.x.iter().map(|&v| v as f32).collect();
        let (values, rows, indptr) = csc(&p.x, p.n, p.d);
        let sparse = FeatureMatrix {
            n_rows: p.n,
            n_features: p.d,
            values: sparseboost::matrix::Values::F64(&values),
            layout: sparseboost::matrix::Layout::Csc(sparseboost::matrix::Compressed {
                indptr: &indptr,
                indices: &rows,
            }),
        };
        for x in [FeatureMatrix::dense_f32(&x32, p.n, p.d), sparse] {
            let shard = Shard::new(params.clone(), p.n, p.d, p.y.clone(), p.w.clone(), None);
            let mut transport = InProcess::new(vec![(x, shard.unwrap())], &never);
            let (model, _, _) = fit_sharded(
                &params,
                &mut transport,
                &[],
                None,
                &mut None,
                &never,
                &mut |_| true,
            )
            .unwrap();
            let data = TrainingData {
                x,
                y: &p.y,
                weights: p.w.as_deref(),
                group_sizes: None,
            };
            let whole = fit_with(&data, &params, &[], &never, &mut |_| true)
                .unwrap()
                .0;
            assert_eq!(model.to_json(), whole.to_json(), "{search:?}");
        }
    }
}

/// Shards that stop answering after `left` more exchanges (a lost worker).
struct Failing<'a> {
    inner: InProcess<'a>,
    left: usize,
}

impl Transport for Failing<'_> {
    fn n_shards(&self) -> usize {
        self.inner.n_shards()
    }

    fn exchange(&mut self, requests: Vec<Vec<u8>>) -> sparseboost::Result<Vec<Vec<u8>>> {
        if self.left == 0 {
            return Err(SbError::InvalidInput("a worker was lost".into()));
        }
        self.left -= 1;
        self.inner.exchange(requests)
    }
}

#[test]
fn a_failed_fit_resumes_from_its_completed_rounds_to_the_same_model() {
    // (objective, search, penalty, row subsample, dynamic feature sampling,
    // features drawn per round)
    let cases = [
        (
            ObjectiveKind::SquaredError,
            SplitSearch::Exhaustive,
            PenaltyKind::Gbfs,
            1.0,
            false,
            1.0,
        ),
        (
            ObjectiveKind::MultiLogloss,
            SplitSearch::GroupTesting,
            PenaltyKind::Agbm,
            1.0,
            false,
            1.0,
        ),
        (
            ObjectiveKind::LambdaRank,
            SplitSearch::Exhaustive,
            PenaltyKind::None,
            1.0,
            false,
            1.0,
        ),
        // Dynamic weights replayed from the trees' gains and root scales.
        (
            ObjectiveKind::BinaryLogloss,
            SplitSearch::Exhaustive,
            PenaltyKind::Agbm,
            0.8,
            true,
            0.3,
        ),
        // Rounds whose 5 drawn features cannot pay the penalty grow no
        // tree: the resumed fit numbers its rounds (and draws) on.
        (
            ObjectiveKind::SquaredError,
            SplitSearch::Exhaustive,
            PenaltyKind::Agbm,
            1.0,
            false,
            0.25,
        ),
    ];
    for (objective, search, penalty, subsample, dynamic, colsample) in cases {
        let p = problem(500, 20, objective, 11);
        let v = problem(200, 20, objective, 12);
        let params = BoosterParams {
            split_search: search,
            gt_n_features: 3,
            penalty,
            mu: 0.05,
            mu_relative: penalty != PenaltyKind::None,
            subsample,
            feature_sampling: if dynamic {
                FeatureSampling::Dynamic
            } else {
                FeatureSampling::Uniform
            },
            colsample_bytree: FeatureCount::Fraction(colsample),
            ..params(objective)
        };
        let bounds = [p.groups.as_ref().map_or(240, |g| g[..30].iter().sum()), p.n];
        let eval = [EvalSet {
            x: FeatureMatrix::dense(&v.x, v.n, v.d),
            y: &v.y,
            weights: v.w.as_deref(),
            group_sizes: v.groups.as_deref(),
            task: None,
        }];
        let whole = {
            let mut t = InProcess::new(shards(&p, &params, &bounds), &never);
            fit_sharded(&params, &mut t, &eval, None, &mut None, &never, &mut |_| {
                true
            })
            .unwrap()
        };
        let what = format!("{objective:?} {search:?} {penalty:?} {subsample} {dynamic}");
        assert!(
            whole.0.trees.len() >= 4,
            "{what}: {} trees",
            whole.0.trees.len()
        );
        if colsample < 0.3 {
            let rounds: Vec<_> = whole.0.trees.iter().map(|t| t.round).collect();
            let gaps = rounds
                .windows(2)
                .filter(|w| w[1] > w[0].map(|r| r + 1))
                .count();
            assert!(gaps > 0, "{what}: no round without a tree: {rounds:?}");
        }
        let (setup, boosting) = (whole.2.setup.round_trips, whole.2.boosting.round_trips);
        for lost_after in [1, 2, 3].map(|q| setup + q * boosting / 4) {
            let mut partial = None;
            let mut t = Failing {
                inner: InProcess::new(shards(&p, &params, &bounds), &never),
                left: lost_after,
            };
            let failed = fit_sharded(
                &params,
                &mut t,
                &eval,
                None,
                &mut partial,
                &never,
                &mut |_| true,
            );
            assert!(failed.is_err(), "{what}");
            let Some(partial) = partial else {
                continue; // lost before a round was complete
            };
            assert!(partial.trees.len() < whole.0.trees.len(), "{what}");
            let resume = |params: &BoosterParams| {
                let mut t = InProcess::new(shards(&p, params, &bounds), &never);
                fit_sharded(
                    params,
                    &mut t,
                    &eval,
                    Some(&partial),
                    &mut None,
                    &never,
                    &mut |_| true,
                )
            };
            let resumed = resume(&params).unwrap();
            assert_eq!(
                resumed.0.to_json(),
                whole.0.to_json(),
                "{what} lost after {lost_after}"
            );
            assert_eq!(resumed.1.values, whole.1.values, "{what}");
            assert_eq!(resumed.1.mu_max, whole.1.mu_max, "{what}");
            // Rounds without recorded losses cannot give a fit that records
            // them its first losses: an error, not a model with a gap. (A
            // partial model of no tree, whose rounds grew none, has none.)
            if partial.trees.is_empty() {
                continue;
            }
            let recording = BoosterParams {
                record_train_loss: true,
                ..params.clone()
            };
            let e = resume(&recording).unwrap_err().to_string();
            assert!(e.contains("record_train_loss"), "{what}: {e}");
        }
    }
}

#[test]
fn auto_search_chooses_on_the_shards_as_on_one_machine() {
    // Wide, mostly-zero data with a feature budget: "auto" picks group
    // testing here (see group_testing::cost); narrow data: exhaustive.
    for (n, d, density, group_tested) in [(300, 3000, 0.05, true), (600, 20, 0.5, false)] {
        let mut rng = Rng::new(9);
        let x: Vec<f64> = (0..n * d)
            .map(|_| f64::from(u8::from(rng.next_f64() < density)))
            .collect();
        let y: Vec<f64> = (0..n)
            .map(|r| 2.0 * x[r * d + 1] + x[r * d + 7] + 0.1 * rng.next_f64())
            .collect();
        let p = Problem {
            x,
            y,
            w: None,
            groups: None,
            n,
            d,
        };
        let params = BoosterParams {
            split_search: SplitSearch::Auto,
            max_features: Some(10),
            n_estimators: 30,
            max_leaves: 15,
            penalty: PenaltyKind::Agbm,
            mu: 0.01,
            ..params(ObjectiveKind::SquaredError)
        };
        let whole = single(&p, &params);
        assert_eq!(whole.gt_n_subsets.is_some(), group_tested, "{n} x {d}");
        let (model, _) = sharded(&p, &params, &[p.n]);
        assert_eq!(model.to_json(), whole.to_json(), "{n} x {d}");
        // Several shards choose from the pooled counts too.
        let (split, _) = sharded(&p, &params, &[n / 3, p.n]);
        assert_eq!(split.gt_n_subsets.is_some(), group_tested, "{n} x {d}");
    }
}

/// Three tasks of 300, 150 and 60 rows (interleaved) over the problem's
/// features: task t adds `(t + 1) · x₇` to the shared signal.
fn with_tasks(p: &Problem) -> (Vec<f64>, Vec<usize>) {
    let task: Vec<usize> = (0..p.n).map(|r| [0, 1, 0, 2, 0, 1][r % 6]).collect();
    let y = (0..p.n)
        .map(|r| p.y[r] + (task[r] + 1) as f64 * p.x[r * p.d + 7].max(0.0))
        .collect();
    (y, task)
}

fn sharded_multitask(
    p: &Problem,
    params: &BoosterParams,
    mt: &MultiTaskParams,
    bounds: &[usize],
) -> (MultiTaskModel, Traffic) {
    let (y, task) = with_tasks(p);
    let p = Problem {
        y,
        x: p.x.clone(),
        w: None,
        groups: None,
        ..*p
    };
    let mut start = 0;
    let parts = shards(&p, params, bounds)
        .into_iter()
        .zip(bounds)
        .map(|((x, shard), &end)| {
            let t = task[start..end].iter().map(|&t| t as u32).collect();
            start = end;
            (x, shard.with_tasks(t).unwrap())
        })
        .collect();
    let mut transport = InProcess::new(parts, &never);
    let (model, _, traffic) =
        fit_sharded_multitask(params, mt, 3, &mut transport, &[], &never, &mut |_| true).unwrap();
    (model, traffic)
}

#[test]
fn one_shard_is_the_single_machine_multitask_fit_bit_for_bit() {
    let p = problem(510, 30, ObjectiveKind::SquaredError, 21);
    let (y, task) = with_tasks(&p);
    let variants = [
        // (search, shared rounds, row subsample, dynamic feature sampling)
        (SplitSearch::Exhaustive, 0, 1.0, false),
        (SplitSearch::Exhaustive, 3, 0.7, false),
        (SplitSearch::GroupTesting, 2, 1.0, false),
        (SplitSearch::Exhaustive, 0, 0.8, true),
    ];
    for (search, shared_rounds, subsample, dynamic) in variants {
        let params = BoosterParams {
            penalty: PenaltyKind::Agbm,
            mu: 0.0,
            split_search: search,
            gt_n_features: 3,
            subsample,
            feature_sampling: if dynamic {
                FeatureSampling::Dynamic
            } else {
                FeatureSampling::Uniform
            },
            colsample_bytree: FeatureCount::Fraction(if dynamic { 0.4 } else { 1.0 }),
            ..params(ObjectiveKind::SquaredError)
        };
        let mt = MultiTaskParams {
            mu_group: 0.02,
            mu_task: 0.01,
            shared_rounds,
            ..Default::default()
        };
        let data = MultiTaskData {
            data: TrainingData {
                x: FeatureMatrix::dense(&p.x, p.n, p.d),
                y: &y,
                weights: None,
                group_sizes: None,
            },
            task: &task,
            n_tasks: 3,
        };
        let whole = fit_multitask(&data, &params, &mt, &never).unwrap();
        let (model, traffic) = sharded_multitask(&p, &params, &mt, &[p.n]);
        let what = format!("{search:?} {shared_rounds} {subsample} {dynamic}");
        assert!(traffic.trees > 10, "{what}: {} trees", traffic.trees);
        assert_eq!(model, whole, "{what}");
        // Several shards: the tasks' planted feature 7 and the shared ones.
        let (model, _) = sharded_multitask(&p, &params, &mt, &[100, 101, 400, p.n]);
        for f in [0, 3, 7] {
            assert!(model.selected_features.contains(&f), "{what}: {f}");
        }
    }
}

/// μ_max over more features than the grower puts in one root histogram
/// (2048): the shards' roots give the blocks the same sums as one machine.
#[test]
fn relative_mu_over_thousands_of_features_is_the_single_machine_fit() {
    let p = problem(300, 2100, ObjectiveKind::SquaredError, 21);
    let params = BoosterParams {
        penalty: PenaltyKind::Agbm,
        mu: 0.05,
        mu_relative: true,
        n_estimators: 3,
        ..params(ObjectiveKind::SquaredError)
    };
    let data = TrainingData {
        x: FeatureMatrix::dense(&p.x, p.n, p.d),
        y: &p.y,
        weights: None,
        group_sizes: None,
    };
    let (whole, history) = fit_with(&data, &params, &[], &never, &mut |_| true).unwrap();
    let mu_max = history.mu_max.expect("a relative mu resolves mu_max");
    assert!(mu_max > 0.0);
    for bounds in [vec![p.n], vec![120, p.n]] {
        let (model, sharded, _) = sharded_with_history(&p, &params, &bounds);
        let m = sharded.mu_max.unwrap();
        assert!(
            (m - mu_max).abs() <= 1e-9 * mu_max,
            "{bounds:?}: {m} against {mu_max}"
        );
        if bounds.len() == 1 {
            assert_eq!(model.to_json(), whole.to_json());
        }
    }
}

/// A resume replays the init model's trees through the new fit's bins: with
/// other cut points that would score another model, without a word.
#[test]
fn resuming_under_other_cut_points_is_refused() {
    let p = problem(400, 6, ObjectiveKind::BinaryLogloss, 31);
    let params = params(ObjectiveKind::BinaryLogloss);
    let (init, _) = sharded(&p, &params, &[p.n]);
    let resume = |params: &BoosterParams| {
        let mut transport = InProcess::new(shards(&p, params, &[150, p.n]), &never);
        fit_sharded(
            params,
            &mut transport,
            &[],
            Some(&init),
            &mut None,
            &never,
            &mut |_| true,
        )
    };
    let more = BoosterParams {
        n_estimators: params.n_estimators + 3,
        ..params.clone()
    };
    assert!(resume(&more).is_ok());
    let coarser = BoosterParams {
        max_bins: 16,
        ..more
    };
    let message = resume(&coarser).unwrap_err().to_string();
    assert!(
        message.contains("which is not a cut point of this fit's bins"),
        "{message}"
    );
}
