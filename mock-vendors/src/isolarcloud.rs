//! Sungrow iSolarCloud OpenAPI (developer portal, `/openapi/*`, JSON POST): every call carries the
//! `x-access-key` header and the `appkey` in the body; `/openapi/login` with user_account and
//! user_password answers a token (result_data.token, login_state "1"), later calls send it in the
//! body. An expired token answers result_code "E00003" / result_msg "er_token_login_invalid".
//! Units of the points served: W, Wh, V, A, °C, Hz. Time stamps `yyyyMMddHHmmss`, UTC here.
//! Over the rate limit the mock answers HTTP 429 (the public material names no result code for it).

use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde_json::{Map, Value, json};

use crate::plant::{self, SLOT_MS};
use crate::{Refusal, Shared, Vendor, body_json, int, text};

const V: Vendor = Vendor::ISolarCloud;

pub fn router() -> Router<Arc<Shared>> {
    Router::new()
        .route("/openapi/login", post(login))
        .route("/openapi/getPowerStationList", post(stations))
        .route("/openapi/getDeviceList", post(devices))
        .route("/openapi/getDeviceRealTimeData", post(realtime))
        .route("/openapi/getDevicePointMinuteDataList", post(minutes))
}

fn answer(code: &str, msg: &str, data: Value) -> Response {
    axum::Json(json!({"req_serial_num": "mock", "result_code": code, "result_msg": msg, "result_data": data}))
        .into_response()
}

fn ok(data: Value) -> Response {
    answer("1", "success", data)
}

pub fn ps_id(p: usize) -> i64 {
    5_100_000 + p as i64
}

fn ps_key(p: usize, d: usize) -> String {
    format!("{}_1_{}_0", ps_id(p), d + 1)
}

fn parse_key(key: &str) -> Option<(usize, usize)> {
    let mut it = key.split('_');
    let ps: i64 = it.next()?.parse().ok()?;
    let _type = it.next()?;
    let d: usize = it.next()?.parse().ok()?;
    Some(((ps - 5_100_000) as usize, d.checked_sub(1)?))
}

fn sn(p: usize, d: usize) -> String {
    format!("A2{:03}{:05}", p, d + 1)
}

fn stamp(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .map(|t| t.format("%Y%m%d%H%M%S").to_string())
        .unwrap_or_default()
}

fn parse_stamp(s: &str) -> Option<i64> {
    chrono::NaiveDateTime::parse_from_str(s, "%Y%m%d%H%M%S")
        .ok()
        .map(|t| t.and_utc().timestamp_millis())
}

/// The app key and access key of every call, then the token of every call but sign-in.
fn check_keys(shared: &Shared, headers: &HeaderMap, b: &Value) -> Result<(), Response> {
    let acc = shared.account(V);
    let access = headers.get("x-access-key").and_then(|v| v.to_str().ok());
    if access != acc.access_key.as_deref() || text(b, "appkey").as_deref() != acc.app_key.as_deref() {
        return Err(answer("-1", "er_invalid_appkey", Value::Null));
    }
    Ok(())
}

fn session(shared: &Shared, headers: &HeaderMap, b: &Value) -> Result<(), Response> {
    check_keys(shared, headers, b)?;
    let token = text(b, "token").unwrap_or_default();
    let Some(account) = shared.token_account(V, &token) else {
        return Err(answer("E00003", "er_token_login_invalid", Value::Null));
    };
    shared.admit(V, &account).map_err(|Refusal::Throttled| too_many())
}

fn too_many() -> Response {
    (
        StatusCode::TOO_MANY_REQUESTS,
        [("retry-after", "60")],
        "too many requests",
    )
        .into_response()
}

async fn login(State(shared): State<Arc<Shared>>, headers: HeaderMap, body: Bytes) -> Response {
    let b = body_json(&body);
    if let Err(r) = check_keys(&shared, &headers, &b) {
        return r;
    }
    let acc = shared.account(V);
    if text(&b, "user_account").as_deref() != Some(acc.account.as_str()) {
        return ok(json!({"login_state": "-1", "msg": "account does not exist"}));
    }
    if let Err(Refusal::Throttled) = shared.admit(V, &acc.account) {
        return too_many();
    }
    if text(&b, "user_password").as_deref() != Some(acc.secret.as_str()) {
        return ok(json!({"login_state": "0", "msg": "wrong password"}));
    }
    let token = shared.issue_token(V, &acc.account);
    ok(json!({"login_state": "1", "token": token, "user_id": "900001", "user_account": acc.account}))
}

async fn stations(State(shared): State<Arc<Shared>>, headers: HeaderMap, body: Bytes) -> Response {
    let b = body_json(&body);
    if let Err(r) = session(&shared, &headers, &b) {
        return r;
    }
    let page = int(&b, "curPage").unwrap_or(1).max(1) as usize;
    let size = int(&b, "size").unwrap_or(10).clamp(1, 100) as usize;
    let list: Vec<Value> = (0..shared.cfg.plants)
        .skip((page - 1) * size)
        .take(size)
        .map(|p| {
            let kwp: f64 = (0..shared.cfg.inverters_per_plant)
                .map(|d| plant::rated_w(p, d))
                .sum::<f64>()
                * 1.2
                / 1000.0;
            json!({
                "ps_id": ps_id(p), "ps_name": format!("iSolarCloud Plant {}", p + 1),
                "ps_location": format!("Hefei, Anhui, plant {}", p + 1),
                "total_capcity": {"unit": "kWp", "value": format!("{kwp:.1}")},
                "ps_type": 1, "ps_status": 1
            })
        })
        .collect();
    ok(json!({"pageList": list, "rowCount": shared.cfg.plants}))
}

async fn devices(State(shared): State<Arc<Shared>>, headers: HeaderMap, body: Bytes) -> Response {
    let b = body_json(&body);
    if let Err(r) = session(&shared, &headers, &b) {
        return r;
    }
    let p = int(&b, "ps_id")
        .map(|id| (id - 5_100_000) as usize)
        .filter(|p| *p < shared.cfg.plants);
    let list: Vec<Value> = p
        .into_iter()
        .flat_map(|p| (0..shared.cfg.inverters_per_plant).map(move |d| (p, d)))
        .map(|(p, d)| {
            json!({
                "ps_key": ps_key(p, d), "ps_id": ps_id(p), "device_sn": sn(p, d), "device_type": 1,
                "type_name": "Inverter", "device_name": format!("SG50CX-{}", d + 1),
                "device_model_code": "SG50CX", "uuid": 700_000 + d, "dev_status": 1
            })
        })
        .collect();
    let n = list.len();
    ok(json!({"pageList": list, "rowCount": n}))
}

fn points(p: usize, d: usize, ts: i64, wanted: &[String]) -> Map<String, Value> {
    let s = plant::sample(plant::rated_w(p, d), ts);
    let all = [
        ("1", s.energy_today_wh),
        ("2", s.energy_total_wh),
        ("4", s.temperature_c),
        ("5", s.pv_voltage[0]),
        ("6", s.pv_current[0]),
        ("7", s.pv_voltage[1]),
        ("8", s.pv_current[1]),
        ("14", s.power_w),
        ("18", s.grid_voltage),
        ("19", s.grid_voltage),
        ("20", s.grid_voltage),
        ("21", s.ac_current),
        ("22", s.ac_current),
        ("23", s.ac_current),
        ("24", s.power_w),
        ("27", s.frequency_hz),
    ];
    all.iter()
        .filter(|(id, _)| wanted.is_empty() || wanted.iter().any(|w| w == id))
        .map(|(id, v)| (format!("p{id}"), Value::String(format!("{v}"))))
        .collect()
}

fn list(v: &Value, key: &str) -> Vec<String> {
    match v.get(key) {
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(|x| {
                x.as_str()
                    .map(str::to_string)
                    .or(x.as_i64().map(|n| n.to_string()))
            })
            .collect(),
        Some(Value::String(s)) => s.split(',').map(|x| x.trim().to_string()).collect(),
        _ => Vec::new(),
    }
}

async fn realtime(State(shared): State<Arc<Shared>>, headers: HeaderMap, body: Bytes) -> Response {
    let b = body_json(&body);
    if let Err(r) = session(&shared, &headers, &b) {
        return r;
    }
    let wanted = list(&b, "point_id_list");
    let ts = plant::slot(shared.now_ms());
    let out: Vec<Value> = list(&b, "ps_key_list")
        .iter()
        .filter_map(|k| {
            parse_key(k).filter(|(p, d)| *p < shared.cfg.plants && *d < shared.cfg.inverters_per_plant)
        })
        .map(|(p, d)| {
            let mut point = points(p, d, ts, &wanted);
            point.insert("ps_key".into(), ps_key(p, d).into());
            point.insert("device_sn".into(), sn(p, d).into());
            point.insert("device_time".into(), stamp(ts).into());
            json!({"device_point": point})
        })
        .collect();
    ok(json!({"device_point_list": out}))
}

async fn minutes(State(shared): State<Arc<Shared>>, headers: HeaderMap, body: Bytes) -> Response {
    let b = body_json(&body);
    if let Err(r) = session(&shared, &headers, &b) {
        return r;
    }
    let (Some(start), Some(end)) = (
        text(&b, "start_time_stamp").and_then(|s| parse_stamp(&s)),
        text(&b, "end_time_stamp").and_then(|s| parse_stamp(&s)),
    ) else {
        return answer("E00001", "er_parameter_value_invalid", Value::Null);
    };
    if end < start || end - start > 3 * 3_600_000 {
        return answer("E00001", "er_parameter_value_invalid", Value::Null);
    }
    let wanted: Vec<String> = list(&b, "points")
        .iter()
        .map(|p| p.trim_start_matches('p').to_string())
        .collect();
    let now = shared.now_ms();
    let mut out = Map::new();
    for key in list(&b, "ps_key_list") {
        let Some((p, d)) = parse_key(&key) else { continue };
        let mut rows = Vec::new();
        let mut ts = plant::slot(start + SLOT_MS - 1);
        while ts <= end && ts <= now {
            let mut row = points(p, d, ts, &wanted);
            row.insert("time_stamp".into(), stamp(ts).into());
            rows.push(Value::Object(row));
            ts += SLOT_MS;
        }
        out.insert(key, Value::Array(rows));
    }
    ok(Value::Object(out))
}
