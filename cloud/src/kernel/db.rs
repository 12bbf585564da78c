//! The database: SQLite (a file in the data directory) by default, PostgreSQL when the URL says
//! so. Both are reached through sqlx's `Any` driver so every query is written once; the schema
//! sticks to the subset both understand (BIGINT ids and epoch-ms times, TEXT, DOUBLE PRECISION).

use std::time::Duration;

use sqlx::any::{AnyPoolOptions, install_default_drivers};
use sqlx::migrate::Migrator;
use sqlx::{AnyPool, Executor};

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

/// Migrations live in one folder while the DDL stays in the common subset; should a back-end
/// need its own statements, the folder splits per back-end with the existing files unchanged.
static MIGRATOR: Migrator = sqlx::migrate!("./migrations");

#[derive(Clone, Debug)]
pub struct Db {
    pool: AnyPool,
    /// The connections whose commits are acknowledged to gateways (see [`Db::durable`]).
    durable: AnyPool,
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
        MIGRATOR.run(&pool).await?;
        // Connections are opened on first use: as many as ingest has writers, none without ingest.
        let durable = Self::options(backend, max_connections.max(1), true)
            .connect_lazy(url)
            .map_err(connect_error)?;
        Ok(Db {
            pool,
            durable,
            backend,
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
