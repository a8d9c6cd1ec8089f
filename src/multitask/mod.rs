//! Multitask boosting (SPEC section 4, the A-GBM paper's Algorithm 1): T
//! related tasks over one feature space are boosted together, one tree per
//! task per round, in task order, each on its own task's residuals. A split
//! on a feature new to every task pays `μ_G`, on a feature new to this task
//! `μ_t` (see [`crate::penalty::MultiTaskPenalty`]), so the tasks share
//! features and still pick task-specific ones.
//!
//! The driver reuses the single-task machinery: one binning of all rows,
//! one [`crate::grower::LocalGrower`] for every task, and the booster's row
//! and feature draws and score updates. With one task it grows exactly the
//! trees of [`crate::booster::fit`] with `mu = μ_G + μ_t`.

mod data;
mod driver;
mod model;
mod params;

pub use data::{validate_tasks, MultiTaskData};
pub(crate) use driver::{check_inputs, finish, plan};
pub use driver::{fit_multitask, fit_multitask_with};
pub use model::MultiTaskModel;
pub use params::MultiTaskParams;
