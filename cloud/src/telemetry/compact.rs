//! Compaction: hours that ended at least `GRACE_MS` ago move from the row table
//! (`pv_telemetry_raw`, where ingest writes) into one compressed block per device and hour
//! (`pv_telemetry_block`, `block`). Runs from the rollup worker, once cluster-wide
//! (`kernel::leader`).
//!
//! Nothing is lost or doubled: each hour is packed in one transaction that deletes the hour's
//! rows with `DELETE ... RETURNING` (so exactly the rows it packs leave the table, even if
//! ingest stores a late sample meanwhile on PostgreSQL), merges them into the hour's block if
//! one exists (a late sample for a packed hour), and writes the block. A replayed sample that
//! was already packed is dropped by the merge, the packed copy winning.

use std::time::Duration;

use sqlx::Row;

use super::block;
use super::raw::{HOUR_MS, hour_of, sample_of_row};
use crate::kernel::db::Db;
use crate::kernel::leader::{self, LeaderError};
use crate::kernel::sql::{Sql, Value};
use crate::kernel::{ApiError, Core};

/// Lock name of the job (`kernel::leader`).
pub const JOB: &str = "telemetry.compact";

/// How often it runs, cluster-wide.
pub const EVERY: Duration = Duration::from_secs(600);

/// An hour is packed once it ended this long ago: most late samples (a gateway's backlog after a
/// short outage) still land in the row table; later ones are merged into the block.
pub const GRACE_MS: i64 = 15 * 60_000;

/// What a run packed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Packed {
    /// Blocks written (new or merged).
    pub blocks: u64,
    /// Rows moved from the row table.
    pub samples: u64,
}

/// One run as the worker makes it: if no replica ran it within `EVERY` and none is running it,
/// packs every hour that ended `GRACE_MS` ago. `Ok(None)` when skipped.
pub async fn run_due(state: &Core) -> Result<Option<Result<Packed, ApiError>>, LeaderError> {
    let cutoff = state.clock.now_ms() - GRACE_MS;
    leader::run_exclusive_due(&state.db, JOB, EVERY, compact_before(&state.db, cutoff)).await
}

/// Packs every hour that ends at or before `cutoff` (epoch ms).
pub async fn compact_before(db: &Db, cutoff: i64) -> Result<Packed, ApiError> {
    let cutoff = hour_of(cutoff);
    let mut sql = Sql::default();
    sql.push_bind(
        "SELECT device_id, MIN(ts) AS first FROM pv_telemetry_raw WHERE ts < ? GROUP BY device_id",
        [Value::Int(cutoff)],
    );
    let starts: Vec<(i64, i64)> = sql
        .rows(db.pool())
        .await?
        .iter()
        .map(|r| Ok((r.try_get("device_id")?, r.try_get("first")?)))
        .collect::<Result<_, ApiError>>()?;
    let mut done = Packed::default();
    for (device, first) in starts {
        let mut hour = hour_of(first);
        while hour < cutoff {
            let n = pack_hour(db, device, hour).await?;
            if n > 0 {
                done.blocks += 1;
                done.samples += n;
            }
            // The next hour of this device that has rows, skipping empty ones.
            let mut sql = Sql::default();
            sql.push_bind(
                "SELECT MIN(ts) FROM pv_telemetry_raw WHERE device_id = ? AND ts >= ? AND ts < ?",
                [Value::Int(device), Value::Int(hour + HOUR_MS), Value::Int(cutoff)],
            );
            match sql.scalar::<Option<i64>, _>(db.pool()).await? {
                Some(ts) => hour = hour_of(ts),
                None => break,
            }
        }
    }
    Ok(done)
}

/// Packs the rows of one device and hour into its block; returns how many rows moved.
pub async fn pack_hour(db: &Db, device: i64, hour: i64) -> Result<u64, ApiError> {
    let mut tx = db.begin_write().await?;
    let mut sql = Sql::default();
    sql.push_bind(
        "DELETE FROM pv_telemetry_raw WHERE device_id = ? AND ts >= ? AND ts < ? \
         RETURNING ts, seq, metrics, suspect, tenant_id, station_id",
        [Value::Int(device), Value::Int(hour), Value::Int(hour + HOUR_MS)],
    );
    let rows = sql.rows(&mut *tx).await?;
    let Some(last) = rows.last() else {
        tx.rollback().await?;
        return Ok(0);
    };
    let tenant: String = last.try_get("tenant_id")?;
    let station: i64 = last.try_get("station_id")?;
    let newer = rows.iter().map(sample_of_row).collect::<Result<Vec<_>, _>>()?;
    let moved = newer.len() as u64;

    let mut sql = Sql::default();
    sql.push_bind(
        "SELECT data FROM pv_telemetry_block WHERE device_id = ? AND hour = ?",
        [Value::Int(device), Value::Int(hour)],
    );
    let packed = match sql.scalar_optional::<Vec<u8>, _>(&mut *tx).await? {
        Some(data) => block::decode(&data)?,
        None => Vec::new(),
    };
    let samples = block::merge(packed, newer);
    let (Some(first), Some(last)) = (samples.first(), samples.last()) else {
        tx.rollback().await?;
        return Ok(0);
    };
    let (first_ts, last_ts, count) = (first.ts, last.ts, samples.len() as i64);
    // Kept beside the block so the device overview sums a day of them without opening any.
    let suspect = samples.iter().filter(|s| s.suspect.is_some()).count() as i64;
    let data = block::encode(&samples)?;

    let mut sql = Sql::default();
    sql.push_bind(
        "INSERT INTO pv_telemetry_block (device_id, hour, tenant_id, station_id, samples, first_ts, \
         last_ts, data, suspect_samples) VALUES (?,?,?,?,?,?,?,?,?) ON CONFLICT (device_id, hour) DO UPDATE SET \
         tenant_id = excluded.tenant_id, station_id = excluded.station_id, samples = excluded.samples, \
         first_ts = excluded.first_ts, last_ts = excluded.last_ts, data = excluded.data, \
         suspect_samples = excluded.suspect_samples",
        [
            Value::Int(device),
            Value::Int(hour),
            Value::Text(tenant),
            Value::Int(station),
            Value::Int(count),
            Value::Int(first_ts),
            Value::Int(last_ts),
            Value::Bytes(data),
            Value::Int(suspect),
        ],
    );
    sql.execute(&mut *tx).await?;
    tx.commit().await?;
    Ok(moved)
}
