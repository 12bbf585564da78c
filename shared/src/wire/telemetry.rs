//! Uplink telemetry: samples, the batches that carry them and the cloud's `Ack` of a stored
//! batch (see the wire module note on sequence numbers and why an ack names a range).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::message::{Message, WireError, invalid};
use crate::topics::{self, WIRE_VERSION};

/// A decoded value: a number in the metric's canonical unit, or text (serial numbers...).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Value {
    Number(f64),
    Text(String),
}

/// One poll of one device.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sample {
    /// Gateway-wide sequence number (see the module note).
    pub seq: u64,
    /// The device's id in the station configuration.
    pub device: String,
    /// When the poll finished, milliseconds since the Unix epoch (UTC).
    pub ts: i64,
    /// Canonical metric name → value; metrics the device did not report are absent.
    pub values: BTreeMap<String, Value>,
    /// Values outside their metric's plausible range (`metrics::plausible`), kept for diagnosis
    /// and never as good values: a metric is in `values` or here, not both. Absent when empty,
    /// so a sample without one is what gateways sent before; a cloud that predates the field
    /// refuses a sample carrying it, hence hubs are upgraded before gateways.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub suspect: BTreeMap<String, Value>,
}

impl Sample {
    /// Moves every value outside its plausible range from `values` to `suspect` (a non-finite
    /// number is dropped).
    pub fn mark_implausible(&mut self) {
        if self.values.iter().all(|(k, v)| plausible_value(k, v)) {
            return;
        }
        let values = std::mem::take(&mut self.values);
        for (k, v) in values {
            match v {
                v if plausible_value(&k, &v) => {
                    self.values.insert(k, v);
                }
                // JSON has no NaN or infinity: such a value cannot travel, even marked.
                Value::Number(x) if !x.is_finite() => {}
                v => {
                    self.suspect.insert(k, v);
                }
            }
        }
    }
}

fn plausible_value(metric: &str, value: &Value) -> bool {
    match value {
        Value::Number(x) => crate::metrics::plausible(metric, *x),
        Value::Text(_) => true,
    }
}

/// What a gateway publishes on its telemetry topic.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TelemetryBatch {
    pub v: u32,
    pub gateway: String,
    /// `{gateway}:{first_seq}-{last_seq}`: names the batch in logs and in its `Ack`.
    pub batch: String,
    pub first_seq: u64,
    pub last_seq: u64,
    /// True when these samples come from the backlog (sent again after an outage or a missing
    /// ack); live samples go out first.
    #[serde(default)]
    pub replay: bool,
    /// Ascending by `seq`, all within `first_seq..=last_seq` (not every number in the range need
    /// be present: acknowledged and overflow-dropped samples leave holes).
    pub samples: Vec<Sample>,
}

impl TelemetryBatch {
    pub fn new(gateway: &str, replay: bool, samples: Vec<Sample>) -> TelemetryBatch {
        let first_seq = samples.first().map_or(0, |s| s.seq);
        let last_seq = samples.last().map_or(0, |s| s.seq);
        TelemetryBatch {
            v: WIRE_VERSION,
            gateway: gateway.to_string(),
            batch: batch_id(gateway, first_seq, last_seq),
            first_seq,
            last_seq,
            replay,
            samples,
        }
    }

    /// The acknowledgement the cloud sends once every sample of this batch is stored.
    pub fn ack(&self) -> Ack {
        Ack {
            v: WIRE_VERSION,
            batch: self.batch.clone(),
            first_seq: self.first_seq,
            last_seq: self.last_seq,
        }
    }
}

/// The id of a batch: gateway and sequence range.
pub fn batch_id(gateway: &str, first_seq: u64, last_seq: u64) -> String {
    format!("{gateway}:{first_seq}-{last_seq}")
}

/// Downlink: the cloud has durably stored every sample of the batch `first_seq..=last_seq`
/// (see the module note on why a range).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ack {
    pub v: u32,
    /// The acknowledged batch's id (for logs).
    pub batch: String,
    pub first_seq: u64,
    pub last_seq: u64,
}

impl Message for TelemetryBatch {
    fn check(&self) -> Result<(), WireError> {
        if topics::validate_gateway_id(&self.gateway).is_err() {
            return invalid("gateway id");
        }
        let (Some(first), Some(last)) = (self.samples.first(), self.samples.last()) else {
            return invalid("a batch without samples");
        };
        if first.seq != self.first_seq || last.seq != self.last_seq {
            return invalid("first_seq/last_seq do not match the samples");
        }
        if !self.samples.windows(2).all(|w| w[0].seq < w[1].seq) {
            return invalid("samples are not in ascending sequence order");
        }
        if self.batch != batch_id(&self.gateway, self.first_seq, self.last_seq) {
            return invalid("batch id does not match gateway and range");
        }
        Ok(())
    }
}

impl Message for Ack {
    fn check(&self) -> Result<(), WireError> {
        if self.first_seq == 0 || self.first_seq > self.last_seq {
            return invalid("first_seq must be 1..=last_seq");
        }
        Ok(())
    }
}
