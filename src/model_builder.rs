//! A model being fitted: trees appended in the fit's units, their training
//! losses, truncation for early stopping, and the conversion to the user's
//! units at the end (the trainer's and the forest's).

use crate::error::{Result, SbError};
use crate::grower::GrownTree;
use crate::model::Model;
use crate::params::BoosterParams;
use crate::units::Units;

/// A model being fitted, in the fit's units until [`ModelBuilder::finish`].
pub(crate) struct ModelBuilder<'a> {
    model: Model,
    params: &'a BoosterParams,
}

impl<'a> ModelBuilder<'a> {
    /// Start from a model without trees, fitted with `params`.
    pub(crate) fn new(mut model: Model, params: &'a BoosterParams) -> Self {
        model.categorical_features = params.categorical_features.clone();
        ModelBuilder { model, params }
    }

    pub(crate) fn n_trees(&self) -> usize {
        self.model.trees.len()
    }

    pub(crate) fn last_loss(&self) -> Option<f64> {
        self.model.train_loss.last().copied()
    }

    pub(crate) fn truncate(&mut self, n_trees: usize) {
        self.model.trees.truncate(n_trees);
        self.model.train_loss.truncate(n_trees);
    }

    /// Append a grown tree; `loss` is the mean training loss after it.
    /// Fails when a leaf value is not finite: the boosting diverged (a
    /// learning rate far above 1 makes each step overshoot further).
    /// A tree of the round; its training loss comes with the round's
    /// [`ModelBuilder::record_loss`].
    pub(crate) fn push(&mut self, grown: GrownTree, round: usize) -> Result<()> {
        if grown.tree.nodes.iter().any(|n| !n.value.is_finite()) {
            return Err(self.diverged(format!("at tree {}", self.model.trees.len())));
        }
        let mut tree = grown.tree;
        tree.round = Some(round as u32);
        tree.root_scale = Some(grown.root_scale);
        self.model.trees.push(tree);
        Ok(())
    }

    /// Whether trees were added since the last loss was recorded.
    pub(crate) fn grew_since_loss(&self) -> bool {
        self.model.trees.len() > self.model.train_loss.len()
    }

    /// The round ended: the training loss after it (computed only if the
    /// model grew a tree) is the loss of each tree it grew.
    pub(crate) fn record_loss(&mut self, loss: impl FnOnce() -> f64) -> Result<()> {
        let pending = self.model.trees.len() - self.model.train_loss.len();
        if pending == 0 {
            return Ok(());
        }
        let loss = loss();
        if !loss.is_finite() {
            return Err(self.diverged(format!("at tree {}", self.model.trees.len() - 1)));
        }
        let n = self.model.trees.len();
        self.model.train_loss.resize(n, loss);
        Ok(())
    }

    /// An error if `loss`, the training loss after the last tree (of a
    /// model that has one), is not finite: the boosting diverged (the check
    /// of a fit that does not record its losses, made once at its end).
    pub(crate) fn check_final_loss(&self, loss: f64) -> Result<()> {
        match loss.is_finite() {
            true => Ok(()),
            // Only the last tree's loss is known: the fit diverged there
            // or before.
            false => Err(self.diverged(format!(
                "by tree {} (the training loss after it is not finite; \
                 record_train_loss=True checks every tree)",
                self.model.trees.len().saturating_sub(1)
            ))),
        }
    }

    /// `when`: "at tree N", or "by tree N" when only the end was checked.
    fn diverged(&self, when: String) -> SbError {
        SbError::InvalidParameter(format!(
            "the boosting diverged {when}: its leaf values overflow (learning_rate={:?} \
             is too large for these targets; use a value in (0, 1])",
            self.params.learning_rate
        ))
    }

    /// The fitted model in the user's units, with its selection report and,
    /// with group testing, the grower's `(number of subsets, prefix-cache
    /// bytes)`. Fails if its outputs could exceed the range of `f64`.
    pub(crate) fn finish(
        self,
        group_testing: Option<(usize, usize)>,
        units: &Units,
    ) -> Result<Model> {
        let mut model = self.model;
        for b in &mut model.base_score {
            *b = units.output(*b);
        }
        for node in model.trees.iter_mut().flat_map(|t| &mut t.nodes) {
            node.value = units.output(node.value);
        }
        for loss in &mut model.train_loss {
            // A mean squared error of targets near f64::MAX can exceed the
            // range in the user's units: it saturates (a model file holds
            // finite numbers only).
            *loss = units.loss(*loss).min(f64::MAX);
        }
        model.gain_exponent = units.gain_exponent();
        model.record_selection();
        if let Some((subsets, bytes)) = group_testing {
            model.gt_n_subsets = Some(subsets);
            model.gt_cache_bytes = Some(bytes);
        }
        if !model.output_bound().is_finite() {
            return Err(SbError::InvalidParameter(format!(
                "the fitted model's outputs could exceed the range of float64 (learning_rate={:?}); \
                 lower learning_rate or rescale y",
                self.params.learning_rate
            )));
        }
        Ok(model)
    }
}
