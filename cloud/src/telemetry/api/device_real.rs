//! Weather stations and meters live (`/api/deviceReal/...`), for the station overview and their
//! device pages: each device's newest values with their labels and units, a value outside its
//! plausible range marked (`plausible: false`, never shown as good), and day curves of chosen
//! metrics (5-minute means, see `telemetry::api::curve`).

use std::collections::HashMap;

use axum::extract::State;
use pv_shared::metrics;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::curve;
use super::inverter_real::display_unit;
use super::{Day, round, station_clock};
use crate::auth::scope::{Scoped, StationScope};
use crate::kernel::extract::Query;
use crate::kernel::lang::{Lang, Text};
use crate::kernel::sql::{Sql, Value};
use crate::kernel::{ApiError, ApiResult, Core, Data, Envelope, Id, time};
use crate::telemetry::context::TelemetryCtx;
use crate::telemetry::realtime::{KIND_METER, KIND_WEATHER};

/// The metrics shown per kind, in display order, with their labels.
const WEATHER: &[(&str, &str, &str)] = &[
    ("irradiance_poa", "斜面辐照度", "Plane-of-array irradiance"),
    ("irradiance_ghi", "水平辐照度", "Horizontal irradiance"),
    ("irradiance_dni", "直射辐照度", "Direct normal irradiance"),
    ("irradiance_diffuse", "散射辐照度", "Diffuse irradiance"),
    ("irradiation_today", "当日辐照量", "Irradiation today"),
    ("ambient_temperature", "环境温度", "Ambient temperature"),
    ("module_temperature", "组件温度", "Module temperature"),
];
const METER: &[(&str, &str, &str)] = &[
    ("ac_power", "有功功率", "Active power"),
    ("ac_reactive_power", "无功功率", "Reactive power"),
    ("power_factor", "功率因数", "Power factor"),
    ("grid_frequency", "电网频率", "Grid frequency"),
    ("grid_voltage", "电压", "Voltage"),
    ("grid_voltage_a", "A相电压", "Phase A voltage"),
    ("grid_voltage_b", "B相电压", "Phase B voltage"),
    ("grid_voltage_c", "C相电压", "Phase C voltage"),
    ("ac_current", "电流", "Current"),
    ("energy_import", "正向有功电量", "Energy imported"),
    ("energy_export", "反向有功电量", "Energy exported"),
    (
        "reactive_energy_import",
        "正向无功电量",
        "Reactive energy imported",
    ),
    (
        "reactive_energy_export",
        "反向无功电量",
        "Reactive energy exported",
    ),
];

fn catalogue(kind: &str) -> &'static [(&'static str, &'static str, &'static str)] {
    if kind == KIND_WEATHER { WEATHER } else { METER }
}

fn label(kind: &str, name: &str) -> Option<String> {
    catalogue(kind)
        .iter()
        .find(|(n, ..)| *n == name)
        .map(|(_, zh, en)| {
            let t = Text::new(zh, en);
            match Lang::current() {
                Lang::Zh => t.zh.to_string(),
                Lang::En => t.en.to_string(),
            }
        })
}

#[derive(Debug, Clone, Default, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct DeviceQuery {
    /// The station (404 when the caller cannot see it).
    pub station_id: Option<Id>,
    /// `weather` or `meter`; both when absent.
    pub kind: Option<String>,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LiveValue {
    pub name: String,
    pub label: String,
    pub unit: String,
    pub value: f64,
    /// `false` when the value is outside the metric's physical range (a sensor or decoding
    /// fault): the console shows it marked.
    pub plausible: bool,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DeviceReal {
    pub id: Id,
    pub name: String,
    pub sn: String,
    /// `weather` or `meter`.
    pub kind: String,
    /// Meters: `meter_role` key (1 grid, 2 generation, 3 consumption).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub meter_role: Option<String>,
    pub online: bool,
    /// Newest sample, `yyyy-MM-dd HH:mm:ss`; absent when it never reported.
    pub update_time: Option<String>,
    /// The kind's metrics the device reported, in display order.
    pub values: Vec<LiveValue>,
}

#[derive(Debug, sqlx::FromRow)]
struct Registered {
    id: i64,
    name: String,
    sn: String,
    kind: String,
    meter_role: Option<String>,
}

async fn registered(
    core: &Core,
    scope: &StationScope,
    station: Id,
    kind: Option<&str>,
) -> Result<Vec<Registered>, ApiError> {
    let mut stations = Sql::new("SELECT s.id FROM pv_station s WHERE ");
    stations.append(&scope.stations("s"));
    stations.push_bind(" AND s.id = ?", [Value::Int(station.0)]);
    if stations
        .scalar_optional::<i64, _>(core.db.pool())
        .await?
        .is_none()
    {
        return Err(ApiError::not_found());
    }
    let mut sql = Sql::default();
    let weather = kind.is_none_or(|k| k == KIND_WEATHER);
    let meter = kind.is_none_or(|k| k == KIND_METER);
    // The station was checked against the caller's scope just above.
    sql.push_bind(
        "SELECT id, name, sn, 'weather' AS kind, CAST(NULL AS VARCHAR(20)) AS meter_role FROM pv_weather \
         WHERE is_deleted = 0 AND station_id = ? AND 1 = ? \
         UNION ALL SELECT id, name, sn, 'meter' AS kind, meter_role FROM pv_meter \
         WHERE is_deleted = 0 AND station_id = ? AND 1 = ? ORDER BY kind DESC, name, id",
        [
            Value::Int(station.0),
            Value::Int(i64::from(weather)),
            Value::Int(station.0),
            Value::Int(i64::from(meter)),
        ],
    );
    sql.fetch_all(core.db.pool()).await
}

fn check_kind(kind: Option<&str>) -> Result<Option<&str>, ApiError> {
    match kind.map(str::trim).filter(|k| !k.is_empty()) {
        None => Ok(None),
        Some(k) if k == KIND_WEATHER || k == KIND_METER => Ok(Some(k)),
        Some(k) => Err(ApiError::bad_request(
            format!("设备类型无效：{k}（应为weather或meter）"),
            format!("Invalid device kind {k} (expected weather or meter)"),
        )),
    }
}

/// The station's weather stations and meters with their newest values.
#[utoipa::path(get, path = "/api/deviceReal/list", tag = "realtime",
    params(DeviceQuery),
    responses((status = 200, body = Envelope<Vec<DeviceReal>>), (status = 400), (status = 404)))]
pub async fn list(
    State(state): State<TelemetryCtx>,
    Scoped { stations: scope, .. }: Scoped,
    Query(q): Query<DeviceQuery>,
) -> ApiResult<Data<Vec<DeviceReal>>> {
    let station = q
        .station_id
        .ok_or_else(|| ApiError::bad_request("请选择电站", "Please choose a station"))?;
    let kind = check_kind(q.kind.as_deref())?;
    let devices = registered(&state, &scope, station, kind).await?;
    let mut out = Vec::new();
    for d in devices {
        let live = state
            .realtime
            .device(d.id)
            .filter(|l| l.tenant_id == scope.tenant_id && l.station_id == station.0 && l.kind == d.kind);
        let mut values = Vec::new();
        if let Some(l) = &live {
            for (name, ..) in catalogue(&d.kind) {
                // A value the gateway (or ingest) marked is shown, marked, in place of none.
                let (v, marked) = match (l.number(name), l.suspect.get(*name)) {
                    (Some(v), _) => (v, false),
                    (None, Some(pv_shared::wire::Value::Number(v))) => (*v, true),
                    _ => continue,
                };
                let (unit, factor) = display_unit(name).unwrap_or_else(|| ("".into(), 1.0));
                values.push(LiveValue {
                    name: (*name).to_owned(),
                    label: label(&d.kind, name).unwrap_or_else(|| (*name).to_owned()),
                    unit,
                    value: round(v * factor, 4),
                    plausible: !marked && metrics::plausible(name, v),
                });
            }
        }
        out.push(DeviceReal {
            id: Id(d.id),
            name: d.name,
            sn: d.sn,
            kind: d.kind,
            meter_role: d.meter_role,
            online: live.as_ref().is_some_and(|l| l.online),
            update_time: live.as_ref().map(|l| time::format_ms(l.ts)),
            values,
        });
    }
    Ok(Data(out))
}

#[derive(Debug, Clone, Default, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct CurveQuery {
    pub station_id: Option<Id>,
    /// A weather station or meter of that station.
    pub device_id: Option<Id>,
    /// Comma-joined metric names of the device's kind (at most 10).
    pub names: Option<String>,
    /// yyyy-MM-dd, default today.
    pub date: Option<String>,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DeviceSeries {
    pub name: String,
    pub label: String,
    pub unit: String,
    /// `[time, value]` pairs: 5-minute bucket start (`yyyy-MM-dd HH:mm:ss`) and mean.
    #[schema(value_type = Vec<Vec<serde_json::Value>>)]
    pub points: Vec<(String, f64)>,
    /// Buckets whose mean is outside the metric's plausible range.
    pub implausible_points: usize,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DeviceCurves {
    pub device_id: Id,
    /// The day, `yyyy-MM-dd`, in the station's clock; the points' times too.
    pub date: String,
    /// The station's UTC offset (`+13:00`) every time of this answer is in.
    pub utc_offset: String,
    pub series: Vec<DeviceSeries>,
}

/// Day curves of a weather station's or meter's metrics.
#[utoipa::path(get, path = "/api/deviceReal/curve", tag = "realtime",
    params(CurveQuery),
    responses((status = 200, body = Envelope<DeviceCurves>), (status = 400), (status = 404)))]
pub async fn curve(
    State(state): State<TelemetryCtx>,
    Scoped { stations: scope, .. }: Scoped,
    Query(q): Query<CurveQuery>,
) -> ApiResult<Data<DeviceCurves>> {
    let (Some(station), Some(device)) = (q.station_id, q.device_id) else {
        return Err(ApiError::bad_request(
            "请选择电站和设备",
            "Please choose a station and a device",
        ));
    };
    let devices = registered(&state, &scope, station, None).await?;
    let d = devices
        .iter()
        .find(|d| d.id == device.0)
        .ok_or_else(ApiError::not_found)?;
    let mut names: Vec<String> = match q.names.as_deref().map(str::trim).filter(|n| !n.is_empty()) {
        Some(n) => n
            .split(',')
            .map(|s| s.trim().to_owned())
            .filter(|s| !s.is_empty())
            .collect(),
        None => catalogue(&d.kind)
            .iter()
            .take(3)
            .map(|(n, ..)| (*n).to_owned())
            .collect(),
    };
    names.dedup();
    if names.len() > 10 {
        return Err(ApiError::bad_request(
            "最多选择10个测点",
            "At most 10 metrics at a time",
        ));
    }
    for n in &names {
        if label(&d.kind, n).is_none() {
            return Err(ApiError::bad_request(
                format!("不支持的测点：{n}"),
                format!("Unknown metric {n}"),
            ));
        }
    }
    let day = Day::parse_in(q.date.as_deref(), station_clock(&state, station.0).await?)?;
    let curves = curve::day_curves(&state, &scope.tenant_id, &[d.id], &names, &day).await?;
    let empty = Vec::new();
    let by: HashMap<&str, &Vec<(i64, f64)>> = names
        .iter()
        .map(|n| (n.as_str(), curves.get(&(d.id, n.clone())).unwrap_or(&empty)))
        .collect();
    let series = names
        .iter()
        .map(|n| {
            let (unit, factor) = display_unit(n).unwrap_or_else(|| ("".into(), 1.0));
            let pts = by.get(n.as_str()).copied().unwrap_or(&empty);
            DeviceSeries {
                name: n.clone(),
                label: label(&d.kind, n).unwrap_or_else(|| n.clone()),
                unit,
                implausible_points: pts.iter().filter(|(_, v)| !metrics::plausible(n, *v)).count(),
                points: pts
                    .iter()
                    .map(|(t, v)| (day.format_ms(*t), round(v * factor, 4)))
                    .collect(),
            }
        })
        .collect();
    Ok(Data(DeviceCurves {
        device_id: device,
        date: day.date.format("%Y-%m-%d").to_string(),
        utc_offset: day.clock.label(),
        series,
    }))
}
