//! Generation reports (`/api/report/station/...`, `/api/report/inverter/...`): energy of
//! stations and inverters per hour, day, month or year in each station's clock, with the
//! specific yield (equivalent full-load hours, kWh/kWp), the plane-of-array irradiation of the
//! station's weather station, the grid meter's import and export, and for inverters their share
//! of the station. Formulas: `docs/reports.md`, "Generation".

use std::collections::{BTreeMap, HashMap};

use axum::extract::State;
use serde::Serialize;
use utoipa::ToSchema;

use super::common::{
    InvertersQuery, StationQuery, StationsQuery, axis_of, id_list, kwh, required_station, round,
};
use super::period::{Axis, TimeQuery, TimeType};
use super::store::{self, Devices, SumKey, Sums};
use crate::analytics::data::{InverterRow, StationRow};
use crate::auth::scope::{Scoped, StationScope};
use crate::kernel::extract::Query;
use crate::kernel::{ApiError, ApiResult, Core, Data, Envelope, Id};
use crate::telemetry::realtime::{KIND_INVERTER, KIND_METER, KIND_WEATHER};

#[derive(Debug, Clone, Default, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct GenerationPoint {
    /// `HH:00`, `yyyy-MM-dd`, `yyyy-MM`, `yyyy`, or `total`.
    pub label: String,
    /// kWh from the inverters' counters; null when none was measured.
    pub energy_kwh: Option<f64>,
    /// kWh/kWp (= h) against the station's component capacity.
    pub equivalent_hours: Option<f64>,
    /// kWh/m² from the weather station (plane of array where measured, else horizontal).
    pub irradiation_kwh_m2: Option<f64>,
    /// kWh the grid meter counted out of and into the station.
    pub export_kwh: Option<f64>,
    pub import_kwh: Option<f64>,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StationGeneration {
    pub station_id: Id,
    pub station_name: String,
    /// P0, kWp (DC).
    pub capacity_kwp: Option<f64>,
    /// The period, e.g. `2026-11`.
    pub title: String,
    pub time_type: TimeType,
    /// The station's UTC offset (`+13:00`): the clock its slots are cut and labelled in.
    pub utc_offset: String,
    pub points: Vec<GenerationPoint>,
    pub total: GenerationPoint,
    /// Administrators' corrections in force that touch the period (an excluded interval, an
    /// accepted or confirmed counter step: 报表 › 电量修正); 0 when the figures are as counted.
    pub corrections: i64,
}

#[derive(Debug, Clone, Default, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InverterPoint {
    pub label: String,
    pub energy_kwh: Option<f64>,
    /// kWh/kWp against the inverter's P0 (its modules × module rating, else its AC rating).
    pub equivalent_hours: Option<f64>,
    /// % of the station's inverters' energy in the same slot.
    pub share_pct: Option<f64>,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InverterGeneration {
    pub inverter_id: Id,
    pub inverter_name: String,
    pub station_id: Id,
    pub station_name: String,
    pub capacity_kwp: Option<f64>,
    pub title: String,
    pub time_type: TimeType,
    /// The station's UTC offset (`+13:00`): the clock its slots are cut and labelled in.
    pub utc_offset: String,
    pub points: Vec<InverterPoint>,
    pub total: InverterPoint,
}

fn add(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (None, None) => None,
        (a, b) => Some(a.unwrap_or(0.0) + b.unwrap_or(0.0)),
    }
}

fn hours(energy_wh: Option<f64>, p0: Option<f64>) -> Option<f64> {
    match (energy_wh, p0) {
        (Some(e), Some(p)) if p > 0.0 => Some(round(e / 1000.0 / p, 3)),
        _ => None,
    }
}

/// Stations that keep the same clock share one axis and one query.
fn by_clock(stations: &[StationRow]) -> BTreeMap<i64, Vec<&StationRow>> {
    let mut out: BTreeMap<i64, Vec<&StationRow>> = BTreeMap::new();
    for s in stations {
        out.entry(s.offset_ms()).or_default().push(s);
    }
    out
}

/// The sums of every station's devices per slot, and each clock's axis.
async fn sums_by_clock(
    core: &Core,
    stations: &[StationRow],
    devices: &Devices,
    q: &TimeQuery,
    per_device: bool,
) -> Result<(HashMap<i64, Axis>, HashMap<SumKey, Sums>), ApiError> {
    let mut axes = HashMap::new();
    let mut sums = HashMap::new();
    let ids = devices.ids();
    for group in by_clock(stations).values() {
        let axis = axis_of(q, group[0])?;
        let period = store::period_for(&axis, group[0]);
        let station_ids: Vec<i64> = group.iter().map(|s| s.id).collect();
        sums.extend(store::slot_sums(core, &station_ids, &ids, &axis, period, per_device).await?);
        for s in group {
            axes.insert(s.id, axis.clone());
        }
    }
    Ok((axes, sums))
}

fn station_report(station: &StationRow, axis: &Axis, sums: &HashMap<SumKey, Sums>) -> StationGeneration {
    let get = |kind: &str, slot: usize| sums.get(&(station.id, 0, kind.to_owned(), slot));
    let p0 = station.component_capacity;
    let mut raw_total = (None, None, None, None);
    let mut points = Vec::with_capacity(axis.slots.len());
    for (i, slot) in axis.slots.iter().enumerate() {
        let e = get(KIND_INVERTER, i).and_then(|s| s.energy_wh);
        let h = get(KIND_WEATHER, i).and_then(|s| s.irradiation_wh_m2);
        let ex = get(KIND_METER, i).and_then(|s| s.export_wh);
        let im = get(KIND_METER, i).and_then(|s| s.import_wh);
        raw_total = (
            add(raw_total.0, e),
            add(raw_total.1, h),
            add(raw_total.2, ex),
            add(raw_total.3, im),
        );
        points.push(GenerationPoint {
            label: slot.label.clone(),
            energy_kwh: e.map(kwh),
            equivalent_hours: hours(e, p0),
            irradiation_kwh_m2: h.map(kwh),
            export_kwh: ex.map(kwh),
            import_kwh: im.map(kwh),
        });
    }
    StationGeneration {
        station_id: Id(station.id),
        station_name: station.name.clone(),
        capacity_kwp: p0,
        title: axis.title.clone(),
        time_type: axis.time_type,
        utc_offset: station.clock().label(),
        points,
        total: GenerationPoint {
            label: "total".into(),
            energy_kwh: raw_total.0.map(kwh),
            equivalent_hours: hours(raw_total.0, p0),
            irradiation_kwh_m2: raw_total.1.map(kwh),
            export_kwh: raw_total.2.map(kwh),
            import_kwh: raw_total.3.map(kwh),
        },
        corrections: 0,
    }
}

pub(super) async fn stations_generation(
    core: &Core,
    scope: &StationScope,
    ids: &[Id],
    q: &TimeQuery,
) -> Result<Vec<StationGeneration>, ApiError> {
    let stations = store::stations(core, scope, ids).await?;
    let station_ids: Vec<i64> = stations.iter().map(|s| s.id).collect();
    let devices = store::devices(core, &station_ids).await?;
    let (axes, sums) = sums_by_clock(core, &stations, &devices, q, false).await?;
    let mut out = Vec::with_capacity(stations.len());
    for s in &stations {
        let Some(a) = axes.get(&s.id) else { continue };
        let mut r = station_report(s, a, &sums);
        r.corrections = crate::energy::store::corrections_touching(&core.db, &[s.id], a.start(), a.end())
            .await?
            .get(&s.id)
            .copied()
            .unwrap_or(0);
        out.push(r);
    }
    Ok(out)
}

/// Generation of one station by hour (day), day (month, range), month (year) or year (years).
#[utoipa::path(get, path = "/api/report/station/electricity", tag = "report",
    params(StationQuery, TimeQuery),
    responses((status = 200, body = Envelope<StationGeneration>), (status = 400), (status = 404)))]
pub async fn station_electricity(
    State(core): State<Core>,
    Scoped { stations: scope, .. }: Scoped,
    Query(s): Query<StationQuery>,
    Query(q): Query<TimeQuery>,
) -> ApiResult<Data<StationGeneration>> {
    let id = required_station(s.station_id)?;
    let mut out = stations_generation(&core, &scope, &[id], &q).await?;
    out.pop().map(Data).ok_or_else(ApiError::not_found)
}

/// Generation of several stations (every visible one without `stationIds`), by name.
#[utoipa::path(get, path = "/api/report/station/multiple/electricity", tag = "report",
    params(StationsQuery, TimeQuery),
    responses((status = 200, body = Envelope<Vec<StationGeneration>>), (status = 400), (status = 404)))]
pub async fn station_multiple_electricity(
    State(core): State<Core>,
    Scoped { stations: scope, .. }: Scoped,
    Query(s): Query<StationsQuery>,
    Query(q): Query<TimeQuery>,
) -> ApiResult<Data<Vec<StationGeneration>>> {
    let ids = id_list(s.station_ids.as_deref())?;
    Ok(Data(stations_generation(&core, &scope, &ids, &q).await?))
}

fn inverter_report(
    inv: &InverterRow,
    station: &StationRow,
    axis: &Axis,
    sums: &HashMap<SumKey, Sums>,
    station_slots: &[Option<f64>],
    station_total: Option<f64>,
) -> InverterGeneration {
    let p0 = inv.p0_kwp(station);
    let share = |e: Option<f64>, all: Option<f64>| match (e, all) {
        (Some(e), Some(a)) if a > 0.0 => Some(round(e / a * 100.0, 2)),
        _ => None,
    };
    let mut total = None;
    let points = axis
        .slots
        .iter()
        .enumerate()
        .map(|(i, slot)| {
            let e = sums
                .get(&(station.id, inv.id, KIND_INVERTER.to_owned(), i))
                .and_then(|s| s.energy_wh);
            total = add(total, e);
            InverterPoint {
                label: slot.label.clone(),
                energy_kwh: e.map(kwh),
                equivalent_hours: hours(e, p0),
                share_pct: share(e, station_slots[i]),
            }
        })
        .collect();
    InverterGeneration {
        inverter_id: Id(inv.id),
        inverter_name: inv.name.clone(),
        station_id: Id(station.id),
        station_name: station.name.clone(),
        capacity_kwp: p0,
        title: axis.title.clone(),
        time_type: axis.time_type,
        utc_offset: station.clock().label(),
        points,
        total: InverterPoint {
            label: "total".into(),
            energy_kwh: total.map(kwh),
            equivalent_hours: hours(total, p0),
            share_pct: share(total, station_total),
        },
    }
}

/// Inverters of one station: `inverter_id`, or `inverter_ids`, or all of `station_id`.
pub(super) async fn inverters_generation(
    core: &Core,
    scope: &StationScope,
    q: &InvertersQuery,
    t: &TimeQuery,
) -> Result<Vec<InverterGeneration>, ApiError> {
    let mut wanted = id_list(q.inverter_ids.as_deref())?;
    wanted.extend(q.inverter_id);
    let station_id = match q.station_id {
        Some(id) => id,
        None => {
            let first = wanted.first().copied();
            let Some(inv) = first else {
                return Err(ApiError::bad_request(
                    "请选择电站或逆变器",
                    "Please choose a station or inverters",
                ));
            };
            station_of_inverter(core, inv).await?
        }
    };
    let stations = store::stations(core, scope, &[station_id]).await?;
    let Some(station) = stations.first() else {
        return Err(ApiError::not_found());
    };
    let devices = store::devices(core, &[station.id]).await?;
    for w in &wanted {
        if !devices.inverters.iter().any(|i| i.id == w.0) {
            return Err(ApiError::not_found());
        }
    }
    let only_inverters = Devices {
        inverters: devices.inverters.clone(),
        ..Devices::default()
    };
    let (axes, sums) = sums_by_clock(core, &stations, &only_inverters, t, true).await?;
    let axis = axes.get(&station.id).ok_or_else(ApiError::not_found)?;
    let station_slots: Vec<Option<f64>> = (0..axis.slots.len())
        .map(|i| {
            devices.inverters.iter().fold(None, |acc, inv| {
                add(
                    acc,
                    sums.get(&(station.id, inv.id, KIND_INVERTER.to_owned(), i))
                        .and_then(|s| s.energy_wh),
                )
            })
        })
        .collect();
    let station_total = station_slots.iter().fold(None, |a, b| add(a, *b));
    Ok(devices
        .inverters
        .iter()
        .filter(|i| wanted.is_empty() || wanted.iter().any(|w| w.0 == i.id))
        .map(|inv| inverter_report(inv, station, axis, &sums, &station_slots, station_total))
        .collect())
}

async fn station_of_inverter(core: &Core, inverter: Id) -> Result<Id, ApiError> {
    let mut sql = crate::kernel::sql::Sql::default();
    // Only the station id; the caller's scope is applied to that station right after.
    sql.push_bind(
        "SELECT station_id FROM pv_inverter WHERE id = ? AND is_deleted = 0",
        [crate::kernel::sql::Value::Int(inverter.0)],
    );
    sql.scalar_optional::<i64, _>(core.db.pool())
        .await?
        .map(Id)
        .ok_or_else(ApiError::not_found)
}

/// Generation of one inverter, with its share of the station.
#[utoipa::path(get, path = "/api/report/inverter/electricity", tag = "report",
    params(InvertersQuery, TimeQuery),
    responses((status = 200, body = Envelope<InverterGeneration>), (status = 400), (status = 404)))]
pub async fn inverter_electricity(
    State(core): State<Core>,
    Scoped { stations: scope, .. }: Scoped,
    Query(q): Query<InvertersQuery>,
    Query(t): Query<TimeQuery>,
) -> ApiResult<Data<InverterGeneration>> {
    let Some(one) = q.inverter_id else {
        return Err(ApiError::bad_request("请选择逆变器", "Please choose an inverter"));
    };
    let q = InvertersQuery {
        inverter_id: Some(one),
        inverter_ids: None,
        station_id: q.station_id,
    };
    let mut out = inverters_generation(&core, &scope, &q, &t).await?;
    out.pop().map(Data).ok_or_else(ApiError::not_found)
}

/// Generation of a station's inverters side by side (all, or `inverterIds`).
#[utoipa::path(get, path = "/api/report/inverter/multiple/electricity", tag = "report",
    params(InvertersQuery, TimeQuery),
    responses((status = 200, body = Envelope<Vec<InverterGeneration>>), (status = 400), (status = 404)))]
pub async fn inverter_multiple_electricity(
    State(core): State<Core>,
    Scoped { stations: scope, .. }: Scoped,
    Query(q): Query<InvertersQuery>,
    Query(t): Query<TimeQuery>,
) -> ApiResult<Data<Vec<InverterGeneration>>> {
    Ok(Data(inverters_generation(&core, &scope, &q, &t).await?))
}
