//! Alarm evaluation without a database, for the benchmark of evaluation cost
//! (`bench/src/bin/alarm_eval.rs`): the evaluators and the debounce the engine runs per sample.

use std::collections::{BTreeMap, HashMap};

use pv_shared::wire::Value;

use super::debounce::{Action, Debounce};
use super::faults::FaultIndex;
use super::threshold_settings::Settings;
use super::thresholds;

/// Per-device debounce over the fault tables and the default thresholds.
pub struct Bench {
    pub faults: FaultIndex,
    pub settings: Settings,
    devices: HashMap<i64, Debounce>,
    actions: Vec<Action>,
}

impl Bench {
    pub fn new(faults: FaultIndex) -> Bench {
        Bench {
            faults,
            settings: Settings::default(),
            devices: HashMap::new(),
            actions: Vec::new(),
        }
    }

    /// One sample through fault tables, thresholds and debounce; returns the actions count.
    pub fn sample(
        &mut self,
        device_id: i64,
        map: Option<&str>,
        ts: i64,
        values: &BTreeMap<String, Value>,
    ) -> usize {
        let mut present = Vec::new();
        self.faults.conditions(map, values, &mut present);
        thresholds::conditions(&self.settings, values, Some(800.0), &mut present);
        self.actions.clear();
        self.devices.entry(device_id).or_default().step(
            ts,
            present,
            self.settings.raise_after_samples as u32,
            self.settings.clear_hold_ms(),
            &mut self.actions,
        );
        self.actions.len()
    }
}
