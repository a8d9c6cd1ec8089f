//! The client of a distributed fit: pools what must be global (targets,
//! cut points, bin counts), sets the shards up, then runs the single
//! machine's boosting loop, [`crate::trainer::train`], over the shards as
//! its scores backend ([`super::scores`]), each tree grown by the single
//! machine's grower over the shards as its node source ([`super::nodes`]).
//! Evaluation sets are held and scored by the client.

use super::channel::{outputs, protocol_error, Channel, Traffic};
use super::group_search::ClientTests;
use super::protocol::{Op, Output, SampleValues};
use super::scores::ShardScores;
use super::transport::Transport;
use crate::binning::BinMapper;
use crate::booster::check_eval_set;
use crate::data::{query_ranges, validate_targets, TrainingData, MAX_FEATURES, MAX_ROWS};
use crate::error::{Result, SbError};
use crate::evaluation::EvalSet;
use crate::group_testing::DataShape;
use crate::grower::TreeGrower;
use crate::interrupt::{self, ShouldStop};
use crate::matrix::FeatureMatrix;
use crate::model::Model;
use crate::objective::{objective_for, Targets};
use crate::params::{BoosterParams, SplitSearch};
use crate::rng::Rng;
use crate::selection::Selection;
use crate::threads;
use crate::trainer::{self, History, Job, Observer, Plan, Population, Setup};
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
///
pub fn fit_sharded(
    params: &BoosterParams,
    transport: &mut dyn Transport,
    evals: &[EvalSet],
    init: Option<&Model>,
    partial: &mut Option<Model>,
    should_stop: &ShouldStop,
    observer: &mut Observer,
) -> Result<(Model, History, Traffic)> {
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
    threads::install_own(params.n_threads, || {
        run(
            params,
            &mut channel,
            evals,
            init,
            partial,
            should_stop,
            observer,
        )
    })?
}

/// The targets pooled from every shard, in row order.
struct Pooled {
    rows_per_shard: Vec<usize>,
    n_features: usize,
    y: Vec<f64>,
    weights: Option<Vec<f64>>,
    group_sizes: Option<Vec<usize>>,
}

fn pool_targets(channel: &mut Channel) -> Result<Pooled> {
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
        } => Some((y.clone(), weights.clone(), group_sizes.clone())),
        _ => None,
    })?;
    let weighted = targets.iter().filter(|t| t.1.is_some()).count();
    let grouped = targets.iter().filter(|t| t.2.is_some()).count();
    if (weighted != 0 && weighted != targets.len()) || (grouped != 0 && grouped != targets.len()) {
        return Err(SbError::InvalidInput(
            "either every shard has sample weights (query groups) or none has".into(),
        ));
    }
    let mut pooled = Pooled {
        rows_per_shard: described.iter().map(|s| s.0).collect(),
        n_features: d,
        y: Vec::new(),
        weights: (weighted > 0).then(Vec::new),
        group_sizes: (grouped > 0).then(Vec::new),
    };
    for (y, w, g) in targets {
        pooled.y.extend(y);
        if let (Some(all), Some(w)) = (&mut pooled.weights, w) {
            all.extend(w);
        }
        if let (Some(all), Some(g)) = (&mut pooled.group_sizes, g) {
            all.extend(g.iter().map(|&s| s as usize));
        }
    }
    Ok(pooled)
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
    let n: usize = pooled.rows_per_shard.iter().sum();
    let d = pooled.n_features;
    let sample: Vec<usize> = if n > params.bin_sample_rows {
        Rng::derive(params.seed, u64::MAX).sample_sorted(n, params.bin_sample_rows)
    } else {
        (0..n).collect()
    };
    let mut local: Vec<Vec<u32>> = Vec::new();
    let mut start = 0;
    for &m in &pooled.rows_per_shard {
        local.push(
            sample
                .iter()
                .filter(|&&r| (start..start + m).contains(&r))
                .map(|&r| (r - start) as u32)
                .collect(),
        );
        start += m;
    }
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
    let totals: Vec<Vec<u64>> = (0..d)
        .map(|f| {
            (0..bins[f])
                .map(|b| counts.iter().map(|c| c[f][b]).sum())
                .collect()
        })
        .collect();
    let splittable: Vec<bool> = totals
        .iter()
        .map(|total| {
            let occupied = total.iter().filter(|&&c| c > 0).count();
            let most = total.iter().copied().max().unwrap_or(0);
            occupied >= 2 && n as u64 - most >= params.min_samples_leaf as u64
        })
        .collect();
    let shape = DataShape::of_counts(n, &mappers, &splittable, &totals);
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
    channel: &mut Channel,
    evals: &[EvalSet],
    init: Option<&Model>,
    partial: &mut Option<Model>,
    should_stop: &ShouldStop,
    observer: &mut Observer,
) -> Result<(Model, History, Traffic)> {
    let started = Instant::now();
    let pooled = pool_targets(channel)?;
    let (n, d) = (
        pooled.rows_per_shard.iter().sum::<usize>(),
        pooled.n_features,
    );
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
    params.validate_for(d)?;
    let objective = objective_for(params);
    let queries = groups.map(query_ranges);
    let as_data = TrainingData {
        x: FeatureMatrix::dense(&[], 0, d),
        y: &pooled.y,
        weights,
        group_sizes: groups,
    };
    let user_targets = Targets {
        y: &pooled.y,
        weights,
        queries: queries.as_deref(),
    };
    objective.check_targets(&user_targets)?;
    for (s, eval) in evals.iter().enumerate() {
        check_eval_set(s, eval, &as_data, objective.as_ref())?;
    }
    let units = Units::for_data(params.objective, &pooled.y, weights);
    let (y, w) = (units.targets(&pooled.y), units.weights(weights));
    let mut base = objective.init_scores(&Targets {
        y: &y,
        weights: w.as_deref(),
        queries: queries.as_deref(),
    });
    if let Some(init) = init {
        if init.n_features != d || init.n_outputs != base.len() {
            return Err(SbError::InvalidInput(format!(
                "init_model has {} features and {} outputs; this fit has {d} and {}",
                init.n_features,
                init.n_outputs,
                base.len()
            )));
        }
        // The resumed fit keeps its base score (shards in another order
        // would sum the targets to one a last bit apart).
        base = init
            .base_score
            .iter()
            .map(|&b| units.from_output(b))
            .collect();
    }
    let (mappers, splittable, shape) = pooled_binning(channel, params, &pooled, should_stop)?;
    channel.all(vec![Op::Setup {
        splittable: splittable.clone(),
        units,
        base_scores: base.clone(),
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
    let k = objective.n_outputs();
    let plan = Plan {
        n_features: d,
        params,
        objective: objective.as_ref(),
        units,
        populations: vec![Population {
            rows: None,
            y,
            weights: w,
            queries,
        }],
        jobs: (0..k).map(|o| Job::of_model(0, o, 0)).collect(),
        base_scores: vec![base],
        selection: Selection::single(params, d, &units),
        evals,
        shared_start: None,
    };
    let setup = Setup {
        mappers: &mappers,
        splittable: &splittable,
        init,
    };
    let starts = std::iter::once(0)
        .chain(pooled.rows_per_shard.iter().scan(0, |end, &m| {
            *end += m;
            Some(*end)
        }))
        .collect();
    let mut backend = ShardScores {
        channel: &mut *channel,
        grower,
        mappers: &mappers,
        n_rows: n,
        starts,
        tests,
        subsampled: params.subsample < 1.0,
    };
    let trained = trainer::train(plan, setup, &mut backend, partial, should_stop, observer)?;
    let seconds = &mut channel.traffic.seconds;
    seconds.boosting = started.elapsed().as_secs_f64() - seconds.setup;
    let model = trained.models.into_iter().next().expect("one model");
    Ok((model, trained.history, channel.traffic))
}
