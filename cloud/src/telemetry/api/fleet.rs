//! The stations a caller may see with their live summary: what the home page, its map, the area
//! lists and the province statistics are computed from. One load is a handful of queries
//! whatever the number of stations (stations, registered devices, today's day rollups); live
//! values come from the realtime view in memory.
//!
//! Definitions (documented for the console in `contracts/telemetry-api.md`):
//! - current power: sum of `ac_power` of the station's *online* inverters (an offline device's
//!   last value is history, not power now);
//! - today's energy: the counted energy of the station's live inverters in its today, from their
//!   rollups ([`today_energy_wh`]), as the generation report and the bill count it (so it trails
//!   the live counters by the rollup delay); null without any rollup today;
//! - total energy: the lifetime counted energy, the sum of every day of the station-day summary
//!   (`site_day::lifetime_wh`), as the reports count it — never a device's own `energy_total`
//!   or `energy_today` register (a register read once wrong, reset or swapped is not energy);
//! - communicating (online): its gateway is online, or at least one of its devices is (a gateway
//!   keeps a station online at night when inverters sleep);
//! - fault: the station has an open (active or acknowledged) station-fault alarm (type 1) —
//!   the alarm engine's view, so the map, the home totals and the alarm page agree.

use std::collections::{HashMap, HashSet};

use sqlx::Row;

use super::Day;
pub use super::site_day::DayRollup;
use super::site_day::{self, today_of};
use crate::auth::scope::StationScope;
use crate::kernel::ApiError;
use crate::kernel::Core;
use crate::kernel::clock::SiteClock;
use crate::kernel::sql::{Sql, Value};
use crate::telemetry::context::TelemetryCtx;
use crate::telemetry::realtime::{DeviceLive, KIND_INVERTER};

/// Installation status of a station (`pv_station.installation_status`).
pub const COMMISSIONING: &str = crate::station::station_store::COMMISSIONING;
pub const RUNNING: &str = crate::station::station_store::RUNNING;

/// Device registries whose rows telemetry names by id (see `contracts/telemetry.md`).
const DEVICE_TABLES: &[&str] = &["pv_inverter", "pv_meter", "pv_weather", "pv_flex"];

/// A station row as the summaries need it.
#[derive(Debug, Clone)]
pub struct StationInfo {
    pub id: i64,
    pub name: String,
    pub installation_status: String,
    /// kW (AC), as declared.
    pub capacity_kw: Option<f64>,
    /// kWp (DC): the P0 of yield figures.
    pub capacity_kwp: Option<f64>,
    pub latitude: Option<f64>,
    pub longitude: Option<f64>,
    pub province_code: Option<String>,
    pub city_code: Option<String>,
    pub gateway_id: Option<String>,
    /// The station's clock: its "today" (the one clock rule).
    pub clock: SiteClock,
}

/// The live summary of one station.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StationLive {
    pub power_w: f64,
    /// Counted energy today; `None` when no inverter of the station has a rollup today.
    pub today_wh: Option<f64>,
    /// Lifetime counted energy; `None` when the station has no counted day.
    pub total_wh: Option<f64>,
    pub online: bool,
    pub fault: bool,
    pub inverters_online: usize,
    /// Newest sample time of its devices, epoch ms.
    pub last_update: Option<i64>,
}

/// The caller's visible stations and their live summaries, each for its own today (the
/// station's clock).
pub struct Fleet {
    /// Station → its today.
    pub days: Vec<(i64, Day)>,
    pub scope: StationScope,
    pub stations: Vec<StationInfo>,
    live: HashMap<i64, StationLive>,
}

/// Today's generation of one inverter: the energy its rollups of the day counted (counter
/// deltas as the rollup worker counts them), the figure every report and the bill read. Neither
/// the live counter nor the device's own `energy_today` register is added: they bypass the
/// counting rules (a glitch, a reset or a swapped device would count), so a page would disagree
/// with the reports about the same hour. `None` without a rollup today.
pub fn today_energy_wh(rollup: Option<&DayRollup>) -> Option<f64> {
    rollup.and_then(|r| r.energy_wh)
}

/// The colour key of a station on the map and in area lists, first match wins:
/// `commissioning` (installation status 1), `offline` (not communicating), `fault` (an open
/// station-fault alarm), `producing` (current power > 0), `standby` (online, no power: night).
pub fn status_key(info: &StationInfo, live: &StationLive) -> &'static str {
    if info.installation_status == COMMISSIONING {
        "commissioning"
    } else if !live.online {
        "offline"
    } else if live.fault {
        "fault"
    } else if live.power_w > 0.0 {
        "producing"
    } else {
        "standby"
    }
}

/// The live devices of `station` the caller may count: same tenant, still registered.
pub fn live_devices(
    state: &TelemetryCtx,
    tenant: &str,
    station: i64,
    registered: &HashSet<i64>,
) -> Vec<DeviceLive> {
    state
        .realtime
        .station(station)
        .into_iter()
        .filter(|d| d.tenant_id == tenant && d.station_id == station && registered.contains(&d.device_id))
        .collect()
}

impl Fleet {
    pub async fn load(state: &TelemetryCtx, scope: StationScope) -> Result<Fleet, ApiError> {
        let stations = stations(state, &scope).await?;
        let now = state.clock.now_ms();
        let days: Vec<(i64, Day)> = stations.iter().map(|s| (s.id, today_of(s.clock, now))).collect();
        let mut fleet = Fleet {
            days,
            scope,
            stations,
            live: HashMap::new(),
        };
        if fleet.stations.is_empty() {
            return Ok(fleet);
        }
        let registered = registered_devices(state, &fleet.scope).await?;
        let faulty = stations_with_open_faults(state, &fleet.scope).await?;
        let rollups = site_day::day_rollups(state, &fleet.scope, &fleet.days, None).await?;
        let ids: Vec<i64> = fleet.stations.iter().map(|s| s.id).collect();
        let lifetime = site_day::lifetime_wh(state, &fleet.scope, &ids).await?;
        let mut rollups_by_station: HashMap<i64, Vec<(i64, DayRollup)>> = HashMap::new();
        for (device, (station, r)) in rollups {
            rollups_by_station.entry(station).or_default().push((device, r));
        }
        for s in &fleet.stations {
            let devices = live_devices(state, &fleet.scope.tenant_id, s.id, &registered);
            let gateway_online = s
                .gateway_id
                .as_deref()
                .filter(|g| !g.is_empty())
                .and_then(|g| state.realtime.gateway(g))
                .is_some_and(|g| g.online && g.tenant_id == fleet.scope.tenant_id && g.station_id == s.id);
            let mut live = StationLive {
                online: gateway_online || devices.iter().any(|d| d.online),
                fault: faulty.contains(&s.id),
                last_update: devices.iter().map(|d| d.ts).max(),
                total_wh: lifetime.get(&s.id).copied(),
                ..StationLive::default()
            };
            let inverters: HashMap<i64, &DeviceLive> = devices
                .iter()
                .filter(|d| d.kind == KIND_INVERTER)
                .map(|d| (d.device_id, d))
                .collect();
            for d in inverters.values() {
                if d.online {
                    live.inverters_online += 1;
                    live.power_w += d.number("ac_power").unwrap_or(0.0);
                }
            }
            // The live inverters only, as the reports count them (a deleted inverter's rollups
            // stay in the table).
            for (device, r) in rollups_by_station.remove(&s.id).unwrap_or_default() {
                if registered.contains(&device)
                    && let Some(wh) = today_energy_wh(Some(&r))
                {
                    live.today_wh = Some(live.today_wh.unwrap_or(0.0) + wh);
                }
            }
            fleet.live.insert(s.id, live);
        }
        Ok(fleet)
    }

    /// The live summary of a listed station (all zero / offline when nothing is known).
    pub fn live(&self, station: i64) -> StationLive {
        self.live.get(&station).cloned().unwrap_or_default()
    }
}

/// The caller's stations with an open station-fault alarm (type 1, active or acknowledged).
async fn stations_with_open_faults(state: &Core, scope: &StationScope) -> Result<HashSet<i64>, ApiError> {
    let mut sql = Sql::new("SELECT DISTINCT a.station_id FROM pv_alarm a WHERE ");
    // Tenant and `condition` by hand, not `rows(..)`: alarms have no deleted flag.
    sql.push_bind(
        "a.tenant_id = ? AND a.type = ? AND a.status < ?",
        [
            Value::from(scope.tenant_id.as_str()),
            Value::Int(crate::alarm::store::TYPE_FAULT),
            Value::Int(crate::alarm::store::STATUS_CLEARED),
        ],
    );
    sql.append(&scope.condition("a.station_id"));
    Ok(sql
        .scalars::<i64, _>(state.db.pool())
        .await?
        .into_iter()
        .collect())
}

pub async fn stations(state: &Core, scope: &StationScope) -> Result<Vec<StationInfo>, ApiError> {
    let mut sql = Sql::new(
        "SELECT s.id, s.name, s.installation_status, s.capacity, s.component_capacity, s.latitude, \
         s.longitude, s.province_code, s.city_code, s.gateway_id, s.utc_offset_minutes FROM pv_station s WHERE ",
    );
    sql.append(&scope.stations("s"));
    sql.push(" ORDER BY s.name, s.id");
    sql.rows(state.db.pool())
        .await?
        .iter()
        .map(|r| {
            Ok(StationInfo {
                id: r.try_get("id")?,
                name: r.try_get("name")?,
                installation_status: r.try_get("installation_status")?,
                capacity_kw: r.try_get("capacity")?,
                capacity_kwp: r.try_get("component_capacity")?,
                latitude: r.try_get("latitude")?,
                longitude: r.try_get("longitude")?,
                province_code: r.try_get("province_code")?,
                city_code: r.try_get("city_code")?,
                gateway_id: r.try_get("gateway_id")?,
                clock: SiteClock::of(r.try_get("utc_offset_minutes")?),
            })
        })
        .collect()
}

/// Ids of the live registry rows (all device kinds) of the stations in scope: a device the view
/// still holds after its removal must not count.
pub async fn registered_devices(state: &Core, scope: &StationScope) -> Result<HashSet<i64>, ApiError> {
    let mut sql = Sql::default();
    for (i, table) in DEVICE_TABLES.iter().enumerate() {
        if i > 0 {
            sql.push(" UNION ALL ");
        }
        sql.push(&format!(
            "SELECT d.id FROM {table} d JOIN pv_station s ON s.id = d.station_id WHERE d.is_deleted = 0 AND "
        ));
        sql.append(&scope.stations("s"));
    }
    Ok(sql
        .scalars::<i64, _>(state.db.pool())
        .await?
        .into_iter()
        .collect())
}

/// Names of region codes (`blade_region`), one query.
pub async fn region_names(state: &Core, codes: &[String]) -> Result<HashMap<String, String>, ApiError> {
    let mut wanted: Vec<&String> = codes.iter().filter(|c| !c.is_empty()).collect();
    wanted.sort();
    wanted.dedup();
    if wanted.is_empty() {
        return Ok(HashMap::new());
    }
    let mut sql = Sql::new("SELECT code, name FROM blade_region WHERE code IN (");
    for (i, c) in wanted.iter().enumerate() {
        sql.push_bind(if i == 0 { "?" } else { ", ?" }, [Value::Text((*c).clone())]);
    }
    sql.push(")");
    Ok(sql
        .fetch_all::<(String, String), _>(state.db.pool())
        .await?
        .into_iter()
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn today_is_the_counted_energy_of_the_rollups_only() {
        let r = DayRollup::parse(Some(5_000.0), r#"{"energy_total": [0, 0, 0, 105000]}"#);
        assert_eq!(r.last_total, Some(105_000.0));
        assert_eq!(today_energy_wh(Some(&r)), Some(5_000.0));
        // Without a rollup: no figure (not the device's own register, not 0).
        assert_eq!(today_energy_wh(None), None);
        assert_eq!(today_energy_wh(Some(&DayRollup::default())), None);
    }

    #[test]
    fn status_keys_take_the_first_match() {
        let info = |status: &str| StationInfo {
            id: 1,
            name: "s".into(),
            installation_status: status.into(),
            capacity_kw: None,
            capacity_kwp: None,
            latitude: None,
            longitude: None,
            province_code: None,
            city_code: None,
            gateway_id: None,
            clock: SiteClock::hub(),
        };
        let live = |online, fault, power_w| StationLive {
            online,
            fault,
            power_w,
            ..StationLive::default()
        };
        assert_eq!(
            status_key(&info(COMMISSIONING), &live(true, true, 5.0)),
            "commissioning"
        );
        assert_eq!(status_key(&info(RUNNING), &live(false, false, 0.0)), "offline");
        assert_eq!(status_key(&info(RUNNING), &live(true, true, 5.0)), "fault");
        assert_eq!(status_key(&info(RUNNING), &live(true, false, 5.0)), "producing");
        assert_eq!(status_key(&info(RUNNING), &live(true, false, 0.0)), "standby");
    }
}
