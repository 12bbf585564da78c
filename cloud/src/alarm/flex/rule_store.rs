//! Where bracket rules are kept (`pv_alarm_setting_flex`): reading them in the caller's scope,
//! the checks that need the database, writing them, and clearing the alarms of rules that
//! stopped watching.

use serde::Serialize;
use sqlx::Row;
use sqlx::any::AnyRow;
use utoipa::ToSchema;

use super::bracket_rule::{self, Comparison};
use super::rule_input::Draft;
use crate::alarm::context::AlarmCtx;
use crate::alarm::store;
use crate::auth::Caller;
use crate::auth::scope::{self, StationScope};
use crate::kernel::lang::Text;
use crate::kernel::list::{Field, Kind, ListQuery, fetch_page_with};
use crate::kernel::sql::{Sql, Value};
use crate::kernel::{ApiError, Core, Id, Page, time};
use crate::station::device::NO_STATION;

/// Rules per station: each is checked on every tracker sample.
pub const MAX_PER_STATION: i64 = 100;

const NO_FLEX: Text = Text::new("该电站未配置柔性支架", "This station has no flexible bracket");

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = FlexAlarmSetting)]
pub struct Setting {
    pub id: Id,
    pub station_id: Id,
    pub station_name: Option<String>,
    pub variable: String,
    /// In the request's language (the key itself when no longer known).
    pub variable_name: String,
    pub unit: Option<String>,
    /// `>`, `>=`, `<`, `<=`, `outside`, `inside`.
    pub comparison: String,
    pub threshold: f64,
    /// The upper bound of `outside` / `inside`; null otherwise.
    pub threshold_high: Option<f64>,
    pub duration_seconds: i64,
    /// Dictionary `alarm_level`: 1 notice, 2 minor, 3 major, 4 critical.
    pub level: i64,
    pub enabled: bool,
    pub remark: Option<String>,
    /// The rule in words, as its alarms are named ("风速 > 12 m/s 持续 30 s").
    pub rule_name: String,
    pub create_time: String,
    pub update_time: Option<String>,
}

const COLUMNS: &str = "a.id, a.station_id, a.variable, a.comparison, a.threshold, a.threshold_high, \
     a.duration_seconds, a.level, a.enabled, a.remark, a.create_time, a.update_time, \
     (SELECT s.name FROM pv_station s WHERE s.id = a.station_id) AS station_name";

fn to_setting(r: &AnyRow) -> Result<Setting, ApiError> {
    let variable: String = r.try_get("variable")?;
    let comparison: String = r.try_get("comparison")?;
    let known = bracket_rule::variable(&variable);
    let threshold: f64 = r.try_get("threshold")?;
    let threshold_high: Option<f64> = r.try_get("threshold_high")?;
    let duration_seconds: i64 = r.try_get("duration_seconds")?;
    let rule_name = match Comparison::parse(&comparison) {
        Some(c) => bracket_rule::Rule {
            id: 0,
            tenant_id: String::new(),
            station_id: 0,
            variable: variable.clone(),
            comparison: c,
            threshold,
            threshold_high,
            duration_seconds,
            level: 0,
            remark: None,
        }
        .name()
        .render(),
        None => String::new(),
    };
    Ok(Setting {
        id: Id(r.try_get("id")?),
        station_id: Id(r.try_get("station_id")?),
        station_name: r.try_get("station_name")?,
        variable_name: known.map_or_else(|| variable.clone(), |v| Text::new(v.zh, v.en).render()),
        unit: known.and_then(|v| v.unit).map(str::to_owned),
        variable,
        comparison,
        threshold,
        threshold_high,
        duration_seconds,
        level: r.try_get("level")?,
        enabled: r.try_get::<i64, _>("enabled")? != 0,
        remark: r.try_get("remark")?,
        rule_name,
        create_time: time::format_ms(r.try_get("create_time")?),
        update_time: r.try_get::<Option<i64>, _>("update_time")?.map(time::format_ms),
    })
}

/// `FROM ... WHERE` the caller's live rules (tenant and station scope).
pub fn scoped(scope: &StationScope) -> Sql {
    let mut sql = Sql::new("FROM pv_alarm_setting_flex a WHERE ");
    sql.append(&scope.rows("a", "station_id"));
    sql
}

pub async fn find(state: &Core, scope: &StationScope, id: Id) -> Result<Option<Setting>, ApiError> {
    let mut sql = Sql::new(&format!("SELECT {COLUMNS} "));
    sql.append(&scoped(scope));
    sql.push_bind(" AND a.id = ?", [Value::Int(id.0)]);
    sql.row(state.db.pool())
        .await?
        .map(|r| to_setting(&r))
        .transpose()
}

const FIELDS: &[Field] = &[
    Field::new("stationId", "a.station_id", Kind::Int),
    Field::new("variable", "a.variable", Kind::Text),
    Field::new("comparison", "a.comparison", Kind::Text),
    Field::new("level", "a.level", Kind::Int),
    Field::new("enabled", "a.enabled", Kind::Int),
    Field::new("createTime", "a.create_time", Kind::Time),
];

/// A page of rules (`from_where` from [`scoped`]), newest first.
pub async fn page(state: &Core, from_where: Sql, query: &ListQuery) -> Result<Page<Setting>, ApiError> {
    fetch_page_with(
        &state.db,
        COLUMNS,
        from_where,
        query,
        FIELDS,
        "a.create_time DESC, a.id DESC",
        to_setting,
    )
    .await
}

/// The station must be one the caller may see and have a live bracket; it may hold at most
/// [`MAX_PER_STATION`] rules (`own`: the rule being changed, not counted).
pub async fn check_station(
    state: &Core,
    scope: &StationScope,
    station: i64,
    own: Option<Id>,
) -> Result<(), ApiError> {
    if !scope::visible_station(state, scope, Id(station)).await? {
        return Err(ApiError::BadRequest(NO_STATION));
    }
    let mut brackets = Sql::new("SELECT COUNT(*) FROM pv_flex f WHERE ");
    brackets.append(&scope.rows("f", "station_id"));
    brackets.push_bind(" AND f.station_id = ?", [Value::Int(station)]);
    if brackets.scalar::<i64, _>(state.db.pool()).await? == 0 {
        return Err(ApiError::BadRequest(NO_FLEX));
    }
    let mut rules = Sql::default();
    rules.push_bind(
        "SELECT COUNT(*) FROM pv_alarm_setting_flex WHERE station_id = ? AND is_deleted = 0",
        [Value::Int(station)],
    );
    if let Some(id) = own {
        rules.push_bind(" AND id <> ?", [Value::Int(id.0)]);
    }
    if rules.scalar::<i64, _>(state.db.pool()).await? >= MAX_PER_STATION {
        return Err(ApiError::bad_request(
            format!("每个电站最多{MAX_PER_STATION}条告警规则"),
            format!("A station can have at most {MAX_PER_STATION} alarm rules"),
        ));
    }
    Ok(())
}

fn opt_float(v: Option<f64>) -> Value {
    // Float-typed: a cached PostgreSQL statement keeps the parameter types of its first run.
    v.map(Value::Float).unwrap_or(Value::NullFloat)
}

/// Stores a new rule of the caller's tenant as `id`.
pub async fn insert(state: &Core, caller: &Caller, id: Id, d: &Draft) -> Result<(), ApiError> {
    let mut sql = Sql::default();
    sql.push_bind(
        "INSERT INTO pv_alarm_setting_flex (id, tenant_id, station_id, variable, comparison, threshold, \
         threshold_high, duration_seconds, level, enabled, remark, create_user, create_time) \
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            Value::Int(id.0),
            Value::Text(caller.tenant_id.clone()),
            Value::Int(d.station_id),
            Value::Text(d.variable.clone()),
            Value::from(d.comparison.as_str()),
            Value::Float(d.threshold),
            opt_float(d.threshold_high),
            Value::Int(d.duration_seconds),
            Value::Int(d.level),
            Value::Int(i64::from(d.enabled)),
            Value::from(d.remark.clone()),
            Value::Int(caller.user_id.0),
            Value::Int(time::now_ms()),
        ],
    );
    sql.execute(state.db.pool()).await?;
    Ok(())
}

/// Overwrites rule `id` of the caller's tenant with `d`.
pub async fn update(state: &Core, caller: &Caller, id: Id, d: &Draft) -> Result<(), ApiError> {
    let mut sql = Sql::default();
    sql.push_bind(
        "UPDATE pv_alarm_setting_flex SET station_id = ?, variable = ?, comparison = ?, threshold = ?, \
         threshold_high = ?, duration_seconds = ?, level = ?, enabled = ?, remark = ?, update_user = ?, \
         update_time = ? WHERE id = ? AND ",
        [
            Value::Int(d.station_id),
            Value::Text(d.variable.clone()),
            Value::from(d.comparison.as_str()),
            Value::Float(d.threshold),
            opt_float(d.threshold_high),
            Value::Int(d.duration_seconds),
            Value::Int(d.level),
            Value::Int(i64::from(d.enabled)),
            Value::from(d.remark.clone()),
            Value::Int(caller.user_id.0),
            Value::Int(time::now_ms()),
            Value::Int(id.0),
        ],
    );
    sql.append(&caller.tenant_filter("tenant_id"));
    sql.push(" AND is_deleted = 0");
    sql.execute(state.db.pool()).await?;
    Ok(())
}

/// Of `ids`, the rules the caller may see and so remove.
pub async fn visible_ids(state: &Core, scope: &StationScope, ids: &[Id]) -> Result<Vec<Id>, ApiError> {
    let mut sel = Sql::new("SELECT a.id ");
    sel.append(&scoped(scope));
    sel.push(" AND a.id IN (");
    sel.push_ids(ids);
    sel.push(")");
    Ok(sel
        .scalars::<i64, _>(state.db.pool())
        .await?
        .into_iter()
        .map(Id)
        .collect())
}

/// Removes (logically) the rules `ids` of the caller's tenant.
pub async fn remove(state: &Core, caller: &Caller, ids: &[Id]) -> Result<(), ApiError> {
    let mut sql = Sql::default();
    sql.push_bind(
        "UPDATE pv_alarm_setting_flex SET is_deleted = 1, update_user = ?, update_time = ? WHERE ",
        [Value::Int(caller.user_id.0), Value::Int(time::now_ms())],
    );
    sql.append(&caller.tenant_filter("tenant_id"));
    sql.push(" AND id IN (");
    sql.push_ids(ids);
    sql.push(")");
    sql.execute(state.db.pool()).await?;
    Ok(())
}

/// Clears (as the system) the open alarms of rules that stopped watching: otherwise they would
/// stay open until the bracket's next sample, or for ever if it never reports again.
pub async fn clear_open(state: &AlarmCtx, tenant: &str, settings: &[Id]) -> Result<(), ApiError> {
    let mut sql = Sql::default();
    // By tenant: the system clears them, for whichever caller changed the rules (ids already
    // checked against that caller's scope).
    sql.push_bind(
        "SELECT station_id, device_id, kind FROM pv_alarm WHERE tenant_id = ? AND category = 'flex' \
         AND status < 2 AND kind IN (",
        [Value::Text(tenant.to_owned())],
    );
    for (i, id) in settings.iter().enumerate() {
        sql.push_bind(
            if i == 0 { "?" } else { ", ?" },
            [Value::Text(format!("{}{}", bracket_rule::KIND_PREFIX, id.0))],
        );
    }
    sql.push(")");
    let rows = sql.rows(state.db.pool()).await?;
    let now = time::now_ms();
    for r in rows {
        let (station, device, kind): (i64, i64, String) = (
            r.try_get("station_id")?,
            r.try_get("device_id")?,
            r.try_get("kind")?,
        );
        store::clear_auto(state, tenant, station, device, &kind, now).await?;
    }
    Ok(())
}
