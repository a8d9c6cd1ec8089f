//! The scores of a fit on rows held here ([`RowScores`]), and the one
//! grower over the binned data.

use super::backend::ScoresBackend;
use super::row_scores::RowScores;
use super::{Job, Population};
use crate::binning::BinnedData;
use crate::error::Result;
use crate::grower::{GrownTree, LocalGrower};
use crate::objective::Objective;
use crate::selection::TreeSelection;
use crate::split::SplitCandidate;
use crate::tree::Tree;

pub(crate) struct LocalScores<'a> {
    binned: &'a BinnedData,
    grower: LocalGrower<'a>,
    objective: &'a dyn Objective,
    scores: RowScores,
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
        let mut scores = RowScores::new(objective.n_outputs(), binned.n_rows);
        for job in jobs {
            let model = job.model.expect("a plan's jobs have one model each");
            let base = base_scores[model][job.output];
            scores.fill(job.output, &populations[job.population], base);
        }
        LocalScores {
            binned,
            grower,
            objective,
            scores,
            subsampled,
        }
    }
}

impl ScoresBackend for LocalScores<'_> {
    fn gradients(&mut self, index: usize, pop: &Population) -> Result<()> {
        self.scores.gradients(index, self.objective, pop);
        Ok(())
    }

    fn tree(
        &mut self,
        job: &Job,
        rows: Vec<u32>,
        features: &[usize],
        selection: &mut TreeSelection,
    ) -> Result<GrownTree> {
        let (g, h) = self.scores.of_output(job.output);
        self.grower.tree(g, h, rows, features, selection)
    }

    fn root_candidates(
        &mut self,
        job: &Job,
        rows: Vec<u32>,
        features: &[usize],
    ) -> Result<(f64, Vec<SplitCandidate>)> {
        let (g, h) = self.scores.of_output(job.output);
        self.grower.root_candidates(g, h, &rows, features)
    }

    fn add_tree(&mut self, job: &Job, pop: &Population, grown: &GrownTree) -> Result<()> {
        self.scores
            .add_grown(job.output, grown, self.binned, pop, self.subsampled);
        Ok(())
    }

    fn replay(&mut self, trees: &[Tree]) -> Result<()> {
        for tree in trees {
            self.scores.add_routed(tree, self.binned, None);
        }
        Ok(())
    }

    fn loss(&mut self, index: usize, pop: &Population) -> Result<f64> {
        Ok(self.scores.loss(index, self.objective, pop))
    }

    fn group_testing_info(&self) -> Option<(usize, usize)> {
        self.grower.group_testing_info()
    }
}
