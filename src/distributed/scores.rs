//! The shards as the trainer's scores backend: gradients, leaf values and
//! losses are computed where the rows are, and every tree is grown by the
//! one grower over the shards as its node source ([`super::nodes`]).

use super::channel::{outputs, Channel};
use super::group_search::ClientTests;
use super::nodes::ShardNodes;
use super::protocol::{Op, Output};
use super::row_order::RowOrder;
use crate::binning::BinMapper;
use crate::error::Result;
use crate::grower::{GrownTree, TreeGrower};
use crate::selection::TreeSelection;
use crate::split::SplitCandidate;
use crate::trainer::backend::ScoresBackend;
use crate::trainer::{Job, Population};
use crate::tree::Tree;

/// The scores of a fit on the shards behind `channel`.
pub(super) struct ShardScores<'c, 't> {
    pub channel: &'c mut Channel<'t>,
    pub grower: TreeGrower<'c>,
    pub mappers: &'c [BinMapper],
    /// The rows of each population of the plan (summed over shards).
    pub population_rows: Vec<usize>,
    /// Where each row is.
    pub order: &'c RowOrder,
    /// Group testing's subsets, and the bytes of the shards' caches.
    pub tests: Option<(ClientTests, usize)>,
    /// Trees are grown on row samples.
    pub subsampled: bool,
}

impl<'c, 't> ShardScores<'c, 't> {
    /// The node source of `job`'s tree on `rows` (ascending data rows of
    /// its population): each shard gets its part of them as its own row
    /// numbers, or nothing when they are the whole population (the shards
    /// know its rows).
    fn nodes<'s>(
        &'s mut self,
        job: &Job,
        rows: &[u32],
    ) -> (ShardNodes<'s, 't>, &'s mut TreeGrower<'c>) {
        let sample =
            (rows.len() != self.population_rows[job.population]).then(|| self.order.split(rows));
        let nodes = ShardNodes {
            channel: &mut *self.channel,
            output: job.output,
            population: job.population,
            n_rows: rows.len(),
            sample,
            mappers: self.mappers,
            tests: self.tests.as_ref().map(|(t, _)| t),
        };
        (nodes, &mut self.grower)
    }
}

impl ScoresBackend for ShardScores<'_, '_> {
    fn gradients(&mut self, index: usize, _: &Population) -> Result<()> {
        self.channel.pending.push(Op::Gradients {
            population: index as u32,
        });
        Ok(())
    }

    fn tree(
        &mut self,
        job: &Job,
        rows: Vec<u32>,
        features: &[usize],
        selection: &mut TreeSelection,
    ) -> Result<GrownTree> {
        let (mut nodes, grower) = self.nodes(job, &rows);
        let grown = grower.grow(&mut nodes, features, selection)?;
        Ok(GrownTree {
            tree: grown.tree,
            rows: Vec::new(),
            leaves: Vec::new(),
            root_scale: grown.root_scale,
        })
    }

    fn root_candidates(
        &mut self,
        job: &Job,
        rows: Vec<u32>,
        features: &[usize],
    ) -> Result<(f64, Vec<SplitCandidate>)> {
        let (mut nodes, grower) = self.nodes(job, &rows);
        grower.root_candidates(&mut nodes, features)
    }

    fn add_tree(&mut self, job: &Job, _: &Population, grown: &GrownTree) -> Result<()> {
        self.channel.traffic.trees += 1;
        if self.subsampled {
            // Rows outside the sample are in no leaf: the shards route
            // every row of the population through the tree instead.
            self.channel.pending.push(Op::AddTrees {
                trees: vec![grown.tree.clone()],
                population: Some(job.population as u32),
            });
            return Ok(());
        }
        let leaves = grown
            .tree
            .nodes
            .iter()
            .enumerate()
            .filter(|(_, n)| n.is_leaf);
        self.channel.pending.push(Op::AddLeaves {
            output: job.output as u32,
            leaves: leaves.map(|(i, n)| (i as u32, n.value)).collect(),
        });
        Ok(())
    }

    fn replay(&mut self, trees: &[Tree]) -> Result<()> {
        self.channel.pending.push(Op::AddTrees {
            trees: trees.to_vec(),
            population: None,
        });
        Ok(())
    }

    fn loss(&mut self, index: usize, _: &Population) -> Result<f64> {
        let replies = self.channel.all(vec![Op::Loss {
            population: index as u32,
        }])?;
        let losses = outputs(&replies, 0, "a loss", |o| match o {
            Output::Loss { mean, mass } => Some((*mean, *mass)),
            _ => None,
        })?;
        Ok(pooled_loss(&losses))
    }

    fn group_testing_info(&self) -> Option<(usize, usize)> {
        self.tests
            .as_ref()
            .map(|(t, bytes)| (t.n_subsets(), *bytes))
    }
}

/// The mean loss over all shards: one shard's own mean, else the means
/// weighted by their mass.
fn pooled_loss(losses: &[(f64, f64)]) -> f64 {
    let nonempty: Vec<&(f64, f64)> = losses.iter().filter(|l| l.1 > 0.0).collect();
    match nonempty.as_slice() {
        [(mean, _)] => *mean,
        _ => {
            let mass: f64 = nonempty.iter().map(|l| l.1).sum();
            nonempty.iter().map(|l| l.0 * l.1).sum::<f64>() / mass
        }
    }
}
