//! One shard of a distributed fit: some rows of the training set (whole
//! queries for ranking; with their tasks, multitask), binned with the
//! client's cut points, with their targets, scores and gradients (kept by
//! the single machine's [`RowScores`]) and the positions of the current
//! tree's rows by node. It answers the client's requests with additive statistics and
//! decides nothing: every choice is in the request.
//!
//! The feature matrix is not kept here but passed to each call, since its
//! owner (numpy, a Dask worker's partition) outlives the shard's calls; it
//! is read only while binning and sampling.

use super::packed::pack;
use super::protocol::{Op, Output, Reply, Request, SampleValues};
use super::shard_tests::{tested_rows, ShardTests, TestRange};
use crate::binning::{bin_features_given, BinnedData};
use crate::data::query_ranges;
use crate::error::{Result, SbError};
use crate::grower::{root_sums, NodeBuffers};
use crate::histogram::{HistBin, HistLayout, Histogram};
use crate::interrupt::ShouldStop;
use crate::matrix::{FeatureMatrix, Layout, Values};
use crate::model::check_tree;
use crate::objective::{objective_for, Objective};
use crate::params::BoosterParams;
use crate::routing::{partition_split, BinSet};
use crate::split::NodeStats;
use crate::threads;
use crate::trainer::row_scores::RowScores;
use crate::trainer::Population;
use crate::units::Units;
use std::ops::Range;

/// A shard's state between requests.
pub struct Shard {
    params: BoosterParams,
    n_rows: usize,
    n_features: usize,
    /// Labels, weights and query sizes as given (the user's units).
    y: Vec<f64>,
    weights: Option<Vec<f64>>,
    group_sizes: Option<Vec<usize>>,
    /// Multitask: each row's task.
    task: Option<Vec<u32>>,
    fitting: Option<Fitting>,
}

/// What exists once the shard is binned and set up.
struct Fitting {
    binned: BinnedData,
    /// The populations of the fit's plan, as the shard's rows (see
    /// [`Op::Setup`]), their targets in the fit's units.
    populations: Vec<Population>,
    /// (K, n) raw scores, gradients and hessians.
    scores: RowScores,
    /// The current tree: its output, its rows grouped by node, and each
    /// node's `(begin, count)` in them.
    output: usize,
    rows: Vec<u32>,
    segments: Vec<(usize, usize)>,
    /// The hessian of the current output's rows, when all are equal.
    constant_hess: Option<f64>,
    buffers: NodeBuffers,
    /// The last histogram's bins (reused).
    hist_buf: Vec<HistBin>,
    /// Group testing's cache, once asked for.
    tests: Option<ShardTests>,
}

impl Shard {
    /// A shard of `n_rows` rows of `n_features` features with these
    /// targets, for a fit with `params`.
    pub fn new(
        params: BoosterParams,
        n_rows: usize,
        n_features: usize,
        y: Vec<f64>,
        weights: Option<Vec<f64>>,
        group_sizes: Option<Vec<usize>>,
    ) -> Result<Shard> {
        params.validate()?;
        let bad = |m: String| Err(SbError::InvalidInput(m));
        if y.len() != n_rows {
            return bad(format!("y has {} values but X has {n_rows} rows", y.len()));
        }
        if weights.as_ref().is_some_and(|w| w.len() != n_rows) {
            return bad(format!("sample_weight does not have {n_rows} values"));
        }
        if let Some(sizes) = &group_sizes {
            if sizes.iter().sum::<usize>() != n_rows || sizes.contains(&0) {
                return bad(format!(
                    "a shard's query sizes must be positive and sum to its {n_rows} rows"
                ));
            }
        }
        Ok(Shard {
            params,
            n_rows,
            n_features,
            y,
            weights,
            group_sizes,
            task: None,
            fitting: None,
        })
    }

    /// The same shard for a multitask fit: `task` holds each row's task.
    pub fn with_tasks(mut self, task: Vec<u32>) -> Result<Shard> {
        if task.len() != self.n_rows {
            return Err(SbError::InvalidInput(format!(
                "task has {} labels but X has {} rows",
                task.len(),
                self.n_rows
            )));
        }
        if self.group_sizes.is_some() {
            return Err(SbError::InvalidInput(
                "a multitask shard takes no query groups".into(),
            ));
        }
        self.task = Some(task);
        Ok(self)
    }

    /// Run `request` on these rows (`x` is the shard's feature matrix),
    /// on the fit's thread pool.
    pub fn handle(
        &mut self,
        x: &FeatureMatrix,
        request: Request,
        should_stop: &ShouldStop,
    ) -> Result<Reply> {
        if x.n_rows != self.n_rows || x.n_features != self.n_features {
            return Err(SbError::InvalidInput(format!(
                "the shard was made for {} x {} rows and features, got X of {} x {}",
                self.n_rows, self.n_features, x.n_rows, x.n_features
            )));
        }
        threads::install(self.params.n_threads, || {
            let mut reply = Vec::new();
            for op in request {
                if let Some(output) = self.run(x, op, should_stop)? {
                    reply.push(output);
                }
            }
            Ok(reply)
        })?
    }

    fn run(
        &mut self,
        x: &FeatureMatrix,
        op: Op,
        should_stop: &ShouldStop,
    ) -> Result<Option<Output>> {
        let objective: &dyn Objective = &*objective_for(&self.params);
        let out = match op {
            Op::Describe => Output::Described {
                n_rows: self.n_rows as u64,
                n_features: self.n_features as u64,
                n_queries: self.group_sizes.as_ref().map_or(0, |g| g.len() as u64),
            },
            Op::Targets => Output::Targets {
                y: self.y.clone(),
                weights: self.weights.clone(),
                group_sizes: self
                    .group_sizes
                    .as_ref()
                    .map(|g| g.iter().map(|&s| s as u64).collect()),
                task: self.task.clone(),
            },
            Op::Sample { rows, features } => Output::Values(sample(x, &rows, features)?),
            Op::Bin { mappers, counts } => {
                if mappers.len() != self.n_features {
                    return Err(SbError::InvalidInput(format!(
                        "{} cut point lists for {} features",
                        mappers.len(),
                        self.n_features
                    )));
                }
                let binned = bin_features_given(x, mappers, should_stop)?;
                self.fitting = Some(Fitting {
                    binned,
                    populations: Vec::new(),
                    scores: RowScores::new(objective.n_outputs(), self.n_rows),
                    output: 0,
                    rows: Vec::new(),
                    segments: Vec::new(),
                    constant_hess: None,
                    buffers: NodeBuffers::default(),
                    hist_buf: Vec::new(),
                    tests: None,
                });
                self.bin_counts(counts)?
            }
            Op::BinCounts(range) => self.bin_counts(range)?,
            Op::Setup {
                splittable,
                units,
                base_scores,
            } => {
                let k = objective.n_outputs();
                let models = if self.task.is_some() {
                    base_scores.len()
                } else {
                    1
                };
                let populations = self.populations(&units, models)?;
                let fit = self.fitting()?;
                if splittable.len() != fit.binned.n_features
                    || base_scores.len() != models
                    || base_scores.iter().any(|b| b.len() != k)
                {
                    return Err(SbError::InvalidInput("a malformed setup".into()));
                }
                fit.binned.set_splittable(splittable);
                // Population m is model m's rows (the last one, every row,
                // belongs to no single model of a multitask fit).
                for (base, population) in base_scores.iter().zip(&populations) {
                    for (o, &b) in base.iter().enumerate() {
                        fit.scores.fill(o, population, b);
                    }
                }
                fit.populations = populations;
                return Ok(None);
            }
            Op::Gradients { population: index } => {
                let fit = self.fitting()?;
                let population = population_of(&fit.populations, index)?;
                fit.scores.gradients(index as usize, objective, population);
                return Ok(None);
            }
            Op::Root {
                output,
                population,
                rows,
            } => self.fitting()?.root(output as usize, population, rows)?,
            Op::Split {
                node,
                feature,
                left_bins,
                left,
            } => {
                self.fitting()?.split(
                    node as usize,
                    feature as usize,
                    &left_bins,
                    left as usize,
                )?;
                return Ok(None);
            }
            Op::Histogram { node, features } => {
                self.fitting()?.histogram(node as usize, &features)?
            }
            Op::AddLeaves { output, leaves } => {
                self.fitting()?.add_leaves(output as usize, &leaves)?;
                return Ok(None);
            }
            Op::AddTrees { trees, population } => {
                let fit = self.fitting()?;
                let rows = match population {
                    Some(p) => population_of(&fit.populations, p)?.rows.as_deref(),
                    None => None,
                };
                for tree in &trees {
                    check_tree(tree, fit.binned.n_features).map_err(SbError::InvalidInput)?;
                    let output = tree.output as usize;
                    if output >= fit.scores.n_outputs() {
                        return Err(SbError::InvalidInput(format!("no output {output}")));
                    }
                    fit.scores.add_routed(tree, &fit.binned, rows);
                }
                return Ok(None);
            }
            Op::GroupTests { subsets } => {
                let fit = self.fitting()?;
                let tests = ShardTests::new(&fit.binned, subsets, should_stop)?;
                let bytes = tests.bytes();
                fit.tests = Some(tests);
                Output::CacheBytes(bytes)
            }
            Op::Exclude { features } => {
                self.fitting()?.tests_mut()?.exclude(&features);
                return Ok(None);
            }
            Op::Bounds {
                node,
                sample,
                ranges,
            } => self.fitting()?.bounds(node as usize, sample, &ranges)?,
            Op::PseudoHistograms {
                node,
                sample,
                ranges,
                bounds,
                n_values,
            } => self.fitting()?.pseudo_histograms(
                node as usize,
                sample,
                &ranges,
                &bounds,
                n_values,
            )?,
            Op::Loss { population: index } => {
                let fit = self.fitting()?;
                let population = population_of(&fit.populations, index)?;
                if population.y.is_empty() {
                    Output::Loss {
                        mean: 0.0,
                        mass: 0.0,
                    }
                } else {
                    let mass = match (&population.queries, &population.weights) {
                        (Some(q), _) => q.len() as f64,
                        (None, Some(w)) => w.iter().sum(),
                        (None, None) => population.y.len() as f64,
                    };
                    Output::Loss {
                        mean: fit.scores.loss(index as usize, objective, population),
                        mass,
                    }
                }
            }
        };
        Ok(Some(out))
    }

    fn fitting(&mut self) -> Result<&mut Fitting> {
        self.fitting.as_mut().ok_or_else(not_binned)
    }

    /// The populations of a fit of `models` models (in `units`): every row
    /// for one model; each task's rows and every row for one model per
    /// task.
    fn populations(&self, units: &Units, models: usize) -> Result<Vec<Population>> {
        let (y, weights) = (
            units.targets(&self.y),
            units.weights(self.weights.as_deref()),
        );
        let mut populations = Vec::new();
        if let Some(task) = &self.task {
            if let Some(t) = task.iter().find(|&&t| t as usize >= models) {
                return Err(SbError::InvalidInput(format!(
                    "a row has task {t}, expected a task in 0..{models}"
                )));
            }
            for t in 0..models as u32 {
                let rows: Vec<u32> = (0..self.n_rows as u32)
                    .filter(|&r| task[r as usize] == t)
                    .collect();
                let gather = |v: &[f64]| rows.iter().map(|&r| v[r as usize]).collect::<Vec<_>>();
                populations.push(Population {
                    y: gather(&y),
                    weights: weights.as_deref().map(gather),
                    queries: None,
                    rows: Some(rows),
                });
            }
        }
        populations.push(Population {
            rows: None,
            y,
            weights,
            queries: self.group_sizes.as_deref().map(query_ranges),
        });
        Ok(populations)
    }

    fn bin_counts(&mut self, (lo, hi): (u32, u32)) -> Result<Output> {
        let fit = self.fitting()?;
        let range = feature_range(lo, hi, fit.binned.n_features)?;
        Ok(Output::BinCounts(
            range.map(|f| fit.binned.bin_counts(f)).collect(),
        ))
    }
}

impl Fitting {
    fn root(&mut self, output: usize, population: u32, rows: Option<Vec<u32>>) -> Result<Output> {
        if output >= self.scores.n_outputs() {
            return Err(SbError::InvalidInput(format!("no output {output}")));
        }
        let n = self.binned.n_rows;
        let rows = match (rows, &population_of(&self.populations, population)?.rows) {
            (Some(rows), _) => rows,
            (None, Some(rows)) => rows.clone(),
            (None, None) => (0..n as u32).collect(),
        };
        if rows.windows(2).any(|w| w[0] >= w[1]) || rows.last().is_some_and(|&r| r as usize >= n) {
            return Err(SbError::InvalidInput(format!(
                "a tree's rows must ascend within the shard's {n} rows"
            )));
        }
        self.output = output;
        self.segments = vec![(0, rows.len())];
        self.rows = rows;
        let (grad, hess) = self.scores.of_output(output);
        self.constant_hess = hess
            .first()
            .filter(|&&h0| hess.iter().all(|&h| h == h0))
            .copied();
        let (stats, scale) = root_sums(&self.rows, grad, hess);
        Ok(Output::Root {
            g: stats.g,
            h: stats.h,
            n: stats.n,
            scale,
        })
    }

    fn segment(&self, node: usize) -> Result<(usize, usize)> {
        self.segments
            .get(node)
            .copied()
            .filter(|&(b, c)| b != usize::MAX && c != usize::MAX)
            .ok_or_else(|| SbError::InvalidInput(format!("no node {node} in the current tree")))
    }

    fn split(
        &mut self,
        node: usize,
        feature: usize,
        left_bins: &BinSet,
        left: usize,
    ) -> Result<()> {
        let (begin, count) = self.segment(node)?;
        if feature >= self.binned.n_features || left > 1 << 20 {
            return Err(SbError::InvalidInput(format!(
                "a malformed split of node {node}"
            )));
        }
        let segment = &mut self.rows[begin..begin + count];
        let n_left = partition_split(segment, &self.binned, feature, left_bins);
        if self.segments.len() < left + 2 {
            self.segments.resize(left + 2, (usize::MAX, usize::MAX));
        }
        self.segments[left] = (begin, n_left);
        self.segments[left + 1] = (begin + n_left, count - n_left);
        Ok(())
    }

    fn histogram(&mut self, node: usize, features: &[u32]) -> Result<Output> {
        let (begin, count) = self.segment(node)?;
        let d = self.binned.n_features;
        let features: Vec<usize> = features.iter().map(|&f| f as usize).collect();
        let ascending = features.windows(2).all(|w| w[0] < w[1]);
        if !ascending
            || features
                .iter()
                .any(|&f| f >= d || !self.binned.splittable[f])
        {
            return Err(SbError::InvalidInput(
                "histogram features must be ascending splittable features".into(),
            ));
        }
        let layout = HistLayout::for_features(&self.binned, &features);
        // Every feature's bins are overwritten by the build: the buffer of
        // the last request is reused without zeroing.
        let mut bins = std::mem::take(&mut self.hist_buf);
        bins.resize(layout.total_bins(), HistBin::default());
        let mut hist = Histogram { bins };
        let rows = &self.rows[begin..begin + count];
        let (grad, hess) = self.scores.of_output(self.output);
        let node = self
            .buffers
            .gather(&self.binned, rows, grad, hess, self.constant_hess);
        hist.build(&layout, &self.binned, &features, node);
        let packed = pack(&hist.bins, self.constant_hess);
        self.hist_buf = hist.bins;
        Ok(Output::Histogram(packed))
    }

    fn tests_mut(&mut self) -> Result<&mut ShardTests> {
        self.tests
            .as_mut()
            .ok_or_else(|| SbError::InvalidInput("the shard has no group tests".into()))
    }

    /// `node`'s tested rows (see [`tested_rows`]) and their gradients.
    fn tested(
        &self,
        node: usize,
        sample: Option<(u64, u64)>,
    ) -> Result<(Vec<u32>, &[f64], &[f64])> {
        let (begin, count) = self.segment(node)?;
        let rows = tested_rows(&self.rows[begin..begin + count], sample);
        let (grad, hess) = self.scores.of_output(self.output);
        Ok((rows, grad, hess))
    }

    fn bounds(
        &mut self,
        node: usize,
        sample: Option<(u64, u64)>,
        ranges: &[TestRange],
    ) -> Result<Output> {
        let (rows, grad, hess) = self.tested(node, sample)?;
        let stats = NodeStats::of_rows(&rows, grad, hess);
        let tests = self.tests.as_mut().ok_or_else(no_tests)?;
        let bounds = tests.bounds(&rows, ranges)?;
        // A constant hessian is multiplied out, as the single-machine
        // sample does.
        let h = match self.constant_hess {
            Some(h) => f64::from(stats.n) * h,
            None => stats.h,
        };
        Ok(Output::Bounds {
            g: stats.g,
            h,
            n: stats.n,
            bounds,
        })
    }

    fn pseudo_histograms(
        &mut self,
        node: usize,
        sample: Option<(u64, u64)>,
        ranges: &[TestRange],
        bounds: &[(u64, u64)],
        n_values: u64,
    ) -> Result<Output> {
        let (rows, _, _) = self.tested(node, sample)?;
        let (grad, hess) = self.scores.of_output(self.output);
        let tests = self.tests.as_mut().ok_or_else(no_tests)?;
        let node = self
            .buffers
            .gather(&self.binned, &rows, grad, hess, self.constant_hess);
        let hist = tests.histograms(&rows, node.grads, ranges, bounds, n_values)?;
        Ok(Output::Histogram(pack(&hist, self.constant_hess)))
    }

    fn add_leaves(&mut self, output: usize, leaves: &[(u32, f64)]) -> Result<()> {
        if output >= self.scores.n_outputs() {
            return Err(SbError::InvalidInput(format!("no output {output}")));
        }
        for &(leaf, value) in leaves {
            let (begin, count) = self.segment(leaf as usize)?;
            let rows = &self.rows[begin..begin + count];
            self.scores.add_to_rows(output, rows, value);
        }
        Ok(())
    }
}

fn population_of(populations: &[Population], p: u32) -> Result<&Population> {
    populations
        .get(p as usize)
        .ok_or_else(|| SbError::InvalidInput(format!("no population {p}")))
}

fn no_tests() -> SbError {
    SbError::InvalidInput("the shard has no group tests".into())
}

fn not_binned() -> SbError {
    SbError::InvalidInput("the shard is not binned yet".into())
}

fn feature_range(lo: u32, hi: u32, d: usize) -> Result<Range<usize>> {
    let (lo, hi) = (lo as usize, hi as usize);
    if lo > hi || hi > d {
        return Err(SbError::InvalidInput(format!(
            "features {lo}..{hi} are not within the {d} features"
        )));
    }
    Ok(lo..hi)
}

/// Features `lo..hi` of `rows` of `x`, row-major, in `x`'s precision.
fn sample(x: &FeatureMatrix, rows: &[u32], (lo, hi): (u32, u32)) -> Result<SampleValues> {
    let features = feature_range(lo, hi, x.n_features)?;
    if rows.iter().any(|&r| r as usize >= x.n_rows) || rows.windows(2).any(|w| w[0] >= w[1]) {
        return Err(SbError::InvalidInput(
            "sample rows must be ascending rows of the shard".into(),
        ));
    }
    Ok(match x.values {
        Values::F64(v) => SampleValues::F64(fill_sample(x, v, rows, &features)),
        Values::F32(v) => SampleValues::F32(fill_sample(x, v, rows, &features)),
    })
}

fn fill_sample<T: Copy + Default + std::ops::AddAssign>(
    x: &FeatureMatrix,
    values: &[T],
    rows: &[u32],
    features: &Range<usize>,
) -> Vec<T> {
    let mut out = vec![T::default(); rows.len() * features.len()];
    let (d, width) = (x.n_features, features.len());
    match x.layout {
        Layout::Dense => {
            for (i, &r) in rows.iter().enumerate() {
                let row = &values[r as usize * d..(r as usize + 1) * d];
                for (o, v) in out[i * width..(i + 1) * width]
                    .iter_mut()
                    .zip(&row[features.clone()])
                {
                    *o = *v;
                }
            }
        }
        Layout::Csc(csc) => {
            for (j, f) in features.clone().enumerate() {
                let (start, end) = (csc.indptr[f] as usize, csc.indptr[f + 1] as usize);
                for (&r, &v) in csc.indices[start..end].iter().zip(&values[start..end]) {
                    if let Ok(i) = rows.binary_search(&(r as u32)) {
                        out[i * width + j] += v;
                    }
                }
            }
        }
        Layout::Csr(csr) => {
            for (i, &r) in rows.iter().enumerate() {
                let (start, end) = (
                    csr.indptr[r as usize] as usize,
                    csr.indptr[r as usize + 1] as usize,
                );
                for (&f, &v) in csr.indices[start..end].iter().zip(&values[start..end]) {
                    let f = f as usize;
                    if features.contains(&f) {
                        out[i * width + f - features.start] += v;
                    }
                }
            }
        }
    }
    out
}
