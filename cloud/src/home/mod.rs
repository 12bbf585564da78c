//! The home page (`/api/homePage`): fleet totals of the stations the caller may see and the
//! stations on the map. Figures follow `telemetry::api::fleet` (definitions there); an owner
//! assigned one station sees that station's figures only, totals included.
//!
//! Energy conservation (pv-domain.md, "Energy conservation"): per kWh generated, standard coal
//! saved 0.4 kg and CO2 avoided 0.997 kg, the coefficients commonly used in China's PV reporting.
//! Trees: CO2 avoided / 18.3 kg, the CO2 a tree absorbs in a year as Chinese PV portals count it
//! (a platform choice, not in pv-domain.md). All three are system parameters (`blade_param`:
//! `energy.coalKgPerKwh`, `energy.co2KgPerKwh`, `energy.co2KgPerTree`) with these defaults, and
//! every answer says which were used.

pub mod curve;

use axum::extract::State;
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use std::collections::HashMap;

use crate::auth::scope::Scoped;
use crate::kernel::Core;
use crate::kernel::{ApiError, ApiResult, Data, Envelope, Id, time};
use crate::report::revenue::{self, Revenue};
use crate::telemetry::api::fleet::{self, Fleet, RUNNING, status_key};
use crate::telemetry::api::{kilo, round, site_day};
use crate::telemetry::context::TelemetryCtx;

pub use crate::report::conservation::{Factors, factors};

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct HomeData {
    pub station_count: i64,
    /// Stations by installation status: commissioning (1) and running (2).
    pub commissioning_count: i64,
    pub running_count: i64,
    /// Stations communicating now (gateway or a device online) and not.
    pub online_count: i64,
    pub offline_count: i64,
    /// Online stations with an open station-fault alarm (type 1, active or acknowledged), and
    /// the online stations without one (alarm-free).
    pub fault_count: i64,
    pub normal_count: i64,
    /// Installed capacity, kWp (DC, sum of the stations' component capacity).
    pub capacity_kwp: f64,
    /// Declared AC capacity, kW.
    pub capacity_kw: f64,
    /// Sum of the online inverters' active power, kW.
    pub current_power_kw: f64,
    /// Generation today / this month / this year, each station's own calendar (its clock), kWh.
    pub today_energy_kwh: f64,
    pub month_energy_kwh: f64,
    pub year_energy_kwh: f64,
    /// Lifetime generation: the counted energy of every day of the stations (the sum the
    /// reports' years add up, never the inverters' own `energy_total` registers), kWh and MWh.
    pub total_energy_kwh: f64,
    pub total_energy_mwh: f64,
    /// Equivalent full-load hours today, h = today's kWh / kWp, over the stations that declare
    /// a component capacity (pv-domain.md, "specific yield").
    pub equivalent_hours_today: f64,
    /// From the lifetime generation: CO2 avoided and standard coal saved, tonnes.
    pub co2_avoided_t: f64,
    pub coal_saved_t: f64,
    /// Trees equivalent (CO2 avoided / CO2 a tree absorbs per year).
    pub trees_equivalent: i64,
    pub factors: Factors,
    /// Revenue of today and of this month so far, in `currency`: each station's bill
    /// (time-of-use tariff, grid-connection type and contract) from its hour rollups.
    pub today_revenue: f64,
    pub month_revenue: f64,
    /// ISO 4217 code of the amounts (the tenant's report setting).
    pub currency: String,
    /// Repair orders of the caller's scope not completed nor canceled, and those of them past a
    /// deadline (`repair::stats`).
    pub repair_open: i64,
    pub repair_overdue: i64,
    /// Mean hours from creation to finish of the orders finished in the last 90 days (null when
    /// none; docs/repair.md).
    pub mttr_hours: Option<f64>,
    /// When the figures were computed, `yyyy-MM-dd HH:mm:ss`.
    pub update_time: String,
}

/// Today's and this month's revenue of the fleet's stations, by station.
async fn revenues(state: &Core, fleet: &Fleet) -> Result<HashMap<i64, Revenue>, ApiError> {
    let rows = crate::analytics::data::stations(state, &fleet.scope.stations("s")).await?;
    let refs: Vec<&crate::analytics::data::StationRow> = rows.iter().collect();
    revenue::of_stations(state, &refs).await
}

/// Fleet totals of the caller's visible stations: generation (today, month, year, total),
/// current power, capacity, station counts by state and by communication, equivalent hours,
/// energy conservation figures.
#[utoipa::path(get, path = "/api/homePage/data", tag = "home",
    responses((status = 200, body = Envelope<HomeData>), (status = 401)))]
pub async fn data(State(state): State<TelemetryCtx>, scope: Scoped) -> ApiResult<Data<HomeData>> {
    let (repair, _) = crate::repair::stats_api::summary(&state, &scope, None).await?;
    let fleet = Fleet::load(&state, scope.stations).await?;
    let factors = factors(&state).await?;
    // Past days of each station's month and year from the rollups, today from the live rule:
    // no double count, every day cut at the station's own midnight.
    let (month_rollups, year_rollups) =
        site_day::month_and_year_before_today(&state, &fleet.scope, &fleet.days).await?;
    let mut d = HomeData {
        station_count: fleet.stations.len() as i64,
        commissioning_count: 0,
        running_count: 0,
        online_count: 0,
        offline_count: 0,
        fault_count: 0,
        normal_count: 0,
        capacity_kwp: 0.0,
        capacity_kw: 0.0,
        current_power_kw: 0.0,
        today_energy_kwh: 0.0,
        month_energy_kwh: 0.0,
        year_energy_kwh: 0.0,
        total_energy_kwh: 0.0,
        total_energy_mwh: 0.0,
        equivalent_hours_today: 0.0,
        co2_avoided_t: 0.0,
        coal_saved_t: 0.0,
        trees_equivalent: 0,
        factors,
        today_revenue: 0.0,
        month_revenue: 0.0,
        currency: revenue::currency(&state, &fleet.scope.tenant_id).await?,
        repair_open: repair.open,
        repair_overdue: repair.overdue,
        mttr_hours: repair.mttr_hours,
        update_time: time::format_ms(time::now_ms()),
    };
    let by_station = revenues(&state, &fleet).await?;
    d.today_revenue = round(by_station.values().map(|r| r.today).sum(), 2);
    d.month_revenue = round(by_station.values().map(|r| r.month).sum(), 2);
    let (mut power_w, mut today_wh, mut total_wh, mut kwp, mut kw) = (0.0, 0.0, 0.0, 0.0, 0.0);
    let (mut rated_today_wh, mut rated_kwp) = (0.0, 0.0);
    let mut month_wh: f64 = month_rollups.values().sum();
    let mut year_wh: f64 = year_rollups.values().sum();
    for s in &fleet.stations {
        let live = fleet.live(s.id);
        if s.installation_status == RUNNING {
            d.running_count += 1;
        } else {
            d.commissioning_count += 1;
        }
        if live.online {
            d.online_count += 1;
            if live.fault {
                d.fault_count += 1;
            } else {
                d.normal_count += 1;
            }
        } else {
            d.offline_count += 1;
        }
        power_w += live.power_w;
        today_wh += live.today_wh.unwrap_or(0.0);
        total_wh += live.total_wh.unwrap_or(0.0);
        kw += s.capacity_kw.unwrap_or(0.0);
        if let Some(p0) = s.capacity_kwp.filter(|p| *p > 0.0) {
            kwp += p0;
            rated_kwp += p0;
            rated_today_wh += live.today_wh.unwrap_or(0.0);
        }
    }
    month_wh += today_wh;
    year_wh += today_wh;
    let total_kwh = total_wh / 1000.0;
    let co2_kg = total_kwh * factors.co2_kg_per_kwh;
    d.capacity_kwp = round(kwp, 4);
    d.capacity_kw = round(kw, 4);
    d.current_power_kw = kilo(power_w);
    d.today_energy_kwh = kilo(today_wh);
    d.month_energy_kwh = kilo(month_wh);
    d.year_energy_kwh = kilo(year_wh);
    d.total_energy_kwh = kilo(total_wh);
    d.total_energy_mwh = round(total_wh / 1e6, 3);
    d.equivalent_hours_today = if rated_kwp > 0.0 {
        round(rated_today_wh / 1000.0 / rated_kwp, 2)
    } else {
        0.0
    };
    d.co2_avoided_t = round(co2_kg / 1000.0, 3);
    d.coal_saved_t = round(total_kwh * factors.coal_kg_per_kwh / 1000.0, 3);
    d.trees_equivalent = (co2_kg / factors.co2_kg_per_tree).round() as i64;
    Ok(Data(d))
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MapStation {
    pub id: Id,
    pub name: String,
    /// WGS-84 degrees; null when the station has no location (the map leaves it out).
    pub latitude: Option<f64>,
    pub longitude: Option<f64>,
    pub province_code: Option<String>,
    pub province_name: Option<String>,
    pub city_code: Option<String>,
    pub city_name: Option<String>,
    /// 1 commissioning, 2 running.
    pub installation_status: String,
    /// Colour key: `producing`, `standby`, `offline`, `commissioning`, `fault`.
    pub status: String,
    pub online: bool,
    /// kW (online inverters' active power).
    pub current_power_kw: f64,
    /// kWp (DC) and kW (AC) as declared.
    pub capacity_kwp: Option<f64>,
    pub capacity_kw: Option<f64>,
    /// kWh today (counted, as the reports); null without any rollup today.
    pub today_energy_kwh: Option<f64>,
    /// Lifetime kWh (every counted day); null before the first.
    pub total_energy_kwh: Option<f64>,
    /// Revenue today and this month so far, in the tenant's currency (see `HomeData`).
    pub today_revenue: f64,
    pub month_revenue: f64,
    /// Newest sample time of its devices, `yyyy-MM-dd HH:mm:ss`.
    pub update_time: Option<String>,
}

/// The caller's visible stations for the home map: location, province and city, status colour
/// key, current power and capacity.
#[utoipa::path(get, path = "/api/homePage/map", tag = "home",
    responses((status = 200, body = Envelope<Vec<MapStation>>), (status = 401)))]
pub async fn map(
    State(state): State<TelemetryCtx>,
    Scoped { stations, .. }: Scoped,
) -> ApiResult<Data<Vec<MapStation>>> {
    let fleet = Fleet::load(&state, stations).await?;
    let codes: Vec<String> = fleet
        .stations
        .iter()
        .flat_map(|s| [s.province_code.clone(), s.city_code.clone()])
        .flatten()
        .collect();
    let names = fleet::region_names(&state, &codes).await?;
    let by_station = revenues(&state, &fleet).await?;
    let name_of = |c: &Option<String>| c.as_ref().and_then(|c| names.get(c).cloned());
    Ok(Data(
        fleet
            .stations
            .iter()
            .map(|s| {
                let live = fleet.live(s.id);
                MapStation {
                    id: Id(s.id),
                    name: s.name.clone(),
                    latitude: s.latitude,
                    longitude: s.longitude,
                    province_name: name_of(&s.province_code),
                    province_code: s.province_code.clone(),
                    city_name: name_of(&s.city_code),
                    city_code: s.city_code.clone(),
                    installation_status: s.installation_status.clone(),
                    status: status_key(s, &live).to_owned(),
                    online: live.online,
                    current_power_kw: kilo(live.power_w),
                    capacity_kwp: s.capacity_kwp,
                    capacity_kw: s.capacity_kw,
                    today_energy_kwh: live.today_wh.map(kilo),
                    total_energy_kwh: live.total_wh.map(kilo),
                    today_revenue: by_station.get(&s.id).map_or(0.0, |r| r.today),
                    month_revenue: by_station.get(&s.id).map_or(0.0, |r| r.month),
                    update_time: live.last_update.map(time::format_ms),
                }
            })
            .collect(),
    ))
}

/// The home page routes (`/api/homePage/...`).
pub fn routes<S>() -> OpenApiRouter<S>
where
    S: Clone + Send + Sync + 'static,
    Core: axum::extract::FromRef<S>,
    crate::telemetry::context::TelemetryCtx: axum::extract::FromRef<S>,
{
    OpenApiRouter::new()
        .routes(routes!(data))
        .routes(routes!(map))
        .routes(routes!(curve::power_curve))
}
