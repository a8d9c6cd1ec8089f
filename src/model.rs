//! A fitted ensemble, its JSON file format, and its importances.
//!
//! # File format (version 1)
//!
//! A JSON object:
//! - `format`: `"sparseboost-model"`, `version`: `1`;
//! - `objective`: `"squared_error"` or `"binary_logloss"`;
//! - `n_features`: d; `base_score`: the starting raw score;
//! - `trees`: a list of `{"nodes": [...]}`; node 0 is the root; each node has
//!   `is_leaf`, `feature`, `threshold` (`x <= threshold` goes left),
//!   `threshold_bin`, `default_left` (where NaN goes), `left`, `right` (node
//!   indices, always greater than the node's own), `value` (leaf output,
//!   learning rate included), `gain`, `count`;
//! - `train_loss`: the mean training loss after each tree;
//! - `selected_features`, `feature_entry_tree`: the features used by any
//!   split in the order they entered the model, and the tree at which each
//!   entered; `n_selected_after_tree`: how many were used after each tree;
//! - `gt_n_subsets`, `gt_cache_bytes`: with group testing, the number of
//!   feature subsets and the prefix-sum cache's size (else `null`).
//!
//! The raw score of a row is `base_score` plus the leaf value of every tree;
//! for `binary_logloss` it is a logit.

use crate::error::{Result, SbError};
use crate::params::ObjectiveKind;
use crate::tree::Tree;
use serde::{Deserialize, Serialize};

const FORMAT: &str = "sparseboost-model";
const VERSION: u32 = 1;

/// A fitted gradient-boosted ensemble.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Model {
    /// The loss the model was fitted for.
    pub objective: ObjectiveKind,
    /// Number of input features, d.
    pub n_features: usize,
    /// Raw score before any tree.
    pub base_score: f64,
    /// The trees, in boosting order.
    pub trees: Vec<Tree>,
    /// Mean training loss after each tree.
    pub train_loss: Vec<f64>,
    /// Features used by any split, in the order they entered (Ω).
    #[serde(default)]
    pub selected_features: Vec<usize>,
    /// The tree at which each of `selected_features` entered.
    #[serde(default)]
    pub feature_entry_tree: Vec<usize>,
    /// Number of features used after each tree.
    #[serde(default)]
    pub n_selected_after_tree: Vec<usize>,
    /// With group testing: the number of feature subsets p.
    #[serde(default)]
    pub gt_n_subsets: Option<usize>,
    /// With group testing: the bytes of the prefix-sum cache.
    #[serde(default)]
    pub gt_cache_bytes: Option<usize>,
}

#[derive(Serialize, Deserialize)]
struct ModelFile {
    format: String,
    version: u32,
    #[serde(flatten)]
    model: Model,
}

/// Which importance to compute.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImportanceKind {
    /// Total gain of the splits on a feature.
    Gain,
    /// Number of splits on a feature.
    Split,
}

impl Model {
    /// An ensemble with no trees yet.
    pub fn new(objective: ObjectiveKind, n_features: usize, base_score: f64) -> Self {
        Model {
            objective,
            n_features,
            base_score,
            trees: Vec::new(),
            train_loss: Vec::new(),
            selected_features: Vec::new(),
            feature_entry_tree: Vec::new(),
            n_selected_after_tree: Vec::new(),
            gt_n_subsets: None,
            gt_cache_bytes: None,
        }
    }

    /// Per-feature importance (length d), not normalised.
    pub fn importances(&self, kind: ImportanceKind) -> Vec<f64> {
        let mut out = vec![0.0; self.n_features];
        for node in self
            .trees
            .iter()
            .flat_map(|t| &t.nodes)
            .filter(|n| !n.is_leaf)
        {
            out[node.feature as usize] += match kind {
                ImportanceKind::Gain => node.gain,
                ImportanceKind::Split => 1.0,
            };
        }
        out
    }

    /// The model as a JSON document (see the module docs).
    pub fn to_json(&self) -> String {
        let file = ModelFile {
            format: FORMAT.into(),
            version: VERSION,
            model: self.clone(),
        };
        serde_json::to_string(&file).expect("a model always serialises")
    }

    /// Read a model written by [`Model::to_json`], checking that every tree
    /// is well formed (so prediction cannot loop or index out of bounds).
    pub fn from_json(text: &str) -> Result<Model> {
        let file: ModelFile =
            serde_json::from_str(text).map_err(|e| SbError::InvalidModel(e.to_string()))?;
        if file.format != FORMAT || file.version != VERSION {
            return Err(SbError::InvalidModel(format!(
                "expected format '{FORMAT}' version {VERSION}, got '{}' version {}",
                file.format, file.version
            )));
        }
        file.model.check()?;
        Ok(file.model)
    }

    /// Every tree is well formed: children after their parent, features in range.
    pub(crate) fn check(&self) -> Result<()> {
        for (t, tree) in self.trees.iter().enumerate() {
            let len = tree.nodes.len();
            if len == 0 {
                return Err(SbError::InvalidModel(format!("tree {t} has no nodes")));
            }
            for (i, node) in tree.nodes.iter().enumerate() {
                let ok = node.is_leaf
                    || ((node.feature as usize) < self.n_features
                        && (node.left as usize) > i
                        && (node.right as usize) > i
                        && (node.left as usize) < len
                        && (node.right as usize) < len);
                if !ok {
                    return Err(SbError::InvalidModel(format!(
                        "tree {t} node {i} is malformed"
                    )));
                }
            }
        }
        Ok(())
    }
}
