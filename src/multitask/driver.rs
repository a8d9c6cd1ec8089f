//! A multitask fit as jobs of the one trainer: each round, one job per
//! task in task order, on the task's rows, with the task's view of the
//! shared penalty, into the task's model.

use super::data::MultiTaskData;
use super::model::MultiTaskModel;
use super::params::MultiTaskParams;
use crate::data::TrainingData;
use crate::error::{Result, SbError};
use crate::interrupt::ShouldStop;
use crate::objective::{objective_for, Objective, Targets};
use crate::params::BoosterParams;
use crate::selection::Selection;
use crate::threads;
use crate::trainer::{
    self, EvalSet, History, Job, Observer, Plan, Population, SharedStart, Trained,
};
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
/// ends when a whole round grows no tree. With `mt.shared_rounds` > 0 the
/// first rounds grow one tree on all tasks' rows instead (see
/// [`MultiTaskParams::shared_rounds`]). `min_split_fraction` (α) counts
/// the rows of all tasks, as the grower is shared. Runs on a pool of
/// `params.n_threads` threads (all cores for 0).
pub fn fit_multitask(
    data: &MultiTaskData,
    params: &BoosterParams,
    mt: &MultiTaskParams,
    should_stop: &ShouldStop,
) -> Result<MultiTaskModel> {
    fit_multitask_with(data, params, mt, &[], should_stop, &mut |_| true).map(|(m, _)| m)
}

/// [`fit_multitask`] with evaluation sets (each with its rows' tasks;
/// early stopping watches the size-weighted mean of the tasks' metrics) and
/// an observer of every round.
pub fn fit_multitask_with(
    data: &MultiTaskData,
    params: &BoosterParams,
    mt: &MultiTaskParams,
    evals: &[EvalSet],
    should_stop: &ShouldStop,
    observer: &mut Observer,
) -> Result<(MultiTaskModel, History)> {
    params.validate()?;
    data.validate()?;
    let d = data.data.n_features();
    let objective = objective_for(params);
    check_inputs(
        params,
        mt,
        &data.data,
        data.n_tasks,
        objective.as_ref(),
        evals,
    )?;
    threads::install_own(params.n_threads, || {
        let units = Units::for_data(params.objective, data.data.y, data.data.weights);
        let targets = (data.data.y, data.data.weights, data.task);
        let setting = (params, objective.as_ref(), units);
        let plan = plan(setting, mt, targets, (data.n_tasks, d), evals);
        let trained = trainer::train_local(plan, &data.data, should_stop, observer)?;
        Ok(finish(trained, d))
    })?
}

/// Reject what a multitask fit of `data`'s targets (rows, features and
/// `n_tasks` tasks; `x` is not read) cannot use: parameters, the
/// objective, and evaluation sets without a task for every row.
pub(crate) fn check_inputs(
    params: &BoosterParams,
    mt: &MultiTaskParams,
    data: &TrainingData,
    n_tasks: usize,
    objective: &dyn Objective,
    evals: &[EvalSet],
) -> Result<()> {
    params.validate_for(data.n_features())?;
    mt.validate(params, n_tasks, data.n_features())?;
    if objective.n_outputs() != 1 || data.group_sizes.is_some() {
        return Err(SbError::InvalidParameter(format!(
            "multitask boosting takes one-output pointwise objectives, not '{}'",
            params.objective.name()
        )));
    }
    objective.check_targets(&Targets {
        y: data.y,
        weights: data.weights,
        queries: None,
    })?;
    for (s, eval) in evals.iter().enumerate() {
        crate::booster::check_eval_set(s, eval, data, objective)?;
        match eval.task {
            Some(task) if task.iter().all(|&t| t < n_tasks) => {}
            _ => {
                return Err(SbError::InvalidInput(format!(
                    "eval_set[{s}] needs a task in 0..{n_tasks} for every row"
                )))
            }
        }
    }
    Ok(())
}

/// The plan of a multitask fit of targets `(y, weights, task)` (the
/// user's units; `units` converts them) with `n_tasks` tasks over `d`
/// features: one job per task and round on the task's rows, after the
/// shared start's rounds on every row.
pub(crate) fn plan<'a>(
    (params, objective, units): (&'a BoosterParams, &'a dyn Objective, Units),
    mt: &MultiTaskParams,
    (y, weights, task): (&[f64], Option<&[f64]>, &[usize]),
    (n_tasks, d): (usize, usize),
    evals: &'a [EvalSet<'a>],
) -> Plan<'a> {
    // One set of units for all tasks: they share gains and penalties.
    let y = units.targets(y);
    let weights = units.weights(weights);
    let mut rows: Vec<Vec<u32>> = vec![Vec::new(); n_tasks];
    for (i, &t) in task.iter().enumerate() {
        rows[t].push(i as u32);
    }
    let mut populations: Vec<Population> = rows
        .into_iter()
        .map(|rows| {
            let gather = |v: &[f64]| rows.iter().map(|&r| v[r as usize]).collect::<Vec<_>>();
            Population {
                y: gather(&y),
                weights: weights.as_deref().map(gather),
                queries: None,
                rows: Some(rows),
            }
        })
        .collect();
    let base_scores = populations
        .iter()
        .map(|p| objective.init_scores(&p.targets()))
        .collect();
    let jobs = (0..n_tasks).map(|t| Job::of_model(t, 0, t)).collect();
    // The shared start: every row, priced by the view of every task.
    let shared_start = (mt.shared_rounds > 0).then(|| {
        populations.push(Population {
            rows: None,
            y: y.clone(),
            weights: weights.clone(),
            queries: None,
        });
        SharedStart {
            rounds: mt.shared_rounds,
            job: Job {
                population: n_tasks,
                output: 0,
                view: n_tasks,
                model: None,
            },
        }
    });
    Plan {
        n_features: d,
        params,
        objective,
        units,
        populations,
        jobs,
        base_scores,
        selection: Selection::tasks(params, mt, n_tasks, d, &units),
        evals,
        shared_start,
    }
}

/// The fitted tasks as one model: Ω_G in entry order, restricted to the
/// kept trees (early stopping may have dropped some).
pub(crate) fn finish(trained: Trained, d: usize) -> (MultiTaskModel, History) {
    let mut kept = vec![false; d];
    for task in &trained.models {
        task.selected_features.iter().for_each(|&f| kept[f] = true);
    }
    let mut selected = trained.selection.omega().used_in_order().to_vec();
    selected.retain(|&f| kept[f]);
    let model = MultiTaskModel {
        selected_features: selected,
        tasks: trained.models,
    };
    (model, trained.history)
}
