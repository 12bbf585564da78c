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
    backend: Backend,
}

impl Db {
    /// Opens the pool and brings the schema up to date.
    pub async fn connect(url: &str, max_connections: u32) -> Result<Db, DbError> {
        install_default_drivers();
        let backend = Backend::of_url(url);
        let options = AnyPoolOptions::new()
            .max_connections(max_connections.max(1))
            .acquire_timeout(Duration::from_secs(10))
            .after_connect(move |conn, _meta| {
                Box::pin(async move {
                    if backend == Backend::Sqlite {
                        // WAL lets readers run beside the single writer; NORMAL sync is durable
                        // across process crashes (only an OS crash can lose the last commits);
                        // busy_timeout makes writers queue instead of failing with SQLITE_BUSY.
                        conn.execute("PRAGMA journal_mode = WAL").await?;
                        conn.execute("PRAGMA synchronous = NORMAL").await?;
                        conn.execute("PRAGMA busy_timeout = 5000").await?;
                        conn.execute("PRAGMA foreign_keys = ON").await?;
                    }
                    Ok(())
                })
            });
        let pool = options.connect(url).await.map_err(|source| DbError::Connect {
            url: redact(url),
            source,
        })?;
        MIGRATOR.run(&pool).await?;
        Ok(Db { pool, backend })
    }

    pub fn pool(&self) -> &AnyPool {
        &self.pool
    }

    pub fn backend(&self) -> Backend {
        self.backend
    }

    pub async fn close(&self) {
        self.pool.close().await;
    }
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
    fn passwords_never_reach_the_log() {
        assert_eq!(
            redact("postgres://pv:s3cret@db:5432/pv"),
            "postgres://pv:***@db:5432/pv"
        );
        assert_eq!(redact("postgres://pv@db/pv"), "postgres://pv@db/pv");
        assert_eq!(redact("sqlite://data/pv.db"), "sqlite://data/pv.db");
    }
}
