//! `{"code": 200, "success": true, "data": ..., "msg": "操作成功"}`: the shape of every `/api`
//! answer except the OAuth token, captcha and logout calls.

use axum::response::{IntoResponse, Response};
use serde::Serialize;
use utoipa::ToSchema;

use super::lang::Text;

pub const SUCCESS: Text = Text::new("操作成功", "Operation successful");

#[derive(Debug, Serialize, ToSchema)]
pub struct Envelope<T> {
    pub code: u16,
    /// True exactly when `code` is 200.
    pub success: bool,
    pub data: Option<T>,
    pub msg: String,
}

impl<T> Envelope<T> {
    pub fn success(data: T) -> Self {
        Envelope {
            code: 200,
            success: true,
            data: Some(data),
            msg: SUCCESS.render(),
        }
    }

    pub fn failure(code: u16, msg: String) -> Self {
        Envelope {
            code,
            success: false,
            data: None,
            msg,
        }
    }
}

/// A handler's successful answer: wraps `data` in the envelope when the response is built, so the
/// message follows the request's language.
pub struct Data<T>(pub T);

impl<T: Serialize> IntoResponse for Data<T> {
    fn into_response(self) -> Response {
        axum::Json(Envelope::success(self.0)).into_response()
    }
}

/// One page of a list: `{records, total, size, current, pages}`.
#[derive(Debug, Serialize, ToSchema)]
pub struct Page<T> {
    pub records: Vec<T>,
    pub total: i64,
    pub size: i64,
    pub current: i64,
    pub pages: i64,
}

impl<T> Page<T> {
    pub fn new(records: Vec<T>, total: i64, size: i64, current: i64) -> Self {
        let pages = if size > 0 { (total + size - 1) / size } else { 0 };
        Page {
            records,
            total,
            size,
            current,
            pages,
        }
    }
}
