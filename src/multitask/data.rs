//! The training set of a multitask fit: one matrix for all tasks and each
//! row's task.

use crate::data::TrainingData;
use crate::error::{Result, SbError};

/// All tasks' rows in one matrix (`data`), with `task[i]` the task of row i,
/// in `0..n_tasks`. Tasks may have very different numbers of rows.
#[derive(Debug, Clone, Copy)]
pub struct MultiTaskData<'a> {
    /// Features, targets and optional weights of every row.
    pub data: TrainingData<'a>,
    /// The task of each row (length n), in `0..n_tasks`.
    pub task: &'a [usize],
    /// T ≥ 1.
    pub n_tasks: usize,
}

impl MultiTaskData<'_> {
    /// Reject shapes and labels no fit can use: besides the single-task
    /// checks, every task needs at least two rows (and weights that do not
    /// sum to zero).
    pub fn validate(&self) -> Result<()> {
        self.data.validate()?;
        validate_tasks(
            self.task,
            self.n_tasks,
            self.data.weights,
            self.data.n_rows(),
        )
    }
}

/// Reject task labels no fit can use: `task` (one per row of `n_rows`, in
/// `0..n_tasks`) must give every task at least two rows, and weights that
/// do not sum to zero.
pub fn validate_tasks(
    task: &[usize],
    n_tasks: usize,
    weights: Option<&[f64]>,
    n_rows: usize,
) -> Result<()> {
    let bad = |m: String| Err(SbError::InvalidInput(m));
    if n_tasks == 0 {
        return bad("there must be at least one task".into());
    }
    if task.len() != n_rows {
        return bad(format!(
            "task has {} labels but X has {} rows",
            task.len(),
            n_rows
        ));
    }
    let mut rows = vec![0usize; n_tasks];
    let mut weight = vec![0.0; n_tasks];
    for (i, &t) in task.iter().enumerate() {
        if t >= n_tasks {
            return bad(format!(
                "row {i} has task {t}, expected a task in 0..{n_tasks}"
            ));
        }
        rows[t] += 1;
        weight[t] += weights.map_or(1.0, |w| w[i]);
    }
    for t in 0..n_tasks {
        if rows[t] < 2 {
            return bad(format!(
                "task {t} has {} rows; every task needs at least 2",
                rows[t]
            ));
        }
        if weight[t] <= 0.0 {
            return bad(format!("sample_weight of task {t} sums to zero"));
        }
    }
    Ok(())
}
