//! The calls: a user's own notification settings (any signed-in user, for themselves only) and
//! the tenant's notification log (the `notifyLog` menu).

use axum::extract::State;
use serde::{Deserialize, Serialize};
use sqlx::Row;
use utoipa::{IntoParams, ToSchema};

use super::events::{Channels, EVENTS};
use super::settings::{self, Settings};
use crate::auth::Caller;
use crate::kernel::extract::{Json, Query};
use crate::kernel::lang::Lang;
use crate::kernel::sql::{Sql, Value};
use crate::kernel::time::Timestamp;
use crate::kernel::{ApiError, ApiResult, Core, Data, Envelope, Id, Page, time};

/// The menu whose holders read the tenant's notification log.
pub const LOG_MENU: &str = "notifyLog";

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(as = NotifySubscription)]
#[serde(rename_all = "camelCase")]
pub struct Subscription {
    /// `alarm_raised`, `alarm_cleared`, `smart_warning`, `gateway_offline`, `repair_assigned`,
    /// `repair_overdue`, `repair_returned` or `inspection_due`.
    pub event: String,
    #[serde(flatten)]
    pub channels: Channels,
}

/// A user's notification settings: quiet hours, digest, language and one row per event.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct NotifySettings {
    #[serde(flatten)]
    pub settings: Settings,
    pub events: Vec<Subscription>,
}

/// The caller's settings (the defaults where unchanged).
#[utoipa::path(get, path = "/api/blade-resource/notify/setting", tag = "resource",
    responses((status = 200, body = Envelope<NotifySettings>), (status = 401)))]
pub async fn get_setting(State(core): State<Core>, caller: Caller) -> ApiResult<Data<NotifySettings>> {
    let s = settings::load(core.db.pool(), caller.user_id.0).await?;
    let mut sql = Sql::new("SELECT event, bell, sms, email, min_level FROM pv_notify_subscription WHERE ");
    sql.append(&caller.tenant_filter("tenant_id"));
    sql.push_bind(" AND user_id = ?", [Value::from(caller.user_id)]);
    let mut own = std::collections::HashMap::new();
    for r in sql.rows(core.db.pool()).await? {
        own.insert(
            r.try_get::<String, _>("event")?,
            Channels {
                bell: r.try_get::<i64, _>("bell")? != 0,
                sms: r.try_get::<i64, _>("sms")? != 0,
                email: r.try_get::<i64, _>("email")? != 0,
                min_level: r.try_get("min_level")?,
            },
        );
    }
    let events = EVENTS
        .iter()
        .map(|(e, d)| Subscription {
            event: (*e).to_owned(),
            channels: own.get(*e).copied().unwrap_or(*d),
        })
        .collect();
    Ok(Data(NotifySettings { settings: s, events }))
}

/// Saves the caller's settings; events left out keep what they had.
#[utoipa::path(post, path = "/api/blade-resource/notify/setting", tag = "resource", request_body = NotifySettings,
    responses((status = 200, body = Envelope<bool>), (status = 400), (status = 401)))]
pub async fn save_setting(
    State(core): State<Core>,
    caller: Caller,
    Json(body): Json<NotifySettings>,
) -> ApiResult<Data<bool>> {
    body.settings.validate()?;
    for s in &body.events {
        if super::events::defaults(&s.event).is_none() || !(1..=4).contains(&s.channels.min_level) {
            return Err(ApiError::bad_request(
                format!("未知的通知事件或级别：{}", s.event),
                format!("Unknown notification event or level: {}", s.event),
            ));
        }
    }
    let now = time::now_ms();
    let user = caller.user_id.0;
    let mut tx = core.db.begin_write().await?;
    let mut del = Sql::new("DELETE FROM pv_notify_setting WHERE ");
    del.push_bind("user_id = ?", [Value::Int(user)]);
    del.execute(&mut *tx).await?;
    let s = &body.settings;
    let mut ins = Sql::new(
        "INSERT INTO pv_notify_setting (user_id, tenant_id, quiet_enabled, quiet_start, quiet_end, \
         digest_below, digest_hour, lang, update_time) VALUES ",
    );
    ins.push_bind(
        "(?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            Value::Int(user),
            Value::from(caller.tenant_id.as_str()),
            Value::Int(i64::from(s.quiet_enabled != 0)),
            Value::Int(s.quiet_start),
            Value::Int(s.quiet_end),
            Value::Int(s.digest_below),
            Value::Int(s.digest_hour),
            Value::from(s.lang.as_str()),
            Value::Int(now),
        ],
    );
    ins.execute(&mut *tx).await?;
    for e in &body.events {
        let mut del = Sql::new("DELETE FROM pv_notify_subscription WHERE ");
        del.push_bind(
            "user_id = ? AND event = ?",
            [Value::Int(user), Value::from(e.event.as_str())],
        );
        del.execute(&mut *tx).await?;
        let c = e.channels;
        let mut ins = Sql::new(
            "INSERT INTO pv_notify_subscription (id, tenant_id, user_id, event, bell, sms, email, min_level, \
             update_time) VALUES ",
        );
        ins.push_bind(
            "(?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                Value::from(core.ids.next()),
                Value::from(caller.tenant_id.as_str()),
                Value::Int(user),
                Value::from(e.event.as_str()),
                Value::Int(i64::from(c.bell)),
                Value::Int(i64::from(c.sms)),
                Value::Int(i64::from(c.email)),
                Value::Int(c.min_level),
                Value::Int(now),
            ],
        );
        ins.execute(&mut *tx).await?;
    }
    tx.commit().await?;
    Ok(Data(true))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
pub struct LogParams {
    pub current: Option<i64>,
    pub size: Option<i64>,
    /// `sms` or `email`.
    pub channel: Option<String>,
    /// 0 waiting, 1 sending, 2 sent, 3 failed, 4 skipped, 5 in a digest.
    pub status: Option<i64>,
    /// Part of the recipient's account or name.
    pub account: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct NotifyLogItem {
    pub id: Id,
    pub user_id: Id,
    pub account: String,
    pub real_name: String,
    pub channel: String,
    pub event: String,
    pub level: i64,
    pub title: String,
    pub content: String,
    pub status: i64,
    pub attempts: i64,
    /// Where it went: the phone or e-mail address (masked in the middle).
    pub address: String,
    /// `ok`, or why it was not sent (yet).
    pub result: String,
    pub create_time: Timestamp,
    pub sent_time: Option<Timestamp>,
}

/// Hides the middle of a phone number or the name of an e-mail address.
fn mask(address: &str) -> String {
    let chars: Vec<char> = address.chars().collect();
    if let Some(at) = address.find('@') {
        let name: Vec<char> = address[..at].chars().collect();
        let keep: String = name.iter().take(2).collect();
        return format!("{keep}***{}", &address[at..]);
    }
    if chars.len() < 7 {
        return "*".repeat(chars.len());
    }
    let head: String = chars[..3].iter().collect();
    let tail: String = chars[chars.len() - 4..].iter().collect();
    format!("{head}****{tail}")
}

/// The tenant's SMS and e-mail, newest first: who, what, which channel, and the result.
#[utoipa::path(get, path = "/api/blade-resource/notify/log/list", tag = "resource", params(LogParams),
    responses((status = 200, body = Envelope<Page<NotifyLogItem>>), (status = 400), (status = 401), (status = 403)))]
pub async fn log_list(
    State(core): State<Core>,
    caller: Caller,
    Query(p): Query<LogParams>,
) -> ApiResult<Data<Page<NotifyLogItem>>> {
    caller.require(&core, LOG_MENU).await?;
    let (current, size) = crate::alarm::api::paging(p.current, p.size)?;
    let mut filter = Sql::new(" FROM pv_notify_outbox o LEFT JOIN blade_user u ON u.id = o.user_id WHERE ");
    filter.append(&caller.tenant_filter("o.tenant_id"));
    if let Some(c) = p.channel.as_deref().filter(|c| !c.is_empty()) {
        filter.push_bind(" AND o.channel = ?", [Value::from(c)]);
    }
    if let Some(s) = p.status {
        filter.push_bind(" AND o.status = ?", [Value::Int(s)]);
    }
    if let Some(u) = p.account.as_deref().map(str::trim).filter(|u| !u.is_empty()) {
        let like = crate::kernel::sql::like_contains(u);
        filter.push_bind(
            " AND (u.account LIKE ? OR u.real_name LIKE ?)",
            [Value::from(like.as_str()), Value::from(like.as_str())],
        );
    }
    let mut count = Sql::new("SELECT COUNT(*)");
    count.append(&filter);
    let total: i64 = count.scalar(core.db.pool()).await?;
    let mut sql = Sql::new(
        "SELECT o.id, o.user_id, u.account, u.real_name, o.channel, o.event, o.level, o.title, o.title_en, \
         o.content, o.content_en, o.status, o.attempts, o.address, o.result, o.create_time, o.sent_time",
    );
    sql.append(&filter);
    sql.push_bind(
        " ORDER BY o.create_time DESC, o.id DESC LIMIT ? OFFSET ?",
        [Value::Int(size), Value::Int((current - 1) * size)],
    );
    let en = Lang::current() == Lang::En;
    let records = sql
        .rows(core.db.pool())
        .await?
        .iter()
        .map(|r| {
            let pick = |zh: &str, en_col: &str| -> Result<String, sqlx::Error> {
                let z: String = r.try_get(zh)?;
                let e: String = r.try_get(en_col)?;
                Ok(if en && !e.is_empty() { e } else { z })
            };
            Ok(NotifyLogItem {
                id: Id(r.try_get("id")?),
                user_id: Id(r.try_get("user_id")?),
                account: r.try_get::<Option<String>, _>("account")?.unwrap_or_default(),
                real_name: r.try_get::<Option<String>, _>("real_name")?.unwrap_or_default(),
                channel: r.try_get("channel")?,
                event: r.try_get("event")?,
                level: r.try_get("level")?,
                title: pick("title", "title_en")?,
                content: pick("content", "content_en")?,
                status: r.try_get("status")?,
                attempts: r.try_get("attempts")?,
                address: mask(&r.try_get::<Option<String>, _>("address")?.unwrap_or_default()),
                result: r.try_get::<Option<String>, _>("result")?.unwrap_or_default(),
                create_time: Timestamp(r.try_get("create_time")?),
                sent_time: r.try_get::<Option<i64>, _>("sent_time")?.map(Timestamp),
            })
        })
        .collect::<Result<Vec<_>, sqlx::Error>>()?;
    Ok(Data(Page::new(records, total, size, current)))
}

#[cfg(test)]
mod tests {
    #[test]
    fn addresses_are_masked() {
        assert_eq!(super::mask("13800000001"), "138****0001");
        assert_eq!(super::mask("maint@pv.test"), "ma***@pv.test");
        assert_eq!(super::mask(""), "");
    }
}
