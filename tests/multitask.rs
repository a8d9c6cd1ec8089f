//! Multitask boosting (SPEC section 4) at the engine level: shared features
//! are selected once and reused, private features stay private, μ_t = 0
//! shares everything, masks hold, and one task alone is the single-task
//! booster bit for bit.

mod common;

use common::{fit_xy, never};
use sparseboost::params::SplitSearch;
use sparseboost::rng::Rng;
use sparseboost::{
    fit_multitask, BoosterParams, Model, MultiTaskData, MultiTaskModel, MultiTaskParams,
    ObjectiveKind, PenaltyKind, Predictor, TrainingData,
};

/// Tasks of different sizes over `d` uniform features: features 0 and 1
/// matter to every task (with task-specific coefficients), feature 2 + t
/// only to task t; the rest is noise. Rows are interleaved across tasks.
struct Tasks {
    x: Vec<f64>,
    y: Vec<f64>,
    task: Vec<usize>,
    d: usize,
    n_tasks: usize,
}

fn planted_tasks(sizes: &[usize], d: usize, seed: u64) -> Tasks {
    let mut rng = Rng::new(seed);
    let n: usize = sizes.iter().sum();
    let mut task: Vec<usize> = sizes
        .iter()
        .enumerate()
        .flat_map(|(t, &k)| std::iter::repeat_n(t, k))
        .collect();
    rng.shuffle(&mut task);
    let x: Vec<f64> = (0..n * d).map(|_| rng.next_f64()).collect();
    let y = (0..n)
        .map(|i| {
            let (t, row) = (task[i], &x[i * d..(i + 1) * d]);
            let shared =
                [3.0, 2.0, -2.5][t % 3] * row[0] + [2.0, -3.0, 2.5][t % 3] * (6.0 * row[1]).sin();
            let private = 3.0 * row[2 + t];
            let noise = 0.3 * (rng.next_f64() + rng.next_f64() - 1.0);
            shared + private + noise
        })
        .collect();
    Tasks {
        x,
        y,
        task,
        d,
        n_tasks: sizes.len(),
    }
}

impl Tasks {
    fn data(&self) -> MultiTaskData<'_> {
        MultiTaskData {
            data: TrainingData {
                x: sparseboost::matrix::FeatureMatrix::dense(&self.x, self.y.len(), self.d),
                y: &self.y,
                weights: None,
                group_sizes: None,
            },
            task: &self.task,
            n_tasks: self.n_tasks,
        }
    }

    fn fit(&self, params: &BoosterParams, mt: &MultiTaskParams) -> MultiTaskModel {
        fit_multitask(&self.data(), params, mt, &never).unwrap()
    }
}

fn agbm(n_estimators: usize) -> BoosterParams {
    BoosterParams {
        n_estimators,
        penalty: PenaltyKind::Agbm,
        seed: 7,
        ..BoosterParams::plain()
    }
}

fn mus(mu_group: f64, mu_task: f64) -> MultiTaskParams {
    MultiTaskParams {
        mu_group,
        mu_task,
        ..Default::default()
    }
}

fn split_features(model: &Model) -> Vec<usize> {
    let mut used: Vec<usize> = model
        .trees
        .iter()
        .flat_map(|t| &t.nodes)
        .filter(|n| !n.is_leaf)
        .map(|n| n.feature as usize)
        .collect();
    used.sort_unstable();
    used.dedup();
    used
}

fn sorted(v: &[usize]) -> Vec<usize> {
    let mut v = v.to_vec();
    v.sort_unstable();
    v
}

#[test]
fn one_task_alone_is_the_single_task_booster_bit_for_bit() {
    let tasks = planted_tasks(&[2500], 20, 1);
    let sampled = BoosterParams {
        subsample: 0.7,
        colsample_bytree: sparseboost::feature_sampling::FeatureCount::Fraction(0.8),
        ..agbm(25)
    };
    // μ_t = 0 is the single-task μ = μ_G, and μ_G + μ_t is the single-task μ.
    for (mu_group, mu_task) in [(0.02, 0.0), (0.02, 0.03), (0.0, 0.0)] {
        let single = fit_xy(
            &tasks.x,
            tasks.d,
            &tasks.y,
            &BoosterParams {
                mu: mu_group + mu_task,
                ..sampled.clone()
            },
        );
        let multi = tasks.fit(&sampled, &mus(mu_group, mu_task));
        assert_eq!(multi.tasks.len(), 1);
        assert_eq!(
            multi.tasks[0], single,
            "mu_group {mu_group}, mu_task {mu_task}"
        );
        assert_eq!(multi.selected_features, single.selected_features);
    }
    // The plain engine and log-loss too.
    let labels: Vec<f64> = tasks.y.iter().map(|&v| (v > 3.0) as u8 as f64).collect();
    let classifier = BoosterParams {
        objective: ObjectiveKind::BinaryLogloss,
        penalty: PenaltyKind::None,
        ..sampled
    };
    let single = fit_xy(&tasks.x, tasks.d, &labels, &classifier);
    let binary = Tasks { y: labels, ..tasks };
    assert_eq!(binary.fit(&classifier, &mus(0.0, 0.0)).tasks[0], single);
}

#[test]
fn group_testing_runs_through_the_multitask_driver() {
    // One task: the single-task GT-GBM fit, bit for bit.
    let gt = BoosterParams {
        split_search: SplitSearch::GroupTesting,
        gt_n_features: 6,
        ..agbm(15)
    };
    let one = planted_tasks(&[2000], 60, 8);
    let single = fit_xy(
        &one.x,
        one.d,
        &one.y,
        &BoosterParams {
            mu: 0.05,
            ..gt.clone()
        },
    );
    assert!(single.gt_n_subsets.is_some());
    assert_eq!(one.fit(&gt, &mus(0.05, 0.0)).tasks[0], single);
    // Three tasks: the shared features are found through the group tests.
    let tasks = planted_tasks(&[1500, 800, 400], 60, 8);
    let model = tasks.fit(&gt, &mus(0.1, 0.05));
    for task in &model.tasks {
        assert!(task.selected_features.contains(&0) && task.selected_features.contains(&1));
        assert_eq!(task.gt_n_subsets, model.tasks[0].gt_n_subsets);
    }
}

#[test]
fn shared_features_are_selected_once_and_reused_by_every_task() {
    let tasks = planted_tasks(&[1500, 800, 400], 30, 2);
    let model = tasks.fit(&agbm(40), &mus(0.1, 0.05));
    let omega = &model.selected_features;
    assert_eq!(
        sorted(omega).len(),
        omega.len(),
        "Ω_G lists a feature twice"
    );
    for (t, task) in model.tasks.iter().enumerate() {
        assert!(
            task.selected_features.contains(&0),
            "task {t}: {:?}",
            task.selected_features
        );
        assert!(
            task.selected_features.contains(&1),
            "task {t}: {:?}",
            task.selected_features
        );
        // Ω_t ⊆ Ω_G, and Ω_t is exactly what the task's trees split on.
        assert!(task.selected_features.iter().all(|j| omega.contains(j)));
        assert_eq!(sorted(&task.selected_features), split_features(task));
    }
    // Ω_G is the union of the Ω_t.
    let mut union: Vec<usize> = model
        .tasks
        .iter()
        .flat_map(|m| m.selected_features.clone())
        .collect();
    union.sort_unstable();
    union.dedup();
    assert_eq!(sorted(omega), union);
}

#[test]
fn a_private_feature_is_selected_only_by_its_task_when_mu_task_is_positive() {
    let tasks = planted_tasks(&[1500, 800, 400], 30, 3);
    let model = tasks.fit(&agbm(40), &mus(0.1, 0.05));
    for (t, task) in model.tasks.iter().enumerate() {
        for p in 0..tasks.n_tasks {
            let private = 2 + p;
            assert_eq!(
                task.selected_features.contains(&private),
                p == t,
                "task {t} and the private feature {private} of task {p}: {:?}",
                task.selected_features
            );
        }
        // Noise features stay out.
        assert!(task
            .selected_features
            .iter()
            .all(|&j| j < 2 + tasks.n_tasks));
    }
}

#[test]
fn mu_task_zero_gives_every_task_the_same_features() {
    let tasks = planted_tasks(&[1500, 800, 400], 30, 3);
    let model = tasks.fit(&agbm(40), &mus(0.1, 0.0));
    let omega = sorted(&model.selected_features);
    // Every task's private feature is in Ω_G, hence free for the others,
    // who end up splitting on it too.
    assert!(
        (2..2 + tasks.n_tasks).all(|j| omega.contains(&j)),
        "{omega:?}"
    );
    for (t, task) in model.tasks.iter().enumerate() {
        assert_eq!(sorted(&task.selected_features), omega, "task {t}");
    }
}

#[test]
fn a_masked_feature_is_never_used_by_its_task() {
    let tasks = planted_tasks(&[1500, 800, 400], 10, 4);
    let (n_tasks, d) = (tasks.n_tasks, tasks.d);
    let free = tasks.fit(&agbm(30), &mus(0.05, 0.02));
    assert!(free.tasks[1].selected_features.contains(&0));
    // Task 1 does not have feature 0, its strongest feature.
    let mut mask = vec![true; n_tasks * d];
    mask[d] = false;
    let masked = tasks.fit(
        &agbm(30),
        &MultiTaskParams {
            task_feature_mask: Some(mask),
            ..mus(0.05, 0.02)
        },
    );
    assert!(!split_features(&masked.tasks[1]).contains(&0));
    assert!(split_features(&masked.tasks[0]).contains(&0));
    assert!(split_features(&masked.tasks[2]).contains(&0));
}

#[test]
fn each_task_scores_only_its_own_rows_when_subsampling() {
    // The training loss recorded after the last tree must be the loss of the
    // task's model predicting its own rows: a score update that leaked into
    // another task's rows (or missed out-of-sample rows) would break it.
    let tasks = planted_tasks(&[900, 500, 300], 15, 5);
    let params = BoosterParams {
        subsample: 0.6,
        colsample_bytree: sparseboost::feature_sampling::FeatureCount::Fraction(0.7),
        record_train_loss: true,
        ..agbm(20)
    };
    let model = tasks.fit(&params, &mus(0.05, 0.02));
    for (t, task_model) in model.tasks.iter().enumerate() {
        let rows: Vec<usize> = (0..tasks.y.len()).filter(|&i| tasks.task[i] == t).collect();
        let x: Vec<f64> = rows
            .iter()
            .flat_map(|&i| tasks.x[i * tasks.d..(i + 1) * tasks.d].to_vec())
            .collect();
        let pred = Predictor::new(task_model)
            .predict_raw(
                &sparseboost::matrix::FeatureMatrix::dense(&x, x.len() / tasks.d, tasks.d),
                &never,
            )
            .unwrap();
        let mse = rows
            .iter()
            .zip(&pred)
            .map(|(&i, p)| (tasks.y[i] - p).powi(2))
            .sum::<f64>()
            / rows.len() as f64;
        let recorded = *task_model.train_loss.last().unwrap();
        assert!(
            (mse - recorded).abs() < 1e-9 * recorded.max(1.0),
            "task {t}: {mse} vs {recorded}"
        );
    }
}

#[test]
fn the_model_does_not_depend_on_the_thread_count_and_survives_its_file() {
    let tasks = planted_tasks(&[700, 400, 200], 12, 6);
    let one = BoosterParams {
        n_threads: 1,
        subsample: 0.8,
        ..agbm(15)
    };
    let two = BoosterParams {
        n_threads: 2,
        ..one.clone()
    };
    let a = tasks.fit(&one, &mus(0.05, 0.02));
    assert_eq!(a, tasks.fit(&two, &mus(0.05, 0.02)));
    assert_eq!(MultiTaskModel::from_json(&a.to_json()).unwrap(), a);
    assert!(MultiTaskModel::from_json("{\"format\": \"sparseboost-model\"}").is_err());
}

#[test]
fn bad_tasks_are_errors_not_panics() {
    let tasks = planted_tasks(&[50, 50], 4, 7);
    let params = agbm(3);
    let fit_with = |task: &[usize], n_tasks: usize, mt: &MultiTaskParams| {
        let data = MultiTaskData {
            task,
            n_tasks,
            ..tasks.data()
        };
        fit_multitask(&data, &params, mt, &never)
            .unwrap_err()
            .to_string()
    };
    let mut out_of_range = tasks.task.clone();
    out_of_range[3] = 2;
    assert!(fit_with(&out_of_range, 2, &mus(0.1, 0.1)).contains("row 3 has task 2"));
    assert!(fit_with(&tasks.task[1..], 2, &mus(0.1, 0.1)).contains("task has 99 labels"));
    // A third task without rows.
    assert!(fit_with(&tasks.task, 3, &mus(0.1, 0.1)).contains("task 2 has 0 rows"));
    assert!(fit_with(&tasks.task, 2, &mus(0.6, 0.5)).contains("mu_group + mu_task"));
    let short_mask = MultiTaskParams {
        task_feature_mask: Some(vec![true; 3]),
        ..mus(0.1, 0.1)
    };
    assert!(fit_with(&tasks.task, 2, &short_mask).contains("task_feature_mask"));
}

#[test]
fn a_job_that_cannot_split_skips_its_rounds_and_the_fit_goes_on() {
    let mut tasks = planted_tasks(&[400, 300], 6, 9);
    // Task 1's target is constant: its gradients are all equal and no split
    // has a gain, round after round, while task 0 keeps growing trees.
    for (i, &t) in tasks.task.iter().enumerate() {
        if t == 1 {
            tasks.y[i] = 2.5;
        }
    }
    let params = BoosterParams {
        n_estimators: 12,
        ..BoosterParams::plain()
    };
    let model = tasks.fit(&params, &MultiTaskParams::default());
    assert_eq!(model.tasks[0].trees.len(), 12);
    assert!(model.tasks[1].trees.is_empty());
    assert_eq!(model.tasks[1].base_score, vec![2.5]);
}

#[test]
fn a_shared_start_is_the_first_trees_of_every_task_and_counts_for_every_omega() {
    let tasks = planted_tasks(&[900, 500, 120], 12, 12);
    let params = BoosterParams {
        subsample: 0.8,
        n_threads: 1,
        ..agbm(20)
    };
    let shared = MultiTaskParams {
        shared_rounds: 6,
        ..mus(0.005, 0.002)
    };
    let model = tasks.fit(&params, &shared);
    let first = &model.tasks[0].trees[..6];
    for (t, task) in model.tasks.iter().enumerate() {
        assert_eq!(&task.trees[..6], first, "task {t}");
        assert!(task.trees.len() > 6, "task {t} has no tree of its own");
        // The shared trees' features are in Ω_t, and Ω_t ⊆ Ω_G.
        let shared_features = split_features(&Model {
            trees: first.to_vec(),
            ..task.clone()
        });
        assert!(shared_features
            .iter()
            .all(|j| task.selected_features.contains(j)));
        assert!(task
            .selected_features
            .iter()
            .all(|j| model.selected_features.contains(j)));
    }
    // The task trees after the start differ between tasks.
    assert_ne!(model.tasks[0].trees[6], model.tasks[1].trees[6]);
    // Deterministic whatever the thread count; the file round-trips.
    let two = BoosterParams {
        n_threads: 2,
        ..params.clone()
    };
    assert_eq!(tasks.fit(&two, &shared), model);
    assert_eq!(MultiTaskModel::from_json(&model.to_json()).unwrap(), model);
    // Every round shared: one pooled ensemble, a base score per task.
    let pooled = tasks.fit(
        &params,
        &MultiTaskParams {
            shared_rounds: 20,
            ..mus(0.005, 0.002)
        },
    );
    for task in &pooled.tasks[1..] {
        assert_eq!(task.trees, pooled.tasks[0].trees);
    }
    assert_ne!(pooled.tasks[0].base_score, pooled.tasks[2].base_score);
}

#[test]
fn a_shared_start_whose_tree_cannot_split_hands_over_to_the_tasks() {
    // Task 2's shared coefficients have the other sign: pooled, the shared
    // effects mostly cancel and no pooled split pays μ_G + μ_t, so the fit
    // is the one without a shared start, tree for tree.
    let tasks = planted_tasks(&[900, 500, 120], 12, 12);
    let plain = tasks.fit(&agbm(20), &mus(0.05, 0.02));
    let start = MultiTaskParams {
        shared_rounds: 6,
        ..mus(0.05, 0.02)
    };
    assert_eq!(tasks.fit(&agbm(20), &start), plain);
    assert!(plain.tasks.iter().all(|m| m.trees.len() == 20));
}

#[test]
fn each_task_may_have_its_own_mu_task() {
    let tasks = planted_tasks(&[1500, 800, 400], 30, 3);
    let same = tasks.fit(&agbm(30), &mus(0.05, 0.02));
    let listed = tasks.fit(
        &agbm(30),
        &MultiTaskParams {
            task_mu: Some(vec![0.02; 3]),
            ..mus(0.05, 0.9)
        },
    );
    assert_eq!(same, listed);
    // A μ_t too large for task 2 alone leaves it without its private
    // feature (2 + 2) and the others with theirs.
    let strict = tasks.fit(
        &agbm(30),
        &MultiTaskParams {
            task_mu: Some(vec![0.02, 0.02, 0.9]),
            ..mus(0.05, 0.0)
        },
    );
    assert!(!strict.tasks[2].selected_features.contains(&4));
    assert!(strict.tasks[0].selected_features.contains(&2));
    let wrong = MultiTaskParams {
        task_mu: Some(vec![0.02; 2]),
        ..mus(0.05, 0.0)
    };
    let e = fit_multitask(&tasks.data(), &agbm(5), &wrong, &never)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("mu_task must hold one value per task (3)"),
        "{e}"
    );
}
