//! The hub against a real external Mosquitto 2 (`broker.embedded = false`), which it manages
//! through the broker's password and ACL files (`station::broker_accounts`): gateways created
//! while the broker and the hub's data path are down are there once both start; a gateway's
//! telemetry is stored and acknowledged through the broker; a gateway can neither publish on nor
//! read another gateway's topics; a rotated password stops working (and its live connection is
//! closed) while the new one works; a removed station's gateway can no longer connect. A second
//! test runs the same attack against a broker that does not load the ACL file and sees it pass,
//! so the first test's isolation checks can fail.

use crate::support;

use std::time::{Duration, Instant};

use pv_shared::topics;
use pv_shared::wire::TelemetryBatch;
use support::mosquitto::{BrokerFiles, Mosquitto};
use support::{Device, GatewayClient, TestApp, eventually, is_postgres, now_ms, sample};

const T: Duration = Duration::from_secs(15);
const HUB_USER: &str = "pv-hub";

/// A hub managing `files`' broker on `port`; its data path is not started yet.
async fn hub(files: &BrokerFiles, port: u16) -> TestApp {
    let mut pw = [0u8; 12];
    getrandom::fill(&mut pw).expect("random");
    let hub_password = hex::encode(pw);
    TestApp::start_configured(|c| {
        files.configure(c, port, HUB_USER, &hub_password);
        // Only the start-up pass and the hub's own changes write the files: a missed nudge
        // would show as a failure instead of being covered by a periodic pass.
        c.broker.mosquitto_sync_seconds = 3600;
        c.telemetry.state_flush_seconds = 1;
    })
    .await
}

/// A station with `gateway` and one inverter `sn`, and the gateway's credentials, through the
/// API as an installer does it. Returns (station id, password).
async fn provision(app: &TestApp, token: &str, gateway: &str, sn: &str) -> (String, String) {
    let installer = app.as_user(token);
    let station = installer
        .station_with(serde_json::json!({"name": format!("Plant {gateway}"), "gatewayId": gateway}))
        .await;
    installer
        .device(
            Device::Inverter,
            serde_json::json!({"stationId": station, "name": sn, "sn": sn, "stringsCount": 2,
                "mapModel": "sungrow-sg-cx", "unitId": 1}),
        )
        .await;
    (station.clone(), issue(app, token, &station).await)
}

/// Issues (or rotates) a station's gateway password.
async fn issue(app: &TestApp, token: &str, station: &str) -> String {
    app.as_user(token).gateway_credentials(station).await.ok().data()["password"]
        .as_str()
        .expect("password")
        .to_owned()
}

async fn raw_rows(app: &TestApp, sn: &str) -> i64 {
    app.scalar_int(
        "SELECT COUNT(*) FROM pv_telemetry_raw r JOIN pv_inverter i ON i.id = r.device_id WHERE i.sn = ?",
        vec![sn.into()],
    )
    .await
    .unwrap_or(0)
}

/// Sends `batch` until it is acknowledged: right after start the hub's own subscription may not
/// be in place yet, and a message nobody subscribes to is dropped by the broker. Resends are
/// stored once (same device and time).
async fn send_until_acked(gw: &mut GatewayClient, batch: &TelemetryBatch) -> bool {
    let deadline = tokio::time::Instant::now() + T;
    while tokio::time::Instant::now() < deadline {
        gw.send(batch).await;
        if gw.ack_within(Duration::from_secs(2)).await.is_some() {
            return true;
        }
    }
    false
}

/// A client signed in with `login` that subscribes to `filters` and reports the topics of what
/// it receives.
async fn spy(
    addr: std::net::SocketAddr,
    client_id: &str,
    login: (&str, &str),
    filters: &[String],
) -> tokio::sync::mpsc::UnboundedReceiver<String> {
    use rumqttc::{Event, MqttOptions, Packet, QoS};
    let mut o = MqttOptions::new(client_id, addr.ip().to_string(), addr.port());
    o.set_credentials(login.0, login.1).set_clean_session(true);
    let (client, mut eventloop) = rumqttc::AsyncClient::new(o, 100);
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let (ready_tx, ready_rx) = tokio::sync::oneshot::channel();
    let filters = filters.to_vec();
    tokio::spawn(async move {
        let mut ready = Some(ready_tx);
        loop {
            match eventloop.poll().await {
                Ok(Event::Incoming(Packet::ConnAck(_))) => {
                    for f in &filters {
                        let _ = client.try_subscribe(f.clone(), QoS::AtLeastOnce);
                    }
                }
                Ok(Event::Incoming(Packet::SubAck(_))) => {
                    if let Some(r) = ready.take() {
                        let _ = r.send(());
                    }
                }
                Ok(Event::Incoming(Packet::Publish(p))) => {
                    let _ = tx.send(p.topic);
                }
                Ok(_) => {}
                Err(_) => return,
            }
        }
    });
    tokio::time::timeout(T, ready_rx)
        .await
        .expect("spy subscribed in time")
        .expect("spy subscribed");
    rx
}

/// What gets through when gateway B attacks gateway A: whether B's forged batch on A's topic was
/// stored, and whether B's subscription to A's downlink delivered A's ack. B's own ack must
/// arrive on the same spy connection, so a spy that receives nothing at all cannot pass.
struct Attack {
    forged_stored: bool,
    downlink_seen: bool,
}

async fn attack(
    app: &TestApp,
    broker: &Mosquitto,
    gw_a: &mut GatewayClient,
    gw_b: &mut GatewayClient,
    pw_b: &str,
) -> Attack {
    let before = raw_rows(app, "INV-A").await;
    let mut seen = spy(
        broker.addr(),
        "GW-B-spy",
        ("GW-B", pw_b),
        &[
            topics::downlink_filter("GW-A").expect("filter"),
            topics::downlink_filter("GW-B").expect("filter"),
        ],
    )
    .await;
    // B publishes, as A, a batch for A's inverter on A's topic; then its own batch, which the
    // broker handles after the forged one (one connection keeps its order).
    let ts = now_ms() - 30_000;
    let forged = TelemetryBatch::new(
        "GW-A",
        false,
        vec![sample(900, "INV-A", ts, &[("ac_power", 666.0)])],
    );
    gw_b.publish(
        &topics::telemetry("GW-A").expect("topic"),
        pv_shared::wire::to_bytes(&forged).expect("batch"),
    )
    .await;
    let own = TelemetryBatch::new("GW-B", false, vec![sample(2, "INV-B", ts, &[("ac_power", 2.0)])]);
    assert!(send_until_acked(gw_b, &own).await, "B's own batch acknowledged");
    // A sends too: its ack goes to A's downlink, which B's spy subscribed to.
    let a_batch = TelemetryBatch::new(
        "GW-A",
        false,
        vec![sample(3, "INV-A", ts + 1000, &[("ac_power", 3.0)])],
    );
    assert!(send_until_acked(gw_a, &a_batch).await, "A's batch acknowledged");

    let mut topics_seen = Vec::new();
    let quiet = tokio::time::Instant::now() + Duration::from_secs(2);
    while let Ok(Some(t)) = tokio::time::timeout_at(quiet, seen.recv()).await {
        topics_seen.push(t);
    }
    assert!(
        topics_seen.iter().any(|t| t == "pv/1/GW-B/down/ack"),
        "the spy receives its own gateway's acks: {topics_seen:?}"
    );
    let after = raw_rows(app, "INV-A").await;
    assert!(after > before, "A's own batch stored ({before} → {after})");
    Attack {
        forged_stored: after > before + 1,
        downlink_seen: topics_seen.iter().any(|t| t.starts_with("pv/1/GW-A/")),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_external_mosquitto_keeps_each_gateway_to_its_own_topics_and_credentials() {
    // A port of its own: another run of this suite on the machine may have Mosquitto up too.
    let port = support::process::free_port();
    let files = BrokerFiles::new();
    let app = hub(&files, port).await;
    let t = app.gateway_manager("100001", "mgr").await;

    // Gateways created while neither the broker nor the hub's data path runs.
    let (_sa, pw_a) = provision(&app, &t, "GW-A", "INV-A").await;
    let (sb, pw_b) = provision(&app, &t, "GW-B", "INV-B").await;
    let _ = std::fs::remove_file(&files.password_file);
    assert!(!files.password_file.exists());

    // Start-up: the hub writes every current gateway's account, then the broker starts.
    let telemetry = pv_cloud::server::start_data_path(&app.state)
        .await
        .expect("data path starts");
    assert!(
        eventually(T, || async {
            std::fs::read_to_string(&files.password_file).is_ok_and(|s| {
                s.contains("\nGW-A:$7$") && s.contains("\nGW-B:$7$") && s.contains("\npv-hub:$7$")
            }) && files.acl_file.exists()
        })
        .await,
        "start-up writes every gateway's account and the ACL file (written after the passwords)"
    );
    let secrets = std::fs::read_to_string(&files.password_file).unwrap_or_default()
        + &std::fs::read_to_string(&files.acl_file).unwrap_or_default();
    assert!(
        !secrets.contains(&pw_a) && !secrets.contains(&pw_b),
        "no password in the files"
    );
    let broker = files.start(port, true);

    // A's telemetry goes through the broker, is stored and acknowledged.
    let mut gw_a = GatewayClient::connect(broker.addr(), "GW-A", Some(("GW-A", &pw_a)), None)
        .await
        .expect("GW-A signs in to Mosquitto");
    let ts = now_ms() - 60_000;
    let first = TelemetryBatch::new("GW-A", false, vec![sample(1, "INV-A", ts, &[("ac_power", 1.0)])]);
    assert!(
        send_until_acked(&mut gw_a, &first).await,
        "acknowledged: {}",
        broker.log_text()
    );
    assert_eq!(raw_rows(&app, "INV-A").await, 1, "stored once");

    // B can neither write A's telemetry nor read A's downlink.
    let mut gw_b = GatewayClient::connect(broker.addr(), "GW-B", Some(("GW-B", &pw_b)), None)
        .await
        .expect("GW-B signs in");
    let result = attack(&app, &broker, &mut gw_a, &mut gw_b, &pw_b).await;
    assert!(
        !result.forged_stored,
        "B's batch on A's topic was refused by the broker"
    );
    assert!(!result.downlink_seen, "B never receives A's downlink");
    assert_eq!(
        raw_rows(&app, "INV-A").await,
        2,
        "A's two batches, nothing of B's"
    );
    assert!(
        broker.log_text().contains("Denied PUBLISH from GW-B"),
        "the broker refused it itself"
    );

    // Rotation: the connection on the old password is closed, the old password is refused
    // and the new one works.
    let new_pw = issue(&app, &t, &_sa).await;
    assert_ne!(new_pw, pw_a);
    assert!(
        eventually(T, || async {
            gw_a.closed.load(std::sync::atomic::Ordering::SeqCst)
        })
        .await,
        "the broker closes the connection made with the old password"
    );
    assert!(
        GatewayClient::connect(broker.addr(), "GW-A", Some(("GW-A", &pw_a)), None)
            .await
            .is_err(),
        "the old password is refused"
    );
    let mut gw_a = GatewayClient::connect(broker.addr(), "GW-A", Some(("GW-A", &new_pw)), None)
        .await
        .expect("the new password works");
    let again = TelemetryBatch::new(
        "GW-A",
        false,
        vec![sample(4, "INV-A", ts + 5000, &[("ac_power", 4.0)])],
    );
    assert!(
        send_until_acked(&mut gw_a, &again).await,
        "acknowledged after rotation"
    );
    assert_eq!(raw_rows(&app, "INV-A").await, 3);

    // A removed station's gateway is signed out and can no longer sign in.
    let r = app
        .as_user(&t)
        .delete(&format!("/api/station/{sb}?confirm=true"))
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert!(
        eventually(T, || async {
            gw_b.closed.load(std::sync::atomic::Ordering::SeqCst)
        })
        .await,
        "the removed gateway's connection is closed"
    );
    assert!(
        GatewayClient::connect(broker.addr(), "GW-B", Some(("GW-B", &pw_b)), None)
            .await
            .is_err(),
        "a removed gateway cannot sign in"
    );
    // Unknown and anonymous clients are refused too.
    assert!(
        GatewayClient::connect(broker.addr(), "GW-X", None, None)
            .await
            .is_err()
    );

    app.state.shutdown.begin();
    telemetry.stop().await;
    drop(broker);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_the_acl_file_the_same_attack_gets_through() {
    // A port of its own: another run of this suite on the machine may have Mosquitto up too.
    let port = support::process::free_port();
    let files = BrokerFiles::new();
    let app = hub(&files, port).await;
    let t = app.gateway_manager("100001", "mgr").await;
    let (_, pw_a) = provision(&app, &t, "GW-A", "INV-A").await;
    let (_, pw_b) = provision(&app, &t, "GW-B", "INV-B").await;
    let telemetry = pv_cloud::server::start_data_path(&app.state)
        .await
        .expect("data path starts");
    assert!(
        eventually(T, || async {
            std::fs::read_to_string(&files.password_file).is_ok_and(|s| s.contains("\nGW-B:$7$"))
        })
        .await
    );
    // Passwords still checked, but no ACL: any signed-in client may use any topic.
    let broker = files.start(port, false);
    let mut gw_a = GatewayClient::connect(broker.addr(), "GW-A", Some(("GW-A", &pw_a)), None)
        .await
        .expect("GW-A signs in");
    let ts = now_ms() - 60_000;
    let first = TelemetryBatch::new("GW-A", false, vec![sample(1, "INV-A", ts, &[("ac_power", 1.0)])]);
    assert!(send_until_acked(&mut gw_a, &first).await);
    let mut gw_b = GatewayClient::connect(broker.addr(), "GW-B", Some(("GW-B", &pw_b)), None)
        .await
        .expect("GW-B signs in");
    let result = attack(&app, &broker, &mut gw_a, &mut gw_b, &pw_b).await;
    assert!(
        result.forged_stored,
        "without the ACL, B's batch on A's topic is stored"
    );
    assert!(result.downlink_seen, "without the ACL, B reads A's downlink");

    app.state.shutdown.begin();
    telemetry.stop().await;
    drop(broker);
}

/// (gateways leased, replicas holding them), as the database has it.
async fn leases(app: &TestApp) -> (i64, i64) {
    let count = |sql: &'static str| app.scalar_int(sql, vec![]);
    (
        count("SELECT COUNT(*) FROM pv_gateway_lease").await.unwrap_or(0),
        count("SELECT COUNT(DISTINCT replica) FROM pv_gateway_lease")
            .await
            .unwrap_or(0),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gateway_handed_to_a_joining_replica_is_no_outage_on_the_replica_it_left() {
    // Leases exist only where several hubs share a database: PostgreSQL.
    if !is_postgres() {
        return;
    }
    let port = support::process::free_port();
    let files = BrokerFiles::new();
    let mut pw = [0u8; 12];
    getrandom::fill(&mut pw).expect("random");
    let hub_password = hex::encode(pw);
    let tweak = |c: &mut pv_cloud::config::Config| {
        files.configure(c, port, HUB_USER, &hub_password);
        c.broker.mosquitto_sync_seconds = 3600;
        c.broker.lease_seconds = 3;
        c.broker.lease_heartbeat_seconds = 1;
        c.telemetry.gateway_silence_seconds = 2;
        c.telemetry.device_silence_seconds = 2;
    };
    let a = TestApp::start_configured(tweak).await;
    let t = a.gateway_manager("100001", "mgr").await;
    let (_, pw_a) = provision(&a, &t, "GW-A", "INV-A").await;
    let (_, pw_b) = provision(&a, &t, "GW-B", "INV-B").await;
    let _a_data = pv_cloud::server::start_data_path(&a.state)
        .await
        .expect("A's data path");
    assert!(
        eventually(T, || async { files.acl_file.exists() }).await,
        "accounts written"
    );
    let broker = files.start(port, true);
    let mut gws = Vec::new();
    for (id, pw, sn) in [("GW-A", &pw_a, "INV-A"), ("GW-B", &pw_b, "INV-B")] {
        let mut gw = GatewayClient::connect(broker.addr(), id, Some((id, pw)), None)
            .await
            .expect("signs in to Mosquitto");
        let batch = TelemetryBatch::new(id, false, vec![sample(1, sn, now_ms(), &[("ac_power", 1.0)])]);
        assert!(send_until_acked(&mut gw, &batch).await, "{id} acknowledged by A");
        gws.push((id, sn, gw));
    }
    assert_eq!(leases(&a).await, (2, 1), "A holds both gateways");

    // B joins: its share is one of the two gateways, which A hands over.
    let b = a
        .replica(|c| {
            tweak(c);
            c.broker.listen = "127.0.0.1:0".parse().expect("addr");
        })
        .await;
    let _b_data = pv_cloud::server::start_data_path(&b.state)
        .await
        .expect("B's data path");
    let mut seq = 1;
    let mut publish_all = async |gws: &mut Vec<(&str, &str, GatewayClient)>| {
        seq += 1;
        for (id, sn, gw) in gws.iter_mut() {
            let batch = TelemetryBatch::new(id, false, vec![sample(seq, sn, now_ms(), &[("ac_power", 2.0)])]);
            gw.send(&batch).await;
        }
    };
    let deadline = Instant::now() + T;
    loop {
        publish_all(&mut gws).await;
        let held = leases(&a).await;
        if held == (2, 2) {
            break;
        }
        assert!(Instant::now() < deadline, "B never took a gateway: {held:?}");
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    // Both gateways keep publishing, each to its owner, for well over the silence limit.
    let until = Instant::now() + Duration::from_secs(6);
    while Instant::now() < until {
        publish_all(&mut gws).await;
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    let offline = a
        .scalar_int("SELECT COUNT(*) FROM pv_gateway_state WHERE online = 0", vec![])
        .await
        .unwrap_or(-1);
    assert_eq!(offline, 0, "a gateway still publishing was marked offline");
    let alarms = a
        .scalar_int(
            "SELECT COUNT(*) FROM pv_alarm WHERE kind = 'comm:gateway'",
            vec![],
        )
        .await
        .unwrap_or(-1);
    assert_eq!(alarms, 0, "no gateway outage was raised");
    drop(broker);
}
