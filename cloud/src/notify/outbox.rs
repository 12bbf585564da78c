//! Putting SMS and e-mail into the outbox (`pv_notify_outbox`), inside the caller's transaction:
//! the bell message and the outbox rows of one event commit together or not at all, and nothing
//! is sent before the commit (the deliverer reads committed rows only).

use std::collections::HashMap;

use sqlx::Row;

use super::events::{Channels, Event};
use crate::kernel::ApiError;
use crate::kernel::id::IdGenerator;
use crate::kernel::sql::{Sql, Value};

pub const SMS: &str = "sms";
pub const EMAIL: &str = "email";

/// Outbox statuses (see migration 0042).
pub const WAITING: i64 = 0;
pub const SENDING: i64 = 1;
pub const SENT: i64 = 2;
pub const FAILED: i64 = 3;
pub const SKIPPED: i64 = 4;
pub const DIGESTED: i64 = 5;

/// Wakes this process's deliverer after a commit (the other replicas find the rows on their
/// next poll).
pub static WAKE: tokio::sync::Notify = tokio::sync::Notify::const_new();

fn cut(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}

/// The phone and e-mail of each user that has them.
async fn addresses(
    conn: &mut sqlx::AnyConnection,
    users: &[i64],
) -> Result<HashMap<i64, (String, String)>, ApiError> {
    let mut out = HashMap::new();
    for chunk in users.chunks(500) {
        let mut sql = Sql::new("SELECT id, phone, email FROM blade_user WHERE is_deleted = 0 AND id IN (");
        for (i, u) in chunk.iter().enumerate() {
            sql.push_bind(if i == 0 { "?" } else { ", ?" }, [Value::Int(*u)]);
        }
        sql.push(")");
        for r in sql.rows(&mut *conn).await? {
            let phone: Option<String> = r.try_get("phone")?;
            let email: Option<String> = r.try_get("email")?;
            out.insert(
                r.try_get("id")?,
                (
                    phone.unwrap_or_default().trim().to_owned(),
                    email.unwrap_or_default().trim().to_owned(),
                ),
            );
        }
    }
    Ok(out)
}

/// One outbox row per user and channel the plan asks for, when the user has an address for
/// it and the event's level is at least the user's minimum. Answers how many rows.
pub async fn enqueue(
    conn: &mut sqlx::AnyConnection,
    ids: &IdGenerator,
    event: &Event<'_>,
    plan: &[(i64, Channels)],
    now: i64,
) -> Result<usize, ApiError> {
    let wanted: Vec<i64> = plan
        .iter()
        .filter(|(_, c)| (c.sms || c.email) && (event.level == 0 || event.level >= c.min_level))
        .map(|(u, _)| *u)
        .collect();
    if wanted.is_empty() {
        return Ok(0);
    }
    let known = addresses(conn, &wanted).await?;
    let mut rows = Vec::new();
    for (user, c) in plan {
        let Some((phone, email)) = known.get(user) else {
            continue;
        };
        if !wanted.contains(user) {
            continue;
        }
        if c.sms && !phone.is_empty() {
            rows.push((*user, SMS));
        }
        if c.email && !email.is_empty() {
            rows.push((*user, EMAIL));
        }
    }
    for chunk in rows.chunks(100) {
        let mut sql = Sql::new(
            "INSERT INTO pv_notify_outbox (id, tenant_id, user_id, channel, event, level, biz_id, title, \
             title_en, content, content_en, urgent, digest, status, attempts, next_time, lease_until, \
             create_time) VALUES ",
        );
        for (i, (user, channel)) in chunk.iter().enumerate() {
            if i > 0 {
                sql.push(", ");
            }
            sql.push_bind(
                "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0, 0, ?, 0, ?)",
                [
                    Value::Int(ids.next().0),
                    Value::from(event.tenant_id),
                    Value::Int(*user),
                    Value::from(*channel),
                    Value::from(event.kind),
                    Value::Int(event.level),
                    event.biz_id.map(Value::Int).unwrap_or(Value::Null),
                    Value::from(cut(event.title, 200)),
                    Value::from(cut(event.title_en, 200)),
                    Value::from(cut(event.content, 1000)),
                    Value::from(cut(event.content_en, 1000)),
                    Value::Int(i64::from(event.urgent())),
                    Value::Int(now),
                    Value::Int(now),
                ],
            );
        }
        sql.execute(&mut *conn).await?;
    }
    Ok(rows.len())
}

/// Plans `event` for `users` and enqueues its SMS and e-mail; answers the users who get the
/// bell message (the caller writes those in the same transaction).
pub async fn plan_and_enqueue(
    conn: &mut sqlx::AnyConnection,
    ids: &IdGenerator,
    event: &Event<'_>,
    users: &[i64],
    now: i64,
) -> Result<Vec<i64>, ApiError> {
    let plan = super::events::plan(&mut *conn, event, users).await?;
    enqueue(conn, ids, event, &plan, now).await?;
    Ok(plan.iter().filter(|(_, c)| c.bell).map(|(u, _)| *u).collect())
}
