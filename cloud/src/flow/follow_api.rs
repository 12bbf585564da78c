//! `/api/blade-flow/follow/*` and `/api/blade-flow/process/*`: following instances (list,
//! delete), and the diagram and history of a definition or an instance. An instance is seen by
//! holders of `flow_follow` and by those who take part in it (its starter, its tasks' assignees,
//! completers and candidates).

use axum::extract::State;
use serde::Deserialize;
use utoipa::IntoParams;

use super::runtime::{self, candidate_of};
use super::view::{
    FlowActivity, HISTORY_SELECT, HistoryFlow, HistoryRow, INSTANCE_SELECT, InstanceListRow, ModelView,
    ProcessInstance,
};
use crate::auth::Caller;
use crate::kernel::extract::Query;
use crate::kernel::sql::{Sql, Value as V, like_contains};
use crate::kernel::time::Timestamp;
use crate::kernel::{ApiError, ApiResult, Core, Data, Envelope, Id, Page};

#[derive(Debug, Default, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct FollowFilter {
    pub current: Option<i64>,
    pub size: Option<i64>,
    pub process_instance_id: Option<Id>,
    pub process_definition_key: Option<String>,
    /// 1 running, 2 completed, 3 deleted.
    pub status: Option<i64>,
    /// Contained in the title.
    pub keyword: Option<String>,
}

pub async fn instances(
    core: &Core,
    filter: Sql,
    current: i64,
    size: i64,
) -> Result<Page<ProcessInstance>, ApiError> {
    let mut count = Sql::new("SELECT COUNT(*) FROM flow_instance i");
    count.append(&filter);
    let total: i64 = count.scalar(core.db.pool()).await?;
    let mut sql = Sql::new(INSTANCE_SELECT);
    sql.append(&filter);
    sql.push_bind(
        " ORDER BY i.start_time DESC, i.id DESC LIMIT ? OFFSET ?",
        [V::Int(size), V::Int((current - 1) * size)],
    );
    let rows = sql.fetch_all::<InstanceListRow, _>(core.db.pool()).await?;
    Ok(Page::new(
        rows.into_iter().map(Into::into).collect(),
        total,
        size,
        current,
    ))
}

/// The tenant's instances, newest first (menu `flow_follow`).
#[utoipa::path(get, path = "/api/blade-flow/follow/list", tag = "flow", params(FollowFilter),
    responses((status = 200, body = Envelope<Page<ProcessInstance>>), (status = 401), (status = 403)))]
pub async fn list(
    State(core): State<Core>,
    caller: Caller,
    Query(f): Query<FollowFilter>,
) -> ApiResult<Data<Page<ProcessInstance>>> {
    caller.require(&core, "flow_follow").await?;
    let (current, size) = crate::alarm::api::paging(f.current, f.size)?;
    let mut filter = Sql::new(" WHERE ");
    filter.append(&caller.tenant_filter("i.tenant_id"));
    if let Some(id) = f.process_instance_id {
        filter.push_bind(" AND i.id = ?", [V::from(id)]);
    }
    if let Some(k) = f.process_definition_key.as_deref().filter(|k| !k.is_empty()) {
        filter.push_bind(" AND i.process_key = ?", [V::from(k)]);
    }
    if let Some(s) = f.status {
        filter.push_bind(" AND i.status = ?", [V::Int(s)]);
    }
    if let Some(k) = f.keyword.as_deref().map(str::trim).filter(|k| !k.is_empty()) {
        filter.push_bind(
            " AND LOWER(i.title) LIKE LOWER(?) ESCAPE '\\'",
            [V::from(like_contains(k))],
        );
    }
    Ok(Data(instances(&core, filter, current, size).await?))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct DeleteInstance {
    pub process_instance_id: Id,
    pub delete_reason: Option<String>,
}

/// Ends a running instance (button `flow_follow_delete`): its open tasks are cancelled and the
/// record behind it is told (an approval so ended counts as not given).
#[utoipa::path(post, path = "/api/blade-flow/follow/delete-process-instance", tag = "flow", params(DeleteInstance),
    responses((status = 200, body = Envelope<bool>), (status = 400), (status = 401), (status = 403)))]
pub async fn delete_instance(
    State(core): State<Core>,
    caller: Caller,
    Query(p): Query<DeleteInstance>,
) -> ApiResult<Data<bool>> {
    caller.require(&core, "flow_follow_delete").await?;
    let reason = p.delete_reason.unwrap_or_default();
    let now = crate::kernel::time::now_ms();
    let mut tx = core.db.begin_write().await?;
    let ended = runtime::delete(
        &mut tx,
        &caller.tenant_id,
        p.process_instance_id.0,
        &reason,
        caller.user_id.0,
    )
    .await?;
    super::hook::finished(&mut tx, &core, &ended, now).await?;
    tx.commit().await?;
    Ok(Data(true))
}

/// Whether `caller` may look at instance `id` (404 when not: the instance is not theirs to know of).
pub async fn check_visible(core: &Core, caller: &Caller, id: Id) -> Result<i64, ApiError> {
    let mut sql = Sql::new("SELECT i.definition_id FROM flow_instance i WHERE i.id = ? AND ");
    sql.push_bind("", [V::from(id)]);
    sql.append(&caller.tenant_filter("i.tenant_id"));
    if !caller.has_permission(core, "flow_follow").await? {
        sql.push_bind(
            " AND (i.start_user_id = ? OR EXISTS (SELECT 1 FROM flow_task t WHERE t.instance_id = i.id AND \
             (t.assignee_id = ? OR t.completed_by = ? OR ",
            [
                V::from(caller.user_id),
                V::from(caller.user_id),
                V::from(caller.user_id),
            ],
        );
        sql.append(&candidate_of(caller, "t.id"));
        sql.push(")))");
    }
    sql.scalar_optional::<i64, _>(core.db.pool())
        .await?
        .ok_or_else(ApiError::not_found)
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct ViewParams {
    pub process_instance_id: Option<Id>,
    pub process_definition_id: Option<Id>,
}

/// The diagram of an instance (its XML and every activity that ran: finished ones with an end
/// time, open tasks without) or of a definition (XML only).
#[utoipa::path(get, path = "/api/blade-flow/process/model-view", tag = "flow", params(ViewParams),
    responses((status = 200, body = Envelope<ModelView>), (status = 400), (status = 401), (status = 404)))]
pub async fn model_view(
    State(core): State<Core>,
    caller: Caller,
    Query(p): Query<ViewParams>,
) -> ApiResult<Data<ModelView>> {
    let (definition, instance) = match (p.process_instance_id, p.process_definition_id) {
        (Some(i), _) => (check_visible(&core, &caller, i).await?, Some(i)),
        (None, Some(d)) => (d.0, None),
        (None, None) => {
            return Err(ApiError::bad_request(
                "请指定流程实例或流程定义",
                "Name a process instance or a process definition",
            ));
        }
    };
    let def = super::store::definition(core.db.pool(), &caller.tenant_id, definition)
        .await?
        .ok_or_else(ApiError::not_found)?;
    let flow = match instance {
        Some(i) => history(&core, i)
            .await?
            .into_iter()
            .map(|h| FlowActivity {
                history_activity_id: h.activity_id,
                history_activity_type: h.activity_type,
                end_time: h.end_time.map(Timestamp),
            })
            .collect(),
        None => vec![],
    };
    Ok(Data(ModelView { xml: def.xml, flow }))
}

async fn history(core: &Core, instance: Id) -> Result<Vec<HistoryRow>, ApiError> {
    let mut sql = Sql::new(HISTORY_SELECT);
    sql.push_bind(
        " WHERE h.instance_id = ? ORDER BY h.start_time, h.id",
        [V::from(instance)],
    );
    sql.fetch_all(core.db.pool()).await
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct InstanceParam {
    pub process_instance_id: Id,
}

/// What happened in an instance, in order: events, gateways and tasks (with who and the comment);
/// taken sequence flows are left out.
#[utoipa::path(get, path = "/api/blade-flow/process/history-flow-list", tag = "flow", params(InstanceParam),
    responses((status = 200, body = Envelope<Vec<HistoryFlow>>), (status = 401), (status = 404)))]
pub async fn history_flow_list(
    State(core): State<Core>,
    caller: Caller,
    Query(p): Query<InstanceParam>,
) -> ApiResult<Data<Vec<HistoryFlow>>> {
    check_visible(&core, &caller, p.process_instance_id).await?;
    Ok(Data(
        history(&core, p.process_instance_id)
            .await?
            .into_iter()
            .filter(|h| h.activity_type != "sequenceFlow")
            .map(HistoryFlow::of)
            .collect(),
    ))
}
