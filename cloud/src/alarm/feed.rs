//! `/ws/{userId}?token=...`: the console's alarm bell. On connect, and whenever the user's
//! alarms change, the server sends `{"data": [alarm, ...], "count": N}`; each message replaces
//! what the console shows. The client's `{}` messages are keep-alives. The connection closes
//! when the sign-in session ends.
//!
//! Beside the alarms, `work` carries the caller's unread work messages (inspection tasks and
//! repair orders, newest `WORK_LIMIT`) and `workCount` how many there are.
//!
//! The list is the caller's open (status 0) alarms of both types, station-scoped like every
//! alarm call, newest first, capped at `FEED_LIMIT`; `count` is the total. Every raise, clear,
//! acknowledgement or re-trigger wakes the tenant's connections (`store::notify`), each of which
//! re-reads its own scoped list: one indexed query per connection and change.

use std::time::Duration;

use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Path, RawQuery, State};
use axum::response::Response;
use serde::Serialize;
use utoipa::ToSchema;

use crate::alarm::context::AlarmCtx;
use crate::auth::Caller;
use crate::auth::scope::{Scoped, visible_stations};
use crate::kernel::Core;
use crate::kernel::lang::Text;
use crate::kernel::{ApiError, Id};

/// How long a connection lets alarm changes gather before it re-reads the list once.
const COALESCE: Duration = Duration::from_millis(100);

/// How often a connection re-checks that its session is still live.
const SESSION_CHECK: Duration = Duration::from_secs(30);

#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AlarmItem {
    pub id: Id,
    pub station_name: String,
    pub inverter: String,
    pub warning_name: String,
    /// ISO date-time with `T`.
    pub date: String,
    /// 1 station fault, otherwise a smart warning.
    pub r#type: i64,
}

/// An unread message about work (an inspection task or a repair order) for the bell.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WorkItem {
    /// The message's id (mark it read with `/api/message/read`).
    pub id: Id,
    /// 3 inspection task, 4 repair order.
    pub r#type: i64,
    /// The task or order.
    pub biz_id: Option<Id>,
    pub title: String,
    /// ISO date-time with `T`, like the alarm items.
    pub date: String,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FeedMessage {
    pub data: Vec<AlarmItem>,
    pub count: i64,
    /// The caller's unread work messages, newest first (at most `WORK_LIMIT`).
    pub work: Vec<WorkItem>,
    /// How many unread work messages the caller has.
    pub work_count: i64,
}

/// At most this many work messages travel in one message.
pub const WORK_LIMIT: i64 = 20;

/// At most this many alarms travel in one message (the bell shows "99+" beyond 99 anyway).
pub const FEED_LIMIT: i64 = 50;

/// The user's current active alarms, newest first, as the bell shows them (names in the
/// request's language).
pub async fn current(state: &Core, scope: &Scoped) -> Result<FeedMessage, ApiError> {
    current_in(state, scope, crate::kernel::lang::Lang::current()).await
}

/// [`current`] with names in `lang`.
pub async fn current_in(
    state: &Core,
    scope: &Scoped,
    lang: crate::kernel::lang::Lang,
) -> Result<FeedMessage, ApiError> {
    use crate::kernel::lang::Lang;
    use crate::kernel::sql::{Sql, Value};
    use sqlx::Row;

    let mut filter = Sql::new(" FROM pv_alarm a JOIN pv_station s ON s.id = a.station_id WHERE ");
    filter.append(&scope.caller.tenant_filter("a.tenant_id"));
    filter.push_bind(
        " AND a.status = ?",
        [Value::Int(crate::alarm::store::STATUS_ACTIVE)],
    );
    filter.push(" AND ");
    filter.append(&scope.stations.stations("s"));
    let mut count = Sql::new("SELECT COUNT(*)");
    count.append(&filter);
    let total: i64 = count.scalar(state.db.pool()).await?;
    let mut sql = Sql::new(
        "SELECT a.id, s.name AS station_name, a.device_name, a.name, a.name_en, a.last_time, a.type",
    );
    sql.append(&filter);
    sql.push_bind(
        " ORDER BY a.last_time DESC, a.id DESC LIMIT ?",
        [Value::Int(FEED_LIMIT)],
    );
    let en = lang == Lang::En;
    let data = sql
        .rows(state.db.pool())
        .await?
        .iter()
        .map(|r| {
            let name: String = r.try_get("name")?;
            let name_en: String = r.try_get("name_en")?;
            Ok(AlarmItem {
                id: Id(r.try_get("id")?),
                station_name: r.try_get("station_name")?,
                inverter: r.try_get("device_name")?,
                warning_name: if en && !name_en.is_empty() { name_en } else { name },
                date: iso(r.try_get("last_time")?),
                r#type: r.try_get("type")?,
            })
        })
        .collect::<Result<Vec<_>, sqlx::Error>>()?;
    let (work, work_count) = work_in(state, &scope.caller, en).await?;
    Ok(FeedMessage {
        data,
        count: total,
        work,
        work_count,
    })
}

/// The caller's unread work messages (types 3 and 4), newest first, and how many there are.
async fn work_in(state: &Core, caller: &Caller, en: bool) -> Result<(Vec<WorkItem>, i64), ApiError> {
    use crate::alarm::message::{TYPE_INSPECTION, TYPE_REPAIR};
    use crate::kernel::sql::{Sql, Value};
    use sqlx::Row;

    let mut filter = Sql::new(" FROM pv_message WHERE ");
    filter.append(&caller.tenant_filter("tenant_id"));
    filter.push_bind(
        " AND user_id = ? AND is_read = 0 AND type IN (?, ?)",
        [
            Value::from(caller.user_id),
            Value::Int(TYPE_INSPECTION),
            Value::Int(TYPE_REPAIR),
        ],
    );
    let mut count = Sql::new("SELECT COUNT(*)");
    count.append(&filter);
    let total: i64 = count.scalar(state.db.pool()).await?;
    let mut sql = Sql::new("SELECT id, type, biz_id, title, title_en, create_time");
    sql.append(&filter);
    sql.push_bind(
        " ORDER BY create_time DESC, id DESC LIMIT ?",
        [Value::Int(WORK_LIMIT)],
    );
    let work = sql
        .rows(state.db.pool())
        .await?
        .iter()
        .map(|r| {
            let title: String = r.try_get("title")?;
            let title_en: String = r.try_get("title_en")?;
            Ok(WorkItem {
                id: Id(r.try_get("id")?),
                r#type: r.try_get("type")?,
                biz_id: r.try_get::<Option<i64>, _>("biz_id")?.map(Id),
                title: if en && !title_en.is_empty() {
                    title_en
                } else {
                    title
                },
                date: iso(r.try_get("create_time")?),
            })
        })
        .collect::<Result<Vec<_>, sqlx::Error>>()?;
    Ok((work, total))
}

/// `yyyy-MM-ddTHH:mm:ss` in the hub's timezone (the date format of the bell's alarm items).
fn iso(ms: i64) -> String {
    crate::kernel::time::format_ms(ms).replacen(' ', "T", 1)
}

const WRONG_USER: Text = Text::new("无权订阅该用户的告警", "You may not follow this user's alarms");

#[utoipa::path(get, path = "/ws/{userId}", tag = "alarm",
    params(("userId" = String, Path), ("token" = String, Query, description = "The access token (browsers cannot set headers on a websocket)"), ("lang" = Option<String>, Query, description = "`en` or `zh`: the language of alarm names and titles (default: Accept-Language)")),
    responses((status = 101, description = "Websocket: server sends {data: [alarm], count, work: [message], workCount}"), (status = 401), (status = 403)))]
pub async fn connect(
    State(state): State<AlarmCtx>,
    Path(user_id): Path<String>,
    RawQuery(query): RawQuery,
    upgrade: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Result<Response, ApiError> {
    let pairs: Vec<(String, String)> =
        serde_urlencoded::from_str(query.as_deref().unwrap_or("")).unwrap_or_default();
    let token = pairs
        .iter()
        .find(|(k, _)| k == "token")
        .map(|(_, v)| v.as_str())
        .unwrap_or("");
    let token = token.strip_prefix("bearer ").unwrap_or(token);
    let caller = Caller::from_token(&state, token).await?;
    if caller.user_id.to_string() != user_id {
        return Err(ApiError::Forbidden(WRONG_USER));
    }
    let upgrade = upgrade.map_err(|e| {
        ApiError::bad_request(
            format!("需要 websocket 连接：{}", e.body_text()),
            format!("websocket expected: {}", e.body_text()),
        )
    })?;
    // The connection outlives the request's language scope, so its language is fixed here: the
    // console names its own (`lang`, since a browser's handshake carries the browser's
    // Accept-Language, not the language the console shows), else the handshake's.
    let lang = pairs
        .iter()
        .find(|(k, _)| k == "lang")
        .map(|(_, v)| crate::kernel::lang::Lang::from_accept_language(v))
        .unwrap_or_else(crate::kernel::lang::Lang::current);
    Ok(upgrade.on_upgrade(move |socket| serve(state, caller, lang, socket)))
}

async fn send(
    socket: &mut WebSocket,
    state: &Core,
    caller: &Caller,
    lang: crate::kernel::lang::Lang,
) -> bool {
    // The scope is resolved again for every re-read, not once per connection: a connection
    // lives for hours, and stations assigned or taken away meanwhile must show in the bell.
    let Ok(stations) = visible_stations(state, caller).await else {
        return false;
    };
    let scope = Scoped {
        caller: caller.clone(),
        stations,
    };
    let Ok(message) = current_in(state, &scope, lang).await else {
        return false;
    };
    let Ok(text) = serde_json::to_string(&message) else {
        return false;
    };
    socket.send(Message::Text(text.into())).await.is_ok()
}

async fn serve(state: AlarmCtx, caller: Caller, lang: crate::kernel::lang::Lang, mut socket: WebSocket) {
    // A feed reads the database until it ends; it ends when the hub stops (the console reconnects
    // after the restart), and the pool closes after it.
    let _busy = state.shutdown.busy();
    let _counted = crate::kernel::meter::Held::new(&state.meter.ws_clients);
    if !send(&mut socket, &state, &caller, lang).await {
        return;
    }
    let mut changed = state.alarms.changes.subscribe();
    let mut check = tokio::time::interval(SESSION_CHECK);
    check.tick().await;
    loop {
        tokio::select! {
            _ = state.shutdown.stopping() => break,
            incoming = socket.recv() => match incoming {
                Some(Ok(Message::Close(_))) | None | Some(Err(_)) => break,
                // Keep-alives and anything else the client says need no answer.
                Some(Ok(_)) => {}
            },
            change = changed.recv() => match change {
                Ok(tenant) if tenant != caller.tenant_id && tenant != crate::kernel::cluster::ALL => {}
                Ok(_) | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {
                    // Changes come in bursts (a grid fault trips many inverters at once): wait a
                    // moment and answer the whole burst with one re-read.
                    tokio::time::sleep(COALESCE).await;
                    while changed.try_recv().is_ok() {}
                    if !send(&mut socket, &state, &caller, lang).await { break; }
                }
                Err(tokio::sync::broadcast::error::RecvError::Closed) => break,
            },
            _ = check.tick() => {
                let live = crate::auth::session::find(&state.db, caller.session_id).await
                    .ok().flatten().is_some_and(|s| s.revoked == 0);
                if !live { break; }
            }
        }
    }
    let _ = socket.send(Message::Close(None)).await;
}
