//! What a console served by a replica that does not ingest a gateway shows: the realtime pages
//! follow the owner's samples and the gateway's presence within a few seconds
//! (`telemetry::follow`); and two live replicas cannot share one `node_id`
//! (`kernel::node_claim`). Both exist on PostgreSQL only (a SQLite file has one hub): on SQLite
//! the tests check that nothing follows and nothing is claimed.

use crate::support;

use std::time::{Duration, Instant};

use pv_cloud::config::Config;
use pv_shared::wire::TelemetryBatch;
use serde_json::Value as Json;
use support::{GatewayClient, IngestApp, TestApp, eventually, is_postgres, now_ms, sample};

const T: Duration = Duration::from_secs(10);
const TENANT: &str = "100001";

fn will(gateway: &str) -> Vec<u8> {
    let s = pv_shared::wire::GatewayStatus {
        v: 1,
        gateway: gateway.into(),
        kind: pv_shared::wire::StatusKind::Will,
        online: false,
        ts: now_ms(),
        agent: "test".into(),
        queue: None,
        devices: vec![],
        buses: vec![],
    };
    pv_shared::wire::to_bytes(&s).expect("status")
}

/// The inverter table's row of `sn` as `app` answers it.
async fn inverter_row(app: &TestApp, token: &str, sn: &str) -> Option<Json> {
    let page = app
        .as_user(token)
        .post_data("/api/inverterReal/list", serde_json::json!({}))
        .await;
    page["records"]
        .as_array()?
        .iter()
        .find(|r| r["sn"] == sn)
        .cloned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replica_that_does_not_ingest_a_gateway_shows_its_fresh_values_and_presence() {
    // A ingests (its broker, its gateway); B runs its own data path but receives nothing.
    let a = IngestApp::start(|_| {}).await;
    let b = a
        .app
        .replica(|c| c.broker.listen = "127.0.0.1:0".parse().expect("addr"))
        .await;
    let _b_data = pv_cloud::server::start_data_path(&b.state)
        .await
        .expect("B's data path");
    let menus: Vec<&str> = support::STATION_MENUS
        .iter()
        .chain(support::GATEWAY_MENUS)
        .chain(&["inverterReal"])
        .copied()
        .collect();
    a.app
        .create_tenant_user(TENANT, "mgr", "secret1", &menus, None)
        .await;
    let manager = a.app.token_of(TENANT, "mgr", "secret1").await;
    let (_, pw) = a.provision(&manager, "GW-1", &["S1"]).await;
    let mut gw = GatewayClient::connect(a.gateway_addr, "GW-1", Some(("GW-1", &pw)), Some(will("GW-1")))
        .await
        .expect("gateway signs in to replica A");
    let token_b = b.token_of(TENANT, "mgr", "secret1").await;

    let mut seq = 0;
    let mut publish = async |ts: i64, power: f64| {
        seq += 1;
        let batch = TelemetryBatch::new("GW-1", false, vec![sample(seq, "S1", ts, &[("ac_power", power)])]);
        gw.send(&batch).await;
        gw.ack_within(T).await.expect("stored and acknowledged");
    };
    let ts = now_ms() - 10_000;
    publish(ts, 5_000.0).await;
    let on_a = inverter_row(&a.app, &manager, "S1").await.expect("A lists S1");
    assert_eq!(on_a["acPowerKw"], 5.0, "{on_a}");

    if !is_postgres() {
        assert!(!b.state.cluster.is_shared(), "SQLite: one hub, nothing to follow");
        return;
    }
    let power_on_b = || async {
        inverter_row(&b, &token_b, "S1")
            .await
            .map(|r| (r["acPowerKw"].as_f64(), r["online"].as_bool()))
    };
    assert!(
        eventually(T, || async {
            power_on_b().await == Some((Some(5.0), Some(true)))
        })
        .await,
        "B shows A's first sample: {:?}",
        power_on_b().await
    );
    // Each new sample reaches B within a few seconds (announced at most once a second).
    for (i, kw) in [7.5, 3.25].into_iter().enumerate() {
        publish(ts + 1_000 * (i as i64 + 1), kw * 1000.0).await;
        let stored = Instant::now();
        assert!(
            eventually(T, || async { power_on_b().await == Some((Some(kw), Some(true))) }).await,
            "B follows to {kw} kW: {:?}",
            power_on_b().await
        );
        let took = stored.elapsed();
        assert!(took < Duration::from_secs(3), "B followed after {took:?}");
    }
    assert_eq!(home(&b, &token_b).await, 1, "the station is online on B");

    // The gateway loses power: its will reaches A; B shows the station and inverter offline.
    gw.kill();
    let offline = eventually(T, || async {
        home(&b, &token_b).await == 0
            && power_on_b()
                .await
                .is_some_and(|(_, online)| online == Some(false))
    })
    .await;
    assert!(
        offline,
        "B shows the gateway's outage: home {} row {:?}",
        home(&b, &token_b).await,
        power_on_b().await
    );
    assert_eq!(home(&a.app, &manager).await, 0, "as A does");
}

/// Stations online, as the home page of `app` counts them.
async fn home(app: &TestApp, token: &str) -> Json {
    app.as_user(token).get_data("/api/homePage/data").await["onlineCount"].clone()
}

fn config_like(app: &TestApp, node_id: u16, dir: &std::path::Path) -> Config {
    Config {
        listen: "127.0.0.1:0".parse().expect("addr"),
        data_dir: dir.to_path_buf(),
        database_url: app.database_url.clone(),
        database_max_connections: 2,
        node_id,
        ..Config::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_live_replica_with_the_same_node_id_refuses_to_start() {
    let a = TestApp::start().await;
    let node = a.state.config.node_id;
    let dir = tempfile::tempdir().expect("temp dir");
    let started = Instant::now();
    let second = pv_cloud::server::prepare(config_like(&a, node, dir.path())).await;
    if !is_postgres() {
        // A SQLite file has one hub: nothing to claim (and nothing refused).
        let state = second.expect("SQLite: nothing claimed");
        state.shutdown.begin();
        return;
    }
    let Err(e) = second else {
        panic!("a second replica with node_id {node} started");
    };
    let text = e.to_string();
    assert!(
        text.contains(&format!("node_id {node} is in use by another live replica"))
            && text.contains("pv-node-"),
        "{text}"
    );
    // It waited for a stopping predecessor first, then gave up.
    assert!(
        started.elapsed() >= pv_cloud::kernel::node_claim::PATIENCE,
        "{:?}",
        started.elapsed()
    );
    // Another node id starts alongside.
    let other = pv_cloud::server::prepare(config_like(&a, node + 7, dir.path()))
        .await
        .expect("another node id starts");
    other.shutdown.begin();
    // Once A stops, its node id is free for a successor (a restart).
    let _kept = a.stop().await;
    let dir2 = tempfile::tempdir().expect("temp dir");
    let url = _kept.1.clone();
    let successor = pv_cloud::server::prepare(Config {
        database_url: url,
        ..config_like_url(node, dir2.path())
    })
    .await
    .expect("the node id is free once its holder stopped");
    successor.shutdown.begin();
}

fn config_like_url(node_id: u16, dir: &std::path::Path) -> Config {
    Config {
        listen: "127.0.0.1:0".parse().expect("addr"),
        data_dir: dir.to_path_buf(),
        database_max_connections: 2,
        node_id,
        ..Config::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_gateway_page_shows_the_encoding_and_bytes_per_sample_of_its_uplink() {
    use pv_shared::wire::{Encoding, batch_to_bytes};
    let a = IngestApp::start(|_| {}).await;
    let menus: Vec<&str> = support::STATION_MENUS
        .iter()
        .chain(support::GATEWAY_MENUS)
        .copied()
        .collect();
    a.app
        .create_tenant_user(TENANT, "mgr", "secret1", &menus, None)
        .await;
    let manager = a.app.token_of(TENANT, "mgr", "secret1").await;
    let (station, pw) = a.provision(&manager, "GW-U", &["U1"]).await;
    let mut gw = GatewayClient::connect(a.gateway_addr, "GW-U", Some(("GW-U", &pw)), None)
        .await
        .expect("gateway signs in");
    let info = || async {
        a.app
            .as_user(&manager)
            .get_data(&format!("/api/station/gateway?stationId={station}"))
            .await
    };
    let first = info().await;
    assert_eq!(
        (
            first["uplinkEncoding"].clone(),
            first["uplinkBytesPerSample"].clone()
        ),
        (Json::Null, Json::Null),
        "nothing received yet: {first}"
    );
    let ts = now_ms() - 60_000;
    let metrics = [
        ("ac_power", 5_012.0),
        ("energy_total", 123_456.7),
        ("grid_frequency", 50.01),
    ];
    let batch = |seq: u64, n: u64| {
        TelemetryBatch::new(
            "GW-U",
            false,
            (0..n)
                .map(|i| sample(seq + i, "U1", ts + (seq + i) as i64 * 1000, &metrics))
                .collect(),
        )
    };
    // JSON first: 4 samples.
    let json = batch_to_bytes(&batch(1, 4), Encoding::Json).expect("json");
    gw.publish(
        &pv_shared::topics::telemetry("GW-U").expect("topic"),
        json.clone(),
    )
    .await;
    gw.ack_within(T).await.expect("JSON batch stored");
    let per_json = (json.len() as f64 / 4.0 * 10.0).round() / 10.0;
    let shown = eventually(T, || async {
        let i = info().await;
        i["uplinkEncoding"] == "json" && i["uplinkBytesPerSample"].as_f64() == Some(per_json)
    })
    .await;
    assert!(shown, "JSON, {per_json} B/sample: {}", info().await);
    // Then the binary batches (the gateway switched): the newest encoding, bytes over everything.
    let binary = batch_to_bytes(&batch(5, 6), Encoding::Binary).expect("binary");
    assert!(binary.len() < json.len(), "{} vs {}", binary.len(), json.len());
    gw.publish(
        &pv_shared::topics::telemetry("GW-U").expect("topic"),
        binary.clone(),
    )
    .await;
    gw.ack_within(T).await.expect("binary batch stored");
    let per_all = ((json.len() + binary.len()) as f64 / 10.0 * 10.0).round() / 10.0;
    let shown = eventually(T, || async {
        let i = info().await;
        i["uplinkEncoding"] == "binary" && i["uplinkBytesPerSample"].as_f64() == Some(per_all)
    })
    .await;
    assert!(shown, "binary, {per_all} B/sample: {}", info().await);
}
