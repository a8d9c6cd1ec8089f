//! Large allocations that fail with an error instead of aborting the
//! process: the binned matrix and the group-testing cache grow with n·d (and
//! the cache with parameters such as `gt_delta`), so their size is the
//! user's to choose, and a request beyond the machine's memory must come
//! back as a message, not kill the interpreter.

use crate::error::{Result, SbError};

/// `len` copies of `T::default()`, or an error naming `what` when the
/// memory cannot be had.
pub fn try_filled<T: Clone + Default>(len: usize, what: &str) -> Result<Vec<T>> {
    let bytes = len.saturating_mul(std::mem::size_of::<T>());
    let mut v = Vec::new();
    v.try_reserve_exact(len).map_err(|_| {
        SbError::InvalidInput(format!(
            "cannot allocate {:.1} GiB for {what}",
            bytes as f64 / (1u64 << 30) as f64
        ))
    })?;
    v.resize(len, T::default());
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_impossible_allocation_is_an_error() {
        let e = try_filled::<u64>(usize::MAX / 4, "the test").unwrap_err();
        assert!(e.to_string().contains("the test"), "{e}");
        assert_eq!(try_filled::<u16>(3, "x").unwrap(), vec![0; 3]);
    }
}
