//! `/metrics`: the hub's instruments (`kernel::meter`) in Prometheus text, on a listener of its
//! own (`metrics.listen`) and, only when `metrics.token` is set, on the public port behind that
//! token. The gauges that mirror state kept elsewhere are read here, at each scrape.

use axum::Router;
use axum::extract::{MatchedPath, Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use sha2::{Digest, Sha256};

use crate::kernel::Core;
use crate::state::AppState;

pub const PATH: &str = "/metrics";

const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// The router of the metrics listener.
pub fn router(state: AppState) -> Router {
    Router::new().route(PATH, get(metrics)).with_state(state)
}

/// `/metrics` on the public port: refused without the configured token, absent when there is
/// none (a scrape must never be anonymous where the console is served).
pub async fn public(State(state): State<AppState>, headers: HeaderMap) -> Response {
    if state.config.metrics.token.is_empty() {
        return StatusCode::NOT_FOUND.into_response();
    }
    metrics(State(state), headers).await
}

async fn metrics(State(state): State<AppState>, headers: HeaderMap) -> Response {
    if !authorised(&state.config.metrics.token, &headers) {
        return (
            StatusCode::UNAUTHORIZED,
            [(header::WWW_AUTHENTICATE, "Bearer")],
            "bearer token required\n",
        )
            .into_response();
    }
    ([(header::CONTENT_TYPE, CONTENT_TYPE)], render(&state)).into_response()
}

/// No token configured: anyone who reaches the metrics listener may scrape (it is meant to be
/// bound to loopback or a private network). Otherwise the bearer token, compared by digest so
/// the time taken does not tell how much of it matched.
fn authorised(token: &str, headers: &HeaderMap) -> bool {
    if token.is_empty() {
        return true;
    }
    let given = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer ").or_else(|| v.strip_prefix("bearer ")))
        .unwrap_or("");
    Sha256::digest(given.as_bytes()) == Sha256::digest(token.as_bytes())
}

/// Reads the mirrored gauges, then encodes every instrument.
pub fn render(state: &AppState) -> String {
    let meter = &state.meter;
    meter.uptime.set(state.started.elapsed().as_secs_f64());
    meter.build(env!("CARGO_PKG_VERSION"), state.db.backend().name());
    for (name, pool) in [("main", state.db.pool()), ("durable", state.db.durable())] {
        // With `telemetry.postgres_copy` the acknowledged commits go through the native pool.
        let copy = state.config.telemetry.postgres_copy;
        if let (Some(pg), "durable", true) = (state.db.pg_durable(), name, copy) {
            meter.pool(name, pg.size(), pg.num_idle(), pg.options().get_max_connections());
            continue;
        }
        meter.pool(
            name,
            pool.size(),
            pool.num_idle(),
            pool.options().get_max_connections(),
        );
    }
    let (waiting, oldest) = state.evaluation.lag();
    meter.alarm_inbox.set(waiting as i64);
    meter.alarm_lag.set(oldest.as_secs_f64());
    let gateways = state.realtime.gateways();
    let online = gateways.iter().filter(|g| g.online).count();
    let limit = state.config.metrics.per_gateway_max;
    let each = (gateways.len() <= limit).then(|| {
        gateways
            .iter()
            .map(|g| (g.gateway_id.clone(), g.online))
            .collect()
    });
    meter.gateways(online as i64, (gateways.len() - online) as i64, each);
    meter.encode()
}

/// Counts every HTTP request by its route template (the fallback, which serves the console and
/// unknown paths, as one route), so the label's values are bounded by the routes the hub has.
pub async fn count_requests(State(core): State<Core>, request: Request, next: Next) -> Response {
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map(|p| p.as_str().to_owned())
        .unwrap_or_else(|| "(fallback)".to_owned());
    // Methods outside the standard ones are one value, so a client cannot mint label values.
    let method = ["GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"]
        .into_iter()
        .find(|m| *m == request.method().as_str())
        .unwrap_or("OTHER");
    let response = next.run(request).await;
    core.meter
        .http_request(&route, method, response.status().as_u16());
    response
}
