//! Large allocations that fail with an error instead of aborting the
//! process: the binned matrix and the group-testing cache grow with n·d (and
//! the cache with parameters such as `gt_delta`), so their size is the
//! user's to choose, and a request beyond the machine's memory must come
//! back as a message, not kill the interpreter.

use crate::error::{Result, SbError};

/// Numbers whose all-zero bytes are their `Default` value (zero), so that
/// zeroed memory from the allocator is a filled vector.
pub trait Zeroable: Copy + Default {}
impl Zeroable for u8 {}
impl Zeroable for u16 {}
impl Zeroable for u32 {}
impl Zeroable for u64 {}
impl Zeroable for f32 {}
impl Zeroable for f64 {}

/// Allocations of at least this many bytes ask the kernel for huge pages.
const HUGE_PAGES_FROM: usize = 4 << 20;

/// `len` zeros, or an error naming `what` when the memory cannot be had.
///
/// The memory comes zeroed from the allocator (`calloc`: fresh pages,
/// which the kernel zeroes on first touch) rather than written here: a
/// vector of 600 MB filled on the calling thread took longer than the
/// parallel work that then overwrote it, since every 4 KiB page faulted in
/// turn on one thread. Large blocks are also marked for transparent huge
/// pages (Linux), so a touch maps 2 MiB instead of 4 KiB, on whichever
/// worker thread touches it first.
pub fn try_filled<T: Zeroable>(len: usize, what: &str) -> Result<Vec<T>> {
    let bytes = len.saturating_mul(std::mem::size_of::<T>());
    let too_much = || {
        SbError::InvalidInput(format!(
            "cannot allocate {:.1} GiB for {what}",
            bytes as f64 / (1u64 << 30) as f64
        ))
    };
    if len == 0 || std::mem::size_of::<T>() == 0 {
        return Ok(Vec::new());
    }
    let layout = std::alloc::Layout::array::<T>(len).map_err(|_| too_much())?;
    if layout.size() > isize::MAX as usize {
        return Err(too_much());
    }
    // SAFETY: the layout has a non-zero size (len > 0 and T is not a ZST).
    let ptr = unsafe { std::alloc::alloc_zeroed(layout) } as *mut T;
    if ptr.is_null() {
        return Err(too_much());
    }
    advise_huge_pages(ptr as *mut u8, layout.size());
    // SAFETY: `ptr` was allocated by the global allocator with the layout
    // of `len` values of T (so capacity = len), and every byte is zero,
    // which is a valid T (`Zeroable`).
    Ok(unsafe { Vec::from_raw_parts(ptr, len, len) })
}

/// Ask for transparent huge pages over the whole 2 MiB pages inside
/// `ptr..ptr + bytes` (a hint; failures are ignored).
#[cfg(target_os = "linux")]
fn advise_huge_pages(ptr: *mut u8, bytes: usize) {
    const HUGE: usize = 2 << 20;
    if bytes < HUGE_PAGES_FROM {
        return;
    }
    let start = (ptr as usize).next_multiple_of(HUGE);
    let end = (ptr as usize + bytes) / HUGE * HUGE;
    if end > start {
        // SAFETY: madvise only changes how the kernel backs pages of this
        // process's own mapping, which `ptr..ptr + bytes` lies within; it
        // never touches their contents.
        unsafe {
            libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge_pages(_ptr: *mut u8, _bytes: usize) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_impossible_allocation_is_an_error() {
        let e = try_filled::<u64>(usize::MAX / 4, "the test").unwrap_err();
        assert!(e.to_string().contains("the test"), "{e}");
        assert_eq!(try_filled::<u16>(3, "x").unwrap(), vec![0; 3]);
        assert!(try_filled::<f64>(0, "x").unwrap().is_empty());
    }

    #[test]
    fn a_large_allocation_is_zeros_and_an_ordinary_vector() {
        // Above the huge-page threshold, and not a multiple of 2 MiB.
        let len = (HUGE_PAGES_FROM + 12345) / 4;
        let mut v = try_filled::<f32>(len, "x").unwrap();
        assert_eq!((v.len(), v.capacity()), (len, len));
        assert!(v.iter().all(|&x| x == 0.0));
        v[len - 1] = 1.0;
        v.push(2.0); // grows through the global allocator
        assert_eq!(&v[len - 1..], &[1.0, 2.0]);
    }
}
