//! Resuming a fit from a model of its first rounds (a distributed fit that
//! failed hands them back): the model's trees are added to the scores, and
//! Ω, the models and the evaluation history are replayed from them, so that
//! boosting goes on from the next round as the fit would have.

use super::backend::ScoresBackend;
use super::{History, Job};
use crate::binning::BinMapper;
use crate::error::{Result, SbError};
use crate::evaluation::{EvalState, RoundEnd};
use crate::feature_sampling::DynamicWeights;
use crate::grower::GrownTree;
use crate::metrics::Metric;
use crate::model::Model;
use crate::model_builder::ModelBuilder;
use crate::params::BoosterParams;
use crate::selection::Selection;
use crate::tree::{Node, Tree};
use crate::units::Units;

/// `init`'s splits must fall on this fit's cut points. The scores replay
/// its trees through this fit's bins, which route every row as the model
/// does only when each split's threshold is its bin's cut point; with other
/// bins (another `max_bins` or `bin_sample_rows`, other rows) the scores,
/// the evaluation history and the next trees' gradients would silently be
/// those of another model. (Categorical splits name codes, not cuts.)
fn check_cut_points(init: &Model, mappers: &[BinMapper]) -> Result<()> {
    for (t, tree) in init.trees.iter().enumerate() {
        for node in tree.nodes.iter().filter(|n| !n.is_leaf) {
            let f = node.feature as usize;
            let Some(mapper) = mappers.get(f) else {
                return Err(SbError::InvalidParameter(format!(
                    "init_model splits feature {f}, but the data have {} features",
                    mappers.len()
                )));
            };
            let same = if node.categories.is_some() {
                mapper.categorical
            } else {
                !mapper.categorical
                    && mapper.threshold_of_bin(node.threshold_bin).to_bits()
                        == node.threshold.to_bits()
            };
            if !same {
                return Err(SbError::InvalidParameter(format!(
                    "init_model splits feature {f} at {} (tree {t}), which is not a cut point \
                     of this fit's bins: resume with the rows and the binning parameters \
                     (max_bins, bin_sample_rows) of the fit that made it",
                    node.threshold
                )));
            }
        }
    }
    Ok(())
}

/// Replay `init`'s rounds (a single-model fit's; `jobs[k]` grows output k)
/// into `model`, `selection`, the evaluation sets, `history` and the
/// dynamic sampling weights (from the trees' gains and root scales), and
/// add its trees to `backend`'s scores. Returns the model's trees after
/// each replayed round.
pub(super) fn replay(
    (init, mappers): (&Model, &[BinMapper]),
    (jobs, units, metrics, params): (&[Job], &Units, &[Metric], &BoosterParams),
    backend: &mut dyn ScoresBackend,
    (model, selection): (&mut ModelBuilder, &mut Selection),
    (evals, history, since_best): (&mut [EvalState], &mut History, &mut usize),
    mut dynamic: Option<&mut DynamicWeights>,
) -> Result<Vec<usize>> {
    check_cut_points(init, mappers)?;
    if dynamic.is_some() && init.trees.iter().any(|t| t.root_scale.is_none()) {
        return Err(SbError::InvalidParameter(
            "init_model has trees without root_scale (a file written before it was recorded): \
             a fit with feature_sampling='dynamic' cannot resume from it"
                .into(),
        ));
    }
    if params.record_train_loss && init.train_loss.len() < init.trees.len() {
        return Err(SbError::InvalidParameter(
            "init_model has no training losses (fitted with record_train_loss=False): a fit \
             with record_train_loss=True cannot resume from it"
                .into(),
        ));
    }
    let rounds = resumed_rounds(init, units);
    let trees: Vec<Tree> = rounds.iter().flatten().map(|(t, _)| t.clone()).collect();
    backend.replay(&trees)?;
    let mut trees_after = Vec::with_capacity(rounds.len());
    for (round, trees) in rounds.into_iter().enumerate() {
        let loss = trees.last().map(|(_, l)| *l);
        let mut round_trees = Vec::new();
        for (tree, _) in trees {
            let mut view = selection.view(0);
            for node in split_order(&tree) {
                view.commit(node.feature as usize);
            }
            let root_scale = tree.root_scale.unwrap_or(0.0);
            round_trees.push((jobs[tree.output as usize], tree.clone(), root_scale));
            let grown = GrownTree {
                tree,
                rows: Vec::new(),
                leaves: Vec::new(),
                root_scale,
            };
            model.push(grown, round)?;
        }
        if params.record_train_loss {
            model.record_loss(|| loss.unwrap_or(f64::NAN))?;
        }
        trees_after.push(model.n_trees());
        let ended = RoundEnd {
            round,
            grew: !round_trees.is_empty(),
            trees: &round_trees,
            units,
            metrics,
            params,
        };
        ended.record(evals, dynamic.as_deref_mut(), history, since_best);
    }
    Ok(trees_after)
}

/// A resumed fit's rounds: `init`'s trees in the fit's units with their
/// training losses, grouped by the round each records (in files written
/// before trees recorded it, by increasing outputs: a guess that merges a
/// round whose class trees end early with the next one's).
fn resumed_rounds(init: &Model, units: &Units) -> Vec<Vec<(Tree, f64)>> {
    let mut rounds: Vec<Vec<(Tree, f64)>> = Vec::new();
    let mut last: Option<&Tree> = None;
    for (t, tree) in init.trees.iter().enumerate() {
        let mut converted = tree.clone();
        for node in &mut converted.nodes {
            node.value = units.from_output(node.value);
        }
        let loss = init
            .train_loss
            .get(t)
            .map_or(f64::NAN, |&l| units.from_loss(l));
        match tree.round {
            // Rounds that grew no tree (a sampled round under a penalty)
            // are rounds too: the round numbers, and so the draws, go on
            // as in the fit.
            Some(round) => {
                while rounds.len() <= round as usize {
                    rounds.push(Vec::new());
                }
            }
            None => {
                if last.is_none_or(|previous| tree.output <= previous.output) {
                    rounds.push(Vec::new());
                }
            }
        }
        last = Some(tree);
        rounds.last_mut().expect("a round").push((converted, loss));
    }
    rounds
}

/// A tree's internal nodes in the order their splits were made (each
/// split appends its two children, so by their children's positions).
fn split_order(tree: &Tree) -> Vec<&Node> {
    let mut internal: Vec<&Node> = tree.nodes.iter().filter(|n| !n.is_leaf).collect();
    internal.sort_by_key(|n| n.left);
    internal
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::ObjectiveKind;

    fn model_of(trees: &[(Option<u32>, u32)]) -> Model {
        let mut model = Model::new(ObjectiveKind::MultiLogloss, 2, vec![0.0; 3]);
        for &(round, output) in trees {
            model.trees.push(Tree {
                output,
                round,
                root_scale: None,
                nodes: vec![Node::leaf(0.5, 10)],
            });
            model.train_loss.push(1.0);
        }
        model
    }

    fn outputs_by_round(model: &Model) -> Vec<Vec<u32>> {
        let units = Units::for_data(ObjectiveKind::MultiLogloss, &[0.0, 1.0, 2.0], None);
        resumed_rounds(model, &units)
            .iter()
            .map(|r| r.iter().map(|(t, _)| t.output).collect())
            .collect()
    }

    #[test]
    fn resumed_rounds_follow_the_recorded_rounds() {
        // Round 0 grew classes 0 and 1 (class 2 could not split), round 1
        // only class 2: the outputs alone would merge them into one round.
        let recorded = model_of(&[(Some(0), 0), (Some(0), 1), (Some(1), 2), (Some(2), 0)]);
        assert_eq!(
            outputs_by_round(&recorded),
            vec![vec![0, 1], vec![2], vec![0]]
        );
        // Files without rounds fall back to increasing outputs.
        let old = model_of(&[(None, 0), (None, 1), (None, 2), (None, 0)]);
        assert_eq!(outputs_by_round(&old), vec![vec![0, 1, 2], vec![0]]);
    }
}
