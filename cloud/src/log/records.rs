//! The log rows as the API shows them. Fields are declared in the order of their wire names
//! (the rows used to be JSON maps, which serialize their keys sorted), and every column is
//! present, `null` when empty.

use serde::Serialize;
use utoipa::ToSchema;

use crate::kernel::Id;
use crate::kernel::time::Timestamp;

/// One row of `blade_log_api`: a mutating call, or a read that failed with a server fault.
#[derive(Debug, Serialize, ToSchema, sqlx::FromRow)]
#[serde(rename_all = "camelCase")]
pub struct ApiLog {
    pub create_by: Option<String>,
    pub create_time: Option<Timestamp>,
    pub env: Option<String>,
    pub id: Id,
    pub method: Option<String>,
    pub params: Option<String>,
    pub remote_ip: Option<String>,
    pub request_uri: Option<String>,
    pub server_host: Option<String>,
    pub service_id: Option<String>,
    pub status: Option<i64>,
    pub tenant_id: Option<String>,
    /// Milliseconds the call took.
    #[sqlx(rename = "time_cost")]
    pub time: Option<i64>,
    pub title: Option<String>,
    #[sqlx(rename = "type")]
    #[serde(rename = "type")]
    pub kind: Option<String>,
    pub user_agent: Option<String>,
}

/// One row of `blade_log_usual`.
#[derive(Debug, Serialize, ToSchema, sqlx::FromRow)]
#[serde(rename_all = "camelCase")]
pub struct UsualLog {
    pub create_by: Option<String>,
    pub create_time: Option<Timestamp>,
    pub env: Option<String>,
    pub id: Id,
    pub log_data: Option<String>,
    pub log_id: Option<String>,
    pub log_level: Option<String>,
    pub method: Option<String>,
    pub params: Option<String>,
    pub remote_ip: Option<String>,
    pub request_uri: Option<String>,
    pub server_host: Option<String>,
    pub service_id: Option<String>,
    pub tenant_id: Option<String>,
    pub user_agent: Option<String>,
}

/// One row of `blade_log_error`: a server fault or an error the console uploaded.
#[derive(Debug, Serialize, ToSchema, sqlx::FromRow)]
#[serde(rename_all = "camelCase")]
pub struct ErrorLog {
    pub create_by: Option<String>,
    pub create_time: Option<Timestamp>,
    pub env: Option<String>,
    pub exception_name: Option<String>,
    pub id: Id,
    pub message: Option<String>,
    pub method: Option<String>,
    pub params: Option<String>,
    pub remote_ip: Option<String>,
    pub request_uri: Option<String>,
    pub server_host: Option<String>,
    pub service_id: Option<String>,
    pub stack_trace: Option<String>,
    pub tenant_id: Option<String>,
    pub user_agent: Option<String>,
}
