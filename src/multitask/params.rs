//! The settings that multitask boosting adds to [`BoosterParams`].

use crate::error::{Result, SbError};
use crate::params::{BoosterParams, PenaltyKind};

/// μ_G, μ_t, the features each task has and the shared start. Every other
/// setting (trees, sampling, `penalty` for the scale of μ, ...) comes from
/// [`BoosterParams`].
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MultiTaskParams {
    /// μ_G ≥ 0: what a feature used by no task yet pays.
    pub mu_group: f64,
    /// μ_t ≥ 0: what a feature not yet used by this task pays (on top of
    /// μ_G when no task uses it), the same for every task unless `task_mu`
    /// is given. Under A-GBM, `μ_G + μ_t < 1`.
    pub mu_task: f64,
    /// `mu_group` is a multiple of μ_max (see [`crate::mu_max`]): the
    /// smallest `μ_G + μ_t` at which the first round admits no feature.
    pub mu_group_relative: bool,
    /// `mu_task` (or every `task_mu`) is a multiple of that μ_max.
    pub mu_task_relative: bool,
    /// μ_t of each task (`n_tasks` values), replacing `mu_task`: a small
    /// task may need a larger μ_t than a large one, as its noise features'
    /// gains are larger relative to its root scale.
    pub task_mu: Option<Vec<f64>>,
    /// Row-major `n_tasks × n_features`: `true` where the task has the
    /// feature. A task never splits on a feature it does not have. `None`:
    /// every task has every feature.
    pub task_feature_mask: Option<Vec<bool>>,
    /// The first `shared_rounds` of the `n_estimators` rounds grow one tree
    /// on all tasks' rows together (each row starting from its task's base
    /// score), which goes into every task's model: a start learned from
    /// every task, that the later per-task trees correct. Such a tree may
    /// split only on features every task has, and its features join Ω_G
    /// and every Ω_t. 0 (the default): every round fits one tree per task.
    pub shared_rounds: usize,
}

fn invalid(message: String) -> Result<()> {
    Err(SbError::InvalidParameter(message))
}

impl MultiTaskParams {
    /// μ_t of task `t`.
    pub fn mu_task_of(&self, t: usize) -> f64 {
        self.task_mu.as_ref().map_or(self.mu_task, |mu| mu[t])
    }

    /// Check μ_G and μ_t, the mask's shape, and that `booster` asks for
    /// nothing the multitask penalty does not offer.
    pub fn validate(
        &self,
        booster: &BoosterParams,
        n_tasks: usize,
        n_features: usize,
    ) -> Result<()> {
        if let Some(mu) = &self.task_mu {
            if mu.len() != n_tasks {
                return invalid(format!(
                    "mu_task must hold one value per task ({n_tasks}), got {}",
                    mu.len()
                ));
            }
        }
        let mus = (0..n_tasks).map(|t| self.mu_task_of(t));
        for (name, mu) in std::iter::once(("mu_group", self.mu_group))
            .chain(std::iter::once(("mu_task", self.mu_task)))
            .chain(mus.clone().map(|mu| ("mu_task", mu)))
        {
            if !(mu.is_finite() && mu >= 0.0) {
                return invalid(format!("{name} must be a finite number >= 0, got {mu:?}"));
            }
        }
        // Relative values are checked once resolved: μ_max is below 1
        // under A-GBM, and a sum at or above it admits no feature (a
        // warning, as for a single task's μ).
        let absolute = !self.mu_group_relative && !self.mu_task_relative;
        for mu_task in mus {
            if absolute && booster.penalty == PenaltyKind::Agbm && self.mu_group + mu_task >= 1.0 {
                return invalid(format!(
                    "mu_group + mu_task must be < 1 for penalty 'agbm', got {:?} + {:?}",
                    self.mu_group, mu_task
                ));
            }
        }
        if booster.mu != 0.0 {
            return invalid(format!(
                "mu is not used by multitask boosting (got {:?}); set mu_group and mu_task",
                booster.mu
            ));
        }
        for (name, given) in [
            ("feature_costs", booster.feature_costs.is_some()),
            ("feature_bags", booster.feature_bags.is_some()),
            ("max_features", booster.max_features.is_some()),
        ] {
            if given {
                return invalid(format!("{name} is not supported by multitask boosting"));
            }
        }
        if self.shared_rounds > booster.n_estimators {
            return invalid(format!(
                "shared_rounds must be <= n_estimators = {}, got {}",
                booster.n_estimators, self.shared_rounds
            ));
        }
        if let Some(mask) = &self.task_feature_mask {
            if mask.len() != n_tasks * n_features {
                return invalid(format!(
                    "task_feature_mask has {} entries, expected n_tasks x n_features = {n_tasks} x {n_features}",
                    mask.len()
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agbm_needs_the_two_penalties_to_sum_below_one() {
        let agbm = BoosterParams {
            penalty: PenaltyKind::Agbm,
            ..BoosterParams::plain()
        };
        let p = MultiTaskParams {
            mu_group: 0.6,
            mu_task: 0.4,
            ..Default::default()
        };
        let e = p.validate(&agbm, 2, 3).unwrap_err().to_string();
        assert!(e.contains("mu_group + mu_task"), "{e}");
        let gbfs = BoosterParams {
            penalty: PenaltyKind::Gbfs,
            ..BoosterParams::plain()
        };
        p.validate(&gbfs, 2, 3).unwrap();
        let negative = MultiTaskParams {
            mu_task: -0.1,
            ..p.clone()
        };
        assert!(negative
            .validate(&gbfs, 2, 3)
            .unwrap_err()
            .to_string()
            .contains("mu_task"));
        let short_mask = MultiTaskParams {
            task_feature_mask: Some(vec![true; 5]),
            ..p
        };
        assert!(short_mask
            .validate(&gbfs, 2, 3)
            .unwrap_err()
            .to_string()
            .contains("task_feature_mask"));
        let long_start = MultiTaskParams {
            shared_rounds: 101,
            ..Default::default()
        };
        let hundred = BoosterParams {
            n_estimators: 100,
            ..BoosterParams::plain()
        };
        let e = long_start.validate(&hundred, 2, 3).unwrap_err().to_string();
        assert!(
            e.contains("shared_rounds must be <= n_estimators = 100"),
            "{e}"
        );
        MultiTaskParams {
            shared_rounds: 100,
            ..long_start
        }
        .validate(&hundred, 2, 3)
        .unwrap();
    }

    #[test]
    fn single_task_only_settings_are_refused() {
        let p = MultiTaskParams::default();
        let costly = BoosterParams {
            feature_costs: Some(vec![1.0; 3]),
            ..BoosterParams::plain()
        };
        assert!(p
            .validate(&costly, 1, 3)
            .unwrap_err()
            .to_string()
            .contains("feature_costs"));
        let with_mu = BoosterParams {
            mu: 0.1,
            ..BoosterParams::plain()
        };
        assert!(p
            .validate(&with_mu, 1, 3)
            .unwrap_err()
            .to_string()
            .contains("mu_group"));
    }
}
