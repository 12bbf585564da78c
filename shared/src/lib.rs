//! What the edge agent and the cloud hub must agree on.
//!
//! This crate holds the wire contract (MQTT topics and payload versions), the canonical metric
//! vocabulary, the register-map schema and the generic register decoder.

pub mod commission;
pub mod decode;
pub mod metrics;
pub mod regmap;
pub mod topics;
pub mod varint;
pub mod wire;
