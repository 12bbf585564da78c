//! Huawei FusionSolar northbound OpenAPI (SmartPVMS NBI Reference: Login API, Plant List API
//! `/thirdData/stations`, Device List API, Real-Time/Historical Device Data APIs, Alarm API).
//! Sign-in answers the XSRF-TOKEN (header and cookie) every later call must send in the
//! `XSRF-TOKEN` header; a missing or expired token answers failCode 305, too many calls failCode
//! 407, wrong credentials failCode 20400. Units as documented: kW, kWh, V, A, °C, Hz.

use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde_json::{Value, json};

use crate::plant::{self, SLOT_MS};
use crate::{Refusal, Shared, Vendor, body_json, int, text};

const V: Vendor = Vendor::FusionSolar;
const INVERTER: i64 = 1;
const EMI: i64 = 10;

pub fn router() -> Router<Arc<Shared>> {
    Router::new()
        .route("/thirdData/login", post(login))
        .route("/thirdData/stations", post(stations))
        .route("/thirdData/getDevList", post(dev_list))
        .route("/thirdData/getDevRealKpi", post(dev_real))
        .route("/thirdData/getDevHistoryKpi", post(dev_history))
        .route("/thirdData/getAlarmList", post(alarms))
}

fn fail(code: i64, message: &str) -> Response {
    axum::Json(json!({"success": false, "failCode": code, "data": null, "message": message})).into_response()
}

fn ok(shared: &Shared, data: Value) -> Response {
    axum::Json(json!({
        "success": true, "failCode": 0, "data": data, "message": null,
        "params": {"currentTime": shared.now_ms()}
    }))
    .into_response()
}

fn plant_code(p: usize) -> String {
    format!("NE={}", 33_000_100 + p)
}

fn plant_index(code: &str) -> Option<usize> {
    let n: usize = code.strip_prefix("NE=")?.parse().ok()?;
    n.checked_sub(33_000_100)
}

/// (plant, device, devTypeId) of a device id; device index 99 is the plant's EMI.
fn device_of(id: i64) -> Option<(usize, usize, i64)> {
    let rest = id.checked_sub(1_000_000_000)?;
    let (p, d) = ((rest / 100) as usize, (rest % 100) as usize);
    Some((p, d, if d == 99 { EMI } else { INVERTER }))
}

fn device_id(p: usize, d: usize) -> i64 {
    1_000_000_000 + (p * 100 + d) as i64
}

fn esn(p: usize, d: usize) -> String {
    if d == 99 {
        format!("EMI{:03}0001", p)
    } else {
        format!("ES2{:03}{:05}", p, d + 1)
    }
}

/// The account signed in with the request's XSRF-TOKEN, or the answer to give instead.
fn session(shared: &Shared, headers: &HeaderMap) -> Result<(), Response> {
    let token = headers
        .get("XSRF-TOKEN")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let Some(account) = shared.token_account(V, token) else {
        return Err(fail(305, "USER_MUST_RELOGIN"));
    };
    shared
        .admit(V, &account)
        .map_err(|Refusal::Throttled| fail(407, "ACCESS_FREQUENCY_IS_TOO_HIGH"))
}

async fn login(State(shared): State<Arc<Shared>>, body: Bytes) -> Response {
    let b = body_json(&body);
    let acc = shared.account(V);
    if text(&b, "userName").as_deref() != Some(acc.account.as_str()) {
        return fail(20400, "USERNAME_OR_PASSWORD_ERROR");
    }
    if let Err(Refusal::Throttled) = shared.admit(V, &acc.account) {
        return fail(407, "ACCESS_FREQUENCY_IS_TOO_HIGH");
    }
    if text(&b, "systemCode").as_deref() != Some(acc.secret.as_str()) {
        return fail(20400, "USERNAME_OR_PASSWORD_ERROR");
    }
    let token = shared.issue_token(V, &acc.account);
    let mut r =
        axum::Json(json!({"success": true, "failCode": 0, "data": null, "message": null})).into_response();
    if let (Ok(h), Ok(c)) = (
        token.parse(),
        format!("XSRF-TOKEN={token}; Path=/; HttpOnly").parse(),
    ) {
        r.headers_mut().insert("xsrf-token", h);
        r.headers_mut().insert(header::SET_COOKIE, c);
    }
    r
}

async fn stations(State(shared): State<Arc<Shared>>, headers: HeaderMap, body: Bytes) -> Response {
    if let Err(r) = session(&shared, &headers) {
        return r;
    }
    let b = body_json(&body);
    let page_no = int(&b, "pageNo").unwrap_or(1).max(1) as usize;
    let page_size = int(&b, "pageSize").unwrap_or(100).clamp(1, 100) as usize;
    let total = shared.cfg.plants;
    let list: Vec<Value> = (0..total)
        .skip((page_no - 1) * page_size)
        .take(page_size)
        .map(|p| {
            let kwp: f64 = (0..shared.cfg.inverters_per_plant)
                .map(|d| plant::rated_w(p, d))
                .sum::<f64>()
                * 1.2
                / 1000.0;
            json!({
                "plantCode": plant_code(p), "plantName": format!("FusionSolar Plant {}", p + 1),
                "plantAddress": format!("No. {} Solar Road, Hefei", p + 1), "capacity": kwp,
                "contactPerson": "", "gridConnectionDate": "2020-01-01T00:00:00+08:00",
                "latitude": "31.82", "longitude": "117.22"
            })
        })
        .collect();
    let page_count = total.div_ceil(page_size).max(1);
    ok(
        &shared,
        json!({"list": list, "pageCount": page_count, "pageNo": page_no, "pageSize": page_size, "total": total}),
    )
}

async fn dev_list(State(shared): State<Arc<Shared>>, headers: HeaderMap, body: Bytes) -> Response {
    if let Err(r) = session(&shared, &headers) {
        return r;
    }
    let b = body_json(&body);
    let codes = text(&b, "stationCodes").unwrap_or_default();
    let mut out = Vec::new();
    for code in codes.split(',') {
        let Some(p) = plant_index(code.trim()).filter(|p| *p < shared.cfg.plants) else {
            continue;
        };
        for d in (0..shared.cfg.inverters_per_plant).chain([99]) {
            let emi = d == 99;
            out.push(json!({
                "id": device_id(p, d), "devDn": format!("NE={}", device_id(p, d)),
                "devName": if emi { format!("EMI-{}", p + 1) } else { format!("Inverter-{}", d + 1) },
                "stationCode": plant_code(p), "esnCode": esn(p, d),
                "devTypeId": if emi { EMI } else { INVERTER },
                "softwareVersion": if emi { "V100R001C00" } else { "V100R001C00SPC130" },
                "model": if emi { "EMI" } else { "SUN2000-50KTL-M3" },
                "invType": if emi { Value::Null } else { "SUN2000-50KTL-M3".into() },
                "latitude": 31.82, "longitude": 117.22
            }));
        }
    }
    ok(&shared, Value::Array(out))
}

fn item_map(p: usize, d: usize, kind: i64, ts: i64) -> Value {
    if kind == EMI {
        let g = plant::irradiance(ts);
        return json!({"radiant_line": g, "temperature": 22.5, "pv_temperature": 22.5 + g / 40.0, "wind_speed": 2.4});
    }
    let s = plant::sample(plant::rated_w(p, d), ts);
    json!({
        "active_power": s.power_w / 1000.0, "day_cap": s.energy_today_wh / 1000.0,
        "total_cap": s.energy_total_wh / 1000.0, "temperature": s.temperature_c,
        "pv1_u": s.pv_voltage[0], "pv1_i": s.pv_current[0], "pv2_u": s.pv_voltage[1], "pv2_i": s.pv_current[1],
        "a_u": s.grid_voltage, "b_u": s.grid_voltage, "c_u": s.grid_voltage,
        "a_i": s.ac_current, "b_i": s.ac_current, "c_i": s.ac_current,
        "elec_freq": s.frequency_hz, "power_factor": 1.0, "efficiency": 98.6,
        "run_state": 1, "inverter_state": 512.0
    })
}

/// The requested devices of one type: (plant, device, id, esn).
fn requested(shared: &Shared, b: &Value) -> Result<Vec<(usize, usize, i64)>, Response> {
    let kind = int(b, "devTypeId").unwrap_or(0);
    let mut out = Vec::new();
    for id in text(b, "devIds").unwrap_or_default().split(',') {
        let Ok(id) = id.trim().parse::<i64>() else {
            continue;
        };
        match device_of(id) {
            Some((p, d, k)) if k == kind && p < shared.cfg.plants => out.push((p, d, id)),
            _ => return Err(fail(20001, "device does not match devTypeId")),
        }
    }
    Ok(out)
}

async fn dev_real(State(shared): State<Arc<Shared>>, headers: HeaderMap, body: Bytes) -> Response {
    if let Err(r) = session(&shared, &headers) {
        return r;
    }
    let b = body_json(&body);
    let devices = match requested(&shared, &b) {
        Ok(d) => d,
        Err(r) => return r,
    };
    let ts = plant::slot(shared.now_ms());
    let kind = int(&b, "devTypeId").unwrap_or(0);
    let data: Vec<Value> = devices
        .iter()
        .map(|(p, d, id)| json!({"devId": id, "sn": esn(*p, *d), "dataItemMap": item_map(*p, *d, kind, ts)}))
        .collect();
    ok(&shared, Value::Array(data))
}

async fn dev_history(State(shared): State<Arc<Shared>>, headers: HeaderMap, body: Bytes) -> Response {
    if let Err(r) = session(&shared, &headers) {
        return r;
    }
    let b = body_json(&body);
    let devices = match requested(&shared, &b) {
        Ok(d) => d,
        Err(r) => return r,
    };
    let (Some(start), Some(end)) = (int(&b, "startTime"), int(&b, "endTime")) else {
        return fail(20009, "startTime and endTime are mandatory");
    };
    if end <= start || end - start > 3 * plant::DAY_MS {
        return fail(20009, "the query period must be positive and at most three days");
    }
    let kind = int(&b, "devTypeId").unwrap_or(0);
    let now = shared.now_ms();
    let mut data = Vec::new();
    for (p, d, id) in devices {
        let mut ts = plant::slot(start + SLOT_MS - 1);
        while ts < end && ts <= now {
            data.push(json!({"devId": id, "sn": esn(p, d), "collectTime": ts, "dataItemMap": item_map(p, d, kind, ts)}));
            ts += SLOT_MS;
        }
    }
    ok(&shared, Value::Array(data))
}

async fn alarms(State(shared): State<Arc<Shared>>, headers: HeaderMap, body: Bytes) -> Response {
    if let Err(r) = session(&shared, &headers) {
        return r;
    }
    let b = body_json(&body);
    let mut data = Vec::new();
    for code in text(&b, "stationCodes").unwrap_or_default().split(',') {
        let Some(p) = plant_index(code.trim()) else {
            continue;
        };
        for a in shared.alarms(V, p) {
            data.push(json!({
                "stationCode": plant_code(p), "stationName": format!("FusionSolar Plant {}", p + 1),
                "alarmId": a.code.parse::<i64>().unwrap_or(0), "alarmName": a.message, "alarmCause": a.message,
                "devName": format!("Inverter-{}", a.device + 1), "esnCode": esn(p, a.device), "devTypeId": INVERTER,
                "lev": a.level, "status": 1, "raiseTime": a.raised_ms, "causeId": 1, "alarmType": 2,
                "repairSuggestion": "Check the device on site."
            }));
        }
    }
    ok(&shared, Value::Array(data))
}
