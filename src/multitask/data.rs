//! The training set of a multitask fit: one matrix for all tasks and each
//! row's task.

use crate::booster::TrainingData;
use crate::error::{Result, SbError};
use crate::objective::Objective;

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
        if self.task.len() != self.data.n_rows {
            return bad(format!(
                "task has {} labels but X has {} rows",
                self.task.len(),
                self.data.n_rows
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

/// One task's rows and its targets and weights gathered in row order, with
/// buffers for its gradients.
pub(crate) struct TaskRows {
    /// The task's rows of the full data, ascending.
    pub rows: Vec<u32>,
    y: Vec<f64>,
    weights: Option<Vec<f64>>,
    /// Scratch: the task's raw scores, gradients and hessians, in `rows` order.
    raw: Vec<f64>,
    grad: Vec<f64>,
    hess: Vec<f64>,
}

impl TaskRows {
    /// Every task's rows, in task order.
    pub fn split(data: &MultiTaskData) -> Vec<TaskRows> {
        let mut rows: Vec<Vec<u32>> = vec![Vec::new(); data.n_tasks];
        for (i, &t) in data.task.iter().enumerate() {
            rows[t].push(i as u32);
        }
        rows.into_iter()
            .map(|rows| {
                let gather = |v: &[f64]| rows.iter().map(|&r| v[r as usize]).collect::<Vec<_>>();
                let n = rows.len();
                TaskRows {
                    y: gather(data.data.y),
                    weights: data.data.weights.map(gather),
                    raw: vec![0.0; n],
                    grad: vec![0.0; n],
                    hess: vec![0.0; n],
                    rows,
                }
            })
            .collect()
    }

    /// n_t.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// The constant raw score that minimises this task's loss.
    pub fn init_score(&self, objective: &dyn Objective) -> f64 {
        objective.init_score(&self.y, self.weights.as_deref())
    }

    /// The rows at `positions` (ascending positions in `0..n_t`), ascending.
    pub fn rows_at(&self, positions: &[u32]) -> Vec<u32> {
        positions.iter().map(|&p| self.rows[p as usize]).collect()
    }

    /// Set this task's rows of `raw` (length n) to `value`.
    pub fn fill(&self, raw: &mut [f64], value: f64) {
        for &r in &self.rows {
            raw[r as usize] = value;
        }
    }

    /// Write this task's gradients and hessians at `raw` into its rows of
    /// `grad` and `hess` (all of length n); other rows are left alone.
    pub fn gradients(
        &mut self,
        objective: &dyn Objective,
        raw: &[f64],
        grad: &mut [f64],
        hess: &mut [f64],
    ) {
        self.gather_raw(raw);
        objective.gradients(
            &self.y,
            &self.raw,
            self.weights.as_deref(),
            &mut self.grad,
            &mut self.hess,
        );
        for (k, &r) in self.rows.iter().enumerate() {
            grad[r as usize] = self.grad[k];
            hess[r as usize] = self.hess[k];
        }
    }

    /// The task's mean training loss at `raw` (length n).
    pub fn loss(&mut self, objective: &dyn Objective, raw: &[f64]) -> f64 {
        self.gather_raw(raw);
        objective.loss(&self.y, &self.raw, self.weights.as_deref())
    }

    fn gather_raw(&mut self, raw: &[f64]) {
        for (k, &r) in self.rows.iter().enumerate() {
            self.raw[k] = raw[r as usize];
        }
    }
}
