//! Raw retention: samples older than `raw_retention_days` are deleted (rollups are kept), one
//! device at a time so each DELETE uses the (device_id, ts) primary key instead of scanning.

use sqlx::Row;

use crate::kernel::db::Db;
use crate::kernel::sql::{Sql, Value};

/// Deletes raw samples older than `cutoff` (epoch ms); returns how many.
pub async fn delete_raw_before(db: &Db, cutoff: i64) -> Result<u64, sqlx::Error> {
    let devices: Vec<i64> = sqlx::query("SELECT device_id FROM pv_telemetry_latest")
        .fetch_all(db.pool())
        .await?
        .iter()
        .map(|r| r.try_get("device_id"))
        .collect::<Result<_, _>>()?;
    let mut deleted = 0;
    for d in devices {
        let mut sql = Sql::default();
        sql.push_bind(
            "DELETE FROM pv_telemetry_raw WHERE device_id = ? AND ts < ?",
            [Value::Int(d), Value::Int(cutoff)],
        );
        let (text, args) = sql.build().map_err(|e| sqlx::Error::Protocol(e.to_string()))?;
        deleted += sqlx::query_with(sqlx::AssertSqlSafe(text), args)
            .execute(db.pool())
            .await?
            .rows_affected();
    }
    Ok(deleted)
}
