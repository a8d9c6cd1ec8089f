//! One shard of a distributed fit: some rows of the training set (whole
//! queries for ranking), binned with the client's cut points, with their
//! targets, scores, gradients and the positions of the current tree's rows
//! by node. It answers the client's requests with additive statistics and
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
use crate::grower::{row_scale_sum, NodeBuffers};
use crate::histogram::{HistBin, HistLayout, Histogram};
use crate::interrupt::ShouldStop;
use crate::matrix::{FeatureMatrix, Layout, Values};
use crate::model::check_tree;
use crate::objective::{objective_for, Objective, Targets};
use crate::params::BoosterParams;
use crate::routing::partition_split;
use crate::scores::tree_outputs;
use crate::split::NodeStats;
use crate::threads;
use ndarray::Array2;
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
    queries: Option<Vec<Range<usize>>>,
    fitting: Option<Fitting>,
}

/// What exists once the shard is binned and set up.
struct Fitting {
    binned: BinnedData,
    /// Targets and weights in the fit's units.
    y: Vec<f64>,
    weights: Option<Vec<f64>>,
    /// (K, n) raw scores, gradients and hessians.
    scores: Array2<f64>,
    grad: Array2<f64>,
    hess: Array2<f64>,
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
            queries: group_sizes.as_deref().map(query_ranges),
            y,
            weights,
            group_sizes,
            fitting: None,
        })
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
                let k = objective.n_outputs();
                let m = self.n_rows;
                self.fitting = Some(Fitting {
                    binned,
                    y: Vec::new(),
                    weights: None,
                    scores: Array2::zeros((k, m)),
                    grad: Array2::zeros((k, m)),
                    hess: Array2::zeros((k, m)),
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
                let (y, weights) = (
                    units.targets(&self.y),
                    units.weights(self.weights.as_deref()),
                );
                let fit = self.fitting()?;
                if splittable.len() != fit.binned.n_features || base_scores.len() != k {
                    return Err(SbError::InvalidInput("a malformed setup".into()));
                }
                fit.binned.set_splittable(splittable);
                (fit.y, fit.weights) = (y, weights);
                for (o, &b) in base_scores.iter().enumerate() {
                    fit.scores.row_mut(o).fill(b);
                }
                return Ok(None);
            }
            Op::Gradients => {
                let queries = self.queries.as_deref();
                let fit = self.fitting.as_mut().ok_or_else(not_binned)?;
                let targets = Targets {
                    y: &fit.y,
                    weights: fit.weights.as_deref(),
                    queries,
                };
                if !targets.is_empty() {
                    objective.gradients(
                        &targets,
                        fit.scores.view(),
                        fit.grad.view_mut(),
                        fit.hess.view_mut(),
                    );
                }
                return Ok(None);
            }
            Op::Root { output, rows } => self.fitting()?.root(output as usize, rows)?,
            Op::Split {
                node,
                feature,
                bin,
                default_left,
                left,
            } => {
                self.fitting()?.split(
                    node as usize,
                    feature as usize,
                    bin,
                    default_left,
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
            Op::AddTrees { trees } => {
                let fit = self.fitting()?;
                for tree in &trees {
                    check_tree(tree, fit.binned.n_features).map_err(SbError::InvalidInput)?;
                    let output = tree.output as usize;
                    if output >= fit.scores.nrows() {
                        return Err(SbError::InvalidInput(format!("no output {output}")));
                    }
                    let values = tree_outputs(tree, &fit.binned);
                    for (s, v) in fit.scores.row_mut(output).iter_mut().zip(values) {
                        *s += v;
                    }
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
            Op::Loss => {
                let queries = self.queries.as_deref();
                let fit = self.fitting.as_mut().ok_or_else(not_binned)?;
                let targets = Targets {
                    y: &fit.y,
                    weights: fit.weights.as_deref(),
                    queries,
                };
                if targets.is_empty() {
                    Output::Loss {
                        mean: 0.0,
                        mass: 0.0,
                    }
                } else {
                    let mass = match (queries, &fit.weights) {
                        (Some(q), _) => q.len() as f64,
                        (None, Some(w)) => w.iter().sum(),
                        (None, None) => fit.y.len() as f64,
                    };
                    Output::Loss {
                        mean: objective.loss(&targets, fit.scores.view()),
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

    fn bin_counts(&mut self, (lo, hi): (u32, u32)) -> Result<Output> {
        let fit = self.fitting()?;
        let range = feature_range(lo, hi, fit.binned.n_features)?;
        Ok(Output::BinCounts(
            range.map(|f| fit.binned.bin_counts(f)).collect(),
        ))
    }
}

impl Fitting {
    fn root(&mut self, output: usize, rows: Option<Vec<u32>>) -> Result<Output> {
        if output >= self.scores.nrows() {
            return Err(SbError::InvalidInput(format!("no output {output}")));
        }
        let n = self.binned.n_rows;
        let rows = rows.unwrap_or_else(|| (0..n as u32).collect());
        if rows.windows(2).any(|w| w[0] >= w[1]) || rows.last().is_some_and(|&r| r as usize >= n) {
            return Err(SbError::InvalidInput(format!(
                "a tree's rows must ascend within the shard's {n} rows"
            )));
        }
        self.output = output;
        self.segments = vec![(0, rows.len())];
        self.rows = rows;
        let (grad, hess) = (self.grad.row(output), self.hess.row(output));
        let (grad, hess) = (grad.to_slice().unwrap(), hess.to_slice().unwrap());
        self.constant_hess = hess
            .first()
            .filter(|&&h0| hess.iter().all(|&h| h == h0))
            .copied();
        let stats = NodeStats::of_rows(&self.rows, grad, hess);
        Ok(Output::Root {
            g: stats.g,
            h: stats.h,
            n: stats.n,
            scale: row_scale_sum(&self.rows, grad, hess),
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
        bin: u8,
        default_left: bool,
        left: usize,
    ) -> Result<()> {
        let (begin, count) = self.segment(node)?;
        if feature >= self.binned.n_features || left > 1 << 20 {
            return Err(SbError::InvalidInput(format!(
                "a malformed split of node {node}"
            )));
        }
        let segment = &mut self.rows[begin..begin + count];
        let n_left = partition_split(segment, &self.binned, feature, bin, default_left);
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
        let (grad, hess) = (self.grad.row(self.output), self.hess.row(self.output));
        let (grad, hess) = (grad.to_slice().unwrap(), hess.to_slice().unwrap());
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
        let (grad, hess) = (self.grad.row(self.output), self.hess.row(self.output));
        Ok((rows, grad.to_slice().unwrap(), hess.to_slice().unwrap()))
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
        let (grad, hess) = (self.grad.row(self.output), self.hess.row(self.output));
        let (grad, hess) = (grad.to_slice().unwrap(), hess.to_slice().unwrap());
        let tests = self.tests.as_mut().ok_or_else(no_tests)?;
        let node = self
            .buffers
            .gather(&self.binned, &rows, grad, hess, self.constant_hess);
        let hist = tests.histograms(&rows, node.grads, ranges, bounds, n_values)?;
        Ok(Output::Histogram(pack(&hist, self.constant_hess)))
    }

    fn add_leaves(&mut self, output: usize, leaves: &[(u32, f64)]) -> Result<()> {
        if output >= self.scores.nrows() {
            return Err(SbError::InvalidInput(format!("no output {output}")));
        }
        for &(leaf, value) in leaves {
            let (begin, count) = self.segment(leaf as usize)?;
            let mut scores = self.scores.row_mut(output);
            for &r in &self.rows[begin..begin + count] {
                scores[r as usize] += value;
            }
        }
        Ok(())
    }
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
