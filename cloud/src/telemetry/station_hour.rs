//! The station-hour summary (`pv_telemetry_station_hour`): per station and hour, what the
//! performance ratio and the bill read per interval, from the hour rollups of the station's live
//! devices. Kept, rebuilt and versioned with the day rows by `station_day`, which owns when.

use std::collections::BTreeMap;

use sqlx::Row;

use crate::kernel::db::Db;
use crate::kernel::sql::{Sql, Value};
use crate::kernel::time;
use crate::kernel::{ApiError, Id};

/// One station-hour: sums of the inverters and the grid meter, and the weather station's
/// figures (the highest id's row when there are several).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct StationHour {
    pub bucket: i64,
    pub inverter_rows: i64,
    /// `None` when no inverter row carried energy.
    pub energy_wh: Option<f64>,
    pub meter_rows: i64,
    pub import_wh: Option<f64>,
    pub export_wh: Option<f64>,
    pub weather_rows: i64,
    pub irradiation_wh_m2: Option<f64>,
    /// Mean irradiance: the rollup's, else the mean of `irradiance_poa`, else `irradiance_ghi`.
    pub irradiance: Option<f64>,
    pub module_temp: Option<f64>,
    /// Whether any weather row of the hour measured plane-of-array irradiance.
    pub poa: bool,
}

/// `[avg, min, max, last]` average of `metric` in a rollup's metrics JSON.
fn avg(metrics: &serde_json::Value, metric: &str) -> Option<f64> {
    metrics.get(metric)?.get(0)?.as_f64().filter(|v| v.is_finite())
}

/// The summary hours of the hour rollups of `devices` (the live devices of `station`) within
/// `[from, to)`.
async fn summed(
    db: &Db,
    station: i64,
    devices: &[Id],
    weather: &[Id],
    from: i64,
    to: i64,
) -> Result<BTreeMap<i64, StationHour>, ApiError> {
    let mut out: BTreeMap<i64, StationHour> = BTreeMap::new();
    if devices.is_empty() {
        return Ok(out);
    }
    let kind = |k: &str, then: &str| format!("CASE WHEN device_kind = '{k}' THEN {then} END");
    let mut sql = Sql::new(&format!(
        "SELECT bucket, COUNT({inv1}) AS inv, SUM({inve}) AS e, COUNT({inve}) AS ne, COUNT({met1}) AS met, \
         SUM({meti}) AS ei, COUNT({meti}) AS nei, SUM({mete}) AS ee, COUNT({mete}) AS nee, COUNT({wx1}) AS wx \
         FROM pv_telemetry_rollup WHERE station_id = ",
        inv1 = kind("inverter", "1"),
        inve = kind("inverter", "energy_wh"),
        met1 = kind("meter", "1"),
        meti = kind("meter", "energy_import_wh"),
        mete = kind("meter", "energy_export_wh"),
        wx1 = kind("weather", "1"),
    ));
    sql.push_bind(
        "? AND period = '1h' AND bucket >= ? AND bucket < ? AND device_id IN (",
        [Value::Int(station), Value::Int(from), Value::Int(to)],
    );
    sql.push_ids(devices);
    sql.push(") GROUP BY bucket");
    for r in sql.rows(db.pool()).await? {
        let opt = |sum: &str, n: &str| -> Result<Option<f64>, ApiError> {
            Ok(if r.try_get::<i64, _>(n)? > 0 {
                r.try_get::<Option<f64>, _>(sum)?
            } else {
                None
            })
        };
        let bucket: i64 = r.try_get("bucket")?;
        out.insert(
            bucket,
            StationHour {
                bucket,
                inverter_rows: r.try_get("inv")?,
                energy_wh: opt("e", "ne")?,
                meter_rows: r.try_get("met")?,
                import_wh: opt("ei", "nei")?,
                export_wh: opt("ee", "nee")?,
                weather_rows: r.try_get("wx")?,
                ..StationHour::default()
            },
        );
    }
    if weather.is_empty() {
        return Ok(out);
    }
    let mut sql = Sql::default();
    sql.push_bind(
        "SELECT bucket, irradiation_wh_m2, irradiance_avg, metrics FROM pv_telemetry_rollup \
         WHERE station_id = ? AND period = '1h' AND bucket >= ? AND bucket < ? AND device_id IN (",
        [Value::Int(station), Value::Int(from), Value::Int(to)],
    );
    sql.push_ids(weather);
    // Rows of one hour by device id: the last one's figures stand, as reports always took them.
    sql.push(") ORDER BY bucket, device_id");
    for r in sql.rows(db.pool()).await? {
        let bucket: i64 = r.try_get("bucket")?;
        let metrics: String = r.try_get("metrics")?;
        let metrics: serde_json::Value = serde_json::from_str(&metrics).unwrap_or_default();
        let h = out.entry(bucket).or_insert(StationHour {
            bucket,
            ..StationHour::default()
        });
        h.poa |= avg(&metrics, "irradiance_poa").is_some();
        h.irradiation_wh_m2 = r.try_get("irradiation_wh_m2")?;
        h.irradiance = r
            .try_get::<Option<f64>, _>("irradiance_avg")?
            .or_else(|| avg(&metrics, "irradiance_poa"))
            .or_else(|| avg(&metrics, "irradiance_ghi"));
        h.module_temp = avg(&metrics, "module_temperature");
    }
    Ok(out)
}

fn opt(sql: &mut Sql, v: Option<f64>) {
    match v {
        Some(f) => sql.push_bind(", ?", [Value::Float(f)]),
        None => sql.push(", NULL"),
    };
}

/// Rewrites the summary hours of `station` within `[from, to)` from the hour rollups of
/// `devices` (its live devices; `weather` those of them that are weather stations).
pub(super) async fn rewrite(
    db: &Db,
    station: i64,
    devices: &[Id],
    weather: &[Id],
    from: i64,
    to: i64,
) -> Result<(), ApiError> {
    let hours = summed(db, station, devices, weather, from, to).await?;
    let now = time::now_ms();
    let mut tx = db.begin_write().await?;
    let mut del = Sql::default();
    del.push_bind(
        "DELETE FROM pv_telemetry_station_hour WHERE station_id = ? AND bucket >= ? AND bucket < ?",
        [Value::Int(station), Value::Int(from), Value::Int(to)],
    );
    del.execute(&mut *tx).await?;
    let rows: Vec<&StationHour> = hours.values().collect();
    for chunk in rows.chunks(200) {
        let mut sql = Sql::new(
            "INSERT INTO pv_telemetry_station_hour (station_id, bucket, inverter_rows, energy_wh, energy_n, \
             meter_rows, import_wh, import_n, export_wh, export_n, weather_rows, irradiation_wh_m2, \
             irradiance, module_temp, poa, updated_at) VALUES ",
        );
        for (i, h) in chunk.iter().enumerate() {
            if i > 0 {
                sql.push(", ");
            }
            let n = |v: Option<f64>| Value::Int(i64::from(v.is_some()));
            sql.push_bind(
                "(?, ?, ?",
                [
                    Value::Int(station),
                    Value::Int(h.bucket),
                    Value::Int(h.inverter_rows),
                ],
            );
            opt(&mut sql, h.energy_wh);
            sql.push_bind(", ?, ?", [n(h.energy_wh), Value::Int(h.meter_rows)]);
            opt(&mut sql, h.import_wh);
            sql.push_bind(", ?", [n(h.import_wh)]);
            opt(&mut sql, h.export_wh);
            sql.push_bind(", ?, ?", [n(h.export_wh), Value::Int(h.weather_rows)]);
            opt(&mut sql, h.irradiation_wh_m2);
            opt(&mut sql, h.irradiance);
            opt(&mut sql, h.module_temp);
            sql.push_bind(", ?, ?)", [Value::Int(i64::from(h.poa)), Value::Int(now)]);
        }
        sql.execute(&mut *tx).await?;
    }
    tx.commit().await?;
    Ok(())
}

/// The summary hours of `station` within `[from, to)`, by bucket. The caller makes them current
/// first (`station_day::ensure_current`).
pub async fn hours(db: &Db, station: i64, from: i64, to: i64) -> Result<Vec<StationHour>, ApiError> {
    let mut sql = Sql::default();
    sql.push_bind(
        "SELECT bucket, inverter_rows, energy_wh, energy_n, meter_rows, import_wh, import_n, export_wh, \
         export_n, weather_rows, irradiation_wh_m2, irradiance, module_temp, poa \
         FROM pv_telemetry_station_hour WHERE station_id = ? AND bucket >= ? AND bucket < ? ORDER BY bucket",
        [Value::Int(station), Value::Int(from), Value::Int(to)],
    );
    let mut out = Vec::new();
    for r in sql.rows(db.pool()).await? {
        let opt = |v: &str, n: &str| -> Result<Option<f64>, ApiError> {
            Ok(if r.try_get::<i64, _>(n)? > 0 {
                r.try_get::<Option<f64>, _>(v)?
            } else {
                None
            })
        };
        out.push(StationHour {
            bucket: r.try_get("bucket")?,
            inverter_rows: r.try_get("inverter_rows")?,
            energy_wh: opt("energy_wh", "energy_n")?,
            meter_rows: r.try_get("meter_rows")?,
            import_wh: opt("import_wh", "import_n")?,
            export_wh: opt("export_wh", "export_n")?,
            weather_rows: r.try_get("weather_rows")?,
            irradiation_wh_m2: r.try_get("irradiation_wh_m2")?,
            irradiance: r.try_get("irradiance")?,
            module_temp: r.try_get("module_temp")?,
            poa: r.try_get::<i64, _>("poa")? != 0,
        });
    }
    Ok(out)
}
