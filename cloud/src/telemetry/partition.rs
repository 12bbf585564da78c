//! Partitions of the telemetry tables on PostgreSQL (SQLite has none): sample rows by UTC day,
//! packed hours and rollups by UTC month (`migrations/postgres`, where the SQL functions used
//! here live). The maintenance job creates the partitions ahead of time, and gives a partition
//! to whatever landed in the DEFAULT one (a day the job had not prepared while the hub was down,
//! a late sample), moving those rows into it: a sample is never refused for want of a partition,
//! and DEFAULT stays small (every new partition has to check it holds nothing of its range).
//! Runs from the rollup worker, once cluster-wide (`kernel::leader`); retention drops whole
//! partitions (`retention`).

use std::time::Duration;

use crate::kernel::db::{Backend, Db};
use crate::kernel::leader::{self, LeaderError};
use crate::kernel::sql::{Sql, Value};
use crate::kernel::{ApiError, Core};

/// Lock name of the job (`kernel::leader`).
pub const JOB: &str = "telemetry.partitions";

/// How often it runs, cluster-wide. Partitions exist days ahead, so an hour is plenty; the
/// first pass after a start also catches up after a long stop.
pub const EVERY: Duration = Duration::from_secs(3600);

/// Day partitions of sample rows made ahead of today.
pub const DAYS_AHEAD: i32 = 7;

/// Month partitions of packed hours and rollups made ahead of this month.
pub const MONTHS_AHEAD: i32 = 3;

/// One partitioned table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Table {
    pub name: &'static str,
    /// The partition key (epoch ms).
    pub column: &'static str,
    /// `day` or `month` (as the SQL functions spell it).
    pub grain: &'static str,
    /// Partitions made ahead of the current day or month.
    pub ahead: i32,
    /// Whether raw retention applies (rollups are kept).
    pub retained: bool,
}

pub const RAW: Table = Table {
    name: "pv_telemetry_raw",
    column: "ts",
    grain: "day",
    ahead: DAYS_AHEAD,
    retained: true,
};

pub const BLOCK: Table = Table {
    name: "pv_telemetry_block",
    column: "hour",
    grain: "month",
    ahead: MONTHS_AHEAD,
    retained: true,
};

pub const ROLLUP: Table = Table {
    name: "pv_telemetry_rollup",
    column: "bucket",
    grain: "month",
    ahead: MONTHS_AHEAD,
    retained: false,
};

pub const TABLES: [Table; 3] = [RAW, BLOCK, ROLLUP];

/// A partition and its range [lo, hi) (none for DEFAULT).
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct Partition {
    pub name: String,
    pub lo: Option<i64>,
    pub hi: Option<i64>,
}

/// What a maintenance run did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Maintained {
    /// Partitions created.
    pub created: u64,
    /// Rows moved out of DEFAULT partitions into their own.
    pub moved: u64,
}

/// One run as the worker makes it: if no replica ran it within `EVERY` and none is running it,
/// [`maintain`]. `Ok(None)` when skipped (and always on SQLite, which has nothing to do).
pub async fn run_due(state: &Core) -> Result<Option<Result<Maintained, ApiError>>, LeaderError> {
    if state.db.backend() != Backend::Postgres {
        return Ok(None);
    }
    let now = state.clock.now_ms();
    let keep_from = now - state.config.telemetry.raw_retention_days * 86_400_000;
    leader::run_exclusive_due(&state.db, JOB, EVERY, maintain(&state.db, now, keep_from)).await
}

/// Creates every table's partitions from the day (month) of `now` to `ahead` later, and one for
/// each day (month) of which DEFAULT holds rows, up to that horizon. Rows of retained tables
/// older than `keep_from` are left in DEFAULT for retention to delete (no partition is made for
/// data about to go); rows beyond the horizon (a gateway's clock far ahead) stay in DEFAULT, where
/// every reader finds them too. Nothing on SQLite.
pub async fn maintain(db: &Db, now: i64, keep_from: i64) -> Result<Maintained, ApiError> {
    let mut done = Maintained::default();
    if db.backend() != Backend::Postgres {
        return Ok(done);
    }
    let mut failed = None;
    for table in TABLES {
        let mut sql = Sql::default();
        sql.push_bind(
            "SELECT pv_partition_ahead(?, ?, ?)",
            [
                Value::from(table.grain),
                Value::Int(now),
                Value::Int(table.ahead.into()),
            ],
        );
        let ahead: Vec<i64> = sql.scalars(db.pool()).await?;
        let horizon = match ahead.last() {
            Some(&last) => next_start(db, table, last).await?,
            None => now,
        };
        let lo = if table.retained { keep_from } else { i64::MIN };
        let mut sql = Sql::default();
        sql.push_bind(
            "SELECT pv_partition_pending(?, ?, ?, ?, ?)",
            [
                Value::from(table.name),
                Value::from(table.column),
                Value::from(table.grain),
                Value::Int(lo),
                Value::Int(horizon),
            ],
        );
        let pending: Vec<i64> = sql.scalars(db.pool()).await?;
        let existing: std::collections::HashSet<i64> = partitions(db, table)
            .await?
            .into_iter()
            .filter_map(|p| p.lo)
            .collect();
        let mut starts: Vec<i64> = pending.into_iter().chain(ahead).collect();
        starts.sort_unstable();
        starts.dedup();
        for start in starts {
            // Rows of a partition's range can only reach DEFAULT while it is missing.
            if existing.contains(&start) {
                continue;
            }
            // One partition failing (a lock not had in time) does not hold up the others; the
            // next run tries it again, and meanwhile its rows wait in DEFAULT.
            match create(db, table, start).await {
                Ok(moved) if moved >= 0 => {
                    done.created += 1;
                    done.moved += moved.unsigned_abs();
                }
                Ok(_) => {}
                Err(e) => {
                    tracing::warn!(table = table.name, start, error = %e, "telemetry partition not made");
                    failed = Some(e);
                }
            }
        }
    }
    match failed {
        Some(e) => Err(e),
        None => Ok(done),
    }
}

async fn next_start(db: &Db, table: Table, start: i64) -> Result<i64, ApiError> {
    let mut sql = Sql::default();
    sql.push_bind(
        "SELECT pv_partition_next(?, ?)",
        [Value::from(table.grain), Value::Int(start)],
    );
    sql.scalar(db.pool()).await
}

/// Creates `table`'s partition starting at `start`, moving DEFAULT's rows of its range into it;
/// the rows moved, or -1 when it exists. Its own short transaction: the move holds DEFAULT
/// locked until the commit, and a lock that cannot be had soon (a long report reading the
/// table) fails this partition, which the next run makes, instead of queueing ingest behind it.
pub async fn create(db: &Db, table: Table, start: i64) -> Result<i64, ApiError> {
    let mut tx = db.begin_write().await?;
    Sql::new("SET LOCAL lock_timeout = '10s'")
        .execute(&mut *tx)
        .await?;
    let mut sql = Sql::default();
    sql.push_bind(
        "SELECT pv_partition_create(?, pv_partition_name(?, ?, ?), ?, ?, pv_partition_next(?, ?))",
        [
            Value::from(table.name),
            Value::from(table.name),
            Value::from(table.grain),
            Value::Int(start),
            Value::from(table.column),
            Value::Int(start),
            Value::from(table.grain),
            Value::Int(start),
        ],
    );
    let moved: i64 = sql.scalar(&mut *tx).await?;
    tx.commit().await?;
    Ok(moved)
}

/// `table`'s partitions in order of their range, DEFAULT last. Empty on SQLite.
pub async fn partitions(db: &Db, table: Table) -> Result<Vec<Partition>, ApiError> {
    if db.backend() != Backend::Postgres {
        return Ok(Vec::new());
    }
    let mut sql = Sql::default();
    sql.push_bind(
        "SELECT name, lo, hi FROM pv_partitions(?)",
        [Value::from(table.name)],
    );
    sql.fetch_all(db.pool()).await
}

/// Drops `table`'s partitions whose whole range lies before `cutoff` (epoch ms); returns the rows
/// they held. What straddles the cutoff, and DEFAULT, are left to row deletes. Nothing on SQLite.
pub async fn drop_before(db: &Db, table: Table, cutoff: i64) -> Result<u64, ApiError> {
    let mut dropped = 0;
    for p in partitions(db, table).await? {
        let Some(hi) = p.hi else { continue };
        if hi > cutoff {
            continue;
        }
        // Detaching locks the parent: one partition per short transaction, and a lock that
        // cannot be had soon leaves the partition to the next run rather than stall ingest.
        let mut tx = db.begin_write().await?;
        Sql::new("SET LOCAL lock_timeout = '10s'")
            .execute(&mut *tx)
            .await?;
        let mut sql = Sql::default();
        sql.push_bind(
            "SELECT pv_partition_drop(?, ?)",
            [Value::from(table.name), Value::Text(p.name.clone())],
        );
        let n: i64 = sql.scalar(&mut *tx).await?;
        tx.commit().await?;
        tracing::info!(partition = %p.name, rows = n, "telemetry partition past retention dropped");
        dropped += n.unsigned_abs();
    }
    Ok(dropped)
}

/// Deletes what DEFAULT holds of `table` before `cutoff` (rows of days that had no partition,
/// whatever their device); returns how many. Nothing on SQLite.
pub async fn prune_default(db: &Db, table: Table, cutoff: i64) -> Result<u64, ApiError> {
    if db.backend() != Backend::Postgres {
        return Ok(0);
    }
    let mut sql = Sql::default();
    sql.push_bind(
        "SELECT pv_partition_prune_default(?, ?, ?)",
        [
            Value::from(table.name),
            Value::from(table.column),
            Value::Int(cutoff),
        ],
    );
    let n: i64 = sql.scalar(db.pool()).await?;
    Ok(n.unsigned_abs())
}
