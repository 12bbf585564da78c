//! Payloads on the MQTT topics (JSON). Every message carries `v`, the wire version, so a
//! receiver can refuse what it does not understand instead of misreading it.
//!
//! Idempotence: every sample has a sequence number, unique and increasing per gateway, assigned
//! when the sample is written to the gateway's durable queue. The cloud stores each
//! (gateway id, seq) at most once, so a batch replayed after a reconnect never duplicates rows,
//! and acknowledges the highest sequence it has stored.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::topics::WIRE_VERSION;

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
}

/// What a gateway publishes on its telemetry topic.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TelemetryBatch {
    pub v: u32,
    pub gateway: String,
    /// Identifies the batch for logs; ingest relies on the samples' `seq`, not on this.
    pub batch: String,
    /// True when these samples come from the backlog (replayed after an outage).
    #[serde(default)]
    pub replay: bool,
    pub samples: Vec<Sample>,
}

impl TelemetryBatch {
    pub fn new(gateway: &str, replay: bool, samples: Vec<Sample>) -> TelemetryBatch {
        let first = samples.first().map_or(0, |s| s.seq);
        let last = samples.last().map_or(0, |s| s.seq);
        TelemetryBatch {
            v: WIRE_VERSION,
            gateway: gateway.to_string(),
            batch: format!("{gateway}:{first}-{last}"),
            replay,
            samples,
        }
    }
}

/// Gateway presence: published as "online" when the gateway connects (retained) and registered
/// as the MQTT last will with "offline", so the broker announces an unclean disconnect.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GatewayStatus {
    pub v: u32,
    pub gateway: String,
    pub online: bool,
    /// Milliseconds since the epoch when the message was made (for the last will: when the
    /// connection that registered it was opened).
    pub ts: i64,
    /// Agent version, e.g. "0.1.0".
    pub agent: String,
    /// Devices the gateway currently considers offline (empty in a last will).
    #[serde(default)]
    pub offline_devices: Vec<String>,
}

/// Downlink: the cloud has durably stored every sample up to and including `up_to_seq`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ack {
    pub v: u32,
    pub up_to_seq: u64,
}

/// Errors of payload parsing.
#[derive(Debug, thiserror::Error)]
pub enum WireError {
    #[error("malformed payload: {0}")]
    Malformed(#[from] serde_json::Error),
    #[error("wire version {0} is not supported (this side speaks {WIRE_VERSION})")]
    Version(u32),
}

/// Parses a JSON payload that carries `v`, refusing other wire versions.
pub fn parse<T: for<'de> Deserialize<'de>>(bytes: &[u8]) -> Result<T, WireError> {
    #[derive(Deserialize)]
    struct Versioned {
        v: u32,
    }
    let Versioned { v } = serde_json::from_slice(bytes)?;
    if v != WIRE_VERSION {
        return Err(WireError::Version(v));
    }
    Ok(serde_json::from_slice(bytes)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_batch_round_trips_and_names_its_sequence_range() {
        let mut values = BTreeMap::new();
        values.insert("ac_power".to_string(), Value::Number(1234.5));
        values.insert("serial_number".to_string(), Value::Text("HV123".into()));
        let samples = (7..=9)
            .map(|seq| Sample {
                seq,
                device: "inv-1".into(),
                ts: 1_700_000_000_000,
                values: values.clone(),
            })
            .collect();
        let b = TelemetryBatch::new("gw-1", true, samples);
        assert_eq!(b.batch, "gw-1:7-9");
        let json = serde_json::to_vec(&b).unwrap();
        let text = String::from_utf8(json.clone()).unwrap();
        assert!(
            text.contains(r#""ac_power":1234.5"#) && text.contains(r#""serial_number":"HV123""#),
            "{text}"
        );
        let back: TelemetryBatch = parse(&json).unwrap();
        assert_eq!(back, b);
    }

    #[test]
    fn other_versions_and_garbage_are_refused() {
        assert!(matches!(
            parse::<Ack>(br#"{"v":2,"up_to_seq":5}"#),
            Err(WireError::Version(2))
        ));
        assert!(matches!(
            parse::<Ack>(br#"{"up_to_seq":5}"#),
            Err(WireError::Malformed(_))
        ));
        assert!(matches!(parse::<Ack>(b"not json"), Err(WireError::Malformed(_))));
        assert_eq!(parse::<Ack>(br#"{"v":1,"up_to_seq":5}"#).unwrap().up_to_seq, 5);
        let s = GatewayStatus {
            v: 1,
            gateway: "g".into(),
            online: false,
            ts: 1,
            agent: "0.1.0".into(),
            offline_devices: vec![],
        };
        let back: GatewayStatus = parse(&serde_json::to_vec(&s).unwrap()).unwrap();
        assert_eq!(back, s);
    }
}
