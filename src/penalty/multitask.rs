//! The multitask new-feature penalty (SPEC section 4, the A-GBM paper's
//! Algorithm 1): T tasks share a feature space; a feature new to every task
//! pays `μ_G`, a feature new to this task pays `μ_t`:
//!
//! `deduction_t(j) = S · (μ_G · 1[j ∉ Ω_G] + μ_t · 1[j ∉ Ω_t])`
//!
//! where Ω_G is the union of the features used by any task and Ω_t those
//! used by task t (both in [`crate::omega::Omega`]; a job's view is its
//! task).
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
    mu_task: f64,
    n_features: usize,
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
            allowed,
            current_scale: 1.0,
        }
    }
}

impl Penalty for MultiTaskPenalty {
    fn begin_tree(&mut self, root_scale: f64) {
        self.current_scale = match self.scale {
            Scale::Gain => 1.0,
            Scale::RootScale => root_scale.max(0.0),
        };
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
            self.mu_task
        };
        // One task alone: `S · (μ_G + μ_t)` is the single-task `S · μ` with
        // `μ = μ_G + μ_t`, computed by the same floating-point operations.
        self.current_scale * (group + task)
    }

    /// Task `view` has feature `feature`.
    fn allows(&self, view: usize, feature: usize) -> bool {
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
        let mut p = MultiTaskPenalty::new(Scale::RootScale, 0.1, 0.05, 2, 3, None);
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
    fn a_masked_feature_is_forbidden_for_its_task_only() {
        let mask = vec![true, false, true, true];
        let p = MultiTaskPenalty::new(Scale::Gain, 2.0, 1.0, 2, 2, Some(mask));
        let omega = Omega::tasks(2, 2);
        assert_eq!(p.deduction(omega.view(0), 1), f64::INFINITY);
        assert_eq!(p.deduction(omega.view(1), 1), 3.0);
        assert!(!p.allows(0, 1) && p.allows(1, 1));
    }
}
