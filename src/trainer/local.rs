//! The scores of a fit on rows held here: K × n raw scores, gradients and
//! hessians, and the one grower over the binned data.

use super::backend::ScoresBackend;
use super::{gather, Job, Population};
use crate::binning::BinnedData;
use crate::error::Result;
use crate::grower::{GrownTree, LocalGrower};
use crate::objective::Objective;
use crate::scores::{tree_outputs, update_scores};
use crate::selection::TreeSelection;
use crate::split::SplitCandidate;
use crate::tree::Tree;
use ndarray::{Array2, ArrayView2};

pub(crate) struct LocalScores<'a> {
    binned: &'a BinnedData,
    grower: LocalGrower<'a>,
    objective: &'a dyn Objective,
    /// Raw scores, K × n.
    scores: Array2<f64>,
    grad: Array2<f64>,
    hess: Array2<f64>,
    /// Trees are grown on row samples (their leaves do not hold every row).
    subsampled: bool,
}

impl<'a> LocalScores<'a> {
    /// Scores of `k` outputs over `binned`'s rows, each job's population
    /// starting from its model's base score.
    pub(crate) fn new(
        binned: &'a BinnedData,
        grower: LocalGrower<'a>,
        objective: &'a dyn Objective,
        start: (&[Job], &[Population], &[Vec<f64>]),
        subsampled: bool,
    ) -> Self {
        let (jobs, populations, base_scores) = start;
        let (k, n) = (objective.n_outputs(), binned.n_rows);
        let mut scores = Array2::<f64>::zeros((k, n));
        for (job, pop) in jobs.iter().map(|j| (j, &populations[j.population])) {
            let model = job.model.expect("a plan's jobs have one model each");
            let base = base_scores[model][job.output];
            let mut out = scores.row_mut(job.output);
            match &pop.rows {
                None => out.fill(base),
                Some(rows) => rows.iter().for_each(|&r| out[r as usize] = base),
            }
        }
        LocalScores {
            binned,
            grower,
            objective,
            scores,
            grad: Array2::zeros((k, n)),
            hess: Array2::zeros((k, n)),
            subsampled,
        }
    }
}

impl ScoresBackend for LocalScores<'_> {
    fn gradients(&mut self, pop: &Population) -> Result<()> {
        let (objective, scores) = (self.objective, self.scores.view());
        match &pop.rows {
            None => objective.gradients(
                &pop.targets(),
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
                objective.gradients(&pop.targets(), local.view(), g.view_mut(), h.view_mut());
                for (p, &r) in rows.iter().enumerate() {
                    self.grad.column_mut(r as usize).assign(&g.column(p));
                    self.hess.column_mut(r as usize).assign(&h.column(p));
                }
            }
        }
        Ok(())
    }

    fn grow(
        &mut self,
        job: &Job,
        rows: Vec<u32>,
        features: &[usize],
        selection: &mut TreeSelection,
    ) -> Result<GrownTree> {
        let (g, h) = (self.grad.row(job.output), self.hess.row(job.output));
        let (g, h) = (g.to_slice().unwrap(), h.to_slice().unwrap());
        self.grower.tree(g, h, rows, features, selection)
    }

    fn root_candidates(
        &mut self,
        job: &Job,
        rows: Vec<u32>,
        features: &[usize],
    ) -> Result<(f64, Vec<SplitCandidate>)> {
        let (g, h) = (self.grad.row(job.output), self.hess.row(job.output));
        let (g, h) = (g.to_slice().unwrap(), h.to_slice().unwrap());
        self.grower.root_candidates(g, h, &rows, features)
    }

    fn add_tree(&mut self, job: &Job, pop: &Population, grown: &GrownTree) -> Result<()> {
        let out = self.scores.row_mut(job.output).into_slice().unwrap();
        update_scores(out, grown, self.binned, pop.as_rows(), self.subsampled);
        Ok(())
    }

    fn replay(&mut self, trees: &[Tree]) -> Result<()> {
        for tree in trees {
            let values = tree_outputs(tree, self.binned);
            let mut out = self.scores.row_mut(tree.output as usize);
            out.iter_mut().zip(&values).for_each(|(s, v)| *s += v);
        }
        Ok(())
    }

    fn loss(&mut self, pop: &Population) -> Result<f64> {
        let scores: ArrayView2<f64> = self.scores.view();
        Ok(match &pop.rows {
            None => self.objective.loss(&pop.targets(), scores),
            Some(rows) => self
                .objective
                .loss(&pop.targets(), gather(scores, rows).view()),
        })
    }

    fn group_testing_info(&self) -> Option<(usize, usize)> {
        self.grower.group_testing_info()
    }
}
