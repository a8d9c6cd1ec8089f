//! sparseboost: gradient boosted decision trees that select their own
//! features.
//!
//! The engine is a histogram GBDT in the style of LightGBM and
//! scikit-learn's `HistGradientBoosting*`:
//! [`binning`] → [`histogram`] → [`split`] → [`grower`] → [`trainer`] (one
//! loop whose rounds are lists of tree jobs), with losses behind the
//! [`objective::Objective`] trait and a packed
//! [`predictor::Predictor`]. [`multitask`] boosts several related tasks
//! together with the same grower. The Python bindings live in the `python`
//! module, compiled only with the `python` Cargo feature.

pub mod binning;
pub mod booster;
pub mod categorical;
pub mod cut_points;
pub mod data;
pub mod distributed;
pub mod error;
pub mod evaluation;
pub mod fast_math;
pub mod feature_sampling;
pub mod float_sort;
pub mod forest;
pub mod group_testing;
pub mod grower;
pub mod histogram;
pub mod interrupt;
pub mod logistic;
pub mod matrix;
pub mod memory;
pub mod metrics;
pub mod model;
mod model_builder;
pub mod mu_max;
pub mod multitask;
pub mod objective;
pub mod omega;
pub mod params;
pub mod partition;
pub mod penalty;
pub mod predictor;
pub mod rng;
pub mod routing;
pub mod sampling;
pub mod scores;
pub mod selection;
pub mod sparse_rows;
pub mod split;
pub mod threads;
pub mod trainer;
pub mod tree;
pub mod two_pass;
pub mod units;

#[cfg(feature = "python")]
mod python;

pub use booster::{fit, fit_with};
pub use data::TrainingData;
pub use error::{Result, SbError};
pub use model::{ImportanceKind, Model};
pub use multitask::{
    fit_multitask, fit_multitask_with, MultiTaskData, MultiTaskModel, MultiTaskParams,
};
pub use params::{BoosterParams, ObjectiveKind, PenaltyKind};
pub use predictor::Predictor;
pub use trainer::{EvalSet, History, RoundReport};
