//! Alarm calls: station-fault alarms (`/api/alarmData/...`, type 1) and smart warnings
//! (`/api/warnData/page`, type ≠ 1), their statuses, and acknowledging / clearing by hand.
//!
//! Every read and write is station-scoped (`auth::scope`): owners and maintenance staff see
//! the alarms of their assigned stations only, others their tenant's; an id outside the
//! caller's scope answers 404 as if it did not exist.

use axum::extract::State;
use serde::{Deserialize, Serialize};
use sqlx::Row;
use sqlx::any::AnyRow;
use utoipa::{IntoParams, ToSchema};

use super::codes::HANDLE_BUTTON;
use super::store::{self, STATUS_ACKNOWLEDGED, STATUS_ACTIVE, STATUS_CLEARED};
use super::threshold_settings::{self, Settings};
use crate::alarm::context::AlarmCtx;
use crate::auth::Caller;
use crate::auth::scope::Scoped;
use crate::kernel::Core;
use crate::kernel::extract::{Json, Path, Query};
use crate::kernel::lang::{Lang, Text};
use crate::kernel::list::{DEFAULT_SIZE, MAX_SIZE};
use crate::kernel::sql::{Sql, Value, like_contains};
use crate::kernel::time::{self, Timestamp};
use crate::kernel::{ApiError, ApiResult, Data, Envelope, Id, Page};
const NOTE_MAX: usize = 500;

pub fn paging(current: Option<i64>, size: Option<i64>) -> Result<(i64, i64), ApiError> {
    let current = current.unwrap_or(1);
    let size = size.unwrap_or(DEFAULT_SIZE);
    if current < 1 || !(1..=MAX_SIZE).contains(&size) {
        return Err(ApiError::bad_request(
            format!("分页参数无效（current ≥ 1，size 为 1 到 {MAX_SIZE}）"),
            format!("Invalid paging (current ≥ 1, size 1 to {MAX_SIZE})"),
        ));
    }
    Ok((current, size))
}

#[derive(Debug, Default, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
pub struct AlarmFilter {
    pub current: Option<i64>,
    pub size: Option<i64>,
    pub station_id: Option<Id>,
    pub device_id: Option<Id>,
    /// 0 active, 1 acknowledged, 2 cleared.
    pub status: Option<i64>,
    /// 1 notice .. 4 critical.
    pub level: Option<i64>,
    /// `fault`, `comm`, `threshold`, `flex`, `dispersion`, `hday`.
    pub category: Option<String>,
    /// `yyyy-MM-dd HH:mm:ss` (or `yyyy-MM-dd`): alarms seen at or after (last time).
    pub start_time: Option<String>,
    /// Alarms first seen at or before.
    pub end_time: Option<String>,
    /// Contained in the alarm's name (zh or en), device name, device serial number or code.
    pub keyword: Option<String>,
    pub id: Option<Id>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AlarmRecord {
    pub id: Id,
    pub station_id: Id,
    pub station_name: String,
    /// 0 for the station or its gateway.
    pub device_id: Id,
    pub device_kind: String,
    pub device_name: String,
    /// The device's serial number (the station's gateway for gateway alarms; empty when the
    /// device is gone).
    pub device_sn: String,
    /// The device's name (the console's column name).
    pub inverter: String,
    pub kind: String,
    pub category: String,
    pub r#type: i64,
    pub level: i64,
    pub code: String,
    /// The alarm's name in the request's language.
    pub warning_name: String,
    pub detail: String,
    pub value: Option<f64>,
    pub threshold: Option<f64>,
    pub status: i64,
    pub status_name: String,
    pub first_time: Timestamp,
    pub last_time: Timestamp,
    pub occurrences: i64,
    pub ack_user_name: Option<String>,
    pub ack_time: Option<Timestamp>,
    pub ack_note: Option<String>,
    /// Who cleared it: a user's name, or 系统 / system when it cleared by itself.
    pub clear_user_name: Option<String>,
    pub clear_time: Option<Timestamp>,
    pub clear_note: Option<String>,
    /// The alarm's latest repair order (absent when it has none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repair_id: Option<Id>,
    /// That order's status, 1 .. 8 (absent when there is no order).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repair_status: Option<i64>,
}

const STATUS_NAMES: [(&str, &str); 3] = [
    ("未处理", "Active"),
    ("已确认", "Acknowledged"),
    ("已清除", "Cleared"),
];

fn status_name(status: i64, lang: Lang) -> String {
    let (zh, en) = usize::try_from(status)
        .ok()
        .and_then(|i| STATUS_NAMES.get(i))
        .copied()
        .unwrap_or(("", ""));
    match lang {
        Lang::Zh => zh,
        Lang::En => en,
    }
    .to_owned()
}

const SELECT: &str = "SELECT a.id, a.station_id, s.name AS station_name, a.device_id, a.device_kind, a.device_name, \
     a.kind, a.category, a.type, a.level, a.code, a.name, a.name_en, a.detail, a.detail_en, a.value, a.threshold, \
     a.status, a.first_time, a.last_time, a.occurrences, a.ack_user, a.ack_time, a.ack_note, a.clear_user, \
     a.clear_time, a.clear_note, au.real_name AS ack_real, au.name AS ack_name, cu.real_name AS clear_real, \
     cu.name AS clear_name, a.repair_id, ro.status AS repair_status, ";

/// The alarmed device's serial number, from the register of its kind. The alarm row keeps the
/// device's name only; operators read serials off the nameplate and search by them.
const DEVICE_SN: &str = "COALESCE(CASE a.device_kind \
     WHEN 'inverter' THEN (SELECT d.sn FROM pv_inverter d WHERE d.id = a.device_id) \
     WHEN 'meter' THEN (SELECT d.sn FROM pv_meter d WHERE d.id = a.device_id) \
     WHEN 'weather' THEN (SELECT d.sn FROM pv_weather d WHERE d.id = a.device_id) \
     WHEN 'flex' THEN (SELECT d.sn FROM pv_flex d WHERE d.id = a.device_id) \
     WHEN 'gateway' THEN s.gateway_sn END, '')";

const FROM: &str = " FROM pv_alarm a JOIN pv_station s ON s.id = a.station_id \
     LEFT JOIN blade_user au ON au.id = a.ack_user LEFT JOIN blade_user cu ON cu.id = a.clear_user \
     LEFT JOIN pv_repair_order ro ON ro.id = a.repair_id";

fn user_name(real: Option<String>, name: Option<String>) -> Option<String> {
    real.filter(|n| !n.is_empty()).or(name.filter(|n| !n.is_empty()))
}

fn record(r: &AnyRow, lang: Lang) -> Result<AlarmRecord, sqlx::Error> {
    let pick = |zh: &str, en: &str| -> Result<String, sqlx::Error> {
        let z: String = r.try_get(zh)?;
        let e: String = r.try_get(en)?;
        Ok(if lang == Lang::En && !e.is_empty() { e } else { z })
    };
    let status: i64 = r.try_get("status")?;
    let clear_user: Option<i64> = r.try_get("clear_user")?;
    let clear_user_name = match clear_user {
        Some(0) => Some(Text::new("系统", "system").get(lang).to_owned()),
        Some(_) => user_name(r.try_get("clear_real")?, r.try_get("clear_name")?),
        None => None,
    };
    let device_name: String = r.try_get("device_name")?;
    Ok(AlarmRecord {
        device_sn: r.try_get("device_sn")?,
        id: Id(r.try_get("id")?),
        station_id: Id(r.try_get("station_id")?),
        station_name: r.try_get("station_name")?,
        device_id: Id(r.try_get("device_id")?),
        device_kind: r.try_get("device_kind")?,
        inverter: device_name.clone(),
        device_name,
        kind: r.try_get("kind")?,
        category: r.try_get("category")?,
        r#type: r.try_get("type")?,
        level: r.try_get("level")?,
        code: r.try_get("code")?,
        warning_name: pick("name", "name_en")?,
        detail: pick("detail", "detail_en")?,
        value: r.try_get("value")?,
        threshold: r.try_get("threshold")?,
        status,
        status_name: status_name(status, lang),
        first_time: Timestamp(r.try_get("first_time")?),
        last_time: Timestamp(r.try_get("last_time")?),
        occurrences: r.try_get("occurrences")?,
        ack_user_name: user_name(r.try_get("ack_real")?, r.try_get("ack_name")?),
        ack_time: r.try_get::<Option<i64>, _>("ack_time")?.map(Timestamp),
        ack_note: r.try_get("ack_note")?,
        clear_user_name,
        clear_time: r.try_get::<Option<i64>, _>("clear_time")?.map(Timestamp),
        clear_note: r.try_get("clear_note")?,
        repair_id: r.try_get::<Option<i64>, _>("repair_id")?.map(Id),
        repair_status: r.try_get("repair_status")?,
    })
}

/// `WHERE` of the caller's visible alarms: own tenant, live stations in scope.
fn visible(scope: &Scoped) -> Sql {
    let mut sql = Sql::new(" WHERE ");
    sql.append(&scope.caller.tenant_filter("a.tenant_id"));
    sql.push(" AND ");
    sql.append(&scope.stations.stations("s"));
    sql
}

fn time_param(name: &str, v: &Option<String>) -> Result<Option<i64>, ApiError> {
    match v.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
        None => Ok(None),
        Some(s) => time::parse_ms(s).map(Some).ok_or_else(|| {
            ApiError::bad_request(
                format!("{name} 时间格式应为 yyyy-MM-dd HH:mm:ss"),
                format!("{name} must be a yyyy-MM-dd HH:mm:ss date-time"),
            )
        }),
    }
}

/// Type 1 alarms (`fault == true`) or smart warnings, filtered, newest `last_time` first.
async fn page(state: &Core, scope: &Scoped, f: AlarmFilter, fault: bool) -> ApiResult<Page<AlarmRecord>> {
    let (current, size) = paging(f.current, f.size)?;
    let mut filter = visible(scope);
    filter.push(if fault {
        " AND a.type = 1"
    } else {
        " AND a.type <> 1"
    });
    if let Some(id) = f.id {
        filter.push_bind(" AND a.id = ?", [Value::from(id)]);
    }
    if let Some(id) = f.station_id {
        filter.push_bind(" AND a.station_id = ?", [Value::from(id)]);
    }
    if let Some(id) = f.device_id {
        filter.push_bind(" AND a.device_id = ?", [Value::from(id)]);
    }
    if let Some(s) = f.status {
        filter.push_bind(" AND a.status = ?", [Value::Int(s)]);
    }
    if let Some(l) = f.level {
        filter.push_bind(" AND a.level = ?", [Value::Int(l)]);
    }
    if let Some(c) = f.category.as_deref().map(str::trim).filter(|c| !c.is_empty()) {
        filter.push_bind(" AND a.category = ?", [Value::from(c)]);
    }
    if let Some(t) = time_param("startTime", &f.start_time)? {
        filter.push_bind(" AND a.last_time >= ?", [Value::Int(t)]);
    }
    if let Some(t) = time_param("endTime", &f.end_time)? {
        filter.push_bind(" AND a.first_time <= ?", [Value::Int(t)]);
    }
    if let Some(k) = f.keyword.as_deref().map(str::trim).filter(|k| !k.is_empty()) {
        let like = like_contains(k);
        filter.push_bind(
            // Case-insensitive and literal on both back-ends, like kernel::list's filters.
            " AND (LOWER(a.name) LIKE LOWER(?) ESCAPE '\\' OR LOWER(a.name_en) LIKE LOWER(?) ESCAPE '\\' \
             OR LOWER(a.device_name) LIKE LOWER(?) ESCAPE '\\' OR LOWER(a.code) LIKE LOWER(?) ESCAPE '\\'",
            [
                Value::from(like.as_str()),
                Value::from(like.as_str()),
                Value::from(like.as_str()),
                Value::from(like.as_str()),
            ],
        );
        filter.push(" OR LOWER(");
        filter.push(DEVICE_SN);
        filter.push_bind(") LIKE LOWER(?) ESCAPE '\\')", [Value::from(like.as_str())]);
    }
    let mut count = Sql::new("SELECT COUNT(*) FROM pv_alarm a JOIN pv_station s ON s.id = a.station_id");
    count.append(&filter);
    let total: i64 = count.scalar(state.db.pool()).await?;
    let mut sql = Sql::new(SELECT);
    sql.push(DEVICE_SN);
    sql.push(" AS device_sn");
    sql.push(FROM);
    sql.append(&filter);
    sql.push_bind(
        " ORDER BY a.last_time DESC, a.id DESC LIMIT ? OFFSET ?",
        [Value::Int(size), Value::Int((current - 1) * size)],
    );
    let lang = Lang::current();
    let records = sql
        .rows(state.db.pool())
        .await?
        .iter()
        .map(|r| record(r, lang))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Page::new(records, total, size, current))
}

/// One alarm the caller may see (any type), or 404.
pub async fn find(state: &Core, scope: &Scoped, id: Id) -> ApiResult<AlarmRecord> {
    let mut sql = Sql::new(SELECT);
    sql.push(DEVICE_SN);
    sql.push(" AS device_sn");
    sql.push(FROM);
    sql.append(&visible(scope));
    sql.push_bind(" AND a.id = ?", [Value::from(id)]);
    let row = sql.row(state.db.pool()).await?.ok_or_else(ApiError::not_found)?;
    Ok(record(&row, Lang::current())?)
}

/// Station-fault alarms (type 1) of the caller's stations, newest first.
#[utoipa::path(get, path = "/api/alarmData/page", tag = "alarm", params(AlarmFilter),
    responses((status = 200, body = Envelope<Page<AlarmRecord>>), (status = 400), (status = 401)))]
pub async fn alarm_page(
    State(state): State<AlarmCtx>,
    scope: Scoped,
    Query(f): Query<AlarmFilter>,
) -> ApiResult<Data<Page<AlarmRecord>>> {
    Ok(Data(page(&state, &scope, f, true).await?))
}

/// Smart warnings (type ≠ 1) of the caller's stations, newest first; same filters and record.
#[utoipa::path(get, path = "/api/warnData/page", tag = "alarm", params(AlarmFilter),
    responses((status = 200, body = Envelope<Page<AlarmRecord>>), (status = 400), (status = 401)))]
pub async fn warn_page(
    State(state): State<AlarmCtx>,
    scope: Scoped,
    Query(f): Query<AlarmFilter>,
) -> ApiResult<Data<Page<AlarmRecord>>> {
    Ok(Data(page(&state, &scope, f, false).await?))
}

/// One alarm (404 outside the caller's stations).
#[utoipa::path(get, path = "/api/alarmData/{id}", tag = "alarm", params(("id" = String, Path)),
    responses((status = 200, body = Envelope<AlarmRecord>), (status = 401), (status = 404)))]
pub async fn detail(
    State(state): State<AlarmCtx>,
    scope: Scoped,
    Path(id): Path<Id>,
) -> ApiResult<Data<AlarmRecord>> {
    Ok(Data(find(&state, &scope, id).await?))
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DictItem {
    pub dict_key: String,
    pub dict_value: String,
}

/// The alarm statuses: 0 active, 1 acknowledged, 2 cleared (names per `Accept-Language`).
#[utoipa::path(get, path = "/api/alarmData/listAlarmStatus", tag = "alarm",
    responses((status = 200, body = Envelope<Vec<DictItem>>), (status = 401)))]
pub async fn list_alarm_status(_caller: Caller) -> ApiResult<Data<Vec<DictItem>>> {
    let lang = Lang::current();
    Ok(Data(
        (0..STATUS_NAMES.len() as i64)
            .map(|s| DictItem {
                dict_key: s.to_string(),
                dict_value: status_name(s, lang),
            })
            .collect(),
    ))
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct HandleBody {
    #[schema(value_type = String)]
    pub id: Id,
    /// `ack` (from active) or `clear` (from active or acknowledged).
    pub action: String,
    /// At most 500 characters.
    #[serde(default)]
    pub note: Option<String>,
}

/// Acknowledges or clears an alarm by hand, with a note (button `alarmData_handle`). Answers the
/// alarm as it is now.
#[utoipa::path(put, path = "/api/alarmData", tag = "alarm", request_body = HandleBody,
    responses((status = 200, body = Envelope<AlarmRecord>), (status = 400), (status = 401), (status = 403), (status = 404)))]
pub async fn handle(
    State(state): State<AlarmCtx>,
    scope: Scoped,
    Json(body): Json<HandleBody>,
) -> ApiResult<Data<AlarmRecord>> {
    let caller = &scope.caller;
    caller.require(&state, HANDLE_BUTTON).await?;
    let note = body.note.as_deref().map(str::trim).filter(|n| !n.is_empty());
    if note.is_some_and(|n| n.chars().count() > NOTE_MAX) {
        return Err(ApiError::bad_request(
            format!("备注不能超过{NOTE_MAX}个字符"),
            format!("The note must not exceed {NOTE_MAX} characters"),
        ));
    }
    let current = find(&state, &scope, body.id).await?;
    let now = time::now_ms();
    let mut sql = Sql::new("UPDATE pv_alarm SET ");
    match body.action.as_str() {
        "ack" => {
            if current.status != STATUS_ACTIVE {
                return Err(ApiError::bad_request(
                    "只能确认未处理的告警",
                    "Only an active alarm can be acknowledged",
                ));
            }
            sql.push_bind(
                "status = ?, ack_user = ?, ack_time = ?, ack_note = ? WHERE id = ? AND status = ?",
                [
                    Value::Int(STATUS_ACKNOWLEDGED),
                    Value::from(caller.user_id),
                    Value::Int(now),
                    Value::from(note.map(str::to_owned)),
                    Value::from(body.id),
                    Value::Int(STATUS_ACTIVE),
                ],
            );
        }
        "clear" => {
            if current.status == STATUS_CLEARED {
                return Err(ApiError::bad_request(
                    "告警已清除",
                    "The alarm is already cleared",
                ));
            }
            sql.push_bind(
                "status = ?, clear_user = ?, clear_time = ?, clear_note = ? WHERE id = ? AND status < ?",
                [
                    Value::Int(STATUS_CLEARED),
                    Value::from(caller.user_id),
                    Value::Int(now),
                    Value::from(note.map(str::to_owned)),
                    Value::from(body.id),
                    Value::Int(STATUS_CLEARED),
                ],
            );
        }
        _ => {
            return Err(ApiError::bad_request(
                "操作须为 ack 或 clear",
                "action must be ack or clear",
            ));
        }
    }
    let changed = sql.execute(state.db.pool()).await?;
    if changed == 0 {
        // The engine cleared it (or another user acted) between the read and the update.
        return Err(ApiError::bad_request(
            "告警状态已变化，请刷新后重试",
            "The alarm changed meanwhile; refresh and try again",
        ));
    }
    store::notify(&state, &caller.tenant_id);
    Ok(Data(find(&state, &scope, body.id).await?))
}

/// The caller's tenant's alarm rule settings (defaults where never set).
#[utoipa::path(get, path = "/api/alarmRule", tag = "alarm",
    responses((status = 200, body = Envelope<Settings>), (status = 401)))]
pub async fn get_rule(State(state): State<AlarmCtx>, caller: Caller) -> ApiResult<Data<Settings>> {
    Ok(Data(threshold_settings::load(&state, &caller.tenant_id).await?))
}

const TENANT_WIDE: Text = Text::new(
    "告警规则对整个租户生效，仅限未限定电站的用户修改",
    "Alarm rules apply to the whole tenant: only users not limited to assigned stations may change them",
);

/// Saves the tenant's alarm rule settings (button `alarmData_handle`; a user limited to assigned
/// stations may not change what applies to every station). Refused with a message when a bound
/// is out of range or a minimum is not below its maximum.
#[utoipa::path(put, path = "/api/alarmRule", tag = "alarm", request_body = Settings,
    responses((status = 200, body = Envelope<Settings>), (status = 400), (status = 401), (status = 403)))]
pub async fn put_rule(
    State(state): State<AlarmCtx>,
    Scoped { caller, stations }: Scoped,
    Json(body): Json<Settings>,
) -> ApiResult<Data<Settings>> {
    caller.require(&state, HANDLE_BUTTON).await?;
    if stations.is_restricted() {
        return Err(ApiError::Forbidden(TENANT_WIDE));
    }
    body.validate().map_err(ApiError::BadRequest)?;
    threshold_settings::save(&state, &caller, &body).await?;
    state.alarms.settings.put(&caller.tenant_id, body);
    state
        .cluster
        .publish(threshold_settings::TOPIC, &caller.tenant_id);
    Ok(Data(body))
}
