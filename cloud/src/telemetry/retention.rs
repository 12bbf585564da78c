//! Raw retention: samples older than `raw_retention_days` are deleted (rollups are kept), one
//! device at a time so each DELETE uses the (device_id, ts) primary key instead of scanning.
//! On PostgreSQL the days (months of packed hours) entirely past the cutoff go first as whole
//! partitions (`partition`), so the deletes only see the partition straddling the cutoff and
//! the DEFAULT one. The rollup worker runs it hourly, once cluster-wide (`kernel::leader`).

use std::time::Duration;

use crate::kernel::db::Db;
use crate::kernel::leader::{self, LeaderError};
use crate::kernel::sql::{Sql, Value};
use crate::kernel::{ApiError, Core};

/// Lock name of the job (`kernel::leader`).
pub const JOB: &str = "telemetry.retention";

/// How often it runs, cluster-wide.
pub const EVERY: Duration = Duration::from_secs(3600);

const DAY_MS: i64 = 86_400_000;

/// One run as the worker makes it: if no replica ran it within `EVERY` and none is running it,
/// deletes raw samples older than `raw_retention_days`. `Ok(None)` when skipped; otherwise how
/// many rows were deleted (or why not).
pub async fn run_due(state: &Core) -> Result<Option<Result<u64, ApiError>>, LeaderError> {
    let cutoff = state.clock.now_ms() - state.config.telemetry.raw_retention_days * DAY_MS;
    leader::run_exclusive_due(&state.db, JOB, EVERY, delete_raw_before(&state.db, cutoff)).await
}

/// Deletes raw samples older than `cutoff` (epoch ms) and packed hours that ended before the
/// hour holding it; returns how many rows were deleted.
pub async fn delete_raw_before(db: &Db, cutoff: i64) -> Result<u64, ApiError> {
    let devices: Vec<i64> = Sql::new("SELECT device_id FROM pv_telemetry_latest")
        .scalars::<i64, _>(db.pool())
        .await?;
    let mut deleted = super::partition::drop_before(db, super::partition::RAW, cutoff).await?;
    deleted += super::partition::prune_default(db, super::partition::RAW, cutoff).await?;
    let hour = super::raw::hour_of(cutoff);
    super::partition::drop_before(db, super::partition::BLOCK, hour).await?;
    super::partition::prune_default(db, super::partition::BLOCK, hour).await?;
    for d in devices {
        let mut sql = Sql::default();
        sql.push_bind(
            "DELETE FROM pv_telemetry_raw WHERE device_id = ? AND ts < ?",
            [Value::Int(d), Value::Int(cutoff)],
        );
        deleted += sql.execute(db.pool()).await?;
        // Packed hours go whole, once the hour is entirely past the cutoff.
        let mut sql = Sql::default();
        sql.push_bind(
            "DELETE FROM pv_telemetry_block WHERE device_id = ? AND hour < ?",
            [Value::Int(d), Value::Int(super::raw::hour_of(cutoff))],
        );
        sql.execute(db.pool()).await?;
    }
    Ok(deleted)
}
