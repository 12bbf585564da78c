//! Inspection records (`/api/inspectRecord`): filling a task and the filled records.
//!
//! Filling needs the button `inspectionTask_fill`, a task the caller can see, and the caller
//! among the task's maintenance users (an administrator may fill any task). Every check of the
//! task's snapshot is answered exactly once; an abnormal answer needs a note; photos are links
//! of this tenant's uploads whose content is an image.

use std::collections::HashSet;

use axum::extract::State;
use serde::Deserialize;
use utoipa::{IntoParams, ToSchema};

use super::common::{Deleted, InspectIdPath, check_len, given, paging};
use super::record_store::{self, InspectRecord, RecordDraft, RecordFilter, RecordResult};
use super::task_store;
use crate::auth::scope::{ADMIN_ROLE, Scoped, role_aliases};
use crate::kernel::extract::{Json, Path, Query};
use crate::kernel::id::ids_param;
use crate::kernel::lang::Text;
use crate::kernel::{ApiError, ApiResult, Core, Data, Envelope, Id, Page, time};

const NOT_YOURS: Text = Text::new(
    "只有该任务的运维人员可以填写",
    "Only the task's maintenance staff may fill it",
);
const NO_SITUATION: Text = Text::new("请选择运行情况", "Please choose the run situation");
const BAD_RESULT: Text = Text::new(
    "检查结果只能是正常(1)或异常(2)",
    "A result is 1 (normal) or 2 (abnormal)",
);
const NEED_NOTE: Text = Text::new("请填写异常说明", "Describe what is abnormal");
const ANSWER_ALL: Text = Text::new("请完成所有检查项", "Please answer every check");
const BAD_PHOTO: Text = Text::new(
    "照片须为本租户上传的图片",
    "Photos must be images uploaded in this tenant",
);
const MAX_PHOTOS: usize = 9;

/// One answer as submitted.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InspectAnswerForm {
    pub item_id: Id,
    /// The check's text, as the task lists it.
    pub check: String,
    /// `1` normal, `2` abnormal.
    #[schema(example = "1")]
    pub result: String,
    /// Required when abnormal; at most 500 characters.
    pub note: Option<String>,
    /// Up to 9 links of images uploaded with `put-image` (or `put-file`).
    pub photos: Option<Vec<String>>,
}

/// A filled task as submitted.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InspectRecordForm {
    pub task_id: Id,
    /// `1` normal, `2` abnormal.
    #[schema(example = "1")]
    pub run_situation: Option<String>,
    /// At most 500 characters.
    pub remark: Option<String>,
    /// One answer per check of the task.
    pub results: Vec<InspectAnswerForm>,
}

async fn check_photos(core: &Core, tenant: &str, links: &[String]) -> Result<Vec<String>, ApiError> {
    if links.len() > MAX_PHOTOS {
        return Err(ApiError::bad_request(
            format!("每个检查项最多{MAX_PHOTOS}张照片"),
            format!("At most {MAX_PHOTOS} photos per check"),
        ));
    }
    let mut out = Vec::with_capacity(links.len());
    for link in links {
        let attach = crate::resource::oss::find_by_link(core, tenant, link.trim())
            .await?
            .ok_or(ApiError::BadRequest(BAD_PHOTO))?;
        if !crate::resource::oss::is_image(core, &attach).await {
            return Err(ApiError::BadRequest(BAD_PHOTO));
        }
        out.push(attach.link);
    }
    Ok(out)
}

/// Fills a task; answers the record.
#[utoipa::path(post, path = "/api/inspectRecord", tag = "inspection", request_body = InspectRecordForm,
    responses((status = 200, body = Envelope<InspectRecord>), (status = 400), (status = 403), (status = 404)))]
pub async fn create(
    State(core): State<Core>,
    scoped: Scoped,
    Json(form): Json<InspectRecordForm>,
) -> ApiResult<Data<InspectRecord>> {
    let caller = &scoped.caller;
    caller.require(&core, "inspectionTask_fill").await?;
    let task = task_store::find_row(&core, &scoped, form.task_id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    let staff = task_store::plan_users(&core, &[task.plan_id]).await?;
    let member = staff
        .get(&task.plan_id)
        .is_some_and(|users| users.iter().any(|(u, _)| *u == caller.user_id));
    if !member && !role_aliases(&core, caller).await?.iter().any(|a| a == ADMIN_ROLE) {
        return Err(ApiError::Forbidden(NOT_YOURS));
    }
    if task.status != 0 {
        return Err(ApiError::BadRequest(record_store::ALREADY_FILLED));
    }
    let run_situation = match given(&form.run_situation) {
        Some(s @ ("1" | "2")) => s.to_owned(),
        _ => return Err(ApiError::BadRequest(NO_SITUATION)),
    };
    let remark = given(&form.remark).unwrap_or("");
    check_len(remark, 500, "备注", "remark")?;
    // Every check of the snapshot, in its order; each answered exactly once.
    let snapshot = task.snapshot();
    let mut seen: HashSet<(Id, &str)> = HashSet::new();
    for a in &form.results {
        let known = snapshot
            .iter()
            .any(|i| i.item_id == a.item_id && i.check_items.iter().any(|c| c == a.check.trim()));
        if !known {
            return Err(ApiError::bad_request(
                format!("检查项不属于该任务：{}", a.check),
                format!("Not a check of this task: {}", a.check),
            ));
        }
        if !seen.insert((a.item_id, a.check.trim())) {
            return Err(ApiError::bad_request(
                format!("检查项重复填写：{}", a.check),
                format!("Check answered twice: {}", a.check),
            ));
        }
    }
    let mut results = Vec::new();
    for item in &snapshot {
        for check in &item.check_items {
            let a = form
                .results
                .iter()
                .find(|a| a.item_id == item.item_id && a.check.trim() == check)
                .ok_or(ApiError::BadRequest(ANSWER_ALL))?;
            let result = a.result.trim();
            if !matches!(result, "1" | "2") {
                return Err(ApiError::BadRequest(BAD_RESULT));
            }
            let note = given(&a.note).unwrap_or("");
            if result == "2" && note.is_empty() {
                return Err(ApiError::BadRequest(NEED_NOTE));
            }
            check_len(note, 500, "异常说明", "note")?;
            let photos = check_photos(&core, &caller.tenant_id, a.photos.as_deref().unwrap_or(&[])).await?;
            results.push(RecordResult {
                item_id: item.item_id,
                item_title: item.title.clone(),
                check: check.clone(),
                result: result.to_owned(),
                note: note.to_owned(),
                photos,
                repair_id: None,
            });
        }
    }
    let d = RecordDraft {
        task_id: Id(task.id),
        plan_id: Id(task.plan_id),
        station_id: Id(task.station_id),
        due_date: task.due_date.clone(),
        run_situation,
        remark: remark.to_owned(),
        results,
    };
    let id = record_store::insert(&core, &task.tenant_id, caller.user_id, &d).await?;
    Ok(Data(
        record_store::find(&core, &scoped, id)
            .await?
            .ok_or_else(|| ApiError::Internal("record not stored".into()))?,
    ))
}

#[derive(Debug, Default, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct RecordQuery {
    /// Page number, from 1.
    pub current: Option<i64>,
    /// Page size (default 10).
    pub size: Option<i64>,
    pub station_id: Option<Id>,
    pub plan_id: Option<Id>,
    /// `1` normal, `2` abnormal.
    pub run_situation: Option<String>,
    /// Filled after (`yyyy-MM-dd HH:mm:ss` or `yyyy-MM-dd`).
    #[serde(rename = "filledTime_gt")]
    pub filled_time_gt: Option<String>,
    /// Filled before (`yyyy-MM-dd HH:mm:ss` or `yyyy-MM-dd`).
    #[serde(rename = "filledTime_lt")]
    pub filled_time_lt: Option<String>,
}

fn wire_time(v: &Option<String>) -> Result<Option<i64>, ApiError> {
    match given(v) {
        None => Ok(None),
        Some(s) => time::parse_ms(s).map(Some).ok_or_else(|| {
            ApiError::bad_request(
                format!("时间格式不正确：{s}（应为yyyy-MM-dd HH:mm:ss）"),
                format!("Invalid time {s} (expected yyyy-MM-dd HH:mm:ss)"),
            )
        }),
    }
}

impl RecordQuery {
    pub fn filter(&self) -> Result<RecordFilter, ApiError> {
        Ok(RecordFilter {
            station_id: self.station_id,
            plan_id: self.plan_id,
            run_situation: given(&self.run_situation).map(str::to_owned),
            filled_after: wire_time(&self.filled_time_gt)?,
            filled_before: wire_time(&self.filled_time_lt)?,
        })
    }
}

/// A page of the records the caller may see, latest filled first.
#[utoipa::path(get, path = "/api/inspectRecord/page", tag = "inspection", params(RecordQuery),
    responses((status = 200, body = Envelope<Page<InspectRecord>>), (status = 400), (status = 401)))]
pub async fn page(
    State(core): State<Core>,
    scoped: Scoped,
    Query(q): Query<RecordQuery>,
) -> ApiResult<Data<Page<InspectRecord>>> {
    let (current, size) = paging(q.current, q.size);
    Ok(Data(
        record_store::page(&core, &scoped, &q.filter()?, current, size).await?,
    ))
}

/// One record with its answers.
#[utoipa::path(get, path = "/api/inspectRecord/{id}", tag = "inspection", params(InspectIdPath),
    responses((status = 200, body = Envelope<InspectRecord>), (status = 400), (status = 404)))]
pub async fn detail(
    State(core): State<Core>,
    scoped: Scoped,
    Path(p): Path<InspectIdPath>,
) -> ApiResult<Data<InspectRecord>> {
    Ok(Data(
        record_store::find(&core, &scoped, p.one()?)
            .await?
            .ok_or_else(ApiError::not_found)?,
    ))
}

/// Removes the listed records the caller may see (comma-joined ids); their tasks go back to
/// unfilled. None removed → 400 `删除失败`.
#[utoipa::path(delete, path = "/api/inspectRecord/{id}", tag = "inspection", params(InspectIdPath),
    responses((status = 200, body = Envelope<bool>), (status = 400), (status = 403)))]
pub async fn remove(
    State(core): State<Core>,
    scoped: Scoped,
    Path(p): Path<InspectIdPath>,
) -> Result<Deleted, ApiError> {
    scoped.caller.require(&core, "inspectionRecord_delete").await?;
    let ids = ids_param(&p.id)?;
    Deleted::of(record_store::remove(&core, &scoped, &ids).await?)
}
