//! The tenant's repair deadlines (`pv_alarm_rule` key `repair`): hours to respond (accept) and
//! to repair (finish) after an order is created, per level (the alarm levels 1 notice .. 4
//! critical). Defaults: critical 1 h / 8 h, major 4 / 24, minor 24 / 72, notice 72 / 168.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::analytics::dispersion::Invalid;

pub const REPAIR_KEY: &str = "repair";

/// Hours per level key `"1"` .. `"4"`.
pub type Hours = BTreeMap<String, f64>;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct RepairSetting {
    /// Hours from creation to acceptance, per level ("1" notice .. "4" critical).
    pub response_hours: Hours,
    /// Hours from creation to the repair being finished, per level.
    pub repair_hours: Hours,
}

const DEFAULTS: [(&str, f64, f64); 4] = [
    ("1", 72.0, 168.0),
    ("2", 24.0, 72.0),
    ("3", 4.0, 24.0),
    ("4", 1.0, 8.0),
];

impl Default for RepairSetting {
    fn default() -> Self {
        RepairSetting {
            response_hours: DEFAULTS.iter().map(|(k, r, _)| ((*k).to_owned(), *r)).collect(),
            repair_hours: DEFAULTS.iter().map(|(k, _, r)| ((*k).to_owned(), *r)).collect(),
        }
    }
}

/// At most a year.
const MAX_HOURS: f64 = 8760.0;

impl RepairSetting {
    pub fn validate(&self) -> Result<(), Invalid> {
        for (name, map) in [("response", &self.response_hours), ("repair", &self.repair_hours)] {
            let keys: Vec<&str> = map.keys().map(String::as_str).collect();
            if keys != ["1", "2", "3", "4"] {
                return Err(Invalid {
                    zh: "时限须按告警等级1到4分别设置".into(),
                    en: format!("The {name} hours must be given for levels 1 to 4"),
                });
            }
            if map
                .values()
                .any(|h| !(h.is_finite() && *h > 0.0 && *h <= MAX_HOURS))
            {
                return Err(Invalid {
                    zh: "时限须大于0且不超过8760小时".into(),
                    en: "Deadlines must be above 0 and at most 8760 hours".into(),
                });
            }
        }
        for k in self.response_hours.keys() {
            if self.response_hours[k] > self.repair_hours[k] {
                return Err(Invalid {
                    zh: "响应时限不能超过维修时限".into(),
                    en: "The response deadline cannot be later than the repair deadline".into(),
                });
            }
        }
        Ok(())
    }

    /// (response deadline, repair deadline) of an order of `level` created at `created` (ms).
    pub fn deadlines(&self, level: i64, created: i64) -> (i64, i64) {
        let key = level.clamp(1, 4).to_string();
        let ms =
            |map: &Hours, fallback: f64| (map.get(&key).copied().unwrap_or(fallback) * 3_600_000.0) as i64;
        (
            created + ms(&self.response_hours, 24.0),
            created + ms(&self.repair_hours, 72.0),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_validate_and_deadlines_follow_the_level() {
        let s = RepairSetting::default();
        assert!(s.validate().is_ok());
        assert_eq!(s.deadlines(4, 0), (3_600_000, 8 * 3_600_000));
        assert_eq!(
            s.deadlines(1, 1000),
            (1000 + 72 * 3_600_000, 1000 + 168 * 3_600_000)
        );
        let mut bad = s.clone();
        bad.response_hours.insert("4".into(), 10.0);
        assert!(bad.validate().unwrap_err().en.contains("later"));
        let mut bad = s.clone();
        bad.repair_hours.remove("2");
        assert!(bad.validate().is_err());
        let mut bad = s;
        bad.repair_hours.insert("2".into(), 0.0);
        assert!(bad.validate().is_err());
    }
}
