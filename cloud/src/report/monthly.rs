//! The monthly report of a station (`pv_report_file`, kind `monthly`): one workbook with the
//! month's generation by day, its performance (PR) by day and its bill, produced once
//! cluster-wide for the previous month of every live station by the job (hourly; a month whose
//! report is missing — the first of the month, or after downtime — is produced), and on demand.

use std::sync::Arc;
use std::time::Duration;

use chrono::{Datelike, Months, NaiveDate};

use super::bill_api;
use super::common::today;
use super::export_api::{bill_tables, generation_table, performance_table};
use super::generation_api;
use super::performance_api;
use super::period::{TimeQuery, TimeType};
use super::workbook;
use crate::analytics::data::{self, StationRow};
use crate::auth::scope::StationScope;
use crate::kernel::sql::{Sql, Value, is_unique_violation};
use crate::kernel::{ApiError, Core, Id, leader, time};

pub const KIND_MONTHLY: &str = "monthly";
const JOB: &str = "report.monthly";

/// `yyyy-MM` of the month before `day`'s.
pub fn previous_month(day: NaiveDate) -> String {
    let first = day.with_day(1).unwrap_or(day);
    (first - Months::new(1)).format("%Y-%m").to_string()
}

/// The workbook of `station`'s `month` (yyyy-MM), in the hub's default language.
pub async fn workbook_of(core: &Core, station: &StationRow, month: &str) -> Result<Vec<u8>, ApiError> {
    let scope = StationScope {
        tenant_id: station.tenant_id.clone(),
        assigned_to: None,
    };
    let q = TimeQuery {
        time_type: Some(TimeType::Month),
        date: Some(month.to_owned()),
        start: None,
        end: None,
    };
    let ids = [Id(station.id)];
    let generation = generation_api::stations_generation(core, &scope, &ids, &q).await?;
    let performance = performance_api::station_performance_of(core, &scope, ids[0], &q).await?;
    let (bill, _) = bill_api::station_bill(core, &scope, ids[0], &q).await?;
    let mut tables = vec![generation_table(&generation), performance_table(&performance)];
    tables.extend(bill_tables(&bill));
    workbook::write(&tables)
}

/// A file's name: station and month, safe on every file system.
pub fn file_name(station: &str, month: &str) -> String {
    let clean: String = station
        .chars()
        .filter(|c| !matches!(c, '/' | '\\' | ':' | '*' | '?' | '"' | '<' | '>' | '|') && !c.is_control())
        .take(100)
        .collect();
    format!("{clean}-{month}.xlsx")
}

/// Stores the monthly report of `station` for `month`. With `replace`, a live one is replaced
/// (on demand); without, an existing one wins (the job) and nothing is written.
pub async fn produce(
    core: &Core,
    station: &StationRow,
    month: &str,
    user: Option<i64>,
    replace: bool,
) -> Result<Option<Id>, ApiError> {
    let bytes = workbook_of(core, station, month).await?;
    let id = core.ids.next();
    let mut tx = core.db.begin_write().await?;
    if replace {
        let mut sql = Sql::default();
        sql.push_bind(
            "UPDATE pv_report_file SET is_deleted = 1 WHERE station_id = ? AND kind = ? AND period = ? AND is_deleted = 0",
            [Value::Int(station.id), Value::from(KIND_MONTHLY), Value::from(month)],
        );
        sql.execute(&mut *tx).await?;
    }
    let mut sql = Sql::default();
    let size = bytes.len() as i64;
    sql.push_bind(
        "INSERT INTO pv_report_file (id, tenant_id, station_id, kind, period, name, content, file_size, \
         create_user, create_time) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            Value::Int(id.0),
            Value::from(station.tenant_id.as_str()),
            Value::Int(station.id),
            Value::from(KIND_MONTHLY),
            Value::from(month),
            Value::from(file_name(&station.name, month)),
            Value::Bytes(bytes),
            Value::Int(size),
            user.map(Value::Int).unwrap_or(Value::Null),
            Value::Int(time::now_ms()),
        ],
    );
    match sql.execute(&mut *tx).await {
        Ok(_) => {
            tx.commit().await?;
            Ok(Some(id))
        }
        // Another replica (or run) stored this month's report first.
        Err(e) if !replace && is_unique_violation(&e) => Ok(None),
        Err(e) => Err(e),
    }
}

/// Live stations without a monthly report of their previous month.
async fn missing(core: &Core) -> Result<Vec<(StationRow, String)>, ApiError> {
    let stations = data::stations(core, &{
        let mut all = Sql::default();
        // The job acts for every tenant: no caller, every live station.
        all.push("s.is_deleted = 0");
        all
    })
    .await?;
    let mut out = Vec::new();
    for s in stations {
        let month = previous_month(today(&s));
        let mut sql = Sql::default();
        sql.push_bind(
            "SELECT COUNT(*) FROM pv_report_file WHERE station_id = ? AND kind = ? AND period = ? AND is_deleted = 0",
            [Value::Int(s.id), Value::from(KIND_MONTHLY), Value::from(month.as_str())],
        );
        if sql.scalar::<i64, _>(core.db.pool()).await? == 0 {
            out.push((s, month));
        }
    }
    Ok(out)
}

/// One pass: produces every missing monthly report. Answers how many were stored.
pub async fn run_once(core: &Core) -> Result<usize, ApiError> {
    let mut stored = 0;
    for (station, month) in missing(core).await? {
        match produce(core, &station, &month, None, false).await {
            Ok(Some(_)) => stored += 1,
            Ok(None) => {}
            Err(e) => tracing::warn!(station = station.id, %month, error = %e, "monthly report failed"),
        }
    }
    Ok(stored)
}

/// Runs [`run_once`] every `every` on one replica of a cluster at a time.
pub fn spawn(core: Core, every: Duration) -> Arc<tokio::sync::Notify> {
    let woken = Arc::new(tokio::sync::Notify::new());
    let wake = woken.clone();
    tokio::spawn(async move {
        loop {
            let Some(busy) = core.shutdown.pass() else {
                return;
            };
            match leader::run_exclusive(&core.db, JOB, run_once(&core)).await {
                Ok(Some(Ok(n))) if n > 0 => tracing::info!(stored = n, "monthly reports"),
                Ok(Some(Ok(_))) | Ok(None) => {}
                Ok(Some(Err(e))) => tracing::warn!(error = %e, "monthly report pass failed"),
                Err(e) => tracing::warn!(error = %e, "monthly reports: no leader lock"),
            }
            drop(busy);
            tokio::select! {
                _ = tokio::time::sleep(every) => {}
                _ = woken.notified() => {}
                _ = core.shutdown.stopping() => return,
            }
        }
    });
    wake
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_previous_month_and_a_safe_name() {
        let d = |s: &str| NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap();
        assert_eq!(previous_month(d("2026-01-01")), "2025-12");
        assert_eq!(previous_month(d("2026-03-31")), "2026-02");
        assert_eq!(file_name("演示/电站:1", "2026-02"), "演示电站1-2026-02.xlsx");
    }
}
