//! Meter reports (`/api/meterReport/reportDaily|reportMonthly|reportYearly|reportOfYears`,
//! `/api/stationMeterReport/historyMeter`): each meter of a station per slot with its energy from
//! counter deltas, the readings the slot starts and ends with, the counter resets found and the
//! hours without a reading. Formulas: `docs/reports.md`, "Meters".

use std::collections::BTreeMap;

use axum::extract::State;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::common::{StationQuery, axis_of, required_station, round};
use super::meter_readings::{self, COUNTERS, CounterLine, MeterHour, Readings};
use super::period::{TimeQuery, TimeType, local_date};
use super::store::{self, RollupRow};
use crate::analytics::data::{StationRow, hub_offset_ms};
use crate::auth::scope::Scoped;
use crate::kernel::extract::Query;
use crate::kernel::sql::{Sql, Value};
use crate::kernel::{ApiError, ApiResult, Core, Data, Envelope, Id};

const HOUR_MS: i64 = 3_600_000;

/// The date of a report whose granularity its path fixes.
#[derive(Debug, Clone, Default, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct DateQuery {
    /// yyyy-MM-dd (daily), yyyy-MM (monthly), yyyy (yearly); default the station's today.
    pub date: Option<String>,
    /// First year (reportOfYears, yyyy).
    pub start: Option<String>,
    /// Last year (reportOfYears, yyyy), included.
    pub end: Option<String>,
}

impl DateQuery {
    pub fn with(self, time_type: TimeType) -> TimeQuery {
        TimeQuery {
            time_type: Some(time_type),
            date: self.date,
            start: self.start,
            end: self.end,
        }
    }
}

#[derive(Debug, Clone, Default, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MeterCounter {
    /// kWh (kvarh for reactive counters).
    pub energy: Option<f64>,
    pub start_reading: Option<f64>,
    pub end_reading: Option<f64>,
    /// `yyyy-MM-dd HH:mm` (station clock) of the hours where the counter went down.
    pub resets: Vec<String>,
}

#[derive(Debug, Clone, Default, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MeterPoint {
    pub label: String,
    /// Hours of the slot without any reading.
    pub missing_hours: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub energy_import: Option<MeterCounter>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub energy_export: Option<MeterCounter>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reactive_energy_import: Option<MeterCounter>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reactive_energy_export: Option<MeterCounter>,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MeterRows {
    pub meter_id: Id,
    pub meter_name: String,
    pub sn: String,
    /// `meter_role` key: 1 grid, 2 generation, 3 consumption.
    pub meter_role: String,
    pub points: Vec<MeterPoint>,
    pub total: MeterPoint,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MeterReport {
    pub station_id: Id,
    pub station_name: String,
    pub title: String,
    pub time_type: TimeType,
    /// The station's UTC offset (`+13:00`): the clock its slots are cut and labelled in.
    pub utc_offset: String,
    pub meters: Vec<MeterRows>,
}

#[derive(Debug, Clone, sqlx::FromRow)]
struct MeterRow {
    id: i64,
    name: String,
    sn: String,
    meter_role: String,
}

fn hour_of(row: &RollupRow) -> MeterHour {
    let mut h = MeterHour {
        bucket: row.bucket,
        samples: row.samples,
        ..MeterHour::default()
    };
    for c in COUNTERS {
        if let (Some(min), Some(max), Some(last)) = (row.stat(c, 1), row.stat(c, 2), row.stat(c, 3)) {
            h.readings.insert(c, Readings { min, max, last });
        }
    }
    let deltas = [("energy_import", row.import_wh), ("energy_export", row.export_wh)];
    for (c, d) in deltas {
        if let Some(d) = d {
            h.deltas.insert(c, d);
        }
    }
    h
}

fn counter(line: Option<&CounterLine>, offset_ms: i64) -> Option<MeterCounter> {
    let line = line?;
    let stamp = |ms: i64| {
        let local = ms + offset_ms;
        let day = local_date(ms, offset_ms);
        let minutes = local.rem_euclid(86_400_000) / 60_000;
        format!(
            "{} {:02}:{:02}",
            day.format("%Y-%m-%d"),
            minutes / 60,
            minutes % 60
        )
    };
    Some(MeterCounter {
        energy: line.energy.map(|e| round(e, 3)),
        start_reading: line.start_reading.map(|r| round(r, 3)),
        end_reading: line.end_reading.map(|r| round(r, 3)),
        resets: line.resets.iter().map(|ms| stamp(*ms)).collect(),
    })
}

fn point(label: String, p: &meter_readings::PeriodReadings, row_hours: f64, offset_ms: i64) -> MeterPoint {
    let get = |c: &str| counter(p.counters.get(c), offset_ms);
    MeterPoint {
        label,
        missing_hours: round(p.missing_hours as f64 * row_hours, 2),
        energy_import: get("energy_import"),
        energy_export: get("energy_export"),
        reactive_energy_import: get("reactive_energy_import"),
        reactive_energy_export: get("reactive_energy_export"),
    }
}

pub(super) async fn report(
    core: &Core,
    station: &StationRow,
    q: &TimeQuery,
) -> Result<MeterReport, ApiError> {
    let axis = axis_of(q, station)?;
    let whole_hours = (station.offset_ms() - hub_offset_ms()) % HOUR_MS == 0;
    let (period, row_ms) = match axis.time_type {
        TimeType::Years => ("1d", 24 * HOUR_MS),
        _ if whole_hours => ("1h", HOUR_MS),
        _ => ("5m", 300_000),
    };
    let row_hours = row_ms as f64 / HOUR_MS as f64;
    let mut sql = Sql::default();
    // The station was resolved through the caller's scope just before.
    sql.push_bind(
        "SELECT id, name, sn, meter_role FROM pv_meter WHERE is_deleted = 0 AND station_id = ? ORDER BY meter_role, name, id",
        [Value::Int(station.id)],
    );
    let meters: Vec<MeterRow> = sql.fetch_all(core.db.pool()).await?;
    let offset = station.offset_ms();
    let mut out = Vec::new();
    for m in meters {
        let rows = store::rows(core, station.id, &[Id(m.id)], period, axis.start(), axis.end()).await?;
        let hours: Vec<MeterHour> = rows.iter().map(hour_of).collect();
        let mut before: BTreeMap<&'static str, f64> = BTreeMap::new();
        if let Some(prev) = store::last_readings(core, m.id, period, axis.start()).await? {
            for (c, r) in hour_of(&prev).readings {
                before.insert(c, r.last);
            }
        }
        let first_before = before.clone();
        let mut points = Vec::new();
        for slot in &axis.slots {
            let in_slot: Vec<&MeterHour> = hours
                .iter()
                .filter(|h| h.bucket >= slot.start && h.bucket < slot.end)
                .collect();
            let expected = (slot.end - slot.start) / row_ms;
            let p = meter_readings::period(&in_slot, expected, &before);
            for h in &in_slot {
                for (c, r) in &h.readings {
                    before.insert(c, r.last);
                }
            }
            points.push(point(slot.label.clone(), &p, row_hours, offset));
        }
        let all: Vec<&MeterHour> = hours.iter().collect();
        let expected = (axis.end() - axis.start()) / row_ms;
        let total = meter_readings::period(&all, expected, &first_before);
        out.push(MeterRows {
            meter_id: Id(m.id),
            meter_name: m.name,
            sn: m.sn,
            meter_role: m.meter_role,
            points,
            total: point("total".into(), &total, row_hours, offset),
        });
    }
    Ok(MeterReport {
        station_id: Id(station.id),
        station_name: station.name.clone(),
        title: axis.title.clone(),
        time_type: axis.time_type,
        utc_offset: station.clock().label(),
        meters: out,
    })
}

async fn scoped_report(
    core: &Core,
    scoped: &Scoped,
    station: Option<Id>,
    q: TimeQuery,
) -> ApiResult<Data<MeterReport>> {
    let id = required_station(station)?;
    let stations = store::stations(core, &scoped.stations, &[id]).await?;
    let station = stations.first().ok_or_else(ApiError::not_found)?;
    Ok(Data(report(core, station, &q).await?))
}

/// Each meter of a station by hour of a day.
#[utoipa::path(get, path = "/api/meterReport/reportDaily", tag = "report",
    params(StationQuery, DateQuery),
    responses((status = 200, body = Envelope<MeterReport>), (status = 400), (status = 404)))]
pub async fn report_daily(
    State(core): State<Core>,
    scoped: Scoped,
    Query(s): Query<StationQuery>,
    Query(d): Query<DateQuery>,
) -> ApiResult<Data<MeterReport>> {
    scoped_report(&core, &scoped, s.station_id, d.with(TimeType::Day)).await
}

/// Each meter of a station by day of a month.
#[utoipa::path(get, path = "/api/meterReport/reportMonthly", tag = "report",
    params(StationQuery, DateQuery),
    responses((status = 200, body = Envelope<MeterReport>), (status = 400), (status = 404)))]
pub async fn report_monthly(
    State(core): State<Core>,
    scoped: Scoped,
    Query(s): Query<StationQuery>,
    Query(d): Query<DateQuery>,
) -> ApiResult<Data<MeterReport>> {
    scoped_report(&core, &scoped, s.station_id, d.with(TimeType::Month)).await
}

/// Each meter of a station by month of a year.
#[utoipa::path(get, path = "/api/meterReport/reportYearly", tag = "report",
    params(StationQuery, DateQuery),
    responses((status = 200, body = Envelope<MeterReport>), (status = 400), (status = 404)))]
pub async fn report_yearly(
    State(core): State<Core>,
    scoped: Scoped,
    Query(s): Query<StationQuery>,
    Query(d): Query<DateQuery>,
) -> ApiResult<Data<MeterReport>> {
    scoped_report(&core, &scoped, s.station_id, d.with(TimeType::Year)).await
}

/// Each meter of a station by year (`start`..=`end`).
#[utoipa::path(get, path = "/api/meterReport/reportOfYears", tag = "report",
    params(StationQuery, DateQuery),
    responses((status = 200, body = Envelope<MeterReport>), (status = 400), (status = 404)))]
pub async fn report_of_years(
    State(core): State<Core>,
    scoped: Scoped,
    Query(s): Query<StationQuery>,
    Query(d): Query<DateQuery>,
) -> ApiResult<Data<MeterReport>> {
    scoped_report(&core, &scoped, s.station_id, d.with(TimeType::Years)).await
}

/// The meters' readings over any period (`type` as every report).
#[utoipa::path(get, path = "/api/stationMeterReport/historyMeter", tag = "report",
    params(StationQuery, TimeQuery),
    responses((status = 200, body = Envelope<MeterReport>), (status = 400), (status = 404)))]
pub async fn history_meter(
    State(core): State<Core>,
    scoped: Scoped,
    Query(s): Query<StationQuery>,
    Query(q): Query<TimeQuery>,
) -> ApiResult<Data<MeterReport>> {
    scoped_report(&core, &scoped, s.station_id, q).await
}
