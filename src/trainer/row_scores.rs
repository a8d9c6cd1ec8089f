//! The raw scores, gradients and hessians of rows held in this process,
//! kept per population as the trainer asks for them. One implementation
//! serves the single machine ([`super::local::LocalScores`]) and every
//! shard of a distributed fit, so that a shard computes its rows' numbers
//! exactly as one machine computes them (one shard equals the local fit
//! bit for bit).

use super::{gather, Population};
use crate::binning::BinnedData;
use crate::grower::GrownTree;
use crate::objective::Objective;
use crate::scores::{tree_outputs, update_scores};
use crate::tree::Tree;
use ndarray::Array2;

/// K × n raw scores, with the gradients and hessians last computed.
pub(crate) struct RowScores {
    scores: Array2<f64>,
    grad: Array2<f64>,
    hess: Array2<f64>,
    /// The population (its index in the plan) whose gradients and hessians
    /// were computed from the scores as they stand: a round's loss computes
    /// them for the next round, which then need not (every change to the
    /// scores clears it). One fit's objective throughout.
    current: Option<usize>,
}

impl RowScores {
    /// Zero scores of `k` outputs over `n` rows.
    pub(crate) fn new(k: usize, n: usize) -> Self {
        RowScores {
            scores: Array2::zeros((k, n)),
            grad: Array2::zeros((k, n)),
            hess: Array2::zeros((k, n)),
            current: None,
        }
    }

    pub(crate) fn n_outputs(&self) -> usize {
        self.scores.nrows()
    }

    /// Set output `output` of `population`'s rows to `value` (a model's
    /// base score).
    pub(crate) fn fill(&mut self, output: usize, population: &Population, value: f64) {
        self.current = None;
        let mut out = self.scores.row_mut(output);
        match &population.rows {
            None => out.fill(value),
            Some(rows) => rows.iter().for_each(|&r| out[r as usize] = value),
        }
    }

    /// The gradients and hessians of `population`'s rows (the plan's
    /// population `index`) from the scores as they stand (the other rows'
    /// are left as they were).
    pub(crate) fn gradients(
        &mut self,
        index: usize,
        objective: &dyn Objective,
        population: &Population,
    ) {
        if self.current != Some(index) {
            self.derive(index, objective, population, false);
        }
    }

    /// The mean loss of `population`'s rows (the plan's population `index`;
    /// in the fit's units), with their gradients and hessians computed in
    /// the same pass.
    pub(crate) fn loss(
        &mut self,
        index: usize,
        objective: &dyn Objective,
        population: &Population,
    ) -> f64 {
        self.derive(index, objective, population, true)
    }

    /// The gradients and hessians of `population`'s rows, and with `loss`
    /// their mean loss (0 without).
    fn derive(
        &mut self,
        index: usize,
        objective: &dyn Objective,
        population: &Population,
        loss: bool,
    ) -> f64 {
        if population.y.is_empty() {
            return 0.0;
        }
        let targets = population.targets();
        let run = |scores, grad, hess| {
            if loss {
                objective.gradients_and_loss(&targets, scores, grad, hess)
            } else {
                objective.gradients(&targets, scores, grad, hess);
                0.0
            }
        };
        let value = match &population.rows {
            None => run(
                self.scores.view(),
                self.grad.view_mut(),
                self.hess.view_mut(),
            ),
            Some(rows) => {
                let local = gather(self.scores.view(), rows);
                let (mut g, mut h) = (
                    Array2::zeros(local.raw_dim()),
                    Array2::zeros(local.raw_dim()),
                );
                let value = run(local.view(), g.view_mut(), h.view_mut());
                for (p, &r) in rows.iter().enumerate() {
                    self.grad.column_mut(r as usize).assign(&g.column(p));
                    self.hess.column_mut(r as usize).assign(&h.column(p));
                }
                value
            }
        };
        self.current = Some(index);
        value
    }

    /// The gradients and hessians of output `output`, one per row.
    pub(crate) fn of_output(&self, output: usize) -> (&[f64], &[f64]) {
        let (g, h) = (self.grad.row(output), self.hess.row(output));
        (
            g.to_slice().expect("rows of a standard layout array"),
            h.to_slice().expect("rows of a standard layout array"),
        )
    }

    /// Add `grown` (grown on some of `population`'s rows, see
    /// [`update_scores`]) to output `output` of the population's rows.
    pub(crate) fn add_grown(
        &mut self,
        output: usize,
        grown: &GrownTree,
        binned: &BinnedData,
        population: &Population,
        subsampled: bool,
    ) {
        self.current = None;
        let out = self.scores.row_mut(output).into_slice().expect("a row");
        update_scores(out, grown, binned, population.as_rows(), subsampled);
    }

    /// Add `value` to output `output` of `rows`.
    pub(crate) fn add_to_rows(&mut self, output: usize, rows: &[u32], value: f64) {
        self.current = None;
        let mut out = self.scores.row_mut(output);
        for &r in rows {
            out[r as usize] += value;
        }
    }

    /// Add `tree` (its own output) to `rows` (every row for `None`),
    /// routed through `binned`.
    pub(crate) fn add_routed(&mut self, tree: &Tree, binned: &BinnedData, rows: Option<&[u32]>) {
        self.current = None;
        let values = tree_outputs(tree, binned);
        let mut out = self.scores.row_mut(tree.output as usize);
        match rows {
            None => out.iter_mut().zip(&values).for_each(|(s, v)| *s += v),
            Some(rows) => rows
                .iter()
                .for_each(|&r| out[r as usize] += values[r as usize]),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::objective::{BinaryLogloss, PerRow};

    fn population(rows: Option<Vec<u32>>, y: Vec<f64>) -> Population {
        Population {
            rows,
            y,
            weights: None,
            queries: None,
        }
    }

    /// A round's loss leaves the next round's gradients computed; any change
    /// to the scores, or another population's gradients, makes them stale.
    #[test]
    fn gradients_follow_the_scores_after_a_fused_loss() {
        let objective = PerRow(BinaryLogloss);
        let all = population(None, vec![1.0, 0.0, 1.0, 0.0]);
        let some = population(Some(vec![1, 2]), vec![0.0, 1.0]);
        let mut scores = RowScores::new(1, 4);
        let grad = |s: &RowScores| s.of_output(0).0.to_vec();
        // σ(0) − y, then σ(1) − y for the rows that moved.
        let at = |f: f64, y: f64| 1.0 / (1.0 + (-f).exp()) - y;

        scores.fill(0, &all, 0.0);
        scores.loss(0, &objective, &all);
        assert_eq!(grad(&scores), vec![-0.5, 0.5, -0.5, 0.5]);
        scores.add_to_rows(0, &[0, 3], 1.0);
        scores.gradients(0, &objective, &all);
        assert_eq!(grad(&scores), vec![at(1.0, 1.0), 0.5, -0.5, at(1.0, 0.0)]);

        scores.loss(0, &objective, &all);
        scores.fill(0, &some, 2.0);
        scores.gradients(0, &objective, &all);
        assert_eq!(grad(&scores)[1..3], [at(2.0, 0.0), at(2.0, 1.0)]);

        // Another population overwrites rows 1 and 2 with its own labels'
        // gradients; population 0's are then computed again.
        let flipped = population(Some(vec![1, 2]), vec![1.0, 0.0]);
        scores.loss(0, &objective, &all);
        scores.gradients(1, &objective, &flipped);
        assert_eq!(grad(&scores)[1..3], [at(2.0, 1.0), at(2.0, 0.0)]);
        scores.gradients(0, &objective, &all);
        assert_eq!(grad(&scores)[1..3], [at(2.0, 0.0), at(2.0, 1.0)]);
    }
}
