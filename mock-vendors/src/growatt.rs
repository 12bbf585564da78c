//! Growatt OpenAPI v1 (ShineServer API, showdoc 262556420217021): a static API token in the `token`
//! header (wrong: error_code 10011 error_permission_denied), GET calls with query parameters, paged
//! lists, 10012 error_frequently_access over the rate. Inverter data: pac W, eacToday/eacTotal kWh,
//! vpvN V, ipvN A, vacN V, iacN A, fac Hz, temperature °C, time "yyyy-MM-dd HH:mm:ss" (UTC, the
//! default timezone_id). History: start_date/end_date at most 7 days apart, perpage at most 100.

use std::collections::HashMap;
use std::sync::Arc;

use axum::Router;
use axum::extract::{Query, State};
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde_json::{Value, json};

use crate::plant::{self, SLOT_MS};
use crate::{Refusal, Shared, Vendor};

const V: Vendor = Vendor::Growatt;
type Params = Query<HashMap<String, String>>;

pub fn router() -> Router<Arc<Shared>> {
    Router::new()
        .route("/v1/plant/list", get(plants))
        .route("/v1/device/list", get(devices))
        .route("/v1/device/inverter/last_new_data", get(last))
        .route("/v1/device/inverter/data", get(history))
}

fn answer(code: i64, msg: &str, data: Value) -> Response {
    axum::Json(json!({"error_code": code, "error_msg": msg, "data": data})).into_response()
}

fn auth(shared: &Shared, headers: &HeaderMap) -> Result<(), Response> {
    let acc = shared.account(V);
    if headers.get("token").and_then(|v| v.to_str().ok()) != Some(acc.secret.as_str()) {
        return Err(answer(10011, "error_permission_denied", Value::Null));
    }
    shared
        .admit(V, &acc.account)
        .map_err(|Refusal::Throttled| answer(10012, "error_frequently_access", Value::Null))
}

fn plant_id(p: usize) -> i64 {
    1_200 + p as i64
}

fn sn(p: usize, d: usize) -> String {
    format!("GRT{:02}{:05}", p, d + 1)
}

fn device_of(shared: &Shared, serial: &str) -> Option<(usize, usize)> {
    let digits = serial.strip_prefix("GRT")?;
    let (p, d) = (
        digits.get(..2)?.parse::<usize>().ok()?,
        digits.get(2..)?.parse::<usize>().ok()?.checked_sub(1)?,
    );
    (p < shared.cfg.plants && d < shared.cfg.inverters_per_plant).then_some((p, d))
}

fn page(q: &HashMap<String, String>) -> (usize, usize) {
    let page = q
        .get("page")
        .and_then(|s| s.parse().ok())
        .unwrap_or(1usize)
        .max(1);
    let per = q
        .get("perpage")
        .and_then(|s| s.parse().ok())
        .unwrap_or(20usize)
        .clamp(1, 100);
    (page, per)
}

fn time(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .map(|t| t.format("%Y-%m-%d %H:%M:%S").to_string())
        .unwrap_or_default()
}

fn record(p: usize, d: usize, ts: i64) -> Value {
    let s = plant::sample(plant::rated_w(p, d), ts);
    json!({
        "time": time(ts), "pac": s.power_w, "eacToday": s.energy_today_wh / 1000.0, "eacTotal": s.energy_total_wh / 1000.0,
        "vpv1": s.pv_voltage[0], "ipv1": s.pv_current[0], "vpv2": s.pv_voltage[1], "ipv2": s.pv_current[1],
        "vac1": s.grid_voltage, "vac2": s.grid_voltage, "vac3": s.grid_voltage,
        "iac1": s.ac_current, "iac2": s.ac_current, "iac3": s.ac_current,
        "fac": s.frequency_hz, "temperature": s.temperature_c, "status": 1
    })
}

async fn plants(State(shared): State<Arc<Shared>>, headers: HeaderMap, Query(q): Params) -> Response {
    if let Err(r) = auth(&shared, &headers) {
        return r;
    }
    let (page, per) = page(&q);
    let list: Vec<Value> = (0..shared.cfg.plants)
        .skip((page - 1) * per)
        .take(per)
        .map(|p| {
            let kwp: f64 = (0..shared.cfg.inverters_per_plant)
                .map(|d| plant::rated_w(p, d))
                .sum::<f64>()
                * 1.2
                / 1000.0;
            json!({"plant_id": plant_id(p), "name": format!("Growatt Plant {}", p + 1), "city": "Hefei",
                   "country": "China", "peak_power": kwp, "status": 1, "create_date": "2020-01-01"})
        })
        .collect();
    answer(0, "", json!({"count": shared.cfg.plants, "plants": list}))
}

async fn devices(State(shared): State<Arc<Shared>>, headers: HeaderMap, Query(q): Params) -> Response {
    if let Err(r) = auth(&shared, &headers) {
        return r;
    }
    let p = q
        .get("plant_id")
        .and_then(|s| s.parse::<i64>().ok())
        .map(|id| (id - 1_200) as usize);
    let Some(p) = p.filter(|p| *p < shared.cfg.plants) else {
        return answer(10002, "error_plant_not_found", Value::Null);
    };
    let (page, per) = page(&q);
    let list: Vec<Value> = (0..shared.cfg.inverters_per_plant)
        .skip((page - 1) * per)
        .take(per)
        .map(|d| {
            json!({"device_sn": sn(p, d), "device_id": 9_000 + d, "type": 1, "model": "MID 25KTL3-X",
                         "manufacturer": "Growatt", "datalogger_sn": format!("DLG{p:02}0001"), "lost": false})
        })
        .collect();
    answer(
        0,
        "",
        json!({"count": shared.cfg.inverters_per_plant, "devices": list}),
    )
}

async fn last(State(shared): State<Arc<Shared>>, headers: HeaderMap, Query(q): Params) -> Response {
    if let Err(r) = auth(&shared, &headers) {
        return r;
    }
    let Some((p, d)) = q.get("device_sn").and_then(|s| device_of(&shared, s)) else {
        return answer(10002, "error_device_not_found", Value::Null);
    };
    let ts = plant::slot(shared.now_ms());
    answer(0, "", record(p, d, ts))
}

async fn history(State(shared): State<Arc<Shared>>, headers: HeaderMap, Query(q): Params) -> Response {
    if let Err(r) = auth(&shared, &headers) {
        return r;
    }
    let Some((p, d)) = q.get("device_sn").and_then(|s| device_of(&shared, s)) else {
        return answer(10002, "error_device_not_found", Value::Null);
    };
    let day = |k: &str| {
        q.get(k)
            .and_then(|s| chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d").ok())
            .and_then(|d| d.and_hms_opt(0, 0, 0))
            .map(|t| t.and_utc().timestamp_millis())
    };
    let (Some(start), Some(end)) = (day("start_date"), day("end_date")) else {
        return answer(10003, "error_date_format", Value::Null);
    };
    if end < start || end - start > 7 * plant::DAY_MS {
        return answer(10004, "error_date_interval_exceeds_seven_days", Value::Null);
    }
    let now = shared.now_ms();
    let mut all = Vec::new();
    let mut ts = start;
    while ts < end + plant::DAY_MS && ts <= now {
        all.push(ts);
        ts += SLOT_MS;
    }
    let (page, per) = page(&q);
    let datas: Vec<Value> = all
        .iter()
        .skip((page - 1) * per)
        .take(per)
        .map(|ts| record(p, d, *ts))
        .collect();
    answer(
        0,
        "",
        json!({"count": all.len(), "device_sn": sn(p, d), "datas": datas}),
    )
}
