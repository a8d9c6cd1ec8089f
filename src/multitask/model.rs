//! A fitted multitask ensemble: one [`Model`] per task plus Ω_G, and its
//! JSON file.
//!
//! # File format (version 3)
//!
//! A JSON object: `format`: `"sparseboost-multitask-model"`, `version`: `3`;
//! `selected_features`: Ω_G, the features used by any task in the order
//! they entered; `tasks`: one model per task, in task order, each with the
//! fields of the single-task file (see [`crate::model`]) but without
//! `format` and `version`. A task's `selected_features` is its Ω_t.
//! Versions 1 and 2 (trees without rounds) still load.

use crate::error::{Result, SbError};
use crate::model::{finish_importances, ImportanceKind, Model};
use serde::{Deserialize, Serialize};

const FORMAT: &str = "sparseboost-multitask-model";
const VERSION: u32 = 3;

/// One ensemble per task, fitted together.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MultiTaskModel {
    /// Ω_G: features used by any task, in the order they entered.
    pub selected_features: Vec<usize>,
    /// The ensemble of each task (its `selected_features` is Ω_t).
    pub tasks: Vec<Model>,
}

#[derive(Serialize)]
struct MultiTaskFile {
    format: String,
    version: u32,
    #[serde(flatten)]
    model: MultiTaskModel,
}

impl MultiTaskModel {
    /// Number of input features, d.
    pub fn n_features(&self) -> usize {
        self.tasks.first().map_or(0, |m| m.n_features)
    }

    /// Per-feature importance of the trees of `task` (an index), or of all
    /// tasks' trees, as [`Model::importances`] reports it (all tasks share
    /// the fit's units).
    pub fn importances(
        &self,
        kind: ImportanceKind,
        normalize: bool,
        task: Option<usize>,
    ) -> Vec<f64> {
        let mut sums = vec![0.0; self.n_features()];
        for (t, model) in self.tasks.iter().enumerate() {
            if task.is_none_or(|k| k == t) {
                model.add_importances(kind, &mut sums);
            }
        }
        let gain_exponent = self.tasks.first().map_or(0, |m| m.gain_exponent);
        finish_importances(sums, kind, normalize, gain_exponent)
    }

    /// The model as a JSON document (see the module docs).
    pub fn to_json(&self) -> String {
        let file = MultiTaskFile {
            format: FORMAT.into(),
            version: VERSION,
            model: self.clone(),
        };
        serde_json::to_string(&file).expect("a model always serialises")
    }

    /// Read a model written by [`MultiTaskModel::to_json`], checking every
    /// task's model as [`Model::from_json`] does, that all tasks share one
    /// feature space, and that Ω_G is the union of the tasks' features.
    pub fn from_json(text: &str) -> Result<MultiTaskModel> {
        let model: MultiTaskModel = crate::model::parse_file(text, FORMAT, 1..=VERSION)?;
        if model.tasks.is_empty() {
            return Err(SbError::InvalidModel(
                "a multitask model needs a task".into(),
            ));
        }
        let d = model.n_features();
        for (t, task) in model.tasks.iter().enumerate() {
            if task.n_features != d {
                return Err(SbError::InvalidModel(format!(
                    "tasks[{t}] has {} features, tasks[0] has {d}",
                    task.n_features
                )));
            }
            task.check()
                .map_err(|e| SbError::InvalidModel(format!("tasks[{t}]: {e}")))?;
            if task.gain_exponent != model.tasks[0].gain_exponent {
                return Err(SbError::InvalidModel(format!(
                    "tasks[{t}] has gain_exponent {}, tasks[0] has {}: tasks share one fit",
                    task.gain_exponent, model.tasks[0].gain_exponent
                )));
            }
        }
        let mut group = model.selected_features.clone();
        group.sort_unstable();
        let mut union: Vec<usize> = model
            .tasks
            .iter()
            .flat_map(|m| m.selected_features.iter().copied())
            .collect();
        union.sort_unstable();
        union.dedup();
        if group != union {
            return Err(SbError::InvalidModel(
                "selected_features must list, once each, the features of the tasks' splits".into(),
            ));
        }
        Ok(model)
    }
}
