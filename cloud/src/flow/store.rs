//! Rows of the workflow tables and the writes the engine's steps turn into: history, tasks with
//! their candidates and timers, an instance's variables and joins. Everything here runs inside
//! the caller's write transaction.

use serde_json::{Map, Value};
use sqlx::{Any, Transaction};

use super::bpmn::{self, Definition, Kind};
use super::engine::{Joins, Step};
use super::expr;
use crate::kernel::lang::Text;
use crate::kernel::sql::{Sql, Value as V};
use crate::kernel::{ApiError, Core, Id};

pub const RUNNING: i64 = 1;
pub const COMPLETED: i64 = 2;
pub const DELETED: i64 = 3;
pub const TASK_OPEN: i64 = 1;
pub const TASK_DONE: i64 = 2;
pub const TASK_CANCELED: i64 = 3;

pub type Tx = Transaction<'static, Any>;

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct DefinitionRow {
    pub id: i64,
    pub tenant_id: String,
    pub process_key: String,
    pub name: String,
    pub category: String,
    pub version: i64,
    pub xml: String,
    pub suspended: i64,
    pub deploy_time: i64,
}

pub const DEFINITION_COLUMNS: &str = "SELECT id, tenant_id, process_key, name, category, version, xml, suspended, deploy_time FROM flow_definition";

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct InstanceRow {
    pub id: i64,
    pub tenant_id: String,
    pub definition_id: i64,
    pub business_table: String,
    pub business_id: Option<i64>,
    pub status: i64,
    pub variables: String,
    pub joins: String,
}

/// The definition `id` of `tenant` (deleted ones too: their instances still run).
pub async fn definition<'e, E>(ex: E, tenant: &str, id: i64) -> Result<Option<DefinitionRow>, ApiError>
where
    E: sqlx::Executor<'e, Database = Any>,
{
    let mut sql = Sql::new(DEFINITION_COLUMNS);
    sql.push_bind(" WHERE id = ? AND tenant_id = ?", [V::Int(id), V::from(tenant)]);
    sql.fetch_optional(ex).await
}

/// The version of `key` new instances start from: the newest deployed one not deleted, if it
/// is not suspended.
pub async fn current(core: &Core, tenant: &str, key: &str) -> Result<Option<DefinitionRow>, ApiError> {
    let mut sql = Sql::new(DEFINITION_COLUMNS);
    sql.push_bind(
        " WHERE tenant_id = ? AND process_key = ? AND is_deleted = 0 ORDER BY version DESC LIMIT 1",
        [V::from(tenant), V::from(key)],
    );
    Ok(sql
        .fetch_optional::<DefinitionRow, _>(core.db.pool())
        .await?
        .filter(|d| d.suspended == 0))
}

pub fn parsed(row: &DefinitionRow) -> Result<Definition, ApiError> {
    bpmn::parse(&row.xml)
        .map_err(|e| ApiError::Internal(format!("stored definition {} unreadable: {e}", row.id)))
}

pub fn object(text: &str) -> Map<String, Value> {
    match serde_json::from_str(text) {
        Ok(Value::Object(m)) => m,
        _ => Map::new(),
    }
}

pub fn joins(text: &str) -> Joins {
    serde_json::from_str(text).unwrap_or_default()
}

pub async fn history(
    tx: &mut Tx,
    core: &Core,
    inst: &InstanceRow,
    activity: (&str, &str, &str),
    task: Option<(i64, Option<i64>)>,
    now: i64,
    ended: bool,
) -> Result<(), ApiError> {
    let (id, kind, name) = activity;
    let mut sql = Sql::new(
        "INSERT INTO flow_history (id, tenant_id, instance_id, activity_id, activity_type, activity_name, \
         task_id, assignee_id, start_time, end_time) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    );
    sql.push_bind(
        "",
        [
            V::from(core.ids.next()),
            V::from(inst.tenant_id.as_str()),
            V::Int(inst.id),
            V::from(id),
            V::from(kind),
            V::from(name.chars().take(200).collect::<String>()),
            task.map_or(V::Null, |t| V::Int(t.0)),
            task.and_then(|t| t.1).map_or(V::Null, V::Int),
            V::Int(now),
            if ended { V::Int(now) } else { V::Null },
        ],
    );
    sql.execute(&mut **tx).await?;
    Ok(())
}

/// Ids named by `entries`: literals, or `${variable}` holding an id, a list of ids or a
/// comma-separated text of them. Words (role aliases) are answered apart.
fn resolve(entries: &[String], vars: &Map<String, Value>) -> (Vec<i64>, Vec<String>) {
    let mut ids = Vec::new();
    let mut words = Vec::new();
    let mut take = |v: &Value| match v {
        Value::Number(n) => ids.extend(n.as_i64()),
        Value::String(s) => {
            for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
                match part.parse::<i64>() {
                    Ok(n) => ids.push(n),
                    Err(_) => words.push(part.to_string()),
                }
            }
        }
        Value::Array(a) => {
            for item in a {
                match item {
                    Value::Number(n) => ids.extend(n.as_i64()),
                    Value::String(s) => match s.trim().parse::<i64>() {
                        Ok(n) => ids.push(n),
                        Err(_) => words.push(s.trim().to_string()),
                    },
                    _ => {}
                }
            }
        }
        _ => {}
    };
    for e in entries {
        match expr::reference(e) {
            Some(path) => {
                if let Some(v) = expr::get(vars, &path) {
                    take(v);
                }
            }
            None => take(&Value::String(e.clone())),
        }
    }
    (ids, words)
}

fn nobody(task: &str) -> ApiError {
    ApiError::bad_request(
        format!("任务“{task}”找不到办理人或候选人（检查流程变量）"),
        format!("Task \"{task}\" has no assignee or candidate (check the process variables)"),
    )
}

/// Opens user task `node`: the task row, its candidates, its history row and its timers.
async fn open_task(
    tx: &mut Tx,
    core: &Core,
    def: &Definition,
    inst: &InstanceRow,
    node: &str,
    vars: &Map<String, Value>,
    now: i64,
) -> Result<(), ApiError> {
    let n = def
        .node(node)
        .ok_or_else(|| ApiError::Internal(format!("no node {node}")))?;
    let Kind::UserTask(spec) = &n.kind else {
        return Err(ApiError::Internal(format!("{node} is not a user task")));
    };
    let label = if n.name.is_empty() {
        n.id.as_str()
    } else {
        n.name.as_str()
    };
    let assignee = match &spec.assignee {
        Some(a) => Some(
            resolve(std::slice::from_ref(a), vars)
                .0
                .first()
                .copied()
                .ok_or_else(|| nobody(label))?,
        ),
        None => None,
    };
    let (users, _) = resolve(&spec.candidate_users, vars);
    let (mut roles, aliases) = resolve(&spec.candidate_groups, vars);
    if !aliases.is_empty() {
        let mut sql =
            Sql::new("SELECT id FROM blade_role WHERE is_deleted = 0 AND tenant_id = ? AND role_alias IN (");
        sql.push_bind("", [V::from(inst.tenant_id.as_str())]);
        for (i, a) in aliases.iter().enumerate() {
            sql.push_bind(if i == 0 { "?" } else { ", ?" }, [V::from(a.as_str())]);
        }
        sql.push(")");
        roles.extend(sql.scalars::<i64, _>(&mut **tx).await?);
    }
    let (depts, _) = resolve(&spec.candidate_depts, vars);
    if assignee.is_none() && users.is_empty() && roles.is_empty() && depts.is_empty() {
        return Err(nobody(label));
    }
    let task = core.ids.next().0;
    let mut sql = Sql::new(
        "INSERT INTO flow_task (id, tenant_id, instance_id, node_id, name, assignee_id, status, create_time) \
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
    );
    sql.push_bind(
        "",
        [
            V::Int(task),
            V::from(inst.tenant_id.as_str()),
            V::Int(inst.id),
            V::from(node),
            V::from(label.chars().take(200).collect::<String>()),
            assignee.map_or(V::Null, V::Int),
            V::Int(TASK_OPEN),
            V::Int(now),
        ],
    );
    sql.execute(&mut **tx).await?;
    let mut seen = std::collections::HashSet::new();
    for (kind, ids) in [("user", &users), ("role", &roles), ("dept", &depts)] {
        for id in ids {
            if !seen.insert((kind, *id)) {
                continue;
            }
            let mut c = Sql::new("INSERT INTO flow_candidate (task_id, kind, ref_id) VALUES (?, ?, ?)");
            c.push_bind("", [V::Int(task), V::from(kind), V::Int(*id)]);
            c.execute(&mut **tx).await?;
        }
    }
    history(
        tx,
        core,
        inst,
        (node, "userTask", label),
        Some((task, assignee)),
        now,
        false,
    )
    .await?;
    for (timer, t) in def.timers_of(node) {
        let mut sql = Sql::new(
            "INSERT INTO flow_timer (id, tenant_id, instance_id, task_id, node_id, due_time, status) \
             VALUES (?, ?, ?, ?, ?, ?, 0)",
        );
        sql.push_bind(
            "",
            [
                V::from(core.ids.next()),
                V::from(inst.tenant_id.as_str()),
                V::Int(inst.id),
                V::Int(task),
                V::from(timer.id.as_str()),
                V::Int(now.saturating_add(t.duration_ms)),
            ],
        );
        sql.execute(&mut **tx).await?;
    }
    Ok(())
}

/// How an instance stands after its steps were applied.
#[derive(Debug, Clone)]
pub struct Applied {
    /// The end event the last token reached, when the instance has ended.
    pub ended: Option<String>,
}

/// Writes `steps` and the instance's variables and joins; ends the instance when no token is
/// left (no open task, no waiting join).
pub async fn apply(
    tx: &mut Tx,
    core: &Core,
    def: &Definition,
    inst: &InstanceRow,
    steps: &[Step],
    (vars, joins): (&Map<String, Value>, &Joins),
    now: i64,
) -> Result<Applied, ApiError> {
    let mut last_end = None;
    for step in steps {
        match step {
            Step::Passed { node, kind, name } => {
                history(tx, core, inst, (node, kind, name), None, now, true).await?;
            }
            Step::Took { flow } => {
                let name = def
                    .flows
                    .iter()
                    .find(|f| &f.id == flow)
                    .map(|f| f.name.as_str())
                    .unwrap_or("");
                history(tx, core, inst, (flow, "sequenceFlow", name), None, now, true).await?;
            }
            Step::Open { node } => open_task(tx, core, def, inst, node, vars, now).await?,
            Step::Ended { node } => last_end = Some(node.clone()),
        }
    }
    let mut open = Sql::new("SELECT COUNT(*) FROM flow_task WHERE instance_id = ? AND status = ?");
    open.push_bind("", [V::Int(inst.id), V::Int(TASK_OPEN)]);
    let open: i64 = open.scalar(&mut **tx).await?;
    let done = open == 0 && joins.is_empty();
    let vars_text = serde_json::to_string(vars).map_err(|e| ApiError::Internal(e.to_string()))?;
    let joins_text = serde_json::to_string(joins).map_err(|e| ApiError::Internal(e.to_string()))?;
    let mut sql = Sql::new("UPDATE flow_instance SET variables = ?, joins = ?, update_time = ?");
    sql.push_bind("", [V::from(vars_text), V::from(joins_text), V::Int(now)]);
    if done {
        sql.push_bind(
            ", status = ?, end_time = ?, end_node = ?",
            [
                V::Int(COMPLETED),
                V::Int(now),
                V::from(last_end.clone().unwrap_or_default()),
            ],
        );
    }
    sql.push_bind(" WHERE id = ?", [V::Int(inst.id)]);
    sql.execute(&mut **tx).await?;
    Ok(Applied {
        ended: done.then(|| last_end.unwrap_or_default()),
    })
}

/// Takes the instance's row for the rest of the transaction (PostgreSQL row lock; SQLite already
/// holds the write lock) and reads it; `None` when it is not running.
pub async fn lock_running(
    tx: &mut Tx,
    tenant: &str,
    id: i64,
    now: i64,
) -> Result<Option<InstanceRow>, ApiError> {
    let mut lock =
        Sql::new("UPDATE flow_instance SET update_time = ? WHERE id = ? AND tenant_id = ? AND status = ?");
    lock.push_bind("", [V::Int(now), V::Int(id), V::from(tenant), V::Int(RUNNING)]);
    if lock.execute(&mut **tx).await? == 0 {
        return Ok(None);
    }
    let mut sql = Sql::new(
        "SELECT id, tenant_id, definition_id, business_table, business_id, status, variables, joins \
         FROM flow_instance WHERE id = ?",
    );
    sql.push_bind("", [V::Int(id)]);
    sql.fetch_optional(&mut **tx).await
}

pub const NOT_RUNNING: Text = Text::new("流程已结束或不存在", "The process has ended or does not exist");
pub const SUSPENDED: Text = Text::new("流程定义已挂起", "The process definition is suspended");

/// The `Id` of a new row.
pub fn next_id(core: &Core) -> Id {
    core.ids.next()
}
