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
use ndarray::{ArrayView2, ArrayViewMut2, Zip};
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
        let max = raw.clone().fold(f64::NEG_INFINITY, f64::max);
        let mut total = 0.0;
        for (pk, f) in p.iter_mut().zip(raw) {
            *pk = (f - max).exp();
            total += *pk;
        }
        p.iter_mut().for_each(|pk| *pk /= total);
    }
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
        mut grad: ArrayViewMut2<f64>,
        mut hess: ArrayViewMut2<f64>,
    ) {
        let k = self.n_classes;
        Zip::indexed(scores.columns())
            .and(grad.columns_mut())
            .and(hess.columns_mut())
            .into_par_iter()
            .with_min_len(1024)
            .for_each_init(
                || vec![0.0; k],
                |p, (i, raw, mut g, mut h)| {
                    Softmax::probabilities(raw.iter().copied(), p);
                    let w = targets.weights.map_or(1.0, |w| w[i]);
                    let label = targets.y[i] as usize;
                    for c in 0..k {
                        let hit = if c == label { 1.0 } else { 0.0 };
                        g[c] = w * (p[c] - hit);
                        h[c] = w * (p[c] * (1.0 - p[c])).max(MIN_HESSIAN);
                    }
                },
            );
    }

    /// Mean `log Σ_j e^{f_j} − f_y`, computed without overflow.
    fn loss(&self, targets: &Targets, scores: ArrayView2<f64>) -> f64 {
        // Rows in parallel, summed in row order.
        let per_row: Vec<f64> = (0..targets.len())
            .into_par_iter()
            .with_min_len(1024)
            .map(|i| {
                let raw = scores.column(i);
                let max = raw.fold(f64::NEG_INFINITY, |m, &f| m.max(f));
                let sum: f64 = raw.iter().map(|f| (f - max).exp()).sum();
                (max + sum.ln() - raw[targets.y[i] as usize]).max(0.0)
            })
            .collect();
        super::weighted_mean(&per_row, targets.weights)
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

    #[test]
    fn loss_survives_huge_scores() {
        let obj = Softmax::new(2);
        let s = Array2::from_shape_vec((2, 1), vec![1000.0, -1000.0]).unwrap();
        assert_eq!(obj.loss(&targets(&[0.0]), s.view()), 0.0);
        assert!((obj.loss(&targets(&[1.0]), s.view()) - 2000.0).abs() < 1e-9);
    }
}
