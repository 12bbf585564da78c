//! Rollups: 5-minute, hourly and daily rows per device in `pv_telemetry_rollup`, always
//! recomputed from raw samples so that a replay (old samples arriving late, out of order) gives
//! exactly the rollups an uninterrupted run would have.
//!
//! Ingest marks (device, 5-minute bucket) of every stored sample in `pv_telemetry_dirty`, in the
//! same transaction. The worker takes marks of buckets that ended at least
//! `rollup_delay_seconds` ago, and recomputes each from raw together with the next bucket that
//! has samples (its first counter delta and irradiance segment start from this bucket's last
//! sample); then the hour and the local day (`timezone`) holding them, from their 5-minute rows.
//! A mark is deleted only if it still carries the value read (a sample stored meanwhile re-marks
//! it with a fresh value), so no late sample is ever missed.
//!
//! Energy comes from cumulative counters (inverter `energy_total`, meter `energy_import` /
//! `energy_export`, Wh), walked by `energy::counter` with a state carried from each 5-minute row to
//! the next (`counters` column): forward steps within what the device can produce count, glitches
//! count nothing, resets count from zero, rebases and rejected steps count 0 at the step, and the
//! administrators' corrections apply. A bucket whose end state changed makes the next bucket with
//! samples be recomputed too. Power is never integrated. Irradiation integrates irradiance
//! (`irradiance_poa`, else `irradiance_ghi`) by trapezoids, not across gaps longer than
//! `irradiation_max_gap_seconds`; a segment belongs to the bucket of its later sample.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::Duration;

use pv_shared::wire;
use sqlx::Row;

use super::ingest::BUCKET_MS;
use crate::energy::counter::{self, Event, Limits, Walk};
use crate::energy::store::{self as energy_store, DeviceCorrections, Owner};
use crate::kernel::db::Db;
use crate::kernel::leader;
use crate::kernel::sql::{Sql, Value};
use crate::kernel::time;
use crate::kernel::{ApiError, Core};
use crate::telemetry::context::TelemetryCtx;

const HOUR_MS: i64 = 3_600_000;
const DAY_MS: i64 = 86_400_000;

/// One raw sample's numeric metrics.
#[derive(Debug, Clone, PartialEq)]
pub struct Point {
    pub ts: i64,
    pub values: BTreeMap<String, f64>,
}

impl Point {
    pub fn from_json(ts: i64, metrics: &str) -> Point {
        let values = serde_json::from_str::<BTreeMap<String, wire::Value>>(metrics)
            .unwrap_or_default()
            .into_iter()
            .filter_map(|(k, v)| match v {
                wire::Value::Number(n) if n.is_finite() => Some((k, n)),
                _ => None,
            })
            .collect();
        Point { ts, values }
    }

    pub fn from_sample(s: super::block::RawSample) -> Point {
        let values = s
            .metrics
            .into_iter()
            .filter_map(|(k, v)| match v {
                wire::Value::Number(n) if n.is_finite() => Some((k, n)),
                _ => None,
            })
            .collect();
        Point { ts: s.ts, values }
    }
}

/// The figures of one rollup row.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Figures {
    pub samples: i64,
    pub energy_wh: Option<f64>,
    pub energy_import_wh: Option<f64>,
    pub energy_export_wh: Option<f64>,
    pub power_avg_w: Option<f64>,
    pub power_max_w: Option<f64>,
    pub irradiance_avg: Option<f64>,
    pub irradiation_wh_m2: Option<f64>,
    /// metric → [avg, min, max, last]
    pub metrics: BTreeMap<String, [f64; 4]>,
}

fn irradiance(p: &Point) -> Option<f64> {
    p.values
        .get("irradiance_poa")
        .or_else(|| p.values.get("irradiance_ghi"))
        .copied()
}

/// The counters energy is counted from.
pub const COUNTERS: [&str; 3] = ["energy_total", "energy_import", "energy_export"];

/// How a device's counters are being counted: their states (carried from bucket to bucket), the
/// device's bound, the corrections in force, and the steps found so far.
pub struct Counting<'a> {
    pub states: BTreeMap<String, counter::State>,
    pub limits: Limits,
    pub corrections: &'a DeviceCorrections,
    pub events: Vec<(&'static str, Event)>,
}

impl<'a> Counting<'a> {
    /// Counting from nothing kept: each counter's baseline is the last reading before.
    pub fn fresh(limits: Limits, corrections: &'a DeviceCorrections) -> Self {
        Counting {
            states: BTreeMap::new(),
            limits,
            corrections,
            events: Vec::new(),
        }
    }

    /// Counted energy of `metric` over `points`; None when no point has the counter.
    fn count(&mut self, prev: Option<&Point>, points: &[Point], metric: &'static str) -> Option<f64> {
        let mut readings = points
            .iter()
            .filter_map(|p| p.values.get(metric).map(|v| (p.ts, *v)))
            .peekable();
        readings.peek()?;
        let state = self.states.entry(metric.to_string()).or_insert_with(|| {
            counter::State::seeded(prev.and_then(|p| p.values.get(metric).map(|v| (p.ts, *v))))
        });
        let view = self.corrections.of(metric);
        let mut walk = Walk::default();
        for (ts, v) in readings {
            state.step(ts, v, &self.limits, &view, &mut walk);
        }
        self.events.extend(walk.events.into_iter().map(|e| (metric, e)));
        walk.energy_wh
    }
}

fn avg_max(points: &[Point], get: impl Fn(&Point) -> Option<f64>) -> (Option<f64>, Option<f64>) {
    let vals: Vec<f64> = points.iter().filter_map(get).collect();
    if vals.is_empty() {
        return (None, None);
    }
    let avg = vals.iter().sum::<f64>() / vals.len() as f64;
    (Some(avg), vals.iter().copied().reduce(f64::max))
}

/// The 5-minute figures of `points` (ascending, all in the bucket), `prev` the last sample
/// before the bucket, counting energy with `counting`.
pub fn five_minutes(
    prev: Option<&Point>,
    points: &[Point],
    max_gap_ms: i64,
    counting: &mut Counting,
) -> Figures {
    let (power_avg_w, power_max_w) = avg_max(points, |p| p.values.get("ac_power").copied());
    let (irradiance_avg, _) = avg_max(points, irradiance);
    let mut irradiation = None;
    let mut before = prev.and_then(|p| irradiance(p).map(|g| (p.ts, g)));
    for p in points {
        let Some(g) = irradiance(p) else { continue };
        if let Some((t0, g0)) = before
            && p.ts > t0
            && p.ts - t0 <= max_gap_ms
        {
            let hours = (p.ts - t0) as f64 / HOUR_MS as f64;
            irradiation = Some(irradiation.unwrap_or(0.0) + (g0 + g) / 2.0 * hours);
        } else if irradiation.is_none() {
            irradiation = Some(0.0);
        }
        before = Some((p.ts, g));
    }
    let mut metrics: BTreeMap<String, (f64, usize, f64, f64, f64)> = BTreeMap::new();
    for p in points {
        for (k, v) in &p.values {
            let e = metrics
                .entry(k.clone())
                .or_insert((0.0, 0, f64::MAX, f64::MIN, 0.0));
            e.0 += v;
            e.1 += 1;
            e.2 = e.2.min(*v);
            e.3 = e.3.max(*v);
            e.4 = *v;
        }
    }
    Figures {
        samples: points.len() as i64,
        energy_wh: counting.count(prev, points, "energy_total"),
        energy_import_wh: counting.count(prev, points, "energy_import"),
        energy_export_wh: counting.count(prev, points, "energy_export"),
        power_avg_w,
        power_max_w,
        irradiance_avg,
        irradiation_wh_m2: irradiation,
        metrics: metrics
            .into_iter()
            .map(|(k, (sum, n, min, max, last))| (k, [sum / n as f64, min, max, last]))
            .collect(),
    }
}

fn sum_opt(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (None, None) => None,
        (a, b) => Some(a.unwrap_or(0.0) + b.unwrap_or(0.0)),
    }
}

/// Combines 5-minute rows (ascending by bucket) into an hour or a day. Averages are weighted by
/// sample counts; energies and irradiation add up (each 5-minute row already holds the deltas
/// that end in it, so the sum is exact).
pub fn combine(rows: &[Figures]) -> Figures {
    let mut out = Figures::default();
    let (mut p_sum, mut p_n, mut g_sum, mut g_n) = (0.0, 0i64, 0.0, 0i64);
    let mut m: BTreeMap<String, (f64, i64, f64, f64, f64)> = BTreeMap::new();
    for r in rows {
        out.samples += r.samples;
        out.energy_wh = sum_opt(out.energy_wh, r.energy_wh);
        out.energy_import_wh = sum_opt(out.energy_import_wh, r.energy_import_wh);
        out.energy_export_wh = sum_opt(out.energy_export_wh, r.energy_export_wh);
        out.irradiation_wh_m2 = sum_opt(out.irradiation_wh_m2, r.irradiation_wh_m2);
        if let Some(p) = r.power_avg_w {
            p_sum += p * r.samples as f64;
            p_n += r.samples;
        }
        out.power_max_w = match (out.power_max_w, r.power_max_w) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
        if let Some(g) = r.irradiance_avg {
            g_sum += g * r.samples as f64;
            g_n += r.samples;
        }
        for (k, [avg, min, max, last]) in &r.metrics {
            let e = m.entry(k.clone()).or_insert((0.0, 0, f64::MAX, f64::MIN, 0.0));
            e.0 += avg * r.samples as f64;
            e.1 += r.samples;
            e.2 = e.2.min(*min);
            e.3 = e.3.max(*max);
            e.4 = *last;
        }
    }
    out.power_avg_w = (p_n > 0).then(|| p_sum / p_n as f64);
    out.irradiance_avg = (g_n > 0).then(|| g_sum / g_n as f64);
    out.metrics = m
        .into_iter()
        .map(|(k, (s, n, min, max, last))| (k, [s / n.max(1) as f64, min, max, last]))
        .collect();
    out
}

/// Start of the local (configured offset) period of length `len` holding `ts`.
pub fn local_floor(ts: i64, len: i64, offset_ms: i64) -> i64 {
    (ts + offset_ms).div_euclid(len) * len - offset_ms
}

/// A placeholder and its value, or a literal NULL (`Value::NullFloat` would do as well; the
/// literal keeps the statement free of a parameter that carries nothing).
fn opt(sql: &mut Sql, v: Option<f64>) {
    match v {
        Some(f) => sql.push_bind(",?", [Value::Float(f)]),
        None => sql.push(",NULL"),
    };
}

struct Meta {
    tenant_id: String,
    station_id: i64,
    kind: String,
}

async fn upsert(
    db: &Db,
    device: i64,
    period: &str,
    bucket: i64,
    meta: &Meta,
    f: &Figures,
    counters: Option<String>,
) -> Result<(), ApiError> {
    let metrics = serde_json::to_string(&f.metrics).unwrap_or_else(|_| "{}".into());
    let mut sql = Sql::default();
    sql.push_bind(
        "INSERT INTO pv_telemetry_rollup (device_id, period, bucket, tenant_id, station_id, device_kind, \
         samples, energy_wh, energy_import_wh, energy_export_wh, power_avg_w, power_max_w, irradiance_avg, \
         irradiation_wh_m2, metrics, counters, updated_at) VALUES (?,?,?,?,?,?,?",
        [
            Value::Int(device),
            Value::from(period),
            Value::Int(bucket),
            Value::Text(meta.tenant_id.clone()),
            Value::Int(meta.station_id),
            Value::Text(meta.kind.clone()),
            Value::Int(f.samples),
        ],
    );
    for v in [
        f.energy_wh,
        f.energy_import_wh,
        f.energy_export_wh,
        f.power_avg_w,
        f.power_max_w,
        f.irradiance_avg,
        f.irradiation_wh_m2,
    ] {
        opt(&mut sql, v);
    }
    sql.push_bind(",?", [Value::Text(metrics)]);
    match counters {
        Some(c) => sql.push_bind(",?", [Value::Text(c)]),
        None => sql.push(",NULL"),
    };
    sql.push_bind(
        ",?) ON CONFLICT (device_id, period, bucket) DO UPDATE SET tenant_id = excluded.tenant_id, \
         station_id = excluded.station_id, device_kind = excluded.device_kind, samples = excluded.samples, \
         energy_wh = excluded.energy_wh, energy_import_wh = excluded.energy_import_wh, \
         energy_export_wh = excluded.energy_export_wh, power_avg_w = excluded.power_avg_w, \
         power_max_w = excluded.power_max_w, irradiance_avg = excluded.irradiance_avg, \
         irradiation_wh_m2 = excluded.irradiation_wh_m2, metrics = excluded.metrics, \
         counters = excluded.counters, updated_at = excluded.updated_at",
        [Value::Int(time::now_ms())],
    );
    sql.execute(db.pool()).await?;
    Ok(())
}

fn figures_of(row: &sqlx::any::AnyRow) -> Result<Figures, ApiError> {
    let metrics: String = row.try_get("metrics")?;
    Ok(Figures {
        samples: row.try_get("samples")?,
        energy_wh: row.try_get("energy_wh")?,
        energy_import_wh: row.try_get("energy_import_wh")?,
        energy_export_wh: row.try_get("energy_export_wh")?,
        power_avg_w: row.try_get("power_avg_w")?,
        power_max_w: row.try_get("power_max_w")?,
        irradiance_avg: row.try_get("irradiance_avg")?,
        irradiation_wh_m2: row.try_get("irradiation_wh_m2")?,
        metrics: serde_json::from_str(&metrics).unwrap_or_default(),
    })
}

// Raw samples come through `raw`, which merges the row table and the packed hours.
async fn points(db: &Db, device: i64, from: i64, to: i64) -> Result<Vec<Point>, ApiError> {
    Ok(super::raw::range(db.pool(), device, from, to)
        .await?
        .into_iter()
        .map(Point::from_sample)
        .collect())
}

async fn prev_point(db: &Db, device: i64, before: i64) -> Result<Option<Point>, ApiError> {
    Ok(super::raw::last_before(db.pool(), device, before)
        .await?
        .map(Point::from_sample))
}

async fn next_sample_at(db: &Db, device: i64, from: i64) -> Result<Option<i64>, ApiError> {
    super::raw::first_at_or_after(db.pool(), device, from).await
}

async fn meta(db: &Db, device: i64) -> Result<Option<Meta>, ApiError> {
    let mut sql = Sql::default();
    sql.push_bind(
        "SELECT tenant_id, station_id, device_kind FROM pv_telemetry_latest WHERE device_id = ?",
        [Value::Int(device)],
    );
    sql.rows(db.pool())
        .await?
        .first()
        .map(|r| {
            Ok(Meta {
                tenant_id: r.try_get("tenant_id")?,
                station_id: r.try_get("station_id")?,
                kind: r.try_get("device_kind")?,
            })
        })
        .transpose()
}

/// The counters' state at the end of the rolled-up 5-minute row before `bucket` (when that row
/// is the bucket of `prev`, the last sample before: otherwise its state is not the one to go on
/// from), and the state stored with `bucket`'s own row.
async fn states_around(
    db: &Db,
    device: i64,
    bucket: i64,
    prev: Option<&Point>,
) -> Result<(BTreeMap<String, counter::State>, Option<String>), ApiError> {
    let mut sql = Sql::default();
    sql.push_bind(
        "SELECT bucket, counters FROM pv_telemetry_rollup WHERE device_id = ? AND period = '5m' \
         AND bucket <= ? ORDER BY bucket DESC LIMIT 2",
        [Value::Int(device), Value::Int(bucket)],
    );
    let rows = sql.rows(db.pool()).await?;
    let mut stored = None;
    let mut start = BTreeMap::new();
    for r in rows {
        let b: i64 = r.try_get("bucket")?;
        let counters: Option<String> = r.try_get("counters")?;
        if b == bucket {
            stored = counters;
        } else if let (Some(text), Some(p)) = (counters, prev)
            && p.ts.div_euclid(BUCKET_MS) * BUCKET_MS == b
        {
            // A state that does not parse is a row of another version: count from `prev`.
            start = serde_json::from_str(&text).unwrap_or_default();
        }
    }
    Ok((start, stored))
}

/// Recomputes the 5-minute buckets `buckets` of a device (and each one's successor with
/// samples, and further successors while the counters' state at a bucket's end changes), then
/// their hours and days.
pub async fn recompute(
    db: &Db,
    device: i64,
    buckets: &BTreeSet<i64>,
    max_gap_ms: i64,
    offset_ms: i64,
) -> Result<(), ApiError> {
    let Some(meta) = meta(db, device).await? else {
        return Ok(());
    };
    let limits = crate::energy::limits::of_device(db, device).await?;
    let corrections = energy_store::corrections_of(db, device, meta.station_id).await?;
    let owner = Owner {
        tenant_id: &meta.tenant_id,
        station_id: meta.station_id,
        kind: &meta.kind,
    };
    let mut queue = buckets.clone();
    let mut hours = BTreeSet::new();
    let mut days = BTreeSet::new();
    while let Some(b) = queue.pop_first() {
        let pts = points(db, device, b, b + BUCKET_MS).await?;
        if pts.is_empty() {
            continue;
        }
        let prev = prev_point(db, device, b).await?;
        let (start, stored) = states_around(db, device, b, prev.as_ref()).await?;
        let mut counting = Counting::fresh(limits, &corrections);
        counting.states = start;
        let f = five_minutes(prev.as_ref(), &pts, max_gap_ms, &mut counting);
        let end = serde_json::to_string(&counting.states).ok();
        upsert(db, device, "5m", b, &meta, &f, end.clone()).await?;
        energy_store::write_events(db, device, b, &owner, &counting.events).await?;
        // The successor's first counter step and irradiance segment start from this bucket's
        // last sample; past it, only a changed counter state travels on.
        let changed = stored.is_some() && stored != end;
        if (buckets.contains(&b) || changed)
            && let Some(ts) = next_sample_at(db, device, b + BUCKET_MS).await?
        {
            queue.insert(ts.div_euclid(BUCKET_MS) * BUCKET_MS);
        }
        hours.insert(local_floor(b, HOUR_MS, offset_ms));
        days.insert(local_floor(b, DAY_MS, offset_ms));
    }
    let (touched_days, touched_hours) = (days.clone(), hours.clone());
    for (period, len, starts) in [("1h", HOUR_MS, hours), ("1d", DAY_MS, days)] {
        for start in starts {
            let mut sql = Sql::default();
            sql.push_bind(
                "SELECT samples, energy_wh, energy_import_wh, energy_export_wh, power_avg_w, power_max_w, \
                 irradiance_avg, irradiation_wh_m2, metrics FROM pv_telemetry_rollup \
                 WHERE device_id = ? AND period = '5m' AND bucket >= ? AND bucket < ? ORDER BY bucket",
                [Value::Int(device), Value::Int(start), Value::Int(start + len)],
            );
            let five: Vec<Figures> = sql
                .rows(db.pool())
                .await?
                .iter()
                .map(figures_of)
                .collect::<Result<_, _>>()?;
            if !five.is_empty() {
                upsert(db, device, period, start, &meta, &combine(&five), None).await?;
            }
        }
    }
    super::station_day::refresh(db, meta.station_id, &touched_days, &touched_hours).await
}

/// One pass: recomputes up to `limit` marked buckets that ended `delay_ms` ago. Returns how many
/// marks it took.
pub async fn run_once(
    db: &Db,
    delay_ms: i64,
    max_gap_ms: i64,
    offset_ms: i64,
    limit: i64,
) -> Result<usize, ApiError> {
    let mut sql = Sql::default();
    sql.push_bind(
        "SELECT device_id, bucket, mark FROM pv_telemetry_dirty WHERE bucket < ? ORDER BY device_id, bucket LIMIT ?",
        [Value::Int(time::now_ms() - BUCKET_MS - delay_ms), Value::Int(limit)],
    );
    let marks: Vec<(i64, i64, i64)> = sql
        .rows(db.pool())
        .await?
        .iter()
        .map(|r| Ok((r.try_get("device_id")?, r.try_get("bucket")?, r.try_get("mark")?)))
        .collect::<Result<_, sqlx::Error>>()?;
    let mut by_device: BTreeMap<i64, BTreeSet<i64>> = BTreeMap::new();
    for (d, b, _) in &marks {
        by_device.entry(*d).or_default().insert(*b);
    }
    for (device, buckets) in &by_device {
        recompute(db, *device, buckets, max_gap_ms, offset_ms).await?;
    }
    for (d, b, m) in &marks {
        let mut sql = Sql::default();
        sql.push_bind(
            "DELETE FROM pv_telemetry_dirty WHERE device_id = ? AND bucket = ? AND mark = ?",
            [Value::Int(*d), Value::Int(*b), Value::Int(*m)],
        );
        sql.execute(db.pool()).await?;
    }
    Ok(marks.len())
}

/// The configured offset in milliseconds.
pub fn offset_ms() -> i64 {
    i64::from(time::offset().local_minus_utc()) * 1000
}

/// Lock name of the rollup job (`kernel::leader`).
pub const ROLLUP_JOB: &str = "telemetry.rollup";

/// Rolls up every marked bucket that is due, in passes of `limit` marks.
pub async fn run_all(state: &Core, limit: i64) -> Result<usize, ApiError> {
    let cfg = &state.config.telemetry;
    let mut total = 0;
    loop {
        let n = run_once(
            &state.db,
            cfg.rollup_delay_seconds * 1000,
            cfg.irradiation_max_gap_seconds * 1000,
            offset_ms(),
            limit,
        )
        .await?;
        total += n;
        if n < usize::try_from(limit).unwrap_or(usize::MAX) {
            return Ok(total);
        }
    }
}

/// Runs rollups, compaction of closed hours (`compact`) and (hourly) raw retention until the process ends, each under its cluster-wide
/// lock: with several replicas, one rolls up while the others skip the pass (rollups recompute
/// from raw, so whichever replica runs a pass writes the same rows), and retention runs once an
/// hour across all of them.
pub fn spawn_worker(state: TelemetryCtx) -> Arc<tokio::sync::Notify> {
    let kick = Arc::new(tokio::sync::Notify::new());
    let k = kick.clone();
    tokio::spawn(async move {
        let cfg = state.config.telemetry.clone();
        // Whether retention is due is asked of the database at most once a minute, not on every
        // rollup pass.
        let mut next_retention_check = std::time::Instant::now();
        loop {
            tokio::select! {
                _ = tokio::time::sleep(Duration::from_millis(cfg.rollup_interval_ms)) => {}
                _ = k.notified() => {}
                _ = state.shutdown.stopping() => return,
            }
            // What is not rolled up now is rolled up after the restart (rows are marked dirty).
            let Some(_busy) = state.shutdown.pass() else {
                return;
            };
            match leader::run_exclusive(&state.db, ROLLUP_JOB, run_all(&state, 2000)).await {
                Ok(Some(Err(e))) => tracing::warn!(error = %e, "rollup pass failed; retrying later"),
                Ok(Some(Ok(_))) => {}
                Ok(None) => tracing::trace!("another replica is rolling up"),
                Err(e) => tracing::warn!(error = %e, "rollup lock; retrying later"),
            }
            if std::time::Instant::now() < next_retention_check {
                continue;
            }
            next_retention_check = std::time::Instant::now() + Duration::from_secs(60);
            match super::partition::run_due(&state).await {
                Ok(Some(Ok(n))) if n.created > 0 => {
                    tracing::info!(created = n.created, moved = n.moved, "telemetry partitions made")
                }
                Ok(Some(Ok(_))) | Ok(None) => {}
                Ok(Some(Err(e))) => tracing::warn!(error = %e, "telemetry partition upkeep failed"),
                Err(e) => tracing::warn!(error = %e, "partition upkeep lock; retrying later"),
            }
            match super::compact::run_due(&state).await {
                Ok(Some(Ok(n))) if n.samples > 0 => {
                    tracing::info!(
                        blocks = n.blocks,
                        samples = n.samples,
                        "raw telemetry packed into blocks"
                    )
                }
                Ok(Some(Ok(_))) | Ok(None) => {}
                Ok(Some(Err(e))) => tracing::warn!(error = %e, "raw compaction failed"),
                Err(e) => tracing::warn!(error = %e, "compaction lock; retrying later"),
            }
            match super::retention::run_due(&state).await {
                Ok(Some(Ok(n))) if n > 0 => tracing::info!(rows = n, "raw telemetry past retention deleted"),
                Ok(Some(Ok(_))) | Ok(None) => {}
                Ok(Some(Err(e))) => tracing::warn!(error = %e, "raw retention failed"),
                Err(e) => tracing::warn!(error = %e, "retention lock; retrying later"),
            }
        }
    });
    kick
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The 5-minute figures of a 100 kW device without corrections.
    fn five(prev: Option<&Point>, points: &[Point], max_gap_ms: i64) -> Figures {
        let none = DeviceCorrections::default();
        let mut counting = Counting::fresh(Limits { rated_w: 100_000.0 }, &none);
        five_minutes(prev, points, max_gap_ms, &mut counting)
    }

    fn p(ts_min: i64, metrics: &[(&str, f64)]) -> Point {
        Point {
            ts: ts_min * 60_000,
            values: metrics.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
        }
    }

    #[test]
    fn energy_from_counter_deltas_past_a_glitch() {
        // Bucket 00:05-00:10; the last sample before it read 1000 Wh.
        let prev = p(4, &[("energy_total", 1000.0)]);
        let pts = [
            p(5, &[("energy_total", 1010.0), ("ac_power", 100.0)]),
            p(6, &[("energy_total", 1030.0), ("ac_power", 300.0)]),
            // A momentary 0 (a glitch): not used, the baseline stays at 1030.
            p(7, &[("energy_total", 0.0), ("ac_power", 200.0)]),
            p(9, &[("energy_total", 1042.0), ("ac_power", 400.0)]),
        ];
        let none = DeviceCorrections::default();
        let mut counting = Counting::fresh(Limits { rated_w: 100_000.0 }, &none);
        let f = five_minutes(Some(&prev), &pts, 900_000, &mut counting);
        // 10 + 20 + 0 + 12
        assert_eq!(f.energy_wh, Some(42.0));
        assert_eq!(counting.events.len(), 1);
        assert_eq!(counting.events[0].0, "energy_total");
        assert_eq!(counting.events[0].1.kind, counter::Kind::Glitch);
        assert_eq!(counting.states["energy_total"].base.map(|b| b.v), Some(1042.0));
        assert_eq!(f.power_avg_w, Some(250.0));
        assert_eq!(f.power_max_w, Some(400.0));
        assert_eq!(f.samples, 4);
        assert_eq!(f.metrics["ac_power"], [250.0, 100.0, 400.0, 400.0]);
        assert_eq!(f.energy_import_wh, None);
        // With no sample before, the first reading is the baseline.
        let f = five(None, &pts, 900_000);
        assert_eq!(f.energy_wh, Some(32.0));
    }

    #[test]
    fn irradiation_by_trapezoids_without_bridging_gaps() {
        let prev = p(0, &[("irradiance_poa", 600.0)]);
        let pts = [
            p(6, &[("irradiance_poa", 800.0)]),
            // 30 minutes later: a gap, not bridged.
            p(36, &[("irradiance_poa", 1000.0)]),
            p(42, &[("irradiance_poa", 1000.0)]),
        ];
        let f = five(Some(&prev), &pts, 15 * 60_000);
        // (600+800)/2 * 0.1 h + (1000+1000)/2 * 0.1 h = 70 + 100
        let h = f.irradiation_wh_m2.unwrap();
        assert!((h - 170.0).abs() < 1e-9, "{h}");
        assert!((f.irradiance_avg.unwrap() - 2800.0 / 3.0).abs() < 1e-9);
    }

    #[test]
    fn hours_and_days_add_five_minute_rows_exactly() {
        let a = five(
            Some(&p(0, &[("energy_total", 0.0)])),
            &[p(1, &[("energy_total", 10.0), ("ac_power", 100.0)])],
            900_000,
        );
        let b = five(
            Some(&p(1, &[("energy_total", 10.0)])),
            &[
                p(6, &[("energy_total", 40.0), ("ac_power", 400.0)]),
                p(7, &[("energy_total", 50.0), ("ac_power", 100.0)]),
            ],
            900_000,
        );
        let h = combine(&[a, b]);
        assert_eq!(h.energy_wh, Some(50.0));
        assert_eq!(h.samples, 3);
        assert_eq!(h.power_avg_w, Some(200.0));
        assert_eq!(h.power_max_w, Some(400.0));
        assert_eq!(h.metrics["ac_power"], [200.0, 100.0, 400.0, 100.0]);
    }

    #[test]
    fn days_start_at_local_midnight() {
        let off = 8 * HOUR_MS;
        // 2026-01-01 17:00 UTC = 2026-01-02 01:00 +08:00 → day starts 2026-01-01 16:00 UTC.
        let ts = 1_767_286_800_000;
        assert_eq!(local_floor(ts, DAY_MS, off), 1_767_283_200_000);
        assert_eq!(local_floor(ts, HOUR_MS, off), ts);
        assert_eq!(local_floor(-1, BUCKET_MS, 0), -BUCKET_MS);
    }
}
