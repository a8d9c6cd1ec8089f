//! Raw scores: adding a new tree's outputs to the scores of the rows it
//! was grown on (through their leaves) and of every other row (through the
//! binned data).

use crate::binning::BinnedData;
use crate::grower::GrownTree;
use crate::tree::Tree;
use rayon::prelude::*;

/// The rows whose scores a tree updates: all rows of the data, or one
/// task's rows (ascending).
#[derive(Debug, Clone, Copy)]
pub(crate) enum Population<'a> {
    /// Every row of the data (a single-task fit).
    All,
    /// These rows only (one task of a multitask fit).
    Rows(&'a [u32]),
}

/// Add the new tree's output to the raw score of every row of `population`:
/// in-sample rows through their leaf, out-of-sample rows by traversal.
pub(crate) fn update_scores(
    raw: &mut [f64],
    grown: &GrownTree,
    binned: &BinnedData,
    population: Population,
    subsampled: bool,
) {
    if subsampled {
        let mut in_sample = vec![false; raw.len()];
        for &r in &grown.rows {
            in_sample[r as usize] = true;
        }
        match population {
            Population::All => {
                raw.par_iter_mut()
                    .enumerate()
                    .with_min_len(1024)
                    .for_each(|(r, s)| {
                        if !in_sample[r] {
                            *s += grown.tree.predict_binned(binned, r);
                        }
                    })
            }
            Population::Rows(rows) => {
                let outside: Vec<(usize, f64)> = rows
                    .par_iter()
                    .with_min_len(1024)
                    .map(|&r| r as usize)
                    .filter(|&r| !in_sample[r])
                    .map(|r| (r, grown.tree.predict_binned(binned, r)))
                    .collect();
                for (r, value) in outside {
                    raw[r] += value;
                }
            }
        }
    }
    for leaf in &grown.leaves {
        let value = grown.tree.nodes[leaf.node].value;
        for &r in &grown.rows[leaf.begin..leaf.begin + leaf.count] {
            raw[r as usize] += value;
        }
    }
}

/// Add `tree`'s output, mapped by `convert`, to `scores[i]` for every row
/// `i` of `rows` (all rows of `binned` for `None`), by traversal of the
/// binned rows (an evaluation set's scores, updated after every tree).
pub(crate) fn add_tree(
    scores: &mut [f64],
    tree: &Tree,
    binned: &BinnedData,
    rows: Option<&[u32]>,
    convert: impl Fn(f64) -> f64 + Sync,
) {
    match rows {
        None => scores
            .par_iter_mut()
            .enumerate()
            .with_min_len(1024)
            .for_each(|(r, s)| *s += convert(tree.predict_binned(binned, r))),
        Some(rows) => {
            let values: Vec<f64> = rows
                .par_iter()
                .with_min_len(1024)
                .map(|&r| convert(tree.predict_binned(binned, r as usize)))
                .collect();
            for (&r, v) in rows.iter().zip(values) {
                scores[r as usize] += v;
            }
        }
    }
}
