//! Compact raw storage (issue 19): bytes per point on disk after a day of 1-second data, and the
//! day-curve read time, on the hub's own schema and code.
//!
//! A day of samples (`BENCH_DEVICES` inverters × `BENCH_HOURS` hours × 3600 samples of
//! `BENCH_METRICS` metrics) is written hour by hour as ingest writes it (multi-row INSERTs into
//! `pv_telemetry_raw`, metrics as JSON), and each closed hour is packed by the hub's compaction
//! (`telemetry::compact::compact_before`), as the worker does in production. Then:
//! - `bytes_per_point_on_disk`: SQLite, the database file after `wal_checkpoint(TRUNCATE)` and
//!   `VACUUM` / PostgreSQL, `pg_total_relation_size` of the raw and block tables (heap, TOAST
//!   and indexes) after `VACUUM`; `..._without_indexes`: the same less the primary-key indexes;
//!   `block_payload_bytes_per_point`: the blocks' own bytes.
//! - `day_curve_ms_p50/p99`: the raw path of a day curve (`telemetry::raw::slot_means`, what
//!   `listWaveTag` reads when no rollup covers the day, the worst case) of one device and two
//!   metrics, over `BENCH_READS` random devices.
//!
//! The values are what inverters report: each metric a register scaled to its resolution
//! (0.1 V, 0.01 A, 1 W, 0.01 Hz, 0.1 °C, 0.001 power factor, counters in Wh), following a
//! daylight curve with per-second noise of a few units of resolution. Knobs: BENCH_DEVICES (100),
//! BENCH_HOURS (24), BENCH_METRICS (30), BENCH_READS (200), BENCH_DATABASE_URL (empty: SQLite
//! file in a temp dir; `postgres://...`: a fresh database on that server).

use std::time::{Duration, Instant};

use pv_bench::{figure, knob, percentile_ms};
use pv_cloud::kernel::db::Db;
use pv_cloud::kernel::sql::{Sql, Value};
use pv_cloud::telemetry::{compact, raw};

const HOUR_MS: i64 = 3_600_000;
const TENANT: &str = "000000";

/// A small deterministic generator (xorshift64*), so every run stores the same data.
struct Noise(u64);

impl Noise {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64
    }
    /// Noise in [-n, n] units.
    fn units(&mut self, n: f64) -> f64 {
        (self.next() * 2.0 - 1.0) * n
    }
}

/// Rounds to a register's resolution the way a device's integer times its scale does.
fn q(v: f64, places: i32) -> f64 {
    let p = 10f64.powi(places);
    (v * p).round() / p
}

/// One device's state across the day.
struct Inverter {
    noise: Noise,
    energy_wh: f64,
    temp: f64,
    rated_w: f64,
}

impl Inverter {
    /// The metrics of one sample at `sec` seconds after local midnight.
    fn sample(&mut self, sec: i64, metrics: usize) -> serde_json::Map<String, serde_json::Value> {
        let h = sec as f64 / 3600.0;
        let sun = if (6.0..18.0).contains(&h) {
            (std::f64::consts::PI * (h - 6.0) / 12.0).sin().max(0.0)
        } else {
            0.0
        };
        let n = &mut self.noise;
        let power = q((self.rated_w * sun * (1.0 + n.units(0.002))).max(0.0), 0);
        self.energy_wh += power / 3600.0;
        self.temp += (25.0 + 30.0 * sun - self.temp) / 600.0;
        let mut m = serde_json::Map::new();
        fn put(m: &mut serde_json::Map<String, serde_json::Value>, k: String, v: f64) {
            m.insert(k, serde_json::json!(v));
        }
        let strings = 4;
        for s in 1..=strings {
            let v = if sun > 0.0 {
                580.0 + 60.0 * sun + n.units(0.3)
            } else {
                0.0
            };
            put(&mut m, format!("pv{s}_voltage"), q(v, 1));
            let i = if v > 0.0 { power / strings as f64 / v } else { 0.0 };
            put(&mut m, format!("pv{s}_current"), q(i + n.units(0.01), 2).max(0.0));
        }
        for p in ["a", "b", "c"] {
            put(&mut m, format!("voltage_{p}"), q(230.0 + n.units(0.4), 1));
            put(
                &mut m,
                format!("current_{p}"),
                q(power / 3.0 / 230.0 + n.units(0.01), 2).max(0.0),
            );
        }
        put(&mut m, "ac_power".into(), power);
        put(&mut m, "dc_power".into(), q(power * 1.02, 0));
        put(&mut m, "reactive_power".into(), q(n.units(20.0), 0));
        put(&mut m, "apparent_power".into(), q(power * 1.001, 0));
        put(&mut m, "power_factor".into(), q(0.998 + n.units(0.001), 3));
        put(&mut m, "frequency".into(), q(50.0 + n.units(0.02), 2));
        put(
            &mut m,
            "energy_total".into(),
            (self.energy_wh / 10.0).floor() * 10.0,
        );
        put(
            &mut m,
            "energy_today".into(),
            (self.energy_wh / 100.0).floor() * 100.0,
        );
        put(
            &mut m,
            "internal_temperature".into(),
            q(self.temp + n.units(0.1), 1),
        );
        put(
            &mut m,
            "heatsink_temperature".into(),
            q(self.temp + 5.0 + n.units(0.1), 1),
        );
        put(&mut m, "insulation_resistance".into(), 3000.0);
        put(
            &mut m,
            "efficiency".into(),
            if sun > 0.0 { q(98.0 + n.units(0.2), 2) } else { 0.0 },
        );
        put(
            &mut m,
            "status_code".into(),
            if sun > 0.0 { 512.0 } else { 40960.0 },
        );
        put(&mut m, "alarm_code".into(), 0.0);
        put(&mut m, "derating".into(), 100.0);
        put(
            &mut m,
            "bus_voltage".into(),
            q(if sun > 0.0 { 720.0 + n.units(0.5) } else { 0.0 }, 1),
        );
        for k in m.len()..metrics {
            put(&mut m, format!("extra_{k}"), q(n.units(1.0), 1));
        }
        while m.len() > metrics {
            let last = m.keys().next_back().cloned().unwrap_or_default();
            m.remove(&last);
        }
        m
    }
}

async fn insert_rows(db: &Db, rows: &[(i64, i64, i64, String)]) -> anyhow::Result<()> {
    // As ingest does: multi-row INSERT, idempotent on (device_id, ts).
    for chunk in rows.chunks(500) {
        let mut sql = Sql::new(
            "INSERT INTO pv_telemetry_raw (device_id, ts, tenant_id, station_id, seq, metrics) VALUES ",
        );
        let mut first = true;
        for (device, ts, seq, metrics) in chunk {
            sql.push_bind(
                if first { "(?,?,?,?,?,?)" } else { ",(?,?,?,?,?,?)" },
                [
                    Value::Int(*device),
                    Value::Int(*ts),
                    Value::from(TENANT),
                    Value::Int(1),
                    Value::Int(*seq),
                    Value::Text(metrics.clone()),
                ],
            );
            first = false;
        }
        sql.push(" ON CONFLICT (device_id, ts) DO NOTHING");
        // As ingest does since 2026-11-26: numbered marks bind in quadratic time on SQLite.
        if db.backend() == pv_cloud::kernel::db::Backend::Sqlite {
            sql.anonymous_marks();
        }
        let mut tx = db.begin_write().await?;
        sql.execute(&mut *tx).await.map_err(|e| anyhow::anyhow!("{e}"))?;
        tx.commit().await?;
    }
    Ok(())
}

async fn scalar(db: &Db, text: &str) -> anyhow::Result<i64> {
    Sql::new(text)
        .scalar::<i64, _>(db.pool())
        .await
        .map_err(|e| anyhow::anyhow!("{e}"))
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let devices: i64 = knob("BENCH_DEVICES", 100);
    let hours: i64 = knob("BENCH_HOURS", 24);
    let metrics: usize = knob("BENCH_METRICS", 30);
    let reads: usize = knob("BENCH_READS", 200);
    let db_url: String = knob("BENCH_DATABASE_URL", String::new());

    let dir = tempfile::tempdir()?;
    let sqlite_file = dir.path().join("pv.db");
    let (url, backend) = if db_url.starts_with("postgres") {
        sqlx::any::install_default_drivers();
        let name = format!("pv_bench_compact_{}", std::process::id());
        let pool = sqlx::AnyPool::connect(&db_url).await?;
        sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
            .execute(&pool)
            .await?;
        pool.close().await;
        let base = db_url.rsplit_once('/').map(|(b, _)| b).unwrap_or(&db_url);
        (format!("{base}/{name}"), "postgres")
    } else {
        (format!("sqlite://{}?mode=rwc", sqlite_file.display()), "sqlite")
    };
    let db = Db::connect(&url, 4).await?;
    eprintln!("compact_storage: {backend}, {devices} devices × {hours} h × 3600 samples × {metrics} metrics");

    // Local midnight two days back, so every hour is closed.
    let now = pv_cloud::kernel::time::now_ms();
    let day0 = (now / 86_400_000 - 2) * 86_400_000;
    let mut fleet: Vec<Inverter> = (0..devices)
        .map(|d| Inverter {
            noise: Noise(0x9E37_79B9_7F4A_7C15 ^ (d as u64 + 1)),
            energy_wh: 10_000_000.0 + d as f64 * 1000.0,
            temp: 20.0,
            rated_w: 50_000.0 + (d % 7) as f64 * 5000.0,
        })
        .collect();
    let device_id = |d: i64| 1_000_000 + d;

    let (mut write_time, mut pack_time) = (Duration::ZERO, Duration::ZERO);
    let mut packed = 0u64;
    for h in 0..hours {
        let mut rows = Vec::with_capacity((devices * 3600) as usize);
        for sec in h * 3600..(h + 1) * 3600 {
            for (d, inv) in fleet.iter_mut().enumerate() {
                let m = inv.sample(sec, metrics);
                rows.push((
                    device_id(d as i64),
                    day0 + sec * 1000,
                    sec,
                    serde_json::to_string(&m)?,
                ));
            }
        }
        let t = Instant::now();
        insert_rows(&db, &rows).await?;
        write_time += t.elapsed();
        let t = Instant::now();
        let done = compact::compact_before(&db, day0 + (h + 1) * HOUR_MS)
            .await
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        pack_time += t.elapsed();
        packed += done.samples;
        eprintln!(
            "hour {h}: {} samples packed into {} blocks",
            done.samples, done.blocks
        );
    }
    let samples = (devices * hours * 3600) as f64;
    let points = samples * metrics as f64;
    anyhow::ensure!(packed as f64 == samples, "packed {packed} of {samples} samples");
    let left = scalar(&db, "SELECT COUNT(*) FROM pv_telemetry_raw").await?;
    anyhow::ensure!(left == 0, "{left} rows left unpacked");

    let payload = scalar(
        &db,
        "SELECT CAST(SUM(LENGTH(data)) AS BIGINT) FROM pv_telemetry_block",
    )
    .await?;
    let (on_disk, without_indexes) = if backend == "sqlite" {
        Sql::new("PRAGMA wal_checkpoint(TRUNCATE)")
            .execute(db.pool())
            .await
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        Sql::new("VACUUM")
            .execute(db.pool())
            .await
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        Sql::new("PRAGMA wal_checkpoint(TRUNCATE)")
            .execute(db.pool())
            .await
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        let file = std::fs::metadata(&sqlite_file)?.len() as i64;
        // The whole file, every other (near-empty) table included; the primary-key index of the
        // block table is one entry per device and hour, and its rowid table holds the blocks.
        // Pages of every index in the file (dbstat, when the SQLite build has it).
        let index_pages = scalar(
            &db,
            "SELECT COUNT(*) FROM dbstat WHERE name IN (SELECT name FROM sqlite_master WHERE type = 'index')",
        )
        .await;
        let page = scalar(&db, "PRAGMA page_size").await?;
        match index_pages {
            Ok(n) => (file, Some(file - n * page)),
            Err(e) => {
                eprintln!("no dbstat in this SQLite ({e}): size without indexes not measured");
                (file, None)
            }
        }
    } else {
        Sql::new("VACUUM ANALYZE pv_telemetry_block")
            .execute(db.pool())
            .await
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        Sql::new("VACUUM ANALYZE pv_telemetry_raw")
            .execute(db.pool())
            .await
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        let total = scalar(
            &db,
            "SELECT CAST(pg_total_relation_size('pv_telemetry_block') + pg_total_relation_size('pv_telemetry_raw') AS BIGINT)",
        )
        .await?;
        let tables = scalar(
            &db,
            "SELECT CAST(pg_table_size('pv_telemetry_block') + pg_table_size('pv_telemetry_raw') AS BIGINT)",
        )
        .await?;
        (total, Some(tables))
    };
    figure("samples", samples, "samples");
    figure("points", points, "points");
    figure("bytes_per_point_on_disk", on_disk as f64 / points, "B/point");
    if let Some(bytes) = without_indexes {
        figure(
            "bytes_per_point_on_disk_without_indexes",
            bytes as f64 / points,
            "B/point",
        );
    }
    figure(
        "block_payload_bytes_per_point",
        payload as f64 / points,
        "B/point",
    );
    figure(
        "row_write_points_per_s",
        (points / write_time.as_secs_f64()).round(),
        "points/s",
    );
    figure(
        "compaction_points_per_s",
        (points / pack_time.as_secs_f64()).round(),
        "points/s",
    );

    // Day-curve reads: the raw path (no rollups), two metrics of one device, a whole day.
    let mut noise = Noise(42);
    let mut times = Vec::with_capacity(reads);
    for _ in 0..reads {
        let d = device_id((noise.next() * devices as f64) as i64 % devices);
        let span = raw::Span {
            tenant: Some(TENANT),
            devices: &[d],
            from: day0,
            to: day0 + hours * HOUR_MS,
        };
        let t = Instant::now();
        let means = raw::slot_means(db.pool(), span, &["ac_power", "pv1_voltage"], day0, 300_000)
            .await
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        times.push(t.elapsed());
        let slots = means.get(&d).map_or(0, |m| m[0].len());
        anyhow::ensure!(slots as i64 == hours * 12, "a day curve of {slots} points");
    }
    times.sort();
    figure("day_curve_ms_p50", percentile_ms(&times, 50.0), "ms");
    figure("day_curve_ms_p99", percentile_ms(&times, 99.0), "ms");

    // Every sample of a device's day, all metrics (what a rollup rebuild or an export reads).
    let t = Instant::now();
    let all = raw::range(db.pool(), device_id(0), day0, day0 + hours * HOUR_MS)
        .await
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    figure(
        "day_all_metrics_read_ms",
        t.elapsed().as_secs_f64() * 1000.0,
        "ms",
    );
    anyhow::ensure!(
        all.len() as i64 == hours * 3600,
        "{} samples read back",
        all.len()
    );
    db.close().await;
    Ok(())
}
