//! Stations by area: `/api/station/listByArea` (province → city → stations, with counts,
//! capacity and live power) and `/api/station/getStatisticsByProvince` (the China map's
//! per-province figures). Both read the caller's visible stations with the fleet summary of
//! `telemetry::api::fleet`, so their figures add up to the home page's.

use std::collections::BTreeMap;

use axum::extract::State;
use serde::Serialize;
use utoipa::ToSchema;

use crate::auth::scope::Scoped;
use crate::kernel::lang::Text;
use crate::kernel::{ApiResult, Data, Envelope, Id};
use crate::telemetry::api::fleet::{self, Fleet, StationInfo, StationLive, status_key};
use crate::telemetry::api::{kilo, round};
use crate::telemetry::context::TelemetryCtx;

/// The group of stations without a province (or city) code.
const NOT_SET: Text = Text::new("未设置", "Not set");

/// Figures of a group of stations.
#[derive(Debug, Default, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AreaFigures {
    pub station_count: i64,
    /// kWp (DC) and kW (AC), as the stations declare them.
    pub capacity_kwp: f64,
    pub capacity_kw: f64,
    /// kW, online inverters' active power.
    pub current_power_kw: f64,
    /// kWh today.
    pub today_energy_kwh: f64,
}

impl AreaFigures {
    fn add(&mut self, s: &StationInfo, live: &StationLive) {
        self.station_count += 1;
        self.capacity_kwp = round(self.capacity_kwp + s.capacity_kwp.unwrap_or(0.0), 4);
        self.capacity_kw = round(self.capacity_kw + s.capacity_kw.unwrap_or(0.0), 4);
        self.current_power_kw = round(self.current_power_kw + kilo(live.power_w), 3);
        self.today_energy_kwh = round(self.today_energy_kwh + kilo(live.today_wh.unwrap_or(0.0)), 3);
    }
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AreaStation {
    pub id: Id,
    pub name: String,
    /// Colour key: producing, standby, offline, commissioning, fault.
    pub status: String,
    pub online: bool,
    pub capacity_kwp: Option<f64>,
    pub current_power_kw: f64,
    pub today_energy_kwh: f64,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AreaCity {
    /// GB/T 2260 code; "" for stations without a city.
    pub city_code: String,
    pub city_name: String,
    #[serde(flatten)]
    pub figures: AreaFigures,
    pub stations: Vec<AreaStation>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AreaProvince {
    /// GB/T 2260 code; "" for stations without a province (listed last).
    pub province_code: String,
    pub province_name: String,
    #[serde(flatten)]
    pub figures: AreaFigures,
    pub cities: Vec<AreaCity>,
}

/// A region code as a sort key: the unset group ("") sorts last.
type AreaKey = (bool, String);

/// Stations by province, then city.
type AreaTree<'a> = BTreeMap<AreaKey, BTreeMap<AreaKey, Vec<&'a StationInfo>>>;

/// Codes sort with the unset group ("") last.
fn key(code: &Option<String>) -> AreaKey {
    let c = code.clone().unwrap_or_default();
    (c.is_empty(), c)
}

/// The caller's visible stations grouped by province, then city, each group with its station
/// count, capacity, current power and today's energy.
#[utoipa::path(get, path = "/api/station/listByArea", tag = "station",
    responses((status = 200, body = Envelope<Vec<AreaProvince>>), (status = 401)))]
pub async fn list_by_area(
    State(state): State<TelemetryCtx>,
    Scoped { stations, .. }: Scoped,
) -> ApiResult<Data<Vec<AreaProvince>>> {
    let fleet = Fleet::load(&state, stations).await?;
    let codes: Vec<String> = fleet
        .stations
        .iter()
        .flat_map(|s| [s.province_code.clone(), s.city_code.clone()])
        .flatten()
        .collect();
    let names = fleet::region_names(&state, &codes).await?;
    let name_of = |(_, c): &AreaKey| {
        if c.is_empty() {
            NOT_SET.render()
        } else {
            names.get(c).cloned().unwrap_or_else(|| c.clone())
        }
    };
    let mut tree: AreaTree = BTreeMap::new();
    for s in &fleet.stations {
        tree.entry(key(&s.province_code))
            .or_default()
            .entry(key(&s.city_code))
            .or_default()
            .push(s);
    }
    let out = tree
        .into_iter()
        .map(|(pk, cities)| {
            let mut province = AreaProvince {
                province_name: name_of(&pk),
                province_code: pk.1,
                figures: AreaFigures::default(),
                cities: Vec::new(),
            };
            for (ck, stations) in cities {
                let mut city = AreaCity {
                    city_name: name_of(&ck),
                    city_code: ck.1,
                    figures: AreaFigures::default(),
                    stations: Vec::new(),
                };
                for s in stations {
                    let live = fleet.live(s.id);
                    city.figures.add(s, &live);
                    province.figures.add(s, &live);
                    city.stations.push(AreaStation {
                        id: Id(s.id),
                        name: s.name.clone(),
                        status: status_key(s, &live).to_owned(),
                        online: live.online,
                        capacity_kwp: s.capacity_kwp,
                        current_power_kw: kilo(live.power_w),
                        today_energy_kwh: kilo(live.today_wh.unwrap_or(0.0)),
                    });
                }
                province.cities.push(city);
            }
            province
        })
        .collect();
    Ok(Data(out))
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProvinceStatistics {
    /// GB/T 2260 province code ("" = stations without one, listed last).
    pub province_code: String,
    /// The province's name as the region table has it (e.g. 广东省), for the China map.
    pub province_name: String,
    #[serde(flatten)]
    pub figures: AreaFigures,
    /// Lifetime generation of its stations, kWh.
    pub total_energy_kwh: f64,
}

/// Per province of the caller's visible stations: station count, capacity, current power,
/// today's and lifetime energy (for the China map).
#[utoipa::path(get, path = "/api/station/getStatisticsByProvince", tag = "station",
    responses((status = 200, body = Envelope<Vec<ProvinceStatistics>>), (status = 401)))]
pub async fn get_statistics_by_province(
    State(state): State<TelemetryCtx>,
    Scoped { stations, .. }: Scoped,
) -> ApiResult<Data<Vec<ProvinceStatistics>>> {
    let fleet = Fleet::load(&state, stations).await?;
    let codes: Vec<String> = fleet
        .stations
        .iter()
        .filter_map(|s| s.province_code.clone())
        .collect();
    let names = fleet::region_names(&state, &codes).await?;
    let mut groups: BTreeMap<AreaKey, ProvinceStatistics> = BTreeMap::new();
    for s in &fleet.stations {
        let k = key(&s.province_code);
        let live = fleet.live(s.id);
        let entry = groups.entry(k.clone()).or_insert_with(|| ProvinceStatistics {
            province_name: if k.1.is_empty() {
                NOT_SET.render()
            } else {
                names.get(&k.1).cloned().unwrap_or_else(|| k.1.clone())
            },
            province_code: k.1.clone(),
            figures: AreaFigures::default(),
            total_energy_kwh: 0.0,
        });
        entry.figures.add(s, &live);
        entry.total_energy_kwh = round(entry.total_energy_kwh + kilo(live.total_wh.unwrap_or(0.0)), 3);
    }
    Ok(Data(groups.into_values().collect()))
}
