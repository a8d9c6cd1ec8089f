//! The multitask new-feature penalty (SPEC section 4, the A-GBM paper's
//! Algorithm 1): T tasks share a feature space; a feature new to every task
//! pays `μ_G`, a feature new to this task pays `μ_t`:
//!
//! `deduction_t(j) = S · (μ_G · 1[j ∉ Ω_G] + μ_t · 1[j ∉ Ω_t])`
//!
//! where Ω_G is the union of the features used by any task and Ω_t those
//! used by task t. [`MultiTaskPenalty`] holds the shared state; the grower
//! sees one task at a time through [`TaskPenalty`], an ordinary [`Penalty`].
//!
//! Per-feature costs, bags and `max_features` are single-task features of
//! [`super::NewFeaturePenalty`] and are not offered here.

use super::{Changed, FeatureSet, Penalty, Scale};

/// Ω_G, every Ω_t, which features each task has, and the two penalties.
#[derive(Debug, Clone)]
pub struct MultiTaskPenalty {
    scale: Scale,
    mu_group: f64,
    mu_task: f64,
    n_features: usize,
    group: FeatureSet,
    tasks: Vec<FeatureSet>,
    /// `allowed[t * d + j]`: task t has feature j (row-major, T × d).
    allowed: Vec<bool>,
    current_scale: f64,
}

impl MultiTaskPenalty {
    /// A penalty for `n_tasks` tasks over `n_features` features.
    /// `allowed` (row-major, `n_tasks × n_features`) says which features each
    /// task has; `None` means all of them. The caller checks its length.
    pub fn new(
        scale: Scale,
        mu_group: f64,
        mu_task: f64,
        n_tasks: usize,
        n_features: usize,
        allowed: Option<Vec<bool>>,
    ) -> Self {
        let allowed = allowed.unwrap_or_else(|| vec![true; n_tasks * n_features]);
        assert_eq!(allowed.len(), n_tasks * n_features, "mask shape");
        MultiTaskPenalty {
            scale,
            mu_group,
            mu_task,
            n_features,
            group: FeatureSet::singletons(n_features, None),
            tasks: vec![FeatureSet::singletons(n_features, None); n_tasks],
            allowed,
            current_scale: 1.0,
        }
    }

    /// The penalty as task `task` sees it, for growing one of its trees.
    pub fn task(&mut self, task: usize) -> TaskPenalty<'_> {
        assert!(task < self.tasks.len(), "task {task} out of range");
        TaskPenalty { shared: self, task }
    }

    /// True if task `task` has feature `feature` (may ever split on it).
    pub fn allows(&self, task: usize, feature: usize) -> bool {
        self.allowed[task * self.n_features + feature]
    }

    /// Ω_G: the features used by any task, in the order they entered.
    pub fn group(&self) -> &FeatureSet {
        &self.group
    }

    /// Ω_t: the features used by task `task`, in the order they entered.
    pub fn task_set(&self, task: usize) -> &FeatureSet {
        &self.tasks[task]
    }
}

/// One task's view of a [`MultiTaskPenalty`].
pub struct TaskPenalty<'a> {
    shared: &'a mut MultiTaskPenalty,
    task: usize,
}

impl Penalty for TaskPenalty<'_> {
    fn begin_tree(&mut self, root_scale: f64) {
        self.shared.current_scale = match self.shared.scale {
            Scale::Gain => 1.0,
            Scale::RootScale => root_scale.max(0.0),
        };
    }

    fn deduction(&self, feature: usize) -> f64 {
        let s = &*self.shared;
        if !s.allows(self.task, feature) {
            return f64::INFINITY;
        }
        let group = if s.group.is_free(feature) {
            0.0
        } else {
            s.mu_group
        };
        let task = if s.tasks[self.task].is_free(feature) {
            0.0
        } else {
            s.mu_task
        };
        // One task alone: `S · (μ_G + μ_t)` is the single-task `S · μ` with
        // `μ = μ_G + μ_t`, computed by the same floating-point operations.
        s.current_scale * (group + task)
    }

    fn commit(&mut self, feature: usize) -> Changed {
        let s = &mut *self.shared;
        let group = s.group.mark_used(feature);
        let task = s.tasks[self.task].mark_used(feature);
        // Singleton sets without max_features only ever free the feature
        // itself. Within this tree only this task's deductions matter, and
        // this task's deduction of `feature` just dropped to zero. (Other
        // tasks' deductions dropped by μ_G; they read the shared state when
        // their next tree starts.)
        if group == Changed::Nothing && task == Changed::Nothing {
            Changed::Nothing
        } else {
            Changed::Freed(vec![feature])
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_feature_pays_group_and_task_shares_separately() {
        let mut p = MultiTaskPenalty::new(Scale::RootScale, 0.1, 0.05, 2, 3, None);
        let mut t0 = p.task(0);
        t0.begin_tree(100.0);
        assert!((t0.deduction(1) - 15.0).abs() < 1e-12);
        assert_eq!(t0.commit(1), Changed::Freed(vec![1]));
        assert_eq!(t0.deduction(1), 0.0);
        assert_eq!(t0.commit(1), Changed::Nothing);
        // Task 1 no longer pays μ_G for feature 1, only its own μ_t.
        let mut t1 = p.task(1);
        t1.begin_tree(100.0);
        assert!((t1.deduction(1) - 5.0).abs() < 1e-12);
        assert!((t1.deduction(2) - 15.0).abs() < 1e-12);
        assert_eq!(t1.commit(1), Changed::Freed(vec![1]));
        assert_eq!(p.group().used_in_order(), &[1]);
        assert_eq!(p.task_set(1).used_in_order(), &[1]);
    }

    #[test]
    fn a_masked_feature_is_forbidden_for_its_task_only() {
        let mask = vec![true, false, true, true];
        let mut p = MultiTaskPenalty::new(Scale::Gain, 2.0, 1.0, 2, 2, Some(mask));
        assert_eq!(p.task(0).deduction(1), f64::INFINITY);
        assert_eq!(p.task(1).deduction(1), 3.0);
        assert!(!p.allows(0, 1) && p.allows(1, 1));
    }
}
