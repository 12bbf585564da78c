//! Where repair orders are kept (`pv_repair_order`, `pv_repair_log`, migration 0018): reading
//! them within the caller's scope, creating them, and the one way a status changes
//! ([`transition`]: a conditional UPDATE and its timeline row in the caller's transaction).
//!
//! Scope: unrestricted callers see the tenant's orders; a caller restricted to assigned stations
//! (owners, maintenance staff) sees the orders of those stations and the orders assigned to them.

use sqlx::{Any, Transaction};

use super::machine::NOT_IN_STATUS;
use super::record::{RepairLog, Row};
use crate::auth::scope::Scoped;
use crate::kernel::sql::{Sql, Value, is_unique_violation};
use crate::kernel::time::{self, Timestamp};
use crate::kernel::{ApiError, Core, Id};

pub const SELECT: &str = "SELECT o.id, o.tenant_id, o.code, o.title, o.description, o.station_id, \
     s.name AS station_name, o.device_id, o.device_name, o.alarm_id, o.alarm_name, o.alarm_level, \
     o.inspect_record_id, o.source, o.level, o.status, o.assignee_id, \
     COALESCE(NULLIF(au.real_name, ''), au.name, '') AS assignee_name, o.creator_id, \
     COALESCE(NULLIF(cu.real_name, ''), cu.name, '') AS creator_name, o.photos, o.work_done, o.parts, \
     o.finish_photos, o.rating, o.evaluation, o.response_deadline, o.repair_deadline, o.create_time, \
     o.accept_time, o.finish_time, o.complete_time, o.cancel_time, o.approval, o.approval_instance, \
     o.approval_comment";

pub const FROM: &str = " FROM pv_repair_order o JOIN pv_station s ON s.id = o.station_id \
     LEFT JOIN blade_user au ON au.id = o.assignee_id LEFT JOIN blade_user cu ON cu.id = o.creator_id";

/// ` WHERE` the caller's visible orders (live, own tenant, live station, in scope).
pub fn visible(scope: &Scoped) -> Sql {
    let mut sql = Sql::new(" WHERE ");
    sql.append(&scope.caller.tenant_filter("o.tenant_id"));
    sql.push(" AND o.is_deleted = 0 AND s.is_deleted = 0");
    if let Some(user) = scope.stations.assigned_to {
        sql.push_bind(
            " AND (o.station_id IN (SELECT station_id FROM pv_user_station WHERE user_id = ?) OR o.assignee_id = ?)",
            [Value::from(user), Value::from(user)],
        );
    }
    sql
}

/// The order `id` if the caller may see it.
pub async fn find(core: &Core, scope: &Scoped, id: Id) -> Result<Option<Row>, ApiError> {
    let mut sql = Sql::new(SELECT);
    sql.push(FROM);
    sql.append(&visible(scope));
    sql.push_bind(" AND o.id = ?", [Value::from(id)]);
    sql.fetch_optional::<Row, _>(core.db.pool()).await
}

/// Order `id` as stored, read inside `tx` (for the caller that just created it).
pub async fn find_in(tx: &mut Transaction<'_, Any>, id: Id) -> Result<Option<Row>, ApiError> {
    let mut sql = Sql::new(SELECT);
    sql.push(FROM);
    sql.push_bind(" WHERE o.id = ?", [Value::from(id)]);
    sql.fetch_optional::<Row, _>(&mut **tx).await
}

#[derive(Debug, sqlx::FromRow)]
struct LogRow {
    action: String,
    from_status: i64,
    to_status: i64,
    user_id: i64,
    user_name: String,
    note: String,
    create_time: i64,
}

/// The order's timeline, oldest first.
pub async fn logs(core: &Core, order: Id) -> Result<Vec<RepairLog>, ApiError> {
    let mut sql = Sql::new(
        "SELECT l.action, l.from_status, l.to_status, l.user_id, \
         COALESCE(NULLIF(u.real_name, ''), u.name, '') AS user_name, l.note, l.create_time \
         FROM pv_repair_log l LEFT JOIN blade_user u ON u.id = l.user_id WHERE ",
    );
    sql.push_bind(
        "l.order_id = ? ORDER BY l.create_time, l.id",
        [Value::from(order)],
    );
    let rows = sql.fetch_all::<LogRow, _>(core.db.pool()).await?;
    Ok(rows
        .into_iter()
        .map(|r| RepairLog {
            action: r.action,
            from_status: r.from_status,
            to_status: r.to_status,
            user_id: Id(r.user_id),
            user_name: r.user_name,
            note: r.note,
            create_time: Timestamp(r.create_time),
        })
        .collect())
}

/// One timeline row.
pub struct LogEntry<'a> {
    pub tenant_id: &'a str,
    pub order: Id,
    pub action: &'a str,
    pub from: i64,
    pub to: i64,
    /// 0: the system.
    pub user: i64,
    pub note: &'a str,
    pub at: i64,
}

pub async fn log(core: &Core, tx: &mut Transaction<'_, Any>, e: &LogEntry<'_>) -> Result<(), ApiError> {
    let mut sql = Sql::new(
        "INSERT INTO pv_repair_log (id, tenant_id, order_id, action, from_status, to_status, user_id, note, \
         create_time) VALUES ",
    );
    sql.push_bind(
        "(?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            Value::from(core.ids.next()),
            Value::from(e.tenant_id),
            Value::from(e.order),
            Value::from(e.action),
            Value::Int(e.from),
            Value::Int(e.to),
            Value::Int(e.user),
            Value::from(e.note.chars().take(1000).collect::<String>()),
            Value::Int(e.at),
        ],
    );
    sql.execute(&mut **tx).await?;
    Ok(())
}

/// Moves the order from `e.from` to `e.to` with `set` (further `, column = ?` assignments) and
/// writes the timeline row, inside `tx`. When the order is no longer in `e.from` (someone acted
/// first), nothing changes and the answer is the "not allowed in this status" refusal.
pub async fn transition(
    core: &Core,
    tx: &mut Transaction<'_, Any>,
    e: &LogEntry<'_>,
    set: Sql,
) -> Result<(), ApiError> {
    let mut sql = Sql::new("UPDATE pv_repair_order SET ");
    sql.push_bind(
        "status = ?, update_time = ?",
        [Value::Int(e.to), Value::Int(e.at)],
    );
    sql.append(&set);
    sql.push_bind(
        " WHERE id = ? AND status = ? AND is_deleted = 0",
        [Value::from(e.order), Value::Int(e.from)],
    );
    if sql.execute(&mut **tx).await? == 0 {
        return Err(ApiError::BadRequest(NOT_IN_STATUS));
    }
    log(core, tx, e).await
}

/// What a new order is made of.
pub struct NewOrder {
    pub tenant_id: String,
    pub title: String,
    pub description: String,
    pub station_id: i64,
    pub device_id: Option<i64>,
    pub device_name: String,
    pub alarm_id: Option<i64>,
    pub alarm_name: String,
    pub alarm_level: Option<i64>,
    pub inspect_record_id: Option<i64>,
    pub inspect_result_index: Option<i64>,
    pub source: i64,
    pub level: i64,
    pub creator_id: i64,
    pub photos: Vec<String>,
    pub response_deadline: i64,
    pub repair_deadline: i64,
}

fn opt(v: Option<i64>) -> Value {
    v.map(Value::Int).unwrap_or(Value::Null)
}

/// Opening a second order from an inspection result that already has an open one.
pub const RESULT_HAS_ORDER: crate::kernel::lang::Text = crate::kernel::lang::Text::new(
    "该巡检结果已有工单",
    "This inspection result already has a repair order",
);

/// Whether order `id` is still open (neither completed nor canceled).
pub async fn is_open(core: &Core, id: Id) -> Result<bool, ApiError> {
    let mut sql = Sql::new("SELECT status FROM pv_repair_order WHERE ");
    sql.push_bind("id = ?", [Value::from(id)]);
    Ok(sql
        .scalar_optional::<i64, _>(core.db.pool())
        .await?
        .is_some_and(super::machine::is_open))
}

pub const ALARM_HAS_ORDER: crate::kernel::lang::Text =
    crate::kernel::lang::Text::new("该告警已有工单", "This alarm already has a repair order");

/// Inserts the order (status submitted) with its creation row; answers its id. The code is the
/// day's next number; two creations racing for one code retry with the next.
pub async fn insert(
    core: &Core,
    tx: &mut Transaction<'_, Any>,
    o: &NewOrder,
    at: i64,
) -> Result<Id, ApiError> {
    let id = core.ids.next();
    let day = time::format_ms(at).get(..10).unwrap_or_default().replace('-', "");
    let prefix = format!("WO{day}");
    for attempt in 0..5 {
        let mut n = Sql::new("SELECT COUNT(*) FROM pv_repair_order WHERE ");
        // By tenant: codes are unique per tenant, whoever can see which order.
        n.push_bind(
            "tenant_id = ? AND code LIKE ?",
            [
                Value::from(o.tenant_id.as_str()),
                Value::from(format!("{prefix}%")),
            ],
        );
        let count: i64 = n.scalar(&mut **tx).await?;
        let code = format!("{prefix}{:04}", count + 1 + attempt);
        let mut sql = Sql::new(
            "INSERT INTO pv_repair_order (id, tenant_id, code, title, description, station_id, device_id, \
             device_name, alarm_id, alarm_name, alarm_level, inspect_record_id, inspect_result_index, source, \
             level, status, creator_id, photos, finish_photos, response_deadline, repair_deadline, create_time, \
             update_time) VALUES ",
        );
        sql.push_bind(
            "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, '[]', ?, ?, ?, ?)",
            [
                Value::from(id),
                Value::from(o.tenant_id.as_str()),
                Value::from(code),
                Value::from(o.title.as_str()),
                Value::from(o.description.as_str()),
                Value::Int(o.station_id),
                opt(o.device_id),
                Value::from(o.device_name.chars().take(100).collect::<String>()),
                opt(o.alarm_id),
                Value::from(o.alarm_name.chars().take(200).collect::<String>()),
                opt(o.alarm_level),
                opt(o.inspect_record_id),
                opt(o.inspect_result_index),
                Value::Int(o.source),
                Value::Int(o.level),
                Value::Int(o.creator_id),
                Value::from(serde_json::to_string(&o.photos).unwrap_or_else(|_| "[]".into())),
                Value::Int(o.response_deadline),
                Value::Int(o.repair_deadline),
                Value::Int(at),
                Value::Int(at),
            ],
        );
        // A savepoint, so a refused insert leaves the transaction usable on PostgreSQL.
        Sql::new("SAVEPOINT repair_insert").execute(&mut **tx).await?;
        match sql.execute(&mut **tx).await {
            Ok(_) => {
                Sql::new("RELEASE SAVEPOINT repair_insert")
                    .execute(&mut **tx)
                    .await?;
                break;
            }
            Err(e) if is_unique_violation(&e) => {
                Sql::new("ROLLBACK TO SAVEPOINT repair_insert")
                    .execute(&mut **tx)
                    .await?;
                if o.alarm_id.is_some() && alarm_has_open_order(tx, o.alarm_id).await? {
                    return Err(ApiError::BadRequest(ALARM_HAS_ORDER));
                }
                if attempt == 4 {
                    return Err(e);
                }
            }
            Err(e) => return Err(e),
        }
    }
    log(
        core,
        tx,
        &LogEntry {
            tenant_id: &o.tenant_id,
            order: id,
            action: "create",
            from: 0,
            to: super::machine::SUBMITTED,
            user: o.creator_id,
            note: "",
            at,
        },
    )
    .await?;
    if let Some(alarm) = o.alarm_id {
        let mut sql = Sql::new("UPDATE pv_alarm SET ");
        sql.push_bind("repair_id = ? WHERE id = ?", [Value::from(id), Value::Int(alarm)]);
        sql.execute(&mut **tx).await?;
    }
    Ok(id)
}

async fn alarm_has_open_order(tx: &mut Transaction<'_, Any>, alarm: Option<i64>) -> Result<bool, ApiError> {
    Ok(open_order_of_alarm(tx, alarm.unwrap_or(0)).await?.is_some())
}

/// The open order of an alarm, if any.
pub async fn open_order_of_alarm(tx: &mut Transaction<'_, Any>, alarm: i64) -> Result<Option<Id>, ApiError> {
    let mut sql = Sql::new("SELECT id FROM pv_repair_order WHERE ");
    sql.push_bind(
        "alarm_id = ? AND status < ? AND is_deleted = 0",
        [Value::Int(alarm), Value::Int(super::machine::COMPLETED)],
    );
    Ok(sql.scalar_optional::<i64, _>(&mut **tx).await?.map(Id))
}
