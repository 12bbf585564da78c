//! Inspection records in the database (`pv_inspect_record`, one live record per task, and
//! `pv_inspect_record_item`, one answer per check). A record is visible when its station is.

use serde::Serialize;
use utoipa::ToSchema;

use super::common::{json_of, strings_of};
use crate::auth::scope::Scoped;
use crate::kernel::clock::SiteClock;
use crate::kernel::lang::Text;
use crate::kernel::sql::{Sql, UniqueAs, Value};
use crate::kernel::time::{self, Timestamp};
use crate::kernel::{ApiError, Core, Id, Page};

pub const ALREADY_FILLED: Text = Text::new("该任务已填写", "This task is already filled");

/// One answer of a record.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RecordResult {
    pub item_id: Id,
    pub item_title: String,
    pub check: String,
    /// `1` normal, `2` abnormal.
    pub result: String,
    pub note: String,
    /// Links of uploaded images.
    pub photos: Vec<String>,
    /// The repair order opened from this answer.
    pub repair_id: Option<Id>,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InspectRecord {
    pub id: Id,
    pub task_id: Id,
    pub plan_id: Id,
    pub plan_name: String,
    pub station_id: Id,
    pub station_name: String,
    pub due_date: String,
    /// Always `1` (filled).
    pub status: String,
    /// `1` normal, `2` abnormal.
    pub run_situation: String,
    pub run_situation_name: String,
    pub remark: String,
    pub filled_by: Id,
    pub filled_by_name: String,
    pub filled_time: Timestamp,
    /// The station's clock: the export writes this record's times in it.
    #[serde(skip)]
    pub clock: SiteClock,
    pub abnormal_count: i64,
    /// The answers in the order of the task's checks (detail only); an answer's place is the
    /// `inspectResultIndex` of a repair order opened from it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub results: Option<Vec<RecordResult>>,
}

#[derive(Debug, sqlx::FromRow)]
struct Row {
    id: i64,
    task_id: i64,
    plan_id: i64,
    plan_name: String,
    station_id: i64,
    station_name: String,
    due_date: String,
    run_situation: String,
    remark: String,
    filled_by: i64,
    filled_by_name: Option<String>,
    filled_time: i64,
    abnormal_count: i64,
    utc_offset_minutes: Option<i64>,
}

pub fn run_situation_name(v: &str) -> String {
    if v == "2" {
        Text::new("异常", "Abnormal").render()
    } else {
        Text::new("正常", "Normal").render()
    }
}

impl From<Row> for InspectRecord {
    fn from(r: Row) -> Self {
        InspectRecord {
            id: Id(r.id),
            task_id: Id(r.task_id),
            plan_id: Id(r.plan_id),
            plan_name: r.plan_name,
            station_id: Id(r.station_id),
            station_name: r.station_name,
            due_date: r.due_date,
            status: "1".into(),
            run_situation_name: run_situation_name(&r.run_situation),
            run_situation: r.run_situation,
            remark: r.remark,
            filled_by: Id(r.filled_by),
            filled_by_name: r.filled_by_name.unwrap_or_default(),
            filled_time: Timestamp(r.filled_time),
            clock: SiteClock::of(r.utc_offset_minutes),
            abnormal_count: r.abnormal_count,
            results: None,
        }
    }
}

const COLUMNS: &str = "SELECT r.id, r.task_id, r.plan_id, p.name AS plan_name, r.station_id, s.name AS station_name, \
     r.due_date, r.run_situation, r.remark, r.filled_by, COALESCE(u.real_name, u.account) AS filled_by_name, \
     r.filled_time, r.abnormal_count, s.utc_offset_minutes";

/// `FROM` and the records the caller may see.
pub fn visible(scoped: &Scoped) -> Sql {
    let mut sql = Sql::new(
        " FROM pv_inspect_record r JOIN pv_inspect_plan p ON p.id = r.plan_id \
         JOIN pv_station s ON s.id = r.station_id LEFT JOIN blade_user u ON u.id = r.filled_by \
         WHERE s.is_deleted = 0 AND ",
    );
    sql.append(&scoped.stations.rows("r", "station_id"));
    sql
}

/// Record list filters.
#[derive(Debug, Default)]
pub struct RecordFilter {
    pub station_id: Option<Id>,
    pub plan_id: Option<Id>,
    pub run_situation: Option<String>,
    pub filled_after: Option<i64>,
    pub filled_before: Option<i64>,
}

fn filtered(scoped: &Scoped, f: &RecordFilter) -> Sql {
    let mut cond = visible(scoped);
    if let Some(s) = f.station_id {
        cond.push_bind(" AND r.station_id = ?", [Value::from(s)]);
    }
    if let Some(p) = f.plan_id {
        cond.push_bind(" AND r.plan_id = ?", [Value::from(p)]);
    }
    if let Some(r) = &f.run_situation {
        cond.push_bind(" AND r.run_situation = ?", [Value::from(r.as_str())]);
    }
    if let Some(t) = f.filled_after {
        cond.push_bind(" AND r.filled_time > ?", [Value::Int(t)]);
    }
    if let Some(t) = f.filled_before {
        cond.push_bind(" AND r.filled_time < ?", [Value::Int(t)]);
    }
    cond
}

pub async fn page(
    core: &Core,
    scoped: &Scoped,
    f: &RecordFilter,
    current: i64,
    size: i64,
) -> Result<Page<InspectRecord>, ApiError> {
    let cond = filtered(scoped, f);
    let mut count = Sql::new("SELECT COUNT(*)");
    count.append(&cond);
    let total: i64 = count.scalar(core.db.pool()).await?;
    let mut sql = Sql::new(COLUMNS);
    sql.append(&cond);
    sql.push_bind(
        " ORDER BY r.filled_time DESC, r.id DESC LIMIT ? OFFSET ?",
        [Value::Int(size), Value::Int((current - 1) * size)],
    );
    let rows: Vec<Row> = sql.fetch_all(core.db.pool()).await?;
    Ok(Page::new(
        rows.into_iter().map(InspectRecord::from).collect(),
        total,
        size,
        current,
    ))
}

/// Every record matching `f` (at most `limit`), for exports.
pub async fn all(
    core: &Core,
    scoped: &Scoped,
    f: &RecordFilter,
    limit: i64,
) -> Result<Vec<InspectRecord>, ApiError> {
    let mut sql = Sql::new(COLUMNS);
    sql.append(&filtered(scoped, f));
    sql.push_bind(
        " ORDER BY r.filled_time DESC, r.id DESC LIMIT ?",
        [Value::Int(limit)],
    );
    let rows: Vec<Row> = sql.fetch_all(core.db.pool()).await?;
    Ok(rows.into_iter().map(InspectRecord::from).collect())
}

#[derive(Debug, sqlx::FromRow)]
struct ResultRow {
    item_id: i64,
    item_title: String,
    check_text: String,
    result: String,
    note: String,
    photos: String,
    repair_id: Option<i64>,
}

/// A visible record with its answers.
pub async fn find(core: &Core, scoped: &Scoped, id: Id) -> Result<Option<InspectRecord>, ApiError> {
    let mut sql = Sql::new(COLUMNS);
    sql.append(&visible(scoped));
    sql.push_bind(" AND r.id = ?", [Value::from(id)]);
    let Some(row) = sql.fetch_optional::<Row, _>(core.db.pool()).await? else {
        return Ok(None);
    };
    let mut record = InspectRecord::from(row);
    let mut sql = Sql::new(
        "SELECT item_id, item_title, check_text, result, note, photos, repair_id FROM pv_inspect_record_item WHERE ",
    );
    sql.push_bind("record_id = ? ORDER BY seq", [Value::from(id)]);
    let results: Vec<ResultRow> = sql.fetch_all(core.db.pool()).await?;
    record.results = Some(
        results
            .into_iter()
            .map(|r| RecordResult {
                item_id: Id(r.item_id),
                item_title: r.item_title,
                check: r.check_text,
                result: r.result,
                note: r.note,
                photos: strings_of(&r.photos),
                repair_id: r.repair_id.map(Id),
            })
            .collect(),
    );
    Ok(Some(record))
}

/// A checked record of one task.
#[derive(Debug, Clone)]
pub struct RecordDraft {
    pub task_id: Id,
    pub plan_id: Id,
    pub station_id: Id,
    pub due_date: String,
    pub run_situation: String,
    pub remark: String,
    pub results: Vec<RecordResult>,
}

/// Fills the task: marks it filled (only from unfilled: a second filling loses) and stores the
/// record, in one transaction.
pub async fn insert(core: &Core, tenant: &str, user: Id, d: &RecordDraft) -> Result<Id, ApiError> {
    let id = core.ids.next();
    let now = time::now_ms();
    let mut tx = core.db.begin_write().await?;
    let mut task = Sql::new("UPDATE pv_inspect_task SET status = 1, ");
    task.push_bind(
        "record_id = ? WHERE id = ? AND status = 0 AND is_deleted = 0",
        [Value::from(id), Value::from(d.task_id)],
    );
    if task.execute(&mut *tx).await? == 0 {
        return Err(ApiError::BadRequest(ALREADY_FILLED));
    }
    let abnormal = d.results.iter().filter(|r| r.result == "2").count() as i64;
    let mut sql = Sql::new(
        "INSERT INTO pv_inspect_record (id, tenant_id, task_id, plan_id, station_id, due_date, run_situation, \
         remark, abnormal_count, filled_by, filled_time) VALUES ",
    );
    sql.push_bind(
        "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            Value::from(id),
            Value::from(tenant),
            Value::from(d.task_id),
            Value::from(d.plan_id),
            Value::from(d.station_id),
            Value::from(d.due_date.as_str()),
            Value::from(d.run_situation.as_str()),
            Value::from(d.remark.as_str()),
            Value::Int(abnormal),
            Value::from(user),
            Value::Int(now),
        ],
    );
    sql.execute(&mut *tx).await.unique_as(ALREADY_FILLED)?;
    for chunk in d.results.chunks(100).enumerate() {
        let (c, results) = chunk;
        let mut sql = Sql::new(
            "INSERT INTO pv_inspect_record_item (record_id, seq, item_id, item_title, check_text, result, note, \
             photos) VALUES ",
        );
        for (i, r) in results.iter().enumerate() {
            if i > 0 {
                sql.push(", ");
            }
            sql.push_bind(
                "(?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    Value::from(id),
                    Value::Int((c * 100 + i) as i64),
                    Value::from(r.item_id),
                    Value::from(r.item_title.as_str()),
                    Value::from(r.check.as_str()),
                    Value::from(r.result.as_str()),
                    Value::from(r.note.as_str()),
                    Value::from(json_of(&r.photos)?),
                ],
            );
        }
        sql.execute(&mut *tx).await?;
    }
    tx.commit().await?;
    Ok(id)
}

/// Removes the visible records among `ids` and puts their tasks back to unfilled; answers how
/// many records.
pub async fn remove(core: &Core, scoped: &Scoped, ids: &[Id]) -> Result<u64, ApiError> {
    let mut find = Sql::new("SELECT r.id");
    find.append(&visible(scoped));
    find.push(" AND r.is_deleted = 0 AND r.id IN (");
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
    let mut sql = Sql::new("UPDATE pv_inspect_record SET is_deleted = 1 WHERE is_deleted = 0 AND id IN (");
    sql.push_ids(&found);
    sql.push(")");
    let n = sql.execute(&mut *tx).await?;
    let mut tasks = Sql::new("UPDATE pv_inspect_task SET status = 0, record_id = NULL WHERE record_id IN (");
    tasks.push_ids(&found);
    tasks.push(")");
    tasks.execute(&mut *tx).await?;
    tx.commit().await?;
    Ok(n)
}
