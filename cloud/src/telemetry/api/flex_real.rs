//! Flexible brackets (trackers) live: `/api/FlexData/realTimeData` (each bracket of the caller's
//! stations with its controller's values and its sensors') and `/api/FlexReal/dataBySensor` (a
//! sensor's day curve).
//!
//! Where a sensor's values come from: the gateway polls only the bracket's controller (the
//! `pv_flex` row; its generated edge config names it by SN, so its telemetry `device_id` is the
//! `pv_flex` id) and the controller reports its sensors' readings as metrics of its own sample
//! (the reference tracker map: `tracker_angle`, `tracker_target_angle`, `tracker_mode`,
//! `tracker_stow`, `motor_current`, `wind_speed`). A sensor is therefore a *view* on one metric of
//! the controller's sample ([`sensor_metric`]):
//! - its `point`, when that names a metric of the vocabulary (`shared/src/metrics.rs`), e.g.
//!   `wind_speed`;
//! - else the metric of its kind: angle → `tracker_angle`, wind → `wind_speed`, motor →
//!   `motor_current`, irradiance → `irradiance_poa`, temperature → `ambient_temperature`;
//!   `other` without a vocabulary point has no value.
//!
//! A sensor's `unitId` is where it sits on the controller's own bus; it is not polled separately.

use std::collections::HashMap;

use axum::extract::{RawQuery, State};
use serde::Serialize;
use sqlx::Row;
use utoipa::ToSchema;

use super::curve::{self, BUCKET_MS};
use super::inverter_real::display_unit;
use super::{Day, Params, round};
use crate::auth::scope::Scoped;
use crate::auth::scope::StationScope;
use crate::kernel::Core;
use crate::kernel::clock::SiteClock;
use crate::kernel::lang::Text;
use crate::kernel::sql::{Sql, Value};
use crate::kernel::{ApiError, ApiResult, Data, Envelope, Id, time};
use crate::telemetry::context::TelemetryCtx;
use crate::telemetry::realtime::{DeviceLive, KIND_FLEX};

/// The metric a sensor shows (see the module comment).
pub fn sensor_metric(kind: &str, point: Option<&str>) -> Option<String> {
    if let Some(p) = point
        .map(str::trim)
        .filter(|p| pv_shared::metrics::lookup(p).is_some())
    {
        return Some(p.to_owned());
    }
    let metric = match kind {
        "angle" => "tracker_angle",
        "wind" => "wind_speed",
        "motor" => "motor_current",
        "irradiance" => "irradiance_poa",
        "temperature" => "ambient_temperature",
        _ => return None,
    };
    Some(metric.to_owned())
}

/// Labels of the metrics brackets chart; others fall back on the vocabulary's description.
fn metric_label(metric: &str) -> Text {
    let known: &[(&str, &str, &str)] = &[
        ("tracker_angle", "实际角度", "Angle"),
        ("tracker_target_angle", "目标角度", "Target angle"),
        ("wind_speed", "风速", "Wind speed"),
        ("motor_current", "电机电流", "Motor current"),
        ("irradiance_poa", "辐照度", "Irradiance"),
        ("ambient_temperature", "环境温度", "Ambient temperature"),
        ("module_temperature", "组件温度", "Module temperature"),
    ];
    match known.iter().find(|(m, _, _)| *m == metric) {
        Some((_, zh, en)) => Text::new(zh, en),
        None => {
            let d = pv_shared::metrics::lookup(metric).map_or(metric, |m| m.def.description);
            Text::owned(d, d)
        }
    }
}

/// `tracker_mode` codes of the platform's reference tracker layout
/// (`firmware-configs/pv-reference-tracker.toml`).
fn mode_name(code: f64) -> Option<Text> {
    Some(match code as i64 {
        0 => Text::new("自动", "Auto"),
        1 => Text::new("手动", "Manual"),
        2 => Text::new("保护", "Stow"),
        3 => Text::new("维护", "Maintenance"),
        _ => return None,
    })
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SensorReal {
    pub id: Id,
    pub name: String,
    /// angle, wind, motor, irradiance, temperature or other.
    pub kind: String,
    pub unit_id: Option<i64>,
    pub point: Option<String>,
    /// The controller metric this sensor shows; null when none is defined.
    pub metric: Option<String>,
    /// Current value in `unit`; null when not reported.
    pub value: Option<f64>,
    pub unit: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FlexReal {
    pub station_id: Id,
    pub station_name: String,
    pub flex_id: Id,
    pub name: String,
    pub sn: String,
    /// The controller is communicating.
    pub online: bool,
    /// Sample time, `yyyy-MM-dd HH:mm:ss`; null when never reported.
    pub update_time: Option<String>,
    /// Measured tilt, degrees (+ = west) (`tracker_angle`).
    pub angle: Option<f64>,
    /// Set-point tilt, degrees (`tracker_target_angle`).
    pub target_angle: Option<f64>,
    /// Operating mode code (`tracker_mode`; reference layout 0 auto, 1 manual, 2 stow, 3 maintenance).
    pub mode: Option<f64>,
    /// The mode's name in the request's language, for the reference layout's codes.
    pub mode_name: Option<String>,
    /// In wind/snow stow (`tracker_stow` = 1).
    pub stow: Option<bool>,
    /// Wind speed, m/s (`wind_speed`).
    pub wind_speed: Option<f64>,
    /// Drive motor current, A (`motor_current`).
    pub motor_current: Option<f64>,
    /// Controller state code (`status_code`).
    pub status_code: Option<f64>,
    /// Fault bit field (`fault_word1`); 0 = none.
    pub fault_word: Option<f64>,
    pub sensors: Vec<SensorReal>,
}

struct Bracket {
    id: i64,
    station_id: i64,
    station_name: String,
    name: String,
    sn: String,
}

struct SensorRow {
    id: i64,
    flex_id: i64,
    name: String,
    kind: String,
    unit_id: Option<i64>,
    point: Option<String>,
}

async fn brackets(state: &Core, scope: &StationScope, station: Option<Id>) -> Result<Vec<Bracket>, ApiError> {
    let mut sql = Sql::new(
        "SELECT f.id, f.station_id, s.name AS station_name, f.name, f.sn FROM pv_flex f \
         JOIN pv_station s ON s.id = f.station_id WHERE f.is_deleted = 0 AND ",
    );
    sql.append(&scope.stations("s"));
    if let Some(st) = station {
        sql.push_bind(" AND f.station_id = ?", [Value::Int(st.0)]);
    }
    sql.push(" ORDER BY s.name, s.id, f.id");
    sql.rows(state.db.pool())
        .await?
        .iter()
        .map(|r| {
            Ok(Bracket {
                id: r.try_get("id")?,
                station_id: r.try_get("station_id")?,
                station_name: r.try_get("station_name")?,
                name: r.try_get("name")?,
                sn: r.try_get("sn")?,
            })
        })
        .collect()
}

fn sensor_of(r: &sqlx::any::AnyRow) -> Result<SensorRow, ApiError> {
    Ok(SensorRow {
        id: r.try_get("id")?,
        flex_id: r.try_get("flex_id")?,
        name: r.try_get("name")?,
        kind: r.try_get("sensor_kind")?,
        unit_id: r.try_get("unit_id")?,
        point: r.try_get("point")?,
    })
}

/// The view's sample of a bracket's controller (same tenant and station, flex kind).
fn live_of(state: &TelemetryCtx, tenant: &str, b: &Bracket) -> Option<DeviceLive> {
    state
        .realtime
        .device(b.id)
        .filter(|d| d.tenant_id == tenant && d.station_id == b.station_id && d.kind == KIND_FLEX)
}

fn scaled(metric: &str, v: f64) -> (Option<String>, f64) {
    match display_unit(metric) {
        Some((unit, factor)) => (Some(unit), round(v * factor, 4)),
        None => (None, v),
    }
}

/// The brackets of the caller's stations (or of `stationId`) with their controller's live
/// values and each sensor's current value.
#[utoipa::path(get, path = "/api/FlexData/realTimeData", tag = "realtime",
    params(("stationId" = Option<String>, Query, description = "only this station's bracket")),
    responses((status = 200, body = Envelope<Vec<FlexReal>>), (status = 400), (status = 401)))]
pub async fn real_time_data(
    State(state): State<TelemetryCtx>,
    Scoped { stations: scope, .. }: Scoped,
    RawQuery(query): RawQuery,
) -> ApiResult<Data<Vec<FlexReal>>> {
    let p = Params::from_parts(query.as_deref(), b"")?;
    let list = brackets(&state, &scope, p.id("stationId")?).await?;
    let mut sensors: HashMap<i64, Vec<SensorRow>> = HashMap::new();
    if !list.is_empty() {
        let mut sql = Sql::new(
            "SELECT id, flex_id, name, sensor_kind, unit_id, point FROM pv_flex_sensor WHERE flex_id IN (",
        );
        for (i, b) in list.iter().enumerate() {
            sql.push_bind(if i == 0 { "?" } else { ", ?" }, [Value::Int(b.id)]);
        }
        sql.push(") ORDER BY flex_id, sort, id");
        for r in sql.rows(state.db.pool()).await? {
            let s = sensor_of(&r)?;
            sensors.entry(s.flex_id).or_default().push(s);
        }
    }
    let out = list
        .iter()
        .map(|b| {
            let live = live_of(&state, &scope.tenant_id, b);
            let n = |m: &str| live.as_ref().and_then(|d| d.number(m));
            let mode = n("tracker_mode");
            FlexReal {
                station_id: Id(b.station_id),
                station_name: b.station_name.clone(),
                flex_id: Id(b.id),
                name: b.name.clone(),
                sn: b.sn.clone(),
                online: live.as_ref().is_some_and(|d| d.online),
                update_time: live.as_ref().map(|d| time::format_ms(d.ts)),
                angle: n("tracker_angle"),
                target_angle: n("tracker_target_angle"),
                mode,
                mode_name: mode.and_then(mode_name).map(|t| t.render()),
                stow: n("tracker_stow").map(|v| v != 0.0),
                wind_speed: n("wind_speed"),
                motor_current: n("motor_current"),
                status_code: n("status_code"),
                fault_word: n("fault_word1"),
                sensors: sensors
                    .remove(&b.id)
                    .unwrap_or_default()
                    .into_iter()
                    .map(|s| {
                        let metric = sensor_metric(&s.kind, s.point.as_deref());
                        let (unit, value) = match metric.as_deref() {
                            Some(m) => match n(m) {
                                Some(v) => {
                                    let (unit, v) = scaled(m, v);
                                    (unit, Some(v))
                                }
                                None => (display_unit(m).map(|u| u.0), None),
                            },
                            None => (None, None),
                        };
                        SensorReal {
                            id: Id(s.id),
                            name: s.name,
                            kind: s.kind,
                            unit_id: s.unit_id,
                            point: s.point,
                            metric,
                            value,
                            unit,
                        }
                    })
                    .collect(),
            }
        })
        .collect();
    Ok(Data(out))
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SensorSeries {
    /// Metric name.
    pub name: String,
    pub label: String,
    pub unit: Option<String>,
    /// `[time, value]` pairs, 5-minute means (see `listWaveTag`).
    #[schema(value_type = Vec<Vec<serde_json::Value>>)]
    pub points: Vec<(String, f64)>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SensorDay {
    pub sensor_id: Id,
    pub sensor_name: String,
    pub kind: String,
    pub flex_id: Id,
    pub station_id: Id,
    pub station_name: String,
    /// The day, `yyyy-MM-dd`; `[start, end)` midnight to midnight, in the station's clock.
    pub date: String,
    pub start: String,
    pub end: String,
    /// The station's UTC offset (`+13:00`) every time of this answer is in.
    pub utc_offset: String,
    pub interval_minutes: i64,
    /// The sensor's metric; an angle sensor also gets the target angle. Empty when the sensor
    /// shows no metric.
    pub series: Vec<SensorSeries>,
}

/// A sensor's curve for a day (`sensorId`; `date` `yyyy-MM-dd`, default today): 5-minute means
/// of its metric from the bracket controller's telemetry, in the station's clock.
#[utoipa::path(get, path = "/api/FlexReal/dataBySensor", tag = "realtime",
    params(("sensorId" = String, Query), ("date" = Option<String>, Query, description = "yyyy-MM-dd, default today")),
    responses((status = 200, body = Envelope<SensorDay>), (status = 400), (status = 401), (status = 404)))]
pub async fn data_by_sensor(
    State(state): State<TelemetryCtx>,
    Scoped { stations: scope, .. }: Scoped,
    RawQuery(query): RawQuery,
) -> ApiResult<Data<SensorDay>> {
    let p = Params::from_parts(query.as_deref(), b"")?;
    let sensor_id = p
        .id("sensorId")?
        .ok_or_else(|| ApiError::bad_request("请选择传感器", "Choose the sensor (sensorId)"))?;
    let date = p.text("date");
    let mut sql = Sql::new(
        "SELECT x.id, x.flex_id, x.name, x.sensor_kind, x.unit_id, x.point, s.id AS station_id, \
         s.name AS station_name, s.utc_offset_minutes FROM pv_flex_sensor x JOIN pv_flex f ON f.id = x.flex_id \
         JOIN pv_station s ON s.id = f.station_id WHERE f.is_deleted = 0 AND ",
    );
    sql.append(&scope.stations("s"));
    sql.push_bind(" AND x.id = ?", [Value::Int(sensor_id.0)]);
    let row = sql.row(state.db.pool()).await?.ok_or_else(ApiError::not_found)?;
    let sensor = sensor_of(&row)?;
    let clock = SiteClock::of(row.try_get::<Option<i64>, _>("utc_offset_minutes")?);
    let day = Day::parse_in(date.as_deref(), clock)?;
    let mut metrics: Vec<String> = sensor_metric(&sensor.kind, sensor.point.as_deref())
        .into_iter()
        .collect();
    if metrics.first().is_some_and(|m| m == "tracker_angle") {
        metrics.push("tracker_target_angle".into());
    }
    let curves = curve::day_curves(&state, &scope.tenant_id, &[sensor.flex_id], &metrics, &day).await?;
    let series = metrics
        .iter()
        .map(|m| {
            let unit = display_unit(m);
            let factor = unit.as_ref().map_or(1.0, |u| u.1);
            SensorSeries {
                name: m.clone(),
                label: metric_label(m).render(),
                unit: unit.map(|u| u.0),
                points: curves
                    .get(&(sensor.flex_id, m.clone()))
                    .map(|pts| {
                        pts.iter()
                            .map(|(t, v)| (day.format_ms(*t), round(v * factor, 4)))
                            .collect()
                    })
                    .unwrap_or_default(),
            }
        })
        .collect();
    Ok(Data(SensorDay {
        sensor_id: Id(sensor.id),
        sensor_name: sensor.name,
        kind: sensor.kind,
        flex_id: Id(sensor.flex_id),
        station_id: Id(row.try_get::<i64, _>("station_id")?),
        station_name: row.try_get("station_name")?,
        date: day.date.to_string(),
        start: day.format_ms(day.start),
        end: day.format_ms(day.end),
        utc_offset: clock.label(),
        interval_minutes: BUCKET_MS / 60_000,
        series,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sensors_map_to_a_point_of_the_vocabulary_or_their_kind() {
        assert_eq!(
            sensor_metric("wind", Some("wind_speed")).as_deref(),
            Some("wind_speed")
        );
        assert_eq!(sensor_metric("angle", None).as_deref(), Some("tracker_angle"));
        assert_eq!(
            sensor_metric("angle", Some("40001")).as_deref(),
            Some("tracker_angle"),
            "a register address is no metric"
        );
        assert_eq!(
            sensor_metric("other", Some("module_temperature")).as_deref(),
            Some("module_temperature")
        );
        assert_eq!(sensor_metric("other", Some("x")), None);
        assert_eq!(
            sensor_metric("temperature", None).as_deref(),
            Some("ambient_temperature")
        );
        assert_eq!(mode_name(2.0).unwrap().en, "Stow");
        assert!(mode_name(9.0).is_none());
    }
}
