//! What the inspection calls share: the delete answer (`删除成功`, or 400 `删除失败` when
//! nothing was removed), paging, dictionary entries, and the JSON columns (lists of strings).

use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::kernel::envelope::Envelope;
use crate::kernel::lang::Text;
use crate::kernel::list::{DEFAULT_SIZE, MAX_SIZE};
use crate::kernel::{ApiError, Id};

pub const DELETED: Text = Text::new("删除成功", "Deleted successfully");
pub const DELETE_FAILED: Text = Text::new("删除失败", "Delete failed");

/// The answer of a delete: `data` true and the message `删除成功`; nothing removed is a 400
/// `删除失败`.
pub struct Deleted;

impl Deleted {
    pub fn of(removed: u64) -> Result<Deleted, ApiError> {
        if removed == 0 {
            Err(ApiError::BadRequest(DELETE_FAILED))
        } else {
            Ok(Deleted)
        }
    }
}

impl IntoResponse for Deleted {
    fn into_response(self) -> Response {
        let mut body = Envelope::success(true);
        body.msg = DELETED.render();
        axum::Json(body).into_response()
    }
}

/// A dictionary entry for the console's selects.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InspectDictItem {
    pub dict_key: String,
    /// In the request's language.
    pub dict_value: String,
}

/// `current` and `size` of a page, defaulted and bounded.
pub fn paging(current: Option<i64>, size: Option<i64>) -> (i64, i64) {
    (
        current.unwrap_or(1).max(1),
        size.unwrap_or(DEFAULT_SIZE).clamp(1, MAX_SIZE),
    )
}

/// `{id}` of a GET path.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct InspectIdPath {
    /// One id (GET) or comma-joined ids (DELETE).
    pub id: String,
}

impl InspectIdPath {
    pub fn one(&self) -> Result<Id, ApiError> {
        self.id.trim().parse().map_err(|_| {
            ApiError::bad_request(
                format!("无效的ID：{}", self.id),
                format!("invalid id {}", self.id),
            )
        })
    }
}

/// A JSON column holding a list of strings; a broken value reads as empty.
pub fn strings_of(json: &str) -> Vec<String> {
    serde_json::from_str(json).unwrap_or_default()
}

pub fn json_of<T: Serialize>(v: &T) -> Result<String, ApiError> {
    serde_json::to_string(v).map_err(|e| ApiError::Internal(format!("json: {e}")))
}

/// Text trimmed, None when blank.
pub fn given(s: &Option<String>) -> Option<&str> {
    s.as_deref().map(str::trim).filter(|s| !s.is_empty())
}

/// The message of a text over `max` characters.
pub fn too_long(zh_field: &str, en_field: &str, max: usize) -> ApiError {
    ApiError::bad_request(
        format!("{zh_field}不能超过{max}个字符"),
        format!("The {en_field} must not exceed {max} characters"),
    )
}

/// Checks a text's length in characters.
pub fn check_len(s: &str, max: usize, zh_field: &str, en_field: &str) -> Result<(), ApiError> {
    if s.chars().count() > max {
        Err(too_long(zh_field, en_field, max))
    } else {
        Ok(())
    }
}
