//! What the console shows of the edge's quality checks (`/api/deviceQuality/list`), over real
//! parts: a provisioned gateway publishing its status and samples with rumqttc to the embedded
//! broker, ingest keeping them, the API answering per device whether its values are withheld
//! (why, since when), its changes and its suspect counters, and the newest sample's marked
//! values. Runs on SQLite, or on PostgreSQL with `TEST_POSTGRES_URL`.

use crate::support;

use std::time::Duration;

use pv_shared::topics;
use pv_shared::wire::{self, GatewayStatus, StatusKind, TelemetryBatch};
use serde_json::Value as Json;
use support::{GatewayClient, IngestApp, eventually, now_ms, sample};

const T: Duration = Duration::from_secs(10);
const LAYOUT: &str = "layout changed: model 103 expected at 40070, found 160";

fn status(devices: Vec<wire::DeviceStatus>, kind: StatusKind) -> Vec<u8> {
    wire::to_bytes(&GatewayStatus {
        v: 1,
        gateway: "GW-Q".into(),
        kind,
        online: matches!(kind, StatusKind::Birth | StatusKind::Periodic),
        ts: now_ms(),
        agent: "test".into(),
        queue: None,
        devices,
        buses: vec![],
    })
    .expect("status")
}

fn device(id: &str, withheld: Option<&str>, changes: u64, suspect: &[(&str, u64)]) -> wire::DeviceStatus {
    wire::DeviceStatus {
        id: id.into(),
        online: true,
        polls_ok: 10,
        polls_failed: 0,
        withheld: withheld.map(Into::into),
        changes,
        last_change: (changes > 0).then(|| LAYOUT.to_owned()),
        suspect: suspect.iter().map(|(k, n)| (k.to_string(), *n)).collect(),
        counter_rereads: 0,
        counters_unconfirmed: 0,
    }
}

fn by_sn<'a>(list: &'a Json, sn: &str) -> &'a Json {
    list.as_array()
        .and_then(|l| l.iter().find(|d| d["sn"] == sn))
        .unwrap_or_else(|| panic!("{sn} in {list}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn withheld_devices_changes_and_suspect_values_are_answered_per_device() {
    let app = IngestApp::start(|_| {}).await;
    let t = app.app.gateway_manager("100001", "mgr").await;
    let (station, pw) = app.provision(&t, "GW-Q", &["INV-Q1", "INV-Q2"]).await;
    let gw = GatewayClient::connect(app.gateway_addr, "GW-Q", Some(("GW-Q", &pw)), None)
        .await
        .expect("a provisioned gateway signs in");
    let user = app.app.as_user(&t);
    let path = format!("/api/deviceQuality/list?stationId={station}");
    let status_topic = topics::status("GW-Q").unwrap();

    // INV-Q1 withheld after a layout change; INV-Q2 flowing with two power factors marked.
    gw.publish(
        &status_topic,
        status(
            vec![
                device("INV-Q1", Some(LAYOUT), 1, &[]),
                device("INV-Q2", None, 0, &[("power_factor", 2), ("grid_frequency", 5)]),
            ],
            StatusKind::Birth,
        ),
    )
    .await;
    // A sample whose power factor is impossible: ingest keeps it marked.
    let mut s = sample(
        1,
        "INV-Q2",
        now_ms(),
        &[("ac_power", 5_000.0), ("power_factor", -20.7)],
    );
    s.mark_implausible();
    gw.send(&TelemetryBatch::new("GW-Q", false, vec![s])).await;
    let ready = eventually(T, || async {
        let list = user.get_data(&path).await;
        by_sn(&list, "INV-Q1")["state"] == "withheld"
            && !by_sn(&list, "INV-Q2")["suspectValues"]
                .as_array()
                .is_none_or(Vec::is_empty)
    })
    .await;
    let list = user.get_data(&path).await;
    assert!(ready, "{list}");
    let q1 = by_sn(&list, "INV-Q1");
    assert_eq!(q1["kind"], "inverter");
    assert_eq!(q1["withheld"], LAYOUT);
    assert_eq!(q1["changes"], 1);
    assert_eq!(q1["lastChange"], LAYOUT);
    assert_eq!(q1["reported"], true);
    let since = q1["withheldSince"].as_str().expect("since").to_owned();
    assert_eq!(since.len(), 19, "yyyy-MM-dd HH:mm:ss: {since}");
    let q2 = by_sn(&list, "INV-Q2");
    assert_eq!(q2["state"], "online");
    assert!(q2["withheld"].is_null() && q2["withheldSince"].is_null(), "{q2}");
    assert_eq!(
        q2["suspect"],
        serde_json::json!([{"name": "grid_frequency", "count": 5}, {"name": "power_factor", "count": 2}])
    );
    assert_eq!(
        q2["suspectValues"],
        serde_json::json!([{"name": "power_factor", "unit": "1", "value": -20.7}])
    );

    // One device asked for: only it.
    let id = q2["id"]
        .as_str()
        .map(str::to_owned)
        .unwrap_or_else(|| q2["id"].to_string());
    let one = user.get_data(&format!("{path}&deviceId={id}")).await;
    assert_eq!(one.as_array().map(Vec::len), Some(1), "{one}");

    // Still withheld a while later: it keeps the time it was first seen so.
    tokio::time::sleep(Duration::from_millis(1_100)).await;
    gw.publish(
        &status_topic,
        status(
            vec![
                device("INV-Q1", Some(LAYOUT), 1, &[]),
                device("INV-Q2", None, 0, &[]),
            ],
            StatusKind::Periodic,
        ),
    )
    .await;
    assert!(
        eventually(T, || async {
            app.app
                .state
                .realtime
                .gateway("GW-Q")
                .and_then(|g| g.status)
                .is_some_and(|s| s.devices[1].suspect.is_empty())
        })
        .await
    );
    let list = user.get_data(&path).await;
    assert_eq!(by_sn(&list, "INV-Q1")["withheldSince"], since.as_str());

    // Confirmed again: values flow, the change stays counted.
    gw.publish(
        &status_topic,
        status(
            vec![device("INV-Q1", None, 1, &[]), device("INV-Q2", None, 0, &[])],
            StatusKind::Periodic,
        ),
    )
    .await;
    assert!(
        eventually(T, || async {
            by_sn(&user.get_data(&path).await, "INV-Q1")["state"] == "online"
        })
        .await
    );
    let list = user.get_data(&path).await;
    let q1 = by_sn(&list, "INV-Q1");
    assert!(q1["withheld"].is_null() && q1["withheldSince"].is_null(), "{q1}");
    assert_eq!(
        (q1["changes"].as_u64(), q1["lastChange"].as_str()),
        (Some(1), Some(LAYOUT))
    );

    // Withheld again, then the gateway stops cleanly: no word on its devices, both offline.
    gw.publish(
        &status_topic,
        status(vec![device("INV-Q1", Some(LAYOUT), 2, &[])], StatusKind::Periodic),
    )
    .await;
    assert!(
        eventually(T, || async {
            by_sn(&user.get_data(&path).await, "INV-Q1")["state"] == "withheld"
        })
        .await
    );
    let again = by_sn(&user.get_data(&path).await, "INV-Q1")["withheldSince"].clone();
    assert!(
        again.as_str().is_some_and(|a| a >= since.as_str()),
        "{again} after {since}"
    );
    gw.publish(&status_topic, status(vec![], StatusKind::Shutdown))
        .await;
    assert!(
        eventually(T, || async {
            let list = user.get_data(&path).await;
            ["INV-Q1", "INV-Q2"]
                .iter()
                .all(|sn| by_sn(&list, sn)["state"] == "offline")
        })
        .await,
        "{}",
        user.get_data(&path).await
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_tenants_station_and_a_foreign_device_are_not_found() {
    let app = IngestApp::start(|_| {}).await;
    let t = app.app.gateway_manager("100001", "mgr").await;
    let other = app.app.gateway_manager("100002", "mgr2").await;
    let (station, _) = app.provision(&t, "GW-Q", &["INV-Q1"]).await;
    let (other_station, _) = app.provision(&other, "GW-O", &["INV-O1"]).await;
    let user = app.app.as_user(&t);
    let list = user
        .get_data(&format!("/api/deviceQuality/list?stationId={station}"))
        .await;
    let q1 = by_sn(&list, "INV-Q1");
    assert_eq!(
        (q1["state"].as_str(), q1["reported"].as_bool()),
        (Some("offline"), Some(false))
    );
    for path in [
        format!("/api/deviceQuality/list?stationId={other_station}"),
        format!("/api/deviceQuality/list?stationId={station}&deviceId=999999"),
    ] {
        let r = user.get(&path).await;
        support::assert_failure(r.status, &r.body, 404);
    }
    let r = user.get("/api/deviceQuality/list").await;
    support::assert_failure(r.status, &r.body, 400);
}
