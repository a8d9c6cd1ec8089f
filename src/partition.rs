//! The rows of every leaf, kept as contiguous segments of one index array
//! (LightGBM's `DataPartition`). Splitting a leaf partitions its segment in
//! place, stably, so every segment stays sorted ascending.

use rayon::prelude::*;

/// Segments this long or longer are partitioned by chunks in parallel.
const PARALLEL_MIN_ROWS: usize = 1 << 14;
const CHUNK_ROWS: usize = 1 << 13;

/// Stably move the rows of `segment` for which `goes_left(i, row)` holds
/// to the front (`i`: the row's position in `segment` before the move);
/// return how many there are. The result does not depend on the number
/// of threads.
pub fn partition_segment<F>(segment: &mut [u32], goes_left: F) -> usize
where
    F: Fn(usize, u32) -> bool + Sync,
{
    if segment.len() < PARALLEL_MIN_ROWS {
        return SCRATCH
            .with(|scratch| partition_chunk(segment, 0, &goes_left, &mut scratch.borrow_mut()));
    }
    // Each chunk partitioned in place, then the left parts gathered in
    // chunk order before the right parts.
    let lefts: Vec<usize> = segment
        .par_chunks_mut(CHUNK_ROWS)
        .enumerate()
        .map(|(c, chunk)| {
            let offset = c * CHUNK_ROWS;
            SCRATCH.with(|scratch| {
                partition_chunk(chunk, offset, &goes_left, &mut scratch.borrow_mut())
            })
        })
        .collect();
    let parted = segment.to_vec();
    let mut pos = 0;
    for (c, &n_left) in lefts.iter().enumerate() {
        let start = c * CHUNK_ROWS;
        segment[pos..pos + n_left].copy_from_slice(&parted[start..start + n_left]);
        pos += n_left;
    }
    let n_left = pos;
    for (c, &left) in lefts.iter().enumerate() {
        let (start, end) = (
            c * CHUNK_ROWS + left,
            ((c + 1) * CHUNK_ROWS).min(parted.len()),
        );
        segment[pos..pos + end - start].copy_from_slice(&parted[start..end]);
        pos += end - start;
    }
    n_left
}

thread_local! {
    /// The right part of a chunk being partitioned, reused.
    static SCRATCH: std::cell::RefCell<Vec<u32>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// [`partition_segment`] of one chunk, without a branch per row: every row
/// is written to both sides and the side it belongs to advances (a
/// mispredicted branch per row cost more than the second write). Row `i`
/// of the chunk is read before anything is written at or after `i`, so
/// `goes_left` sees it at position `offset + i` of the segment.
fn partition_chunk<F: Fn(usize, u32) -> bool>(
    chunk: &mut [u32],
    offset: usize,
    goes_left: &F,
    right: &mut Vec<u32>,
) -> usize {
    right.clear();
    right.resize(chunk.len(), 0);
    let (mut n_left, mut n_right) = (0, 0);
    for i in 0..chunk.len() {
        let r = chunk[i];
        let left = usize::from(goes_left(offset + i, r));
        chunk[n_left] = r;
        right[n_right] = r;
        n_left += left;
        n_right += 1 - left;
    }
    chunk[n_left..].copy_from_slice(&right[..n_right]);
    n_left
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partition_is_stable_small_and_large() {
        for n in [10usize, 200_000] {
            let mut rows: Vec<u32> = (0..n as u32).collect();
            let n_left = partition_segment(&mut rows, |i, r| {
                assert_eq!(i as u32, r, "the position before the move");
                r % 3 == 0
            });
            assert_eq!(n_left, n.div_ceil(3));
            assert!(rows[..n_left].iter().all(|r| r % 3 == 0));
            assert!(rows[n_left..].iter().all(|r| r % 3 != 0));
            assert!(rows[..n_left].windows(2).all(|w| w[0] < w[1]));
            assert!(rows[n_left..].windows(2).all(|w| w[0] < w[1]));
        }
    }
}
