//! The gateway's status message: presence, queue depth and overflow drops, per-device and
//! per-bus counters, gathered from the parts that keep them.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

use pv_shared::topics::WIRE_VERSION;
use pv_shared::wire::{BusStatus, DeviceStatus, GatewayStatus, QueueStatus, StatusKind};

use crate::clock::now_ms;
use crate::quality::QualityCounters;
use crate::queue::Queue;
use crate::scheduler::BusStats;

pub const AGENT_VERSION: &str = env!("CARGO_PKG_VERSION");

/// Where the counters are; the buses change when the configuration is reloaded.
pub struct StatusBoard {
    gateway: String,
    queue: Arc<Queue>,
    buses: Mutex<Vec<(String, Arc<BusStats>)>>,
    /// Values marked suspect per device and metric (kept across configuration reloads).
    pub quality: QualityCounters,
}

impl StatusBoard {
    pub fn new(gateway: &str, queue: Arc<Queue>) -> StatusBoard {
        StatusBoard {
            gateway: gateway.to_string(),
            queue,
            buses: Mutex::new(Vec::new()),
            quality: QualityCounters::default(),
        }
    }

    pub fn set_buses(&self, buses: Vec<(String, Arc<BusStats>)>) {
        if let Ok(mut b) = self.buses.lock() {
            *b = buses;
        }
    }

    /// The last will: registered with the broker at connect, sent by it if the gateway vanishes.
    pub fn will(&self) -> GatewayStatus {
        GatewayStatus {
            v: WIRE_VERSION,
            gateway: self.gateway.clone(),
            kind: StatusKind::Will,
            online: false,
            ts: now_ms(),
            agent: AGENT_VERSION.to_string(),
            queue: None,
            devices: Vec::new(),
            buses: Vec::new(),
        }
    }

    pub fn status(&self, kind: StatusKind) -> GatewayStatus {
        let q = self.queue.stats();
        let mut devices = Vec::new();
        let mut buses = Vec::new();
        if let Ok(b) = self.buses.lock() {
            for (name, s) in b.iter() {
                let n = |c: &std::sync::atomic::AtomicU64| c.load(Ordering::Relaxed);
                buses.push(BusStatus {
                    name: name.clone(),
                    requests: n(&s.requests),
                    timeouts: n(&s.timeouts),
                    exceptions: n(&s.exceptions),
                    transport_errors: n(&s.transport_errors) + n(&s.short_frames),
                    decode_errors: n(&s.decode_errors),
                });
                for (id, d) in &s.devices {
                    devices.push(DeviceStatus {
                        id: id.clone(),
                        online: d.online.load(Ordering::Relaxed),
                        polls_ok: n(&d.polls_ok),
                        polls_failed: n(&d.polls_failed),
                        withheld: d.withheld.lock().ok().and_then(|w| w.clone()),
                        changes: n(&d.changes),
                        last_change: d.last_change.lock().ok().and_then(|l| l.clone()),
                        suspect: self.quality.of(id),
                        counter_rereads: n(&d.counter_rereads),
                        counters_unconfirmed: n(&d.counters_unconfirmed),
                    });
                }
            }
        }
        GatewayStatus {
            v: WIRE_VERSION,
            gateway: self.gateway.clone(),
            kind,
            online: kind != StatusKind::Shutdown,
            ts: now_ms(),
            agent: AGENT_VERSION.to_string(),
            queue: Some(QueueStatus {
                depth: q.len,
                dropped_oldest: q.dropped,
                next_seq: q.next_seq,
            }),
            devices,
            buses,
        }
    }
}
