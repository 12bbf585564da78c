//! Running instances: start one, claim and complete a task, fire due timers, delete an instance.
//! Each is one write transaction that first takes the instance's row ([`store::lock_running`])
//! and changes a task or timer with a conditional UPDATE, so of two racing completions (users or
//! replicas) exactly one wins and the other is refused; a timer fires once across replicas.
//! When an instance ends, the answer says so ([`Ended`]) and the caller lets the business
//! record behind it continue (`flow::hook`) in the same transaction.

use serde_json::{Map, Value};

use super::engine::{self, Joins};
use super::store::{
    self, DefinitionRow, InstanceRow, NOT_RUNNING, SUSPENDED, TASK_CANCELED, TASK_DONE, TASK_OPEN, Tx,
};
use crate::auth::Caller;
use crate::kernel::lang::Text;
use crate::kernel::sql::{Sql, Value as V};
use crate::kernel::{ApiError, Core, Id};

/// An instance that has just ended (or been deleted), for the business record behind it.
#[derive(Debug, Clone)]
pub struct Ended {
    pub instance_id: i64,
    pub tenant_id: String,
    pub business_table: String,
    pub business_id: Option<i64>,
    pub variables: Map<String, Value>,
    /// The end event reached ("" when deleted).
    pub end_node: String,
    pub deleted: bool,
    /// The comment of the completion that ended it (or the deletion's reason).
    pub comment: String,
    pub by: i64,
}

impl Ended {
    /// The verdict of an approval process: its variable `approved` at the end (false when
    /// deleted or unset).
    pub fn approved(&self) -> bool {
        !self.deleted
            && match self.variables.get("approved") {
                Some(Value::Bool(b)) => *b,
                Some(Value::String(s)) => s == "true" || s == "1",
                Some(Value::Number(n)) => n.as_i64() == Some(1),
                _ => false,
            }
    }
}

fn run_error(e: engine::RunError) -> ApiError {
    match e {
        engine::RunError::NoWay(g) => ApiError::bad_request(
            format!("网关{g}没有满足条件的出线（检查流程变量）"),
            format!("No outgoing flow of gateway {g} matches (check the process variables)"),
        ),
        other => ApiError::bad_request(
            format!("流程无法继续: {other}"),
            format!("The process cannot go on: {other}"),
        ),
    }
}

pub struct StartArgs<'a> {
    pub tenant_id: &'a str,
    pub user_id: i64,
    pub business_table: &'a str,
    pub business_id: Option<i64>,
    pub title: &'a str,
    pub variables: Map<String, Value>,
}

/// Starts an instance of `def` (refused when suspended); answers its id and, when it ended at
/// once (no task on its way), how.
pub async fn start(
    tx: &mut Tx,
    core: &Core,
    def: &DefinitionRow,
    args: StartArgs<'_>,
    now: i64,
) -> Result<(Id, Option<Ended>), ApiError> {
    if def.suspended != 0 {
        return Err(ApiError::BadRequest(SUSPENDED));
    }
    let parsed = store::parsed(def)?;
    let id = store::next_id(core);
    let mut vars = args.variables;
    vars.insert("initiator".into(), Value::from(args.user_id));
    let mut sql = Sql::new(
        "INSERT INTO flow_instance (id, tenant_id, definition_id, process_key, business_table, business_id, title, \
         status, variables, joins, start_user_id, start_time, update_time) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    );
    sql.push_bind(
        "",
        [
            V::from(id),
            V::from(args.tenant_id),
            V::Int(def.id),
            V::from(def.process_key.as_str()),
            V::from(args.business_table),
            args.business_id.map_or(V::Null, V::Int),
            V::from(args.title.chars().take(200).collect::<String>()),
            V::Int(store::RUNNING),
            V::from("{}"),
            V::from("{}"),
            V::Int(args.user_id),
            V::Int(now),
            V::Int(now),
        ],
    );
    sql.execute(&mut **tx).await?;
    let inst = InstanceRow {
        id: id.0,
        tenant_id: args.tenant_id.to_string(),
        definition_id: def.id,
        business_table: args.business_table.to_string(),
        business_id: args.business_id,
        status: store::RUNNING,
        variables: String::new(),
        joins: String::new(),
    };
    let mut joins = Joins::new();
    let steps = engine::start(&parsed, &vars, &mut joins).map_err(run_error)?;
    let applied = store::apply(tx, core, &parsed, &inst, &steps, (&vars, &joins), now).await?;
    let ended = applied.ended.map(|end_node| Ended {
        instance_id: id.0,
        tenant_id: inst.tenant_id.clone(),
        business_table: inst.business_table.clone(),
        business_id: inst.business_id,
        variables: vars,
        end_node,
        deleted: false,
        comment: String::new(),
        by: args.user_id,
    });
    Ok((id, ended))
}

/// `AND` the caller is a candidate of task `t` (by user, one of their roles, or their department).
pub fn candidate_of(caller: &Caller, task_column: &str) -> Sql {
    let mut sql = Sql::default();
    sql.push_bind(
        &format!(
            "EXISTS (SELECT 1 FROM flow_candidate c WHERE c.task_id = {task_column} AND ((c.kind = 'user' AND c.ref_id = ?)"
        ),
        [V::from(caller.user_id)],
    );
    if !caller.role_ids.is_empty() {
        sql.push(" OR (c.kind = 'role' AND c.ref_id IN (");
        sql.push_ids(&caller.role_ids);
        sql.push("))");
    }
    if let Some(dept) = caller.dept_id {
        sql.push_bind(" OR (c.kind = 'dept' AND c.ref_id = ?)", [V::from(dept)]);
    }
    sql.push("))");
    sql
}

pub const TASK_TAKEN: Text = Text::new(
    "任务已被他人签收或办理",
    "The task was already claimed or completed",
);
pub const NOT_YOURS: Text = Text::new("这不是你的任务", "This task is not yours");

#[derive(Debug, sqlx::FromRow)]
struct TaskRow {
    id: i64,
    instance_id: i64,
    node_id: String,
    status: i64,
}

async fn task(tx: &mut Tx, tenant: &str, id: i64) -> Result<TaskRow, ApiError> {
    let mut sql =
        Sql::new("SELECT id, instance_id, node_id, status FROM flow_task WHERE id = ? AND tenant_id = ?");
    sql.push_bind("", [V::Int(id), V::from(tenant)]);
    sql.fetch_optional::<TaskRow, _>(&mut **tx)
        .await?
        .ok_or_else(ApiError::not_found)
}

async fn definition_of(tx: &mut Tx, inst: &InstanceRow) -> Result<DefinitionRow, ApiError> {
    store::definition(&mut **tx, &inst.tenant_id, inst.definition_id)
        .await?
        .ok_or_else(|| ApiError::Internal(format!("instance {} lost its definition", inst.id)))
}

/// Claims an unassigned task the caller is a candidate of.
pub async fn claim(core: &Core, caller: &Caller, task_id: i64) -> Result<(), ApiError> {
    let now = crate::kernel::time::now_ms();
    let mut tx = core.db.begin_write().await?;
    let t = task(&mut tx, &caller.tenant_id, task_id).await?;
    let inst = store::lock_running(&mut tx, &caller.tenant_id, t.instance_id, now)
        .await?
        .ok_or(ApiError::BadRequest(NOT_RUNNING))?;
    if definition_of(&mut tx, &inst).await?.suspended != 0 {
        return Err(ApiError::BadRequest(SUSPENDED));
    }
    let mut sql = Sql::new(
        "UPDATE flow_task SET assignee_id = ?, claim_time = ? WHERE id = ? AND status = ? AND assignee_id IS NULL AND ",
    );
    sql.push_bind(
        "",
        [
            V::from(caller.user_id),
            V::Int(now),
            V::Int(t.id),
            V::Int(TASK_OPEN),
        ],
    );
    sql.append(&candidate_of(caller, "flow_task.id"));
    if sql.execute(&mut *tx).await? == 0 {
        return Err(refusal(&mut tx, caller, t.id).await?);
    }
    let mut h = Sql::new("UPDATE flow_history SET assignee_id = ? WHERE task_id = ?");
    h.push_bind("", [V::from(caller.user_id), V::Int(t.id)]);
    h.execute(&mut *tx).await?;
    tx.commit().await?;
    Ok(())
}

/// Why a conditional UPDATE of an open task changed nothing: done or claimed by someone else
/// (400), or not the caller's to take (403: assigned to another by the process, or the caller
/// is no candidate).
async fn refusal(tx: &mut Tx, caller: &Caller, id: i64) -> Result<ApiError, ApiError> {
    #[derive(sqlx::FromRow)]
    struct Now {
        status: i64,
        assignee_id: Option<i64>,
        claim_time: Option<i64>,
    }
    let mut sql = Sql::new("SELECT status, assignee_id, claim_time FROM flow_task WHERE id = ?");
    sql.push_bind("", [V::Int(id)]);
    let Some(t) = sql.fetch_optional::<Now, _>(&mut **tx).await? else {
        return Ok(ApiError::not_found());
    };
    let claimed_by_other = t.claim_time.is_some() && t.assignee_id.is_some_and(|a| a != caller.user_id.0);
    if t.status != TASK_OPEN || claimed_by_other {
        Ok(ApiError::BadRequest(TASK_TAKEN))
    } else {
        Ok(ApiError::Forbidden(NOT_YOURS))
    }
}

/// Completes a task the caller is assigned (or a candidate of, claiming it on the way) with a
/// comment and variables merged into the instance's; walks on. `None` unless the instance ended.
pub async fn complete(
    tx: &mut Tx,
    core: &Core,
    caller: &Caller,
    task_id: i64,
    comment: &str,
    variables: Map<String, Value>,
) -> Result<Option<Ended>, ApiError> {
    let now = crate::kernel::time::now_ms();
    let t = task(tx, &caller.tenant_id, task_id).await?;
    if t.status != TASK_OPEN {
        return Err(ApiError::BadRequest(TASK_TAKEN));
    }
    let inst = store::lock_running(tx, &caller.tenant_id, t.instance_id, now)
        .await?
        .ok_or(ApiError::BadRequest(NOT_RUNNING))?;
    let def_row = definition_of(tx, &inst).await?;
    if def_row.suspended != 0 {
        return Err(ApiError::BadRequest(SUSPENDED));
    }
    let vars_text = serde_json::to_string(&variables).map_err(|e| ApiError::Internal(e.to_string()))?;
    let mut sql = Sql::new(
        "UPDATE flow_task SET status = ?, end_time = ?, completed_by = ?, comment = ?, variables = ?, \
         assignee_id = ? WHERE id = ? AND status = ? AND (assignee_id = ? OR (assignee_id IS NULL AND ",
    );
    sql.push_bind(
        "",
        [
            V::Int(TASK_DONE),
            V::Int(now),
            V::from(caller.user_id),
            V::from(comment),
            V::from(vars_text),
            V::from(caller.user_id),
            V::Int(t.id),
            V::Int(TASK_OPEN),
            V::from(caller.user_id),
        ],
    );
    sql.append(&candidate_of(caller, "flow_task.id"));
    sql.push("))");
    if sql.execute(&mut **tx).await? == 0 {
        return Err(refusal(tx, caller, t.id).await?);
    }
    let mut timers = Sql::new("UPDATE flow_timer SET status = 2 WHERE task_id = ? AND status = 0");
    timers.push_bind("", [V::Int(t.id)]);
    timers.execute(&mut **tx).await?;
    let mut h =
        Sql::new("UPDATE flow_history SET end_time = ?, assignee_id = ?, comment = ? WHERE task_id = ?");
    h.push_bind(
        "",
        [
            V::Int(now),
            V::from(caller.user_id),
            V::from(comment),
            V::Int(t.id),
        ],
    );
    h.execute(&mut **tx).await?;
    let def = store::parsed(&def_row)?;
    let mut vars = store::object(&inst.variables);
    vars.extend(variables);
    let mut joins = store::joins(&inst.joins);
    let steps = engine::advance(&def, &t.node_id, &vars, &mut joins).map_err(run_error)?;
    let applied = store::apply(tx, core, &def, &inst, &steps, (&vars, &joins), now).await?;
    Ok(applied.ended.map(|end_node| Ended {
        instance_id: inst.id,
        tenant_id: inst.tenant_id.clone(),
        business_table: inst.business_table.clone(),
        business_id: inst.business_id,
        variables: vars,
        end_node,
        deleted: false,
        comment: comment.to_string(),
        by: caller.user_id.0,
    }))
}

#[derive(Debug, sqlx::FromRow)]
pub struct DueTimer {
    pub id: i64,
    tenant_id: String,
    instance_id: i64,
    task_id: i64,
    node_id: String,
}

/// What became of a due timer.
#[derive(Debug)]
pub enum Fired {
    /// Fired by someone else already, or its instance is no longer running.
    Skipped,
    /// Fired by this call; `Some` when the instance ended.
    Fired(Option<Ended>),
}

/// The timers due at `now`, oldest first.
pub async fn due(core: &Core, now: i64) -> Result<Vec<DueTimer>, ApiError> {
    let mut sql = Sql::new(
        "SELECT id, tenant_id, instance_id, task_id, node_id FROM flow_timer WHERE status = 0 AND due_time <= ? \
         ORDER BY due_time LIMIT 500",
    );
    sql.push_bind("", [V::Int(now)]);
    sql.fetch_all::<DueTimer, _>(core.db.pool()).await
}

/// Fires timer `d` in `tx` unless someone already did (the conditional UPDATE of its status is
/// what makes it fire once across replicas).
pub async fn fire(tx: &mut Tx, core: &Core, d: &DueTimer, now: i64) -> Result<Fired, ApiError> {
    let Some(inst) = store::lock_running(tx, &d.tenant_id, d.instance_id, now).await? else {
        let mut gone = Sql::new("UPDATE flow_timer SET status = 2 WHERE id = ? AND status = 0");
        gone.push_bind("", [V::Int(d.id)]);
        gone.execute(&mut **tx).await?;
        return Ok(Fired::Skipped);
    };
    let mut mark = Sql::new("UPDATE flow_timer SET status = 1, fire_time = ? WHERE id = ? AND status = 0");
    mark.push_bind("", [V::Int(now), V::Int(d.id)]);
    if mark.execute(&mut **tx).await? == 0 {
        return Ok(Fired::Skipped);
    }
    let def_row = definition_of(tx, &inst).await?;
    let def = store::parsed(&def_row)?;
    let cancel = match def.node(&d.node_id).map(|n| &n.kind) {
        Some(super::bpmn::Kind::Timer(t)) => t.cancel,
        _ => return Err(ApiError::Internal(format!("timer {} lost its node", d.node_id))),
    };
    if cancel {
        let mut task = Sql::new("UPDATE flow_task SET status = ?, end_time = ? WHERE id = ? AND status = ?");
        task.push_bind(
            "",
            [
                V::Int(TASK_CANCELED),
                V::Int(now),
                V::Int(d.task_id),
                V::Int(TASK_OPEN),
            ],
        );
        task.execute(&mut **tx).await?;
        let mut others = Sql::new("UPDATE flow_timer SET status = 2 WHERE task_id = ? AND status = 0");
        others.push_bind("", [V::Int(d.task_id)]);
        others.execute(&mut **tx).await?;
        let mut h = Sql::new(
            "UPDATE flow_history SET end_time = ?, comment = ? WHERE task_id = ? AND end_time IS NULL",
        );
        h.push_bind("", [V::Int(now), V::from("timeout"), V::Int(d.task_id)]);
        h.execute(&mut **tx).await?;
    }
    let vars = store::object(&inst.variables);
    let mut joins = store::joins(&inst.joins);
    let steps = engine::fire(&def, &d.node_id, &vars, &mut joins).map_err(run_error)?;
    let applied = store::apply(tx, core, &def, &inst, &steps, (&vars, &joins), now).await?;
    let ended = applied.ended.map(|end_node| Ended {
        instance_id: inst.id,
        tenant_id: inst.tenant_id.clone(),
        business_table: inst.business_table.clone(),
        business_id: inst.business_id,
        variables: vars,
        end_node,
        deleted: false,
        comment: String::new(),
        by: 0,
    });
    Ok(Fired::Fired(ended))
}

/// Deletes (ends) a running instance: open tasks and timers cancelled, the reason kept.
pub async fn delete(tx: &mut Tx, tenant: &str, id: i64, reason: &str, by: i64) -> Result<Ended, ApiError> {
    let now = crate::kernel::time::now_ms();
    let inst = store::lock_running(tx, tenant, id, now)
        .await?
        .ok_or(ApiError::BadRequest(NOT_RUNNING))?;
    let mut tasks =
        Sql::new("UPDATE flow_task SET status = ?, end_time = ? WHERE instance_id = ? AND status = ?");
    tasks.push_bind(
        "",
        [V::Int(TASK_CANCELED), V::Int(now), V::Int(id), V::Int(TASK_OPEN)],
    );
    tasks.execute(&mut **tx).await?;
    let mut timers = Sql::new("UPDATE flow_timer SET status = 2 WHERE instance_id = ? AND status = 0");
    timers.push_bind("", [V::Int(id)]);
    timers.execute(&mut **tx).await?;
    let mut h = Sql::new("UPDATE flow_history SET end_time = ? WHERE instance_id = ? AND end_time IS NULL");
    h.push_bind("", [V::Int(now), V::Int(id)]);
    h.execute(&mut **tx).await?;
    let mut sql =
        Sql::new("UPDATE flow_instance SET status = ?, end_time = ?, delete_reason = ? WHERE id = ?");
    sql.push_bind(
        "",
        [
            V::Int(store::DELETED),
            V::Int(now),
            V::from(reason.chars().take(500).collect::<String>()),
            V::Int(id),
        ],
    );
    sql.execute(&mut **tx).await?;
    Ok(Ended {
        instance_id: id,
        tenant_id: inst.tenant_id.clone(),
        business_table: inst.business_table.clone(),
        business_id: inst.business_id,
        variables: store::object(&inst.variables),
        end_node: String::new(),
        deleted: true,
        comment: reason.to_string(),
        by,
    })
}
