//! Energy conservation and emission reduction (节能减排) from generated energy: standard coal
//! saved, CO2, SO2, NOx and dust avoided, and the trees that would absorb as much CO2. The
//! coefficients are tenant settings (`report::settings`) whose defaults and sources are in
//! `docs/reports.md`, "Energy conservation"; every answer carries the coefficients it used.

use serde::Serialize;
use utoipa::ToSchema;

use super::settings::ReportSetting;

#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Savings {
    pub energy_kwh: f64,
    /// Standard coal saved, t.
    pub coal_t: f64,
    /// t avoided.
    pub co2_t: f64,
    pub so2_t: f64,
    pub nox_t: f64,
    pub dust_t: f64,
    /// Trees absorbing the same CO2 in a year.
    pub trees: f64,
}

/// The savings of `energy_kwh` with the setting's coefficients (kg per kWh; kg CO2 per tree
/// and year).
pub fn savings(energy_kwh: f64, s: &ReportSetting) -> Savings {
    let t = |kg_per_kwh: f64| energy_kwh * kg_per_kwh / 1000.0;
    let co2_kg = energy_kwh * s.co2_kg_per_kwh;
    Savings {
        energy_kwh,
        coal_t: t(s.coal_kg_per_kwh),
        co2_t: t(s.co2_kg_per_kwh),
        so2_t: t(s.so2_kg_per_kwh),
        nox_t: t(s.nox_kg_per_kwh),
        dust_t: t(s.dust_kg_per_kwh),
        trees: if s.co2_kg_per_tree > 0.0 {
            co2_kg / s.co2_kg_per_tree
        } else {
            0.0
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ten_megawatt_hours_with_the_default_coefficients() {
        let s = savings(10_000.0, &ReportSetting::default());
        assert!((s.coal_t - 4.0).abs() < 1e-9);
        assert!((s.co2_t - 9.97).abs() < 1e-9);
        assert!((s.so2_t - 0.3).abs() < 1e-9);
        assert!((s.nox_t - 0.15).abs() < 1e-9);
        assert!((s.dust_t - 2.72).abs() < 1e-9);
        assert!((s.trees - 9_970.0 / 18.3).abs() < 1e-9);
    }
}
