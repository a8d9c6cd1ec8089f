//! Ω, the features the fit uses: one record, owned by the trainer (through
//! [`crate::selection::Selection`]). The penalty prices candidates by it,
//! group testing scans it exactly at every node, and the round reports
//! count it; none of them keeps a copy.
//!
//! A single-output fit (or the K class trees of a round) has one Ω. A
//! multitask fit has Ω_G, the union over tasks, and one Ω_t per task;
//! a tree of task t commits its splits to both. A multitask fit's shared
//! start (trees that go into every task's model) uses view `n_tasks`: it
//! commits to Ω_G and every Ω_t, and prices by Ω_G (it comes before any
//! task's own tree, so every Ω_t is Ω_G then).

use crate::penalty::{Changed, FeatureSet};

/// Ω (or Ω_G) and, for multitask fits, every Ω_t.
#[derive(Debug, Clone)]
pub struct Omega {
    group: FeatureSet,
    tasks: Vec<FeatureSet>,
}

impl Omega {
    /// One Ω shared by every job; `group` carries the bags and the
    /// `max_features` rule.
    pub fn shared(group: FeatureSet) -> Self {
        Omega {
            group,
            tasks: Vec::new(),
        }
    }

    /// Ω_G and `n_tasks` sets Ω_t over `n_features` features.
    pub fn tasks(n_tasks: usize, n_features: usize) -> Self {
        Omega {
            group: FeatureSet::singletons(n_features, None),
            tasks: vec![FeatureSet::singletons(n_features, None); n_tasks],
        }
    }

    /// Ω as job view `view` sees it (its task, in a multitask fit, or
    /// `n_tasks` for the trees of every task).
    pub fn view(&self, view: usize) -> OmegaView<'_> {
        let own = if self.is_every_task(view) {
            Some(&self.group)
        } else {
            self.tasks.get(view)
        };
        OmegaView {
            group: &self.group,
            own,
            task: view,
        }
    }

    /// `view` is a multitask fit's view of every task.
    fn is_every_task(&self, view: usize) -> bool {
        !self.tasks.is_empty() && view == self.tasks.len()
    }

    /// True if `feature` is in Ω or may still enter it (`max_features`).
    pub fn admits(&self, feature: usize) -> bool {
        self.group.admits(feature)
    }

    /// True if no feature outside Ω may enter any more (see
    /// [`FeatureSet::is_closed`]).
    pub fn is_closed(&self) -> bool {
        self.group.is_closed()
    }

    /// The features used by any job, in the order they entered.
    pub fn used_in_order(&self) -> &[usize] {
        self.group.used_in_order()
    }

    /// A split of view `view` on `feature`: it joins Ω (Ω_G and the view's
    /// Ω_t). Says which deductions may have changed.
    pub fn commit(&mut self, view: usize, feature: usize) -> Changed {
        let group = self.group.mark_used(feature);
        if self.is_every_task(view) {
            return self
                .tasks
                .iter_mut()
                .fold(group, |changed, own| merge(changed, own.mark_used(feature)));
        }
        match self.tasks.get_mut(view) {
            None => group,
            Some(own) => merge(group, own.mark_used(feature)),
        }
    }
}

/// What two commits changed together.
fn merge(a: Changed, b: Changed) -> Changed {
    match (a, b) {
        (Changed::Everything, _) | (_, Changed::Everything) => Changed::Everything,
        (Changed::Nothing, c) | (c, Changed::Nothing) => c,
        (Changed::Freed(mut x), Changed::Freed(y)) => {
            x.extend(y);
            x.sort_unstable();
            x.dedup();
            Changed::Freed(x)
        }
    }
}

/// What a penalty reads of Ω while pricing one job's candidates.
#[derive(Debug, Clone, Copy)]
pub struct OmegaView<'a> {
    /// Ω, or Ω_G in a multitask fit.
    pub group: &'a FeatureSet,
    /// The job's task's Ω_t (multitask fits only).
    pub own: Option<&'a FeatureSet>,
    /// The job's view index (its task in a multitask fit).
    pub task: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_task_commit_joins_the_union_and_its_own_set_only() {
        let mut omega = Omega::tasks(2, 3);
        assert_eq!(omega.commit(1, 2), Changed::Freed(vec![2]));
        assert_eq!(omega.commit(1, 2), Changed::Nothing);
        // New to task 0 but not to the union: still a change for task 0.
        assert_eq!(omega.commit(0, 2), Changed::Freed(vec![2]));
        assert!(omega.view(0).own.unwrap().is_free(2));
        assert!(!omega.view(0).own.unwrap().is_free(1));
        assert_eq!(omega.used_in_order(), &[2]);
    }

    #[test]
    fn the_every_task_view_commits_to_every_task() {
        let mut omega = Omega::tasks(2, 3);
        assert_eq!(omega.commit(2, 1), Changed::Freed(vec![1]));
        for view in 0..3 {
            assert!(omega.view(view).own.unwrap().is_free(1));
            assert!(!omega.view(view).own.unwrap().is_free(0));
        }
        assert_eq!(omega.commit(0, 1), Changed::Nothing);
    }

    #[test]
    fn one_shared_set_for_every_view() {
        let mut omega = Omega::shared(FeatureSet::new(&[0, 0, 1], None));
        assert_eq!(omega.commit(3, 1), Changed::Freed(vec![0, 1]));
        assert!(omega.view(0).own.is_none() && omega.view(0).group.is_free(0));
        assert_eq!(omega.used_in_order(), &[1]);
    }
}
