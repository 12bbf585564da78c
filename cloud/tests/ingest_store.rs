//! The statements ingest stores a group with (`telemetry::store::write_group`), on the real
//! database (SQLite file, or PostgreSQL with TEST_POSTGRES_URL): every row of a group larger than
//! one chunk is stored exactly as given (seq, metrics text byte for byte, quality marks or their
//! absence), at and around the chunk boundaries; a replay inserts nothing and changes nothing; a
//! group that half overlaps what is stored inserts only the new half; the newest-sample row only
//! moves forward.

use crate::support;

use pv_cloud::kernel::sql::Value;
use pv_cloud::telemetry::store::{self, LatestRow, RawRow};
use support::TestApp;
use support::telemetry::now_ms;

const TENANT: &str = "T-STORE";
const STATION: i64 = 77;

/// A sample whose metrics text carries what a careless encoding would break: escapes, non-ASCII,
/// a question mark (the statement builder's own mark), exponents and negative zero.
fn row(device: i64, ts: i64, seq: i64) -> RawRow {
    RawRow {
        device_id: device,
        ts,
        tenant_id: TENANT.into(),
        station_id: STATION,
        seq,
        metrics: format!(
            r#"{{"ac_power":{},"energy_total":1.5e7,"status_text":"降额 \"{seq}\" ?\\n","temp":-0.0}}"#,
            seq * 10
        ),
        // Every third sample carries a quality mark, the others none (NULL, not "").
        suspect: (seq % 3 == 0).then(|| format!(r#"{{"pv1_voltage":{}}}"#, 9000 + seq)),
    }
}

fn rows(device: i64, t0: i64, seqs: std::ops::Range<i64>) -> Vec<RawRow> {
    seqs.map(|s| row(device, t0 + s * 1000, s)).collect()
}

async fn write(app: &TestApp, chunk: usize, raws: &[RawRow], latest: &[LatestRow]) -> u64 {
    let dirty: Vec<(i64, i64)> = raws
        .iter()
        .map(|r| (r.device_id, r.ts.div_euclid(300_000) * 300_000))
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    let wait = prometheus_client::metrics::histogram::Histogram::new([1.0]);
    store::write_group(
        &app.state.core.db,
        chunk,
        raws,
        latest,
        &dirty,
        app.state.core.ids.next().0,
        now_ms(),
        &wait,
    )
    .await
    .expect("write_group")
}

/// The stored rows of a device, in time order: (ts, seq, metrics, suspect).
async fn stored(app: &TestApp, device: i64) -> Vec<(i64, i64, String, Option<String>)> {
    let n = app
        .scalar_i64(
            "SELECT COUNT(*) FROM pv_telemetry_raw WHERE device_id = ?",
            vec![Value::Int(device)],
        )
        .await;
    let mut out = Vec::new();
    let mut sql = pv_cloud::kernel::sql::Sql::default();
    sql.push_bind(
        "SELECT ts, seq, metrics, suspect, tenant_id, station_id FROM pv_telemetry_raw WHERE device_id = ? ORDER BY ts",
        [Value::Int(device)],
    );
    let got: Vec<(i64, i64, String, Option<String>, String, i64)> =
        sql.fetch_all(app.state.core.db.pool()).await.expect("rows");
    for (ts, seq, metrics, suspect, tenant, station) in got {
        assert_eq!((tenant.as_str(), station), (TENANT, STATION));
        out.push((ts, seq, metrics, suspect));
    }
    assert_eq!(out.len() as i64, n);
    out
}

fn expected(raws: &[RawRow]) -> Vec<(i64, i64, String, Option<String>)> {
    let mut v: Vec<_> = raws
        .iter()
        .map(|r| (r.ts, r.seq, r.metrics.clone(), r.suspect.clone()))
        .collect();
    v.sort_by_key(|r| r.0);
    v
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn groups_around_chunk_boundaries_are_stored_exactly_and_replays_insert_nothing() {
    let app = TestApp::start().await;
    let t0 = now_ms() - 3_600_000;
    let chunk = 7;
    // One device per size: 1, a chunk less one, a chunk, a chunk plus one, several chunks.
    for (i, n) in [1i64, 6, 7, 8, 7 * 5 + 3].into_iter().enumerate() {
        let device = 9_000 + i as i64;
        let raws = rows(device, t0, 1..n + 1);
        assert_eq!(
            write(&app, chunk, &raws, &[]).await,
            n as u64,
            "{n} rows inserted"
        );
        assert_eq!(
            stored(&app, device).await,
            expected(&raws),
            "{n} rows stored as given"
        );
        // A replay of the whole group: nothing inserted, nothing changed.
        assert_eq!(write(&app, chunk, &raws, &[]).await, 0, "replay of {n} rows");
        assert_eq!(stored(&app, device).await, expected(&raws));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_group_overlapping_stored_samples_inserts_only_the_new_ones_and_keeps_the_stored() {
    let app = TestApp::start().await;
    let t0 = now_ms() - 3_600_000;
    let (a, b) = (9_100, 9_101);
    // 1 200 rows of two devices interleaved (more than two chunks of the default 500).
    let first: Vec<RawRow> = (1..601)
        .flat_map(|s| [row(a, t0 + s * 1000, s), row(b, t0 + s * 1000, s)])
        .collect();
    assert_eq!(write(&app, 500, &first, &[]).await, 1_200);
    // A resend of samples 301..600 (the same keys carrying a different seq and values, as a
    // gateway's later batch never does, to prove the stored copy wins) mixed with 601..900.
    let mut second: Vec<RawRow> = Vec::new();
    for s in 301..901 {
        for d in [a, b] {
            let mut r = row(d, t0 + s * 1000, s);
            if s <= 600 {
                r.seq += 1_000_000;
                r.metrics = r#"{"ac_power":-1}"#.into();
                r.suspect = None;
            }
            second.push(r);
        }
    }
    assert_eq!(write(&app, 500, &second, &[]).await, 600, "only 601..900 are new");
    for d in [a, b] {
        let want = expected(&rows(d, t0, 1..901));
        assert_eq!(stored(&app, d).await, want, "device {d}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_newest_sample_row_only_moves_forward() {
    let app = TestApp::start().await;
    let t0 = now_ms() - 3_600_000;
    let device = 9_200;
    let latest = |ts: i64, metrics: &str, suspect: Option<&str>| LatestRow {
        device_id: device,
        tenant_id: TENANT.into(),
        station_id: STATION,
        kind: "inverter",
        gateway_id: "GW-STORE".into(),
        ts,
        metrics: metrics.into(),
        suspect: suspect.map(str::to_owned),
    };
    let raws = rows(device, t0, 1..4);
    write(
        &app,
        2,
        &raws,
        &[latest(t0 + 3000, r#"{"ac_power":30}"#, Some(r#"{"x":1}"#))],
    )
    .await;
    // An older replay does not move it back.
    write(
        &app,
        2,
        &raws[..1],
        &[latest(t0 + 1000, r#"{"ac_power":10}"#, None)],
    )
    .await;
    let now = || async {
        (
            app.scalar_i64(
                "SELECT ts FROM pv_telemetry_latest WHERE device_id = ?",
                vec![Value::Int(device)],
            )
            .await,
            app.scalar_text(
                "SELECT metrics FROM pv_telemetry_latest WHERE device_id = ?",
                vec![Value::Int(device)],
            )
            .await,
            app.scalar_text(
                "SELECT COALESCE(suspect, '-') FROM pv_telemetry_latest WHERE device_id = ?",
                vec![Value::Int(device)],
            )
            .await,
        )
    };
    assert_eq!(
        now().await,
        (
            t0 + 3000,
            Some(r#"{"ac_power":30}"#.into()),
            Some(r#"{"x":1}"#.into())
        )
    );
    write(
        &app,
        2,
        &rows(device, t0, 4..5),
        &[latest(t0 + 4000, r#"{"ac_power":40}"#, None)],
    )
    .await;
    let (ts, metrics, _) = now().await;
    assert_eq!((ts, metrics), (t0 + 4000, Some(r#"{"ac_power":40}"#.into())));
    let marked = app
        .scalar_int(
            "SELECT COUNT(*) FROM pv_telemetry_latest WHERE device_id = ? AND suspect IS NULL",
            vec![Value::Int(device)],
        )
        .await;
    assert_eq!(marked, Some(1), "a newer sample without marks clears the mark");
}
