//! The multitask new-feature penalty (SPEC section 4, the A-GBM paper's
//! Algorithm 1): T tasks share a feature space; a feature new to every task
//! pays `μ_G`, a feature new to this task pays `μ_t`:
//!
//! `deduction_t(j) = S · (μ_G · 1[j ∉ Ω_G] + μ_t · 1[j ∉ Ω_t])`
//!
//! where Ω_G is the union of the features used by any task and Ω_t those
//! used by task t (both in [`crate::omega::Omega`]; a job's view is its
//! task). μ_t may differ between tasks. A tree of every task (view
//! `n_tasks`, a shared start) pays the mean of the tasks' μ_t.
//!
//! Per-feature costs, bags and `max_features` are single-task features of
//! [`super::NewFeaturePenalty`] and are not offered here.

use super::{Penalty, Scale};
use crate::omega::OmegaView;

/// The two penalties and which features each task has.
#[derive(Debug, Clone)]
pub struct MultiTaskPenalty {
    scale: Scale,
    mu_group: f64,
    /// μ_t of each task, then their mean (view `n_tasks`).
    mu_task: Vec<f64>,
    n_tasks: usize,
    n_features: usize,
    /// `allowed[t * d + j]`: task t has feature j (row-major, T × d).
    allowed: Vec<bool>,
    current_scale: f64,
    /// Which of μ_G and μ_t are still multiples of μ_max.
    relative: (bool, bool),
}

impl MultiTaskPenalty {
    /// A penalty for `n_tasks` tasks over `n_features` features, with
    /// `mu_task[t]` the μ_t of task t (`n_tasks` values). `allowed` (row-major, `n_tasks × n_features`) says which features each
    /// task has; `None` means all of them. The caller checks its length.
    pub fn new(
        scale: Scale,
        mu_group: f64,
        mut mu_task: Vec<f64>,
        n_tasks: usize,
        n_features: usize,
        allowed: Option<Vec<bool>>,
    ) -> Self {
        let allowed = allowed.unwrap_or_else(|| vec![true; n_tasks * n_features]);
        assert_eq!(allowed.len(), n_tasks * n_features, "mask shape");
        assert_eq!(mu_task.len(), n_tasks, "one mu_task per task");
        mu_task.push(mu_task.iter().sum::<f64>() / n_tasks as f64);
        MultiTaskPenalty {
            scale,
            mu_group,
            mu_task,
            n_tasks,
            n_features,
            allowed,
            current_scale: 1.0,
            relative: (false, false),
        }
    }

    /// μ_G (`group`) and μ_t (`task`) given as multiples of μ_max, to be
    /// resolved by [`Penalty::resolve_relative_mu`].
    pub fn relative(mut self, group: bool, task: bool) -> Self {
        self.relative = (group, task);
        self
    }

    fn scale_of(&self, root_scale: f64) -> f64 {
        match self.scale {
            Scale::Gain => 1.0,
            Scale::RootScale => root_scale.max(0.0),
        }
    }
}

impl Penalty for MultiTaskPenalty {
    fn begin_tree(&mut self, root_scale: f64) {
        self.current_scale = self.scale_of(root_scale);
    }

    /// At a first-round root every feature is new to the model and to the
    /// task, so a split pays while `μ_G + μ_t < net_gain / S`: the μ_max
    /// of a multitask fit bounds the sum.
    fn break_even_mu(&self, root_scale: f64, _feature: usize, net_gain: f64) -> Option<f64> {
        let s = self.scale_of(root_scale);
        (s > 0.0 && net_gain > 0.0).then(|| net_gain / s)
    }

    fn is_relative(&self) -> bool {
        self.relative.0 || self.relative.1
    }

    fn resolve_relative_mu(&mut self, mu_max: f64) {
        if self.relative.0 {
            self.mu_group *= mu_max;
        }
        if self.relative.1 {
            let n = self.n_tasks;
            for mu in &mut self.mu_task[..n] {
                *mu *= mu_max;
            }
            self.mu_task[n] = self.mu_task[..n].iter().sum::<f64>() / n as f64;
        }
    }

    fn deduction(&self, omega: OmegaView<'_>, feature: usize) -> f64 {
        if !self.allows(omega.task, feature) {
            return f64::INFINITY;
        }
        let group = if omega.group.is_free(feature) {
            0.0
        } else {
            self.mu_group
        };
        let own = omega.own.expect("a multitask fit has one Ω_t per task");
        let task = if own.is_free(feature) {
            0.0
        } else {
            self.mu_task[omega.task]
        };
        // One task alone: `S · (μ_G + μ_t)` is the single-task `S · μ` with
        // `μ = μ_G + μ_t`, computed by the same floating-point operations.
        self.current_scale * (group + task)
    }

    /// Task `view` has feature `feature`; view `n_tasks` (trees of every
    /// task) allows the features every task has.
    fn allows(&self, view: usize, feature: usize) -> bool {
        if view == self.n_tasks {
            return (0..self.n_tasks).all(|t| self.allowed[t * self.n_features + feature]);
        }
        self.allowed[view * self.n_features + feature]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::omega::Omega;
    use crate::penalty::Changed;

    #[test]
    fn a_feature_pays_group_and_task_shares_separately() {
        let mut p = MultiTaskPenalty::new(Scale::RootScale, 0.1, vec![0.05; 2], 2, 3, None);
        let mut omega = Omega::tasks(2, 3);
        p.begin_tree(100.0);
        assert!((p.deduction(omega.view(0), 1) - 15.0).abs() < 1e-12);
        assert_eq!(omega.commit(0, 1), Changed::Freed(vec![1]));
        assert_eq!(p.deduction(omega.view(0), 1), 0.0);
        assert_eq!(omega.commit(0, 1), Changed::Nothing);
        // Task 1 no longer pays μ_G for feature 1, only its own μ_t.
        assert!((p.deduction(omega.view(1), 1) - 5.0).abs() < 1e-12);
        assert!((p.deduction(omega.view(1), 2) - 15.0).abs() < 1e-12);
        assert_eq!(omega.commit(1, 1), Changed::Freed(vec![1]));
        assert_eq!(omega.used_in_order(), &[1]);
    }

    #[test]
    fn each_task_pays_its_own_mu_task_and_a_shared_tree_their_mean() {
        let mut p = MultiTaskPenalty::new(Scale::Gain, 0.5, vec![0.1, 0.3], 2, 2, None);
        let omega = Omega::tasks(2, 2);
        p.begin_tree(7.0);
        assert!((p.deduction(omega.view(0), 0) - 0.6).abs() < 1e-12);
        assert!((p.deduction(omega.view(1), 0) - 0.8).abs() < 1e-12);
        assert!((p.deduction(omega.view(2), 0) - 0.7).abs() < 1e-12);
    }

    #[test]
    fn a_masked_feature_is_forbidden_for_its_task_only() {
        let mask = vec![true, false, true, true];
        let p = MultiTaskPenalty::new(Scale::Gain, 2.0, vec![1.0, 1.0], 2, 2, Some(mask));
        let omega = Omega::tasks(2, 2);
        assert_eq!(p.deduction(omega.view(0), 1), f64::INFINITY);
        assert_eq!(p.deduction(omega.view(1), 1), 3.0);
        assert!(!p.allows(0, 1) && p.allows(1, 1));
        // The view of every task has only what all tasks have.
        assert!(p.allows(2, 0) && !p.allows(2, 1));
        assert_eq!(p.deduction(omega.view(2), 1), f64::INFINITY);
        assert_eq!(p.deduction(omega.view(2), 0), 3.0);
    }
}
