//! The usual log: business events worth keeping (sign-in and its failures, sign-out, password
//! resets, tenant creation...). Recording never fails the caller: a row that cannot be stored is
//! reported in the server log instead.

use crate::kernel::Core;
use crate::kernel::sql::{Sql, Value};
use crate::kernel::{ApiError, time};

pub const INFO: &str = "info";
pub const WARN: &str = "warn";

/// Who did what: `tenant` owns the row (platform admins see all), `account` is its createBy.
#[derive(Debug, Clone, Default)]
pub struct Event<'a> {
    pub tenant: &'a str,
    pub account: Option<&'a str>,
    /// `info`, `warn` or `error`.
    pub level: &'a str,
    /// What happened, a short stable name: `login`, `login_failed`, `logout`, `tenant_create`...
    pub id: &'a str,
    pub data: &'a str,
    pub request_uri: Option<&'a str>,
}

fn clip(s: &str, max: usize) -> String {
    s.chars().take(max).collect()
}

/// Records an event with no known account.
pub async fn record(state: &Core, tenant: &str, level: &str, id: &str, data: &str) {
    record_event(
        state,
        Event {
            tenant,
            level,
            id,
            data,
            ..Event::default()
        },
    )
    .await;
}

/// Records an event; failures go to the server log.
pub async fn record_event(state: &Core, e: Event<'_>) {
    if let Err(err) = insert(state, &e).await {
        tracing::error!(error = %err, log_id = e.id, tenant = e.tenant, "usual log row could not be stored");
    }
}

async fn insert(state: &Core, e: &Event<'_>) -> Result<(), ApiError> {
    let mut sql = Sql::default();
    sql.push_bind(
        "INSERT INTO blade_log_usual (id, tenant_id, service_id, log_level, log_id, log_data, request_uri, \
         create_by, create_time) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            state.ids.next().into(),
            // A failed sign-in names whatever tenant the client sent; keep it within the column.
            clip(e.tenant, 12).into(),
            "pv-cloud".into(),
            clip(e.level, 10).into(),
            clip(e.id, 100).into(),
            clip(e.data, 20_000).into(),
            e.request_uri.map(|u| clip(u, 1000)).into(),
            e.account.map(|a| clip(a, 64)).into(),
            Value::Int(time::now_ms()),
        ],
    );
    sql.execute(state.db.pool()).await?;
    Ok(())
}

/// The outcome of a password or captcha sign-in.
pub async fn sign_in<T>(state: &Core, tenant: &str, account: Option<&str>, outcome: &Result<T, ApiError>) {
    let uri = Some("/api/blade-auth/oauth/token");
    match outcome {
        Ok(_) => {
            record_event(
                state,
                Event {
                    tenant,
                    account,
                    level: INFO,
                    id: "login",
                    data: "signed in",
                    request_uri: uri,
                },
            )
            .await
        }
        // Server faults are in the error log already; this records refused sign-ins.
        Err(ApiError::BadRequest(reason) | ApiError::Unauthorized(reason) | ApiError::Forbidden(reason)) => {
            record_event(
                state,
                Event {
                    tenant,
                    account,
                    level: WARN,
                    id: "login_failed",
                    data: &reason.en,
                    request_uri: uri,
                },
            )
            .await
        }
        Err(_) => {}
    }
}

/// A signed-in caller ended their session.
pub async fn sign_out(state: &Core, tenant: &str, account: &str) {
    record_event(
        state,
        Event {
            tenant,
            account: Some(account),
            level: INFO,
            id: "logout",
            data: "signed out",
            request_uri: Some("/api/blade-auth/oauth/logout"),
        },
    )
    .await;
}
