//! How the client reaches its shards: one request per shard out, one reply
//! per shard back, as bytes. [`InProcess`] holds the shards itself (the
//! tests' oracle and the single-process sharded fit); the Python bindings
//! implement the trait over Dask actors.

use super::protocol::{decode, encode, Request};
use super::shard::Shard;
use crate::error::Result;
use crate::interrupt::ShouldStop;
use crate::matrix::FeatureMatrix;

/// A round trip to every shard at once.
pub trait Transport: Send {
    /// Number of shards, fixed for the fit.
    fn n_shards(&self) -> usize;

    /// Send `requests[i]` (encoded [`Request`]s) to shard `i`; the encoded
    /// replies, in shard order. An error (a lost worker, a shard's own
    /// error) ends the fit.
    fn exchange(&mut self, requests: Vec<Vec<u8>>) -> Result<Vec<Vec<u8>>>;

    /// The data's row number of each row of each shard (ascending within a
    /// shard), when the shards are not in row order (the chunks a Dask
    /// worker holds). `None`: shard 0 holds the first rows, and so on.
    fn shard_rows(&self) -> Option<Vec<Vec<u32>>> {
        None
    }
}

/// Shards in this process, each with its rows, served one after the other
/// (each request runs on the shard's thread pool).
pub struct InProcess<'a> {
    shards: Vec<(FeatureMatrix<'a>, Shard)>,
    should_stop: &'a ShouldStop<'a>,
}

impl<'a> InProcess<'a> {
    /// Serve `shards`, each with its feature matrix.
    pub fn new(shards: Vec<(FeatureMatrix<'a>, Shard)>, should_stop: &'a ShouldStop<'a>) -> Self {
        InProcess {
            shards,
            should_stop,
        }
    }
}

impl Transport for InProcess<'_> {
    fn n_shards(&self) -> usize {
        self.shards.len()
    }

    fn exchange(&mut self, requests: Vec<Vec<u8>>) -> Result<Vec<Vec<u8>>> {
        let should_stop = self.should_stop;
        self.shards
            .iter_mut()
            .zip(requests)
            .map(|((x, shard), bytes)| {
                let request: Request = decode(&bytes, "request")?;
                Ok(encode(&shard.handle(x, request, should_stop)?))
            })
            .collect()
    }
}
