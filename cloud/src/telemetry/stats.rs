//! What ingest accepted and refused, per gateway and by reason, counted in memory and added into
//! `pv_gateway_state` (`accepted`, `rejected` as a JSON object reason → count) periodically.
//! Message-level reasons (malformed, oversized, wrong version, gateway mismatch) count messages;
//! sample-level reasons (unknown device, time out of range) count samples; `accepted` counts
//! samples stored (a replayed sample counts again: it was accepted again).
//!
//! Each process keeps only what it counted since its last flush and the flush *adds* that delta
//! to the stored totals (`store::add_gateway_counters`): with several replicas behind a shared
//! subscription each sees part of a gateway's messages, and absolute values written from each
//! replica's memory would overwrite one another.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use crate::kernel::meter::Meter;

/// Why something from a gateway was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Reason {
    Malformed,
    Oversized,
    WrongVersion,
    /// Topic, payload and signed-in gateway do not all name the same gateway.
    GatewayMismatch,
    UnknownDevice,
    /// Further in the future than the margin, or older than the horizon.
    TimeOutOfRange,
}

impl Reason {
    pub const ALL: [Reason; 6] = [
        Reason::Malformed,
        Reason::Oversized,
        Reason::WrongVersion,
        Reason::GatewayMismatch,
        Reason::UnknownDevice,
        Reason::TimeOutOfRange,
    ];

    pub fn key(self) -> &'static str {
        match self {
            Reason::Malformed => "malformed",
            Reason::Oversized => "oversized",
            Reason::WrongVersion => "wrong_version",
            Reason::GatewayMismatch => "gateway_mismatch",
            Reason::UnknownDevice => "unknown_device",
            Reason::TimeOutOfRange => "time_out_of_range",
        }
    }

    pub fn of_key(key: &str) -> Option<Reason> {
        Reason::ALL.into_iter().find(|r| r.key() == key)
    }
}

/// Counters of one gateway.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Counters {
    pub accepted: u64,
    pub rejected: BTreeMap<Reason, u64>,
    /// Recent refusals with their reason and a detail (newest last, a few kept, since the last
    /// flush), for debugging *what* was wrong, e.g. which SN is unknown.
    pub recent: Vec<(Reason, String)>,
    /// Telemetry payload bytes received and the samples they carried, and the encoding of the
    /// newest payload (`wire::Encoding::as_str`): what the gateway costs on its uplink.
    pub uplink_bytes: u64,
    pub uplink_samples: u64,
    pub encoding: Option<&'static str>,
}

impl Counters {
    pub fn rejected_json(&self) -> String {
        let m: BTreeMap<&str, u64> = self.rejected.iter().map(|(r, n)| (r.key(), *n)).collect();
        serde_json::to_string(&m).unwrap_or_else(|_| "{}".into())
    }

    /// Refusal counts by reason key (`Reason::key`).
    pub fn rejected_by_key(&self) -> BTreeMap<String, u64> {
        self.rejected
            .iter()
            .map(|(r, n)| (r.key().to_owned(), *n))
            .collect()
    }

    /// Adds the counts of a stored `rejected` JSON object (unknown keys are ignored).
    pub fn add_json(&mut self, json: &str) {
        if let Ok(m) = serde_json::from_str::<BTreeMap<String, u64>>(json) {
            for (k, n) in m {
                if let Some(r) = Reason::of_key(&k) {
                    *self.rejected.entry(r).or_default() += n;
                }
            }
        }
    }
}

const RECENT_KEPT: usize = 10;

#[derive(Debug, Default)]
struct Entry {
    /// Counted since the last flush (not yet added to the stored totals).
    pending: Counters,
}

#[derive(Debug, Default)]
pub struct Stats {
    gateways: Mutex<HashMap<String, Entry>>,
    /// Refusals that name no known gateway (a topic outside the layout, an unprovisioned id).
    pub unattributed: AtomicU64,
    /// Transactions that failed (their batches were not acknowledged).
    pub store_failures: AtomicU64,
    pub batches_stored: AtomicU64,
    pub acks_sent: AtomicU64,
    /// The hub's instruments, which count the same refusals by reason for `/metrics`.
    meter: Arc<Meter>,
}

impl Counters {
    fn is_zero(&self) -> bool {
        self.accepted == 0 && self.rejected.values().all(|n| *n == 0) && self.uplink_bytes == 0
    }

    /// Adds `other`'s counts (its recent refusals go before ours: they are older).
    fn merge(&mut self, other: Counters) {
        self.accepted += other.accepted;
        self.uplink_bytes += other.uplink_bytes;
        self.uplink_samples += other.uplink_samples;
        // The delta given back is older than what was counted since.
        self.encoding = self.encoding.or(other.encoding);
        for (r, n) in other.rejected {
            *self.rejected.entry(r).or_default() += n;
        }
        let mine = std::mem::take(&mut self.recent);
        self.recent = other.recent;
        self.recent.extend(mine);
        let excess = self.recent.len().saturating_sub(RECENT_KEPT);
        self.recent.drain(..excess);
    }
}

impl Stats {
    /// Counting into the hub's meter too.
    pub fn metered(meter: Arc<Meter>) -> Stats {
        Stats {
            meter,
            ..Stats::default()
        }
    }

    pub fn reject(&self, gateway: &str, reason: Reason, n: u64, detail: impl Into<String>) {
        if n == 0 {
            return;
        }
        self.meter.refuse(reason.key(), n);
        let mut g = self.gateways.lock().unwrap_or_else(|p| p.into_inner());
        let e = g.entry(gateway.to_owned()).or_default();
        *e.pending.rejected.entry(reason).or_default() += n;
        e.pending.recent.push((reason, detail.into()));
        if e.pending.recent.len() > RECENT_KEPT {
            e.pending.recent.remove(0);
        }
    }

    pub fn accept(&self, gateway: &str, n: u64) {
        let mut g = self.gateways.lock().unwrap_or_else(|p| p.into_inner());
        g.entry(gateway.to_owned()).or_default().pending.accepted += n;
    }

    /// A telemetry payload of `bytes` in `encoding` carrying `samples` samples.
    pub fn uplink(&self, gateway: &str, encoding: &'static str, bytes: usize, samples: usize) {
        let mut g = self.gateways.lock().unwrap_or_else(|p| p.into_inner());
        let e = &mut g.entry(gateway.to_owned()).or_default().pending;
        e.uplink_bytes += bytes as u64;
        e.uplink_samples += samples as u64;
        e.encoding = Some(encoding);
    }

    /// What this process counted for a gateway and has not yet flushed.
    pub fn pending(&self, gateway: &str) -> Option<Counters> {
        self.gateways
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(gateway)
            .map(|e| e.pending.clone())
    }

    /// Takes the deltas counted since the last call, per gateway with anything to add; the
    /// caller adds them to the stored totals or, when that fails, gives them back (`restore`).
    pub fn take_pending(&self) -> Vec<(String, Counters)> {
        // The map is emptied, so it never keeps every gateway (or garbage id) ever seen.
        let taken = std::mem::take(&mut *self.gateways.lock().unwrap_or_else(|p| p.into_inner()));
        taken
            .into_iter()
            .filter(|(_, e)| !e.pending.is_zero())
            .map(|(k, e)| (k, e.pending))
            .collect()
    }

    /// Gives back deltas whose write failed, to be added by the next flush.
    pub fn restore(&self, gateway: &str, delta: Counters) {
        let mut g = self.gateways.lock().unwrap_or_else(|p| p.into_inner());
        g.entry(gateway.to_owned()).or_default().pending.merge(delta);
    }

    pub fn total(counter: &AtomicU64) -> u64 {
        counter.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deltas_are_taken_once_and_a_failed_write_gives_them_back() {
        let s = Stats::default();
        s.reject("g", Reason::UnknownDevice, 3, "SN-9");
        s.reject("g", Reason::Malformed, 1, "not JSON");
        s.accept("g", 10);
        let c = s.pending("g").unwrap();
        assert_eq!(c.rejected_json(), r#"{"malformed":1,"unknown_device":3}"#);
        let taken = s.take_pending();
        assert_eq!(taken.len(), 1);
        assert_eq!(taken[0].1.accepted, 10);
        assert!(s.take_pending().is_empty(), "nothing counted since");
        s.accept("g", 5);
        s.restore("g", taken[0].1.clone());
        let again = s.take_pending();
        assert_eq!(again[0].1.accepted, 15);
        assert_eq!(again[0].1.rejected[&Reason::Malformed], 1);
        assert_eq!(again[0].1.recent.last().map(|r| r.1.as_str()), Some("not JSON"));
    }

    #[test]
    fn uplink_bytes_add_up_and_the_newest_encoding_wins() {
        let s = Stats::default();
        s.uplink("g", "json", 900, 3);
        let taken = s.take_pending();
        assert_eq!((taken[0].1.uplink_bytes, taken[0].1.uplink_samples), (900, 3));
        s.uplink("g", "binary", 100, 2);
        s.restore("g", taken[0].1.clone());
        let again = s.take_pending();
        assert_eq!(
            (
                again[0].1.uplink_bytes,
                again[0].1.uplink_samples,
                again[0].1.encoding
            ),
            (1000, 5, Some("binary"))
        );
    }

    #[test]
    fn the_meter_knows_every_reason() {
        let keys: Vec<&str> = Reason::ALL.iter().map(|r| r.key()).collect();
        for k in &keys {
            assert!(
                crate::kernel::meter::REASONS.contains(k),
                "{k} missing from the meter"
            );
        }
        assert_eq!(
            crate::kernel::meter::REASONS.len(),
            keys.len() + 1,
            "plus unattributed"
        );
    }

    #[test]
    fn stored_json_is_read_leniently() {
        let mut c = Counters::default();
        c.add_json(r#"{"malformed":2,"bogus":7}"#);
        c.add_json("not json");
        assert_eq!(c.rejected_json(), r#"{"malformed":2}"#);
    }
}
