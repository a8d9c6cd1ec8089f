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
        let bad = |m: String| Err(SbError::InvalidInput(m));
        if self.n_tasks == 0 {
            return bad("there must be at least one task".into());
        }
        if self.task.len() != self.data.n_rows() {
            return bad(format!(
                "task has {} labels but X has {} rows",
                self.task.len(),
                self.data.n_rows()
            ));
        }
        let mut rows = vec![0usize; self.n_tasks];
        let mut weight = vec![0.0; self.n_tasks];
        for (i, &t) in self.task.iter().enumerate() {
            if t >= self.n_tasks {
                return bad(format!(
                    "row {i} has task {t}, expected a task in 0..{}",
                    self.n_tasks
                ));
            }
            rows[t] += 1;
            weight[t] += self.data.weights.map_or(1.0, |w| w[i]);
        }
        for t in 0..self.n_tasks {
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
}
