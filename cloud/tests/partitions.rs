//! Time-partitioned telemetry on PostgreSQL (`migrations/postgres`, `telemetry::partition`):
//! the migration turns the existing tables into partitioned ones keeping every row; the
//! maintenance job creates partitions ahead and moves what landed in DEFAULT into its own
//! partition, once across two hubs; retention drops whole partitions; ingest writes through COPY
//! (new rows counted, a replay adds nothing, rows in their day's partition, a sample from a year
//! ago in DEFAULT and read back by the day curve). On SQLite, which has no partitions, the same
//! calls change nothing and retention deletes rows as before.

use crate::support;

use std::time::Duration;

use chrono::Datelike;

use pv_cloud::kernel::db::Db;
use pv_cloud::kernel::sql::Value;
use pv_cloud::kernel::time::Clock;
use pv_cloud::telemetry::block::{self, RawSample};
use pv_cloud::telemetry::partition::{self, BLOCK, RAW, ROLLUP, Table};
use pv_cloud::telemetry::{raw, retention, store, store_pg};
use pv_shared::wire::{self, TelemetryBatch};
use serde_json::json;
use support::{GatewayClient, IngestApp, TestApp, is_postgres, now_ms, sample};
use utoipa_axum::router::OpenApiRouter;

const TENANT: &str = "T-PART";
const STATION: i64 = 9;
const DEVICE: i64 = 515_151;
const DAY: i64 = 86_400_000;
const HOUR: i64 = 3_600_000;
const T: Duration = Duration::from_secs(10);

fn day_of(ms: i64) -> i64 {
    ms.div_euclid(DAY) * DAY
}

/// `<table>_<yyyymmdd>` / `<table>_<yyyymm>` of the UTC day or month holding `ms`.
fn name_of(table: Table, ms: i64) -> String {
    let t = chrono::DateTime::from_timestamp_millis(ms).expect("time");
    match table.grain {
        "day" => format!("{}_{}", table.name, t.format("%Y%m%d")),
        _ => format!("{}_{}", table.name, t.format("%Y%m")),
    }
}

/// The partition holding a row (`tableoid`).
async fn home(app: &TestApp, sql: &str, values: Vec<Value>) -> String {
    app.scalar_text(sql, values).await.expect("the row exists")
}

async fn raw_home(app: &TestApp, device: i64, ts: i64) -> String {
    home(
        app,
        "SELECT tableoid::regclass::TEXT FROM pv_telemetry_raw WHERE device_id = ? AND ts = ?",
        vec![Value::Int(device), Value::Int(ts)],
    )
    .await
}

async fn names(app: &TestApp, table: Table) -> Vec<String> {
    partition::partitions(&app.state.core.db, table)
        .await
        .expect("partitions")
        .into_iter()
        .map(|p| p.name)
        .collect()
}

fn ac(s: &RawSample) -> Option<f64> {
    match s.metrics.get("ac_power") {
        Some(wire::Value::Number(n)) => Some(*n),
        _ => None,
    }
}

/// On SQLite: no partitions, nothing for the job to do, retention deletes rows as before.
async fn sqlite_has_plain_tables() {
    let app = TestApp::start().await;
    let db = &app.state.core.db;
    for t in partition::TABLES {
        assert!(partition::partitions(db, t).await.expect("list").is_empty());
    }
    assert_eq!(
        partition::maintain(db, now_ms(), 0).await.expect("maintain"),
        partition::Maintained::default()
    );
    let now = now_ms();
    app.put_raw(
        TENANT,
        STATION,
        DEVICE,
        &[
            (now - 100 * DAY, json!({"ac_power": 1.0})),
            (now, json!({"ac_power": 2.0})),
        ],
    )
    .await;
    app.put_live(support::telemetry::live_sample(
        TENANT,
        STATION,
        DEVICE,
        "inverter",
        now,
        &[("ac_power", 2.0)],
        true,
    ))
    .await;
    let gone = retention::delete_raw_before(db, now - 90 * DAY)
        .await
        .expect("retention");
    assert_eq!(gone, 1);
    assert_eq!(
        app.scalar_i64("SELECT COUNT(*) FROM pv_telemetry_raw", vec![])
            .await,
        1
    );
}

#[tokio::test]
async fn rows_written_before_the_partitioning_migration_are_read_after_it() {
    if !is_postgres() {
        return sqlite_has_plain_tables().await;
    }
    let tmp = tempfile::tempdir().expect("tmp");
    let data_dir = tmp.path().to_path_buf();
    let url = support::fresh_database_url(&data_dir).await;
    // The schema as it was before this migration: every other migration up to it.
    sqlx::any::install_default_drivers();
    let pool = sqlx::AnyPool::connect(&url).await.expect("connect");
    let mut common = sqlx::migrate!("./migrations");
    common.set_ignore_missing(true);
    common.run(&pool).await.expect("common migrations");
    let mut own = sqlx::migrate!("./migrations/postgres");
    let this = own
        .migrations
        .iter()
        .find(|m| m.description == "telemetry partitions")
        .map(|m| m.version)
        .expect("the partitioning migration");
    own.migrations = own
        .migrations
        .iter()
        .filter(|m| m.version < this)
        .cloned()
        .collect::<Vec<_>>()
        .into();
    own.set_ignore_missing(true);
    own.run(&pool).await.expect("earlier PostgreSQL migrations");
    let kind: String =
        sqlx::query_scalar("SELECT relkind::TEXT FROM pg_class WHERE relname = 'pv_telemetry_raw'")
            .fetch_one(&pool)
            .await
            .expect("relkind");
    assert_eq!(kind, "r", "a plain table before");

    let now = now_ms();
    let recent = day_of(now) - 2 * DAY + 3 * HOUR;
    let old = day_of(now) - 40 * DAY + 5 * HOUR;
    let mut rows = Vec::new();
    for (i, ts) in [recent, recent + 1_000, old, old + 1_000].into_iter().enumerate() {
        rows.push((ts, i as f64 * 10.0));
        sqlx::query(
            "INSERT INTO pv_telemetry_raw (device_id, ts, tenant_id, station_id, seq, metrics) VALUES ($1, $2, $3, $4, $5, $6)",
        )
        .bind(DEVICE)
        .bind(ts)
        .bind(TENANT)
        .bind(STATION)
        .bind(i as i64)
        .bind(json!({"ac_power": i as f64 * 10.0}).to_string())
        .execute(&pool)
        .await
        .expect("raw row");
    }
    // A packed hour 60 days back and a day rollup 70 days back.
    let packed_hour = day_of(now) - 60 * DAY + 7 * HOUR;
    let packed: Vec<RawSample> = (0..3)
        .map(|k| RawSample {
            ts: packed_hour + k * 60_000,
            seq: k,
            metrics: [("ac_power".to_string(), wire::Value::Number(100.0 + k as f64))].into(),
            suspect: None,
        })
        .collect();
    sqlx::query(
        "INSERT INTO pv_telemetry_block (device_id, hour, tenant_id, station_id, samples, first_ts, last_ts, data) \
         VALUES ($1, $2, $3, $4, 3, $5, $6, $7)",
    )
    .bind(DEVICE)
    .bind(packed_hour)
    .bind(TENANT)
    .bind(STATION)
    .bind(packed[0].ts)
    .bind(packed[2].ts)
    .bind(block::encode(&packed).expect("encode"))
    .execute(&pool)
    .await
    .expect("block row");
    let rollup_day = day_of(now) - 70 * DAY;
    sqlx::query(
        "INSERT INTO pv_telemetry_rollup (device_id, period, bucket, tenant_id, station_id, device_kind, samples, \
         energy_wh, metrics, updated_at) VALUES ($1, '1d', $2, $3, $4, 'inverter', 5, 1234.5, '{}', 0)",
    )
    .bind(DEVICE)
    .bind(rollup_day)
    .bind(TENANT)
    .bind(STATION)
    .execute(&pool)
    .await
    .expect("rollup row");
    pool.close().await;

    // The hub brings the schema up to date: the partitioning migration runs.
    let app = TestApp::start_on(data_dir, url, OpenApiRouter::new()).await;
    let db = &app.state.core.db;
    for t in partition::TABLES {
        let kind = app
            .scalar_text(
                "SELECT relkind::TEXT FROM pg_class WHERE relname = ?",
                vec![t.name.into()],
            )
            .await;
        assert_eq!(kind.as_deref(), Some("p"), "{} is partitioned", t.name);
        let list = names(&app, t).await;
        assert_eq!(
            list.last().map(String::as_str),
            Some(&*format!("{}_default", t.name))
        );
    }
    // Every day (month) the old rows fall in has its partition, and so do today and the next
    // days (months): the migration prepares what the job keeps.
    let raw_parts = names(&app, RAW).await;
    for d in [old, recent]
        .into_iter()
        .chain((0..=partition::DAYS_AHEAD as i64).map(|k| now + k * DAY))
    {
        assert!(
            raw_parts.contains(&name_of(RAW, d)),
            "{} in {raw_parts:?}",
            name_of(RAW, d)
        );
    }
    assert!(names(&app, BLOCK).await.contains(&name_of(BLOCK, packed_hour)));
    assert!(names(&app, ROLLUP).await.contains(&name_of(ROLLUP, rollup_day)));
    assert_eq!(raw_home(&app, DEVICE, old).await, name_of(RAW, old));
    assert_eq!(raw_home(&app, DEVICE, recent).await, name_of(RAW, recent));

    // Read back through the hub's readers: the same samples, the packed hour, the rollup.
    let read = raw::range(db.pool(), DEVICE, old - DAY, now).await.expect("read");
    let mut expect: Vec<(i64, f64)> = rows.clone();
    expect.sort_by_key(|(ts, _)| *ts);
    assert_eq!(
        read.iter()
            .map(|s| (s.ts, ac(s).expect("ac")))
            .collect::<Vec<_>>(),
        expect
    );
    let read = raw::range(db.pool(), DEVICE, packed_hour, packed_hour + HOUR)
        .await
        .expect("read packed");
    assert_eq!(read, packed);
    let energy = app
        .scalar_text(
            "SELECT CAST(energy_wh AS TEXT) FROM pv_telemetry_rollup WHERE device_id = ? AND period = '1d' AND bucket = ?",
            vec![Value::Int(DEVICE), Value::Int(rollup_day)],
        )
        .await;
    assert_eq!(energy.as_deref(), Some("1234.5"));
    // The reports' covering index is on every month of rollups.
    let indexed = app
        .scalar_i64(
            "SELECT COUNT(*) FROM pg_indexes WHERE tablename = ? AND indexdef LIKE '%station_id, period, bucket, device_kind%'",
            vec![name_of(ROLLUP, rollup_day).into()],
        )
        .await;
    assert_eq!(indexed, 1);
}

/// Epoch ms of a UTC date-time (partitions are cut by UTC day and month).
fn utc(y: i32, mo: u32, d: u32, h: u32, mi: u32) -> i64 {
    chrono::NaiveDate::from_ymd_opt(y, mo, d)
        .and_then(|date| date.and_hms_opt(h, mi, 0))
        .expect("date")
        .and_utc()
        .timestamp_millis()
}

/// The start of the UTC month `k` calendar months after the one holding `ms`.
fn month_after(ms: i64, k: u32) -> i64 {
    let t = chrono::DateTime::from_timestamp_millis(ms).expect("time");
    chrono::NaiveDate::from_ymd_opt(t.year(), t.month(), 1)
        .and_then(|first| first.checked_add_months(chrono::Months::new(k)))
        .and_then(|first| first.and_hms_opt(0, 0, 0))
        .expect("month")
        .and_utc()
        .timestamp_millis()
}

/// Every partition name of the three tables.
async fn all_names(app: &TestApp) -> std::collections::BTreeSet<String> {
    let mut all = std::collections::BTreeSet::new();
    for table in partition::TABLES {
        all.extend(names(app, table).await);
    }
    all
}

/// What the job must make at `now`: today and the days ahead, this month and the months ahead
/// (stepped by calendar month, so 28 November reaches February, not 1 March).
fn ahead_of(now: i64) -> std::collections::BTreeSet<String> {
    let days = (0..=partition::DAYS_AHEAD as i64).map(|k| name_of(RAW, day_of(now) + k * DAY));
    let months = (0..=partition::MONTHS_AHEAD as u32).flat_map(|k| {
        let month = month_after(now, k);
        [name_of(BLOCK, month), name_of(ROLLUP, month)]
    });
    days.chain(months).collect()
}

#[tokio::test]
async fn the_job_makes_partitions_ahead_and_empties_default_once_across_two_hubs() {
    if !is_postgres() {
        return sqlite_has_plain_tables().await;
    }
    // Both hubs read one clock set to 28 November, where stepping 31 days per month ahead would
    // land on 1 March, a month the job rightly does not make.
    let now = utc(2026, 11, 28, 10, 30);
    let a = TestApp::start_clocked(Clock::fixed(now)).await;
    let b = a.replica(|_| {}).await;
    let db = &a.state.core.db;
    let late = day_of(now) - 20 * DAY + 11 * HOUR;
    let tomorrow = day_of(now) + DAY + HOUR;
    let expired = now - 200 * DAY;
    let last_year = now - 380 * DAY;
    // As after a long stop: the coming days lack their partition, so what is written for them
    // (and a late sample of a day never prepared) lands in DEFAULT. The migration prepared the
    // days around the real date, which may or may not be these.
    for k in 1..=partition::DAYS_AHEAD as i64 {
        let day = name_of(RAW, now + k * DAY);
        a.exec(&format!("DROP TABLE IF EXISTS {day}"), vec![]).await;
    }
    for (table, ts) in [(RAW, late), (RAW, expired), (ROLLUP, last_year)] {
        let name = name_of(table, ts);
        a.exec(&format!("DROP TABLE IF EXISTS {name}"), vec![]).await;
    }
    a.put_raw(
        TENANT,
        STATION,
        DEVICE,
        &[
            (late, json!({"ac_power": 1.0})),
            (tomorrow, json!({"ac_power": 2.0})),
            (expired, json!({"ac_power": 3.0})),
        ],
    )
    .await;
    let default = format!("{}_default", RAW.name);
    for ts in [late, tomorrow, expired] {
        assert_eq!(raw_home(&a, DEVICE, ts).await, default);
    }
    // A rollup of a month long gone in DEFAULT too.
    a.put_rollup(
        TENANT,
        STATION,
        DEVICE,
        "inverter",
        "1d",
        day_of(last_year),
        Some(5.0),
        json!({}),
    )
    .await;
    let before = all_names(&a).await;

    // Both hubs' workers find the job due at once: one runs it.
    let (ra, rb) = tokio::join!(
        partition::run_due(&a.state.core),
        partition::run_due(&b.state.core)
    );
    let ran: Vec<_> = [ra.expect("a"), rb.expect("b")].into_iter().flatten().collect();
    assert_eq!(ran.len(), 1, "ran once across the two hubs");
    let done = ran.into_iter().next().expect("one").expect("maintenance");
    // The days and months ahead of the clock's day, the late sample's day and the old rollup's
    // month: those that did not exist, and nothing else.
    let mut expected = ahead_of(now);
    expected.insert(name_of(RAW, late));
    expected.insert(name_of(ROLLUP, last_year));
    let after = all_names(&a).await;
    assert!(expected.is_subset(&after), "{expected:?} in {after:?}");
    let made: std::collections::BTreeSet<_> = after.difference(&before).cloned().collect();
    let missing: std::collections::BTreeSet<_> = expected.difference(&before).cloned().collect();
    assert_eq!(made, missing);
    assert_eq!(done.created, made.len() as u64, "{done:?}");
    // February is the third month ahead of November; March is not made (the migration may have
    // made February already, for the real date).
    assert!(
        after.contains(&name_of(BLOCK, utc(2027, 2, 1, 0, 0))),
        "{after:?}"
    );
    assert!(
        !after.contains(&name_of(BLOCK, utc(2027, 3, 1, 0, 0))),
        "{after:?}"
    );
    assert_eq!(done.moved, 3, "{done:?}");
    let raw_parts = names(&a, RAW).await;
    assert_eq!(raw_home(&a, DEVICE, late).await, name_of(RAW, late));
    assert_eq!(raw_home(&a, DEVICE, tomorrow).await, name_of(RAW, tomorrow));
    // Past retention: left in DEFAULT for retention to delete, no partition made for it.
    assert_eq!(raw_home(&a, DEVICE, expired).await, default);
    assert!(!raw_parts.contains(&name_of(RAW, expired)));
    let rollup_home = home(
        &a,
        "SELECT tableoid::regclass::TEXT FROM pv_telemetry_rollup WHERE device_id = ? AND bucket = ?",
        vec![Value::Int(DEVICE), Value::Int(day_of(last_year))],
    )
    .await;
    assert_eq!(rollup_home, name_of(ROLLUP, day_of(last_year)));
    // Every sample is still read, from wherever it lives.
    let read = raw::range(db.pool(), DEVICE, expired - 1, now + 2 * DAY)
        .await
        .expect("read");
    assert_eq!(
        read.iter().map(|s| s.ts).collect::<Vec<_>>(),
        vec![expired, late, tomorrow]
    );

    // Not due again on either hub within the hour.
    assert!(partition::run_due(&a.state.core).await.expect("a").is_none());
    assert!(partition::run_due(&b.state.core).await.expect("b").is_none());
    // Run again anyway: nothing left to do.
    let again = partition::maintain(db, now, now - 90 * DAY).await.expect("again");
    assert_eq!(again, partition::Maintained::default());
}

#[tokio::test]
async fn months_ahead_are_calendar_months_at_month_ends_year_ends_and_on_29_february() {
    if !is_postgres() {
        return sqlite_has_plain_tables().await;
    }
    let app = TestApp::start().await;
    let db = &app.state.core.db;
    // (now, the last month ahead, the first month the job must not make yet)
    let cases = [
        (
            utc(2026, 11, 28, 23, 59),
            utc(2027, 2, 1, 0, 0),
            utc(2027, 3, 1, 0, 0),
        ),
        (
            utc(2026, 12, 31, 23, 50),
            utc(2027, 3, 1, 0, 0),
            utc(2027, 4, 1, 0, 0),
        ),
        (
            utc(2027, 1, 31, 12, 0),
            utc(2027, 4, 1, 0, 0),
            utc(2027, 5, 1, 0, 0),
        ),
        (
            utc(2028, 2, 29, 23, 59),
            utc(2028, 5, 1, 0, 0),
            utc(2028, 6, 1, 0, 0),
        ),
        (
            utc(2030, 10, 31, 0, 0),
            utc(2031, 1, 1, 0, 0),
            utc(2031, 2, 1, 0, 0),
        ),
    ];
    for (now, last, beyond) in cases {
        let before = all_names(&app).await;
        let done = partition::maintain(db, now, now - 90 * DAY)
            .await
            .expect("maintain");
        let after = all_names(&app).await;
        let expected = ahead_of(now);
        assert!(expected.is_subset(&after), "{expected:?} in {after:?}");
        let made: std::collections::BTreeSet<_> = after.difference(&before).cloned().collect();
        assert_eq!(made, expected.difference(&before).cloned().collect(), "at {now}");
        assert_eq!(done.created, made.len() as u64);
        for table in [BLOCK, ROLLUP] {
            assert!(
                after.contains(&name_of(table, last)),
                "{} at {now}",
                name_of(table, last)
            );
            assert!(
                !made.contains(&name_of(table, beyond)),
                "{} at {now}",
                name_of(table, beyond)
            );
        }
        // A day at the end of the horizon: 31 December + 7 is 7 January.
        assert!(after.contains(&name_of(RAW, day_of(now) + partition::DAYS_AHEAD as i64 * DAY)));
    }
}

#[tokio::test]
async fn retention_drops_the_partitions_past_the_cutoff_and_keeps_the_rest() {
    if !is_postgres() {
        return sqlite_has_plain_tables().await;
    }
    let app = TestApp::start().await;
    let db = &app.state.core.db;
    let now = now_ms();
    let cutoff = now - 90 * DAY;
    // Partitions for days before, across and after the cutoff, with rows.
    let days = [
        day_of(cutoff) - 10 * DAY,
        day_of(cutoff) - DAY,
        day_of(cutoff),
        day_of(cutoff) + DAY,
    ];
    for d in days {
        assert_eq!(partition::create(db, RAW, d).await.expect("create"), 0);
    }
    let mut samples: Vec<(i64, serde_json::Value)> = [days[0], days[1], days[3]]
        .iter()
        .map(|d| (d + HOUR, json!({"ac_power": 1.0})))
        .collect();
    // The straddling day: one sample before the cutoff, one after.
    samples.push((cutoff - 1_000, json!({"ac_power": 2.0})));
    samples.push((cutoff + 1_000, json!({"ac_power": 3.0})));
    // DEFAULT: an old sample of a day without partition, of a device the hub has no latest row
    // for (the per-device deletes would never see it).
    let orphan = DEVICE + 1;
    app.put_raw(TENANT, STATION, DEVICE, &samples).await;
    app.put_raw(
        TENANT,
        STATION,
        orphan,
        &[(cutoff - 30 * DAY, json!({"ac_power": 4.0}))],
    )
    .await;
    app.put_live(support::telemetry::live_sample(
        TENANT,
        STATION,
        DEVICE,
        "inverter",
        now,
        &[("ac_power", 1.0)],
        true,
    ))
    .await;
    assert_eq!(
        raw_home(&app, orphan, cutoff - 30 * DAY).await,
        format!("{}_default", RAW.name)
    );
    // Packed hours: a month entirely past the cutoff and the month holding it.
    let old_month = day_of(cutoff) - 45 * DAY;
    for m in [old_month, cutoff] {
        partition::create(db, BLOCK, m).await.expect("block month");
    }
    for hour in [
        raw::hour_of(old_month),
        raw::hour_of(cutoff) - HOUR,
        raw::hour_of(cutoff) + HOUR,
    ] {
        let s = vec![RawSample {
            ts: hour + 1,
            seq: 1,
            metrics: [("ac_power".to_string(), wire::Value::Number(1.0))].into(),
            suspect: None,
        }];
        let data = block::encode(&s).expect("encode");
        app.exec(
            "INSERT INTO pv_telemetry_block (device_id, hour, tenant_id, station_id, samples, first_ts, last_ts, data) \
             VALUES (?, ?, ?, ?, 1, ?, ?, ?)",
            vec![
                Value::Int(DEVICE),
                Value::Int(hour),
                TENANT.into(),
                Value::Int(STATION),
                Value::Int(hour + 1),
                Value::Int(hour + 1),
                Value::Bytes(data),
            ],
        )
        .await;
    }

    let deleted = retention::delete_raw_before(db, cutoff).await.expect("retention");
    // Two whole days dropped (one row each), one row of the straddling day, the DEFAULT row.
    assert_eq!(deleted, 4);
    let raw_parts = names(&app, RAW).await;
    assert!(!raw_parts.contains(&name_of(RAW, days[0])));
    assert!(!raw_parts.contains(&name_of(RAW, days[1])));
    assert!(
        raw_parts.contains(&name_of(RAW, days[2])),
        "the straddling day stays"
    );
    assert!(raw_parts.contains(&name_of(RAW, days[3])));
    let left = raw::range(db.pool(), DEVICE, 0, now + DAY).await.expect("read");
    assert_eq!(
        left.iter().map(|s| s.ts).collect::<Vec<_>>(),
        // The rows kept, and the one packed hour after the cutoff.
        vec![cutoff + 1_000, raw::hour_of(cutoff) + HOUR + 1, days[3] + HOUR]
    );
    assert!(
        raw::range(db.pool(), orphan, 0, now)
            .await
            .expect("read")
            .is_empty()
    );
    let block_parts = names(&app, BLOCK).await;
    assert!(!block_parts.contains(&name_of(BLOCK, old_month)));
    assert!(block_parts.contains(&name_of(BLOCK, cutoff)));
    assert_eq!(
        app.scalar_i64(
            "SELECT COUNT(*) FROM pv_telemetry_block WHERE device_id = ? AND hour >= ?",
            vec![Value::Int(DEVICE), Value::Int(raw::hour_of(cutoff))],
        )
        .await,
        1
    );
    assert_eq!(
        app.scalar_i64(
            "SELECT COUNT(*) FROM pv_telemetry_block WHERE device_id = ?",
            vec![Value::Int(DEVICE)],
        )
        .await,
        1
    );
}

/// A group stored as ingest's writer stores it: COPY on PostgreSQL, multi-row INSERTs on SQLite.
async fn write_group(
    db: &Db,
    raws: &[store::RawRow],
    latest: &[store::LatestRow],
    dirty: &[(i64, i64)],
    mark: i64,
) -> u64 {
    let hist = prometheus_client::metrics::histogram::Histogram::new([0.1]);
    let now = now_ms();
    match db.pg_durable() {
        Some(pg) => store_pg::write_group(pg, raws, latest, dirty, mark, now, &hist).await,
        None => store::write_group(db, 500, raws, latest, dirty, mark, now, &hist).await,
    }
    .expect("store")
}

fn row(device: i64, ts: i64, ac: f64) -> store::RawRow {
    store::RawRow {
        device_id: device,
        ts,
        tenant_id: TENANT.into(),
        station_id: STATION,
        seq: ts / 1000,
        metrics: json!({"ac_power": ac, "status_text": "tab\there \\ back"}).to_string(),
        suspect: (ac < 0.0).then(|| r#"{"pv1_voltage":9999.0}"#.to_owned()),
    }
}

#[tokio::test]
async fn ingest_writes_through_copy_counts_new_rows_and_ignores_a_replay() {
    let app = TestApp::start().await;
    let db = &app.state.core.db;
    assert_eq!(
        db.pg_durable().is_some(),
        is_postgres(),
        "COPY only on PostgreSQL"
    );
    let now = now_ms();
    // Today's first hour: today's partition exists from the migration on.
    let today = day_of(now);
    let raws: Vec<store::RawRow> = (0..3000)
        .map(|k| {
            row(
                DEVICE + k % 3,
                today + k * 1_000,
                if k == 7 { -1.0 } else { k as f64 },
            )
        })
        .collect();
    let latest = vec![store::LatestRow {
        device_id: DEVICE,
        tenant_id: TENANT.into(),
        station_id: STATION,
        kind: "inverter",
        gateway_id: "GW-P".into(),
        ts: today,
        metrics: raws[0].metrics.clone(),
        suspect: None,
    }];
    let dirty = vec![(DEVICE, today), (DEVICE + 1, today)];
    let n = write_group(db, &raws, &latest, &dirty, 1).await;
    assert_eq!(n, 3000, "every new row counted");
    // The same group again (a lost ack), and one more sample beside a replayed one.
    let n = write_group(db, &raws, &latest, &dirty, 2).await;
    assert_eq!(n, 0, "a replay inserts nothing");
    let more = [
        raws[1].clone(),
        row(DEVICE, today - 1_000, 5.0),
        row(DEVICE, today - 1_000, 6.0),
    ];
    let n = write_group(db, &more, &[], &[], 3).await;
    assert_eq!(n, 1, "only the new sample, once");
    assert_eq!(
        app.scalar_i64("SELECT COUNT(*) FROM pv_telemetry_raw", vec![])
            .await,
        3001
    );
    // Values arrive as written: escapes, quality marks, the newest sample, the marks.
    let back = raw::range(db.pool(), DEVICE, 0, today + DAY).await.expect("read");
    let first = back.iter().find(|s| s.ts == raws[0].ts).expect("first");
    assert_eq!(
        first.metrics.get("status_text"),
        Some(&wire::Value::Text("tab\there \\ back".into()))
    );
    let marked = raw::range(db.pool(), DEVICE + 1, raws[7].ts, raws[7].ts + 1)
        .await
        .expect("read");
    assert_eq!(marked[0].suspect.as_deref(), Some(r#"{"pv1_voltage":9999.0}"#));
    assert_eq!(
        app.scalar_int(
            "SELECT ts FROM pv_telemetry_latest WHERE device_id = ?",
            vec![Value::Int(DEVICE)]
        )
        .await,
        Some(today)
    );
    assert_eq!(
        app.scalar_int(
            "SELECT mark FROM pv_telemetry_dirty WHERE device_id = ?",
            vec![Value::Int(DEVICE + 1)]
        )
        .await,
        Some(2)
    );
    if is_postgres() {
        // Written through the native pool's staging table (its sessions have one).
        assert!(
            app.scalar_i64(
                "SELECT COUNT(*) FROM pg_class WHERE relname = 'pv_raw_stage' AND relpersistence = 't'",
                vec![]
            )
            .await
                >= 1
        );
        // Each row in its day's partition.
        assert_eq!(raw_home(&app, DEVICE, raws[0].ts).await, name_of(RAW, raws[0].ts));
        // Yesterday has no partition in a fresh database: DEFAULT, until the job makes one.
        assert_eq!(
            raw_home(&app, DEVICE, today - 1_000).await,
            format!("{}_default", RAW.name)
        );
        assert_eq!(
            app.scalar_i64("SELECT COUNT(*) FROM pv_telemetry_raw_default", vec![])
                .await,
            1
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sample_from_a_year_ago_is_stored_acknowledged_and_read_by_the_day_curve() {
    year_old_sample(false).await;
}

/// The same through PostgreSQL's COPY path (`telemetry.postgres_copy`, off by default).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn through_copy_a_sample_from_a_year_ago_is_stored_acknowledged_and_read_by_the_day_curve() {
    if is_postgres() {
        year_old_sample(true).await;
    }
}

async fn year_old_sample(copy: bool) {
    // A year of backlog accepted, and no worker pass (nor compaction) during the test.
    let app = IngestApp::start(|c| {
        c.telemetry.postgres_copy = copy;
        c.telemetry.past_horizon_days = 400;
        c.telemetry.raw_retention_days = 500;
        c.telemetry.rollup_interval_ms = 3_600_000;
    })
    .await;
    let t = app.app.gateway_manager("100001", "mgr").await;
    let (_station, pw) = app.provision(&t, "GW-P", &["INV-P1"]).await;
    let mut gw = GatewayClient::connect(app.gateway_addr, "GW-P", Some(("GW-P", &pw)), None)
        .await
        .expect("signs in");
    let inverter = app
        .app
        .scalar_int("SELECT id FROM pv_inverter WHERE sn = ?", vec!["INV-P1".into()])
        .await
        .expect("inverter");
    let now = now_ms();
    let year_ago = day_of(now - 365 * DAY) + 12 * HOUR;
    let batch = TelemetryBatch::new(
        "GW-P",
        false,
        vec![
            sample(1, "INV-P1", year_ago, &[("ac_power", 4321.0)]),
            sample(2, "INV-P1", now - 60_000, &[("ac_power", 1000.0)]),
        ],
    );
    gw.send(&batch).await;
    gw.ack_within(T).await.expect("ack after storing");
    gw.send(&batch).await;
    gw.ack_within(T).await.expect("a replay is acknowledged too");
    assert_eq!(app.raw_count().await, 2, "stored once");
    if is_postgres() {
        // Through COPY, ingest's writer session has the staging table; otherwise nobody made it.
        let stages = app
            .app
            .scalar_i64(
                "SELECT COUNT(*) FROM pg_class WHERE relname = 'pv_raw_stage' AND relpersistence = 't'",
                vec![],
            )
            .await;
        assert_eq!(stages >= 1, copy, "{stages} staging tables");
        assert_eq!(
            raw_home(&app.app, inverter, year_ago).await,
            format!("{}_default", RAW.name)
        );
        assert_eq!(
            raw_home(&app.app, inverter, now - 60_000).await,
            name_of(RAW, now)
        );
    }
    // The station's clock is the hub's default here: read that day's curve.
    let date = support::telemetry::local_text(year_ago);
    let date = &date[..10];
    let curve = app
        .app
        .as_user(&t)
        .get_data(&format!(
            "/api/inverterReal/listWaveTag?inverterIds={inverter}&names=ac_power&date={date}"
        ))
        .await;
    let points = curve["series"][0]["points"].as_array().expect("points").clone();
    assert_eq!(points.len(), 1, "{curve}");
    support::telemetry::approx(&points[0][1], 4.321, "kW a year ago");
}
