//! The MQTT uplink of the real `pv-edge run` process against a real broker (rumqttd on
//! loopback) and a real MQTT client standing in for the cloud ingest (`pv_edge::testkit`):
//! store-and-forward with application-level acks, status messages (birth, counters, overflow,
//! last will, shutdown), commands and their answers, and a broker refusing the credentials.

mod common;

use std::collections::BTreeSet;
use std::io::{Read, Write};
use std::time::{Duration, Instant};

use common::*;
use pv_edge::queue::Queue;
use pv_edge::testkit::{Consumer, Store, start_broker};
use pv_shared::regmap::Function;
use pv_shared::wire::{Action, Command, CommandAck, GatewayStatus, StatusKind};

fn latest_status<'a>(s: &'a Store, gateway: &str) -> Option<&'a GatewayStatus> {
    s.statuses
        .iter()
        .rev()
        .map(|(_, st)| st)
        .find(|st| st.gateway == gateway)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn samples_leave_the_queue_only_once_the_cloud_acks_them_and_are_stored_once() {
    let broker = start_broker(None).unwrap();
    let cloud = Consumer::connect(broker, "cloud-fwd").await;
    // A cloud that stores but whose acks never arrive, at first.
    cloud.store().acking = false;
    let all = maps();
    let pick: Vec<_> = ["eastron-sdm630", "pv-reference-tracker"]
        .iter()
        .map(|id| all.iter().find(|m| &m.id == id).cloned().unwrap())
        .collect();
    let sim = serve_tcp(simulator(&pick, 1)).await;
    let dir = tempfile::tempdir().unwrap();
    let config = gateway_config(
        dir.path(),
        "gw-fwd",
        sim,
        &[
            ("meter-1", "eastron-sdm630", 1),
            ("tracker-1", "pv-reference-tracker", 2),
        ],
        100,
        &mqtt_section(broker, "ack_timeout_s = 3"),
    );
    let agent = Agent::spawn(&config);

    assert!(
        cloud
            .wait_for(Duration::from_secs(15), |s| latest_status(s, "gw-fwd")
                .is_some_and(
                    |st| st.kind == StatusKind::Birth || st.kind == StatusKind::Periodic
                ))
            .await,
        "birth message"
    );
    assert_eq!(
        cloud
            .store()
            .statuses
            .iter()
            .find(|(_, s)| s.gateway == "gw-fwd")
            .unwrap()
            .1
            .kind,
        StatusKind::Birth,
        "the first status is the birth"
    );
    // Batches arrive, but unacknowledged samples stay in the gateway's queue.
    assert!(
        cloud
            .wait_for(Duration::from_secs(10), |s| latest_status(s, "gw-fwd")
                .and_then(|st| st.queue)
                .is_some_and(|q| q.depth >= 30))
            .await,
        "queue depth grows while nothing is acknowledged: {:?}",
        latest_status(&cloud.store(), "gw-fwd")
    );
    assert!(cloud.store().seqs("gw-fwd").len() >= 30);
    let received_before = cloud.store().batches.len();

    // Acks start flowing: after the ack timeout the gateway sends everything unacknowledged
    // again; the cloud stores nothing twice and the queue drains.
    cloud.store().acking = true;
    assert!(
        cloud
            .wait_for(Duration::from_secs(20), |s| s.batches.len() > received_before
                && latest_status(s, "gw-fwd")
                    .and_then(|st| st.queue)
                    .is_some_and(|q| q.depth < 10))
            .await,
        "queue drains once acks flow: {:?}",
        latest_status(&cloud.store(), "gw-fwd")
    );
    tokio::time::sleep(Duration::from_millis(500)).await;
    let (status, reported) = agent.terminate();
    assert!(status.success(), "clean exit on SIGTERM: {status:?}");
    assert!(
        cloud
            .wait_for(Duration::from_secs(5), |s| latest_status(s, "gw-fwd")
                .is_some_and(|st| st.kind == StatusKind::Shutdown && !st.online))
            .await,
        "shutdown status"
    );

    {
        let st = cloud.store();
        let stored: BTreeSet<u64> = st.seqs("gw-fwd").into_iter().collect();
        let left: BTreeSet<u64> = Queue::open(&dir.path().join("data/queue"), 1_000_000)
            .unwrap()
            .after(0, usize::MAX)
            .unwrap()
            .iter()
            .map(|s| s.seq)
            .collect();
        let missing: Vec<_> = reported
            .iter()
            .filter(|s| !stored.contains(s) && !left.contains(s))
            .take(10)
            .collect();
        assert!(missing.is_empty(), "lost: {missing:?}");
        assert!(
            left.len() < 50,
            "only the last moment's samples may remain: {}",
            left.len()
        );
        assert!(st.duplicates() > 0, "the unacknowledged batches were sent again");
        assert_eq!(st.refused, 0);
        eprintln!(
            "reported {}, stored {}, received again {}, left in queue {}",
            reported.len(),
            stored.len(),
            st.duplicates(),
            left.len()
        );
        // The cloud's samples are exactly what the simulator serves.
        let expected_meter = simulator(&pick, 1).unit(1).unwrap().expected().clone();
        let meter = st.samples.values().find(|s| s.device == "meter-1").unwrap();
        assert_eq!(meter.values, expected_meter);
    }

    // The status is retained: a client connecting later still learns the gateway is offline.
    let late = Consumer::connect(broker, "cloud-late").await;
    assert!(
        late.wait_for(Duration::from_secs(5), |s| latest_status(s, "gw-fwd")
            .is_some_and(|st| st.kind == StatusKind::Shutdown))
            .await
    );
}

/// A TCP relay in front of the broker that holds every SUBACK for `delay`, as a loaded broker
/// or machine may: the window between the CONNACK and the SUBACK, which the birth waits for.
async fn slow_suback_relay(broker: std::net::SocketAddr, delay: Duration) -> std::net::SocketAddr {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((client, _)) = listener.accept().await {
            let Ok(upstream) = tokio::net::TcpStream::connect(broker).await else {
                continue;
            };
            let (mut client_rx, mut client_tx) = client.into_split();
            let (mut up_rx, mut up_tx) = upstream.into_split();
            tokio::spawn(async move { tokio::io::copy(&mut client_rx, &mut up_tx).await });
            tokio::spawn(async move {
                // MQTT framing: a type byte, the remaining length (a varint), the rest.
                loop {
                    let mut packet = vec![0u8; 1];
                    if up_rx.read_exact(&mut packet).await.is_err() {
                        return;
                    }
                    let (mut len, mut shift) = (0usize, 0);
                    loop {
                        let mut b = [0u8; 1];
                        if up_rx.read_exact(&mut b).await.is_err() {
                            return;
                        }
                        packet.push(b[0]);
                        len |= usize::from(b[0] & 0x7F) << shift;
                        shift += 7;
                        if b[0] & 0x80 == 0 {
                            break;
                        }
                    }
                    let mut body = vec![0u8; len];
                    if up_rx.read_exact(&mut body).await.is_err() {
                        return;
                    }
                    packet.extend(body);
                    if packet[0] >> 4 == 9 {
                        tokio::time::sleep(delay).await;
                    }
                    if client_tx.write_all(&packet).await.is_err() {
                        return;
                    }
                }
            });
        }
    });
    addr
}

/// The cloud takes the first status of a connection as its birth. With a status interval of
/// 1 s and a SUBACK that takes 2.5 s, periodic ticks fall between the CONNACK and the SUBACK:
/// none of them may go out before the birth (the race a loaded machine showed in the test
/// above).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_periodic_status_goes_before_the_birth_when_the_suback_is_slow() {
    let broker = start_broker(None).unwrap();
    let cloud = Consumer::connect(broker, "cloud-slow-suback").await;
    let relay = slow_suback_relay(broker, Duration::from_millis(2_500)).await;
    let all = maps();
    let meter = all.iter().find(|m| m.id == "eastron-sdm630").cloned().unwrap();
    let sim = serve_tcp(simulator(&[meter], 3)).await;
    let dir = tempfile::tempdir().unwrap();
    let config = gateway_config(
        dir.path(),
        "gw-slow",
        sim,
        &[("meter-1", "eastron-sdm630", 1)],
        200,
        &mqtt_section(relay, ""),
    );
    let agent = Agent::spawn(&config);
    assert!(
        cloud
            .wait_for(Duration::from_secs(15), |s| s
                .statuses
                .iter()
                .filter(|(_, st)| st.gateway == "gw-slow")
                .count()
                >= 2)
            .await,
        "a birth and a periodic status"
    );
    let kinds: Vec<StatusKind> = cloud
        .store()
        .statuses
        .iter()
        .filter(|(_, st)| st.gateway == "gw-slow")
        .map(|(_, st)| st.kind)
        .collect();
    assert_eq!(kinds[0], StatusKind::Birth, "statuses in order: {kinds:?}");
    assert_eq!(
        kinds.iter().filter(|k| **k == StatusKind::Birth).count(),
        1,
        "one birth per connection: {kinds:?}"
    );
    let (status, _) = agent.terminate();
    assert!(status.success());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn status_reports_overflow_drops_offline_devices_and_the_last_will() {
    let broker = start_broker(None).unwrap();
    let cloud = Consumer::connect(broker, "cloud-status").await;
    cloud.store().acking = false;
    let all = maps();
    let meter = all.iter().find(|m| m.id == "eastron-sdm630").cloned().unwrap();
    let sim = serve_tcp(simulator(&[meter], 2)).await;
    let dir = tempfile::tempdir().unwrap();
    // Unit 9 has nobody behind it; the queue holds 30 samples.
    let config = gateway_config(
        dir.path(),
        "gw-status",
        sim,
        &[("meter-1", "eastron-sdm630", 1), ("ghost", "eastron-sdm630", 9)],
        50,
        &format!("[queue]\nmax_samples = 30\n{}", mqtt_section(broker, "")),
    );
    let agent = Agent::spawn(&config);
    let full = cloud
        .wait_for(Duration::from_secs(20), |s| {
            latest_status(s, "gw-status").is_some_and(|st| {
                let q = st.queue.unwrap();
                let ghost = st.devices.iter().find(|d| d.id == "ghost");
                q.depth == 30
                    && q.dropped_oldest > 0
                    && ghost.is_some_and(|g| !g.online && g.polls_failed >= 2)
                    && st.buses[0].timeouts >= 2
            })
        })
        .await;
    let last = latest_status(&cloud.store(), "gw-status").cloned();
    assert!(full, "status: {last:#?}");
    let last = last.unwrap();
    assert!(
        last.devices
            .iter()
            .any(|d| d.id == "meter-1" && d.online && d.polls_ok > 0)
    );
    assert!(agent.log_text().contains("oldest samples dropped"));

    // kill -9: the broker announces the last will.
    let t = Instant::now();
    agent.kill();
    assert!(
        cloud
            .wait_for(Duration::from_secs(15), |s| latest_status(s, "gw-status")
                .is_some_and(|st| st.kind == StatusKind::Will && !st.online))
            .await,
        "last will published"
    );
    eprintln!("last will after {:?}", t.elapsed());
}

fn answer(s: &Store, id: &str) -> Option<CommandAck> {
    s.answers.iter().find(|a| a.id == id).cloned()
}

async fn ask(cloud: &Consumer, gateway: &str, id: &str, action: Action) -> CommandAck {
    let c = Command {
        v: 1,
        id: id.into(),
        action,
    };
    cloud.command(gateway, &c).await;
    assert!(
        cloud
            .wait_for(Duration::from_secs(10), |s| answer(s, id).is_some())
            .await,
        "no answer to {id}"
    );
    answer(&cloud.store(), id).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn commands_write_set_points_read_now_reload_and_are_answered_once() {
    let broker = start_broker(None).unwrap();
    let cloud = Consumer::connect(broker, "cloud-cmd").await;
    let all = maps();
    let pick: Vec<_> = ["eastron-sdm630", "pv-reference-tracker"]
        .iter()
        .map(|id| all.iter().find(|m| &m.id == id).cloned().unwrap())
        .collect();
    let simulated = simulator(&pick, 3);
    let sim = serve_tcp(simulated.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let devices = [
        ("meter-1", "eastron-sdm630", 1),
        ("tracker-1", "pv-reference-tracker", 2),
    ];
    let mqtt = mqtt_section(broker, "");
    let config = gateway_config(dir.path(), "gw-cmd", sim, &devices, 500, &mqtt);
    let agent = Agent::spawn(&config);
    assert!(
        cloud
            .wait_for(Duration::from_secs(15), |s| !s.seqs("gw-cmd").is_empty())
            .await
    );

    let write = Action::WritePoint {
        device: "tracker-1".into(),
        metric: "tracker_target_angle".into(),
        value: 12.5,
    };
    let a = ask(&cloud, "gw-cmd", "c-1", write.clone()).await;
    assert!(a.ok, "{a:?}");
    assert!(a.message.contains("12.5 deg"), "{}", a.message);
    assert_eq!(
        simulated.unit(2).unwrap().register(Function::Holding, 1),
        Some(125)
    );

    // The same command delivered again is answered again, identically, and not re-run.
    simulated.unit(2).unwrap().set_register(Function::Holding, 1, 7);
    cloud
        .command(
            "gw-cmd",
            &Command {
                v: 1,
                id: "c-1".into(),
                action: write,
            },
        )
        .await;
    assert!(
        cloud
            .wait_for(Duration::from_secs(10), |s| s
                .answers
                .iter()
                .filter(|a| a.id == "c-1")
                .count()
                == 2)
            .await
    );
    assert_eq!(cloud.store().answers.iter().rfind(|x| x.id == "c-1"), Some(&a));
    assert_eq!(
        simulated.unit(2).unwrap().register(Function::Holding, 1),
        Some(7),
        "not written twice"
    );

    let a = ask(
        &cloud,
        "gw-cmd",
        "c-2",
        Action::WritePoint {
            device: "tracker-1".into(),
            metric: "tracker_angle".into(),
            value: 3.0,
        },
    )
    .await;
    assert!(!a.ok && a.message.contains("not writable"), "{a:?}");
    let a = ask(
        &cloud,
        "gw-cmd",
        "c-3",
        Action::ReadNow {
            device: "nobody".into(),
        },
    )
    .await;
    assert!(!a.ok && a.message.contains("no device nobody"), "{a:?}");

    let a = ask(
        &cloud,
        "gw-cmd",
        "c-4",
        Action::ReadNow {
            device: "meter-1".into(),
        },
    )
    .await;
    assert!(a.ok, "{a:?}");
    assert_eq!(a.values.as_ref(), Some(simulated.unit(1).unwrap().expected()));

    // A broken configuration is refused with its file, line and field; the old one stays.
    let good = std::fs::read_to_string(&config).unwrap();
    std::fs::write(
        &config,
        good.replace("map = \"eastron-sdm630\"", "map = \"nope\""),
    )
    .unwrap();
    let a = ask(&cloud, "gw-cmd", "c-5", Action::ReloadConfig).await;
    assert!(!a.ok, "{a:?}");
    assert!(
        a.message.contains("gw.toml:") && a.message.contains("bus[0].device[0].map"),
        "{}",
        a.message
    );
    // A good one (the tracker removed) is taken.
    let fewer = gateway_config(dir.path(), "gw-cmd", sim, &devices[..1], 100, &mqtt);
    let a = ask(&cloud, "gw-cmd", "c-6", Action::ReloadConfig).await;
    assert!(a.ok && a.message.contains("1 buses, 1 devices"), "{a:?}");
    assert_eq!(fewer, config);
    let a = ask(
        &cloud,
        "gw-cmd",
        "c-7",
        Action::ReadNow {
            device: "tracker-1".into(),
        },
    )
    .await;
    assert!(!a.ok, "the tracker is gone after the reload: {a:?}");
    let since = cloud.store().seqs("gw-cmd").len();
    assert!(
        cloud
            .wait_for(Duration::from_secs(10), |s| s.seqs("gw-cmd").len() > since + 5)
            .await,
        "polling goes on after the reload"
    );
    let (status, _) = agent.terminate();
    assert!(status.success());
}

/// A broker that answers every CONNECT with "bad user name or password" (CONNACK code 4), as
/// Mosquitto or EMQX do, and counts the attempts.
fn refusing_broker() -> (
    std::net::SocketAddr,
    std::sync::Arc<std::sync::Mutex<Vec<Instant>>>,
) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let attempts = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = attempts.clone();
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            let Ok(mut conn) = conn else { continue };
            let mut buf = [0u8; 256];
            // Any CONNECT packet (type 1) gets the refusal.
            if conn.read(&mut buf).is_ok_and(|n| n > 0 && buf[0] >> 4 == 1) {
                seen.lock().unwrap().push(Instant::now());
                let _ = conn.write_all(&[0x20, 0x02, 0x00, 0x04]);
            }
        }
    });
    (addr, attempts)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_broker_refusing_the_credentials_is_logged_and_retried_with_backoff_never_fatal() {
    let (broker, attempts) = refusing_broker();
    let all = maps();
    let meter = all.iter().find(|m| m.id == "eastron-sdm630").cloned().unwrap();
    let sim = serve_tcp(simulator(&[meter], 4)).await;
    let dir = tempfile::tempdir().unwrap();
    let config = gateway_config(
        dir.path(),
        "gw-badpass",
        sim,
        &[("meter-1", "eastron-sdm630", 1)],
        100,
        &format!(
            "[mqtt]\nhost = \"{}\"\nport = {}\npassword = \"wrong\"\nreconnect_initial_ms = 200\nreconnect_max_s = 2\n",
            broker.ip(),
            broker.port()
        ),
    );
    let mut agent = Agent::spawn(&config);
    tokio::time::sleep(Duration::from_secs(6)).await;
    assert!(agent.alive(), "the agent survives a refusing broker");
    let log = agent.log_text();
    let refusals = log
        .lines()
        .filter(|l| l.contains("broker refused") && l.contains("gw-badpass"))
        .count();
    assert!(refusals >= 3, "refusals logged with the gateway named:\n{log}");
    assert!(!log.contains("wrong"), "the password stays out of the log");
    let times = attempts.lock().unwrap().clone();
    let gaps: Vec<Duration> = times.windows(2).map(|w| w[1] - w[0]).collect();
    eprintln!("attempt gaps: {gaps:?}");
    assert!(
        times.len() >= 3 && times.len() <= 12,
        "{} attempts in 6 s",
        times.len()
    );
    assert!(
        gaps.last().unwrap() > gaps.first().unwrap(),
        "back-off grows: {gaps:?}"
    );
    // Polling and storing go on meanwhile.
    assert!(!agent.stored().is_empty());
    let (status, _) = agent.terminate();
    assert!(status.success());
}

/// A gateway upgraded from a version that queued samples as JSON still delivers that queue:
/// every old sample reaches the cloud once, with its values, and new samples follow.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_queue_left_by_an_older_gateway_is_delivered_after_the_upgrade() {
    let broker = start_broker(None).unwrap();
    let cloud = Consumer::connect(broker, "cloud-upgrade").await;
    let all = maps();
    let pick: Vec<_> = all.iter().filter(|m| m.id == "eastron-sdm630").cloned().collect();
    let sim = serve_tcp(simulator(&pick, 1)).await;
    let expected = simulator(&pick, 1).unit(1).unwrap().expected().clone();
    let dir = tempfile::tempdir().unwrap();
    // What the older gateway left on disk: each sample as JSON under its big-endian sequence
    // number, and the next sequence number in the default tree.
    let old: Vec<pv_shared::wire::Sample> = (1..=500u64)
        .map(|seq| pv_shared::wire::Sample {
            seq,
            device: "meter-1".into(),
            ts: pv_edge::clock::now_ms() - 3_600_000 + seq as i64,
            values: expected.clone(),
            suspect: Default::default(),
        })
        .collect();
    {
        let db = sled::open(dir.path().join("data/queue")).unwrap();
        let tree = db.open_tree("samples").unwrap();
        for s in &old {
            tree.insert(s.seq.to_be_bytes(), serde_json::to_vec(s).unwrap())
                .unwrap();
        }
        db.insert(b"next", &501u64.to_be_bytes()).unwrap();
        db.flush().unwrap();
    }
    let config = gateway_config(
        dir.path(),
        "gw-upgrade",
        sim,
        &[("meter-1", "eastron-sdm630", 1)],
        200,
        &mqtt_section(broker, ""),
    );
    let agent = Agent::spawn(&config);
    assert!(
        cloud
            .wait_for(Duration::from_secs(30), |s| {
                let seqs = s.seqs("gw-upgrade");
                seqs.iter().filter(|&&q| q <= 500).count() == 500 && seqs.iter().any(|&q| q > 505)
            })
            .await,
        "old queue and new samples delivered: {} stored; log:\n{}",
        cloud.store().count("gw-upgrade"),
        agent.log_text()
    );
    let (status, _) = agent.terminate();
    assert!(status.success());
    let st = cloud.store();
    assert_eq!(st.refused, 0);
    assert_eq!(st.duplicates(), 0);
    for s in &old {
        assert_eq!(st.samples.get(&("gw-upgrade".to_string(), s.seq)), Some(s));
    }
    let new: Vec<_> = st
        .samples
        .iter()
        .filter(|((g, q), _)| g == "gw-upgrade" && *q > 500)
        .map(|(_, s)| s)
        .collect();
    assert!(new.iter().all(|s| s.values == expected && s.device == "meter-1"));
    // Numbered after the old queue: nothing reused a sequence number.
    assert_eq!(new.first().map(|s| s.seq), Some(501));
}
