//! The database: SQLite (a file in the data directory) by default, PostgreSQL when the URL says
//! so. Both are reached through sqlx's `Any` driver so every query is written once; the schema
//! sticks to the subset both understand (BIGINT ids and epoch-ms times, TEXT, DOUBLE PRECISION).

use std::time::Duration;

use sqlx::any::{AnyPoolOptions, install_default_drivers};
use sqlx::migrate::Migrator;
use sqlx::postgres::{PgPool, PgPoolOptions};
use sqlx::{Any, AnyPool, Executor, Transaction};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

impl Backend {
    pub fn of_url(url: &str) -> Backend {
        if url.starts_with("sqlite:") {
            Backend::Sqlite
        } else {
            Backend::Postgres
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Backend::Sqlite => "sqlite",
            Backend::Postgres => "postgres",
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum DbError {
    #[error("cannot open database {url}: {source}")]
    Connect { url: String, source: sqlx::Error },
    #[error("database migration failed: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
}

/// Brings the schema up to date: `migrations/` (the subset of DDL both back-ends understand; every
/// table is made there), then on PostgreSQL `migrations/postgres/` (what only it has, such as
/// declarative partitioning). The second folder's versions start at 10001 so the two never share a
/// number, and each migrator tolerates the other's rows in `_sqlx_migrations`.
async fn migrate(pool: &AnyPool, backend: Backend) -> Result<(), sqlx::migrate::MigrateError> {
    let mut common: Migrator = sqlx::migrate!("./migrations");
    common.set_ignore_missing(true);
    common.run(pool).await?;
    if backend == Backend::Postgres {
        let mut own: Migrator = sqlx::migrate!("./migrations/postgres");
        own.set_ignore_missing(true);
        own.run(pool).await?;
    }
    Ok(())
}

#[derive(Clone, Debug)]
pub struct Db {
    pool: AnyPool,
    /// The connections whose commits are acknowledged to gateways (see [`Db::durable`]).
    durable: AnyPool,
    /// PostgreSQL only: native connections for what the `Any` driver cannot do (COPY), with the
    /// durable pool's commit guarantee (see [`Db::pg_durable`]).
    pg_durable: Option<PgPool>,
    backend: Backend,
}

impl Db {
    /// Opens the pool and brings the schema up to date.
    pub async fn connect(url: &str, max_connections: u32) -> Result<Db, DbError> {
        install_default_drivers();
        let backend = Backend::of_url(url);
        let connect_error = |source| DbError::Connect {
            url: redact(url),
            source,
        };
        let pool = Self::options(backend, max_connections.max(1), false)
            .connect(url)
            .await
            .map_err(connect_error)?;
        migrate(&pool, backend).await?;
        // Connections are opened on first use: as many as ingest has writers, none without ingest.
        let durable = Self::options(backend, max_connections.max(1), true)
            .connect_lazy(url)
            .map_err(connect_error)?;
        let pg_durable = match backend {
            Backend::Postgres => Some(
                Self::pg_options(max_connections.max(1))
                    .connect_lazy(url)
                    .map_err(connect_error)?,
            ),
            Backend::Sqlite => None,
        };
        Ok(Db {
            pool,
            durable,
            pg_durable,
            backend,
        })
    }

    /// The native pool: `synchronous_commit` raised as on the durable pool, and each session
    /// prepared by `pv_session_prepare()` (`migrations/postgres`: per-session staging tables).
    fn pg_options(max_connections: u32) -> PgPoolOptions {
        PgPoolOptions::new()
            .max_connections(max_connections)
            .acquire_timeout(Duration::from_secs(10))
            .after_connect(|conn, _meta| {
                Box::pin(async move {
                    let mode: String = sqlx::query_scalar("SHOW synchronous_commit")
                        .fetch_one(&mut *conn)
                        .await?;
                    if mode == "off" {
                        conn.execute("SET synchronous_commit = on").await?;
                    }
                    conn.execute("SELECT pv_session_prepare()").await?;
                    Ok(())
                })
            })
    }

    fn options(backend: Backend, max_connections: u32, durable: bool) -> AnyPoolOptions {
        AnyPoolOptions::new()
            .max_connections(max_connections)
            .acquire_timeout(Duration::from_secs(10))
            .after_connect(move |conn, _meta| {
                Box::pin(async move {
                    match backend {
                        Backend::Sqlite => {
                            // WAL lets readers run beside the single writer; NORMAL sync survives a
                            // crash of the process (only an OS crash or a power cut can lose the
                            // last commits), FULL on the durable pool survives those too;
                            // busy_timeout makes writers queue instead of failing with SQLITE_BUSY.
                            conn.execute("PRAGMA journal_mode = WAL").await?;
                            conn.execute(if durable {
                                "PRAGMA synchronous = FULL"
                            } else {
                                "PRAGMA synchronous = NORMAL"
                            })
                            .await?;
                            conn.execute("PRAGMA busy_timeout = 5000").await?;
                            conn.execute("PRAGMA foreign_keys = ON").await?;
                        }
                        Backend::Postgres if durable => {
                            // A server running with `synchronous_commit = off` answers a commit
                            // before its WAL is flushed: not enough for an acknowledgement. Only
                            // `off` is raised (`local`, `remote_write`, `remote_apply` flush
                            // locally already).
                            let mode: String = sqlx::query_scalar("SHOW synchronous_commit")
                                .fetch_one(&mut *conn)
                                .await?;
                            if mode == "off" {
                                conn.execute("SET synchronous_commit = on").await?;
                            }
                        }
                        Backend::Postgres => {}
                    }
                    Ok(())
                })
            })
    }

    pub fn pool(&self) -> &AnyPool {
        &self.pool
    }

    /// The pool of commits that precede an acknowledgement to a gateway (the gateway then
    /// deletes its copy, so they must survive a power cut): SQLite `synchronous = FULL` (the WAL
    /// is synced at each commit), PostgreSQL `synchronous_commit` at least `on`. Everything else
    /// uses [`Db::pool`], whose commits need not wait for the disk. Ingest commits whole groups of
    /// batches, so this costs one sync per group, not per batch.
    pub fn durable(&self) -> &AnyPool {
        &self.durable
    }

    /// PostgreSQL's native pool with [`Db::durable`]'s guarantee, for bulk writes through COPY;
    /// `None` on SQLite. Its sessions have the staging tables of `pv_session_prepare()`.
    pub fn pg_durable(&self) -> Option<&PgPool> {
        self.pg_durable.as_ref()
    }

    /// A transaction that writes, on [`Db::pool`]. Every write transaction starts here, never with
    /// `pool().begin()`: on SQLite a deferred transaction that reads before it writes fails at once
    /// with SQLITE_BUSY when another connection commits in between (its WAL snapshot is stale and
    /// no amount of waiting helps), so a request failed with 500 whenever ingest or a job wrote at
    /// that moment. `BEGIN IMMEDIATE` takes the write lock up front, where `busy_timeout` makes it
    /// queue. PostgreSQL's row locks need nothing of the kind.
    pub async fn begin_write(&self) -> Result<Transaction<'static, Any>, sqlx::Error> {
        Self::begin_on(&self.pool, self.backend).await
    }

    /// [`Db::begin_write`] on the [`Db::durable`] pool.
    pub async fn begin_durable_write(&self) -> Result<Transaction<'static, Any>, sqlx::Error> {
        Self::begin_on(&self.durable, self.backend).await
    }

    async fn begin_on(pool: &AnyPool, backend: Backend) -> Result<Transaction<'static, Any>, sqlx::Error> {
        match backend {
            Backend::Sqlite => pool.begin_with("BEGIN IMMEDIATE").await,
            Backend::Postgres => pool.begin().await,
        }
    }

    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// What makes an acknowledged commit less than durable on this server, to be logged at start
    /// (PostgreSQL: `fsync` off, which no client can change; `synchronous_commit` off, which
    /// the durable pool raises for its own sessions). Empty on SQLite.
    pub async fn durability_warnings(&self) -> Result<Vec<String>, sqlx::Error> {
        if self.backend != Backend::Postgres {
            return Ok(Vec::new());
        }
        let fsync: String = sqlx::query_scalar("SHOW fsync").fetch_one(&self.pool).await?;
        let commit: String = sqlx::query_scalar("SHOW synchronous_commit")
            .fetch_one(&self.pool)
            .await?;
        Ok(warnings(&fsync, &commit))
    }

    pub async fn close(&self) {
        self.pool.close().await;
        self.durable.close().await;
        if let Some(pg) = &self.pg_durable {
            pg.close().await;
        }
    }
}

/// See [`Db::durability_warnings`].
fn warnings(fsync: &str, synchronous_commit: &str) -> Vec<String> {
    let mut out = Vec::new();
    if fsync == "off" {
        out.push(
            "PostgreSQL runs with fsync = off: a crash of its machine can lose telemetry the hub \
             has acknowledged (the gateways have deleted it); turn fsync on"
                .to_owned(),
        );
    }
    if synchronous_commit == "off" {
        out.push(
            "PostgreSQL runs with synchronous_commit = off: the hub turns it on for the commits \
             it acknowledges to gateways; keep it on (the server default) for the rest"
                .to_owned(),
        );
    }
    out
}

/// Hides the password of a database URL before it is logged.
pub fn redact(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            let userinfo = &url[scheme + 3..at];
            match userinfo.find(':') {
                Some(colon) => format!("{}{}:***{}", &url[..scheme + 3], &userinfo[..colon], &url[at..]),
                None => url.to_owned(),
            }
        }
        _ => url.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The race behind a 500 on `PUT /api/electricPrice` in CI: a transaction reads, another
    /// connection commits, the transaction writes. Deferred, the write failed with SQLITE_BUSY.
    #[tokio::test]
    async fn a_write_transaction_that_reads_first_outlasts_a_concurrent_writer() {
        let dir = tempfile::tempdir().expect("temp dir");
        let url = format!("sqlite://{}?mode=rwc", dir.path().join("t.db").display());
        let db = Db::connect(&url, 4).await.expect("open");
        sqlx::query("CREATE TABLE race (n BIGINT)")
            .execute(db.pool())
            .await
            .expect("table");
        let mut tx = db.begin_write().await.expect("begin");
        let before: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM race")
            .fetch_one(&mut *tx)
            .await
            .expect("read");
        let other = {
            let db = db.clone();
            tokio::spawn(async move {
                sqlx::query("INSERT INTO race (n) VALUES (2)")
                    .execute(db.pool())
                    .await
            })
        };
        // Long enough for the other writer to commit, were it allowed to.
        tokio::time::sleep(Duration::from_millis(200)).await;
        sqlx::query("INSERT INTO race (n) VALUES (1)")
            .execute(&mut *tx)
            .await
            .expect("the write after the read");
        tx.commit().await.expect("commit");
        other
            .await
            .expect("task")
            .expect("the other writer waited its turn");
        let rows: Vec<i64> = sqlx::query_scalar("SELECT n FROM race ORDER BY rowid")
            .fetch_all(db.pool())
            .await
            .expect("rows");
        assert_eq!((before, rows), (0, vec![1, 2]));
        db.close().await;
    }

    #[test]
    fn an_unsafe_postgresql_is_named_at_start() {
        assert!(warnings("on", "on").is_empty());
        assert!(warnings("on", "remote_apply").is_empty());
        let w = warnings("off", "off");
        assert_eq!(w.len(), 2);
        assert!(
            w[0].contains("fsync = off") && w[1].contains("synchronous_commit = off"),
            "{w:?}"
        );
    }

    #[test]
    fn passwords_never_reach_the_log() {
        assert_eq!(
            redact("postgres://pv:s3cret@db:5432/pv"),
            "postgres://pv:***@db:5432/pv"
        );
        assert_eq!(redact("postgres://pv@db/pv"), "postgres://pv@db/pv");
        assert_eq!(redact("sqlite://data/pv.db"), "sqlite://data/pv.db");
    }
}
