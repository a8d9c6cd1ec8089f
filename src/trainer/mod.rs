//! The one boosting loop. Every fit — a single-output booster, softmax's K
//! class trees, multitask's T task trees — is a list of tree *jobs* per
//! round: a job grows one tree on the rows of its population for one
//! output of the scores, with its view of the penalty, into one model.
//!
//! A round first computes the gradients of every population from the
//! scores as they stand (so all K class trees of a round see the same
//! gradients, as in LightGBM), then runs its jobs in order. A job whose
//! tree cannot split skips the round (it may split later, once other jobs
//! have made features cheaper); the fit ends when a whole round grows no
//! tree. After each round the evaluation sets are scored (incrementally:
//! each tree is added to their scores as it is grown), early stopping is
//! decided, and a [`RoundReport`] goes to the observer, which may stop the
//! fit too.
//!
//! A plan may begin with a [`SharedStart`]: its first rounds run one job
//! whose tree goes into every model (multitask's trees on all tasks' rows)
//! instead of the plan's jobs. A shared round whose tree cannot split ends
//! the shared start and runs the plan's jobs in its place.
//!
//! Everything that touches rows goes through a [`backend::ScoresBackend`]:
//! rows held here ([`local::LocalScores`]) or shards behind a transport
//! (`distributed/scores.rs`). A fit may resume from a model of its first
//! rounds (`resume.rs`).

pub(crate) mod backend;
mod local;
mod resume;
pub(crate) mod row_scores;

use crate::binning::BinMapper;
use crate::data::{bin_training_data, TrainingData};
use crate::error::Result;
pub use crate::evaluation::EvalSet;
use crate::evaluation::{EvalState, RoundEnd};
use crate::feature_sampling::{DynamicWeights, Fading, FeatureSampling};
use crate::grower::LocalGrower;
use crate::interrupt::{self, ShouldStop};
use crate::metrics::Metric;
use crate::model::Model;
use crate::model_builder::ModelBuilder;
use crate::mu_max;
use crate::objective::{Objective, Targets};
use crate::params::{BoosterParams, ObjectiveKind};
use crate::sampling::{draw_sample, job_rng};
use crate::scores::Population as Rows;
use crate::selection::Selection;
use crate::tree::Tree;
use crate::units::Units;
use backend::ScoresBackend;
use local::LocalScores;
use ndarray::{Array2, ArrayView2, Axis};
use std::ops::Range;
use std::time::Instant;

/// The rows one model is fitted on, with their targets in the fit's units.
pub(crate) struct Population {
    /// The rows, ascending; `None` for every row of the data.
    pub rows: Option<Vec<u32>>,
    /// Labels of these rows.
    pub y: Vec<f64>,
    /// Weights of these rows.
    pub weights: Option<Vec<f64>>,
    /// Ranking: queries as ranges of positions in `rows`.
    pub queries: Option<Vec<Range<usize>>>,
}

impl Population {
    /// Targets of these rows for the objective.
    pub fn targets(&self) -> Targets<'_> {
        Targets {
            y: &self.y,
            weights: self.weights.as_deref(),
            queries: self.queries.as_deref(),
        }
    }

    fn len(&self) -> usize {
        self.y.len()
    }

    /// The data rows at `positions` of this population.
    fn rows_at(&self, positions: Vec<u32>) -> Vec<u32> {
        match &self.rows {
            None => positions,
            Some(rows) => positions.iter().map(|&p| rows[p as usize]).collect(),
        }
    }

    pub(crate) fn as_rows(&self) -> Rows<'_> {
        match &self.rows {
            None => Rows::All,
            Some(rows) => Rows::Rows(rows),
        }
    }
}

/// The columns `rows` of a (K, n) array.
pub(crate) fn gather(all: ArrayView2<f64>, rows: &[u32]) -> Array2<f64> {
    all.select(
        Axis(1),
        &rows.iter().map(|&r| r as usize).collect::<Vec<_>>(),
    )
}

/// One tree per round: grown on population `population` for output
/// `output` of the scores, priced by penalty view `view`, into model
/// `model` (`None`: into every model, for a shared start).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Job {
    pub population: usize,
    pub output: usize,
    pub view: usize,
    pub model: Option<usize>,
}

impl Job {
    /// A job of model `model`, priced by its own view (index `model`).
    pub(crate) fn of_model(population: usize, output: usize, model: usize) -> Job {
        Job {
            population,
            output,
            view: model,
            model: Some(model),
        }
    }
}

/// The first `rounds` rounds of a fit run this one job instead of the
/// plan's jobs: a tree on a population that spans every model's rows
/// (multitask: all tasks' rows), which goes into every model. Its rows
/// start from their own model's base score, so it learns what the models
/// share beyond their base scores.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SharedStart {
    pub rounds: usize,
    /// `model` must be `None`.
    pub job: Job,
}

/// What the observer learns after each round.
#[derive(Debug, Clone)]
pub struct RoundReport {
    /// The round, from 0.
    pub round: usize,
    /// Mean training loss of the models after the round (weighted by
    /// their rows).
    pub train_loss: f64,
    /// `eval[s][m]`: metric m on evaluation set s.
    pub eval: Vec<Vec<f64>>,
    /// Features used by any tree so far.
    pub n_features: usize,
    /// Seconds since the fit started.
    pub elapsed: f64,
    /// `(feature, gain)` of every split of the round's trees (a tree shared
    /// by several models once), the gain in the user's units: summed over
    /// the rounds, each feature's gains are its gain importance.
    pub splits: Vec<(usize, f64)>,
}

/// Decides after each round whether the fit goes on (`true`) or stops.
pub type Observer<'a> = dyn FnMut(&RoundReport) -> bool + Send + 'a;

/// The result of [`train`].
pub(crate) struct Trained {
    pub models: Vec<Model>,
    pub selection: Selection,
    pub history: History,
}

/// Evaluation history.
#[derive(Debug, Clone, Default)]
pub struct History {
    /// The metric names, in order.
    pub metrics: Vec<String>,
    /// `values[s][m][round]`.
    pub values: Vec<Vec<Vec<f64>>>,
    /// With early stopping (or evaluation sets): the best round and its
    /// score on the stopping metric.
    pub best: Option<(usize, f64)>,
    /// Rounds run.
    pub rounds: usize,
    /// GBFS and A-GBM: μ_max in the user's units (see [`crate::mu_max`]).
    pub mu_max: Option<f64>,
}

/// Everything a fit is made of; see the module docs.
pub(crate) struct Plan<'a> {
    /// d, the features of the data.
    pub n_features: usize,
    pub params: &'a BoosterParams,
    pub objective: &'a dyn Objective,
    pub units: Units,
    pub populations: Vec<Population>,
    pub jobs: Vec<Job>,
    /// Base scores of each model (in the fit's units).
    pub base_scores: Vec<Vec<f64>>,
    pub selection: Selection,
    pub evals: &'a [EvalSet<'a>],
    /// Rounds that grow one tree for every model first, if any.
    pub shared_start: Option<SharedStart>,
}

/// The metrics evaluated: those asked for, else the objective's own.
pub fn metrics_for(params: &BoosterParams) -> Result<Vec<Metric>> {
    if !params.eval_metrics.is_empty() {
        let classification = matches!(
            params.objective,
            ObjectiveKind::BinaryLogloss | ObjectiveKind::MultiLogloss
        );
        let k = if params.objective == ObjectiveKind::MultiLogloss {
            params.n_classes
        } else {
            1
        };
        for m in &params.eval_metrics {
            m.check(
                k,
                params.objective == ObjectiveKind::LambdaRank,
                classification,
            )?;
        }
        return Ok(params.eval_metrics.clone());
    }
    Ok(vec![match params.objective {
        ObjectiveKind::SquaredError => Metric::Rmse,
        ObjectiveKind::BinaryLogloss => Metric::Logloss,
        ObjectiveKind::MultiLogloss => Metric::MultiLogloss,
        ObjectiveKind::LambdaRank => Metric::Ndcg(Some(params.lambdarank_truncation_level)),
    }])
}

/// Run the plan on rows held here: bin the data, then [`train`] over
/// [`local::LocalScores`] (on the current thread pool).
pub(crate) fn train_local(
    plan: Plan,
    data: &TrainingData,
    should_stop: &ShouldStop,
    observer: &mut Observer,
) -> Result<Trained> {
    let internal = plan.units.internal_params(plan.params);
    let binned = bin_training_data(data, plan.params, should_stop)?;
    let grower = LocalGrower::new(&binned, &internal, should_stop)?;
    let group_testing = grower.group_testing_info().is_some();
    let start = (
        plan.jobs.as_slice(),
        plan.populations.as_slice(),
        plan.base_scores.as_slice(),
    );
    let subsampled = plan.params.subsample < 1.0;
    let mut backend = LocalScores::new(&binned, grower, plan.objective, start, subsampled);
    let setup = Setup {
        mappers: &binned.mappers,
        splittable: &binned.splittable,
        init: None,
        group_testing,
    };
    train(plan, setup, &mut backend, &mut None, should_stop, observer)
}

/// What a fit brings to the loop besides its plan: the cut points and
/// which features can split, and a model to resume (its trees in the
/// user's units; a single-model plan only).
pub(crate) struct Setup<'a> {
    pub mappers: &'a [BinMapper],
    pub splittable: &'a [bool],
    pub init: Option<&'a Model>,
    /// The trees are grown by group testing, whose nodes scan a few
    /// features each: μ_max (an exhaustive scan of every feature at the
    /// root) is then measured only when μ is relative to it.
    pub group_testing: bool,
}

/// The one boosting loop (see the module docs): the plan's rounds over the
/// rows behind `backend`. When the fit fails during boosting, `partial`
/// receives the model of the rounds it completed (single-model plans), to
/// resume from.
pub(crate) fn train(
    plan: Plan,
    setup: Setup,
    backend: &mut dyn ScoresBackend,
    partial: &mut Option<Model>,
    should_stop: &ShouldStop,
    observer: &mut Observer,
) -> Result<Trained> {
    let started = Instant::now();
    let Plan {
        n_features: d,
        params,
        objective: _,
        units,
        populations,
        jobs,
        base_scores,
        mut selection,
        evals,
        shared_start,
    } = plan;
    let metrics = metrics_for(params)?;
    let internal = units.internal_params(params);
    let mut evals: Vec<EvalState> = evals
        .iter()
        .map(|e| EvalState::new(e, setup.mappers, &base_scores, &units, should_stop))
        .collect::<Result<_>>()?;
    let mut models: Vec<ModelBuilder> = base_scores
        .iter()
        .map(|b| ModelBuilder::new(Model::new(params.objective, d, b.clone()), params))
        .collect();
    let mut history = History {
        metrics: metrics.iter().map(Metric::name).collect(),
        values: vec![vec![Vec::new(); metrics.len()]; evals.len()],
        best: None,
        rounds: 0,
        mu_max: None,
    };
    // Trees of each model after each round, for truncation.
    let mut trees_after: Vec<Vec<usize>> = vec![Vec::new(); models.len()];
    let mut since_best = 0;
    let mut dynamic = (params.feature_sampling == FeatureSampling::Dynamic).then(|| {
        let m = params.colsample_bytree.of(d);
        DynamicWeights::new(Fading::Boosting, params.reweight_rate, m, d)
    });
    // μ_max from the first round's roots, at the base scores (before the
    // trees of a resumed fit are added). A shared first round whose tree
    // cannot split runs the plan's jobs in its place, so its μ_max covers
    // both: at μ ≥ μ_max neither admits a feature.
    let mut first = 0;
    let measure_mu_max =
        selection.has_one_mu() && (!setup.group_testing || selection.mu_is_relative());
    if measure_mu_max || setup.init.is_some() {
        let round_jobs: Vec<Job> = match &shared_start {
            Some(start) if start.rounds > 0 => std::iter::once(start.job)
                .chain(jobs.iter().copied())
                .collect(),
            _ => jobs.clone(),
        };
        let round_jobs = round_jobs.as_slice();
        gradients_of(backend, &populations, round_jobs)?;
        if measure_mu_max {
            let mut m = 0.0_f64;
            for job in round_jobs {
                // Over every row and feature, not the first tree's sample:
                // μ_max describes the data, whatever the seed draws.
                let pop = &populations[job.population];
                let rows = pop.rows_at((0..pop.len() as u32).collect());
                let features: Vec<usize> = (0..setup.splittable.len())
                    .filter(|&f| may_split(f, job, setup.splittable, &selection))
                    .collect();
                let (scale, candidates) = backend.root_candidates(job, rows, &features)?;
                m = m.max(mu_max::of_root(
                    &selection,
                    internal.min_gain,
                    scale,
                    &candidates,
                ));
            }
            selection.resolve_relative_mu(m);
            history.mu_max = Some(mu_max::in_user_units(m, params, &units));
        }
        first = usize::from(setup.init.is_none());
    }
    let mut start = 0;
    if let Some(init) = setup.init {
        trees_after[0] = resume::replay(
            (init, setup.mappers),
            (&jobs, &units, &metrics, params),
            backend,
            (&mut models[0], &mut selection),
            (&mut evals, &mut history, &mut since_best),
            dynamic.as_mut(),
        )?;
        start = trees_after[0].len();
        first = 0;
    }
    // The shared start ends after its rounds, or at its first round whose
    // tree cannot split: that round runs the plan's jobs instead.
    let mut shared_ended = false;
    // A round whose trees cannot split ends the fit when they saw every row
    // and feature (the next round would see the same); a sampled round
    // only adds no tree, as the next sample may split.
    let sampled = params.subsample < 1.0
        || params.colsample_bytree.of(setup.splittable.len()) < setup.splittable.len();
    let boosted =
        (|| -> Result<()> {
            for round in start..params.n_estimators {
                interrupt::check(should_stop)?;
                let shared = shared_start
                    .as_ref()
                    .filter(|s| round < s.rounds && !shared_ended);
                let attempts: Vec<&[Job]> = match shared {
                    Some(s) => vec![std::slice::from_ref(&s.job), &jobs],
                    None => vec![&jobs],
                };
                let mut grew = false;
                // The round's trees (with their root scales), added to the
                // evaluation sets together and seen by the dynamic weights.
                let mut round_trees: Vec<(Job, Tree, f64)> = Vec::new();
                let mut splits = Vec::new();
                let weights = dynamic.as_ref().and_then(DynamicWeights::weights);
                for (attempt, round_jobs) in attempts.into_iter().enumerate() {
                    if attempt > 0 {
                        if grew {
                            break;
                        }
                        shared_ended = true;
                    }
                    // (The first round's gradients were computed for μ_max.)
                    if round >= first || attempt > 0 {
                        gradients_of(backend, &populations, round_jobs)?;
                    }
                    for (j, job) in round_jobs.iter().enumerate() {
                        interrupt::check(should_stop)?;
                        let pop = &populations[job.population];
                        let w = weights.as_deref();
                        let splittable = setup.splittable;
                        let (rows, features) =
                            tree_sample(params, (round, j), job, pop, splittable, &selection, w);
                        let mut view = selection.view(job.view);
                        let mut grown = backend.tree(job, rows, &features, &mut view)?;
                        if grown.tree.nodes.len() == 1 {
                            continue;
                        }
                        grew = true;
                        // A shared tree is in every model, and in each one's
                        // importances: the report lists it once per model, so
                        // that its running sums are the importances.
                        let copies = if job.model.is_some() { 1 } else { models.len() };
                        for _ in 0..copies {
                            splits.extend(
                                grown.tree.nodes.iter().filter(|n| !n.is_leaf).map(|n| {
                                    (n.feature as usize, units.gain_in_user_units(n.gain))
                                }),
                            );
                        }
                        grown.tree.output = job.output as u32;
                        backend.add_tree(job, &populations[job.population], &grown)?;
                        if !evals.is_empty() || dynamic.is_some() {
                            round_trees.push((*job, grown.tree.clone(), grown.root_scale));
                        }
                        match job.model {
                            Some(m) => models[m].push(grown, round)?,
                            None => {
                                for model in &mut models {
                                    model.push(grown.clone(), round)?;
                                }
                            }
                        }
                    }
                }
                if !grew && !sampled {
                    return Ok(());
                }
                // One loss per model and round (not per class tree: the softmax
                // loss costs K exponentials a row), given to the round's trees;
                // only when asked (a pass over the rows that nothing else needs).
                for (m, model) in models.iter_mut().enumerate() {
                    if params.record_train_loss && model.grew_since_loss() {
                        let p = model_population(&jobs, m);
                        let loss = backend.loss(p, &populations[p])?;
                        model.record_loss(|| loss)?;
                    }
                }
                for (m, model) in models.iter().enumerate() {
                    trees_after[m].push(model.n_trees());
                }
                let ended = RoundEnd {
                    round,
                    grew,
                    trees: &round_trees,
                    units: &units,
                    metrics: &metrics,
                    params,
                };
                let (eval, stop) =
                    ended.record(&mut evals, dynamic.as_mut(), &mut history, &mut since_best);
                let report = RoundReport {
                    round,
                    train_loss: mean_train_loss(&models, &populations, &jobs, &units),
                    eval,
                    n_features: selection.omega().used_in_order().len(),
                    elapsed: started.elapsed().as_secs_f64(),
                    splits,
                };
                if !observer(&report) || stop {
                    return Ok(());
                }
            }
            Ok(())
        })();
    let group_testing = backend.group_testing_info();
    if let Err(e) = boosted {
        if let (1, Some(&done)) = (models.len(), trees_after[0].last()) {
            let mut model = models.pop().expect("one model");
            model.truncate(done);
            *partial = model.finish(group_testing, &units).ok();
        }
        return Err(e);
    }
    // Without the rounds' losses, one loss per model at the end stands in
    // for their check: scores that overflowed (a learning rate far above 1)
    // give no split, and the fit would otherwise end quietly.
    if !params.record_train_loss {
        for (m, model) in models.iter().enumerate() {
            if model.n_trees() > 0 {
                let p = model_population(&jobs, m);
                model.check_final_loss(backend.loss(p, &populations[p])?)?;
            }
        }
    }
    // Early stopping keeps the trees up to the best round, and the dynamic
    // weights after it.
    let mut weights_of: fn(&DynamicWeights) -> Option<Vec<f64>> = DynamicWeights::weights;
    if params.early_stopping_rounds.is_some() {
        if let Some((best, _)) = history.best {
            for (m, model) in models.iter_mut().enumerate() {
                model.truncate(trees_after[m][best]);
            }
            weights_of = DynamicWeights::weights_at_best;
        }
    }
    let weights = sampling_probabilities(dynamic.as_ref().and_then(weights_of), d);
    let models = models
        .into_iter()
        .map(|m| {
            let mut model = m.finish(group_testing, &units)?;
            model.feature_weights = weights.clone();
            Ok(model)
        })
        .collect::<Result<_>>()?;
    Ok(Trained {
        models,
        selection,
        history,
    })
}

/// The gradients of the populations of `jobs`, each computed once.
fn gradients_of(
    backend: &mut dyn ScoresBackend,
    populations: &[Population],
    jobs: &[Job],
) -> Result<()> {
    let mut computed = vec![false; populations.len()];
    for job in jobs {
        if !std::mem::replace(&mut computed[job.population], true) {
            backend.gradients(job.population, &populations[job.population])?;
        }
    }
    Ok(())
}

/// The population whose rows model `m` is fitted on.
fn model_population(jobs: &[Job], m: usize) -> usize {
    jobs.iter()
        .find(|j| j.model == Some(m))
        .expect("a job")
        .population
}

/// The rows and features of job `j`'s tree in `round`: the sample drawn
/// from the job's own stream, less the features it may not split on.
fn tree_sample(
    params: &BoosterParams,
    (round, j): (usize, usize),
    job: &Job,
    pop: &Population,
    splittable: &[bool],
    selection: &Selection,
    weights: Option<&[f64]>,
) -> (Vec<u32>, Vec<usize>) {
    let mut rng = job_rng(params.seed, round, j);
    let d = splittable.len();
    let (positions, mut features) = draw_sample(
        &mut rng,
        pop.len(),
        d,
        pop.queries.as_deref(),
        params,
        weights,
    );
    features.retain(|&f| may_split(f, job, splittable, selection));
    (pop.rows_at(positions), features)
}

/// Whether job `job`'s trees may split on feature `f` at all.
fn may_split(f: usize, job: &Job, splittable: &[bool], selection: &Selection) -> bool {
    splittable[f] && selection.allows(job.view, f)
}

/// `weights` scaled to sum to 1; uniform when there are none (or none is
/// positive).
pub(crate) fn sampling_probabilities(weights: Option<Vec<f64>>, d: usize) -> Vec<f64> {
    let uniform = || vec![1.0 / d as f64; d];
    match weights {
        Some(w) => {
            let total: f64 = w.iter().sum();
            if total > 0.0 && total.is_finite() {
                w.iter().map(|v| v / total).collect()
            } else {
                uniform()
            }
        }
        None => uniform(),
    }
}

/// The models' latest training losses, in the user's units, weighted by
/// their rows.
fn mean_train_loss(
    models: &[ModelBuilder],
    populations: &[Population],
    jobs: &[Job],
    units: &Units,
) -> f64 {
    let (mut total, mut mass) = (0.0, 0.0);
    for (m, model) in models.iter().enumerate() {
        let Some(loss) = model.last_loss() else {
            continue;
        };
        let rows = jobs
            .iter()
            .find(|j| j.model == Some(m))
            .map_or(0, |j| populations[j.population].len()) as f64;
        total += rows * units.loss(loss);
        mass += rows;
    }
    if mass > 0.0 {
        total / mass
    } else {
        f64::NAN
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::booster::fit;
    use crate::objective::objective_for;
    use crate::params::PenaltyKind;
    use crate::rng::Rng;
    use crate::scores::update_scores;

    /// The single-output boosting loop as it was before the trainer
    /// (one tree per round, stop at the first round that cannot split),
    /// written out from the parts the trainer uses.
    fn reference_fit(data: &TrainingData, params: &BoosterParams) -> Model {
        let (n, d) = (data.n_rows(), data.n_features());
        let objective = objective_for(params);
        let units = Units::for_data(params.objective, data.y, data.weights);
        let (y, weights) = (units.targets(data.y), units.weights(data.weights));
        let targets = Targets {
            y: &y,
            weights: weights.as_deref(),
            queries: None,
        };
        let internal = units.internal_params(params);
        let binned = bin_training_data(data, params, &crate::interrupt::never).unwrap();
        let base = objective.init_scores(&targets)[0];
        let mut model = ModelBuilder::new(Model::new(params.objective, d, vec![base]), params);
        let mut raw = Array2::from_elem((1, n), base);
        let (mut grad, mut hess) = (Array2::zeros((1, n)), Array2::zeros((1, n)));
        let mut grower = LocalGrower::new(&binned, &internal, &crate::interrupt::never).unwrap();
        let mut selection = Selection::single(params, d, &units);
        for round in 0..params.n_estimators {
            objective.gradients(&targets, raw.view(), grad.view_mut(), hess.view_mut());
            let mut rng = Rng::derive(params.seed, round as u64);
            let (rows, features) = draw_sample(&mut rng, n, d, None, params, None);
            let (g, h) = (grad.row(0).to_vec(), hess.row(0).to_vec());
            let grown = grower
                .tree(&g, &h, rows, &features, &mut selection.view(0))
                .unwrap();
            if grown.tree.nodes.len() == 1 {
                break;
            }
            let out = raw.row_mut(0).into_slice().unwrap();
            update_scores(out, &grown, &binned, Rows::All, params.subsample < 1.0);
            model.push(grown, round).unwrap();
            model
                .record_loss(|| objective.loss(&targets, raw.view()))
                .unwrap();
        }
        let mut model = model.finish(grower.group_testing_info(), &units).unwrap();
        model.feature_weights = vec![1.0 / d as f64; d];
        model
    }

    #[test]
    fn one_job_per_round_equals_the_single_output_loop_bit_for_bit() {
        let mut rng = Rng::new(11);
        let (n, d) = (600, 12);
        let x: Vec<f64> = (0..n * d).map(|_| rng.next_f64()).collect();
        let y: Vec<f64> = (0..n)
            .map(|i| 3.0 * x[i * d] - 2.0 * x[i * d + 1] + 0.3 * rng.next_f64())
            .collect();
        let labels: Vec<f64> = y.iter().map(|&v| (v > 0.5) as u8 as f64).collect();
        let w: Vec<f64> = (0..n).map(|_| rng.next_f64() * 3.0).collect();
        let configs = [
            BoosterParams::plain(),
            BoosterParams {
                subsample: 0.6,
                colsample_bytree: crate::feature_sampling::FeatureCount::Fraction(0.8),
                penalty: PenaltyKind::Agbm,
                mu: 0.01,
                ..BoosterParams::plain()
            },
            BoosterParams {
                objective: ObjectiveKind::BinaryLogloss,
                penalty: PenaltyKind::Gbfs,
                mu: 0.5,
                max_leaves: 5,
                ..BoosterParams::plain()
            },
        ];
        for (c, params) in configs.iter().enumerate() {
            let params = BoosterParams {
                n_estimators: 25,
                n_threads: 2,
                seed: 5,
                record_train_loss: true,
                ..params.clone()
            };
            let targets = if params.objective == ObjectiveKind::BinaryLogloss {
                &labels
            } else {
                &y
            };
            let data = TrainingData {
                x: crate::matrix::FeatureMatrix::dense(&x, n, d),
                y: targets,
                weights: (c != 0).then_some(&w[..]),
                group_sizes: None,
            };
            let expected = crate::threads::install(2, || reference_fit(&data, &params)).unwrap();
            let got = fit(&data, &params, &crate::interrupt::never).unwrap();
            assert!(got.trees.len() > 5, "config {c}: {} trees", got.trees.len());
            assert_eq!(got, expected, "config {c}");
            // Without the loss, the same trees, and no losses.
            let unrecorded = BoosterParams {
                record_train_loss: false,
                ..params.clone()
            };
            let got = fit(&data, &unrecorded, &crate::interrupt::never).unwrap();
            assert!(got.train_loss.is_empty(), "config {c}");
            let expected = Model {
                train_loss: Vec::new(),
                ..expected
            };
            assert_eq!(got, expected, "config {c}");
        }
    }
}
