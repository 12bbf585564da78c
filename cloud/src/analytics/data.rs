//! What the analytics read, and only from the rollups (`pv_telemetry_rollup`), never raw
//! samples: the 5-minute rows' averages are the dispersion's instants, and counter energies of
//! day (or hour) rows are the full-load hours' E. Reading rollups keeps a report's cost
//! independent of the sampling rate and makes every page agree with the charts and reports,
//! which read the same rows.
//!
//! Site-local time (contracts/alarms.md): a station's clock is `pv_station.utc_offset_minutes`
//! when set, else the hub's `timezone`; its day windows (10:00-14:00, local days) are taken in it.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use chrono::NaiveDate;
use serde_json::Value as Json;
use sqlx::Row;

use super::dispersion::{self, Figure, Instant};
use super::hours;
use crate::kernel::clock::SiteClock;
use crate::kernel::sql::{Sql, Value};
use crate::kernel::{ApiError, Core, Id};

pub const MINUTE_MS: i64 = 60_000;
pub const HOUR_MS: i64 = 3_600_000;
pub const DAY_MS: i64 = 86_400_000;
/// Dispersion is measured from 10:00 to 14:00 station-local time, when the strings get their
/// strongest light.
pub const WINDOW_START_MS: i64 = 10 * HOUR_MS;
pub const WINDOW_END_MS: i64 = 14 * HOUR_MS;
/// Dispersion is measured on inverters with at least 6 strings only.
pub const MIN_STRINGS: i64 = 6;

/// A station as the analytics need it.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct StationRow {
    pub id: i64,
    pub tenant_id: String,
    pub name: String,
    /// kWp (DC).
    pub component_capacity: Option<f64>,
    pub component_count: Option<i64>,
    pub utc_offset_minutes: Option<i64>,
}

impl StationRow {
    /// The station's clock (the one clock rule, `kernel::clock`).
    pub fn clock(&self) -> SiteClock {
        SiteClock::of(self.utc_offset_minutes)
    }

    /// Milliseconds the station's clock is ahead of UTC.
    pub fn offset_ms(&self) -> i64 {
        self.clock().offset_ms()
    }

    /// The station's local date at `ms`.
    pub fn local_date(&self, ms: i64) -> NaiveDate {
        self.clock().date_of(ms)
    }

    /// Epoch ms of the station's local midnight starting `date`.
    pub fn midnight(&self, date: NaiveDate) -> i64 {
        self.clock().midnight(date)
    }
}

pub use crate::kernel::clock::{hub_offset_ms, local_date, midnight};

/// An inverter as the analytics need it.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct InverterRow {
    pub id: i64,
    pub station_id: i64,
    pub name: String,
    /// kW (AC).
    #[sqlx(rename = "rated_power")]
    pub rated_power_kw: Option<f64>,
    pub strings_count: i64,
    pub modules_per_string: Option<String>,
}

impl InverterRow {
    pub fn modules(&self) -> Vec<u32> {
        dispersion::modules_of(self.strings_count, self.modules_per_string.as_deref())
    }

    /// Modules as the registry lists them (for P0); `None` when it does not name every string.
    pub fn listed_modules(&self) -> Option<Vec<u32>> {
        let list = self.modules_per_string.as_deref()?;
        let parsed: Option<Vec<u32>> = list
            .split(',')
            .filter(|p| !p.trim().is_empty())
            .map(|p| p.trim().parse().ok())
            .collect();
        parsed.filter(|l| l.len() as i64 == self.strings_count)
    }

    /// P0 (kWp), see [`hours::inverter_p0_kwp`].
    pub fn p0_kwp(&self, station: &StationRow) -> Option<f64> {
        let wp = hours::module_wp(station.component_capacity, station.component_count);
        hours::inverter_p0_kwp(self.listed_modules().as_deref(), wp, self.rated_power_kw)
    }
}

/// Live stations matching `condition` (on alias `s`), by name.
pub async fn stations(state: &Core, condition: &Sql) -> Result<Vec<StationRow>, ApiError> {
    let mut sql = Sql::new(
        "SELECT s.id, s.tenant_id, s.name, s.component_capacity, s.component_count, s.utc_offset_minutes \
         FROM pv_station s WHERE ",
    );
    sql.append(condition);
    sql.push(" ORDER BY s.name, s.id");
    sql.fetch_all(state.db.pool()).await
}

/// Live stations of a tenant (the warning job's view: no caller scope).
pub async fn tenant_stations(state: &Core, tenant: &str) -> Result<Vec<StationRow>, ApiError> {
    let mut cond = Sql::default();
    // By tenant: the job acts for each tenant in turn, with no caller.
    cond.push_bind("s.tenant_id = ? AND s.is_deleted = 0", [Value::from(tenant)]);
    stations(state, &cond).await
}

/// Live inverters of `stations` with at least `min_strings` strings, by name.
pub async fn inverters(
    state: &Core,
    stations: &[i64],
    min_strings: i64,
) -> Result<Vec<InverterRow>, ApiError> {
    if stations.is_empty() {
        return Ok(vec![]);
    }
    let mut sql = Sql::new(
        "SELECT id, station_id, name, rated_power, strings_count, modules_per_string FROM pv_inverter \
         WHERE is_deleted = 0 AND station_id IN (",
    );
    sql.push_ids(&stations.iter().copied().map(Id).collect::<Vec<_>>());
    sql.push_bind(
        ") AND strings_count >= ? ORDER BY name, id",
        [Value::Int(min_strings)],
    );
    sql.fetch_all(state.db.pool()).await
}

/// The `avg` of `metric` in a rollup's `metrics` JSON (`metric -> [avg, min, max, last]`).
fn avg_of(metrics: &Json, metric: &str) -> Option<f64> {
    metrics.get(metric)?.get(0)?.as_f64().filter(|v| v.is_finite())
}

/// The dispersion of `inverters` (all of `station`) on the station's local `date`, from the
/// 5-minute rollups starting within 10:00-14:00 local time. Irradiance comes from the station's
/// weather station (`irradiance_avg`, else the `irradiance_poa` / `irradiance_ghi` averages).
pub async fn dispersion_of_day(
    state: &Core,
    station: &StationRow,
    inverters: &[&InverterRow],
    date: NaiveDate,
    setting: &dispersion::Setting,
) -> Result<HashMap<i64, Figure>, ApiError> {
    if inverters.is_empty() {
        return Ok(HashMap::new());
    }
    let start = station.midnight(date) + WINDOW_START_MS;
    let end = station.midnight(date) + WINDOW_END_MS;
    let mut weather = Sql::default();
    weather.push_bind(
        "SELECT id FROM pv_weather WHERE is_deleted = 0 AND station_id = ?",
        [Value::Int(station.id)],
    );
    let weather: HashSet<i64> = weather
        .scalars::<i64, _>(state.db.pool())
        .await?
        .into_iter()
        .collect();
    let wanted: HashSet<i64> = inverters.iter().map(|i| i.id).collect();
    let mut sql = Sql::default();
    sql.push_bind(
        "SELECT device_id, bucket, power_avg_w, irradiance_avg, metrics FROM pv_telemetry_rollup \
         WHERE station_id = ? AND period = '5m' AND bucket >= ? AND bucket < ? ORDER BY bucket",
        [Value::Int(station.id), Value::Int(start), Value::Int(end)],
    );
    let mut irradiance: HashMap<i64, f64> = HashMap::new();
    let mut rows_of: HashMap<i64, Vec<(i64, Option<f64>, Json)>> = HashMap::new();
    for r in sql.rows(state.db.pool()).await? {
        let device: i64 = r.try_get("device_id")?;
        let bucket: i64 = r.try_get("bucket")?;
        let metrics: String = r.try_get("metrics")?;
        // A row whose JSON does not parse counts as having no metrics, not as an error page.
        let metrics: Json = serde_json::from_str(&metrics).unwrap_or(Json::Null);
        if weather.contains(&device) {
            let g = r
                .try_get::<Option<f64>, _>("irradiance_avg")?
                .or_else(|| avg_of(&metrics, "irradiance_poa"))
                .or_else(|| avg_of(&metrics, "irradiance_ghi"));
            if let Some(g) = g {
                irradiance.insert(bucket, g);
            }
        } else if wanted.contains(&device) {
            let power = r.try_get::<Option<f64>, _>("power_avg_w")?;
            rows_of.entry(device).or_default().push((bucket, power, metrics));
        }
    }
    let mut out = HashMap::new();
    for inv in inverters {
        let modules = inv.modules();
        let instants: Vec<Instant> = rows_of
            .get(&inv.id)
            .map(|rows| {
                rows.iter()
                    .map(|(bucket, power, m)| Instant {
                        currents: (1..=modules.len())
                            .map(|n| avg_of(m, &format!("pv{n}_current")))
                            .collect(),
                        ac_power_w: power.or_else(|| avg_of(m, "ac_power")),
                        irradiance_wm2: irradiance.get(bucket).copied(),
                    })
                    .collect()
            })
            .unwrap_or_default();
        let rated_w = inv.rated_power_kw.map(|kw| kw * 1000.0);
        out.insert(
            inv.id,
            dispersion::inverter_figure(&modules, &instants, rated_w, setting),
        );
    }
    Ok(out)
}

/// The rollup period whose buckets start on the station's local midnights: day rows when the
/// station keeps the hub's clock (days are rolled up at the hub's midnight), hour rows for a
/// whole-hour difference, else 5-minute rows.
pub fn energy_period(station: &StationRow) -> &'static str {
    let diff = station.offset_ms() - hub_offset_ms();
    if diff == 0 {
        "1d"
    } else if diff % HOUR_MS == 0 {
        "1h"
    } else {
        "5m"
    }
}

/// Counter energy (Wh) per inverter of `station` over its local days `from..=to`; inverters
/// without any rollup row with energy are absent (no data, as opposed to 0 Wh).
pub async fn energy_wh(
    state: &Core,
    station: &StationRow,
    from: NaiveDate,
    to: NaiveDate,
) -> Result<HashMap<i64, f64>, ApiError> {
    let start = station.midnight(from);
    let end = station.midnight(to) + DAY_MS;
    let mut sql = Sql::default();
    sql.push_bind(
        "SELECT device_id, SUM(energy_wh) AS e, COUNT(energy_wh) AS n FROM pv_telemetry_rollup \
         WHERE station_id = ? AND period = ? AND bucket >= ? AND bucket < ? AND device_kind = 'inverter' \
         GROUP BY device_id",
        [
            Value::Int(station.id),
            Value::from(energy_period(station)),
            Value::Int(start),
            Value::Int(end),
        ],
    );
    let mut out = HashMap::new();
    for r in sql.rows(state.db.pool()).await? {
        let n: i64 = r.try_get("n")?;
        let e: Option<f64> = r.try_get("e")?;
        if let (true, Some(e)) = (n > 0, e) {
            out.insert(r.try_get::<i64, _>("device_id")?, e);
        }
    }
    Ok(out)
}

/// The hour buckets with data of each inverter of `station` over its local days `from..=to`
/// (the evidence of [`hours::covered_days`]).
pub async fn hour_buckets(
    state: &Core,
    station: &StationRow,
    from: NaiveDate,
    to: NaiveDate,
) -> Result<HashMap<i64, BTreeSet<i64>>, ApiError> {
    let mut sql = Sql::default();
    sql.push_bind(
        "SELECT device_id, bucket FROM pv_telemetry_rollup WHERE station_id = ? AND period = '1h' \
         AND device_kind = 'inverter' AND bucket >= ? AND bucket < ?",
        [
            Value::Int(station.id),
            Value::Int(station.midnight(from)),
            Value::Int(station.midnight(to) + DAY_MS),
        ],
    );
    let mut out: HashMap<i64, BTreeSet<i64>> = HashMap::new();
    for r in sql.rows(state.db.pool()).await? {
        out.entry(r.try_get("device_id")?)
            .or_default()
            .insert(r.try_get("bucket")?);
    }
    Ok(out)
}

/// Full-load hours of one unit.
#[derive(Debug, Clone, PartialEq)]
pub struct HoursFigure {
    pub capacity_kwp: Option<f64>,
    pub energy_kwh: Option<f64>,
    pub hours: Option<f64>,
    pub ref_hours: Option<f64>,
    pub deviation_pct: Option<f64>,
    pub flagged: bool,
}

/// Stations' and inverters' full-load hours over `from..=to` (each station's local days):
/// stations against the mean of `stations` with data, inverters against their station's mean.
pub struct HoursReport {
    pub stations: BTreeMap<i64, HoursFigure>,
    /// (inverter, its station's id, figure), every live inverter of the stations.
    pub inverters: Vec<(InverterRow, HoursFigure)>,
}

pub async fn hours_report(
    state: &Core,
    stations: &[StationRow],
    from: NaiveDate,
    to: NaiveDate,
    threshold_pct: f64,
) -> Result<HoursReport, ApiError> {
    let ids: Vec<i64> = stations.iter().map(|s| s.id).collect();
    let all_inverters = inverters(state, &ids, 0).await?;
    let mut station_raw: Vec<(i64, Option<f64>, Option<f64>)> = Vec::new();
    let mut inverter_out = Vec::new();
    for s in stations {
        let energy = energy_wh(state, s, from, to).await?;
        let invs: Vec<&InverterRow> = all_inverters.iter().filter(|i| i.station_id == s.id).collect();
        // Only registered, live inverters count as the station's generation.
        let counted: Vec<f64> = invs.iter().filter_map(|i| energy.get(&i.id).copied()).collect();
        let station_kwh = (!counted.is_empty()).then(|| counted.iter().sum::<f64>() / 1000.0);
        station_raw.push((s.id, s.component_capacity, station_kwh));
        let figures: Vec<(Option<f64>, Option<f64>)> = invs
            .iter()
            .map(|i| (i.p0_kwp(s), energy.get(&i.id).map(|wh| wh / 1000.0)))
            .collect();
        let hs: Vec<Option<f64>> = figures.iter().map(|(p0, e)| hours::hours(*e, *p0)).collect();
        let h_ref = hours::reference(&hs);
        for ((inv, (p0, e)), h) in invs.into_iter().zip(figures).zip(hs) {
            let dev = hours::deviation_pct(h, h_ref);
            inverter_out.push((
                inv.clone(),
                HoursFigure {
                    capacity_kwp: p0,
                    energy_kwh: e,
                    hours: h,
                    ref_hours: h_ref,
                    deviation_pct: dev,
                    flagged: hours::flagged(dev, threshold_pct),
                },
            ));
        }
    }
    let hs: Vec<Option<f64>> = station_raw
        .iter()
        .map(|(_, p0, e)| hours::hours(*e, *p0))
        .collect();
    let h_ref = hours::reference(&hs);
    let stations = station_raw
        .into_iter()
        .zip(hs)
        .map(|((id, p0, e), h)| {
            let dev = hours::deviation_pct(h, h_ref);
            (
                id,
                HoursFigure {
                    capacity_kwp: p0,
                    energy_kwh: e,
                    hours: h,
                    ref_hours: h_ref,
                    deviation_pct: dev,
                    flagged: hours::flagged(dev, threshold_pct),
                },
            )
        })
        .collect();
    Ok(HoursReport {
        stations,
        inverters: inverter_out,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_days_in_any_offset() {
        // 2026-03-01 00:00 at +08:00 is 2026-02-28 16:00 UTC = 1_772_294_400_000 ms.
        let d = NaiveDate::from_ymd_opt(2026, 3, 1).unwrap();
        assert_eq!(midnight(d, 8 * HOUR_MS), 1_772_294_400_000);
        assert_eq!(local_date(1_772_294_400_000, 8 * HOUR_MS), d);
        assert_eq!(
            local_date(1_772_294_400_000 - 1, 8 * HOUR_MS),
            d.pred_opt().unwrap()
        );
        // A site 20 h ahead of UTC (the demo's +08:00 plus a +12 h shift) sees 10:00 local at
        // 14:00 UTC of the previous day.
        assert_eq!(
            midnight(d, 20 * HOUR_MS) + WINDOW_START_MS,
            1_772_294_400_000 - 12 * HOUR_MS + 10 * HOUR_MS
        );
        assert_eq!(
            local_date(0, -HOUR_MS),
            NaiveDate::from_ymd_opt(1969, 12, 31).unwrap()
        );
    }

    #[test]
    fn energy_rows_start_on_local_midnights() {
        let s = |m: Option<i64>| StationRow {
            id: 1,
            tenant_id: "t".into(),
            name: "s".into(),
            component_capacity: None,
            component_count: None,
            utc_offset_minutes: m,
        };
        // The hub's default is +08:00.
        assert_eq!(energy_period(&s(None)), "1d");
        assert_eq!(energy_period(&s(Some(480))), "1d");
        assert_eq!(energy_period(&s(Some(660))), "1h");
        assert_eq!(energy_period(&s(Some(330))), "5m");
    }
}
