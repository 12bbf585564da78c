//! Day curves of chosen metrics for chosen devices, at most 288 points per series (one per
//! 5 minutes, the mean of the bucket).
//!
//! Why 5-minute buckets from the 5m rollups: charts read rollups, not raw samples (the migration
//! says so: a day of 5-s samples is 17,280 rows per device, far more points than a chart line has
//! pixels), and the rollup already holds each bucket's mean. The rollup is written a little after
//! the samples, so the buckets after a device's newest 5m rollup (the last minutes, or a whole
//! day when no rollup job ran) are computed from the raw samples (recent rows and packed hours,
//! `telemetry::raw`). Buckets are aligned to the local midnight of the day, which
//! is the same as the rollup's epoch-aligned buckets for every real UTC offset (all are whole
//! multiples of 5 minutes).

use std::collections::{BTreeMap, HashMap};

use serde_json::Value as Json;
use sqlx::Row;

use super::Day;
use crate::kernel::ApiError;
use crate::kernel::Core;
use crate::kernel::sql::{Sql, Value};
use crate::telemetry::raw;

pub const BUCKET_MS: i64 = 300_000;

/// `(device id, metric)` → `(bucket start ms, mean)` in time order.
pub type Curves = HashMap<(i64, String), Vec<(i64, f64)>>;

/// A metric name safe to use as a JSON key in a path (the vocabulary's names are `[a-z0-9_]`).
fn plain(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
}

/// Reads the curves of `metrics` for `devices` (already checked to be the caller's) on `day`.
pub async fn day_curves(
    state: &Core,
    tenant: &str,
    devices: &[i64],
    metrics: &[String],
    day: &Day,
) -> Result<Curves, ApiError> {
    let metrics: Vec<&String> = metrics.iter().filter(|m| plain(m)).collect();
    let mut out: BTreeMap<(i64, String), BTreeMap<i64, f64>> = BTreeMap::new();
    if devices.is_empty() || metrics.is_empty() {
        return Ok(HashMap::new());
    }

    // 1. The 5m rollups of the day.
    let mut sql = Sql::default();
    // By tenant, not `rows(..)`: telemetry rows have no deleted flag, the tenant leads their index, and the devices come from the caller's scope.
    sql.push_bind(
        "SELECT device_id, bucket, metrics FROM pv_telemetry_rollup WHERE tenant_id = ? AND period = '5m' \
         AND bucket >= ? AND bucket < ? AND device_id IN (",
        [
            Value::Text(tenant.to_owned()),
            Value::Int(day.start),
            Value::Int(day.end),
        ],
    );
    push_ints(&mut sql, devices);
    sql.push(") ORDER BY device_id, bucket");
    let mut covered: HashMap<i64, i64> = HashMap::new();
    for row in sql.rows(state.db.pool()).await? {
        let device: i64 = row.try_get("device_id")?;
        let bucket: i64 = row.try_get("bucket")?;
        let json: String = row.try_get("metrics")?;
        let entry = covered.entry(device).or_insert(day.start);
        *entry = (*entry).max(bucket + BUCKET_MS);
        let Ok(parsed) = serde_json::from_str::<Json>(&json) else {
            continue;
        };
        for m in &metrics {
            // metric -> [avg, min, max, last]; the chart shows the bucket's mean.
            if let Some(avg) = parsed
                .get(m.as_str())
                .and_then(|v| v.get(0))
                .and_then(Json::as_f64)
            {
                out.entry((device, (*m).clone())).or_default().insert(bucket, avg);
            }
        }
    }

    // 2. Raw samples after each device's newest rollup, averaged per bucket (`raw` reads the
    // recent rows and the packed hours, decoding only the chosen metrics' columns).
    let from = devices
        .iter()
        .map(|d| covered.get(d).copied().unwrap_or(day.start))
        .min()
        .unwrap_or(day.start);
    if from < day.end {
        let names: Vec<&str> = metrics.iter().map(|m| m.as_str()).collect();
        let span = raw::Span {
            tenant: Some(tenant),
            devices,
            from,
            to: day.end,
        };
        let means = raw::slot_means(state.db.pool(), span, &names, day.start, BUCKET_MS).await?;
        for (device, per_metric) in means {
            let covered_until = covered.get(&device).copied().unwrap_or(day.start);
            for (m, points) in metrics.iter().zip(per_metric) {
                for (bucket, v) in points.range(covered_until..) {
                    out.entry((device, (*m).clone())).or_default().insert(*bucket, *v);
                }
            }
        }
    }
    Ok(out
        .into_iter()
        .map(|(k, points)| (k, points.into_iter().collect()))
        .collect())
}

fn push_ints(sql: &mut Sql, ids: &[i64]) {
    for (i, id) in ids.iter().enumerate() {
        sql.push_bind(if i == 0 { "?" } else { ", ?" }, [Value::Int(*id)]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_names_reach_a_json_path() {
        assert!(plain("pv12_current"));
        assert!(!plain("a.b"));
        assert!(!plain("x'); DROP"));
        assert!(!plain(""));
    }
}
