//! The API log and the server-error log, written by one middleware around `/api`:
//! - every mutating call (POST, PUT, PATCH, DELETE) made with a valid access token gets a
//!   `blade_log_api` row: who, what, the parameters with secrets masked, how long it took;
//! - every answer with status 500 gets a `blade_log_error` row.
//!
//! Rows are written by a spawned task so the caller never waits for them; a row that cannot be
//! stored is reported in the server log rather than lost silently. GETs are not logged at all
//! (reading the logs would otherwise log itself).

use std::time::Instant;

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde_json::Value as Json;

use crate::auth::caller::bearer;
use crate::auth::token::{self, Kind};
use crate::kernel::sql::{Sql, Value};
use crate::kernel::{ApiError, time};
use crate::kernel::{Core, client_addr};

/// Bodies up to this size are kept (masked) as the call's parameters.
pub const MAX_LOGGED_BODY: usize = 64 * 1024;
pub const MASK: &str = "******";

/// What a handler that failed badly can leave on its response for the error log (the client
/// only ever sees the generic message).
#[derive(Debug, Clone)]
pub struct ErrorDetail(pub String);

/// Whether a parameter named `key` holds a secret: passwords, tokens, client secrets, captcha
/// answers, keys. Matched case-insensitively, ignoring `-` and `_`.
pub fn is_secret(key: &str) -> bool {
    let k: String = key
        .chars()
        .filter(|c| *c != '-' && *c != '_')
        .flat_map(char::to_lowercase)
        .collect();
    k.contains("password")
        || k.contains("secret")
        || k.contains("captcha")
        || k.contains("privatekey")
        || k.ends_with("token")
}

/// Replaces the values of secret keys anywhere in a JSON document.
pub fn mask_json(v: &mut Json) {
    match v {
        Json::Object(map) => {
            for (k, v) in map.iter_mut() {
                if is_secret(k) && !v.is_null() {
                    *v = Json::String(MASK.into());
                } else {
                    mask_json(v);
                }
            }
        }
        Json::Array(items) => items.iter_mut().for_each(mask_json),
        _ => {}
    }
}

/// Masks a query string or form body (`a=1&password=x`), keeping its form.
pub fn mask_pairs(raw: &str) -> String {
    match serde_urlencoded::from_str::<Vec<(String, String)>>(raw) {
        Ok(pairs) => {
            let masked: Vec<(String, String)> = pairs
                .into_iter()
                .map(|(k, v)| {
                    if is_secret(&k) {
                        (k, MASK.to_owned())
                    } else {
                        (k, v)
                    }
                })
                .collect();
            serde_urlencoded::to_string(masked).unwrap_or_default()
        }
        Err(_) => "(unreadable parameters)".to_owned(),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BodyKind {
    Json,
    Form,
}

fn body_kind(headers: &HeaderMap) -> Option<BodyKind> {
    let ct = headers
        .get(header::CONTENT_TYPE)?
        .to_str()
        .ok()?
        .to_ascii_lowercase();
    if ct.starts_with("application/json") {
        Some(BodyKind::Json)
    } else if ct.starts_with("application/x-www-form-urlencoded") {
        Some(BodyKind::Form)
    } else {
        None
    }
}

fn masked_body(kind: BodyKind, bytes: &[u8]) -> String {
    match kind {
        BodyKind::Json => match serde_json::from_slice::<Json>(bytes) {
            Ok(mut v) => {
                mask_json(&mut v);
                v.to_string()
            }
            // Unparsable JSON cannot be masked reliably, so it is not kept.
            Err(_) => format!("(invalid JSON, {} bytes)", bytes.len()),
        },
        BodyKind::Form => mask_pairs(&String::from_utf8_lossy(bytes)),
    }
}

fn header_text(headers: &HeaderMap, name: impl header::AsHeaderName) -> Option<String> {
    headers.get(name).and_then(|v| v.to_str().ok()).map(str::to_owned)
}

/// The caller's address as the rate limits and sign-in throttling see it: `X-Forwarded-For` only
/// from a configured trusted proxy. A header anyone can send would let a caller write any address
/// into the audit log.
fn remote_ip(req: &Request, core: &Core) -> Option<String> {
    let ip = client_addr::of_parts(
        req.headers(),
        req.extensions(),
        &client_addr::trusted_proxies(core),
    );
    (!ip.is_unspecified()).then(|| ip.to_string())
}

/// One call as the logs keep it.
struct Call {
    tenant: String,
    account: Option<String>,
    method: String,
    path: String,
    params: String,
    user_agent: Option<String>,
    remote_ip: Option<String>,
}

/// The middleware (installed by `app::assemble` around every route).
pub async fn layer(State(state): State<Core>, req: Request, next: Next) -> Response {
    let path = req.uri().path().to_owned();
    if !(path == "/api" || path.starts_with("/api/")) {
        return next.run(req).await;
    }
    let method = req.method().clone();
    let mutating = matches!(
        method,
        Method::POST | Method::PUT | Method::PATCH | Method::DELETE
    );
    // Reads are only logged when they fail with a 500: until then they cost a few clones.
    let token = bearer(req.headers()).map(str::to_owned);
    let query = req.uri().query().map(str::to_owned);
    let user_agent = header_text(req.headers(), header::USER_AGENT);
    let ip = remote_ip(&req, &state);
    let mut body_params = None;

    let req = if mutating {
        let small = req
            .headers()
            .get(header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<usize>().ok())
            .is_some_and(|n| n <= MAX_LOGGED_BODY);
        match body_kind(req.headers()) {
            Some(kind) if small => {
                let (parts, body) = req.into_parts();
                let bytes: Bytes = match axum::body::to_bytes(body, MAX_LOGGED_BODY).await {
                    Ok(b) => b,
                    Err(_) => return ApiError::PayloadTooLarge.into_response(),
                };
                if !bytes.is_empty() {
                    body_params = Some(masked_body(kind, &bytes));
                }
                Request::from_parts(parts, Body::from(bytes))
            }
            _ => req,
        }
    } else {
        req
    };

    let started = Instant::now();
    let response = next.run(req).await;
    let took = started.elapsed().as_millis() as i64;
    let status = response.status();
    let log_error = status == StatusCode::INTERNAL_SERVER_ERROR;
    if !mutating && !log_error {
        return response;
    }
    // Signature and expiry only: the session lookup stays off the request's path, and an
    // attempt made with a revoked session is still worth a row.
    let claims = token.and_then(|t| token::verify(&state.token_secret, &t, Kind::Access).ok());
    let log_api = mutating && claims.is_some();
    if !log_api && !log_error {
        return response;
    }
    let mut params = query.as_deref().map(mask_pairs).unwrap_or_default();
    if let Some(body) = body_params {
        if !params.is_empty() {
            params.push('\n');
        }
        params.push_str(&body);
    }
    let call = Call {
        tenant: claims
            .as_ref()
            .map(|c| c.tid.clone())
            .unwrap_or_else(|| crate::system::entities::PLATFORM_TENANT.to_owned()),
        account: claims.as_ref().map(|c| c.acc.clone()),
        method: method.to_string(),
        path,
        params,
        user_agent,
        remote_ip: ip,
    };
    let detail = response.extensions().get::<ErrorDetail>().map(|d| d.0.clone());
    let state = state.clone();
    // Counted until stored: the pool closes on shutdown only after the last call's rows.
    let busy = state.shutdown.busy();
    tokio::spawn(async move {
        let _busy = busy;
        if log_api && let Err(e) = insert_api(&state, &call, status.as_u16(), took).await {
            tracing::error!(error = %e, uri = %call.path, "api log row could not be stored");
        }
        if log_error && let Err(e) = insert_error(&state, &call, detail).await {
            tracing::error!(error = %e, uri = %call.path, "error log row could not be stored");
        }
    });
    response
}

fn clip(s: &str, max: usize) -> String {
    s.chars().take(max).collect()
}

/// `blade-system/param/submit` for `/api/blade-system/param/submit`: what the call was about.
fn title_of(path: &str) -> String {
    let segments: Vec<&str> = path.trim_start_matches("/api/").split('/').collect();
    let n = segments.len();
    clip(&segments[n.saturating_sub(2)..].join("/"), 255)
}

async fn insert_api(state: &Core, c: &Call, status: u16, took: i64) -> Result<(), ApiError> {
    let mut sql = Sql::default();
    sql.push_bind(
        "INSERT INTO blade_log_api (id, tenant_id, service_id, type, title, method, request_uri, status, \
         user_agent, remote_ip, params, time_cost, create_by, create_time) \
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            state.ids.next().into(),
            clip(&c.tenant, 12).into(),
            "pv-cloud".into(),
            "1".into(),
            title_of(&c.path).into(),
            clip(&c.method, 10).into(),
            clip(&c.path, 1000).into(),
            Value::Int(status.into()),
            c.user_agent.as_deref().map(|s| clip(s, 1000)).into(),
            c.remote_ip.as_deref().map(|s| clip(s, 255)).into(),
            Value::Text(c.params.clone()),
            Value::Int(took),
            c.account.as_deref().map(|s| clip(s, 64)).into(),
            Value::Int(time::now_ms()),
        ],
    );
    sql.execute(state.db.pool()).await?;
    Ok(())
}

async fn insert_error(state: &Core, c: &Call, detail: Option<String>) -> Result<(), ApiError> {
    let mut sql = Sql::default();
    sql.push_bind(
        "INSERT INTO blade_log_error (id, tenant_id, service_id, env, method, request_uri, user_agent, \
         remote_ip, exception_name, message, params, create_by, create_time) \
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            state.ids.next().into(),
            clip(&c.tenant, 12).into(),
            "pv-cloud".into(),
            "server".into(),
            clip(&c.method, 10).into(),
            clip(&c.path, 1000).into(),
            c.user_agent.as_deref().map(|s| clip(s, 1000)).into(),
            c.remote_ip.as_deref().map(|s| clip(s, 255)).into(),
            "HTTP 500".into(),
            Value::Text(clip(
                &detail.unwrap_or_else(|| "Internal server error (details in the server log)".into()),
                20_000,
            )),
            Value::Text(c.params.clone()),
            c.account.as_deref().map(|s| clip(s, 64)).into(),
            Value::Int(time::now_ms()),
        ],
    );
    sql.execute(state.db.pool()).await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_recognised_case_insensitively() {
        for k in [
            "password",
            "Password1",
            "password2",
            "oldPassword",
            "newPassword",
            "newPassword1",
            "token",
            "access_token",
            "refresh_token",
            "clientSecret",
            "client_secret",
            "secret",
            "Captcha-Code",
            "captchaCode",
        ] {
            assert!(is_secret(k), "{k}");
        }
        for k in ["account", "code", "tokenTime", "paramKey", "dictKey"] {
            assert!(!is_secret(k), "{k}");
        }
    }

    #[test]
    fn json_and_pairs_are_masked_deeply() {
        let mut v =
            serde_json::json!({"account": "a", "password": "p", "nested": [{"clientSecret": "s", "x": 1}]});
        mask_json(&mut v);
        assert_eq!(v["password"], MASK);
        assert_eq!(v["nested"][0]["clientSecret"], MASK);
        assert_eq!(v["nested"][0]["x"], 1);
        assert_eq!(v["account"], "a");
        assert_eq!(
            mask_pairs("username=admin&password=abc&refresh_token=t"),
            "username=admin&password=******&refresh_token=******"
        );
        assert_eq!(title_of("/api/blade-system/param/submit"), "param/submit");
    }
}
