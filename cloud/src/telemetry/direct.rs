//! Samples that reach the hub other than through a gateway (a vendor cloud polled by the hub,
//! `vendor::poller`) enter the same path as a gateway's batch: the same checks (metric names,
//! the accepted time window, implausible values marked by the same rule), the realtime view,
//! the writers' queue and one durable commit. Instead of an MQTT acknowledgement the caller
//! gets a oneshot that fires once the batch is stored, so whatever cursor it keeps only moves
//! past samples that are in the database. Idempotence is the raw table's: a (device, time)
//! already stored is left as it is, so a re-polled window stores nothing twice.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use pv_shared::metrics;
use pv_shared::wire;
use tokio::sync::oneshot;

use super::ingest::{Accepted, Ack, Ingest, Prepared};
use super::realtime::DeviceLive;
use super::registry::GatewayEntry;
use crate::kernel::time;

/// One sample of a device of the station, in canonical metric names and units.
#[derive(Debug, Clone)]
pub struct DirectSample {
    /// The registry row (`pv_inverter`, `pv_meter`, `pv_weather`).
    pub device_id: i64,
    /// One of the realtime view's `KIND_*`.
    pub kind: &'static str,
    pub ts: i64,
    pub values: BTreeMap<String, f64>,
}

/// Samples of one station's devices from one source.
#[derive(Debug, Clone)]
pub struct DirectBatch {
    pub tenant_id: String,
    pub station_id: i64,
    /// Names the source where a gateway id would stand (`pv_telemetry_latest.gateway_id`),
    /// e.g. `vendor:<account id>`.
    pub source: String,
    pub samples: Vec<DirectSample>,
}

/// What became of a submitted batch.
#[derive(Debug)]
pub struct Submitted {
    pub accepted: usize,
    /// Samples outside the accepted time window.
    pub refused: usize,
    /// Values under names that are not canonical metrics (dropped, the sample kept).
    pub unknown_metrics: usize,
    /// Fires once the accepted samples are stored; an error when the store failed or the hub
    /// stopped first (nothing of the batch may be taken as stored then).
    pub stored: oneshot::Receiver<()>,
}

impl Ingest {
    /// Checks a batch and queues it for the writers (see the module note).
    pub async fn submit(&self, batch: DirectBatch) -> Submitted {
        let received = std::time::Instant::now();
        let now = time::now_ms();
        let newest = now + self.cfg.future_margin_seconds * 1000;
        let oldest = now - self.cfg.past_horizon_days * 86_400_000;
        let (told, stored) = oneshot::channel();
        let mut out = Submitted {
            accepted: 0,
            refused: 0,
            unknown_metrics: 0,
            stored,
        };
        let mut samples: Vec<Accepted> = Vec::with_capacity(batch.samples.len());
        let mut newest_of: HashMap<i64, usize> = HashMap::new();
        for s in batch.samples {
            if s.ts > newest || s.ts < oldest {
                out.refused += 1;
                continue;
            }
            let mut values = BTreeMap::new();
            for (k, v) in s.values {
                if metrics::lookup(&k).is_some() {
                    values.insert(k, wire::Value::Number(v));
                } else {
                    out.unknown_metrics += 1;
                }
            }
            let mut sample = wire::Sample {
                seq: 0,
                device: String::new(),
                ts: s.ts,
                values,
                suspect: BTreeMap::new(),
            };
            sample.mark_implausible();
            let suspect = if sample.suspect.is_empty() {
                None
            } else {
                serde_json::to_string(&sample.suspect).ok()
            };
            let Ok(metrics) = serde_json::to_string(&sample.values) else {
                out.refused += 1;
                continue;
            };
            match newest_of.get(&s.device_id) {
                Some(&held) if samples[held].ts >= s.ts => {}
                _ => {
                    newest_of.insert(s.device_id, samples.len());
                }
            }
            samples.push(Accepted {
                device_id: s.device_id,
                kind: s.kind,
                ts: s.ts,
                seq: 0,
                metrics,
                suspect,
                values: sample.values,
                suspect_values: sample.suspect,
            });
        }
        out.accepted = samples.len();
        if samples.is_empty() {
            let _ = told.send(());
            return out;
        }
        for (device_id, i) in newest_of {
            let s = &samples[i];
            self.state.realtime.apply(DeviceLive {
                device_id,
                tenant_id: batch.tenant_id.clone(),
                station_id: batch.station_id,
                kind: s.kind.to_owned(),
                gateway_id: batch.source.clone(),
                ts: s.ts,
                values: s.values.clone(),
                suspect: s.suspect_values.clone(),
                online: true,
            });
        }
        self.enqueue(Prepared {
            gateway: Arc::new(GatewayEntry {
                gateway_id: batch.source,
                tenant_id: batch.tenant_id,
                station_id: batch.station_id,
                devices: HashMap::new(),
            }),
            received,
            ack: Ack::Stored(told),
            samples,
        })
        .await;
        out
    }
}
