//! The client of a distributed fit: pools what must be global (targets,
//! cut points, bin counts), sets the shards up, then runs the single
//! machine's boosting loop, [`crate::trainer::train`], over the shards as
//! its scores backend ([`super::scores`]), each tree grown by the single
//! machine's grower over the shards as its node source ([`super::nodes`]).
//! Evaluation sets are held and scored by the client.

use super::channel::{outputs, protocol_error, Channel, Traffic};
use super::group_search::ClientTests;
use super::protocol::{Op, Output, SampleValues};
use super::row_order::RowOrder;
use super::scores::ShardScores;
use super::transport::Transport;
use crate::binning::{BinMapper, Shape};
use crate::booster;
use crate::data::{validate_targets, TrainingData, MAX_FEATURES, MAX_ROWS};
use crate::error::{Result, SbError};
use crate::evaluation::EvalSet;
use crate::group_testing::DataShape;
use crate::grower::TreeGrower;
use crate::interrupt::{self, ShouldStop};
use crate::matrix::FeatureMatrix;
use crate::model::Model;
use crate::multitask::{self, validate_tasks, MultiTaskModel, MultiTaskParams};
use crate::objective::objective_for;
use crate::params::{BoosterParams, SplitSearch};
use crate::rng::Rng;
use crate::threads;
use crate::trainer::{self, History, Observer, Setup};
use crate::units::Units;
use rayon::prelude::*;
use std::time::Instant;

/// Fit one model on the shards behind `transport` (each holding some rows;
/// shard order is row order). `evals` are held by the client. Returns the
/// model, its evaluation history and what moved.
///
/// `init`: a model of rounds grown before (by a fit with the same
/// parameters on the same rows, which failed): its trees are added to the
/// shards' scores, Ω and the evaluation history are replayed from them, and
/// boosting goes on from the next round, as the fit would have. When a fit
/// fails during boosting, `partial` receives the model of the rounds it
/// completed (if any), to resume from.
pub fn fit_sharded(
    params: &BoosterParams,
    transport: &mut dyn Transport,
    evals: &[EvalSet],
    init: Option<&Model>,
    partial: &mut Option<Model>,
    should_stop: &ShouldStop,
    observer: &mut Observer,
) -> Result<(Model, History, Traffic)> {
    let what = Sharded::Model { init, partial };
    match start(params, what, transport, evals, should_stop, observer)? {
        (Fitted::Model(model), history, traffic) => Ok((model, history, traffic)),
        _ => unreachable!("a one-model fit"),
    }
}

/// [`crate::multitask::fit_multitask_with`] on the shards behind
/// `transport`, whose rows carry their tasks (in `0..n_tasks`; see
/// [`super::Shard::with_tasks`]); `evals` are held by the client.
pub fn fit_sharded_multitask(
    params: &BoosterParams,
    mt: &MultiTaskParams,
    n_tasks: usize,
    transport: &mut dyn Transport,
    evals: &[EvalSet],
    should_stop: &ShouldStop,
    observer: &mut Observer,
) -> Result<(MultiTaskModel, History, Traffic)> {
    let what = Sharded::MultiTask { mt, n_tasks };
    match start(params, what, transport, evals, should_stop, observer)? {
        (Fitted::MultiTask(model), history, traffic) => Ok((model, history, traffic)),
        _ => unreachable!("a multitask fit"),
    }
}

/// What a sharded fit grows: the plan the pooled targets make.
enum Sharded<'a> {
    /// One model ([`fit_sharded`]).
    Model {
        init: Option<&'a Model>,
        partial: &'a mut Option<Model>,
    },
    /// One model per task ([`fit_sharded_multitask`]).
    MultiTask {
        mt: &'a MultiTaskParams,
        n_tasks: usize,
    },
}

/// What a sharded fit made, by [`Sharded`].
enum Fitted {
    Model(Model),
    MultiTask(MultiTaskModel),
}

fn start(
    params: &BoosterParams,
    what: Sharded,
    transport: &mut dyn Transport,
    evals: &[EvalSet],
    should_stop: &ShouldStop,
    observer: &mut Observer,
) -> Result<(Fitted, History, Traffic)> {
    params.validate()?;
    if transport.n_shards() == 0 {
        return Err(SbError::InvalidInput(
            "a distributed fit needs a shard".into(),
        ));
    }
    let mut channel = Channel {
        traffic: Traffic {
            shards: transport.n_shards(),
            ..Traffic::default()
        },
        transport,
        boosting: false,
        pending: Vec::new(),
    };
    let (fitted, history) = threads::install_own(params.n_threads, || {
        run(params, what, &mut channel, evals, should_stop, observer)
    })??;
    Ok((fitted, history, channel.traffic))
}

/// The targets pooled from every shard, in the data's row order, and
/// where each row is.
struct Pooled {
    order: RowOrder,
    n_features: usize,
    y: Vec<f64>,
    weights: Option<Vec<f64>>,
    group_sizes: Option<Vec<usize>>,
    task: Option<Vec<usize>>,
}

fn pool_targets(channel: &mut Channel) -> Result<Pooled> {
    let placed = channel.transport.shard_rows();
    let replies = channel.all(vec![Op::Describe, Op::Targets])?;
    let described = outputs(&replies, 0, "its shape", |o| match o {
        Output::Described {
            n_rows,
            n_features,
            n_queries,
        } => Some((*n_rows as usize, *n_features as usize, *n_queries as usize)),
        _ => None,
    })?;
    let d = described[0].1;
    if described.iter().any(|s| s.1 != d) {
        return Err(SbError::InvalidInput(
            "the shards' X do not have the same number of features".into(),
        ));
    }
    let targets = outputs(&replies, 1, "targets", |o| match o {
        Output::Targets {
            y,
            weights,
            group_sizes,
            task,
        } => Some((
            y.clone(),
            weights.clone(),
            group_sizes.clone(),
            task.clone(),
        )),
        _ => None,
    })?;
    let all_or_none = |count: usize| count == 0 || count == targets.len();
    let weighted = targets.iter().filter(|t| t.1.is_some()).count();
    let grouped = targets.iter().filter(|t| t.2.is_some()).count();
    let tasked = targets.iter().filter(|t| t.3.is_some()).count();
    if !all_or_none(weighted) || !all_or_none(grouped) || !all_or_none(tasked) {
        return Err(SbError::InvalidInput(
            "either every shard has sample weights (query groups, tasks) or none has".into(),
        ));
    }
    let rows_per_shard: Vec<usize> = described.iter().map(|s| s.0).collect();
    if targets
        .iter()
        .zip(&rows_per_shard)
        .any(|(t, &m)| t.0.len() != m)
    {
        return Err(protocol_error("targets of every row"));
    }
    let order = match placed {
        Some(rows) => RowOrder::placed(rows, &rows_per_shard)?,
        None => RowOrder::contiguous(&rows_per_shard),
    };
    // Each shard's parts (every shard has each or none has: checked above).
    let (mut ys, mut ws, mut gs, mut ts) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (y, w, g, t) in targets {
        ys.push(y);
        ws.extend(w);
        gs.extend(g.map(|g| g.iter().map(|&s| s as usize).collect::<Vec<_>>()));
        ts.extend(t.map(|t| t.iter().map(|&t| t as usize).collect::<Vec<_>>()));
    }
    Ok(Pooled {
        n_features: d,
        y: order.gather(&ys),
        weights: (weighted > 0).then(|| order.gather(&ws)),
        group_sizes: (grouped > 0).then(|| order.gather_queries(&gs)),
        task: (tasked > 0).then(|| order.gather(&ts)),
        order,
    })
}

/// The cut points of every feature, from the rows a single-machine fit of
/// all rows would sample (gathered from their shards, a block of features
/// at a time), and, from the pooled bin counts, the global splittable
/// flags and the data's shape (for `split_search="auto"`).
fn pooled_binning(
    channel: &mut Channel,
    params: &BoosterParams,
    pooled: &Pooled,
    should_stop: &ShouldStop,
) -> Result<(Vec<BinMapper>, Vec<bool>, DataShape)> {
    let n = pooled.y.len();
    let d = pooled.n_features;
    let sample: Vec<u32> = if n > params.bin_sample_rows {
        let drawn = Rng::derive(params.seed, u64::MAX).sample_sorted(n, params.bin_sample_rows);
        drawn.into_iter().map(|r| r as u32).collect()
    } else {
        (0..n as u32).collect()
    };
    let local = pooled.order.split(&sample);
    // The sampled rows in the order of the shards' replies.
    let sample = pooled.order.concatenated(&local);
    // About 32 MB of float64 values per block.
    let width = ((1usize << 22) / sample.len().max(1)).clamp(1, d);
    let mut mappers = Vec::with_capacity(d);
    for lo in (0..d).step_by(width) {
        interrupt::check(should_stop)?;
        let hi = (lo + width).min(d);
        let features = (lo as u32, hi as u32);
        let requests = local
            .iter()
            .map(|rows| {
                vec![Op::Sample {
                    rows: rows.clone(),
                    features,
                }]
            })
            .collect();
        let parts = outputs(&channel.each(requests)?, 0, "sample values", |o| match o {
            Output::Values(v) => Some(v.clone()),
            _ => None,
        })?;
        let width = hi - lo;
        // Cut points from the values in the shards' precision (float64 if
        // any shard's X is).
        let f32_only = parts.iter().all(|p| matches!(p, SampleValues::F32(_)));
        let fitted = if f32_only {
            let values: Vec<f32> = parts
                .into_iter()
                .flat_map(|p| match p {
                    SampleValues::F32(v) => v,
                    SampleValues::F64(_) => unreachable!("all float32"),
                })
                .collect();
            fit_block(&values, &sample, (lo, width), params.max_bins)?
        } else {
            let values: Vec<f64> = parts
                .into_iter()
                .flat_map(|p| match p {
                    SampleValues::F32(v) => v.into_iter().map(f64::from).collect(),
                    SampleValues::F64(v) => v,
                })
                .collect();
            fit_block(&values, &sample, (lo, width), params.max_bins)?
        };
        mappers.extend(fitted);
    }
    let bins: Vec<usize> = mappers.iter().map(BinMapper::n_bins).collect();
    let replies = channel.all(vec![Op::Bin {
        mappers: mappers.clone(),
        counts: (0, d as u32),
    }])?;
    let counts = outputs(&replies, 0, "bin counts", |o| match o {
        Output::BinCounts(c) if c.len() == d && c.iter().zip(&bins).all(|(c, &b)| c.len() == b) => {
            Some(c.clone())
        }
        _ => None,
    })?;
    // Bin by bin, the shards' counts of each feature, summed.
    let shapes: Vec<Shape> = (0..d)
        .map(|f| Shape::of_bin_counts((0..bins[f]).map(|b| counts.iter().map(|c| c[f][b]).sum())))
        .collect();
    let msl = params.min_samples_leaf;
    let splittable: Vec<bool> = shapes.iter().map(|s| s.can_split(n, msl)).collect();
    let shape = DataShape::of_shapes(n, &mappers, &splittable, &shapes);
    Ok((mappers, splittable, shape))
}

/// The cut points of a block of sampled rows (row-major, `width` features
/// from `first`; global row numbers `rows`), as a single-machine fit finds
/// them from the same rows: each feature's values (as float64) in row
/// order. Rejects ±inf as the single-machine binning does.
fn fit_block<T: Copy + Into<f64> + Sync>(
    values: &[T],
    rows: &[usize],
    (first, width): (usize, usize),
    max_bins: usize,
) -> Result<Vec<BinMapper>> {
    if values.len() != rows.len() * width {
        return Err(protocol_error("the sample rows asked for"));
    }
    (0..width)
        .into_par_iter()
        .map(|k| {
            let column: Vec<f64> = (0..rows.len())
                .map(|i| values[i * width + k].into())
                .collect();
            if let Some(i) = column.iter().position(|v| v.is_infinite()) {
                return Err(SbError::InvalidInput(format!(
                    "X contains an infinite value (row {}, feature {})",
                    rows[i],
                    first + k
                )));
            }
            Ok(BinMapper::fit(&column, max_bins))
        })
        .collect()
}

fn run(
    params: &BoosterParams,
    what: Sharded,
    channel: &mut Channel,
    evals: &[EvalSet],
    should_stop: &ShouldStop,
    observer: &mut Observer,
) -> Result<(Fitted, History)> {
    let started = Instant::now();
    let pooled = pool_targets(channel)?;
    let (n, d) = (pooled.y.len(), pooled.n_features);
    let bad = |m: String| Err(SbError::InvalidInput(m));
    if n == 0 {
        return bad("X has no rows".into());
    }
    if n > MAX_ROWS || d == 0 || d > MAX_FEATURES {
        return bad(format!(
            "X has {n} rows and {d} features, out of the supported range"
        ));
    }
    let (weights, groups) = (pooled.weights.as_deref(), pooled.group_sizes.as_deref());
    validate_targets(n, &pooled.y, weights, groups)?;
    let objective = objective_for(params);
    let as_data = TrainingData {
        x: FeatureMatrix::dense(&[], 0, d),
        y: &pooled.y,
        weights,
        group_sizes: groups,
    };
    let units = Units::for_data(params.objective, &pooled.y, weights);
    let setting = (params, objective.as_ref(), units);
    let multitask = matches!(what, Sharded::MultiTask { .. });
    let (plan, init, partial) = match what {
        Sharded::Model { init, partial } => {
            if pooled.task.is_some() {
                return bad("the shards hold tasks: fit them with a multitask fit".into());
            }
            booster::check_inputs(params, &as_data, objective.as_ref(), evals)?;
            let population = booster::population(&units, &pooled.y, weights, groups);
            let base = match init {
                None => objective.init_scores(&population.targets()),
                Some(init) => resumed_base(init, d, objective.n_outputs(), &units)?,
            };
            (
                booster::plan(setting, population, base, d, evals),
                init,
                Some(partial),
            )
        }
        Sharded::MultiTask { mt, n_tasks } => {
            let Some(task) = pooled.task.as_deref() else {
                return bad("a multitask fit needs the shards' tasks".into());
            };
            validate_tasks(task, n_tasks, weights, n)?;
            multitask::check_inputs(params, mt, &as_data, n_tasks, objective.as_ref(), evals)?;
            let targets = (&pooled.y[..], weights, task);
            (
                multitask::plan(setting, mt, targets, (n_tasks, d), evals),
                None,
                None,
            )
        }
    };
    let (mappers, splittable, shape) = pooled_binning(channel, params, &pooled, should_stop)?;
    channel.all(vec![Op::Setup {
        splittable: splittable.clone(),
        units,
        base_scores: plan.base_scores.clone(),
    }])?;
    channel.boosting = true;
    channel.traffic.seconds.setup = started.elapsed().as_secs_f64();

    let internal = units.internal_params(params);
    let mut tests = None;
    // "auto" chooses from the pooled bin counts as the single machine
    // chooses from its binned data.
    if params.split_search.resolve(&shape, &internal) == SplitSearch::GroupTesting {
        let t = ClientTests::new(params, &splittable, n)?;
        let replies = channel.all(vec![t.request()])?;
        let bytes = outputs(&replies, 0, "its cache size", |o| match o {
            Output::CacheBytes(b) => Some(*b as usize),
            _ => None,
        })?;
        tests = Some((t, bytes.iter().sum()));
    }
    let grower = TreeGrower::new(
        &mappers,
        &splittable,
        n,
        &internal,
        tests.is_some(),
        should_stop,
    );
    let setup = Setup {
        mappers: &mappers,
        splittable: &splittable,
        init,
        group_testing: tests.is_some(),
    };
    let mut backend = ShardScores {
        channel: &mut *channel,
        grower,
        mappers: &mappers,
        population_rows: plan.populations.iter().map(|p| p.y.len()).collect(),
        order: &pooled.order,
        tests,
        subsampled: params.subsample < 1.0,
    };
    let mut no_partial = None;
    let partial = partial.unwrap_or(&mut no_partial);
    let trained = trainer::train(plan, setup, &mut backend, partial, should_stop, observer)?;
    let seconds = &mut channel.traffic.seconds;
    seconds.boosting = started.elapsed().as_secs_f64() - seconds.setup;
    Ok(if multitask {
        let (model, history) = multitask::finish(trained, d);
        (Fitted::MultiTask(model), history)
    } else {
        let model = trained.models.into_iter().next().expect("one model");
        (Fitted::Model(model), trained.history)
    })
}

/// The base scores of a fit resumed from `init` (in the fit's units):
/// the model's own (shards in another order would sum the targets to one
/// a last bit apart).
fn resumed_base(init: &Model, d: usize, k: usize, units: &Units) -> Result<Vec<f64>> {
    if init.n_features != d || init.n_outputs != k {
        return Err(SbError::InvalidInput(format!(
            "init_model has {} features and {} outputs; this fit has {d} and {k}",
            init.n_features, init.n_outputs
        )));
    }
    Ok(init
        .base_score
        .iter()
        .map(|&b| units.from_output(b))
        .collect())
}
