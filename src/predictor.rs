//! Fast batch prediction: all trees packed into one flat node array, rows
//! processed in parallel chunks.

use crate::categorical::code_goes_left;
use crate::error::{Result, SbError};
use crate::interrupt::{self, ShouldStop};
use crate::matrix::{FeatureMatrix, Layout, Values};
use crate::model::Model;
use crate::routing::value_goes_left;
use rayon::prelude::*;

/// A node of the packed forest; child indices are absolute.
#[derive(Debug, Clone, Copy)]
struct FlatNode {
    threshold: f64,
    /// Leaf output for leaves.
    value: f64,
    feature: u32,
    left: u32,
    right: u32,
    is_leaf: bool,
    default_left: bool,
    /// A categorical split: its codes are `codes[categories]`;
    /// `u32::MAX` for a threshold split.
    categories: u32,
}

/// All trees of a model in one array, ready for fast traversal.
#[derive(Debug, Clone)]
pub struct Predictor {
    nodes: Vec<FlatNode>,
    /// The codes sent left by each categorical split.
    codes: Vec<Vec<u32>>,
    /// The root of every tree and the output it adds to.
    roots: Vec<(u32, u32)>,
    base_score: Vec<f64>,
    n_features: usize,
}

const ROWS_PER_TASK: usize = 256;

impl Predictor {
    /// Pack `model`.
    pub fn new(model: &Model) -> Self {
        let mut nodes = Vec::new();
        let mut codes = Vec::new();
        let mut roots = Vec::with_capacity(model.trees.len());
        for tree in &model.trees {
            let offset = nodes.len() as u32;
            roots.push((offset, tree.output));
            nodes.extend(tree.nodes.iter().map(|n| FlatNode {
                categories: match &n.categories {
                    None => u32::MAX,
                    Some(set) => {
                        codes.push(set.clone());
                        codes.len() as u32 - 1
                    }
                },
                threshold: n.threshold,
                value: n.value,
                feature: n.feature,
                left: n.left + offset,
                right: n.right + offset,
                is_leaf: n.is_leaf,
                default_left: n.default_left,
            }));
        }
        Predictor {
            nodes,
            codes,
            roots,
            base_score: model.base_score.clone(),
            n_features: model.n_features,
        }
    }

    /// K, the raw scores per row.
    pub fn n_outputs(&self) -> usize {
        self.base_score.len()
    }

    /// Write the K raw scores of `row` to `out`.
    #[inline]
    fn predict_row(&self, row: &[f64], out: &mut [f64]) {
        out.copy_from_slice(&self.base_score);
        for &(root, output) in &self.roots {
            let mut i = root as usize;
            loop {
                let node = &self.nodes[i];
                if node.is_leaf {
                    out[output as usize] += node.value;
                    break;
                }
                let v = row[node.feature as usize];
                let left = match node.categories {
                    u32::MAX => value_goes_left(v, node.threshold, node.default_left),
                    set => code_goes_left(v, &self.codes[set as usize]),
                };
                i = if left { node.left } else { node.right } as usize;
            }
        }
    }

    /// Raw scores of `x` (dense, or CSR: a sparse matrix's absent entries
    /// are zeros): row-major (n, K), K = [`Predictor::n_outputs`]. Runs on
    /// the current Rayon pool; `should_stop` is polled before every block of
    /// rows.
    pub fn predict_raw(&self, x: &FeatureMatrix, should_stop: &ShouldStop) -> Result<Vec<f64>> {
        x.validate()?;
        let d = x.n_features;
        if d != self.n_features {
            return Err(SbError::InvalidInput(format!(
                "X has {d} features, but the model was fitted with {}",
                self.n_features
            )));
        }
        if let Layout::Csc(_) = x.layout {
            return Err(SbError::InvalidInput(
                "a sparse X must be passed to prediction as CSR (scipy's tocsr())".into(),
            ));
        }
        let k = self.n_outputs();
        let mut out = crate::memory::try_filled::<f64>(x.n_rows * k, "the predictions")?;
        out.par_chunks_mut(ROWS_PER_TASK * k)
            .enumerate()
            .try_for_each(|(chunk, out)| {
                interrupt::check(should_stop)?;
                let first = chunk * ROWS_PER_TASK;
                // One row of values at a time, as float64: f32 rows are
                // converted, CSR rows scattered over zeros and cleared after.
                let mut row = match (x.layout, x.values) {
                    (Layout::Dense, Values::F64(_)) => Vec::new(),
                    _ => vec![0.0; d],
                };
                for (i, o) in out.chunks_mut(k).enumerate() {
                    let r = first + i;
                    match (x.layout, x.values) {
                        (Layout::Dense, Values::F64(v)) => {
                            self.predict_row(&v[r * d..(r + 1) * d], o)
                        }
                        (Layout::Dense, Values::F32(v)) => {
                            for (to, &from) in row.iter_mut().zip(&v[r * d..(r + 1) * d]) {
                                *to = f64::from(from);
                            }
                            self.predict_row(&row, o);
                        }
                        (Layout::Csr(csr), values) => {
                            let range = csr.range(r);
                            for i in range.clone() {
                                row[csr.indices[i] as usize] = values.get(i);
                            }
                            self.predict_row(&row, o);
                            for &j in &csr.indices[range] {
                                row[j as usize] = 0.0;
                            }
                        }
                        (Layout::Csc(_), _) => unreachable!("rejected above"),
                    }
                }
                Ok(())
            })?;
        Ok(out)
    }
}
