//! The settings that multitask boosting adds to [`BoosterParams`].

use crate::error::{Result, SbError};
use crate::params::{BoosterParams, PenaltyKind};

/// μ_G, μ_t and the features each task has. Every other setting (trees,
/// sampling, `penalty` for the scale of μ, ...) comes from [`BoosterParams`].
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MultiTaskParams {
    /// μ_G ≥ 0: what a feature used by no task yet pays.
    pub mu_group: f64,
    /// μ_t ≥ 0: what a feature not yet used by this task pays (on top of
    /// μ_G when no task uses it). Under A-GBM, `μ_G + μ_t < 1`.
    pub mu_task: f64,
    /// Row-major `n_tasks × n_features`: `true` where the task has the
    /// feature. A task never splits on a feature it does not have. `None`:
    /// every task has every feature.
    pub task_feature_mask: Option<Vec<bool>>,
}

fn invalid(message: String) -> Result<()> {
    Err(SbError::InvalidParameter(message))
}

impl MultiTaskParams {
    /// Check μ_G and μ_t, the mask's shape, and that `booster` asks for
    /// nothing the multitask penalty does not offer.
    pub fn validate(
        &self,
        booster: &BoosterParams,
        n_tasks: usize,
        n_features: usize,
    ) -> Result<()> {
        for (name, mu) in [("mu_group", self.mu_group), ("mu_task", self.mu_task)] {
            if !(mu.is_finite() && mu >= 0.0) {
                return invalid(format!("{name} must be a finite number >= 0, got {mu:?}"));
            }
        }
        if booster.penalty == PenaltyKind::Agbm && self.mu_group + self.mu_task >= 1.0 {
            return invalid(format!(
                "mu_group + mu_task must be < 1 for penalty 'agbm', got {:?} + {:?}",
                self.mu_group, self.mu_task
            ));
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
            ..Default::default()
        };
        let p = MultiTaskParams {
            mu_group: 0.6,
            mu_task: 0.4,
            task_feature_mask: None,
        };
        let e = p.validate(&agbm, 2, 3).unwrap_err().to_string();
        assert!(e.contains("mu_group + mu_task"), "{e}");
        let gbfs = BoosterParams {
            penalty: PenaltyKind::Gbfs,
            ..Default::default()
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
    }

    #[test]
    fn single_task_only_settings_are_refused() {
        let p = MultiTaskParams::default();
        let costly = BoosterParams {
            feature_costs: Some(vec![1.0; 3]),
            ..Default::default()
        };
        assert!(p
            .validate(&costly, 1, 3)
            .unwrap_err()
            .to_string()
            .contains("feature_costs"));
        let with_mu = BoosterParams {
            mu: 0.1,
            ..Default::default()
        };
        assert!(p
            .validate(&with_mu, 1, 3)
            .unwrap_err()
            .to_string()
            .contains("mu_group"));
    }
}
