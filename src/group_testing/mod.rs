//! GT-GBM's group testing (SPEC section 3): find a few candidate features
//! among d by binary search over random feature subsets, testing the summed
//! "pseudo-feature" of each half, so that a node costs far less than an
//! exact scan of all d features.
//!
//! - [`subsets`]: the `p = ⌈e·s·ln(s/δ)⌉` random subsets, drawn once per fit;
//! - [`prefix_cache`]: per subset and row, prefix sums of the bins in the
//!   subset's order, so a contiguous range's pseudo-feature costs O(1) a row;
//! - [`search`]: the group test (best split gain of a pseudo-feature on a
//!   node's rows) and the binary search that yields the candidate set.
//!
//! Status: the search works on a node given its rows and gradients; it is
//! not yet wired into the tree grower (`split_search="group_testing"`).

pub mod prefix_cache;
pub mod search;
pub mod subsets;

pub use prefix_cache::PrefixCache;
pub use search::{candidate_features, GroupTestNode};
pub use subsets::{draw_subsets, n_subsets};
