//! What every report call shares: its station and device parameters, rounding, and the
//! station-local "today".

use chrono::NaiveDate;
use serde::Deserialize;
use utoipa::IntoParams;

use super::period::{Axis, TimeQuery, local_date};
use crate::analytics::data::StationRow;
use crate::kernel::id::ids_param;
use crate::kernel::{ApiError, Id, time};

#[derive(Debug, Clone, Default, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct StationQuery {
    /// The station (404 when the caller cannot see it).
    pub station_id: Option<Id>,
}

#[derive(Debug, Clone, Default, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct StationsQuery {
    /// Comma-joined station ids; absent = every station the caller can see.
    pub station_ids: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct InvertersQuery {
    /// The station whose inverters are compared (every live one unless `inverterIds`).
    pub station_id: Option<Id>,
    /// Comma-joined inverter ids of that station.
    pub inverter_ids: Option<String>,
    /// One inverter (`/inverter/electricity`).
    pub inverter_id: Option<Id>,
}

pub fn required_station(id: Option<Id>) -> Result<Id, ApiError> {
    id.ok_or_else(|| ApiError::bad_request("请选择电站", "Please choose a station"))
}

/// A comma-joined id list; blank = none.
pub fn id_list(raw: Option<&str>) -> Result<Vec<Id>, ApiError> {
    match raw.map(str::trim).filter(|s| !s.is_empty()) {
        None => Ok(vec![]),
        Some(raw) => ids_param(raw),
    }
}

pub fn today(station: &StationRow) -> NaiveDate {
    today_at(station, time::now_ms())
}

/// The station's date at `now` (epoch ms, the hub's `Core::clock`).
pub fn today_at(station: &StationRow, now: i64) -> NaiveDate {
    local_date(now, station.offset_ms())
}

pub fn axis_of(q: &TimeQuery, station: &StationRow) -> Result<Axis, ApiError> {
    q.axis(station.offset_ms(), today(station))
}

pub fn round(x: f64, places: i32) -> f64 {
    let f = 10f64.powi(places);
    (x * f).round() / f
}

/// Wh → kWh, 3 decimals.
pub fn kwh(wh: f64) -> f64 {
    round(wh / 1000.0, 3)
}
