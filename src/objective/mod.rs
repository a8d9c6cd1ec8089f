//! Losses as gradient/hessian providers. One file per loss; the trainer only
//! sees the [`Objective`] trait.
//!
//! An objective maps the raw scores of a set of rows — K outputs per row, a
//! K×n array — to gradients and hessians of the same shape. The pointwise
//! losses (squared error, binary log-loss) define one row's derivatives
//! through [`Pointwise`] and get the rest from [`PerRow`]; softmax couples
//! the K outputs of a row, LambdaRank the rows of a query.

mod lambdarank;
mod logloss;
mod softmax;
mod squared_error;

pub use lambdarank::{LambdaRank, MAX_RELEVANCE};
pub use logloss::{sigmoid, BinaryLogloss, MIN_HESSIAN};
pub use softmax::Softmax;
pub use squared_error::{SquaredError, MAX_ABS_TARGET};

use crate::error::Result;
use crate::params::{BoosterParams, ObjectiveKind};
use ndarray::{ArrayView2, ArrayViewMut2, Axis};
use rayon::prelude::*;
use std::ops::Range;

/// The targets of a set of rows: labels, optional non-negative weights and,
/// for ranking, the queries as consecutive row ranges covering all rows.
#[derive(Debug, Clone, Copy)]
pub struct Targets<'a> {
    /// One label per row.
    pub y: &'a [f64],
    /// One weight per row, or `None` for all ones.
    pub weights: Option<&'a [f64]>,
    /// Query `q` is rows `queries[q]` (ranking only).
    pub queries: Option<&'a [Range<usize>]>,
}

impl Targets<'_> {
    /// Number of rows.
    pub fn len(&self) -> usize {
        self.y.len()
    }

    /// True without rows.
    pub fn is_empty(&self) -> bool {
        self.y.is_empty()
    }
}

/// A twice-differentiable loss of K raw scores per row (K =
/// [`Objective::n_outputs`]). Score arrays have shape (K, n).
pub trait Objective: Sync {
    /// K, the raw scores per row.
    fn n_outputs(&self) -> usize;

    /// Reject targets the loss is not defined for.
    fn check_targets(&self, targets: &Targets) -> Result<()>;

    /// The K constant raw scores that start the model (LightGBM's
    /// `boost_from_average`).
    fn init_scores(&self, targets: &Targets) -> Vec<f64>;

    /// `grad[k][i] = w_i ∂l/∂f_k` and `hess[k][i] = w_i ∂²l/∂f_k²` (the
    /// diagonal; boosting fits one tree per output) at `scores`.
    fn gradients(
        &self,
        targets: &Targets,
        scores: ArrayView2<f64>,
        grad: ArrayViewMut2<f64>,
        hess: ArrayViewMut2<f64>,
    );

    /// The mean loss (weighted when weights are given) for reporting, ≥ 0.
    fn loss(&self, targets: &Targets, scores: ArrayView2<f64>) -> f64;

    /// [`Objective::gradients`] and [`Objective::loss`] of the same scores,
    /// the same values as the two calls give. The trainer reports a round's
    /// loss from the scores the next round's gradients start from, so a loss
    /// that shares work with its derivatives (the log-loss's exponential)
    /// computes both in one pass.
    fn gradients_and_loss(
        &self,
        targets: &Targets,
        scores: ArrayView2<f64>,
        grad: ArrayViewMut2<f64>,
        hess: ArrayViewMut2<f64>,
    ) -> f64 {
        self.gradients(targets, scores, grad, hess);
        self.loss(targets, scores)
    }
}

/// A loss of one row's single raw score.
pub trait Pointwise: Sync {
    /// Reject labels the loss is not defined for.
    fn check_targets(&self, y: &[f64]) -> Result<()>;

    /// The constant raw score that minimises the weighted loss.
    fn init_score(&self, y: &[f64], weights: Option<&[f64]>) -> f64;

    /// `(∂l/∂f, ∂²l/∂f²)` of one row.
    fn derivatives(&self, y: f64, raw: f64) -> (f64, f64);

    /// `l(y, f)` of one row.
    fn row_loss(&self, y: f64, raw: f64) -> f64;

    /// `(g[i], h[i]) = derivatives(y[i], raw[i])` and
    /// `l[i] = row_loss(y[i], raw[i])`, bit for bit; a loss whose two share
    /// work overrides it.
    #[inline(always)]
    fn derivatives_and_losses(
        &self,
        y: &[f64],
        raw: &[f64],
        (g, h): (&mut [f64], &mut [f64]),
        l: &mut [f64],
    ) where
        Self: Sized,
    {
        for (i, (&t, &f)) in y.iter().zip(raw).enumerate() {
            (g[i], h[i]) = self.derivatives(t, f);
            l[i] = self.row_loss(t, f);
        }
    }
}

/// A [`Pointwise`] loss as a one-output [`Objective`]: weighting and the
/// parallel loops over rows are shared.
pub struct PerRow<P>(pub P);

impl<P: Pointwise> Objective for PerRow<P> {
    fn n_outputs(&self) -> usize {
        1
    }

    fn check_targets(&self, targets: &Targets) -> Result<()> {
        self.0.check_targets(targets.y)
    }

    fn init_scores(&self, targets: &Targets) -> Vec<f64> {
        vec![self.0.init_score(targets.y, targets.weights)]
    }

    fn gradients(
        &self,
        targets: &Targets,
        scores: ArrayView2<f64>,
        mut grad: ArrayViewMut2<f64>,
        mut hess: ArrayViewMut2<f64>,
    ) {
        let raw = row(&scores, 0);
        let grad = grad.row_mut(0).into_slice().expect("standard layout");
        let hess = hess.row_mut(0).into_slice().expect("standard layout");
        let (y, weights) = (targets.y, targets.weights);
        // In blocks under AVX2, as the fused pass with the loss: row by row
        // without AVX2, this pass took longer than the fused one, loss and
        // all (benches/train_loss_cost.py).
        grad.par_chunks_mut(LOSS_BLOCK)
            .zip(hess.par_chunks_mut(LOSS_BLOCK))
            .enumerate()
            .for_each(|(b, (g, h))| {
                let rows = b * LOSS_BLOCK..b * LOSS_BLOCK + g.len();
                derivatives(&self.0, &y[rows.clone()], &raw[rows.clone()], (g, h));
                if let Some(w) = weights {
                    for (k, &w) in w[rows].iter().enumerate() {
                        g[k] *= w;
                        h[k] *= w;
                    }
                }
            });
    }

    fn loss(&self, targets: &Targets, scores: ArrayView2<f64>) -> f64 {
        self.mean_loss(targets, row(&scores, 0), None)
    }

    fn gradients_and_loss(
        &self,
        targets: &Targets,
        scores: ArrayView2<f64>,
        mut grad: ArrayViewMut2<f64>,
        mut hess: ArrayViewMut2<f64>,
    ) -> f64 {
        let grad = grad.row_mut(0).into_slice().expect("standard layout");
        let hess = hess.row_mut(0).into_slice().expect("standard layout");
        self.mean_loss(targets, row(&scores, 0), Some((grad, hess)))
    }
}

impl<P: Pointwise> PerRow<P> {
    /// The mean loss at `raw` and, given `derivatives`, each row's weighted
    /// gradient and hessian into them, in one pass over the rows.
    fn mean_loss(
        &self,
        targets: &Targets,
        raw: &[f64],
        derivatives: Option<(&mut [f64], &mut [f64])>,
    ) -> f64 {
        let (y, weights) = (targets.y, targets.weights);
        // Blocks of rows in parallel, each summed in row order, the blocks'
        // sums added in block order: the same whatever the threads. Each
        // block sums the weighted and the plain losses (the plain mean is
        // the loss when the weights sum to 0, see [`weighted_mean`]).
        let block = |b: usize, mut out: Option<(&mut [f64], &mut [f64])>| {
            let (mut weighted, mut plain) = (0.0, 0.0);
            // The losses of a few rows first, then their sums: a loop
            // without a running sum vectorises.
            let mut losses = [0.0; 256];
            let begin = b * LOSS_BLOCK;
            let end = (begin + LOSS_BLOCK).min(y.len());
            for start in (begin..end).step_by(losses.len()) {
                let rows = start..(start + losses.len()).min(end);
                let losses = &mut losses[..rows.len()];
                let (y, raw) = (&y[rows.clone()], &raw[rows.clone()]);
                match out.as_mut() {
                    None => row_losses(&self.0, losses, y, raw),
                    Some((g, h)) => {
                        let local = rows.start - begin..rows.end - begin;
                        let (g, h) = (&mut g[local.clone()], &mut h[local]);
                        derivatives_and_losses(&self.0, y, raw, (g, h), losses);
                        if let Some(w) = weights {
                            for (k, &w) in w[rows.clone()].iter().enumerate() {
                                g[k] *= w;
                                h[k] *= w;
                            }
                        }
                    }
                }
                for (k, &l) in losses.iter().enumerate() {
                    plain += l;
                    if let Some(w) = weights {
                        weighted += w[start + k] * l;
                    }
                }
            }
            (weighted, plain)
        };
        let sums: Vec<(f64, f64)> = match derivatives {
            None => (0..y.len().div_ceil(LOSS_BLOCK))
                .into_par_iter()
                .map(|b| block(b, None))
                .collect(),
            Some((g, h)) => g
                .par_chunks_mut(LOSS_BLOCK)
                .zip(h.par_chunks_mut(LOSS_BLOCK))
                .enumerate()
                .map(|(b, (g, h))| block(b, Some((g, h))))
                .collect(),
        };
        let (weighted, plain) = sums
            .iter()
            .fold((0.0, 0.0), |(a, b), &(w, p)| (a + w, b + p));
        let mass: f64 = weights.map_or(0.0, |w| w.iter().sum());
        if y.is_empty() {
            0.0
        } else if weights.is_some() && mass > 0.0 {
            weighted / mass
        } else {
            plain / y.len() as f64
        }
    }
}

/// `out[i] = loss.row_loss(y[i], raw[i])`: with AVX2 where the CPU has it
/// (4 rows per instruction instead of 2; the same operations, so the same
/// values: Rust does not fuse multiplications and additions).
fn row_losses<P: Pointwise>(loss: &P, out: &mut [f64], y: &[f64], raw: &[f64]) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2 (checked just above).
        return unsafe { row_losses_avx2(loss, out, y, raw) };
    }
    row_losses_any(loss, out, y, raw)
}

#[inline(always)]
fn row_losses_any<P: Pointwise>(loss: &P, out: &mut [f64], y: &[f64], raw: &[f64]) {
    for ((l, &t), &f) in out.iter_mut().zip(y).zip(raw) {
        *l = loss.row_loss(t, f);
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn row_losses_avx2<P: Pointwise>(loss: &P, out: &mut [f64], y: &[f64], raw: &[f64]) {
    row_losses_any(loss, out, y, raw)
}

/// `(g[i], h[i]) = loss.derivatives(y[i], raw[i])`, with AVX2 where the CPU
/// has it (as [`row_losses`]).
fn derivatives<P: Pointwise>(loss: &P, y: &[f64], raw: &[f64], out: (&mut [f64], &mut [f64])) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2 (checked just above).
        return unsafe { derivatives_avx2(loss, y, raw, out) };
    }
    derivatives_any(loss, y, raw, out)
}

#[inline(always)]
fn derivatives_any<P: Pointwise>(
    loss: &P,
    y: &[f64],
    raw: &[f64],
    (g, h): (&mut [f64], &mut [f64]),
) {
    for (i, (&t, &f)) in y.iter().zip(raw).enumerate() {
        (g[i], h[i]) = loss.derivatives(t, f);
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn derivatives_avx2<P: Pointwise>(
    loss: &P,
    y: &[f64],
    raw: &[f64],
    out: (&mut [f64], &mut [f64]),
) {
    derivatives_any(loss, y, raw, out)
}

/// [`Pointwise::derivatives_and_losses`], with AVX2 where the CPU has it
/// (as [`row_losses`]).
fn derivatives_and_losses<P: Pointwise>(
    loss: &P,
    y: &[f64],
    raw: &[f64],
    out: (&mut [f64], &mut [f64]),
    l: &mut [f64],
) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2 (checked just above).
        return unsafe { derivatives_and_losses_avx2(loss, y, raw, out, l) };
    }
    loss.derivatives_and_losses(y, raw, out, l)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn derivatives_and_losses_avx2<P: Pointwise>(
    loss: &P,
    y: &[f64],
    raw: &[f64],
    out: (&mut [f64], &mut [f64]),
    l: &mut [f64],
) {
    loss.derivatives_and_losses(y, raw, out, l)
}

/// Rows per parallel block of a loss.
const LOSS_BLOCK: usize = 4096;

/// Output `k` of a (K, n) score array as a slice.
pub(crate) fn row<'a>(scores: &'a ArrayView2<f64>, k: usize) -> &'a [f64] {
    scores
        .index_axis(Axis(0), k)
        .to_slice()
        .expect("score arrays are in standard layout")
}

/// The objective `params` ask for (its configuration included).
pub fn objective_for(params: &BoosterParams) -> Box<dyn Objective> {
    match params.objective {
        ObjectiveKind::SquaredError => Box::new(PerRow(SquaredError)),
        ObjectiveKind::BinaryLogloss => Box::new(PerRow(BinaryLogloss)),
        ObjectiveKind::MultiLogloss => Box::new(Softmax::new(params.n_classes)),
        ObjectiveKind::LambdaRank => Box::new(LambdaRank::new(params.lambdarank_truncation_level)),
    }
}

/// Weighted mean of `v` (plain mean when `weights` is `None`, or when they
/// sum to 0: a multitask task whose weights all underflowed in the fit's
/// units must not get a NaN base score); 0 for no values.
pub(crate) fn weighted_mean(v: &[f64], weights: Option<&[f64]>) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    let total: f64 = weights.map_or(0.0, |w| w.iter().sum());
    match weights {
        Some(w) if total > 0.0 => v.iter().zip(w).map(|(a, b)| a * b).sum::<f64>() / total,
        _ => v.iter().sum::<f64>() / v.len() as f64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fused pass gives what the two separate ones give, bit for bit:
    /// several parallel blocks, a partial last chunk, weights or none,
    /// scores far in the tails.
    #[test]
    fn gradients_and_loss_in_one_pass_are_the_separate_ones_bit_for_bit() {
        let mut rng = crate::rng::Rng::new(11);
        let n = 2 * LOSS_BLOCK + 300;
        let raw: Vec<f64> = (0..n)
            .map(|i| match i % 97 {
                0 => 800.0,
                1 => -800.0,
                _ => 80.0 * rng.next_f64() - 40.0,
            })
            .collect();
        let y: Vec<f64> = (0..n)
            .map(|_| (rng.next_f64() > 0.5) as u8 as f64)
            .collect();
        let w: Vec<f64> = (0..n).map(|_| 2.0 * rng.next_f64()).collect();
        let scores = ndarray::Array2::from_shape_vec((1, n), raw).unwrap();
        let objectives: [Box<dyn Objective>; 2] = [
            Box::new(PerRow(BinaryLogloss)),
            Box::new(PerRow(SquaredError)),
        ];
        let bits = |a: &ndarray::Array2<f64>| a.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        for objective in &objectives {
            for weights in [None, Some(w.as_slice())] {
                let targets = Targets {
                    y: &y,
                    weights,
                    queries: None,
                };
                let (mut g1, mut h1) = (
                    ndarray::Array2::zeros((1, n)),
                    ndarray::Array2::zeros((1, n)),
                );
                objective.gradients(&targets, scores.view(), g1.view_mut(), h1.view_mut());
                let loss = objective.loss(&targets, scores.view());
                let (mut g2, mut h2) = (
                    ndarray::Array2::zeros((1, n)),
                    ndarray::Array2::zeros((1, n)),
                );
                let fused = objective.gradients_and_loss(
                    &targets,
                    scores.view(),
                    g2.view_mut(),
                    h2.view_mut(),
                );
                assert_eq!(bits(&g1), bits(&g2));
                assert_eq!(bits(&h1), bits(&h2));
                assert_eq!(loss.to_bits(), fused.to_bits());
                assert!(loss.is_finite() && loss > 0.0);
            }
        }
    }

    #[test]
    fn the_avx2_losses_are_the_plain_losses_bit_for_bit() {
        let mut rng = crate::rng::Rng::new(3);
        let raw: Vec<f64> = (0..1000).map(|_| 80.0 * rng.next_f64() - 40.0).collect();
        let y: Vec<f64> = (0..1000)
            .map(|_| (rng.next_f64() > 0.5) as u8 as f64)
            .collect();
        let (mut plain, mut dispatched) = (vec![0.0; 1000], vec![0.0; 1000]);
        row_losses_any(&BinaryLogloss, &mut plain, &y, &raw);
        row_losses(&BinaryLogloss, &mut dispatched, &y, &raw);
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&plain), bits(&dispatched));
        for ((l, &t), &f) in plain.iter().zip(&y).zip(&raw) {
            let libm = f.max(0.0) + (-f.abs()).exp().ln_1p() - t * f;
            assert!((l - libm).abs() <= 1e-15 * libm.abs().max(1.0), "{f}");
        }
    }
}
