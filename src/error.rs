//! The one error type of the engine. The Python bindings map each variant to
//! a Python exception class (`ValueError`, `KeyboardInterrupt`, ...).

use std::fmt;

/// Why a fit or a prediction could not be carried out.
#[derive(Debug, Clone, PartialEq)]
pub enum SbError {
    /// The data is unusable: wrong shape, non-finite values, empty input.
    InvalidInput(String),
    /// A parameter is out of its documented range.
    InvalidParameter(String),
    /// The caller asked to stop (Ctrl-C) between two trees.
    Interrupted,
    /// A saved model could not be read.
    InvalidModel(String),
}

impl fmt::Display for SbError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SbError::InvalidInput(m) => write!(f, "invalid input: {m}"),
            SbError::InvalidParameter(m) => write!(f, "invalid parameter: {m}"),
            SbError::Interrupted => write!(f, "fit interrupted"),
            SbError::InvalidModel(m) => write!(f, "invalid model: {m}"),
        }
    }
}

impl std::error::Error for SbError {}

/// Shorthand used throughout the crate.
pub type Result<T> = std::result::Result<T, SbError>;
