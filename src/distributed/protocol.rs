//! The messages between the client's trainer and its shards, and their
//! bytes (bincode: what the Dask transport moves, and what the counters of
//! [`super::transport`] measure for either transport).
//!
//! A request is a list of operations a shard runs in order, and a reply
//! holds the outputs of those that have one, in the same order. Batching
//! is what keeps round trips few: the splits chosen since the last request,
//! the leaf values of the last tree and the next histogram all travel in
//! one message.

use super::packed::PackedBins;
use crate::binning::BinMapper;
use crate::error::{Result, SbError};
use crate::routing::BinSet;
use crate::tree::Tree;
use crate::units::Units;
use serde::{Deserialize, Serialize};

/// One step a shard takes.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum Op {
    /// Reply [`Output::Described`].
    Describe,
    /// Reply [`Output::Targets`]: the shard's labels, weights and query
    /// sizes (the client decides the units and base scores from them all).
    Targets,
    /// Reply [`Output::Values`]: features `features.0..features.1` of the
    /// shard's rows `rows` (ascending), row-major, missing as NaN and
    /// sparse zeros as 0 (the pooled sample the cut points come from).
    Sample {
        rows: Vec<u32>,
        features: (u32, u32),
    },
    /// Bin the shard's rows with these cut points; reply
    /// [`Output::BinCounts`] for features `counts.0..counts.1`.
    Bin {
        mappers: Vec<BinMapper>,
        counts: (u32, u32),
    },
    /// Reply [`Output::BinCounts`] for features `.0..`.1` of the binned rows.
    BinCounts((u32, u32)),
    /// Which features can split, the fit's units and each model's K base
    /// scores. The shard's populations are then every row (one model), or
    /// each task's rows and then every row (one model per task: rows of
    /// task t start from model t's base score).
    Setup {
        splittable: Vec<bool>,
        units: Units,
        base_scores: Vec<Vec<f64>>,
    },
    /// Gradients and hessians of population `population`'s rows from the
    /// current scores.
    Gradients { population: u32 },
    /// Start a tree on output `output`: in node 0 the rows of population
    /// `population`, or these rows of it (ascending; the shard's part of a
    /// row sample). Reply [`Output::Root`].
    Root {
        output: u32,
        population: u32,
        rows: Option<Vec<u32>>,
    },
    /// Split `node`'s rows: those whose bin of `feature` is one of
    /// `left_bins` to node `left`, the others to `left + 1`.
    Split {
        node: u32,
        feature: u32,
        left_bins: BinSet,
        left: u32,
    },
    /// Reply [`Output::Histogram`]: the bins of `features` (ascending,
    /// splittable) over `node`'s rows, feature after feature.
    Histogram { node: u32, features: Vec<u32> },
    /// Add each `(leaf, value)` to output `output` of the leaf's rows in
    /// the current tree.
    AddLeaves {
        output: u32,
        leaves: Vec<(u32, f64)>,
    },
    /// Reply [`Output::Loss`] for population `population`'s rows.
    Loss { population: u32 },
    /// Add these trees (the fit's units), in order, to the scores of the
    /// rows of population `population` (every row for `None`: a fit
    /// resumed from trees grown before).
    AddTrees {
        trees: Vec<Tree>,
        population: Option<u32>,
    },
    /// Build the group-testing cache of these subsets over the shard's
    /// rows; reply [`Output::CacheBytes`].
    GroupTests { subsets: Vec<Vec<u32>> },
    /// Leave these features out of every pseudo-feature from now on.
    Exclude { features: Vec<u32> },
    /// Reply [`Output::Bounds`] for `node`'s tested rows (all of them, or
    /// with `sample = (rows of the node, k)` about k/N of the shard's):
    /// their sums and the smallest and largest value of the pseudo-feature
    /// of each `(subset, lo, hi)` range.
    Bounds {
        node: u32,
        sample: Option<(u64, u64)>,
        ranges: Vec<(u32, u32, u32)>,
    },
    /// Reply [`Output::Histogram`]: the pseudo-feature histogram of each
    /// range over the same rows as [`Op::Bounds`], binned from the pooled
    /// `bounds` and tested-row count (ranges without bins send none).
    PseudoHistograms {
        node: u32,
        sample: Option<(u64, u64)>,
        ranges: Vec<(u32, u32, u32)>,
        bounds: Vec<(u64, u64)>,
        n_values: u64,
    },
}

/// What an operation returns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Output {
    /// The shard's rows, features and queries.
    Described {
        n_rows: u64,
        n_features: u64,
        n_queries: u64,
    },
    /// Labels, weights (if any), query sizes (ranking), tasks (multitask).
    Targets {
        y: Vec<f64>,
        weights: Option<Vec<f64>>,
        group_sizes: Option<Vec<u64>>,
        task: Option<Vec<u32>>,
    },
    /// Row-major feature values, in the shard's X's precision.
    Values(SampleValues),
    /// For each feature asked, the rows in each of its bins.
    BinCounts(Vec<Vec<u64>>),
    /// A new root's sums over the shard's rows: Σg, Σh, rows, Σ g²/h.
    Root { g: f64, h: f64, n: u32, scale: f64 },
    /// Histogram bins.
    Histogram(PackedBins),
    /// Mean loss over the shard's rows (in the fit's units) and the mass it
    /// is a mean over (weights or rows; queries for ranking).
    Loss { mean: f64, mass: f64 },
    /// Bytes of the shard's group-testing cache.
    CacheBytes(u64),
    /// Sums over the tested rows (Σg, Σh, rows) and each range's
    /// `(min, max)` over them (`(u64::MAX, 0)` without rows).
    Bounds {
        g: f64,
        h: f64,
        n: u32,
        bounds: Vec<(u64, u64)>,
    },
}

/// Feature values of sampled rows: float32 X sends float32 (half the
/// bytes, and the cut points a float32 fit finds).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum SampleValues {
    F64(Vec<f64>),
    F32(Vec<f32>),
}

/// A request: operations run in order.
pub type Request = Vec<Op>;
/// A reply: the outputs of the request's operations that have one.
pub type Reply = Vec<Output>;

/// The bytes of a message.
pub fn encode<T: Serialize>(message: &T) -> Vec<u8> {
    bincode::serialize(message).expect("protocol messages always serialize")
}

/// A message from bytes; bytes from elsewhere may be anything, so a bad
/// message is an error, never a panic.
pub fn decode<T: for<'de> Deserialize<'de>>(bytes: &[u8], what: &str) -> Result<T> {
    // A length prefix in the bytes must not make bincode allocate more than
    // the bytes could hold.
    use bincode::Options;
    bincode::DefaultOptions::new()
        .with_fixint_encoding()
        .allow_trailing_bytes()
        .with_limit(bytes.len() as u64 * 8 + 1024)
        .deserialize(bytes)
        .map_err(|e| SbError::InvalidInput(format!("a malformed {what} message: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_round_trip_and_garbage_is_an_error() {
        let request: Request = vec![
            Op::Split {
                node: 3,
                feature: 17,
                left_bins: BinSet::threshold(4, 9, true),
                left: 5,
            },
            Op::Histogram {
                node: 5,
                features: vec![1, 17],
            },
            // Trees with and without a round (the one a shard is sent
            // while it is grown has none yet), then a sampled root.
            Op::AddTrees {
                trees: [None, Some(4)]
                    .map(|round| crate::tree::Tree {
                        output: 1,
                        round,
                        root_scale: round.map(f64::from),
                        nodes: vec![crate::tree::Node::leaf(0.5, 3)],
                    })
                    .to_vec(),
                population: Some(1),
            },
            Op::Root {
                output: 0,
                population: 1,
                rows: Some(vec![0, 2, 9]),
            },
        ];
        let bytes = encode(&request);
        let back: Request = decode(&bytes, "request").unwrap();
        assert_eq!(encode(&back), bytes);
        assert!(matches!(&back[3], Op::Root { rows: Some(r), .. } if r == &[0, 2, 9]));
        let bins = [crate::histogram::HistBin {
            g: 1.5,
            h: 2.0,
            n: 3,
        }];
        let reply: Reply = vec![Output::Histogram(super::super::packed::pack(&bins, None))];
        assert_eq!(decode::<Reply>(&encode(&reply), "reply").unwrap(), reply);
        assert!(decode::<Request>(&[255, 255, 255, 255, 255, 255, 255, 127], "request").is_err());
        assert!(decode::<Request>(&bytes[..bytes.len() - 3], "request").is_err());
    }
}
