//! What the rollup worker reads and writes about counters: the corrections in force for a device,
//! the steps it found (`pv_counter_event`), and the buckets a new correction makes it recompute.

use sqlx::Row;

use super::counter::{Corrections, Event};
use crate::kernel::ApiError;
use crate::kernel::db::Db;
use crate::kernel::sql::{Sql, Value};
use crate::kernel::time;
pub use crate::telemetry::ingest::BUCKET_MS;

/// The corrections in force for one device (withdrawn ones left out).
#[derive(Debug, Clone, Default)]
pub struct DeviceCorrections {
    /// [from, to) intervals whose booked energy does not count.
    pub excluded: Vec<(i64, i64)>,
    /// (metric, first reading) of steps accepted as energy.
    pub accepted: Vec<(String, i64)>,
}

impl DeviceCorrections {
    pub fn is_empty(&self) -> bool {
        self.excluded.is_empty() && self.accepted.is_empty()
    }

    /// The view of one counter.
    pub fn of<'a>(&'a self, metric: &'a str) -> MetricCorrections<'a> {
        MetricCorrections { all: self, metric }
    }
}

pub struct MetricCorrections<'a> {
    all: &'a DeviceCorrections,
    metric: &'a str,
}

impl Corrections for MetricCorrections<'_> {
    fn excluded(&self, ts: i64) -> bool {
        self.all.excluded.iter().any(|(a, b)| ts >= *a && ts < *b)
    }
    fn step_accepted(&self, ts: i64) -> bool {
        self.all
            .accepted
            .iter()
            .any(|(m, t)| m == self.metric && *t == ts)
    }
}

/// The corrections in force for `device` of `station`.
pub async fn corrections_of(db: &Db, device: i64, station: i64) -> Result<DeviceCorrections, ApiError> {
    let mut sql = Sql::default();
    sql.push_bind(
        "SELECT kind, metric, from_ts, to_ts, event_ts FROM pv_energy_correction \
         WHERE station_id = ? AND withdrawn = 0 AND kind IN ('exclude', 'accept') \
         AND (device_id = ? OR device_id IS NULL)",
        [Value::Int(station), Value::Int(device)],
    );
    let mut out = DeviceCorrections::default();
    for r in sql.rows(db.pool()).await? {
        let kind: String = r.try_get("kind")?;
        match kind.as_str() {
            "exclude" => {
                if let (Some(a), Some(b)) = (r.try_get::<Option<i64>, _>("from_ts")?, r.try_get("to_ts")?) {
                    out.excluded.push((a, b));
                }
            }
            _ => {
                if let (Some(m), Some(t)) =
                    (r.try_get::<Option<String>, _>("metric")?, r.try_get("event_ts")?)
                {
                    out.accepted.push((m, t));
                }
            }
        }
    }
    Ok(out)
}

/// Who a device is, for the event rows.
pub struct Owner<'a> {
    pub tenant_id: &'a str,
    pub station_id: i64,
    pub kind: &'a str,
}

/// Replaces the events decided in `bucket` of `device` by `events` (metric, event).
pub async fn write_events(
    db: &Db,
    device: i64,
    bucket: i64,
    owner: &Owner<'_>,
    events: &[(&str, Event)],
) -> Result<(), ApiError> {
    let mut tx = db.begin_write().await?;
    let mut sql = Sql::default();
    sql.push_bind(
        "DELETE FROM pv_counter_event WHERE device_id = ? AND decided_bucket = ?",
        [Value::Int(device), Value::Int(bucket)],
    );
    sql.execute(&mut *tx).await?;
    for (metric, e) in events {
        let mut sql = Sql::default();
        sql.push_bind(
            "INSERT INTO pv_counter_event (device_id, metric, ts, tenant_id, station_id, device_kind, kind, \
             old_value, old_ts, new_value, last_value, readings, counted_wh, decided_ts, decided_bucket, updated_at) \
             VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) ON CONFLICT (device_id, metric, ts) DO UPDATE SET \
             kind = excluded.kind, old_value = excluded.old_value, old_ts = excluded.old_ts, \
             new_value = excluded.new_value, last_value = excluded.last_value, readings = excluded.readings, \
             counted_wh = excluded.counted_wh, decided_ts = excluded.decided_ts, \
             decided_bucket = excluded.decided_bucket, updated_at = excluded.updated_at",
            [
                Value::Int(device),
                Value::from(*metric),
                Value::Int(e.ts),
                Value::from(owner.tenant_id),
                Value::Int(owner.station_id),
                Value::from(owner.kind),
                Value::from(e.kind.as_str()),
                Value::Float(e.old),
                Value::Int(e.old_ts),
                Value::Float(e.new),
                Value::Float(e.last),
                Value::Int(i64::from(e.readings)),
                Value::Float(e.counted_wh),
                Value::Int(e.decided_ts),
                Value::Int(bucket),
                Value::Int(time::now_ms()),
            ],
        );
        sql.execute(&mut *tx).await?;
    }
    tx.commit().await?;
    Ok(())
}

/// Marks the rolled-up 5-minute buckets of `devices` from `from` (inclusive) to `to` (exclusive)
/// for the rollup worker, which recomputes them (and what follows, while the counters' states
/// change) and the hours, days and station summaries above them.
pub async fn mark_for_recompute(db: &Db, devices: &[i64], from: i64, to: i64) -> Result<u64, ApiError> {
    let mut n = 0;
    for d in devices {
        let mut sql = Sql::default();
        sql.push_bind(
            "INSERT INTO pv_telemetry_dirty (device_id, bucket, mark) \
             SELECT device_id, bucket, ? FROM pv_telemetry_rollup \
             WHERE device_id = ? AND period = '5m' AND bucket >= ? AND bucket < ? \
             ON CONFLICT (device_id, bucket) DO UPDATE SET mark = excluded.mark",
            [
                Value::Int(time::now_ms()),
                Value::Int(*d),
                Value::Int(from.div_euclid(BUCKET_MS) * BUCKET_MS),
                Value::Int(to),
            ],
        );
        n += sql.execute(db.pool()).await?;
    }
    Ok(n)
}

/// How many corrections in force touch each of `stations` within [from, to): exclusions that
/// overlap it, accepted or confirmed steps inside it. Reports and exports say so.
pub async fn corrections_touching(
    db: &Db,
    stations: &[i64],
    from: i64,
    to: i64,
) -> Result<std::collections::HashMap<i64, i64>, ApiError> {
    let mut out = std::collections::HashMap::new();
    if stations.is_empty() {
        return Ok(out);
    }
    let mut sql = Sql::new(
        "SELECT station_id, COUNT(*) AS n FROM pv_energy_correction WHERE withdrawn = 0 AND station_id IN (",
    );
    sql.push_ids(&stations.iter().map(|s| crate::kernel::Id(*s)).collect::<Vec<_>>());
    sql.push_bind(
        ") AND ((kind = 'exclude' AND from_ts < ? AND to_ts > ?) OR (kind <> 'exclude' AND event_ts >= ? AND event_ts < ?)) \
         GROUP BY station_id",
        [Value::Int(to), Value::Int(from), Value::Int(from), Value::Int(to)],
    );
    for r in sql.rows(db.pool()).await? {
        out.insert(r.try_get::<i64, _>("station_id")?, r.try_get::<i64, _>("n")?);
    }
    Ok(out)
}
