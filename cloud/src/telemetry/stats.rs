//! What ingest accepted and refused, per gateway and by reason, kept in memory and written into
//! `pv_gateway_state` (`accepted`, `rejected` as a JSON object reason → count) periodically.
//! Message-level reasons (malformed, oversized, wrong version, gateway mismatch) count messages;
//! sample-level reasons (unknown device, time out of range) count samples; `accepted` counts
//! samples stored (a replayed sample counts again: it was accepted again).

use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

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
    /// Recent refusals with their reason and a detail (newest last, a few kept), so an operator
    /// sees *what* was wrong, e.g. which SN is unknown.
    pub recent: Vec<(Reason, String)>,
}

impl Counters {
    pub fn rejected_json(&self) -> String {
        let m: BTreeMap<&str, u64> = self.rejected.iter().map(|(r, n)| (r.key(), *n)).collect();
        serde_json::to_string(&m).unwrap_or_else(|_| "{}".into())
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
    counters: Counters,
    /// Changed since the last write to the database.
    dirty: bool,
    /// The totals stored before this process started were added in.
    loaded: bool,
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
}

impl Stats {
    pub fn reject(&self, gateway: &str, reason: Reason, n: u64, detail: impl Into<String>) {
        if n == 0 {
            return;
        }
        let mut g = self.gateways.lock().unwrap_or_else(|p| p.into_inner());
        let e = g.entry(gateway.to_owned()).or_default();
        *e.counters.rejected.entry(reason).or_default() += n;
        e.counters.recent.push((reason, detail.into()));
        if e.counters.recent.len() > RECENT_KEPT {
            e.counters.recent.remove(0);
        }
        e.dirty = true;
    }

    pub fn accept(&self, gateway: &str, n: u64) {
        let mut g = self.gateways.lock().unwrap_or_else(|p| p.into_inner());
        let e = g.entry(gateway.to_owned()).or_default();
        e.counters.accepted += n;
        e.dirty = true;
    }

    pub fn counters(&self, gateway: &str) -> Option<Counters> {
        self.gateways
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(gateway)
            .map(|e| e.counters.clone())
    }

    /// Gateways changed since the last call, with whether their stored totals still need to be
    /// added in; marks them clean.
    pub fn take_dirty(&self) -> Vec<(String, Counters, bool)> {
        let mut g = self.gateways.lock().unwrap_or_else(|p| p.into_inner());
        g.iter_mut()
            .filter(|(_, e)| e.dirty)
            .map(|(k, e)| {
                e.dirty = false;
                (k.clone(), e.counters.clone(), !e.loaded)
            })
            .collect()
    }

    /// Adds totals stored before this process started (once per gateway).
    pub fn add_stored(&self, gateway: &str, accepted: u64, rejected_json: &str) {
        let mut g = self.gateways.lock().unwrap_or_else(|p| p.into_inner());
        let e = g.entry(gateway.to_owned()).or_default();
        if !e.loaded {
            e.counters.accepted += accepted;
            e.counters.add_json(rejected_json);
            e.loaded = true;
            e.dirty = true;
        }
    }

    /// Marks a gateway as needing another write (a write failed).
    pub fn mark_dirty(&self, gateway: &str) {
        if let Some(e) = self
            .gateways
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get_mut(gateway)
        {
            e.dirty = true;
        }
    }

    pub fn total(counter: &AtomicU64) -> u64 {
        counter.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_by_reason_and_survive_a_restart_once() {
        let s = Stats::default();
        s.reject("g", Reason::UnknownDevice, 3, "SN-9");
        s.reject("g", Reason::Malformed, 1, "not JSON");
        s.accept("g", 10);
        let c = s.counters("g").unwrap();
        assert_eq!(c.rejected_json(), r#"{"malformed":1,"unknown_device":3}"#);
        let dirty = s.take_dirty();
        assert_eq!(dirty.len(), 1);
        assert!(dirty[0].2, "stored totals not yet added");
        assert!(s.take_dirty().is_empty());
        s.add_stored("g", 5, r#"{"malformed":2,"bogus":7}"#);
        s.add_stored("g", 5, r#"{"malformed":2}"#);
        let c = s.counters("g").unwrap();
        assert_eq!(c.accepted, 15);
        assert_eq!(c.rejected[&Reason::Malformed], 3);
        assert_eq!(c.recent.last().map(|r| r.1.as_str()), Some("not JSON"));
    }
}
