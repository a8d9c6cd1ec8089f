//! Which features a node considers: the one place that decides it.
//!
//! - [`AllFeatures`] (exhaustive search): every feature of the tree, in a
//!   histogram laid out for all of them; a node's subtree drops the
//!   features that can no longer split there (sparse columns).
//! - [`GroupTested`] (GT-GBM, SPEC section 3): Ω and the candidates of the
//!   node's group tests. Only the smaller of two siblings is tested; the
//!   larger inherits its parent's candidates, and both scan the union of
//!   their sets (a superset of a node's own can only find a better split).
//!   When neither Ω nor the candidates give the root a split while
//!   features may still enter, the root is scanned over all the tree's
//!   features once and the best of them joins its candidates: group
//!   testing never stops a fit that exhaustive search would go on with.
//! - [`Sampled`] (random forests): m of the tree's features drawn at each
//!   node, uniformly or by weights; each sibling scans only its own draw.
//!
//! The last two lay each node's histogram out for its features only; the
//! larger sibling takes by subtraction the features its parent holds.

use super::source::NodeSource;
use super::LeafSegment;
use crate::error::Result;
use crate::feature_sampling::draw;
use crate::rng::Rng;
use crate::split::{NodeStats, SplitConstraints};
use std::sync::Arc;

/// A node's features, as the grower asks for them.
pub(crate) trait FeatureChoice: Send {
    /// A tree starts that may use `features` (ascending), with Ω in entry
    /// order (`closed` once no feature outside it may enter). Returns the
    /// features the group tests must leave out from now on.
    fn begin_tree(&mut self, features: &[usize], omega: &[usize], closed: bool) -> Vec<usize>;

    /// A split was made and Ω may have grown or closed; as `begin_tree`.
    fn follow(&mut self, omega: &[usize], closed: bool) -> Vec<usize>;

    /// False when every node considers all the tree's features.
    fn per_node(&self) -> bool;

    /// The features node `node` finds on its own: its group tests, or its
    /// draw.
    fn found(
        &self,
        node: LeafSegment,
        stats: NodeStats,
        constraints: SplitConstraints,
        source: &mut dyn NodeSource,
    ) -> Result<Vec<usize>>;

    /// Whether the larger of two siblings finds its own features (else it
    /// inherits its parent's).
    fn each_finds_own(&self) -> bool;

    /// The features two siblings' histograms hold (ascending), given Ω and
    /// the sets they found.
    fn node_features(&self, omega: &[usize], found: &[&[usize]]) -> Vec<usize>;

    /// Whether a root without a split is scanned over all features once.
    fn rescues_root(&self) -> bool;
}

/// Exhaustive search.
pub(crate) struct AllFeatures;

impl FeatureChoice for AllFeatures {
    fn begin_tree(&mut self, _: &[usize], _: &[usize], _: bool) -> Vec<usize> {
        Vec::new()
    }
    fn follow(&mut self, _: &[usize], _: bool) -> Vec<usize> {
        Vec::new()
    }
    fn per_node(&self) -> bool {
        false
    }
    fn found(
        &self,
        _: LeafSegment,
        _: NodeStats,
        _: SplitConstraints,
        _: &mut dyn NodeSource,
    ) -> Result<Vec<usize>> {
        Ok(Vec::new())
    }
    fn each_finds_own(&self) -> bool {
        false
    }
    fn node_features(&self, _: &[usize], _: &[&[usize]]) -> Vec<usize> {
        unreachable!("exhaustive nodes hold all the tree's features")
    }
    fn rescues_root(&self) -> bool {
        false
    }
}

/// At most this many used features are subtracted from the pseudo-features:
/// each costs a read per row in every test of a range holding it, and with
/// many used features (no penalty) the exact scans dominate anyway.
const MAX_EXCLUDED: usize = 64;

/// GT-GBM's choice of a node's features.
pub(crate) struct GroupTested {
    /// The current tree's features (`colsample_bytree`).
    allowed: Vec<bool>,
    /// The categorical features: not in the group tests, scanned exactly
    /// at every node.
    categorical: Vec<usize>,
    /// How many features of Ω (in entry order) the tests leave out.
    n_excluded: usize,
    /// Ω is closed (`max_features` reached): no new feature may enter, so
    /// nodes run no tests (their candidates could never be split on).
    closed: bool,
}

impl GroupTested {
    pub(crate) fn new(d: usize, categorical: Vec<usize>) -> Self {
        GroupTested {
            allowed: vec![false; d],
            categorical,
            n_excluded: 0,
            closed: false,
        }
    }
}

impl FeatureChoice for GroupTested {
    fn begin_tree(&mut self, features: &[usize], omega: &[usize], closed: bool) -> Vec<usize> {
        self.allowed.fill(false);
        for &f in features {
            self.allowed[f] = true;
        }
        self.follow(omega, closed)
    }

    fn follow(&mut self, omega: &[usize], closed: bool) -> Vec<usize> {
        self.closed = closed;
        // Up to the first MAX_EXCLUDED features of Ω.
        let upto = omega.len().min(MAX_EXCLUDED);
        let new = omega[self.n_excluded.min(upto)..upto].to_vec();
        self.n_excluded = self.n_excluded.max(upto);
        new
    }

    fn per_node(&self) -> bool {
        true
    }

    fn found(
        &self,
        node: LeafSegment,
        stats: NodeStats,
        constraints: SplitConstraints,
        source: &mut dyn NodeSource,
    ) -> Result<Vec<usize>> {
        if self.closed {
            return Ok(Vec::new());
        }
        let mut found = source.group_tests(node, stats, constraints)?;
        found.retain(|&f| self.allowed[f]);
        Ok(found)
    }

    fn each_finds_own(&self) -> bool {
        false
    }

    fn node_features(&self, omega: &[usize], found: &[&[usize]]) -> Vec<usize> {
        let mut features: Vec<usize> = omega
            .iter()
            .copied()
            .chain(self.categorical.iter().copied())
            .filter(|&f| self.allowed[f])
            .chain(found.iter().flat_map(|c| c.iter().copied()))
            .collect();
        features.sort_unstable();
        features.dedup();
        features
    }

    fn rescues_root(&self) -> bool {
        // (Not once Ω is full: no feature outside it could be split on.)
        !self.closed
    }
}

/// m features per node, drawn from the tree's features.
pub struct NodeSampling {
    /// Features per node.
    pub m: usize,
    /// Sampling weights by feature (`None`: uniform).
    pub weights: Option<Arc<Vec<f64>>>,
    /// Seed of the tree's draws; node k draws from `Rng::derive(seed, k)`,
    /// so the draws do not depend on the order nodes are split in.
    pub seed: u64,
}

impl NodeSampling {
    /// `m` features per node, with `weights` (or uniformly), seeded by `seed`.
    pub fn new(m: usize, weights: Option<Arc<Vec<f64>>>, seed: u64) -> Self {
        NodeSampling { m, weights, seed }
    }
}

/// Per-node sampling (random forests).
pub(crate) struct Sampled {
    sampling: NodeSampling,
    /// The tree's features (ascending).
    features: Vec<usize>,
}

impl Sampled {
    pub(crate) fn new(sampling: NodeSampling) -> Self {
        Sampled {
            sampling,
            features: Vec::new(),
        }
    }
}

impl FeatureChoice for Sampled {
    fn begin_tree(&mut self, features: &[usize], _: &[usize], _: bool) -> Vec<usize> {
        self.features = features.to_vec();
        Vec::new()
    }

    fn follow(&mut self, _: &[usize], _: bool) -> Vec<usize> {
        Vec::new()
    }

    fn per_node(&self) -> bool {
        true
    }

    fn found(
        &self,
        node: LeafSegment,
        _: NodeStats,
        _: SplitConstraints,
        _: &mut dyn NodeSource,
    ) -> Result<Vec<usize>> {
        let s = &self.sampling;
        let mut rng = Rng::derive(s.seed, node.node as u64);
        let weights = s.weights.as_deref().map(Vec::as_slice);
        Ok(draw(&mut rng, &self.features, s.m, weights))
    }

    fn each_finds_own(&self) -> bool {
        true
    }

    fn node_features(&self, _: &[usize], found: &[&[usize]]) -> Vec<usize> {
        let mut features: Vec<usize> = found.iter().flat_map(|c| c.iter().copied()).collect();
        features.sort_unstable();
        features.dedup();
        features
    }

    fn rescues_root(&self) -> bool {
        false
    }
}
