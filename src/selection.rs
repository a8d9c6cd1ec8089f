//! Which features a job's tree may use and what a new one pays: the
//! penalty of the fit (SPEC sections 2 and 4), seen by each job through
//! [`Selection::with_view`]. Jobs of one model (a single-output fit, the K
//! class trees of a round) share one Ω, so class k + 1 sees the features
//! class k just committed; the tasks of a multitask fit see Ω_G and their
//! own Ω_t.

use crate::multitask::MultiTaskParams;
use crate::params::{BoosterParams, PenaltyKind};
use crate::penalty::{FeatureSet, MultiTaskPenalty, NewFeaturePenalty, NoPenalty, Penalty, Scale};
use crate::units::Units;

/// The penalty state of a fit.
pub(crate) enum Selection {
    /// One Ω for every job.
    Shared(Box<dyn Penalty>),
    /// Ω_G and one Ω_t per task; a job's view is its task.
    Tasks(Box<MultiTaskPenalty>),
}

impl Selection {
    /// The single-model penalty of `params` over `d` features.
    pub(crate) fn single(params: &BoosterParams, d: usize, units: &Units) -> Selection {
        Selection::Shared(penalty_for(params, d, units))
    }

    /// The multitask penalty of `params` and `mt`.
    pub(crate) fn tasks(
        params: &BoosterParams,
        mt: &MultiTaskParams,
        n_tasks: usize,
        d: usize,
        units: &Units,
    ) -> Selection {
        Selection::Tasks(Box::new(multitask_penalty_for(
            params, mt, n_tasks, d, units,
        )))
    }

    /// True if view `view` (a task) may ever split on `feature`.
    pub(crate) fn allows(&self, view: usize, feature: usize) -> bool {
        match self {
            Selection::Shared(_) => true,
            Selection::Tasks(p) => p.allows(view, feature),
        }
    }

    /// Run `grow` with the penalty as view `view` sees it.
    pub(crate) fn with_view<R>(
        &mut self,
        view: usize,
        grow: impl FnOnce(&mut dyn Penalty) -> R,
    ) -> R {
        match self {
            Selection::Shared(p) => grow(p.as_mut()),
            Selection::Tasks(p) => grow(&mut p.task(view)),
        }
    }

    /// Multitask: Ω_G in entry order.
    pub(crate) fn group_features(&self) -> Option<Vec<usize>> {
        match self {
            Selection::Shared(_) => None,
            Selection::Tasks(p) => Some(p.group().used_in_order().to_vec()),
        }
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
    let omega = match &params.feature_bags {
        Some(bags) => FeatureSet::new(bags, params.max_features),
        None => FeatureSet::singletons(d, params.max_features),
    };
    let costs = params.feature_costs.clone().unwrap_or_else(|| vec![0.0; d]);
    let (mu, costs) = match scale {
        Scale::Gain => (
            units.gain(mu),
            costs.iter().map(|&c| units.gain(c)).collect(),
        ),
        Scale::RootScale => (mu, costs),
    };
    Box::new(NewFeaturePenalty::new(scale, mu, costs, omega))
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
    let (scale, mu_group, mu_task) = match params.penalty {
        PenaltyKind::None => (Scale::Gain, 0.0, 0.0),
        PenaltyKind::Gbfs => (Scale::Gain, units.gain(mt.mu_group), units.gain(mt.mu_task)),
        PenaltyKind::Agbm => (Scale::RootScale, mt.mu_group, mt.mu_task),
    };
    MultiTaskPenalty::new(
        scale,
        mu_group,
        mu_task,
        n_tasks,
        d,
        mt.task_feature_mask.clone(),
    )
}
