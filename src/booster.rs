//! A one-model fit: the single-output losses (one job per round), softmax
//! (one job per class and round) and LambdaRank, all run by
//! [`crate::trainer`].

use crate::data::TrainingData;
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
    params.validate_for(data.n_features())?;
    let objective = objective_for(params);
    let queries = data.queries();
    let targets = Targets {
        y: data.y,
        weights: data.weights,
        queries: queries.as_deref(),
    };
    objective.check_targets(&targets)?;
    for (s, eval) in evals.iter().enumerate() {
        check_eval_set(s, eval, data, objective.as_ref())?;
    }
    threads::install_own(params.n_threads, || {
        let units = Units::for_data(params.objective, data.y, data.weights);
        let y = units.targets(data.y);
        let weights = units.weights(data.weights);
        let population = Population {
            rows: None,
            y,
            weights,
            queries,
        };
        let base = objective.init_scores(&population.targets());
        let jobs = (0..objective.n_outputs())
            .map(|output| Job::of_model(0, output, 0))
            .collect();
        let plan = Plan {
            n_features: data.n_features(),
            params,
            objective: objective.as_ref(),
            units,
            populations: vec![population],
            jobs,
            base_scores: vec![base],
            selection: Selection::single(params, data.n_features(), &units),
            evals,
            shared_start: None,
        };
        let trained = trainer::train_local(plan, data, should_stop, observer)?;
        let model = trained.models.into_iter().next().expect("one model");
        Ok((model, trained.history))
    })?
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
