//! GT-GBM's group testing (SPEC section 3): find a few candidate features
//! among d by binary search over random feature subsets, testing the summed
//! "pseudo-feature" of each half, so that a node costs far less than an
//! exact scan of all d features.
//!
//! - [`subsets`]: the `p = ⌈e·s·ln(s/δ)⌉` random subsets, drawn once per fit;
//! - [`prefix_cache`]: per subset and row, prefix sums of the bins in the
//!   subset's order, so a contiguous range's pseudo-feature costs O(1) a row;
//! - [`excluded`]: used features taken out of the pseudo-features;
//! - [`cost`]: the rule of `split_search = "auto"`;
//! - [`screening`]: which subsets a node searches, by a test of each
//!   subset's whole range;
//! - [`search`]: the group test (best split gain of a pseudo-feature on a
//!   node's rows) and the binary search that yields the candidate set.
//!
//! The tree grower runs them at every node with
//! `split_search = GroupTesting` (`grower::group_tested`).

pub mod cost;
pub mod excluded;
pub mod prefix_cache;
pub mod screening;
pub mod search;
pub mod subsets;

pub use cost::DataShape;
pub use excluded::Excluded;
pub use prefix_cache::PrefixCache;
pub use search::{candidate_features, squared_error_root_candidates, GroupTestNode};
pub use subsets::{draw_planned, draw_subsets, n_subsets, plan, Plan};
