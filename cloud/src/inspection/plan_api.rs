//! Inspection plans (`/api/inspectPlan`): stations, items and maintenance staff on a cycle.
//! Reads follow the plan visibility of `store`; writes need the buttons `inspectionPlan_add` /
//! `_edit` / `_delete` / `_copy`. Every maintenance user of a plan must be maintenance staff of
//! the tenant who can see every station of the plan, so each task reaches people who may fill it.

use axum::extract::State;
use serde::{Deserialize, Deserializer};
use utoipa::{IntoParams, ToSchema};

use super::common::{Deleted, InspectDictItem, check_len, given, paging};
use super::cycle::{ALARM_DAYS, CYCLES, Cycle, alarm_day_name};
use super::item_api::{InspectItemForm, create_item};
use super::item_store::{self, InspectItem};
use super::store::{self, InspectPlan, PLAN_COLUMNS, PlanDraft, PlanFilter, PlanRow, parse_date};
use crate::auth::Caller;
use crate::auth::scope::Scoped;
use crate::kernel::entity::rest::IdPath;
use crate::kernel::extract::{Json, Path, Query};
use crate::kernel::id::{SELECT_ONE, ids_param};
use crate::kernel::lang::{Lang, Text};
use crate::kernel::sql::{Sql, Value};
use crate::kernel::{ApiError, ApiResult, Core, Data, Envelope, Id, Page};

const NO_NAME: Text = Text::new("请输入计划名称", "Please enter the plan name");
const NO_STATION: Text = Text::new("请至少选择一个电站", "Please choose at least one station");
const BAD_STATION: Text = Text::new(
    "所选电站不存在或无权查看",
    "A chosen station does not exist or is not visible to you",
);
const NO_ITEM: Text = Text::new(
    "请至少选择一个巡检项",
    "Please choose at least one inspection item",
);
const BAD_ITEM: Text = Text::new("所选巡检项不存在", "A chosen inspection item does not exist");
const NO_USER: Text = Text::new(
    "请至少选择一名运维人员",
    "Please choose at least one maintenance user",
);
const BAD_USER: Text = Text::new(
    "运维人员须为本租户能查看所选全部电站的运维人员",
    "Each maintenance user must be maintenance staff of the tenant who can see every chosen station",
);
const NO_CYCLE: Text = Text::new("请选择巡检周期", "Please choose the inspection cycle");
const BAD_ALARM_DAY: Text = Text::new("请选择提醒时间", "Please choose when to remind");
const NO_START: Text = Text::new("请选择开始日期", "Please choose the start date");
const BAD_DATE: Text = Text::new(
    "日期格式不正确（应为yyyy-MM-dd）",
    "Invalid date (expected yyyy-MM-dd)",
);
const END_BEFORE_START: Text = Text::new(
    "结束日期不能早于开始日期",
    "The end date must not be before the start date",
);
const BAD_STATUS: Text = Text::new(
    "状态只能是启用(1)或停用(0)",
    "Status is 1 (enabled) or 0 (disabled)",
);

/// Text or a number (the console sends dictionary keys either way).
fn text_or_number<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Raw {
        Text(String),
        Number(i64),
    }
    Ok(Option::<Raw>::deserialize(d)?.map(|r| match r {
        Raw::Text(s) => s,
        Raw::Number(n) => n.to_string(),
    }))
}

/// A plan as submitted (`id` only when changing one; a change replaces every field).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InspectPlanForm {
    pub id: Option<Id>,
    /// At most 100 characters.
    pub name: Option<String>,
    /// 1 to 200 stations the caller can see.
    pub station_ids: Option<Vec<Id>>,
    /// 1 to 50 items of the tenant, in the order the task shows them.
    pub item_ids: Option<Vec<Id>>,
    /// 1 to 50 maintenance users (see `maintenanceList`).
    pub maintenance_ids: Option<Vec<Id>>,
    /// `1`..`6` (see `cyclePeriodList`).
    #[serde(default, deserialize_with = "text_or_number")]
    #[schema(value_type = Option<String>, example = "3")]
    pub cycle_period: Option<String>,
    /// 0, 1, 2, 3, 5 or 7 (see `alarmDayList`); default 0.
    #[serde(default, deserialize_with = "text_or_number")]
    #[schema(value_type = Option<i64>, example = 1)]
    pub alarm_day: Option<String>,
    /// `yyyy-MM-dd`.
    #[schema(example = "2026-11-25")]
    pub start_date: Option<String>,
    /// `yyyy-MM-dd`, not before the start; absent or null: no end.
    pub end_date: Option<String>,
    /// 1 enabled (default), 0 disabled.
    pub status: Option<i64>,
    /// At most 500 characters.
    pub remark: Option<String>,
}

fn unique(ids: &Option<Vec<Id>>) -> Vec<Id> {
    let mut out: Vec<Id> = Vec::new();
    for id in ids.iter().flatten() {
        if !out.contains(id) {
            out.push(*id);
        }
    }
    out
}

fn date(s: &str) -> Result<chrono::NaiveDate, ApiError> {
    parse_date(s).ok_or(ApiError::BadRequest(BAD_DATE))
}

/// Checks a submitted plan: every message of the contract, and the links against the database.
async fn draft(core: &Core, scoped: &Scoped, form: &InspectPlanForm) -> Result<PlanDraft, ApiError> {
    let name = given(&form.name).ok_or(ApiError::BadRequest(NO_NAME))?;
    check_len(name, 100, "计划名称", "plan name")?;
    let station_ids = unique(&form.station_ids);
    if station_ids.is_empty() {
        return Err(ApiError::BadRequest(NO_STATION));
    }
    let item_ids = unique(&form.item_ids);
    if item_ids.is_empty() {
        return Err(ApiError::BadRequest(NO_ITEM));
    }
    let maintenance_ids = unique(&form.maintenance_ids);
    if maintenance_ids.is_empty() {
        return Err(ApiError::BadRequest(NO_USER));
    }
    if station_ids.len() > 200 || item_ids.len() > 50 || maintenance_ids.len() > 50 {
        return Err(ApiError::bad_request(
            "最多200个电站、50个巡检项、50名运维人员",
            "At most 200 stations, 50 items and 50 maintenance users",
        ));
    }
    let cycle = given(&form.cycle_period)
        .and_then(Cycle::from_key)
        .ok_or(ApiError::BadRequest(NO_CYCLE))?;
    let alarm_day = match given(&form.alarm_day) {
        None => 0,
        Some(v) => v
            .parse::<i64>()
            .ok()
            .filter(|d| ALARM_DAYS.contains(d))
            .ok_or(ApiError::BadRequest(BAD_ALARM_DAY))?,
    };
    let start_date = date(given(&form.start_date).ok_or(ApiError::BadRequest(NO_START))?)?;
    let end_date = given(&form.end_date).map(date).transpose()?;
    if end_date.is_some_and(|e| e < start_date) {
        return Err(ApiError::BadRequest(END_BEFORE_START));
    }
    let status = form.status.unwrap_or(1);
    if !matches!(status, 0 | 1) {
        return Err(ApiError::BadRequest(BAD_STATUS));
    }
    let remark = given(&form.remark).unwrap_or("");
    check_len(remark, 500, "备注", "remark")?;
    if store::visible_stations(core, scoped, &station_ids).await?.len() != station_ids.len() {
        return Err(ApiError::BadRequest(BAD_STATION));
    }
    let tenant = scoped.caller.tenant_id.as_str();
    if item_store::of_ids(core, tenant, &item_ids).await?.len() != item_ids.len() {
        return Err(ApiError::BadRequest(BAD_ITEM));
    }
    let staff = store::staff_seeing(core, tenant, &station_ids).await?;
    if !maintenance_ids.iter().all(|u| staff.contains(u)) {
        return Err(ApiError::BadRequest(BAD_USER));
    }
    Ok(PlanDraft {
        name: name.to_owned(),
        station_ids,
        item_ids,
        maintenance_ids,
        cycle,
        alarm_day,
        start_date,
        end_date,
        status,
        remark: remark.to_owned(),
    })
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct PlanQuery {
    /// Page number, from 1.
    pub current: Option<i64>,
    /// Page size (default 10).
    pub size: Option<i64>,
    /// Part of the name.
    pub name: Option<String>,
    /// Plans covering this station.
    pub station_id: Option<Id>,
    /// 1 enabled, 0 disabled.
    pub status: Option<i64>,
}

impl PlanQuery {
    pub fn filter(&self) -> PlanFilter<'_> {
        PlanFilter {
            name: given(&self.name),
            station_id: self.station_id,
            status: self.status,
        }
    }
}

/// A page of the plans the caller may see, newest first.
#[utoipa::path(get, path = "/api/inspectPlan/page", tag = "inspection", params(PlanQuery),
    responses((status = 200, body = Envelope<Page<InspectPlan>>), (status = 400), (status = 401)))]
pub async fn page(
    State(core): State<Core>,
    scoped: Scoped,
    Query(q): Query<PlanQuery>,
) -> ApiResult<Data<Page<InspectPlan>>> {
    let (current, size) = paging(q.current, q.size);
    let cond = store::filtered(&scoped, &q.filter());
    let mut count = Sql::new("SELECT COUNT(*)");
    count.append(&cond);
    let total: i64 = count.scalar(core.db.pool()).await?;
    let mut sql = Sql::new(PLAN_COLUMNS);
    sql.append(&cond);
    sql.push_bind(
        " ORDER BY p.create_time DESC, p.id DESC LIMIT ? OFFSET ?",
        [Value::Int(size), Value::Int((current - 1) * size)],
    );
    let rows: Vec<PlanRow> = sql.fetch_all(core.db.pool()).await?;
    Ok(Data(Page::new(
        store::assemble(&core, rows).await?,
        total,
        size,
        current,
    )))
}

/// One plan.
#[utoipa::path(get, path = "/api/inspectPlan/{id}", tag = "inspection", params(IdPath),
    responses((status = 200, body = Envelope<InspectPlan>), (status = 400), (status = 404)))]
pub async fn detail(
    State(core): State<Core>,
    scoped: Scoped,
    Path(p): Path<IdPath>,
) -> ApiResult<Data<InspectPlan>> {
    Ok(Data(
        store::find(&core, &scoped, p.one()?)
            .await?
            .ok_or_else(ApiError::not_found)?,
    ))
}

/// Adds a plan; answers it. Its tasks are generated by the job (or `inspectTask/generate`).
#[utoipa::path(post, path = "/api/inspectPlan", tag = "inspection", request_body = InspectPlanForm,
    responses((status = 200, body = Envelope<InspectPlan>), (status = 400), (status = 403)))]
pub async fn create(
    State(core): State<Core>,
    scoped: Scoped,
    Json(form): Json<InspectPlanForm>,
) -> ApiResult<Data<InspectPlan>> {
    scoped.caller.require(&core, "inspectionPlan_add").await?;
    let d = draft(&core, &scoped, &form).await?;
    let id = store::insert(&core, &scoped, &d).await?;
    super::approval::submit(&core, &scoped.caller, id, &d.name, &d.station_ids).await?;
    Ok(Data(
        store::find(&core, &scoped, id)
            .await?
            .ok_or_else(|| ApiError::Internal("plan not stored".into()))?,
    ))
}

/// Replaces a plan (`id` required). Tasks already generated keep their due dates and checks;
/// unfilled tasks of stations the plan no longer covers are removed.
#[utoipa::path(put, path = "/api/inspectPlan", tag = "inspection", request_body = InspectPlanForm,
    responses((status = 200, body = Envelope<InspectPlan>), (status = 400), (status = 403), (status = 404)))]
pub async fn update(
    State(core): State<Core>,
    scoped: Scoped,
    Json(form): Json<InspectPlanForm>,
) -> ApiResult<Data<InspectPlan>> {
    scoped.caller.require(&core, "inspectionPlan_edit").await?;
    let id = form.id.ok_or(ApiError::BadRequest(SELECT_ONE))?;
    if store::find(&core, &scoped, id).await?.is_none() {
        return Err(ApiError::not_found());
    }
    let d = draft(&core, &scoped, &form).await?;
    if !store::update(&core, &scoped, id, &d).await? {
        return Err(ApiError::not_found());
    }
    super::approval::submit(&core, &scoped.caller, id, &d.name, &d.station_ids).await?;
    Ok(Data(
        store::find(&core, &scoped, id)
            .await?
            .ok_or_else(ApiError::not_found)?,
    ))
}

/// Removes the listed plans the caller may see (comma-joined ids) with their unfilled tasks;
/// filled tasks and their records stay. None removed → 400 `删除失败`.
#[utoipa::path(delete, path = "/api/inspectPlan/{id}", tag = "inspection", params(IdPath),
    responses((status = 200, body = Envelope<bool>), (status = 400), (status = 403)))]
pub async fn remove(
    State(core): State<Core>,
    scoped: Scoped,
    Path(p): Path<IdPath>,
) -> Result<Deleted, ApiError> {
    scoped.caller.require(&core, "inspectionPlan_delete").await?;
    let ids = ids_param(&p.id)?;
    Deleted::of(store::remove(&core, &scoped, &ids).await?)
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct CopyQuery {
    /// The plan to copy.
    pub id: Id,
}

/// A copy of a plan, disabled, named with ` (副本)` / ` (copy)`; answers the new plan.
#[utoipa::path(get, path = "/api/inspectPlan/copy", tag = "inspection", params(CopyQuery),
    responses((status = 200, body = Envelope<InspectPlan>), (status = 400), (status = 403), (status = 404)))]
pub async fn copy(
    State(core): State<Core>,
    scoped: Scoped,
    Query(q): Query<CopyQuery>,
) -> ApiResult<Data<InspectPlan>> {
    scoped.caller.require(&core, "inspectionPlan_copy").await?;
    let p = store::find(&core, &scoped, q.id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    let suffix = Text::new(" (副本)", " (copy)").render();
    let keep = 100 - suffix.chars().count();
    let d = PlanDraft {
        name: format!("{}{suffix}", p.name.chars().take(keep).collect::<String>()),
        station_ids: p.station_ids,
        item_ids: p.item_ids,
        maintenance_ids: p.maintenance_ids,
        cycle: Cycle::from_key(&p.cycle_period).unwrap_or(Cycle::Monthly),
        alarm_day: p.alarm_day,
        start_date: parse_date(&p.start_date).ok_or(ApiError::BadRequest(BAD_DATE))?,
        end_date: p.end_date.as_deref().and_then(parse_date),
        status: 0,
        remark: p.remark,
    };
    if d.station_ids.is_empty() || d.item_ids.is_empty() || d.maintenance_ids.is_empty() {
        // Its stations, items or users were removed since: the copy would be unusable.
        return Err(ApiError::BadRequest(NO_STATION));
    }
    let id = store::insert(&core, &scoped, &d).await?;
    Ok(Data(
        store::find(&core, &scoped, id)
            .await?
            .ok_or_else(|| ApiError::Internal("plan not stored".into()))?,
    ))
}

/// The cycles a plan may use (names per `Accept-Language`).
#[utoipa::path(get, path = "/api/inspectPlan/cyclePeriodList", tag = "inspection",
    responses((status = 200, body = Envelope<Vec<InspectDictItem>>), (status = 401)))]
pub async fn cycle_period_list(_caller: Caller) -> ApiResult<Data<Vec<InspectDictItem>>> {
    Ok(Data(
        CYCLES
            .iter()
            .map(|c| InspectDictItem {
                dict_key: c.key().to_owned(),
                dict_value: c.name().render(),
            })
            .collect(),
    ))
}

/// When a task is announced: on its due date or 1, 2, 3, 5 or 7 days before.
#[utoipa::path(get, path = "/api/inspectPlan/alarmDayList", tag = "inspection",
    responses((status = 200, body = Envelope<Vec<InspectDictItem>>), (status = 401)))]
pub async fn alarm_day_list(_caller: Caller) -> ApiResult<Data<Vec<InspectDictItem>>> {
    Ok(Data(
        ALARM_DAYS
            .iter()
            .map(|d| InspectDictItem {
                dict_key: d.to_string(),
                dict_value: alarm_day_name(*d).get(Lang::current()).to_owned(),
            })
            .collect(),
    ))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct MaintenanceQuery {
    /// Comma-joined station ids: only staff who can see every one of them are listed.
    pub station_ids: Option<String>,
}

/// A maintenance user a plan may name.
#[derive(Debug, serde::Serialize, ToSchema, sqlx::FromRow)]
#[serde(rename_all = "camelCase")]
pub struct InspectStaff {
    pub id: Id,
    pub real_name: Option<String>,
    pub account: String,
    pub phone: Option<String>,
}

/// The tenant's active maintenance staff (role `maintenance`); with `stationIds`, only those
/// who can see every one of those stations (the ones a plan over them may name), by name.
#[utoipa::path(get, path = "/api/inspectPlan/maintenanceList", tag = "inspection", params(MaintenanceQuery),
    responses((status = 200, body = Envelope<Vec<InspectStaff>>), (status = 400), (status = 401)))]
pub async fn maintenance_list(
    State(core): State<Core>,
    scoped: Scoped,
    Query(q): Query<MaintenanceQuery>,
) -> ApiResult<Data<Vec<InspectStaff>>> {
    let stations = match q.station_ids.as_deref().map(str::trim) {
        None | Some("") => vec![],
        Some(raw) => ids_param(raw)?,
    };
    let visible = if stations.is_empty() {
        vec![]
    } else {
        store::visible_stations(&core, &scoped, &stations).await?
    };
    if visible.len() != stations.len() {
        return Ok(Data(vec![]));
    }
    let ids = store::staff_seeing(&core, &scoped.caller.tenant_id, &visible).await?;
    if ids.is_empty() {
        return Ok(Data(vec![]));
    }
    let mut sql = Sql::new("SELECT id, real_name, account, phone FROM blade_user WHERE id IN (");
    sql.push_ids(&ids);
    sql.push(") ORDER BY real_name, id");
    Ok(Data(sql.fetch_all(core.db.pool()).await?))
}

/// Creates an item from inside the plan form (needs `inspectionPlan_add` or `_edit`, or
/// `inspectionItem_add`); answers it.
#[utoipa::path(post, path = "/api/inspectPlan/saveItemAndReturn", tag = "inspection", request_body = InspectItemForm,
    responses((status = 200, body = Envelope<InspectItem>), (status = 400), (status = 403)))]
pub async fn save_item_and_return(
    State(core): State<Core>,
    caller: Caller,
    Json(form): Json<InspectItemForm>,
) -> ApiResult<Data<InspectItem>> {
    let mut allowed = false;
    for code in ["inspectionPlan_add", "inspectionPlan_edit", "inspectionItem_add"] {
        allowed = allowed || caller.has_permission(&core, code).await?;
    }
    if !allowed {
        return Err(ApiError::Forbidden(crate::auth::caller::NO_PERMISSION));
    }
    Ok(Data(create_item(&core, &caller, &form).await?))
}
