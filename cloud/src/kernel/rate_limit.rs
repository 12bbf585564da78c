//! Per-client-address rate limits (tower_governor) on the routes a script could hammer: sign-in,
//! captcha, guest registration, password changes and uploads. Past its quota a client gets 429
//! in the envelope with `Retry-After`; every other route is untouched.
//!
//! Where the counts live follows the database. On SQLite the hub is alone with its file, so
//! they stay in this process (tower_governor, no database write per request). On PostgreSQL
//! several replicas may serve one client behind a balancer, and counts kept per process would
//! give it each replica's quota in turn: there each request spends from one row per (class,
//! address) in `kernel_rate_limit`, updated by one atomic statement (the same GCRA as
//! governor's: a burst, then one request regained every `60 / per_minute` seconds). The
//! sign-in throttle is in the database on both (`auth::throttle`).

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::http::{Request, Response};
use axum::response::IntoResponse;
use governor::middleware::NoOpMiddleware;
use tower::Layer;
use tower_governor::GovernorError;
use tower_governor::GovernorLayer;
use tower_governor::governor::{GovernorConfig, GovernorConfigBuilder};
use tower_governor::key_extractor::KeyExtractor;

use super::client_addr;
use super::db::Backend;
use super::lang::Text;
use super::sql::{Sql, Value};
use super::{ApiError, Core, time};
use crate::config::RateQuota;

/// The limited routes, by class.
pub const SIGN_IN: &[&str] = &[
    "/api/blade-auth/oauth/token",
    "/api/blade-auth/oauth/token/refresh",
];
pub const CAPTCHA: &[&str] = &["/api/blade-auth/oauth/captcha"];
pub const REGISTER: &[&str] = &["/api/blade-user/register-guest"];
pub const PASSWORD: &[&str] = &[
    "/api/blade-user/update-password",
    "/api/blade-user/reset-password",
    "/api/blade-user/phone/update-password",
    "/api/blade-resource/sms/endpoint/validate-message",
];
pub const UPLOAD: &[&str] = &[
    "/api/blade-resource/oss/endpoint/put-file",
    "/api/blade-resource/oss/endpoint/put-image",
    "/api/station/import",
    "/api/inverter/import",
];

/// Keys requests by the client's address (see `client_addr`: proxies only when trusted).
#[derive(Clone)]
struct AddrKey {
    trusted: Arc<[IpAddr]>,
}

impl KeyExtractor for AddrKey {
    type Key = IpAddr;

    fn extract<T>(&self, req: &Request<T>) -> Result<IpAddr, GovernorError> {
        Ok(client_addr::of_parts(
            req.headers(),
            req.extensions(),
            &self.trusted,
        ))
    }
}

/// The answer past a quota, in the envelope like every other refusal.
pub fn too_many(seconds: u64) -> ApiError {
    ApiError::TooManyRequests {
        text: Text::owned(
            format!("请求过于频繁，请{seconds}秒后再试"),
            format!("Too many requests: try again in {seconds} s"),
        ),
        retry_after: seconds.max(1),
    }
}

fn refusal(error: GovernorError) -> Response<Body> {
    match error {
        GovernorError::TooManyRequests { wait_time, .. } => too_many(wait_time).into_response(),
        other => ApiError::Internal(format!("rate limit: {other}")).into_response(),
    }
}

/// `inner` with each limited route behind its own per-address quota.
pub fn wrap(inner: Router, core: &Core) -> Router {
    let limits = &core.config.limits;
    if !limits.enabled {
        return inner;
    }
    let key = AddrKey {
        trusted: client_addr::trusted_proxies(core).into(),
    };
    let shared = core.db.backend() == Backend::Postgres;
    if shared {
        sweep_shared(core);
    }
    let mut outer = Router::new();
    for (class, paths, quota) in [
        ("sign_in", SIGN_IN, limits.sign_in),
        ("captcha", CAPTCHA, limits.captcha),
        ("register", REGISTER, limits.register),
        ("password", PASSWORD, limits.password),
        ("upload", UPLOAD, limits.upload),
    ] {
        if shared {
            if quota.burst == 0 {
                tracing::warn!(?paths, "rate limit quota is empty: not limited");
                continue;
            }
            let limit = Shared {
                core: core.clone(),
                key: key.clone(),
                class,
                quota,
            };
            let service = axum::middleware::from_fn_with_state(limit, spend_shared).layer(inner.clone());
            for path in paths {
                outer = outer.route_service(path, service.clone());
            }
        } else {
            let Some(layer) = layer(&key, quota) else {
                tracing::warn!(?paths, "rate limit quota is empty: not limited");
                continue;
            };
            let service = layer.layer(inner.clone());
            for path in paths {
                outer = outer.route_service(path, service.clone());
            }
        }
    }
    outer.fallback_service(inner)
}

/// One class of limited routes whose counts live in the database.
#[derive(Clone)]
struct Shared {
    core: Core,
    key: AddrKey,
    class: &'static str,
    quota: RateQuota,
}

/// The milliseconds between two regained requests, and how far ahead of now the quota may run
/// (the burst).
fn gcra(quota: RateQuota) -> (i64, i64) {
    let period = 60_000 / i64::from(quota.per_minute.max(1));
    (period, period * i64::from(quota.burst))
}

async fn spend_shared(
    axum::extract::State(limit): axum::extract::State<Shared>,
    req: Request<Body>,
    next: axum::middleware::Next,
) -> Response<Body> {
    let Ok(addr) = limit.key.extract(&req) else {
        return next.run(req).await;
    };
    let bucket = format!("{}/{addr}", limit.class);
    let (period, ahead) = gcra(limit.quota);
    let now = time::now_ms();
    // Every replica's request moves the same row; the UPDATE's right-hand sides all see the row
    // as it was, so `allowed` and the new time are decided together, atomically.
    let mut sql = Sql::new("INSERT INTO kernel_rate_limit (bucket, tat, allowed) VALUES ");
    sql.push_bind("(?, ?, 1)", [Value::from(bucket), Value::Int(now + period)]);
    let next_tat = "GREATEST(kernel_rate_limit.tat, ?) + ?";
    sql.push_bind(
        &format!(
            " ON CONFLICT (bucket) DO UPDATE SET allowed = CASE WHEN {next_tat} - ? <= ? THEN 1 ELSE 0 END, \
             tat = CASE WHEN {next_tat} - ? <= ? THEN {next_tat} ELSE kernel_rate_limit.tat END \
             RETURNING allowed, tat"
        ),
        [
            Value::Int(now),
            Value::Int(period),
            Value::Int(now),
            Value::Int(ahead),
            Value::Int(now),
            Value::Int(period),
            Value::Int(now),
            Value::Int(ahead),
            Value::Int(now),
            Value::Int(period),
        ],
    );
    match sql.fetch_one::<(i64, i64), _>(limit.core.db.pool()).await {
        Ok((1, _)) => next.run(req).await,
        Ok((_, tat)) => {
            let wait_ms = (tat + period - ahead - now).max(1);
            too_many(((wait_ms + 999) / 1000) as u64).into_response()
        }
        // A database that cannot count must not lock every client out of signing in: the
        // request goes through (the sign-in throttle still holds) and the failure is logged.
        Err(e) => {
            tracing::warn!(error = %e, class = limit.class, "rate limit not counted");
            next.run(req).await
        }
    }
}

/// Drops rows whose quota is full again, once a minute, on every replica (deleting what another
/// replica already deleted is harmless).
fn sweep_shared(core: &Core) {
    let Ok(runtime) = tokio::runtime::Handle::try_current() else {
        return;
    };
    let core = core.clone();
    runtime.spawn(async move {
        let mut tick = tokio::time::interval(Duration::from_secs(60));
        tick.tick().await;
        loop {
            tokio::select! {
                _ = core.shutdown.stopping() => break,
                _ = tick.tick() => {}
            }
            let Some(_pass) = core.shutdown.pass() else { break };
            let mut sql = Sql::new("DELETE FROM kernel_rate_limit WHERE ");
            sql.push_bind("tat < ?", [Value::Int(time::now_ms())]);
            if let Err(e) = sql.execute(core.db.pool()).await {
                tracing::debug!(error = %e, "rate limit sweep");
            }
        }
    });
}

type AddrConfig = GovernorConfig<AddrKey, NoOpMiddleware>;

fn layer(key: &AddrKey, quota: RateQuota) -> Option<GovernorLayer<AddrKey, NoOpMiddleware, Body>> {
    // One request regained every `60 / per_minute` seconds.
    let period = Duration::from_millis(60_000 / u64::from(quota.per_minute.max(1)));
    let config: Arc<AddrConfig> = GovernorConfigBuilder::default()
        .key_extractor(key.clone())
        .period(period)
        .burst_size(quota.burst)
        .finish()
        .map(Arc::new)?;
    sweep(&config);
    Some(GovernorLayer::new(config).error_handler(refusal))
}

/// Forgets addresses whose quota is full again, once a minute, for as long as the layer lives:
/// otherwise every address ever seen would stay in memory.
fn sweep(config: &Arc<AddrConfig>) {
    let Ok(runtime) = tokio::runtime::Handle::try_current() else {
        return;
    };
    let weak = Arc::downgrade(config);
    runtime.spawn(async move {
        let mut tick = tokio::time::interval(Duration::from_secs(60));
        tick.tick().await;
        loop {
            tick.tick().await;
            let Some(config) = weak.upgrade() else { break };
            config.limiter().retain_recent();
        }
    });
}
