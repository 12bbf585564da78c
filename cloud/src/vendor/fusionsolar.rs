//! Huawei FusionSolar (SmartPVMS northbound OpenAPI, "thirdData"). Sources: Huawei, SmartPVMS
//! 24.x/25.x Northbound API Reference (support.huawei.com EDOC1100358266 / EDOC1100465337):
//! - Login API `POST /thirdData/login` {userName, systemCode}: the session token comes back as the
//!   `xsrf-token` header and `XSRF-TOKEN` cookie and goes into the `XSRF-TOKEN` header of every later
//!   call. Error Code List: failCode 305 "not in the login state, log in again" (we sign in again,
//!   once per call), 407 "interface access frequency is too high" (→ Throttled), 20001/20002/20003
//!   (third-party system unknown/forbidden/expired), 20400 (user name or password wrong, user
//!   locked...), 30029 (authentication failed), 401 (no interface permission) (→ Auth). An empty
//!   body to a sign-in with an unknown user is also a refusal (noted by the pyhfs client).
//! - Plant List API `POST /thirdData/stations` {pageNo, pageSize ≤ 100} → data.list[{plantCode,
//!   plantName, plantAddress, capacity (kWp)}], pageCount.
//! - Device List API `POST /thirdData/getDevList` {stationCodes} → [{id, esnCode, devName, devTypeId,
//!   softwareVersion, model (24.7.0), invType}]; devTypeId 1 string inverter, 38 residential
//!   inverter, 10 EMI (environmental monitor), 17 grid meter, 47 power sensor.
//! - Real-Time Device Data API `POST /thirdData/getDevRealKpi` {devIds (≤ 100), devTypeId} →
//!   [{devId, dataItemMap}] and Historical Device Data API `POST /thirdData/getDevHistoryKpi`
//!   {devIds, devTypeId, startTime, endTime (ms)} → 5-minute [{devId, collectTime, dataItemMap}];
//!   one call spans at most three days (we ask one day at most).
//! - Inverter data items: active_power kW, reactive_power kvar, mppt_power kW, day_cap kWh,
//!   total_cap kWh, pv{n}_u V, pv{n}_i A, a_u/b_u/c_u V, ab_u/bc_u/ca_u V, a_i/b_i/c_i A,
//!   elec_freq Hz, power_factor, efficiency %, temperature °C. EMI: radiant_line W/m²,
//!   temperature °C (ambient), pv_temperature °C (module), wind_speed m/s, wind_direction °.
//! - Alarm API `POST /thirdData/getAlarmList` {stationCodes, beginTime, endTime, language} →
//!   current alarms [{alarmId, alarmName, alarmCause, esnCode, lev (1 critical, 2 major, 3 minor,
//!   4 warning), status (1 active), raiseTime}].
//! - Access limits: the reference limits each interface per minute and per day per user; we keep
//!   an account to 5 calls a minute over all interfaces, which a 5-minute cycle needs ~4 of.
//!
//! Grid meters (devTypeId 17, 47) are not read yet: their sign convention is not in the sources
//! above.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use serde_json::{Value, json};

use super::budget::Budget;
use super::model::*;
use super::wire::{self, num, put, text};

const INVERTER: i64 = 1;
const RESIDENTIAL_INVERTER: i64 = 38;
const EMI: i64 = 10;
const SLOT_MS: i64 = 300_000;

pub(super) fn limits() -> Limits {
    Limits {
        requests_per_minute: 5,
        requests_per_day: None,
        live_interval: Duration::from_secs(300),
        history_window: Duration::from_secs(86_400),
        backfill_depth: Duration::from_secs(86_400),
    }
}

pub struct FusionSolar {
    credentials: Credentials,
    budget: Arc<Budget>,
    http: reqwest::Client,
    token: Option<String>,
    /// devTypeId of each device id listed (the data calls need it).
    dev_types: HashMap<String, i64>,
    /// Device id of each serial (alarms name the serial).
    by_serial: HashMap<String, String>,
}

impl FusionSolar {
    pub fn new(credentials: Credentials, budget: Arc<Budget>, http: reqwest::Client) -> FusionSolar {
        FusionSolar {
            credentials,
            budget,
            http,
            token: None,
            dev_types: HashMap::new(),
            by_serial: HashMap::new(),
        }
    }

    fn url(&self, path: &str) -> String {
        format!("{}/thirdData/{path}", self.credentials.base_url)
    }

    fn refusal(&self, body: &Value) -> VendorError {
        let code = body.get("failCode").and_then(Value::as_i64).unwrap_or(-1);
        let message = format!("failCode {code}: {}", text(body, "message").unwrap_or_default());
        match code {
            407 | 20618 => wire::throttled(&self.budget, None, message),
            305 | 401 | 20001 | 20002 | 20003 | 20400 | 30029 => VendorError::Auth(message),
            _ => VendorError::Protocol(message),
        }
    }

    async fn login(&mut self) -> Result<(), VendorError> {
        let body = json!({"userName": self.credentials.account, "systemCode": self.credentials.secret});
        let a = wire::send(&self.budget, self.http.post(self.url("login")).json(&body)).await?;
        let v = a
            .json()
            .map_err(|_| VendorError::Auth("the sign-in was answered with no body".into()))?;
        if v.get("success") != Some(&Value::Bool(true)) {
            return Err(match self.refusal(&v) {
                VendorError::Protocol(m) => VendorError::Auth(m),
                other => other,
            });
        }
        let from_header = a
            .headers
            .get("xsrf-token")
            .and_then(|h| h.to_str().ok())
            .map(str::to_string);
        let from_cookie = a
            .headers
            .get_all(reqwest::header::SET_COOKIE)
            .iter()
            .find_map(|c| {
                let c = c.to_str().ok()?;
                c.split(';')
                    .next()?
                    .trim()
                    .strip_prefix("XSRF-TOKEN=")
                    .map(str::to_string)
            });
        let token = from_header
            .or(from_cookie)
            .ok_or_else(|| VendorError::Auth("the sign-in answered no XSRF-TOKEN".into()))?;
        self.budget.answered();
        self.token = Some(token);
        Ok(())
    }

    /// One data call; signs in first when needed and once more when the session expired (305).
    async fn call(&mut self, path: &str, body: Value) -> Result<Value, VendorError> {
        for attempt in 0..2 {
            if self.token.is_none() {
                self.login().await?;
            }
            let req = self
                .http
                .post(self.url(path))
                .header("XSRF-TOKEN", self.token.clone().unwrap_or_default());
            let v = wire::send(&self.budget, req.json(&body)).await?.json()?;
            if v.get("success") == Some(&Value::Bool(true)) {
                self.budget.answered();
                return Ok(v);
            }
            if v.get("failCode").and_then(Value::as_i64) == Some(305) && attempt == 0 {
                self.token = None;
                continue;
            }
            return Err(self.refusal(&v));
        }
        Err(VendorError::Auth(
            "the session was refused right after a fresh sign-in".into(),
        ))
    }

    fn dev_type(&self, device: &VendorDevice) -> i64 {
        self.dev_types
            .get(&device.device_id)
            .copied()
            .unwrap_or(match device.kind {
                DeviceKind::Inverter => INVERTER,
                DeviceKind::Weather => EMI,
                DeviceKind::Meter => 17,
            })
    }
}

/// An inverter's or EMI's dataItemMap in canonical metrics (units per the module note).
pub fn values(dev_type: i64, map: &Value) -> BTreeMap<String, f64> {
    let mut v = BTreeMap::new();
    if dev_type == EMI {
        put(&mut v, "irradiance_poa", num(map, "radiant_line"), 1.0);
        put(&mut v, "ambient_temperature", num(map, "temperature"), 1.0);
        put(&mut v, "module_temperature", num(map, "pv_temperature"), 1.0);
        put(&mut v, "wind_speed", num(map, "wind_speed"), 1.0);
        put(&mut v, "wind_direction", num(map, "wind_direction"), 1.0);
        return v;
    }
    put(&mut v, "ac_power", num(map, "active_power"), 1000.0);
    put(&mut v, "ac_reactive_power", num(map, "reactive_power"), 1000.0);
    put(&mut v, "dc_power", num(map, "mppt_power"), 1000.0);
    put(&mut v, "energy_today", num(map, "day_cap"), 1000.0);
    put(&mut v, "energy_total", num(map, "total_cap"), 1000.0);
    put(&mut v, "grid_frequency", num(map, "elec_freq"), 1.0);
    put(&mut v, "power_factor", num(map, "power_factor"), 1.0);
    put(&mut v, "efficiency", num(map, "efficiency"), 1.0);
    put(&mut v, "temperature", num(map, "temperature"), 1.0);
    for (from, to) in [
        ("a_u", "a"),
        ("b_u", "b"),
        ("c_u", "c"),
        ("ab_u", "ab"),
        ("bc_u", "bc"),
        ("ca_u", "ca"),
    ] {
        put(&mut v, format!("grid_voltage_{to}"), num(map, from), 1.0);
    }
    for (from, to) in [("a_i", "a"), ("b_i", "b"), ("c_i", "c")] {
        put(&mut v, format!("ac_current_{to}"), num(map, from), 1.0);
    }
    for n in 1..=36 {
        put(
            &mut v,
            format!("pv{n}_voltage"),
            num(map, &format!("pv{n}_u")),
            1.0,
        );
        put(
            &mut v,
            format!("pv{n}_current"),
            num(map, &format!("pv{n}_i")),
            1.0,
        );
    }
    v
}

fn level(lev: i64) -> AlarmLevel {
    match lev {
        1 => AlarmLevel::Critical,
        2 => AlarmLevel::Major,
        3 => AlarmLevel::Minor,
        _ => AlarmLevel::Warning,
    }
}

fn list(v: &Value) -> &[Value] {
    v.get("data")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[])
}

#[async_trait]
impl VendorApi for FusionSolar {
    fn platform(&self) -> Platform {
        Platform::FusionSolar
    }

    async fn plants(&mut self) -> Result<Vec<Plant>, VendorError> {
        let mut plants = Vec::new();
        for page in 1.. {
            let v = self
                .call("stations", json!({"pageNo": page, "pageSize": 100}))
                .await?;
            let data = v.get("data").cloned().unwrap_or(Value::Null);
            for p in data.get("list").and_then(Value::as_array).into_iter().flatten() {
                let Some(plant_id) = text(p, "plantCode") else {
                    continue;
                };
                plants.push(Plant {
                    name: text(p, "plantName").unwrap_or_else(|| plant_id.clone()),
                    plant_id,
                    capacity_kwp: num(p, "capacity"),
                    address: text(p, "plantAddress"),
                    timezone: None,
                });
            }
            if page >= data.get("pageCount").and_then(Value::as_i64).unwrap_or(1) {
                break;
            }
        }
        Ok(plants)
    }

    async fn devices(&mut self, plant_id: &str) -> Result<Vec<VendorDevice>, VendorError> {
        let v = self.call("getDevList", json!({"stationCodes": plant_id})).await?;
        let mut out = Vec::new();
        for d in list(&v) {
            let (Some(id), Some(dev_type)) = (text(d, "id"), d.get("devTypeId").and_then(Value::as_i64))
            else {
                continue;
            };
            let kind = match dev_type {
                INVERTER | RESIDENTIAL_INVERTER => DeviceKind::Inverter,
                EMI => DeviceKind::Weather,
                _ => continue,
            };
            let serial = text(d, "esnCode").unwrap_or_else(|| id.clone());
            self.dev_types.insert(id.clone(), dev_type);
            self.by_serial.insert(serial.clone(), id.clone());
            out.push(VendorDevice {
                name: text(d, "devName").unwrap_or_else(|| serial.clone()),
                device_id: id,
                plant_id: text(d, "stationCode").unwrap_or_else(|| plant_id.to_string()),
                serial,
                kind,
                model: text(d, "model").or_else(|| text(d, "invType")),
                firmware: text(d, "softwareVersion"),
                rated_power_w: None,
            });
        }
        Ok(out)
    }

    async fn realtime(
        &mut self,
        _plant_id: &str,
        devices: &[VendorDevice],
    ) -> Result<Vec<VendorSample>, VendorError> {
        let mut by_type: BTreeMap<i64, Vec<&VendorDevice>> = BTreeMap::new();
        for d in devices {
            by_type.entry(self.dev_type(d)).or_default().push(d);
        }
        let mut out = Vec::new();
        for (dev_type, group) in by_type {
            for chunk in group.chunks(100) {
                let ids: Vec<&str> = chunk.iter().map(|d| d.device_id.as_str()).collect();
                let v = self
                    .call(
                        "getDevRealKpi",
                        json!({"devIds": ids.join(","), "devTypeId": dev_type}),
                    )
                    .await?;
                // The real-time KPIs are the device's latest 5-minute values; they carry no time of
                // their own, so they are stamped with the slot of the server's currentTime.
                let now = v
                    .pointer("/params/currentTime")
                    .and_then(Value::as_i64)
                    .unwrap_or_else(|| self.budget.now_ms());
                for item in list(&v) {
                    let Some(id) = text(item, "devId") else { continue };
                    let values = values(dev_type, item.get("dataItemMap").unwrap_or(&Value::Null));
                    if !values.is_empty() {
                        out.push(VendorSample {
                            device_id: id,
                            ts_ms: now.div_euclid(SLOT_MS) * SLOT_MS,
                            values,
                        });
                    }
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
        let dev_type = self.dev_type(device);
        let body = json!({"devIds": device.device_id, "devTypeId": dev_type, "startTime": from_ms, "endTime": to_ms});
        let v = self.call("getDevHistoryKpi", body).await?;
        let mut out: Vec<VendorSample> = list(&v)
            .iter()
            .filter_map(|item| {
                let ts = item.get("collectTime").and_then(Value::as_i64)?;
                let values = values(dev_type, item.get("dataItemMap")?);
                ((from_ms..to_ms).contains(&ts) && !values.is_empty()).then(|| VendorSample {
                    device_id: device.device_id.clone(),
                    ts_ms: ts,
                    values,
                })
            })
            .collect();
        out.sort_by_key(|s| s.ts_ms);
        Ok(out)
    }

    async fn alarms(&mut self, plant_id: &str) -> Result<Vec<VendorAlarm>, VendorError> {
        let now = self.budget.now_ms();
        let body = json!({"stationCodes": plant_id, "beginTime": now - 7 * 86_400_000, "endTime": now, "language": "en_US"});
        let v = self.call("getAlarmList", body).await?;
        Ok(list(&v)
            .iter()
            .map(|a| {
                let name = text(a, "alarmName").unwrap_or_default();
                let cause = text(a, "alarmCause").filter(|c| *c != name);
                VendorAlarm {
                    device_id: text(a, "esnCode").and_then(|sn| self.by_serial.get(&sn).cloned()),
                    code: text(a, "alarmId").unwrap_or_else(|| name.clone()),
                    level: level(a.get("lev").and_then(Value::as_i64).unwrap_or(4)),
                    message: cause.map_or(name.clone(), |c| format!("{name}: {c}")),
                    raised_ms: a.get("raiseTime").and_then(Value::as_i64).unwrap_or(now),
                    active: a.get("status").and_then(Value::as_i64).unwrap_or(1) == 1,
                }
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inverter_kpis_become_canonical_units() {
        let map = json!({"active_power": 12.345, "day_cap": "56.7", "total_cap": 123456.789, "pv1_u": 620.5,
                         "pv1_i": 9.87, "a_u": 231.0, "elec_freq": 50.01, "temperature": 41.2, "mppt_power": 12.6});
        let v = values(INVERTER, &map);
        assert_eq!(v["ac_power"], 12_345.0);
        assert_eq!(v["energy_today"], 56_700.0);
        assert_eq!(v["energy_total"], 123_456_789.0);
        assert_eq!(v["pv1_voltage"], 620.5);
        assert_eq!(v["pv1_current"], 9.87);
        assert_eq!(v["grid_voltage_a"], 231.0);
        assert_eq!(v["grid_frequency"], 50.01);
        assert_eq!(v["dc_power"], 12_600.0);
        for name in v.keys() {
            assert!(
                pv_shared::metrics::lookup(name).is_some(),
                "{name} is not a canonical metric"
            );
        }
        let w = values(
            EMI,
            &json!({"radiant_line": 812, "temperature": 21.5, "pv_temperature": 43.0}),
        );
        assert_eq!(w["irradiance_poa"], 812.0);
        for name in w.keys() {
            assert!(
                pv_shared::metrics::lookup(name).is_some(),
                "{name} is not a canonical metric"
            );
        }
    }
}
