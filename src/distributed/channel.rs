//! The client's end of the transport: every exchange counted, operations
//! that need no reply held until the next request carries them, and the
//! shards' replies checked and added up in shard order.

use super::packed::unpack;
use super::protocol::{decode, encode, Op, Output, Reply};
use super::transport::Transport;
use crate::error::{Result, SbError};
use crate::histogram::{HistBin, Histogram};
use rayon::prelude::*;
use serde::Serialize;

/// Messages of one phase of a fit.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Counter {
    /// Exchanges with all shards (one request each).
    pub round_trips: usize,
    /// Request bytes, summed over shards.
    pub bytes_sent: usize,
    /// Reply bytes, summed over shards.
    pub bytes_received: usize,
}

/// Where a distributed fit's time went (seconds).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Timing {
    /// Set-up, from the first request to the last (pooling, binning).
    pub setup: f64,
    /// The boosting rounds.
    pub boosting: f64,
    /// Of both, the time spent waiting for the shards' replies (their work
    /// and the transport's); the rest is the client's own.
    pub waiting: f64,
}

/// What a distributed fit moved, counted by the client.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Traffic {
    /// Pooling targets, the cut-point sample and bin counts; set-up.
    pub setup: Counter,
    /// The boosting rounds.
    pub boosting: Counter,
    /// Trees grown (including those early stopping drops).
    pub trees: usize,
    /// Shards.
    pub shards: usize,
    /// Where the time went.
    pub seconds: Timing,
}

/// The client's side of the transport: counts every exchange, and holds
/// operations that need no reply until the next request carries them.
pub(super) struct Channel<'t> {
    pub(super) transport: &'t mut dyn Transport,
    pub(super) traffic: Traffic,
    pub(super) boosting: bool,
    pub(super) pending: Vec<Op>,
}

impl Channel<'_> {
    /// Run `requests[i]` (after the pending operations) on shard `i`.
    pub(super) fn each(&mut self, requests: Vec<Vec<Op>>) -> Result<Vec<Reply>> {
        let pending = std::mem::take(&mut self.pending);
        let bytes: Vec<Vec<u8>> = requests
            .into_iter()
            .map(|ops| encode(&pending.iter().cloned().chain(ops).collect::<Vec<_>>()))
            .collect();
        let counter = if self.boosting {
            &mut self.traffic.boosting
        } else {
            &mut self.traffic.setup
        };
        counter.round_trips += 1;
        counter.bytes_sent += bytes.iter().map(Vec::len).sum::<usize>();
        let started = std::time::Instant::now();
        let replies = self.transport.exchange(bytes);
        self.traffic.seconds.waiting += started.elapsed().as_secs_f64();
        let replies = replies?;
        let counter = if self.boosting {
            &mut self.traffic.boosting
        } else {
            &mut self.traffic.setup
        };
        if replies.len() != self.traffic.shards {
            return Err(protocol_error("a reply per shard"));
        }
        counter.bytes_received += replies.iter().map(Vec::len).sum::<usize>();
        replies.iter().map(|r| decode(r, "reply")).collect()
    }

    /// Run `ops` on every shard.
    pub(super) fn all(&mut self, ops: Vec<Op>) -> Result<Vec<Reply>> {
        self.each(vec![ops; self.traffic.shards])
    }
}

pub(super) fn protocol_error(what: &str) -> SbError {
    SbError::InvalidInput(format!("a shard's reply does not hold {what}"))
}

/// Output `i` of every shard's reply, unpacked by `take`.
pub(super) fn outputs<T>(
    replies: &[Reply],
    i: usize,
    what: &str,
    take: impl Fn(&Output) -> Option<T>,
) -> Result<Vec<T>> {
    replies
        .iter()
        .map(|r| r.get(i).and_then(&take).ok_or_else(|| protocol_error(what)))
        .collect()
}

/// The sum of the shards' histograms (output `i`), added in shard order.
pub(super) fn summed_histogram(replies: &[Reply], i: usize, len: usize) -> Result<Histogram> {
    let packed = replies
        .iter()
        .map(|r| match r.get(i) {
            Some(Output::Histogram(bins)) => Ok(bins),
            _ => Err(protocol_error("a histogram")),
        })
        .collect::<Result<Vec<_>>>()?;
    let mut parts = packed
        .par_iter()
        .map(|p| unpack(p, len))
        .collect::<Result<Vec<_>>>()?
        .into_iter();
    let mut bins = parts.next().ok_or_else(|| protocol_error("a shard"))?;
    let rest: Vec<Vec<HistBin>> = parts.collect();
    // Bin by bin, the shards' sums in shard order (whatever the threads).
    bins.par_chunks_mut(4096)
        .enumerate()
        .for_each(|(c, chunk)| {
            for part in &rest {
                for (b, p) in chunk.iter_mut().zip(&part[c * 4096..]) {
                    *b = HistBin {
                        g: b.g + p.g,
                        h: b.h + p.h,
                        n: b.n + p.n,
                    };
                }
            }
        });
    Ok(Histogram { bins })
}
