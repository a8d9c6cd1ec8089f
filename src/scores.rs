//! Raw scores: adding a new tree's outputs to the scores of the rows it
//! was grown on (through their leaves) and of every other row (through the
//! binned data).

use crate::binning::{BinMapper, BinnedData, RowBins};
use crate::grower::GrownTree;
use crate::tree::Tree;
use ndarray::{Array2, Axis};
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
        let router = BinnedTree::new(&grown.tree, &binned.mappers, binned.n_rows, |v| v);
        match population {
            Population::All => {
                raw.par_iter_mut()
                    .enumerate()
                    .with_min_len(1024)
                    .for_each(|(r, s)| {
                        if !in_sample[r] {
                            *s += router.value(&binned.bins, r);
                        }
                    })
            }
            Population::Rows(rows) => {
                let outside: Vec<(usize, f64)> = rows
                    .par_iter()
                    .with_min_len(1024)
                    .map(|&r| r as usize)
                    .filter(|&r| !in_sample[r])
                    .map(|r| (r, router.value(&binned.bins, r)))
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

/// Add each tree's output, mapped by `convert`, to its output's row of
/// `scores` (K, m) for every row `i` of `rows` (all rows of `binned` for
/// `None`), by routing the binned rows: an evaluation set's scores, updated
/// after every round. One pass over the rows serves all the trees (a
/// round's K class trees), so each row's bins are read once.
pub(crate) fn add_trees(
    scores: &mut Array2<f64>,
    trees: &[(usize, &Tree)],
    binned: &RowBins,
    rows: Option<&[u32]>,
    convert: impl Fn(f64) -> f64,
) {
    let routers: Vec<(usize, BinnedTree)> = trees
        .iter()
        .map(|&(output, tree)| {
            (
                output,
                BinnedTree::with_missing(tree, &binned.missing, 1, &convert),
            )
        })
        .collect();
    let (bins, d) = (&binned.bins[..], binned.n_features);
    match rows {
        None => scores
            .axis_iter_mut(Axis(1))
            .into_par_iter()
            .enumerate()
            .with_min_len(1024)
            .for_each(|(r, mut column)| {
                for (output, router) in &routers {
                    column[*output] += router.value(bins, r * d);
                }
            }),
        Some(rows) => {
            for (output, router) in &routers {
                let values: Vec<f64> = rows
                    .par_iter()
                    .with_min_len(1024)
                    .map(|&r| router.value(bins, r as usize * d))
                    .collect();
                let mut out = scores.row_mut(*output);
                for (&r, v) in rows.iter().zip(values) {
                    out[r as usize] += v;
                }
            }
        }
    }
}

/// A tree's splits in the terms of one binned matrix, packed for routing
/// its rows: each node holds the offset of its feature (times the matrix's
/// stride between features) and the feature's missing bin, so a step is one
/// load of a bin.
struct BinnedTree {
    nodes: Vec<BinnedNode>,
}

#[derive(Debug, Clone, Copy)]
struct BinnedNode {
    /// The split feature times the stride between features.
    offset: usize,
    threshold: u8,
    missing: u8,
    default_left: bool,
    is_leaf: bool,
    left: u32,
    right: u32,
    /// A leaf's output (converted).
    value: f64,
}

impl BinnedTree {
    /// For column-major bins of `n_rows` rows.
    fn new(
        tree: &Tree,
        mappers: &[BinMapper],
        n_rows: usize,
        convert: impl Fn(f64) -> f64,
    ) -> Self {
        let missing: Vec<u8> = mappers.iter().map(BinMapper::missing_bin).collect();
        BinnedTree::with_missing(tree, &missing, n_rows, convert)
    }

    /// For bins whose features are `feature_stride` apart, with the NaN bin
    /// of each feature.
    fn with_missing(
        tree: &Tree,
        missing: &[u8],
        feature_stride: usize,
        convert: impl Fn(f64) -> f64,
    ) -> Self {
        let nodes = tree
            .nodes
            .iter()
            .map(|n| {
                let f = n.feature as usize;
                BinnedNode {
                    offset: if n.is_leaf { 0 } else { f * feature_stride },
                    threshold: n.threshold_bin,
                    missing: if n.is_leaf { 0 } else { missing[f] },
                    default_left: n.default_left,
                    is_leaf: n.is_leaf,
                    left: n.left,
                    right: n.right,
                    value: if n.is_leaf { convert(n.value) } else { 0.0 },
                }
            })
            .collect();
        BinnedTree { nodes }
    }

    /// The output of the row whose bins start at `row` (its offset in
    /// `bins`).
    #[inline]
    fn value(&self, bins: &[u8], row: usize) -> f64 {
        let mut node = &self.nodes[0];
        while !node.is_leaf {
            let bin = bins[node.offset + row];
            let left = if bin == node.missing {
                node.default_left
            } else {
                bin <= node.threshold
            };
            node = &self.nodes[if left { node.left } else { node.right } as usize];
        }
        node.value
    }
}
