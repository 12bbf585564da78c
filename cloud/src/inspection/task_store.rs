//! Inspection tasks in the database (`pv_inspect_task`). A task is visible to a caller when its
//! station is (tenant, live, in scope); its maintenance users are its plan's (a plan's change of
//! staff reaches its open tasks), its checks the snapshot taken when it was generated.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::auth::scope::Scoped;
use crate::kernel::clock::SiteClock;
use crate::kernel::lang::Text;
use crate::kernel::sql::{Sql, Value};
use crate::kernel::time::Timestamp;
use crate::kernel::{ApiError, Core, Id, Page};

/// One item of a task's snapshot: what the record answers.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TaskItem {
    pub item_id: Id,
    pub title: String,
    pub check_items: Vec<String>,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InspectTask {
    pub id: Id,
    pub plan_id: Id,
    pub plan_name: String,
    pub station_id: Id,
    pub station_name: String,
    /// `yyyy-MM-dd` in the station's clock.
    pub due_date: String,
    /// `0` unfilled, `1` filled.
    pub status: String,
    pub status_name: String,
    /// Its due date passed while it was unfilled.
    pub overdue: bool,
    pub maintenance_ids: Vec<Id>,
    pub maintenance_names: Vec<String>,
    pub record_id: Option<Id>,
    pub create_time: Timestamp,
    /// The station's clock: the export writes this task's times in it.
    #[serde(skip)]
    pub clock: SiteClock,
    /// The checks to answer (detail only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub items: Option<Vec<TaskItem>>,
}

#[derive(Debug, sqlx::FromRow)]
pub struct TaskRow {
    pub id: i64,
    pub tenant_id: String,
    pub plan_id: i64,
    pub plan_name: String,
    pub station_id: i64,
    pub station_name: String,
    pub due_date: String,
    pub status: i64,
    pub overdue: i64,
    pub record_id: Option<i64>,
    pub create_time: i64,
    pub items: String,
    pub utc_offset_minutes: Option<i64>,
}

impl TaskRow {
    pub fn snapshot(&self) -> Vec<TaskItem> {
        serde_json::from_str(&self.items).unwrap_or_default()
    }
}

pub fn status_name(status: i64) -> String {
    if status == 1 {
        Text::new("已填写", "Filled").render()
    } else {
        Text::new("未填写", "Unfilled").render()
    }
}

pub const TASK_COLUMNS: &str = "SELECT t.id, t.tenant_id, t.plan_id, p.name AS plan_name, t.station_id, \
     s.name AS station_name, t.due_date, t.status, t.overdue, t.record_id, t.create_time, t.items, \
     s.utc_offset_minutes";

/// `FROM` and the tasks the caller may see.
pub fn visible(scoped: &Scoped) -> Sql {
    let mut sql = Sql::new(
        " FROM pv_inspect_task t JOIN pv_inspect_plan p ON p.id = t.plan_id \
         JOIN pv_station s ON s.id = t.station_id WHERE s.is_deleted = 0 AND ",
    );
    sql.append(&scoped.stations.rows("t", "station_id"));
    sql
}

/// Task list filters.
#[derive(Debug, Default)]
pub struct TaskFilter {
    pub plan_id: Option<Id>,
    pub station_id: Option<Id>,
    pub status: Option<i64>,
    pub overdue: Option<bool>,
    /// Only tasks whose plan names this user.
    pub mine: Option<Id>,
}

pub fn filtered(scoped: &Scoped, f: &TaskFilter) -> Sql {
    let mut cond = visible(scoped);
    if let Some(p) = f.plan_id {
        cond.push_bind(" AND t.plan_id = ?", [Value::from(p)]);
    }
    if let Some(s) = f.station_id {
        cond.push_bind(" AND t.station_id = ?", [Value::from(s)]);
    }
    if let Some(s) = f.status {
        cond.push_bind(" AND t.status = ?", [Value::Int(s)]);
    }
    if let Some(o) = f.overdue {
        cond.push_bind(" AND t.overdue = ?", [Value::Int(i64::from(o))]);
    }
    if let Some(u) = f.mine {
        cond.push_bind(
            " AND EXISTS (SELECT 1 FROM pv_inspect_plan_user pu WHERE pu.plan_id = t.plan_id AND pu.user_id = ?)",
            [Value::from(u)],
        );
    }
    cond
}

/// The maintenance users (id, name) of each of `plans`, in the plan's order.
pub async fn plan_users(core: &Core, plans: &[i64]) -> Result<HashMap<i64, Vec<(Id, String)>>, ApiError> {
    let mut out: HashMap<i64, Vec<(Id, String)>> = HashMap::new();
    if plans.is_empty() {
        return Ok(out);
    }
    let mut sql = Sql::new(
        "SELECT pu.plan_id, u.id, COALESCE(u.real_name, u.account) FROM pv_inspect_plan_user pu \
         JOIN blade_user u ON u.id = pu.user_id WHERE u.is_deleted = 0 AND pu.plan_id IN (",
    );
    let ids: Vec<Id> = plans.iter().map(|p| Id(*p)).collect();
    sql.push_ids(&ids);
    sql.push(") ORDER BY pu.plan_id, pu.sort");
    for (plan, user, name) in sql
        .fetch_all::<(i64, i64, Option<String>), _>(core.db.pool())
        .await?
    {
        out.entry(plan)
            .or_default()
            .push((Id(user), name.unwrap_or_default()));
    }
    Ok(out)
}

/// The wire tasks of `rows`; `detail` adds the checks.
pub async fn assemble(core: &Core, rows: Vec<TaskRow>, detail: bool) -> Result<Vec<InspectTask>, ApiError> {
    let mut plans: Vec<i64> = rows.iter().map(|r| r.plan_id).collect();
    plans.sort_unstable();
    plans.dedup();
    let users = plan_users(core, &plans).await?;
    Ok(rows
        .into_iter()
        .map(|r| {
            let (maintenance_ids, maintenance_names) =
                users.get(&r.plan_id).into_iter().flatten().cloned().unzip();
            InspectTask {
                items: detail.then(|| r.snapshot()),
                id: Id(r.id),
                plan_id: Id(r.plan_id),
                plan_name: r.plan_name,
                station_id: Id(r.station_id),
                station_name: r.station_name,
                due_date: r.due_date,
                status: r.status.to_string(),
                status_name: status_name(r.status),
                overdue: r.overdue == 1,
                maintenance_ids,
                maintenance_names,
                record_id: r.record_id.map(Id),
                create_time: Timestamp(r.create_time),
                clock: SiteClock::of(r.utc_offset_minutes),
            }
        })
        .collect())
}

pub async fn page(
    core: &Core,
    scoped: &Scoped,
    f: &TaskFilter,
    current: i64,
    size: i64,
) -> Result<Page<InspectTask>, ApiError> {
    let cond = filtered(scoped, f);
    let mut count = Sql::new("SELECT COUNT(*)");
    count.append(&cond);
    let total: i64 = count.scalar(core.db.pool()).await?;
    let mut sql = Sql::new(TASK_COLUMNS);
    sql.append(&cond);
    sql.push_bind(
        " ORDER BY t.due_date DESC, t.id DESC LIMIT ? OFFSET ?",
        [Value::Int(size), Value::Int((current - 1) * size)],
    );
    let rows: Vec<TaskRow> = sql.fetch_all(core.db.pool()).await?;
    Ok(Page::new(
        assemble(core, rows, false).await?,
        total,
        size,
        current,
    ))
}

/// Every task matching `f` (at most `limit`), for exports.
pub async fn all(
    core: &Core,
    scoped: &Scoped,
    f: &TaskFilter,
    limit: i64,
) -> Result<Vec<InspectTask>, ApiError> {
    let mut sql = Sql::new(TASK_COLUMNS);
    sql.append(&filtered(scoped, f));
    sql.push_bind(
        " ORDER BY t.due_date DESC, t.id DESC LIMIT ?",
        [Value::Int(limit)],
    );
    let rows: Vec<TaskRow> = sql.fetch_all(core.db.pool()).await?;
    assemble(core, rows, false).await
}

pub async fn find_row(core: &Core, scoped: &Scoped, id: Id) -> Result<Option<TaskRow>, ApiError> {
    let mut sql = Sql::new(TASK_COLUMNS);
    sql.append(&visible(scoped));
    sql.push_bind(" AND t.id = ?", [Value::from(id)]);
    sql.fetch_optional(core.db.pool()).await
}

/// Removes the visible tasks among `ids`; answers how many.
pub async fn remove(core: &Core, scoped: &Scoped, ids: &[Id]) -> Result<u64, ApiError> {
    let mut find = Sql::new("SELECT t.id");
    find.append(&visible(scoped));
    find.push(" AND t.is_deleted = 0 AND t.id IN (");
    find.push_ids(ids);
    find.push(")");
    // All or nothing: one id out of reach refuses the whole selection (`删除失败`).
    let Ok(found) = crate::kernel::id::all_found(ids, find.scalars(core.db.pool()).await?) else {
        return Ok(0);
    };
    let mut sql = Sql::new("UPDATE pv_inspect_task SET is_deleted = 1 WHERE is_deleted = 0 AND id IN (");
    sql.push_ids(&found);
    sql.push(")");
    sql.execute(core.db.pool()).await
}
