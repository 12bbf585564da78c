//! Compact raw storage on the real database (SQLite file, or PostgreSQL with TEST_POSTGRES_URL):
//! closed hours move from rows into blocks with nothing lost or doubled, every reader answers the
//! same before and after, a late sample for a packed hour is merged, a replay of a packed sample
//! is not doubled, quality marks survive, and retention drops whole packed hours.

use crate::support;

use pv_cloud::kernel::sql::Value;
use pv_cloud::telemetry::{compact, raw, retention, rollup};
use pv_shared::wire;
use serde_json::json;
use support::TestApp;
use support::telemetry::now_ms;

const TENANT: &str = "T-COMPACT";
const STATION: i64 = 7;
const DEVICE: i64 = 424_242;
const HOUR: i64 = 3_600_000;

async fn counts(app: &TestApp) -> (i64, i64) {
    let rows = app
        .scalar_i64(
            "SELECT COUNT(*) FROM pv_telemetry_raw WHERE device_id = ?",
            vec![Value::Int(DEVICE)],
        )
        .await;
    let blocks = app
        .scalar_i64(
            "SELECT COUNT(*) FROM pv_telemetry_block WHERE device_id = ?",
            vec![Value::Int(DEVICE)],
        )
        .await;
    (rows, blocks)
}

fn ac(s: &pv_cloud::telemetry::block::RawSample) -> Option<f64> {
    match s.metrics.get("ac_power") {
        Some(wire::Value::Number(n)) => Some(*n),
        _ => None,
    }
}

#[tokio::test]
async fn closed_hours_pack_into_blocks_and_read_the_same() {
    // The worker's own compaction must not run in between: this test drives it.
    let app = TestApp::start_configured(|c| c.telemetry.rollup_interval_ms = 3_600_000).await;
    let db = &app.state.core.db;
    let pool = db.pool();
    // Two closed hours two days back, 10-s samples, plus two in the current hour (not packed).
    let h0 = raw::hour_of(now_ms()) - 48 * HOUR;
    let mut samples = Vec::new();
    for k in 0..720i64 {
        let ts = h0 + k * 10_000 + (k % 3); // a jittery poll
        let mut m = json!({
            "ac_power": (k * 13 % 7000) as f64,
            "pv1_voltage": 600.0 + (k % 17) as f64 * 0.1,
            "energy_total": 1_000_000.0 + k as f64 * 0.5,
        });
        if k % 100 == 0 {
            m["status_text"] = json!("derating");
        }
        samples.push((ts, m));
    }
    let live = raw::hour_of(now_ms());
    samples.push((live + 1_000, json!({"ac_power": 1.0})));
    samples.push((live + 2_000, json!({"ac_power": 2.0})));
    app.put_raw(TENANT, STATION, DEVICE, &samples).await;
    // A quality mark travels with its sample.
    app.exec(
        "UPDATE pv_telemetry_raw SET suspect = ? WHERE device_id = ? AND ts = ?",
        vec![
            r#"{"pv2_voltage":9999.0}"#.into(),
            Value::Int(DEVICE),
            Value::Int(samples[5].0),
        ],
    )
    .await;
    app.put_live(support::telemetry::live_sample(
        TENANT,
        STATION,
        DEVICE,
        "inverter",
        live + 2_000,
        &[("ac_power", 2.0)],
        true,
    ))
    .await;

    let all = (h0 - HOUR, live + HOUR);
    let before = raw::range(pool, DEVICE, all.0, all.1).await.expect("range");
    assert_eq!(before.len(), 722);
    let span = raw::Span {
        tenant: Some(TENANT),
        devices: &[DEVICE],
        from: all.0,
        to: all.1,
    };
    let means_before = raw::slot_means(pool, span, &["ac_power", "pv1_voltage"], h0, 300_000)
        .await
        .expect("means");
    let mid = h0 + HOUR + 1_234;
    let prev_before = raw::last_before(pool, DEVICE, mid).await.expect("prev");
    let next_before = raw::first_at_or_after(pool, DEVICE, mid).await.expect("next");

    let done = compact::compact_before(db, now_ms() - compact::GRACE_MS)
        .await
        .expect("compact");
    assert_eq!(done.samples, 720, "both closed hours, not the current one");
    assert_eq!(done.blocks, 2);
    assert_eq!(counts(&app).await, (2, 2), "the current hour stays in rows");

    let after = raw::range(pool, DEVICE, all.0, all.1).await.expect("range");
    assert_eq!(after, before, "every sample, value and mark read back the same");
    assert_eq!(after[5].suspect.as_deref(), Some(r#"{"pv2_voltage":9999.0}"#));
    assert_eq!(
        after[0].metrics.get("status_text"),
        Some(&wire::Value::Text("derating".into()))
    );
    let means_after = raw::slot_means(pool, span, &["ac_power", "pv1_voltage"], h0, 300_000)
        .await
        .expect("means");
    assert_eq!(means_after, means_before);
    assert_eq!(
        means_after[&DEVICE][0].len(),
        24 + 1,
        "two hours of 5-min slots and the live one"
    );
    assert_eq!(
        raw::last_before(pool, DEVICE, mid).await.expect("prev"),
        prev_before
    );
    assert_eq!(
        raw::first_at_or_after(pool, DEVICE, mid).await.expect("next"),
        next_before
    );
    // A range inside one packed hour.
    let part = raw::range(pool, DEVICE, h0 + 600_000, h0 + 1_200_000)
        .await
        .expect("range");
    assert_eq!(part.len(), 60);
    assert!(part.iter().all(|s| s.ts >= h0 + 600_000 && s.ts < h0 + 1_200_000));

    // Running again packs nothing new.
    let again = compact::compact_before(db, now_ms() - compact::GRACE_MS)
        .await
        .expect("compact");
    assert_eq!(again, compact::Packed::default());

    // A late sample for a packed hour, and a replay of a packed sample with another value.
    let late = h0 + 5;
    let replayed = samples[10].0;
    app.put_raw(
        TENANT,
        STATION,
        DEVICE,
        &[
            (late, json!({"ac_power": 4242.0})),
            (replayed, json!({"ac_power": -1.0})),
        ],
    )
    .await;
    let read = raw::range(pool, DEVICE, h0, h0 + HOUR).await.expect("range");
    assert_eq!(
        read.len(),
        361,
        "the late sample counts once, the replay not at all"
    );
    assert_eq!(ac(&read[1]), Some(4242.0));
    let first_replayed = read.iter().find(|s| s.ts == replayed).expect("replayed");
    assert_eq!(ac(first_replayed), ac(&before[10]), "the first stored value wins");
    let done = compact::compact_before(db, now_ms() - compact::GRACE_MS)
        .await
        .expect("compact");
    assert_eq!(
        done,
        compact::Packed {
            blocks: 1,
            samples: 2
        }
    );
    assert_eq!(counts(&app).await, (2, 2));
    assert_eq!(
        raw::range(pool, DEVICE, h0, h0 + HOUR).await.expect("range"),
        read,
        "merged into the block"
    );
    assert_eq!(
        app.scalar_i64(
            "SELECT samples FROM pv_telemetry_block WHERE device_id = ? AND hour = ?",
            vec![Value::Int(DEVICE), Value::Int(h0)],
        )
        .await,
        361
    );

    // Rollups computed over packed hours equal those computed over rows: recompute the first
    // hour's buckets now (blocks) and compare with what the same samples give as rows.
    let buckets: std::collections::BTreeSet<i64> = (0..12).map(|b| h0 + b * 300_000).collect();
    rollup::recompute(db, DEVICE, &buckets, 900_000, 8 * HOUR)
        .await
        .expect("rollup");
    let packed_rollup = app
        .scalar_text(
            "SELECT metrics FROM pv_telemetry_rollup WHERE device_id = ? AND period = '5m' AND bucket = ?",
            vec![Value::Int(DEVICE), Value::Int(h0)],
        )
        .await
        .expect("5m rollup");
    let avg: serde_json::Value = serde_json::from_str(&packed_rollup).expect("json");
    let first_bucket: Vec<f64> = read
        .iter()
        .filter(|s| s.ts < h0 + 300_000)
        .filter_map(ac)
        .collect();
    assert_eq!(first_bucket.len(), 31, "30 polls and the late sample");
    let expected_mean = first_bucket.iter().sum::<f64>() / first_bucket.len() as f64;
    let got = avg["ac_power"][0].as_f64().expect("mean");
    assert!((got - expected_mean).abs() < 1e-6, "{got} != {expected_mean}");

    // Retention: a cutoff inside the second hour drops the first hour whole, keeps the second.
    retention::delete_raw_before(db, h0 + HOUR + 60_000)
        .await
        .expect("retention");
    assert_eq!(counts(&app).await, (2, 1));
    assert!(
        raw::range(pool, DEVICE, h0, h0 + HOUR)
            .await
            .expect("range")
            .is_empty()
    );
    app.stop().await;
}
