//! A meter's cumulative counters turned into a report row per period, the pure part: energy is
//! the sum of the rollups' counter deltas (a counter that went down was reset or replaced and its
//! new reading counts, see `telemetry::rollup`), and every row also shows the readings it starts
//! and ends with, the resets found in it and the hours without any reading, so a reader can check
//! the figure against the meter's display and sees where it is incomplete.

use std::collections::BTreeMap;

use serde::Serialize;
use utoipa::ToSchema;

/// The counters a grid meter may have (Wh, or varh for the reactive ones).
pub const COUNTERS: [&str; 4] = [
    "energy_import",
    "energy_export",
    "reactive_energy_import",
    "reactive_energy_export",
];

/// A counter's statistics over one hour rollup: (min, max, last) reading.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Readings {
    pub min: f64,
    pub max: f64,
    pub last: f64,
}

/// One hour of a meter, from its hour rollup.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MeterHour {
    /// Epoch ms of the hour.
    pub bucket: i64,
    pub samples: i64,
    /// Counter deltas of the hour (Wh), by counter name (only the counters the meter has).
    pub deltas: BTreeMap<&'static str, f64>,
    pub readings: BTreeMap<&'static str, Readings>,
}

/// One counter over one report period.
#[derive(Debug, Clone, PartialEq, Default, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CounterLine {
    /// kWh (kvarh for reactive counters), the sum of deltas.
    pub energy: Option<f64>,
    /// First and last reading of the period (kWh / kvarh).
    pub start_reading: Option<f64>,
    pub end_reading: Option<f64>,
    /// Epoch ms of the hours where the counter went down (reset or meter replaced).
    pub resets: Vec<i64>,
}

/// A meter over one report period.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PeriodReadings {
    pub counters: BTreeMap<&'static str, CounterLine>,
    /// Hours of the period with no reading at all.
    pub missing_hours: i64,
}

/// Folds `hours` (sorted by bucket, possibly with holes) into one period of `expected_hours`
/// hours; `before` is the last reading of each counter before the period (to see a reset at
/// the period's first hour).
pub fn period(
    hours: &[&MeterHour],
    expected_hours: i64,
    before: &BTreeMap<&'static str, f64>,
) -> PeriodReadings {
    let mut out = PeriodReadings::default();
    let present = hours.iter().filter(|h| h.samples > 0).count() as i64;
    out.missing_hours = (expected_hours - present).max(0);
    for counter in COUNTERS {
        let mut line = CounterLine::default();
        let mut prev_last = before.get(counter).copied();
        let mut seen = false;
        let mut energy = 0.0;
        // Counters the rollups keep no deltas of (reactive energy): from the readings, a reset
        // counting the new reading as the rollups do.
        let mut from_readings = 0.0;
        let mut has_deltas = false;
        for h in hours {
            if let Some(d) = h.deltas.get(counter) {
                energy += d;
                seen = true;
                has_deltas = true;
            }
            let Some(r) = h.readings.get(counter) else {
                continue;
            };
            seen = true;
            // The period's first reading: the counter before its first delta. With a reading
            // before the period, that one; else this hour's minimum.
            if line.start_reading.is_none() {
                line.start_reading = Some(prev_last.unwrap_or(r.min) / 1000.0);
            }
            let went_down_inside = r.last < r.max - 1e-6;
            let went_down_at_start = prev_last.is_some_and(|p| r.min < p - 1e-6);
            if went_down_inside || went_down_at_start {
                line.resets.push(h.bucket);
                from_readings += r.last;
            } else {
                from_readings += r.last - prev_last.unwrap_or(r.min);
            }
            line.end_reading = Some(r.last / 1000.0);
            prev_last = Some(r.last);
        }
        if seen {
            let wh = if has_deltas { energy } else { from_readings };
            line.energy = Some(wh / 1000.0);
            out.counters.insert(counter, line);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const H: i64 = 3_600_000;

    fn hour(n: i64, import: Option<(f64, f64, f64, f64)>) -> MeterHour {
        let mut h = MeterHour {
            bucket: n * H,
            samples: i64::from(import.is_some()) * 12,
            ..MeterHour::default()
        };
        if let Some((delta, min, max, last)) = import {
            h.deltas.insert("energy_import", delta);
            h.readings.insert("energy_import", Readings { min, max, last });
        }
        h
    }

    #[test]
    fn a_counter_reset_inside_the_month_is_counted_and_shown() {
        // Readings 1 000 000 → 1 010 000 Wh, a meter swap to 0 in hour 2 (the rollup counts
        // the new meter's 3 000 Wh), then 3 000 → 8 000; hour 3 has no reading.
        let hours = [
            hour(0, Some((4_000.0, 1_000_000.0, 1_004_000.0, 1_004_000.0))),
            hour(1, Some((6_000.0, 1_004_000.0, 1_010_000.0, 1_010_000.0))),
            hour(2, Some((3_000.0, 0.0, 1_010_000.0, 3_000.0))),
            hour(3, None),
            hour(4, Some((5_000.0, 3_000.0, 8_000.0, 8_000.0))),
        ];
        let refs: Vec<&MeterHour> = hours.iter().collect();
        let before = BTreeMap::from([("energy_import", 1_000_000.0)]);
        let p = period(&refs, 5, &before);
        let line = &p.counters["energy_import"];
        assert_eq!(line.energy, Some(18.0));
        assert_eq!(line.start_reading, Some(1_000.0));
        assert_eq!(line.end_reading, Some(8.0));
        assert_eq!(line.resets, vec![2 * H]);
        assert_eq!(p.missing_hours, 1);
        assert!(!p.counters.contains_key("energy_export"));
    }

    #[test]
    fn a_reset_between_hours_is_seen_against_the_reading_before() {
        let hours = [hour(7, Some((2_000.0, 500.0, 2_000.0, 2_000.0)))];
        let refs: Vec<&MeterHour> = hours.iter().collect();
        let p = period(&refs, 1, &BTreeMap::from([("energy_import", 90_000.0)]));
        assert_eq!(p.counters["energy_import"].resets, vec![7 * H]);
        let p = period(&refs, 1, &BTreeMap::new());
        assert!(p.counters["energy_import"].resets.is_empty());
        assert_eq!(p.counters["energy_import"].start_reading, Some(0.5));
        // A counter without rollup deltas (reactive energy) is measured from its readings.
        let mut h = hour(8, None);
        h.samples = 12;
        h.readings.insert(
            "reactive_energy_import",
            Readings {
                min: 1_000.0,
                max: 1_500.0,
                last: 1_500.0,
            },
        );
        let p = period(&[&h], 1, &BTreeMap::from([("reactive_energy_import", 900.0)]));
        assert_eq!(p.counters["reactive_energy_import"].energy, Some(0.6));
    }
}
