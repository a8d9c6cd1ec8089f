//! Evaluation during a fit: the evaluation sets (binned with the training
//! cut points, scored incrementally as trees are added), and the end of a
//! boosting round as the trainer (and a resumed fit's replay) records it:
//! the round's trees scored, the dynamic weights fed,
//! the evaluation recorded and early stopping decided.

use crate::binning::{BinMapper, BinnedMatrix};
use crate::data::query_ranges;
use crate::error::Result;
use crate::feature_sampling::DynamicWeights;
use crate::interrupt::ShouldStop;
use crate::matrix::FeatureMatrix;
use crate::metrics::Metric;
use crate::objective::Targets;
use crate::params::BoosterParams;
use crate::scores::add_trees;
use crate::trainer::{gather, History, Job};
use crate::tree::Tree;
use crate::units::Units;
use ndarray::Array2;
use std::ops::Range;

/// An evaluation set: its binned rows (the training cut points), its
/// targets in the user's units, and which of its rows each model scores.
pub struct EvalSet<'a> {
    /// Features (the training data's columns), NaN for missing.
    pub x: FeatureMatrix<'a>,
    /// Labels.
    pub y: &'a [f64],
    /// Weights, or `None`.
    pub weights: Option<&'a [f64]>,
    /// Ranking: query sizes.
    pub group_sizes: Option<&'a [usize]>,
    /// Multitask: the task of every row (else `None`: every model scores
    /// every row).
    pub task: Option<&'a [usize]>,
}

/// The end of a round, as the trainer records it: its trees go to
/// the evaluation sets' scores and to the dynamic weights, then the
/// evaluation is recorded.
pub(crate) struct RoundEnd<'a> {
    pub round: usize,
    /// Whether the round added a tree: a round that added none (its sample
    /// could not split) changes no score, and does not count against early
    /// stopping's patience.
    pub grew: bool,
    /// The round's trees, with their jobs and root scales.
    pub trees: &'a [(Job, Tree, f64)],
    pub units: &'a Units,
    pub metrics: &'a [Metric],
    pub params: &'a BoosterParams,
}

impl RoundEnd<'_> {
    /// Score `evals`, feed `dynamic`, record the round in `history`; the
    /// evaluation `[set][metric]` and whether early stopping ends the fit.
    pub(crate) fn record(
        &self,
        evals: &mut [EvalState],
        dynamic: Option<&mut DynamicWeights>,
        history: &mut History,
        since_best: &mut usize,
    ) -> (Vec<Vec<f64>>, bool) {
        for eval in evals.iter_mut() {
            eval.add_round(self.trees, self.units);
        }
        let mut dynamic = dynamic;
        if let Some(dynamic) = dynamic.as_deref_mut() {
            dynamic.observe(self.trees.iter().map(|(_, tree, root)| (tree, *root)));
        }
        history.rounds = self.round + 1;
        let eval: Vec<Vec<f64>> = evals.iter().map(|e| e.evaluate(self.metrics)).collect();
        let round = self.round;
        let grown = (round, self.grew);
        let stop = record_evaluation(history, &eval, self.metrics, grown, since_best, self.params);
        let best_now = history.best.is_some_and(|(best, _)| best == round);
        if let (Some(dynamic), true) = (
            dynamic,
            best_now && self.params.early_stopping_rounds.is_some(),
        ) {
            dynamic.mark_best();
        }
        (eval, stop)
    }
}

/// Append a round's evaluation `eval[s][m]` to `history`, follow the best
/// round of the last metric of the last set, and say whether early
/// stopping ends the fit (`since_best` rounds without improvement).
fn record_evaluation(
    history: &mut History,
    eval: &[Vec<f64>],
    metrics: &[Metric],
    (round, grew): (usize, bool),
    since_best: &mut usize,
    params: &BoosterParams,
) -> bool {
    for (s, values) in eval.iter().enumerate() {
        for (m, &v) in values.iter().enumerate() {
            history.values[s][m].push(v);
        }
    }
    let Some(current) = eval.last().and_then(|v| v.last().copied()) else {
        return false;
    };
    let higher = metrics
        .last()
        .expect("one metric at least")
        .higher_is_better();
    let better = match history.best {
        None => true,
        Some((_, best)) => {
            if higher {
                current > best
            } else {
                current < best
            }
        }
    };
    if better {
        history.best = Some((round, current));
        *since_best = 0;
    } else if grew {
        *since_best += 1;
    }
    grew && params
        .early_stopping_rounds
        .is_some_and(|r| *since_best >= r)
}

/// An evaluation set during the fit: binned, with scores in user units.
pub(crate) struct EvalState<'a> {
    set: &'a EvalSet<'a>,
    binned: BinnedMatrix,
    /// (K, m) raw scores in the user's units.
    scores: Array2<f64>,
    /// Rows of each model (multitask: of each task), `None` for all.
    model_rows: Vec<Option<Vec<u32>>>,
    queries: Option<Vec<Range<usize>>>,
}

impl<'a> EvalState<'a> {
    pub(crate) fn new(
        set: &'a EvalSet<'a>,
        mappers: &[BinMapper],
        base_scores: &[Vec<f64>],
        units: &Units,
        should_stop: &ShouldStop,
    ) -> Result<Self> {
        let binned = crate::binning::bin_features_with(&set.x, mappers, should_stop)?;
        let k = base_scores[0].len();
        let mut scores = Array2::zeros((k, set.x.n_rows));
        let model_rows: Vec<Option<Vec<u32>>> = match set.task {
            None => vec![None; base_scores.len()],
            Some(task) => (0..base_scores.len())
                .map(|t| {
                    Some(
                        (0..set.x.n_rows as u32)
                            .filter(|&r| task[r as usize] == t)
                            .collect(),
                    )
                })
                .collect(),
        };
        for (m, rows) in model_rows.iter().enumerate() {
            for (o, &b) in base_scores[m].iter().enumerate() {
                let b = units.output(b);
                match rows {
                    None => scores.row_mut(o).fill(b),
                    Some(rows) => rows.iter().for_each(|&r| scores[[o, r as usize]] = b),
                }
            }
        }
        let queries = set.group_sizes.map(query_ranges);
        Ok(EvalState {
            set,
            binned,
            scores,
            model_rows,
            queries,
        })
    }

    /// Add a round's trees to the scores: all of them in one pass over the
    /// rows when every model scores every row, else job by job.
    pub(crate) fn add_round(&mut self, trees: &[(Job, Tree, f64)], units: &Units) {
        let convert = |v| units.output(v);
        if self.model_rows.iter().all(Option::is_none) {
            let outputs: Vec<(usize, &Tree)> =
                trees.iter().map(|(j, t, _)| (j.output, t)).collect();
            add_trees(&mut self.scores, &outputs, &self.binned, None, convert);
        } else {
            for (job, tree, _) in trees {
                // A shared tree (no model) scores every row.
                let rows = job.model.and_then(|m| self.model_rows[m].as_deref());
                add_trees(
                    &mut self.scores,
                    &[(job.output, tree)],
                    &self.binned,
                    rows,
                    convert,
                );
            }
        }
    }

    /// Each metric: over all rows, or (multitask) the mean over tasks
    /// weighted by their rows.
    pub(crate) fn evaluate(&self, metrics: &[Metric]) -> Vec<f64> {
        metrics
            .iter()
            .map(|metric| match self.model_rows.first() {
                Some(Some(_)) => {
                    let (mut total, mut mass) = (0.0, 0.0);
                    for rows in self.model_rows.iter().flatten() {
                        if rows.is_empty() {
                            continue;
                        }
                        let pick = |v: &[f64]| rows.iter().map(|&r| v[r as usize]).collect();
                        let y: Vec<f64> = pick(self.set.y);
                        let w: Option<Vec<f64>> = self.set.weights.map(pick);
                        let scores = gather(self.scores.view(), rows);
                        let t = Targets {
                            y: &y,
                            weights: w.as_deref(),
                            queries: None,
                        };
                        total += rows.len() as f64 * metric.evaluate(&t, scores.view());
                        mass += rows.len() as f64;
                    }
                    total / mass
                }
                _ => metric.evaluate(
                    &Targets {
                        y: self.set.y,
                        weights: self.set.weights,
                        queries: self.queries.as_deref(),
                    },
                    self.scores.view(),
                ),
            })
            .collect()
    }
}
