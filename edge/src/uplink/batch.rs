//! Samples → telemetry payloads no larger than the wire limit.

use pv_shared::wire::{self, Sample, TelemetryBatch, WireError};

/// One encoded batch, ready to publish.
#[derive(Debug, Clone)]
pub struct Outgoing {
    pub first_seq: u64,
    pub last_seq: u64,
    pub replay: bool,
    pub samples: usize,
    pub payload: Vec<u8>,
}

/// Encodes `samples` (ascending) as one batch, or several when one would exceed
/// `wire::MAX_PAYLOAD_BYTES`. A single sample that cannot be sent at all (larger than the limit
/// by itself, which no real device map comes near) is returned apart, so the caller can drop it
/// loudly instead of retrying it forever.
pub fn encode(gateway: &str, replay: bool, samples: Vec<Sample>) -> (Vec<Outgoing>, Vec<Sample>) {
    let mut out = Vec::new();
    let mut unsendable = Vec::new();
    let mut todo = vec![samples];
    // Halving is crude but only happens with unusually large samples; the common case encodes once.
    while let Some(part) = todo.pop() {
        if part.is_empty() {
            continue;
        }
        let batch = TelemetryBatch::new(gateway, replay, part);
        match wire::to_bytes(&batch) {
            Ok(payload) => out.push(Outgoing {
                first_seq: batch.first_seq,
                last_seq: batch.last_seq,
                replay,
                samples: batch.samples.len(),
                payload,
            }),
            Err(WireError::TooLarge(_)) if batch.samples.len() > 1 => {
                let mut first = batch.samples;
                let second = first.split_off(first.len() / 2);
                // Pushed in reverse so the lower half is encoded (and sent) first.
                todo.push(second);
                todo.push(first);
            }
            Err(e) => {
                tracing::error!(%e, first = batch.first_seq, "sample cannot be sent; dropped");
                unsendable.extend(batch.samples);
            }
        }
    }
    (out, unsendable)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pv_shared::wire::Value;
    use std::collections::BTreeMap;

    fn sample(seq: u64, text_len: usize) -> Sample {
        let mut values = BTreeMap::new();
        values.insert("serial_number".to_string(), Value::Text("x".repeat(text_len)));
        Sample {
            seq,
            device: "d".into(),
            ts: 1,
            values,
            suspect: BTreeMap::new(),
        }
    }

    #[test]
    fn large_batches_split_below_the_limit_in_order() {
        let samples: Vec<Sample> = (1..=100).map(|s| sample(s, 10_000)).collect();
        let (out, bad) = encode("gw", true, samples);
        assert!(bad.is_empty());
        assert!(out.len() > 1);
        assert!(out.iter().all(|o| o.payload.len() <= wire::MAX_PAYLOAD_BYTES));
        assert_eq!(out.iter().map(|o| o.samples).sum::<usize>(), 100);
        assert_eq!(out[0].first_seq, 1);
        assert!(out.windows(2).all(|w| w[0].last_seq + 1 == w[1].first_seq));
        let (one, _) = encode("gw", false, vec![sample(5, 10)]);
        assert_eq!((one[0].first_seq, one[0].last_seq, one[0].replay), (5, 5, false));
    }

    #[test]
    fn a_sample_too_large_alone_is_set_apart() {
        let samples = vec![sample(1, 10), sample(2, 300_000), sample(3, 10)];
        let (out, bad) = encode("gw", false, samples);
        assert_eq!(bad.iter().map(|s| s.seq).collect::<Vec<_>>(), vec![2]);
        assert_eq!(out.iter().map(|o| o.samples).sum::<usize>(), 2);
    }
}
