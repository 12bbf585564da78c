//! What can stop the demo from being provisioned.

use std::path::PathBuf;

use crate::kernel::ApiError;

#[derive(Debug, thiserror::Error)]
pub enum DemoError {
    #[error("demo: {0}")]
    Api(#[from] ApiError),
    #[error("demo: {path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("demo: {0}")]
    Invalid(String),
}

impl From<sqlx::Error> for DemoError {
    fn from(e: sqlx::Error) -> Self {
        DemoError::Api(e.into())
    }
}
