//! Where each row of the data sits among the shards.
//!
//! The client numbers rows in the data's own order (a Dask array's rows),
//! whatever shard holds them: the targets it pools, the rows of each tree's
//! sample and the cut points' row sample are all drawn in that order, as
//! the single machine draws them. A shard holds any set of rows (the chunks
//! Dask placed on its worker), in ascending order; only messages to a
//! shard name its rows by their position in it. So a seed gives the same
//! samples whatever the placement, and the model changes only in the
//! order in which the shards' sums are added (the last bits).

use crate::error::{Result, SbError};

/// The shard and position of every row.
#[derive(Debug, Clone)]
pub(crate) struct RowOrder {
    /// The shard of each row.
    shard_of: Vec<u32>,
    /// The row's position among its shard's rows.
    local_of: Vec<u32>,
    /// The rows of each shard, ascending.
    rows_of: Vec<Vec<u32>>,
}

impl RowOrder {
    /// Shards in row order: shard 0 holds the first rows, and so on.
    pub(crate) fn contiguous(rows_per_shard: &[usize]) -> Self {
        let mut start = 0u32;
        let rows = rows_per_shard.iter().map(|&m| {
            let rows: Vec<u32> = (start..start + m as u32).collect();
            start += m as u32;
            rows
        });
        RowOrder::from_rows(rows.collect())
    }

    /// Shards holding `rows_of[s]` (each ascending; together every row of
    /// `0..n` once), checked against the rows each shard says it holds.
    pub(crate) fn placed(rows_of: Vec<Vec<u32>>, rows_per_shard: &[usize]) -> Result<Self> {
        let bad = |what: &str| {
            Err(SbError::InvalidInput(format!(
                "the shards' row numbers {what}"
            )))
        };
        if rows_of.len() != rows_per_shard.len()
            || rows_of
                .iter()
                .zip(rows_per_shard)
                .any(|(r, &m)| r.len() != m)
        {
            return bad("do not match the rows the shards hold");
        }
        if rows_of.iter().any(|r| r.windows(2).any(|w| w[0] >= w[1])) {
            return bad("of a shard are not ascending");
        }
        let n: usize = rows_per_shard.iter().sum();
        let mut seen = vec![false; n];
        for &r in rows_of.iter().flatten() {
            match seen.get_mut(r as usize) {
                Some(s) if !*s => *s = true,
                _ => return bad("are not each row of the data once"),
            }
        }
        Ok(RowOrder::from_rows(rows_of))
    }

    fn from_rows(rows_of: Vec<Vec<u32>>) -> Self {
        let n = rows_of.iter().map(Vec::len).sum();
        let (mut shard_of, mut local_of) = (vec![0; n], vec![0; n]);
        for (s, rows) in rows_of.iter().enumerate() {
            for (i, &r) in rows.iter().enumerate() {
                shard_of[r as usize] = s as u32;
                local_of[r as usize] = i as u32;
            }
        }
        RowOrder {
            shard_of,
            local_of,
            rows_of,
        }
    }

    /// Every row's value in row order, from each shard's values of its rows.
    pub(crate) fn gather<T: Copy>(&self, parts: &[Vec<T>]) -> Vec<T> {
        (0..self.shard_of.len())
            .map(|r| parts[self.shard_of[r] as usize][self.local_of[r] as usize])
            .collect()
    }

    /// The ascending `rows` as each shard's positions (ascending too).
    pub(crate) fn split(&self, rows: &[u32]) -> Vec<Vec<u32>> {
        let mut parts = vec![Vec::new(); self.rows_of.len()];
        for &r in rows {
            parts[self.shard_of[r as usize] as usize].push(self.local_of[r as usize]);
        }
        parts
    }

    /// The rows of `parts` (from [`RowOrder::split`]) in the order the
    /// shards' replies concatenate them: shard by shard.
    pub(crate) fn concatenated(&self, parts: &[Vec<u32>]) -> Vec<usize> {
        parts
            .iter()
            .zip(&self.rows_of)
            .flat_map(|(part, rows)| part.iter().map(|&i| rows[i as usize] as usize))
            .collect()
    }

    /// Query sizes in row order, from each shard's query sizes (a query's
    /// rows are consecutive in its shard and in the data).
    pub(crate) fn gather_queries(&self, sizes: &[Vec<usize>]) -> Vec<usize> {
        // Each row's query, numbered over all shards.
        let mut next = 0usize;
        let ids: Vec<Vec<usize>> = sizes
            .iter()
            .map(|shard| {
                let ids = shard
                    .iter()
                    .enumerate()
                    .flat_map(|(q, &m)| std::iter::repeat_n(next + q, m));
                let ids: Vec<usize> = ids.collect();
                next += shard.len();
                ids
            })
            .collect();
        let mut out: Vec<usize> = Vec::new();
        let mut previous = None;
        for id in self.gather(&ids) {
            if previous == Some(id) {
                *out.last_mut().expect("a query") += 1;
            } else {
                out.push(1);
                previous = Some(id);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interleaved_shards_are_read_and_addressed_in_row_order() {
        // Rows 0..6 in chunks of 2 (one query each), placed on shards 1, 0, 1.
        let order = RowOrder::placed(vec![vec![2, 3], vec![0, 1, 4, 5]], &[2, 4]).unwrap();
        let y = order.gather(&[vec![20, 30], vec![0, 10, 40, 50]]);
        assert_eq!(y, [0, 10, 20, 30, 40, 50]);
        let parts = order.split(&[1, 2, 5]);
        assert_eq!(parts, [vec![0], vec![1, 3]]);
        assert_eq!(order.concatenated(&parts), [2, 1, 5]);
        assert_eq!(order.gather_queries(&[vec![2], vec![2, 2]]), [2, 2, 2]);
        // Two queries of a shard that follow each other stay two.
        let queries = order.gather_queries(&[vec![1, 1], vec![2, 1, 1]]);
        assert_eq!(queries, [2, 1, 1, 1, 1]);
        let same = RowOrder::contiguous(&[2, 4]);
        assert_eq!(same.split(&[1, 2, 5]), [vec![1], vec![0, 3]]);
    }

    #[test]
    fn placements_that_are_not_a_partition_of_the_rows_are_refused() {
        for (rows, held) in [
            (vec![vec![0, 1], vec![1, 2]], [2, 2]),
            (vec![vec![1, 0], vec![2, 3]], [2, 2]),
            (vec![vec![0, 1], vec![2, 3]], [2, 3]),
            (vec![vec![0, 1], vec![2, 9]], [2, 2]),
        ] {
            assert!(RowOrder::placed(rows, &held).is_err());
        }
    }
}
