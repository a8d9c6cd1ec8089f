//! GBFS and A-GBM: the same new-feature penalty with a different scale.

use super::{Changed, FeatureSet, Penalty};

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

/// `deduction(j) = S · (μ + c_j)` while feature j's bag is unpaid, else 0.
#[derive(Debug, Clone)]
pub struct NewFeaturePenalty {
    scale: Scale,
    mu: f64,
    /// Per-feature costs `c_j ≥ 0` (all zero when none are given).
    costs: Vec<f64>,
    omega: FeatureSet,
    current_scale: f64,
}

impl NewFeaturePenalty {
    /// A penalty of `mu` plus `costs[j]` on features of unpaid bags.
    pub fn new(scale: Scale, mu: f64, costs: Vec<f64>, omega: FeatureSet) -> Self {
        NewFeaturePenalty {
            scale,
            mu,
            costs,
            omega,
            current_scale: 1.0,
        }
    }

    /// Ω so far.
    pub fn omega(&self) -> &FeatureSet {
        &self.omega
    }
}

impl Penalty for NewFeaturePenalty {
    fn begin_tree(&mut self, root_scale: f64) {
        self.current_scale = match self.scale {
            Scale::Gain => 1.0,
            Scale::RootScale => root_scale.max(0.0),
        };
    }

    fn deduction(&self, feature: usize) -> f64 {
        if self.omega.is_free(feature) {
            0.0
        } else if !self.omega.admits(feature) {
            f64::INFINITY
        } else {
            self.current_scale * (self.mu + self.costs[feature])
        }
    }

    fn commit(&mut self, feature: usize) -> Changed {
        self.omega.mark_used(feature)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agbm_scales_with_the_root_and_gbfs_does_not() {
        let omega = FeatureSet::singletons(3, None);
        let mut agbm =
            NewFeaturePenalty::new(Scale::RootScale, 0.1, vec![0.0, 0.5, 0.0], omega.clone());
        agbm.begin_tree(200.0);
        assert_eq!(agbm.deduction(0), 20.0);
        assert_eq!(agbm.deduction(1), 120.0);
        assert_eq!(agbm.commit(0), Changed::Freed(vec![0]));
        assert_eq!(agbm.deduction(0), 0.0);
        let mut gbfs = NewFeaturePenalty::new(Scale::Gain, 3.0, vec![0.0; 3], omega);
        gbfs.begin_tree(200.0);
        assert_eq!(gbfs.deduction(2), 3.0);
    }
}
