//! Request extractors whose rejections answer with the envelope instead of axum's plain text.

use axum::extract::rejection::{JsonRejection, PathRejection, QueryRejection};
use axum::extract::{FromRequest, FromRequestParts};

use super::error::ApiError;

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
