//! Sungrow iSolarCloud OpenAPI (developer portal developer-api.isolarcloud.com; gateways
//! gateway.isolarcloud.com.hk, gateway.isolarcloud.eu, augateway.isolarcloud.com). Facts carried
//! from the portal's API list as used by open-source clients (GoSungrow's result checks, the
//! sunshinecloud Java client's endpoint list, an InkyPi iSolarCloud plugin):
//! - Every call is `POST /openapi/<name>` with a JSON body holding `appkey` (the app's key) and,
//!   after sign-in, `token`; headers `x-access-key` (the app's secret key) and `sys_code: 901`.
//! - `/openapi/login` {appkey, user_account, user_password} → result_data {token, login_state}:
//!   login_state "1" is success, anything else a refusal (→ Auth). The token lives ~24 h.
//! - result_code "1" is success; "E00003" / result_msg "er_token_login_invalid" means the token
//!   expired (we sign in again, once per call). The material names no result code for a rate
//!   refusal: HTTP 429 and a result_msg about frequency are taken as Throttled.
//! - `/openapi/getPowerStationList` {curPage, size} → pageList[{ps_id, ps_name, ps_location,
//!   total_capcity{value, unit}}], rowCount; `/openapi/getDeviceList` {ps_id, curPage, size} →
//!   pageList[{ps_key, device_sn, device_type (1 inverter, 14 hybrid inverter), device_name,
//!   device_model_code}].
//! - `/openapi/getDeviceRealTimeData` {device_type, point_id_list, ps_key_list} →
//!   device_point_list[{device_point{ps_key, device_time, p<id>...}}];
//!   `/openapi/getDevicePointMinuteDataList` {ps_key_list, points "p1,p2", start_time_stamp,
//!   end_time_stamp (yyyyMMddHHmmss), minute_interval 5} → {ps_key: [{time_stamp, p<id>...}]};
//!   one call spans at most 3 hours.
//! - Inverter points (values as strings): p1 daily yield Wh, p2 total yield Wh, p4 internal
//!   temperature °C, p5/p6 MPPT1 V/A, p7/p8 MPPT2 V/A, p14 total DC power W, p18-p20 phase A-C
//!   voltage V, p21-p23 phase A-C current A, p24 total active power W, p27 grid frequency Hz.
//! - Time stamps are read as UTC (the portal does not state their zone; plants set to another zone
//!   would need their offset here). Alarms are not read from iSolarCloud yet.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use serde_json::{Value, json};

use super::budget::Budget;
use super::model::*;
use super::wire::{self, num, put, text};

const POINTS: [&str; 16] = [
    "1", "2", "4", "5", "6", "7", "8", "14", "18", "19", "20", "21", "22", "23", "24", "27",
];
const WINDOW_MS: i64 = 3 * 3_600_000;

pub(super) fn limits() -> Limits {
    Limits {
        requests_per_minute: 10,
        requests_per_day: None,
        live_interval: Duration::from_secs(300),
        history_window: Duration::from_millis(WINDOW_MS as u64),
        backfill_depth: Duration::from_secs(86_400),
    }
}

pub struct ISolarCloud {
    credentials: Credentials,
    budget: Arc<Budget>,
    http: reqwest::Client,
    token: Option<String>,
}

enum Outcome {
    Data(Value),
    Expired,
}

impl ISolarCloud {
    pub fn new(credentials: Credentials, budget: Arc<Budget>, http: reqwest::Client) -> ISolarCloud {
        ISolarCloud {
            credentials,
            budget,
            http,
            token: None,
        }
    }

    async fn post(&self, name: &str, mut body: Value) -> Result<Outcome, VendorError> {
        if let Some(o) = body.as_object_mut() {
            o.insert(
                "appkey".into(),
                self.credentials.app_key.clone().unwrap_or_default().into(),
            );
            if let Some(t) = &self.token {
                o.insert("token".into(), t.clone().into());
            }
        }
        let req = self
            .http
            .post(format!("{}/openapi/{name}", self.credentials.base_url))
            .header(
                "x-access-key",
                self.credentials.access_key.clone().unwrap_or_default(),
            )
            .header("sys_code", "901")
            .json(&body);
        let v = wire::send(&self.budget, req).await?.json()?;
        let code = text(&v, "result_code").unwrap_or_default();
        let msg = text(&v, "result_msg").unwrap_or_default();
        if code == "1" {
            return Ok(Outcome::Data(
                v.get("result_data").cloned().unwrap_or(Value::Null),
            ));
        }
        if code == "E00003" || msg == "er_token_login_invalid" {
            return Ok(Outcome::Expired);
        }
        let message = format!("result_code {code}: {msg}");
        if msg.to_ascii_lowercase().contains("frequen") {
            return Err(wire::throttled(&self.budget, None, message));
        }
        if name == "login" || msg.contains("appkey") || msg.contains("access") {
            return Err(VendorError::Auth(message));
        }
        Err(VendorError::Protocol(message))
    }

    async fn login(&mut self) -> Result<(), VendorError> {
        self.token = None;
        let body =
            json!({"user_account": self.credentials.account, "user_password": self.credentials.secret});
        let data = match self.post("login", body).await? {
            Outcome::Data(d) => d,
            Outcome::Expired => return Err(VendorError::Auth("the sign-in was refused".into())),
        };
        match (text(&data, "login_state").as_deref(), text(&data, "token")) {
            (Some("1"), Some(token)) => {
                self.budget.answered();
                self.token = Some(token);
                Ok(())
            }
            (state, _) => Err(VendorError::Auth(format!(
                "login_state {}: {}",
                state.unwrap_or("?"),
                text(&data, "msg").unwrap_or_default()
            ))),
        }
    }

    async fn call(&mut self, name: &str, body: Value) -> Result<Value, VendorError> {
        for _ in 0..2 {
            if self.token.is_none() {
                self.login().await?;
            }
            match self.post(name, body.clone()).await? {
                Outcome::Data(d) => {
                    self.budget.answered();
                    return Ok(d);
                }
                Outcome::Expired => self.token = None,
            }
        }
        Err(VendorError::Auth(
            "the token was refused right after a fresh sign-in".into(),
        ))
    }

    /// Pages of `pageList` until `rowCount` rows are read.
    async fn pages(&mut self, name: &str, body: Value) -> Result<Vec<Value>, VendorError> {
        let mut rows = Vec::new();
        for page in 1.. {
            let mut b = body.clone();
            if let Some(o) = b.as_object_mut() {
                o.insert("curPage".into(), page.into());
                o.insert("size".into(), 100.into());
            }
            let d = self.call(name, b).await?;
            let list = d
                .get("pageList")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            let total = num(&d, "rowCount").unwrap_or(0.0) as usize;
            let empty = list.is_empty();
            rows.extend(list);
            if empty || rows.len() >= total {
                break;
            }
        }
        Ok(rows)
    }
}

/// One inverter's points (p<id> → value) in canonical metrics.
pub fn values(points: &Value) -> BTreeMap<String, f64> {
    let mut v = BTreeMap::new();
    let p = |id: &str| num(points, &format!("p{id}"));
    put(&mut v, "energy_today", p("1"), 1.0);
    put(&mut v, "energy_total", p("2"), 1.0);
    put(&mut v, "temperature", p("4"), 1.0);
    put(&mut v, "mppt1_voltage", p("5"), 1.0);
    put(&mut v, "mppt1_current", p("6"), 1.0);
    put(&mut v, "mppt2_voltage", p("7"), 1.0);
    put(&mut v, "mppt2_current", p("8"), 1.0);
    put(&mut v, "dc_power", p("14"), 1.0);
    put(&mut v, "grid_voltage_a", p("18"), 1.0);
    put(&mut v, "grid_voltage_b", p("19"), 1.0);
    put(&mut v, "grid_voltage_c", p("20"), 1.0);
    put(&mut v, "ac_current_a", p("21"), 1.0);
    put(&mut v, "ac_current_b", p("22"), 1.0);
    put(&mut v, "ac_current_c", p("23"), 1.0);
    put(&mut v, "ac_power", p("24"), 1.0);
    put(&mut v, "grid_frequency", p("27"), 1.0);
    v
}

fn capacity_kwp(p: &Value) -> Option<f64> {
    let c = p.get("total_capcity")?;
    let value = num(c, "value")?;
    let factor = match text(c, "unit").unwrap_or_default().to_ascii_lowercase().as_str() {
        "wp" | "w" => 1e-3,
        "mwp" | "mw" => 1e3,
        _ => 1.0,
    };
    Some(value * factor)
}

fn stamp(ms: i64) -> String {
    wire::format_time(ms, 0, "%Y%m%d%H%M%S")
}

#[async_trait]
impl VendorApi for ISolarCloud {
    fn platform(&self) -> Platform {
        Platform::ISolarCloud
    }

    async fn plants(&mut self) -> Result<Vec<Plant>, VendorError> {
        let rows = self.pages("getPowerStationList", json!({})).await?;
        Ok(rows
            .iter()
            .filter_map(|p| {
                let plant_id = text(p, "ps_id")?;
                Some(Plant {
                    name: text(p, "ps_name").unwrap_or_else(|| plant_id.clone()),
                    plant_id,
                    capacity_kwp: capacity_kwp(p),
                    address: text(p, "ps_location"),
                    timezone: None,
                })
            })
            .collect())
    }

    async fn devices(&mut self, plant_id: &str) -> Result<Vec<VendorDevice>, VendorError> {
        let id: Value = plant_id
            .parse::<i64>()
            .map(Value::from)
            .unwrap_or_else(|_| plant_id.into());
        let rows = self.pages("getDeviceList", json!({"ps_id": id})).await?;
        Ok(rows
            .iter()
            .filter(|d| matches!(num(d, "device_type").map(|t| t as i64), Some(1) | Some(14)))
            .filter_map(|d| {
                let key = text(d, "ps_key")?;
                let serial = text(d, "device_sn").unwrap_or_else(|| key.clone());
                Some(VendorDevice {
                    name: text(d, "device_name").unwrap_or_else(|| serial.clone()),
                    device_id: key,
                    plant_id: plant_id.to_string(),
                    serial,
                    kind: DeviceKind::Inverter,
                    model: text(d, "device_model_code"),
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
        for chunk in devices.chunks(100) {
            let keys: Vec<&str> = chunk.iter().map(|d| d.device_id.as_str()).collect();
            let body = json!({"device_type": 1, "point_id_list": POINTS, "ps_key_list": keys});
            let d = self.call("getDeviceRealTimeData", body).await?;
            for item in d
                .get("device_point_list")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let point = item.get("device_point").unwrap_or(item);
                let (Some(key), Some(ts)) = (
                    text(point, "ps_key"),
                    text(point, "device_time").and_then(|t| wire::parse_time(&t, 0)),
                ) else {
                    continue;
                };
                let values = values(point);
                if !values.is_empty() {
                    out.push(VendorSample {
                        device_id: key,
                        ts_ms: ts,
                        values,
                    });
                }
            }
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
        let points: Vec<String> = POINTS.iter().map(|p| format!("p{p}")).collect();
        let mut out = Vec::new();
        let mut start = from_ms;
        while start < to_ms {
            let end = (start + WINDOW_MS).min(to_ms);
            let body = json!({
                "ps_key_list": [device.device_id], "points": points.join(","), "minute_interval": 5,
                "start_time_stamp": stamp(start), "end_time_stamp": stamp(end)
            });
            let d = self.call("getDevicePointMinuteDataList", body).await?;
            for row in d
                .get(&device.device_id)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let Some(ts) = text(row, "time_stamp").and_then(|t| wire::parse_time(&t, 0)) else {
                    continue;
                };
                let values = values(row);
                if (from_ms..to_ms).contains(&ts) && !values.is_empty() {
                    out.push(VendorSample {
                        device_id: device.device_id.clone(),
                        ts_ms: ts,
                        values,
                    });
                }
            }
            start = end;
        }
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
    fn points_are_already_in_canonical_units() {
        let v = values(
            &json!({"p1": "12345", "p2": "98765432.5", "p24": "20004", "p5": "612.3", "p27": "49.98"}),
        );
        assert_eq!(v["energy_today"], 12_345.0);
        assert_eq!(v["energy_total"], 98_765_432.5);
        assert_eq!(v["ac_power"], 20_004.0);
        assert_eq!(v["mppt1_voltage"], 612.3);
        assert_eq!(v["grid_frequency"], 49.98);
        for name in v.keys() {
            assert!(
                pv_shared::metrics::lookup(name).is_some(),
                "{name} is not a canonical metric"
            );
        }
        assert_eq!(
            capacity_kwp(&json!({"total_capcity": {"value": "1.2", "unit": "MWp"}})),
            Some(1200.0)
        );
    }
}
