//! Rayon thread pools, made once per process and size and reused by every
//! fit and prediction (building a pool costs more than predicting a few
//! rows).
//!
//! A thread count is capped at the cores the process may use
//! ([`available_cores`]: CPU affinity and cgroup quotas included, unlike
//! Python's `os.cpu_count()`), so a parameter or a model file cannot make
//! the process start thousands of threads; the fitted model does not depend
//! on the count anyway.
//!
//! After a `fork` the child has the pools but not their threads: work sent
//! to them would wait forever. Pools remember the process that made them,
//! and a child makes its own (the parent's are leaked, not dropped: dropping
//! would wait for threads that do not exist in the child).

use crate::error::{Result, SbError};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// The cores this process may run on (at least 1).
pub fn available_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The number of threads a request for `n_threads` gets: all available
/// cores for 0, else `n_threads` capped at them.
pub fn effective_threads(n_threads: usize) -> usize {
    let cores = available_cores();
    if n_threads == 0 {
        cores
    } else {
        n_threads.min(cores)
    }
}

struct Pools {
    pid: u32,
    by_size: HashMap<usize, Arc<rayon::ThreadPool>>,
}

static POOLS: Mutex<Option<Pools>> = Mutex::new(None);

/// The shared pool of [`effective_threads`]`(n_threads)` threads.
pub fn pool(n_threads: usize) -> Result<Arc<rayon::ThreadPool>> {
    let size = effective_threads(n_threads);
    let pid = std::process::id();
    let mut guard = POOLS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if guard.as_ref().is_some_and(|p| p.pid != pid) {
        // Forked: the parent's pools have no threads here.
        std::mem::forget(guard.take());
    }
    let pools = guard.get_or_insert_with(|| Pools {
        pid,
        by_size: HashMap::new(),
    });
    if let Some(pool) = pools.by_size.get(&size) {
        return Ok(Arc::clone(pool));
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(size)
        .thread_name(|i| format!("sparseboost-{i}"))
        .build()
        .map_err(|e| SbError::InvalidParameter(format!("cannot start {size} threads: {e}")))?;
    let pool = Arc::new(pool);
    pools.by_size.insert(size, Arc::clone(&pool));
    Ok(pool)
}

/// Run `work` on the shared pool of `n_threads` threads.
pub fn install<T: Send>(n_threads: usize, work: impl FnOnce() -> T + Send) -> Result<T> {
    Ok(pool(n_threads)?.install(work))
}

/// Run `work` on a pool of its own of `n_threads` threads. Work that may
/// block one of its threads on the caller runs here: a fit that reports its
/// rounds (the observer waits for a Python callback, which may predict or
/// fit with the shared pools) and a distributed fit's client (which waits
/// for shards that may be served in this process, on the shared pools). On
/// a shared pool of one thread either would wait for itself. Starting the
/// threads costs tens of microseconds, nothing beside a fit.
pub fn install_own<T: Send>(n_threads: usize, work: impl FnOnce() -> T + Send) -> Result<T> {
    let size = effective_threads(n_threads);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(size)
        .thread_name(|i| format!("sparseboost-client-{i}"))
        .build()
        .map_err(|e| SbError::InvalidParameter(format!("cannot start {size} threads: {e}")))?;
    Ok(pool.install(work))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pools_are_capped_at_the_cores_and_reused() {
        let cores = available_cores();
        assert_eq!(effective_threads(0), cores);
        assert_eq!(effective_threads(100_000), cores);
        assert_eq!(effective_threads(1), 1);
        let big = pool(100_000).unwrap();
        assert_eq!(big.current_num_threads(), cores);
        assert!(Arc::ptr_eq(&big, &pool(0).unwrap()));
        assert_eq!(install(1, rayon::current_num_threads).unwrap(), 1);
    }
}
