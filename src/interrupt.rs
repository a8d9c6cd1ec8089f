//! Asking long work to stop early: the Python bindings raise a flag on
//! Ctrl-C, and every loop that can run for long (binning, the
//! group-testing cache, growing a tree node by node, prediction) polls it
//! often enough to end within a fraction of a second at any size.

use crate::error::{Result, SbError};

/// A callback that says whether the caller wants the work to stop. It is
/// polled from worker threads, so it must be cheap (an atomic load).
pub type ShouldStop<'a> = dyn Fn() -> bool + Sync + 'a;

/// A [`ShouldStop`] that never asks to stop (Rust callers, tests).
pub fn never() -> bool {
    false
}

/// `Err(Interrupted)` once the caller asked to stop.
#[inline]
pub fn check(should_stop: &ShouldStop) -> Result<()> {
    if should_stop() {
        Err(SbError::Interrupted)
    } else {
        Ok(())
    }
}
