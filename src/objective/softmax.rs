//! Multiclass log-loss through a softmax over K raw scores per row:
//! `p_k = e^{f_k} / Σ_j e^{f_j}`, `l = −log p_y`, `g_k = p_k − 1[y = k]`,
//! `h_k = p_k (1 − p_k)` (the diagonal of the Hessian, floored as binary
//! log-loss floors it).
//!
//! LightGBM multiplies the hessian by K/(K − 1) and XGBoost by 2; both are
//! deliberate damping of the Newton step. Here the hessian is the true
//! second derivative, so a tree's leaf values are the per-class Newton
//! steps (a test compares them with finite differences).

use super::{Objective, Targets, MIN_HESSIAN};
use crate::error::{Result, SbError};
use ndarray::{ArrayView2, ArrayViewMut1, ArrayViewMut2, Zip};
use rayon::prelude::*;

/// Softmax over `n_classes` outputs; labels are class indices 0..K.
pub struct Softmax {
    n_classes: usize,
}

impl Softmax {
    /// Softmax over `n_classes` (≥ 2) classes.
    pub fn new(n_classes: usize) -> Self {
        Softmax { n_classes }
    }

    /// The class probabilities of one row's raw scores, written to `p`.
    pub fn probabilities(raw: impl Iterator<Item = f64> + Clone, p: &mut [f64]) {
        Self::probabilities_and_log_total(raw, p);
    }

    /// [`Softmax::probabilities`], returning `log Σ_j e^{f_j}` (computed
    /// without overflow from the same exponentials).
    fn probabilities_and_log_total(raw: impl Iterator<Item = f64> + Clone, p: &mut [f64]) -> f64 {
        let max = raw.clone().fold(f64::NEG_INFINITY, f64::max);
        let mut total = 0.0;
        for (pk, f) in p.iter_mut().zip(raw) {
            *pk = (f - max).exp();
            total += *pk;
        }
        p.iter_mut().for_each(|pk| *pk /= total);
        max + total.ln()
    }

    /// Gradients and hessians at `scores`, and each row's loss into
    /// `losses`.
    fn derive(
        &self,
        targets: &Targets,
        scores: ArrayView2<f64>,
        mut grad: ArrayViewMut2<f64>,
        mut hess: ArrayViewMut2<f64>,
        losses: &mut [f64],
    ) {
        let k = self.n_classes;
        Zip::indexed(scores.columns())
            .and(grad.columns_mut())
            .and(hess.columns_mut())
            .and(ArrayViewMut1::from(losses))
            .into_par_iter()
            .with_min_len(1024)
            .for_each_init(
                || vec![0.0; k],
                |p, (i, raw, mut g, mut h, loss)| {
                    let log_total = Softmax::probabilities_and_log_total(raw.iter().copied(), p);
                    let w = targets.weights.map_or(1.0, |w| w[i]);
                    let label = targets.y[i] as usize;
                    for c in 0..k {
                        let hit = if c == label { 1.0 } else { 0.0 };
                        g[c] = w * (p[c] - hit);
                        h[c] = w * (p[c] * (1.0 - p[c])).max(MIN_HESSIAN);
                    }
                    *loss = row_loss(log_total, raw[label]);
                },
            );
    }
}

/// One row's loss `log Σ_j e^{f_j} − f_y`, ≥ 0.
fn row_loss(log_total: f64, label_score: f64) -> f64 {
    (log_total - label_score).max(0.0)
}

impl Objective for Softmax {
    fn n_outputs(&self) -> usize {
        self.n_classes
    }

    fn check_targets(&self, targets: &Targets) -> Result<()> {
        let k = self.n_classes as f64;
        match targets
            .y
            .iter()
            .position(|&v| !(v >= 0.0 && v < k && v.fract() == 0.0))
        {
            None => Ok(()),
            Some(i) => Err(SbError::InvalidInput(format!(
                "multi_logloss needs class indices 0..{} as labels, found {} at row {i}",
                self.n_classes, targets.y[i]
            ))),
        }
    }

    /// The log of each class's weighted frequency (floored at 1e-15):
    /// the softmax of these is the class prior.
    fn init_scores(&self, targets: &Targets) -> Vec<f64> {
        let class_mass = |weights: Option<&[f64]>| {
            let mut mass = vec![0.0; self.n_classes];
            for (i, &y) in targets.y.iter().enumerate() {
                mass[y as usize] += weights.map_or(1.0, |w| w[i]);
            }
            mass
        };
        let mut mass = class_mass(targets.weights);
        // Weights that sum to 0 (all underflowed in the fit's units): counts.
        if mass.iter().sum::<f64>() <= 0.0 {
            mass = class_mass(None);
        }
        let total: f64 = mass.iter().sum();
        mass.iter().map(|m| (m / total).max(1e-15).ln()).collect()
    }

    fn gradients(
        &self,
        targets: &Targets,
        scores: ArrayView2<f64>,
        grad: ArrayViewMut2<f64>,
        hess: ArrayViewMut2<f64>,
    ) {
        // (The losses cost one log a row beside the K exponentials.)
        let mut losses = vec![0.0; targets.len()];
        self.derive(targets, scores, grad, hess, &mut losses);
    }

    /// Mean `log Σ_j e^{f_j} − f_y`, computed without overflow (the same
    /// per-row numbers as the gradients' pass).
    fn loss(&self, targets: &Targets, scores: ArrayView2<f64>) -> f64 {
        let k = self.n_classes;
        // Rows in parallel, summed in row order.
        let per_row: Vec<f64> = (0..targets.len())
            .into_par_iter()
            .with_min_len(1024)
            .map_init(
                || vec![0.0; k],
                |p, i| {
                    let raw = scores.column(i);
                    let log_total = Softmax::probabilities_and_log_total(raw.iter().copied(), p);
                    row_loss(log_total, raw[targets.y[i] as usize])
                },
            )
            .collect();
        super::weighted_mean(&per_row, targets.weights)
    }

    /// The loss from the exponentials the gradients compute anyway.
    fn gradients_and_loss(
        &self,
        targets: &Targets,
        scores: ArrayView2<f64>,
        grad: ArrayViewMut2<f64>,
        hess: ArrayViewMut2<f64>,
    ) -> f64 {
        let mut losses = vec![0.0; targets.len()];
        self.derive(targets, scores, grad, hess, &mut losses);
        super::weighted_mean(&losses, targets.weights)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::{Array2, Axis};

    fn targets(y: &[f64]) -> Targets<'_> {
        Targets {
            y,
            weights: None,
            queries: None,
        }
    }

    #[test]
    fn derivatives_match_finite_differences() {
        let obj = Softmax::new(3);
        let y = [0.0, 2.0, 1.0];
        let scores =
            Array2::from_shape_vec((3, 3), vec![0.3, -1.0, 2.0, 0.1, 0.5, -0.7, -0.2, 1.5, 0.0])
                .unwrap();
        let (mut g, mut h) = (Array2::zeros((3, 3)), Array2::zeros((3, 3)));
        obj.gradients(&targets(&y), scores.view(), g.view_mut(), h.view_mut());
        let eps = 1e-4;
        for i in 0..3 {
            let one = [y[i]];
            let loss_at = |c: usize, delta: f64| {
                let mut s = scores.column(i).to_owned().insert_axis(Axis(1));
                s[[c, 0]] += delta;
                obj.loss(&targets(&one), s.view())
            };
            for c in 0..3 {
                let (lo, mid, hi) = (loss_at(c, -eps), loss_at(c, 0.0), loss_at(c, eps));
                let fd_g = (hi - lo) / (2.0 * eps);
                let fd_h = (hi - 2.0 * mid + lo) / (eps * eps);
                assert!((fd_g - g[[c, i]]).abs() < 1e-7, "g {c} {i}");
                assert!((fd_h - h[[c, i]]).abs() < 1e-5, "h {c} {i}");
            }
        }
    }

    #[test]
    fn init_scores_give_the_class_prior_and_labels_are_checked() {
        let obj = Softmax::new(3);
        let y = [0.0, 0.0, 1.0, 2.0];
        let init = obj.init_scores(&targets(&y));
        let mut p = [0.0; 3];
        Softmax::probabilities(init.iter().copied(), &mut p);
        assert!((p[0] - 0.5).abs() < 1e-12 && (p[2] - 0.25).abs() < 1e-12);
        assert!(obj.check_targets(&targets(&[0.0, 3.0])).is_err());
        assert!(obj.check_targets(&targets(&[0.5])).is_err());
        assert!(obj.check_targets(&targets(&[2.0, 1.0])).is_ok());
    }

    /// The loss computed with the gradients is the loss alone, bit for bit.
    #[test]
    fn gradients_and_loss_in_one_pass_are_the_separate_ones_bit_for_bit() {
        let mut rng = crate::rng::Rng::new(5);
        let (k, n) = (4, 3000);
        let y: Vec<f64> = (0..n).map(|_| rng.below(k) as f64).collect();
        let w: Vec<f64> = (0..n).map(|_| 2.0 * rng.next_f64()).collect();
        let scores = Array2::from_shape_fn((k, n), |_| 60.0 * rng.next_f64() - 30.0);
        let obj = Softmax::new(k);
        for weights in [None, Some(w.as_slice())] {
            let t = Targets {
                y: &y,
                weights,
                queries: None,
            };
            let (mut g1, mut h1) = (Array2::zeros((k, n)), Array2::zeros((k, n)));
            obj.gradients(&t, scores.view(), g1.view_mut(), h1.view_mut());
            let (mut g2, mut h2) = (Array2::zeros((k, n)), Array2::zeros((k, n)));
            let fused = obj.gradients_and_loss(&t, scores.view(), g2.view_mut(), h2.view_mut());
            assert_eq!(g1, g2);
            assert_eq!(h1, h2);
            assert_eq!(fused.to_bits(), obj.loss(&t, scores.view()).to_bits());
            assert!(fused > 0.0);
        }
    }

    #[test]
    fn loss_survives_huge_scores() {
        let obj = Softmax::new(2);
        let s = Array2::from_shape_vec((2, 1), vec![1000.0, -1000.0]).unwrap();
        assert_eq!(obj.loss(&targets(&[0.0]), s.view()), 0.0);
        assert!((obj.loss(&targets(&[1.0]), s.view()) - 2000.0).abs() < 1e-9);
    }
}
