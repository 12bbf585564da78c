//! Per-client-address rate limits (tower_governor) on the routes a script could hammer: sign-in,
//! captcha, guest registration, password changes and uploads. Past its quota a client gets 429
//! in the envelope with `Retry-After`; every other route is untouched. Counts are kept in this
//! process (a quota per hub): the sign-in throttle, which must hold across hubs, is in the
//! database (`auth::throttle`).

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
use super::lang::Text;
use super::{ApiError, Core};
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
    let mut outer = Router::new();
    for (paths, quota) in [
        (SIGN_IN, limits.sign_in),
        (CAPTCHA, limits.captcha),
        (REGISTER, limits.register),
        (PASSWORD, limits.password),
        (UPLOAD, limits.upload),
    ] {
        let Some(layer) = layer(&key, quota) else {
            tracing::warn!(?paths, "rate limit quota is empty: not limited");
            continue;
        };
        let service = layer.layer(inner.clone());
        for path in paths {
            outer = outer.route_service(path, service.clone());
        }
    }
    outer.fallback_service(inner)
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
