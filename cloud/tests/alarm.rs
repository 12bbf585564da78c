//! The alarm engine and alarm calls over real parts: gateways publishing over MQTT to the
//! embedded broker, ingest storing into SQLite or PostgreSQL and handing samples to the engine,
//! alarms raised through the register map's fault table, thresholds and communication loss,
//! debounced, acknowledged and cleared, shown on the bell's websocket, messaged to the right
//! users and scoped to the caller's stations.

use crate::support;

use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use pv_cloud::kernel::sql::Value;
use pv_shared::wire::TelemetryBatch;
use serde_json::{Value as Json, json};
use support::{GatewayClient, IngestApp, Reply, eventually, now_ms, sample};

pub(crate) const T: Duration = Duration::from_secs(10);
const TENANT: &str = "100001";

/// Station, alarm handling and message permissions of an operator.
const ALARM_MENUS: &[&str] = &["alarmData", "alarmData_handle", "message", "intelligentWarning"];

pub(crate) struct Site {
    pub(crate) app: IngestApp,
    pub(crate) manager: String,
    pub(crate) manager_id: i64,
    pub(crate) station: String,
    /// The gateway's password.
    pub(crate) password: String,
}

/// The gateway `GW-1`, publishing.
pub(crate) struct Gw {
    pub(crate) gw: GatewayClient,
    pub(crate) seq: u64,
}

/// A hub with ingest and the engine; a manager (every station and alarm permission) who
/// provisioned gateway `GW-1` with inverters `S1` (INV-0) and `S2` (INV-1), connected.
pub(crate) async fn site() -> (Site, Gw) {
    site_with(|_| {}).await
}

/// [`site`] on a hub configured by `tweak`.
pub(crate) async fn site_with(tweak: impl FnOnce(&mut pv_cloud::config::Config)) -> (Site, Gw) {
    let app = IngestApp::start(tweak).await;
    let menus: Vec<&str> = support::STATION_MENUS
        .iter()
        .chain(support::GATEWAY_MENUS)
        .chain(ALARM_MENUS)
        .copied()
        .collect();
    let (_, manager_id) = app
        .app
        .create_tenant_user(TENANT, "mgr", "secret1", &menus, None)
        .await;
    let manager = app.app.token_of(TENANT, "mgr", "secret1").await;
    let (station, pw) = app.provision(&manager, "GW-1", &["S1", "S2"]).await;
    let gw = GatewayClient::connect(app.gateway_addr, "GW-1", Some(("GW-1", &pw)), Some(will()))
        .await
        .expect("gateway signs in");
    (
        Site {
            app,
            manager,
            manager_id,
            station,
            password: pw,
        },
        Gw { gw, seq: 0 },
    )
}

impl Gw {
    /// Publishes samples of one device (ts, metrics) in one batch and waits for the ack.
    pub(crate) async fn publish(&mut self, device: &str, samples: &[(i64, Vec<(&str, f64)>)]) {
        let batch: Vec<_> = samples
            .iter()
            .map(|(ts, m)| {
                self.seq += 1;
                sample(self.seq, device, *ts, m)
            })
            .collect();
        self.gw.send(&TelemetryBatch::new("GW-1", false, batch)).await;
        self.gw.ack_within(T).await.expect("stored and acknowledged");
    }
}

impl Site {
    pub(crate) async fn alarms(&self, kind_like: &str) -> Vec<Json> {
        let Reply { status, body, .. } = self
            .app
            .app
            .as_user(&self.manager)
            .get(&format!("/api/alarmData/page?size=100&keyword={kind_like}"))
            .await;
        assert_eq!(status, 200, "{body}");
        body["data"]["records"].as_array().cloned().unwrap_or_default()
    }

    pub(crate) async fn count(&self, sql: &str, values: Vec<Value>) -> i64 {
        self.app.app.scalar_i64(sql, values).await
    }

    pub(crate) async fn put_rule(&self, changes: Json) -> Reply {
        let mut rule = self
            .app
            .app
            .as_user(&self.manager)
            .get_data("/api/alarmRule")
            .await;
        for (k, v) in changes.as_object().expect("object") {
            rule[k] = v.clone();
        }
        self.app
            .app
            .as_user(&self.manager)
            .en()
            .put_json("/api/alarmRule", rule)
            .await
    }

    pub(crate) fn ws_url(&self, user: i64, token: &str) -> String {
        format!(
            "{}/ws/{user}?token={token}",
            self.app.app.base.replacen("http", "ws", 1)
        )
    }
}

type Socket = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// The next feed message within `limit`.
async fn next_feed(socket: &mut Socket, limit: Duration) -> Option<Json> {
    let deadline = Instant::now() + limit;
    loop {
        let left = deadline.checked_duration_since(Instant::now())?;
        match tokio::time::timeout(left, socket.next()).await {
            Ok(Some(Ok(m))) if m.is_text() => return serde_json::from_str(m.to_text().ok()?).ok(),
            Ok(Some(Ok(_))) => continue,
            _ => return None,
        }
    }
}

/// Waits for a feed message with `count` ≥ 1 and returns it with the time it took from `from`.
async fn feed_with_alarm(socket: &mut Socket, from: Instant) -> (Json, Duration) {
    loop {
        let msg = next_feed(socket, T).await.expect("a feed message");
        if msg["count"].as_i64().unwrap_or(0) > 0 {
            return (msg, from.elapsed());
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fault_code_raises_one_named_alarm_on_two_bells_within_2s_and_messages_its_users() {
    let (s, mut g) = site().await;
    let app = &s.app.app;
    // Another operator of the tenant (sees every station) and an owner of another station.
    let (_, ops_id) = app
        .create_tenant_user(TENANT, "ops", "secret1", ALARM_MENUS, None)
        .await;
    let ops = app.token_of(TENANT, "ops", "secret1").await;
    let owner_id = app.user_with_alias(TENANT, "owner1", "owner", &[]).await;
    let Reply { status, body, .. } = app
        .as_user(&s.manager)
        .post_json("/api/station", json!({"name": "Elsewhere"}))
        .await;
    assert_eq!(status, 200, "{body}");
    let elsewhere = body["data"].as_str().expect("id").to_owned();
    let Reply { status, body, .. } = app
        .as_user(&s.manager)
        .post_json(
            "/api/station/updateUserStation",
            json!({"userId": owner_id.to_string(), "stationIds": [elsewhere]}),
        )
        .await;
    assert_eq!(status, 200, "{body}");

    let mut bell1 = tokio_tungstenite::connect_async(s.ws_url(s.manager_id, &s.manager))
        .await
        .expect("manager's bell")
        .0;
    let mut bell2 = tokio_tungstenite::connect_async(s.ws_url(ops_id, &ops))
        .await
        .expect("ops bell")
        .0;
    for b in [&mut bell1, &mut bell2] {
        let first = next_feed(b, T).await.expect("initial list");
        assert_eq!(first, json!({"data": [], "count": 0, "work": [], "workCount": 0}));
    }

    // A healthy sample, then Sungrow fault code 2 ("Grid overvoltage", major).
    let ts = now_ms() - 60_000;
    g.publish("S1", &[(ts, vec![("ac_power", 5000.0), ("fault_code", 0.0)])])
        .await;
    let published = Instant::now();
    g.publish(
        "S1",
        &[(ts + 5_000, vec![("ac_power", 0.0), ("fault_code", 2.0)])],
    )
    .await;
    let (msg1, took1) = feed_with_alarm(&mut bell1, published).await;
    let (msg2, took2) = feed_with_alarm(&mut bell2, published).await;
    assert!(took1 < Duration::from_secs(2), "manager's bell after {took1:?}");
    assert!(
        took2 < Duration::from_secs(2),
        "second user's bell after {took2:?}"
    );
    assert_eq!(msg1["count"], 1, "{msg1}");
    let item = &msg1["data"][0];
    assert_eq!(item["warningName"], "电网过压", "{msg1}");
    assert_eq!(item["inverter"], "INV-0");
    assert_eq!(item["stationName"], "Plant GW-1");
    assert_eq!(item["type"], 1);
    assert!(
        item["date"]
            .as_str()
            .is_some_and(|d| d.len() == 19 && &d[10..11] == "T"),
        "{item}"
    );
    assert_eq!(msg2["data"][0]["id"], item["id"]);
    // A console shown in English names its language on the socket (the browser's handshake
    // carries the browser's Accept-Language): the bell's names follow it.
    let mut bell_en =
        tokio_tungstenite::connect_async(format!("{}&lang=en", s.ws_url(s.manager_id, &s.manager)))
            .await
            .expect("English bell")
            .0;
    let (msg_en, _) = feed_with_alarm(&mut bell_en, Instant::now()).await;
    assert_eq!(msg_en["data"][0]["warningName"], "Grid overvoltage", "{msg_en}");

    // The fault stays: still one alarm.
    g.publish("S1", &[(ts + 10_000, vec![("fault_code", 2.0)])]).await;
    g.publish("S1", &[(ts + 15_000, vec![("fault_code", 2.0)])]).await;
    assert_eq!(
        s.count(
            "SELECT COUNT(*) FROM pv_alarm WHERE kind = 'fault:fault_code:2'",
            vec![]
        )
        .await,
        1
    );
    let Reply { status, body, .. } = app.as_user(&s.manager).en().get("/api/alarmData/page").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["total"], 1, "{body}");
    let r = &body["data"]["records"][0];
    assert_eq!(
        (
            r["warningName"].as_str(),
            r["level"].as_i64(),
            r["category"].as_str()
        ),
        (Some("Grid overvoltage"), Some(3), Some("fault"))
    );
    assert_eq!(
        (r["status"].as_i64(), r["statusName"].as_str()),
        (Some(0), Some("Active"))
    );
    assert_eq!(r["deviceName"], "INV-0");
    assert_eq!(r["inverter"], "INV-0");
    assert_eq!(r["stationId"], s.station);
    assert_eq!(r["code"], "2");
    assert_eq!(r["kind"], "fault:fault_code:2");
    assert_eq!(r["deviceSn"], "S1", "the list shows the device's serial");
    let id = r["id"].as_str().expect("id").to_owned();
    // Operators read serials off the nameplate: the device filter finds the alarm by its
    // serial (any case), and another device's serial finds nothing.
    for (keyword, total) in [("S1", 1), ("s1", 1), ("S2", 0)] {
        let Reply { status, body, .. } = app
            .as_user(&s.manager)
            .get(&format!("/api/alarmData/page?keyword={keyword}"))
            .await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["data"]["total"], total, "keyword {keyword}: {body}");
    }
    let one = app
        .as_user(&s.manager)
        .get_data(&format!("/api/alarmData/{id}"))
        .await;
    assert_eq!(one["warningName"], "电网过压");

    // Messages: the two operators, not the owner of another station.
    let alarm = Value::Int(id.parse().expect("id"));
    let messaged = |user: i64| {
        let alarm = alarm.clone();
        let app = &s.app.app;
        async move {
            app.scalar_i64(
                "SELECT COUNT(*) FROM pv_message WHERE alarm_id = ? AND user_id = ?",
                vec![alarm, Value::Int(user)],
            )
            .await
        }
    };
    assert!(
        eventually(T, || async {
            messaged(s.manager_id).await == 1 && messaged(ops_id).await == 1
        })
        .await
    );
    assert_eq!(messaged(owner_id).await, 0, "not his station");
    let list = app.as_user(&ops).get_data("/api/message/list?isRead=0").await;
    assert_eq!(list["total"], 1, "{list}");
    assert_eq!(list["records"][0]["title"], "INV-0：电网过压");
    assert_eq!(list["records"][0]["alarmId"], id);
    let Reply { status, body, .. } = app
        .as_user(&ops)
        .post_json("/api/message/read", json!({"ids": []}))
        .await;
    assert_eq!((status, body["data"].as_i64()), (200, Some(1)), "{body}");
    assert_eq!(
        app.as_user(&ops).get_data("/api/message/list?isRead=0").await["total"],
        0
    );
    assert_eq!(app.as_user(&ops).get_data("/api/message/list").await["total"], 1);

    // The home page now counts the station as faulty.
    let home = app.as_user(&s.manager).get_data("/api/homePage/data").await;
    assert_eq!(home["faultCount"], 1, "{home}");
    let _ = bell1
        .send(tokio_tungstenite::tungstenite::Message::Text("{}".into()))
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flapping_fault_is_one_alarm_acknowledged_then_cleared_after_the_hold() {
    let (s, mut g) = site().await;
    let app = &s.app.app;
    // Present and absent every other sample, 5 s apart: faster than the 60 s clear hold.
    let t0 = now_ms() - 600_000;
    let flapping: Vec<(i64, Vec<(&str, f64)>)> = (0..12)
        .map(|i| {
            (
                t0 + i * 5_000,
                vec![("fault_code", if i % 2 == 0 { 2.0 } else { 0.0 })],
            )
        })
        .collect();
    g.publish("S1", &flapping).await;
    let rows = || async {
        s.count(
            "SELECT COUNT(*) FROM pv_alarm WHERE kind = 'fault:fault_code:2'",
            vec![],
        )
        .await
    };
    assert!(
        eventually(T, || async {
            s.count("SELECT COALESCE(MAX(occurrences), 0) FROM pv_alarm", vec![])
                .await
                == 6
        })
        .await
    );
    assert_eq!(rows().await, 1, "one alarm for six appearances");
    let r = &s.alarms("").await[0];
    assert_eq!(r["occurrences"], 6, "{r}");
    let id = r["id"].as_str().expect("id").to_owned();

    // Acknowledged with a note.
    let Reply { status, body, .. } = app
        .as_user(&s.manager)
        .put_json(
            "/api/alarmData",
            json!({"id": id, "action": "ack", "note": "crew on the way"}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        (body["data"]["status"].as_i64(), body["data"]["ackNote"].as_str()),
        (Some(1), Some("crew on the way"))
    );
    assert_eq!(body["data"]["ackUserName"], "mgr");
    // Acknowledging twice is refused.
    let Reply { status, body, .. } = app
        .as_user(&s.manager)
        .put_json("/api/alarmData", json!({"id": id, "action": "ack"}))
        .await;
    support::assert_failure(status, &body, 400);

    // The fault ends: still open 30 s later, cleared by the system once 60 s have passed.
    let t1 = t0 + 60_000;
    g.publish(
        "S1",
        &[
            (t1, vec![("fault_code", 0.0)]),
            (t1 + 30_000, vec![("fault_code", 0.0)]),
        ],
    )
    .await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(s.alarms("").await[0]["status"], 1, "hold not over");
    g.publish("S1", &[(t1 + 61_000, vec![("fault_code", 0.0)])]).await;
    assert!(
        eventually(T, || async {
            s.count(
                "SELECT COUNT(*) FROM pv_alarm WHERE status = 2 AND clear_user = 0",
                vec![],
            )
            .await
                == 1
        })
        .await
    );
    let Reply { body, .. } = app
        .as_user(&s.manager)
        .en()
        .get(&format!("/api/alarmData/{id}"))
        .await;
    let r = &body["data"];
    assert_eq!(
        (r["status"].as_i64(), r["clearUserName"].as_str()),
        (Some(2), Some("system")),
        "{r}"
    );
    assert_eq!(r["ackNote"], "crew on the way");
    // A replay of an old sample (a resent batch) changes nothing.
    g.publish("S1", &[(t0, vec![("fault_code", 2.0)])]).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(rows().await, 1);
    // The fault back after the clear: a new alarm.
    g.publish("S1", &[(t1 + 70_000, vec![("fault_code", 2.0)])]).await;
    assert!(eventually(T, || async { rows().await == 2 }).await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn threshold_rules_follow_tenant_settings_and_alarms_clear_by_hand() {
    let (s, mut g) = site().await;
    let app = &s.app.app;
    // Settings that make no sense are refused with a message.
    let Reply { status, body, .. } = s
        .put_rule(json!({"gridVoltageMinV": 260.0, "gridVoltageMaxV": 250.0}))
        .await;
    support::assert_failure(status, &body, 400);
    assert!(
        body["msg"]
            .as_str()
            .is_some_and(|m| m.contains("minimum must be below")),
        "{body}"
    );
    let Reply { status, body, .. } = s.put_rule(json!({"clearHoldSeconds": -5})).await;
    support::assert_failure(status, &body, 400);
    let Reply { status, body, .. } = s.put_rule(json!({"temperatureMaxC": 70.0})).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        app.as_user(&s.manager).get_data("/api/alarmRule").await["temperatureMaxC"],
        70.0
    );
    // A user without the handle button may read but not change them.
    app.create_tenant_user(TENANT, "viewer", "secret1", &["alarmData"], None)
        .await;
    let viewer = app.as_user(&app.token_of(TENANT, "viewer", "secret1").await);
    let rule = viewer.get_data("/api/alarmRule").await;
    let Reply { status, body, .. } = viewer.put_json("/api/alarmRule", rule).await;
    support::assert_failure(status, &body, 403);

    // 72 °C is over the tenant's 70 °C (not over the default 80 °C).
    let ts = now_ms() - 60_000;
    g.publish("S2", &[(ts, vec![("temperature", 72.0), ("ac_power", 4000.0)])])
        .await;
    assert!(eventually(T, || async { !s.alarms("").await.is_empty() }).await);
    let r = &s.alarms("").await[0];
    assert_eq!(r["kind"], "threshold:temperatureHigh", "{r}");
    assert_eq!(
        (r["value"].as_f64(), r["threshold"].as_f64()),
        (Some(72.0), Some(70.0))
    );
    assert_eq!(r["deviceName"], "INV-1");
    let id = r["id"].as_str().expect("id").to_owned();

    // Clearing needs the button; bad actions and long notes are refused.
    let Reply { status, body, .. } = viewer
        .put_json("/api/alarmData", json!({"id": id, "action": "clear"}))
        .await;
    support::assert_failure(status, &body, 403);
    let Reply { status, body, .. } = app
        .as_user(&s.manager)
        .put_json("/api/alarmData", json!({"id": id, "action": "delete"}))
        .await;
    support::assert_failure(status, &body, 400);
    let Reply { status, body, .. } = app
        .as_user(&s.manager)
        .put_json(
            "/api/alarmData",
            json!({"id": id, "action": "clear", "note": "x".repeat(501)}),
        )
        .await;
    support::assert_failure(status, &body, 400);
    // Cleared by hand from active.
    let Reply { status, body, .. } = app
        .as_user(&s.manager)
        .put_json(
            "/api/alarmData",
            json!({"id": id, "action": "clear", "note": "sensor replaced"}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let r = &body["data"];
    assert_eq!(
        (
            r["status"].as_i64(),
            r["clearUserName"].as_str(),
            r["clearNote"].as_str()
        ),
        (Some(2), Some("mgr"), Some("sensor replaced"))
    );
    assert_eq!(
        s.count(
            "SELECT clear_user FROM pv_alarm WHERE id = ?",
            vec![Value::Int(id.parse().expect("id"))]
        )
        .await,
        s.manager_id
    );
    let Reply { status, body, .. } = app
        .as_user(&s.manager)
        .put_json("/api/alarmData", json!({"id": id, "action": "clear"}))
        .await;
    support::assert_failure(status, &body, 400);
    // Status names, both languages.
    let Reply { body, .. } = app
        .as_user(&s.manager)
        .en()
        .get("/api/alarmData/listAlarmStatus")
        .await;
    assert_eq!(
        body["data"],
        json!([{"dictKey": "0", "dictValue": "Active"}, {"dictKey": "1", "dictValue": "Acknowledged"}, {"dictKey": "2", "dictValue": "Cleared"}])
    );
    assert_eq!(
        app.as_user(&s.manager)
            .get_data("/api/alarmData/listAlarmStatus")
            .await[0]["dictValue"],
        "未处理"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_silent_device_raises_a_communication_alarm_that_clears_when_it_reports() {
    let (s, mut g) = site().await;
    let Reply { status, body, .. } = s
        .put_rule(json!({"deviceSilenceSeconds": 2, "clearHoldSeconds": 1}))
        .await;
    assert_eq!(status, 200, "{body}");
    g.publish("S1", &[(now_ms() - 1_000, vec![("ac_power", 1000.0)])])
        .await;
    let comm = || async {
        s.count(
            "SELECT COUNT(*) FROM pv_alarm WHERE kind = 'comm:device' AND status = 0",
            vec![],
        )
        .await
    };
    assert_eq!(comm().await, 0);
    assert!(
        eventually(T, || async { comm().await == 1 }).await,
        "silent for 2 s"
    );
    let r = &s.alarms("").await[0];
    assert_eq!(
        (r["category"].as_str(), r["deviceName"].as_str()),
        (Some("comm"), Some("INV-0")),
        "{r}"
    );
    // It reports again: one sample is not yet the end (a device dropping in and out stays one
    // alarm); reporting for the clear hold (1 s) is, and the system clears it.
    g.publish("S1", &[(now_ms(), vec![("ac_power", 1000.0)])]).await;
    tokio::time::sleep(std::time::Duration::from_millis(400)).await;
    assert_eq!(comm().await, 1, "cleared by a single sample");
    tokio::time::sleep(std::time::Duration::from_millis(800)).await;
    g.publish("S1", &[(now_ms(), vec![("ac_power", 1000.0)])]).await;
    assert!(eventually(T, || async { comm().await == 0 }).await);
    assert_eq!(
        s.count(
            "SELECT COUNT(*) FROM pv_alarm WHERE kind = 'comm:device' AND status = 2 AND clear_user = 0",
            vec![]
        )
        .await,
        1
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn owners_see_their_stations_alarms_and_other_tenants_nothing() {
    let (s, mut g) = site().await;
    let app = &s.app.app;
    // A second station of the tenant with a smart warning and a fault of its own.
    let Reply { status, body, .. } = app
        .as_user(&s.manager)
        .post_json("/api/station", json!({"name": "Second"}))
        .await;
    assert_eq!(status, 200, "{body}");
    let second: i64 = body["data"].as_str().expect("id").parse().expect("id");
    let raise = |station: i64, kind: &str, r#type: i64| pv_cloud::alarm::store::Raise {
        tenant_id: TENANT.into(),
        station_id: station,
        device_id: 0,
        device_kind: "station".into(),
        device_name: String::new(),
        kind: kind.into(),
        category: if r#type == 1 { "fault" } else { "dispersion" }.into(),
        r#type,
        level: 2,
        code: String::new(),
        name: "测试".into(),
        name_en: "Test".into(),
        detail: String::new(),
        detail_en: String::new(),
        value: None,
        threshold: None,
        at: now_ms(),
    };
    pv_cloud::alarm::store::raise(&app.state.alarm_ctx(), &raise(second, "warn:dispersion", 2))
        .await
        .expect("raise");
    pv_cloud::alarm::store::raise(&app.state.alarm_ctx(), &raise(second, "fault:x:1", 1))
        .await
        .expect("raise");
    // A fault on the first station, through ingest.
    g.publish("S1", &[(now_ms() - 1_000, vec![("fault_code", 4.0)])])
        .await;
    assert!(
        eventually(T, || async { s.alarms("").await.len() == 2 }).await,
        "{:?}",
        s.alarms("").await
    );
    let first_alarm = s.alarms("电网欠压").await[0]["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let second_alarm = s.alarms("测试").await[0]["id"].as_str().expect("id").to_owned();

    // An owner given the first station only.
    let owner_id = app.user_with_alias(TENANT, "owner1", "owner", &[]).await;
    let Reply { status, body, .. } = app
        .as_user(&s.manager)
        .post_json(
            "/api/station/updateUserStation",
            json!({"userId": owner_id.to_string(), "stationIds": [s.station]}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let owner = app.token_of(TENANT, "owner1", "secret1").await;
    let page = app.as_user(&owner).get_data("/api/alarmData/page").await;
    assert_eq!(page["total"], 1, "{page}");
    assert_eq!(page["records"][0]["id"], first_alarm);
    assert_eq!(
        app.as_user(&owner).get_data("/api/warnData/page").await["total"],
        0
    );
    let Reply { status, body, .. } = app
        .as_user(&owner)
        .get(&format!("/api/alarmData/{second_alarm}"))
        .await;
    support::assert_failure(status, &body, 404);
    // The owner's bell: his station's alarm only.
    let mut bell = tokio_tungstenite::connect_async(s.ws_url(owner_id, &owner))
        .await
        .expect("bell")
        .0;
    let msg = next_feed(&mut bell, T).await.expect("list");
    assert_eq!(msg["count"], 1, "{msg}");
    assert_eq!(msg["data"][0]["id"], first_alarm);

    // The manager sees both stations; warnings on their own page; filters narrow.
    let warn = app.as_user(&s.manager).get_data("/api/warnData/page").await;
    assert_eq!(
        (warn["total"].as_i64(), warn["records"][0]["type"].as_i64()),
        (Some(1), Some(2)),
        "{warn}"
    );
    let by_station = app
        .as_user(&s.manager)
        .get_data(&format!("/api/alarmData/page?stationId={second}&status=0"))
        .await;
    assert_eq!(by_station["total"], 1);
    assert_eq!(
        app.as_user(&s.manager)
            .get_data("/api/alarmData/page?level=4")
            .await["total"],
        0
    );
    let Reply { status, body, .. } = app
        .as_user(&s.manager)
        .get("/api/alarmData/page?startTime=yesterday")
        .await;
    support::assert_failure(status, &body, 400);

    // Another tenant: nothing, and 404 on the id.
    app.create_tenant_user("100002", "mgr2", "secret1", ALARM_MENUS, None)
        .await;
    let other = app.as_user(&app.token_of("100002", "mgr2", "secret1").await);
    assert_eq!(other.get_data("/api/alarmData/page").await["total"], 0);
    let Reply { status, body, .. } = other.get(&format!("/api/alarmData/{first_alarm}")).await;
    support::assert_failure(status, &body, 404);
    let Reply { status, body, .. } = other
        .put_json("/api/alarmData", json!({"id": first_alarm, "action": "ack"}))
        .await;
    assert!(status == 404 || status == 403, "{status} {body}");
    assert_eq!(other.get_data("/api/message/list").await["total"], 0);
}

/// The gateway's last-will status, as the edge registers it.
pub(crate) fn will() -> Vec<u8> {
    let s = pv_shared::wire::GatewayStatus {
        v: 1,
        gateway: "GW-1".into(),
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
