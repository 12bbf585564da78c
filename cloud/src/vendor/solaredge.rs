//! SolarEdge Monitoring API (SolarEdge, "Monitoring Server API" document, sections "API Usage
//! Limitations", "Site List", "Inventory", "Inverter Technical Data"):
//! - Authentication: the account's or site's API key as the `api_key` query parameter of every
//!   call; a refused key answers HTTP 403 (→ Auth). No sign-in, no expiry.
//! - Limits: 300 requests a day per account key and per site, 3 concurrent calls from one source
//!   address; beyond either HTTP 429 (→ Throttled). A session makes one call at a time, and the
//!   budget spreads 300 a day (requests_per_day) at no more than 2 a minute; the live cadence is
//!   15 minutes, so one inverter costs 96 calls a day.
//! - `GET /sites/list` {size ≤ 100, startIndex} → sites{count, site[{id, name, peakPower (kW),
//!   location{address, city, country, timeZone}}]}.
//! - `GET /site/{siteId}/inventory` → Inventory{inverters[{name, model, SN, cpuVersion}]}.
//! - `GET /equipment/{siteId}/{serialNumber}/data` {startTime, endTime: "yyyy-MM-dd HH:mm:ss" in
//!   the site's time zone, at most one week apart} → data{count, telemetries[{date,
//!   totalActivePower W, dcVoltage V, groundFaultResistance kOhm, totalEnergy Wh (lifetime),
//!   temperature °C, L1Data/L2Data/L3Data{acCurrent A, acVoltage V, acFrequency Hz}}]}.
//! - Site times are converted with the site's zone when it is a fixed-offset zone this module
//!   knows (China, Hong Kong, Taiwan, Singapore, Japan, Korea, India, UTC); other zones are read
//!   as UTC (a zone database would fix that). The Monitoring API has no alarm call: `alarms` is
//!   always empty.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use reqwest::StatusCode;
use serde_json::Value;

use super::budget::Budget;
use super::model::*;
use super::wire::{self, num, put, text};

const TIME: &str = "%Y-%m-%d %H:%M:%S";

pub(super) fn limits() -> Limits {
    Limits {
        requests_per_minute: 2,
        requests_per_day: Some(300),
        live_interval: Duration::from_secs(900),
        history_window: Duration::from_secs(7 * 86_400),
        backfill_depth: Duration::from_secs(86_400),
    }
}

pub struct SolarEdge {
    credentials: Credentials,
    budget: Arc<Budget>,
    http: reqwest::Client,
    /// UTC offset of each site listed (ms).
    offsets: HashMap<String, i64>,
}

/// The offset of the fixed-offset zones a site may name.
pub fn zone_offset_ms(zone: &str) -> Option<i64> {
    let hours = match zone {
        "UTC" | "Etc/UTC" | "GMT" | "Etc/GMT" => 0.0,
        "Asia/Shanghai" | "Asia/Chongqing" | "Asia/Harbin" | "Asia/Urumqi" | "PRC" | "Asia/Hong_Kong"
        | "Asia/Macau" | "Asia/Taipei" | "Asia/Singapore" | "Asia/Kuala_Lumpur" | "Asia/Manila" => 8.0,
        "Asia/Tokyo" | "Asia/Seoul" => 9.0,
        "Asia/Kolkata" | "Asia/Calcutta" => 5.5,
        _ => return None,
    };
    Some((hours * 3_600_000.0) as i64)
}

impl SolarEdge {
    pub fn new(credentials: Credentials, budget: Arc<Budget>, http: reqwest::Client) -> SolarEdge {
        SolarEdge {
            credentials,
            budget,
            http,
            offsets: HashMap::new(),
        }
    }

    async fn get(&self, path: &str, query: &[(&str, String)]) -> Result<Value, VendorError> {
        let req = self
            .http
            .get(format!("{}{path}", self.credentials.base_url))
            .query(&[("api_key", self.credentials.secret.as_str())])
            .query(query);
        let a = wire::send(&self.budget, req).await?;
        match a.status {
            s if s.is_success() => {
                self.budget.answered();
                a.json()
            }
            StatusCode::FORBIDDEN | StatusCode::UNAUTHORIZED => Err(VendorError::Auth(format!(
                "HTTP {}: {}",
                a.status,
                String::from_utf8_lossy(&a.body)
            ))),
            s => Err(VendorError::Protocol(format!(
                "HTTP {s}: {}",
                String::from_utf8_lossy(&a.body)
            ))),
        }
    }

    async fn offset(&mut self, site: &str) -> Result<i64, VendorError> {
        if !self.offsets.contains_key(site) {
            self.plants().await?;
        }
        Ok(self.offsets.get(site).copied().unwrap_or(0))
    }

    async fn telemetry(
        &self,
        site: &str,
        serial: &str,
        from_ms: i64,
        to_ms: i64,
        offset: i64,
    ) -> Result<Vec<VendorSample>, VendorError> {
        let query = [
            ("startTime", wire::format_time(from_ms, offset, TIME)),
            ("endTime", wire::format_time(to_ms, offset, TIME)),
        ];
        let v = self
            .get(&format!("/equipment/{site}/{serial}/data"), &query)
            .await?;
        let mut out: Vec<VendorSample> = v
            .pointer("/data/telemetries")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|t| {
                let ts = text(t, "date").and_then(|d| wire::parse_time(&d, offset))?;
                let values = values(t);
                (!values.is_empty()).then(|| VendorSample {
                    device_id: serial.to_string(),
                    ts_ms: ts,
                    values,
                })
            })
            .collect();
        out.sort_by_key(|s| s.ts_ms);
        Ok(out)
    }
}

/// One telemetry of the Inverter Technical Data call in canonical metrics.
pub fn values(t: &Value) -> BTreeMap<String, f64> {
    let mut v = BTreeMap::new();
    put(&mut v, "ac_power", num(t, "totalActivePower"), 1.0);
    put(&mut v, "energy_total", num(t, "totalEnergy"), 1.0);
    put(&mut v, "dc_voltage", num(t, "dcVoltage"), 1.0);
    put(&mut v, "temperature", num(t, "temperature"), 1.0);
    put(
        &mut v,
        "insulation_resistance",
        num(t, "groundFaultResistance"),
        1000.0,
    );
    for (key, phase) in [("L1Data", "a"), ("L2Data", "b"), ("L3Data", "c")] {
        let Some(l) = t.get(key) else { continue };
        put(&mut v, format!("grid_voltage_{phase}"), num(l, "acVoltage"), 1.0);
        put(&mut v, format!("ac_current_{phase}"), num(l, "acCurrent"), 1.0);
        if phase == "a" {
            put(&mut v, "grid_frequency", num(l, "acFrequency"), 1.0);
        }
    }
    v
}

#[async_trait]
impl VendorApi for SolarEdge {
    fn platform(&self) -> Platform {
        Platform::SolarEdge
    }

    async fn plants(&mut self) -> Result<Vec<Plant>, VendorError> {
        let mut plants = Vec::new();
        loop {
            let v = self
                .get(
                    "/sites/list",
                    &[("size", "100".into()), ("startIndex", plants.len().to_string())],
                )
                .await?;
            let list = v
                .pointer("/sites/site")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            let total = v.pointer("/sites/count").and_then(Value::as_u64).unwrap_or(0) as usize;
            for s in &list {
                let Some(plant_id) = text(s, "id") else { continue };
                let loc = s.get("location").cloned().unwrap_or(Value::Null);
                let zone = text(&loc, "timeZone");
                self.offsets.insert(
                    plant_id.clone(),
                    zone.as_deref().and_then(zone_offset_ms).unwrap_or(0),
                );
                let address = [text(&loc, "address"), text(&loc, "city"), text(&loc, "country")]
                    .into_iter()
                    .flatten()
                    .collect::<Vec<_>>()
                    .join(", ");
                plants.push(Plant {
                    name: text(s, "name").unwrap_or_else(|| plant_id.clone()),
                    plant_id,
                    capacity_kwp: num(s, "peakPower"),
                    address: (!address.is_empty()).then_some(address),
                    timezone: zone,
                });
            }
            if list.is_empty() || plants.len() >= total {
                break;
            }
        }
        Ok(plants)
    }

    async fn devices(&mut self, plant_id: &str) -> Result<Vec<VendorDevice>, VendorError> {
        let v = self.get(&format!("/site/{plant_id}/inventory"), &[]).await?;
        Ok(v.pointer("/Inventory/inverters")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|i| {
                let serial = text(i, "SN")?;
                Some(VendorDevice {
                    device_id: serial.clone(),
                    plant_id: plant_id.to_string(),
                    name: text(i, "name").unwrap_or_else(|| serial.clone()),
                    serial,
                    kind: DeviceKind::Inverter,
                    model: text(i, "model"),
                    firmware: text(i, "cpuVersion"),
                    rated_power_w: None,
                })
            })
            .collect())
    }

    async fn realtime(
        &mut self,
        plant_id: &str,
        devices: &[VendorDevice],
    ) -> Result<Vec<VendorSample>, VendorError> {
        let offset = self.offset(plant_id).await?;
        let now = self.budget.now_ms();
        let mut out = Vec::new();
        for d in devices {
            // The newest telemetry of the last hour (the equipment call has no "latest" form).
            let mut t = self
                .telemetry(plant_id, &d.serial, now - 3_600_000, now, offset)
                .await?;
            if let Some(mut last) = t.pop() {
                last.device_id = d.device_id.clone();
                out.push(last);
            }
        }
        Ok(out)
    }

    async fn history(
        &mut self,
        plant_id: &str,
        device: &VendorDevice,
        from_ms: i64,
        to_ms: i64,
    ) -> Result<Vec<VendorSample>, VendorError> {
        let offset = self.offset(plant_id).await?;
        let mut out = self
            .telemetry(plant_id, &device.serial, from_ms, to_ms, offset)
            .await?;
        out.retain(|s| (from_ms..to_ms).contains(&s.ts_ms));
        for s in &mut out {
            s.device_id = device.device_id.clone();
        }
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
    fn telemetries_become_canonical_units() {
        let t = serde_json::json!({"date": "2026-03-01 12:05:00", "totalActivePower": 20004.0, "totalEnergy": 9.87654e7,
            "dcVoltage": 745.1, "groundFaultResistance": 11.5, "temperature": 44.0,
            "L1Data": {"acCurrent": 29.1, "acVoltage": 231.2, "acFrequency": 50.01}});
        let v = values(&t);
        assert_eq!(v["ac_power"], 20_004.0);
        assert_eq!(v["energy_total"], 98_765_400.0);
        assert_eq!(v["insulation_resistance"], 11_500.0);
        assert_eq!(v["grid_frequency"], 50.01);
        for name in v.keys() {
            assert!(
                pv_shared::metrics::lookup(name).is_some(),
                "{name} is not a canonical metric"
            );
        }
        let eight = zone_offset_ms("Asia/Shanghai").expect("known zone");
        assert_eq!(
            wire::parse_time("2026-03-01 12:05:00", eight),
            Some(1_772_337_900_000)
        );
    }
}
