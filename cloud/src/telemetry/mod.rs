//! Telemetry from station gateways: the MQTT broker and ingest, raw storage, rollups and the
//! in-memory realtime view that live screens read.

pub mod api;
pub mod realtime;
