//! Backup and restore of a hub: the database and the data directory's files (uploads, report
//! files, the token secret and the key that encrypts vendor credentials), as `pv-cloud backup
//! <dir>` and `pv-cloud restore <dir>`.
//!
//! The backup runs beside a live hub. SQLite: `VACUUM INTO` writes a consistent, compacted copy
//! from one read transaction while ingest keeps writing (WAL). PostgreSQL: `pg_dump` in its custom
//! format, likewise one consistent snapshot. The files are copied after the database snapshot,
//! so every file the snapshot refers to is in the copy (a file uploaded meanwhile is merely
//! extra). The restore runs with the hub stopped, into an empty place: no SQLite file yet, or an
//! empty PostgreSQL database; the schema version travels with the data, so the next start
//! migrates as usual.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde::{Deserialize, Serialize};

use crate::config::Config;
use crate::kernel::db::{Backend, Db, DbError};
use crate::kernel::sql::{Sql, Value};

/// What a backup folder holds besides the data: which back-end wrote it, and when.
const MANIFEST: &str = "backup.json";
const SQLITE_FILE: &str = "pv.db";
const PG_DUMP_FILE: &str = "pv.dump";
/// The data directory's files, as they were.
const FILES_DIR: &str = "data";

#[derive(Debug, thiserror::Error)]
pub enum BackupError {
    #[error(transparent)]
    Db(#[from] DbError),
    #[error("database: {0}")]
    Sql(String),
    #[error("{path}: {source}")]
    Io { path: String, source: std::io::Error },
    #[error("{0}")]
    Refused(String),
    #[error("{tool} failed ({status}); is it installed (Debian package postgresql-client) and on PATH?")]
    Tool { tool: String, status: String },
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Manifest {
    backend: String,
    version: String,
    created_ms: i64,
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> BackupError + '_ {
    move |source| BackupError::Io {
        path: path.display().to_string(),
        source,
    }
}

/// The SQLite file a `sqlite:` URL names.
fn sqlite_path(url: &str) -> PathBuf {
    let rest = url
        .strip_prefix("sqlite://")
        .or_else(|| url.strip_prefix("sqlite:"))
        .unwrap_or(url);
    PathBuf::from(rest.split('?').next().unwrap_or(rest))
}

/// Writes a backup of the hub configured by `config` into `dir` (created; must hold no backup).
pub async fn backup(config: &Config, dir: &Path) -> Result<(), BackupError> {
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    if dir.join(MANIFEST).exists() {
        return Err(BackupError::Refused(format!(
            "{} already holds a backup",
            dir.display()
        )));
    }
    let url = config.effective_database_url();
    let backend = Backend::of_url(&url);
    match backend {
        Backend::Sqlite => {
            let db = Db::connect(&url, 1).await?;
            let target = dir.join(SQLITE_FILE);
            let result = Sql::new("VACUUM INTO ")
                .push_bind("?", [Value::Text(target.display().to_string())])
                .execute(db.pool())
                .await;
            db.close().await;
            result.map_err(|e| BackupError::Sql(e.to_string()))?;
        }
        Backend::Postgres => {
            let target = dir.join(PG_DUMP_FILE);
            run(Command::new("pg_dump")
                .arg("--format=custom")
                .arg("--file")
                .arg(&target)
                .arg("--dbname")
                .arg(&url))?;
        }
    }
    let skip = skipped_files(config, &url);
    copy_tree(&config.data_dir, &dir.join(FILES_DIR), &skip)?;
    let manifest = Manifest {
        backend: backend.name().into(),
        version: env!("CARGO_PKG_VERSION").into(),
        created_ms: crate::kernel::time::now_ms(),
    };
    let text = serde_json::to_string_pretty(&manifest).map_err(|e| BackupError::Sql(e.to_string()))?;
    let path = dir.join(MANIFEST);
    std::fs::write(&path, text).map_err(io(&path))?;
    Ok(())
}

/// Puts the backup in `dir` back for the hub configured by `config`, which must not run.
pub async fn restore(config: &Config, dir: &Path) -> Result<(), BackupError> {
    let path = dir.join(MANIFEST);
    let text = std::fs::read_to_string(&path).map_err(io(&path))?;
    let manifest: Manifest =
        serde_json::from_str(&text).map_err(|e| BackupError::Refused(format!("{}: {e}", path.display())))?;
    let url = config.effective_database_url();
    let backend = Backend::of_url(&url);
    if manifest.backend != backend.name() {
        return Err(BackupError::Refused(format!(
            "the backup is of a {} database, the configuration names {}",
            manifest.backend,
            backend.name()
        )));
    }
    std::fs::create_dir_all(&config.data_dir).map_err(io(&config.data_dir))?;
    match backend {
        Backend::Sqlite => {
            let target = sqlite_path(&url);
            if target.exists() {
                return Err(BackupError::Refused(format!(
                    "{} exists: move it aside first (a restore never overwrites a database)",
                    target.display()
                )));
            }
            // A journal left by a database that was removed by hand would be replayed into the
            // restored one.
            for stale in ["-wal", "-shm"] {
                let mut p = target.clone().into_os_string();
                p.push(stale);
                let _ = std::fs::remove_file(PathBuf::from(p));
            }
            if let Some(parent) = target.parent() {
                std::fs::create_dir_all(parent).map_err(io(parent))?;
            }
            let source = dir.join(SQLITE_FILE);
            std::fs::copy(&source, &target).map_err(io(&source))?;
        }
        Backend::Postgres => {
            run(Command::new("pg_restore")
                .args(["--no-owner", "--no-privileges", "--exit-on-error"])
                .arg("--dbname")
                .arg(&url)
                .arg(dir.join(PG_DUMP_FILE)))?;
        }
    }
    copy_tree(&dir.join(FILES_DIR), &config.data_dir, &[])?;
    Ok(())
}

/// The SQLite database and its journal, when they live in the data directory: the snapshot
/// stands for them (a copy of a live file would be torn).
fn skipped_files(config: &Config, url: &str) -> Vec<PathBuf> {
    if Backend::of_url(url) != Backend::Sqlite {
        return Vec::new();
    }
    let db = sqlite_path(url);
    ["", "-wal", "-shm", "-journal"]
        .iter()
        .map(|suffix| {
            let mut p = db.clone().into_os_string();
            p.push(suffix);
            PathBuf::from(p)
        })
        .filter_map(|p| {
            let name = p.file_name()?.to_owned();
            Some(config.data_dir.join(name))
        })
        .collect()
}

/// Copies the regular files under `from` into `to`, keeping the layout.
fn copy_tree(from: &Path, to: &Path, skip: &[PathBuf]) -> Result<(), BackupError> {
    if !from.exists() {
        return Ok(());
    }
    std::fs::create_dir_all(to).map_err(io(to))?;
    for entry in std::fs::read_dir(from).map_err(io(from))? {
        let entry = entry.map_err(io(from))?;
        let path = entry.path();
        if skip.contains(&path) {
            continue;
        }
        let kind = entry.file_type().map_err(io(&path))?;
        let target = to.join(entry.file_name());
        if kind.is_dir() {
            copy_tree(&path, &target, skip)?;
        } else if kind.is_file() {
            std::fs::copy(&path, &target).map_err(io(&path))?;
        }
    }
    Ok(())
}

fn run(command: &mut Command) -> Result<(), BackupError> {
    let tool = command.get_program().to_string_lossy().into_owned();
    let status = command.status().map_err(|e| BackupError::Tool {
        tool: tool.clone(),
        status: e.to_string(),
    })?;
    if status.success() {
        Ok(())
    } else {
        Err(BackupError::Tool {
            tool,
            status: status.to_string(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sqlite_file_is_read_from_either_url_form() {
        assert_eq!(
            sqlite_path("sqlite:///d/pv.db?mode=rwc"),
            PathBuf::from("/d/pv.db")
        );
        assert_eq!(sqlite_path("sqlite:data/pv.db"), PathBuf::from("data/pv.db"));
    }
}
