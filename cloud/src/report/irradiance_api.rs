//! Insolation reports (`/api/report/irradiance/list`, `/irradiance/mulitiple/list` — the
//! second path keeps the misspelling consoles of this family call): the irradiation a station's
//! weather station measured per slot, in the plane of array where it measures it and on the
//! horizontal where it measures that, with the peak irradiance. Formulas: `docs/reports.md`,
//! "Irradiation".

use axum::extract::State;
use serde::Serialize;
use utoipa::ToSchema;

use super::common::{StationQuery, StationsQuery, axis_of, id_list, kwh, required_station, round};
use super::period::{TimeQuery, TimeType};
use super::store;
use crate::auth::scope::{Scoped, StationScope};
use crate::kernel::extract::Query;
use crate::kernel::{ApiError, ApiResult, Core, Data, Envelope, Id};

#[derive(Debug, Clone, Default, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct IrradiancePoint {
    pub label: String,
    /// kWh/m² in the plane of array (trapezoids over the samples, gaps not bridged).
    pub poa_kwh_m2: Option<f64>,
    /// kWh/m² on the horizontal (mean irradiance × time of each rollup row).
    pub ghi_kwh_m2: Option<f64>,
    /// Highest irradiance measured, W/m².
    pub peak_irradiance: Option<f64>,
    /// Mean ambient temperature, °C.
    pub ambient_temperature: Option<f64>,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StationIrradiance {
    pub station_id: Id,
    pub station_name: String,
    /// The weather station read (absent: the station has none).
    pub weather_id: Option<Id>,
    pub title: String,
    pub time_type: TimeType,
    /// The station's UTC offset (`+13:00`): the clock its slots are cut and labelled in.
    pub utc_offset: String,
    pub points: Vec<IrradiancePoint>,
    pub total: IrradiancePoint,
}

/// Per slot: plane-of-array Wh/m², horizontal Wh/m², peak W/m², sum and count of ambient
/// temperature means.
type Acc = (Option<f64>, Option<f64>, Option<f64>, f64, u32);

fn add(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (None, None) => None,
        (a, b) => Some(a.unwrap_or(0.0) + b.unwrap_or(0.0)),
    }
}

fn max(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, b) => a.or(b),
    }
}

pub(super) async fn irradiance_of(
    core: &Core,
    scope: &StationScope,
    ids: &[Id],
    q: &TimeQuery,
) -> Result<Vec<StationIrradiance>, ApiError> {
    let stations = store::stations(core, scope, ids).await?;
    let station_ids: Vec<i64> = stations.iter().map(|s| s.id).collect();
    let devices = store::devices(core, &station_ids).await?;
    let mut out = Vec::new();
    for station in &stations {
        let axis = axis_of(q, station)?;
        let weather = devices.weather.iter().find(|w| w.1 == station.id).map(|w| w.0);
        let period = store::period_for(&axis, station);
        let rows = match weather {
            Some(w) => store::rows(core, station.id, &[Id(w)], period, axis.start(), axis.end()).await?,
            None => vec![],
        };
        // (poa Wh/m², ghi Wh/m², peak, temperature sum, temperature rows)
        let mut acc: Vec<Acc> = vec![(None, None, None, 0.0, 0); axis.slots.len()];
        let row_hours = match period {
            "1d" => 24.0,
            "1h" => 1.0,
            _ => 5.0 / 60.0,
        };
        for row in &rows {
            let Some(i) = axis.slot_of(row.bucket) else {
                continue;
            };
            let a = &mut acc[i];
            let has_poa = row.stat("irradiance_poa", 0).is_some();
            if has_poa {
                a.0 = add(a.0, row.irradiation_wh_m2);
            }
            let ghi = row.stat("irradiance_ghi", 0).map(|g| g.max(0.0) * row_hours);
            let ghi = if has_poa {
                ghi
            } else {
                ghi.or(row.irradiation_wh_m2)
            };
            a.1 = add(a.1, ghi);
            a.2 = max(
                a.2,
                max(row.stat("irradiance_poa", 2), row.stat("irradiance_ghi", 2)),
            );
            if let Some(t) = row.stat("ambient_temperature", 0) {
                a.3 += t;
                a.4 += 1;
            }
        }
        let point = |label: String, a: &Acc| IrradiancePoint {
            label,
            poa_kwh_m2: a.0.map(kwh),
            ghi_kwh_m2: a.1.map(kwh),
            peak_irradiance: a.2.map(|g| round(g, 1)),
            ambient_temperature: (a.4 > 0).then(|| round(a.3 / f64::from(a.4), 1)),
        };
        let total = acc.iter().fold((None, None, None, 0.0, 0), |t, a| {
            (add(t.0, a.0), add(t.1, a.1), max(t.2, a.2), t.3 + a.3, t.4 + a.4)
        });
        out.push(StationIrradiance {
            station_id: Id(station.id),
            station_name: station.name.clone(),
            weather_id: weather.map(Id),
            title: axis.title.clone(),
            time_type: axis.time_type,
            utc_offset: station.clock().label(),
            points: axis
                .slots
                .iter()
                .zip(&acc)
                .map(|(s, a)| point(s.label.clone(), a))
                .collect(),
            total: point("total".into(), &total),
        });
    }
    Ok(out)
}

/// Insolation of one station per slot.
#[utoipa::path(get, path = "/api/report/irradiance/list", tag = "report",
    params(StationQuery, TimeQuery),
    responses((status = 200, body = Envelope<StationIrradiance>), (status = 400), (status = 404)))]
pub async fn irradiance_list(
    State(core): State<Core>,
    Scoped { stations: scope, .. }: Scoped,
    Query(s): Query<StationQuery>,
    Query(q): Query<TimeQuery>,
) -> ApiResult<Data<StationIrradiance>> {
    let id = required_station(s.station_id)?;
    let mut out = irradiance_of(&core, &scope, &[id], &q).await?;
    out.pop().map(Data).ok_or_else(ApiError::not_found)
}

/// Insolation of several stations (every visible one without `stationIds`).
#[utoipa::path(get, path = "/api/report/irradiance/mulitiple/list", tag = "report",
    params(StationsQuery, TimeQuery),
    responses((status = 200, body = Envelope<Vec<StationIrradiance>>), (status = 400), (status = 404)))]
pub async fn irradiance_multiple_list(
    State(core): State<Core>,
    Scoped { stations: scope, .. }: Scoped,
    Query(s): Query<StationsQuery>,
    Query(q): Query<TimeQuery>,
) -> ApiResult<Data<Vec<StationIrradiance>>> {
    let ids = id_list(s.station_ids.as_deref())?;
    Ok(Data(irradiance_of(&core, &scope, &ids, &q).await?))
}
