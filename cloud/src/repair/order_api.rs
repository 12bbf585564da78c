//! Repair orders: the page, one order with its timeline, creating one (by hand, from an alarm or
//! from an inspection result) and the status dictionary.

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::action_api::assign_in;
use super::approval;
use super::machine::{self, Action};
use super::notify::{self, About, Event};
use super::people::Viewer;
use super::photos::photos;
use super::record::{RepairOrder, Row, SOURCE_ALARM, SOURCE_INSPECTION, SOURCE_MANUAL};
use super::settings::{REPAIR_KEY, RepairSetting};
use super::source::source_from_inspection;
use super::store::{self, ALARM_HAS_ORDER, FROM, NewOrder, RESULT_HAS_ORDER, SELECT};
use super::view;
use crate::alarm::context::AlarmCtx;
use crate::alarm::store::{LEVEL_CRITICAL, LEVEL_MINOR, LEVEL_NOTICE};
use crate::auth::Caller;
use crate::auth::scope::{Scoped, visible_station};
use crate::kernel::extract::{Json, Path, Query};
use crate::kernel::lang::{Lang, Text};
use crate::kernel::sql::{Sql, Value, like_contains};
use crate::kernel::{ApiError, ApiResult, Core, Data, Envelope, Id, Page, time};

pub const ADD_BUTTON: &str = "repair_add";

#[derive(Debug, Default, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct RepairFilter {
    pub current: Option<i64>,
    pub size: Option<i64>,
    pub station_id: Option<Id>,
    /// 1 submitted .. 8 canceled.
    pub status: Option<i64>,
    /// 1 notice .. 4 critical.
    pub level: Option<i64>,
    /// `1` manual, `2` alarm, `3` inspection.
    pub source: Option<i64>,
    /// Contained in the code, title or description.
    pub keyword: Option<String>,
    /// true: only orders assigned to the caller.
    pub mine: Option<bool>,
    /// true: only open orders past a deadline (not accepted in time, or not repaired in time).
    pub overdue: Option<bool>,
}

/// ` AND` the open orders past a deadline at `now`.
pub fn overdue_condition(now: i64) -> Sql {
    let mut sql = Sql::default();
    sql.push_bind(
        " AND ((o.status IN (1, 2) AND o.response_deadline < ?) OR (o.status IN (1, 2, 3, 4) AND o.repair_deadline < ?))",
        [Value::Int(now), Value::Int(now)],
    );
    sql
}

/// The caller's orders, newest first, with what the caller may do with each.
#[utoipa::path(get, path = "/api/repair/page", tag = "repair", params(RepairFilter),
    responses((status = 200, body = Envelope<Page<RepairOrder>>), (status = 400), (status = 401)))]
pub async fn page(
    State(ctx): State<AlarmCtx>,
    scope: Scoped,
    Query(f): Query<RepairFilter>,
) -> ApiResult<Data<Page<RepairOrder>>> {
    let (current, size) = crate::alarm::api::paging(f.current, f.size)?;
    let mut filter = store::visible(&scope);
    if let Some(id) = f.station_id {
        filter.push_bind(" AND o.station_id = ?", [Value::from(id)]);
    }
    if let Some(s) = f.status {
        filter.push_bind(" AND o.status = ?", [Value::Int(s)]);
    }
    if let Some(l) = f.level {
        filter.push_bind(" AND o.level = ?", [Value::Int(l)]);
    }
    if let Some(s) = f.source {
        filter.push_bind(" AND o.source = ?", [Value::Int(s)]);
    }
    if f.mine == Some(true) {
        filter.push_bind(" AND o.assignee_id = ?", [Value::from(scope.caller.user_id)]);
    }
    if f.overdue == Some(true) {
        filter.append(&overdue_condition(time::now_ms()));
    }
    if let Some(k) = f.keyword.as_deref().map(str::trim).filter(|k| !k.is_empty()) {
        let like = like_contains(k);
        filter.push_bind(
            " AND (LOWER(o.code) LIKE LOWER(?) ESCAPE '\\' OR LOWER(o.title) LIKE LOWER(?) ESCAPE '\\' \
             OR LOWER(o.description) LIKE LOWER(?) ESCAPE '\\')",
            [
                Value::from(like.as_str()),
                Value::from(like.as_str()),
                Value::from(like.as_str()),
            ],
        );
    }
    let mut count = Sql::new("SELECT COUNT(*)");
    count.push(FROM);
    count.append(&filter);
    let total: i64 = count.scalar(ctx.db.pool()).await?;
    let mut sql = Sql::new(SELECT);
    sql.push(FROM);
    sql.append(&filter);
    sql.push_bind(
        " ORDER BY o.create_time DESC, o.id DESC LIMIT ? OFFSET ?",
        [Value::Int(size), Value::Int((current - 1) * size)],
    );
    let rows = sql.fetch_all::<Row, _>(ctx.db.pool()).await?;
    let viewer = Viewer::load(&ctx, &scope).await?;
    let records = view::orders(&ctx, &scope.caller.tenant_id, &viewer, rows).await?;
    Ok(Data(Page::new(records, total, size, current)))
}

/// One order with its timeline (404 outside the caller's scope).
#[utoipa::path(get, path = "/api/repair/{id}", tag = "repair", params(("id" = String, Path)),
    responses((status = 200, body = Envelope<RepairOrder>), (status = 401), (status = 404)))]
pub async fn detail(
    State(ctx): State<AlarmCtx>,
    scope: Scoped,
    Path(id): Path<Id>,
) -> ApiResult<Data<RepairOrder>> {
    let viewer = Viewer::load(&ctx, &scope).await?;
    Ok(Data(view::detail(&ctx, &scope, &viewer, id).await?))
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RepairStatusItem {
    pub dict_key: String,
    pub dict_value: String,
}

/// The order statuses 1 .. 8 (dictionary `repair_status`, names per `Accept-Language`).
#[utoipa::path(get, path = "/api/repair/statusList", tag = "repair",
    responses((status = 200, body = Envelope<Vec<RepairStatusItem>>), (status = 401)))]
pub async fn status_list(_caller: Caller) -> ApiResult<Data<Vec<RepairStatusItem>>> {
    let lang = Lang::current();
    Ok(Data(
        machine::STATUSES
            .map(|s| RepairStatusItem {
                dict_key: s.to_string(),
                dict_value: machine::status_name(s, lang),
            })
            .collect(),
    ))
}

#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreateBody {
    /// Required by hand; from an alarm or inspection result it defaults to theirs.
    pub title: Option<String>,
    pub description: Option<String>,
    #[schema(value_type = Option<String>)]
    pub station_id: Option<Id>,
    #[schema(value_type = Option<String>)]
    pub device_id: Option<Id>,
    #[schema(value_type = Option<String>)]
    pub alarm_id: Option<Id>,
    #[schema(value_type = Option<String>)]
    pub inspect_record_id: Option<Id>,
    pub inspect_result_index: Option<i64>,
    /// 1 notice .. 4 critical (default 2; from an alarm, the alarm's level).
    pub level: Option<i64>,
    /// Links of this tenant's uploads (at most 9).
    pub photos: Option<Vec<String>>,
    /// Assign at once (needs `repair_assign`).
    #[schema(value_type = Option<String>)]
    pub assignee_id: Option<Id>,
}

/// `v` trimmed and cut to `max` characters (names copied from an alarm may be longer than a
/// title may be); refused when empty.
fn clean(v: &str, max: usize, empty: Text) -> Result<String, ApiError> {
    let v = v.trim();
    if v.is_empty() {
        return Err(ApiError::BadRequest(empty));
    }
    Ok(v.chars().take(max).collect())
}

/// Refuses a given text longer than `max` characters.
fn at_most(v: &Option<String>, max: usize, zh: &str, en: &str) -> Result<(), ApiError> {
    if v.as_deref().is_some_and(|v| v.trim().chars().count() > max) {
        return Err(ApiError::bad_request(
            format!("{zh}不能超过{max}个字符"),
            format!("{en} must not exceed {max} characters"),
        ));
    }
    Ok(())
}

/// The name of device `device` of `station` (any registry), if it is there.
async fn device_name(core: &Core, station: i64, device: Id) -> Result<Option<String>, ApiError> {
    let mut sql = Sql::default();
    for (i, table) in ["pv_inverter", "pv_meter", "pv_weather", "pv_camera", "pv_flex"]
        .iter()
        .enumerate()
    {
        if i > 0 {
            sql.push(" UNION ALL ");
        }
        sql.push_bind(
            &format!("SELECT name FROM {table} WHERE id = ? AND station_id = ? AND is_deleted = 0"),
            [Value::from(device), Value::Int(station)],
        );
    }
    sql.scalar_optional::<String, _>(core.db.pool()).await
}

/// The answer refusing a second open order for one alarm: 400 with the existing order's id.
fn already_from_inspection(existing: Id) -> Response {
    let mut body = Envelope::failure(400, RESULT_HAS_ORDER.render());
    body.data = Some(existing);
    (StatusCode::BAD_REQUEST, axum::Json(body)).into_response()
}

fn already(existing: Id) -> Response {
    let mut body = Envelope::failure(400, ALARM_HAS_ORDER.render());
    body.data = Some(existing);
    (StatusCode::BAD_REQUEST, axum::Json(body)).into_response()
}

/// Opens an order (button `repair_add`): by hand (title, description, station), from an alarm
/// (its station, device, level, name and detail; one open order per alarm: a second answers 400
/// with the existing order's id as `data`) or from an inspection result. With `assigneeId` it is
/// assigned at once (needs `repair_assign`).
#[utoipa::path(post, path = "/api/repair", tag = "repair", request_body = CreateBody,
    responses((status = 200, body = Envelope<RepairOrder>), (status = 400, body = Envelope<String>), (status = 401), (status = 403), (status = 404)))]
pub async fn create(
    State(ctx): State<AlarmCtx>,
    scope: Scoped,
    Json(b): Json<CreateBody>,
) -> ApiResult<Response> {
    let caller = &scope.caller;
    caller.require(&ctx, ADD_BUTTON).await?;
    let photos = photos(&ctx, &caller.tenant_id, b.photos.as_deref().unwrap_or(&[])).await?;
    at_most(&b.title, 200, "工单标题", "The title")?;
    at_most(&b.description, 2000, "问题描述", "The description")?;
    let level = b.level.unwrap_or(LEVEL_MINOR);
    if !(LEVEL_NOTICE..=LEVEL_CRITICAL).contains(&level) {
        return Err(ApiError::bad_request("等级须为1到4", "The level must be 1 to 4"));
    }
    let mut o = NewOrder {
        tenant_id: caller.tenant_id.clone(),
        title: String::new(),
        description: String::new(),
        station_id: 0,
        device_id: None,
        device_name: String::new(),
        alarm_id: None,
        alarm_name: String::new(),
        alarm_level: None,
        inspect_record_id: None,
        inspect_result_index: None,
        source: SOURCE_MANUAL,
        level,
        creator_id: caller.user_id.0,
        photos,
        response_deadline: 0,
        repair_deadline: 0,
    };
    let given = |v: &Option<String>| {
        v.as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
    };
    if let Some(alarm_id) = b.alarm_id {
        let alarm = crate::alarm::api::find(&ctx, &scope, alarm_id).await?;
        if let Some(existing) = alarm
            .repair_id
            .filter(|_| alarm.repair_status.is_some_and(machine::is_open))
        {
            return Ok(already(existing));
        }
        o.source = SOURCE_ALARM;
        o.station_id = alarm.station_id.0;
        o.device_id = (alarm.device_id.0 != 0).then_some(alarm.device_id.0);
        o.device_name = alarm.device_name.clone();
        o.alarm_id = Some(alarm_id.0);
        o.alarm_name = alarm.warning_name.clone();
        o.alarm_level = Some(alarm.level);
        o.level = alarm.level.clamp(LEVEL_NOTICE, LEVEL_CRITICAL);
        o.title = given(&b.title).unwrap_or_else(|| format!("{} {}", alarm.device_name, alarm.warning_name));
        o.description = given(&b.description).unwrap_or_else(|| {
            if alarm.detail.is_empty() {
                alarm.warning_name.clone()
            } else {
                alarm.detail.clone()
            }
        });
    } else if let Some(record) = b.inspect_record_id {
        o.source = SOURCE_INSPECTION;
        o.inspect_record_id = Some(record.0);
        o.inspect_result_index = b.inspect_result_index;
        let src = source_from_inspection(&ctx, &scope, record, b.inspect_result_index.unwrap_or(0)).await?;
        if let Some(existing) = src.repair_id
            && store::is_open(&ctx, existing).await?
        {
            return Ok(already_from_inspection(existing));
        }
        o.inspect_result_index = Some(b.inspect_result_index.unwrap_or(0));
        o.station_id = src.station_id;
        o.title = given(&b.title).unwrap_or(src.title);
        o.description = given(&b.description).unwrap_or(src.description);
    }
    if o.station_id == 0 {
        let station = b.station_id.ok_or(ApiError::BadRequest(Text::new(
            "请选择电站",
            "Please choose a station",
        )))?;
        if !visible_station(&ctx, &scope.stations, station).await? {
            return Err(ApiError::not_found());
        }
        o.station_id = station.0;
    }
    if o.source != SOURCE_ALARM
        && let Some(device) = b.device_id
    {
        o.device_name = device_name(&ctx, o.station_id, device)
            .await?
            .ok_or(ApiError::BadRequest(Text::new(
                "设备不属于该电站",
                "The device is not in this station",
            )))?;
        o.device_id = Some(device.0);
    }
    if o.title.is_empty() {
        o.title = b.title.clone().unwrap_or_default();
    }
    if o.description.is_empty() {
        o.description = b.description.clone().unwrap_or_default();
    }
    o.title = clean(
        &o.title,
        200,
        Text::new("请输入工单标题", "Please enter the order title"),
    )?;
    o.description = clean(
        &o.description,
        2000,
        Text::new("请输入问题描述", "Please describe the problem"),
    )?;
    let viewer = Viewer::load(&ctx, &scope).await?;
    if b.assignee_id.is_some() && !viewer.is_dispatcher(o.station_id) {
        return Err(ApiError::Forbidden(machine::NOT_YOURS));
    }
    let now = time::now_ms();
    let setting: RepairSetting =
        crate::analytics::settings::load(&ctx, &caller.tenant_id, REPAIR_KEY).await?;
    (o.response_deadline, o.repair_deadline) = setting.deadlines(o.level, now);
    let offer = approval::Offer {
        tenant_id: caller.tenant_id.clone(),
        station_id: o.station_id,
        level: o.level,
        source: o.source,
        creator: caller.user_id.0,
        assignee: b.assignee_id,
    };
    let prepared = approval::prepare(&ctx, &offer).await?;
    if let Some(assignee) = b.assignee_id
        && prepared.is_some()
    {
        // Checked now, assigned when approved.
        super::people::check_maintainer(&ctx, &caller.tenant_id, assignee, o.station_id).await?;
    }
    let mut tx = ctx.db.begin_write().await?;
    let id = store::insert(&ctx, &mut tx, &o, now).await?;
    if let (Some(record), Some(index)) = (o.inspect_record_id, o.inspect_result_index) {
        super::source::link_result(&mut tx, record, index, id).await?;
    }
    let mut assigned = None;
    let pending = prepared.is_some();
    if let Some(prepared) = prepared {
        approval::begin(&mut tx, &ctx, id, &o.title, &offer, prepared, now).await?;
    }
    if let Some(assignee) = b.assignee_id.filter(|_| !pending) {
        let row = store::find_in(&mut tx, id)
            .await?
            .ok_or_else(ApiError::not_found)?;
        viewer.check(&row, false, Action::Assign)?;
        assign_in(&ctx, &mut tx, &row, viewer.user, assignee, "").await?;
        assigned = Some((row, assignee));
    }
    tx.commit().await?;
    if let Some((row, assignee)) = assigned {
        let about = About {
            tenant_id: &row.tenant_id,
            id,
            code: &row.code,
            title: &row.title,
            station_id: row.station_id,
        };
        notify::send(&ctx, &about, Event::Assigned, &[assignee.0]).await?;
    }
    if o.alarm_id.is_some() {
        crate::alarm::store::notify(&ctx, &caller.tenant_id);
    }
    Ok(Data(view::detail(&ctx, &scope, &viewer, id).await?).into_response())
}
