//! Bracket alarms (`/api/alarmDataFlex`): the `pv_alarm` rows of category `flex`, as the alarm
//! record of the contract plus the rule's variable and comparison, resolved from the alarm kind
//! `flex:<setting id>` (a removed rule still names its old alarms).
//!
//! Reads are station-scoped like every alarm read; deleting needs the button
//! `alarmDataFlex_delete` and is refused for an alarm still open (clear it first: deleting an open
//! alarm would let the same condition open a second one at once and lose the history).

use std::collections::HashMap;

use axum::extract::State;
use serde::Serialize;
use sqlx::Row;
use sqlx::any::AnyRow;
use utoipa::ToSchema;

use super::bracket_rule;
use crate::alarm::context::AlarmCtx;
use crate::alarm::store;
use crate::auth::Caller;
use crate::auth::scope::Scoped;
use crate::kernel::Core;
use crate::kernel::extract::Path;
use crate::kernel::id::ids_param;
use crate::kernel::lang::Text;
use crate::kernel::list::{Field, Kind, ListQuery, fetch_page_with};
use crate::kernel::sql::{Sql, Value};
use crate::kernel::{ApiError, ApiResult, Data, Envelope, Id, Page, time};
use crate::station::device::IdPath;

pub const MENU: &str = "alarmDataFlex";

/// One bracket alarm (times `yyyy-MM-dd HH:mm:ss`; names in the request's language).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AlarmFlex {
    pub id: Id,
    pub station_id: Id,
    pub station_name: Option<String>,
    pub device_id: Id,
    pub device_kind: String,
    pub device_name: String,
    /// The device name again, under the name the alarm list uses.
    pub inverter: String,
    pub kind: String,
    pub category: String,
    pub r#type: i64,
    pub level: i64,
    pub code: String,
    pub warning_name: String,
    pub detail: String,
    pub value: Option<f64>,
    pub threshold: Option<f64>,
    /// 0 active, 1 acknowledged, 2 cleared.
    pub status: i64,
    pub status_name: String,
    pub first_time: String,
    pub last_time: String,
    pub occurrences: i64,
    pub ack_user_name: Option<String>,
    pub ack_time: Option<String>,
    pub ack_note: Option<String>,
    /// "系统" / "system" when cleared automatically.
    pub clear_user_name: Option<String>,
    pub clear_time: Option<String>,
    pub clear_note: Option<String>,
    /// The rule that raised it (null when the kind names none).
    pub setting_id: Option<Id>,
    pub variable: Option<String>,
    pub variable_name: Option<String>,
    pub comparison: Option<String>,
}

pub fn status_name(status: i64) -> Text {
    match status {
        store::STATUS_ACTIVE => Text::new("未处理", "Active"),
        store::STATUS_ACKNOWLEDGED => Text::new("已确认", "Acknowledged"),
        _ => Text::new("已清除", "Cleared"),
    }
}

const COLUMNS: &str = "a.id, a.station_id, a.device_id, a.device_kind, a.device_name, a.kind, a.category, \
     a.type, a.level, a.code, a.name, a.name_en, a.detail, a.detail_en, a.value, a.threshold, a.status, \
     a.first_time, a.last_time, a.occurrences, a.ack_user, a.ack_time, a.ack_note, a.clear_user, \
     a.clear_time, a.clear_note, \
     (SELECT s.name FROM pv_station s WHERE s.id = a.station_id) AS station_name, \
     (SELECT COALESCE(u.real_name, u.name, u.account) FROM blade_user u WHERE u.id = a.ack_user) AS ack_user_name, \
     (SELECT COALESCE(u.real_name, u.name, u.account) FROM blade_user u WHERE u.id = a.clear_user) AS clear_user_name";

fn to_record(r: &AnyRow) -> Result<AlarmFlex, ApiError> {
    let pick = |zh: String, en: String| Text::owned(zh, en).render();
    let device_name: String = r.try_get("device_name")?;
    let status: i64 = r.try_get("status")?;
    let clear_user: Option<i64> = r.try_get("clear_user")?;
    let clear_user_name = match clear_user {
        Some(0) => Some(Text::new("系统", "system").render()),
        Some(_) => r.try_get("clear_user_name")?,
        None => None,
    };
    let kind: String = r.try_get("kind")?;
    Ok(AlarmFlex {
        id: Id(r.try_get("id")?),
        station_id: Id(r.try_get("station_id")?),
        station_name: r.try_get("station_name")?,
        device_id: Id(r.try_get("device_id")?),
        device_kind: r.try_get("device_kind")?,
        inverter: device_name.clone(),
        device_name,
        setting_id: bracket_rule::setting_id_of(&kind).map(Id),
        kind,
        category: r.try_get("category")?,
        r#type: r.try_get("type")?,
        level: r.try_get("level")?,
        code: r.try_get("code")?,
        warning_name: pick(r.try_get("name")?, r.try_get("name_en")?),
        detail: pick(r.try_get("detail")?, r.try_get("detail_en")?),
        value: r.try_get("value")?,
        threshold: r.try_get("threshold")?,
        status,
        status_name: status_name(status).render(),
        first_time: time::format_ms(r.try_get("first_time")?),
        last_time: time::format_ms(r.try_get("last_time")?),
        occurrences: r.try_get("occurrences")?,
        ack_user_name: r.try_get("ack_user_name")?,
        ack_time: r.try_get::<Option<i64>, _>("ack_time")?.map(time::format_ms),
        ack_note: r.try_get("ack_note")?,
        clear_user_name,
        clear_time: r.try_get::<Option<i64>, _>("clear_time")?.map(time::format_ms),
        clear_note: r.try_get("clear_note")?,
        variable: None,
        variable_name: None,
        comparison: None,
    })
}

/// Fills `variable`, `variableName` and `comparison` from the rules the alarms name (removed
/// rules included: they still describe their alarms). One query for the whole page.
async fn resolve_rules(state: &Core, caller: &Caller, records: &mut [AlarmFlex]) -> Result<(), ApiError> {
    let ids: Vec<Id> = records.iter().filter_map(|r| r.setting_id).collect();
    if ids.is_empty() {
        return Ok(());
    }
    let mut sql = Sql::new("SELECT id, variable, comparison FROM pv_alarm_setting_flex WHERE ");
    sql.append(&caller.tenant_filter("tenant_id"));
    sql.push(" AND id IN (");
    sql.push_ids(&ids);
    sql.push(")");
    let mut rules: HashMap<i64, (String, String)> = HashMap::new();
    for r in sql.rows(state.db.pool()).await? {
        rules.insert(
            r.try_get("id")?,
            (r.try_get("variable")?, r.try_get("comparison")?),
        );
    }
    for rec in records {
        let Some((variable, comparison)) = rec.setting_id.and_then(|id| rules.get(&id.0)) else {
            continue;
        };
        rec.variable_name = Some(
            bracket_rule::variable(variable)
                .map_or_else(|| variable.clone(), |v| Text::new(v.zh, v.en).render()),
        );
        rec.variable = Some(variable.clone());
        rec.comparison = Some(comparison.clone());
    }
    Ok(())
}

/// `FROM ... WHERE` the bracket alarms of the caller's stations.
fn scoped(scoped: &Scoped) -> Sql {
    let mut sql = Sql::new("FROM pv_alarm a WHERE ");
    sql.append(&scoped.caller.tenant_filter("a.tenant_id"));
    sql.push(" AND a.category = 'flex'");
    sql.append(&scoped.stations.condition("a.station_id"));
    sql
}

const FIELDS: &[Field] = &[
    Field::new("stationId", "a.station_id", Kind::Int),
    Field::new("deviceId", "a.device_id", Kind::Int),
    Field::new("status", "a.status", Kind::Int),
    Field::new("level", "a.level", Kind::Int),
    Field::new("firstTime", "a.first_time", Kind::Time),
    Field::new("lastTime", "a.last_time", Kind::Time),
];

fn time_param(query: &mut ListQuery, name: &str) -> Result<Option<i64>, ApiError> {
    match query.take(name) {
        Some(raw) if !raw.trim().is_empty() => time::parse_ms(&raw).map(Some).ok_or_else(|| {
            ApiError::bad_request(
                format!("查询条件 {name} 的值无效：{raw}"),
                format!("invalid value for filter {name}: {raw} (yyyy-MM-dd HH:mm:ss)"),
            )
        }),
        _ => Ok(None),
    }
}

/// A page of the bracket alarms of the caller's stations, newest `lastTime` first. Filters
/// `stationId`, `status`, and `startTime` / `endTime`: alarms active at some point of that
/// window (first seen before its end, last seen after its start).
#[utoipa::path(get, path = "/api/alarmDataFlex/page", tag = "alarm",
    params(("current" = Option<i64>, Query), ("size" = Option<i64>, Query), ("stationId" = Option<String>, Query),
        ("deviceId" = Option<String>, Query), ("status" = Option<i64>, Query), ("level" = Option<i64>, Query),
        ("startTime" = Option<String>, Query), ("endTime" = Option<String>, Query)),
    responses((status = 200, body = Envelope<Page<AlarmFlex>>), (status = 400), (status = 401)))]
pub async fn page(
    State(state): State<AlarmCtx>,
    scope: Scoped,
    mut query: ListQuery,
) -> ApiResult<Data<Page<AlarmFlex>>> {
    let mut from_where = scoped(&scope);
    if let Some(start) = time_param(&mut query, "startTime")? {
        from_where.push_bind(" AND a.last_time >= ?", [Value::Int(start)]);
    }
    if let Some(end) = time_param(&mut query, "endTime")? {
        from_where.push_bind(" AND a.first_time <= ?", [Value::Int(end)]);
    }
    let mut page = fetch_page_with(
        &state.db,
        COLUMNS,
        from_where,
        &query,
        FIELDS,
        "a.last_time DESC, a.id DESC",
        to_record,
    )
    .await?;
    resolve_rules(&state, &scope.caller, &mut page.records).await?;
    Ok(Data(page))
}

async fn find(state: &Core, scope: &Scoped, id: Id) -> Result<Option<AlarmFlex>, ApiError> {
    let mut sql = Sql::new(&format!("SELECT {COLUMNS} "));
    sql.append(&scoped(scope));
    sql.push_bind(" AND a.id = ?", [Value::Int(id.0)]);
    let Some(row) = sql.row(state.db.pool()).await? else {
        return Ok(None);
    };
    let mut one = [to_record(&row)?];
    resolve_rules(state, &scope.caller, &mut one).await?;
    let [record] = one;
    Ok(Some(record))
}

/// One bracket alarm (404 outside the caller's stations).
#[utoipa::path(get, path = "/api/alarmDataFlex/{id}", tag = "alarm", params(IdPath),
    responses((status = 200, body = Envelope<AlarmFlex>), (status = 404)))]
pub async fn detail(
    State(state): State<AlarmCtx>,
    scope: Scoped,
    Path(p): Path<IdPath>,
) -> ApiResult<Data<AlarmFlex>> {
    Ok(Data(
        find(&state, &scope, p.one()?)
            .await?
            .ok_or_else(ApiError::not_found)?,
    ))
}

pub const CLEAR_FIRST: Text = Text::new("请先清除告警", "Clear the alarm first");

/// Deletes cleared bracket alarms (comma-joined ids). Nothing is deleted when one of them is
/// still open (400 "请先清除告警") or none is found (404).
#[utoipa::path(delete, path = "/api/alarmDataFlex/{id}", tag = "alarm", params(IdPath),
    responses((status = 200, body = Envelope<bool>), (status = 400), (status = 403), (status = 404)))]
pub async fn remove(
    State(state): State<AlarmCtx>,
    scope: Scoped,
    Path(p): Path<IdPath>,
) -> ApiResult<Data<bool>> {
    scope.caller.require(&state, &format!("{MENU}_delete")).await?;
    let ids = ids_param(&p.id)?;
    let mut sel = Sql::new("SELECT a.id, a.status ");
    sel.append(&scoped(&scope));
    sel.push(" AND a.id IN (");
    sel.push_ids(&ids);
    sel.push(")");
    let found = sel
        .rows(state.db.pool())
        .await?
        .iter()
        .map(|r| Ok((Id(r.try_get::<i64, _>("id")?), r.try_get::<i64, _>("status")?)))
        .collect::<Result<Vec<_>, ApiError>>()?;
    if found.is_empty() {
        return Err(ApiError::not_found());
    }
    crate::kernel::id::all_found(&ids, found.iter().map(|(id, _)| *id).collect())?;
    if found.iter().any(|(_, s)| *s != store::STATUS_CLEARED) {
        return Err(ApiError::BadRequest(CLEAR_FIRST));
    }
    let ids: Vec<Id> = found.into_iter().map(|(id, _)| id).collect();
    let mut sql = Sql::default();
    // `status = 2` again: the check above and this statement are not one transaction, and an
    // open alarm must never be deleted from under the engine.
    sql.push("DELETE FROM pv_alarm WHERE ");
    sql.append(&scope.caller.tenant_filter("tenant_id"));
    sql.push(" AND category = 'flex' AND status = 2 AND id IN (");
    sql.push_ids(&ids);
    sql.push(")");
    sql.execute(state.db.pool()).await?;
    Ok(Data(true))
}
