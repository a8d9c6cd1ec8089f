//! Evaluation metrics of raw scores (K × n) against targets, by name:
//! `rmse`, `l2`, `logloss`, `multi_logloss`, `auc`, `error`, `ndcg@k`,
//! `map@k`, `mrr` (`ndcg` and `map` without `@k` use every row of a query).
//!
//! Ranking metrics follow LightGBM: gains `2^l − 1`, discounts
//! `1/log2(2 + rank)`, a query whose ideal DCG is 0 (no relevant row) has
//! NDCG 1 and MAP 1; rows with label > 0 are relevant for MAP and MRR (MRR
//! is 0 without one). Rows tied in score keep their order. Weighted metrics
//! weight rows; ranking metrics weight queries by their rows' mean weight.

use crate::error::{Result, SbError};
use crate::objective::{sigmoid, Targets};
use ndarray::{ArrayView1, ArrayView2, Axis};
use rayon::prelude::*;
use std::ops::Range;

/// A metric and its parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Metric {
    /// Root mean squared error.
    Rmse,
    /// Mean squared error.
    L2,
    /// Binary log-loss of logits.
    Logloss,
    /// Multiclass log-loss of softmax scores.
    MultiLogloss,
    /// Area under the ROC curve (binary).
    Auc,
    /// Misclassification rate (binary: logit > 0; multiclass: arg max).
    Error,
    /// Mean NDCG at k (`None`: all rows).
    Ndcg(Option<usize>),
    /// Mean average precision at k (`None`: all rows).
    Map(Option<usize>),
    /// Mean reciprocal rank of the first relevant row.
    Mrr,
}

impl Metric {
    /// Parse a metric name (see the module docs).
    pub fn parse(name: &str) -> Result<Metric> {
        let bad = || {
            SbError::InvalidParameter(format!(
                "eval_metric must be one of 'rmse', 'l2', 'logloss', 'multi_logloss', 'auc', \
                 'error', 'ndcg@k', 'map@k', 'mrr' (k an integer >= 1), got '{name}'"
            ))
        };
        let at = |rest: &str| -> Result<Option<usize>> {
            match rest {
                "" => Ok(None),
                _ => match rest.strip_prefix('@').map(str::parse::<usize>) {
                    Some(Ok(k)) if k >= 1 => Ok(Some(k)),
                    _ => Err(bad()),
                },
            }
        };
        Ok(match name {
            "rmse" => Metric::Rmse,
            "l2" | "mse" => Metric::L2,
            "logloss" | "binary_logloss" => Metric::Logloss,
            "multi_logloss" | "mlogloss" => Metric::MultiLogloss,
            "auc" => Metric::Auc,
            "error" => Metric::Error,
            "mrr" => Metric::Mrr,
            _ if name.starts_with("ndcg") => Metric::Ndcg(at(&name[4..])?),
            _ if name.starts_with("map") => Metric::Map(at(&name[3..])?),
            _ => return Err(bad()),
        })
    }

    /// The canonical name (`ndcg@5`).
    pub fn name(&self) -> String {
        let at = |k: Option<usize>| k.map_or(String::new(), |k| format!("@{k}"));
        match self {
            Metric::Rmse => "rmse".into(),
            Metric::L2 => "l2".into(),
            Metric::Logloss => "logloss".into(),
            Metric::MultiLogloss => "multi_logloss".into(),
            Metric::Auc => "auc".into(),
            Metric::Error => "error".into(),
            Metric::Ndcg(k) => format!("ndcg{}", at(*k)),
            Metric::Map(k) => format!("map{}", at(*k)),
            Metric::Mrr => "mrr".into(),
        }
    }

    /// True when a larger value is better.
    pub fn higher_is_better(&self) -> bool {
        matches!(
            self,
            Metric::Auc | Metric::Ndcg(_) | Metric::Map(_) | Metric::Mrr
        )
    }

    /// Whether the metric applies to a model of `n_outputs` outputs with
    /// these targets; else an error naming the metric.
    pub fn check(&self, n_outputs: usize, ranking: bool, classification: bool) -> Result<()> {
        let ok = match self {
            Metric::Rmse | Metric::L2 => !classification,
            Metric::Logloss | Metric::Auc => classification && n_outputs == 1,
            Metric::MultiLogloss => classification,
            Metric::Error => classification,
            Metric::Ndcg(_) | Metric::Map(_) | Metric::Mrr => ranking,
        };
        if ok {
            Ok(())
        } else {
            Err(SbError::InvalidParameter(format!(
                "eval_metric '{}' does not apply to this model's objective",
                self.name()
            )))
        }
    }

    /// The metric of `scores` (K × n) against `targets`.
    pub fn evaluate(&self, targets: &Targets, scores: ArrayView2<f64>) -> f64 {
        let w = targets.weights;
        let y = targets.y;
        let first = || scores.index_axis(Axis(0), 0);
        match self {
            Metric::Rmse => Metric::L2.evaluate(targets, scores).sqrt(),
            Metric::Logloss if scores.nrows() > 1 => Metric::MultiLogloss.evaluate(targets, scores),
            Metric::MultiLogloss if scores.nrows() == 1 => {
                Metric::Logloss.evaluate(targets, scores)
            }
            Metric::L2 | Metric::Logloss | Metric::MultiLogloss | Metric::Error => {
                // Rows in parallel, summed in row order: the same value
                // whatever the number of threads.
                let per_row: Vec<f64> = (0..y.len())
                    .into_par_iter()
                    .with_min_len(1024)
                    .map(|i| self.row_value(y[i], scores.column(i)))
                    .collect();
                mean(per_row.into_iter(), w)
            }
            Metric::Auc => auc(y, first().as_slice().expect("standard layout"), w),
            Metric::Ndcg(_) | Metric::Map(_) | Metric::Mrr => {
                let s = first();
                let s = s.as_slice().expect("standard layout");
                query_mean(targets, s, |yq, sq| match self {
                    Metric::Ndcg(k) => ndcg_at(yq, sq, k.unwrap_or(usize::MAX)),
                    Metric::Map(k) => map_at(yq, sq, k.unwrap_or(usize::MAX)),
                    _ => mrr(yq, sq),
                })
            }
        }
    }
}

impl Metric {
    /// A pointwise metric's value at one row of label `t` and raw scores
    /// `raw` (K of them).
    fn row_value(&self, t: f64, raw: ArrayView1<f64>) -> f64 {
        match self {
            Metric::L2 => (t - raw[0]) * (t - raw[0]),
            Metric::Logloss => {
                let f = raw[0];
                f.max(0.0) + (-f.abs()).exp().ln_1p() - t * f
            }
            Metric::MultiLogloss => {
                let max = raw.fold(f64::NEG_INFINITY, |m, &f| m.max(f));
                let sum: f64 = raw.iter().map(|f| (f - max).exp()).sum();
                max + sum.ln() - raw[t as usize]
            }
            Metric::Error => {
                let predicted = if raw.len() == 1 {
                    (sigmoid(raw[0]) > 0.5) as usize
                } else {
                    // The first of the largest scores: the arg max of the
                    // softmax probabilities.
                    let mut best = 0;
                    for (k, &f) in raw.iter().enumerate() {
                        if f > raw[best] {
                            best = k;
                        }
                    }
                    best
                };
                if predicted as f64 == t {
                    0.0
                } else {
                    1.0
                }
            }
            _ => unreachable!("not a pointwise metric"),
        }
    }
}

/// The mean of `per_query(labels, scores)` over the queries (all rows as
/// one query without them), each weighted by its rows' mean weight.
pub(crate) fn query_mean(
    targets: &Targets,
    scores: &[f64],
    per_query: impl Fn(&[f64], &[f64]) -> f64,
) -> f64 {
    let all: Vec<_> = std::iter::once(0..targets.y.len()).collect();
    let queries = targets.queries.unwrap_or(&all);
    mean_over_queries(
        targets,
        queries,
        queries
            .iter()
            .map(|q| per_query(&targets.y[q.clone()], &scores[q.clone()])),
    )
}

/// The mean of one value per query (`queries` of `targets`' rows, in
/// order), each weighted by its rows' mean weight.
pub(crate) fn mean_over_queries(
    targets: &Targets,
    queries: &[Range<usize>],
    values: impl Iterator<Item = f64>,
) -> f64 {
    weighted(queries.iter().zip(values).map(|(q, value)| {
        let weight = targets
            .weights
            .map_or(1.0, |w| w[q.clone()].iter().sum::<f64>() / q.len() as f64);
        (value, weight)
    }))
}

/// The weighted mean of `(value, weight)` pairs; 0 without weight.
fn weighted(pairs: impl Iterator<Item = (f64, f64)>) -> f64 {
    let (mut total, mut mass) = (0.0, 0.0);
    for (v, w) in pairs {
        total += w * v;
        mass += w;
    }
    if mass > 0.0 {
        total / mass
    } else {
        0.0
    }
}

fn mean(values: impl Iterator<Item = f64>, weights: Option<&[f64]>) -> f64 {
    weighted(
        values
            .enumerate()
            .map(|(i, v)| (v, weights.map_or(1.0, |w| w[i]))),
    )
}

/// The gain of relevance label `l`: `2^l − 1`.
pub fn label_gain(l: f64) -> f64 {
    l.exp2() - 1.0
}

/// The discount of 0-based rank `r`: `1/log2(2 + r)`.
pub fn dcg_discount(r: usize) -> f64 {
    1.0 / ((r + 2) as f64).log2()
}

/// Row indices by descending score, ties in row order.
pub(crate) fn ranking(scores: &[f64]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..scores.len()).collect();
    order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]));
    order
}

/// NDCG@k of one query (1 when its ideal DCG is 0).
pub fn ndcg_at(y: &[f64], scores: &[f64], k: usize) -> f64 {
    ndcg_of_order(y, &ranking(scores), k, ideal_dcg(y, k))
}

/// NDCG@k of one query ranked by `order` (row indices, best first), given
/// its ideal DCG@k `best` (1 when that is 0).
pub(crate) fn ndcg_of_order(y: &[f64], order: &[usize], k: usize, best: f64) -> f64 {
    let dcg: f64 = order
        .iter()
        .take(k)
        .enumerate()
        .map(|(r, &i)| label_gain(y[i]) * dcg_discount(r))
        .sum();
    if best > 0.0 {
        dcg / best
    } else {
        1.0
    }
}

/// The DCG@k of the best ordering of `y`.
pub(crate) fn ideal_dcg(y: &[f64], k: usize) -> f64 {
    let mut ideal = y.to_vec();
    ideal.sort_by(|a, b| b.total_cmp(a));
    ideal
        .iter()
        .take(k)
        .enumerate()
        .map(|(r, &l)| label_gain(l) * dcg_discount(r))
        .sum()
}

/// Average precision at k of one query: the mean over the relevant rows
/// in the first k of the precision at their rank, divided by
/// `min(k, relevant rows)`; 1 without relevant rows.
pub fn map_at(y: &[f64], scores: &[f64], k: usize) -> f64 {
    let relevant = y.iter().filter(|&&l| l > 0.0).count();
    if relevant == 0 {
        return 1.0;
    }
    let (mut hits, mut sum) = (0usize, 0.0);
    for (r, &i) in ranking(scores).iter().take(k).enumerate() {
        if y[i] > 0.0 {
            hits += 1;
            sum += hits as f64 / (r + 1) as f64;
        }
    }
    sum / relevant.min(k) as f64
}

/// The reciprocal rank of the first relevant row (0 without one).
pub fn mrr(y: &[f64], scores: &[f64]) -> f64 {
    ranking(scores)
        .iter()
        .position(|&i| y[i] > 0.0)
        .map_or(0.0, |r| 1.0 / (r + 1) as f64)
}

/// Weighted ROC AUC of scores for labels in {0, 1}; tied scores count one
/// half; 0.5 when a class is absent.
pub fn auc(y: &[f64], scores: &[f64], weights: Option<&[f64]>) -> f64 {
    let mut order: Vec<usize> = (0..y.len()).collect();
    order.sort_by(|&a, &b| scores[a].total_cmp(&scores[b]));
    let w = |i: usize| weights.map_or(1.0, |w| w[i]);
    let (mut negatives_below, mut area, mut positives, mut negatives) = (0.0, 0.0, 0.0, 0.0);
    let mut start = 0;
    while start < order.len() {
        let mut end = start;
        let (mut pos, mut neg) = (0.0, 0.0);
        while end < order.len() && scores[order[end]] == scores[order[start]] {
            let i = order[end];
            if y[i] > 0.5 {
                pos += w(i);
            } else {
                neg += w(i);
            }
            end += 1;
        }
        area += pos * (negatives_below + 0.5 * neg);
        negatives_below += neg;
        positives += pos;
        negatives += neg;
        start = end;
    }
    if positives > 0.0 && negatives > 0.0 {
        area / (positives * negatives)
    } else {
        0.5
    }
}

/// The largest recall among the thresholds whose precision is at least
/// `precision`, for labels in {0, 1}: a row is called positive when its
/// score is at least the threshold, and the thresholds are the distinct
/// scores (so tied rows are called together). 0 when no threshold reaches
/// the precision or there is no positive row.
pub fn recall_at_precision(y: &[f64], scores: &[f64], precision: f64) -> f64 {
    let mut order: Vec<(f64, bool)> = scores.iter().zip(y).map(|(&s, &l)| (s, l > 0.5)).collect();
    order.sort_unstable_by(|a, b| b.0.total_cmp(&a.0));
    let positives = order.iter().filter(|p| p.1).count();
    if positives == 0 {
        return 0.0;
    }
    let (mut called, mut hits, mut best) = (0usize, 0usize, 0usize);
    let mut start = 0;
    while start < order.len() {
        let mut end = start;
        while end < order.len() && order[end].0 == order[start].0 {
            hits += usize::from(order[end].1);
            end += 1;
        }
        called += end - start;
        // As precision is defined (not `hits >= precision * called`), so that
        // Python's definition gives the same answer at the boundary.
        if hits as f64 / called as f64 >= precision {
            best = best.max(hits);
        }
        start = end;
    }
    best as f64 / positives as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recall_at_precision_on_hand_worked_cases() {
        // Scores descending: 1 1 0 1 0 0. Thresholds: 1/1, 2/2, 2/3, 3/4 ...
        let y = [1.0, 1.0, 0.0, 1.0, 0.0, 0.0];
        let s = [0.9, 0.8, 0.7, 0.6, 0.5, 0.4];
        assert_eq!(recall_at_precision(&y, &s, 1.0), 2.0 / 3.0);
        assert_eq!(recall_at_precision(&y, &s, 0.75), 1.0);
        assert_eq!(recall_at_precision(&y, &s, 0.5), 1.0);
        // Ties are called together: one threshold at 2 positives in 4 rows.
        let tied = [0.9, 0.5, 0.5, 0.5, 0.1, 0.1];
        assert_eq!(recall_at_precision(&y, &tied, 0.8), 1.0 / 3.0);
        assert_eq!(recall_at_precision(&y, &tied, 0.75), 1.0);
        assert_eq!(recall_at_precision(&[0.0, 0.0], &[0.1, 0.2], 0.1), 0.0);
        assert_eq!(recall_at_precision(&[0.0, 1.0], &[0.9, 0.2], 0.9), 0.0);
    }

    /// NDCG@k by enumerating positions, with the ideal from every
    /// permutation (small queries only).
    fn brute_ndcg(y: &[f64], s: &[f64], k: usize) -> f64 {
        fn perms(items: Vec<usize>) -> Vec<Vec<usize>> {
            if items.len() <= 1 {
                return vec![items];
            }
            let mut out = Vec::new();
            for i in 0..items.len() {
                let mut rest = items.clone();
                let first = rest.remove(i);
                for mut p in perms(rest) {
                    p.insert(0, first);
                    out.push(p);
                }
            }
            out
        }
        let dcg_of = |order: &[usize]| -> f64 {
            order
                .iter()
                .take(k)
                .enumerate()
                .map(|(r, &i)| (2f64.powf(y[i]) - 1.0) / ((r + 2) as f64).log2())
                .sum()
        };
        let n = y.len();
        let best = perms((0..n).collect())
            .iter()
            .map(|p| dcg_of(p))
            .fold(0.0, f64::max);
        // The model's order: by score descending, then row order.
        let mut order: Vec<usize> = (0..n).collect();
        for a in 0..n {
            for b in 0..n - 1 - a {
                let (i, j) = (order[b], order[b + 1]);
                if s[j] > s[i] {
                    order.swap(b, b + 1);
                }
            }
        }
        if best == 0.0 {
            1.0
        } else {
            dcg_of(&order) / best
        }
    }

    #[test]
    fn ndcg_equals_a_brute_force_reference() {
        let mut rng = crate::rng::Rng::new(3);
        for _ in 0..300 {
            let n = 1 + rng.below(6);
            let y: Vec<f64> = (0..n).map(|_| rng.below(4) as f64).collect();
            let s: Vec<f64> = (0..n).map(|_| rng.below(4) as f64).collect();
            let k = 1 + rng.below(7);
            let (fast, slow) = (ndcg_at(&y, &s, k), brute_ndcg(&y, &s, k));
            assert!(
                (fast - slow).abs() < 1e-12,
                "{y:?} {s:?} @{k}: {fast} vs {slow}"
            );
        }
    }

    #[test]
    fn map_mrr_and_auc_on_hand_worked_cases() {
        // Ranked: rel, not, rel -> AP = (1/1 + 2/3) / 2.
        let y = [1.0, 0.0, 2.0];
        let s = [3.0, 2.0, 1.0];
        assert!((map_at(&y, &s, 3) - (1.0 + 2.0 / 3.0) / 2.0).abs() < 1e-12);
        assert!((map_at(&y, &s, 1) - 1.0).abs() < 1e-12);
        assert_eq!(mrr(&[0.0, 1.0], &[2.0, 1.0]), 0.5);
        assert_eq!(
            auc(&[0.0, 1.0, 0.0, 1.0], &[0.1, 0.9, 0.5, 0.5], None),
            0.875
        );
        assert_eq!(auc(&[1.0, 1.0], &[0.1, 0.2], None), 0.5);
    }

    #[test]
    fn names_parse_and_round_trip() {
        for name in [
            "rmse",
            "l2",
            "logloss",
            "multi_logloss",
            "auc",
            "error",
            "ndcg@3",
            "map@10",
            "mrr",
            "ndcg",
        ] {
            assert_eq!(Metric::parse(name).unwrap().name(), name);
        }
        for bad in ["ndcg@0", "ndcg@x", "map@", "f1", ""] {
            assert!(
                Metric::parse(bad)
                    .unwrap_err()
                    .to_string()
                    .contains("eval_metric"),
                "{bad}"
            );
        }
    }
}
