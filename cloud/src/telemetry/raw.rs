//! Reading raw samples: recent ones are rows of `pv_telemetry_raw`, closed hours are blocks of
//! `pv_telemetry_block` (`block`, packed by `compact`). Every reader of raw data goes through
//! here so it sees both, merged by timestamp: while a late sample for a packed hour waits in the
//! row table for the next compaction, both hold samples of that hour, and a replayed sample may
//! sit in both (the packed one wins, as the first stored sample wins at ingest).

use std::collections::{BTreeMap, HashMap};

use pv_shared::wire;
use sqlx::{AnyPool, Row};

use super::block::{self, RawSample};
use crate::kernel::ApiError;
use crate::kernel::sql::{Sql, Value};

pub const HOUR_MS: i64 = 3_600_000;

/// Start of the hour holding `ts`.
pub fn hour_of(ts: i64) -> i64 {
    ts.div_euclid(HOUR_MS) * HOUR_MS
}

pub(crate) fn sample_of_row(row: &sqlx::any::AnyRow) -> Result<RawSample, ApiError> {
    let metrics: String = row.try_get("metrics")?;
    Ok(RawSample {
        ts: row.try_get("ts")?,
        seq: row.try_get("seq")?,
        metrics: serde_json::from_str(&metrics).unwrap_or_default(),
        suspect: row.try_get("suspect")?,
    })
}

fn push_ints(sql: &mut Sql, ids: &[i64]) {
    for (i, id) in ids.iter().enumerate() {
        sql.push_bind(if i == 0 { "?" } else { ", ?" }, [Value::Int(*id)]);
    }
}

/// Which devices, whose, over which time.
#[derive(Debug, Clone, Copy)]
pub struct Span<'a> {
    /// When set, only rows of this tenant (the devices are already the caller's).
    pub tenant: Option<&'a str>,
    pub devices: &'a [i64],
    pub from: i64,
    pub to: i64,
}

/// The blocks overlapping the span, opened, per device in hour order.
async fn blocks(pool: &AnyPool, span: Span<'_>) -> Result<Vec<(i64, block::Opened)>, ApiError> {
    let mut sql = Sql::new("SELECT device_id, data FROM pv_telemetry_block WHERE ");
    if let Some(t) = span.tenant {
        sql.push_bind("tenant_id = ? AND ", [Value::from(t)]);
    }
    sql.push_bind(
        "hour >= ? AND hour < ? AND device_id IN (",
        [Value::Int(hour_of(span.from)), Value::Int(span.to)],
    );
    push_ints(&mut sql, span.devices);
    sql.push(") ORDER BY device_id, hour");
    let mut out = Vec::new();
    for row in sql.rows(pool).await? {
        let data: Vec<u8> = row.try_get("data")?;
        out.push((row.try_get("device_id")?, block::open(&data)?));
    }
    Ok(out)
}

async fn rows(pool: &AnyPool, span: Span<'_>) -> Result<Vec<(i64, RawSample)>, ApiError> {
    let mut sql = Sql::new("SELECT device_id, ts, seq, metrics, suspect FROM pv_telemetry_raw WHERE ");
    if let Some(t) = span.tenant {
        sql.push_bind("tenant_id = ? AND ", [Value::from(t)]);
    }
    sql.push_bind(
        "ts >= ? AND ts < ? AND device_id IN (",
        [Value::Int(span.from), Value::Int(span.to)],
    );
    push_ints(&mut sql, span.devices);
    sql.push(") ORDER BY device_id, ts");
    sql.rows(pool)
        .await?
        .iter()
        .map(|r| Ok((r.try_get("device_id")?, sample_of_row(r)?)))
        .collect()
}

/// Every sample of `device` in `[from, to)`, in time order.
pub async fn range(pool: &AnyPool, device: i64, from: i64, to: i64) -> Result<Vec<RawSample>, ApiError> {
    let span = Span {
        tenant: None,
        devices: &[device],
        from,
        to,
    };
    let mut packed = Vec::new();
    for (_, b) in blocks(pool, span).await? {
        packed.extend(b.samples()?.into_iter().filter(|s| s.ts >= from && s.ts < to));
    }
    let newer = rows(pool, span).await?.into_iter().map(|(_, s)| s).collect();
    Ok(block::merge(packed, newer))
}

/// The newest sample of `device` before `before`.
pub async fn last_before(pool: &AnyPool, device: i64, before: i64) -> Result<Option<RawSample>, ApiError> {
    let mut sql = Sql::default();
    sql.push_bind(
        "SELECT ts, seq, metrics, suspect FROM pv_telemetry_raw WHERE device_id = ? AND ts < ? \
         ORDER BY ts DESC LIMIT 1",
        [Value::Int(device), Value::Int(before)],
    );
    let row = sql.row(pool).await?.map(|r| sample_of_row(&r)).transpose()?;
    let mut sql = Sql::default();
    sql.push_bind(
        "SELECT data FROM pv_telemetry_block WHERE device_id = ? AND first_ts < ? ORDER BY hour DESC LIMIT 1",
        [Value::Int(device), Value::Int(before)],
    );
    let packed = match sql.scalar_optional::<Vec<u8>, _>(pool).await? {
        Some(data) => block::decode(&data)?.into_iter().rev().find(|s| s.ts < before),
        None => None,
    };
    Ok(match (packed, row) {
        (Some(p), Some(r)) => Some(if r.ts > p.ts { r } else { p }),
        (p, r) => p.or(r),
    })
}

/// When the first sample of `device` at or after `from` was taken.
pub async fn first_at_or_after(pool: &AnyPool, device: i64, from: i64) -> Result<Option<i64>, ApiError> {
    let mut sql = Sql::default();
    sql.push_bind(
        "SELECT MIN(ts) FROM pv_telemetry_raw WHERE device_id = ? AND ts >= ?",
        [Value::Int(device), Value::Int(from)],
    );
    let row: Option<i64> = sql.scalar::<Option<i64>, _>(pool).await?;
    let mut sql = Sql::default();
    sql.push_bind(
        "SELECT first_ts, data FROM pv_telemetry_block WHERE device_id = ? AND last_ts >= ? ORDER BY hour LIMIT 1",
        [Value::Int(device), Value::Int(from)],
    );
    let packed = match sql.row(pool).await? {
        Some(r) => {
            let first: i64 = r.try_get("first_ts")?;
            if first >= from {
                Some(first)
            } else {
                let data: Vec<u8> = r.try_get("data")?;
                block::open(&data)?.ts.into_iter().find(|t| *t >= from)
            }
        }
        None => None,
    };
    Ok(match (packed, row) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    })
}

/// Per device, the mean of each numeric metric of `metrics` per slot of `slot_ms` counted from
/// `origin` (the raw tail of a day curve): device → metric index → slot start → mean.
pub async fn slot_means(
    pool: &AnyPool,
    span: Span<'_>,
    metrics: &[&str],
    origin: i64,
    slot_ms: i64,
) -> Result<HashMap<i64, Vec<BTreeMap<i64, f64>>>, ApiError> {
    // Per device: ts → values of the wanted metrics, packed first so a replayed row loses.
    let mut merged: HashMap<i64, BTreeMap<i64, Vec<Option<f64>>>> = HashMap::new();
    for (device, b) in blocks(pool, span).await? {
        let cols = metrics
            .iter()
            .map(|m| b.column(m))
            .collect::<Result<Vec<_>, _>>()?;
        let per_ts = merged.entry(device).or_default();
        for (i, &ts) in b.ts.iter().enumerate() {
            if ts < span.from || ts >= span.to {
                continue;
            }
            let vals = cols
                .iter()
                .map(|c| c.as_ref().and_then(|c| number(c[i].as_ref())))
                .collect();
            per_ts.insert(ts, vals);
        }
    }
    for (device, s) in rows(pool, span).await? {
        let vals = metrics.iter().map(|m| number(s.metrics.get(*m))).collect();
        merged.entry(device).or_default().entry(s.ts).or_insert(vals);
    }
    let mut out = HashMap::new();
    for (device, per_ts) in merged {
        let mut sums: Vec<BTreeMap<i64, (f64, u32)>> = vec![BTreeMap::new(); metrics.len()];
        for (ts, vals) in per_ts {
            let slot = origin + (ts - origin).div_euclid(slot_ms) * slot_ms;
            for (m, v) in vals.into_iter().enumerate() {
                if let Some(v) = v {
                    let e = sums[m].entry(slot).or_insert((0.0, 0));
                    e.0 += v;
                    e.1 += 1;
                }
            }
        }
        let means = sums
            .into_iter()
            .map(|m| m.into_iter().map(|(k, (s, n))| (k, s / f64::from(n))).collect())
            .collect();
        out.insert(device, means);
    }
    Ok(out)
}

fn number(v: Option<&wire::Value>) -> Option<f64> {
    match v {
        Some(wire::Value::Number(n)) if n.is_finite() => Some(*n),
        _ => None,
    }
}
