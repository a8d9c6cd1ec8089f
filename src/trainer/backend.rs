//! Where a fit's scores live: the trainer's one boosting loop asks a
//! [`ScoresBackend`] for everything that touches rows — gradients, a tree
//! grown from them, the tree added to the scores, the loss — and decides
//! everything else itself (the rounds, the samples, Ω, early stopping, the
//! models). There are two: rows held here ([`super::local::LocalScores`])
//! and shards behind a transport ([`crate::distributed`]).

use super::{Job, Population};
use crate::error::Result;
use crate::grower::GrownTree;
use crate::selection::TreeSelection;
use crate::split::SplitCandidate;
use crate::tree::Tree;

/// The scores of a fit and the rows behind them.
pub(crate) trait ScoresBackend {
    /// A round starts: the gradients of the rows of `population` (the
    /// plan's population `index`) from the scores as they stand.
    fn gradients(&mut self, index: usize, population: &Population) -> Result<()>;

    /// Grow `job`'s tree on `rows` (data rows, ascending) over `features`
    /// (ascending), scored by `selection`.
    fn tree(
        &mut self,
        job: &Job,
        rows: Vec<u32>,
        features: &[usize],
        selection: &mut TreeSelection,
    ) -> Result<GrownTree>;

    /// The root scale of `job`'s tree on `rows` and the best split of each
    /// of `features` at its root, by exhaustive search (μ_max).
    fn root_candidates(
        &mut self,
        job: &Job,
        rows: Vec<u32>,
        features: &[usize],
    ) -> Result<(f64, Vec<SplitCandidate>)>;

    /// Add `grown` (its output is `job.output`) to the scores of
    /// `population`'s rows.
    fn add_tree(&mut self, job: &Job, population: &Population, grown: &GrownTree) -> Result<()>;

    /// Add the trees of a model being resumed to the scores (in the fit's
    /// units), before any round.
    fn replay(&mut self, trees: &[Tree]) -> Result<()>;

    /// The mean training loss of the rows of `population` (the plan's
    /// population `index`; in the fit's units).
    fn loss(&mut self, index: usize, population: &Population) -> Result<f64>;

    /// With group testing: the number of feature subsets and the bytes of
    /// the prefix-sum cache (summed over shards).
    fn group_testing_info(&self) -> Option<(usize, usize)>;
}
