//! The SQL of ingest: raw samples (idempotent by their natural key), the newest sample per
//! device, rollup marks, and the gateway state row. Statements are multi-row and chunked so a
//! group of batches costs a few round trips, with every value bound (`kernel::sql`).

use std::collections::BTreeMap;

use crate::kernel::ApiError;
use crate::kernel::db::{Backend, Db};
use crate::kernel::sql::{Sql, Value};

/// One sample to store.
#[derive(Debug, Clone)]
pub struct RawRow {
    pub device_id: i64,
    pub ts: i64,
    pub tenant_id: String,
    pub station_id: i64,
    pub seq: i64,
    pub metrics: String,
    /// Values marked implausible (JSON metric → value); never part of `metrics`.
    pub suspect: Option<String>,
}

/// The newest sample of a device in a group.
#[derive(Debug, Clone)]
pub struct LatestRow {
    pub device_id: i64,
    pub tenant_id: String,
    pub station_id: i64,
    pub kind: &'static str,
    pub gateway_id: String,
    pub ts: i64,
    pub metrics: String,
    pub suspect: Option<String>,
}

fn text_or_null(v: &Option<String>) -> Value {
    v.clone().map_or(Value::NullText, Value::Text)
}

fn values_list(n: usize, row: &str) -> String {
    let mut s = String::with_capacity(n * (row.len() + 1));
    for i in 0..n {
        if i > 0 {
            s.push(',');
        }
        s.push_str(row);
    }
    s
}

/// Stores a group in one transaction: raw rows (a sample already stored is left as it is), the
/// newest sample per device (only when newer than the stored one), and a rollup mark per
/// (device, 5-minute bucket). Returns the raw rows actually inserted. `latest` must hold one row
/// per device and `dirty` distinct pairs (PostgreSQL refuses to update one row twice in a
/// statement).
#[allow(clippy::too_many_arguments)] // one transaction's inputs; only ingest's writer calls it
pub async fn write_group(
    db: &Db,
    chunk_rows: usize,
    raws: &[RawRow],
    latest: &[LatestRow],
    dirty: &[(i64, i64)],
    mark: i64,
    now: i64,
    acquire_wait: &prometheus_client::metrics::histogram::Histogram,
) -> Result<u64, ApiError> {
    // Acknowledged once committed, and the gateway then deletes its copy: the durable pool.
    let asked = std::time::Instant::now();
    let mut tx = db.begin_durable_write().await?;
    acquire_wait.observe(asked.elapsed().as_secs_f64());
    // Thousands of values per statement: on SQLite only anonymous marks bind in linear time.
    let anonymous = db.backend() == Backend::Sqlite;
    let mark_style = |sql: &mut Sql| {
        if anonymous {
            sql.anonymous_marks();
        }
    };
    let mut inserted = 0;
    for chunk in raws.chunks(chunk_rows.max(1)) {
        let mut sql = Sql::new(
            "INSERT INTO pv_telemetry_raw (device_id, ts, tenant_id, station_id, seq, metrics, suspect) VALUES ",
        );
        sql.push_bind(
            &values_list(chunk.len(), "(?,?,?,?,?,?,?)"),
            chunk.iter().flat_map(|r| {
                [
                    Value::Int(r.device_id),
                    Value::Int(r.ts),
                    Value::Text(r.tenant_id.clone()),
                    Value::Int(r.station_id),
                    Value::Int(r.seq),
                    Value::Text(r.metrics.clone()),
                    text_or_null(&r.suspect),
                ]
            }),
        );
        sql.push(" ON CONFLICT (device_id, ts) DO NOTHING");
        mark_style(&mut sql);
        inserted += sql.execute(&mut *tx).await?;
    }
    for chunk in latest.chunks(chunk_rows.max(1)) {
        let mut sql = Sql::new(
            "INSERT INTO pv_telemetry_latest (device_id, tenant_id, station_id, device_kind, gateway_id, \
             ts, metrics, suspect, online, changed_at) VALUES ",
        );
        sql.push_bind(
            &values_list(chunk.len(), "(?,?,?,?,?,?,?,?,1,?)"),
            chunk.iter().flat_map(|r| {
                [
                    Value::Int(r.device_id),
                    Value::Text(r.tenant_id.clone()),
                    Value::Int(r.station_id),
                    Value::from(r.kind),
                    Value::Text(r.gateway_id.clone()),
                    Value::Int(r.ts),
                    Value::Text(r.metrics.clone()),
                    text_or_null(&r.suspect),
                    Value::Int(now),
                ]
            }),
        );
        // A replayed older sample never replaces a newer one.
        sql.push(
            " ON CONFLICT (device_id) DO UPDATE SET tenant_id = excluded.tenant_id, \
             station_id = excluded.station_id, device_kind = excluded.device_kind, \
             gateway_id = excluded.gateway_id, ts = excluded.ts, metrics = excluded.metrics, \
             suspect = excluded.suspect, online = 1, changed_at = excluded.changed_at WHERE excluded.ts > pv_telemetry_latest.ts",
        );
        mark_style(&mut sql);
        sql.execute(&mut *tx).await?;
    }
    for chunk in dirty.chunks(chunk_rows.max(1)) {
        let mut sql = Sql::new("INSERT INTO pv_telemetry_dirty (device_id, bucket, mark) VALUES ");
        sql.push_bind(
            &values_list(chunk.len(), "(?,?,?)"),
            chunk
                .iter()
                .flat_map(|(d, b)| [Value::Int(*d), Value::Int(*b), Value::Int(mark)]),
        );
        sql.push(" ON CONFLICT (device_id, bucket) DO UPDATE SET mark = excluded.mark");
        mark_style(&mut sql);
        sql.execute(&mut *tx).await?;
    }
    tx.commit().await?;
    Ok(inserted)
}

/// Which gateway row, and whose.
#[derive(Debug, Clone, Copy)]
pub struct GatewayKey<'a> {
    pub gateway_id: &'a str,
    pub tenant_id: &'a str,
    pub station_id: i64,
}

/// Presence of a gateway (the status JSON is the last status message, if any).
pub async fn upsert_gateway_presence(
    db: &Db,
    key: GatewayKey<'_>,
    online: bool,
    last_seen: i64,
    status: Option<String>,
    now: i64,
) -> Result<(), ApiError> {
    let mut sql = Sql::default();
    sql.push_bind(
        "INSERT INTO pv_gateway_state (gateway_id, tenant_id, station_id, online, last_seen, status, \
         changed_at) VALUES (?,?,?,?,?,?,?) ON CONFLICT (gateway_id) DO UPDATE SET \
         tenant_id = excluded.tenant_id, station_id = excluded.station_id, online = excluded.online, \
         last_seen = excluded.last_seen, status = COALESCE(excluded.status, pv_gateway_state.status), \
         changed_at = excluded.changed_at",
        [
            Value::from(key.gateway_id),
            Value::from(key.tenant_id),
            Value::Int(key.station_id),
            Value::Int(online.into()),
            Value::Int(last_seen),
            Value::from(status),
            Value::Int(now),
        ],
    );
    sql.execute(db.pool()).await?;
    Ok(())
}

/// Adds counts to a gateway's stored totals: `accepted` samples, and `rejected` (reason key →
/// count) merged into the stored JSON object key by key. Deltas, never absolute values, so
/// several replicas counting the same gateway sum up instead of overwriting one another.
///
/// One transaction: the upsert adds `accepted` in SQL and thereby locks the row (PostgreSQL
/// row lock; SQLite's single writer), so reading `rejected`, merging in Rust and writing it
/// back cannot interleave with another replica's flush of the same gateway. (Merging JSON in
/// SQL would need a different statement per back-end.)
pub async fn add_gateway_counters(
    db: &Db,
    key: GatewayKey<'_>,
    accepted: u64,
    rejected: &BTreeMap<String, u64>,
    now: i64,
) -> Result<(), ApiError> {
    let mut tx = db.begin_write().await?;
    let mut sql = Sql::default();
    sql.push_bind(
        "INSERT INTO pv_gateway_state (gateway_id, tenant_id, station_id, online, last_seen, rejected, \
         accepted, changed_at) VALUES (?,?,?,0,?,'{}',?,?) ON CONFLICT (gateway_id) DO UPDATE SET \
         accepted = pv_gateway_state.accepted + excluded.accepted",
        [
            Value::from(key.gateway_id),
            Value::from(key.tenant_id),
            Value::Int(key.station_id),
            Value::Int(now),
            Value::Int(i64::try_from(accepted).unwrap_or(i64::MAX)),
            Value::Int(now),
        ],
    );
    sql.execute(&mut *tx).await?;
    if rejected.values().any(|n| *n > 0) {
        let mut sql = Sql::default();
        sql.push_bind(
            "SELECT rejected FROM pv_gateway_state WHERE gateway_id = ?",
            [Value::from(key.gateway_id)],
        );
        let stored: String = sql.scalar::<String, _>(&mut *tx).await?;
        let merged = merge_counts(&stored, rejected);
        let mut sql = Sql::default();
        sql.push_bind(
            "UPDATE pv_gateway_state SET rejected = ? WHERE gateway_id = ?",
            [Value::Text(merged), Value::from(key.gateway_id)],
        );
        sql.execute(&mut *tx).await?;
    }
    Ok(tx.commit().await?)
}

/// `stored` (a JSON object reason → count; unreadable or non-count entries are dropped rather
/// than failing the flush forever) plus `delta`, as JSON.
pub fn merge_counts(stored: &str, delta: &BTreeMap<String, u64>) -> String {
    let mut m: BTreeMap<String, u64> = serde_json::from_str::<BTreeMap<String, serde_json::Value>>(stored)
        .unwrap_or_default()
        .into_iter()
        .filter_map(|(k, v)| v.as_u64().map(|n| (k, n)))
        .collect();
    for (k, n) in delta {
        let e = m.entry(k.clone()).or_default();
        *e = e.saturating_add(*n);
    }
    serde_json::to_string(&m).unwrap_or_else(|_| "{}".into())
}

/// The stored counters of a gateway: (accepted, rejected JSON).
pub async fn gateway_counters(db: &Db, gateway_id: &str) -> Result<Option<(i64, String)>, ApiError> {
    let mut sql = Sql::default();
    sql.push_bind(
        "SELECT accepted, rejected FROM pv_gateway_state WHERE gateway_id = ?",
        [Value::from(gateway_id)],
    );
    sql.fetch_optional::<(i64, String), _>(db.pool()).await
}

/// Marks devices (not) communicating in `pv_telemetry_latest`.
/// Adds uplink bytes and samples to a gateway's stored totals and records the encoding it used
/// last (the row exists: `add_gateway_counters` ran first).
pub async fn add_gateway_uplink(
    db: &Db,
    gateway_id: &str,
    encoding: &str,
    bytes: u64,
    samples: u64,
) -> Result<(), ApiError> {
    let mut sql = Sql::default();
    sql.push_bind(
        "UPDATE pv_gateway_state SET uplink_encoding = ?, uplink_bytes = uplink_bytes + ?, \
         uplink_samples = uplink_samples + ? WHERE gateway_id = ?",
        [
            Value::from(encoding),
            Value::Int(i64::try_from(bytes).unwrap_or(i64::MAX)),
            Value::Int(i64::try_from(samples).unwrap_or(i64::MAX)),
            Value::from(gateway_id),
        ],
    );
    sql.execute(db.pool()).await?;
    Ok(())
}

pub async fn set_devices_online(db: &Db, devices: &[i64], online: bool, now: i64) -> Result<(), ApiError> {
    for chunk in devices.chunks(500) {
        let mut sql = Sql::default();
        sql.push_bind(
            "UPDATE pv_telemetry_latest SET online = ?, changed_at = ? WHERE online <> ? AND device_id IN (",
            [
                Value::Int(online.into()),
                Value::Int(now),
                Value::Int(online.into()),
            ],
        );
        sql.push_bind(
            &values_list(chunk.len(), "?"),
            chunk.iter().map(|d| Value::Int(*d)),
        );
        sql.push(")");
        sql.execute(db.pool()).await?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_merge_key_by_key() {
        let delta = BTreeMap::from([("malformed".to_string(), 2), ("unknown_device".to_string(), 5)]);
        assert_eq!(
            merge_counts(r#"{"malformed":1,"oversized":4,"junk":"x"}"#, &delta),
            r#"{"malformed":3,"oversized":4,"unknown_device":5}"#
        );
        assert_eq!(
            merge_counts("not json", &delta),
            r#"{"malformed":2,"unknown_device":5}"#
        );
    }
}
