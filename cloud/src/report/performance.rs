//! Performance ratio, expected energy and availability (IEC 61724-1), the pure arithmetic over
//! rollup intervals (an hour or five minutes each). Formulas and sources: `docs/reports.md`,
//! "Performance".
//!
//! - Final yield Y_f = E / P0 (kWh/kWp), reference yield Y_r = H_POA / G_STC (h, G_STC = 1 kW/m²);
//!   **PR = Y_f / Y_r** ("IEC 61724-1 PR").
//! - **Temperature-corrected PR**: each interval's reference energy is rated at the module
//!   temperature of that interval, PR_T = E / Σ P0 · (H_k / G_STC) · (1 + γ (T_mod,k − 25 °C)),
//!   γ the module power temperature coefficient (per K, negative).
//! - **Expected energy** = Σ P0 · (H_k / G_STC) · (1 + γ (T_mod,k − 25)) · PR_design.
//! - **Availability** = intervals producing / intervals with irradiance ≥ the threshold.
//!
//! Only intervals where both the energy and the irradiation were measured over the whole
//! interval count (the irradiation must cover at least 90 % of it), so a communication gap or
//! a weather station's first samples neither lower nor raise PR; intervals with an implausible value (irradiance,
//! module temperature or energy outside physical bounds) are left out and counted.

use pv_shared::metrics;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Energy above P0 × hours × this is not physically produced by the array.
pub const MAX_ENERGY_FACTOR: f64 = 1.5;
/// Share of an interval the irradiation must cover to count: H ≥ this × mean irradiance ×
/// the interval's hours. Below, the weather station measured only part of the interval (its
/// first samples, a gap) while the counters measured all of it, and PR would read too high.
pub const MIN_IRRADIATION_COVERAGE: f64 = 0.9;

/// Tenant settings of the performance figures (`pv_alarm_rule` key `report`, with the bill's
/// and the savings' coefficients; see `report::settings`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct PerformanceSetting {
    /// γ, %/K (default −0.40 for crystalline silicon).
    pub temperature_coefficient_pct: f64,
    /// PR the expected energy assumes (default 0.80).
    pub design_pr: f64,
    /// Irradiance from which a plant is expected to produce (W/m², default 50).
    pub availability_threshold: f64,
}

impl Default for PerformanceSetting {
    fn default() -> Self {
        PerformanceSetting {
            temperature_coefficient_pct: -0.40,
            design_pr: 0.80,
            availability_threshold: 50.0,
        }
    }
}

/// One interval's measurements for one unit (a station or an inverter).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Sample {
    pub hours: f64,
    /// Energy generated, Wh.
    pub energy_wh: Option<f64>,
    /// Plane-of-array irradiation, Wh/m².
    pub irradiation_wh_m2: Option<f64>,
    /// Mean irradiance, W/m².
    pub irradiance: Option<f64>,
    /// Mean module temperature, °C.
    pub module_temp: Option<f64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Performance {
    /// The counted energy of every interval (kWh), as the generation report, the bill and every
    /// page show it, the intervals PR leaves out included; null when no interval carried energy.
    pub energy_kwh: Option<f64>,
    /// kWh of the intervals PR counts (energy and irradiation measured, plausible): the
    /// numerator of PR and the final yield.
    pub pr_energy_kwh: f64,
    /// kWh/m² of plane-of-array irradiation over the same intervals.
    pub irradiation_kwh_m2: f64,
    /// Y_f, h.
    pub final_yield: Option<f64>,
    /// Y_r, h.
    pub reference_yield: Option<f64>,
    /// IEC 61724-1 PR, 0..1.
    pub pr: Option<f64>,
    /// Temperature-corrected PR; absent without module temperature in every counted interval.
    pub pr_temperature_corrected: Option<f64>,
    /// kWh the array should have made from the measured irradiance at the design PR.
    pub expected_energy_kwh: Option<f64>,
    /// Intervals producing / intervals at or above the availability threshold, 0..1.
    pub availability: Option<f64>,
    pub counted_intervals: usize,
    /// Left out: a value outside physical bounds.
    pub implausible_intervals: usize,
    /// Left out: energy or irradiation not measured.
    pub missing_intervals: usize,
}

/// The interval's aggregates against the metrics' plausible ranges (`pv_shared::metrics`, the
/// same table that marks single values at the gateway and at ingest; marked values never reach
/// the rollups) and the energy against what the array can make.
fn plausible(s: &Sample, p0_kwp: f64) -> bool {
    let g_ok = s
        .irradiance
        .is_none_or(|g| metrics::plausible("irradiance_poa", g));
    let h_ok = s.irradiation_wh_m2.is_none_or(|h| {
        metrics::plausible_range("irradiance_poa")
            .is_none_or(|(lo, hi)| h >= lo * s.hours && h <= hi * s.hours)
    });
    let t_ok = s
        .module_temp
        .is_none_or(|t| metrics::plausible("module_temperature", t));
    let e_ok = s
        .energy_wh
        .is_none_or(|e| e >= 0.0 && e <= p0_kwp * 1000.0 * s.hours * MAX_ENERGY_FACTOR);
    g_ok && h_ok && t_ok && e_ok
}

/// Whether the irradiation covers the whole interval (see [`MIN_IRRADIATION_COVERAGE`]); an
/// interval without irradiance (night) or without a mean irradiance to compare is covered.
fn covered(s: &Sample) -> bool {
    match (s.irradiance, s.irradiation_wh_m2) {
        (Some(g), Some(h)) if g > 0.0 => h >= MIN_IRRADIATION_COVERAGE * g * s.hours,
        _ => true,
    }
}

/// The performance of a unit of `p0_kwp` over `samples`.
pub fn performance(samples: &[Sample], p0_kwp: Option<f64>, setting: &PerformanceSetting) -> Performance {
    let mut out = Performance {
        energy_kwh: samples
            .iter()
            .filter_map(|s| s.energy_wh)
            .reduce(|a, b| a + b)
            .map(|wh| wh / 1000.0),
        ..Performance::default()
    };
    let Some(p0) = p0_kwp.filter(|p| *p > 0.0) else {
        out.missing_intervals = samples.len();
        return out;
    };
    let gamma = setting.temperature_coefficient_pct / 100.0;
    let mut energy = 0.0;
    let mut irradiation = 0.0;
    let mut corrected_ref = 0.0;
    let mut all_have_temp = true;
    let (mut eligible, mut producing) = (0usize, 0usize);
    for s in samples {
        if !plausible(s, p0) {
            out.implausible_intervals += 1;
            continue;
        }
        if let Some(g) = s.irradiance
            && g >= setting.availability_threshold
            && s.energy_wh.is_some()
        {
            eligible += 1;
            if s.energy_wh.is_some_and(|e| e > 0.0) {
                producing += 1;
            }
        }
        let (Some(e), Some(h)) = (s.energy_wh, s.irradiation_wh_m2) else {
            out.missing_intervals += 1;
            continue;
        };
        if !covered(s) {
            out.missing_intervals += 1;
            continue;
        }
        out.counted_intervals += 1;
        energy += e / 1000.0;
        let h = h.max(0.0) / 1000.0;
        irradiation += h;
        match s.module_temp {
            Some(t) => corrected_ref += p0 * h * (1.0 + gamma * (t - 25.0)),
            None => all_have_temp = false,
        }
    }
    out.pr_energy_kwh = energy;
    out.irradiation_kwh_m2 = irradiation;
    if out.counted_intervals > 0 {
        out.final_yield = Some(energy / p0);
        out.reference_yield = Some(irradiation);
        if irradiation > 0.0 {
            out.pr = Some(energy / p0 / irradiation);
        }
        let reference = if all_have_temp {
            corrected_ref
        } else {
            p0 * irradiation
        };
        out.expected_energy_kwh = Some(reference * setting.design_pr);
        if all_have_temp && corrected_ref > 0.0 {
            out.pr_temperature_corrected = Some(energy / corrected_ref);
        }
    }
    if eligible > 0 {
        out.availability = Some(producing as f64 / eligible as f64);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: Option<f64>, b: f64) -> bool {
        a.is_some_and(|a| (a - b).abs() < 1e-9)
    }

    fn hour(e_wh: f64, h_wh_m2: f64, t: f64) -> Sample {
        Sample {
            hours: 1.0,
            energy_wh: Some(e_wh),
            irradiation_wh_m2: Some(h_wh_m2),
            irradiance: Some(h_wh_m2),
            module_temp: Some(t),
        }
    }

    /// A hand-made day of a 100 kWp array: 08-09 h 200 Wh/m² at 20 °C making 17 kWh,
    /// 11-12 h 800 Wh/m² at 50 °C making 64 kWh, 15-16 h 400 Wh/m² at 40 °C making 32 kWh,
    /// and a night hour (0 Wh/m², 0 kWh).
    fn day() -> Vec<Sample> {
        vec![
            hour(0.0, 0.0, 10.0),
            hour(17_000.0, 200.0, 20.0),
            hour(64_000.0, 800.0, 50.0),
            hour(32_000.0, 400.0, 40.0),
        ]
    }

    #[test]
    fn pr_and_temperature_corrected_pr_of_a_hand_made_day() {
        let p = performance(&day(), Some(100.0), &PerformanceSetting::default());
        // E = 113 kWh, H = 1.4 kWh/m², Y_f = 1.13 h, Y_r = 1.4 h, PR = 0.807142857...
        assert!((p.pr_energy_kwh - 113.0).abs() < 1e-9);
        assert!(close(p.energy_kwh, 113.0));
        assert!(close(p.final_yield, 1.13));
        assert!(close(p.reference_yield, 1.4));
        assert!(close(p.pr, 113.0 / 140.0));
        // Rated at module temperature (γ = −0.4 %/K):
        // 100·0.2·(1+0.02) + 100·0.8·(1−0.10) + 100·0.4·(1−0.06) = 20.4 + 72 + 37.6 = 130 kWh
        assert!(close(p.pr_temperature_corrected, 113.0 / 130.0));
        assert!(close(p.expected_energy_kwh, 130.0 * 0.8));
        // Irradiance ≥ 50 W/m² in 3 hours, all producing.
        assert!(close(p.availability, 1.0));
        assert_eq!(p.counted_intervals, 4);
    }

    #[test]
    fn implausible_and_missing_intervals_are_left_out_and_counted() {
        let mut d = day();
        // A sensor spike, a module temperature of 150 °C, and an hour without the meter.
        d.push(hour(10_000.0, 2_500.0, 30.0));
        d.push(hour(10_000.0, 300.0, 150.0));
        d.push(Sample {
            energy_wh: None,
            ..hour(0.0, 300.0, 30.0)
        });
        // An energy more than the array can make (100 kWp × 1 h × 1.5).
        d.push(hour(200_000.0, 900.0, 30.0));
        let p = performance(&d, Some(100.0), &PerformanceSetting::default());
        assert!(close(p.pr, 113.0 / 140.0));
        // PR counts 113 kWh; the energy column counts every interval's energy, as every page.
        assert!((p.pr_energy_kwh - 113.0).abs() < 1e-9);
        assert!(close(p.energy_kwh, 113.0 + 10.0 + 10.0 + 200.0));
        assert_eq!(p.implausible_intervals, 3);
        assert_eq!(p.missing_intervals, 1);
        assert_eq!(p.counted_intervals, 4);
    }

    #[test]
    fn an_interval_the_irradiation_covers_only_in_part_is_left_out() {
        let mut d = day();
        // The weather station's first hour: its samples start at 12:45, so the hour's 800 W/m²
        // mean integrates to 200 Wh/m² only, while the counters measured the whole hour's
        // 70 kWh; counted, that hour alone reads PR = 70 / 100 / 0.2 = 3.5.
        d.push(Sample {
            hours: 1.0,
            energy_wh: Some(70_000.0),
            irradiation_wh_m2: Some(200.0),
            irradiance: Some(800.0),
            module_temp: Some(45.0),
        });
        // 11 of 12 five-minute segments (91.7 %) still count.
        d.push(hour(0.0, 0.0, 10.0));
        let p = performance(&d, Some(100.0), &PerformanceSetting::default());
        assert!(close(p.pr, 113.0 / 140.0));
        assert_eq!(p.missing_intervals, 1);
        assert_eq!(p.counted_intervals, 5);
        let mut eleven = day();
        eleven.push(Sample {
            irradiance: Some(500.0),
            ..hour(40_000.0, 458.0, 45.0)
        });
        let p = performance(&eleven, Some(100.0), &PerformanceSetting::default());
        assert_eq!(p.counted_intervals, 5);
        assert!(p.pr.is_some_and(|pr| pr < 1.0));
    }

    #[test]
    fn availability_counts_hours_in_the_sun_without_production() {
        let mut d = day();
        d.push(hour(0.0, 600.0, 30.0));
        let p = performance(&d, Some(100.0), &PerformanceSetting::default());
        assert!(close(p.availability, 0.75));
        // Without module temperature somewhere, no corrected PR (never a half-corrected one).
        let mut d = day();
        d[2].module_temp = None;
        let p = performance(&d, Some(100.0), &PerformanceSetting::default());
        assert_eq!(p.pr_temperature_corrected, None);
        assert!(close(p.expected_energy_kwh, 140.0 * 0.8));
        assert_eq!(performance(&day(), None, &PerformanceSetting::default()).pr, None);
        // No interval with energy: no energy (null), never 0.
        assert_eq!(
            performance(&[], Some(100.0), &PerformanceSetting::default()).energy_kwh,
            None
        );
    }
}
