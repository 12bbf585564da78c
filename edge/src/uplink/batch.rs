//! Samples → telemetry payloads no larger than the wire limit.
//!
//! The samples come from the queue already as JSON (`WireSample`): a payload is the batch's
//! header as serde writes it, with the samples' bytes placed in its empty `samples` array. With
//! the binary encoding the same groups are read back into samples and encoded compactly
//! (`wire::binary`); a group that encoding refuses goes as JSON, which every hub takes.

use pv_shared::wire::{self, Encoding, Sample, TelemetryBatch};

use crate::queue::WireSample;

/// One encoded batch, ready to publish.
#[derive(Debug, Clone)]
pub struct Outgoing {
    pub first_seq: u64,
    pub last_seq: u64,
    pub replay: bool,
    pub samples: usize,
    pub payload: Vec<u8>,
}

const EMPTY_SAMPLES: &[u8] = b"\"samples\":[]";

/// The batch's JSON without samples, split where they go.
fn header(gateway: &str, replay: bool, first_seq: u64, last_seq: u64) -> Option<(Vec<u8>, usize)> {
    let empty = TelemetryBatch {
        first_seq,
        last_seq,
        batch: wire::batch_id(gateway, first_seq, last_seq),
        ..TelemetryBatch::new(gateway, replay, Vec::new())
    };
    let bytes = serde_json::to_vec(&empty).ok()?;
    // Gateway ids carry no quotes, so the array's name occurs once.
    let at = bytes
        .windows(EMPTY_SAMPLES.len())
        .position(|w| w == EMPTY_SAMPLES)?;
    Some((bytes, at + EMPTY_SAMPLES.len() - 1))
}

/// Packs `samples` (ascending) into as few batches as fit `wire::MAX_PAYLOAD_BYTES`. A sample
/// that cannot be sent at all (larger than the limit by itself, which no real device map comes
/// near) is returned apart by sequence, so the caller can drop it loudly instead of retrying it
/// forever.
pub fn encode(
    gateway: &str,
    replay: bool,
    samples: Vec<WireSample>,
    encoding: Encoding,
) -> (Vec<Outgoing>, Vec<u64>) {
    let mut out = Vec::new();
    let mut unsendable = Vec::new();
    // The longest header this gateway can have (sequence numbers of 20 digits).
    let Some((widest, _)) = header(gateway, replay, u64::MAX, u64::MAX) else {
        tracing::error!(%gateway, "batch header not encodable");
        return (out, samples.iter().map(|s| s.seq).collect());
    };
    let room = wire::MAX_PAYLOAD_BYTES.saturating_sub(widest.len());
    let mut group: Vec<WireSample> = Vec::new();
    let mut size = 0;
    let flush = |group: &mut Vec<WireSample>, out: &mut Vec<Outgoing>| {
        let (Some(first), Some(last)) = (group.first(), group.last()) else {
            return;
        };
        let (first_seq, last_seq) = (first.seq, last.seq);
        if let Some((head, at)) = header(gateway, replay, first_seq, last_seq) {
            let len = head.len() + group.iter().map(|s| s.json.len() + 1).sum::<usize>();
            let mut payload = Vec::with_capacity(len);
            payload.extend_from_slice(&head[..at]);
            for (i, s) in group.iter().enumerate() {
                if i > 0 {
                    payload.push(b',');
                }
                payload.extend_from_slice(&s.json);
            }
            payload.extend_from_slice(&head[at..]);
            if encoding == Encoding::Binary {
                payload = binary(gateway, replay, group).unwrap_or(payload);
            }
            out.push(Outgoing {
                first_seq,
                last_seq,
                replay,
                samples: group.len(),
                payload,
            });
        }
        group.clear();
    };
    for s in samples {
        let need = s.json.len() + usize::from(!group.is_empty());
        if need > room {
            tracing::error!(
                seq = s.seq,
                bytes = s.json.len(),
                "sample cannot be sent; dropped"
            );
            unsendable.push(s.seq);
            continue;
        }
        if size + need > room {
            flush(&mut group, &mut out);
            size = 0;
        }
        size += s.json.len() + usize::from(!group.is_empty());
        group.push(s);
    }
    flush(&mut group, &mut out);
    (out, unsendable)
}

/// The group in the binary encoding; `None` (and a log line) when it cannot be, so the caller
/// sends the JSON instead. A group under the JSON limit is far under it in binary.
fn binary(gateway: &str, replay: bool, group: &[WireSample]) -> Option<Vec<u8>> {
    let samples: Result<Vec<Sample>, _> = group.iter().map(|s| serde_json::from_slice(&s.json)).collect();
    let result = samples.map_err(wire::WireError::from).and_then(|samples| {
        wire::batch_to_bytes(&TelemetryBatch::new(gateway, replay, samples), Encoding::Binary)
    });
    match result {
        Ok(bytes) => Some(bytes),
        Err(e) => {
            tracing::warn!(error = %e, samples = group.len(), "batch sent as JSON: not encodable in binary");
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pv_shared::wire::{Sample, Value};
    use std::collections::BTreeMap;

    fn sample(seq: u64, text_len: usize) -> (Sample, WireSample) {
        let mut values = BTreeMap::new();
        values.insert("serial_number".to_string(), Value::Text("x".repeat(text_len)));
        values.insert("ac_power".to_string(), Value::Number(seq as f64 * 0.5));
        let s = Sample {
            seq,
            device: "d".into(),
            ts: 1,
            values,
            suspect: BTreeMap::new(),
        };
        let json = serde_json::to_vec(&s).unwrap();
        (s, WireSample { seq, json })
    }

    #[test]
    fn large_batches_split_below_the_limit_in_order_and_parse_back() {
        let (samples, wire_samples): (Vec<_>, Vec<_>) = (1..=100).map(|s| sample(s, 10_000)).unzip();
        let (out, bad) = encode("gw", true, wire_samples, Encoding::Json);
        assert!(bad.is_empty());
        assert!(out.len() > 1);
        assert!(out.iter().all(|o| o.payload.len() <= wire::MAX_PAYLOAD_BYTES));
        assert_eq!(out.iter().map(|o| o.samples).sum::<usize>(), 100);
        assert_eq!(out[0].first_seq, 1);
        assert!(out.windows(2).all(|w| w[0].last_seq + 1 == w[1].first_seq));
        // Each payload is a valid batch with exactly its samples, as the cloud parses it.
        let mut back = Vec::new();
        for o in &out {
            let b: TelemetryBatch = wire::parse(&o.payload).unwrap();
            assert_eq!(
                (b.first_seq, b.last_seq, b.replay),
                (o.first_seq, o.last_seq, true)
            );
            assert_eq!(b, TelemetryBatch::new("gw", true, b.samples.clone()));
            back.extend(b.samples);
        }
        assert_eq!(back, samples);
        let (one, _) = encode("gw", false, vec![sample(5, 10).1], Encoding::Json);
        assert_eq!((one[0].first_seq, one[0].last_seq, one[0].replay), (5, 5, false));
        assert!(encode("gw", false, Vec::new(), Encoding::Json).0.is_empty());
    }

    #[test]
    fn a_sample_too_large_alone_is_set_apart() {
        let samples = vec![sample(1, 10).1, sample(2, 300_000).1, sample(3, 10).1];
        let (out, bad) = encode("gw", false, samples, Encoding::Json);
        assert_eq!(bad, vec![2]);
        assert_eq!(out.iter().map(|o| o.samples).sum::<usize>(), 2);
        let b: TelemetryBatch = wire::parse(&out[0].payload).unwrap();
        assert_eq!(b.samples.iter().map(|s| s.seq).collect::<Vec<_>>(), vec![1, 3]);
    }

    #[test]
    fn binary_batches_carry_the_same_samples_and_fall_back_to_json_when_refused() {
        let (samples, wire_samples): (Vec<_>, Vec<_>) = (1..=100).map(|s| sample(s, 10)).unzip();
        let (json, _) = encode("gw", true, wire_samples.clone(), Encoding::Json);
        let (bin, bad) = encode("gw", true, wire_samples, Encoding::Binary);
        assert!(bad.is_empty());
        assert_eq!(bin.len(), 1);
        assert_eq!(Encoding::of(&bin[0].payload), Encoding::Binary);
        assert!(bin[0].payload.len() * 5 < json[0].payload.len());
        let b = wire::parse_batch(&bin[0].payload).unwrap();
        assert_eq!((b.first_seq, b.last_seq, b.replay), (1, 100, true));
        assert_eq!(b.samples, samples);
        // A device id longer than the binary layout allows: the batch still leaves, as JSON.
        let (mut odd, mut odd_wire) = sample(7, 1);
        odd.device = "d".repeat(300);
        odd_wire.json = serde_json::to_vec(&odd).unwrap();
        let (out, bad) = encode("gw", false, vec![odd_wire], Encoding::Binary);
        assert!(bad.is_empty());
        assert_eq!(Encoding::of(&out[0].payload), Encoding::Json);
        assert_eq!(wire::parse_batch(&out[0].payload).unwrap().samples, vec![odd]);
    }
}
