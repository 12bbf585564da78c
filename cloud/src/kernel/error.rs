//! The one error type of the HTTP edge and its one mapping to the response envelope.
//!
//! Client faults carry a message in both languages and are shown as they are. Server faults are
//! logged with their detail and answered with a generic message: internals never reach clients.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

use super::envelope::Envelope;
use super::lang::Text;

#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("bad request: {0}")]
    BadRequest(Text),
    #[error("unauthorized: {0}")]
    Unauthorized(Text),
    #[error("forbidden: {0}")]
    Forbidden(Text),
    #[error("not found: {0}")]
    NotFound(Text),
    #[error("method not allowed")]
    MethodNotAllowed,
    #[error("payload too large")]
    PayloadTooLarge,
    /// Too many requests: 429 with `Retry-After` (seconds).
    #[error("too many requests: {text}")]
    TooManyRequests { text: Text, retry_after: u64 },
    #[error("database: {0}")]
    Database(#[from] sqlx::Error),
    #[error("internal: {0}")]
    Internal(String),
}

pub type ApiResult<T> = Result<T, ApiError>;

impl ApiError {
    pub fn bad_request(zh: impl Into<String>, en: impl Into<String>) -> Self {
        ApiError::BadRequest(Text::owned(zh, en))
    }

    pub fn not_found() -> Self {
        ApiError::NotFound(Text::new("资源不存在", "Not found"))
    }

    /// The `Retry-After` seconds of a 429.
    pub fn retry_after(&self) -> Option<u64> {
        match self {
            ApiError::TooManyRequests { retry_after, .. } => Some(*retry_after),
            _ => None,
        }
    }

    pub fn status(&self) -> StatusCode {
        match self {
            ApiError::BadRequest(_) => StatusCode::BAD_REQUEST,
            ApiError::Unauthorized(_) => StatusCode::UNAUTHORIZED,
            ApiError::Forbidden(_) => StatusCode::FORBIDDEN,
            ApiError::NotFound(_) => StatusCode::NOT_FOUND,
            ApiError::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            ApiError::PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::TooManyRequests { .. } => StatusCode::TOO_MANY_REQUESTS,
            ApiError::Database(_) | ApiError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn message(&self) -> Text {
        match self {
            ApiError::BadRequest(t)
            | ApiError::Unauthorized(t)
            | ApiError::Forbidden(t)
            | ApiError::NotFound(t) => t.clone(),
            ApiError::MethodNotAllowed => Text::new("请求方法不支持", "Method not allowed"),
            ApiError::PayloadTooLarge => Text::new("请求内容过大", "Request body too large"),
            ApiError::TooManyRequests { text, .. } => text.clone(),
            ApiError::Database(_) | ApiError::Internal(_) => SERVER_FAULT,
        }
    }
}

pub const SERVER_FAULT: Text = Text::new(
    "服务器异常，请联系管理员",
    "Server error, please contact the administrator",
);

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = self.status();
        if status.is_server_error() {
            tracing::error!(error = %self, "request failed");
        } else {
            tracing::debug!(error = %self, "request refused");
        }
        let body = Envelope::<()>::failure(status.as_u16(), self.message().render());
        let mut response = (status, axum::Json(body)).into_response();
        if let Some(seconds) = self.retry_after() {
            response
                .headers_mut()
                .insert(axum::http::header::RETRY_AFTER, seconds.into());
        }
        response
    }
}
