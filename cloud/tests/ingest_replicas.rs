//! The data path with several cloud replicas on one database (a real SQLite file, or the real
//! PostgreSQL of `TEST_POSTGRES_URL`): per-gateway counters of two hubs add up instead of
//! overwriting each other, periodic jobs run under the cluster-wide lock of `kernel::leader`
//! (exactly one of two concurrent callers runs on PostgreSQL; SQLite is a single process, always
//! the leader), and raw retention deletes what is past `raw_retention_days`, nothing else.

use crate::support;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use pv_cloud::config::Config;
use pv_cloud::kernel::db::Db;
use pv_cloud::kernel::leader;
use pv_cloud::kernel::sql::Value;
use pv_cloud::state::AppState;
use pv_cloud::telemetry::registry::Registry;
use pv_cloud::telemetry::stats::{Reason, Stats};
use pv_shared::wire::TelemetryBatch;
use support::{GatewayClient, IngestApp, TestApp, eventually, is_postgres, now_ms, sample};

const T: Duration = Duration::from_secs(10);
const DAY_MS: i64 = 86_400_000;

/// A second hub process's state on the same database (another replica).
async fn replica_of(app: &TestApp) -> AppState {
    let config = Config {
        listen: "127.0.0.1:0".parse().expect("addr"),
        data_dir: app.data_dir.clone(),
        database_url: app.database_url.clone(),
        database_max_connections: 4,
        node_id: 7,
        ..Config::default()
    };
    pv_cloud::server::prepare(config).await.expect("second replica")
}

fn registry(state: &AppState) -> Registry {
    Registry::new(state.db.clone(), Duration::from_secs(30), Duration::from_secs(5))
}

async fn counters(app: &TestApp, token: &str, gateway: &str) -> serde_json::Value {
    let list = app.as_user(token).get_data("/api/telemetry/gateways").await;
    list.as_array()
        .and_then(|l| l.iter().find(|g| g["gatewayId"] == gateway))
        .cloned()
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn counters_of_two_replicas_add_up_instead_of_overwriting() {
    // Replica A: a full hub with real ingest (counters flushed every second).
    let a = IngestApp::start(|_| {}).await;
    let t = a.app.gateway_manager("100001", "mgr").await;
    let (_, pw) = a.provision(&t, "GW-C", &["INV-C1"]).await;
    let mut gw = GatewayClient::connect(a.gateway_addr, "GW-C", Some(("GW-C", &pw)), None)
        .await
        .expect("signs in");
    let ts = now_ms() - 60_000;
    gw.send(&TelemetryBatch::new(
        "GW-C",
        false,
        vec![
            sample(1, "INV-C1", ts, &[("ac_power", 1.0)]),
            sample(2, "INV-C1", ts + 1000, &[("ac_power", 2.0)]),
            sample(3, "INV-C1", ts + 2000, &[("ac_power", 3.0)]),
            sample(4, "NOT-HERE", ts, &[("ac_power", 3.0)]),
        ],
    ))
    .await;
    assert!(gw.ack_within(T).await.is_some());
    assert!(
        eventually(T, || async {
            let c = counters(&a.app, &t, "GW-C").await;
            c["accepted"] == 3 && c["rejected"]["unknown_device"] == 1
        })
        .await,
        "replica A's counts stored: {}",
        counters(&a.app, &t, "GW-C").await
    );

    // Replica B: another process on the same database that saw other messages of GW-C (a
    // shared subscription splits a gateway's messages between replicas). Its flushes and A's
    // run at the same time, many times over.
    let b = replica_of(&a.app).await;
    let b_registry = registry(&b);
    let b_stats = Arc::new(Stats::default());
    // A second counter set on A's database handle, flushed concurrently with B's, so both
    // replicas write the same row at once.
    let a_stats = Arc::new(Stats::default());
    let a_registry = registry(&a.app.state);
    let rounds = 20;
    let (b_state, bs, br) = (b.clone(), b_stats.clone(), Arc::new(b_registry));
    let flush_b = tokio::spawn(async move {
        for _ in 0..rounds {
            bs.accept("GW-C", 5);
            bs.reject("GW-C", Reason::Malformed, 1, "not JSON");
            pv_cloud::telemetry::flush_counters(&b_state, &bs, &br).await;
        }
    });
    let (a_state, as_, ar) = (a.app.state.clone(), a_stats.clone(), Arc::new(a_registry));
    let flush_a = tokio::spawn(async move {
        for _ in 0..rounds {
            as_.accept("GW-C", 2);
            as_.reject("GW-C", Reason::UnknownDevice, 1, "SN X");
            pv_cloud::telemetry::flush_counters(&a_state, &as_, &ar).await;
        }
    });
    // Meanwhile A's real ingest keeps counting too.
    gw.send(&TelemetryBatch::new(
        "GW-C",
        false,
        vec![
            sample(5, "INV-C1", ts + 3000, &[("ac_power", 4.0)]),
            sample(6, "INV-C1", ts + 4000, &[("ac_power", 5.0)]),
        ],
    ))
    .await;
    assert!(gw.ack_within(T).await.is_some());
    flush_a.await.expect("flushes of A");
    flush_b.await.expect("flushes of B");
    // A failed write would have given its delta back; flush what may remain.
    pv_cloud::telemetry::flush_counters(&b, &b_stats, &registry(&b)).await;
    pv_cloud::telemetry::flush_counters(&a.app.state, &a_stats, &registry(&a.app.state)).await;
    assert!(b_stats.pending("GW-C").is_none() && a_stats.pending("GW-C").is_none());

    let accepted = 3 + 2 + rounds * (5 + 2);
    let unknown = 1 + rounds;
    assert!(
        eventually(T, || async {
            let c = counters(&a.app, &t, "GW-C").await;
            c["accepted"] == accepted
                && c["rejected"]["unknown_device"] == unknown
                && c["rejected"]["malformed"] == rounds
        })
        .await,
        "every replica's counts summed: expected accepted {accepted}, unknown_device {unknown}, \
         malformed {rounds}; got {}",
        counters(&a.app, &t, "GW-C").await
    );
    b.db.close().await;
}

/// Two callers of `run_exclusive` at once, on two replicas' pools: on PostgreSQL exactly one
/// runs, the other is told to skip without its job being started; SQLite runs both.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_leader_lock_lets_exactly_one_of_two_concurrent_callers_run() {
    let app = TestApp::start().await;
    let other = replica_of(&app).await;
    let ran = Arc::new(AtomicUsize::new(0));
    let both_asked = Arc::new(tokio::sync::Barrier::new(2));
    let call = |db: Db| {
        let (ran, both_asked) = (ran.clone(), both_asked.clone());
        tokio::spawn(async move {
            // Both ask before either finishes: the job holds the lock for a while.
            both_asked.wait().await;
            leader::run_exclusive(&db, "test.job", async {
                ran.fetch_add(1, Ordering::SeqCst);
                tokio::time::sleep(Duration::from_millis(800)).await;
                "done"
            })
            .await
            .expect("the lock can be asked for")
        })
    };
    let (x, y) = (call(app.state.db.clone()), call(other.db.clone()));
    let (x, y) = (x.await.expect("caller 1"), y.await.expect("caller 2"));
    if is_postgres() {
        assert_eq!(
            [x, y].iter().filter(|r| r.is_some()).count(),
            1,
            "exactly one ran: {x:?} {y:?}"
        );
        assert_eq!(ran.load(Ordering::SeqCst), 1, "the loser's job never started");
    } else {
        assert_eq!((x, y), (Some("done"), Some("done")), "SQLite: always the leader");
    }

    // Released after the run: the next caller (either replica) runs.
    assert_eq!(
        leader::run_exclusive(&other.db, "test.job", async { 1 })
            .await
            .expect("lock"),
        Some(1)
    );
    // Other jobs have their own locks.
    let held = leader::try_lead(&app.state.db, "test.job").await.expect("lock");
    assert!(held.is_some());
    assert_eq!(
        leader::run_exclusive(&other.db, "test.other", async { 2 })
            .await
            .expect("lock"),
        Some(2)
    );
    if is_postgres() {
        assert_eq!(
            leader::run_exclusive(&other.db, "test.job", async { 3 })
                .await
                .expect("lock"),
            None,
            "held by the first replica"
        );
    }
    drop(held);

    // A run that is cancelled (or panics) gives the lock up: its session is closed.
    let db = app.state.db.clone();
    let stuck = tokio::spawn(async move {
        leader::run_exclusive(&db, "test.cancelled", std::future::pending::<()>()).await
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    stuck.abort();
    let _ = stuck.await;
    let odb = other.db.clone();
    assert!(
        eventually(T, || {
            let odb = odb.clone();
            async move {
                matches!(
                    leader::run_exclusive(&odb, "test.cancelled", async {}).await,
                    Ok(Some(()))
                )
            }
        })
        .await,
        "the lock of a cancelled run is released"
    );
    other.db.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_job_due_hourly_runs_once_across_replicas() {
    let app = TestApp::start().await;
    let other = replica_of(&app).await;
    let every = Duration::from_secs(3600);
    let ok = |n: i64| async move { Ok::<_, std::convert::Infallible>(n) };
    let first = leader::run_exclusive_due(&app.state.db, "test.hourly", every, ok(1))
        .await
        .expect("lock");
    assert!(matches!(first, Some(Ok(1))), "never ran: due");
    let second = leader::run_exclusive_due(&other.db, "test.hourly", every, ok(2))
        .await
        .expect("lock");
    assert!(second.is_none(), "ran by another replica within the hour");
    // A failed run is not recorded: the next caller tries again.
    let failing = leader::run_exclusive_due(&other.db, "test.failing", every, async {
        Err::<(), _>("database down")
    })
    .await
    .expect("lock");
    assert!(matches!(failing, Some(Err(_))));
    let retried = leader::run_exclusive_due(&app.state.db, "test.failing", every, ok(3))
        .await
        .expect("lock");
    assert!(matches!(retried, Some(Ok(3))));
    other.db.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn retention_deletes_raw_samples_past_the_limit_and_keeps_newer_ones_and_rollups() {
    let app = TestApp::start_configured(|c: &mut Config| {
        c.telemetry.raw_retention_days = 40;
    })
    .await;
    let (tenant, station, device, other_device) = ("100001", 101, 1001, 1002);
    let now = now_ms();
    app.put_live(support::live_sample(
        tenant,
        station,
        device,
        "inverter",
        now - 60_000,
        &[("ac_power", 1.0)],
        true,
    ))
    .await;
    app.put_live(support::live_sample(
        tenant,
        station,
        other_device,
        "inverter",
        now - 60_000,
        &[("ac_power", 1.0)],
        true,
    ))
    .await;
    let m = serde_json::json!({"ac_power": 1.0});
    let old = [now - 50 * DAY_MS, now - 41 * DAY_MS, now - 40 * DAY_MS - 60_000];
    let kept = [now - 39 * DAY_MS, now - DAY_MS, now - 60_000];
    let all: Vec<(i64, serde_json::Value)> = old.iter().chain(&kept).map(|ts| (*ts, m.clone())).collect();
    app.put_raw(tenant, station, device, &all).await;
    app.put_raw(
        tenant,
        station,
        other_device,
        &[(old[0], m.clone()), (kept[1], m.clone())],
    )
    .await;
    for (period, bucket) in [("5m", old[0]), ("1h", old[0]), ("1d", old[0]), ("1d", kept[0])] {
        app.put_rollup(
            tenant,
            station,
            device,
            "inverter",
            period,
            bucket,
            Some(10.0),
            m.clone(),
        )
        .await;
    }

    let run = pv_cloud::telemetry::retention::run_due(&app.state)
        .await
        .expect("the lock");
    assert!(
        matches!(run, Some(Ok(4))),
        "3 + 1 samples past 40 days deleted: {run:?}"
    );
    let raw_ts = |d: i64| {
        let app = &app;
        async move {
            let mut out = Vec::new();
            for ts in old.iter().chain(&kept) {
                let n = app
                    .scalar_int(
                        "SELECT COUNT(*) FROM pv_telemetry_raw WHERE device_id = ? AND ts = ?",
                        vec![Value::Int(d), Value::Int(*ts)],
                    )
                    .await
                    .unwrap_or(0);
                if n > 0 {
                    out.push(*ts);
                }
            }
            out
        }
    };
    assert_eq!(raw_ts(device).await, kept.to_vec(), "newer samples kept");
    assert_eq!(raw_ts(other_device).await, vec![kept[1]]);
    assert_eq!(
        app.scalar_int(
            "SELECT COUNT(*) FROM pv_telemetry_rollup WHERE device_id = ?",
            vec![Value::Int(device)]
        )
        .await,
        Some(4),
        "rollups are kept, however old"
    );
    // Once an hour cluster-wide: an immediate second run (any replica) is skipped.
    let again = pv_cloud::telemetry::retention::run_due(&app.state)
        .await
        .expect("the lock");
    assert!(again.is_none(), "not due again within the hour: {again:?}");
    assert!(
        leader::last_started(&app.state.db, pv_cloud::telemetry::retention::JOB)
            .await
            .expect("pv_job_run")
            .is_some_and(|t| (t - now).abs() < 60_000)
    );
}

/// On PostgreSQL, while another replica holds the rollup lock this hub's worker skips its
/// passes (marks stay), and rolls up once the lock is free. (SQLite: always the leader.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_rollup_worker_skips_while_another_replica_holds_its_lock() {
    if !is_postgres() {
        return;
    }
    let app = IngestApp::start(|_| {}).await;
    let other = replica_of(&app.app).await;
    let t = app.app.gateway_manager("100001", "mgr").await;
    let (_, pw) = app.provision(&t, "GW-L", &["INV-L1"]).await;
    let mut gw = GatewayClient::connect(app.gateway_addr, "GW-L", Some(("GW-L", &pw)), None)
        .await
        .expect("signs in");
    // The hub's own worker may be in a pass (it runs at start); the lock is free once it is done.
    let deadline = std::time::Instant::now() + T;
    let held = loop {
        if let Some(held) = leader::try_lead(&other.db, pv_cloud::telemetry::rollup::ROLLUP_JOB)
            .await
            .expect("lock")
        {
            break held;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the rollup lock is never free"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let ts = now_ms() - 3_600_000;
    gw.send(&TelemetryBatch::new(
        "GW-L",
        false,
        vec![
            sample(1, "INV-L1", ts, &[("energy_total", 1.0)]),
            sample(2, "INV-L1", ts + 60_000, &[("energy_total", 5.0)]),
        ],
    ))
    .await;
    assert!(gw.ack_within(T).await.is_some());
    let rollups = || async {
        app.app
            .scalar_int("SELECT COUNT(*) FROM pv_telemetry_rollup", vec![])
            .await
            .unwrap_or(0)
    };
    for _ in 0..5 {
        app.telemetry.rollups.notify_one();
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert_eq!(
        rollups().await,
        0,
        "skipped while the other replica holds the lock"
    );
    held.release().await;
    app.telemetry.rollups.notify_one();
    assert!(
        eventually(T, || async { rollups().await >= 3 }).await,
        "rolled up (5m, 1h, 1d) once the lock is free"
    );
    other.db.close().await;
}
