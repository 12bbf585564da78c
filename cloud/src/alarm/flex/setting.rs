//! Bracket alarm rules (`/api/alarmSettingFlex`): a tracker variable compared with a threshold
//! (or a range) for a duration raises an alarm of the rule's level on the station's bracket.
//!
//! Station-domain rules apply: reads and writes only touch rules of stations the caller may see
//! (`station::scope`), writes need the buttons `alarmSettingFlex_add` / `_edit` / `_delete`, and
//! a rule's station must have a flexible bracket (there is nothing else to watch).

use serde::Serialize;
use serde_json::{Map, Value as Json};
use sqlx::Row;
use sqlx::any::AnyRow;
use utoipa::ToSchema;

use super::eval;
use super::rule::{self, Comparison};
use crate::alarm::context::AlarmCtx;
use crate::alarm::store;
use crate::auth::Caller;
use crate::auth::scope::{self, StationScope};
use crate::kernel::Core;
use crate::kernel::extract::{Json as JsonBody, Path};
use crate::kernel::lang::Text;
use crate::kernel::list::{Field, Kind, ListQuery, fetch_page_with};
use crate::kernel::sql::{Sql, Value};
use crate::kernel::{ApiError, ApiResult, Data, Envelope, Id, Page, time};
use crate::station::device::{IdPath, NO_STATION, body_id, ids_param};

pub const MENU: &str = "alarmSettingFlex";
/// Rules per station: each is checked on every tracker sample.
pub const MAX_PER_STATION: i64 = 100;
/// Longest duration a rule may ask for (a day).
pub const MAX_DURATION_SECONDS: i64 = 86_400;

const NO_FLEX: Text = Text::new("该电站未配置柔性支架", "This station has no flexible bracket");

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct VariableItem {
    pub key: String,
    /// In the request's language.
    pub name: String,
    pub unit: Option<String>,
}

/// The tracker variables a rule may watch (names in the request's language; values compare in
/// the unit shown).
#[utoipa::path(get, path = "/api/alarmSettingFlex/listVariable", tag = "alarm",
    responses((status = 200, body = Envelope<Vec<VariableItem>>), (status = 401)))]
pub async fn list_variable(_caller: Caller) -> ApiResult<Data<Vec<VariableItem>>> {
    Ok(Data(
        rule::VARIABLES
            .iter()
            .map(|v| VariableItem {
                key: v.key.to_owned(),
                name: Text::new(v.zh, v.en).render(),
                unit: v.unit.map(str::to_owned),
            })
            .collect(),
    ))
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
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
    let known = rule::variable(&variable);
    let threshold: f64 = r.try_get("threshold")?;
    let threshold_high: Option<f64> = r.try_get("threshold_high")?;
    let duration_seconds: i64 = r.try_get("duration_seconds")?;
    let rule_name = match Comparison::parse(&comparison) {
        Some(c) => rule::Rule {
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
fn scoped(scope: &StationScope) -> Sql {
    let mut sql = Sql::default();
    sql.push_bind(
        "FROM pv_alarm_setting_flex a WHERE a.tenant_id = ? AND a.is_deleted = 0",
        [Value::Text(scope.tenant_id.clone())],
    );
    sql.append(&scope.condition("a.station_id"));
    sql
}

async fn find(state: &Core, scope: &StationScope, id: Id) -> Result<Option<Setting>, ApiError> {
    let mut sql = Sql::new(&format!("SELECT {COLUMNS} "));
    sql.append(&scoped(scope));
    sql.push_bind(" AND a.id = ?", [Value::Int(id.0)]);
    let (text, args) = sql.build()?;
    sqlx::query_with(sqlx::AssertSqlSafe(text), args)
        .fetch_optional(state.db.pool())
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

/// A page of the rules of the caller's stations (filters `stationId`, `variable`, `level`,
/// `enabled` 1/0), newest first.
#[utoipa::path(get, path = "/api/alarmSettingFlex/page", tag = "alarm",
    params(("current" = Option<i64>, Query), ("size" = Option<i64>, Query), ("stationId" = Option<String>, Query)),
    responses((status = 200, body = Envelope<Page<Setting>>), (status = 400), (status = 401)))]
pub async fn page(
    axum::extract::State(state): axum::extract::State<AlarmCtx>,
    caller: Caller,
    mut query: ListQuery,
) -> ApiResult<Data<Page<Setting>>> {
    let scope = scope::visible_stations(&state, &caller).await?;
    let mut from_where = scoped(&scope);
    // The console's switch sends true/false; the column holds 1/0.
    if let Some(v) = query.take("enabled") {
        let flag = match v.trim() {
            "" => None,
            "true" | "1" => Some(1),
            "false" | "0" => Some(0),
            other => {
                return Err(ApiError::bad_request(
                    format!("查询条件 enabled 的值无效：{other}"),
                    format!("invalid value for filter enabled: {other}"),
                ));
            }
        };
        if let Some(f) = flag {
            from_where.push_bind(" AND a.enabled = ?", [Value::Int(f)]);
        }
    }
    Ok(Data(run_page(&state, from_where, &query).await?))
}

async fn run_page(state: &Core, from_where: Sql, query: &ListQuery) -> Result<Page<Setting>, ApiError> {
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

/// One rule.
#[utoipa::path(get, path = "/api/alarmSettingFlex/{id}", tag = "alarm", params(IdPath),
    responses((status = 200, body = Envelope<Setting>), (status = 404)))]
pub async fn detail(
    axum::extract::State(state): axum::extract::State<AlarmCtx>,
    caller: Caller,
    Path(p): Path<IdPath>,
) -> ApiResult<Data<Setting>> {
    let scope = scope::visible_stations(&state, &caller).await?;
    Ok(Data(
        find(&state, &scope, p.one()?)
            .await?
            .ok_or_else(ApiError::not_found)?,
    ))
}

/// A rule as submitted, checked.
#[derive(Debug, Clone, PartialEq)]
pub struct Draft {
    pub station_id: i64,
    pub variable: String,
    pub comparison: Comparison,
    pub threshold: f64,
    pub threshold_high: Option<f64>,
    pub duration_seconds: i64,
    pub level: i64,
    pub enabled: bool,
    pub remark: Option<String>,
}

fn blank(v: Option<&Json>) -> bool {
    match v {
        None | Some(Json::Null) => true,
        Some(Json::String(s)) => s.trim().is_empty(),
        _ => false,
    }
}

fn text_of(v: &Json) -> Option<String> {
    match v {
        Json::String(s) => Some(s.trim().to_owned()),
        Json::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// A finite number given as a JSON number or as text (forms send either).
fn number_of(v: &Json) -> Option<f64> {
    match v {
        Json::Number(n) => n.as_f64(),
        Json::String(s) => s.trim().parse::<f64>().ok(),
        _ => None,
    }
    .filter(|n| n.is_finite())
}

/// Checks a submitted rule field by field, with the message in both languages. The station's
/// visibility and bracket are checked by [`check_station`] (they need the database).
pub fn parse_draft(body: &Map<String, Json>) -> Result<Draft, ApiError> {
    let station_id = if blank(body.get("stationId")) {
        return Err(ApiError::bad_request("请选择电站", "Please select the station"));
    } else {
        body.get("stationId")
            .and_then(text_of)
            .and_then(|s| s.parse::<Id>().ok())
            .ok_or(ApiError::BadRequest(NO_STATION))?
            .0
    };

    let variable = match body.get("variable").and_then(text_of) {
        Some(v) if !v.is_empty() => v,
        _ => {
            return Err(ApiError::bad_request(
                "请选择监测变量",
                "Please select the variable",
            ));
        }
    };
    if rule::variable(&variable).is_none() {
        let keys: Vec<&str> = rule::VARIABLES.iter().map(|v| v.key).collect();
        return Err(ApiError::bad_request(
            format!("监测变量无效：{variable}"),
            format!("Unknown variable {variable} ({})", keys.join(", ")),
        ));
    }

    let comparison = match body.get("comparison").and_then(text_of) {
        Some(c) if !c.is_empty() => Comparison::parse(&c).ok_or_else(|| {
            ApiError::bad_request(
                format!("比较方式无效：{c}"),
                format!("Unknown comparison {c} (>, >=, <, <=, outside, inside)"),
            )
        })?,
        _ => {
            return Err(ApiError::bad_request(
                "请选择比较方式",
                "Please select the comparison",
            ));
        }
    };

    if blank(body.get("threshold")) {
        return Err(ApiError::bad_request("请输入阈值", "Please enter the threshold"));
    }
    let threshold = body.get("threshold").and_then(number_of).ok_or_else(|| {
        ApiError::bad_request("阈值：请输入正确的数字", "Threshold: please enter a valid number")
    })?;

    let threshold_high = if comparison.is_range() {
        if blank(body.get("thresholdHigh")) {
            return Err(ApiError::bad_request(
                "请输入阈值上限",
                "Please enter the upper threshold",
            ));
        }
        let high = body.get("thresholdHigh").and_then(number_of).ok_or_else(|| {
            ApiError::bad_request(
                "阈值上限：请输入正确的数字",
                "Upper threshold: please enter a valid number",
            )
        })?;
        if high <= threshold {
            return Err(ApiError::bad_request(
                "阈值上限必须大于阈值",
                "The upper threshold must be greater than the threshold",
            ));
        }
        Some(high)
    } else {
        // A single-threshold rule has no upper bound, whatever the form left in the field.
        None
    };

    // Absent means "at once", as the form's default.
    let duration_seconds = if blank(body.get("durationSeconds")) {
        0
    } else {
        let d = body.get("durationSeconds").and_then(number_of).ok_or_else(|| {
            ApiError::bad_request(
                "持续时间：请输入正确的数字",
                "Duration: please enter a valid number",
            )
        })?;
        if d < 0.0 {
            return Err(ApiError::bad_request(
                "持续时间不能为负数",
                "The duration must not be negative",
            ));
        }
        if d.fract() != 0.0 {
            return Err(ApiError::bad_request(
                "持续时间必须是整数秒",
                "The duration must be whole seconds",
            ));
        }
        if d > MAX_DURATION_SECONDS as f64 {
            return Err(ApiError::bad_request(
                format!("持续时间不能超过{MAX_DURATION_SECONDS}秒"),
                format!("The duration must be at most {MAX_DURATION_SECONDS} s"),
            ));
        }
        d as i64
    };

    let level = if blank(body.get("level")) {
        return Err(ApiError::bad_request(
            "请选择告警级别",
            "Please select the alarm level",
        ));
    } else {
        let raw = body.get("level").and_then(text_of).unwrap_or_default();
        raw.parse::<i64>()
            .ok()
            .filter(|l| (store::LEVEL_NOTICE..=store::LEVEL_CRITICAL).contains(l))
            .ok_or_else(|| {
                ApiError::bad_request(
                    format!("告警级别无效：{raw}"),
                    format!("Invalid alarm level {raw} (1 notice .. 4 critical)"),
                )
            })?
    };

    let enabled = match body.get("enabled") {
        None | Some(Json::Null) => true,
        Some(Json::Bool(b)) => *b,
        Some(v) => match text_of(v).as_deref() {
            Some("1" | "true") => true,
            Some("0" | "false") => false,
            _ => {
                return Err(ApiError::bad_request(
                    format!("是否启用无效：{v}"),
                    format!("Invalid enabled: {v} (true or false)"),
                ));
            }
        },
    };

    let remark = match body.get("remark") {
        None | Some(Json::Null) => None,
        Some(v) => {
            let r = text_of(v).ok_or_else(|| {
                ApiError::bad_request(format!("备注无效：{v}"), format!("Invalid remark: {v}"))
            })?;
            if r.chars().count() > 500 {
                return Err(ApiError::bad_request(
                    "备注长度不能超过500个字符",
                    "The remark must be at most 500 characters",
                ));
            }
            Some(r).filter(|r| !r.is_empty())
        }
    };

    Ok(Draft {
        station_id,
        variable,
        comparison,
        threshold,
        threshold_high,
        duration_seconds,
        level,
        enabled,
        remark,
    })
}

async fn count(state: &Core, sql: Sql) -> Result<i64, ApiError> {
    let (text, args) = sql.build()?;
    Ok(
        sqlx::query_scalar_with::<sqlx::Any, i64, _>(sqlx::AssertSqlSafe(text), args)
            .fetch_one(state.db.pool())
            .await?,
    )
}

/// The station must be one the caller may see and have a live bracket; it may hold at most
/// [`MAX_PER_STATION`] rules (`own`: the rule being changed, not counted).
async fn check_station(
    state: &Core,
    scope: &StationScope,
    station: i64,
    own: Option<Id>,
) -> Result<(), ApiError> {
    if !scope::visible_station(state, scope, Id(station)).await? {
        return Err(ApiError::BadRequest(NO_STATION));
    }
    let mut brackets = Sql::default();
    brackets.push_bind(
        "SELECT COUNT(*) FROM pv_flex WHERE tenant_id = ? AND station_id = ? AND is_deleted = 0",
        [Value::Text(scope.tenant_id.clone()), Value::Int(station)],
    );
    if count(state, brackets).await? == 0 {
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
    if count(state, rules).await? >= MAX_PER_STATION {
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

/// Adds a rule; answers its id.
#[utoipa::path(post, path = "/api/alarmSettingFlex", tag = "alarm", request_body = Json,
    responses((status = 200, body = Envelope<Id>), (status = 400), (status = 403)))]
pub async fn create(
    axum::extract::State(state): axum::extract::State<AlarmCtx>,
    caller: Caller,
    JsonBody(body): JsonBody<Map<String, Json>>,
) -> ApiResult<Data<Id>> {
    caller.require(&state, &format!("{MENU}_add")).await?;
    let scope = scope::visible_stations(&state, &caller).await?;
    let d = parse_draft(&body)?;
    check_station(&state, &scope, d.station_id, None).await?;
    let id = state.ids.next();
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
    let (text, args) = sql.build()?;
    sqlx::query_with(sqlx::AssertSqlSafe(text), args)
        .execute(state.db.pool())
        .await?;
    eval::invalidate(&state);
    Ok(Data(id))
}

/// The stored rule as a body, for an update to merge the submitted fields over.
fn as_body(s: &Setting) -> Map<String, Json> {
    let mut m = Map::new();
    m.insert("stationId".into(), Json::String(s.station_id.to_string()));
    m.insert("variable".into(), Json::String(s.variable.clone()));
    m.insert("comparison".into(), Json::String(s.comparison.clone()));
    m.insert("threshold".into(), Json::from(s.threshold));
    m.insert(
        "thresholdHigh".into(),
        s.threshold_high.map_or(Json::Null, Json::from),
    );
    m.insert("durationSeconds".into(), Json::from(s.duration_seconds));
    m.insert("level".into(), Json::from(s.level));
    m.insert("enabled".into(), Json::Bool(s.enabled));
    m.insert("remark".into(), s.remark.clone().map_or(Json::Null, Json::String));
    m
}

/// Changes a rule (`id` required); fields left out keep their values. Disabling a rule clears
/// its open alarms at once (no sample will ever report it again).
#[utoipa::path(put, path = "/api/alarmSettingFlex", tag = "alarm", request_body = Json,
    responses((status = 200, body = Envelope<bool>), (status = 400), (status = 403), (status = 404)))]
pub async fn update(
    axum::extract::State(state): axum::extract::State<AlarmCtx>,
    caller: Caller,
    JsonBody(body): JsonBody<Map<String, Json>>,
) -> ApiResult<Data<bool>> {
    caller.require(&state, &format!("{MENU}_edit")).await?;
    let id = body_id(&body)?;
    let scope = scope::visible_stations(&state, &caller).await?;
    let stored = find(&state, &scope, id).await?.ok_or_else(ApiError::not_found)?;
    let mut merged = as_body(&stored);
    for (k, v) in body {
        if k != "id" {
            merged.insert(k, v);
        }
    }
    let d = parse_draft(&merged)?;
    check_station(&state, &scope, d.station_id, Some(id)).await?;
    let mut sql = Sql::default();
    sql.push_bind(
        "UPDATE pv_alarm_setting_flex SET station_id = ?, variable = ?, comparison = ?, threshold = ?, \
         threshold_high = ?, duration_seconds = ?, level = ?, enabled = ?, remark = ?, update_user = ?, \
         update_time = ? WHERE id = ? AND tenant_id = ? AND is_deleted = 0",
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
            Value::Text(caller.tenant_id.clone()),
        ],
    );
    let (text, args) = sql.build()?;
    sqlx::query_with(sqlx::AssertSqlSafe(text), args)
        .execute(state.db.pool())
        .await?;
    eval::invalidate(&state);
    // A rule moved to another station no longer watches the old one's bracket either.
    if !d.enabled || d.station_id != stored.station_id.0 {
        clear_open(&state, &caller.tenant_id, &[id]).await?;
    }
    Ok(Data(true))
}

/// Removes the listed rules (comma-joined ids) of the caller's stations and clears their open
/// alarms; none found → 404.
#[utoipa::path(delete, path = "/api/alarmSettingFlex/{id}", tag = "alarm", params(IdPath),
    responses((status = 200, body = Envelope<bool>), (status = 403), (status = 404)))]
pub async fn remove(
    axum::extract::State(state): axum::extract::State<AlarmCtx>,
    caller: Caller,
    Path(p): Path<IdPath>,
) -> ApiResult<Data<bool>> {
    caller.require(&state, &format!("{MENU}_delete")).await?;
    let ids = ids_param(&p.id)?;
    let scope = scope::visible_stations(&state, &caller).await?;
    // The ids the caller may remove, so only their alarms are cleared.
    let mut sel = Sql::new("SELECT a.id ");
    sel.append(&scoped(&scope));
    sel.push(" AND a.id IN (");
    sel.push_ids(&ids);
    sel.push(")");
    let (text, args) = sel.build()?;
    let found: Vec<Id> = sqlx::query_scalar_with::<sqlx::Any, i64, _>(sqlx::AssertSqlSafe(text), args)
        .fetch_all(state.db.pool())
        .await?
        .into_iter()
        .map(Id)
        .collect();
    if found.is_empty() {
        return Err(ApiError::not_found());
    }
    let mut sql = Sql::default();
    sql.push_bind(
        "UPDATE pv_alarm_setting_flex SET is_deleted = 1, update_user = ?, update_time = ? \
         WHERE tenant_id = ? AND id IN (",
        [
            Value::Int(caller.user_id.0),
            Value::Int(time::now_ms()),
            Value::Text(caller.tenant_id.clone()),
        ],
    );
    sql.push_ids(&found);
    sql.push(")");
    let (text, args) = sql.build()?;
    sqlx::query_with(sqlx::AssertSqlSafe(text), args)
        .execute(state.db.pool())
        .await?;
    eval::invalidate(&state);
    clear_open(&state, &caller.tenant_id, &found).await?;
    Ok(Data(true))
}

/// Clears (as the system) the open alarms of rules that stopped watching: otherwise they would
/// stay open until the bracket's next sample, or for ever if it never reports again.
async fn clear_open(state: &AlarmCtx, tenant: &str, settings: &[Id]) -> Result<(), ApiError> {
    let mut sql = Sql::default();
    sql.push_bind(
        "SELECT station_id, device_id, kind FROM pv_alarm WHERE tenant_id = ? AND category = 'flex' \
         AND status < 2 AND kind IN (",
        [Value::Text(tenant.to_owned())],
    );
    for (i, id) in settings.iter().enumerate() {
        sql.push_bind(
            if i == 0 { "?" } else { ", ?" },
            [Value::Text(format!("{}{}", rule::KIND_PREFIX, id.0))],
        );
    }
    sql.push(")");
    let (text, args) = sql.build()?;
    let rows = sqlx::query_with(sqlx::AssertSqlSafe(text), args)
        .fetch_all(state.db.pool())
        .await?;
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::kernel::lang::Lang;

    fn body(v: Json) -> Map<String, Json> {
        v.as_object().cloned().unwrap_or_default()
    }

    fn refusal(v: Json) -> (String, String) {
        match parse_draft(&body(v)) {
            Err(ApiError::BadRequest(t)) => (t.get(Lang::Zh).to_owned(), t.get(Lang::En).to_owned()),
            other => panic!("expected a refusal, got {other:?}"),
        }
    }

    #[test]
    fn drafts_are_parsed_from_numbers_or_text() {
        let d = parse_draft(&body(json!({
            "stationId": "7", "variable": "wind_speed", "comparison": ">=", "threshold": "12.5",
            "thresholdHigh": 99, "durationSeconds": "30", "level": "3", "enabled": 0, "remark": " gusts "
        })))
        .expect("valid");
        assert_eq!(
            d,
            Draft {
                station_id: 7,
                variable: "wind_speed".into(),
                comparison: Comparison::Ge,
                threshold: 12.5,
                threshold_high: None,
                duration_seconds: 30,
                level: 3,
                enabled: false,
                remark: Some("gusts".into()),
            }
        );
        let d = parse_draft(&body(json!({
            "stationId": 7, "variable": "tracker_angle", "comparison": "outside", "threshold": -50,
            "thresholdHigh": 50, "level": 1
        })))
        .expect("valid");
        assert_eq!(
            (d.threshold_high, d.duration_seconds, d.enabled),
            (Some(50.0), 0, true)
        );
    }

    #[test]
    fn bad_drafts_are_refused_in_both_languages() {
        let ok = json!({"stationId": "7", "variable": "wind_speed", "comparison": ">", "threshold": 12,
            "durationSeconds": 0, "level": 2});
        let with = |patch: Json| {
            let mut b = ok.clone();
            for (k, v) in patch.as_object().cloned().unwrap_or_default() {
                b[k] = v;
            }
            b
        };
        for (patch, zh, en) in [
            (
                json!({"variable": "humidity"}),
                "监测变量无效：humidity",
                "Unknown variable humidity",
            ),
            (
                json!({"variable": ""}),
                "请选择监测变量",
                "Please select the variable",
            ),
            (
                json!({"comparison": "=="}),
                "比较方式无效：==",
                "Unknown comparison ==",
            ),
            (
                json!({"threshold": null}),
                "请输入阈值",
                "Please enter the threshold",
            ),
            (
                json!({"threshold": "abc"}),
                "阈值：请输入正确的数字",
                "Threshold: please",
            ),
            (
                json!({"comparison": "inside", "thresholdHigh": null}),
                "请输入阈值上限",
                "Please enter the upper threshold",
            ),
            (
                json!({"comparison": "outside", "thresholdHigh": 12}),
                "阈值上限必须大于阈值",
                "The upper threshold must be greater",
            ),
            (
                json!({"durationSeconds": -1}),
                "持续时间不能为负数",
                "The duration must not be negative",
            ),
            (
                json!({"durationSeconds": 1.5}),
                "持续时间必须是整数秒",
                "whole seconds",
            ),
            (
                json!({"durationSeconds": 86_401}),
                "持续时间不能超过86400秒",
                "at most 86400 s",
            ),
            (json!({"level": 5}), "告警级别无效：5", "Invalid alarm level 5"),
            (json!({"level": 0}), "告警级别无效：0", "Invalid alarm level 0"),
            (
                json!({"level": null}),
                "请选择告警级别",
                "Please select the alarm level",
            ),
            (
                json!({"stationId": null}),
                "请选择电站",
                "Please select the station",
            ),
            (json!({"stationId": "x"}), "电站不存在", "No such station"),
            (
                json!({"enabled": "maybe"}),
                "是否启用无效：\"maybe\"",
                "Invalid enabled",
            ),
            (
                json!({"remark": "r".repeat(501)}),
                "备注长度不能超过500个字符",
                "at most 500",
            ),
        ] {
            let (z, e) = refusal(with(patch.clone()));
            assert_eq!(z, zh, "{patch}");
            assert!(e.contains(en), "{patch}: {e}");
        }
    }
}
