//! What every payload of the contract shares: the errors of parsing and encoding and the
//! `Message` rules a well-formed payload keeps beyond its shape.

use serde::Serialize;
use serde::de::DeserializeOwned;

use super::binary;
use crate::topics::WIRE_VERSION;

/// Largest payload either side sends or accepts. A batch is split below it by the sender.
pub const MAX_PAYLOAD_BYTES: usize = 256 * 1024;

/// Errors of payload parsing and encoding.
#[derive(Debug, thiserror::Error)]
pub enum WireError {
    #[error("malformed payload: {0}")]
    Malformed(#[from] serde_json::Error),
    #[error("wire version {0} is not supported (this side speaks {WIRE_VERSION})")]
    Version(u32),
    #[error("payload of {0} bytes is above the {MAX_PAYLOAD_BYTES}-byte limit")]
    TooLarge(usize),
    #[error("invalid message: {0}")]
    Invalid(String),
    #[error("binary batch: {0}")]
    Binary(#[from] binary::BinaryError),
}

/// A payload type of the contract, with the rules a well-formed one keeps beyond its shape.
pub trait Message: Serialize + DeserializeOwned {
    fn check(&self) -> Result<(), WireError> {
        Ok(())
    }
}

pub(super) fn invalid<T>(message: impl Into<String>) -> Result<T, WireError> {
    Err(WireError::Invalid(message.into()))
}
