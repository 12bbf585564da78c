//! Messages (`/api/message/list`, `/api/message/read`): one notification per recipient when an
//! alarm is raised. Recipients are the tenant's users who can see the alarm's station under the
//! station scope rule (`auth::scope`): unrestricted users all, restricted users (owners,
//! maintenance staff, anyone with assignments) only when the station is assigned to them.

use std::collections::{HashMap, HashSet};

use axum::extract::State;
use serde::{Deserialize, Serialize};
use sqlx::Row;
use utoipa::{IntoParams, ToSchema};

use super::store::Raise;
use crate::alarm::context::AlarmCtx;
use crate::auth::Caller;
use crate::auth::scope::ADMIN_ROLE;
use crate::auth::scope::{MAINTENANCE_ROLE, OWNER_ROLE};
use crate::kernel::Core;
use crate::kernel::extract::{Json, Query};
use crate::kernel::lang::Lang;
use crate::kernel::sql::{Sql, Value};
use crate::kernel::time::{self, Timestamp};
use crate::kernel::{ApiError, ApiResult, Data, Envelope, Id, Page};
use crate::notify::events::{self, Event};
use crate::notify::outbox::{self, plan_and_enqueue};

/// The users of `tenant` who can see `station` (see the module note).
pub async fn recipients(state: &Core, tenant: &str, station: i64) -> Result<Vec<i64>, ApiError> {
    let mut sql = Sql::new(
        "SELECT u.id, r.role_alias FROM blade_user u LEFT JOIN blade_user_role ur ON ur.user_id = u.id \
         LEFT JOIN blade_role r ON r.id = ur.role_id AND r.is_deleted = 0 WHERE ",
    );
    // By tenant: messages are written for the alarm's tenant by the engine, with no caller.
    sql.push_bind(
        "u.tenant_id = ? AND u.is_deleted = 0 AND u.status = 1",
        [Value::from(tenant)],
    );
    let mut aliases: HashMap<i64, Vec<String>> = HashMap::new();
    for r in sql.rows(state.db.pool()).await? {
        let entry = aliases.entry(r.try_get("id")?).or_default();
        if let Some(a) = r.try_get::<Option<String>, _>("role_alias")? {
            entry.push(a);
        }
    }
    let mut sql = Sql::new("SELECT user_id, station_id FROM pv_user_station WHERE ");
    // By tenant, as above.
    sql.push_bind("tenant_id = ?", [Value::from(tenant)]);
    let mut assigned: HashMap<i64, HashSet<i64>> = HashMap::new();
    for r in sql.rows(state.db.pool()).await? {
        assigned
            .entry(r.try_get("user_id")?)
            .or_default()
            .insert(r.try_get("station_id")?);
    }
    let mut out: Vec<i64> = aliases
        .into_iter()
        .filter(|(user, roles)| {
            let own = assigned.get(user);
            let restricted = !roles.iter().any(|a| a == ADMIN_ROLE)
                && (roles.iter().any(|a| a == OWNER_ROLE || a == MAINTENANCE_ROLE)
                    || own.is_some_and(|s| !s.is_empty()));
            !restricted || own.is_some_and(|s| s.contains(&station))
        })
        .map(|(u, _)| u)
        .collect();
    out.sort_unstable();
    Ok(out)
}

/// The notification event of a new alarm: a gateway gone silent, a smart warning, or a fault.
fn alarm_event(r: &Raise) -> &'static str {
    if r.device_kind == "gateway" && r.category == "comm" {
        events::GATEWAY_OFFLINE
    } else if r.r#type == super::codes::TYPE_WARNING {
        events::SMART_WARNING
    } else {
        events::ALARM_RAISED
    }
}

/// One message per recipient of a new alarm who keeps the bell for it, and their SMS and e-mail
/// in the outbox, in one transaction.
pub async fn create_for_alarm(state: &Core, alarm: Id, r: &Raise) -> Result<usize, ApiError> {
    let users = recipients(state, &r.tenant_id, r.station_id).await?;
    if users.is_empty() {
        return Ok(0);
    }
    let title = format!("{}：{}", r.device_name, r.name);
    let title_en = format!("{}: {}", r.device_name, r.name_en);
    let now = time::now_ms();
    let event = Event {
        tenant_id: &r.tenant_id,
        kind: alarm_event(r),
        level: r.level,
        biz_id: Some(alarm.0),
        title: &title,
        title_en: &title_en,
        content: &r.detail,
        content_en: &r.detail_en,
    };
    let mut tx = state.db.begin_write().await?;
    let bell = plan_and_enqueue(&mut tx, &state.ids, &event, &users, now).await?;
    for chunk in bell.chunks(200) {
        let mut sql = Sql::new(
            "INSERT INTO pv_message (id, tenant_id, user_id, alarm_id, type, title, title_en, content, \
             content_en, is_read, create_time) VALUES ",
        );
        for (i, user) in chunk.iter().enumerate() {
            if i > 0 {
                sql.push(", ");
            }
            sql.push_bind(
                "(?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?)",
                [
                    Value::from(state.ids.next()),
                    Value::from(r.tenant_id.as_str()),
                    Value::Int(*user),
                    Value::from(alarm),
                    Value::Int(r.r#type),
                    Value::from(title.chars().take(200).collect::<String>()),
                    Value::from(title_en.chars().take(200).collect::<String>()),
                    Value::from(r.detail.chars().take(1000).collect::<String>()),
                    Value::from(r.detail_en.chars().take(1000).collect::<String>()),
                    Value::Int(now),
                ],
            );
        }
        sql.execute(&mut *tx).await?;
    }
    tx.commit().await?;
    outbox::WAKE.notify_one();
    Ok(bell.len())
}

/// SMS and e-mail (no bell message) about a new alarm: smart warnings, which the bell lists as
/// open alarms rather than as messages.
pub async fn notify_only(state: &Core, alarm: Id, r: &Raise) -> Result<usize, ApiError> {
    let users = recipients(state, &r.tenant_id, r.station_id).await?;
    let title = format!("{}：{}", r.device_name, r.name);
    let title_en = format!("{}: {}", r.device_name, r.name_en);
    let event = Event {
        tenant_id: &r.tenant_id,
        kind: alarm_event(r),
        level: r.level,
        biz_id: Some(alarm.0),
        title: &title,
        title_en: &title_en,
        content: &r.detail,
        content_en: &r.detail_en,
    };
    let mut tx = state.db.begin_write().await?;
    let plan = events::plan(&mut tx, &event, &users).await?;
    let n = outbox::enqueue(&mut tx, &state.ids, &event, &plan, time::now_ms()).await?;
    tx.commit().await?;
    outbox::WAKE.notify_one();
    Ok(n)
}

/// SMS and e-mail to those subscribed to cleared alarms (the bell shows no message for a clear).
pub async fn notify_cleared(state: &Core, alarm: Id) -> Result<usize, ApiError> {
    let mut sql =
        Sql::new("SELECT tenant_id, station_id, device_name, name, name_en, level FROM pv_alarm WHERE ");
    sql.push_bind("id = ?", [Value::from(alarm)]);
    let Some(r) = sql.row(state.db.pool()).await? else {
        return Ok(0);
    };
    let tenant: String = r.try_get("tenant_id")?;
    let device: String = r.try_get("device_name")?;
    let users = recipients(state, &tenant, r.try_get("station_id")?).await?;
    let title = format!("已恢复 {device}：{}", r.try_get::<String, _>("name")?);
    let title_en = format!("Cleared {device}: {}", r.try_get::<String, _>("name_en")?);
    let event = Event {
        tenant_id: &tenant,
        kind: events::ALARM_CLEARED,
        level: r.try_get("level")?,
        biz_id: Some(alarm.0),
        title: &title,
        title_en: &title_en,
        content: &title,
        content_en: &title_en,
    };
    let mut tx = state.db.begin_write().await?;
    let plan = events::plan(&mut tx, &event, &users).await?;
    let n = outbox::enqueue(&mut tx, &state.ids, &event, &plan, time::now_ms()).await?;
    tx.commit().await?;
    outbox::WAKE.notify_one();
    Ok(n)
}

/// Message type of an inspection task's reminder or overdue notice.
pub const TYPE_INSPECTION: i64 = 3;
/// Message type of a repair order's dispatch, transfer, overdue or completion notice.
pub const TYPE_REPAIR: i64 = 4;

/// A message about work (an inspection task or a repair order) for some users of one tenant.
#[derive(Debug, Clone)]
pub struct WorkMessage<'a> {
    pub tenant_id: &'a str,
    /// [`TYPE_INSPECTION`] or [`TYPE_REPAIR`].
    pub r#type: i64,
    /// The notification event (`notify::events`) it is.
    pub event: &'static str,
    /// The task or order it concerns.
    pub biz_id: Id,
    pub title: &'a str,
    pub title_en: &'a str,
    pub content: &'a str,
    pub content_en: &'a str,
}

/// One message per user (duplicates in `users` count once) who keeps the bell for the event,
/// and their SMS and e-mail in the outbox, in one transaction. Callers wake the bell themselves
/// (`alarm::store::notify`) when they hold the alarm context.
pub async fn create_for_users(state: &Core, users: &[i64], m: &WorkMessage<'_>) -> Result<usize, ApiError> {
    let mut users = users.to_vec();
    users.sort_unstable();
    users.dedup();
    let now = time::now_ms();
    let event = Event {
        tenant_id: m.tenant_id,
        kind: m.event,
        level: 0,
        biz_id: Some(m.biz_id.0),
        title: m.title,
        title_en: m.title_en,
        content: m.content,
        content_en: m.content_en,
    };
    let mut tx = state.db.begin_write().await?;
    let users = plan_and_enqueue(&mut tx, &state.ids, &event, &users, now).await?;
    for chunk in users.chunks(200) {
        let mut sql = Sql::new(
            "INSERT INTO pv_message (id, tenant_id, user_id, biz_id, type, title, title_en, content, \
             content_en, is_read, create_time) VALUES ",
        );
        for (i, user) in chunk.iter().enumerate() {
            if i > 0 {
                sql.push(", ");
            }
            sql.push_bind(
                "(?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?)",
                [
                    Value::from(state.ids.next()),
                    Value::from(m.tenant_id),
                    Value::Int(*user),
                    Value::from(m.biz_id),
                    Value::Int(m.r#type),
                    Value::from(m.title.chars().take(200).collect::<String>()),
                    Value::from(m.title_en.chars().take(200).collect::<String>()),
                    Value::from(m.content.chars().take(1000).collect::<String>()),
                    Value::from(m.content_en.chars().take(1000).collect::<String>()),
                    Value::Int(now),
                ],
            );
        }
        sql.execute(&mut *tx).await?;
    }
    tx.commit().await?;
    outbox::WAKE.notify_one();
    Ok(users.len())
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
pub struct ListParams {
    pub current: Option<i64>,
    pub size: Option<i64>,
    /// `0` unread, `1` read; absent: all.
    pub is_read: Option<i64>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MessageItem {
    pub id: Id,
    pub alarm_id: Option<Id>,
    /// What the message is about: 1 station fault, 2 smart warning (both alarms), 3 inspection
    /// task, 4 repair order.
    pub r#type: i64,
    /// The inspection task or repair order of a work message (absent for alarm messages).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub biz_id: Option<Id>,
    pub title: String,
    pub content: String,
    pub is_read: i64,
    pub create_time: Timestamp,
}

/// The caller's messages, newest first (titles and contents per `Accept-Language`).
#[utoipa::path(get, path = "/api/message/list", tag = "alarm", params(ListParams),
    responses((status = 200, body = Envelope<Page<MessageItem>>), (status = 400), (status = 401)))]
pub async fn list(
    State(state): State<AlarmCtx>,
    caller: Caller,
    Query(p): Query<ListParams>,
) -> ApiResult<Data<Page<MessageItem>>> {
    let (current, size) = super::api::paging(p.current, p.size)?;
    let mut filter = Sql::new(" FROM pv_message WHERE ");
    filter.append(&caller.tenant_filter("tenant_id"));
    filter.push_bind(" AND user_id = ?", [Value::from(caller.user_id)]);
    if let Some(r) = p.is_read {
        filter.push_bind(" AND is_read = ?", [Value::Int(i64::from(r != 0))]);
    }
    let mut count = Sql::new("SELECT COUNT(*)");
    count.append(&filter);
    let total: i64 = count.scalar(state.db.pool()).await?;
    let mut sql = Sql::new(
        "SELECT id, alarm_id, biz_id, type, title, title_en, content, content_en, is_read, create_time",
    );
    sql.append(&filter);
    sql.push_bind(
        " ORDER BY create_time DESC, id DESC LIMIT ? OFFSET ?",
        [Value::Int(size), Value::Int((current - 1) * size)],
    );
    let en = Lang::current() == Lang::En;
    let records = sql
        .rows(state.db.pool())
        .await?
        .iter()
        .map(|r| {
            let pick = |zh: &str, en_col: &str| -> Result<String, sqlx::Error> {
                let z: String = r.try_get(zh)?;
                let e: String = r.try_get(en_col)?;
                Ok(if en && !e.is_empty() { e } else { z })
            };
            Ok(MessageItem {
                id: Id(r.try_get("id")?),
                alarm_id: r.try_get::<Option<i64>, _>("alarm_id")?.map(Id),
                r#type: r.try_get("type")?,
                biz_id: r.try_get::<Option<i64>, _>("biz_id")?.map(Id),
                title: pick("title", "title_en")?,
                content: pick("content", "content_en")?,
                is_read: r.try_get("is_read")?,
                create_time: Timestamp(r.try_get("create_time")?),
            })
        })
        .collect::<Result<Vec<_>, sqlx::Error>>()?;
    Ok(Data(Page::new(records, total, size, current)))
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReadBody {
    /// Message ids; empty (or absent) marks all of the caller's messages read.
    #[serde(default)]
    #[schema(value_type = Vec<String>)]
    pub ids: Vec<Id>,
}

/// Marks the caller's messages read; answers how many changed.
#[utoipa::path(post, path = "/api/message/read", tag = "alarm", request_body = ReadBody,
    responses((status = 200, body = Envelope<i64>), (status = 400), (status = 401)))]
pub async fn read(
    State(state): State<AlarmCtx>,
    caller: Caller,
    Json(body): Json<ReadBody>,
) -> ApiResult<Data<i64>> {
    if body.ids.len() > 1000 {
        return Err(ApiError::bad_request(
            "一次最多 1000 条",
            "At most 1000 ids at a time",
        ));
    }
    let mut sql = Sql::new("UPDATE pv_message SET is_read = 1 WHERE ");
    sql.append(&caller.tenant_filter("tenant_id"));
    sql.push_bind(" AND user_id = ? AND is_read = 0", [Value::from(caller.user_id)]);
    if !body.ids.is_empty() {
        sql.push(" AND id IN (");
        sql.push_ids(&body.ids);
        sql.push(")");
    }
    let n = sql.execute(state.db.pool()).await?;
    if n > 0 {
        // The bell's work items are the unread ones.
        super::store::notify(&state, &caller.tenant_id);
    }
    Ok(Data(n as i64))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_silent_gateway_and_a_smart_warning_are_their_own_events() {
        let gateway = crate::alarm::comm::gateway_lost("t", 1, "GW-1", 0);
        assert_eq!(alarm_event(&gateway), events::GATEWAY_OFFLINE);
        let warning = Raise {
            r#type: super::super::codes::TYPE_WARNING,
            device_kind: "inverter".into(),
            category: "dispersion".into(),
            ..gateway.clone()
        };
        assert_eq!(alarm_event(&warning), events::SMART_WARNING);
        let fault = Raise {
            r#type: super::super::codes::TYPE_FAULT,
            category: "fault".into(),
            ..warning
        };
        assert_eq!(alarm_event(&fault), events::ALARM_RAISED);
    }
}
