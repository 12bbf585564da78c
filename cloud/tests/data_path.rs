//! The data path end to end, every part its own process as in production: the `pv-cloud` binary
//! (HTTP + embedded broker + ingest), a `pv-edge simulate` Modbus TCP device and a `pv-edge run`
//! agent using the configuration and credentials the hub generated. A value written into the
//! simulated inverter's registers must reach `POST /api/inverterReal/list`; after the hub was
//! down for a while, the agent's backlog must arrive with no gap and nothing twice.

use crate::support;

use support::process::{Proc, free_port, repo_root};

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value as Json, json};
use support::{Client, Device};

struct Hub {
    base: String,
    http_port: u16,
    broker_port: u16,
    data_dir: PathBuf,
    database_url: String,
    client: reqwest::Client,
}

impl Hub {
    fn spawn(&self) -> Proc {
        let log = std::fs::File::create(self.data_dir.join("hub.log")).expect("log file");
        let child = Command::new(env!("CARGO_BIN_EXE_pv-cloud"))
            .env("PV_LISTEN", format!("127.0.0.1:{}", self.http_port))
            .env("PV_DATA_DIR", &self.data_dir)
            .env("PV_DATABASE_URL", &self.database_url)
            .env("PV_BROKER__LISTEN", format!("127.0.0.1:{}", self.broker_port))
            .env(
                "PV_BROKER__PUBLIC_URL",
                format!("mqtt://127.0.0.1:{}", self.broker_port),
            )
            .env("PV_TELEMETRY__ROLLUP_DELAY_SECONDS", "0")
            .env("PV_METRICS__TOKEN", METRICS_TOKEN)
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("start pv-cloud");
        Proc(child)
    }

    async fn wait_healthy(&self) {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if let Ok(r) = self.client.get(format!("{}/api/health", self.base)).send().await
                && r.status().is_success()
            {
                return;
            }
            assert!(Instant::now() < deadline, "hub not healthy:\n{}", self.log());
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    /// An anonymous caller of this hub.
    fn client(&self) -> Client<'static> {
        Client::at(&self.base)
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.data_dir.join("hub.log")).unwrap_or_default()
    }
}

const METRICS_TOKEN: &str = "data-path-metrics";

/// The inverter row of `sn` in the realtime list, once `ready` accepts it.
async fn wait_for_row(hub: &Hub, token: &str, sn: &str, what: &str, ready: impl Fn(&Json) -> bool) -> Json {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let page = hub
            .client()
            .with_token(token)
            .post_json("/api/inverterReal/list", json!({"sn": sn}))
            .await
            .ok()
            .body;
        let row = page["data"]["records"]
            .as_array()
            .and_then(|r| r.first().cloned())
            .unwrap_or(Json::Null);
        if ready(&row) {
            return row;
        }
        assert!(
            Instant::now() < deadline,
            "{what}: last row {row}\nhub log:\n{}",
            hub.log()
        );
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_simulated_value_reaches_the_api_through_edge_broker_and_ingest_and_survives_a_hub_outage() {
    let tmp = tempfile::tempdir().expect("tmp");
    let data_dir = tmp.path().join("hub");
    std::fs::create_dir_all(&data_dir).expect("hub dir");
    let database_url = support::fresh_database_url(&data_dir).await;
    let http_port = free_port();
    let hub = Hub {
        base: format!("http://127.0.0.1:{http_port}"),
        http_port,
        broker_port: free_port(),
        data_dir,
        database_url,
        client: crate::support::client::http(),
    };
    let mut hub_proc = Some(hub.spawn());
    hub.wait_healthy().await;
    let token = hub.client().token_of("000000", "admin", "admin").await;

    // Provisioned as an installer does it: station, inverter on a Modbus TCP address, credentials.
    let sim_port = free_port();
    let installer = hub.client().with_token(&token);
    let station = installer
        .station_with(json!({"name": "E2E plant", "gatewayId": "GW-E2E-1"}))
        .await;
    installer
        .device(
            Device::Inverter,
            json!({"stationId": station, "name": "INV-1", "sn": "E2E-INV-1",
            "mapModel": "huawei-sun2000-ktl", "unitId": 1, "stringsCount": 8,
            "modbusAddress": format!("tcp://127.0.0.1:{sim_port}")}),
        )
        .await;
    let password = installer.gateway_credentials(&station).await.ok().data()["password"]
        .as_str()
        .expect("password")
        .to_owned();
    let config = hub
        .client
        .get(format!(
            "{}/api/station/gateway/config?stationId={station}",
            hub.base
        ))
        .header("Blade-Auth", format!("bearer {token}"))
        .send()
        .await
        .expect("config")
        .text()
        .await
        .expect("config text");
    assert!(config.contains("E2E-INV-1"), "{config}");

    // The gateway's files: the generated config with this machine's folders, the password file.
    let gw_dir = tmp.path().join("gateway");
    std::fs::create_dir_all(&gw_dir).expect("gateway dir");
    let maps = repo_root().join("firmware-configs");
    let config: String = config
        .lines()
        .map(|l| {
            if l.starts_with("data_dir = ") {
                format!("data_dir = {:?}", gw_dir.join("state").display().to_string())
            } else if l.starts_with("maps_dir = ") {
                format!("maps_dir = {:?}", maps.display().to_string())
            } else if l.starts_with("password_file = ") {
                format!(
                    "password_file = {:?}",
                    gw_dir.join("mqtt-password").display().to_string()
                )
            } else if l.starts_with("interval_ms = ") {
                "interval_ms = 500".to_owned()
            } else {
                l.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    std::fs::write(gw_dir.join("pv-edge.toml"), config).expect("write config");
    std::fs::write(gw_dir.join("mqtt-password"), &password).expect("write password");

    let edge = support::pv_edge_binary();
    let _sim = Proc(
        Command::new(&edge)
            .args(["simulate", "--maps-dir"])
            .arg(&maps)
            .args(["--device", "1=huawei-sun2000-ktl", "--tcp"])
            .arg(format!("127.0.0.1:{sim_port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start simulator"),
    );
    let agent_log = std::fs::File::create(tmp.path().join("edge.log")).expect("edge log");
    let _agent = Proc(
        Command::new(&edge)
            .args(["run", "--config"])
            .arg(gw_dir.join("pv-edge.toml"))
            .stdout(Stdio::null())
            .stderr(agent_log)
            .spawn()
            .expect("start agent"),
    );

    // The simulator's fixed value first, then one we set in its registers.
    let first = wait_for_row(&hub, &token, "E2E-INV-1", "first live value", |r| {
        r["online"] == true && r["acPowerKw"].is_number()
    })
    .await;
    let before = first["acPowerKw"].as_f64().expect("power");
    // ac_power: i32 at 32080 (two words, big-endian), kW with gain 1000 → 37.125 kW.
    let status = Command::new(&edge)
        .args(["write", "--tcp"])
        .arg(format!("127.0.0.1:{sim_port}"))
        .args(["--unit", "1", "--start", "32080", "--values", "0,37125"])
        .status()
        .expect("pv-edge write");
    assert!(status.success(), "pv-edge write failed");
    assert_ne!(
        before, 37.125,
        "the written value must differ from the simulator's own"
    );
    let row = wait_for_row(&hub, &token, "E2E-INV-1", "the written value", |r| {
        r["acPowerKw"].as_f64() == Some(37.125)
    })
    .await;
    assert_eq!(row["stationId"], station);

    // The hub goes down for a while; the agent keeps polling into its queue and replays it.
    let count_rows = |url: String| async move {
        let db = pv_cloud::kernel::db::Db::connect(&url, 1).await.expect("db");
        let rows: Vec<(i64,)> = sqlx::query_as("SELECT ts FROM pv_telemetry_raw ORDER BY ts")
            .fetch_all(db.pool())
            .await
            .expect("raw");
        db.close().await;
        rows.into_iter().map(|r| r.0).collect::<Vec<i64>>()
    };
    drop(hub_proc.take());
    let down_at = support_now_ms();
    tokio::time::sleep(Duration::from_secs(8)).await;
    let up_at = support_now_ms();
    hub_proc = Some(hub.spawn());
    hub.wait_healthy().await;
    let token = hub.client().token_of("000000", "admin", "admin").await;
    // Wait until samples taken after the restart are in, so the backlog had its chance.
    let deadline = Instant::now() + Duration::from_secs(60);
    let stamps = loop {
        let stamps = count_rows(hub.database_url.clone()).await;
        let covered = stamps.iter().any(|t| *t > up_at + 3_000)
            && stamps.iter().filter(|t| **t > down_at && **t < up_at).count() >= 12;
        if covered {
            break stamps;
        }
        assert!(
            Instant::now() < deadline,
            "backlog not replayed: {} rows\n{}",
            stamps.len(),
            hub.log()
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
    };
    // Polled every 500 ms: no hole wider than a few intervals anywhere, outage included.
    let widest = stamps.windows(2).map(|w| w[1] - w[0]).max().unwrap_or(0);
    assert!(widest <= 2_500, "a gap of {widest} ms in stored samples");
    let mut unique = stamps.clone();
    unique.dedup();
    assert_eq!(unique.len(), stamps.len(), "a sample stored twice");
    let row = wait_for_row(&hub, &token, "E2E-INV-1", "live after restart", |r| {
        r["online"] == true
    })
    .await;
    assert_eq!(row["acPowerKw"].as_f64(), Some(37.125));
    drop(hub_proc);
}

/// A station with one simulated inverter and its gateway running with the configuration the
/// hub generated, plus `extra` lines (e.g. the uplink encoding). Returns the simulator's port and
/// the processes (simulator, agent).
async fn start_gateway(
    hub: &Hub,
    token: &str,
    dir: &std::path::Path,
    gateway: &str,
    sn: &str,
    extra: &str,
) -> (u16, Vec<Proc>) {
    let sim_port = free_port();
    let installer = hub.client().with_token(token);
    let station = installer
        .station_with(json!({"name": format!("{gateway} plant"), "gatewayId": gateway}))
        .await;
    installer
        .device(
            Device::Inverter,
            json!({"stationId": station, "name": "INV-1", "sn": sn,
            "mapModel": "huawei-sun2000-ktl", "unitId": 1, "stringsCount": 8,
            "modbusAddress": format!("tcp://127.0.0.1:{sim_port}")}),
        )
        .await;
    let password = installer.gateway_credentials(&station).await.ok().data()["password"]
        .as_str()
        .expect("password")
        .to_owned();
    let config = hub
        .client
        .get(format!(
            "{}/api/station/gateway/config?stationId={station}",
            hub.base
        ))
        .header("Blade-Auth", format!("bearer {token}"))
        .send()
        .await
        .expect("config")
        .text()
        .await
        .expect("config text");
    let gw_dir = dir.join(gateway);
    std::fs::create_dir_all(&gw_dir).expect("gateway dir");
    let maps = repo_root().join("firmware-configs");
    let mut config: String = config
        .lines()
        .map(|l| {
            if l.starts_with("data_dir = ") {
                format!("data_dir = {:?}", gw_dir.join("state").display().to_string())
            } else if l.starts_with("maps_dir = ") {
                format!("maps_dir = {:?}", maps.display().to_string())
            } else if l.starts_with("password_file = ") {
                format!(
                    "password_file = {:?}",
                    gw_dir.join("mqtt-password").display().to_string()
                )
            } else if l.starts_with("interval_ms = ") {
                "interval_ms = 500".to_owned()
            } else {
                l.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    config.push_str(extra);
    std::fs::write(gw_dir.join("pv-edge.toml"), config).expect("write config");
    std::fs::write(gw_dir.join("mqtt-password"), &password).expect("write password");
    let edge = support::pv_edge_binary();
    let sim = Proc(
        Command::new(&edge)
            .args(["simulate", "--maps-dir"])
            .arg(&maps)
            .args(["--device", "1=huawei-sun2000-ktl", "--tcp"])
            .arg(format!("127.0.0.1:{sim_port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start simulator"),
    );
    let log = std::fs::File::create(gw_dir.join("edge.log")).expect("edge log");
    let agent = Proc(
        Command::new(&edge)
            .args(["run", "--config"])
            .arg(gw_dir.join("pv-edge.toml"))
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("start agent"),
    );
    (sim_port, vec![sim, agent])
}

/// The hub's count of telemetry payloads received in `encoding`, from `/metrics`.
async fn uplink_batches(hub: &Hub, encoding: &str) -> f64 {
    let text = hub
        .client
        .get(format!("{}/metrics", hub.base))
        .header("Authorization", format!("Bearer {METRICS_TOKEN}"))
        .send()
        .await
        .expect("metrics")
        .text()
        .await
        .expect("metrics text");
    let prefix = format!("pv_ingest_uplink_batches_total{{encoding=\"{encoding}\"}} ");
    text.lines()
        .find_map(|l| l.strip_prefix(&prefix))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0.0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_json_gateway_and_a_binary_gateway_feed_one_hub_side_by_side() {
    let tmp = tempfile::tempdir().expect("tmp");
    let data_dir = tmp.path().join("hub");
    std::fs::create_dir_all(&data_dir).expect("hub dir");
    let database_url = support::fresh_database_url(&data_dir).await;
    let http_port = free_port();
    let hub = Hub {
        base: format!("http://127.0.0.1:{http_port}"),
        http_port,
        broker_port: free_port(),
        data_dir,
        database_url,
        client: crate::support::client::http(),
    };
    let _hub_proc = hub.spawn();
    hub.wait_healthy().await;
    let token = hub.client().token_of("000000", "admin", "admin").await;
    let (json_port, _json_gw) = start_gateway(&hub, &token, tmp.path(), "GW-JSON", "JSON-INV-1", "").await;
    let (bin_port, _bin_gw) = start_gateway(
        &hub,
        &token,
        tmp.path(),
        "GW-BIN",
        "BIN-INV-1",
        "\n[uplink]\nencoding = \"binary\"\n",
    )
    .await;
    // A different value into each simulated inverter: each must arrive exactly, through its
    // own gateway's encoding (ac_power: i32 at 32080, kW with gain 1000).
    let edge = support::pv_edge_binary();
    for (port, words) in [(json_port, "0,37125"), (bin_port, "0,41250")] {
        for _ in 0..50 {
            let ok = Command::new(&edge)
                .args(["write", "--tcp"])
                .arg(format!("127.0.0.1:{port}"))
                .args(["--unit", "1", "--start", "32080", "--values", words])
                .stderr(Stdio::null())
                .status()
                .expect("pv-edge write")
                .success();
            if ok {
                break;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
    for (sn, kw) in [("JSON-INV-1", 37.125), ("BIN-INV-1", 41.25)] {
        let row = wait_for_row(&hub, &token, sn, "the written value", |r| {
            r["online"] == true && r["acPowerKw"].as_f64() == Some(kw)
        })
        .await;
        assert!(
            row["stationId"].is_number() || row["stationId"].is_string(),
            "{row}"
        );
    }
    let (json, binary) = (
        uplink_batches(&hub, "json").await,
        uplink_batches(&hub, "binary").await,
    );
    assert!(
        json >= 1.0 && binary >= 1.0,
        "json {json}, binary {binary} batches"
    );
    // Both gateways' samples are stored, under their own stations.
    let db = pv_cloud::kernel::db::Db::connect(&hub.database_url, 1)
        .await
        .expect("db");
    let per_gateway: Vec<(String, i64)> = sqlx::query_as(
        "SELECT s.gateway_id, COUNT(*) FROM pv_telemetry_raw r \
         JOIN pv_station s ON s.id = r.station_id GROUP BY s.gateway_id ORDER BY s.gateway_id",
    )
    .fetch_all(db.pool())
    .await
    .expect("count");
    db.close().await;
    let gateways: Vec<&str> = per_gateway
        .iter()
        .filter(|(_, n)| *n > 0)
        .map(|(g, _)| g.as_str())
        .collect();
    assert_eq!(gateways, ["GW-BIN", "GW-JSON"], "{per_gateway:?}");
    assert_eq!(hub_refused(&hub).await, 0.0, "nothing refused:\n{}", hub.log());
}

/// Whole messages the hub refused as malformed, oversized or of another version.
async fn hub_refused(hub: &Hub) -> f64 {
    let text = hub
        .client
        .get(format!("{}/metrics", hub.base))
        .header("Authorization", format!("Bearer {METRICS_TOKEN}"))
        .send()
        .await
        .expect("metrics")
        .text()
        .await
        .expect("metrics text");
    text.lines()
        .filter(|l| {
            ["malformed", "oversized", "wrong_version"]
                .iter()
                .any(|r| l.starts_with(&format!("pv_ingest_refused_total{{reason=\"{r}\"}} ")))
        })
        .filter_map(|l| l.rsplit(' ').next().and_then(|v| v.parse::<f64>().ok()))
        .sum()
}

fn support_now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}
