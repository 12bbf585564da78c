//! Request extractors whose rejections answer with the envelope instead of axum's plain text,
//! the edge check every `/api` request passes before any of them, and the mapping that puts any
//! rejection the framework still answers itself into the envelope.
//!
//! No text input may carry U+0000 (PostgreSQL refuses it in text parameters, so it would surface
//! as a server fault), and no text a write stores may carry a bidirectional control character
//! (U+202E and friends): they make a name display as something else than it is.

use axum::body::{Body, Bytes};
use axum::extract::rejection::{JsonRejection, PathRejection, QueryRejection};
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::{Method, StatusCode, header};
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
pub const BIDI_IN_TEXT: Text = Text::new(
    "名称等文本不能包含双向控制字符（如 U+202E）",
    "Names and other text must not contain bidirectional control characters (such as U+202E)",
);
pub const NO_SUCH_API: Text = Text::new("接口不存在", "No such API");

fn is_api(path: &str) -> bool {
    path == "/api" || path.starts_with("/api/")
}

/// Bidirectional controls: marks (U+200E/F, U+061C), embeddings and overrides (U+202A–202E),
/// isolates (U+2066–2069).
pub fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// Middleware (installed by `app::assemble`): refuses an `/api` request whose path, query string,
/// JSON body or form body holds U+0000, or — for a write — whose query string, JSON or form body
/// holds a bidirectional control, whatever extractor its handler uses.
pub async fn refuse_control_chars(req: Request, next: Next) -> Response {
    let path = req.uri().path();
    if !is_api(path) {
        return next.run(req).await;
    }
    // In a URI the character can only travel percent-encoded, and `%` always starts an escape.
    if path.contains("%00") || req.uri().query().is_some_and(|q| q.contains("%00")) {
        return ApiError::BadRequest(NUL_IN_PARAMETER).into_response();
    }
    let write = !matches!(*req.method(), Method::GET | Method::HEAD | Method::OPTIONS);
    if write && req.uri().query().is_some_and(|q| form_has_bidi(q.as_bytes())) {
        return ApiError::BadRequest(BIDI_IN_TEXT).into_response();
    }
    let Some(kind) = body_kind(&req) else {
        return next.run(req).await;
    };
    let (parts, body) = req.into_parts();
    let bytes: Bytes = match axum::body::to_bytes(body, MAX_TEXT_BODY).await {
        Ok(b) => b,
        Err(_) => return ApiError::PayloadTooLarge.into_response(),
    };
    let (nul, bidi) = match kind {
        BodyKind::Json => (json_has_nul(&bytes), write && json_has_bidi(&bytes)),
        BodyKind::Form => (
            bytes.windows(3).any(|w| w == b"%00") || bytes.contains(&0),
            write && form_has_bidi(&bytes),
        ),
    };
    if nul {
        return ApiError::BadRequest(NUL_IN_BODY).into_response();
    }
    if bidi {
        return ApiError::BadRequest(BIDI_IN_TEXT).into_response();
    }
    next.run(Request::from_parts(parts, Body::from(bytes))).await
}

/// Middleware (installed by `app::assemble`, around every route): an `/api` error answer that is
/// not JSON came from the framework itself (a body over the limit, a malformed form or
/// multipart, a `Bytes` or `String` body refused...); it is answered again in the envelope with
/// the same status, keeping its other headers (`Allow`, `Retry-After`...).
pub async fn envelope_rejections(req: Request, next: Next) -> Response {
    if !is_api(req.uri().path()) {
        return next.run(req).await;
    }
    let response = next.run(req).await;
    let status = response.status();
    let json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|ct| ct.starts_with("application/json"));
    if json || !(status.is_client_error() || status.is_server_error()) {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let text = axum::body::to_bytes(body, 4096).await.unwrap_or_default();
    let detail: String = String::from_utf8_lossy(&text).chars().take(300).collect();
    let error = match status {
        StatusCode::PAYLOAD_TOO_LARGE => ApiError::PayloadTooLarge,
        StatusCode::METHOD_NOT_ALLOWED => ApiError::MethodNotAllowed,
        StatusCode::NOT_FOUND => ApiError::NotFound(NO_SUCH_API),
        s if s.is_server_error() => ApiError::Internal(detail),
        _ => ApiError::bad_request(format!("请求有误：{detail}"), format!("Bad request: {detail}")),
    };
    let mut answer = error.into_response();
    *answer.status_mut() = status;
    parts.headers.remove(header::CONTENT_TYPE);
    parts.headers.remove(header::CONTENT_LENGTH);
    for (name, value) in &parts.headers {
        answer.headers_mut().insert(name.clone(), value.clone());
    }
    answer
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

/// Whether a JSON text has a bidirectional control in a string or a key, raw or escaped.
fn json_has_bidi(bytes: &[u8]) -> bool {
    let escaped = bytes.windows(2).any(|w| w == b"\\u");
    if !escaped && !std::str::from_utf8(bytes).is_ok_and(|t| t.chars().any(is_bidi_control)) {
        return false;
    }
    fn walk(v: &serde_json::Value) -> bool {
        match v {
            serde_json::Value::String(s) => s.chars().any(is_bidi_control),
            serde_json::Value::Array(a) => a.iter().any(walk),
            serde_json::Value::Object(o) => o.iter().any(|(k, v)| k.chars().any(is_bidi_control) || walk(v)),
            _ => false,
        }
    }
    serde_json::from_slice::<serde_json::Value>(bytes).is_ok_and(|v| walk(&v))
}

/// Whether a urlencoded text (a query string or a form body) has a bidirectional control in a
/// name or value once decoded.
fn form_has_bidi(bytes: &[u8]) -> bool {
    serde_urlencoded::from_bytes::<Vec<(String, String)>>(bytes).is_ok_and(|pairs| {
        pairs
            .iter()
            .any(|(k, v)| k.chars().chain(v.chars()).any(is_bidi_control))
    })
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
    use super::{form_has_bidi, json_has_bidi, json_has_nul};

    #[test]
    fn bidi_controls_are_found_raw_escaped_and_percent_encoded() {
        assert!(json_has_bidi("{\"name\": \"abc\u{202E}gpj.exe\"}".as_bytes()));
        assert!(json_has_bidi(br#"{"a": [{"name": "x\u2066y"}]}"#));
        assert!(json_has_bidi(br#"{"name": "x\u200Fy"}"#));
        assert!(!json_has_bidi(br#"{"name": "\u5149\u4f0f \u7535\u7ad9"}"#));
        assert!(!json_has_bidi("{\"name\": \"光伏电站 – A\"}".as_bytes()));
        assert!(form_has_bidi(b"realName=a%E2%80%AEb"));
        assert!(!form_has_bidi(b"realName=%E5%BC%A0%E4%B8%89&x=1"));
    }

    #[test]
    fn nul_is_found_in_strings_and_keys_but_not_in_escaped_backslashes() {
        assert!(json_has_nul(br#"{"name": "a\u0000b"}"#));
        assert!(json_has_nul(br#"[{"x\u0000": 1}]"#));
        assert!(!json_has_nul(br#"{"name": "a\\u0000b"}"#));
        assert!(!json_has_nul(br#"{"name": "plain"}"#));
        assert!(!json_has_nul(br#"{"name": "a\u0000"#));
    }
}
