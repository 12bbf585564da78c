//! The repair order's actions (`/api/repair/assign`, `accept`, `transfer`, `start`, `finish`,
//! `verify`, `evaluate`, `cancel`). Each checks the state machine and the caller's part
//! (`people::Viewer`), then changes the status with one conditional UPDATE and its timeline row
//! in one transaction (two people acting at once: one wins, the other is refused), messages
//! whoever must know, and answers the order as it is now, with its timeline.

use axum::extract::State;
use serde::Deserialize;
use utoipa::{IntoParams, ToSchema};

use super::link;
use super::machine::{Action, REPAIRED, TO_EVALUATE};
use super::notify::{self, About, Event};
use super::people::{Viewer, check_maintainer, dispatchers};
use super::record::{RepairOrder, Row};
use super::store::{self, LogEntry, transition};
use super::view;
use crate::alarm::context::AlarmCtx;
use crate::auth::scope::Scoped;
use crate::kernel::extract::{Json, Query};
use crate::kernel::sql::{Sql, Value};
use crate::kernel::{ApiError, ApiResult, Core, Data, Envelope, Id, time};

const NOTE_MAX: usize = 500;

fn text(v: Option<&str>, max: usize, zh: &str, en: &str) -> Result<String, ApiError> {
    let v = v.map(str::trim).unwrap_or("");
    if v.chars().count() > max {
        return Err(ApiError::bad_request(
            format!("{zh}不能超过{max}个字符"),
            format!("{en} must not exceed {max} characters"),
        ));
    }
    Ok(v.to_owned())
}

fn required(v: Option<&str>, max: usize, zh: &str, en: &str) -> Result<String, ApiError> {
    let v = text(v, max, zh, en)?;
    if v.is_empty() {
        return Err(ApiError::bad_request(
            format!("请填写{zh}"),
            format!("Please enter the {}", en.to_lowercase()),
        ));
    }
    Ok(v)
}

/// The order, the caller's view of it and whether its station has an owner.
pub async fn load(core: &Core, scope: &Scoped, id: Id) -> Result<(Row, Viewer, bool), ApiError> {
    let row = store::find(core, scope, id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    let viewer = Viewer::load(core, scope).await?;
    let owned = !super::people::owned_stations(core, &scope.caller.tenant_id, &[row.station_id])
        .await?
        .is_empty();
    Ok((row, viewer, owned))
}

fn about(row: &Row) -> About<'_> {
    About {
        tenant_id: &row.tenant_id,
        id: Id(row.id),
        code: &row.code,
        title: &row.title,
        station_id: row.station_id,
    }
}

fn entry<'a>(row: &'a Row, action: Action, to: i64, user: i64, note: &'a str, at: i64) -> LogEntry<'a> {
    LogEntry {
        tenant_id: &row.tenant_id,
        order: Id(row.id),
        action: action.name(),
        from: row.status,
        to,
        user,
        note,
        at,
    }
}

async fn answer(ctx: &AlarmCtx, scope: &Scoped, id: Id) -> ApiResult<Data<RepairOrder>> {
    let viewer = Viewer::load(ctx, scope).await?;
    Ok(Data(view::detail(ctx, scope, &viewer, id).await?))
}

/// Assigns `row` (submitted) to `assignee` inside `tx`; the caller checked the machine.
pub async fn assign_in(
    ctx: &Core,
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    row: &Row,
    user: i64,
    assignee: Id,
    note: &str,
) -> Result<(), ApiError> {
    check_maintainer(ctx, &row.tenant_id, assignee, row.station_id).await?;
    let now = time::now_ms();
    let mut set = Sql::default();
    set.push_bind(", assignee_id = ?", [Value::from(assignee)]);
    transition(
        ctx,
        tx,
        &entry(row, Action::Assign, super::machine::TO_ACCEPT, user, note, now),
        set,
    )
    .await
}

#[derive(Debug, Deserialize, ToSchema, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct AssignBody {
    #[schema(value_type = String)]
    pub id: Id,
    /// A maintenance user who can see the station.
    #[schema(value_type = String)]
    pub assignee_id: Id,
    pub note: Option<String>,
}

async fn assign(ctx: AlarmCtx, scope: Scoped, b: AssignBody) -> ApiResult<Data<RepairOrder>> {
    let note = text(b.note.as_deref(), NOTE_MAX, "备注", "The note")?;
    let (row, viewer, owned) = load(&ctx, &scope, b.id).await?;
    viewer.check(&row, owned, Action::Assign)?;
    let mut tx = ctx.db.begin_write().await?;
    assign_in(&ctx, &mut tx, &row, viewer.user, b.assignee_id, &note).await?;
    tx.commit().await?;
    notify::send(&ctx, &about(&row), Event::Assigned, &[b.assignee_id.0]).await?;
    answer(&ctx, &scope, b.id).await
}

/// Dispatches a submitted order to a maintenance user (button `repair_assign`). Also as POST.
#[utoipa::path(get, path = "/api/repair/assign", tag = "repair", params(AssignBody),
    responses((status = 200, body = Envelope<RepairOrder>), (status = 400), (status = 401), (status = 403), (status = 404)))]
pub async fn assign_get(
    State(ctx): State<AlarmCtx>,
    scope: Scoped,
    Query(b): Query<AssignBody>,
) -> ApiResult<Data<RepairOrder>> {
    assign(ctx, scope, b).await
}

/// Dispatches a submitted order to a maintenance user (button `repair_assign`).
#[utoipa::path(post, path = "/api/repair/assign", tag = "repair", request_body = AssignBody,
    responses((status = 200, body = Envelope<RepairOrder>), (status = 400), (status = 401), (status = 403), (status = 404)))]
pub async fn assign_post(
    State(ctx): State<AlarmCtx>,
    scope: Scoped,
    Json(b): Json<AssignBody>,
) -> ApiResult<Data<RepairOrder>> {
    assign(ctx, scope, b).await
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct NoteBody {
    #[schema(value_type = String)]
    pub id: Id,
    pub note: Option<String>,
}

/// A step with no data of its own (accept, start, verify).
async fn step(
    ctx: &AlarmCtx,
    scope: &Scoped,
    b: &NoteBody,
    action: Action,
    time_column: Option<&str>,
) -> ApiResult<Row> {
    let note = text(b.note.as_deref(), NOTE_MAX, "备注", "The note")?;
    let (row, viewer, owned) = load(ctx, scope, b.id).await?;
    let to = viewer.check(&row, owned, action)?;
    let now = time::now_ms();
    let mut set = Sql::default();
    if let Some(column) = time_column {
        set.push_bind(&format!(", {column} = ?"), [Value::Int(now)]);
    }
    let mut tx = ctx.db.begin_write().await?;
    transition(
        ctx,
        &mut tx,
        &entry(&row, action, to, viewer.user, &note, now),
        set,
    )
    .await?;
    tx.commit().await?;
    Ok(row)
}

/// The assignee accepts the order (button `repair_accept`).
#[utoipa::path(post, path = "/api/repair/accept", tag = "repair", request_body = NoteBody,
    responses((status = 200, body = Envelope<RepairOrder>), (status = 400), (status = 401), (status = 403), (status = 404)))]
pub async fn accept(
    State(ctx): State<AlarmCtx>,
    scope: Scoped,
    Json(b): Json<NoteBody>,
) -> ApiResult<Data<RepairOrder>> {
    step(&ctx, &scope, &b, Action::Accept, Some("accept_time")).await?;
    answer(&ctx, &scope, b.id).await
}

/// The assignee starts the repair on site (button `repair_start`).
#[utoipa::path(post, path = "/api/repair/start", tag = "repair", request_body = NoteBody,
    responses((status = 200, body = Envelope<RepairOrder>), (status = 400), (status = 401), (status = 403), (status = 404)))]
pub async fn start(
    State(ctx): State<AlarmCtx>,
    scope: Scoped,
    Json(b): Json<NoteBody>,
) -> ApiResult<Data<RepairOrder>> {
    step(&ctx, &scope, &b, Action::Start, None).await?;
    answer(&ctx, &scope, b.id).await
}

/// A dispatcher confirms a repaired order whose alarm condition persists (button `repair_verify`).
#[utoipa::path(post, path = "/api/repair/verify", tag = "repair", request_body = NoteBody,
    responses((status = 200, body = Envelope<RepairOrder>), (status = 400), (status = 401), (status = 403), (status = 404)))]
pub async fn verify(
    State(ctx): State<AlarmCtx>,
    scope: Scoped,
    Json(b): Json<NoteBody>,
) -> ApiResult<Data<RepairOrder>> {
    let row = step(&ctx, &scope, &b, Action::Verify, Some("verify_time")).await?;
    notify::to_evaluate(&ctx, &about(&row)).await?;
    answer(&ctx, &scope, b.id).await
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TransferBody {
    #[schema(value_type = String)]
    pub id: Id,
    #[schema(value_type = String)]
    pub assignee_id: Id,
    pub reason: Option<String>,
}

/// Hands the order to another maintenance user, with a reason (button `repair_transfer`; the
/// assignee or a dispatcher). It waits for the new assignee's acceptance.
#[utoipa::path(post, path = "/api/repair/transfer", tag = "repair", request_body = TransferBody,
    responses((status = 200, body = Envelope<RepairOrder>), (status = 400), (status = 401), (status = 403), (status = 404)))]
pub async fn transfer(
    State(ctx): State<AlarmCtx>,
    scope: Scoped,
    Json(b): Json<TransferBody>,
) -> ApiResult<Data<RepairOrder>> {
    let reason = required(b.reason.as_deref(), NOTE_MAX, "转派原因", "Reason")?;
    let (row, viewer, owned) = load(&ctx, &scope, b.id).await?;
    let to = viewer.check(&row, owned, Action::Transfer)?;
    if row.assignee_id == Some(b.assignee_id.0) {
        return Err(ApiError::bad_request(
            "请选择其他运维人员",
            "Choose another maintenance user",
        ));
    }
    check_maintainer(&ctx, &row.tenant_id, b.assignee_id, row.station_id).await?;
    let now = time::now_ms();
    let mut set = Sql::default();
    set.push_bind(
        ", assignee_id = ?, accept_time = NULL",
        [Value::from(b.assignee_id)],
    );
    let mut tx = ctx.db.begin_write().await?;
    transition(
        &ctx,
        &mut tx,
        &entry(&row, Action::Transfer, to, viewer.user, &reason, now),
        set,
    )
    .await?;
    tx.commit().await?;
    notify::send(&ctx, &about(&row), Event::Assigned, &[b.assignee_id.0]).await?;
    answer(&ctx, &scope, b.id).await
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FinishBody {
    #[schema(value_type = String)]
    pub id: Id,
    /// What was done (required, at most 2000 characters).
    pub work_done: Option<String>,
    /// Parts used (at most 1000 characters).
    pub parts: Option<String>,
    /// Links of this tenant's uploaded images (at most 9).
    pub photos: Option<Vec<String>>,
}

/// The assignee reports the repair done (button `repair_finish`). With no alarm, or when the
/// alarm's condition has ended, the order goes on to "to be evaluated" at once.
#[utoipa::path(post, path = "/api/repair/finish", tag = "repair", request_body = FinishBody,
    responses((status = 200, body = Envelope<RepairOrder>), (status = 400), (status = 401), (status = 403), (status = 404)))]
pub async fn finish(
    State(ctx): State<AlarmCtx>,
    scope: Scoped,
    Json(b): Json<FinishBody>,
) -> ApiResult<Data<RepairOrder>> {
    let work_done = required(b.work_done.as_deref(), 2000, "维修内容", "Work done")?;
    let parts = text(b.parts.as_deref(), 1000, "更换部件", "Parts")?;
    let (row, viewer, owned) = load(&ctx, &scope, b.id).await?;
    let to = viewer.check(&row, owned, Action::Finish)?;
    let photos = super::photos::photos(&ctx, &row.tenant_id, b.photos.as_deref().unwrap_or(&[])).await?;
    let now = time::now_ms();
    let mut set = Sql::default();
    set.push_bind(
        ", work_done = ?, parts = ?, finish_photos = ?, finish_time = ?",
        [
            Value::from(work_done),
            Value::from(parts),
            Value::from(serde_json::to_string(&photos).unwrap_or_else(|_| "[]".into())),
            Value::Int(now),
        ],
    );
    let mut tx = ctx.db.begin_write().await?;
    transition(
        &ctx,
        &mut tx,
        &entry(&row, Action::Finish, to, viewer.user, "", now),
        set,
    )
    .await?;
    let verified = match row.alarm_id {
        None => true,
        Some(alarm) => link::condition_ended(&mut tx, alarm).await?,
    };
    if verified {
        let done = Row {
            status: REPAIRED,
            ..row.clone()
        };
        let mut set = Sql::default();
        set.push_bind(", verify_time = ?", [Value::Int(now)]);
        let note = if row.alarm_id.is_some() {
            link::CONDITION_ENDED
        } else {
            ""
        };
        transition(
            &ctx,
            &mut tx,
            &entry(&done, Action::Verify, TO_EVALUATE, 0, note, now),
            set,
        )
        .await?;
    }
    tx.commit().await?;
    let mut told = dispatchers(&ctx, &row.tenant_id, row.station_id).await?;
    told.push(row.creator_id);
    told.retain(|u| *u != viewer.user);
    notify::send(&ctx, &about(&row), Event::Repaired, &told).await?;
    if verified {
        notify::to_evaluate(&ctx, &about(&row)).await?;
    }
    answer(&ctx, &scope, b.id).await
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EvaluateBody {
    #[schema(value_type = String)]
    pub id: Id,
    /// 1 .. 5.
    pub rating: i64,
    pub comment: Option<String>,
}

/// The station's owner (or a dispatcher when it has none) rates the work (button
/// `repair_evaluate`); the order completes and its alarm closes if the condition has ended.
#[utoipa::path(post, path = "/api/repair/evaluate", tag = "repair", request_body = EvaluateBody,
    responses((status = 200, body = Envelope<RepairOrder>), (status = 400), (status = 401), (status = 403), (status = 404)))]
pub async fn evaluate(
    State(ctx): State<AlarmCtx>,
    scope: Scoped,
    Json(b): Json<EvaluateBody>,
) -> ApiResult<Data<RepairOrder>> {
    if !(1..=5).contains(&b.rating) {
        return Err(ApiError::bad_request("评分须为1到5", "The rating must be 1 to 5"));
    }
    let comment = text(b.comment.as_deref(), 1000, "评价", "The comment")?;
    let (row, viewer, owned) = load(&ctx, &scope, b.id).await?;
    let to = viewer.check(&row, owned, Action::Evaluate)?;
    let now = time::now_ms();
    let mut set = Sql::default();
    set.push_bind(
        ", rating = ?, evaluation = ?, complete_time = ?",
        [
            Value::Int(b.rating),
            Value::from(comment.clone()),
            Value::Int(now),
        ],
    );
    let mut tx = ctx.db.begin_write().await?;
    transition(
        &ctx,
        &mut tx,
        &entry(&row, Action::Evaluate, to, viewer.user, &comment, now),
        set,
    )
    .await?;
    let closed = close_alarm(&mut tx, &row, "已完成", "completed", now).await?;
    tx.commit().await?;
    if closed {
        crate::alarm::store::notify(&ctx, &row.tenant_id);
    }
    answer(&ctx, &scope, b.id).await
}

/// Closes the order's alarm when its condition has ended, naming the order.
async fn close_alarm(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    row: &Row,
    zh: &str,
    en: &str,
    now: i64,
) -> Result<bool, ApiError> {
    let Some(alarm) = row.alarm_id else {
        return Ok(false);
    };
    let note = format!("工单 {} {zh} / repair order {} {en}", row.code, row.code);
    link::close_if_ended(tx, alarm, &note, now).await
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CancelBody {
    #[schema(value_type = String)]
    pub id: Id,
    pub reason: Option<String>,
}

/// The creator or a dispatcher cancels an order not yet repaired, with a reason (button
/// `repair_cancel`). Its alarm closes if the condition has ended meanwhile.
#[utoipa::path(post, path = "/api/repair/cancel", tag = "repair", request_body = CancelBody,
    responses((status = 200, body = Envelope<RepairOrder>), (status = 400), (status = 401), (status = 403), (status = 404)))]
pub async fn cancel(
    State(ctx): State<AlarmCtx>,
    scope: Scoped,
    Json(b): Json<CancelBody>,
) -> ApiResult<Data<RepairOrder>> {
    let reason = required(b.reason.as_deref(), NOTE_MAX, "取消原因", "Reason")?;
    let (row, viewer, owned) = load(&ctx, &scope, b.id).await?;
    let to = viewer.check(&row, owned, Action::Cancel)?;
    let now = time::now_ms();
    let mut set = Sql::default();
    set.push_bind(", cancel_time = ?", [Value::Int(now)]);
    let mut tx = ctx.db.begin_write().await?;
    transition(
        &ctx,
        &mut tx,
        &entry(&row, Action::Cancel, to, viewer.user, &reason, now),
        set,
    )
    .await?;
    let closed = close_alarm(&mut tx, &row, "已取消", "canceled", now).await?;
    tx.commit().await?;
    if closed {
        crate::alarm::store::notify(&ctx, &row.tenant_id);
    }
    answer(&ctx, &scope, b.id).await
}
