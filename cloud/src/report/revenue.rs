//! Revenue where people look (home KPIs, the map's stations, the station overview, the big
//! screen): each station's bill of today and of this month so far (its own calendar), the same
//! arithmetic as the bill report (`settlement`), from the hour rollups — so it trails the live
//! energy by the rollup delay. Pages poll these figures; a station's figure is kept for a minute
//! so a fleet page costs one bill per station and minute, not per request.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use chrono::Datelike;

use super::bill_api::priced;
use super::common::today_at;
use super::period::{TimeQuery, TimeType};
use super::settings::{REPORT_KEY, ReportSetting};
use super::settlement;
use crate::analytics::data::StationRow;
use crate::analytics::settings as tenant_settings;
use crate::kernel::{ApiError, Core};

const KEEP: Duration = Duration::from_secs(60);

/// A station's revenue in its tenant's currency.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Revenue {
    pub today: f64,
    pub month: f64,
}

type Key = (i64, chrono::NaiveDate);

fn cache() -> &'static Mutex<HashMap<Key, (Revenue, Instant)>> {
    static CACHE: OnceLock<Mutex<HashMap<Key, (Revenue, Instant)>>> = OnceLock::new();
    CACHE.get_or_init(Default::default)
}

fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

async fn compute(core: &Core, station: &StationRow) -> Result<Revenue, ApiError> {
    let day = today_at(station, core.clock.now_ms());
    let month = TimeQuery {
        time_type: Some(TimeType::Range),
        date: None,
        start: Some(day.with_day(1).unwrap_or(day).format("%Y-%m-%d").to_string()),
        end: Some(day.format("%Y-%m-%d").to_string()),
    };
    let axis = month.axis(station.offset_ms(), day)?;
    let p = priced(core, station, &axis).await?;
    let today_start = super::period::midnight(day, station.offset_ms());
    let today_ivs: Vec<settlement::Interval> = p
        .intervals
        .iter()
        .filter(|i| i.start >= today_start)
        .copied()
        .collect();
    Ok(Revenue {
        today: round2(settlement::settle(&today_ivs, &p.terms).amount()),
        month: round2(settlement::settle(&p.intervals, &p.terms).amount()),
    })
}

/// Today's and this month's revenue of each of `stations`.
pub async fn of_stations(core: &Core, stations: &[&StationRow]) -> Result<HashMap<i64, Revenue>, ApiError> {
    let mut out = HashMap::new();
    for s in stations {
        let key = (s.id, today_at(s, core.clock.now_ms()));
        let hit = cache()
            .lock()
            .ok()
            .and_then(|c| c.get(&key).filter(|(_, at)| at.elapsed() < KEEP).map(|(r, _)| *r));
        let r = match hit {
            Some(r) => r,
            None => {
                let r = compute(core, s).await?;
                if let Ok(mut c) = cache().lock() {
                    c.retain(|_, (_, at)| at.elapsed() < KEEP);
                    c.insert(key, (r, Instant::now()));
                }
                r
            }
        };
        out.insert(s.id, r);
    }
    Ok(out)
}

/// The currency the tenant's amounts are in.
pub async fn currency(core: &Core, tenant: &str) -> Result<String, ApiError> {
    let s: ReportSetting = tenant_settings::load(core, tenant, REPORT_KEY).await?;
    Ok(s.currency)
}
