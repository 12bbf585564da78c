//! The tenant's report settings (`pv_alarm_rule` key `report`, stored like the analytics
//! settings): the contract discount the bill applies to self-consumed energy, the currency
//! figures are shown in and the performance constants. (The savings coefficients are system
//! parameters, see `conservation`.) Every default and its source is in `docs/reports.md`; the
//! console shows the values in use next to figures.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::performance::PerformanceSetting;
use crate::analytics::dispersion::Invalid;

pub const REPORT_KEY: &str = "report";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct ReportSetting {
    /// ISO 4217 code amounts are in (default CNY).
    pub currency: String,
    /// Discount on the grid price of self-consumed energy under an energy-performance contract
    /// (`contribution_way` 4), % (default 0: none until agreed terms are entered).
    pub emc_discount_pct: f64,
    /// γ, %/K.
    pub temperature_coefficient_pct: f64,
    pub design_pr: f64,
    /// W/m².
    pub availability_threshold: f64,
}

impl Default for ReportSetting {
    fn default() -> Self {
        let p = PerformanceSetting::default();
        ReportSetting {
            currency: "CNY".into(),
            emc_discount_pct: 0.0,
            temperature_coefficient_pct: p.temperature_coefficient_pct,
            design_pr: p.design_pr,
            availability_threshold: p.availability_threshold,
        }
    }
}

fn invalid(zh: &str, en: &str) -> Invalid {
    Invalid {
        zh: zh.into(),
        en: en.into(),
    }
}

impl ReportSetting {
    pub fn performance(&self) -> PerformanceSetting {
        PerformanceSetting {
            temperature_coefficient_pct: self.temperature_coefficient_pct,
            design_pr: self.design_pr,
            availability_threshold: self.availability_threshold,
        }
    }

    /// The share of the grid price a consumer pays for self-consumed energy under `contribution_way`.
    pub fn discount_factor(&self, contribution_way: Option<&str>) -> f64 {
        if contribution_way == Some(EMC) {
            1.0 - self.emc_discount_pct / 100.0
        } else {
            1.0
        }
    }

    pub fn validate(&self) -> Result<(), Invalid> {
        let c = self.currency.as_str();
        if c.len() != 3 || !c.bytes().all(|b| b.is_ascii_uppercase()) {
            return Err(invalid(
                "币种须为三位大写字母代码（如CNY）",
                "The currency must be a three-letter code such as CNY",
            ));
        }
        if !(0.0..100.0).contains(&self.emc_discount_pct) {
            return Err(invalid(
                "合同能源管理折扣须在0到100之间（%）",
                "The energy-performance contract discount must be from 0 to below 100 (%)",
            ));
        }
        if !(-1.0..=0.0).contains(&self.temperature_coefficient_pct) {
            return Err(invalid(
                "组件功率温度系数须在-1到0之间（%/K）",
                "The module power temperature coefficient must be from -1 to 0 (%/K)",
            ));
        }
        if !(self.design_pr > 0.0 && self.design_pr <= 1.0) {
            return Err(invalid(
                "设计PR须大于0且不超过1",
                "The design PR must be above 0 and at most 1",
            ));
        }
        if !(0.0..=500.0).contains(&self.availability_threshold) {
            return Err(invalid(
                "可利用率辐照阈值须在0到500之间（W/m²）",
                "The availability irradiance threshold must be from 0 to 500 (W/m²)",
            ));
        }
        Ok(())
    }
}

/// `contribution_way` key of an energy-performance contract (合同能源管理).
pub const EMC: &str = "4";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid_and_bad_values_are_named() {
        assert!(ReportSetting::default().validate().is_ok());
        let s = ReportSetting {
            emc_discount_pct: 100.0,
            ..ReportSetting::default()
        };
        assert!(s.validate().unwrap_err().en.contains("discount"));
        let s = ReportSetting {
            currency: "yuan".into(),
            ..ReportSetting::default()
        };
        assert!(s.validate().unwrap_err().en.contains("currency"));
        let s = ReportSetting {
            emc_discount_pct: 15.0,
            ..ReportSetting::default()
        };
        assert!((s.discount_factor(Some(EMC)) - 0.85).abs() < 1e-12);
        assert_eq!(s.discount_factor(Some("1")), 1.0);
    }
}
