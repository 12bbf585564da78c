//! The newest irradiance of each station, as the engine sees weather samples go by: the
//! zero-output threshold compares an inverter's AC output with the sun at its site.

use std::collections::{BTreeMap, HashMap};

use pv_shared::wire::Value;

use crate::telemetry::realtime::{KIND_WEATHER, RealtimeView};

/// A weather reading older than this (sample time) says nothing about the sun now.
const MAX_AGE_MS: i64 = 15 * 60 * 1000;

/// Newest irradiance per station: (sample time, W/m²).
#[derive(Debug, Default)]
pub struct Irradiance {
    stations: HashMap<i64, (i64, f64)>,
}

impl Irradiance {
    /// Takes the irradiance of a weather sample, unless a newer one is known.
    pub fn observe(&mut self, station_id: i64, ts: i64, values: &BTreeMap<String, Value>) {
        let Some(g) = irradiance_of(values) else {
            return;
        };
        self.stations
            .entry(station_id)
            .and_modify(|e| {
                if e.0 <= ts {
                    *e = (ts, g)
                }
            })
            .or_insert((ts, g));
    }

    /// The station's irradiance near sample time `ts`, if a reading that recent is known.
    pub fn at(&mut self, realtime: &RealtimeView, station_id: i64, ts: i64) -> Option<f64> {
        let (at, g) = *self.stations.entry(station_id).or_insert_with(|| {
            // Not seen since start: what the realtime view holds.
            realtime
                .station(station_id)
                .into_iter()
                .filter(|d| d.kind == KIND_WEATHER && d.online)
                .find_map(|d| Some((d.ts, irradiance_of(&d.values)?)))
                .unwrap_or((i64::MIN / 2, 0.0))
        });
        ((ts - at).abs() <= MAX_AGE_MS).then_some(g)
    }
}

fn irradiance_of(values: &BTreeMap<String, Value>) -> Option<f64> {
    ["irradiance_poa", "irradiance_ghi"]
        .iter()
        .find_map(|k| match values.get(*k) {
            Some(Value::Number(n)) if n.is_finite() => Some(*n),
            _ => None,
        })
}
