//! Request extractors whose rejections answer with the envelope instead of axum's plain text,
//! and the edge check every `/api` request passes before any of them: no text input may carry
//! U+0000 (PostgreSQL refuses it in text parameters, so it would surface as a server fault).

use axum::body::{Body, Bytes};
use axum::extract::rejection::{JsonRejection, PathRejection, QueryRejection};
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::header;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::error::ApiError;
use super::lang::Text;

/// The most a JSON or form body may hold, as axum's own `Json`, `Form` and `Bytes` extractors
/// allow by default.
const MAX_TEXT_BODY: usize = 2 * 1024 * 1024;

pub const NUL_IN_PARAMETER: Text = Text::new(
    "请求参数不能包含空字符（U+0000）",
    "Request parameters must not contain the NUL character (U+0000)",
);
pub const NUL_IN_BODY: Text = Text::new(
    "请求内容不能包含空字符（U+0000）",
    "The request body must not contain the NUL character (U+0000)",
);

/// Middleware (installed by `app::assemble`): refuses an `/api` request whose path, query string,
/// JSON body or form body holds U+0000, whatever extractor its handler uses.
pub async fn refuse_nul(req: Request, next: Next) -> Response {
    let path = req.uri().path();
    if !(path == "/api" || path.starts_with("/api/")) {
        return next.run(req).await;
    }
    // In a URI the character can only travel percent-encoded, and `%` always starts an escape.
    if path.contains("%00") || req.uri().query().is_some_and(|q| q.contains("%00")) {
        return ApiError::BadRequest(NUL_IN_PARAMETER).into_response();
    }
    let Some(kind) = body_kind(&req) else {
        return next.run(req).await;
    };
    let (parts, body) = req.into_parts();
    let bytes: Bytes = match axum::body::to_bytes(body, MAX_TEXT_BODY).await {
        Ok(b) => b,
        Err(_) => return ApiError::PayloadTooLarge.into_response(),
    };
    let nul = match kind {
        BodyKind::Json => json_has_nul(&bytes),
        BodyKind::Form => bytes.windows(3).any(|w| w == b"%00") || bytes.contains(&0),
    };
    if nul {
        return ApiError::BadRequest(NUL_IN_BODY).into_response();
    }
    next.run(Request::from_parts(parts, Body::from(bytes))).await
}

enum BodyKind {
    Json,
    Form,
}

/// The text bodies checked (uploads and other bodies pass untouched, unbuffered).
fn body_kind(req: &Request) -> Option<BodyKind> {
    let ct = req.headers().get(header::CONTENT_TYPE)?.to_str().ok()?;
    let mime = ct.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
    if mime == "application/json" || mime.ends_with("+json") {
        Some(BodyKind::Json)
    } else if mime == "application/x-www-form-urlencoded" {
        Some(BodyKind::Form)
    } else {
        None
    }
}

/// Whether a JSON text has U+0000 in a string or a key. A raw NUL byte is not valid JSON (the
/// extractor refuses it), so only the `\u0000` escape is looked for, and confirmed by parsing
/// (`\\u0000` is a backslash followed by text).
fn json_has_nul(bytes: &[u8]) -> bool {
    if !bytes.windows(6).any(|w| w == b"\\u0000") {
        return false;
    }
    fn walk(v: &serde_json::Value) -> bool {
        match v {
            serde_json::Value::String(s) => s.contains('\0'),
            serde_json::Value::Array(a) => a.iter().any(walk),
            serde_json::Value::Object(o) => o.iter().any(|(k, v)| k.contains('\0') || walk(v)),
            _ => false,
        }
    }
    serde_json::from_slice::<serde_json::Value>(bytes).is_ok_and(|v| walk(&v))
}

#[derive(FromRequest)]
#[from_request(via(axum::Json), rejection(ApiError))]
pub struct Json<T>(pub T);

#[derive(FromRequestParts)]
#[from_request(via(axum::extract::Path), rejection(ApiError))]
pub struct Path<T>(pub T);

#[derive(FromRequestParts)]
#[from_request(via(axum::extract::Query), rejection(ApiError))]
pub struct Query<T>(pub T);

impl From<JsonRejection> for ApiError {
    fn from(r: JsonRejection) -> Self {
        if r.status() == axum::http::StatusCode::PAYLOAD_TOO_LARGE {
            return ApiError::PayloadTooLarge;
        }
        let detail = r.body_text();
        ApiError::bad_request(
            format!("请求内容有误：{detail}"),
            format!("invalid request body: {detail}"),
        )
    }
}

impl From<PathRejection> for ApiError {
    fn from(r: PathRejection) -> Self {
        let detail = r.body_text();
        ApiError::bad_request(
            format!("路径参数有误：{detail}"),
            format!("invalid path parameter: {detail}"),
        )
    }
}

impl From<QueryRejection> for ApiError {
    fn from(r: QueryRejection) -> Self {
        let detail = r.body_text();
        ApiError::bad_request(
            format!("查询参数有误：{detail}"),
            format!("invalid query parameter: {detail}"),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::json_has_nul;

    #[test]
    fn nul_is_found_in_strings_and_keys_but_not_in_escaped_backslashes() {
        assert!(json_has_nul(br#"{"name": "a\u0000b"}"#));
        assert!(json_has_nul(br#"[{"x\u0000": 1}]"#));
        assert!(!json_has_nul(br#"{"name": "a\\u0000b"}"#));
        assert!(!json_has_nul(br#"{"name": "plain"}"#));
        assert!(!json_has_nul(br#"{"name": "a\u0000"#));
    }
}
