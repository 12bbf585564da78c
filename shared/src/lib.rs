//! What the edge agent and the cloud hub must agree on.
//!
//! This crate holds the wire contract (MQTT topics and payload versions), the canonical metric
//! vocabulary and the register-map schema. It grows with the edge agent and the ingest path; it
//! starts with the topic layout, because both sides must build the same strings.

pub mod topics;
