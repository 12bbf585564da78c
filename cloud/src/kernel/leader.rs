//! Cluster-wide exclusivity for periodic jobs: with several cloud replicas on one database, a
//! job such as the rollup worker, raw retention or alarm analytics must not run in two of them
//! at once (duplicated work at best, interleaved writes at worst).
//!
//! ```text
//! // Every pass of a worker: runs here unless another replica is running it right now.
//! match leader::run_exclusive(&state.db, "telemetry.rollup", rollup_pass(&state)).await {
//!     Ok(Some(result)) => { /* this replica ran it */ }
//!     Ok(None) => { /* another replica is running it: skip this pass */ }
//!     Err(e) => { /* the lock could not be asked for (database down): try again later */ }
//! }
//! // A job due once per period cluster-wide (not once per period per replica):
//! leader::run_exclusive_due(&state.db, "telemetry.retention", Duration::from_secs(3600), job).await
//! ```
//!
//! **PostgreSQL**: a session-level advisory lock (`pg_try_advisory_lock`) whose key is derived
//! from the job name, taken on a connection checked out of the pool and held by that connection
//! for the whole run; `pg_advisory_unlock` at the end. Trying never waits: the loser skips.
//! If the run is cancelled or panics, the connection is closed instead of being returned to the
//! pool, and closing the session is what releases the lock (a pooled connection still holding
//! it would block the job forever). The pool therefore needs one connection more than the job
//! itself uses.
//!
//! **SQLite**: always the leader. A SQLite file belongs to one hub process: several replicas
//! need a database server they all reach (the file is local to one machine, and SQLite's locking
//! is not reliable over network file systems), so there is no other replica to exclude.
//! Two processes pointed at one file by mistake would both run the jobs; the jobs here are
//! idempotent (rollups are recomputed from raw, retention deletes by a cutoff) and SQLite
//! serialises their writes, so that wastes work but corrupts nothing.
//!
//! **What it guarantees**: at most one holder at a time while the holder's session lives. If
//! the holder's connection drops mid-run (network, server restart) the server releases the lock
//! and another replica may start while the first one still finishes its run, so jobs must stay
//! idempotent; this is mutual exclusion for efficiency and tidiness, not a fencing token.
//! Each call is one run: leadership is not kept between runs, so when a replica dies the next
//! pass of another replica simply takes the job over.

use std::future::Future;
use std::time::Duration;

use sha2::{Digest, Sha256};
use sqlx::Row;
use sqlx::pool::PoolConnection;

use super::db::{Backend, Db};
use super::sql::{Sql, Value};
use super::time;

#[derive(Debug, thiserror::Error)]
pub enum LeaderError {
    #[error("no database connection to lock job {job}: {source}")]
    Connection { job: String, source: sqlx::Error },
    #[error("asking for the lock of job {job}: {source}")]
    Lock { job: String, source: sqlx::Error },
    #[error("reading when job {job} last ran: {source}")]
    Schedule { job: String, source: sqlx::Error },
}

/// The advisory-lock key of a job: the first 8 bytes of SHA-256 over a fixed prefix and the
/// name. Stable across builds and replicas (unlike `std`'s hasher), and the prefix keeps the
/// keys apart from advisory locks other software may take in the same database.
pub fn lock_key(job: &str) -> i64 {
    let digest = Sha256::digest(format!("pv-cloud/leader/{job}").as_bytes());
    let mut first = [0u8; 8];
    first.copy_from_slice(&digest[..8]);
    i64::from_be_bytes(first)
}

/// Holding a job's lock. Release it with `release`; dropping it without (a cancelled or
/// panicking run) closes the lock's connection, which releases the lock on the server.
pub struct Leadership {
    job: String,
    key: i64,
    /// The session holding the advisory lock (None on SQLite).
    conn: Option<PoolConnection<sqlx::Any>>,
}

impl Leadership {
    pub fn job(&self) -> &str {
        &self.job
    }

    /// Gives the lock up. Should unlocking fail, the connection is closed (which unlocks).
    pub async fn release(mut self) {
        let Some(mut conn) = self.conn.take() else {
            return;
        };
        let unlocked = sqlx::query("SELECT pg_advisory_unlock($1) AS unlocked")
            .bind(self.key)
            .fetch_one(&mut *conn)
            .await
            .and_then(|r| r.try_get::<bool, _>("unlocked"));
        if !matches!(unlocked, Ok(true)) {
            tracing::warn!(job = %self.job, result = ?unlocked, "advisory unlock failed: closing its session");
            conn.close_on_drop();
        }
    }
}

impl Drop for Leadership {
    fn drop(&mut self) {
        if let Some(conn) = self.conn.as_mut() {
            // Not released (cancelled or panicked): the session must end to free the lock.
            conn.close_on_drop();
        }
    }
}

/// Takes `job`'s lock if no one holds it; None when another replica (or another task of this
/// one) does. Never waits for the lock.
pub async fn try_lead(db: &Db, job: &str) -> Result<Option<Leadership>, LeaderError> {
    let key = lock_key(job);
    if db.backend() == Backend::Sqlite {
        return Ok(Some(Leadership {
            job: job.to_owned(),
            key,
            conn: None,
        }));
    }
    let mut conn = db
        .pool()
        .acquire()
        .await
        .map_err(|source| LeaderError::Connection {
            job: job.to_owned(),
            source,
        })?;
    let locked = sqlx::query("SELECT pg_try_advisory_lock($1) AS locked")
        .bind(key)
        .fetch_one(&mut *conn)
        .await
        .and_then(|r| r.try_get::<bool, _>("locked"));
    match locked {
        Ok(true) => Ok(Some(Leadership {
            job: job.to_owned(),
            key,
            conn: Some(conn),
        })),
        Ok(false) => Ok(None),
        Err(source) => {
            // The session's state is unknown (the lock may have been granted before the error).
            conn.close_on_drop();
            Err(LeaderError::Lock {
                job: job.to_owned(),
                source,
            })
        }
    }
}

/// Runs `run` (a future, not started until the lock is held) if this replica gets `job`'s lock;
/// `Ok(None)` without running it when another holds the lock. The lock is held until `run`
/// completes and released right after.
pub async fn run_exclusive<F, T>(db: &Db, job: &str, run: F) -> Result<Option<T>, LeaderError>
where
    F: Future<Output = T>,
{
    let Some(lead) = try_lead(db, job).await? else {
        return Ok(None);
    };
    let out = run.await;
    lead.release().await;
    Ok(Some(out))
}

/// Like `run_exclusive`, for a job due once per `every` cluster-wide: under the lock, runs
/// `run` only if no replica started a successful run within `every` (`pv_job_run`), and
/// records this run when it succeeds. `Ok(None)` when another replica holds the lock or the job
/// is not due. A run that fails, is cancelled or panics is not recorded, so the next caller
/// tries again.
pub async fn run_exclusive_due<F, T, E>(
    db: &Db,
    job: &str,
    every: Duration,
    run: F,
) -> Result<Option<Result<T, E>>, LeaderError>
where
    F: Future<Output = Result<T, E>>,
{
    let Some(lead) = try_lead(db, job).await? else {
        return Ok(None);
    };
    let schedule_error = |source| LeaderError::Schedule {
        job: job.to_owned(),
        source,
    };
    let last = match last_started(db, job).await {
        Ok(l) => l,
        Err(e) => {
            lead.release().await;
            return Err(schedule_error(e));
        }
    };
    let started = time::now_ms();
    let every_ms = i64::try_from(every.as_millis()).unwrap_or(i64::MAX);
    // A record a little in the future (another replica's clock ahead) also means "ran
    // recently"; one more than a period ahead cannot be right and is ignored.
    let recent = |l: i64| started.saturating_sub(l) < every_ms && l <= started.saturating_add(every_ms);
    if last.is_some_and(recent) {
        lead.release().await;
        return Ok(None);
    }
    let out = run.await;
    if out.is_ok()
        && let Err(e) = record(db, job, started, time::now_ms()).await
    {
        // It ran; the worst outcome of the missing record is one extra run by the next caller.
        tracing::warn!(job, error = %e, "recording a job's run");
    }
    lead.release().await;
    Ok(Some(out))
}

/// When `job` last started a successful run (epoch ms), if ever.
pub async fn last_started(db: &Db, job: &str) -> Result<Option<i64>, sqlx::Error> {
    let mut sql = Sql::default();
    sql.push_bind(
        "SELECT started_at FROM pv_job_run WHERE job = ?",
        [Value::from(job)],
    );
    let (text, args) = sql.build().map_err(|e| sqlx::Error::Protocol(e.to_string()))?;
    sqlx::query_with(sqlx::AssertSqlSafe(text), args)
        .fetch_optional(db.pool())
        .await?
        .map(|r| r.try_get::<i64, _>("started_at"))
        .transpose()
}

async fn record(db: &Db, job: &str, started: i64, finished: i64) -> Result<(), sqlx::Error> {
    let mut sql = Sql::default();
    sql.push_bind(
        "INSERT INTO pv_job_run (job, started_at, finished_at) VALUES (?,?,?) ON CONFLICT (job) \
         DO UPDATE SET started_at = excluded.started_at, finished_at = excluded.finished_at",
        [Value::from(job), Value::Int(started), Value::Int(finished)],
    );
    let (text, args) = sql.build().map_err(|e| sqlx::Error::Protocol(e.to_string()))?;
    sqlx::query_with(sqlx::AssertSqlSafe(text), args)
        .execute(db.pool())
        .await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_stable_and_distinct() {
        assert_eq!(lock_key("telemetry.rollup"), lock_key("telemetry.rollup"));
        assert_ne!(lock_key("telemetry.rollup"), lock_key("telemetry.retention"));
    }
}
