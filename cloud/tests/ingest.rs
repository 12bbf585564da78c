//! The cloud's data path over real parts: a provisioned gateway (station, inverters and
//! credentials made through the API) publishing with rumqttc over TCP to the embedded broker,
//! ingest storing into a real SQLite file or PostgreSQL, acknowledging, updating the realtime
//! view and presence, refusing what it must, and rolling up.

use crate::support;

use std::time::Duration;

use pv_cloud::kernel::sql::Value;
use pv_shared::topics;
use pv_shared::wire::{self, GatewayStatus, StatusKind, TelemetryBatch};
use support::{GatewayClient, IngestApp, eventually, now_ms, sample};

const T: Duration = Duration::from_secs(10);

async fn device_id(app: &IngestApp, sn: &str) -> i64 {
    app.app
        .scalar_int("SELECT id FROM pv_inverter WHERE sn = ?", vec![sn.into()])
        .await
        .expect("inverter row")
}

async fn rejected(app: &IngestApp, token: &str, gateway: &str, reason: &str) -> i64 {
    let list = app.app.as_user(token).get_data("/api/telemetry/gateways").await;
    list.as_array()
        .and_then(|l| l.iter().find(|g| g["gatewayId"] == gateway))
        .and_then(|g| g["rejected"][reason].as_i64())
        .unwrap_or(0)
}

fn status(gateway: &str, kind: StatusKind, devices: &[(&str, bool)]) -> Vec<u8> {
    let s = GatewayStatus {
        v: 1,
        gateway: gateway.into(),
        kind,
        online: matches!(kind, StatusKind::Birth | StatusKind::Periodic),
        ts: now_ms(),
        agent: "test".into(),
        queue: None,
        devices: devices
            .iter()
            .map(|(id, online)| wire::DeviceStatus {
                id: (*id).into(),
                online: *online,
                polls_ok: 1,
                polls_failed: 0,
                withheld: None,
                changes: 0,
                last_change: None,
                suspect: Default::default(),
                counter_rereads: 0,
                counters_unconfirmed: 0,
            })
            .collect(),
        buses: vec![],
    };
    wire::to_bytes(&s).expect("status")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_is_stored_once_acknowledged_and_shown_live_with_presence() {
    let app = IngestApp::start(|_| {}).await;
    let t = app.app.gateway_manager("100001", "mgr").await;
    let (_station, pw) = app.provision(&t, "GW-A", &["INV-A1", "INV-A2"]).await;
    let will = status("GW-A", StatusKind::Will, &[]);
    let mut gw = GatewayClient::connect(app.gateway_addr, "GW-A", Some(("GW-A", &pw)), Some(will))
        .await
        .expect("a provisioned gateway signs in");

    // Birth: online, with its devices as the status lists them.
    gw.publish(
        &topics::status("GW-A").unwrap(),
        status("GW-A", StatusKind::Birth, &[("INV-A1", true), ("INV-A2", true)]),
    )
    .await;
    let view = app.app.state.realtime.clone();
    assert!(eventually(T, || async { view.gateway("GW-A").is_some_and(|g| g.online) }).await);

    let ts = now_ms() - 60_000;
    let batch = TelemetryBatch::new(
        "GW-A",
        false,
        vec![
            sample(1, "INV-A1", ts, &[("ac_power", 1000.0), ("energy_total", 5000.0)]),
            sample(2, "INV-A2", ts, &[("ac_power", 2000.0)]),
            sample(
                3,
                "INV-A1",
                ts + 5000,
                &[("ac_power", 1100.0), ("energy_total", 5002.0)],
            ),
        ],
    );
    gw.send(&batch).await;
    let ack = gw.ack_within(T).await.expect("ack after storing");
    assert_eq!(
        (ack.batch.as_str(), ack.first_seq, ack.last_seq),
        ("GW-A:1-3", 1, 3)
    );
    assert_eq!(app.raw_count().await, 3, "stored when acknowledged");
    let a1 = device_id(&app, "INV-A1").await;
    let live = view.device(a1).expect("in the realtime view");
    assert_eq!((live.ts, live.number("ac_power")), (ts + 5000, Some(1100.0)));
    let latest = app
        .app
        .scalar_int(
            "SELECT ts FROM pv_telemetry_latest WHERE device_id = ?",
            vec![Value::Int(a1)],
        )
        .await;
    assert_eq!(latest, Some(ts + 5000));

    // The same batch again (a lost ack): stored once, acknowledged twice.
    gw.send(&batch).await;
    let again = gw.ack_within(T).await.expect("acked again");
    assert_eq!(again, ack);
    assert_eq!(app.raw_count().await, 3);

    // Unknown device and a sample from the future: refused with their reasons; the batch is
    // still acknowledged (it can never become valid), the valid sample in it is stored.
    let bad = TelemetryBatch::new(
        "GW-A",
        false,
        vec![
            sample(4, "NOT-REGISTERED", ts, &[("ac_power", 1.0)]),
            sample(5, "INV-A2", now_ms() + 3_600_000, &[("ac_power", 1.0)]),
            sample(6, "INV-A2", ts + 10_000, &[("ac_power", 3.0)]),
        ],
    );
    gw.send(&bad).await;
    let ack = gw.ack_within(T).await.expect("acked");
    assert_eq!((ack.first_seq, ack.last_seq), (4, 6));
    assert_eq!(app.raw_count().await, 4);
    let all_bad = TelemetryBatch::new("GW-A", false, vec![sample(7, "NOT-REGISTERED", ts, &[])]);
    gw.send(&all_bad).await;
    assert_eq!(gw.ack_within(T).await.map(|a| a.first_seq), Some(7));
    assert!(
        eventually(T, || async {
            rejected(&app, &t, "GW-A", "unknown_device").await == 2
                && rejected(&app, &t, "GW-A", "time_out_of_range").await == 1
        })
        .await,
        "counted and visible to the operator: {}",
        app.app.as_user(&t).get_data("/api/telemetry/gateways").await
    );
    let list = app.app.as_user(&t).get_data("/api/telemetry/gateways").await;
    assert_eq!(list[0]["accepted"], 7, "3 + 3 replayed + 1: {list}");
    assert_eq!(list[0]["online"], true);

    // A status that reports a device offline.
    gw.publish(
        &topics::status("GW-A").unwrap(),
        status(
            "GW-A",
            StatusKind::Periodic,
            &[("INV-A1", false), ("INV-A2", true)],
        ),
    )
    .await;
    assert!(eventually(T, || async { view.device(a1).is_some_and(|d| !d.online) }).await);

    // A device whose values the gateway withholds (its layout changed): the status is accepted
    // with the reason.
    let reason = "layout changed: model 103 expected at 40070, found 160";
    let mut held: GatewayStatus = wire::parse(&status(
        "GW-A",
        StatusKind::Periodic,
        &[("INV-A1", true), ("INV-A2", true)],
    ))
    .expect("status");
    held.devices[1].withheld = Some(reason.into());
    held.devices[1].changes = 1;
    held.devices[1].last_change = Some(reason.into());
    gw.publish(
        &topics::status("GW-A").unwrap(),
        wire::to_bytes(&held).expect("status"),
    )
    .await;
    assert!(
        eventually(T, || async {
            view.gateway("GW-A")
                .and_then(|g| g.status)
                .is_some_and(|s| s.devices.iter().any(|d| d.withheld.as_deref() == Some(reason)))
        })
        .await
    );
    assert_eq!(rejected(&app, &t, "GW-A", "malformed").await, 0);

    // Power lost: the broker publishes the last will: the gateway and its devices go offline.
    gw.kill();
    assert!(
        eventually(T, || async { view.gateway("GW-A").is_some_and(|g| !g.online) }).await,
        "offline after the will"
    );
    let a2 = device_id(&app, "INV-A2").await;
    assert!(eventually(T, || async { view.device(a2).is_some_and(|d| !d.online) }).await);
    let online = app
        .app
        .scalar_int(
            "SELECT online FROM pv_gateway_state WHERE gateway_id = ?",
            vec!["GW-A".into()],
        )
        .await;
    assert_eq!(online, Some(0));
    let dev_online = app
        .app
        .scalar_int(
            "SELECT online FROM pv_telemetry_latest WHERE device_id = ?",
            vec![Value::Int(a2)],
        )
        .await;
    assert_eq!(dev_online, Some(0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn silence_makes_a_gateway_offline() {
    let app = IngestApp::start(|c| c.telemetry.gateway_silence_seconds = 1).await;
    let t = app.app.gateway_manager("100001", "mgr").await;
    let (_, pw) = app.provision(&t, "GW-S", &["INV-S1"]).await;
    let gw = GatewayClient::connect(app.gateway_addr, "GW-S", Some(("GW-S", &pw)), None)
        .await
        .expect("signs in");
    gw.publish(
        &topics::status("GW-S").unwrap(),
        status("GW-S", StatusKind::Birth, &[]),
    )
    .await;
    let view = app.app.state.realtime.clone();
    assert!(eventually(T, || async { view.gateway("GW-S").is_some_and(|g| g.online) }).await);
    assert!(eventually(T, || async { view.gateway("GW-S").is_some_and(|g| !g.online) }).await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sign_in_is_checked_and_a_gateway_cannot_publish_as_another() {
    let app = IngestApp::start(|_| {}).await;
    let t = app.app.gateway_manager("100001", "mgr").await;
    let (_, pw_a) = app.provision(&t, "GW-X", &["INV-X1"]).await;
    let (_, pw_b) = app.provision(&t, "GW-Y", &["INV-Y1"]).await;

    let addr = app.gateway_addr;
    assert!(
        GatewayClient::connect(addr, "GW-X", Some(("GW-X", "wrong")), None)
            .await
            .is_err()
    );
    assert!(
        GatewayClient::connect(addr, "GW-X", None, None).await.is_err(),
        "anonymous"
    );
    assert!(
        GatewayClient::connect(addr, "GW-Y", Some(("GW-X", &pw_a)), None)
            .await
            .is_err(),
        "client id must be the username"
    );
    assert!(
        GatewayClient::connect(addr, "GW-X", Some(("GW-X", &pw_b)), None)
            .await
            .is_err(),
        "another gateway's password"
    );

    let ts = now_ms() - 1000;
    // Another gateway's id in the payload, on its own topic: refused, counted, not acked.
    let mut x = GatewayClient::connect(addr, "GW-X", Some(("GW-X", &pw_a)), None)
        .await
        .expect("signs in");
    let forged = TelemetryBatch::new("GW-Y", false, vec![sample(1, "INV-Y1", ts, &[("ac_power", 9.0)])]);
    x.publish(
        &topics::telemetry("GW-X").unwrap(),
        wire::to_bytes(&forged).unwrap(),
    )
    .await;
    assert!(x.ack_within(Duration::from_secs(2)).await.is_none());
    // On the other gateway's topic: the connection is closed before the broker sees it.
    let mut y = GatewayClient::connect(addr, "GW-Y", Some(("GW-Y", &pw_b)), None)
        .await
        .expect("signs in");
    x.publish(
        &topics::telemetry("GW-Y").unwrap(),
        wire::to_bytes(&forged).unwrap(),
    )
    .await;
    let closed = x.closed.clone();
    assert!(eventually(T, || async { closed.load(std::sync::atomic::Ordering::SeqCst) }).await);
    assert!(y.ack_within(Duration::from_secs(2)).await.is_none());
    assert_eq!(app.raw_count().await, 0, "nothing forged was stored");
    // Subscribing to another gateway's downlink is refused the same way.
    let x2 = GatewayClient::connect(addr, "GW-X", Some(("GW-X", &pw_a)), None)
        .await
        .expect("signs in again");
    let _ = x2
        .client
        .subscribe("pv/1/GW-Y/down/+", rumqttc::QoS::AtLeastOnce)
        .await;
    let closed = x2.closed.clone();
    assert!(eventually(T, || async { closed.load(std::sync::atomic::Ordering::SeqCst) }).await);
    assert!(
        eventually(T, || async {
            rejected(&app, &t, "GW-X", "gateway_mismatch").await == 3
        })
        .await,
        "{}",
        app.app.as_user(&t).get_data("/api/telemetry/gateways").await
    );

    // GW-Y's own data still flows.
    let real = TelemetryBatch::new("GW-Y", false, vec![sample(1, "INV-Y1", ts, &[("ac_power", 9.0)])]);
    y.send(&real).await;
    assert_eq!(y.ack_within(T).await.map(|a| a.last_seq), Some(1));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_ack_while_the_database_fails_then_ack_after_it_recovers() {
    let app = IngestApp::start(|_| {}).await;
    let t = app.app.gateway_manager("100001", "mgr").await;
    let (_, pw) = app.provision(&t, "GW-D", &["INV-D1"]).await;
    let mut gw = GatewayClient::connect(app.gateway_addr, "GW-D", Some(("GW-D", &pw)), None)
        .await
        .expect("signs in");
    // Warm the registry so the failure hits the write, not the lookup.
    let ts = now_ms() - 10_000;
    gw.send(&TelemetryBatch::new(
        "GW-D",
        false,
        vec![sample(1, "INV-D1", ts, &[("ac_power", 1.0)])],
    ))
    .await;
    assert!(gw.ack_within(T).await.is_some());

    // The raw table disappears (a real failure of every insert, on both back-ends).
    app.app
        .exec(
            "ALTER TABLE pv_telemetry_raw RENAME TO pv_telemetry_raw_away",
            vec![],
        )
        .await;
    let batch = TelemetryBatch::new(
        "GW-D",
        false,
        (2..=4)
            .map(|s| sample(s, "INV-D1", ts + s as i64 * 1000, &[("ac_power", s as f64)]))
            .collect(),
    );
    gw.send(&batch).await;
    assert!(
        gw.ack_within(Duration::from_secs(4)).await.is_none(),
        "nothing is acknowledged that is not stored"
    );
    app.app
        .exec(
            "ALTER TABLE pv_telemetry_raw_away RENAME TO pv_telemetry_raw",
            vec![],
        )
        .await;
    // As the edge does: resend what is unacknowledged until it is.
    let mut acked = None;
    for _ in 0..15 {
        gw.send(&batch).await;
        if let Some(a) = gw.ack_within(Duration::from_secs(2)).await {
            acked = Some(a);
            break;
        }
    }
    assert_eq!(acked.map(|a| (a.first_seq, a.last_seq)), Some((2, 4)));
    assert!(
        eventually(T, || async { app.raw_count().await == 4 }).await,
        "stored once each"
    );
    assert_eq!(app.raw_count().await, 4);
}

/// xorshift64*: a seeded, reproducible stream for the fuzz cases.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn mutate(rng: &mut Rng, valid: &[u8]) -> Vec<u8> {
    let mut b = valid.to_vec();
    match rng.below(6) {
        0 => (0..rng.below(600)).map(|_| rng.next() as u8).collect(),
        1 => {
            b.truncate(rng.below(b.len()));
            b
        }
        2 => {
            for _ in 0..=rng.below(8) {
                let i = rng.below(b.len());
                b[i] = rng.next() as u8;
            }
            b
        }
        3 => {
            let i = rng.below(b.len());
            let junk: &[&[u8]] = &[
                b"{",
                b"}",
                b"\"",
                b",",
                b"null",
                b"-1e999",
                b"\"v\":2,",
                b"[",
                b"\\u0000",
            ];
            let j = junk[rng.below(junk.len())];
            b.splice(i..i, j.iter().copied());
            b
        }
        4 => {
            // Valid JSON of the wrong shape, or a wrong version.
            let shapes: &[&[u8]] = &[
                br#"{"v":1}"#,
                br#"{"v":2,"gateway":"GW-F","batch":"GW-F:1-1","first_seq":1,"last_seq":1,"samples":[]}"#,
                br#"[]"#,
                br#"{"v":1,"gateway":"GW-F","batch":"GW-F:1-1","first_seq":1,"last_seq":1,"samples":[{"seq":1,"device":"INV-F1","ts":1,"values":{"x":"y"}}],"extra":1}"#,
                br#"{"v":1,"gateway":"GW-F","kind":"birth","online":true,"ts":1,"agent":"x","devices":[{"id":"INV-F1"}]}"#,
            ];
            shapes[rng.below(shapes.len())].to_vec()
        }
        _ => {
            b.reverse();
            b
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_payloads_never_crash_or_stall_ingest() {
    let app = IngestApp::start(|_| {}).await;
    let t = app.app.gateway_manager("100001", "mgr").await;
    let (_, pw) = app.provision(&t, "GW-F", &["INV-F1"]).await;
    let ts = now_ms() - 30_000;
    let valid = wire::to_bytes(&TelemetryBatch::new(
        "GW-F",
        false,
        vec![sample(
            1,
            "INV-F1",
            ts,
            &[("ac_power", 5.0), ("energy_total", 9.0)],
        )],
    ))
    .unwrap();
    let valid_status = status("GW-F", StatusKind::Periodic, &[("INV-F1", true)]);
    // The compact encoding's garbage goes the same way (`wire::binary`).
    let valid_binary = wire::batch_to_bytes(
        &TelemetryBatch::new(
            "GW-F",
            false,
            vec![sample(
                2,
                "INV-F1",
                ts,
                &[("ac_power", 5.5), ("energy_total", 9.0)],
            )],
        ),
        wire::Encoding::Binary,
    )
    .unwrap();
    let mut rng = Rng(0x5EED_2026_0007);

    // In process, straight into ingest: random topics too, 5000 cases.
    let ingest = app.telemetry.ingest.clone();
    for i in 0..5000 {
        let topic = match rng.below(5) {
            0 => "pv/1/GW-F/up/telemetry".to_owned(),
            1 => "pv/1/GW-F/up/status".to_owned(),
            2 => "pv/1/NOBODY/up/telemetry".to_owned(),
            3 => String::from_utf8_lossy(&mutate(&mut rng, b"pv/1/GW-F/up/telemetry")).into_owned(),
            _ => "pv/1/GW-F/up/command-ack".to_owned(),
        };
        let base = match i % 3 {
            0 => &valid,
            1 => &valid_binary,
            _ => &valid_status,
        };
        let payload = mutate(&mut rng, base);
        ingest
            .handle(pv_cloud::telemetry::broker::Incoming {
                topic,
                payload: payload.into(),
            })
            .await;
    }

    // Over MQTT as the signed-in gateway, 2000 cases on its own topics.
    let mut gw = GatewayClient::connect(app.gateway_addr, "GW-F", Some(("GW-F", &pw)), None)
        .await
        .expect("signs in");
    for i in 0..2000 {
        let (topic, base) = match i % 3 {
            0 => (topics::status("GW-F").unwrap(), &valid_status),
            1 => (topics::telemetry("GW-F").unwrap(), &valid_binary),
            _ => (topics::telemetry("GW-F").unwrap(), &valid),
        };
        gw.publish(&topic, mutate(&mut rng, base)).await;
    }
    // Some mutations are still valid batches and get acked: drain, then the real check.
    let next = TelemetryBatch::new(
        "GW-F",
        false,
        vec![sample(1000, "INV-F1", ts + 1000, &[("ac_power", 6.0)])],
    );
    gw.send(&next).await;
    let mut got = false;
    while let Some(a) = gw.ack_within(Duration::from_secs(20)).await {
        if a.first_seq == 1000 {
            got = true;
            break;
        }
    }
    assert!(got, "a valid batch still goes through after the garbage");
    assert!(
        !gw.closed.load(std::sync::atomic::Ordering::SeqCst),
        "its connection survived"
    );
    assert!(
        rejected(&app, &t, "GW-F", "malformed").await > 0 || {
            tokio::time::sleep(Duration::from_secs(2)).await;
            rejected(&app, &t, "GW-F", "malformed").await > 0
        }
    );
}

/// Rollup rows of a device as comparable text (without device id and update time).
async fn rollups_of(app: &IngestApp, device: i64) -> Vec<String> {
    let mut sql = pv_cloud::kernel::sql::Sql::default();
    sql.push_bind(
        "SELECT period, bucket, samples, energy_wh, power_avg_w, power_max_w, metrics \
         FROM pv_telemetry_rollup WHERE device_id = ? ORDER BY period, bucket",
        [Value::Int(device)],
    );
    let (text, args) = sql.build().unwrap();
    use sqlx::Row;
    sqlx::query_with(sqlx::AssertSqlSafe(text), args)
        .fetch_all(app.app.state.db.pool())
        .await
        .unwrap()
        .iter()
        .map(|r| {
            format!(
                "{} {} {} {:?} {:?} {:?} {}",
                r.get::<String, _>("period"),
                r.get::<i64, _>("bucket"),
                r.get::<i64, _>("samples"),
                r.get::<Option<f64>, _>("energy_wh")
                    .map(|e| (e * 1e6).round() / 1e6),
                r.get::<Option<f64>, _>("power_avg_w")
                    .map(|e| (e * 1e6).round() / 1e6),
                r.get::<Option<f64>, _>("power_max_w"),
                r.get::<String, _>("metrics").len(),
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rollups_after_an_out_of_order_replay_equal_in_order_delivery() {
    let app = IngestApp::start(|_| {}).await;
    let t = app.app.gateway_manager("100001", "mgr").await;
    let (_, pw) = app.provision(&t, "GW-R", &["INV-IN", "INV-OUT"]).await;
    let mut gw = GatewayClient::connect(app.gateway_addr, "GW-R", Some(("GW-R", &pw)), None)
        .await
        .expect("signs in");
    // Two hours of a sample a minute, 3 hours ago, aligned to the hour; the counter is reset
    // once (to 0) in the middle and there is a 20-minute gap.
    let start = (now_ms() - 3 * 3_600_000) / 3_600_000 * 3_600_000;
    let mut series = Vec::new();
    let mut counter = 10_000.0;
    for m in 0..120i64 {
        if (50..70).contains(&m) {
            continue;
        }
        counter += 10.0 + (m % 7) as f64;
        if m == 90 {
            counter = 3.0;
        }
        series.push((start + m * 60_000, counter, 100.0 * (m % 11) as f64));
    }
    let make = |device: &str, seq0: u64, points: &[(i64, f64, f64)]| {
        points
            .iter()
            .enumerate()
            .map(|(i, (ts, e, p))| {
                sample(
                    seq0 + i as u64,
                    device,
                    *ts,
                    &[("energy_total", *e), ("ac_power", *p)],
                )
            })
            .collect::<Vec<_>>()
    };
    // In order, 10 samples per batch.
    let mut seq = 1;
    for chunk in series.chunks(10) {
        let b = TelemetryBatch::new("GW-R", false, make("INV-IN", seq, chunk));
        seq += chunk.len() as u64;
        gw.send(&b).await;
        assert!(gw.ack_within(T).await.is_some());
    }
    // The same series for the other inverter: newest first, in shuffled batches, some twice,
    // and the rollup worker running in between (as a replay after an outage would be).
    let mut rng = Rng(42);
    let mut chunks: Vec<Vec<(i64, f64, f64)>> = series.chunks(7).map(|c| c.to_vec()).collect();
    chunks.reverse();
    for i in (1..chunks.len()).rev() {
        let j = rng.below(i + 1);
        chunks.swap(i, j);
    }
    for (k, chunk) in chunks.iter().enumerate() {
        let b = TelemetryBatch::new("GW-R", true, make("INV-OUT", seq, chunk));
        seq += chunk.len() as u64;
        gw.send(&b).await;
        assert!(gw.ack_within(T).await.is_some());
        if k % 3 == 0 {
            gw.send(&b).await;
            assert!(gw.ack_within(T).await.is_some());
            app.telemetry.rollups.notify_one();
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
    app.telemetry.rollups.notify_one();
    let db = app.app.state.db.clone();
    assert!(
        eventually(Duration::from_secs(30), || async {
            sqlx::query_scalar::<sqlx::Any, i64>("SELECT COUNT(*) FROM pv_telemetry_dirty")
                .fetch_one(db.pool())
                .await
                .unwrap_or(1)
                == 0
        })
        .await,
        "rollups caught up"
    );
    let a = rollups_of(&app, device_id(&app, "INV-IN").await).await;
    let b = rollups_of(&app, device_id(&app, "INV-OUT").await).await;
    assert!(a.iter().any(|r| r.starts_with("1d")), "{a:?}");
    assert_eq!(a, b, "replayed out of order = delivered in order");

    // Hand-computed: the whole series' energy is the sum of positive deltas, the reset counting
    // its new reading, from the first reading (the baseline).
    let mut expected = 0.0;
    for w in series.windows(2) {
        let d = w[1].1 - w[0].1;
        expected += if d >= 0.0 { d } else { w[1].1 };
    }
    let mut sql = pv_cloud::kernel::sql::Sql::default();
    sql.push_bind(
        "SELECT SUM(energy_wh) FROM pv_telemetry_rollup WHERE device_id = ? AND period = '1h'",
        [Value::Int(device_id(&app, "INV-OUT").await)],
    );
    let (text, args) = sql.build().unwrap();
    let total: f64 = sqlx::query_scalar_with::<sqlx::Any, f64, _>(sqlx::AssertSqlSafe(text), args)
        .fetch_one(app.app.state.db.pool())
        .await
        .unwrap();
    assert!((total - expected).abs() < 1e-6, "{total} vs {expected}");
}
