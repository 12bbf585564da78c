//! Counters of values marked suspect (outside their metric's plausible range), per device and
//! metric since the agent started; the status message carries them. The marking itself happens
//! where samples enter the queue (`Sample::mark_implausible`), so no path around it exists.

use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;

use pv_shared::metrics;
use pv_shared::wire::Value;

#[derive(Debug, Default)]
pub struct QualityCounters {
    by_device: Mutex<HashMap<String, BTreeMap<String, u64>>>,
}

impl QualityCounters {
    /// Counts the values of one reading that will be marked.
    pub fn record(&self, device: &str, values: &BTreeMap<String, Value>) {
        let bad = values.iter().filter_map(|(k, v)| match v {
            Value::Number(x) if !metrics::plausible(k, *x) => Some(k),
            _ => None,
        });
        let mut bad = bad.peekable();
        if bad.peek().is_none() {
            return;
        }
        let Ok(mut all) = self.by_device.lock() else {
            return;
        };
        let counts = all.entry(device.to_string()).or_default();
        for k in bad {
            *counts.entry(k.clone()).or_default() += 1;
        }
    }

    /// The counts of one device (empty when none of its values was marked).
    pub fn of(&self, device: &str) -> BTreeMap<String, u64> {
        self.by_device
            .lock()
            .ok()
            .and_then(|all| all.get(device).cloned())
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_implausible_values_are_counted_per_device_and_metric() {
        let q = QualityCounters::default();
        let reading = |pf: f64| {
            BTreeMap::from([
                ("power_factor".to_string(), Value::Number(pf)),
                ("ac_power".to_string(), Value::Number(1_000.0)),
                ("serial_number".to_string(), Value::Text("SN".into())),
            ])
        };
        q.record("inv-1", &reading(0.99));
        assert!(q.of("inv-1").is_empty());
        q.record("inv-1", &reading(-20.7));
        q.record("inv-1", &reading(f64::NAN));
        assert_eq!(q.of("inv-1"), BTreeMap::from([("power_factor".to_string(), 2)]));
        assert!(q.of("inv-2").is_empty());
    }
}
