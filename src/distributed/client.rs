//! The client of a distributed fit: pools what must be global, then runs
//! the boosting rounds, asking the shards for sums (see the module docs of
//! [`crate::distributed`]).
//!
//! The rounds follow [`crate::trainer::train`] for one model with K
//! outputs (all K class trees of a round see the round's gradients; a
//! round that grows no tree ends the fit; early stopping watches the last
//! metric of the last evaluation set, which the client holds and scores
//! itself). Each tree is grown by the single machine's grower,
//! [`crate::grower::TreeGrower`], over the shards as its node source
//! ([`super::nodes`]).

use super::channel::{outputs, protocol_error, Channel, Traffic};
use super::group_search::ClientTests;
use super::nodes::ShardNodes;
use super::protocol::{Op, Output, SampleValues};
use super::transport::Transport;
use crate::binning::BinMapper;
use crate::booster::check_eval_set;
use crate::data::{query_ranges, validate_targets, TrainingData, MAX_FEATURES, MAX_ROWS};
use crate::error::{Result, SbError};
use crate::evaluation::{EvalSet, EvalState, RoundEnd};
use crate::feature_sampling::{draw, DynamicWeights, Fading, FeatureSampling};
use crate::grower::{GrownTree, TreeGrower};
use crate::interrupt::{self, ShouldStop};
use crate::matrix::FeatureMatrix;
use crate::metrics::Metric;
use crate::model::Model;
use crate::model_builder::ModelBuilder;
use crate::mu_max;
use crate::objective::{objective_for, Targets};
use crate::params::{BoosterParams, SplitSearch};
use crate::rng::Rng;
use crate::sampling::job_rng;
use crate::selection::Selection;
use crate::threads;
use crate::trainer::{metrics_for, sampling_probabilities, History, Job, Observer, RoundReport};
use crate::tree::Tree;
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
/// Row subsampling is not distributed yet: asking for it is an error.
/// `split_search="auto"` searches exhaustively.
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
    if params.subsample < 1.0 {
        return Err(SbError::InvalidParameter(format!(
            "subsample={:?}: row subsampling is not supported by distributed training yet",
            params.subsample
        )));
    }
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
/// at a time), and the global splittable flags from the pooled bin counts.
fn pooled_binning(
    channel: &mut Channel,
    params: &BoosterParams,
    pooled: &Pooled,
    should_stop: &ShouldStop,
) -> Result<(Vec<BinMapper>, Vec<bool>)> {
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
    let splittable = (0..d)
        .map(|f| {
            let total: Vec<u64> = (0..bins[f])
                .map(|b| counts.iter().map(|c| c[f][b]).sum())
                .collect();
            let occupied = total.iter().filter(|&&c| c > 0).count();
            let most = total.iter().copied().max().unwrap_or(0);
            occupied >= 2 && n as u64 - most >= params.min_samples_leaf as u64
        })
        .collect();
    Ok((mappers, splittable))
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
    let (mappers, splittable) = pooled_binning(channel, params, &pooled, should_stop)?;
    channel.all(vec![Op::Setup {
        splittable: splittable.clone(),
        units,
        base_scores: base.clone(),
    }])?;
    channel.boosting = true;
    channel.traffic.seconds.setup = started.elapsed().as_secs_f64();

    let metrics = metrics_for(params)?;
    let internal = units.internal_params(params);
    let mut evals: Vec<EvalState> = evals
        .iter()
        .map(|e| {
            EvalState::new(
                e,
                &mappers,
                std::slice::from_ref(&base),
                &units,
                should_stop,
            )
        })
        .collect::<Result<_>>()?;
    let mut model = ModelBuilder::new(Model::new(params.objective, d, base.clone()), params);
    let mut selection = Selection::single(params, d, &units);
    let mut history = History {
        metrics: metrics.iter().map(Metric::name).collect(),
        values: vec![vec![Vec::new(); metrics.len()]; evals.len()],
        ..History::default()
    };
    let mut dynamic = (params.feature_sampling == FeatureSampling::Dynamic).then(|| {
        let m = params.colsample_bytree.of(d);
        DynamicWeights::new(Fading::Boosting, params.reweight_rate, m, d)
    });
    let mut tests = None;
    let mut cache_bytes = 0;
    if params.split_search == SplitSearch::GroupTesting {
        let t = ClientTests::new(params, &splittable, n)?;
        let replies = channel.all(vec![t.request()])?;
        let bytes = outputs(&replies, 0, "its cache size", |o| match o {
            Output::CacheBytes(b) => Some(*b as usize),
            _ => None,
        })?;
        cache_bytes = bytes.iter().sum();
        tests = Some(t);
    }
    let group_testing = tests.is_some();
    let mut grower = TreeGrower::new(
        &mappers,
        &splittable,
        n,
        &internal,
        group_testing,
        should_stop,
    );

    let k = objective.n_outputs();
    let jobs: Vec<Job> = (0..k).map(|o| Job::of_model(0, o, 0)).collect();
    if init.is_some() && dynamic.is_some() {
        return Err(SbError::InvalidParameter(
            "a fit with feature_sampling='dynamic' cannot be resumed (its weights come from \
             root scales a model does not keep)"
                .into(),
        ));
    }
    // Job j's features in a round: the stream of the single-machine fit's
    // tree sample (which draws no rows without subsampling).
    let features = |round: usize, j: usize, selection: &Selection, weights: Option<&[f64]>| {
        let mut rng = job_rng(params.seed, round, j);
        let all: Vec<usize> = (0..d).collect();
        let mut features = draw(&mut rng, &all, params.colsample_bytree.of(d), weights);
        features.retain(|&f| splittable[f] && selection.allows(0, f));
        features
    };
    // μ_max from the first round's roots, at the base scores (before the
    // trees of a resumed fit are added).
    channel.pending.push(Op::Gradients);
    if selection.has_one_mu() {
        let weights = dynamic.as_ref().and_then(DynamicWeights::weights);
        let mut m = 0.0_f64;
        for j in 0..k {
            let f = features(0, j, &selection, weights.as_deref());
            let mut nodes = ShardNodes {
                channel,
                output: j,
                n_rows: n,
                mappers: &mappers,
                tests: tests.as_ref(),
            };
            let (scale, candidates) = grower.root_candidates(&mut nodes, &f)?;
            m = m.max(mu_max::of_root(
                &selection,
                internal.min_gain,
                scale,
                &candidates,
            ));
        }
        if params.mu_relative {
            selection.resolve_relative_mu(m);
        }
        history.mu_max = Some(mu_max::in_user_units(m, params, &units));
    }
    let mut trees_after = Vec::new();
    let mut since_best = 0;
    let mut start = 0;
    if let Some(init) = init {
        let rounds = resumed_rounds(init, &units);
        channel.pending.push(Op::AddTrees {
            trees: rounds.iter().flatten().map(|(t, _)| t.clone()).collect(),
        });
        for (round, trees) in rounds.into_iter().enumerate() {
            let loss = trees.last().map(|(_, l)| *l);
            let mut round_trees = Vec::new();
            for (tree, _) in trees {
                let mut view = selection.view(0);
                for node in split_order(&tree) {
                    view.commit(node.feature as usize);
                }
                round_trees.push((jobs[tree.output as usize], tree.clone(), 0.0));
                model.push(
                    GrownTree {
                        tree,
                        rows: Vec::new(),
                        leaves: Vec::new(),
                        root_scale: 0.0,
                    },
                    round,
                )?;
            }
            model.record_loss(|| loss.unwrap_or(f64::NAN))?;
            trees_after.push(model.n_trees());
            let ended = RoundEnd {
                round,
                trees: &round_trees,
                units: &units,
                metrics: &metrics,
                params,
            };
            ended.record(&mut evals, None, &mut history, &mut since_best);
            start = round + 1;
        }
    }
    // The rounds; on an error, the rounds completed go to `partial`.
    let boosted = (|| -> Result<()> {
        for round in start..params.n_estimators {
            interrupt::check(should_stop)?;
            if round > 0 {
                channel.pending.push(Op::Gradients);
            }
            let weights = dynamic.as_ref().and_then(DynamicWeights::weights);
            let mut round_trees: Vec<(Job, Tree, f64)> = Vec::new();
            for (j, job) in jobs.iter().enumerate() {
                interrupt::check(should_stop)?;
                let f = features(round, j, &selection, weights.as_deref());
                let mut nodes = ShardNodes {
                    channel,
                    output: j,
                    n_rows: n,
                    mappers: &mappers,
                    tests: tests.as_ref(),
                };
                let grown = grower.grow(&mut nodes, &f, &mut selection.view(0))?;
                let (mut tree, root_scale) = (grown.tree, grown.root_scale);
                if tree.nodes.len() == 1 {
                    continue;
                }
                tree.output = j as u32;
                channel.traffic.trees += 1;
                let leaves = tree.nodes.iter().enumerate().filter(|(_, n)| n.is_leaf);
                channel.pending.push(Op::AddLeaves {
                    output: j as u32,
                    leaves: leaves.map(|(i, n)| (i as u32, n.value)).collect(),
                });
                round_trees.push((*job, tree.clone(), root_scale));
                model.push(
                    GrownTree {
                        tree,
                        rows: Vec::new(),
                        leaves: Vec::new(),
                        root_scale,
                    },
                    round,
                )?;
            }
            if round_trees.is_empty() {
                return Ok(());
            }
            let replies = channel.all(vec![Op::Loss])?;
            let losses = outputs(&replies, 0, "a loss", |o| match o {
                Output::Loss { mean, mass } => Some((*mean, *mass)),
                _ => None,
            })?;
            model.record_loss(|| pooled_loss(&losses))?;
            trees_after.push(model.n_trees());
            let ended = RoundEnd {
                round,
                trees: &round_trees,
                units: &units,
                metrics: &metrics,
                params,
            };
            let (eval, stop) =
                ended.record(&mut evals, dynamic.as_mut(), &mut history, &mut since_best);
            let report = RoundReport {
                round,
                train_loss: model.last_loss().map_or(f64::NAN, |l| units.loss(l)),
                eval,
                n_features: selection.omega().used_in_order().len(),
                elapsed: started.elapsed().as_secs_f64(),
            };
            if !observer(&report) || stop {
                return Ok(());
            }
        }
        Ok(())
    })();
    let group_testing = tests.as_ref().map(|t| (t.n_subsets(), cache_bytes));
    if let Err(e) = boosted {
        if let Some(&done) = trees_after.last() {
            model.truncate(done);
            *partial = model.finish(group_testing, &units).ok();
        }
        return Err(e);
    }
    if params.early_stopping_rounds.is_some() {
        if let Some((best, _)) = history.best {
            model.truncate(trees_after[best]);
        }
    }
    let seconds = &mut channel.traffic.seconds;
    seconds.boosting = started.elapsed().as_secs_f64() - seconds.setup;
    let mut model = model.finish(group_testing, &units)?;
    let weights = dynamic.as_ref().and_then(DynamicWeights::weights);
    model.feature_weights = sampling_probabilities(weights, d);
    Ok((model, history, channel.traffic))
}

/// A resumed fit's rounds: `init`'s trees in the fit's units with their
/// training losses, grouped by the round each records (in files written
/// before trees recorded it, by increasing outputs: a guess that merges a
/// round whose class trees end early with the next one's).
fn resumed_rounds(init: &Model, units: &Units) -> Vec<Vec<(Tree, f64)>> {
    let mut rounds: Vec<Vec<(Tree, f64)>> = Vec::new();
    let mut last: Option<&Tree> = None;
    for (t, tree) in init.trees.iter().enumerate() {
        let mut tree = tree.clone();
        for node in &mut tree.nodes {
            node.value = units.from_output(node.value);
        }
        let loss = init
            .train_loss
            .get(t)
            .map_or(f64::NAN, |&l| units.from_loss(l));
        let new_round = match (last, tree.round) {
            (None, _) => true,
            (Some(previous), Some(round)) => previous.round != Some(round),
            (Some(previous), None) => tree.output <= previous.output,
        };
        if new_round {
            rounds.push(Vec::new());
        }
        last = Some(&init.trees[t]);
        rounds.last_mut().expect("a round").push((tree, loss));
    }
    rounds
}

/// A tree's internal nodes in the order their splits were made (each
/// split appends its two children, so by their children's positions).
fn split_order(tree: &Tree) -> Vec<&crate::tree::Node> {
    let mut internal: Vec<&crate::tree::Node> = tree.nodes.iter().filter(|n| !n.is_leaf).collect();
    internal.sort_by_key(|n| n.left);
    internal
}

/// The mean loss over all shards: one shard's own mean, else the means
/// weighted by their mass.
fn pooled_loss(losses: &[(f64, f64)]) -> f64 {
    let nonempty: Vec<&(f64, f64)> = losses.iter().filter(|l| l.1 > 0.0).collect();
    match nonempty.as_slice() {
        [(mean, _)] => *mean,
        _ => {
            let mass: f64 = nonempty.iter().map(|l| l.1).sum();
            nonempty.iter().map(|l| l.0 * l.1).sum::<f64>() / mass
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::ObjectiveKind;
    use crate::tree::Node;

    fn model_of(trees: &[(Option<u32>, u32)]) -> Model {
        let mut model = Model::new(ObjectiveKind::MultiLogloss, 2, vec![0.0; 3]);
        for &(round, output) in trees {
            model.trees.push(Tree {
                output,
                round,
                nodes: vec![Node::leaf(0.5, 10)],
            });
            model.train_loss.push(1.0);
        }
        model
    }

    fn outputs_by_round(model: &Model) -> Vec<Vec<u32>> {
        let units = Units::for_data(ObjectiveKind::MultiLogloss, &[0.0, 1.0, 2.0], None);
        resumed_rounds(model, &units)
            .iter()
            .map(|r| r.iter().map(|(t, _)| t.output).collect())
            .collect()
    }

    #[test]
    fn resumed_rounds_follow_the_recorded_rounds() {
        // Round 0 grew classes 0 and 1 (class 2 could not split), round 1
        // only class 2: the outputs alone would merge them into one round.
        let recorded = model_of(&[(Some(0), 0), (Some(0), 1), (Some(1), 2), (Some(2), 0)]);
        assert_eq!(
            outputs_by_round(&recorded),
            vec![vec![0, 1], vec![2], vec![0]]
        );
        // Files without rounds fall back to increasing outputs.
        let old = model_of(&[(None, 0), (None, 1), (None, 2), (None, 0)]);
        assert_eq!(outputs_by_round(&old), vec![vec![0, 1, 2], vec![0]]);
    }
}
