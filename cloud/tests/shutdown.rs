//! Stopping the hub: the real `pv-cloud` binary with a gateway connected and publishing, a
//! console request in flight, stopped by SIGTERM (what `docker stop` and systemd send). The stop
//! must not be taken for a gateway outage, must not write after the database pool closed, must
//! still finish the request and store what it acknowledged; after a restart the gateway comes
//! back without an alarm.

use crate::support;

use support::process::{Proc, free_port};

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use pv_shared::wire::TelemetryBatch;
use serde_json::json;
use support::{Client, Device, GatewayClient, sample};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

struct Hub {
    base: String,
    http_port: u16,
    broker_port: u16,
    data_dir: PathBuf,
    database_url: String,
}

impl Hub {
    /// Starts the binary, its log in `hub-<run>.log`.
    async fn start(&self, run: u32) -> Proc {
        let log = std::fs::File::create(self.log_path(run)).expect("log file");
        let child = Command::new(env!("CARGO_BIN_EXE_pv-cloud"))
            .env("PV_LISTEN", format!("127.0.0.1:{}", self.http_port))
            .env("PV_DATA_DIR", &self.data_dir)
            .env("PV_DATABASE_URL", &self.database_url)
            .env("PV_BROKER__LISTEN", format!("127.0.0.1:{}", self.broker_port))
            .env("PV_DEMO__ENABLED", "false")
            .env("RUST_LOG", "info")
            .env("NO_COLOR", "1")
            .stdout(log.try_clone().expect("log file"))
            .stderr(log)
            .spawn()
            .expect("start pv-cloud");
        let proc = Proc(child);
        let deadline = Instant::now() + Duration::from_secs(60);
        let client = crate::support::client::http();
        loop {
            if let Ok(r) = client.get(format!("{}/api/health", self.base)).send().await
                && r.status().is_success()
            {
                return proc;
            }
            assert!(Instant::now() < deadline, "hub not healthy:\n{}", self.log(run));
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    fn log_path(&self, run: u32) -> PathBuf {
        self.data_dir.join(format!("hub-{run}.log"))
    }

    fn log(&self, run: u32) -> String {
        std::fs::read_to_string(self.log_path(run)).unwrap_or_default()
    }

    fn gateway_addr(&self) -> std::net::SocketAddr {
        format!("127.0.0.1:{}", self.broker_port).parse().expect("addr")
    }

    /// Waits for the process to end; its exit must be a success.
    fn wait_stopped(&self, proc: &mut Proc, run: u32) {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if let Some(status) = proc.0.try_wait().expect("wait") {
                assert!(status.success(), "{status}\n{}", self.log(run));
                return;
            }
            assert!(Instant::now() < deadline, "hub did not stop:\n{}", self.log(run));
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The log of a run must show a clean start and stop: nothing about a closed pool, and no
    /// error at all (the embedded broker's readiness check once made rumqttd log one per start).
    fn assert_clean_stop(&self, run: u32) {
        let log = self.log(run);
        assert!(log.contains("shutting down"), "the signal is logged");
        let bad: Vec<&str> = log
            .lines()
            .filter(|l| l.contains("closed pool") || l.contains("pool closed") || l.contains("ERROR"))
            .collect();
        assert!(bad.is_empty(), "run {run}: {bad:#?}\n{log}");
        assert!(log.contains("stopped"), "run {run} did not log its stop:\n{log}");
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

/// A gateway's connection (with its last will) that has published one acknowledged batch.
async fn connect(hub: &Hub, password: &str, seq: &mut u64) -> GatewayClient {
    let will = pv_shared::wire::to_bytes(&pv_shared::wire::GatewayStatus {
        v: 1,
        gateway: "GW-SD-1".into(),
        kind: pv_shared::wire::StatusKind::Will,
        online: false,
        ts: support::now_ms(),
        agent: "test".into(),
        queue: None,
        devices: vec![],
        buses: vec![],
    })
    .expect("will");
    let mut gw = GatewayClient::connect(
        hub.gateway_addr(),
        "GW-SD-1",
        Some(("GW-SD-1", password)),
        Some(will),
    )
    .await
    .expect("gateway signs in");
    publish(&gw, seq).await;
    gw.ack_within(Duration::from_secs(10))
        .await
        .expect("stored and acknowledged");
    gw
}

/// One batch of one sample, not waiting for its ack.
async fn publish(gw: &GatewayClient, seq: &mut u64) {
    *seq += 1;
    let s = sample(*seq, "SD-INV-1", support::now_ms(), &[("ac_power", 1000.0)]);
    gw.send(&TelemetryBatch::new("GW-SD-1", false, vec![s])).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stopping_hub_raises_no_gateway_alarm_writes_nothing_after_closing_and_the_gateway_returns_quietly()
{
    let tmp = tempfile::tempdir().expect("tmp");
    let data_dir = tmp.path().to_path_buf();
    let database_url = support::fresh_database_url(&data_dir).await;
    let http_port = free_port();
    let hub = Hub {
        base: format!("http://127.0.0.1:{http_port}"),
        http_port,
        broker_port: free_port(),
        data_dir,
        database_url,
    };
    let mut proc = hub.start(1).await;
    let token = Client::at(&hub.base).token_of("000000", "admin", "admin").await;
    let admin = Client::at(&hub.base).with_token(&token);
    let station = admin
        .station_with(json!({"name": "Shutdown plant", "gatewayId": "GW-SD-1"}))
        .await;
    admin
        .device(
            Device::Inverter,
            json!({"stationId": station, "name": "INV-1", "sn": "SD-INV-1",
                "mapModel": "sungrow-sg-cx", "unitId": 1, "stringsCount": 2}),
        )
        .await;
    let password = admin.gateway_credentials(&station).await.ok().data()["password"]
        .as_str()
        .expect("password")
        .to_owned();
    // Short debounce: an outage seen during the stop would be raised within it (each stop and
    // restart keeps the gateway away longer than this). Not 1 s: on a loaded machine the gap
    // between two samples of the running gateway reached that.
    let mut rule = admin.get_data("/api/alarmRule").await;
    rule["deviceSilenceSeconds"] = json!(3);
    rule["clearHoldSeconds"] = json!(1);
    let body = serde_json::to_vec(&rule).expect("rule");
    admin.put_json("/api/alarmRule", rule.clone()).await.ok();

    let mut seq = 0;
    let mut gw = connect(&hub, &password, &mut seq).await;
    // A console request in flight when the signal comes: its body arrives slowly. It asks for
    // `100 Continue`, which the server sends once the handler reads the body: only then is the
    // request in flight on the server's side (bytes still in the socket when the signal comes
    // belong to a connection the server may rightly close as idle).
    let mut slow = tokio::net::TcpStream::connect(("127.0.0.1", http_port))
        .await
        .expect("http");
    let head = format!(
        "PUT /api/alarmRule HTTP/1.1\r\nHost: 127.0.0.1\r\nBlade-Auth: bearer {token}\r\n\
         Content-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    slow.write_all(head.as_bytes()).await.expect("head");
    let mut interim = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), async {
        let mut byte = [0u8; 1];
        while !interim.ends_with(b"\r\n\r\n") {
            slow.read_exact(&mut byte).await.expect("interim answer");
            interim.push(byte[0]);
        }
    })
    .await
    .expect("no 100 Continue within 10 s");
    assert!(
        interim.starts_with(b"HTTP/1.1 100"),
        "{}",
        String::from_utf8_lossy(&interim)
    );
    slow.write_all(&body[..10]).await.expect("first bytes");
    for _ in 0..5 {
        publish(&gw, &mut seq).await;
    }
    hub_signal(&proc);
    // The gateway keeps publishing while the hub stops, then its connection drops (the broker
    // sends its last will), as the hub closing it or a gateway losing power would.
    for _ in 0..10 {
        seq += 1;
        let s = sample(seq, "SD-INV-1", support::now_ms(), &[("ac_power", 1000.0)]);
        if !gw.try_send(&TelemetryBatch::new("GW-SD-1", false, vec![s])).await {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    gw.kill();
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    // The request in flight is still answered.
    slow.write_all(&body[10..]).await.expect("rest of the body");
    let mut answer = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(10), slow.read_to_end(&mut answer)).await;
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    let mut acked = 1;
    while gw.acks.try_recv().is_ok() {
        acked += 1;
    }
    hub.wait_stopped(&mut proc, 1);
    hub.assert_clean_stop(1);
    assert_eq!(
        hub.count("SELECT COUNT(*) FROM pv_alarm WHERE kind = 'comm:gateway'")
            .await,
        0,
        "the hub's stop is no gateway outage"
    );
    // Every acknowledged batch was stored (one sample each).
    let stored = hub.count("SELECT COUNT(*) FROM pv_telemetry_raw").await;
    assert!(stored >= acked, "{stored} stored, {acked} acknowledged");

    // Restarted: the gateway comes back and stays quiet for longer than the silence.
    let mut proc = hub.start(2).await;
    let gw = connect(&hub, &password, &mut seq).await;
    for _ in 0..10 {
        tokio::time::sleep(Duration::from_millis(300)).await;
        publish(&gw, &mut seq).await;
    }
    // Stopped again with the gateway connected.
    hub_signal(&proc);
    hub.wait_stopped(&mut proc, 2);
    hub.assert_clean_stop(2);
    assert_eq!(
        hub.count("SELECT COUNT(*) FROM pv_alarm WHERE kind LIKE 'comm:%'")
            .await,
        0,
        "no communication alarm at any point; hub logs:\n{}\n{}",
        hub.log(1),
        hub.log(2)
    );
}

/// Sends SIGTERM without waiting.
fn hub_signal(proc: &Proc) {
    let pid = proc.0.id().to_string();
    let sent = Command::new("kill").args(["-TERM", &pid]).status().expect("kill");
    assert!(sent.success());
}
