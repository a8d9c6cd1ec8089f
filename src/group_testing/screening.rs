//! Which subsets a node binary-searches: those whose whole range tests
//! best.
//!
//! Under the shortened plan (`subsets::plan`, few rows against d/s) there
//! are p = ⌈4·d/L⌉ subsets, and searching each costs ⌈log₂ L⌉ halvings of
//! two tests: the tests grow with d, and so does the candidate set, which
//! is mostly the random survivors of subsets holding no signal. On
//! [`super::subsets::SCREEN_MIN_ROWS`] rows or more, testing each subset's
//! whole range once and searching only the `n_subsets(s, δ)` best (the
//! paper's p, independent of d) keeps the number of searches, halvings and
//! candidates of the paper's plan; only the screening tests, one per
//! subset, still grow with d. A subset holding a feature that splits the
//! node well gives its whole range a larger gain than one of noise, and
//! the paper's p subsets are those its Theorem 4.1 needs to cover s
//! features. On fewer rows, and under the paper's own plan, every subset
//! is searched.

/// The `keep` subsets (of `gains.len()`) with the largest whole-range
/// gains, ties to the lower index, ascending; all of them when `keep`
/// covers them.
pub fn most_promising(gains: &[f64], keep: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..gains.len()).collect();
    if keep < gains.len() {
        // NaN gains (never produced by the split finder) would sort last.
        order.sort_by(|&a, &b| gains[b].total_cmp(&gains[a]).then(a.cmp(&b)));
        order.truncate(keep);
        order.sort_unstable();
    }
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_best_gains_and_breaks_ties_by_index() {
        let gains = [0.5, 3.0, 0.0, 3.0, 2.0, 0.0];
        assert_eq!(most_promising(&gains, 3), vec![1, 3, 4]);
        assert_eq!(most_promising(&gains, 2), vec![1, 3]);
        assert_eq!(most_promising(&[1.0, 1.0, 1.0], 2), vec![0, 1]);
        assert_eq!(most_promising(&gains, 6), (0..6).collect::<Vec<_>>());
        assert_eq!(most_promising(&gains, 99), (0..6).collect::<Vec<_>>());
        assert!(most_promising(&gains, 0).is_empty());
    }
}
