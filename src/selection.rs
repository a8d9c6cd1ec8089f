//! Which features a job's tree may use and what a new one pays: the
//! penalty rule of the fit (SPEC sections 2 and 4) and Ω, the one record of
//! the features the fit uses. The grower sees both through a
//! [`TreeSelection`]: it prices candidates and commits its splits to Ω.
//! Jobs of one model (a single-output fit, the K class trees of a round)
//! share one Ω, so class k + 1 sees the features class k just committed;
//! the tasks of a multitask fit see Ω_G and their own Ω_t.

use crate::multitask::MultiTaskParams;
use crate::omega::Omega;
use crate::params::{BoosterParams, PenaltyKind};
use crate::penalty::{
    Changed, FeatureSet, MultiTaskPenalty, NewFeaturePenalty, NoPenalty, Penalty, Scale,
};
use crate::units::Units;

/// The penalty rule and Ω of a fit.
pub struct Selection {
    penalty: Box<dyn Penalty>,
    omega: Omega,
    /// The rule is GBFS's or A-GBM's, with one μ (so μ_max means something).
    one_mu: bool,
}

impl Selection {
    /// The single-model penalty of `params` over `d` features.
    pub(crate) fn single(params: &BoosterParams, d: usize, units: &Units) -> Selection {
        let omega = match &params.feature_bags {
            Some(bags) => FeatureSet::new(bags, params.max_features),
            None => FeatureSet::singletons(d, params.max_features),
        };
        Selection {
            penalty: penalty_for(params, d, units),
            omega: Omega::shared(omega),
            one_mu: matches!(params.penalty, PenaltyKind::Gbfs | PenaltyKind::Agbm),
        }
    }

    /// The multitask penalty of `params` and `mt`.
    pub(crate) fn tasks(
        params: &BoosterParams,
        mt: &MultiTaskParams,
        n_tasks: usize,
        d: usize,
        units: &Units,
    ) -> Selection {
        Selection {
            penalty: Box::new(multitask_penalty_for(params, mt, n_tasks, d, units)),
            omega: Omega::tasks(n_tasks, d),
            // μ_max bounds μ_G + μ_t (see MultiTaskPenalty::break_even_mu).
            one_mu: matches!(params.penalty, PenaltyKind::Gbfs | PenaltyKind::Agbm),
        }
    }

    /// No penalty, over `d` features (Ω is still recorded).
    pub fn unpenalised(d: usize) -> Selection {
        Selection {
            penalty: Box::new(NoPenalty),
            omega: Omega::shared(FeatureSet::singletons(d, None)),
            one_mu: false,
        }
    }

    /// True if view `view` (a task) may split on `feature` now or later:
    /// the task has it, and Ω has it or may still admit it. (Ω only grows,
    /// so a feature shut out at a tree's start stays out: the tree need
    /// not build its histograms.)
    pub(crate) fn allows(&self, view: usize, feature: usize) -> bool {
        self.penalty.allows(view, feature) && self.omega.admits(feature)
    }

    /// What the grower of a tree of job view `view` sees.
    pub fn view(&mut self, view: usize) -> TreeSelection<'_> {
        TreeSelection {
            penalty: self.penalty.as_mut(),
            omega: &mut self.omega,
            view,
        }
    }

    /// True for GBFS and A-GBM (one μ; see [`crate::mu_max`]).
    pub(crate) fn has_one_mu(&self) -> bool {
        self.one_mu
    }

    /// The μ at which a split of `net_gain` on `feature` stops paying at a
    /// first-round root (see [`Penalty::break_even_mu`]).
    pub(crate) fn break_even_mu(
        &self,
        root_scale: f64,
        feature: usize,
        net_gain: f64,
    ) -> Option<f64> {
        self.penalty.break_even_mu(root_scale, feature, net_gain)
    }

    /// Whether μ is given relative to μ_max.
    pub(crate) fn mu_is_relative(&self) -> bool {
        self.penalty.is_relative()
    }

    /// Turn the μ given relative to μ_max (if any) into μ.
    pub(crate) fn resolve_relative_mu(&mut self, mu_max: f64) {
        self.penalty.resolve_relative_mu(mu_max);
    }

    /// Ω (Ω_G in a multitask fit).
    pub fn omega(&self) -> &Omega {
        &self.omega
    }
}

/// The penalty and Ω as one tree's job sees them.
pub struct TreeSelection<'a> {
    penalty: &'a mut dyn Penalty,
    omega: &'a mut Omega,
    view: usize,
}

impl TreeSelection<'_> {
    /// A tree starts; `root_scale` is `Σ g²/h − G²/H` over its root rows.
    pub fn begin_tree(&mut self, root_scale: f64) {
        self.penalty.begin_tree(root_scale);
    }

    /// What a split on `feature` pays now, in gain units.
    pub fn deduction(&self, feature: usize) -> f64 {
        self.penalty.deduction(self.omega.view(self.view), feature)
    }

    /// A split on `feature` was made: it joins Ω. Says which deductions
    /// may have changed.
    pub fn commit(&mut self, feature: usize) -> Changed {
        self.omega.commit(self.view, feature)
    }

    /// True if no feature outside Ω may enter any more.
    pub fn omega_closed(&self) -> bool {
        self.omega.is_closed()
    }

    /// Ω (Ω_G in a multitask fit) in entry order.
    pub fn used_in_order(&self) -> &[usize] {
        self.omega.used_in_order()
    }
}

/// The penalty `params` ask for, over `d` features; μ and the costs of a
/// penalty in gain units are converted to the fit's `units`.
fn penalty_for(params: &BoosterParams, d: usize, units: &Units) -> Box<dyn Penalty> {
    let scale = match params.penalty {
        // Costs or max_features without μ: a gain-unit penalty with μ = 0.
        PenaltyKind::None if params.max_features.is_some() || params.feature_costs.is_some() => {
            Scale::Gain
        }
        PenaltyKind::None => return Box::new(NoPenalty),
        PenaltyKind::Gbfs => Scale::Gain,
        PenaltyKind::Agbm => Scale::RootScale,
    };
    let mu = if params.penalty == PenaltyKind::None {
        0.0
    } else {
        params.mu
    };
    let costs = params.feature_costs.clone().unwrap_or_else(|| vec![0.0; d]);
    let (mu, costs) = match scale {
        // A relative μ is a pure number until the trainer resolves it
        // against μ_max, which is already in the fit's units.
        Scale::Gain => (
            if params.mu_relative {
                mu
            } else {
                units.gain(mu)
            },
            costs.iter().map(|&c| units.gain(c)).collect(),
        ),
        Scale::RootScale => (mu, costs),
    };
    Box::new(NewFeaturePenalty::new(scale, mu, costs).relative(params.mu_relative))
}

/// The shared penalty `params` and `mt` ask for; GBFS's μ_G and μ_t are
/// converted to the fit's `units`.
fn multitask_penalty_for(
    params: &BoosterParams,
    mt: &MultiTaskParams,
    n_tasks: usize,
    d: usize,
    units: &Units,
) -> MultiTaskPenalty {
    let mu_task: Vec<f64> = (0..n_tasks).map(|t| mt.mu_task_of(t)).collect();
    // A relative μ is a pure number until the trainer resolves it against
    // μ_max, which is already in the fit's units.
    let gain = |mu: f64, relative: bool| if relative { mu } else { units.gain(mu) };
    let (scale, mu_group, mu_task) = match params.penalty {
        PenaltyKind::None => (Scale::Gain, 0.0, vec![0.0; n_tasks]),
        PenaltyKind::Gbfs => (
            Scale::Gain,
            gain(mt.mu_group, mt.mu_group_relative),
            mu_task
                .into_iter()
                .map(|mu| gain(mu, mt.mu_task_relative))
                .collect(),
        ),
        PenaltyKind::Agbm => (Scale::RootScale, mt.mu_group, mu_task),
    };
    let penalised = params.penalty != PenaltyKind::None;
    MultiTaskPenalty::new(
        scale,
        mu_group,
        mu_task,
        n_tasks,
        d,
        mt.task_feature_mask.clone(),
    )
    .relative(
        penalised && mt.mu_group_relative,
        penalised && mt.mu_task_relative,
    )
}
