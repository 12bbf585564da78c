//! The REST-shaped adapter's wire pieces: `{id}` paths (one id for GET, comma-joined for
//! DELETE), the id a PUT body names, and an update's merge of the body over the stored record.

use serde_json::{Map, Value as Json};

use crate::kernel::{ApiError, Id};

/// `{id}` of a path: one id, or comma-joined ids for DELETE.
#[derive(Debug, serde::Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Path)]
pub struct IdPath {
    /// One id (GET) or comma-joined ids (DELETE).
    pub id: String,
}

impl IdPath {
    pub fn one(&self) -> Result<Id, ApiError> {
        self.id.trim().parse().map_err(|_| {
            ApiError::bad_request(
                format!("无效的ID：{}", self.id),
                format!("invalid id {}", self.id),
            )
        })
    }
}

/// The id a PUT body names.
pub fn body_id(body: &Map<String, Json>) -> Result<Id, ApiError> {
    match body.get("id") {
        Some(Json::String(s)) => s.trim().parse().ok(),
        Some(Json::Number(n)) => n.as_i64().filter(|n| *n >= 0).map(Id),
        _ => None,
    }
    .ok_or_else(|| ApiError::bad_request("请指定要修改的记录", "The id of the record to change is required"))
}

/// An update changes the fields the body names: the body goes over the stored record and the
/// whole is checked again (write-only fields are absent from the stored form, so only the body
/// can set them).
pub fn merge(mut stored: Map<String, Json>, body: Map<String, Json>) -> Map<String, Json> {
    for (k, v) in body {
        stored.insert(k, v);
    }
    stored
}
