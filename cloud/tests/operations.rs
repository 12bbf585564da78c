//! Operating a hub: the real `pv-cloud` binary with a gateway publishing through its broker.
//! `/metrics` is scraped on its own listener and shows what ingest really did (samples accepted
//! equal the rows stored, a malformed payload counted under its reason), refuses a scrape without
//! the token, and is not served anonymously on the public port. A backup taken while the hub runs
//! and ingests, restored after a wipe, brings back the same answers from the API. Runs on SQLite,
//! or on PostgreSQL (`pg_dump`/`pg_restore`) when `TEST_POSTGRES_URL` is set.

use crate::support;

use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::{Duration, Instant};
use support::process::free_port;

use futures_util::StreamExt;
use pv_shared::wire::TelemetryBatch;
use serde_json::{Value as Json, json};
use support::{Client, Device, GatewayClient, sample};

const T: Duration = Duration::from_secs(15);
const TOKEN: &str = "scrape-secret-1";

/// A child process killed when the test ends, however it ends.
struct Proc(Child);

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

struct Hub {
    http_port: u16,
    broker_port: u16,
    metrics_port: u16,
    data_dir: PathBuf,
    database_url: String,
}

impl Hub {
    fn new(data_dir: PathBuf, database_url: String) -> Hub {
        Hub {
            http_port: free_port(),
            broker_port: free_port(),
            metrics_port: free_port(),
            data_dir,
            database_url,
        }
    }

    fn base(&self) -> String {
        format!("http://127.0.0.1:{}", self.http_port)
    }

    fn metrics_url(&self) -> String {
        format!("http://127.0.0.1:{}/metrics", self.metrics_port)
    }

    fn command(&self) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_pv-cloud"));
        c.env("PV_LISTEN", format!("127.0.0.1:{}", self.http_port))
            .env("PV_DATA_DIR", &self.data_dir)
            .env("PV_DATABASE_URL", &self.database_url)
            .env("PV_BROKER__LISTEN", format!("127.0.0.1:{}", self.broker_port))
            .env("PV_METRICS__LISTEN", format!("127.0.0.1:{}", self.metrics_port))
            .env("PV_METRICS__TOKEN", TOKEN)
            .env("PV_TELEMETRY__ROLLUP_DELAY_SECONDS", "0")
            .env("PV_TELEMETRY__ROLLUP_INTERVAL_MS", "200")
            .env("PV_DEMO__ENABLED", "false")
            .env("RUST_LOG", "info")
            .env("NO_COLOR", "1");
        c
    }

    /// Starts the binary (its log beside the data, which a wipe removes: kept outside).
    async fn start(&self, log: &Path) -> Proc {
        let file = std::fs::File::create(log).expect("log file");
        let child = self
            .command()
            .stdout(file.try_clone().expect("log file"))
            .stderr(file)
            .spawn()
            .expect("start pv-cloud");
        let proc = Proc(child);
        let deadline = Instant::now() + Duration::from_secs(60);
        let client = crate::support::client::http();
        loop {
            if let Ok(r) = client.get(format!("{}/api/health", self.base())).send().await
                && r.status().is_success()
            {
                return proc;
            }
            let text = std::fs::read_to_string(log).unwrap_or_default();
            assert!(Instant::now() < deadline, "hub not healthy:\n{text}");
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    /// `pv-cloud backup|restore <dir>` with the hub's configuration.
    fn task(&self, task: &str, dir: &Path) {
        let out = self.command().arg(task).arg(dir).output().expect("run pv-cloud");
        assert!(
            out.status.success(),
            "{task}: {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }

    fn gateway_addr(&self) -> std::net::SocketAddr {
        format!("127.0.0.1:{}", self.broker_port).parse().expect("addr")
    }

    async fn count(&self, sql: &'static str) -> i64 {
        sqlx::any::install_default_drivers();
        let pool = sqlx::AnyPool::connect(&self.database_url)
            .await
            .expect("database");
        let n: i64 = sqlx::query_scalar(sql).fetch_one(&pool).await.expect("count");
        pool.close().await;
        n
    }
}

/// A station with one inverter `sn` behind `gateway`, made by the platform administrator;
/// returns (admin client, station id, inverter id, gateway password).
async fn provision(hub: &Hub, gateway: &str, sn: &str) -> (Client<'static>, String, String, String) {
    let token = Client::at(&hub.base()).token_of("000000", "admin", "admin").await;
    let admin = Client::at(&hub.base()).with_token(&token);
    let station = admin
        .station_with(json!({"name": format!("Plant {gateway}"), "gatewayId": gateway}))
        .await;
    let inverter = admin
        .device(
            Device::Inverter,
            json!({"stationId": station, "name": "INV-1", "sn": sn,
                "mapModel": "sungrow-sg-cx", "unitId": 1, "stringsCount": 2}),
        )
        .await;
    let password = admin.gateway_credentials(&station).await.ok().data()["password"]
        .as_str()
        .expect("password")
        .to_owned();
    (admin, station, inverter, password)
}

/// The value of one series (`name` or `name{labels}` exactly as exposed), if exposed.
fn series(text: &str, name: &str) -> Option<f64> {
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.trim().parse().ok())
}

async fn scrape(url: &str, token: Option<&str>) -> (u16, String) {
    let mut req = crate::support::client::http().get(url);
    if let Some(t) = token {
        req = req.bearer_auth(t);
    }
    let res = req.send().await.expect("scrape");
    let status = res.status().as_u16();
    (status, res.text().await.unwrap_or_default())
}

/// Scrapes until `done` holds (ingest and the engine work asynchronously), then returns the text.
async fn scrape_until(hub: &Hub, done: impl Fn(&str) -> bool) -> String {
    let deadline = Instant::now() + T;
    loop {
        let (status, text) = scrape(&hub.metrics_url(), Some(TOKEN)).await;
        assert_eq!(status, 200, "{text}");
        if done(&text) {
            return text;
        }
        assert!(Instant::now() < deadline, "metrics never got there:\n{text}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_count_what_ingest_did_and_need_the_token() {
    let tmp = tempfile::tempdir().expect("tmp");
    let data_dir = tmp.path().join("data");
    let database_url = support::fresh_database_url(tmp.path()).await;
    let hub = Hub::new(data_dir, database_url);
    let _proc = hub.start(&tmp.path().join("hub.log")).await;
    let (admin, _station, _inverter, password) = provision(&hub, "GW-M-1", "M-INV-1").await;

    // Nothing yet: every reason is exposed at 0 from the start.
    let (status, text) = scrape(&hub.metrics_url(), Some(TOKEN)).await;
    assert_eq!(status, 200, "{text}");
    assert_eq!(
        series(&text, "pv_ingest_samples_accepted_total"),
        Some(0.0),
        "{text}"
    );
    assert_eq!(
        series(&text, "pv_ingest_refused_total{reason=\"malformed\"}"),
        Some(0.0)
    );

    // A bell open in the console.
    let sign_in = Client::at(&hub.base()).sign_in("000000", "admin", "admin").await;
    let (user, token) = (
        sign_in.body["user_id"].as_str().expect("user id").to_owned(),
        sign_in.body["access_token"].as_str().expect("token").to_owned(),
    );
    let (mut bell, _) = tokio_tungstenite::connect_async(format!(
        "ws://127.0.0.1:{}/ws/{user}?token={token}",
        hub.http_port
    ))
    .await
    .expect("bell");
    bell.next().await.expect("first list").expect("frame");

    let mut gw = GatewayClient::connect(hub.gateway_addr(), "GW-M-1", Some(("GW-M-1", &password)), None)
        .await
        .expect("gateway signs in");
    // Three batches of 1, 2 and 3 samples with two values each, every one acknowledged.
    let ts = support::now_ms() - 120_000;
    let mut seq = 0;
    for n in 1..=3 {
        let batch: Vec<_> = (0..n)
            .map(|_| {
                seq += 1;
                sample(
                    seq,
                    "M-INV-1",
                    ts + seq as i64 * 1000,
                    &[("ac_power", 1000.0), ("energy_total", 5.0)],
                )
            })
            .collect();
        gw.send(&TelemetryBatch::new("GW-M-1", false, batch)).await;
        gw.ack_within(T).await.expect("acknowledged");
    }
    // A malformed payload on the gateway's own topic, and a sample of a device nobody added.
    gw.publish(
        &pv_shared::topics::telemetry("GW-M-1").expect("topic"),
        b"{not json".to_vec(),
    )
    .await;
    seq += 1;
    gw.send(&TelemetryBatch::new(
        "GW-M-1",
        false,
        vec![sample(seq, "NOBODY-9", ts, &[("ac_power", 1.0)])],
    ))
    .await;
    gw.ack_within(T)
        .await
        .expect("a refused batch is acknowledged too");
    // A request to a path that does not exist: counted under its route template.
    let r = admin.get("/api/no-such-thing/12345").await;
    assert_eq!(r.status, 404);

    // Ingest and the alarm engine both done: the engine takes the stored batches after the ack,
    // so on a loaded machine its inbox could still hold them at the first scrape.
    let text = scrape_until(&hub, |t| {
        series(t, "pv_ingest_refused_total{reason=\"malformed\"}") == Some(1.0)
            && series(t, "pv_ingest_refused_total{reason=\"unknown_device\"}") == Some(1.0)
            && series(t, "pv_alarm_engine_inbox") == Some(0.0)
    })
    .await;
    let stored = hub.count("SELECT COUNT(*) FROM pv_telemetry_raw").await;
    assert_eq!(stored, 6);
    assert_eq!(
        series(&text, "pv_ingest_samples_accepted_total"),
        Some(stored as f64),
        "{text}"
    );
    assert_eq!(series(&text, "pv_ingest_points_accepted_total"), Some(12.0));
    // The batch whose only sample was refused is acknowledged as well.
    assert_eq!(series(&text, "pv_ingest_batches_stored_total"), Some(4.0));
    assert_eq!(
        series(&text, "pv_ingest_refused_total{reason=\"oversized\"}"),
        Some(0.0)
    );
    // Every acknowledgement was timed.
    assert_eq!(
        series(&text, "pv_ingest_ack_latency_seconds_count"),
        Some(4.0),
        "{text}"
    );
    let latency = series(&text, "pv_ingest_ack_latency_seconds_sum").expect("latency sum");
    assert!(latency > 0.0 && latency < 30.0, "{latency}");
    assert_eq!(series(&text, "pv_ingest_writer_queue_capacity"), Some(256.0));
    assert_eq!(series(&text, "pv_ingest_writer_queue_depth"), Some(0.0));
    assert_eq!(series(&text, "pv_gateways_online"), Some(1.0), "{text}");
    assert_eq!(series(&text, "pv_gateway_online{gateway=\"GW-M-1\"}"), Some(1.0));
    assert_eq!(series(&text, "pv_websocket_clients"), Some(1.0), "{text}");
    assert_eq!(series(&text, "pv_alarm_engine_inbox"), Some(0.0));
    assert!(series(&text, "pv_alarm_engine_lag_seconds").is_some());
    assert_eq!(
        series(&text, "pv_db_pool_connections{pool=\"main\",state=\"max\"}"),
        Some(16.0)
    );
    assert!(
        series(&text, "pv_db_pool_connections{pool=\"durable\",state=\"open\"}").is_some_and(|n| n >= 1.0)
    );
    assert!(series(&text, "pv_db_acquire_wait_seconds_count").is_some_and(|n| n >= 3.0));
    assert!(series(&text, "pv_process_uptime_seconds").is_some_and(|s| s > 0.0));
    let backend = if support::is_postgres() {
        "postgres"
    } else {
        "sqlite"
    };
    assert_eq!(
        series(
            &text,
            &format!(
                "pv_build_info{{version=\"{}\",backend=\"{backend}\"}}",
                env!("CARGO_PKG_VERSION")
            )
        ),
        Some(1.0),
        "{text}"
    );
    // Routes by template, never by the path asked for.
    assert!(
        series(
            &text,
            "pv_http_requests_total{route=\"/api/station\",method=\"POST\",status=\"200\"}"
        )
        .is_some_and(|n| n >= 1.0),
        "{text}"
    );
    assert_eq!(
        series(
            &text,
            "pv_http_requests_total{route=\"/api/{*rest}\",method=\"GET\",status=\"404\"}"
        ),
        Some(1.0),
        "{text}"
    );
    assert!(!text.contains("12345"), "a path's own values never become labels");

    // The socket closes: the gauge follows.
    drop(bell);
    scrape_until(&hub, |t| series(t, "pv_websocket_clients") == Some(0.0)).await;

    // Without the token, or with another, nothing is told.
    for token in [None, Some("wrong")] {
        let (status, text) = scrape(&hub.metrics_url(), token).await;
        assert_eq!(status, 401, "{token:?}");
        assert!(!text.contains("pv_"), "{text}");
    }
    // The public port serves it only with the token (it is configured here).
    let public = format!("{}/metrics", hub.base());
    let (status, text) = scrape(&public, None).await;
    assert_eq!(status, 401);
    assert!(!text.contains("pv_ingest"), "{text}");
    let (status, text) = scrape(&public, Some(TOKEN)).await;
    assert_eq!(status, 200);
    assert!(series(&text, "pv_ingest_samples_accepted_total").is_some());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_token_metrics_are_not_on_the_public_port() {
    let app = support::TestApp::start().await;
    let (status, _, body) = app.anon().raw(reqwest::Method::GET, "/metrics").await;
    assert_eq!(status, 404);
    let body = String::from_utf8_lossy(&body);
    assert!(!body.contains("pv_"), "{body}");
    // The instruments count all the same (here: that very request, by its route).
    let text = pv_cloud::scrape::render(&app.state);
    assert!(
        text.contains("pv_http_requests_total{route=\"/metrics\",method=\"GET\",status=\"404\"} 1"),
        "{text}"
    );
}

impl Hub {
    async fn text(&self, sql: &'static str) -> String {
        sqlx::any::install_default_drivers();
        let pool = sqlx::AnyPool::connect(&self.database_url)
            .await
            .expect("database");
        let s: String = sqlx::query_scalar(sql).fetch_one(&pool).await.expect("text");
        pool.close().await;
        s
    }

    /// Everything gone: the data directory, and on PostgreSQL the database (made again, empty,
    /// as an operator would before `pg_restore`).
    async fn wipe(&self) {
        std::fs::remove_dir_all(&self.data_dir).expect("wipe data");
        if let Ok(admin) = std::env::var("TEST_POSTGRES_URL")
            && !admin.is_empty()
        {
            let name = self
                .database_url
                .rsplit('/')
                .next()
                .expect("database name")
                .to_owned();
            let pool = sqlx::AnyPool::connect(&admin).await.expect("admin");
            for sql in [
                format!("DROP DATABASE {name} WITH (FORCE)"),
                format!("CREATE DATABASE {name}"),
            ] {
                sqlx::query(sqlx::AssertSqlSafe(sql))
                    .execute(&pool)
                    .await
                    .expect("wipe database");
            }
            pool.close().await;
        }
    }
}

/// What the console would show of the hub's data: (label, answer), compared field by field
/// where a field moves with the clock.
async fn answers(admin: &Client<'_>, inverter: &str, file_link: &str, day: &str) -> Vec<(String, Json)> {
    let stations = admin.get_data("/api/station/list").await;
    let stations: Vec<Json> = stations
        .as_array()
        .expect("stations")
        .iter()
        .map(|s| json!({"id": s["id"], "name": s["name"]}))
        .collect();
    let users = admin.get_data("/api/blade-user/page?size=100").await;
    let users: Vec<Json> = users["records"]
        .as_array()
        .expect("users")
        .iter()
        .map(|u| json!({"id": u["id"], "account": u["account"], "realName": u["realName"]}))
        .collect();
    let alarms = admin.get_data("/api/alarmData/page?size=100").await;
    let alarms: Vec<Json> = alarms["records"]
        .as_array()
        .expect("alarms")
        .iter()
        .map(|a| json!({"id": a["id"], "warningName": a["warningName"], "inverter": a["inverter"], "date": a["date"]}))
        .collect();
    let curve = admin
        .get_data(&format!(
            "/api/inverterReal/listWaveTag?inverterIds={inverter}&names=ac_power&date={day}"
        ))
        .await;
    let (status, _, file) = admin.raw(reqwest::Method::GET, file_link).await;
    assert_eq!(status, 200, "download {file_link}");
    vec![
        ("stations".into(), json!(stations)),
        ("users".into(), json!(users)),
        ("alarms".into(), json!(alarms)),
        ("curve".into(), curve),
        ("file".into(), json!(String::from_utf8_lossy(&file))),
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backup_taken_while_ingesting_restores_the_same_answers_after_a_wipe() {
    let tmp = tempfile::tempdir().expect("tmp");
    let data_dir = tmp.path().join("data");
    std::fs::create_dir_all(&data_dir).expect("data dir");
    let database_url = support::fresh_database_url(&data_dir).await;
    let hub = Hub::new(data_dir.clone(), database_url);
    let proc = hub.start(&tmp.path().join("hub-1.log")).await;
    let (admin, station, inverter, password) = provision(&hub, "GW-B-1", "B-INV-1").await;
    // A second inverter keeps publishing while the backup is taken.
    admin
        .device(
            Device::Inverter,
            json!({"stationId": station, "name": "INV-2", "sn": "B-INV-2",
                "mapModel": "sungrow-sg-cx", "unitId": 2, "stringsCount": 2}),
        )
        .await;
    let role = hub
        .text("SELECT CAST(id AS VARCHAR(20)) FROM blade_role WHERE tenant_id = '000000' AND role_alias = 'administrator'")
        .await;
    let dept = hub
        .text("SELECT CAST(id AS VARCHAR(20)) FROM blade_dept WHERE tenant_id = '000000'")
        .await;
    admin
        .post_json(
            "/api/blade-user/submit",
            json!({"account": "op_1", "password": "pw-123456", "password2": "pw-123456",
                "realName": "Operator One", "roleId": role, "deptId": dept}),
        )
        .await
        .ok();
    let uploaded = admin
        .upload_file(
            "/api/blade-resource/oss/endpoint/put-file",
            "notes.txt",
            b"commissioning notes".to_vec(),
        )
        .await
        .ok();
    let link = uploaded.data()["link"].as_str().expect("link").to_owned();

    // Telemetry through the broker: a healthy minute, then Sungrow fault code 2 (an alarm).
    let mut gw = GatewayClient::connect(hub.gateway_addr(), "GW-B-1", Some(("GW-B-1", &password)), None)
        .await
        .expect("gateway signs in");
    // Today at +08:00, even just after local midnight; the curve is asked for this day by name
    // (asked for "today", the answers before and after the restore differed across midnight).
    let day = support::local_today();
    let t0 = (support::now_ms() - 10 * 60_000).max(support::local_midnight(day) + 1_000);
    let mut seq = 0u64;
    let healthy: Vec<_> = (0..12)
        .map(|i| {
            seq += 1;
            sample(
                seq,
                "B-INV-1",
                t0 + i * 5_000,
                &[("ac_power", 1000.0 + i as f64), ("fault_code", 0.0)],
            )
        })
        .collect();
    gw.send(&TelemetryBatch::new("GW-B-1", false, healthy)).await;
    gw.ack_within(T).await.expect("acknowledged");
    seq += 1;
    let fault = sample(
        seq,
        "B-INV-1",
        t0 + 60_000,
        &[("ac_power", 0.0), ("fault_code", 2.0)],
    );
    gw.send(&TelemetryBatch::new("GW-B-1", false, vec![fault])).await;
    gw.ack_within(T).await.expect("acknowledged");
    let deadline = Instant::now() + T;
    let before = loop {
        let a = answers(&admin, &inverter, &link, &day.to_string()).await;
        let alarms = a[2].1.as_array().map(Vec::len).unwrap_or(0);
        let points = a[3].1["series"][0]["points"]
            .as_array()
            .map(Vec::len)
            .unwrap_or(0);
        // The curve must be the settled one: a rollup computed before the fault sample was
        // stored would be recomputed after the restore and differ for no fault of the backup.
        let unsettled = hub.count("SELECT COUNT(*) FROM pv_telemetry_dirty").await;
        if alarms == 1 && points > 0 && unsettled == 0 {
            break a;
        }
        assert!(Instant::now() < deadline, "no alarm or curve yet: {a:?}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert_eq!(
        before[1].1.as_array().map(Vec::len),
        Some(2),
        "admin and op_1: {:?}",
        before[1]
    );
    let inv1_rows = hub.count("SELECT COUNT(*) FROM pv_telemetry_raw").await;
    assert_eq!(inv1_rows, 13);

    // The backup while the other inverter publishes.
    let busy = {
        let gw = GatewayClient::connect(hub.gateway_addr(), "GW-B-1", Some(("GW-B-1", &password)), None)
            .await
            .expect("second connection");
        tokio::spawn(async move {
            for i in 0..200u64 {
                let s = sample(
                    10_000 + i,
                    "B-INV-2",
                    support::now_ms() - 1_000,
                    &[("ac_power", 1.0)],
                );
                gw.send(&TelemetryBatch::new("GW-B-1", false, vec![s])).await;
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            gw
        })
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    let backup = tmp.path().join("backup");
    hub.task("backup", &backup);
    assert!(!busy.is_finished(), "ingest still running when the backup ended");
    let _ = busy.await;
    drop(gw);
    drop(proc);

    hub.wipe().await;
    assert!(!data_dir.exists());
    hub.task("restore", &backup);
    // A restore never overwrites a database.
    if !support::is_postgres() {
        let out = hub.command().arg("restore").arg(&backup).output().expect("run");
        assert!(
            !out.status.success(),
            "a second restore over the first is refused"
        );
    }
    let _proc = hub.start(&tmp.path().join("hub-2.log")).await;
    // The token secret came back with the files: the token signed before still works.
    let after = answers(&admin, &inverter, &link, &day.to_string()).await;
    for ((what, was), (_, is)) in before.iter().zip(&after) {
        assert_eq!(was, is, "{what}");
    }
    let inv1 = hub
        .count("SELECT COUNT(*) FROM pv_telemetry_raw WHERE seq < 10000")
        .await;
    assert_eq!(inv1, inv1_rows, "every sample stored before the backup is back");
}

/// Every series the Grafana dashboard queries is one the hub exposes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_dashboard_asks_only_for_series_the_hub_exposes() {
    let app = support::TestApp::start().await;
    // One request, so the request counter has a series to show.
    app.anon().get("/api/health").await;
    let text = pv_cloud::scrape::render(&app.state);
    let dashboard = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../docker/grafana-dashboard.json"
    ))
    .expect("dashboard");
    let mut names: Vec<&str> = dashboard
        .match_indices("pv_")
        .map(|(i, _)| {
            let rest = &dashboard[i..];
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            &rest[..end]
        })
        .collect();
    names.sort_unstable();
    names.dedup();
    assert!(names.len() >= 10, "{names:?}");
    for name in names {
        let exposed = text.lines().any(|l| l.starts_with(&format!("# TYPE {name} ")))
            || text.lines().any(|l| l.starts_with(name));
        assert!(exposed, "{name} is not exposed:\n{text}");
    }
}
