//! GBFS and A-GBM: the same new-feature penalty with a different scale.

use super::Penalty;
use crate::omega::OmegaView;

/// What `μ` and the costs are measured against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scale {
    /// GBFS (Xu et al., 2014): `S = 1`, μ in gain units. Equals LightGBM's
    /// `cegb_penalty_feature_coupled = μ` with `cegb_tradeoff = 1`.
    Gain,
    /// A-GBM (Han et al., 2020): `S` = the tree's root scale
    /// `Σ g²/h − G²/H` (the root SSE for squared error), so μ ∈ [0, 1) means
    /// the same at every round.
    RootScale,
}

/// `deduction(j) = S · (μ + c_j)` while feature j's bag is unpaid in Ω,
/// else 0; infinite once Ω's `max_features` closes the door.
#[derive(Debug, Clone)]
pub struct NewFeaturePenalty {
    scale: Scale,
    mu: f64,
    /// Per-feature costs `c_j ≥ 0` (all zero when none are given).
    costs: Vec<f64>,
    current_scale: f64,
    /// μ is still a multiple of μ_max.
    relative: bool,
}

impl NewFeaturePenalty {
    /// A penalty of `mu` plus `costs[j]` on features of unpaid bags.
    pub fn new(scale: Scale, mu: f64, costs: Vec<f64>) -> Self {
        NewFeaturePenalty {
            scale,
            mu,
            costs,
            current_scale: 1.0,
            relative: false,
        }
    }

    /// μ given as a multiple of μ_max, to be resolved by
    /// [`Penalty::resolve_relative_mu`].
    pub fn relative(mut self, relative: bool) -> Self {
        self.relative = relative;
        self
    }
}

impl NewFeaturePenalty {
    /// `S` for a tree whose root scale is `root_scale`.
    fn scale_of(&self, root_scale: f64) -> f64 {
        match self.scale {
            Scale::Gain => 1.0,
            Scale::RootScale => root_scale.max(0.0),
        }
    }
}

impl Penalty for NewFeaturePenalty {
    fn begin_tree(&mut self, root_scale: f64) {
        self.current_scale = self.scale_of(root_scale);
    }

    /// A split pays while `gain − S·(μ + c_j) > min_gain`, that is while
    /// `μ < net_gain / S − c_j`.
    fn break_even_mu(&self, root_scale: f64, feature: usize, net_gain: f64) -> Option<f64> {
        let s = self.scale_of(root_scale);
        (s > 0.0 && net_gain > 0.0).then(|| net_gain / s - self.costs[feature])
    }

    fn is_relative(&self) -> bool {
        self.relative
    }

    fn resolve_relative_mu(&mut self, mu_max: f64) {
        if self.relative {
            self.mu *= mu_max;
        }
    }

    fn deduction(&self, omega: OmegaView<'_>, feature: usize) -> f64 {
        if omega.group.is_free(feature) {
            0.0
        } else if !omega.group.admits(feature) {
            f64::INFINITY
        } else {
            self.current_scale * (self.mu + self.costs[feature])
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::omega::Omega;
    use crate::penalty::{Changed, FeatureSet};

    #[test]
    fn agbm_scales_with_the_root_and_gbfs_does_not() {
        let mut omega = Omega::shared(FeatureSet::singletons(3, None));
        let mut agbm = NewFeaturePenalty::new(Scale::RootScale, 0.1, vec![0.0, 0.5, 0.0]);
        agbm.begin_tree(200.0);
        assert_eq!(agbm.deduction(omega.view(0), 0), 20.0);
        assert_eq!(agbm.deduction(omega.view(0), 1), 120.0);
        assert_eq!(omega.commit(0, 0), Changed::Freed(vec![0]));
        assert_eq!(agbm.deduction(omega.view(0), 0), 0.0);
        let mut gbfs = NewFeaturePenalty::new(Scale::Gain, 3.0, vec![0.0; 3]);
        gbfs.begin_tree(200.0);
        assert_eq!(gbfs.deduction(omega.view(0), 2), 3.0);
    }

    #[test]
    fn max_features_forbids_new_features_once_omega_is_full() {
        let mut omega = Omega::shared(FeatureSet::singletons(3, Some(1)));
        let gbfs = NewFeaturePenalty::new(Scale::Gain, 1.0, vec![0.0; 3]);
        omega.commit(0, 2);
        assert_eq!(gbfs.deduction(omega.view(0), 0), f64::INFINITY);
        assert_eq!(gbfs.deduction(omega.view(0), 2), 0.0);
    }
}
