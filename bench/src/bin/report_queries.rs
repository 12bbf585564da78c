//! Latency of the report calls over a fleet's year of rollups: `BENCH_STATIONS` (100) stations ×
//! `BENCH_INVERTERS` (20) inverters, a grid meter and a weather station each, with hour and day
//! rollup rows for `BENCH_DAYS` (365) days back from today and 5-minute rows for the last
//! `BENCH_FIVE_MINUTE_DAYS` (1) — the reports read hour and day rows (5-minute rows only for a
//! station clock off the whole hour), and a year of 5-minute rows for 2 200 devices (230 M rows)
//! would not fit this machine's disk. Written straight into `pv_telemetry_rollup` as the rollup
//! worker writes them (a clear-sky day shape), then each call is asked `BENCH_REPEATS` (40) times
//! over HTTP with the administrator's token, on random stations:
//!
//! - a station's month: generation, PR, bill, meter report;
//! - a year over all stations: generation of every station by month, savings;
//! - the home page (revenue of every station: first call, then the kept figures).
//!
//! BENCH_DATABASE_URL: empty = SQLite file in a temp dir; `postgres://...` = a fresh database.
//! BENCH_KEEP_DIR: a folder where the SQLite database is kept; a later run with the same folder
//! (and the same knobs) measures again without loading the 20 M rows anew. On PostgreSQL it
//! names the kept database instead (`pv_bench_<BENCH_KEEP_DIR>`, letters and digits only).
//! The station-day summary is summed from the loaded rollups before measuring (as the hub's
//! start-up does), its time printed as `report_summary_backfill_s`.

use std::time::{Duration, Instant};

use anyhow::Context;
use http_body_util::{BodyExt, Empty};
use hyper::body::Bytes;
use pv_bench::{figure, knob, percentile_ms};
use pv_cloud::config::Config;
use pv_cloud::kernel::sql::{Sql, Value};

const ADMIN_MD5: &str = "21232f297a57a5a743894a0e4a801fc3";
const HOUR: i64 = 3_600_000;
const DAY: i64 = 86_400_000;
const CST: i64 = 8 * HOUR;

async fn exec<'e, E>(on: E, sql: Sql) -> anyhow::Result<()>
where
    E: sqlx::Executor<'e, Database = sqlx::Any>,
{
    let (text, args) = sql.build().map_err(|e| anyhow::anyhow!("{e}"))?;
    sqlx::query_with(sqlx::AssertSqlSafe(text), args)
        .execute(on)
        .await?;
    Ok(())
}

/// Clear-sky share of the peak in local hour `h` (0 at night).
fn sun(h: i64) -> f64 {
    if (6..18).contains(&h) {
        (std::f64::consts::PI * (h as f64 - 5.5) / 12.0).sin().max(0.0)
    } else {
        0.0
    }
}

struct Rows {
    sql: Sql,
    n: usize,
}

impl Rows {
    fn new() -> Rows {
        Rows {
            sql: Sql::new(
                "INSERT INTO pv_telemetry_rollup (device_id, period, bucket, tenant_id, station_id, device_kind, \
                 samples, energy_wh, energy_import_wh, energy_export_wh, power_avg_w, power_max_w, irradiance_avg, \
                 irradiation_wh_m2, metrics, updated_at) VALUES ",
            ),
            n: 0,
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn push(
        &mut self,
        device: i64,
        period: &str,
        bucket: i64,
        station: i64,
        kind: &str,
        samples: i64,
        energy: Option<f64>,
        import_export: Option<(f64, f64)>,
        irradiation: Option<(f64, f64)>,
        metrics: String,
    ) {
        if self.n > 0 {
            self.sql.push(", ");
        }
        let f = |v: Option<f64>| v.map(Value::Float).unwrap_or(Value::NullFloat);
        let power = energy.map(|e| e * 12.0 / samples.max(1) as f64);
        self.sql.push_bind(
            "(?, ?, ?, '000000', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                Value::Int(device),
                Value::from(period),
                Value::Int(bucket),
                Value::Int(station),
                Value::from(kind),
                Value::Int(samples),
                f(energy),
                f(import_export.map(|p| p.0)),
                f(import_export.map(|p| p.1)),
                f(power),
                f(power),
                f(irradiation.map(|p| p.0)),
                f(irradiation.map(|p| p.1)),
                Value::from(metrics),
                Value::Int(bucket),
            ],
        );
        self.n += 1;
    }
}

/// One station's devices: (inverters, meter, weather).
struct Station {
    id: i64,
    inverters: Vec<i64>,
    meter: i64,
    weather: i64,
}

async fn provision(
    state: &pv_cloud::state::AppState,
    stations: usize,
    inverters: usize,
) -> anyhow::Result<Vec<Station>> {
    let pool = state.db.pool();
    let now = pv_cloud::kernel::time::now_ms();
    let mut out = Vec::new();
    for s in 0..stations {
        let id = state.ids.next().0;
        let mut sql = Sql::default();
        sql.push_bind(
            "INSERT INTO pv_station (id, tenant_id, name, component_capacity, component_count, capacity, \
             connected_type, contribution_way, feed_in_tariff, create_time) \
             VALUES (?, '000000', ?, ?, ?, ?, '2', '4', 0.39, ?)",
            [
                Value::Int(id),
                Value::from(format!("Bench station {s:03}")),
                Value::Float(inverters as f64 * 115.0),
                Value::Int(inverters as i64 * 200),
                Value::Float(inverters as f64 * 100.0),
                Value::Int(now),
            ],
        );
        exec(pool, sql).await?;
        let price = state.ids.next().0;
        let mut sql = Sql::default();
        sql.push_bind(
            "INSERT INTO pv_electric_price (id, tenant_id, station_id, price_type, effective_date, revision, create_time) \
             VALUES (?, '000000', ?, '2', 0, 1, ?)",
            [Value::Int(price), Value::Int(id), Value::Int(now)],
        );
        exec(pool, sql).await?;
        for (a, b, kind, p) in [
            (0, 480, "4", 0.26),
            (480, 840, "3", 0.63),
            (840, 1320, "2", 1.03),
            (1320, 1440, "3", 0.63),
        ] {
            let mut sql = Sql::default();
            sql.push_bind(
                "INSERT INTO pv_electric_price_segment (id, price_id, start_minute, end_minute, segment_type, price) \
                 VALUES (?, ?, ?, ?, ?, ?)",
                [
                    Value::Int(state.ids.next().0),
                    Value::Int(price),
                    Value::Int(a),
                    Value::Int(b),
                    Value::from(kind),
                    Value::Float(p),
                ],
            );
            exec(pool, sql).await?;
        }
        let mut invs = Vec::new();
        for i in 0..inverters {
            let inv = state.ids.next().0;
            let mut sql = Sql::default();
            sql.push_bind(
                "INSERT INTO pv_inverter (id, tenant_id, station_id, name, sn, rated_power, strings_count, create_time) \
                 VALUES (?, '000000', ?, ?, ?, 100, 12, ?)",
                [
                    Value::Int(inv),
                    Value::Int(id),
                    Value::from(format!("INV {i:02}")),
                    Value::from(format!("B{s:03}-INV-{i:02}")),
                    Value::Int(now),
                ],
            );
            exec(pool, sql).await?;
            invs.push(inv);
        }
        let meter = state.ids.next().0;
        let mut sql = Sql::default();
        sql.push_bind(
            "INSERT INTO pv_meter (id, tenant_id, station_id, name, meter_role, sn, create_time) \
             VALUES (?, '000000', ?, 'Grid meter', '1', ?, ?)",
            [
                Value::Int(meter),
                Value::Int(id),
                Value::from(format!("B{s:03}-MTR")),
                Value::Int(now),
            ],
        );
        exec(pool, sql).await?;
        let weather = state.ids.next().0;
        let mut sql = Sql::default();
        sql.push_bind(
            "INSERT INTO pv_weather (id, tenant_id, station_id, name, sn, create_time) VALUES (?, '000000', ?, 'Weather', ?, ?)",
            [Value::Int(weather), Value::Int(id), Value::from(format!("B{s:03}-MET")), Value::Int(now)],
        );
        exec(pool, sql).await?;
        out.push(Station {
            id,
            inverters: invs,
            meter,
            weather,
        });
    }
    Ok(out)
}

/// The rollups of one station: hour rows and day rows for `days` days, 5-minute rows for the
/// last `five_days`, in one transaction, 64 rows a statement: sqlx's SQLite driver looks up every
/// parameter's name by scanning the statement's parameters, so a statement's binding time grows
/// with the square of its rows (400 rows a statement loaded about 4 000 rows/s).
async fn rollups(
    db: &pv_cloud::kernel::db::Db,
    st: &Station,
    first_day: i64,
    days: i64,
    five_days: i64,
) -> anyhow::Result<u64> {
    let mut written = 0u64;
    let mut tx = db.begin_write().await?;
    let mut rows = Rows::new();
    let mut meter_import = 1.0e7;
    let mut meter_export = 5.0e7;
    for d in 0..days {
        let midnight = first_day + d * DAY;
        // A cloudy day now and then, the same for every device of the station.
        let weather = 0.55 + 0.45 * (((d * 7919 + st.id % 97) % 13) as f64 / 12.0);
        let with_five = d >= days - five_days;
        let mut day_sums = (0.0, 0.0, 0.0, 0.0);
        for h in 0..24 {
            let bucket = midnight + h * HOUR;
            let g = 1000.0 * sun(h) * weather;
            let inv_wh = 95_000.0 * sun(h) * weather;
            let load = 900_000.0 * if (8..20).contains(&h) { 1.0 } else { 0.3 } / 24.0;
            let station_gen = inv_wh * st.inverters.len() as f64;
            let export = (station_gen - load).max(0.0);
            let import = (load - station_gen).max(0.0);
            meter_import += import;
            meter_export += export;
            for inv in &st.inverters {
                rows.push(
                    *inv,
                    "1h",
                    bucket,
                    st.id,
                    "inverter",
                    12,
                    Some(inv_wh),
                    None,
                    None,
                    format!(
                        "{{\"ac_power\":[{0:.1},0,{0:.1},{0:.1}],\"energy_total\":[0,0,0,0]}}",
                        inv_wh
                    ),
                );
            }
            rows.push(st.meter, "1h", bucket, st.id, "meter", 12, None, Some((import, export)), None,
                format!("{{\"energy_import\":[{0:.0},{0:.0},{0:.0},{0:.0}],\"energy_export\":[{1:.0},{1:.0},{1:.0},{1:.0}]}}", meter_import, meter_export));
            rows.push(
                st.weather,
                "1h",
                bucket,
                st.id,
                "weather",
                12,
                None,
                None,
                Some((g, g)),
                format!(
                    "{{\"irradiance_poa\":[{0:.1},0,{0:.1},{0:.1}],\"module_temperature\":[{1:.1},0,0,0]}}",
                    g,
                    15.0 + g * 0.03
                ),
            );
            day_sums = (
                day_sums.0 + inv_wh,
                day_sums.1 + import,
                day_sums.2 + export,
                day_sums.3 + g,
            );
            if with_five {
                for k in 0..12 {
                    let b = bucket + k * 300_000;
                    for inv in &st.inverters {
                        rows.push(
                            *inv,
                            "5m",
                            b,
                            st.id,
                            "inverter",
                            1,
                            Some(inv_wh / 12.0),
                            None,
                            None,
                            "{}".into(),
                        );
                    }
                }
            }
            if rows.n >= 64 {
                written += rows.n as u64;
                exec(&mut *tx, std::mem::replace(&mut rows, Rows::new()).sql).await?;
            }
        }
        for inv in &st.inverters {
            rows.push(
                *inv,
                "1d",
                midnight,
                st.id,
                "inverter",
                288,
                Some(day_sums.0),
                None,
                None,
                "{}".into(),
            );
        }
        rows.push(
            st.meter,
            "1d",
            midnight,
            st.id,
            "meter",
            288,
            None,
            Some((day_sums.1, day_sums.2)),
            None,
            "{}".into(),
        );
        rows.push(
            st.weather,
            "1d",
            midnight,
            st.id,
            "weather",
            288,
            None,
            None,
            Some((day_sums.3 / 24.0, day_sums.3)),
            "{}".into(),
        );
    }
    if rows.n > 0 {
        written += rows.n as u64;
        exec(&mut *tx, rows.sql).await?;
    }
    tx.commit().await?;
    Ok(written)
}

/// The stations of a kept database (their devices are not needed to measure).
async fn kept_fleet(state: &pv_cloud::state::AppState) -> anyhow::Result<Vec<Station>> {
    let ids: Vec<i64> = Sql::new("SELECT id FROM pv_station WHERE is_deleted = 0 ORDER BY name")
        .scalars(state.db.pool())
        .await
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    Ok(ids
        .into_iter()
        .map(|id| Station {
            id,
            inverters: vec![],
            meter: 0,
            weather: 0,
        })
        .collect())
}

async fn get(addr: std::net::SocketAddr, token: &str, path: &str) -> anyhow::Result<(Duration, usize)> {
    let stream = tokio::net::TcpStream::connect(addr).await?;
    let (mut sender, conn) =
        hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream)).await?;
    tokio::spawn(conn);
    let req = hyper::Request::get(path)
        .header("Host", addr.to_string())
        .header("Blade-Auth", format!("bearer {token}"))
        .body(Empty::<Bytes>::new())?;
    let sent = Instant::now();
    let res = sender.send_request(req).await?;
    let status = res.status();
    let body = res.into_body().collect().await?.to_bytes();
    let took = sent.elapsed();
    anyhow::ensure!(
        status.is_success(),
        "{path}: {status} {}",
        String::from_utf8_lossy(&body[..body.len().min(300)])
    );
    anyhow::ensure!(
        body.starts_with(b"{\"code\":200"),
        "{path}: {}",
        String::from_utf8_lossy(&body[..body.len().min(300)])
    );
    Ok((took, body.len()))
}

async fn sign_in(addr: std::net::SocketAddr) -> anyhow::Result<String> {
    let stream = tokio::net::TcpStream::connect(addr).await?;
    let (mut sender, conn) =
        hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream)).await?;
    tokio::spawn(conn);
    let req = hyper::Request::post(format!(
        "/api/blade-auth/oauth/token?tenantId=000000&username=admin&password={ADMIN_MD5}&grant_type=password&scope=all"
    ))
    .header("Host", addr.to_string())
    .header("Authorization", "Basic c2FiZXI6c2FiZXJfc2VjcmV0")
    .header("Tenant-Id", "000000")
    .body(Empty::<Bytes>::new())?;
    let body = sender
        .send_request(req)
        .await?
        .into_body()
        .collect()
        .await?
        .to_bytes();
    let v: serde_json::Value = serde_json::from_slice(&body)?;
    v["access_token"]
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| anyhow::anyhow!("sign-in: {v}"))
}

/// Asks `paths(i)` `repeats` times; prints p50, p99 and max under `name`.
async fn measure(
    addr: std::net::SocketAddr,
    token: &str,
    name: &str,
    repeats: usize,
    paths: impl Fn(usize) -> String,
) -> anyhow::Result<()> {
    let mut took = Vec::new();
    let mut bytes = 0;
    for i in 0..repeats {
        let (t, n) = get(addr, token, &paths(i)).await?;
        took.push(t);
        bytes = n;
    }
    took.sort_unstable();
    figure(&format!("report_{name}_p50"), percentile_ms(&took, 50.0), "ms");
    figure(&format!("report_{name}_p99"), percentile_ms(&took, 99.0), "ms");
    figure(&format!("report_{name}_max"), percentile_ms(&took, 100.0), "ms");
    eprintln!("{name}: {repeats} calls, answer {bytes} bytes");
    Ok(())
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let stations: usize = knob("BENCH_STATIONS", 100);
    let inverters: usize = knob("BENCH_INVERTERS", 20);
    let days: i64 = knob("BENCH_DAYS", 365);
    let five_days: i64 = knob("BENCH_FIVE_MINUTE_DAYS", 1);
    let repeats: usize = knob("BENCH_REPEATS", 40);
    let db_url: String = knob("BENCH_DATABASE_URL", String::new());

    let keep: String = knob("BENCH_KEEP_DIR", String::new());
    let dir = tempfile::tempdir()?;
    let data_dir = if keep.is_empty() || db_url.starts_with("postgres") {
        dir.path().to_path_buf()
    } else {
        std::fs::create_dir_all(&keep)?;
        std::path::PathBuf::from(&keep)
    };
    let loaded_marker = data_dir.join("report_queries.loaded");
    let (database_url, backend) = if db_url.starts_with("postgres") {
        sqlx::any::install_default_drivers();
        let name = if keep.is_empty() {
            format!("pv_bench_{}", std::process::id())
        } else {
            format!("pv_bench_{keep}")
        };
        let pool = sqlx::AnyPool::connect(&db_url).await?;
        let exists = sqlx::query(sqlx::AssertSqlSafe(format!(
            "SELECT 1 FROM pg_database WHERE datname = '{name}'"
        )))
        .fetch_optional(&pool)
        .await?
        .is_some();
        if !exists {
            sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
                .execute(&pool)
                .await?;
        }
        pool.close().await;
        let base = db_url.rsplit_once('/').map(|(b, _)| b).unwrap_or(&db_url);
        (format!("{base}/{name}"), "postgres")
    } else {
        (String::new(), "sqlite")
    };
    let mut config = Config {
        data_dir: data_dir.clone(),
        database_url,
        ..Config::default()
    };
    config.telemetry.enabled = false;
    let state = pv_cloud::server::prepare(config).await?;
    let reuse = if backend == "sqlite" {
        loaded_marker.exists()
    } else {
        // A kept PostgreSQL database was loaded once its marker row is there.
        !keep.is_empty()
            && Sql::new("SELECT COUNT(*) FROM blade_param WHERE param_key = 'bench.report_queries.loaded'")
                .scalar::<i64, _>(state.db.pool())
                .await
                .map_err(|e| anyhow::anyhow!("{e}"))?
                > 0
    };
    let fleet = if reuse {
        kept_fleet(&state).await?
    } else {
        provision(&state, stations, inverters).await?
    };
    // Day rows start at the hub's midnight (+08:00): yesterday's midnight is the last full day.
    let now = pv_cloud::kernel::time::now_ms();
    let today = (now + CST).div_euclid(DAY) * DAY - CST;
    let first_day = today - (days - 1) * DAY;
    let started = Instant::now();
    let mut written = 0;
    if !reuse {
        for st in &fleet {
            written += rollups(&state.db, st, first_day, days, five_days).await?;
        }
    }
    let load_s = started.elapsed().as_secs_f64();
    // The rows above were written straight into the rollup table, past the rollup worker that
    // keeps the station-day summary: sum it as the hub's start-up does.
    let summed = Instant::now();
    let rebuilt = pv_cloud::telemetry::station_day::backfill(&state.db)
        .await
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let summary_s = summed.elapsed().as_secs_f64();
    eprintln!("station-day summary: {rebuilt} stations rebuilt in {summary_s:.1} s");
    if rebuilt > 0 {
        figure("report_summary_backfill_s", summary_s, "s");
    }
    if !reuse && !keep.is_empty() {
        if backend == "sqlite" {
            std::fs::write(&loaded_marker, b"loaded")?;
        } else {
            let mut sql = Sql::default();
            sql.push_bind(
                "INSERT INTO blade_param (id, param_name, param_key, param_value, create_time) \
                 VALUES (?, 'bench', 'bench.report_queries.loaded', '1', ?)",
                [Value::Int(state.ids.next().0), Value::Int(now)],
            );
            exec(state.db.pool(), sql).await?;
        }
    }
    eprintln!(
        "report_queries on {backend}: {stations} stations × {inverters} inverters, {days} days, {written} rollup rows in {load_s:.0} s"
    );
    if !reuse {
        figure("report_rollup_rows", written as f64, "rows");
        figure("report_load_rows_per_s", written as f64 / load_s, "rows/s");
    }
    if backend == "postgres" {
        exec(state.db.pool(), Sql::new("ANALYZE pv_telemetry_rollup")).await?;
        exec(state.db.pool(), Sql::new("ANALYZE pv_telemetry_station_day")).await?;
    }

    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(pv_cloud::server::serve(state, listener, async {
        let _ = stopped.await;
    }));
    let token = sign_in(addr).await?;
    // Last full month and this year, in the stations' (hub) clock.
    let month = {
        let d = chrono::DateTime::from_timestamp_millis(today + CST - DAY)
            .context("date")?
            .date_naive();
        d.format("%Y-%m").to_string()
    };
    let year = &month[..4];
    let pick = |i: usize| fleet[(i * 37) % fleet.len()].id;
    measure(addr, &token, "station_month_generation", repeats, |i| {
        format!(
            "/api/report/station/electricity?stationId={}&type=month&date={month}",
            pick(i)
        )
    })
    .await?;
    measure(addr, &token, "station_month_pr", repeats, |i| {
        format!(
            "/api/report/station/electricity/rate?stationId={}&type=month&date={month}",
            pick(i)
        )
    })
    .await?;
    measure(addr, &token, "station_month_bill", repeats, |i| {
        format!(
            "/api/stationMeterReport/electricityBillSettlement?stationId={}&type=month&date={month}",
            pick(i)
        )
    })
    .await?;
    measure(addr, &token, "station_month_meter", repeats, |i| {
        format!(
            "/api/meterReport/reportMonthly?stationId={}&date={month}",
            pick(i)
        )
    })
    .await?;
    measure(addr, &token, "station_month_inverters", repeats, |i| {
        format!(
            "/api/report/inverter/multiple/electricity?stationId={}&type=month&date={month}",
            pick(i)
        )
    })
    .await?;
    let fleet_repeats = (repeats / 2).max(5);
    measure(addr, &token, "fleet_year_generation", fleet_repeats, |_| {
        format!("/api/report/station/multiple/electricity?type=year&date={year}")
    })
    .await?;
    measure(addr, &token, "fleet_year_savings", fleet_repeats, |_| {
        format!("/api/stationMeterReport/energyConservation?type=year&date={year}")
    })
    .await?;
    let (first, _) = get(addr, &token, "/api/homePage/data").await?;
    figure("report_home_revenue_first_ms", first.as_secs_f64() * 1000.0, "ms");
    measure(addr, &token, "home_kept", fleet_repeats, |_| {
        "/api/homePage/data".into()
    })
    .await?;
    let _ = stop.send(());
    server.await.context("server task")??;
    Ok(())
}
