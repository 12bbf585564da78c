//! The task job ("inspection.tasks", every few minutes on one hub of a cluster at a time):
//!
//! 1. generation: for each enabled plan and each live station it covers, a task for every due
//!    date from the station's today up to `alarmDay` days ahead, inserted if absent under the
//!    unique (plan, station, due date) index, so each is generated exactly once whichever hub
//!    (or how many at once) runs the pass;
//! 2. reminders: each task not yet announced is claimed by one conditional UPDATE and its
//!    plan's maintenance users who can still see its station get one message (type 3, biz id
//!    the task);
//! 3. overdue: each unfilled task whose due date passed in its station's clock is claimed the
//!    same way, marked overdue, and messaged once.
//!
//! A claim comes before its messages: a hub dying in between loses those messages rather than
//! sending them twice.

use std::sync::Arc;
use std::time::Duration;

use chrono::Duration as Days;
use serde::Serialize;

use super::item_store;
use super::store::{PLAN_COLUMNS, PlanRow};
use super::task_store::TaskItem;
use crate::alarm::context::AlarmCtx;
use crate::alarm::message::{TYPE_INSPECTION, WorkMessage, create_for_users, recipients};
use crate::analytics::data::{self, StationRow};
use crate::kernel::sql::{Sql, Value};
use crate::kernel::{ApiError, Core, Id, leader, time};

pub const JOB: &str = "inspection.tasks";

/// What one pass did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Pass {
    pub generated: u64,
    pub reminded: u64,
    pub overdue: u64,
}

/// One pass over every tenant (see the module note).
pub async fn run_once(ctx: &AlarmCtx) -> Result<Pass, ApiError> {
    let mut pass = Pass {
        generated: generate(ctx).await?,
        ..Pass::default()
    };
    let mut tenants = Vec::new();
    pass.reminded = remind(ctx, &mut tenants).await?;
    pass.overdue = mark_overdue(ctx, &mut tenants).await?;
    tenants.sort();
    tenants.dedup();
    for t in tenants {
        crate::alarm::store::notify(ctx, &t);
    }
    Ok(pass)
}

async fn generate(core: &Core) -> Result<u64, ApiError> {
    // Every tenant's enabled plans: the job acts for all of them, with no caller.
    let mut sql = Sql::new(PLAN_COLUMNS);
    // Plans waiting for (or refused) approval generate nothing (issue 27).
    sql.push(" FROM pv_inspect_plan p WHERE p.is_deleted = 0 AND p.status = 1 AND p.approval IN (0, 2) ORDER BY p.id");
    let plans: Vec<PlanRow> = sql.fetch_all(core.db.pool()).await?;
    let mut generated = 0;
    for plan in plans {
        match generate_plan(core, &plan).await {
            Ok(n) => generated += n,
            Err(e) => tracing::warn!(plan = plan.id, error = %e, "inspection tasks of a plan"),
        }
    }
    Ok(generated)
}

async fn generate_plan(core: &Core, plan: &PlanRow) -> Result<u64, ApiError> {
    let Some(schedule) = plan.schedule() else {
        return Ok(0);
    };
    let mut cond = Sql::default();
    // The plan's tenant: the job has no caller.
    cond.push_bind(
        "s.is_deleted = 0 AND s.tenant_id = ? AND s.id IN (SELECT station_id FROM pv_inspect_plan_station WHERE plan_id = ?)",
        [Value::from(plan.tenant_id.as_str()), Value::Int(plan.id)],
    );
    let stations: Vec<StationRow> = data::stations(core, &cond).await?;
    if stations.is_empty() {
        return Ok(0);
    }
    let mut items = Sql::new("SELECT item_id FROM pv_inspect_plan_item WHERE ");
    items.push_bind("plan_id = ? ORDER BY sort", [Value::Int(plan.id)]);
    let ids: Vec<Id> = items
        .scalars::<i64, _>(core.db.pool())
        .await?
        .into_iter()
        .map(Id)
        .collect();
    let snapshot: Vec<TaskItem> = item_store::of_ids(core, &plan.tenant_id, &ids)
        .await?
        .into_iter()
        .map(|i| TaskItem {
            item_id: i.id,
            title: i.title,
            check_items: i.check_items,
        })
        .collect();
    if snapshot.is_empty() {
        return Ok(0);
    }
    let snapshot = super::common::json_of(&snapshot)?;
    let mut generated = 0;
    for s in &stations {
        let today = s.local_date(core.clock.now_ms());
        let last = today + Days::days(plan.alarm_day.max(0));
        for due in schedule.due_between(today, last) {
            let mut sql = Sql::new(
                "INSERT INTO pv_inspect_task (id, tenant_id, plan_id, station_id, due_date, items, create_time) VALUES ",
            );
            sql.push_bind(
                "(?, ?, ?, ?, ?, ?, ?) ON CONFLICT (plan_id, station_id, due_date) DO NOTHING",
                [
                    Value::from(core.ids.next()),
                    Value::from(plan.tenant_id.as_str()),
                    Value::Int(plan.id),
                    Value::Int(s.id),
                    Value::from(due.to_string()),
                    Value::from(snapshot.as_str()),
                    Value::Int(time::now_ms()),
                ],
            );
            generated += sql.execute(core.db.pool()).await?;
        }
    }
    Ok(generated)
}

#[derive(Debug, sqlx::FromRow)]
struct Pending {
    id: i64,
    tenant_id: String,
    plan_id: i64,
    plan_name: String,
    station_id: i64,
    station_name: String,
    due_date: String,
    utc_offset_minutes: Option<i64>,
}

const PENDING: &str = "SELECT t.id, t.tenant_id, t.plan_id, p.name AS plan_name, t.station_id, s.name AS station_name, \
     t.due_date, s.utc_offset_minutes FROM pv_inspect_task t JOIN pv_inspect_plan p ON p.id = t.plan_id \
     JOIN pv_station s ON s.id = t.station_id WHERE t.is_deleted = 0 AND t.status = 0 AND s.is_deleted = 0 AND ";

/// Claims one flag of one task (`reminded` or `overdue`); true when this pass won it.
async fn claim(core: &Core, column: &str, id: i64) -> Result<bool, ApiError> {
    let mut sql = Sql::new(&format!("UPDATE pv_inspect_task SET {column} = 1 WHERE "));
    sql.push_bind(
        &format!("id = ? AND {column} = 0 AND status = 0 AND is_deleted = 0"),
        [Value::Int(id)],
    );
    Ok(sql.execute(core.db.pool()).await? == 1)
}

/// The active maintenance users of a plan.
async fn plan_staff(core: &Core, plan: i64) -> Result<Vec<i64>, ApiError> {
    let mut sql = Sql::new(
        "SELECT u.id FROM pv_inspect_plan_user pu JOIN blade_user u ON u.id = pu.user_id \
         WHERE u.is_deleted = 0 AND u.status = 1 AND ",
    );
    sql.push_bind("pu.plan_id = ?", [Value::Int(plan)]);
    sql.scalars::<i64, _>(core.db.pool()).await
}

async fn message(
    core: &Core,
    t: &Pending,
    title: (&str, &str),
    content: (&str, &str),
) -> Result<(), ApiError> {
    // Staff who can no longer see the station would open a task they may not read.
    let seeing = recipients(core, &t.tenant_id, t.station_id).await?;
    let mut users = plan_staff(core, t.plan_id).await?;
    users.retain(|u| seeing.contains(u));
    create_for_users(
        core,
        &users,
        &WorkMessage {
            tenant_id: &t.tenant_id,
            r#type: TYPE_INSPECTION,
            event: crate::notify::events::INSPECTION_DUE,
            biz_id: Id(t.id),
            title: title.0,
            title_en: title.1,
            content: content.0,
            content_en: content.1,
        },
    )
    .await?;
    Ok(())
}

async fn remind(core: &Core, tenants: &mut Vec<String>) -> Result<u64, ApiError> {
    let mut sql = Sql::new(PENDING);
    sql.push("t.reminded = 0 ORDER BY t.id");
    let pending: Vec<Pending> = sql.fetch_all(core.db.pool()).await?;
    let mut n = 0;
    for t in pending {
        if !claim(core, "reminded", t.id).await? {
            continue;
        }
        let title = (
            format!("巡检任务：{}", t.plan_name),
            format!("Inspection task: {}", t.plan_name),
        );
        let content = (
            format!("{}，应于 {} 完成巡检", t.station_name, t.due_date),
            format!("{}: inspection due {}", t.station_name, t.due_date),
        );
        message(core, &t, (&title.0, &title.1), (&content.0, &content.1)).await?;
        tenants.push(t.tenant_id.clone());
        n += 1;
    }
    Ok(n)
}

async fn mark_overdue(core: &Core, tenants: &mut Vec<String>) -> Result<u64, ApiError> {
    let now = core.clock.now_ms();
    // No station's today is later than UTC+14's: tasks due from then on cannot be overdue.
    let latest = data::local_date(now, 14 * data::HOUR_MS).to_string();
    let mut sql = Sql::new(PENDING);
    sql.push_bind(
        "t.overdue = 0 AND t.due_date < ? ORDER BY t.id",
        [Value::from(latest)],
    );
    let pending: Vec<Pending> = sql.fetch_all(core.db.pool()).await?;
    let mut n = 0;
    for t in pending {
        let offset = t
            .utc_offset_minutes
            .map(|m| m * data::MINUTE_MS)
            .unwrap_or_else(data::hub_offset_ms);
        let today = data::local_date(now, offset).to_string();
        if t.due_date >= today || !claim(core, "overdue", t.id).await? {
            continue;
        }
        let title = (
            format!("巡检任务已逾期：{}", t.plan_name),
            format!("Inspection overdue: {}", t.plan_name),
        );
        let content = (
            format!("{}，应于 {} 完成的巡检尚未填写", t.station_name, t.due_date),
            format!(
                "{}: the inspection due {} is not filled",
                t.station_name, t.due_date
            ),
        );
        message(core, &t, (&title.0, &title.1), (&content.0, &content.1)).await?;
        tenants.push(t.tenant_id.clone());
        n += 1;
    }
    Ok(n)
}

/// One pass under the cluster-wide lock: `Ok(None)` when another hub is running it.
pub async fn run_exclusive(ctx: &AlarmCtx) -> Result<Option<Result<Pass, ApiError>>, leader::LeaderError> {
    leader::run_exclusive(&ctx.db, JOB, run_once(ctx)).await
}

/// Runs a pass every `every` on one hub of a cluster at a time.
pub fn spawn(ctx: AlarmCtx, every: Duration) -> Arc<tokio::sync::Notify> {
    let woken = Arc::new(tokio::sync::Notify::new());
    let wake = woken.clone();
    tokio::spawn(async move {
        loop {
            let Some(busy) = ctx.shutdown.pass() else {
                return;
            };
            match run_exclusive(&ctx).await {
                Ok(Some(Ok(p))) if p != Pass::default() => tracing::info!(
                    generated = p.generated,
                    reminded = p.reminded,
                    overdue = p.overdue,
                    "inspection tasks"
                ),
                Ok(Some(Ok(_))) | Ok(None) => {}
                Ok(Some(Err(e))) => tracing::warn!(error = %e, "inspection task pass failed"),
                Err(e) => tracing::warn!(error = %e, "inspection tasks: no leader lock"),
            }
            drop(busy);
            tokio::select! {
                _ = tokio::time::sleep(every) => {}
                _ = woken.notified() => {}
                _ = ctx.shutdown.stopping() => return,
            }
        }
    });
    wake
}
