//! LambdaRank (Burges 2010) with LightGBM's defaults: NDCG gains
//! `2^l − 1` of graded labels l, discounts `1/log2(2 + rank)`, pairs whose
//! higher-ranked row is within the truncation level, σ = 1, and
//! normalisation (pair weights divided by `0.01 + |Δs|` and each query's
//! lambdas scaled by `log2(1 + Σ|λ|)/Σ|λ|`).
//!
//! For a pair (hi, lo) of a query with `l_hi > l_lo`, ranked by the current
//! scores, with `Δs = s_hi − s_lo` and
//! `ΔNDCG = (gain_hi − gain_lo) · |disc(rank_hi) − disc(rank_lo)| / maxDCG@T`:
//! `ρ = 1/(1 + e^{σ Δs})`, `λ = −σ ρ ΔNDCG`, `h = σ² ρ (1 − ρ) ΔNDCG`;
//! hi gets `λ`, lo gets `−λ`, and both get `h`. Row weights multiply a row's
//! lambdas and hessians.

use super::{Objective, Targets};
use crate::error::{Result, SbError};
use crate::metrics::{
    dcg_discount, ideal_dcg, label_gain, mean_over_queries, ndcg_of_order, ranking,
};
use ndarray::{ArrayView2, ArrayViewMut2};
use rayon::prelude::*;

/// The largest relevance label (LightGBM's default label gains go to 30).
pub const MAX_RELEVANCE: f64 = 30.0;

/// σ, the steepness of the pairwise logistic.
const SIGMA: f64 = 1.0;

/// LambdaRank for NDCG@`truncation_level`.
pub struct LambdaRank {
    truncation_level: usize,
}

impl LambdaRank {
    /// Pairs whose better-ranked row is among the first `truncation_level`.
    pub fn new(truncation_level: usize) -> Self {
        LambdaRank { truncation_level }
    }

    /// One query's lambdas and hessians (`grad`, `hess` of its rows), and
    /// its NDCG@truncation_level at `scores` (the ranking and the ideal DCG
    /// that the lambdas need anyway; [`crate::metrics::ndcg_at`] bit for
    /// bit).
    fn query_gradients(
        &self,
        y: &[f64],
        weights: Option<&[f64]>,
        scores: &[f64],
        grad: &mut [f64],
        hess: &mut [f64],
    ) -> f64 {
        grad.fill(0.0);
        hess.fill(0.0);
        let n = y.len();
        let max_dcg = ideal_dcg(y, self.truncation_level);
        // Stable: ties keep row order, as LightGBM's std::stable_sort.
        let order = ranking(scores);
        let ndcg = ndcg_of_order(y, &order, self.truncation_level, max_dcg);
        if n < 2 || max_dcg <= 0.0 {
            return ndcg;
        }
        let inverse_max_dcg = 1.0 / max_dcg;
        let (best, worst) = (scores[order[0]], scores[order[n - 1]]);
        // Each row's gain and each rank's discount once, not once per pair
        // (a libm `exp2` and `log2` each).
        let gains: Vec<f64> = y.iter().map(|&l| label_gain(l)).collect();
        let discounts: Vec<f64> = (0..n).map(dcg_discount).collect();
        let mut sum_lambdas = 0.0;
        for i in 0..(n - 1).min(self.truncation_level) {
            for j in i + 1..n {
                let (a, b) = (order[i], order[j]);
                if y[a] == y[b] {
                    continue;
                }
                let ((hi, hi_rank), (lo, lo_rank)) = if y[a] > y[b] {
                    ((a, i), (b, j))
                } else {
                    ((b, j), (a, i))
                };
                let delta_score = scores[hi] - scores[lo];
                let gap = gains[hi] - gains[lo];
                let discount = (discounts[hi_rank] - discounts[lo_rank]).abs();
                let mut delta_ndcg = gap * discount * inverse_max_dcg;
                if best != worst {
                    delta_ndcg /= 0.01 + delta_score.abs();
                }
                let rho = 1.0 / (1.0 + (SIGMA * delta_score).exp());
                let lambda = -SIGMA * rho * delta_ndcg;
                let h = SIGMA * SIGMA * rho * (1.0 - rho) * delta_ndcg;
                grad[hi] += lambda;
                grad[lo] -= lambda;
                hess[hi] += h;
                hess[lo] += h;
                sum_lambdas -= 2.0 * lambda;
            }
        }
        if sum_lambdas > 0.0 {
            let factor = (1.0 + sum_lambdas).log2() / sum_lambdas;
            grad.iter_mut().for_each(|g| *g *= factor);
            hess.iter_mut().for_each(|h| *h *= factor);
        }
        if let Some(w) = weights {
            for i in 0..n {
                grad[i] *= w[i];
                hess[i] *= w[i];
            }
        }
        ndcg
    }

    /// Every query's lambdas and hessians, in parallel over queries, and
    /// their NDCGs in query order.
    fn all_gradients(
        &self,
        targets: &Targets,
        scores: ArrayView2<f64>,
        mut grad: ArrayViewMut2<f64>,
        mut hess: ArrayViewMut2<f64>,
    ) -> Vec<f64> {
        let queries = targets.queries.expect("checked by check_targets");
        let scores = super::row(&scores, 0);
        let grad = grad.row_mut(0).into_slice().expect("standard layout");
        let hess = hess.row_mut(0).into_slice().expect("standard layout");
        // Queries are consecutive, so the output splits into their chunks.
        let mut chunks = Vec::with_capacity(queries.len());
        let (mut g_rest, mut h_rest) = (grad, hess);
        for q in queries {
            let (g, g_tail) = g_rest.split_at_mut(q.len());
            let (h, h_tail) = h_rest.split_at_mut(q.len());
            chunks.push((q.clone(), g, h));
            (g_rest, h_rest) = (g_tail, h_tail);
        }
        chunks
            .into_par_iter()
            .map(|(q, g, h)| {
                self.query_gradients(
                    &targets.y[q.clone()],
                    targets.weights.map(|w| &w[q.clone()]),
                    &scores[q],
                    g,
                    h,
                )
            })
            .collect()
    }
}

/// `1 − NDCG`, the reported loss, from the queries' mean NDCG.
fn loss_of(ndcg: f64) -> f64 {
    (1.0 - ndcg).max(0.0)
}

impl Objective for LambdaRank {
    fn n_outputs(&self) -> usize {
        1
    }

    fn check_targets(&self, targets: &Targets) -> Result<()> {
        if targets.queries.is_none() {
            return Err(SbError::InvalidInput(
                "lambdarank needs query groups (group=)".into(),
            ));
        }
        match targets
            .y
            .iter()
            .position(|&v| !((0.0..=MAX_RELEVANCE).contains(&v) && v.fract() == 0.0))
        {
            None => Ok(()),
            Some(i) => Err(SbError::InvalidInput(format!(
                "lambdarank needs integer relevance labels in [0, {MAX_RELEVANCE}], found {} at \
                 row {i}",
                targets.y[i]
            ))),
        }
    }

    /// Ranking scores are shift-invariant: start at 0.
    fn init_scores(&self, _targets: &Targets) -> Vec<f64> {
        vec![0.0]
    }

    fn gradients(
        &self,
        targets: &Targets,
        scores: ArrayView2<f64>,
        grad: ArrayViewMut2<f64>,
        hess: ArrayViewMut2<f64>,
    ) {
        self.all_gradients(targets, scores, grad, hess);
    }

    /// `1 − NDCG@truncation_level`, averaged over queries (weighted by the
    /// mean weight of each query's rows).
    fn loss(&self, targets: &Targets, scores: ArrayView2<f64>) -> f64 {
        let scores = super::row(&scores, 0);
        let queries = targets.queries.expect("checked by check_targets");
        let k = self.truncation_level;
        let ndcgs = queries.iter().map(|q| {
            let y = &targets.y[q.clone()];
            ndcg_of_order(y, &ranking(&scores[q.clone()]), k, ideal_dcg(y, k))
        });
        loss_of(mean_over_queries(targets, queries, ndcgs))
    }

    /// The NDCGs come with the lambdas: one ranking and one ideal DCG per
    /// query serve both, in parallel.
    fn gradients_and_loss(
        &self,
        targets: &Targets,
        scores: ArrayView2<f64>,
        grad: ArrayViewMut2<f64>,
        hess: ArrayViewMut2<f64>,
    ) -> f64 {
        let queries = targets.queries.expect("checked by check_targets");
        let ndcgs = self.all_gradients(targets, scores, grad, hess);
        loss_of(mean_over_queries(targets, queries, ndcgs.into_iter()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::Array2;

    /// Every pair of rows with different labels, ranked by a full sort,
    /// straight from the formulas of the module docs.
    fn brute_force(y: &[f64], s: &[f64], truncation: usize) -> (Vec<f64>, Vec<f64>) {
        let n = y.len();
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by(|&a, &b| s[b].total_cmp(&s[a]));
        let mut rank = vec![0; n];
        for (r, &i) in order.iter().enumerate() {
            rank[i] = r;
        }
        let mut ideal: Vec<f64> = y.to_vec();
        ideal.sort_by(|a, b| b.total_cmp(a));
        let max_dcg: f64 = (0..n.min(truncation))
            .map(|r| (2f64.powf(ideal[r]) - 1.0) / ((r + 2) as f64).log2())
            .sum();
        let (mut g, mut h) = (vec![0.0; n], vec![0.0; n]);
        let spread = s.iter().cloned().fold(f64::MIN, f64::max)
            != s.iter().cloned().fold(f64::MAX, f64::min);
        let mut sum = 0.0;
        for a in 0..n {
            for b in 0..n {
                if y[a] <= y[b] || rank[a].min(rank[b]) >= truncation {
                    continue;
                }
                let ds = s[a] - s[b];
                let disc = |r: usize| 1.0 / ((r + 2) as f64).log2();
                let mut delta = (2f64.powf(y[a]) - 2f64.powf(y[b]))
                    * (disc(rank[a]) - disc(rank[b])).abs()
                    / max_dcg;
                if spread {
                    delta /= 0.01 + ds.abs();
                }
                let rho = 1.0 / (1.0 + ds.exp());
                g[a] -= rho * delta;
                g[b] += rho * delta;
                h[a] += rho * (1.0 - rho) * delta;
                h[b] += rho * (1.0 - rho) * delta;
                sum += 2.0 * rho * delta;
            }
        }
        let f = if sum > 0.0 {
            (1.0 + sum).log2() / sum
        } else {
            1.0
        };
        (
            g.iter().map(|v| v * f).collect(),
            h.iter().map(|v| v * f).collect(),
        )
    }

    #[test]
    fn gradients_match_a_brute_force_pairwise_reference() {
        let mut rng = crate::rng::Rng::new(7);
        for trial in 0..200 {
            let sizes: Vec<usize> = (0..3).map(|_| 1 + rng.below(12)).collect();
            let n: usize = sizes.iter().sum();
            let y: Vec<f64> = (0..n).map(|_| rng.below(5) as f64).collect();
            // Coarse scores so that ties occur.
            let s: Vec<f64> = (0..n).map(|_| (rng.below(7) as f64 - 3.0) * 0.5).collect();
            let truncation = 1 + rng.below(8);
            let queries = crate::data::query_ranges(&sizes);
            let t = Targets {
                y: &y,
                weights: None,
                queries: Some(&queries),
            };
            let scores = Array2::from_shape_vec((1, n), s.clone()).unwrap();
            let (mut g, mut h) = (Array2::zeros((1, n)), Array2::zeros((1, n)));
            let obj = LambdaRank::new(truncation);
            obj.gradients(&t, scores.view(), g.view_mut(), h.view_mut());
            for q in &queries {
                let (bg, bh) = brute_force(&y[q.clone()], &s[q.clone()], truncation);
                for (k, i) in q.clone().enumerate() {
                    assert!((g[[0, i]] - bg[k]).abs() < 1e-12, "trial {trial} g row {i}");
                    assert!((h[[0, i]] - bh[k]).abs() < 1e-12, "trial {trial} h row {i}");
                }
            }
        }
    }

    /// The loss computed with the lambdas is the metric's `1 − NDCG`, bit
    /// for bit: queries of one row, without relevant rows, tied scores,
    /// weights.
    #[test]
    fn the_loss_with_the_lambdas_is_one_minus_the_metrics_ndcg() {
        let mut rng = crate::rng::Rng::new(9);
        for trial in 0..100 {
            let sizes: Vec<usize> = (0..6).map(|_| 1 + rng.below(15)).collect();
            let n: usize = sizes.iter().sum();
            let y: Vec<f64> = (0..n)
                .map(|i| if i < 5 { 0.0 } else { rng.below(4) as f64 })
                .collect();
            let s: Vec<f64> = (0..n).map(|_| (rng.below(7) as f64 - 3.0) * 0.5).collect();
            let w: Vec<f64> = (0..n).map(|_| 0.1 + rng.next_f64()).collect();
            let queries = crate::data::query_ranges(&sizes);
            let scores = Array2::from_shape_vec((1, n), s.clone()).unwrap();
            let obj = LambdaRank::new(1 + rng.below(10));
            for weights in [None, Some(w.as_slice())] {
                let t = Targets {
                    y: &y,
                    weights,
                    queries: Some(&queries),
                };
                let (mut g1, mut h1) = (Array2::zeros((1, n)), Array2::zeros((1, n)));
                obj.gradients(&t, scores.view(), g1.view_mut(), h1.view_mut());
                let (mut g2, mut h2) = (Array2::zeros((1, n)), Array2::zeros((1, n)));
                let fused = obj.gradients_and_loss(&t, scores.view(), g2.view_mut(), h2.view_mut());
                assert_eq!(g1, g2, "trial {trial}");
                assert_eq!(h1, h2, "trial {trial}");
                let metric = crate::metrics::query_mean(&t, &s, |yq, sq| {
                    crate::metrics::ndcg_at(yq, sq, obj.truncation_level)
                });
                assert_eq!(
                    fused.to_bits(),
                    (1.0 - metric).max(0.0).to_bits(),
                    "trial {trial}"
                );
                assert_eq!(fused.to_bits(), obj.loss(&t, scores.view()).to_bits());
            }
        }
    }

    #[test]
    fn labels_and_groups_are_checked() {
        let q: Vec<_> = std::iter::once(0..2).collect();
        let obj = LambdaRank::new(30);
        let ok = Targets {
            y: &[0.0, 3.0],
            weights: None,
            queries: Some(&q),
        };
        assert!(obj.check_targets(&ok).is_ok());
        let bad = Targets {
            y: &[0.0, 1.5],
            ..ok
        };
        assert!(obj.check_targets(&bad).is_err());
        let none = Targets {
            queries: None,
            ..ok
        };
        assert!(obj
            .check_targets(&none)
            .unwrap_err()
            .to_string()
            .contains("group"));
    }
}
