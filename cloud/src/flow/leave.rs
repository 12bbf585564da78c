//! `/api/blade-desk/process/leave/*`: leave requests (the spec's example process, used here so
//! maintenance staff availability is known when dispatching). A request starts the tenant's
//! deployed `leave` process with the approver the applicant chose (`taskUser`); its verdict
//! comes back through [`finished`].

use axum::extract::State;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use utoipa::{IntoParams, ToSchema};

use super::runtime::{self, Ended, StartArgs};
use super::store::Tx;
use crate::auth::Caller;
use crate::kernel::extract::{Json, Query};
use crate::kernel::lang::Text;
use crate::kernel::sql::{Sql, Value as V, like_contains};
use crate::kernel::time::Timestamp;
use crate::kernel::{ApiError, ApiResult, Core, Data, Envelope, Id, time};

pub const TABLE: &str = "desk_leave";
pub const KEY: &str = "leave";

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LeaveBody {
    /// The definition to start; the tenant's current `leave` when absent.
    #[schema(value_type = Option<String>)]
    pub process_definition_id: Option<Id>,
    /// The approver (a user of the tenant).
    #[schema(value_type = String)]
    pub task_user: Id,
    pub start_time: Timestamp,
    pub end_time: Timestamp,
    pub reason: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Leave {
    pub id: Id,
    /// The applicant.
    pub user_id: Id,
    pub user_name: String,
    pub process_instance_id: Option<Id>,
    pub task_user: Option<Id>,
    pub task_user_name: String,
    pub start_time: Timestamp,
    pub end_time: Timestamp,
    pub reason: String,
    /// 1 pending, 2 approved, 3 rejected.
    pub approval: i64,
    pub comment: String,
    pub apply_time: Timestamp,
}

#[derive(Debug, sqlx::FromRow)]
struct LeaveRow {
    id: i64,
    user_id: i64,
    user_name: String,
    instance_id: Option<i64>,
    task_user: Option<i64>,
    task_user_name: String,
    start_time: i64,
    end_time: i64,
    reason: String,
    approval: i64,
    comment: String,
    apply_time: i64,
}

const NO_PROCESS: Text = Text::new(
    "请假流程尚未部署（流程管理 → 模型管理 → 部署）",
    "The leave process is not deployed (Workflow → Models → Deploy)",
);

/// Applies for leave and starts its approval.
#[utoipa::path(post, path = "/api/blade-desk/process/leave/start-process", tag = "flow", request_body = LeaveBody,
    responses((status = 200, body = Envelope<Leave>), (status = 400), (status = 401)))]
pub async fn start_process(
    State(core): State<Core>,
    caller: Caller,
    Json(b): Json<LeaveBody>,
) -> ApiResult<Data<Leave>> {
    if b.end_time.0 <= b.start_time.0 {
        return Err(ApiError::bad_request(
            "结束时间须晚于开始时间",
            "The end must be after the start",
        ));
    }
    let reason: String = b.reason.unwrap_or_default().trim().chars().take(500).collect();
    let mut approver = Sql::new("SELECT COUNT(*) FROM blade_user WHERE is_deleted = 0 AND id = ? AND ");
    approver.push_bind("", [V::from(b.task_user)]);
    approver.append(&caller.tenant_filter("tenant_id"));
    if approver.scalar::<i64, _>(core.db.pool()).await? == 0 {
        return Err(ApiError::bad_request(
            "请选择审批人",
            "Please choose the approver",
        ));
    }
    let def = match b.process_definition_id {
        Some(id) => super::store::definition(core.db.pool(), &caller.tenant_id, id.0)
            .await?
            .filter(|d| d.process_key == KEY)
            .ok_or(ApiError::BadRequest(NO_PROCESS))?,
        None => super::store::current(&core, &caller.tenant_id, KEY)
            .await?
            .ok_or(ApiError::BadRequest(NO_PROCESS))?,
    };
    let now = time::now_ms();
    let id = core.ids.next();
    let mut tx = core.db.begin_write().await?;
    let mut sql = Sql::new(
        "INSERT INTO desk_leave (id, tenant_id, user_id, task_user, start_time, end_time, reason, approval, apply_time) \
         VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?)",
    );
    sql.push_bind(
        "",
        [
            V::from(id),
            V::from(caller.tenant_id.as_str()),
            V::from(caller.user_id),
            V::from(b.task_user),
            V::Int(b.start_time.0),
            V::Int(b.end_time.0),
            V::from(reason.as_str()),
            V::Int(now),
        ],
    );
    sql.execute(&mut *tx).await?;
    let mut vars = Map::new();
    vars.insert("taskUser".into(), Value::from(b.task_user.0));
    vars.insert(
        "days".into(),
        Value::from(((b.end_time.0 - b.start_time.0) as f64 / 86_400_000.0 * 10.0).round() / 10.0),
    );
    vars.insert("approved".into(), Value::Bool(true));
    let title = format!(
        "{} {}",
        caller.account,
        if reason.is_empty() {
            "请假"
        } else {
            reason.as_str()
        }
    );
    let args = StartArgs {
        tenant_id: &caller.tenant_id,
        user_id: caller.user_id.0,
        business_table: TABLE,
        business_id: Some(id.0),
        title: &title,
        variables: vars,
    };
    let (instance, ended) = runtime::start(&mut tx, &core, &def, args, now).await?;
    let mut link = Sql::new("UPDATE desk_leave SET instance_id = ? WHERE id = ?");
    link.push_bind("", [V::from(instance), V::from(id)]);
    link.execute(&mut *tx).await?;
    if let Some(e) = ended {
        finished(&mut tx, &e, id.0).await?;
    }
    tx.commit().await?;
    Ok(Data(find(&core, &caller, id).await?))
}

/// The verdict of a leave request's process.
pub async fn finished(tx: &mut Tx, ended: &Ended, id: i64) -> Result<(), ApiError> {
    let mut sql = Sql::new("UPDATE desk_leave SET approval = ?, comment = ? WHERE id = ? AND approval = 1");
    sql.push_bind(
        "",
        [
            V::Int(if ended.approved() { 2 } else { 3 }),
            V::from(ended.comment.chars().take(1000).collect::<String>()),
            V::Int(id),
        ],
    );
    sql.execute(&mut **tx).await?;
    Ok(())
}

async fn find(core: &Core, caller: &Caller, id: Id) -> Result<Leave, ApiError> {
    let mut sql = Sql::new(
        "SELECT l.id, l.user_id, COALESCE(u.real_name, u.account, '') AS user_name, l.instance_id, l.task_user, \
         COALESCE(a.real_name, a.account, '') AS task_user_name, l.start_time, l.end_time, l.reason, l.approval, \
         l.comment, l.apply_time FROM desk_leave l LEFT JOIN blade_user u ON u.id = l.user_id \
         LEFT JOIN blade_user a ON a.id = l.task_user WHERE l.id = ? AND ",
    );
    sql.push_bind("", [V::from(id)]);
    sql.append(&caller.tenant_filter("l.tenant_id"));
    let r = sql
        .fetch_optional::<LeaveRow, _>(core.db.pool())
        .await?
        .ok_or_else(ApiError::not_found)?;
    let involved = r.user_id == caller.user_id.0 || r.task_user == Some(caller.user_id.0);
    if !involved {
        match r.instance_id {
            Some(i) => {
                super::follow_api::check_visible(core, caller, Id(i)).await?;
            }
            None => return Err(ApiError::not_found()),
        }
    }
    Ok(Leave {
        id: Id(r.id),
        user_id: Id(r.user_id),
        user_name: r.user_name,
        process_instance_id: r.instance_id.map(Id),
        task_user: r.task_user.map(Id),
        task_user_name: r.task_user_name,
        start_time: Timestamp(r.start_time),
        end_time: Timestamp(r.end_time),
        reason: r.reason,
        approval: r.approval,
        comment: r.comment,
        apply_time: Timestamp(r.apply_time),
    })
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct ApproverFilter {
    /// Contained in the account or the name.
    pub keyword: Option<String>,
}

/// A user who may approve a leave request.
#[derive(Debug, Serialize, ToSchema, sqlx::FromRow)]
#[serde(rename_all = "camelCase")]
pub struct Approver {
    #[schema(value_type = String)]
    pub id: Id,
    pub account: String,
    pub name: String,
}

/// At most this many approvers per answer: the picker narrows by typing.
const APPROVERS_MAX: i64 = 20;

/// The users of the caller's tenant a leave request may name as approver (active, not the
/// caller), for the application form's picker. Any signed-in user: applying is (and naming an
/// approver by id was), so the picker shows no more than the form accepts.
#[utoipa::path(get, path = "/api/blade-desk/process/leave/approvers", tag = "flow", params(ApproverFilter),
    responses((status = 200, body = Envelope<Vec<Approver>>), (status = 401)))]
pub async fn approvers(
    State(core): State<Core>,
    caller: Caller,
    Query(f): Query<ApproverFilter>,
) -> ApiResult<Data<Vec<Approver>>> {
    let mut sql = Sql::new(
        "SELECT id, account, COALESCE(NULLIF(real_name, ''), account) AS name FROM blade_user \
         WHERE is_deleted = 0 AND status = 1 AND ",
    );
    sql.push_bind("id <> ? AND ", [V::from(caller.user_id)]);
    sql.append(&caller.tenant_filter("tenant_id"));
    if let Some(k) = f.keyword.as_deref().map(str::trim).filter(|k| !k.is_empty()) {
        let like = like_contains(k);
        sql.push_bind(
            " AND (LOWER(account) LIKE LOWER(?) ESCAPE '\\' OR LOWER(real_name) LIKE LOWER(?) ESCAPE '\\')",
            [V::from(like.as_str()), V::from(like.as_str())],
        );
    }
    sql.push(&format!(" ORDER BY name, id LIMIT {APPROVERS_MAX}"));
    Ok(Data(sql.fetch_all::<Approver, _>(core.db.pool()).await?))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct BusinessParam {
    pub business_id: Id,
}

/// One leave request (its applicant, approver, those taking part in its process, or holders of
/// `flow_follow`).
#[utoipa::path(get, path = "/api/blade-desk/process/leave/detail", tag = "flow", params(BusinessParam),
    responses((status = 200, body = Envelope<Leave>), (status = 401), (status = 404)))]
pub async fn detail(
    State(core): State<Core>,
    caller: Caller,
    Query(p): Query<BusinessParam>,
) -> ApiResult<Data<Leave>> {
    Ok(Data(find(&core, &caller, p.business_id).await?))
}
