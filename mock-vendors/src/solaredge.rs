//! SolarEdge Monitoring API: the `api_key` query parameter on every call (wrong: HTTP 403); at most
//! 300 requests a day per account key and per site, at most 3 concurrent calls (over either:
//! HTTP 429); `/sites/list`, `/site/{id}/inventory`, `/equipment/{siteId}/{serial}/data` with
//! startTime/endTime ("yyyy-MM-dd HH:mm:ss", site local time; at most one week). Telemetry units:
//! totalActivePower W, totalEnergy Wh (lifetime), dcVoltage V, temperature °C, per-phase L1Data...
//! The sites here are in Asia/Shanghai (UTC+8, no daylight saving).

use std::collections::HashMap;
use std::sync::Arc;

use axum::Router;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde_json::{Value, json};

use crate::plant::{self, SLOT_MS, TZ_OFFSET_MS};
use crate::{Refusal, Shared, Vendor};

const V: Vendor = Vendor::SolarEdge;
type Params = Query<HashMap<String, String>>;

pub fn router() -> Router<Arc<Shared>> {
    Router::new()
        .route("/sites/list", get(sites))
        .route("/site/{id}/inventory", get(inventory))
        .route("/equipment/{site}/{serial}/data", get(data))
}

fn site_id(p: usize) -> i64 {
    2_400_000 + p as i64
}

fn serial(p: usize, d: usize) -> String {
    format!("7E1{:02}{:03}-{:02}", p, d + 1, 10 + d)
}

fn too_many() -> Response {
    (StatusCode::TOO_MANY_REQUESTS, "Too many requests").into_response()
}

/// Counts the call against the key and the site, and its concurrency; None when admitted.
fn refuse(shared: &Shared, q: &HashMap<String, String>, site: Option<i64>) -> Option<Response> {
    let acc = shared.account(V);
    if q.get("api_key") != Some(&acc.secret) {
        return Some((StatusCode::FORBIDDEN, "Invalid token").into_response());
    }
    if let Err(Refusal::Throttled) = shared.admit(V, &acc.account) {
        return Some(too_many());
    }
    let day = shared.cfg.solaredge_per_day;
    let key_ok = shared.admit_day(V, &acc.secret, day);
    let site_ok = site.is_none_or(|s| shared.admit_day(V, &format!("site:{s}"), day));
    if !key_ok || !site_ok {
        shared.refuse(V);
        return Some(too_many());
    }
    None
}

/// Holds one of the three concurrent calls for as long as it lives.
struct Slot<'a>(&'a Shared);
impl Drop for Slot<'_> {
    fn drop(&mut self) {
        self.0.leave(V);
    }
}

fn enter(shared: &Shared) -> Result<Slot<'_>, Response> {
    let slot = Slot(shared);
    if shared.enter(V) > 3 {
        shared.refuse(V);
        return Err(too_many());
    }
    Ok(slot)
}

async fn sites(State(shared): State<Arc<Shared>>, Query(q): Params) -> Response {
    let _slot = match enter(&shared) {
        Ok(s) => s,
        Err(r) => return r,
    };
    if let Some(r) = refuse(&shared, &q, None) {
        return r;
    }
    let start = q.get("startIndex").and_then(|s| s.parse().ok()).unwrap_or(0usize);
    let size = q
        .get("size")
        .and_then(|s| s.parse().ok())
        .unwrap_or(100usize)
        .clamp(1, 100);
    let list: Vec<Value> = (0..shared.cfg.plants)
        .skip(start)
        .take(size)
        .map(|p| {
            let kw: f64 = (0..shared.cfg.inverters_per_plant).map(|d| plant::rated_w(p, d)).sum::<f64>() * 1.2 / 1000.0;
            json!({
                "id": site_id(p), "name": format!("SolarEdge Site {}", p + 1), "accountId": 1, "status": "Active",
                "peakPower": kw, "currency": "CNY", "installationDate": "2020-01-01", "type": "Optimizers & Inverters",
                "location": {"country": "China", "city": "Hefei", "address": format!("{} Solar Road", p + 1),
                             "timeZone": "Asia/Shanghai", "countryCode": "CN"}
            })
        })
        .collect();
    axum::Json(json!({"sites": {"count": shared.cfg.plants, "site": list}})).into_response()
}

fn plant_of(shared: &Shared, site: i64) -> Option<usize> {
    let p = usize::try_from(site - 2_400_000).ok()?;
    (p < shared.cfg.plants).then_some(p)
}

async fn inventory(State(shared): State<Arc<Shared>>, Path(id): Path<i64>, Query(q): Params) -> Response {
    let _slot = match enter(&shared) {
        Ok(s) => s,
        Err(r) => return r,
    };
    if let Some(r) = refuse(&shared, &q, Some(id)) {
        return r;
    }
    let Some(p) = plant_of(&shared, id) else {
        return (StatusCode::FORBIDDEN, "site not found").into_response();
    };
    let inverters: Vec<Value> = (0..shared.cfg.inverters_per_plant)
        .map(|d| {
            json!({"name": format!("Inverter {}", d + 1), "manufacturer": "SolarEdge", "model": "SE25K",
                         "SN": serial(p, d), "cpuVersion": "4.18.32", "connectedOptimizers": 40,
                         "communicationMethod": "ETHERNET"})
        })
        .collect();
    axum::Json(json!({"Inventory": {"inverters": inverters, "meters": [], "sensors": [], "batteries": [], "gateways": []}}))
        .into_response()
}

fn local(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms + TZ_OFFSET_MS)
        .map(|t| t.format("%Y-%m-%d %H:%M:%S").to_string())
        .unwrap_or_default()
}

fn parse_local(s: &str) -> Option<i64> {
    chrono::NaiveDateTime::parse_from_str(s, "%Y-%m-%d %H:%M:%S")
        .ok()
        .map(|t| t.and_utc().timestamp_millis() - TZ_OFFSET_MS)
}

async fn data(
    State(shared): State<Arc<Shared>>,
    Path((site, sn)): Path<(i64, String)>,
    Query(q): Params,
) -> Response {
    let _slot = match enter(&shared) {
        Ok(s) => s,
        Err(r) => return r,
    };
    if let Some(r) = refuse(&shared, &q, Some(site)) {
        return r;
    }
    let Some(p) = plant_of(&shared, site) else {
        return (StatusCode::FORBIDDEN, "site not found").into_response();
    };
    let Some(d) = (0..shared.cfg.inverters_per_plant).find(|d| serial(p, *d) == sn) else {
        return (StatusCode::NOT_FOUND, "equipment not found").into_response();
    };
    let (Some(start), Some(end)) = (
        q.get("startTime").and_then(|s| parse_local(s)),
        q.get("endTime").and_then(|s| parse_local(s)),
    ) else {
        return (StatusCode::BAD_REQUEST, "startTime and endTime are mandatory").into_response();
    };
    if end < start || end - start > 7 * plant::DAY_MS {
        return (StatusCode::FORBIDDEN, "the period may not exceed one week").into_response();
    }
    let rated = plant::rated_w(p, d);
    let now = shared.now_ms();
    let mut t = Vec::new();
    let mut ts = plant::slot(start + SLOT_MS - 1);
    while ts <= end && ts <= now {
        let s = plant::sample(rated, ts);
        let phase = json!({"acCurrent": s.ac_current, "acVoltage": s.grid_voltage, "acFrequency": s.frequency_hz,
                           "apparentPower": s.power_w / 3.0, "activePower": s.power_w / 3.0, "reactivePower": 0.0, "cosPhi": 1.0});
        t.push(json!({
            "date": local(ts), "totalActivePower": s.power_w, "dcVoltage": s.pv_voltage[0],
            "groundFaultResistance": 11_000.0, "powerLimit": 100.0, "totalEnergy": s.energy_total_wh,
            "temperature": s.temperature_c, "inverterMode": if s.power_w > 0.0 { "MPPT" } else { "SLEEPING" },
            "operationMode": 0, "L1Data": phase, "L2Data": phase, "L3Data": phase
        }));
        ts += SLOT_MS;
    }
    axum::Json(json!({"data": {"count": t.len(), "telemetries": t}})).into_response()
}
