//! The station-day summary (`pv_telemetry_station_day`): per station and local day, the sums of
//! the day rollups of its live devices that month, year and multi-year reports read (inverter
//! energy, grid meter import and export, weather irradiation), each with the number of rows that
//! carried it; and its hours (`pv_telemetry_station_hour`, see `station_hour`) for the
//! performance ratio and the bill. It is a pure function of the day rollups and of the station's live devices, so it
//! is exact and rewriting it is idempotent:
//!
//! - the rollup worker rewrites the days and hours it recomputes ([`refresh`]), so a late sample
//!   for a past day reaches the summary with its rollups;
//! - a station whose live devices are not the set its rows were summed over (a device added,
//!   deleted, a meter no longer the grid meter) is rebuilt from its day rollups before it is read
//!   ([`ensure_current`]), and at start-up ([`backfill`]).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use sqlx::Row;

use super::station_hour;
use crate::kernel::db::Db;
use crate::kernel::sql::{Sql, Value};
use crate::kernel::time;
use crate::kernel::{ApiError, Id};

/// `meter_role` key of the grid-connection meter, whose counters are the station's import and
/// export.
pub const GRID_METER: &str = "1";

/// Leads every key: a summary of another version (holding other figures) is rebuilt.
const KEY_VERSION: &str = "2:";

/// The live devices of each of `stations` as `2:i<ids>|m<ids>|w<ids>` (inverters, grid meters,
/// weather stations, ids ascending); a station without any has the key `2:i|m|w`.
pub async fn live_keys(db: &Db, stations: &[i64]) -> Result<HashMap<i64, String>, ApiError> {
    let mut sets: HashMap<i64, [BTreeSet<i64>; 3]> =
        stations.iter().map(|s| (*s, Default::default())).collect();
    if stations.is_empty() {
        return Ok(HashMap::new());
    }
    let ids: Vec<Id> = stations.iter().copied().map(Id).collect();
    let mut sql = Sql::new(
        "SELECT CAST(0 AS BIGINT) AS k, id, station_id FROM pv_inverter WHERE is_deleted = 0 AND station_id IN (",
    );
    sql.push_ids(&ids);
    sql.push_bind(
        ") UNION ALL SELECT CAST(1 AS BIGINT) AS k, id, station_id FROM pv_meter WHERE is_deleted = 0 AND meter_role = ? \
         AND station_id IN (",
        [Value::from(GRID_METER)],
    );
    sql.push_ids(&ids);
    sql.push(
        ") UNION ALL SELECT CAST(2 AS BIGINT) AS k, id, station_id FROM pv_weather WHERE is_deleted = 0 AND station_id IN (",
    );
    sql.push_ids(&ids);
    sql.push(")");
    for r in sql.rows(db.pool()).await? {
        let k: i64 = r.try_get("k")?;
        let station: i64 = r.try_get("station_id")?;
        if let Some(set) = sets.get_mut(&station) {
            set[usize::try_from(k.clamp(0, 2)).unwrap_or(0)].insert(r.try_get("id")?);
        }
    }
    Ok(sets
        .into_iter()
        .map(|(s, [i, m, w])| {
            let list = |v: &BTreeSet<i64>| v.iter().map(i64::to_string).collect::<Vec<_>>().join(",");
            (
                s,
                format!("{KEY_VERSION}i{}|m{}|w{}", list(&i), list(&m), list(&w)),
            )
        })
        .collect())
}

/// The device ids of a key: all of them, and the weather stations.
fn key_devices(key: &str) -> (Vec<Id>, Vec<Id>) {
    let ids = |part: &str| -> Vec<Id> {
        part.get(1..)
            .unwrap_or("")
            .split(',')
            .filter_map(|s| s.parse().ok())
            .map(Id)
            .collect()
    };
    let body = key.strip_prefix(KEY_VERSION).unwrap_or(key);
    let all = body.split('|').flat_map(ids).collect();
    let weather = body
        .split('|')
        .find(|p| p.starts_with('w'))
        .map(ids)
        .unwrap_or_default();
    (all, weather)
}

/// Keys the summary rows of `stations` were summed over.
async fn stored_keys(db: &Db, stations: &[i64]) -> Result<HashMap<i64, String>, ApiError> {
    let mut out = HashMap::new();
    if stations.is_empty() {
        return Ok(out);
    }
    let mut sql =
        Sql::new("SELECT station_id, devices FROM pv_telemetry_station_devices WHERE station_id IN (");
    sql.push_ids(&stations.iter().copied().map(Id).collect::<Vec<_>>());
    sql.push(")");
    for r in sql.rows(db.pool()).await? {
        out.insert(
            r.try_get::<i64, _>("station_id")?,
            r.try_get::<String, _>("devices")?,
        );
    }
    Ok(out)
}

/// Rewrites the summary rows of `station` for days in `[from, to)` from the day rollups of the
/// devices of `key`: days without any such rollup have no row.
async fn rewrite(db: &Db, station: i64, key: &str, from: i64, to: i64) -> Result<(), ApiError> {
    let mut tx = db.begin_write().await?;
    let mut del = Sql::default();
    del.push_bind(
        "DELETE FROM pv_telemetry_station_day WHERE station_id = ? AND bucket >= ? AND bucket < ?",
        [Value::Int(station), Value::Int(from), Value::Int(to)],
    );
    del.execute(&mut *tx).await?;
    let (devices, _) = key_devices(key);
    if !devices.is_empty() {
        let kind = |k: &str, then: &str| format!("CASE WHEN device_kind = '{k}' THEN {then} END");
        let mut sql = Sql::new(&format!(
            "INSERT INTO pv_telemetry_station_day (station_id, bucket, inverter_rows, inverter_samples, \
             energy_wh, energy_n, meter_rows, meter_samples, import_wh, import_n, export_wh, export_n, \
             weather_rows, weather_samples, irradiation_wh_m2, irradiation_n, updated_at) \
             SELECT station_id, bucket, COUNT({inv1}), COALESCE(SUM({invs}), 0), SUM({inve}), COUNT({inve}), \
             COUNT({met1}), COALESCE(SUM({mets}), 0), SUM({meti}), COUNT({meti}), SUM({mete}), COUNT({mete}), \
             COUNT({wx1}), COALESCE(SUM({wxs}), 0), SUM({wxh}), COUNT({wxh}), ",
            inv1 = kind("inverter", "1"),
            invs = kind("inverter", "samples"),
            inve = kind("inverter", "energy_wh"),
            met1 = kind("meter", "1"),
            mets = kind("meter", "samples"),
            meti = kind("meter", "energy_import_wh"),
            mete = kind("meter", "energy_export_wh"),
            wx1 = kind("weather", "1"),
            wxs = kind("weather", "samples"),
            wxh = kind("weather", "irradiation_wh_m2"),
        ));
        sql.push_bind(
            "? FROM pv_telemetry_rollup WHERE station_id = ? AND period = '1d' AND bucket >= ? AND bucket < ? \
             AND device_id IN (",
            [
                Value::Int(time::now_ms()),
                Value::Int(station),
                Value::Int(from),
                Value::Int(to),
            ],
        );
        sql.push_ids(&devices);
        sql.push(") GROUP BY station_id, bucket");
        sql.execute(&mut *tx).await?;
    }
    tx.commit().await?;
    Ok(())
}

/// Rebuilds every summary row (days and hours) of `station` over the devices of `key`, and
/// records `key`.
async fn rebuild(db: &Db, station: i64, key: &str) -> Result<(), ApiError> {
    rewrite(db, station, key, i64::MIN, i64::MAX).await?;
    let (devices, weather) = key_devices(key);
    station_hour::rewrite(db, station, &devices, &weather, i64::MIN, i64::MAX).await?;
    let mut sql = Sql::default();
    sql.push_bind(
        "INSERT INTO pv_telemetry_station_devices (station_id, devices, updated_at) VALUES (?, ?, ?) \
         ON CONFLICT (station_id) DO UPDATE SET devices = excluded.devices, updated_at = excluded.updated_at",
        [
            Value::Int(station),
            Value::from(key.to_owned()),
            Value::Int(time::now_ms()),
        ],
    );
    sql.execute(db.pool()).await?;
    Ok(())
}

/// Makes the summary rows of `stations` those of their live devices now, rebuilding the stations
/// whose rows were summed over another set of devices (or never).
pub async fn ensure_current(db: &Db, stations: &[i64]) -> Result<(), ApiError> {
    let live = live_keys(db, stations).await?;
    let stored = stored_keys(db, stations).await?;
    for (station, key) in &live {
        if stored.get(station) != Some(key) {
            rebuild(db, *station, key).await?;
        }
    }
    Ok(())
}

/// Rewrites the summary rows of `station` for the day buckets `days` and the hour buckets
/// `hours` (after the rollup worker recomputed them). If the station's live devices changed
/// since its rows were summed, every row of the station is rebuilt instead.
pub async fn refresh(
    db: &Db,
    station: i64,
    days: &BTreeSet<i64>,
    hours: &BTreeSet<i64>,
) -> Result<(), ApiError> {
    if days.is_empty() && hours.is_empty() {
        return Ok(());
    }
    let live = live_keys(db, &[station]).await?;
    let Some(key) = live.get(&station) else {
        return Ok(());
    };
    let stored = stored_keys(db, &[station]).await?;
    if stored.get(&station) != Some(key) {
        return rebuild(db, station, key).await;
    }
    for day in days {
        rewrite(db, station, key, *day, day + 1).await?;
    }
    let (devices, weather) = key_devices(key);
    for hour in hours {
        station_hour::rewrite(db, station, &devices, &weather, *hour, hour + 1).await?;
    }
    Ok(())
}

/// At start-up: summarises every live station whose summary is missing or was summed over
/// other devices (the first start after the summary was added fills it from the rollups kept).
pub async fn backfill(db: &Db) -> Result<usize, ApiError> {
    let stations: Vec<i64> = Sql::new("SELECT id FROM pv_station WHERE is_deleted = 0 ORDER BY id")
        .scalars(db.pool())
        .await?;
    let mut rebuilt = 0;
    for chunk in stations.chunks(200) {
        let live = live_keys(db, chunk).await?;
        let stored = stored_keys(db, chunk).await?;
        let live: BTreeMap<_, _> = live.into_iter().collect();
        for (station, key) in &live {
            if stored.get(station) != Some(key) {
                rebuild(db, *station, key).await?;
                rebuilt += 1;
            }
        }
    }
    Ok(rebuilt)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_lists_its_devices() {
        let (all, weather) = key_devices("2:i1,2|m|w30");
        assert_eq!(all.iter().map(|i| i.0).collect::<Vec<_>>(), vec![1, 2, 30]);
        assert_eq!(weather.iter().map(|i| i.0).collect::<Vec<_>>(), vec![30]);
        assert!(key_devices("2:i|m|w").0.is_empty());
    }
}
