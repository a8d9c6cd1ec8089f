//! Ω, the features (and bags of features) the ensemble already uses.

use super::Changed;

/// Which bags have been paid for. Without bags every feature is its own bag.
#[derive(Debug, Clone)]
pub struct FeatureSet {
    /// `bag_of[j]`: the bag of feature j, in `0..n_bags`.
    bag_of: Vec<usize>,
    /// `paid[b]`: a feature of bag b is used.
    paid: Vec<bool>,
    /// The features of each bag, ascending.
    members: Vec<Vec<usize>>,
    /// Features used so far, in the order they entered.
    used_in_order: Vec<usize>,
    used: Vec<bool>,
    /// Stop admitting new bags once this many features are used.
    max_features: Option<usize>,
    /// Some bag holds several features.
    bagged: bool,
}

impl FeatureSet {
    /// An empty Ω over `bag_of.len()` features; bag labels are any integers.
    pub fn new(bag_of: &[usize], max_features: Option<usize>) -> Self {
        let mut labels: Vec<usize> = bag_of.to_vec();
        labels.sort_unstable();
        labels.dedup();
        let bag_of: Vec<usize> = bag_of
            .iter()
            .map(|b| labels.binary_search(b).unwrap())
            .collect();
        let mut members = vec![Vec::new(); labels.len()];
        for (feature, &bag) in bag_of.iter().enumerate() {
            members[bag].push(feature);
        }
        let bagged = members.iter().any(|m| m.len() > 1);
        FeatureSet {
            paid: vec![false; labels.len()],
            members,
            used: vec![false; bag_of.len()],
            bag_of,
            used_in_order: Vec::new(),
            max_features,
            bagged,
        }
    }

    /// Each feature in a bag of its own.
    pub fn singletons(n_features: usize, max_features: Option<usize>) -> Self {
        FeatureSet::new(&(0..n_features).collect::<Vec<_>>(), max_features)
    }

    /// True if splits on `feature` are free (its bag is paid for).
    pub fn is_free(&self, feature: usize) -> bool {
        self.paid[self.bag_of[feature]]
    }

    /// True if `feature` may still enter (the `max_features` rule).
    pub fn admits(&self, feature: usize) -> bool {
        self.is_free(feature)
            || self
                .max_features
                .is_none_or(|k| self.used_in_order.len() < k)
    }

    /// True if no feature outside Ω may enter any more: `max_features`
    /// are used and no bag can make an unused feature free.
    pub fn is_closed(&self) -> bool {
        !self.bagged
            && self
                .max_features
                .is_some_and(|k| self.used_in_order.len() >= k)
    }

    /// Record a split on `feature` and say which features it made free.
    pub fn mark_used(&mut self, feature: usize) -> Changed {
        let newly_used = !self.used[feature];
        if newly_used {
            self.used[feature] = true;
            self.used_in_order.push(feature);
        }
        let bag = self.bag_of[feature];
        let newly_paid = !self.paid[bag];
        self.paid[bag] = true;
        if newly_used && self.max_features == Some(self.used_in_order.len()) {
            Changed::Everything
        } else if newly_paid {
            Changed::Freed(self.members[bag].clone())
        } else {
            Changed::Nothing
        }
    }

    /// The features used so far, in the order they entered.
    pub fn used_in_order(&self) -> &[usize] {
        &self.used_in_order
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bag_is_paid_once() {
        let mut set = FeatureSet::new(&[7, 7, 3, 9], None);
        assert!(!set.is_free(0) && !set.is_free(1));
        assert_eq!(set.mark_used(1), Changed::Freed(vec![0, 1]));
        assert!(set.is_free(0) && set.is_free(1) && !set.is_free(2));
        assert_eq!(set.mark_used(0), Changed::Nothing); // same bag: nothing new to pay
        assert_eq!(set.used_in_order(), &[1, 0]);
    }

    #[test]
    fn max_features_closes_the_door() {
        let mut set = FeatureSet::singletons(4, Some(2));
        set.mark_used(3);
        assert!(set.admits(0));
        assert_eq!(set.mark_used(0), Changed::Everything); // the second feature closes the door
        assert!(!set.admits(1) && set.admits(3));
    }
}
