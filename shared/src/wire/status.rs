//! Gateway presence and health on the retained status topic.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::message::{Message, WireError, invalid};
use crate::topics;

/// Why a status message was sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StatusKind {
    /// Published (retained) right after each connect.
    Birth,
    /// Published (retained) every status interval while connected.
    Periodic,
    /// The MQTT last will, published by the broker when the gateway vanishes.
    Will,
    /// Published (retained) by a gateway stopping cleanly.
    Shutdown,
}

/// Queue counters in a status message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QueueStatus {
    /// Samples stored and not yet acknowledged by the cloud.
    pub depth: u64,
    /// Samples dropped since the queue was created because it was full (oldest first).
    pub dropped_oldest: u64,
    /// The sequence number the next sample will get.
    pub next_seq: u64,
}

/// Counters of one device since the agent started.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeviceStatus {
    pub id: String,
    pub online: bool,
    pub polls_ok: u64,
    pub polls_failed: u64,
    /// Why the device's values are withheld (its layout or identity changed and is not yet
    /// confirmed), e.g. "layout changed: model 103 expected at 40070, found 160". Absent while
    /// values flow, so a status without it reads the same to an older cloud.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub withheld: Option<String>,
    /// Layout or identity changes seen since the agent started.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub changes: u64,
    /// The reason of the last such change.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_change: Option<String>,
    /// Values marked suspect (outside their plausible range) per metric since the agent started.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub suspect: BTreeMap<String, u64>,
    /// Extra short reads of multi-register counters since the agent started, made to confirm a
    /// counter was not read torn (its upper registers changed, it decreased, or it was the
    /// first reading); see docs/data-quality.md.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub counter_rereads: u64,
    /// Readings that left a counter out because no two successive reads of it agreed.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub counters_unconfirmed: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// Counters of one bus since the agent started (or its configuration was reloaded).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BusStatus {
    pub name: String,
    pub requests: u64,
    pub timeouts: u64,
    /// Modbus exception responses.
    pub exceptions: u64,
    /// I/O and framing errors (CRC, wrong unit or transaction).
    pub transport_errors: u64,
    pub decode_errors: u64,
}

/// Gateway presence and health, on the retained status topic: a birth message on connect,
/// periodic updates, the last will ("offline", registered with the broker at connect) and a
/// shutdown message on a clean stop.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GatewayStatus {
    pub v: u32,
    pub gateway: String,
    pub kind: StatusKind,
    pub online: bool,
    /// Milliseconds since the epoch when the message was made (for the last will: when the
    /// connection that registered it was opened).
    pub ts: i64,
    /// Agent version, e.g. "0.1.0".
    pub agent: String,
    /// Absent in a last will (the broker sends what was registered at connect).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue: Option<QueueStatus>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub devices: Vec<DeviceStatus>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub buses: Vec<BusStatus>,
}

impl Message for GatewayStatus {
    fn check(&self) -> Result<(), WireError> {
        if topics::validate_gateway_id(&self.gateway).is_err() {
            return invalid("gateway id");
        }
        Ok(())
    }
}
