//! The prices a bill applies, read as versions: the grid tariff (`pv_electric_price` and its
//! segments, each version in force from its effective date) and the feed-in price history
//! (`pv_station_price`, else the station's feed-in tariff from its grid-connection day).
//! Effective dates are stored as the hub's midnights and read back as dates.

use super::period::local_date;
use super::settlement::{DatedPrice, TariffVersion, TouSegment};
use super::store::BillFacts;
use crate::analytics::data::hub_offset_ms;
use crate::kernel::sql::{Sql, Value};
use crate::kernel::{ApiError, Core};

pub async fn tariff(core: &Core, station: i64) -> Result<Vec<TariffVersion>, ApiError> {
    let mut sql = Sql::default();
    sql.push_bind(
        "SELECT p.effective_date, g.start_minute, g.end_minute, g.segment_type, g.price \
         FROM pv_electric_price p JOIN pv_electric_price_segment g ON g.price_id = p.id \
         WHERE p.is_deleted = 0 AND p.station_id = ? ORDER BY p.effective_date, g.start_minute",
        [Value::Int(station)],
    );
    let rows = sql
        .fetch_all::<(i64, i64, i64, String, f64), _>(core.db.pool())
        .await?;
    let mut out: Vec<TariffVersion> = Vec::new();
    for (day_ms, start, end, kind, price) in rows {
        let effective = local_date(day_ms, hub_offset_ms());
        let segment = TouSegment {
            start,
            end,
            kind,
            price,
        };
        match out.last_mut() {
            Some(v) if v.effective == effective => v.segments.push(segment),
            _ => out.push(TariffVersion {
                effective,
                segments: vec![segment],
            }),
        }
    }
    Ok(out)
}

pub async fn feed_in(core: &Core, station: i64, facts: &BillFacts) -> Result<Vec<DatedPrice>, ApiError> {
    let mut sql = Sql::default();
    sql.push_bind(
        "SELECT effective_date, price FROM pv_station_price WHERE is_deleted = 0 AND station_id = ? \
         ORDER BY effective_date",
        [Value::Int(station)],
    );
    let mut out: Vec<DatedPrice> = sql
        .fetch_all::<(i64, f64), _>(core.db.pool())
        .await?
        .into_iter()
        .map(|(ms, price)| DatedPrice {
            effective: local_date(ms, hub_offset_ms()),
            price,
        })
        .collect();
    if out.is_empty()
        && let Some(price) = facts.feed_in_tariff
    {
        // Without a price history, the station's own feed-in tariff since it was connected.
        out.push(DatedPrice {
            effective: local_date(facts.grid_connection_time.unwrap_or(0), hub_offset_ms()),
            price,
        });
    }
    Ok(out)
}
