//! The rows of every leaf, kept as contiguous segments of one index array
//! (LightGBM's `DataPartition`). Splitting a leaf partitions its segment in
//! place, stably, so every segment stays sorted ascending.

use rayon::prelude::*;

/// Segments this long or longer are partitioned by chunks in parallel.
const PARALLEL_MIN_ROWS: usize = 1 << 16;
const CHUNK_ROWS: usize = 1 << 14;

/// Stably move the rows of `segment` for which `goes_left` holds to the
/// front; return how many there are. The result does not depend on the
/// number of threads.
pub fn partition_segment<F>(segment: &mut [u32], goes_left: F) -> usize
where
    F: Fn(u32) -> bool + Sync,
{
    if segment.len() < PARALLEL_MIN_ROWS {
        let mut right = Vec::new();
        let mut n_left = 0;
        for i in 0..segment.len() {
            let r = segment[i];
            if goes_left(r) {
                segment[n_left] = r;
                n_left += 1;
            } else {
                right.push(r);
            }
        }
        segment[n_left..].copy_from_slice(&right);
        return n_left;
    }
    let parts: Vec<(Vec<u32>, Vec<u32>)> = segment
        .par_chunks(CHUNK_ROWS)
        .map(|chunk| chunk.iter().partition(|&&r| goes_left(r)))
        .collect();
    let mut pos = 0;
    for (left, _) in &parts {
        segment[pos..pos + left.len()].copy_from_slice(left);
        pos += left.len();
    }
    let n_left = pos;
    for (_, right) in &parts {
        segment[pos..pos + right.len()].copy_from_slice(right);
        pos += right.len();
    }
    n_left
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partition_is_stable_small_and_large() {
        for n in [10usize, 200_000] {
            let mut rows: Vec<u32> = (0..n as u32).collect();
            let n_left = partition_segment(&mut rows, |r| r % 3 == 0);
            assert_eq!(n_left, n.div_ceil(3));
            assert!(rows[..n_left].iter().all(|r| r % 3 == 0));
            assert!(rows[n_left..].iter().all(|r| r % 3 != 0));
            assert!(rows[..n_left].windows(2).all(|w| w[0] < w[1]));
            assert!(rows[n_left..].windows(2).all(|w| w[0] < w[1]));
        }
    }
}
