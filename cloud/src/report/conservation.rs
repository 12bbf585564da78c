//! Energy conservation and emission reduction (节能减排) from generated energy: standard coal
//! saved, CO2, SO2, NOx and dust avoided, and the trees that would absorb as much CO2 in a year.
//! The coefficients are system parameters (`blade_param`, keys below) over the defaults
//! commonly used in China's PV reporting; the home page and the reports read the same ones and
//! every answer carries the coefficients it used. Sources: `docs/reports.md`, "Energy
//! conservation".

use serde::Serialize;
use utoipa::ToSchema;

use crate::kernel::sql::Sql;
use crate::kernel::{ApiError, Core};

/// (parameter key, default): kg per kWh generated.
pub const COAL_KG_PER_KWH: (&str, f64) = ("energy.coalKgPerKwh", 0.4);
pub const CO2_KG_PER_KWH: (&str, f64) = ("energy.co2KgPerKwh", 0.997);
pub const SO2_KG_PER_KWH: (&str, f64) = ("energy.so2KgPerKwh", 0.03);
pub const NOX_KG_PER_KWH: (&str, f64) = ("energy.noxKgPerKwh", 0.015);
pub const DUST_KG_PER_KWH: (&str, f64) = ("energy.dustKgPerKwh", 0.272);
/// kg of CO2 one tree absorbs in a year (as Chinese PV portals count it).
pub const CO2_KG_PER_TREE: (&str, f64) = ("energy.co2KgPerTree", 18.3);

const ALL: [(&str, f64); 6] = [
    COAL_KG_PER_KWH,
    CO2_KG_PER_KWH,
    SO2_KG_PER_KWH,
    NOX_KG_PER_KWH,
    DUST_KG_PER_KWH,
    CO2_KG_PER_TREE,
];

/// The coefficients in use.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Factors {
    /// Standard coal saved per kWh generated, kg.
    pub coal_kg_per_kwh: f64,
    /// CO2 avoided per kWh generated, kg.
    pub co2_kg_per_kwh: f64,
    pub so2_kg_per_kwh: f64,
    pub nox_kg_per_kwh: f64,
    pub dust_kg_per_kwh: f64,
    /// CO2 one tree absorbs per year, kg (trees equivalent = CO2 avoided / this).
    pub co2_kg_per_tree: f64,
}

impl Default for Factors {
    fn default() -> Self {
        Factors {
            coal_kg_per_kwh: COAL_KG_PER_KWH.1,
            co2_kg_per_kwh: CO2_KG_PER_KWH.1,
            so2_kg_per_kwh: SO2_KG_PER_KWH.1,
            nox_kg_per_kwh: NOX_KG_PER_KWH.1,
            dust_kg_per_kwh: DUST_KG_PER_KWH.1,
            co2_kg_per_tree: CO2_KG_PER_TREE.1,
        }
    }
}

/// The coefficients: system parameters over the defaults (one query). A value that is not a
/// positive number is ignored (and logged), so a typo cannot zero a page.
pub async fn factors(core: &Core) -> Result<Factors, ApiError> {
    let mut sql = Sql::default();
    sql.push_bind(
        "SELECT param_key, param_value FROM blade_param WHERE is_deleted = 0 AND param_key IN (?, ?, ?, ?, ?, ?)",
        ALL.map(|(k, _)| k.into()),
    );
    let rows = sql.fetch_all::<(String, String), _>(core.db.pool()).await?;
    let pick = |(key, default): (&str, f64)| {
        rows.iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| match v.trim().parse::<f64>() {
                Ok(x) if x > 0.0 && x.is_finite() => x,
                _ => {
                    tracing::warn!(key, value = %v, "ignoring an invalid energy coefficient");
                    default
                }
            })
            .unwrap_or(default)
    };
    Ok(Factors {
        coal_kg_per_kwh: pick(COAL_KG_PER_KWH),
        co2_kg_per_kwh: pick(CO2_KG_PER_KWH),
        so2_kg_per_kwh: pick(SO2_KG_PER_KWH),
        nox_kg_per_kwh: pick(NOX_KG_PER_KWH),
        dust_kg_per_kwh: pick(DUST_KG_PER_KWH),
        co2_kg_per_tree: pick(CO2_KG_PER_TREE),
    })
}

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

/// The savings of `energy_kwh` with `f`.
pub fn savings(energy_kwh: f64, f: &Factors) -> Savings {
    let t = |kg_per_kwh: f64| energy_kwh * kg_per_kwh / 1000.0;
    let co2_kg = energy_kwh * f.co2_kg_per_kwh;
    Savings {
        energy_kwh,
        coal_t: t(f.coal_kg_per_kwh),
        co2_t: t(f.co2_kg_per_kwh),
        so2_t: t(f.so2_kg_per_kwh),
        nox_t: t(f.nox_kg_per_kwh),
        dust_t: t(f.dust_kg_per_kwh),
        trees: if f.co2_kg_per_tree > 0.0 {
            co2_kg / f.co2_kg_per_tree
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
        let s = savings(10_000.0, &Factors::default());
        assert!((s.coal_t - 4.0).abs() < 1e-9);
        assert!((s.co2_t - 9.97).abs() < 1e-9);
        assert!((s.so2_t - 0.3).abs() < 1e-9);
        assert!((s.nox_t - 0.15).abs() < 1e-9);
        assert!((s.dust_t - 2.72).abs() < 1e-9);
        assert!((s.trees - 9_970.0 / 18.3).abs() < 1e-9);
    }
}
