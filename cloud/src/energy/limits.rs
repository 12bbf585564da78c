//! What a device could produce (or a meter measure): the rating that bounds a counter's step
//! (`docs/reports.md`, "Counters", where each figure is explained).

use sqlx::Row;

use super::counter::Limits;
use crate::kernel::ApiError;
use crate::kernel::db::Db;
use crate::kernel::sql::{Sql, Value};

/// W: the rating of a device nothing is known about (no rating, no station capacity). Above any
/// single inverter or plant meter this product watches; a torn 32-bit read of a counter is still
/// far above it.
pub const FALLBACK_RATED_W: f64 = 10_000_000.0;
/// A grid meter measures the plant's export and the site's import: twice the plant's capacity.
pub const METER_CAPACITY_FACTOR: f64 = 2.0;
/// A meter wired through current transformers: 5 A secondaries, 20 % overload.
const CT_SECONDARY_A: f64 = 5.0;
const CT_OVERLOAD: f64 = 1.2;
/// A direct-connected meter (no CT) carries at most this.
const DIRECT_METER_A: f64 = 100.0;
/// Line voltage of a low-voltage connection; with a voltage transformer, its 100 V secondary.
const LV_LINE_V: f64 = 400.0;
const PT_SECONDARY_V: f64 = 100.0;

/// The most a three-phase meter with these transformer ratios can carry (W).
pub fn meter_w(ct_ratio: f64, pt_ratio: f64) -> f64 {
    let amps = if ct_ratio > 1.0 {
        CT_SECONDARY_A * ct_ratio * CT_OVERLOAD
    } else {
        DIRECT_METER_A
    };
    let volts = if pt_ratio > 1.0 {
        PT_SECONDARY_V * pt_ratio
    } else {
        LV_LINE_V
    };
    3f64.sqrt() * volts * amps
}

/// The larger of a station's capacities (kW AC declared, kWp DC), in W.
fn station_w(capacity_kw: Option<f64>, dc_kwp: Option<f64>) -> Option<f64> {
    let w = capacity_kw.unwrap_or(0.0).max(dc_kwp.unwrap_or(0.0)) * 1000.0;
    (w > 0.0).then_some(w)
}

/// The rating of `device` (an inverter: its rated power, else its station's capacity; a meter:
/// what its transformers carry or twice its station's capacity, whichever is larger).
pub async fn of_device(db: &Db, device: i64) -> Result<Limits, ApiError> {
    let mut sql = Sql::default();
    sql.push_bind(
        "SELECT i.rated_power, m.ct_ratio, m.pt_ratio, s.capacity, s.component_capacity \
         FROM pv_telemetry_latest l JOIN pv_station s ON s.id = l.station_id \
         LEFT JOIN pv_inverter i ON i.id = l.device_id LEFT JOIN pv_meter m ON m.id = l.device_id \
         WHERE l.device_id = ?",
        [Value::Int(device)],
    );
    let Some(row) = sql.row(db.pool()).await? else {
        return Ok(Limits {
            rated_w: FALLBACK_RATED_W,
        });
    };
    let rated: Option<f64> = row.try_get("rated_power")?;
    let ct: Option<f64> = row.try_get("ct_ratio")?;
    let pt: Option<f64> = row.try_get("pt_ratio")?;
    let station = station_w(row.try_get("capacity")?, row.try_get("component_capacity")?);
    let rated_w = match (rated.filter(|r| *r > 0.0), ct) {
        (Some(kw), _) => kw * 1000.0,
        (None, Some(ct)) => {
            let m = meter_w(ct, pt.unwrap_or(1.0));
            station.map_or(m, |s| m.max(s * METER_CAPACITY_FACTOR))
        }
        (None, None) => station.unwrap_or(FALLBACK_RATED_W),
    };
    Ok(Limits { rated_w })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meters_are_rated_by_their_transformers() {
        // Direct: 400 V × 100 A × √3 ≈ 69.3 kW.
        assert!((meter_w(1.0, 1.0) - 69_282.03).abs() < 0.01);
        // 1000/5 CT on 400 V: 200 × 5 A × 1.2 = 1 200 A ≈ 831 kW.
        assert!((meter_w(200.0, 1.0) - 831_384.39).abs() < 0.01);
        // 10 kV / 100 V PT with a 100/5 CT: 10 kV × 120 A × √3 ≈ 2.08 MW.
        assert!((meter_w(20.0, 100.0) - 2_078_460.97).abs() < 0.01);
    }

    #[test]
    fn a_station_is_rated_by_its_larger_capacity() {
        assert_eq!(station_w(Some(100.0), Some(120.0)), Some(120_000.0));
        assert_eq!(station_w(None, Some(5.0)), Some(5_000.0));
        assert_eq!(station_w(None, None), None);
    }
}
