//! An acknowledgement means "on disk": a gateway deletes a batch once the hub acknowledges it,
//! so the commit before the ack must survive a power cut, not only a crash of the hub. The
//! ingest writers commit through the durable pool: on SQLite `synchronous = FULL` (the rest of
//! the hub keeps `NORMAL`), on PostgreSQL `synchronous_commit` on even when the server's default
//! is off (the test server of `scripts/pg-start` runs with it off, and with `fsync` off, which the
//! hub names at start).

use crate::support;

use std::time::Duration;

use pv_shared::wire::TelemetryBatch;
use support::{GatewayClient, IngestApp, is_postgres, sample};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn batches_are_acknowledged_after_a_durable_commit() {
    durable_commit(false).await;
}

/// The same through PostgreSQL's COPY path (`telemetry.postgres_copy`, off by default).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn batches_stored_through_copy_are_acknowledged_after_a_durable_commit() {
    if is_postgres() {
        durable_commit(true).await;
    }
}

async fn durable_commit(copy: bool) {
    let app = IngestApp::start(|c| c.telemetry.postgres_copy = copy).await;
    let db = &app.app.state.db;
    // The ack path goes through it: its first connection opens with the first stored batch.
    let menus: Vec<&str> = support::STATION_MENUS
        .iter()
        .chain(support::GATEWAY_MENUS)
        .copied()
        .collect();
    app.app
        .create_tenant_user("100001", "mgr", "secret1", &menus, None)
        .await;
    let manager = app.app.token_of("100001", "mgr", "secret1").await;
    let (_, password) = app.provision(&manager, "GW-D-1", &["D1"]).await;
    let mut gw = GatewayClient::connect(app.gateway_addr, "GW-D-1", Some(("GW-D-1", &password)), None)
        .await
        .expect("gateway signs in");
    // With `telemetry.postgres_copy` the writers commit through the native pool of COPY, with
    // the same rule; otherwise through the durable pool.
    let opened = || match db.pg_durable().filter(|_| copy) {
        Some(pg) => pg.size(),
        None => db.durable().size(),
    };
    let opened_before = opened();
    gw.send(&TelemetryBatch::new(
        "GW-D-1",
        false,
        vec![sample(1, "D1", support::now_ms(), &[("ac_power", 1000.0)])],
    ))
    .await;
    gw.ack_within(Duration::from_secs(10))
        .await
        .expect("stored and acknowledged");
    assert_eq!(opened_before, 0, "nothing but ingest uses it");
    assert!(opened() >= 1, "the acknowledged batch was committed through it");
    assert_eq!(app.raw_count().await, 1);

    // Its settings.
    if is_postgres() {
        let server: String = sqlx::query_scalar("SHOW synchronous_commit")
            .fetch_one(db.pool())
            .await
            .expect("setting");
        assert_eq!(server, "off", "the test server's default (scripts/pg-start)");
        let durable: String = sqlx::query_scalar("SHOW synchronous_commit")
            .fetch_one(db.durable())
            .await
            .expect("setting");
        assert_eq!(durable, "on", "the durable pool's sessions");
        let native: String = sqlx::query_scalar("SHOW synchronous_commit")
            .fetch_one(db.pg_durable().expect("native pool"))
            .await
            .expect("setting");
        assert_eq!(native, "on", "the COPY writers' sessions");
        let warnings = db.durability_warnings().await.expect("settings");
        assert!(
            warnings.iter().any(|w| w.contains("fsync = off"))
                && warnings.iter().any(|w| w.contains("synchronous_commit = off")),
            "{warnings:?}"
        );
    } else {
        let sync = |pool| async move {
            sqlx::query_scalar::<_, i64>("PRAGMA synchronous")
                .fetch_one(pool)
                .await
                .expect("pragma")
        };
        // 2 = FULL: the WAL is synced at every commit; 1 = NORMAL elsewhere.
        assert_eq!(sync(db.durable()).await, 2);
        assert_eq!(sync(db.pool()).await, 1);
        assert_eq!(
            db.durability_warnings().await.expect("none"),
            Vec::<String>::new()
        );
    }
}
