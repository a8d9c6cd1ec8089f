//! A one-model fit: the single-output losses (one job per round), softmax
//! (one job per class and round) and LambdaRank, all run by
//! [`crate::trainer`].

use crate::data::{query_ranges, TrainingData};
use crate::error::Result;
use crate::interrupt::ShouldStop;
use crate::model::Model;
use crate::objective::{objective_for, Objective, Targets};
use crate::params::BoosterParams;
use crate::selection::Selection;
use crate::threads;
use crate::trainer::{self, EvalSet, History, Job, Observer, Plan, Population};
use crate::units::Units;

pub use crate::data::{MAX_FEATURES, MAX_ROWS};

/// Fit a model. `should_stop` is polled between trees, between the splits
/// of a tree and inside binning; when it returns true the fit ends with
/// [`crate::SbError::Interrupted`].
///
/// Runs on a pool of its own of `params.n_threads` threads (all available
/// cores for 0, capped at them): the observer may block a thread while a
/// Python callback predicts or fits on the shared pools (see
/// [`crate::threads::install_own`]).
pub fn fit(data: &TrainingData, params: &BoosterParams, should_stop: &ShouldStop) -> Result<Model> {
    fit_with(data, params, &[], should_stop, &mut |_| true).map(|(model, _)| model)
}

/// [`fit`] with evaluation sets (scored after every round; early stopping
/// watches the last metric of the last set) and an observer of every
/// round, which may stop the fit. Returns the model and the evaluation
/// history.
pub fn fit_with(
    data: &TrainingData,
    params: &BoosterParams,
    evals: &[EvalSet],
    should_stop: &ShouldStop,
    observer: &mut Observer,
) -> Result<(Model, History)> {
    params.validate()?;
    data.validate()?;
    let objective = objective_for(params);
    check_inputs(params, data, objective.as_ref(), evals)?;
    threads::install_own(params.n_threads, || {
        let units = Units::for_data(params.objective, data.y, data.weights);
        let population = population(&units, data.y, data.weights, data.group_sizes);
        let base = objective.init_scores(&population.targets());
        let setting = (params, objective.as_ref(), units);
        let plan = plan(setting, population, base, data.n_features(), evals);
        let trained = trainer::train_local(plan, data, should_stop, observer)?;
        let model = trained.models.into_iter().next().expect("one model");
        Ok((model, trained.history))
    })?
}

/// Reject what a fit of `data`'s targets (`x` is not read, only its
/// number of features) cannot use: the parameters for its features, the
/// targets for the objective, the evaluation sets.
pub(crate) fn check_inputs(
    params: &BoosterParams,
    data: &TrainingData,
    objective: &dyn Objective,
    evals: &[EvalSet],
) -> Result<()> {
    params.validate_for(data.n_features())?;
    let queries = data.queries();
    objective.check_targets(&Targets {
        y: data.y,
        weights: data.weights,
        queries: queries.as_deref(),
    })?;
    for (s, eval) in evals.iter().enumerate() {
        check_eval_set(s, eval, data, objective)?;
    }
    Ok(())
}

/// Every row of the data, its targets in `units`.
pub(crate) fn population(
    units: &Units,
    y: &[f64],
    weights: Option<&[f64]>,
    group_sizes: Option<&[usize]>,
) -> Population {
    Population {
        rows: None,
        y: units.targets(y),
        weights: units.weights(weights),
        queries: group_sizes.map(query_ranges),
    }
}

/// The plan of a one-model fit of `population` from base scores `base`:
/// one job per output and round.
pub(crate) fn plan<'a>(
    (params, objective, units): (&'a BoosterParams, &'a dyn Objective, Units),
    population: Population,
    base: Vec<f64>,
    d: usize,
    evals: &'a [EvalSet<'a>],
) -> Plan<'a> {
    Plan {
        n_features: d,
        params,
        objective,
        units,
        populations: vec![population],
        jobs: (0..objective.n_outputs())
            .map(|output| Job::of_model(0, output, 0))
            .collect(),
        base_scores: vec![base],
        selection: Selection::single(params, d, &units),
        evals,
        shared_start: None,
    }
}

/// An evaluation set has the training data's columns and valid targets.
pub(crate) fn check_eval_set(
    s: usize,
    eval: &EvalSet,
    data: &TrainingData,
    objective: &dyn Objective,
) -> Result<()> {
    let name = format!("eval_set[{s}]");
    let as_data = TrainingData {
        x: eval.x,
        y: eval.y,
        weights: eval.weights,
        group_sizes: eval.group_sizes,
    };
    as_data
        .validate()
        .map_err(|e| crate::SbError::InvalidInput(format!("{name}: {e}")))?;
    if eval.x.n_features != data.n_features() {
        return Err(crate::SbError::InvalidInput(format!(
            "{name}: X has {} features, but the training data has {}",
            eval.x.n_features,
            data.n_features()
        )));
    }
    if let Some(task) = eval.task {
        if task.len() != eval.x.n_rows {
            return Err(crate::SbError::InvalidInput(format!(
                "{name}: task has {} labels for {} rows",
                task.len(),
                eval.x.n_rows
            )));
        }
    }
    let queries = as_data.queries();
    let targets = Targets {
        y: eval.y,
        weights: eval.weights,
        queries: queries.as_deref(),
    };
    if data.group_sizes.is_some() && eval.group_sizes.is_none() {
        return Err(crate::SbError::InvalidInput(format!(
            "{name}: a ranking evaluation set needs its query groups (eval_group)"
        )));
    }
    objective
        .check_targets(&targets)
        .map_err(|e| crate::SbError::InvalidInput(format!("{name}: {e}")))?;
    Ok(())
}
