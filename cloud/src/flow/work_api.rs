//! `/api/blade-flow/work/*`: the caller's own work (我的事务): processes they may start, tasks
//! to claim, tasks to do, instances they started, tasks they did; claiming and completing a
//! task. Every list is the caller's own, so no menu permission is asked: whoever has a task can
//! do it.

use axum::extract::State;
use serde::Deserialize;
use serde_json::{Map, Value};
use utoipa::{IntoParams, ToSchema};

use super::manager_api::{DefinitionFilter, definitions};
use super::runtime::{self, candidate_of};
use super::view::{ProcessDefinition, ProcessInstance, TASK_SELECT, TaskListRow, WorkTask};
use crate::auth::Caller;
use crate::kernel::extract::{Json, Query};
use crate::kernel::sql::{Sql, Value as V};
use crate::kernel::{ApiError, ApiResult, Core, Data, Envelope, Id, Page};

#[derive(Debug, Default, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct WorkFilter {
    pub current: Option<i64>,
    pub size: Option<i64>,
    /// Flow route entry.
    pub category: Option<String>,
}

/// The active definitions (newest version of each key) the caller may start.
#[utoipa::path(get, path = "/api/blade-flow/work/start-list", tag = "flow", params(WorkFilter),
    responses((status = 200, body = Envelope<Page<ProcessDefinition>>), (status = 401)))]
pub async fn start_list(
    State(core): State<Core>,
    caller: Caller,
    Query(f): Query<WorkFilter>,
) -> ApiResult<Data<Page<ProcessDefinition>>> {
    let filter = DefinitionFilter {
        current: f.current,
        size: f.size,
        category: f.category,
        keyword: None,
        latest: Some(true),
    };
    Ok(Data(definitions(&core, &caller, &filter, true).await?))
}

async fn tasks(
    core: &Core,
    caller: &Caller,
    f: &WorkFilter,
    cond: Sql,
    order: &str,
) -> Result<Page<WorkTask>, ApiError> {
    let (current, size) = crate::alarm::api::paging(f.current, f.size)?;
    let mut filter = Sql::new(" WHERE ");
    filter.append(&caller.tenant_filter("t.tenant_id"));
    filter.append(&cond);
    if let Some(c) = f.category.as_deref().filter(|c| !c.is_empty()) {
        filter.push_bind(" AND d.category = ?", [V::from(c)]);
    }
    let mut count = Sql::new(
        "SELECT COUNT(*) FROM flow_task t JOIN flow_instance i ON i.id = t.instance_id \
         JOIN flow_definition d ON d.id = i.definition_id",
    );
    count.append(&filter);
    let total: i64 = count.scalar(core.db.pool()).await?;
    let mut sql = Sql::new(TASK_SELECT);
    sql.append(&filter);
    sql.push_bind(
        &format!(" ORDER BY {order}, t.id DESC LIMIT ? OFFSET ?"),
        [V::Int(size), V::Int((current - 1) * size)],
    );
    let rows = sql.fetch_all::<TaskListRow, _>(core.db.pool()).await?;
    Ok(Page::new(
        rows.into_iter().map(Into::into).collect(),
        total,
        size,
        current,
    ))
}

/// Open tasks nobody has claimed that the caller is a candidate of (by user, role or department).
#[utoipa::path(get, path = "/api/blade-flow/work/claim-list", tag = "flow", params(WorkFilter),
    responses((status = 200, body = Envelope<Page<WorkTask>>), (status = 401)))]
pub async fn claim_list(
    State(core): State<Core>,
    caller: Caller,
    Query(f): Query<WorkFilter>,
) -> ApiResult<Data<Page<WorkTask>>> {
    let mut cond = Sql::new(" AND t.status = 1 AND t.assignee_id IS NULL AND ");
    cond.append(&candidate_of(&caller, "t.id"));
    Ok(Data(tasks(&core, &caller, &f, cond, "t.create_time DESC").await?))
}

/// Open tasks assigned to the caller (待办).
#[utoipa::path(get, path = "/api/blade-flow/work/todo-list", tag = "flow", params(WorkFilter),
    responses((status = 200, body = Envelope<Page<WorkTask>>), (status = 401)))]
pub async fn todo_list(
    State(core): State<Core>,
    caller: Caller,
    Query(f): Query<WorkFilter>,
) -> ApiResult<Data<Page<WorkTask>>> {
    let mut cond = Sql::default();
    cond.push_bind(
        " AND t.status = 1 AND t.assignee_id = ?",
        [V::from(caller.user_id)],
    );
    Ok(Data(tasks(&core, &caller, &f, cond, "t.create_time DESC").await?))
}

/// Tasks the caller completed (已办).
#[utoipa::path(get, path = "/api/blade-flow/work/done-list", tag = "flow", params(WorkFilter),
    responses((status = 200, body = Envelope<Page<WorkTask>>), (status = 401)))]
pub async fn done_list(
    State(core): State<Core>,
    caller: Caller,
    Query(f): Query<WorkFilter>,
) -> ApiResult<Data<Page<WorkTask>>> {
    let mut cond = Sql::default();
    cond.push_bind(
        " AND t.status = 2 AND t.completed_by = ?",
        [V::from(caller.user_id)],
    );
    Ok(Data(tasks(&core, &caller, &f, cond, "t.end_time DESC").await?))
}

/// Instances the caller started (已发).
#[utoipa::path(get, path = "/api/blade-flow/work/send-list", tag = "flow", params(WorkFilter),
    responses((status = 200, body = Envelope<Page<ProcessInstance>>), (status = 401)))]
pub async fn send_list(
    State(core): State<Core>,
    caller: Caller,
    Query(f): Query<WorkFilter>,
) -> ApiResult<Data<Page<ProcessInstance>>> {
    let (current, size) = crate::alarm::api::paging(f.current, f.size)?;
    let mut filter = Sql::new(" WHERE ");
    filter.append(&caller.tenant_filter("i.tenant_id"));
    filter.push_bind(" AND i.start_user_id = ?", [V::from(caller.user_id)]);
    if let Some(c) = f.category.as_deref().filter(|c| !c.is_empty()) {
        filter.push_bind(
            " AND EXISTS (SELECT 1 FROM flow_definition c WHERE c.id = i.definition_id AND c.category = ?)",
            [V::from(c)],
        );
    }
    Ok(Data(
        super::follow_api::instances(&core, filter, current, size).await?,
    ))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct TaskParam {
    pub task_id: Id,
}

/// Claims an unassigned task the caller is a candidate of; of two claiming at once one wins,
/// the other is told it was taken.
#[utoipa::path(post, path = "/api/blade-flow/work/claim-task", tag = "flow", params(TaskParam),
    responses((status = 200, body = Envelope<bool>), (status = 400), (status = 401), (status = 403), (status = 404)))]
pub async fn claim_task(
    State(core): State<Core>,
    caller: Caller,
    Query(p): Query<TaskParam>,
) -> ApiResult<Data<bool>> {
    runtime::claim(&core, &caller, p.task_id.0).await?;
    Ok(Data(true))
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CompleteBody {
    #[schema(value_type = String)]
    pub task_id: Id,
    /// Optional, checked against the task's when given.
    #[schema(value_type = Option<String>)]
    pub process_instance_id: Option<Id>,
    pub comment: Option<String>,
    /// Approve (true) or reject (false): sets the variables `approved` and `pass`.
    pub pass: Option<bool>,
    /// Merged into the instance's variables.
    #[schema(value_type = Option<Object>)]
    pub variables: Option<Map<String, Value>>,
}

/// Completes a task the caller is assigned (or a candidate of: it is claimed on the way) with a
/// comment and variables. Of two completing one task at once exactly one wins; the other is
/// told it was already done.
#[utoipa::path(post, path = "/api/blade-flow/work/complete-task", tag = "flow", request_body = CompleteBody,
    responses((status = 200, body = Envelope<bool>), (status = 400), (status = 401), (status = 403), (status = 404)))]
pub async fn complete_task(
    State(core): State<Core>,
    caller: Caller,
    Json(b): Json<CompleteBody>,
) -> ApiResult<Data<bool>> {
    let comment: String = b.comment.unwrap_or_default().trim().chars().take(1000).collect();
    let mut vars = b.variables.unwrap_or_default();
    if let Some(pass) = b.pass {
        vars.insert("approved".into(), Value::Bool(pass));
        vars.insert("pass".into(), Value::Bool(pass));
    }
    if vars.contains_key("initiator") {
        return Err(ApiError::bad_request(
            "变量initiator不可修改",
            "The variable initiator cannot be changed",
        ));
    }
    let now = crate::kernel::time::now_ms();
    let mut tx = core.db.begin_write().await?;
    if let Some(instance) = b.process_instance_id {
        let mut sql = Sql::new("SELECT COUNT(*) FROM flow_task WHERE id = ? AND instance_id = ?");
        sql.push_bind("", [V::from(b.task_id), V::from(instance)]);
        if sql.scalar::<i64, _>(&mut *tx).await? == 0 {
            return Err(ApiError::not_found());
        }
    }
    if let Some(ended) = runtime::complete(&mut tx, &core, &caller, b.task_id.0, &comment, vars).await? {
        super::hook::finished(&mut tx, &core, &ended, now).await?;
    }
    tx.commit().await?;
    Ok(Data(true))
}
