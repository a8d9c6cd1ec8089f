//! The multitask boosting loop: bin all rows once; each round, for every
//! task in task order, compute that task's gradients, draw its rows and
//! features, grow a tree with the task's view of the shared penalty, and
//! update that task's scores.

use super::data::{MultiTaskData, TaskRows};
use super::model::MultiTaskModel;
use super::params::MultiTaskParams;
use crate::booster::{
    bin_training_data, draw_sample, update_scores, ModelBuilder, Population, TrainingData,
};
use crate::error::Result;
use crate::grower::TreeGrower;
use crate::interrupt::{self, ShouldStop};
use crate::model::Model;
use crate::objective::{objective_for, Objective};
use crate::params::{BoosterParams, PenaltyKind};
use crate::penalty::{MultiTaskPenalty, Scale};
use crate::rng::Rng;
use crate::threads;
use crate::units::Units;

/// Fit one ensemble per task. `params` holds every booster setting (its
/// `penalty` says whether μ_G and μ_t are relative to each tree's root
/// scale, "agbm", or in gain units, "gbfs"; "none" ignores them); `mt` adds
/// μ_G, μ_t and the task-feature mask. `should_stop` is polled as
/// [`crate::booster::fit`] polls it; when it returns true the fit ends
/// with [`crate::error::SbError::Interrupted`].
///
/// A task whose tree cannot split gets no tree that round and tries again
/// the next (other tasks may have made features cheaper meanwhile); the fit
/// ends when a whole round grows no tree. `min_split_fraction` (α) counts
/// the rows of all tasks, as the grower is shared. Runs on a pool of
/// `params.n_threads` threads (all cores for 0).
pub fn fit_multitask(
    data: &MultiTaskData,
    params: &BoosterParams,
    mt: &MultiTaskParams,
    should_stop: &ShouldStop,
) -> Result<MultiTaskModel> {
    params.validate()?;
    data.validate()?;
    params.validate_for(data.data.n_features)?;
    mt.validate(params, data.n_tasks, data.data.n_features)?;
    let objective = objective_for(params.objective);
    objective.check_targets(data.data.y)?;
    threads::install(params.n_threads, || {
        fit_in_pool(data, params, mt, objective.as_ref(), should_stop)
    })?
}

fn fit_in_pool(
    data: &MultiTaskData,
    params: &BoosterParams,
    mt: &MultiTaskParams,
    objective: &dyn Objective,
    should_stop: &ShouldStop,
) -> Result<MultiTaskModel> {
    let (n, d) = (data.data.n_rows, data.data.n_features);
    // One set of units for all tasks: they share gains and penalties.
    let units = Units::for_data(params.objective, data.data.y, data.data.weights);
    let (y, weights) = (units.targets(data.data.y), units.weights(data.data.weights));
    let internal = units.internal_params(params);
    let binned = bin_training_data(&data.data, params, should_stop)?;
    let mut tasks = TaskRows::split(&MultiTaskData {
        data: TrainingData {
            y: &y,
            weights: weights.as_deref(),
            ..data.data
        },
        ..*data
    });
    let mut raw = vec![0.0; n];
    let mut models: Vec<ModelBuilder> = tasks
        .iter()
        .map(|task| {
            let base_score = task.init_score(objective);
            task.fill(&mut raw, base_score);
            ModelBuilder::new(Model::new(params.objective, d, base_score), params)
        })
        .collect();
    let (mut grad, mut hess) = (vec![0.0; n], vec![0.0; n]);
    // Every row's derivatives from the start: the grower takes its
    // constant-hessian shortcut only when all n hessians are equal.
    for task in &mut tasks {
        task.gradients(objective, &raw, &mut grad, &mut hess);
    }
    let mut grower = TreeGrower::new(&binned, &internal, should_stop)?;
    let mut penalty = penalty_for(params, mt, data.n_tasks, d, &units);
    let subsampled = params.subsample < 1.0;
    for round in 0..params.n_estimators {
        let mut grew = false;
        for (t, task) in tasks.iter_mut().enumerate() {
            interrupt::check(should_stop)?;
            task.gradients(objective, &raw, &mut grad, &mut hess);
            let mut rng = task_rng(params.seed, round, t);
            let (positions, mut features) = draw_sample(&mut rng, task.len(), d, params);
            features.retain(|&j| penalty.allows(t, j));
            let rows = task.rows_at(&positions);
            let grown = grower.grow(&grad, &hess, rows, &features, &mut penalty.task(t))?;
            if grown.tree.nodes.len() == 1 {
                continue;
            }
            grew = true;
            update_scores(
                &mut raw,
                &grown,
                &binned,
                Population::Rows(&task.rows),
                subsampled,
            );
            let loss = task.loss(objective, &raw);
            models[t].push(grown, loss)?;
        }
        if !grew {
            break;
        }
    }
    // One grower, so one set of group-testing subsets shared by all tasks.
    let group_testing = grower.group_testing_info();
    Ok(MultiTaskModel {
        selected_features: penalty.group().used_in_order().to_vec(),
        tasks: models
            .into_iter()
            .map(|m| m.finish(group_testing, &units))
            .collect::<Result<_>>()?,
    })
}

/// The shared penalty `params` and `mt` ask for; GBFS's μ_G and μ_t are
/// converted to the fit's `units`.
fn penalty_for(
    params: &BoosterParams,
    mt: &MultiTaskParams,
    n_tasks: usize,
    d: usize,
    units: &Units,
) -> MultiTaskPenalty {
    let (scale, mu_group, mu_task) = match params.penalty {
        PenaltyKind::None => (Scale::Gain, 0.0, 0.0),
        PenaltyKind::Gbfs => (Scale::Gain, units.gain(mt.mu_group), units.gain(mt.mu_task)),
        PenaltyKind::Agbm => (Scale::RootScale, mt.mu_group, mt.mu_task),
    };
    MultiTaskPenalty::new(
        scale,
        mu_group,
        mu_task,
        n_tasks,
        d,
        mt.task_feature_mask.clone(),
    )
}

/// The random stream of task `task`'s tree in round `round`. Task 0 uses
/// the single-task stream, so that one task alone reproduces
/// [`crate::booster::fit`].
fn task_rng(seed: u64, round: usize, task: usize) -> Rng {
    // Arbitrary odd constant: keeps task seeds away from the seed itself.
    const TASKS: u64 = 0x6D75_6C74_6974_6173;
    let task_seed = if task == 0 {
        seed
    } else {
        Rng::derive(seed ^ TASKS, task as u64).next_u64()
    };
    Rng::derive(task_seed, round as u64)
}
