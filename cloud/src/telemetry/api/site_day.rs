//! Live energy figures cut at each station's own midnight (the one clock rule, `kernel::clock`):
//! "today", "this month" and "this year" of a station are its local calendar's, whatever the
//! hub's clock. The rollup worker cuts day rows at the hub's midnight, so a station on another
//! clock reads the rows that tile its days instead: hour rows for a whole-hour difference, else
//! 5-minute rows (as reports do, `analytics::data::energy_period`).

use std::collections::{BTreeMap, HashMap};

use serde_json::Value as Json;

use sqlx::Row;

use super::Day;
use crate::auth::scope::StationScope;
use crate::kernel::clock::{SiteClock, hub_offset_ms};
use crate::kernel::sql::{Sql, Value};
use crate::kernel::{ApiError, Core, Id};
use crate::telemetry::realtime::KIND_INVERTER;
use crate::telemetry::station_day;

const HOUR_MS: i64 = 3_600_000;

/// What a day rollup of an inverter says: energy counted so far and the last counter reading.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct DayRollup {
    pub energy_wh: Option<f64>,
    /// `energy_total` last reading in the bucket (the `last` of `[avg, min, max, last]`).
    pub last_total: Option<f64>,
}

impl DayRollup {
    pub fn parse(energy_wh: Option<f64>, metrics: &str) -> DayRollup {
        let last_total = serde_json::from_str::<Json>(metrics)
            .ok()
            .and_then(|m| m.get("energy_total")?.get(3)?.as_f64());
        DayRollup {
            energy_wh,
            last_total,
        }
    }

    /// This rollup followed by a later one of the same day: energies add up, the later counter
    /// reading stands.
    pub fn then(self, later: DayRollup) -> DayRollup {
        DayRollup {
            energy_wh: match (self.energy_wh, later.energy_wh) {
                (Some(a), Some(b)) => Some(a + b),
                (a, b) => a.or(b),
            },
            last_total: later.last_total.or(self.last_total),
        }
    }
}

/// The rollup period whose buckets start on `clock`'s midnights.
pub fn day_period(clock: SiteClock) -> &'static str {
    let diff = clock.offset_ms() - hub_offset_ms();
    if diff == 0 {
        "1d"
    } else if diff % HOUR_MS == 0 {
        "1h"
    } else {
        "5m"
    }
}

fn ids(raw: &[i64]) -> Vec<Id> {
    raw.iter().map(|i| Id(*i)).collect()
}

/// Today in a station's clock, at `now` (epoch ms, the hub's `Core::clock`).
pub fn today_of(clock: SiteClock, now: i64) -> Day {
    Day::of_in(clock.today_at(now), clock)
}

/// Stations grouped by the rows that tile their `[from(day), day.start)` window: one query per
/// group, and all stations on the hub's clock form one group.
fn groups(days: &[(i64, Day)], from: impl Fn(&Day) -> i64) -> BTreeMap<(&'static str, i64, i64), Vec<i64>> {
    let mut out: BTreeMap<(&'static str, i64, i64), Vec<i64>> = BTreeMap::new();
    for (station, day) in days {
        out.entry((day_period(day.clock), from(day), day.end))
            .or_default()
            .push(*station);
    }
    out
}

/// The inverters' rollups of each station's day (`days`: station → its day), combined per
/// device: energy summed, the last `energy_total` reading of the latest row. `devices` narrows to
/// those inverters. Device → (station, rollup).
pub async fn day_rollups(
    core: &Core,
    scope: &StationScope,
    days: &[(i64, Day)],
    devices: Option<&[i64]>,
) -> Result<HashMap<i64, (i64, DayRollup)>, ApiError> {
    let mut out: HashMap<i64, (i64, DayRollup)> = HashMap::new();
    if devices.is_some_and(<[i64]>::is_empty) {
        return Ok(out);
    }
    for ((period, start, end), stations) in groups(days, |d| d.start) {
        let mut sql = Sql::new(
            "SELECT r.device_id, r.station_id, r.energy_wh, r.metrics FROM pv_telemetry_rollup r \
             JOIN pv_station s ON s.id = r.station_id WHERE ",
        );
        sql.append(&scope.stations("s"));
        // The rollup's own tenant too: it leads the rollup index (the join above scopes the rows).
        sql.push_bind(
            " AND r.tenant_id = ? AND r.period = ? AND r.bucket >= ? AND r.bucket < ? AND r.device_kind = ? \
             AND r.station_id IN (",
            [
                Value::Text(scope.tenant_id.clone()),
                Value::from(period),
                Value::Int(start),
                Value::Int(end),
                KIND_INVERTER.into(),
            ],
        );
        sql.push_ids(&ids(&stations));
        sql.push(")");
        if let Some(devices) = devices {
            sql.push(" AND r.device_id IN (");
            sql.push_ids(&ids(devices));
            sql.push(")");
        }
        sql.push(" ORDER BY r.bucket");
        for r in sql.rows(core.db.pool()).await? {
            let metrics: String = r.try_get("metrics")?;
            let row = DayRollup::parse(r.try_get("energy_wh")?, &metrics);
            let (_, acc) = out
                .entry(r.try_get::<i64, _>("device_id")?)
                .or_insert((r.try_get::<i64, _>("station_id")?, DayRollup::default()));
            *acc = acc.then(row);
        }
    }
    Ok(out)
}

/// Generation per station from its inverters' rollups over its own month and year up to its
/// today (whole past local days; today comes from the live rule): (month, year) Wh by station.
pub async fn month_and_year_before_today(
    core: &Core,
    scope: &StationScope,
    days: &[(i64, Day)],
) -> Result<(HashMap<i64, f64>, HashMap<i64, f64>), ApiError> {
    let mut month = HashMap::new();
    let mut year = HashMap::new();
    for (into, from) in [
        (&mut month, Day::month_start as fn(&Day) -> i64),
        (&mut year, Day::year_start as fn(&Day) -> i64),
    ] {
        for ((period, start, today_end), stations) in groups(days, from) {
            // Up to the group's today (a fixed offset's day is 24 h long).
            let end = today_end - 86_400_000;
            if start >= end {
                continue;
            }
            let sql = if period == "1d" {
                // Stations on the hub's clock: their days are the station-day summary's rows
                // (one per station and day, as the reports read them), not one per inverter
                // and day — a year of a 100-station fleet is 33 000 rows instead of 660 000.
                station_day::ensure_current(&core.db, &stations).await?;
                let mut sql = Sql::new(
                    "SELECT r.station_id, SUM(r.energy_wh) AS wh FROM pv_telemetry_station_day r \
                     JOIN pv_station s ON s.id = r.station_id WHERE ",
                );
                sql.append(&scope.stations("s"));
                sql.push_bind(
                    " AND s.tenant_id = ? AND r.bucket >= ? AND r.bucket < ? AND r.station_id IN (",
                    [
                        Value::Text(scope.tenant_id.clone()),
                        Value::Int(start),
                        Value::Int(end),
                    ],
                );
                sql.push_ids(&ids(&stations));
                sql.push(") GROUP BY r.station_id");
                sql
            } else {
                let mut sql = Sql::new(
                    "SELECT r.station_id, SUM(r.energy_wh) AS wh FROM pv_telemetry_rollup r \
                     JOIN pv_station s ON s.id = r.station_id WHERE ",
                );
                sql.append(&scope.stations("s"));
                sql.push_bind(
                    " AND r.tenant_id = ? AND r.period = ? AND r.device_kind = ? AND r.bucket >= ? AND r.bucket < ? \
                     AND r.station_id IN (",
                    [
                        Value::Text(scope.tenant_id.clone()),
                        Value::from(period),
                        KIND_INVERTER.into(),
                        Value::Int(start),
                        Value::Int(end),
                    ],
                );
                sql.push_ids(&ids(&stations));
                sql.push(") GROUP BY r.station_id");
                sql
            };
            for r in sql.rows(core.db.pool()).await? {
                into.insert(
                    r.try_get::<i64, _>("station_id")?,
                    r.try_get::<Option<f64>, _>("wh")?.unwrap_or(0.0),
                );
            }
        }
    }
    Ok((month, year))
}

/// Lifetime counted energy per station: the sum of every day of its station-day summary (its
/// live inverters' day rollups), the same rows every report sums — not the inverters' own
/// counters. Days are cut at the hub's midnight there, which no lifetime depends on. A station
/// without any counted day is absent.
pub async fn lifetime_wh(
    core: &Core,
    scope: &StationScope,
    stations: &[i64],
) -> Result<HashMap<i64, f64>, ApiError> {
    let mut out = HashMap::new();
    if stations.is_empty() {
        return Ok(out);
    }
    station_day::ensure_current(&core.db, stations).await?;
    let mut sql = Sql::new(
        "SELECT r.station_id, SUM(r.energy_wh) AS wh, CAST(SUM(r.energy_n) AS BIGINT) AS n \
         FROM pv_telemetry_station_day r JOIN pv_station s ON s.id = r.station_id WHERE ",
    );
    sql.append(&scope.stations("s"));
    sql.push_bind(
        " AND s.tenant_id = ? AND r.station_id IN (",
        [Value::Text(scope.tenant_id.clone())],
    );
    sql.push_ids(&ids(stations));
    sql.push(") GROUP BY r.station_id");
    for r in sql.rows(core.db.pool()).await? {
        if r.try_get::<Option<i64>, _>("n")?.unwrap_or(0) > 0
            && let Some(wh) = r.try_get::<Option<f64>, _>("wh")?
        {
            out.insert(r.try_get::<i64, _>("station_id")?, wh);
        }
    }
    Ok(out)
}

/// Lifetime counted energy per inverter: the sum of its day rollups (what the station's
/// lifetime adds up). An inverter without any is absent.
pub async fn inverter_lifetime_wh(
    core: &Core,
    tenant: &str,
    inverters: &[i64],
) -> Result<HashMap<i64, f64>, ApiError> {
    let mut out = HashMap::new();
    if inverters.is_empty() {
        return Ok(out);
    }
    let mut sql = Sql::default();
    sql.push_bind(
        "SELECT device_id, SUM(energy_wh) AS wh, COUNT(energy_wh) AS n FROM pv_telemetry_rollup \
         WHERE tenant_id = ? AND period = '1d' AND device_id IN (",
        [Value::Text(tenant.to_owned())],
    );
    sql.push_ids(&ids(inverters));
    sql.push(") GROUP BY device_id");
    for r in sql.rows(core.db.pool()).await? {
        if r.try_get::<i64, _>("n")? > 0
            && let Some(wh) = r.try_get::<Option<f64>, _>("wh")?
        {
            out.insert(r.try_get::<i64, _>("device_id")?, wh);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_station_reads_the_rows_that_start_on_its_midnights() {
        // The hub's default clock is +08:00.
        assert_eq!(day_period(SiteClock::of(Some(480))), "1d");
        assert_eq!(day_period(SiteClock::of(None)), "1d");
        assert_eq!(day_period(SiteClock::of(Some(-720))), "1h");
        assert_eq!(day_period(SiteClock::of(Some(330))), "5m");
    }

    #[test]
    fn stations_of_one_clock_share_a_query() {
        // 2028-02-29 08:30 at +08:00 (00:30 UTC): still 28 February at -12:00.
        let now = 1_835_397_000_000;
        let hub = today_of(SiteClock::hub(), now);
        let far = today_of(SiteClock::of(Some(-720)), now);
        let g = groups(&[(1, hub), (2, far), (3, hub)], |d| d.start);
        assert_eq!(g.len(), 2);
        assert_eq!(g[&("1d", hub.start, hub.end)], vec![1, 3]);
        assert_eq!(g[&("1h", far.start, far.end)], vec![2]);
        assert_eq!(hub.date.to_string(), "2028-02-29");
        assert_eq!(far.date.to_string(), "2028-02-28");
    }
}
