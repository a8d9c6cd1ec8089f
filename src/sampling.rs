//! The random choices of a tree: its rows and its features, from a stream
//! that depends only on the seed, the round and the job (never on threads).

use crate::feature_sampling::draw;
use crate::params::BoosterParams;
use crate::rng::Rng;
use std::ops::Range;

/// The random stream of job `job`'s tree in round `round`. Job 0 uses the
/// single-task stream, so that one job alone reproduces the stream of a
/// one-output fit (and multitask task 0, or class 0, draws as it would).
pub(crate) fn job_rng(seed: u64, round: usize, job: usize) -> Rng {
    // Arbitrary odd constant: keeps job seeds away from the seed itself.
    const JOBS: u64 = 0x6D75_6C74_6974_6173;
    let job_seed = if job == 0 {
        seed
    } else {
        Rng::derive(seed ^ JOBS, job as u64).next_u64()
    };
    Rng::derive(job_seed, round as u64)
}

/// One tree's row positions (in `0..n`, ascending) and features (ascending,
/// in `0..d`; by `feature_weights` when they are dynamic), drawn from `rng`
/// in this order. With `queries` (consecutive ranges covering `0..n`),
/// whole queries are drawn: a ranking gradient needs every row of its
/// query.
pub(crate) fn draw_sample(
    rng: &mut Rng,
    n: usize,
    d: usize,
    queries: Option<&[Range<usize>]>,
    params: &BoosterParams,
    feature_weights: Option<&[f64]>,
) -> (Vec<u32>, Vec<usize>) {
    let rows = match queries {
        Some(queries) if params.subsample < 1.0 => {
            draw_sorted(rng, queries.len(), params.subsample)
                .into_iter()
                .flat_map(|q| queries[q].clone())
                .map(|r| r as u32)
                .collect()
        }
        _ => draw_sorted(rng, n, params.subsample)
            .into_iter()
            .map(|r| r as u32)
            .collect(),
    };
    let all: Vec<usize> = (0..d).collect();
    let features = draw(rng, &all, params.colsample_bytree.of(d), feature_weights);
    (rows, features)
}

/// `round(fraction · n)` (at least 1) of `0..n`, ascending; all of them for
/// a fraction of 1.
fn draw_sorted(rng: &mut Rng, n: usize, fraction: f64) -> Vec<usize> {
    if fraction >= 1.0 {
        return (0..n).collect();
    }
    let k = ((fraction * n as f64).round() as usize).clamp(1, n);
    rng.sample_sorted(n, k)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_are_drawn_whole() {
        let queries = [0..3, 3..4, 4..9, 9..10];
        let params = BoosterParams {
            subsample: 0.5,
            ..BoosterParams::plain()
        };
        for seed in 0..20 {
            let (rows, _) = draw_sample(&mut Rng::new(seed), 10, 1, Some(&queries), &params, None);
            for q in &queries {
                let inside = rows.iter().filter(|&&r| q.contains(&(r as usize))).count();
                assert!(inside == 0 || inside == q.len(), "{rows:?}");
            }
            assert!(rows.windows(2).all(|w| w[0] < w[1]));
        }
    }
}
