//! Per-tenant alarm rule settings (`GET/PUT /api/alarmRule`): thresholds, debounce and hold
//! times. Kept as one JSON object in `pv_alarm_rule` under the key `alarmRule`; a tenant that
//! never saved any uses the defaults. The engine reads them through a small cache that a save
//! refreshes at once; a save on another replica reaches it through a cluster signal ([`TOPIC`]),
//! and `CACHE_TTL` bounds what a lost signal could leave behind.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::auth::Caller;
use crate::kernel::ApiError;
use crate::kernel::Core;
use crate::kernel::lang::Text;
use crate::kernel::sql::{Sql, Value};
use crate::kernel::time;

/// The `pv_alarm_rule.rule_key` of these settings.
pub const RULE_KEY: &str = "alarmRule";
const CACHE_TTL: Duration = Duration::from_secs(30);

/// The cluster topic of a saved tenant's settings (the key is the tenant).
pub const TOPIC: &str = "alarm_settings";

/// What a tenant configures. Defaults (see `Default`): an inverter's internal temperature
/// above 80 °C (most string inverters derate from 60-70 °C and trip around 85 °C); phase
/// voltage outside 187-253 V (230 V −15 % / +10 %, the usual grid-code window); frequency
/// outside 49.5-50.5 Hz; no AC output while the site's irradiance is at least 200 W/m²;
/// a device silent for 300 s; an alarm cleared 60 s after its condition ended; raised on the
/// first sample showing it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Settings {
    pub temperature_max_c: f64,
    pub grid_voltage_min_v: f64,
    pub grid_voltage_max_v: f64,
    pub grid_frequency_min_hz: f64,
    pub grid_frequency_max_hz: f64,
    pub zero_output_irradiance_wm2: f64,
    pub device_silence_seconds: i64,
    pub clear_hold_seconds: i64,
    pub raise_after_samples: i64,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            temperature_max_c: 80.0,
            grid_voltage_min_v: 187.0,
            grid_voltage_max_v: 253.0,
            grid_frequency_min_hz: 49.5,
            grid_frequency_max_hz: 50.5,
            zero_output_irradiance_wm2: 200.0,
            device_silence_seconds: 300,
            clear_hold_seconds: 60,
            raise_after_samples: 1,
        }
    }
}

fn range(v: f64, lo: f64, hi: f64, zh: &str, en: &str) -> Result<(), Text> {
    if v.is_finite() && v >= lo && v <= hi {
        Ok(())
    } else {
        Err(Text::owned(
            format!("{zh}须在 {lo} 到 {hi} 之间"),
            format!("{en} must be between {lo} and {hi}"),
        ))
    }
}

fn below(lo: f64, hi: f64, zh: &str, en: &str) -> Result<(), Text> {
    if lo < hi {
        Ok(())
    } else {
        Err(Text::owned(
            format!("{zh}下限须小于上限"),
            format!("{en}: the minimum must be below the maximum"),
        ))
    }
}

impl Settings {
    /// Refuses settings that make no sense, with a message naming the field.
    pub fn validate(&self) -> Result<(), Text> {
        range(
            self.temperature_max_c,
            20.0,
            150.0,
            "温度上限",
            "Temperature maximum",
        )?;
        range(
            self.grid_voltage_min_v,
            0.0,
            1000.0,
            "电网电压下限",
            "Grid voltage minimum",
        )?;
        range(
            self.grid_voltage_max_v,
            0.0,
            1000.0,
            "电网电压上限",
            "Grid voltage maximum",
        )?;
        below(
            self.grid_voltage_min_v,
            self.grid_voltage_max_v,
            "电网电压",
            "Grid voltage",
        )?;
        range(
            self.grid_frequency_min_hz,
            40.0,
            70.0,
            "电网频率下限",
            "Grid frequency minimum",
        )?;
        range(
            self.grid_frequency_max_hz,
            40.0,
            70.0,
            "电网频率上限",
            "Grid frequency maximum",
        )?;
        below(
            self.grid_frequency_min_hz,
            self.grid_frequency_max_hz,
            "电网频率",
            "Grid frequency",
        )?;
        range(
            self.zero_output_irradiance_wm2,
            1.0,
            1500.0,
            "零发电辐照度",
            "Zero-output irradiance",
        )?;
        let positive = |v: i64, max: i64, zh: &str, en: &str| {
            if v >= 1 && v <= max {
                Ok(())
            } else {
                Err(Text::owned(
                    format!("{zh}须为 1 到 {max} 之间的正整数"),
                    format!("{en} must be a positive whole number up to {max}"),
                ))
            }
        };
        positive(
            self.device_silence_seconds,
            86_400,
            "设备通讯超时(秒)",
            "Device silence (s)",
        )?;
        positive(
            self.clear_hold_seconds,
            86_400,
            "恢复保持时间(秒)",
            "Clear hold (s)",
        )?;
        positive(
            self.raise_after_samples,
            100,
            "连续采样次数",
            "Raise after samples",
        )?;
        Ok(())
    }

    pub fn clear_hold_ms(&self) -> i64 {
        self.clear_hold_seconds.saturating_mul(1000)
    }
}

/// The engine's view of every tenant's settings.
#[derive(Default)]
pub struct Cache {
    entries: Mutex<HashMap<String, (Settings, Instant)>>,
}

impl Cache {
    /// The tenant's settings, from the cache when fresh. A database failure falls back to the
    /// defaults for this sample (logged) rather than stopping evaluation.
    pub async fn get(&self, state: &Core, tenant: &str) -> Settings {
        if let Some((s, at)) = self.entries.lock().unwrap_or_else(|p| p.into_inner()).get(tenant)
            && at.elapsed() < CACHE_TTL
        {
            return *s;
        }
        let s = match load(state, tenant).await {
            Ok(s) => s,
            Err(e) => {
                tracing::warn!(tenant, error = %e, "alarm settings unreadable; defaults used");
                Settings::default()
            }
        };
        self.put(tenant, s);
        s
    }

    pub fn put(&self, tenant: &str, s: Settings) {
        self.entries
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(tenant.to_owned(), (s, Instant::now()));
    }

    /// Drops a tenant's copy (or every copy for `cluster::ALL`): the next read loads it.
    pub fn forget(&self, tenant: &str) {
        let mut entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        if tenant == crate::kernel::cluster::ALL {
            entries.clear();
        } else {
            entries.remove(tenant);
        }
    }

    /// What is cached now, without touching the database (the silence check runs often).
    pub fn peek(&self, tenant: &str) -> Option<Settings> {
        self.entries
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(tenant)
            .map(|(s, _)| *s)
    }
}

/// The stored settings of a tenant; missing fields (an older save) take their defaults.
pub async fn load(state: &Core, tenant: &str) -> Result<Settings, ApiError> {
    let mut sql = Sql::new("SELECT value FROM pv_alarm_rule WHERE ");
    // By tenant, not through a caller: the engine reads a tenant's settings with no caller.
    sql.push_bind(
        "tenant_id = ? AND rule_key = ?",
        [Value::from(tenant), Value::from(RULE_KEY)],
    );
    let stored: Option<String> = sql.scalar_optional(state.db.pool()).await?;
    let Some(stored) = stored else {
        return Ok(Settings::default());
    };
    let mut merged =
        serde_json::to_value(Settings::default()).map_err(|e| ApiError::Internal(e.to_string()))?;
    if let (Some(base), Ok(serde_json::Value::Object(saved))) = (
        merged.as_object_mut(),
        serde_json::from_str::<serde_json::Value>(&stored),
    ) {
        for (k, v) in saved {
            base.insert(k, v);
        }
    }
    Ok(serde_json::from_value(merged).unwrap_or_default())
}

/// Stores the settings of the caller's tenant (replacing what it saved before).
pub async fn save(state: &Core, caller: &Caller, body: &Settings) -> Result<(), ApiError> {
    let value = serde_json::to_string(body).map_err(|e| ApiError::Internal(e.to_string()))?;
    let now = time::now_ms();
    let mut sql =
        Sql::new("INSERT INTO pv_alarm_rule (tenant_id, rule_key, value, update_user, update_time) VALUES ");
    sql.push_bind(
        "(?, ?, ?, ?, ?) ON CONFLICT (tenant_id, rule_key) DO UPDATE SET value = excluded.value, \
         update_user = excluded.update_user, update_time = excluded.update_time",
        [
            Value::from(caller.tenant_id.as_str()),
            Value::from(RULE_KEY),
            Value::from(value),
            Value::Int(caller.user_id.0),
            Value::Int(now),
        ],
    );
    sql.execute(state.db.pool()).await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid_and_nonsense_is_refused() {
        assert_eq!(Settings::default().validate(), Ok(()));
        let bad = Settings {
            grid_voltage_min_v: 260.0,
            ..Settings::default()
        };
        let msg = bad.validate().expect_err("min above max");
        assert!(msg.en.contains("minimum must be below"), "{msg:?}");
        assert!(msg.zh.contains("下限须小于上限"));
        let bad = Settings {
            clear_hold_seconds: 0,
            ..Settings::default()
        };
        assert!(bad.validate().is_err());
        let bad = Settings {
            temperature_max_c: f64::NAN,
            ..Settings::default()
        };
        assert!(bad.validate().is_err());
    }
}
