//! The state of a two-pass forward stepwise search (SPEC section 5): the
//! current logistic model of every fold, and the fits of candidate
//! features against it, run in parallel.
//!
//! The search itself (rank by pass 1, walk down the ranking, keep a
//! candidate when the score improves by more than a threshold) is driven
//! by the caller, because its score may be any scikit-learn scorer. This
//! module fits, and scores natively the metrics it knows ([`Score`]).
//! Pass 1 is [`Path::evaluate`] of every feature against the
//! intercept-only models; pass 2 evaluates a few of the next candidates at
//! once against the current models and [`Path::accept`]s the first that
//! passes: the candidates before it were all rejected against the same
//! models, so the result is exactly that of trying them one at a time.
//!
//! Folds: each fits its model on its training rows (0/1 row weights, so X
//! is never copied) and scores it on its validation rows. Without cross
//! validation there is one fold, trained and scored on every row.

use crate::error::{Result, SbError};
use crate::interrupt::ShouldStop;
use crate::logistic::{self, Data, Model, Settings};
use crate::metrics;
use ndarray::ArrayView2;
use rayon::prelude::*;

/// A metric computed here rather than by the caller.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Score {
    /// ROC AUC of the logits.
    Auc,
    /// [`metrics::recall_at_precision`] at this precision.
    RecallAtPrecision(f64),
}

impl Score {
    fn of(&self, y: &[f64], logits: &[f64]) -> f64 {
        match *self {
            Score::Auc => metrics::auc(y, logits, None),
            Score::RecallAtPrecision(p) => metrics::recall_at_precision(y, logits, p),
        }
    }
}

/// The rows one model is fitted and scored on.
#[derive(Debug, Clone)]
pub struct Fold {
    /// 1 for a training row, 0 otherwise; `None`: every row.
    pub weights: Option<Vec<f64>>,
    /// The rows it is scored on; `None`: every row.
    pub validation: Option<Vec<usize>>,
}

/// One candidate's fits.
#[derive(Debug, Clone)]
pub struct Candidate {
    /// `[intercept, coefficients of the current features..., the
    /// candidate's]` per fold.
    pub coef: Vec<Vec<f64>>,
    /// The score per fold, when asked for one.
    pub scores: Option<Vec<f64>>,
    /// Whether every fold's fit converged.
    pub converged: bool,
    /// The most Newton steps a fold's fit took.
    pub n_iter: usize,
}

/// The current models (one per fold) of a search over the columns of one
/// matrix, which every call passes again (so that this owns no borrow).
pub struct Path {
    shape: (usize, usize),
    y: Vec<f64>,
    folds: Vec<Fold>,
    settings: Settings,
    models: Vec<Model>,
}

impl Path {
    /// The intercept-only models of `folds` (at least one) on `x` (n, d),
    /// Fortran-ordered and finite, and `y` (0 or 1 per row).
    pub fn new(
        x: ArrayView2<'_, f64>,
        y: Vec<f64>,
        folds: Vec<Fold>,
        settings: Settings,
    ) -> Result<Path> {
        settings.validate()?;
        logistic::check_finite(x)?;
        let n = x.nrows();
        if folds.is_empty() {
            return Err(SbError::InvalidParameter(
                "there must be at least one fold".into(),
            ));
        }
        for (k, fold) in folds.iter().enumerate() {
            if let Some(rows) = &fold.validation {
                if rows.is_empty() || rows.iter().any(|&i| i >= n) {
                    return Err(SbError::InvalidInput(format!(
                        "fold {k}'s validation rows must be non-empty row indices of X"
                    )));
                }
            }
        }
        let mut path = Path {
            shape: x.dim(),
            y,
            folds,
            settings,
            models: Vec::new(),
        };
        let models = (0..path.folds.len())
            .map(|k| Model::intercept_only(&path.data(x, k)?, &settings))
            .collect::<Result<_>>()
            .map_err(|e| match e {
                SbError::InvalidInput(m) => {
                    SbError::InvalidInput(format!("{m} (in every fold's training rows)"))
                }
                other => other,
            })?;
        path.models = models;
        Ok(path)
    }

    /// Fold `k`'s training data. Checks `x` against the shape this path
    /// was made for.
    fn data<'a>(&'a self, x: ArrayView2<'a, f64>, k: usize) -> Result<Data<'a>> {
        if x.dim() != self.shape {
            return Err(SbError::InvalidInput(format!(
                "X has shape {:?}, but this search was started on {:?}",
                x.dim(),
                self.shape
            )));
        }
        Data::new(x, &self.y, self.folds[k].weights.as_deref())
    }

    /// The features of the current models, in the order they were added.
    pub fn selected(&self) -> &[usize] {
        &self.models[0].fit().features
    }

    /// The current models' coefficients, one list per fold.
    pub fn coef(&self) -> Vec<Vec<f64>> {
        self.models.iter().map(|m| m.fit().coef.clone()).collect()
    }

    /// The current models' scores per fold.
    pub fn scores(&self, score: Score) -> Vec<f64> {
        self.models
            .iter()
            .enumerate()
            .map(|(k, m)| self.score(k, &m.fit().eta, score))
            .collect()
    }

    fn score(&self, k: usize, eta: &[f64], score: Score) -> f64 {
        match &self.folds[k].validation {
            None => score.of(&self.y, eta),
            Some(rows) => {
                let y: Vec<f64> = rows.iter().map(|&i| self.y[i]).collect();
                let logits: Vec<f64> = rows.iter().map(|&i| eta[i]).collect();
                score.of(&y, &logits)
            }
        }
    }

    /// Fit each of `candidates` added to the current models, in parallel
    /// (on the caller's rayon pool) over candidates and folds, and score
    /// the fits with `score` if given.
    pub fn evaluate(
        &self,
        x: ArrayView2<'_, f64>,
        candidates: &[usize],
        score: Option<Score>,
        should_stop: &ShouldStop,
    ) -> Result<Vec<Candidate>> {
        let data: Vec<Data> = (0..self.folds.len())
            .map(|k| self.data(x, k))
            .collect::<Result<_>>()?;
        let n_folds = self.folds.len();
        let fits: Vec<(Vec<f64>, Option<f64>, bool, usize)> = (0..candidates.len() * n_folds)
            .into_par_iter()
            .map(|job| {
                let (c, k) = (job / n_folds, job % n_folds);
                let fit =
                    self.models[k].extend(&data[k], &self.settings, candidates[c], should_stop)?;
                let value = score.map(|s| self.score(k, &fit.eta, s));
                Ok((fit.coef, value, fit.converged, fit.n_iter))
            })
            .collect::<Result<_>>()?;
        Ok(fits
            .chunks(n_folds)
            .map(|folds| Candidate {
                coef: folds.iter().map(|f| f.0.clone()).collect(),
                scores: folds.iter().map(|f| f.1).collect(),
                converged: folds.iter().all(|f| f.2),
                n_iter: folds.iter().map(|f| f.3).max().unwrap_or(0),
            })
            .collect())
    }

    /// Make the current models those with `feature` added (refitted, so the
    /// result does not depend on which batch the candidate was tried in).
    pub fn accept(
        &mut self,
        x: ArrayView2<'_, f64>,
        feature: usize,
        should_stop: &ShouldStop,
    ) -> Result<()> {
        let models = (0..self.folds.len())
            .into_par_iter()
            .map(|k| {
                let data = self.data(x, k)?;
                let fit = self.models[k].extend(&data, &self.settings, feature, should_stop)?;
                Ok(Model::from_fit(&data, &self.settings, fit))
            })
            .collect::<Result<_>>()?;
        self.models = models;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interrupt;
    use ndarray::{Array2, ShapeBuilder};

    #[test]
    fn batches_give_the_fits_of_one_candidate_at_a_time() {
        let (n, d) = (400, 5);
        let x = Array2::from_shape_fn((n, d).f(), |(i, j)| {
            (((i * 7919 + j * 104729) % 1000) as f64 / 500.0) - 1.0
        });
        let y: Vec<f64> = (0..n)
            .map(|i| f64::from(x[[i, 2]] - 0.4 * x[[i, 4]] > 0.1))
            .collect();
        let settings = Settings {
            c: 1.0,
            tol: 1e-9,
            max_iter: 100,
        };
        let folds = vec![
            Fold {
                weights: Some((0..n).map(|i| f64::from(i % 2 == 0)).collect()),
                validation: Some((1..n).step_by(2).collect()),
            },
            Fold {
                weights: None,
                validation: None,
            },
        ];
        let mut path = Path::new(x.view(), y, folds, settings).unwrap();
        let all = path
            .evaluate(
                x.view(),
                &[0, 1, 2, 3, 4],
                Some(Score::Auc),
                &interrupt::never,
            )
            .unwrap();
        let best = all[2].scores.clone().unwrap();
        assert!(best.iter().all(|&s| s > 0.8), "{best:?}");
        path.accept(x.view(), 2, &interrupt::never).unwrap();
        assert_eq!(path.scores(Score::Auc), best);
        let batch = path
            .evaluate(x.view(), &[4, 0], Some(Score::Auc), &interrupt::never)
            .unwrap();
        let single = path
            .evaluate(x.view(), &[0], Some(Score::Auc), &interrupt::never)
            .unwrap();
        assert_eq!(batch[1].coef, single[0].coef);
        assert_eq!(batch[0].coef[0].len(), 3);
        assert_eq!(path.selected(), &[2]);
    }
}
