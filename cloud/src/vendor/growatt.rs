//! Growatt OpenAPI v1 ("ShineServer" API documentation, showdoc.com.cn/262556420217021; the
//! PyPi_GrowattServer OpenApiV1 client cites the same pages):
//! - Authentication: a static API token in the `token` request header, no sign-in (so no expiry to
//!   handle). error_code 10011 error_permission_denied is a refused token (→ Auth); 10012
//!   error_frequently_access is the throttling answer (→ Throttled).
//! - `GET /v1/plant/list` {page, perpage} → data{count, plants[{plant_id, name, city, country,
//!   peak_power (kWp)}]}; `GET /v1/device/list` {plant_id, page, perpage} → data{count,
//!   devices[{device_sn, type (1 inverter), model, ...}]} (section 3.3 of the documentation).
//! - `GET /v1/device/inverter/last_new_data` {device_sn}: the inverter's newest data; the
//!   documentation's remark: data is collected every 5 minutes.
//! - `GET /v1/device/inverter/data` {device_sn, start_date, end_date (yyyy-MM-dd, at most 7 days
//!   apart: error 10004), timezone_id (default UTC), page, perpage (default 20)} → data{count,
//!   datas[...]}; we ask 100 rows a page.
//! - Data fields: time "yyyy-MM-dd HH:mm:ss" (UTC, the default timezone_id), pac W, eacToday kWh,
//!   eacTotal kWh, vpv{n} V, ipv{n} A, vac1..3 V, iac1..3 A, fac Hz, temperature °C.
//! - Limits: "once every 5 minutes" per data interface and device; we keep an account to 6 calls
//!   a minute. Alarms are not read from Growatt yet.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use serde_json::Value;

use super::budget::Budget;
use super::model::*;
use super::wire::{self, num, put, text};

const PER_PAGE: usize = 100;
const DAY_MS: i64 = 86_400_000;

pub(super) fn limits() -> Limits {
    Limits {
        requests_per_minute: 6,
        requests_per_day: None,
        live_interval: Duration::from_secs(300),
        history_window: Duration::from_secs(86_400),
        backfill_depth: Duration::from_secs(86_400),
    }
}

pub struct Growatt {
    credentials: Credentials,
    budget: Arc<Budget>,
    http: reqwest::Client,
}

impl Growatt {
    pub fn new(credentials: Credentials, budget: Arc<Budget>, http: reqwest::Client) -> Growatt {
        Growatt {
            credentials,
            budget,
            http,
        }
    }

    async fn get(&self, path: &str, query: &[(&str, String)]) -> Result<Value, VendorError> {
        let req = self
            .http
            .get(format!("{}/v1/{path}", self.credentials.base_url))
            .header("token", &self.credentials.secret)
            .query(query);
        let v = wire::send(&self.budget, req).await?.json()?;
        let code = v.get("error_code").and_then(Value::as_i64).unwrap_or(-1);
        let message = format!("error_code {code}: {}", text(&v, "error_msg").unwrap_or_default());
        match code {
            0 => {
                self.budget.answered();
                Ok(v.get("data").cloned().unwrap_or(Value::Null))
            }
            10011 => Err(VendorError::Auth(message)),
            10012 => Err(wire::throttled(&self.budget, None, message)),
            _ => Err(VendorError::Protocol(message)),
        }
    }

    /// Every page of `key` in data, until `count` rows are read.
    async fn pages(
        &self,
        path: &str,
        query: &[(&str, String)],
        key: &str,
    ) -> Result<Vec<Value>, VendorError> {
        let mut rows = Vec::new();
        for page in 1.. {
            let mut q = query.to_vec();
            q.push(("page", page.to_string()));
            q.push(("perpage", PER_PAGE.to_string()));
            let d = self.get(path, &q).await?;
            let list = d.get(key).and_then(Value::as_array).cloned().unwrap_or_default();
            let total = num(&d, "count").unwrap_or(0.0) as usize;
            let short = list.len() < PER_PAGE;
            rows.extend(list);
            if short || rows.len() >= total {
                break;
            }
        }
        Ok(rows)
    }
}

/// One inverter record in canonical metrics.
pub fn values(r: &Value) -> BTreeMap<String, f64> {
    let mut v = BTreeMap::new();
    put(&mut v, "ac_power", num(r, "pac"), 1.0);
    put(&mut v, "energy_today", num(r, "eacToday"), 1000.0);
    put(&mut v, "energy_total", num(r, "eacTotal"), 1000.0);
    put(&mut v, "grid_frequency", num(r, "fac"), 1.0);
    put(&mut v, "temperature", num(r, "temperature"), 1.0);
    for (n, phase) in [(1, "a"), (2, "b"), (3, "c")] {
        put(
            &mut v,
            format!("grid_voltage_{phase}"),
            num(r, &format!("vac{n}")),
            1.0,
        );
        put(
            &mut v,
            format!("ac_current_{phase}"),
            num(r, &format!("iac{n}")),
            1.0,
        );
    }
    for n in 1..=8 {
        put(&mut v, format!("pv{n}_voltage"), num(r, &format!("vpv{n}")), 1.0);
        put(&mut v, format!("pv{n}_current"), num(r, &format!("ipv{n}")), 1.0);
    }
    v
}

fn sample(device_id: &str, r: &Value) -> Option<VendorSample> {
    let ts = text(r, "time").and_then(|t| wire::parse_time(&t, 0))?;
    let values = values(r);
    (!values.is_empty()).then(|| VendorSample {
        device_id: device_id.to_string(),
        ts_ms: ts,
        values,
    })
}

#[async_trait]
impl VendorApi for Growatt {
    fn platform(&self) -> Platform {
        Platform::Growatt
    }

    async fn plants(&mut self) -> Result<Vec<Plant>, VendorError> {
        let rows = self.pages("plant/list", &[], "plants").await?;
        Ok(rows
            .iter()
            .filter_map(|p| {
                let plant_id = text(p, "plant_id")?;
                let address = [text(p, "city"), text(p, "country")]
                    .into_iter()
                    .flatten()
                    .collect::<Vec<_>>()
                    .join(", ");
                Some(Plant {
                    name: text(p, "name").unwrap_or_else(|| plant_id.clone()),
                    plant_id,
                    capacity_kwp: num(p, "peak_power"),
                    address: (!address.is_empty()).then_some(address),
                    timezone: None,
                })
            })
            .collect())
    }

    async fn devices(&mut self, plant_id: &str) -> Result<Vec<VendorDevice>, VendorError> {
        let rows = self
            .pages("device/list", &[("plant_id", plant_id.to_string())], "devices")
            .await?;
        Ok(rows
            .iter()
            .filter(|d| num(d, "type").map(|t| t as i64) == Some(1))
            .filter_map(|d| {
                let serial = text(d, "device_sn")?;
                Some(VendorDevice {
                    device_id: serial.clone(),
                    plant_id: plant_id.to_string(),
                    name: serial.clone(),
                    serial,
                    kind: DeviceKind::Inverter,
                    model: text(d, "model"),
                    firmware: None,
                    rated_power_w: None,
                })
            })
            .collect())
    }

    async fn realtime(
        &mut self,
        _plant_id: &str,
        devices: &[VendorDevice],
    ) -> Result<Vec<VendorSample>, VendorError> {
        let mut out = Vec::new();
        for d in devices {
            let r = self
                .get(
                    "device/inverter/last_new_data",
                    &[("device_sn", d.serial.clone())],
                )
                .await?;
            out.extend(sample(&d.device_id, &r));
        }
        Ok(out)
    }

    async fn history(
        &mut self,
        _plant_id: &str,
        device: &VendorDevice,
        from_ms: i64,
        to_ms: i64,
    ) -> Result<Vec<VendorSample>, VendorError> {
        if to_ms <= from_ms {
            return Ok(Vec::new());
        }
        let day = |ms: i64| wire::format_time(ms.div_euclid(DAY_MS) * DAY_MS, 0, "%Y-%m-%d");
        let query = [
            ("device_sn", device.serial.clone()),
            ("start_date", day(from_ms)),
            ("end_date", day(to_ms - 1)),
        ];
        let rows = self.pages("device/inverter/data", &query, "datas").await?;
        let mut out: Vec<VendorSample> = rows
            .iter()
            .filter_map(|r| sample(&device.device_id, r))
            .filter(|s| (from_ms..to_ms).contains(&s.ts_ms))
            .collect();
        out.sort_by_key(|s| s.ts_ms);
        out.dedup_by_key(|s| s.ts_ms);
        Ok(out)
    }

    async fn alarms(&mut self, _plant_id: &str) -> Result<Vec<VendorAlarm>, VendorError> {
        Ok(Vec::new())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_become_canonical_units() {
        let r = serde_json::json!({"time": "2026-03-01 04:05:00", "pac": 18234.0, "eacToday": 61.4,
                                   "eacTotal": "25797.8", "vpv1": 612.0, "ipv1": 14.9, "vac1": 230.5, "fac": 50.0});
        let s = sample("GRT1", &r).expect("a sample");
        assert_eq!(s.ts_ms, 1_772_337_900_000);
        assert_eq!(s.values["ac_power"], 18_234.0);
        assert_eq!(s.values["energy_today"], 61_400.0);
        assert_eq!(s.values["energy_total"], 25_797_800.0);
        assert_eq!(s.values["pv1_voltage"], 612.0);
        assert_eq!(s.values["grid_voltage_a"], 230.5);
        for name in s.values.keys() {
            assert!(
                pv_shared::metrics::lookup(name).is_some(),
                "{name} is not a canonical metric"
            );
        }
    }
}
