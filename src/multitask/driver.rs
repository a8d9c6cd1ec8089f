//! A multitask fit as jobs of the one trainer: each round, one job per
//! task in task order, on the task's rows, with the task's view of the
//! shared penalty, into the task's model.

use super::data::MultiTaskData;
use super::model::MultiTaskModel;
use super::params::MultiTaskParams;
use crate::error::{Result, SbError};
use crate::interrupt::ShouldStop;
use crate::objective::{objective_for, Targets};
use crate::params::BoosterParams;
use crate::selection::Selection;
use crate::threads;
use crate::trainer::{self, EvalSet, History, Job, Observer, Plan, Population, SharedStart};
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
    params.validate_for(data.data.n_features())?;
    mt.validate(params, data.n_tasks, data.data.n_features())?;
    let objective = objective_for(params);
    if objective.n_outputs() != 1 || data.data.group_sizes.is_some() {
        return Err(SbError::InvalidParameter(format!(
            "multitask boosting takes one-output pointwise objectives, not '{}'",
            params.objective.name()
        )));
    }
    objective.check_targets(&Targets {
        y: data.data.y,
        weights: data.data.weights,
        queries: None,
    })?;
    for (s, eval) in evals.iter().enumerate() {
        crate::booster::check_eval_set(s, eval, &data.data, objective.as_ref())?;
        match eval.task {
            Some(task) if task.iter().all(|&t| t < data.n_tasks) => {}
            _ => {
                return Err(SbError::InvalidInput(format!(
                    "eval_set[{s}] needs a task in 0..{} for every row",
                    data.n_tasks
                )))
            }
        }
    }
    threads::install_own(params.n_threads, || {
        let (n, d) = (data.data.n_rows(), data.data.n_features());
        // One set of units for all tasks: they share gains and penalties.
        let units = Units::for_data(params.objective, data.data.y, data.data.weights);
        let y = units.targets(data.data.y);
        let weights = units.weights(data.data.weights);
        let mut rows: Vec<Vec<u32>> = vec![Vec::new(); data.n_tasks];
        for (i, &t) in data.task.iter().enumerate().take(n) {
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
        let jobs = (0..data.n_tasks).map(|t| Job::of_model(t, 0, t)).collect();
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
                    population: data.n_tasks,
                    output: 0,
                    view: data.n_tasks,
                    model: None,
                },
            }
        });
        let plan = Plan {
            n_features: data.data.n_features(),
            params,
            objective: objective.as_ref(),
            units,
            populations,
            jobs,
            base_scores,
            selection: Selection::tasks(params, mt, data.n_tasks, d, &units),
            evals,
            shared_start,
        };
        let trained = trainer::train_local(plan, &data.data, should_stop, observer)?;
        // Ω_G in entry order, restricted to the kept trees (early stopping
        // may have dropped some).
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
        Ok((model, trained.history))
    })?
}
