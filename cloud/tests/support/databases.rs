//! Test databases on PostgreSQL: each test's hub gets a fresh one, and it is dropped again once
//! no hub of the test has used it for a while. Without this, a run of the whole suite left a few
//! hundred databases (about 10 MB each) on the server until it stopped, and on a CI machine
//! short of disk `CREATE DATABASE` then failed with "No space left on device".
//!
//! Every [`TestApp`](super::TestApp) on a database this process created holds a [`DbUse`]:
//! replicas and a hub restarted on the same URL take their own. When the last one goes, the
//! database waits [`GRACE`] (a test that stops a hub and starts another on the same database must
//! not lose it in between) and is then dropped by a background thread. The drop never forces:
//! while anything (a child process, a pool not yet closed) is still connected PostgreSQL refuses
//! and the thread tries again later. Databases a test creates for its own processes through
//! [`fresh_database_url`](super::fresh_database_url) are not tracked and stay until the server stops.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use sqlx::{AssertSqlSafe, Connection};

/// How long an unused database is kept before it is dropped.
const GRACE: Duration = Duration::from_secs(60);
const SWEEP_EVERY: Duration = Duration::from_secs(5);

struct Tracked {
    name: String,
    admin_url: String,
    users: usize,
    idle_since: Option<Instant>,
}

fn registry() -> &'static Mutex<HashMap<String, Tracked>> {
    static REGISTRY: OnceLock<Mutex<HashMap<String, Tracked>>> = OnceLock::new();
    REGISTRY.get_or_init(|| {
        std::thread::Builder::new()
            .name("test-db-reaper".into())
            .spawn(sweep_forever)
            .expect("start the test database reaper");
        Mutex::new(HashMap::new())
    })
}

fn lock() -> std::sync::MutexGuard<'static, HashMap<String, Tracked>> {
    // A test that panicked while holding the lock must not stop the others from cleaning up.
    registry().lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Tracks a database this process created at `url` (named `name` on the server at `admin_url`).
pub fn track(url: &str, name: &str, admin_url: &str) {
    lock().insert(
        url.to_owned(),
        Tracked {
            name: name.to_owned(),
            admin_url: admin_url.to_owned(),
            users: 0,
            idle_since: Some(Instant::now()),
        },
    );
}

/// A hub's use of a tracked database; `None` for SQLite and untracked databases.
pub struct DbUse {
    url: String,
}

pub fn acquire(url: &str) -> Option<DbUse> {
    let mut tracked = lock();
    let entry = tracked.get_mut(url)?;
    entry.users += 1;
    entry.idle_since = None;
    Some(DbUse { url: url.to_owned() })
}

impl Drop for DbUse {
    fn drop(&mut self) {
        if let Some(entry) = lock().get_mut(&self.url) {
            entry.users = entry.users.saturating_sub(1);
            if entry.users == 0 {
                entry.idle_since = Some(Instant::now());
            }
        }
    }
}

fn sweep_forever() {
    let Ok(runtime) = tokio::runtime::Builder::new_current_thread().enable_all().build() else {
        return;
    };
    loop {
        std::thread::sleep(SWEEP_EVERY);
        let due: Vec<(String, String, String)> = lock()
            .iter()
            .filter(|(_, t)| t.users == 0 && t.idle_since.is_some_and(|s| s.elapsed() >= GRACE))
            .map(|(url, t)| (url.clone(), t.name.clone(), t.admin_url.clone()))
            .collect();
        for (url, name, admin_url) in due {
            let dropped = runtime.block_on(drop_database(&admin_url, &name));
            let mut tracked = lock();
            let Some(entry) = tracked.get_mut(&url) else {
                continue;
            };
            if entry.users > 0 {
                continue;
            }
            if dropped {
                tracked.remove(&url);
            } else {
                // Still connected (or the server was busy): try again after another grace period.
                entry.idle_since = Some(Instant::now());
            }
        }
    }
}

async fn drop_database(admin_url: &str, name: &str) -> bool {
    let Ok(mut conn) = sqlx::PgConnection::connect(admin_url).await else {
        return false;
    };
    let dropped = sqlx::query(AssertSqlSafe(format!("DROP DATABASE IF EXISTS {name}")))
        .execute(&mut conn)
        .await
        .is_ok();
    let _ = conn.close().await;
    dropped
}
