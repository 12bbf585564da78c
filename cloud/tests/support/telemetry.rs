//! Telemetry as the hub stores it, written straight into the database (the way ingest and the
//! rollup worker would) so read-side tests control every figure; and local-time helpers at the
//! hub's default +08:00, computed here independently of the code under test.

use super::server::TestApp;

/// Now, in epoch milliseconds.
pub fn now_ms() -> i64 {
    pv_cloud::kernel::time::now_ms()
}

/// Local midnight (epoch ms) of `date` in the hub's default offset, +08:00, computed here
/// independently of the code under test.
pub fn local_midnight(date: chrono::NaiveDate) -> i64 {
    date.and_hms_opt(0, 0, 0)
        .expect("midnight")
        .and_utc()
        .timestamp_millis()
        - 8 * 3_600_000
}

/// Today's date at +08:00.
pub fn local_today() -> chrono::NaiveDate {
    (chrono::Utc::now() + chrono::Duration::hours(8)).date_naive()
}

/// `yyyy-MM-dd HH:mm:ss` at +08:00 of epoch ms (what the API writes).
pub fn local_text(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms + 8 * 3_600_000)
        .expect("time")
        .naive_utc()
        .format("%Y-%m-%d %H:%M:%S")
        .to_string()
}

/// A realtime sample of numeric metrics.
pub fn live_sample(
    tenant: &str,
    station: i64,
    device: i64,
    kind: &str,
    ts: i64,
    values: &[(&str, f64)],
    online: bool,
) -> pv_cloud::telemetry::realtime::DeviceLive {
    pv_cloud::telemetry::realtime::DeviceLive {
        device_id: device,
        tenant_id: tenant.to_owned(),
        station_id: station,
        kind: kind.to_owned(),
        gateway_id: "GW-TEST".to_owned(),
        ts,
        values: values
            .iter()
            .map(|(k, v)| (k.to_string(), pv_shared::wire::Value::Number(*v)))
            .collect(),
        suspect: Default::default(),
        online,
    }
}

impl TestApp {
    /// Stores `sample` as ingest would: its `pv_telemetry_latest` row, then the realtime view.
    pub async fn put_live(&self, sample: pv_cloud::telemetry::realtime::DeviceLive) {
        use pv_cloud::kernel::sql::Value;
        let metrics = serde_json::to_string(&sample.values).expect("metrics");
        self.exec(
            "DELETE FROM pv_telemetry_latest WHERE device_id = ?",
            vec![Value::Int(sample.device_id)],
        )
        .await;
        self.exec(
            "INSERT INTO pv_telemetry_latest (device_id, tenant_id, station_id, device_kind, gateway_id, ts, metrics, online, changed_at) \
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            vec![
                Value::Int(sample.device_id),
                sample.tenant_id.clone().into(),
                Value::Int(sample.station_id),
                sample.kind.clone().into(),
                sample.gateway_id.clone().into(),
                Value::Int(sample.ts),
                metrics.into(),
                Value::Int(sample.online as i64),
                Value::Int(sample.ts),
            ],
        )
        .await;
        assert!(self.state.realtime.apply(sample), "sample kept by the view");
    }

    /// One rollup row; `metrics` is `{metric: [avg, min, max, last]}`.
    #[allow(clippy::too_many_arguments)]
    pub async fn put_rollup(
        &self,
        tenant: &str,
        station: i64,
        device: i64,
        kind: &str,
        period: &str,
        bucket: i64,
        energy_wh: Option<f64>,
        metrics: serde_json::Value,
    ) {
        use pv_cloud::kernel::sql::Value;
        self.exec(
            "INSERT INTO pv_telemetry_rollup (device_id, period, bucket, tenant_id, station_id, device_kind, samples, \
             energy_wh, metrics, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            vec![
                Value::Int(device),
                period.into(),
                Value::Int(bucket),
                tenant.into(),
                Value::Int(station),
                kind.into(),
                Value::Int(1),
                energy_wh.map(Value::Float).unwrap_or(Value::Null),
                metrics.to_string().into(),
                Value::Int(bucket),
            ],
        )
        .await;
    }

    /// Stores raw samples of a device and rolls up their 5-minute buckets (and what follows)
    /// through the real rollup code, in a +08:00 hub clock with a 15-minute irradiation gap.
    pub async fn put_raw_and_roll_up(
        &self,
        tenant: &str,
        station: i64,
        device: i64,
        samples: &[(i64, serde_json::Value)],
    ) {
        self.put_raw(tenant, station, device, samples).await;
        let buckets: std::collections::BTreeSet<i64> = samples
            .iter()
            .map(|(ts, _)| ts - ts.rem_euclid(300_000))
            .collect();
        pv_cloud::telemetry::rollup::recompute(&self.state.db, device, &buckets, 900_000, 8 * 3_600_000)
            .await
            .expect("rollup");
    }

    /// Raw samples `(ts, metrics JSON)` of one device, inserted 200 rows per statement.
    pub async fn put_raw(
        &self,
        tenant: &str,
        station: i64,
        device: i64,
        samples: &[(i64, serde_json::Value)],
    ) {
        use pv_cloud::kernel::sql::Value;
        for chunk in samples.chunks(200) {
            let mut sql = String::from(
                "INSERT INTO pv_telemetry_raw (device_id, ts, tenant_id, station_id, seq, metrics) VALUES ",
            );
            let mut values = Vec::new();
            for (i, (ts, m)) in chunk.iter().enumerate() {
                sql.push_str(if i == 0 {
                    "(?, ?, ?, ?, ?, ?)"
                } else {
                    ", (?, ?, ?, ?, ?, ?)"
                });
                values.extend([
                    Value::Int(device),
                    Value::Int(*ts),
                    tenant.into(),
                    Value::Int(station),
                    Value::Int(*ts / 1000),
                    m.to_string().into(),
                ]);
            }
            self.exec(&sql, values).await;
        }
    }
}

/// Asserts a JSON number within 1e-6 of `expected`.
#[track_caller]
pub fn approx(actual: &serde_json::Value, expected: f64, what: &str) {
    let a = actual
        .as_f64()
        .unwrap_or_else(|| panic!("{what}: not a number: {actual}"));
    assert!((a - expected).abs() < 1e-6, "{what}: {a} != {expected}");
}
