//! Workbooks of plans, tasks and records (`export-data`): the list's filters, human headers in
//! the request's language, names rather than codes; written by `report::workbook`. Each needs
//! its page's `export` button.

use axum::extract::State;
use axum::response::Response;

use super::plan_api::PlanQuery;
use super::record_api::RecordQuery;
use super::record_store;
use super::store::{self, PLAN_COLUMNS, PlanRow};
use super::task_api::TaskQuery;
use super::task_store;
use crate::auth::scope::Scoped;
use crate::kernel::extract::Query;
use crate::kernel::sql::{Sql, Value};
use crate::kernel::{ApiError, Core};
use crate::report::workbook::{Cell, Table, download, tr};

/// Rows an export holds at most.
const MAX_ROWS: i64 = 10_000;

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
        ],
    );
    for p in store::assemble(&core, rows).await? {
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
            crate::kernel::time::format_ms(p.create_time.0).into(),
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
            crate::kernel::time::format_ms(task.create_time.0).into(),
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
            crate::kernel::time::format_ms(r.filled_time.0).into(),
            r.remark.into(),
        ]);
    }
    download(&[t], "inspection-records.xlsx")
}
