//! What reports read: the caller's stations and their live devices, and the rollups
//! (`pv_telemetry_rollup`) summed per axis slot in the database, so a year over a hundred
//! stations moves a few thousand sums rather than every row. Reports never read raw samples, so
//! every report agrees with the charts and analytics, which read the same rows.

use std::collections::HashMap;

use sqlx::Row;

use super::period::{Axis, HOUR_MS, TimeType};
use crate::analytics::data::{self, InverterRow, StationRow, hub_offset_ms};
use crate::auth::scope::StationScope;
use crate::kernel::sql::{Sql, Value};
use crate::kernel::{ApiError, Core, Id};
use crate::telemetry::realtime::{KIND_INVERTER, KIND_METER, KIND_WEATHER};
use crate::telemetry::station_day;

pub use crate::telemetry::station_day::GRID_METER;

/// The caller's visible stations among `ids` (all visible ones when `ids` is empty). An id the
/// caller cannot see (unknown, deleted, another tenant's, not assigned) answers 404, never an
/// empty figure.
pub async fn stations(core: &Core, scope: &StationScope, ids: &[Id]) -> Result<Vec<StationRow>, ApiError> {
    let mut cond = scope.stations("s");
    if !ids.is_empty() {
        cond.push(" AND s.id IN (");
        cond.push_ids(ids);
        cond.push(")");
    }
    let rows = data::stations(core, &cond).await?;
    let mut wanted: Vec<i64> = ids.iter().map(|i| i.0).collect();
    wanted.sort_unstable();
    wanted.dedup();
    if rows.len() < wanted.len() {
        return Err(ApiError::not_found());
    }
    Ok(rows)
}

/// More station facts the bill needs.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct BillFacts {
    pub connected_type: Option<String>,
    pub contribution_way: Option<String>,
    pub feed_in_tariff: Option<f64>,
    pub grid_connection_time: Option<i64>,
}

pub async fn bill_facts(core: &Core, station: i64) -> Result<BillFacts, ApiError> {
    let mut sql = Sql::default();
    // The station was resolved through the caller's scope just before.
    sql.push_bind(
        "SELECT connected_type, contribution_way, feed_in_tariff, grid_connection_time FROM pv_station WHERE id = ?",
        [Value::Int(station)],
    );
    sql.fetch_one(core.db.pool()).await
}

/// Live devices of some stations, by kind.
#[derive(Debug, Clone, Default)]
pub struct Devices {
    pub inverters: Vec<InverterRow>,
    /// (meter id, station id) of grid-connection meters.
    pub grid_meters: Vec<(i64, i64)>,
    /// (weather station id, station id).
    pub weather: Vec<(i64, i64)>,
}

impl Devices {
    pub fn ids(&self) -> Vec<Id> {
        self.inverters
            .iter()
            .map(|i| i.id)
            .chain(self.grid_meters.iter().map(|m| m.0))
            .chain(self.weather.iter().map(|w| w.0))
            .map(Id)
            .collect()
    }
}

pub async fn devices(core: &Core, stations: &[i64]) -> Result<Devices, ApiError> {
    if stations.is_empty() {
        return Ok(Devices::default());
    }
    let ids: Vec<Id> = stations.iter().copied().map(Id).collect();
    let inverters = data::inverters(core, stations, 0).await?;
    let mut weather =
        Sql::new("SELECT id, station_id FROM pv_weather WHERE is_deleted = 0 AND station_id IN (");
    weather.push_ids(&ids);
    weather.push(") ORDER BY id");
    let mut meters = Sql::new("SELECT id, station_id FROM pv_meter WHERE is_deleted = 0 AND ");
    meters.push_bind("meter_role = ? AND station_id IN (", [Value::from(GRID_METER)]);
    meters.push_ids(&ids);
    meters.push(") ORDER BY id");
    let read = |rows: Vec<sqlx::any::AnyRow>| -> Result<Vec<(i64, i64)>, ApiError> {
        rows.iter()
            .map(|r| Ok((r.try_get::<i64, _>("id")?, r.try_get::<i64, _>("station_id")?)))
            .collect()
    };
    Ok(Devices {
        inverters,
        grid_meters: read(meters.rows(core.db.pool()).await?)?,
        weather: read(weather.rows(core.db.pool()).await?)?,
    })
}

/// The rollup period that tiles `axis` in a clock `offset_ms` ahead of UTC: hour rows for a
/// day's hours (5-minute rows for a clock off the whole hour), else what
/// [`data::energy_period`] picks for local days.
pub fn period_for(axis: &Axis, station: &StationRow) -> &'static str {
    let whole_hours = (station.offset_ms() - hub_offset_ms()) % HOUR_MS == 0;
    match axis.time_type {
        TimeType::Day if whole_hours => "1h",
        TimeType::Day => "5m",
        _ => data::energy_period(station),
    }
}

/// Sums of one device kind (or one device) over one slot.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Sums {
    pub energy_wh: Option<f64>,
    pub import_wh: Option<f64>,
    pub export_wh: Option<f64>,
    pub irradiation_wh_m2: Option<f64>,
    pub samples: i64,
}

/// Key of a sum: (station, device or 0 when summed over the kind, kind, slot).
pub type SumKey = (i64, i64, String, usize);

/// The slot expression of `axis` on `bucket`: arithmetic for equal slots (hours, days), a CASE
/// over the boundaries for months and years.
fn slot_expr(axis: &Axis, sql: &mut Sql) {
    let equal = matches!(axis.time_type, TimeType::Day | TimeType::Month | TimeType::Range);
    if equal && let Some(first) = axis.slots.first() {
        let len = first.end - first.start;
        sql.push_bind("((bucket - ?) / ?)", [Value::Int(first.start), Value::Int(len)]);
        return;
    }
    sql.push("CASE");
    for (i, s) in axis.slots.iter().enumerate() {
        sql.push_bind(" WHEN bucket < ? THEN ", [Value::Int(s.end)]);
        sql.push(&i.to_string());
    }
    sql.push(" END");
}

/// Rollup sums of `devices` (live devices of `stations`) per slot of `axis`, from rows of
/// `period`; per device when `per_device`, else per kind.
pub async fn slot_sums(
    core: &Core,
    stations: &[i64],
    devices: &[Id],
    axis: &Axis,
    period: &str,
    per_device: bool,
) -> Result<HashMap<SumKey, Sums>, ApiError> {
    let mut out = HashMap::new();
    if stations.is_empty() || devices.is_empty() || axis.slots.is_empty() {
        return Ok(out);
    }
    if period == "1d" && !per_device {
        return summary_sums(core, stations, axis).await;
    }
    let device_col = if per_device {
        "device_id"
    } else {
        "CAST(0 AS BIGINT)"
    };
    let mut sql = Sql::new(&format!(
        "SELECT station_id, {device_col} AS device, device_kind, "
    ));
    slot_expr(axis, &mut sql);
    sql.push(
        " AS slot, SUM(energy_wh) AS e, COUNT(energy_wh) AS ne, SUM(energy_import_wh) AS ei, \
         COUNT(energy_import_wh) AS nei, SUM(energy_export_wh) AS ee, COUNT(energy_export_wh) AS nee, \
         SUM(irradiation_wh_m2) AS h, COUNT(irradiation_wh_m2) AS nh, CAST(SUM(samples) AS BIGINT) AS n \
         FROM pv_telemetry_rollup WHERE station_id IN (",
    );
    sql.push_ids(&stations.iter().copied().map(Id).collect::<Vec<_>>());
    sql.push_bind(
        ") AND period = ? AND bucket >= ? AND bucket < ? AND device_id IN (",
        [
            Value::from(period),
            Value::Int(axis.start()),
            Value::Int(axis.end()),
        ],
    );
    sql.push_ids(devices);
    // A constant is no GROUP BY term (SQL reads a number there as a column position).
    let group_device = if per_device { "device_id, " } else { "" };
    sql.push(&format!(") GROUP BY station_id, {group_device}device_kind, slot"));
    for r in sql.rows(core.db.pool()).await? {
        let slot: i64 = r.try_get("slot")?;
        let Ok(slot) = usize::try_from(slot) else { continue };
        let key = (
            r.try_get::<i64, _>("station_id")?,
            r.try_get::<i64, _>("device")?,
            r.try_get::<String, _>("device_kind")?,
            slot,
        );
        out.insert(key, sums_of(&r)?);
    }
    Ok(out)
}

/// [`slot_sums`] per kind over day rows, read from the station-day summary (one row per station
/// and day instead of one per device and day): the same sums of the same rows of the stations'
/// live devices, with the figures reports read per kind (inverter energy, meter import and
/// export, weather irradiation).
async fn summary_sums(core: &Core, stations: &[i64], axis: &Axis) -> Result<HashMap<SumKey, Sums>, ApiError> {
    station_day::ensure_current(&core.db, stations).await?;
    let mut sql = Sql::new("SELECT station_id, ");
    slot_expr(axis, &mut sql);
    sql.push(
        " AS slot, CAST(SUM(inverter_rows) AS BIGINT) AS inv_rows, CAST(SUM(inverter_samples) AS BIGINT) AS inv_n, \
         SUM(energy_wh) AS e, CAST(SUM(energy_n) AS BIGINT) AS ne, \
         CAST(SUM(meter_rows) AS BIGINT) AS met_rows, CAST(SUM(meter_samples) AS BIGINT) AS met_n, \
         SUM(import_wh) AS ei, CAST(SUM(import_n) AS BIGINT) AS nei, SUM(export_wh) AS ee, \
         CAST(SUM(export_n) AS BIGINT) AS nee, CAST(SUM(weather_rows) AS BIGINT) AS wx_rows, \
         CAST(SUM(weather_samples) AS BIGINT) AS wx_n, SUM(irradiation_wh_m2) AS h, \
         CAST(SUM(irradiation_n) AS BIGINT) AS nh FROM pv_telemetry_station_day WHERE station_id IN (",
    );
    sql.push_ids(&stations.iter().copied().map(Id).collect::<Vec<_>>());
    sql.push_bind(
        ") AND bucket >= ? AND bucket < ? GROUP BY station_id, slot",
        [Value::Int(axis.start()), Value::Int(axis.end())],
    );
    let mut out = HashMap::new();
    for r in sql.rows(core.db.pool()).await? {
        let Ok(slot) = usize::try_from(r.try_get::<i64, _>("slot")?) else {
            continue;
        };
        let station: i64 = r.try_get("station_id")?;
        let opt = |sum: &str, n: &str| -> Result<Option<f64>, ApiError> {
            Ok(if r.try_get::<i64, _>(n)? > 0 {
                r.try_get::<Option<f64>, _>(sum)?
            } else {
                None
            })
        };
        let kinds = [
            (KIND_INVERTER, "inv_rows", "inv_n"),
            (KIND_METER, "met_rows", "met_n"),
            (KIND_WEATHER, "wx_rows", "wx_n"),
        ];
        for (kind, rows, samples) in kinds {
            if r.try_get::<i64, _>(rows)? == 0 {
                continue;
            }
            let mut sums = Sums {
                samples: r.try_get(samples)?,
                ..Sums::default()
            };
            match kind {
                KIND_INVERTER => sums.energy_wh = opt("e", "ne")?,
                KIND_METER => {
                    sums.import_wh = opt("ei", "nei")?;
                    sums.export_wh = opt("ee", "nee")?;
                }
                _ => sums.irradiation_wh_m2 = opt("h", "nh")?,
            }
            out.insert((station, 0, kind.to_owned(), slot), sums);
        }
    }
    Ok(out)
}

/// One rollup row with its metrics, for figures that need more than the sums (module
/// temperature, counter readings).
#[derive(Debug, Clone)]
pub struct RollupRow {
    pub device_id: i64,
    pub device_kind: String,
    pub bucket: i64,
    pub samples: i64,
    pub energy_wh: Option<f64>,
    pub import_wh: Option<f64>,
    pub export_wh: Option<f64>,
    pub irradiation_wh_m2: Option<f64>,
    pub irradiance_avg: Option<f64>,
    pub metrics: serde_json::Value,
}

impl RollupRow {
    /// `[avg, min, max, last]` of a metric in this row.
    pub fn stat(&self, metric: &str, i: usize) -> Option<f64> {
        self.metrics
            .get(metric)?
            .get(i)?
            .as_f64()
            .filter(|v| v.is_finite())
    }
}

/// Rows of `period` of `devices` of one station within `[from, to)`, by bucket.
pub async fn rows(
    core: &Core,
    station: i64,
    devices: &[Id],
    period: &str,
    from: i64,
    to: i64,
) -> Result<Vec<RollupRow>, ApiError> {
    if devices.is_empty() {
        return Ok(vec![]);
    }
    let mut sql = Sql::default();
    sql.push_bind(
        "SELECT device_id, device_kind, bucket, samples, energy_wh, energy_import_wh, energy_export_wh, \
         irradiation_wh_m2, irradiance_avg, metrics FROM pv_telemetry_rollup \
         WHERE station_id = ? AND period = ? AND bucket >= ? AND bucket < ? AND device_id IN (",
        [
            Value::Int(station),
            Value::from(period),
            Value::Int(from),
            Value::Int(to),
        ],
    );
    sql.push_ids(devices);
    sql.push(") ORDER BY bucket, device_id");
    let mut out = Vec::new();
    for r in sql.rows(core.db.pool()).await? {
        let metrics: String = r.try_get("metrics")?;
        out.push(RollupRow {
            device_id: r.try_get("device_id")?,
            device_kind: r.try_get("device_kind")?,
            bucket: r.try_get("bucket")?,
            samples: r.try_get("samples")?,
            energy_wh: r.try_get("energy_wh")?,
            import_wh: r.try_get("energy_import_wh")?,
            export_wh: r.try_get("energy_export_wh")?,
            irradiation_wh_m2: r.try_get("irradiation_wh_m2")?,
            irradiance_avg: r.try_get("irradiance_avg")?,
            // A row whose JSON does not parse has no metrics rather than failing the report.
            metrics: serde_json::from_str(&metrics).unwrap_or(serde_json::Value::Null),
        });
    }
    Ok(out)
}

/// The last reading of each of `metrics` of `device` before `before` (from its newest earlier
/// rollup row carrying it), to see a counter reset at a period's first hour.
pub async fn last_readings(
    core: &Core,
    device: i64,
    period: &str,
    before: i64,
) -> Result<Option<RollupRow>, ApiError> {
    let mut sql = Sql::default();
    sql.push_bind(
        "SELECT bucket FROM pv_telemetry_rollup WHERE device_id = ? AND period = ? AND bucket < ? \
         ORDER BY bucket DESC LIMIT 1",
        [Value::Int(device), Value::from(period), Value::Int(before)],
    );
    let Some(bucket) = sql.scalar_optional::<i64, _>(core.db.pool()).await? else {
        return Ok(None);
    };
    let mut sql = Sql::default();
    sql.push_bind(
        "SELECT station_id FROM pv_telemetry_rollup WHERE device_id = ? AND period = ? AND bucket = ?",
        [Value::Int(device), Value::from(period), Value::Int(bucket)],
    );
    let station: i64 = sql.scalar(core.db.pool()).await?;
    Ok(rows(core, station, &[Id(device)], period, bucket, bucket + 1)
        .await?
        .into_iter()
        .next())
}

/// Per bucket and device kind: the sums of `devices` of one station within `[from, to)` on rows
/// of `period`, by bucket (the bill's intervals).
pub async fn bucket_sums(
    core: &Core,
    station: i64,
    devices: &[Id],
    period: &str,
    from: i64,
    to: i64,
) -> Result<Vec<(i64, String, Sums)>, ApiError> {
    if devices.is_empty() {
        return Ok(vec![]);
    }
    let mut sql = Sql::default();
    sql.push_bind(
        "SELECT bucket, device_kind, SUM(energy_wh) AS e, COUNT(energy_wh) AS ne, \
         SUM(energy_import_wh) AS ei, COUNT(energy_import_wh) AS nei, SUM(energy_export_wh) AS ee, \
         COUNT(energy_export_wh) AS nee, SUM(irradiation_wh_m2) AS h, COUNT(irradiation_wh_m2) AS nh, \
         CAST(SUM(samples) AS BIGINT) AS n FROM pv_telemetry_rollup \
         WHERE station_id = ? AND period = ? AND bucket >= ? AND bucket < ? AND device_id IN (",
        [
            Value::Int(station),
            Value::from(period),
            Value::Int(from),
            Value::Int(to),
        ],
    );
    sql.push_ids(devices);
    sql.push(") GROUP BY bucket, device_kind ORDER BY bucket");
    let mut out = Vec::new();
    for r in sql.rows(core.db.pool()).await? {
        out.push((
            r.try_get::<i64, _>("bucket")?,
            r.try_get::<String, _>("device_kind")?,
            sums_of(&r)?,
        ));
    }
    Ok(out)
}

fn sums_of(r: &sqlx::any::AnyRow) -> Result<Sums, ApiError> {
    let opt = |sum: &str, n: &str| -> Result<Option<f64>, ApiError> {
        let count: i64 = r.try_get(n)?;
        Ok(if count > 0 {
            r.try_get::<Option<f64>, _>(sum)?
        } else {
            None
        })
    };
    Ok(Sums {
        energy_wh: opt("e", "ne")?,
        import_wh: opt("ei", "nei")?,
        export_wh: opt("ee", "nee")?,
        irradiation_wh_m2: opt("h", "nh")?,
        samples: r.try_get::<Option<i64>, _>("n")?.unwrap_or(0),
    })
}
