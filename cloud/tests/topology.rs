//! Several hubs on one PostgreSQL behind one Mosquitto, every part a real process: the broker
//! (with the password and ACL files the hubs write), two `pv-cloud` replicas, three
//! `pv-edge simulate` inverters and three `pv-edge run` agents using the configurations the hub
//! generated. Asserts that the gateways are shared out by leases (`telemetry::ownership`) and
//! each gateway's telemetry is delivered to one replica at a time (read from the broker's own
//! log); that after a `kill -9` of one replica its gateways move to the other within
//! `lease_seconds + lease_heartbeat_seconds`; that every sample the agents took is stored, once,
//! with no gap across the crash; and that a gateway cannot publish on another gateway's topic.
//!
//! The PostgreSQL is `TEST_POSTGRES_URL`'s when set (the PostgreSQL layer of `scripts/test`),
//! else one this test starts with `scripts/pg-start`: several hubs need a database server, and
//! the test runs rather than skips. Mosquitto missing is a failure (`scripts/setup` installs it).

use crate::support;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use pv_cloud::kernel::db::Db;
use pv_shared::wire::TelemetryBatch;
use serde_json::json;
use support::mosquitto::BrokerFiles;
use support::process::{Proc, free_port, repo_root};
use support::{Client, Device, GatewayClient, sample};

const LEASE_S: u64 = 6;
const HEARTBEAT_S: u64 = 2;
const POLL_MS: i64 = 500;
const GATEWAYS: [&str; 3] = ["GW-T1", "GW-T2", "GW-T3"];
const HUB_USER: &str = "pv-hub";

/// A PostgreSQL this test started, stopped when dropped.
struct OwnPg(String);

impl Drop for OwnPg {
    fn drop(&mut self) {
        let _ = Command::new(repo_root().join("scripts/pg-stop"))
            .arg(&self.0)
            .status();
    }
}

/// The admin URL of a PostgreSQL server, starting one when the environment names none.
fn postgres() -> (String, Option<OwnPg>) {
    if let Ok(url) = std::env::var("TEST_POSTGRES_URL")
        && !url.is_empty()
    {
        return (url, None);
    }
    let out = Command::new(repo_root().join("scripts/pg-start"))
        .env("PG_TEST_PORT", free_port().to_string())
        .output()
        .expect("scripts/pg-start runs");
    assert!(
        out.status.success(),
        "scripts/pg-start: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let var = |name: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(&format!("export {name}=")))
            .map(str::to_owned)
            .unwrap_or_else(|| panic!("{name} in pg-start's output: {text}"))
    };
    let url = var("TEST_POSTGRES_URL");
    (url, Some(OwnPg(var("PG_TEST_DIR"))))
}

async fn create_database(admin: &str) -> String {
    sqlx::any::install_default_drivers();
    let mut b = [0u8; 6];
    getrandom::fill(&mut b).expect("random");
    let name = format!("pv_topology_{}", hex::encode(b));
    let pool = sqlx::AnyPool::connect(admin).await.expect("admin connection");
    sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
        .execute(&pool)
        .await
        .expect("create database");
    pool.close().await;
    let base = admin
        .rsplit_once('/')
        .map(|(b, _)| b.to_owned())
        .unwrap_or_default();
    format!("{base}/{name}")
}

struct Hub {
    node: u16,
    http_port: u16,
    data_dir: PathBuf,
}

impl Hub {
    fn base(&self) -> String {
        format!("http://127.0.0.1:{}", self.http_port)
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.data_dir.join("hub.log")).unwrap_or_default()
    }
}

/// What every replica shares: the database, the broker and its files, the secrets.
struct Cluster {
    database_url: String,
    files: BrokerFiles,
    broker_port: u16,
    hub_password: String,
    secret: String,
}

impl Cluster {
    fn spawn(&self, node: u16, root: &Path) -> (Hub, Proc) {
        let hub = Hub {
            node,
            http_port: free_port(),
            data_dir: root.join(format!("hub-{node}")),
        };
        std::fs::create_dir_all(&hub.data_dir).expect("hub dir");
        let log = std::fs::File::create(hub.data_dir.join("hub.log")).expect("log");
        let f = &self.files;
        let port = self.broker_port;
        let child = Command::new(env!("CARGO_BIN_EXE_pv-cloud"))
            .env("PV_LISTEN", format!("127.0.0.1:{}", hub.http_port))
            .env("PV_DATA_DIR", &hub.data_dir)
            .env("PV_DATABASE_URL", &self.database_url)
            .env("PV_NODE_ID", node.to_string())
            .env("PV_TOKEN_SECRET", &self.secret)
            .env("PV_STATION__CREDENTIAL_KEY", &self.secret)
            .env("PV_BROKER__EMBEDDED", "false")
            .env(
                "PV_BROKER__URL",
                format!("mqtt://{HUB_USER}:{}@127.0.0.1:{port}", self.hub_password),
            )
            .env("PV_BROKER__PUBLIC_URL", format!("mqtt://127.0.0.1:{port}"))
            .env("PV_BROKER__MOSQUITTO_PASSWORD_FILE", &f.password_file)
            .env("PV_BROKER__MOSQUITTO_ACL_FILE", &f.acl_file)
            .env(
                "PV_BROKER__MOSQUITTO_RELOAD_COMMAND",
                format!("kill -HUP \"$(cat '{}')\"", f.pid_file.display()),
            )
            .env("PV_BROKER__LEASE_SECONDS", LEASE_S.to_string())
            .env("PV_BROKER__LEASE_HEARTBEAT_SECONDS", HEARTBEAT_S.to_string())
            .env("PV_LOG__FILTER", "info,pv_cloud::telemetry::ownership=debug")
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("start pv-cloud");
        (hub, Proc(child))
    }
}

async fn wait_healthy(hub: &Hub) {
    let deadline = Instant::now() + Duration::from_secs(60);
    let client = crate::support::client::http();
    loop {
        if let Ok(r) = client.get(format!("{}/api/health", hub.base())).send().await
            && r.status().is_success()
        {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "hub {} not healthy:\n{}",
            hub.node,
            hub.log()
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// Current leases: gateway → node id of the replica holding it.
async fn leases(db: &Db) -> BTreeMap<String, u16> {
    let rows: Vec<(String, String)> = sqlx::query_as(
        "SELECT gateway_id, replica FROM pv_gateway_lease \
         WHERE expires_at > CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT)",
    )
    .fetch_all(db.pool())
    .await
    .expect("leases");
    rows.into_iter()
        .map(|(g, r)| {
            let node = r
                .split('-')
                .next()
                .and_then(|n| n.parse().ok())
                .expect("replica id");
            (g, node)
        })
        .collect()
}

/// Polls the leases until `ready` accepts them.
async fn leases_until(
    db: &Db,
    limit: Duration,
    what: &str,
    ready: impl Fn(&BTreeMap<String, u16>) -> bool,
) -> BTreeMap<String, u16> {
    let deadline = Instant::now() + limit;
    loop {
        let now = leases(db).await;
        if ready(&now) {
            return now;
        }
        assert!(Instant::now() < deadline, "{what}: leases {now:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Stored sample times per inverter serial.
async fn stored(db: &Db) -> BTreeMap<String, Vec<i64>> {
    let rows: Vec<(String, i64)> = sqlx::query_as(
        "SELECT i.sn, r.ts FROM pv_telemetry_raw r JOIN pv_inverter i ON i.id = r.device_id ORDER BY i.sn, r.ts",
    )
    .fetch_all(db.pool())
    .await
    .expect("raw rows");
    let mut out: BTreeMap<String, Vec<i64>> = BTreeMap::new();
    for (sn, ts) in rows {
        out.entry(sn).or_default().push(ts);
    }
    out
}

/// For each gateway, the hub clients its telemetry was delivered to, in delivery order, from
/// the broker's log ("Sending PUBLISH to <client> (..., '<topic>', ...").
fn deliveries(log: &str) -> BTreeMap<String, Vec<String>> {
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for line in log.lines() {
        let Some(rest) = line.split("Sending PUBLISH to ").nth(1) else {
            continue;
        };
        let client = rest.split_whitespace().next().unwrap_or_default();
        let Some(topic) = rest.split('\'').nth(1) else {
            continue;
        };
        if let Some(gw) = topic
            .strip_prefix("pv/1/")
            .and_then(|t| t.strip_suffix("/up/telemetry"))
        {
            out.entry(gw.to_owned()).or_default().push(client.to_owned());
        }
    }
    out
}

/// How often consecutive deliveries changed hands.
fn switches(clients: &[String]) -> usize {
    clients.windows(2).filter(|w| w[0] != w[1]).count()
}

fn now_ms() -> i64 {
    support::now_ms()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_hubs_share_gateways_by_lease_and_a_killed_one_loses_nothing() {
    let started = Instant::now();
    let tmp = tempfile::tempdir().expect("tmp");
    let (admin, _own_pg) = postgres();
    let mut pw = [0u8; 12];
    getrandom::fill(&mut pw).expect("random");
    let mut secret = [0u8; 32];
    getrandom::fill(&mut secret).expect("random");
    let cluster = Cluster {
        database_url: create_database(&admin).await,
        files: BrokerFiles::new(),
        broker_port: free_port(),
        hub_password: hex::encode(pw),
        secret: hex::encode(secret),
    };
    let db = Db::connect(&cluster.database_url, 2).await.expect("db");

    // Hub 1 first (it brings the schema up); the gateways are provisioned through its API.
    let (hub1, proc1) = cluster.spawn(1, tmp.path());
    wait_healthy(&hub1).await;
    let token = Client::at(&hub1.base())
        .token_of("000000", "admin", "admin")
        .await;
    let installer = Client::at(&hub1.base()).with_token(&token);
    let http = crate::support::client::http();
    let maps = repo_root().join("firmware-configs");
    let mut agents_cfg = Vec::new();
    for (i, gw) in GATEWAYS.iter().enumerate() {
        let sim_port = free_port();
        let station = installer
            .station_with(json!({"name": format!("Plant {gw}"), "gatewayId": gw}))
            .await;
        installer
            .device(
                Device::Inverter,
                json!({"stationId": station, "name": format!("INV-{i}"), "sn": format!("INV-T{}", i + 1),
                    "mapModel": "huawei-sun2000-ktl", "unitId": 1, "stringsCount": 8,
                    "modbusAddress": format!("tcp://127.0.0.1:{sim_port}")}),
            )
            .await;
        let password = installer.gateway_credentials(&station).await.ok().data()["password"]
            .as_str()
            .expect("password")
            .to_owned();
        let config = http
            .get(format!(
                "{}/api/station/gateway/config?stationId={station}",
                hub1.base()
            ))
            .header("Blade-Auth", format!("bearer {token}"))
            .send()
            .await
            .expect("config")
            .text()
            .await
            .expect("config text");
        agents_cfg.push((gw.to_string(), sim_port, password, config));
    }
    // The hub wrote every gateway's account; then the broker starts on those files.
    let files_ready = support::eventually(Duration::from_secs(15), || async {
        std::fs::read_to_string(&cluster.files.password_file)
            .is_ok_and(|s| GATEWAYS.iter().all(|g| s.contains(&format!("\n{g}:$7$"))))
    })
    .await;
    assert!(files_ready, "accounts written:\n{}", hub1.log());
    let broker = cluster.files.start(cluster.broker_port, true);

    // Hub 2 joins: the gateways are shared out, two and one.
    let (hub2, proc2) = cluster.spawn(2, tmp.path());
    wait_healthy(&hub2).await;
    let shared = leases_until(
        &db,
        Duration::from_secs(30),
        "gateways shared by two replicas",
        |l| l.len() == 3 && l.values().collect::<BTreeSet<_>>().len() == 2,
    )
    .await;

    // Three inverters and their agents.
    let mut procs = Vec::new();
    let edge = support::pv_edge_binary();
    for (gw, sim_port, password, config) in &agents_cfg {
        let dir = tmp.path().join(gw);
        std::fs::create_dir_all(&dir).expect("gateway dir");
        let config: String = config
            .lines()
            .map(|l| {
                if l.starts_with("data_dir = ") {
                    format!("data_dir = {:?}", dir.join("state").display().to_string())
                } else if l.starts_with("maps_dir = ") {
                    format!("maps_dir = {:?}", maps.display().to_string())
                } else if l.starts_with("password_file = ") {
                    // A batch no hub took (nobody subscribed during the handover) is sent again
                    // after the ack timeout: short here so the test stays short.
                    format!(
                        "password_file = {:?}\nack_timeout_s = 3",
                        dir.join("mqtt-password").display().to_string()
                    )
                } else if l.starts_with("interval_ms = ") {
                    format!("interval_ms = {POLL_MS}")
                } else {
                    l.to_owned()
                }
            })
            .collect::<Vec<_>>()
            .join("\n");
        std::fs::write(dir.join("pv-edge.toml"), config).expect("write config");
        std::fs::write(dir.join("mqtt-password"), password).expect("write password");
        procs.push(Proc(
            Command::new(&edge)
                .args(["simulate", "--maps-dir"])
                .arg(&maps)
                .args(["--device", "1=huawei-sun2000-ktl", "--tcp"])
                .arg(format!("127.0.0.1:{sim_port}"))
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("start simulator"),
        ));
        let log = std::fs::File::create(dir.join("edge.log")).expect("edge log");
        procs.push(Proc(
            Command::new(&edge)
                .args(["run", "--config"])
                .arg(dir.join("pv-edge.toml"))
                .stdout(Stdio::null())
                .stderr(log)
                .spawn()
                .expect("start agent"),
        ));
    }

    // Every gateway's samples flow in.
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let s = stored(&db).await;
        if s.len() == 3 && s.values().all(|ts| ts.len() >= 6) {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "samples of every gateway: {:?}\nhub 1:\n{}\nhub 2:\n{}",
            s.iter().map(|(k, v)| (k, v.len())).collect::<Vec<_>>(),
            hub1.log(),
            hub2.log()
        );
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    tokio::time::sleep(Duration::from_secs(2)).await;

    // The replica holding two gateways is killed mid-stream (SIGKILL: no goodbye).
    let counts = |node: u16| shared.values().filter(|n| **n == node).count();
    let (victim, survivor, mut victim_proc, survivor_hub, _survivor_proc) = if counts(1) == 2 {
        (1u16, 2u16, proc1, hub2, proc2)
    } else {
        (2, 1, proc2, hub1, proc1)
    };
    let moved: Vec<String> = shared
        .iter()
        .filter(|(_, n)| **n == victim)
        .map(|(g, _)| g.clone())
        .collect();
    victim_proc.0.kill().expect("kill -9");
    let killed = Instant::now();
    let killed_ms = now_ms();
    let _ = victim_proc.0.wait();
    let all_moved = leases_until(
        &db,
        Duration::from_secs(LEASE_S + HEARTBEAT_S + 10),
        "the killed replica's gateways move",
        |l| l.len() == 3 && l.values().all(|n| *n == survivor),
    )
    .await;
    let handover = killed.elapsed();
    assert_eq!(all_moved.len(), 3);
    let bound = Duration::from_secs(LEASE_S + HEARTBEAT_S) + Duration::from_millis(500);
    assert!(
        handover <= bound,
        "handover took {handover:?}, documented at most {LEASE_S} s + {HEARTBEAT_S} s"
    );
    eprintln!("handover after kill -9: {handover:?} (bound {bound:?})");

    // The backlog of the killed replica's gateways arrives, and samples taken well after it.
    let deadline = Instant::now() + Duration::from_secs(40);
    let after = now_ms() + 3_000;
    loop {
        let s = stored(&db).await;
        if s.values().all(|ts| ts.last().is_some_and(|t| *t > after)) {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "samples after the handover:\n{}",
            survivor_hub.log()
        );
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    // A gateway cannot publish on another gateway's topic: GW-T1's forged sample for GW-T2's
    // inverter is refused by the broker, while its own on the same connection is stored.
    let (_, _, pw1, _) = &agents_cfg[0];
    let spoof = GatewayClient::connect(broker.addr(), "GW-T1-second", Some(("GW-T1", pw1)), None)
        .await
        .expect("GW-T1 signs in");
    let old = now_ms() - 3_600_000;
    let forged = TelemetryBatch::new(
        "GW-T2",
        false,
        vec![sample(1, "INV-T2", old, &[("ac_power", 666.0)])],
    );
    spoof
        .publish(
            &pv_shared::topics::telemetry("GW-T2").expect("topic"),
            pv_shared::wire::to_bytes(&forged).expect("batch"),
        )
        .await;
    let own = TelemetryBatch::new(
        "GW-T1",
        false,
        vec![sample(2, "INV-T1", old, &[("ac_power", 1.0)])],
    );
    spoof
        .publish(
            &pv_shared::topics::telemetry("GW-T1").expect("topic"),
            pv_shared::wire::to_bytes(&own).expect("batch"),
        )
        .await;
    let own_stored = support::eventually(Duration::from_secs(15), || async {
        stored(&db).await.get("INV-T1").is_some_and(|t| t.contains(&old))
    })
    .await;
    assert!(own_stored, "GW-T1's own sample is stored");
    assert!(
        !stored(&db).await.get("INV-T2").is_some_and(|t| t.contains(&old)),
        "GW-T1's forged sample for GW-T2 is not stored"
    );
    // The broker's log reaches its file in blocks: the agents' traffic pushes these lines out.
    let denied = support::eventually(Duration::from_secs(10), || async {
        broker.log_text().contains("Denied PUBLISH from GW-T1-second")
    })
    .await;
    assert!(
        denied,
        "the broker itself refused it:\n{}",
        tail(&broker.log_text())
    );
    // The agents stop here: what is stored is final.
    drop(procs);

    // Every sample once, no hole anywhere, the crash included: polled every 500 ms, a lost
    // batch would leave a gap of a second or more.
    let mut s = stored(&db).await;
    // The control sample of the attack above, an hour back, is not one the agents took.
    if let Some(ts) = s.get_mut("INV-T1") {
        ts.retain(|t| *t != old);
    }
    for (sn, ts) in &s {
        let mut unique = ts.clone();
        unique.dedup();
        assert_eq!(unique.len(), ts.len(), "{sn}: a sample stored twice");
        let widest = ts.windows(2).map(|w| w[1] - w[0]).max().unwrap_or(0);
        assert!(
            widest <= 3 * POLL_MS,
            "{sn}: a gap of {widest} ms in stored samples"
        );
        assert!(
            ts.iter().any(|t| (killed_ms..killed_ms + 2_000).contains(t)),
            "{sn}: samples taken right after the kill are stored"
        );
    }
    let rows: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM pv_telemetry_raw")
        .fetch_one(db.pool())
        .await
        .expect("count");
    let distinct: i64 =
        sqlx::query_scalar("SELECT COUNT(*) FROM (SELECT DISTINCT device_id, ts FROM pv_telemetry_raw) d")
            .fetch_one(db.pool())
            .await
            .expect("distinct");
    assert_eq!(rows, distinct, "one row per (device, ts)");

    // One alarm engine at a time: each gateway's telemetry went to one replica, and to the
    // survivor only after its owner died (one change of hands for the moved gateways, none
    // for the others).
    let log = broker.log_text();
    let delivered = deliveries(&log);
    for gw in GATEWAYS {
        let to = delivered.get(gw).cloned().unwrap_or_default();
        let expected = usize::from(moved.iter().any(|m| m == gw));
        assert!(!to.is_empty(), "{gw}: telemetry delivered to a hub");
        assert_eq!(
            switches(&to),
            expected,
            "{gw}: delivered to {:?}",
            to.iter().collect::<BTreeSet<_>>()
        );
        assert_eq!(
            to.last().map(String::as_str),
            Some(format!("pv-cloud-{survivor}").as_str()),
            "{gw}: ends with the survivor"
        );
    }

    db.close().await;
    eprintln!("topology test ran in {:?}", started.elapsed());
}

fn tail(log: &str) -> String {
    let lines: Vec<&str> = log.lines().collect();
    lines[lines.len().saturating_sub(40)..].join("\n")
}
