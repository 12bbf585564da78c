//! Whether a device's values may be published: its layout and identity must still be the ones
//! the agent polls it with.
//!
//! A device can change under a running agent without going silent: a SunSpec device restarted
//! within one poll interval may lay its models out in another order or at another base, a unit
//! may be swapped for another. Read with the old layout, such a device yields values that look
//! valid and are wrong. So a device is *withheld* (polled, reported online, nothing published,
//! the reason in its status) from the moment a change is seen until the new state is confirmed:
//!
//! - SunSpec: every poll reads each used model's header (ID, length) with the values; a
//!   mismatch, or a burst of decode errors, drops the layout and re-walks the chain at once;
//!   values flow again only once a second walk, one poll later, finds the same chain and that
//!   poll's headers match it.
//! - Identity (any map with `serial_number` / `model_name` points, read on every poll with the
//!   other points): a value that differs from the one first seen, or that can no longer be
//!   read, withholds the device; a new serial number read the same on the next poll is adopted
//!   (a unit replaced by the same model); a new model name keeps the device withheld until the
//!   configuration is loaded again, since the map may not fit the new model.

use std::collections::BTreeMap;
use std::sync::atomic::Ordering;

use pv_shared::wire::Value;

use crate::device::SunSpecChain;
use crate::scheduler::DeviceStats;

/// Metrics that identify a unit.
pub const IDENTITY: [&str; 2] = ["serial_number", "model_name"];

/// A poll with at least this many points that fail to decode, and at least
/// 1/`BURST_SHARE` of the device's points, is a burst: the layout is suspect.
pub const BURST_MIN: usize = 3;
pub const BURST_SHARE: usize = 10;

/// Whether `errors` decode failures among `points` make a burst.
pub fn is_burst(errors: usize, points: usize) -> bool {
    errors >= BURST_MIN && errors * BURST_SHARE >= points
}

#[derive(Debug)]
pub struct Guard {
    /// Why values are withheld now.
    withheld: Option<String>,
    /// A change was seen: the next chain found must be found again before it is used.
    rewalk: bool,
    /// The first walk after a change.
    candidate: Option<SunSpecChain>,
    /// The identity first seen (only the metrics read then).
    identity: Option<BTreeMap<String, Value>>,
    /// A new identity read once, to be read the same again before it is adopted.
    identity_candidate: Option<BTreeMap<String, Value>>,
    /// The model name changed: only a configuration reload clears this.
    model_changed: bool,
    /// A burst withholds once; a poll below the threshold arms the check again, so a device
    /// with points that never decode is not withheld for ever.
    burst_armed: bool,
    changes: u64,
    last_change: Option<String>,
}

impl Default for Guard {
    fn default() -> Guard {
        Guard {
            withheld: None,
            rewalk: false,
            candidate: None,
            identity: None,
            identity_candidate: None,
            model_changed: false,
            burst_armed: true,
            changes: 0,
            last_change: None,
        }
    }
}

fn text(v: Option<&Value>) -> String {
    match v {
        Some(Value::Text(t)) => format!("{t:?}"),
        Some(Value::Number(x)) => x.to_string(),
        None => "nothing".into(),
    }
}

impl Guard {
    /// Why the device's values are withheld, if they are.
    pub fn withheld(&self) -> Option<&str> {
        self.withheld.as_deref()
    }

    fn withhold(&mut self, device: &str, reason: String, change: bool) {
        if self.withheld.as_ref() != Some(&reason) {
            tracing::warn!(%device, %reason, "values withheld");
        }
        if change {
            self.changes += 1;
            self.last_change = Some(reason.clone());
        }
        self.withheld = Some(reason);
    }

    /// The device's layout no longer matches (a header read back different).
    pub fn layout_changed(&mut self, device: &str, reason: String) {
        self.rewalk = true;
        self.candidate = None;
        self.withhold(device, reason, true);
    }

    /// A chain was walked; true when it may be used now. After a change, only a chain found
    /// the same on two walks in a row is.
    pub fn chain_found(&mut self, chain: &SunSpecChain) -> bool {
        if !self.rewalk {
            return true;
        }
        if self.candidate.as_ref() == Some(chain) {
            self.rewalk = false;
            self.candidate = None;
            return true;
        }
        self.candidate = Some(chain.clone());
        false
    }

    /// Counts a poll's decode failures; true when they make a burst (the poll's values are then
    /// withheld and the layout is to be re-walked).
    pub fn decode_burst(&mut self, device: &str, errors: usize, points: usize) -> bool {
        if !is_burst(errors, points) {
            self.burst_armed = true;
            return false;
        }
        if !self.burst_armed {
            return false;
        }
        self.burst_armed = false;
        self.rewalk = true;
        self.candidate = None;
        self.withhold(
            device,
            format!("decode errors: {errors} of {points} points in one poll"),
            true,
        );
        true
    }

    /// Compares the identity read in this poll with the one known; true when it holds.
    pub fn identity_holds(&mut self, device: &str, values: &BTreeMap<String, Value>) -> bool {
        let read: BTreeMap<String, Value> = IDENTITY
            .iter()
            .filter_map(|m| values.get(*m).map(|v| (m.to_string(), v.clone())))
            .collect();
        let Some(known) = &self.identity else {
            // First sight: what it reads now is its identity (the metrics absent now, e.g. not
            // implemented by this device, are not checked later).
            self.identity = Some(read);
            return true;
        };
        if let Some(metric) = known.keys().find(|m| !read.contains_key(*m)) {
            let reason = format!("identity unreadable: {metric} not read");
            self.withhold(device, reason, false);
            return false;
        }
        let read: BTreeMap<String, Value> = read.into_iter().filter(|(m, _)| known.contains_key(m)).collect();
        if &read == known {
            // The unit first seen (again, if another had replaced it for a while).
            self.identity_candidate = None;
            self.model_changed = false;
            return true;
        }
        if self.model_changed {
            return false;
        }
        let changed: Vec<String> = known
            .iter()
            .filter(|(m, v)| read.get(*m) != Some(*v))
            .map(|(m, v)| format!("{m} {} -> {}", text(Some(v)), text(read.get(m))))
            .collect();
        let reason = format!("identity changed: {}", changed.join(", "));
        if self.identity_candidate.as_ref() != Some(&read) {
            self.identity_candidate = Some(read);
            self.withhold(device, reason, true);
            return false;
        }
        // Read the same twice in a row.
        if known.get("model_name") != read.get("model_name") {
            self.model_changed = true;
            self.withhold(
                device,
                format!("{reason}; the map may not fit the new model: withheld until the configuration is loaded again"),
                false,
            );
            return false;
        }
        self.identity = Some(read);
        self.identity_candidate = None;
        true
    }

    /// Every check of this poll passed: values flow.
    pub fn confirmed(&mut self, device: &str) {
        if let Some(reason) = self.withheld.take() {
            tracing::info!(%device, was = %reason, "values confirmed, publishing again");
        }
    }

    /// Copies the state into the device's counters (the status message reads them there).
    pub fn report(&self, stats: &DeviceStats) {
        if let Ok(mut w) = stats.withheld.lock()
            && w.as_deref() != self.withheld.as_deref()
        {
            *w = self.withheld.clone();
        }
        stats.changes.store(self.changes, Ordering::Relaxed);
        if let Ok(mut l) = stats.last_change.lock()
            && l.as_deref() != self.last_change.as_deref()
        {
            *l = self.last_change.clone();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(serial: &str, model: &str) -> BTreeMap<String, Value> {
        BTreeMap::from([
            ("serial_number".to_string(), Value::Text(serial.into())),
            ("model_name".to_string(), Value::Text(model.into())),
            ("ac_power".to_string(), Value::Number(1.0)),
        ])
    }

    #[test]
    fn a_new_serial_is_adopted_once_read_twice_a_new_model_is_not() {
        let mut g = Guard::default();
        assert!(g.identity_holds("d", &id("A1", "M")));
        assert!(g.identity_holds("d", &id("A1", "M")));
        assert!(!g.identity_holds("d", &id("B2", "M")));
        assert!(
            g.withheld().unwrap().contains(r#"serial_number "A1" -> "B2""#),
            "{:?}",
            g.withheld()
        );
        assert!(
            g.identity_holds("d", &id("B2", "M")),
            "the same new serial twice: adopted"
        );
        g.confirmed("d");
        assert_eq!(g.withheld(), None);
        assert_eq!(g.changes, 1);

        assert!(!g.identity_holds("d", &id("B2", "N")));
        assert!(!g.identity_holds("d", &id("B2", "N")));
        assert!(
            !g.identity_holds("d", &id("B2", "N")),
            "a new model stays withheld"
        );
        assert!(g.withheld().unwrap().contains("configuration"));
        // Unreadable identity withholds too.
        let mut g = Guard::default();
        assert!(g.identity_holds("d", &id("A1", "M")));
        let mut partial = id("A1", "M");
        partial.remove("serial_number");
        assert!(!g.identity_holds("d", &partial));
        assert_eq!(g.withheld(), Some("identity unreadable: serial_number not read"));
        assert!(g.identity_holds("d", &id("A1", "M")));
    }

    #[test]
    fn after_a_change_a_chain_is_used_only_once_found_twice() {
        let mut g = Guard::default();
        let mut a = SunSpecChain::new();
        a.insert(1, (40002, 66));
        assert!(g.chain_found(&a), "first discovery is used at once");
        g.layout_changed("d", "layout changed".into());
        let mut b = SunSpecChain::new();
        b.insert(1, (2, 66));
        assert!(!g.chain_found(&b));
        assert!(!g.chain_found(&a), "a different chain starts over");
        assert!(g.chain_found(&a));
        assert_eq!(g.withheld(), Some("layout changed"), "until the poll confirms it");
    }

    #[test]
    fn a_burst_withholds_once_until_polls_decode_again() {
        let mut g = Guard::default();
        assert!(!g.decode_burst("d", 2, 10), "below the minimum");
        assert!(!g.decode_burst("d", 3, 50), "below the share");
        assert!(g.decode_burst("d", 5, 50));
        assert!(
            !g.decode_burst("d", 5, 50),
            "the same steady failures do not withhold again"
        );
        assert!(!g.decode_burst("d", 0, 50));
        assert!(g.decode_burst("d", 5, 50), "armed again");
    }
}
