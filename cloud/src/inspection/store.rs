//! Inspection plans in the database: `pv_inspect_plan` and its links to stations, items and
//! maintenance users (`pv_inspect_plan_station` / `_item` / `_user`, each with its order).
//!
//! A plan is visible to a caller when it is of the caller's tenant and every station it covers
//! is visible to the caller: a user restricted to some stations sees (and changes) only plans
//! wholly inside them.

use std::collections::HashMap;

use chrono::NaiveDate;
use serde::Serialize;
use utoipa::ToSchema;

use super::cycle::{Cycle, Schedule};
use super::item_store::{self, InspectItem};
use crate::auth::scope::Scoped;
use crate::kernel::sql::{Sql, Value, like_contains};
use crate::kernel::time::{self, Timestamp};
use crate::kernel::{ApiError, Core, Id};

/// An inspection plan with its stations, items and maintenance users.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InspectPlan {
    pub id: Id,
    pub name: String,
    pub station_ids: Vec<Id>,
    pub station_names: Vec<String>,
    pub item_ids: Vec<Id>,
    pub items: Vec<InspectItem>,
    pub maintenance_ids: Vec<Id>,
    pub maintenance_names: Vec<String>,
    /// `1` daily, `2` weekly, `3` monthly, `4` quarterly, `5` half-yearly, `6` yearly.
    pub cycle_period: String,
    pub cycle_period_name: String,
    /// Days before a due date its task is generated and announced.
    pub alarm_day: i64,
    /// `yyyy-MM-dd`.
    pub start_date: String,
    pub end_date: Option<String>,
    /// 1 enabled, 0 disabled.
    pub status: i64,
    /// Approval by the tenant's `inspection_plan_approval` process: 0 not needed, 1 pending,
    /// 2 approved, 3 rejected. Only plans not pending and not rejected generate tasks.
    pub approval: i64,
    pub approval_comment: String,
    /// The next due date from today (the hub's clock); null when disabled or past its end.
    pub next_due_date: Option<String>,
    pub remark: String,
    pub create_time: Timestamp,
}

/// A checked plan, ready to store.
#[derive(Debug, Clone)]
pub struct PlanDraft {
    pub name: String,
    pub station_ids: Vec<Id>,
    pub item_ids: Vec<Id>,
    pub maintenance_ids: Vec<Id>,
    pub cycle: Cycle,
    pub alarm_day: i64,
    pub start_date: NaiveDate,
    pub end_date: Option<NaiveDate>,
    pub status: i64,
    pub remark: String,
}

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct PlanRow {
    pub id: i64,
    pub tenant_id: String,
    pub name: String,
    pub cycle_period: String,
    pub alarm_day: i64,
    pub start_date: String,
    pub end_date: Option<String>,
    pub status: i64,
    pub remark: String,
    pub create_time: i64,
    pub approval: i64,
    pub approval_comment: String,
}

impl PlanRow {
    pub fn schedule(&self) -> Option<Schedule> {
        Some(Schedule {
            cycle: Cycle::from_key(&self.cycle_period)?,
            start: parse_date(&self.start_date)?,
            end: self.end_date.as_deref().and_then(parse_date),
        })
    }
}

pub fn parse_date(s: &str) -> Option<NaiveDate> {
    NaiveDate::parse_from_str(s.trim(), "%Y-%m-%d").ok()
}

pub const PLAN_COLUMNS: &str = "SELECT p.id, p.tenant_id, p.name, p.cycle_period, p.alarm_day, p.start_date, \
     p.end_date, p.status, p.remark, p.create_time, p.approval, p.approval_comment";

/// `FROM` and the plans the caller may see (see the module note).
pub fn visible(scoped: &Scoped) -> Sql {
    let mut sql = Sql::new(" FROM pv_inspect_plan p WHERE p.is_deleted = 0 AND ");
    sql.append(&scoped.caller.tenant_filter("p.tenant_id"));
    if let Some(user) = scoped.stations.assigned_to {
        // A restricted caller: no station of the plan may lie outside the assigned ones (the
        // scope's builders say "inside", this needs "none outside").
        sql.push_bind(
            " AND NOT EXISTS (SELECT 1 FROM pv_inspect_plan_station ps WHERE ps.plan_id = p.id \
             AND ps.station_id NOT IN (SELECT station_id FROM pv_user_station WHERE user_id = ?))",
            [Value::from(user)],
        );
    }
    sql
}

/// Plan list filters.
#[derive(Debug, Default)]
pub struct PlanFilter<'a> {
    pub name: Option<&'a str>,
    pub station_id: Option<Id>,
    pub status: Option<i64>,
}

pub fn filtered(scoped: &Scoped, f: &PlanFilter<'_>) -> Sql {
    let mut cond = visible(scoped);
    if let Some(n) = f.name {
        cond.push_bind(
            " AND LOWER(p.name) LIKE LOWER(?) ESCAPE '\\'",
            [Value::from(like_contains(n))],
        );
    }
    if let Some(s) = f.station_id {
        cond.push_bind(
            " AND EXISTS (SELECT 1 FROM pv_inspect_plan_station ps WHERE ps.plan_id = p.id AND ps.station_id = ?)",
            [Value::from(s)],
        );
    }
    if let Some(s) = f.status {
        cond.push_bind(" AND p.status = ?", [Value::Int(s)]);
    }
    cond
}

/// `(owner id, linked id, name)` rows of the links of `plans`, grouped by plan in link order.
async fn links(core: &Core, head: &str, plans: &[Id]) -> Result<HashMap<i64, Vec<(Id, String)>>, ApiError> {
    let mut out: HashMap<i64, Vec<(Id, String)>> = HashMap::new();
    if plans.is_empty() {
        return Ok(out);
    }
    let mut sql = Sql::new(head);
    sql.push_ids(plans);
    sql.push(") ORDER BY 1, 4, 2");
    for (plan, id, name, _) in sql
        .fetch_all::<(i64, i64, Option<String>, i64), _>(core.db.pool())
        .await?
    {
        out.entry(plan)
            .or_default()
            .push((Id(id), name.unwrap_or_default()));
    }
    Ok(out)
}

const STATIONS: &str = "SELECT ps.plan_id, s.id, s.name, ps.sort FROM pv_inspect_plan_station ps \
     JOIN pv_station s ON s.id = ps.station_id WHERE s.is_deleted = 0 AND ps.plan_id IN (";
const USERS: &str = "SELECT pu.plan_id, u.id, COALESCE(u.real_name, u.account), pu.sort FROM pv_inspect_plan_user pu \
     JOIN blade_user u ON u.id = pu.user_id WHERE u.is_deleted = 0 AND pu.plan_id IN (";
const ITEMS: &str =
    "SELECT pi.plan_id, pi.item_id, '', pi.sort FROM pv_inspect_plan_item pi WHERE pi.plan_id IN (";

/// The plans of `rows` with their links, in the order of `rows`.
pub async fn assemble(core: &Core, rows: Vec<PlanRow>) -> Result<Vec<InspectPlan>, ApiError> {
    let ids: Vec<Id> = rows.iter().map(|r| Id(r.id)).collect();
    let stations = links(core, STATIONS, &ids).await?;
    let users = links(core, USERS, &ids).await?;
    let items = links(core, ITEMS, &ids).await?;
    let today =
        crate::analytics::data::local_date(core.clock.now_ms(), crate::analytics::data::hub_offset_ms());
    let mut out = Vec::with_capacity(rows.len());
    for r in rows {
        let item_ids: Vec<Id> = items.get(&r.id).into_iter().flatten().map(|(i, _)| *i).collect();
        let full = item_store::of_ids(core, &r.tenant_id, &item_ids).await?;
        let (station_ids, station_names) = split(stations.get(&r.id));
        let (maintenance_ids, maintenance_names) = split(users.get(&r.id));
        let cycle = Cycle::from_key(&r.cycle_period);
        let next = if r.status == 1 && super::approval::active(r.approval) {
            r.schedule()
                .and_then(|s| s.next_on_or_after(today))
                .map(|d| d.to_string())
        } else {
            None
        };
        out.push(InspectPlan {
            id: Id(r.id),
            name: r.name,
            station_ids,
            station_names,
            item_ids: full.iter().map(|i| i.id).collect(),
            items: full,
            maintenance_ids,
            maintenance_names,
            cycle_period: r.cycle_period,
            cycle_period_name: cycle.map(|c| c.name().render()).unwrap_or_default(),
            alarm_day: r.alarm_day,
            start_date: r.start_date,
            end_date: r.end_date,
            status: r.status,
            approval: r.approval,
            approval_comment: r.approval_comment,
            next_due_date: next,
            remark: r.remark,
            create_time: Timestamp(r.create_time),
        });
    }
    Ok(out)
}

fn split(links: Option<&Vec<(Id, String)>>) -> (Vec<Id>, Vec<String>) {
    links.into_iter().flatten().cloned().unzip()
}

pub async fn find(core: &Core, scoped: &Scoped, id: Id) -> Result<Option<InspectPlan>, ApiError> {
    let mut sql = Sql::new(PLAN_COLUMNS);
    sql.append(&visible(scoped));
    sql.push_bind(" AND p.id = ?", [Value::from(id)]);
    let rows: Vec<PlanRow> = sql.fetch_all(core.db.pool()).await?;
    Ok(assemble(core, rows).await?.pop())
}

/// Writes the links of a plan (after removing the old ones).
async fn write_links(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    plan: Id,
    d: &PlanDraft,
) -> Result<(), ApiError> {
    for table in [
        "pv_inspect_plan_station",
        "pv_inspect_plan_item",
        "pv_inspect_plan_user",
    ] {
        let mut del = Sql::new(&format!("DELETE FROM {table} WHERE "));
        del.push_bind("plan_id = ?", [Value::from(plan)]);
        del.execute(&mut **tx).await?;
    }
    for (table, column, ids) in [
        ("pv_inspect_plan_station", "station_id", &d.station_ids),
        ("pv_inspect_plan_item", "item_id", &d.item_ids),
        ("pv_inspect_plan_user", "user_id", &d.maintenance_ids),
    ] {
        let mut sql = Sql::new(&format!("INSERT INTO {table} (plan_id, {column}, sort) VALUES "));
        for (i, id) in ids.iter().enumerate() {
            if i > 0 {
                sql.push(", ");
            }
            sql.push_bind(
                "(?, ?, ?)",
                [Value::from(plan), Value::from(*id), Value::Int(i as i64)],
            );
        }
        sql.execute(&mut **tx).await?;
    }
    Ok(())
}

fn date_value(d: Option<NaiveDate>) -> Value {
    Value::from(d.map(|d| d.to_string()))
}

pub async fn insert(core: &Core, scoped: &Scoped, d: &PlanDraft) -> Result<Id, ApiError> {
    let id = core.ids.next();
    let now = time::now_ms();
    let mut tx = core.db.begin_write().await?;
    let mut sql = Sql::new(
        "INSERT INTO pv_inspect_plan (id, tenant_id, name, cycle_period, alarm_day, start_date, end_date, status, \
         remark, create_user, create_time, update_time) VALUES ",
    );
    sql.push_bind(
        "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            Value::from(id),
            Value::from(scoped.caller.tenant_id.as_str()),
            Value::from(d.name.as_str()),
            Value::from(d.cycle.key()),
            Value::Int(d.alarm_day),
            Value::from(d.start_date.to_string()),
            date_value(d.end_date),
            Value::Int(d.status),
            Value::from(d.remark.as_str()),
            Value::from(scoped.caller.user_id),
            Value::Int(now),
            Value::Int(now),
        ],
    );
    sql.execute(&mut *tx).await?;
    write_links(&mut tx, id, d).await?;
    tx.commit().await?;
    Ok(id)
}

/// Replaces a visible plan; answers whether it was there. Unfilled tasks of stations the plan
/// no longer covers go with it.
pub async fn update(core: &Core, scoped: &Scoped, id: Id, d: &PlanDraft) -> Result<bool, ApiError> {
    let mut tx = core.db.begin_write().await?;
    let mut sql = Sql::new("UPDATE pv_inspect_plan SET ");
    sql.push_bind(
        "name = ?, cycle_period = ?, alarm_day = ?, start_date = ?, end_date = ?, status = ?, remark = ?, \
         update_time = ? WHERE id IN (SELECT p.id",
        [
            Value::from(d.name.as_str()),
            Value::from(d.cycle.key()),
            Value::Int(d.alarm_day),
            Value::from(d.start_date.to_string()),
            date_value(d.end_date),
            Value::Int(d.status),
            Value::from(d.remark.as_str()),
            Value::Int(time::now_ms()),
        ],
    );
    sql.append(&visible(scoped));
    sql.push_bind(" AND p.id = ?)", [Value::from(id)]);
    if sql.execute(&mut *tx).await? == 0 {
        return Ok(false);
    }
    write_links(&mut tx, id, d).await?;
    let mut tasks =
        Sql::new("UPDATE pv_inspect_task SET is_deleted = 1 WHERE is_deleted = 0 AND status = 0 AND ");
    tasks.push_bind("plan_id = ? AND station_id NOT IN (", [Value::from(id)]);
    tasks.push_ids(&d.station_ids);
    tasks.push(")");
    tasks.execute(&mut *tx).await?;
    tx.commit().await?;
    Ok(true)
}

/// Removes the visible plans among `ids` and their unfilled tasks; answers how many plans.
pub async fn remove(core: &Core, scoped: &Scoped, ids: &[Id]) -> Result<u64, ApiError> {
    let mut find = Sql::new("SELECT p.id");
    find.append(&visible(scoped));
    find.push(" AND p.id IN (");
    find.push_ids(ids);
    find.push(")");
    let found: Vec<Id> = find
        .scalars::<i64, _>(core.db.pool())
        .await?
        .into_iter()
        .map(Id)
        .collect();
    // All or nothing: one id out of reach refuses the whole selection (`删除失败`).
    let Ok(found) = crate::kernel::id::all_found(ids, found) else {
        return Ok(0);
    };
    let mut tx = core.db.begin_write().await?;
    let mut sql = Sql::new("UPDATE pv_inspect_plan SET is_deleted = 1 WHERE is_deleted = 0 AND id IN (");
    sql.push_ids(&found);
    sql.push(")");
    let n = sql.execute(&mut *tx).await?;
    let mut tasks = Sql::new(
        "UPDATE pv_inspect_task SET is_deleted = 1 WHERE is_deleted = 0 AND status = 0 AND plan_id IN (",
    );
    tasks.push_ids(&found);
    tasks.push(")");
    tasks.execute(&mut *tx).await?;
    tx.commit().await?;
    Ok(n)
}

/// The visible stations among `ids` (live, the caller's tenant, in scope).
pub async fn visible_stations(core: &Core, scoped: &Scoped, ids: &[Id]) -> Result<Vec<Id>, ApiError> {
    let mut sql = Sql::new("SELECT s.id FROM pv_station s WHERE ");
    sql.append(&scoped.stations.stations("s"));
    sql.push(" AND s.id IN (");
    sql.push_ids(ids);
    sql.push(")");
    Ok(sql
        .scalars::<i64, _>(core.db.pool())
        .await?
        .into_iter()
        .map(Id)
        .collect())
}

/// Active maintenance staff (role `maintenance`) of `tenant` who can see every station of
/// `stations` under the station scope rule.
pub async fn staff_seeing(core: &Core, tenant: &str, stations: &[Id]) -> Result<Vec<Id>, ApiError> {
    let mut sql = Sql::new(
        "SELECT u.id FROM blade_user u WHERE u.is_deleted = 0 AND u.status = 1 AND EXISTS (SELECT 1 \
         FROM blade_user_role ur JOIN blade_role r ON r.id = ur.role_id WHERE ur.user_id = u.id \
         AND r.is_deleted = 0 AND r.role_alias = ?) AND ",
    );
    sql.push_bind("", [Value::from(crate::auth::scope::MAINTENANCE_ROLE)]);
    // By tenant: the plan's tenant (a caller's, or the job's for each tenant).
    sql.push_bind("u.tenant_id = ?", [Value::from(tenant)]);
    let staff: Vec<i64> = sql.scalars::<i64, _>(core.db.pool()).await?;
    let mut seeing: Option<Vec<i64>> = None;
    for s in stations {
        let can = crate::alarm::message::recipients(core, tenant, s.0).await?;
        seeing = Some(match seeing {
            None => can,
            Some(prev) => prev.into_iter().filter(|u| can.contains(u)).collect(),
        });
    }
    Ok(staff
        .into_iter()
        .filter(|u| seeing.as_ref().is_none_or(|s| s.contains(u)))
        .map(Id)
        .collect())
}
