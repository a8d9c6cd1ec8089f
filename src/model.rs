//! A fitted ensemble, its JSON file format, and its importances.
//!
//! # File format (version 3)
//!
//! A JSON object:
//! - `format`: `"sparseboost-model"`, `version`: `3`;
//! - `objective`: `"squared_error"`, `"binary_logloss"`, `"multi_logloss"`
//!   or `"lambdarank"`;
//! - `n_outputs`: K, the raw scores per row (the classes of
//!   `multi_logloss`, else 1);
//! - `n_features`: d; `base_score`: the K starting raw scores;
//! - `trees`: a list of `{"output": k, "round": r, "root_scale": s,
//!   "nodes": [...]}`: the tree adds to raw score k and was grown in
//!   boosting round r (a forest's member r; from 0) on rows whose
//!   `Σ g²/h − G²/H` is s (in the units of the gains); node 0 is the root;
//!   each node has
//!   `is_leaf`, `feature`, `threshold` (`x <= threshold` goes left),
//!   `threshold_bin`, `default_left` (where NaN goes), `left`, `right` (node
//!   indices, always greater than the node's own), `value` (leaf output,
//!   learning rate included), `gain`, `count`;
//! - `train_loss`: the mean training loss after each tree (the K class trees
//!   of a round share the loss after the round); empty when the fit did not
//!   record it (`record_train_loss`);
//! - `selected_features`, `feature_entry_tree`: the features used by any
//!   split in the order they entered the model, and the tree at which each
//!   entered; `n_selected_after_tree`: how many were used after each tree;
//! - `gt_n_subsets`, `gt_cache_bytes`: with group testing, the number of
//!   feature subsets and the prefix-sum cache's size (else `null`);
//! - `feature_weights`: the final sampling probability of each feature
//!   (summing to 1; uniform unless `feature_sampling="dynamic"`; empty in
//!   files written before it);
//! - `gain_exponent`: node gains are in the fit's units (see
//!   [`crate::units`]); `gain · 2^gain_exponent` is the gain in the units of
//!   the targets and weights (0 when absent).
//!
//! Raw score k of a row is `base_score[k]` plus the leaf value of every
//! tree of output k; for `binary_logloss` it is a logit, for
//! `multi_logloss` the softmax of the K scores gives the class
//! probabilities.
//!
//! Version 1 files (one output: `base_score` a number, no `n_outputs`, no
//! tree `output`) and version 2 files (no tree `round` nor `root_scale`)
//! still load.
//!
//! A model file is untrusted input: [`Model::from_json`] checks every size
//! and index against the trees and against [`MAX_FEATURES`], every number
//! for finiteness, that the nodes form trees, that the selection records
//! are the ones the trees imply, and that no prediction can overflow.

use crate::data::MAX_FEATURES;
use crate::error::{Result, SbError};
use crate::params::ObjectiveKind;
use crate::tree::Tree;
use crate::units::user_gain;
use serde::{Deserialize, Serialize};

const FORMAT: &str = "sparseboost-model";
const VERSION: u32 = 3;

/// The most outputs (classes) a model may have.
pub const MAX_OUTPUTS: usize = 1 << 16;

/// A fitted gradient-boosted ensemble.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Model {
    /// The loss the model was fitted for.
    pub objective: ObjectiveKind,
    /// K, the raw scores per row.
    #[serde(default = "one")]
    pub n_outputs: usize,
    /// Number of input features, d.
    pub n_features: usize,
    /// The K raw scores before any tree (a number in version 1 files).
    #[serde(deserialize_with = "one_or_many")]
    pub base_score: Vec<f64>,
    /// The trees, in boosting order.
    pub trees: Vec<Tree>,
    /// Mean training loss after each tree (after its round, for class trees).
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
    /// Node gains times `2^gain_exponent` are gains in the user's units.
    #[serde(default)]
    pub gain_exponent: i32,
    /// Final feature sampling probabilities (length d, summing to 1), or
    /// empty.
    #[serde(default)]
    pub feature_weights: Vec<f64>,
    /// The categorical features (ascending): their splits are sets of
    /// category codes, and only theirs are.
    #[serde(default)]
    pub categorical_features: Vec<usize>,
}

fn one() -> usize {
    1
}

/// A number (version 1) or a list of numbers.
fn one_or_many<'de, D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Vec<f64>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum OneOrMany {
        One(f64),
        Many(Vec<f64>),
    }
    Ok(match OneOrMany::deserialize(d)? {
        OneOrMany::One(v) => vec![v],
        OneOrMany::Many(v) => v,
    })
}

#[derive(Serialize)]
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
    /// For each of `categorical_features`, the number of codes its splits
    /// need: one more than the largest code any split sends left (0 if no
    /// split uses it). A file's categories must have at least as many.
    pub fn category_codes_needed(&self) -> Vec<usize> {
        let mut needed = vec![0; self.categorical_features.len()];
        for node in self.trees.iter().flat_map(|t| &t.nodes) {
            let (Some(codes), false) = (&node.categories, node.is_leaf) else {
                continue;
            };
            if let Ok(k) = self
                .categorical_features
                .binary_search(&(node.feature as usize))
            {
                let largest = codes.last().map_or(0, |&c| c as usize + 1);
                needed[k] = needed[k].max(largest);
            }
        }
        needed
    }

    /// An ensemble with no trees yet, of `base_score.len()` outputs.
    pub fn new(objective: ObjectiveKind, n_features: usize, base_score: Vec<f64>) -> Self {
        Model {
            objective,
            n_outputs: base_score.len(),
            n_features,
            base_score,
            trees: Vec::new(),
            train_loss: Vec::new(),
            selected_features: Vec::new(),
            feature_entry_tree: Vec::new(),
            n_selected_after_tree: Vec::new(),
            gt_n_subsets: None,
            gt_cache_bytes: None,
            gain_exponent: 0,
            feature_weights: Vec::new(),
            categorical_features: Vec::new(),
        }
    }

    /// Per-feature importance (length d): total gain (in the units of the
    /// targets and weights, saturating at the largest `f64`) or number of
    /// splits; `normalize` makes it sum to 1 (all zeros without splits),
    /// computed in the fit's units so that it never under- or overflows.
    pub fn importances(&self, kind: ImportanceKind, normalize: bool) -> Vec<f64> {
        let mut sums = vec![0.0; self.n_features];
        self.add_importances(kind, &mut sums);
        finish_importances(sums, kind, normalize, self.gain_exponent)
    }

    /// Add each split's gain (in the fit's units) or 1 to its feature's
    /// entry of `sums` (length d).
    pub(crate) fn add_importances(&self, kind: ImportanceKind, sums: &mut [f64]) {
        for node in self
            .trees
            .iter()
            .flat_map(|t| &t.nodes)
            .filter(|n| !n.is_leaf)
        {
            sums[node.feature as usize] += match kind {
                ImportanceKind::Gain => node.gain,
                ImportanceKind::Split => 1.0,
            };
        }
    }

    /// Set the selection records from the trees.
    pub(crate) fn record_selection(&mut self) {
        let (features, entry_tree, n_after) = self.selection();
        self.selected_features = features;
        self.feature_entry_tree = entry_tree;
        self.n_selected_after_tree = n_after;
    }

    /// What the trees imply: the features used by any split in the order
    /// they entered, the tree at which each entered, and how many were used
    /// after each tree. A tree's splits were made in the order of their
    /// children's indices (each split appends its two children).
    fn selection(&self) -> (Vec<usize>, Vec<usize>, Vec<usize>) {
        let mut used = vec![false; self.n_features];
        let (mut features, mut entry_tree, mut n_after) = (Vec::new(), Vec::new(), Vec::new());
        for (t, tree) in self.trees.iter().enumerate() {
            let mut splits: Vec<_> = tree.nodes.iter().filter(|n| !n.is_leaf).collect();
            splits.sort_by_key(|n| n.left);
            for node in splits {
                let f = node.feature as usize;
                if !used[f] {
                    used[f] = true;
                    features.push(f);
                    entry_tree.push(t);
                }
            }
            n_after.push(features.len());
        }
        (features, entry_tree, n_after)
    }

    /// A bound on the magnitude of any raw score: the largest over outputs
    /// of `|base_score|` plus every tree's largest |leaf value|. Finite
    /// means no prediction overflows.
    pub fn output_bound(&self) -> f64 {
        let mut bounds: Vec<f64> = self.base_score.iter().map(|b| b.abs()).collect();
        for tree in &self.trees {
            let largest = tree
                .nodes
                .iter()
                .filter(|n| n.is_leaf)
                .fold(0.0, |m: f64, n| m.max(n.value.abs()));
            if let Some(b) = bounds.get_mut(tree.output as usize) {
                *b += largest;
            }
        }
        bounds.into_iter().fold(0.0, f64::max)
    }

    /// Keep the first `n_trees` trees (early stopping's best iteration);
    /// the selection records follow the kept trees.
    pub fn truncate(&mut self, n_trees: usize) {
        self.trees.truncate(n_trees);
        self.train_loss.truncate(n_trees);
        self.record_selection();
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

    /// Read a model written by [`Model::to_json`], checking it as untrusted
    /// input (see the module docs).
    pub fn from_json(text: &str) -> Result<Model> {
        let model: Model = parse_file(text, FORMAT, 1..=VERSION)?;
        model.check()?;
        Ok(model)
    }

    /// Everything [`Model::from_json`] promises (see the module docs).
    pub(crate) fn check(&self) -> Result<()> {
        let bad = |m: String| Err(SbError::InvalidModel(m));
        if !(1..=MAX_FEATURES).contains(&self.n_features) {
            return bad(format!(
                "n_features must be in [1, {MAX_FEATURES}], got {}",
                self.n_features
            ));
        }
        if !(1..=MAX_OUTPUTS).contains(&self.n_outputs) {
            return bad(format!(
                "n_outputs must be in [1, {MAX_OUTPUTS}], got {}",
                self.n_outputs
            ));
        }
        // Softmax has K > 1 outputs; log-loss and LambdaRank one; squared
        // error any number (a forest's K class-indicator averages).
        let fits = match self.objective {
            ObjectiveKind::MultiLogloss => self.n_outputs > 1,
            ObjectiveKind::SquaredError => true,
            ObjectiveKind::BinaryLogloss | ObjectiveKind::LambdaRank => self.n_outputs == 1,
        };
        if !fits {
            return bad(format!(
                "objective '{}' does not have {} outputs",
                self.objective.name(),
                self.n_outputs
            ));
        }
        if self.base_score.len() != self.n_outputs {
            return bad(format!(
                "base_score has {} entries for {} outputs",
                self.base_score.len(),
                self.n_outputs
            ));
        }
        if let Some(b) = self.base_score.iter().find(|b| !b.is_finite()) {
            return bad(format!("base_score must be finite, got {b}"));
        }
        crate::params::check_categorical(&self.categorical_features, self.n_features)
            .map_err(|e| SbError::InvalidModel(e.to_string()))?;
        for (t, tree) in self.trees.iter().enumerate() {
            if let Some((i, node)) = tree.nodes.iter().enumerate().find(|(_, n)| {
                !n.is_leaf
                    && n.categories.is_some()
                        != self
                            .categorical_features
                            .binary_search(&(n.feature as usize))
                            .is_ok()
            }) {
                return bad(format!(
                    "trees[{t}].nodes[{i}]: feature {} must be split by categories if and \
                     only if it is one of categorical_features",
                    node.feature
                ));
            }
            if tree.output as usize >= self.n_outputs {
                return bad(format!(
                    "trees[{t}].output = {} is out of range for {} outputs",
                    tree.output, self.n_outputs
                ));
            }
            check_tree(tree, self.n_features)
                .map_err(|m| SbError::InvalidModel(format!("trees[{t}]: {m}")))?;
        }
        check_rounds(&self.trees).map_err(SbError::InvalidModel)?;
        if let Some((t, s)) = self.trees.iter().enumerate().find_map(|(t, tree)| {
            tree.root_scale
                .filter(|s| !(s.is_finite() && *s >= 0.0))
                .map(|s| (t, s))
        }) {
            return bad(format!(
                "trees[{t}].root_scale must be a finite number >= 0, got {s}"
            ));
        }
        // Empty when the fit did not record it (`record_train_loss`).
        if !self.train_loss.is_empty() && self.train_loss.len() != self.trees.len() {
            return bad(format!(
                "train_loss has {} entries for {} trees",
                self.train_loss.len(),
                self.trees.len()
            ));
        }
        if let Some(v) = self
            .train_loss
            .iter()
            .find(|v| !(v.is_finite() && **v >= 0.0))
        {
            return bad(format!("train_loss must hold finite numbers >= 0, got {v}"));
        }
        let (features, entry_tree, n_after) = self.selection();
        for (name, stored, derived) in [
            ("selected_features", &self.selected_features, &features),
            ("feature_entry_tree", &self.feature_entry_tree, &entry_tree),
            (
                "n_selected_after_tree",
                &self.n_selected_after_tree,
                &n_after,
            ),
        ] {
            if stored != derived {
                return bad(format!("{name} does not match the splits of the trees"));
            }
        }
        if self.gt_n_subsets.is_some() != self.gt_cache_bytes.is_some() {
            return bad("gt_n_subsets and gt_cache_bytes must both be set or both null".into());
        }
        let w = &self.feature_weights;
        if !(w.is_empty() || w.len() == self.n_features) {
            return bad(format!(
                "feature_weights has {} entries for {} features",
                w.len(),
                self.n_features
            ));
        }
        if w.iter().any(|v| !(v.is_finite() && *v >= 0.0)) {
            return bad("feature_weights must hold finite numbers >= 0".into());
        }
        if !self.output_bound().is_finite() {
            return bad("base_score and the leaf values add up beyond the range of float64".into());
        }
        Ok(())
    }
}

/// Trees record their rounds all or none; rounds never decrease, and a
/// round's trees have increasing outputs.
fn check_rounds(trees: &[Tree]) -> std::result::Result<(), String> {
    let recorded = trees.iter().filter(|t| t.round.is_some()).count();
    if recorded != 0 && recorded != trees.len() {
        return Err("every tree must have a round, or none".into());
    }
    for (t, pair) in trees.windows(2).enumerate() {
        let (a, b) = (&pair[0], &pair[1]);
        let (Some(ra), Some(rb)) = (a.round, b.round) else {
            continue;
        };
        if !(ra < rb || (ra == rb && a.output < b.output)) {
            return Err(format!(
                "trees[{}] (round {rb}, output {}) must follow trees[{t}] (round {ra}, output \
                 {}): rounds never decrease and a round's outputs increase",
                t + 1,
                b.output,
                a.output
            ));
        }
    }
    Ok(())
}

/// Per-feature sums of [`Model::add_importances`] as reported: normalised to
/// sum 1, or gains converted to the user's units (`2^gain_exponent`).
pub(crate) fn finish_importances(
    mut sums: Vec<f64>,
    kind: ImportanceKind,
    normalize: bool,
    gain_exponent: i32,
) -> Vec<f64> {
    if normalize {
        let total: f64 = sums.iter().sum();
        if total > 0.0 {
            sums.iter_mut().for_each(|v| *v /= total);
        }
    } else if kind == ImportanceKind::Gain {
        for v in &mut sums {
            *v = user_gain(*v, gain_exponent);
        }
    }
    sums
}

/// The `format` and `version` of a model file.
#[derive(Deserialize)]
struct Header {
    format: String,
    version: u32,
}

/// Parse a model file of `format` and `version` (its other fields are
/// those of `T`), naming the field of any error. The header is read on its
/// own: `T` flattened into it would lose the fields' paths.
pub(crate) fn parse_file<T: serde::de::DeserializeOwned>(
    text: &str,
    format: &str,
    versions: std::ops::RangeInclusive<u32>,
) -> Result<T> {
    let header: Header = parse(text)?;
    if header.format != format || !versions.contains(&header.version) {
        return Err(SbError::InvalidModel(format!(
            "expected format '{format}' version {} to {}, got '{}' version {}",
            versions.start(),
            versions.end(),
            header.format,
            header.version
        )));
    }
    parse(text)
}

/// Parse a JSON document, naming the field of an error.
fn parse<T: serde::de::DeserializeOwned>(text: &str) -> Result<T> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    serde_path_to_error::deserialize(&mut deserializer)
        .map_err(|e| SbError::InvalidModel(format!("field '{}': {}", e.path(), e.inner())))
}

/// A tree of `n_features` is well formed: every node but the root has
/// exactly one parent, which comes before it (so prediction ends and
/// reaches every node), split features are in range and numbers finite.
pub(crate) fn check_tree(tree: &Tree, n_features: usize) -> std::result::Result<(), String> {
    let len = tree.nodes.len();
    if len == 0 {
        return Err("a tree needs a node".into());
    }
    let mut parents = vec![0u8; len];
    for (i, node) in tree.nodes.iter().enumerate() {
        if !(node.value.is_finite() && node.gain.is_finite() && node.gain >= 0.0) {
            return Err(format!(
                "nodes[{i}]: value and gain must be finite (gain >= 0)"
            ));
        }
        if node.is_leaf {
            continue;
        }
        if node.feature as usize >= n_features {
            return Err(format!(
                "nodes[{i}]: feature {} is out of range for {n_features} features",
                node.feature
            ));
        }
        if node.threshold.is_nan() {
            return Err(format!("nodes[{i}]: threshold must be a number"));
        }
        if let Some(codes) = &node.categories {
            if codes.is_empty()
                || codes.windows(2).any(|w| w[0] >= w[1])
                || codes[codes.len() - 1] > 255
            {
                return Err(format!(
                    "nodes[{i}].categories must be ascending distinct codes in 0..256, \
                     at least one"
                ));
            }
        }
        for (side, child) in [("left", node.left as usize), ("right", node.right as usize)] {
            if child <= i || child >= len {
                return Err(format!(
                    "nodes[{i}].{side} = {child} must name a later node of the {len}"
                ));
            }
            parents[child] = parents[child].saturating_add(1);
        }
    }
    match parents.iter().skip(1).position(|&p| p != 1) {
        None => Ok(()),
        Some(j) => Err(format!(
            "nodes[{}] has {} parents; every node but the root needs exactly one",
            j + 1,
            parents[j + 1]
        )),
    }
}
