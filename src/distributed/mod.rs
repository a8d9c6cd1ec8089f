//! Data-parallel training: the rows live in shards (one per Dask worker,
//! or several in one process), the decisions on the client.
//!
//! The client ([`client`]) pools what must be global — the targets (for
//! the units and base scores), a row sample (for the cut points), the bin
//! counts (for which features can split) — then grows every tree itself:
//! it asks the shards for additive statistics (root sums, node histograms,
//! losses) through a [`transport::Transport`], adds them up in shard order,
//! and chooses splits, Ω and early stopping once, with the single-machine
//! fit's split finder and penalties. A shard ([`shard`]) only applies what
//! it is told and sums what it is asked for. The bytes that move are the
//! messages of [`protocol`].
//!
//! With one shard the fit is the single-machine fit bit for bit; with
//! several, floating-point sums are added in another order, so models
//! differ in the last bits from the single-machine one, but not between
//! transports over the same shards.

mod channel;
pub mod client;
mod group_search;
mod nodes;
mod packed;
pub mod protocol;
mod row_order;
mod scores;
pub mod shard;
mod shard_tests;
pub mod transport;

pub use channel::{Counter, Timing, Traffic};
pub use client::{fit_sharded, fit_sharded_multitask};
pub use shard::Shard;
pub use transport::{InProcess, Transport};
