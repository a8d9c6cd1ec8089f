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
use ndarray::{Array2, ArrayView2};

/// K × n raw scores, with the gradients and hessians last computed.
pub(crate) struct RowScores {
    scores: Array2<f64>,
    grad: Array2<f64>,
    hess: Array2<f64>,
}

impl RowScores {
    /// Zero scores of `k` outputs over `n` rows.
    pub(crate) fn new(k: usize, n: usize) -> Self {
        RowScores {
            scores: Array2::zeros((k, n)),
            grad: Array2::zeros((k, n)),
            hess: Array2::zeros((k, n)),
        }
    }

    pub(crate) fn n_outputs(&self) -> usize {
        self.scores.nrows()
    }

    /// Set output `output` of `population`'s rows to `value` (a model's
    /// base score).
    pub(crate) fn fill(&mut self, output: usize, population: &Population, value: f64) {
        let mut out = self.scores.row_mut(output);
        match &population.rows {
            None => out.fill(value),
            Some(rows) => rows.iter().for_each(|&r| out[r as usize] = value),
        }
    }

    /// The gradients and hessians of `population`'s rows from the scores
    /// as they stand (the other rows' are left as they were).
    pub(crate) fn gradients(&mut self, objective: &dyn Objective, population: &Population) {
        if population.y.is_empty() {
            return;
        }
        let scores = self.scores.view();
        match &population.rows {
            None => objective.gradients(
                &population.targets(),
                scores,
                self.grad.view_mut(),
                self.hess.view_mut(),
            ),
            Some(rows) => {
                let local = gather(scores, rows);
                let (mut g, mut h) = (
                    Array2::zeros(local.raw_dim()),
                    Array2::zeros(local.raw_dim()),
                );
                objective.gradients(
                    &population.targets(),
                    local.view(),
                    g.view_mut(),
                    h.view_mut(),
                );
                for (p, &r) in rows.iter().enumerate() {
                    self.grad.column_mut(r as usize).assign(&g.column(p));
                    self.hess.column_mut(r as usize).assign(&h.column(p));
                }
            }
        }
    }

    /// The gradients and hessians of output `output`, one per row.
    pub(crate) fn of_output(&self, output: usize) -> (&[f64], &[f64]) {
        let (g, h) = (self.grad.row(output), self.hess.row(output));
        (
            g.to_slice().expect("rows of a standard layout array"),
            h.to_slice().expect("rows of a standard layout array"),
        )
    }

    /// The mean loss of `population`'s rows (in the fit's units).
    pub(crate) fn loss(&self, objective: &dyn Objective, population: &Population) -> f64 {
        let scores: ArrayView2<f64> = self.scores.view();
        match &population.rows {
            None => objective.loss(&population.targets(), scores),
            Some(rows) => objective.loss(&population.targets(), gather(scores, rows).view()),
        }
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
        let out = self.scores.row_mut(output).into_slice().expect("a row");
        update_scores(out, grown, binned, population.as_rows(), subsampled);
    }

    /// Add `value` to output `output` of `rows`.
    pub(crate) fn add_to_rows(&mut self, output: usize, rows: &[u32], value: f64) {
        let mut out = self.scores.row_mut(output);
        for &r in rows {
            out[r as usize] += value;
        }
    }

    /// Add `tree` (its own output) to `rows` (every row for `None`),
    /// routed through `binned`.
    pub(crate) fn add_routed(&mut self, tree: &Tree, binned: &BinnedData, rows: Option<&[u32]>) {
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
