//! Raw scores: adding a new tree's outputs to the scores of the rows it
//! was grown on (through their leaves) and of every other row (through the
//! binned data).

use crate::binning::{BinMapper, BinnedData, BinnedMatrix};
use crate::grower::GrownTree;
use crate::routing::BinSet;
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
        let router = BinnedTree::new(&grown.tree, &binned.mappers, 1, |v| v);
        match population {
            Population::All => {
                raw.par_iter_mut()
                    .enumerate()
                    .with_min_len(1024)
                    .for_each(|(r, s)| {
                        if !in_sample[r] {
                            *s += router.value(binned, r);
                        }
                    })
            }
            Population::Rows(rows) => {
                let outside: Vec<(usize, f64)> = rows
                    .par_iter()
                    .with_min_len(1024)
                    .map(|&r| r as usize)
                    .filter(|&r| !in_sample[r])
                    .map(|r| (r, router.value(binned, r)))
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

/// The output of `grown`'s tree for every row of the data it was grown on,
/// in-sample or not (a forest's out-of-bag rows).
pub(crate) fn tree_values(grown: &GrownTree, binned: &BinnedData) -> Vec<f64> {
    tree_outputs(&grown.tree, binned)
}

/// The output of `tree` for every row of `binned`.
pub(crate) fn tree_outputs(tree: &Tree, binned: &BinnedData) -> Vec<f64> {
    let router = BinnedTree::new(tree, &binned.mappers, 1, |v| v);
    let mut values = vec![0.0; binned.n_rows];
    values
        .par_chunks_mut(ROW_BLOCK)
        .enumerate()
        .for_each(|(b, out)| router.add_rows(binned, b * ROW_BLOCK, out));
    values
}

/// Rows per parallel block of [`add_trees`].
const ROW_BLOCK: usize = 1024;

/// Add each tree's output, mapped by `convert`, to its output's row of
/// `scores` (K, m) for every row `i` of `rows` (all rows of `binned` for
/// `None`), by routing the binned rows: an evaluation set's scores, updated
/// after every round. One pass over blocks of rows serves all the trees (a
/// round's K class trees), so each block's bins are read from memory once.
pub(crate) fn add_trees(
    scores: &mut Array2<f64>,
    trees: &[(usize, &Tree)],
    binned: &BinnedMatrix,
    rows: Option<&[u32]>,
    convert: impl Fn(f64) -> f64,
) {
    let routers: Vec<(usize, BinnedTree)> = trees
        .iter()
        .map(|&(output, tree)| {
            (
                output,
                BinnedTree::with_missing(tree, &binned.missing, binned.n_rows, &convert),
            )
        })
        .collect();
    let bins = &binned.bins[..];
    match rows {
        // Blocks of rows: within one, each tree walks its output's
        // contiguous scores while the block's bins stay in cache.
        None => scores
            .axis_chunks_iter_mut(Axis(1), ROW_BLOCK)
            .into_par_iter()
            .enumerate()
            .for_each(|(b, mut block)| {
                for (output, router) in &routers {
                    let mut out = block.row_mut(*output);
                    let out = out.as_slice_mut().expect("score rows are contiguous");
                    router.add_rows(bins, b * ROW_BLOCK, out);
                }
            }),
        Some(rows) => {
            for (output, router) in &routers {
                let values: Vec<f64> = rows
                    .par_iter()
                    .with_min_len(1024)
                    .map(|&r| router.value(bins, r as usize))
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
    /// The most splits on a path from the root to a leaf.
    depth: usize,
}

/// The depth of `tree` (0 for a lone leaf). Children come after their
/// parent, so one forward pass finds every node's depth.
fn depth(tree: &Tree) -> usize {
    let mut at = vec![0usize; tree.nodes.len()];
    let mut deepest = 0;
    for (i, n) in tree.nodes.iter().enumerate() {
        deepest = deepest.max(at[i]);
        if !n.is_leaf {
            at[n.left as usize] = at[i] + 1;
            at[n.right as usize] = at[i] + 1;
        }
    }
    deepest
}

/// Where a router reads the bin of a node's feature at a row.
trait Bins: Sync {
    fn at(&self, node: &BinnedNode, row: usize) -> u8;
}

/// Column-major dense bins (an evaluation set): a node's offset is where
/// its feature's column starts.
impl Bins for [u8] {
    #[inline(always)]
    fn at(&self, node: &BinnedNode, row: usize) -> u8 {
        self[node.offset + row]
    }
}

/// The training data, dense or sparse columns: a node's offset is its
/// feature (stride 1).
impl Bins for BinnedData {
    #[inline(always)]
    fn at(&self, node: &BinnedNode, row: usize) -> u8 {
        self.bin_at(node.offset, row)
    }
}

#[derive(Debug, Clone, Copy)]
struct BinnedNode {
    /// The split feature times the stride between features.
    offset: usize,
    /// The bins that go left.
    left_bins: BinSet,
    is_leaf: bool,
    left: u32,
    right: u32,
    /// A leaf's output (converted).
    value: f64,
}

impl BinnedTree {
    /// For bins whose features are `feature_stride` apart (1 for
    /// [`BinnedData`], whose node offsets are features).
    fn new(
        tree: &Tree,
        mappers: &[BinMapper],
        feature_stride: usize,
        convert: impl Fn(f64) -> f64,
    ) -> Self {
        let missing: Vec<u8> = mappers.iter().map(BinMapper::missing_bin).collect();
        BinnedTree::with_missing(tree, &missing, feature_stride, convert)
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
            .enumerate()
            .map(|(i, n)| {
                let f = n.feature as usize;
                // A leaf leads to itself, so that a row stepping on from a
                // leaf stays there (see `add_rows`).
                let (left, right) = if n.is_leaf {
                    (i as u32, i as u32)
                } else {
                    (n.left, n.right)
                };
                BinnedNode {
                    offset: if n.is_leaf { 0 } else { f * feature_stride },
                    left_bins: match n.is_leaf {
                        true => BinSet::default(),
                        false => BinSet::of_node(n, missing[f]),
                    },
                    is_leaf: n.is_leaf,
                    left,
                    right,
                    value: if n.is_leaf { convert(n.value) } else { 0.0 },
                }
            })
            .collect();
        BinnedTree {
            depth: depth(tree),
            nodes,
        }
    }

    /// The output of the row whose bins start at `row` (its offset in
    /// `bins`).
    #[inline]
    fn value<B: Bins + ?Sized>(&self, bins: &B, row: usize) -> f64 {
        let mut node = &self.nodes[0];
        while !node.is_leaf {
            node = &self.nodes[self.step(node, bins, row) as usize];
        }
        node.value
    }

    /// The child of `node` that the row whose bins start at `row` takes.
    #[inline]
    fn step<B: Bins + ?Sized>(&self, node: &BinnedNode, bins: &B, row: usize) -> u32 {
        let bin = bins.at(node, row);
        let left = node.left_bins.contains(bin);
        if left {
            node.left
        } else {
            node.right
        }
    }

    /// Add the outputs of rows `first..first + out.len()` to `out`. Rows walk down in groups of
    /// `LANES` in lockstep (a leaf steps to itself) until all are at
    /// leaves, so the loads of one group's bins overlap instead of each
    /// waiting for the one before, and no branch depends on one row's way.
    fn add_rows<B: Bins + ?Sized>(&self, bins: &B, first: usize, out: &mut [f64]) {
        const LANES: usize = 8;
        let done = out.len() / LANES * LANES;
        let mut groups = out.chunks_exact_mut(LANES);
        for (g, group) in groups.by_ref().enumerate() {
            let base = first + g * LANES;
            let mut at = [0u32; LANES];
            for _ in 0..self.depth {
                for (lane, node) in at.iter_mut().enumerate() {
                    *node = self.step(&self.nodes[*node as usize], bins, base + lane);
                }
                // Deep, lopsided trees: stop once the whole group is down.
                if at.iter().all(|&n| self.nodes[n as usize].is_leaf) {
                    break;
                }
            }
            for (v, &node) in group.iter_mut().zip(&at) {
                *v += self.nodes[node as usize].value;
            }
        }
        for (i, v) in groups.into_remainder().iter_mut().enumerate() {
            *v += self.value(bins, first + done + i);
        }
    }
}
