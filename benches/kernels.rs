//! Criterion benchmarks of the engine's kernels, with sizes as parameters:
//! binning a matrix, building a node's histogram, and finding a node's best
//! split, GT-GBM's prefix-sum cache and group tests, and a round's costs
//! outside the split search (the reported loss, partitioning a node's
//! rows). Run with `cargo bench --bench kernels` (or `-- group_testing` for
//! one group).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use sparseboost::binning::{bin_matrix, BinnedData};
use sparseboost::group_testing::{
    candidate_features, draw_planned, draw_subsets, Excluded, GroupTestNode, PrefixCache,
};
use sparseboost::histogram::{HistLayout, Histogram, NodeGradients, NodeRows, RowSlots};
use sparseboost::interrupt::never;
use sparseboost::objective::{BinaryLogloss, Objective, PerRow, Targets};
use sparseboost::partition::partition_segment;
use sparseboost::rng::Rng;
use sparseboost::split::{best_split_of_feature, split_candidates, NodeStats, SplitConstraints};
use std::hint::black_box;

fn uniform(n: usize, d: usize, seed: u64) -> Vec<f64> {
    let mut rng = Rng::new(seed);
    (0..n * d).map(|_| rng.next_f64()).collect()
}

fn binned(n: usize, d: usize) -> BinnedData {
    bin_matrix(&uniform(n, d, 1), n, d, 255, 200_000, 0, &never).unwrap()
}

/// Mostly-zero features (`zeros` of the values, as in one-hot or count
/// data): most rows of a node fall in one bin. At 70% zeros the columns are
/// stored dense; at 97% sparse (their histograms read the stored rows).
fn binned_zeros(n: usize, d: usize, zeros: f64) -> BinnedData {
    let x: Vec<f64> = uniform(n, d, 1)
        .into_iter()
        .map(|v| if v < zeros { 0.0 } else { v })
        .collect();
    bin_matrix(&x, n, d, 255, 200_000, 0, &never).unwrap()
}

/// A node of every `stride`-th row, with its gathered (gradient, hessian) pairs.
fn node(n: usize, stride: usize) -> (Vec<u32>, Vec<[f64; 2]>) {
    let rows: Vec<u32> = (0..n as u32).step_by(stride).collect();
    let mut rng = Rng::new(2);
    let pairs = rows
        .iter()
        .map(|_| [rng.next_f64() - 0.5, 0.1 + rng.next_f64()])
        .collect();
    (rows, pairs)
}

fn binning(c: &mut Criterion) {
    let mut group = c.benchmark_group("bin_matrix");
    group.sample_size(10);
    for (n, d) in [(100_000, 100), (6_000, 5_000)] {
        let x = uniform(n, d, 1);
        group.throughput(Throughput::Elements((n * d) as u64));
        group.bench_with_input(
            BenchmarkId::from_parameter(format!("{n}x{d}")),
            &x,
            |b, x| b.iter(|| bin_matrix(black_box(x), n, d, 255, 200_000, 0, &never).unwrap()),
        );
    }
    group.finish();
}

fn histogram(c: &mut Criterion) {
    let mut group = c.benchmark_group("histogram_build");
    group.sample_size(10);
    for (n, d, stride, zeros) in [
        (100_000, 100, 1, 0.0),
        (100_000, 100, 8, 0.0),
        (6_000, 5_000, 1, 0.0),
        (6_000, 5_000, 16, 0.0),
        (100_000, 100, 1, 0.7),
        (3_000, 300, 1, 0.7),
        (100_000, 100, 1, 0.97),
        (6_000, 5_000, 16, 0.97),
    ] {
        let data = if zeros > 0.0 {
            binned_zeros(n, d, zeros)
        } else {
            binned(n, d)
        };
        let layout = HistLayout::new(&data);
        let features: Vec<usize> = (0..d).collect();
        let (rows, pairs) = node(n, stride);
        let mut hist = Histogram::zeros(&layout);
        group.throughput(Throughput::Elements((rows.len() * d) as u64));
        let kind = match zeros {
            0.0 => String::new(),
            z => format!("/{:.0}%-zero", z * 100.0),
        };
        let id = format!("{n}x{d}/rows={}{kind}", rows.len());
        let mut slots = RowSlots::default();
        group.bench_function(BenchmarkId::from_parameter(id), |b| {
            b.iter(|| {
                let grads = NodeGradients::Pairs(&pairs);
                let rows = black_box(&rows);
                let slots = Some(slots.mark(data.n_rows, rows, grads));
                hist.build(&layout, &data, &features, NodeRows { rows, grads, slots })
            })
        });
    }
    group.finish();
}

fn split_finding(c: &mut Criterion) {
    let mut group = c.benchmark_group("split_candidates");
    group.sample_size(10);
    for (n, d, stride) in [(100_000, 100, 1), (6_000, 5_000, 1), (6_000, 5_000, 16)] {
        let data = binned(n, d);
        let layout = HistLayout::new(&data);
        let features: Vec<usize> = (0..d).collect();
        let (rows, pairs) = node(n, stride);
        let mut hist = Histogram::zeros(&layout);
        let grads = NodeGradients::Pairs(&pairs);
        let mut slots = RowSlots::default();
        let slots = Some(slots.mark(data.n_rows, &rows, grads));
        hist.build(
            &layout,
            &data,
            &features,
            NodeRows {
                rows: &rows,
                grads,
                slots,
            },
        );
        let parent = NodeStats {
            g: pairs.iter().map(|p| p[0]).sum(),
            h: pairs.iter().map(|p| p[1]).sum(),
            n: rows.len() as u32,
        };
        let constraints = SplitConstraints {
            min_samples_leaf: 20,
            min_child_weight: 1e-3,
            l2: 0.0,
            categorical: Default::default(),
        };
        if stride == 1 {
            // One feature's bins, in cache: the scan's own cost, without
            // memory traffic or threads.
            let bins = hist.feature(&layout, 0);
            let id = format!("one_feature/{}bins/rows={}", bins.len(), rows.len());
            group.throughput(Throughput::Elements(bins.len() as u64));
            group.bench_function(BenchmarkId::from_parameter(id), |b| {
                b.iter(|| best_split_of_feature(0, black_box(bins), parent, &constraints))
            });
        }
        group.throughput(Throughput::Elements(layout.total_bins() as u64));
        let id = format!("{n}x{d}/rows={}", rows.len());
        group.bench_function(BenchmarkId::from_parameter(id), |b| {
            b.iter(|| {
                let mappers = &data.mappers;
                split_candidates(
                    &hist,
                    &layout,
                    mappers,
                    &features,
                    black_box(parent),
                    &constraints,
                )
            })
        });
    }
    group.finish();
}

/// GT-GBM: building the prefix-sum cache, and one root node's group tests
/// (the candidate set of every subset), for several (n, d, s).
fn group_testing(c: &mut Criterion) {
    let mut group = c.benchmark_group("group_testing");
    group.sample_size(10);
    for (n, d, s) in [(10_000, 1_000, 3), (6_000, 5_000, 3), (6_000, 5_000, 10)] {
        let data = binned(n, d);
        let subsets = draw_subsets(d, s, 0.1, 0).unwrap();
        let id = format!("{n}x{d}/s={s}");
        group.bench_function(BenchmarkId::new("cache_build", &id), |b| {
            b.iter(|| PrefixCache::build(&data, subsets.clone(), &never).unwrap())
        });
        let cache = PrefixCache::build(&data, subsets, &never).unwrap();
        let excluded = Excluded::new(&cache);
        let (rows, pairs) = node(n, 1);
        let stats = NodeStats {
            g: pairs.iter().map(|p| p[0]).sum(),
            h: pairs.iter().map(|p| p[1]).sum(),
            n: rows.len() as u32,
        };
        let root = GroupTestNode {
            data: &data,
            rows: &rows,
            grads: NodeGradients::Pairs(&pairs),
            stats,
            constraints: SplitConstraints {
                min_samples_leaf: 20,
                min_child_weight: 1e-3,
                l2: 0.0,
                categorical: Default::default(),
            },
            excluded: &excluded,
        };
        group.bench_function(BenchmarkId::new("root_candidates", &id), |b| {
            b.iter(|| candidate_features(&cache, black_box(&root), usize::MAX))
        });
        // The fit's own plan: on 6000 rows, subsets of 600 features, the
        // paper's p of them searched after each whole range's test.
        let (planned, n_searched) = draw_planned(n, d, s, 0.1, 0).unwrap();
        let planned = PrefixCache::build(&data, planned, &never).unwrap();
        let excluded = Excluded::new(&planned);
        let root = GroupTestNode {
            excluded: &excluded,
            ..root
        };
        let id = format!("{id}/p={}/searched={n_searched}", planned.subsets().len());
        group.bench_function(BenchmarkId::new("root_candidates_planned", &id), |b| {
            b.iter(|| candidate_features(&planned, black_box(&root), n_searched))
        });
    }
    group.finish();
}

/// The costs of a round outside the split search: the log-loss of every
/// row, and partitioning a node's rows by a split (half go left, at random:
/// the case a branch per row mispredicts).
fn round_costs(c: &mut Criterion) {
    let mut group = c.benchmark_group("round_costs");
    for n in [20_000, 200_000] {
        let raw: Vec<f64> = uniform(n, 1, 3).iter().map(|v| 8.0 * v - 4.0).collect();
        let y: Vec<f64> = uniform(n, 1, 4)
            .iter()
            .map(|v| (*v > 0.5) as u8 as f64)
            .collect();
        let scores = ndarray::ArrayView2::from_shape((1, n), &raw).unwrap();
        let targets = Targets {
            y: &y,
            weights: None,
            queries: None,
        };
        group.throughput(Throughput::Elements(n as u64));
        // A round's gradients alone, and with the training loss in the same
        // pass (as the trainer computes them: the loss costs the difference).
        let (mut grad, mut hess) = (
            ndarray::Array2::zeros((1, n)),
            ndarray::Array2::zeros((1, n)),
        );
        group.bench_function(BenchmarkId::new("logloss_gradients", n), |b| {
            b.iter(|| {
                PerRow(BinaryLogloss).gradients(
                    black_box(&targets),
                    scores,
                    grad.view_mut(),
                    hess.view_mut(),
                )
            })
        });
        group.bench_function(BenchmarkId::new("logloss_gradients_and_loss", n), |b| {
            b.iter(|| {
                PerRow(BinaryLogloss).gradients_and_loss(
                    black_box(&targets),
                    scores,
                    grad.view_mut(),
                    hess.view_mut(),
                )
            })
        });
        let left = uniform(n, 1, 5);
        let rows: Vec<u32> = (0..n as u32).collect();
        group.bench_function(BenchmarkId::new("partition", n), |b| {
            b.iter_batched_ref(
                || rows.clone(),
                |rows| partition_segment(black_box(rows), |_, r| left[r as usize] < 0.5),
                criterion::BatchSize::SmallInput,
            )
        });
    }
    group.finish();
}

criterion_group!(
    kernels,
    binning,
    histogram,
    split_finding,
    group_testing,
    round_costs
);
criterion_main!(kernels);
