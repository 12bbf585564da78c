//! `/control/*`: the switches of `MockHandle` over HTTP, for the demo and browser tests that run
//! the binary (outage, throttle, clock, token expiry, alarms, request counters).

use std::sync::Arc;

use axum::Router;
use axum::extract::State;
use axum::routing::{get, post};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::{MockAlarm, Shared, Vendor};

pub fn router() -> Router<Arc<Shared>> {
    Router::new()
        .route("/control/outage", post(outage))
        .route("/control/throttle", post(throttle))
        .route("/control/now", post(now))
        .route("/control/expire-tokens", post(expire))
        .route("/control/alarm", post(raise))
        .route("/control/clear", post(clear))
        .route("/control/requests", get(requests))
}

#[derive(Deserialize)]
struct Switch {
    on: bool,
    vendor: Option<Vendor>,
}

async fn outage(State(s): State<Arc<Shared>>, axum::Json(b): axum::Json<Switch>) -> axum::Json<Value> {
    s.lock().outage = b.on;
    axum::Json(json!({"outage": b.on}))
}

async fn throttle(State(s): State<Arc<Shared>>, axum::Json(b): axum::Json<Switch>) -> axum::Json<Value> {
    let mut g = s.lock();
    for v in b.vendor.map(|v| vec![v]).unwrap_or_else(|| Vendor::ALL.to_vec()) {
        if b.on {
            g.throttle.insert(v);
        } else {
            g.throttle.remove(&v);
        }
    }
    axum::Json(json!({"throttle": b.on}))
}

#[derive(Deserialize)]
struct Now {
    ms: Option<i64>,
}

async fn now(State(s): State<Arc<Shared>>, axum::Json(b): axum::Json<Now>) -> axum::Json<Value> {
    s.lock().now_ms = b.ms;
    axum::Json(json!({"now": s.now_ms()}))
}

async fn expire(State(s): State<Arc<Shared>>) -> axum::Json<Value> {
    s.lock().tokens.clear();
    axum::Json(json!({"expired": true}))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Raise {
    vendor: Vendor,
    plant: usize,
    device: usize,
    code: String,
    level: u8,
    message: String,
}

async fn raise(State(s): State<Arc<Shared>>, axum::Json(b): axum::Json<Raise>) -> axum::Json<Value> {
    let raised_ms = s.now_ms();
    let mut g = s.lock();
    g.alarms.retain(|a| !(a.vendor == b.vendor && a.code == b.code));
    g.alarms.push(MockAlarm {
        vendor: b.vendor,
        plant: b.plant,
        device: b.device,
        code: b.code,
        level: b.level,
        message: b.message,
        raised_ms,
    });
    axum::Json(json!({"alarms": g.alarms.len()}))
}

#[derive(Deserialize)]
struct Clear {
    vendor: Vendor,
    code: String,
}

async fn clear(State(s): State<Arc<Shared>>, axum::Json(b): axum::Json<Clear>) -> axum::Json<Value> {
    let mut g = s.lock();
    g.alarms.retain(|a| !(a.vendor == b.vendor && a.code == b.code));
    axum::Json(json!({"alarms": g.alarms.len()}))
}

async fn requests(State(s): State<Arc<Shared>>) -> axum::Json<Value> {
    let g = s.lock();
    let per: serde_json::Map<String, Value> = Vendor::ALL
        .iter()
        .map(|v| {
            let n = g.requests.get(v).copied().unwrap_or(0);
            let refused = g.refused.get(v).copied().unwrap_or(0);
            (v.code().to_string(), json!({"requests": n, "refused": refused}))
        })
        .collect();
    axum::Json(Value::Object(per))
}
