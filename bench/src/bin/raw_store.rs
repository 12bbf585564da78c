//! The storage step of ingest alone: how many raw samples per second one writer stores as
//! groups, through the multi-row INSERTs of `store::write_group` and, on PostgreSQL, through
//! COPY into the staging table (`store_pg::write_group`), on a fresh database with the hub's
//! schema (partitioned on PostgreSQL). Each group is also stored a second time (a replay), which
//! must insert nothing. Samples carry `BENCH_METRICS` metrics as ingest stores them (JSON text).
//!
//! Knobs: BENCH_DATABASE_URL (empty: SQLite file in a temp dir; `postgres://...`: a fresh
//! database is created on it), BENCH_GROUPS (40), BENCH_GROUP_ROWS (12 800: 64 batches of 200,
//! the writer's default group), BENCH_DEVICES (1 000), BENCH_METRICS (30).

use pv_cloud::kernel::db::Db;
use pv_cloud::telemetry::store::{self, RawRow};
use pv_cloud::telemetry::store_pg;

fn knob<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn group(g: usize, rows: usize, devices: usize, metrics: usize, base: i64) -> Vec<RawRow> {
    (0..rows)
        .map(|i| {
            let n = g * rows + i;
            let values: serde_json::Map<String, serde_json::Value> = (0..metrics)
                .map(|m| (format!("metric_{m}"), serde_json::json!((n * 7 + m) as f64 * 0.1)))
                .collect();
            RawRow {
                device_id: (n % devices) as i64 + 1,
                ts: base + (n / devices) as i64 * 1_000,
                tenant_id: "000000".into(),
                station_id: 1,
                seq: n as i64,
                metrics: serde_json::Value::Object(values).to_string(),
                suspect: None,
            }
        })
        .collect()
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let groups: usize = knob("BENCH_GROUPS", 40);
    let rows: usize = knob("BENCH_GROUP_ROWS", 12_800);
    let devices: usize = knob("BENCH_DEVICES", 1_000);
    let metrics: usize = knob("BENCH_METRICS", 30);
    let db_url: String = knob("BENCH_DATABASE_URL", String::new());
    let dir = tempfile::tempdir()?;
    sqlx::any::install_default_drivers();
    let url = if db_url.starts_with("postgres") {
        let name = format!("pv_bench_raw_{}", std::process::id());
        let pool = sqlx::AnyPool::connect(&db_url).await?;
        sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
            .execute(&pool)
            .await?;
        pool.close().await;
        format!(
            "{}/{name}",
            db_url.rsplit_once('/').map(|(b, _)| b).unwrap_or(&db_url)
        )
    } else {
        format!("sqlite://{}?mode=rwc", dir.path().join("pv.db").display())
    };
    let db = Db::connect(&url, 4).await?;
    let backend = db.backend().name();
    let hist = prometheus_client::metrics::histogram::Histogram::new([1.0]);
    let now = pv_cloud::kernel::time::now_ms();
    let mut paths = vec!["insert"];
    if db.pg_durable().is_some() {
        paths.push("copy");
    }
    for (p, path) in paths.iter().enumerate() {
        // Each path its own hour of the same day (so the same partition), newer than the other's.
        let base = now - 3_600_000 * (2 - p as i64);
        let data: Vec<Vec<RawRow>> = (0..groups)
            .map(|g| group(g, rows, devices, metrics, base))
            .collect();
        let mut stored = 0;
        let mut replayed = 0;
        let mut took = std::time::Duration::ZERO;
        let mut replay_took = std::time::Duration::ZERO;
        for (g, raws) in data.iter().enumerate() {
            for replay in [false, true] {
                let started = std::time::Instant::now();
                let n = match (*path, db.pg_durable()) {
                    ("copy", Some(pg)) => {
                        store_pg::write_group(pg, raws, &[], &[], g as i64, now, &hist).await?
                    }
                    _ => store::write_group(&db, 500, raws, &[], &[], g as i64, now, &hist).await?,
                };
                if replay {
                    replay_took += started.elapsed();
                    replayed += n;
                } else {
                    took += started.elapsed();
                    stored += n;
                }
            }
        }
        let total = (groups * rows) as u64;
        anyhow::ensure!(
            stored == total && replayed == 0,
            "{path}: stored {stored} of {total}, replay added {replayed}"
        );
        let per_s = total as f64 / took.as_secs_f64();
        println!("raw_store_{backend}_{path}_samples_per_s {per_s:.0} samples/s");
        println!(
            "raw_store_{backend}_{path}_points_per_s {:.0} points/s",
            per_s * metrics as f64
        );
        println!(
            "raw_store_{backend}_{path}_replay_samples_per_s {:.0} samples/s",
            total as f64 / replay_took.as_secs_f64()
        );
    }
    db.close().await;
    Ok(())
}
