//! Equivalent full-load hours (等效满发小时数, specific yield) and their deviation, the pure
//! formulas (pv-domain.md, "Quantities"; IEC 61724-1 calls h = E / P0 the final yield Y_f).
//!
//! - h = E / P0 (kWh / kWp = h), E the energy the inverters' counters counted over the period;
//! - P0 of a station: its component capacity (kWp, DC); of an inverter: its modules × the
//!   station's module rating (component capacity / component count) when both are known, else
//!   its rated power (kW, AC) — see [`inverter_p0_kwp`];
//! - deviation = (h − h_ref) / h_ref × 100 %, h_ref the mean h of the comparable units that
//!   have data (stations: the caller's visible stations; inverters: their station's inverters);
//! - flagged when the deviation is below the threshold (default −10 %);
//! - warned about only with enough evidence: see [`covered_days`].

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::dispersion::Invalid;

/// Tenant setting of the full-load-hours deviation (`pv_alarm_rule` key `hday`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
#[schema(as = HoursSetting)]
pub struct Setting {
    /// Flag a unit whose deviation is below this (%), negative; default −10.
    pub threshold_pct: f64,
    /// Days the warning job compares (the last complete days, yesterday included), and the
    /// pages' default range; default 3.
    pub min_days: i64,
}

impl Default for Setting {
    fn default() -> Self {
        Setting {
            threshold_pct: -10.0,
            min_days: 3,
        }
    }
}

impl Setting {
    /// −100 < threshold < 0, 1 ≤ minDays ≤ 31.
    pub fn validate(&self) -> Result<(), Invalid> {
        if !self.threshold_pct.is_finite() || self.threshold_pct <= -100.0 || self.threshold_pct >= 0.0 {
            return Err(Invalid {
                zh: "偏差阈值须为-100到0之间的负数（%）".into(),
                en: "The deviation threshold must be a negative percentage above -100".into(),
            });
        }
        if !(1..=31).contains(&self.min_days) {
            return Err(Invalid {
                zh: "统计天数须为1到31之间的整数".into(),
                en: "Days must be a whole number from 1 to 31".into(),
            });
        }
        Ok(())
    }
}

/// The evidence a warning needs (a figure over a few minutes of data says nothing about a
/// day): a day counts when the unit's samples cover at least [`MIN_DAYLIGHT_HOURS`] of the
/// [`DAYLIGHT_HOURS`] hours from [`DAYLIGHT_FROM_MS`] on the station's clock (an hour is covered
/// when it has an hour rollup row, i.e. at least one sample), and a unit is warned about only
/// when every one of the `minDays` days counts. Coverage, not production: a station that produced
/// nothing all day (a tripped breaker) has its evidence and is warned about.
pub const DAYLIGHT_FROM_MS: i64 = 8 * HOUR_MS;
pub const DAYLIGHT_HOURS: i64 = 8;
pub const MIN_DAYLIGHT_HOURS: usize = 6;
const HOUR_MS: i64 = 3_600_000;
const DAY_MS: i64 = 86_400_000;

/// How many of the `days` local days starting at `first_midnight` (epoch ms) are covered, given
/// the starts of the hour buckets that have data.
pub fn covered_days(hour_buckets: &std::collections::BTreeSet<i64>, first_midnight: i64, days: i64) -> i64 {
    (0..days.max(0))
        .filter(|d| {
            let from = first_midnight + d * DAY_MS + DAYLIGHT_FROM_MS;
            hour_buckets.range(from..from + DAYLIGHT_HOURS * HOUR_MS).count() >= MIN_DAYLIGHT_HOURS
        })
        .count() as i64
}

/// h = E / P0; `None` without a positive P0 or without energy.
pub fn hours(energy_kwh: Option<f64>, p0_kwp: Option<f64>) -> Option<f64> {
    match (energy_kwh, p0_kwp) {
        (Some(e), Some(p)) if p > 0.0 && e.is_finite() => Some(e / p),
        _ => None,
    }
}

/// The mean of the units' hours that exist; `None` when none does.
pub fn reference(hours: &[Option<f64>]) -> Option<f64> {
    let v: Vec<f64> = hours.iter().flatten().copied().collect();
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

/// (h − h_ref) / h_ref × 100; `None` without both or with h_ref ≤ 0 (nobody produced).
pub fn deviation_pct(h: Option<f64>, h_ref: Option<f64>) -> Option<f64> {
    match (h, h_ref) {
        (Some(h), Some(r)) if r > 0.0 => Some((h - r) / r * 100.0),
        _ => None,
    }
}

/// Below the (negative) threshold.
pub fn flagged(deviation_pct: Option<f64>, threshold_pct: f64) -> bool {
    deviation_pct.is_some_and(|d| d < threshold_pct)
}

/// P0 of an inverter, kWp: Σ modules × module Wp / 1000 when the registry lists its modules
/// and the station declares a module rating (component capacity / component count), else its
/// rated power (kW AC). AC rating is the only size some registries give (central inverters
/// behind combiners); it understates the DC array by the DC/AC ratio, but every inverter of a
/// station is compared with the others of the same station, so the choice is documented rather
/// than hidden (docs/analytics.md).
pub fn inverter_p0_kwp(
    modules: Option<&[u32]>,
    module_wp: Option<f64>,
    rated_kw: Option<f64>,
) -> Option<f64> {
    let total: Option<u32> = modules.map(|m| m.iter().sum()).filter(|t| *t > 0);
    match (total, module_wp.filter(|w| *w > 0.0 && w.is_finite())) {
        (Some(n), Some(wp)) => Some(f64::from(n) * wp / 1000.0),
        _ => rated_kw.filter(|r| *r > 0.0 && r.is_finite()),
    }
}

/// Module rating of a station (Wp): component capacity (kWp) × 1000 / component count.
pub fn module_wp(component_capacity_kwp: Option<f64>, component_count: Option<i64>) -> Option<f64> {
    match (component_capacity_kwp, component_count) {
        (Some(c), Some(n)) if c > 0.0 && n > 0 => Some(c * 1000.0 / n as f64),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) {
        assert!((a - b).abs() < 1e-9, "{a} != {b}");
    }

    #[test]
    fn hours_and_deviation_by_hand() {
        // Stations of 100 kWp with 450 kWh and 50 kWp with 180 kWh: h = 4.5 and 3.6,
        // h_ref = 4.05, deviations +11.111 % and −11.111 %: the second is flagged at −10 %.
        let a = hours(Some(450.0), Some(100.0));
        let b = hours(Some(180.0), Some(50.0));
        close(a.unwrap(), 4.5);
        close(b.unwrap(), 3.6);
        let r = reference(&[a, b, None]);
        close(r.unwrap(), 4.05);
        let db = deviation_pct(b, r).unwrap();
        close(db, (3.6 - 4.05) / 4.05 * 100.0);
        close(db, -11.111_111_111_111_11);
        assert!(flagged(Some(db), -10.0));
        assert!(!flagged(deviation_pct(a, r), -10.0));
        assert!(!flagged(Some(-10.0), -10.0), "strictly below");
        assert_eq!(hours(Some(1.0), Some(0.0)), None);
        assert_eq!(hours(None, Some(10.0)), None);
        assert_eq!(deviation_pct(Some(1.0), Some(0.0)), None);
        assert_eq!(reference(&[None]), None);
    }

    #[test]
    fn inverter_capacity_from_modules_or_rating() {
        // 12 strings × 19 modules of 555 Wp = 126.54 kWp.
        let m = vec![19u32; 12];
        close(
            inverter_p0_kwp(Some(&m), Some(555.0), Some(110.0)).unwrap(),
            126.54,
        );
        close(inverter_p0_kwp(None, Some(555.0), Some(110.0)).unwrap(), 110.0);
        close(inverter_p0_kwp(Some(&m), None, Some(110.0)).unwrap(), 110.0);
        assert_eq!(inverter_p0_kwp(None, None, None), None);
        close(module_wp(Some(126.54), Some(228)).unwrap(), 555.0);
        assert_eq!(module_wp(Some(100.0), Some(0)), None);
    }

    #[test]
    fn a_day_counts_with_six_of_its_eight_daylight_hours_covered() {
        use std::collections::BTreeSet;
        let m = 1_772_294_400_000; // a local midnight
        let hours = |day: i64, hs: &[i64]| -> Vec<i64> {
            hs.iter().map(|h| m + day * DAY_MS + h * HOUR_MS).collect()
        };
        // Day 0: 08:00-13:00 (6 hours); day 1: 10 minutes of data at 12:00 (one hour bucket);
        // day 2: 6 hours but two of them outside 08:00-16:00.
        let mut b: BTreeSet<i64> = BTreeSet::new();
        b.extend(hours(0, &[8, 9, 10, 11, 12, 13]));
        b.extend(hours(1, &[12]));
        b.extend(hours(2, &[6, 7, 8, 9, 10, 11, 16]));
        assert_eq!(covered_days(&b, m, 1), 1);
        assert_eq!(covered_days(&b, m, 3), 1);
        assert_eq!(covered_days(&b, m + DAY_MS, 1), 0, "10 minutes are no day");
        assert_eq!(
            covered_days(&b, m + 2 * DAY_MS, 1),
            0,
            "4 daylight hours are not enough"
        );
        b.extend(hours(2, &[12, 15]));
        assert_eq!(covered_days(&b, m, 3), 2);
        // Buckets on a half-hour clock (+05:30) count within the window just the same.
        let half: BTreeSet<i64> = (0..8)
            .map(|h| m + DAYLIGHT_FROM_MS + 1_800_000 + h * HOUR_MS)
            .collect();
        assert_eq!(covered_days(&half, m, 1), 1);
        assert_eq!(covered_days(&BTreeSet::new(), m, 0), 0);
    }

    #[test]
    fn setting_validation() {
        assert!(Setting::default().validate().is_ok());
        for (t, d) in [
            (0.0, 3),
            (5.0, 3),
            (-100.0, 3),
            (-10.0, 0),
            (-10.0, 32),
            (f64::NAN, 3),
        ] {
            let s = Setting {
                threshold_pct: t,
                min_days: d,
            };
            assert!(s.validate().is_err(), "{t} {d}");
        }
    }
}
