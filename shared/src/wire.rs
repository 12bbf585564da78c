//! Payloads on the MQTT topics (JSON), the contract between gateways and the cloud ingest.
//! Topics are in `topics`. Every message carries `v`, the wire version, so a receiver refuses
//! what it does not understand instead of misreading it; `parse` also refuses payloads above
//! `MAX_PAYLOAD_BYTES` before looking at them, and checks each message's own rules (`Message`).
//!
//! Store-and-forward and idempotence: every sample has a sequence number (`seq`), unique and
//! increasing per gateway, given when the sample is written to the gateway's durable queue and
//! never reused. A `TelemetryBatch` is named by its gateway and sequence range
//! (`gw-1:120-180`); the cloud stores each (gateway, seq) at most once, so a batch sent again
//! after a reconnect never duplicates rows. Once every sample of a batch is durably stored, the
//! cloud publishes an `Ack` naming that range on the gateway's `down/ack` topic, and only then
//! does the gateway delete the samples. A broker's PUBACK proves nothing about storage.
//!
//! Why an ack names a range rather than "everything up to N": the gateway sends live samples
//! before the backlog of an outage, so the cloud stores 1000-1010 before 1-999; a cumulative
//! "up to 1010" would make the gateway delete a backlog nobody stored. Samples dropped by the
//! gateway's overflow policy leave holes a cumulative ack could never pass either.
//!
//! Commands: the cloud sends a `Command` (with an id it chooses) on `down/command`; the gateway
//! answers each with a `CommandAck` carrying the same id, ok or not, and a message. A command
//! delivered twice (QoS 1) is executed once; the second delivery gets the first answer again.

pub mod binary;
mod command;
mod message;
mod status;
mod telemetry;

use serde::Deserialize;

use crate::topics::WIRE_VERSION;

pub use command::{Action, Command, CommandAck};
pub use message::{MAX_PAYLOAD_BYTES, Message, WireError};
pub use status::{BusStatus, DeviceStatus, GatewayStatus, QueueStatus, StatusKind};
pub use telemetry::{Ack, Sample, TelemetryBatch, Value, batch_id};

/// Parses a payload: size limit first, then the wire version, then the message and its rules.
pub fn parse<T: Message>(bytes: &[u8]) -> Result<T, WireError> {
    #[derive(Deserialize)]
    struct Versioned {
        v: u32,
    }
    if bytes.len() > MAX_PAYLOAD_BYTES {
        return Err(WireError::TooLarge(bytes.len()));
    }
    let Versioned { v } = serde_json::from_slice(bytes)?;
    if v != WIRE_VERSION {
        return Err(WireError::Version(v));
    }
    let message: T = serde_json::from_slice(bytes)?;
    message.check()?;
    Ok(message)
}

/// How a gateway encodes its telemetry batches (its configuration chooses): both arrive on the
/// same topic and `parse_batch` tells them apart by the first byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Encoding {
    /// The `TelemetryBatch` as JSON, what every hub reads.
    #[default]
    Json,
    /// `binary`: metric ids, device integers with their scale, deflated. Hubs are upgraded
    /// before the gateways that use it (an older hub refuses it as malformed).
    Binary,
}

impl Encoding {
    pub fn as_str(self) -> &'static str {
        match self {
            Encoding::Json => "json",
            Encoding::Binary => "binary",
        }
    }

    pub fn parse(text: &str) -> Option<Encoding> {
        match text {
            "json" => Some(Encoding::Json),
            "binary" => Some(Encoding::Binary),
            _ => None,
        }
    }

    /// The encoding of a telemetry payload.
    pub fn of(payload: &[u8]) -> Encoding {
        if binary::is_binary(payload) {
            Encoding::Binary
        } else {
            Encoding::Json
        }
    }
}

/// Parses a telemetry payload in either encoding: size limit, then the format, then the batch's
/// rules — the same checks for both.
pub fn parse_batch(bytes: &[u8]) -> Result<TelemetryBatch, WireError> {
    if !binary::is_binary(bytes) {
        return parse(bytes);
    }
    if bytes.len() > MAX_PAYLOAD_BYTES {
        return Err(WireError::TooLarge(bytes.len()));
    }
    let batch = binary::decode(bytes)?;
    batch.check()?;
    Ok(batch)
}

/// Encodes a batch in `encoding`, refusing what the hub would refuse.
pub fn batch_to_bytes(batch: &TelemetryBatch, encoding: Encoding) -> Result<Vec<u8>, WireError> {
    match encoding {
        Encoding::Json => to_bytes(batch),
        Encoding::Binary => {
            batch.check()?;
            let bytes = binary::encode(batch)?;
            if bytes.len() > MAX_PAYLOAD_BYTES {
                return Err(WireError::TooLarge(bytes.len()));
            }
            Ok(bytes)
        }
    }
}

/// Encodes a message, refusing one the other side would refuse (too large, or breaking its
/// rules).
pub fn to_bytes<T: Message>(message: &T) -> Result<Vec<u8>, WireError> {
    message.check()?;
    let bytes = serde_json::to_vec(message)?;
    if bytes.len() > MAX_PAYLOAD_BYTES {
        return Err(WireError::TooLarge(bytes.len()));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    fn batch(seqs: std::ops::RangeInclusive<u64>) -> TelemetryBatch {
        let mut values = BTreeMap::new();
        values.insert("ac_power".to_string(), Value::Number(1234.5));
        values.insert("serial_number".to_string(), Value::Text("HV123".into()));
        let samples = seqs
            .map(|seq| Sample {
                seq,
                device: "inv-1".into(),
                ts: 1_700_000_000_000,
                values: values.clone(),
                suspect: BTreeMap::new(),
            })
            .collect();
        TelemetryBatch::new("gw-1", true, samples)
    }

    #[test]
    fn a_batch_round_trips_and_names_its_sequence_range() {
        let b = batch(7..=9);
        assert_eq!(b.batch, "gw-1:7-9");
        assert_eq!((b.first_seq, b.last_seq), (7, 9));
        let json = to_bytes(&b).unwrap();
        let text = String::from_utf8(json.clone()).unwrap();
        assert!(
            text.contains(r#""ac_power":1234.5"#) && text.contains(r#""serial_number":"HV123""#),
            "{text}"
        );
        let back: TelemetryBatch = parse(&json).unwrap();
        assert_eq!(back, b);
        assert_eq!(
            b.ack(),
            Ack {
                v: 1,
                batch: "gw-1:7-9".into(),
                first_seq: 7,
                last_seq: 9
            }
        );
    }

    #[test]
    fn inconsistent_batches_are_refused() {
        let mut b = batch(1..=3);
        b.samples.swap(0, 1);
        assert!(matches!(to_bytes(&b), Err(WireError::Invalid(_))));
        let mut b = batch(1..=3);
        b.last_seq = 4;
        let json = serde_json::to_vec(&b).unwrap();
        assert!(matches!(
            parse::<TelemetryBatch>(&json),
            Err(WireError::Invalid(_))
        ));
        let b = TelemetryBatch::new("gw-1", false, vec![]);
        assert!(to_bytes(&b).is_err(), "empty batch");
    }

    #[test]
    fn other_versions_garbage_and_oversized_payloads_are_refused() {
        let ack = br#"{"v":1,"batch":"g:1-5","first_seq":1,"last_seq":5}"#;
        assert_eq!(parse::<Ack>(ack).unwrap().last_seq, 5);
        assert!(matches!(
            parse::<Ack>(br#"{"v":2,"batch":"g:1-5","first_seq":1,"last_seq":5}"#),
            Err(WireError::Version(2))
        ));
        assert!(matches!(
            parse::<Ack>(br#"{"batch":"g:1-5","first_seq":1,"last_seq":5}"#),
            Err(WireError::Malformed(_))
        ));
        assert!(matches!(
            parse::<Ack>(br#"{"v":1,"batch":"g:1-5","first_seq":1,"last_seq":5,"x":1}"#),
            Err(WireError::Malformed(_))
        ));
        assert!(matches!(
            parse::<Ack>(br#"{"v":1,"batch":"g:5-1","first_seq":5,"last_seq":1}"#),
            Err(WireError::Invalid(_))
        ));
        assert!(matches!(parse::<Ack>(b"not json"), Err(WireError::Malformed(_))));
        let mut big = br#"{"v":1,"batch":""#.to_vec();
        big.resize(MAX_PAYLOAD_BYTES + 1, b'x');
        assert!(matches!(parse::<Ack>(&big), Err(WireError::TooLarge(_))));
        let huge = batch(1..=5000);
        assert!(matches!(to_bytes(&huge), Err(WireError::TooLarge(_))));
    }

    #[test]
    fn status_messages_round_trip() {
        let s = GatewayStatus {
            v: 1,
            gateway: "g".into(),
            kind: StatusKind::Periodic,
            online: true,
            ts: 1,
            agent: "0.1.0".into(),
            queue: Some(QueueStatus {
                depth: 10,
                dropped_oldest: 3,
                next_seq: 14,
            }),
            devices: vec![
                DeviceStatus {
                    id: "inv-1".into(),
                    online: false,
                    polls_ok: 5,
                    polls_failed: 2,
                    withheld: None,
                    changes: 0,
                    last_change: None,
                    suspect: BTreeMap::new(),
                    counter_rereads: 0,
                    counters_unconfirmed: 0,
                },
                DeviceStatus {
                    id: "inv-2".into(),
                    online: true,
                    polls_ok: 7,
                    polls_failed: 0,
                    withheld: Some("layout changed: model 103 expected at 40070, found 160".into()),
                    changes: 1,
                    last_change: Some("layout changed: model 103 expected at 40070, found 160".into()),
                    suspect: BTreeMap::from([("power_factor".to_string(), 4)]),
                    counter_rereads: 3,
                    counters_unconfirmed: 1,
                },
            ],
            buses: vec![BusStatus {
                name: "rs485-1".into(),
                requests: 9,
                timeouts: 2,
                exceptions: 0,
                transport_errors: 1,
                decode_errors: 0,
            }],
        };
        let json = to_bytes(&s).unwrap();
        assert!(String::from_utf8_lossy(&json).contains(r#""dropped_oldest":3"#));
        assert_eq!(parse::<GatewayStatus>(&json).unwrap(), s);
        // A device whose values flow carries no new fields: its status reads as before.
        let flowing = serde_json::to_string(&s.devices[0]).unwrap();
        assert_eq!(
            flowing,
            r#"{"id":"inv-1","online":false,"polls_ok":5,"polls_failed":2}"#
        );
        // An older gateway's status (without them) is accepted.
        let old = br#"{"v":1,"gateway":"g","kind":"periodic","online":true,"ts":1,"agent":"0.1.0","devices":[{"id":"d","online":true,"polls_ok":1,"polls_failed":0}]}"#;
        assert_eq!(parse::<GatewayStatus>(old).unwrap().devices[0].withheld, None);
        // A last will carries no counters.
        let will = GatewayStatus {
            kind: StatusKind::Will,
            online: false,
            queue: None,
            devices: vec![],
            buses: vec![],
            ..s
        };
        let json = to_bytes(&will).unwrap();
        assert!(!String::from_utf8_lossy(&json).contains("queue"));
        assert_eq!(parse::<GatewayStatus>(&json).unwrap(), will);
    }

    #[test]
    fn commands_and_their_acks_round_trip() {
        let text = br#"{"v":1,"id":"c-1","action":{"type":"write_point","device":"tracker-1","metric":"tracker_target_angle","value":12.5}}"#;
        let c: Command = parse(text).unwrap();
        assert_eq!(
            c.action,
            Action::WritePoint {
                device: "tracker-1".into(),
                metric: "tracker_target_angle".into(),
                value: 12.5
            }
        );
        for action in [
            Action::ReloadConfig,
            Action::ReadNow {
                device: "inv-1".into(),
            },
        ] {
            let c = Command {
                v: 1,
                id: "c-2".into(),
                action,
            };
            assert_eq!(parse::<Command>(&to_bytes(&c).unwrap()).unwrap(), c);
        }
        assert!(
            parse::<Command>(br#"{"v":1,"id":"c","action":{"type":"format_disk"}}"#).is_err(),
            "unknown action"
        );
        assert!(
            parse::<Command>(br#"{"v":1,"id":"c","action":{"type":"read_now","device":"d","x":1}}"#).is_err(),
            "unknown field in an action"
        );
        assert!(matches!(
            parse::<Command>(br#"{"v":1,"id":"","action":{"type":"reload_config"}}"#),
            Err(WireError::Invalid(_))
        ));
        let mut values = BTreeMap::new();
        values.insert("tracker_angle".to_string(), Value::Number(-3.5));
        let a = CommandAck {
            v: 1,
            gateway: "g".into(),
            id: "c-2".into(),
            ok: true,
            message: "read".into(),
            ts: 5,
            values: Some(values),
            inventory: None,
            scan: None,
            probe: None,
        };
        assert_eq!(parse::<CommandAck>(&to_bytes(&a).unwrap()).unwrap(), a);
    }

    #[test]
    fn quality_marks_are_optional_in_both_directions() {
        // What a gateway without marks sends (and an older one sent) still parses...
        let old = br#"{"v":1,"gateway":"g","batch":"g:1-1","first_seq":1,"last_seq":1,"replay":false,"samples":[{"seq":1,"device":"d","ts":5,"values":{"power_factor":0.99}}]}"#;
        let b: TelemetryBatch = parse(old).unwrap();
        assert!(b.samples[0].suspect.is_empty());
        // ...and a sample without marks is written byte for byte as before, so a hub that
        // predates the field still takes it.
        assert_eq!(to_bytes(&b).unwrap(), old.to_vec());
        let mut s = b.samples[0].clone();
        s.values.insert("power_factor".into(), Value::Number(-20.7));
        s.values.insert("serial_number".into(), Value::Text("X".into()));
        s.values.insert("ambient_temperature".into(), Value::Number(21.0));
        s.mark_implausible();
        assert_eq!(s.suspect.get("power_factor"), Some(&Value::Number(-20.7)));
        assert!(!s.values.contains_key("power_factor"));
        assert_eq!(s.values.len(), 2, "good values and text stay");
        let text = serde_json::to_string(&s).unwrap();
        assert!(text.contains(r#""suspect":{"power_factor":-20.7}"#), "{text}");
        assert_eq!(serde_json::from_str::<Sample>(&text).unwrap(), s);
        let old_status = br#"{"v":1,"gateway":"g","kind":"periodic","online":true,"ts":1,"agent":"0.1.0","devices":[{"id":"d","online":true,"polls_ok":1,"polls_failed":0}]}"#;
        let st: GatewayStatus = parse(old_status).unwrap();
        assert!(st.devices[0].suspect.is_empty());
        assert_eq!(to_bytes(&st).unwrap(), old_status.to_vec());
    }

    #[test]
    fn commissioning_commands_parse_and_old_acks_still_do() {
        let c: Command =
            parse(br#"{"v":1,"id":"s","action":{"type":"scan_bus","bus":"rs485-1","from":1,"to":10}}"#)
                .unwrap();
        assert_eq!(
            c.action,
            Action::ScanBus {
                bus: "rs485-1".into(),
                from: 1,
                to: 10
            }
        );
        let c: Command = parse(
            br#"{"v":1,"id":"a","action":{"type":"add_device","bus":"b","id":"inv-1","unit":3,"map":"m"}}"#,
        )
        .unwrap();
        assert!(matches!(
            c.action,
            Action::AddDevice {
                interval_ms: None,
                unit: 3,
                ..
            }
        ));
        for bad in [
            &br#"{"v":1,"id":"s","action":{"type":"scan_bus","bus":"b","from":0,"to":10}}"#[..],
            br#"{"v":1,"id":"s","action":{"type":"scan_bus","bus":"b","from":9,"to":3}}"#,
            br#"{"v":1,"id":"s","action":{"type":"scan_bus","bus":"b","from":1,"to":250}}"#,
            br#"{"v":1,"id":"p","action":{"type":"probe_unit","bus":"b","unit":0,"map":"m"}}"#,
        ] {
            assert!(
                matches!(parse::<Command>(bad), Err(WireError::Invalid(_))),
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
        // An ack from a gateway that predates commissioning has none of the new fields.
        let old: CommandAck =
            parse(br#"{"v":1,"gateway":"g","id":"c","ok":true,"message":"m","ts":1}"#).unwrap();
        assert!(old.scan.is_none() && old.probe.is_none() && old.inventory.is_none());
        let a = CommandAck {
            scan: Some(Box::new(crate::commission::ScanReport {
                bus: "b".into(),
                from: 1,
                to: 2,
                units: vec![],
                elapsed_ms: 3,
                silent: 0,
                gateway_absent: 0,
            })),
            ..old
        };
        let text = to_bytes(&a).unwrap();
        assert!(!String::from_utf8_lossy(&text).contains("probe"));
        assert_eq!(parse::<CommandAck>(&text).unwrap(), a);
    }
}
