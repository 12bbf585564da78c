//! Workbooks of plans, tasks and records (`export-data`): the list's filters, human headers in
//! the request's language, names rather than codes; written by `report::workbook`. Each needs
//! its page's `export` button. A task or record is its station's: its times are in the
//! station's clock, and every row states the clock it uses (a workbook may span clocks).

use axum::extract::State;
use axum::response::Response;

use super::plan_api::PlanQuery;
use super::record_api::RecordQuery;
use super::record_store;
use super::store::{self, PLAN_COLUMNS, PlanRow};
use super::task_api::TaskQuery;
use super::task_store;
use crate::auth::scope::Scoped;
use crate::kernel::clock::SiteClock;
use crate::kernel::extract::Query;
use crate::kernel::sql::{Sql, Value};
use crate::kernel::{ApiError, Core, Id};
use crate::report::workbook::{Cell, Table, download, tr};

/// Rows an export holds at most.
const MAX_ROWS: i64 = 10_000;

fn clock_header() -> String {
    tr("时钟", "Clock")
}

fn clock_cell(clock: &SiteClock) -> Cell {
    format!("UTC{}", clock.label()).into()
}

/// The clock of a plan's rows: its stations' when they all keep the same one, else the hub's
/// (a plan's own times are not any one station's).
async fn plan_clocks(core: &Core, plans: &[Vec<Id>]) -> Result<Vec<SiteClock>, ApiError> {
    let mut ids: Vec<Id> = plans.iter().flatten().copied().collect();
    ids.sort_unstable_by_key(|i| i.0);
    ids.dedup();
    let mut offsets = std::collections::HashMap::new();
    if !ids.is_empty() {
        let mut sql = Sql::new("SELECT id, utc_offset_minutes FROM pv_station WHERE id IN (");
        sql.push_ids(&ids);
        sql.push(")");
        let rows: Vec<(i64, Option<i64>)> = sql.fetch_all(core.db.pool()).await?;
        offsets.extend(rows.into_iter().map(|(id, m)| (id, SiteClock::of(m))));
    }
    Ok(plans
        .iter()
        .map(|stations| {
            let mut clocks = stations
                .iter()
                .map(|s| offsets.get(&s.0).copied().unwrap_or_else(SiteClock::hub));
            match clocks.next() {
                Some(first) if clocks.all(|c| c == first) => first,
                _ => SiteClock::hub(),
            }
        })
        .collect())
}

fn status_label(status: i64) -> String {
    if status == 1 {
        tr("启用", "Enabled")
    } else {
        tr("停用", "Disabled")
    }
}

/// The plans of the list's filters as a workbook.
#[utoipa::path(get, path = "/api/inspectPlan/export-data", tag = "inspection", params(PlanQuery),
    responses((status = 200, description = "xlsx", content_type = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"), (status = 400), (status = 403)))]
pub async fn plans(
    State(core): State<Core>,
    scoped: Scoped,
    Query(q): Query<PlanQuery>,
) -> Result<Response, ApiError> {
    scoped.caller.require(&core, "inspectionPlan_export").await?;
    let mut sql = Sql::new(PLAN_COLUMNS);
    sql.append(&store::filtered(&scoped, &q.filter()));
    sql.push_bind(
        " ORDER BY p.create_time DESC, p.id DESC LIMIT ?",
        [Value::Int(MAX_ROWS)],
    );
    let rows: Vec<PlanRow> = sql.fetch_all(core.db.pool()).await?;
    let mut t = Table::new(
        tr("巡检计划", "Inspection plans"),
        vec![
            tr("计划名称", "Plan"),
            tr("电站", "Stations"),
            tr("巡检项", "Items"),
            tr("运维人员", "Maintenance staff"),
            tr("巡检周期", "Cycle"),
            tr("提醒", "Reminder"),
            tr("开始日期", "Start date"),
            tr("结束日期", "End date"),
            tr("状态", "Status"),
            tr("下次到期", "Next due"),
            tr("备注", "Remark"),
            tr("创建时间", "Created"),
            clock_header(),
        ],
    );
    let plans = store::assemble(&core, rows).await?;
    let station_ids: Vec<Vec<Id>> = plans.iter().map(|p| p.station_ids.clone()).collect();
    let clocks = plan_clocks(&core, &station_ids).await?;
    for (p, clock) in plans.into_iter().zip(clocks) {
        let titles: Vec<&str> = p.items.iter().map(|i| i.title.as_str()).collect();
        t.push(vec![
            p.name.into(),
            p.station_names.join(", ").into(),
            titles.join(", ").into(),
            p.maintenance_names.join(", ").into(),
            p.cycle_period_name.into(),
            super::cycle::alarm_day_name(p.alarm_day).render().into(),
            p.start_date.into(),
            p.end_date.unwrap_or_default().into(),
            status_label(p.status).into(),
            p.next_due_date.unwrap_or_default().into(),
            p.remark.into(),
            clock.format_ms(p.create_time.0).into(),
            clock_cell(&clock),
        ]);
    }
    download(&[t], "inspection-plans.xlsx")
}

/// The tasks of the list's filters as a workbook.
#[utoipa::path(get, path = "/api/inspectTask/export-data", tag = "inspection", params(TaskQuery),
    responses((status = 200, description = "xlsx", content_type = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"), (status = 400), (status = 403)))]
pub async fn tasks(
    State(core): State<Core>,
    scoped: Scoped,
    Query(q): Query<TaskQuery>,
) -> Result<Response, ApiError> {
    scoped.caller.require(&core, "inspectionTask_export").await?;
    let f = q.filter(scoped.caller.user_id)?;
    let mut t = Table::new(
        tr("巡检任务", "Inspection tasks"),
        vec![
            tr("计划名称", "Plan"),
            tr("电站", "Station"),
            tr("到期日期", "Due date"),
            tr("状态", "Status"),
            tr("是否逾期", "Overdue"),
            tr("运维人员", "Maintenance staff"),
            tr("生成时间", "Generated"),
            clock_header(),
        ],
    );
    for task in task_store::all(&core, &scoped, &f, MAX_ROWS).await? {
        t.push(vec![
            task.plan_name.into(),
            task.station_name.into(),
            task.due_date.into(),
            task.status_name.into(),
            if task.overdue {
                tr("是", "Yes")
            } else {
                tr("否", "No")
            }
            .into(),
            task.maintenance_names.join(", ").into(),
            task.clock.format_ms(task.create_time.0).into(),
            clock_cell(&task.clock),
        ]);
    }
    download(&[t], "inspection-tasks.xlsx")
}

/// The records of the list's filters as a workbook.
#[utoipa::path(get, path = "/api/inspectRecord/export-data", tag = "inspection", params(RecordQuery),
    responses((status = 200, description = "xlsx", content_type = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"), (status = 400), (status = 403)))]
pub async fn records(
    State(core): State<Core>,
    scoped: Scoped,
    Query(q): Query<RecordQuery>,
) -> Result<Response, ApiError> {
    scoped.caller.require(&core, "inspectionRecord_export").await?;
    let mut t = Table::new(
        tr("巡检记录", "Inspection records"),
        vec![
            tr("计划名称", "Plan"),
            tr("电站", "Station"),
            tr("到期日期", "Due date"),
            tr("运行情况", "Run situation"),
            tr("异常项数", "Abnormal checks"),
            tr("填写人", "Filled by"),
            tr("填写时间", "Filled"),
            tr("备注", "Remark"),
            clock_header(),
        ],
    );
    for r in record_store::all(&core, &scoped, &q.filter()?, MAX_ROWS).await? {
        t.push(vec![
            r.plan_name.into(),
            r.station_name.into(),
            r.due_date.into(),
            r.run_situation_name.into(),
            Cell::Number(Some(r.abnormal_count as f64)),
            r.filled_by_name.into(),
            r.clock.format_ms(r.filled_time.0).into(),
            r.remark.into(),
            clock_cell(&r.clock),
        ]);
    }
    download(&[t], "inspection-records.xlsx")
}
