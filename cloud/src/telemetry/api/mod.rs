//! The read side of telemetry (issue 7): live tables and curves for the console's realtime pages
//! (`/api/inverterReal`, `/api/FlexData`, `/api/FlexReal`) and the fleet summary the home page,
//! the map and the area statistics share ([`fleet`]).
//!
//! Where figures come from (the same rule in every call, so screens agree with each other and
//! with reports):
//! - live values (power, voltages, online) from the in-memory realtime view, never the database;
//! - energies are the counted energy the rollups hold (see [`fleet::today_energy_wh`] and
//!   `site_day::lifetime_wh`), never a device's own energy registers, never integrated power;
//! - curves from the 5-minute rollups, topped up from raw samples where the rollup has not caught
//!   up yet ([`curve`]);
//! - every row first passes the caller's station scope (`station::scope::visible_stations`) and
//!   tenant, and a device of the view counts only when its registry row is live and in scope.
//!
//! Units on the wire carry their name: `...Kw`, `...Kwh`, `...Kwp`; curves say their unit.

pub mod curve;
pub mod device_quality;
pub mod device_real;
pub mod fleet;
pub mod flex_real;
pub mod inverter_real;
pub mod site_day;

use chrono::{Datelike, NaiveDate};
use serde_json::{Map, Value as Json};

use crate::kernel::ApiError;
use crate::kernel::Core;
use crate::kernel::clock::SiteClock;
use crate::kernel::sql::{Sql, Value};
use crate::kernel::time;

/// Rounds to `places` decimals so JSON carries no float noise (0.30000000000000004).
pub fn round(x: f64, places: i32) -> f64 {
    let f = 10f64.powi(places);
    (x * f).round() / f
}

/// W → kW (and Wh → kWh), rounded to 3 decimals (1 W / 1 Wh resolution).
pub fn kilo(x: f64) -> f64 {
    round(x / 1000.0, 3)
}

/// One local day `[start, end)` in epoch ms, in a station's clock or the hub's (the one clock
/// rule, `kernel::clock`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Day {
    pub date: NaiveDate,
    pub start: i64,
    pub end: i64,
    pub clock: SiteClock,
}

impl Day {
    /// The hub-clock day containing `ms`.
    pub fn containing(ms: i64) -> Day {
        Day::of_in(SiteClock::hub().date_of(ms), SiteClock::hub())
    }

    /// `date` in the hub's clock.
    pub fn of(date: NaiveDate) -> Day {
        Day::of_in(date, SiteClock::hub())
    }

    /// `date` in `clock`.
    pub fn of_in(date: NaiveDate, clock: SiteClock) -> Day {
        let start = clock.midnight(date);
        Day {
            date,
            start,
            // A fixed offset has no DST: every day is 24 h long.
            end: start + 86_400_000,
            clock,
        }
    }

    pub fn today() -> Day {
        Day::containing(time::now_ms())
    }

    /// `yyyy-MM-dd` (blank = today) as a hub-clock day; 400 otherwise.
    pub fn parse(raw: Option<&str>) -> Result<Day, ApiError> {
        Day::parse_in(raw, SiteClock::hub())
    }

    /// `yyyy-MM-dd` (blank = today there) as a day of `clock`; 400 otherwise.
    pub fn parse_in(raw: Option<&str>, clock: SiteClock) -> Result<Day, ApiError> {
        match raw.map(str::trim).filter(|s| !s.is_empty()) {
            None => Ok(Day::of_in(clock.today(), clock)),
            Some(s) => {
                // A full date-time names its day too (consoles send either).
                let date = NaiveDate::parse_from_str(s, "%Y-%m-%d")
                    .or_else(|_| NaiveDate::parse_from_str(s.get(..10).unwrap_or(s), "%Y-%m-%d"))
                    .map_err(|_| {
                        ApiError::bad_request(
                            format!("日期格式不正确：{s}（应为yyyy-MM-dd）"),
                            format!("Invalid date {s} (expected yyyy-MM-dd)"),
                        )
                    })?;
                Ok(Day::of_in(date, clock))
            }
        }
    }

    /// Local midnight of the first day of this day's month.
    pub fn month_start(&self) -> i64 {
        self.clock.midnight(self.date.with_day(1).unwrap_or(self.date))
    }

    /// Local midnight of 1 January of this day's year.
    pub fn year_start(&self) -> i64 {
        self.clock
            .midnight(self.date.with_ordinal(1).unwrap_or(self.date))
    }

    /// A time of this day's data, `yyyy-MM-dd HH:mm:ss` in its clock.
    pub fn format_ms(&self, ms: i64) -> String {
        self.clock.format_ms(ms)
    }
}

/// The clock of a station the caller's scope already admitted (the one clock rule).
pub async fn station_clock(state: &Core, station: i64) -> Result<SiteClock, ApiError> {
    // By id alone: the caller's scope has already admitted this station.
    let mut sql = Sql::default();
    sql.push_bind(
        "SELECT utc_offset_minutes FROM pv_station WHERE id = ?",
        [Value::Int(station)],
    );
    let minutes = sql
        .scalar_optional::<Option<i64>, _>(state.db.pool())
        .await?
        .flatten();
    Ok(SiteClock::of(minutes))
}

/// The parameters of a realtime call: the query string, overlaid by a JSON object body when one
/// is sent (the consoles of this family post list filters either way). Unknown keys are ignored.
#[derive(Debug, Default)]
pub struct Params(Map<String, Json>);

impl Params {
    pub fn from_parts(query: Option<&str>, body: &[u8]) -> Result<Params, ApiError> {
        let mut map = Map::new();
        let pairs: Vec<(String, String)> = serde_urlencoded::from_str(query.unwrap_or("")).map_err(|e| {
            ApiError::bad_request(
                format!("查询参数有误：{e}"),
                format!("malformed query string: {e}"),
            )
        })?;
        for (k, v) in pairs {
            map.insert(k, Json::String(v));
        }
        if !body.iter().all(u8::is_ascii_whitespace) {
            match serde_json::from_slice::<Json>(body) {
                Ok(Json::Object(o)) => map.extend(o),
                Ok(Json::Null) => {}
                _ => {
                    return Err(ApiError::bad_request(
                        "请求内容必须是JSON对象",
                        "The request body must be a JSON object",
                    ));
                }
            }
        }
        Ok(Params(map))
    }

    /// A present, non-blank value as text (numbers and booleans as written).
    pub fn text(&self, key: &str) -> Option<String> {
        match self.0.get(key)? {
            Json::String(s) if !s.trim().is_empty() => Some(s.trim().to_owned()),
            Json::Number(n) => Some(n.to_string()),
            Json::Bool(b) => Some(b.to_string()),
            _ => None,
        }
    }

    pub fn positive(&self, key: &str, default: i64, max: i64) -> Result<i64, ApiError> {
        let Some(raw) = self.text(key) else {
            return Ok(default);
        };
        match raw.parse::<i64>() {
            Ok(v) if v >= 1 && v <= max => Ok(v),
            _ => Err(ApiError::bad_request(
                format!("参数 {key} 必须是1到{max}之间的整数"),
                format!("{key} must be an integer from 1 to {max}"),
            )),
        }
    }

    pub fn id(&self, key: &str) -> Result<Option<crate::kernel::Id>, ApiError> {
        self.text(key)
            .map(|s| {
                s.parse().map_err(|_| {
                    ApiError::bad_request(format!("参数 {key} 无效：{s}"), format!("invalid {key}: {s}"))
                })
            })
            .transpose()
    }

    /// A comma list of ids (a JSON array of ids too).
    pub fn ids(&self, key: &str) -> Result<Vec<crate::kernel::Id>, ApiError> {
        let raw = match self.0.get(key) {
            Some(Json::Array(items)) => items
                .iter()
                .map(|v| match v {
                    Json::String(s) => s.clone(),
                    other => other.to_string(),
                })
                .collect::<Vec<_>>()
                .join(","),
            _ => self.text(key).unwrap_or_default(),
        };
        crate::kernel::id::parse_id_list(&raw).map_err(|e| {
            ApiError::bad_request(
                format!("参数 {key} 无效：{}", e.0),
                format!("invalid {key}: {}", e.0),
            )
        })
    }

    /// A comma list of names (a JSON array too), trimmed, blanks dropped.
    pub fn names(&self, key: &str) -> Vec<String> {
        let items: Vec<String> = match self.0.get(key) {
            Some(Json::Array(items)) => items
                .iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect(),
            _ => self
                .text(key)
                .map(|s| s.split(',').map(str::to_owned).collect())
                .unwrap_or_default(),
        };
        items
            .into_iter()
            .map(|s| s.trim().to_owned())
            .filter(|s| !s.is_empty())
            .collect()
    }

    /// `true/false`, `1/0`, `online/offline`; anything else is refused.
    pub fn flag(&self, key: &str) -> Result<Option<bool>, ApiError> {
        let Some(raw) = self.text(key) else {
            return Ok(None);
        };
        match raw.to_ascii_lowercase().as_str() {
            "true" | "1" | "online" => Ok(Some(true)),
            "false" | "0" | "offline" => Ok(Some(false)),
            _ => Err(ApiError::bad_request(
                format!("参数 {key} 无效：{raw}"),
                format!("invalid {key}: {raw} (expected true/false)"),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_are_local_midnight_to_midnight() {
        // The default offset is +08:00: 2026-03-01 local starts at 2026-02-28 16:00 UTC.
        let d = Day::parse(Some("2026-03-01")).unwrap();
        assert_eq!(time::format_ms(d.start), "2026-03-01 00:00:00");
        assert_eq!(d.end - d.start, 86_400_000);
        assert_eq!(Day::containing(d.end - 1), d);
        assert_eq!(Day::containing(d.end).date.to_string(), "2026-03-02");
        assert_eq!(time::format_ms(d.month_start()), "2026-03-01 00:00:00");
        assert_eq!(time::format_ms(d.year_start()), "2026-01-01 00:00:00");
        assert_eq!(Day::parse(Some("2026-03-01 12:00:00")).unwrap(), d);
        assert!(Day::parse(Some("03/01/2026")).is_err());
        assert_eq!(Day::parse(Some(" ")).unwrap(), Day::today());
    }

    #[test]
    fn params_merge_query_and_body() {
        let p = Params::from_parts(
            Some("current=2&size=30&stationId=7"),
            br#"{"stationId": "9", "online": true, "names": ["a", " b "]}"#,
        )
        .unwrap();
        assert_eq!(p.positive("current", 1, 100).unwrap(), 2);
        assert_eq!(
            p.id("stationId").unwrap(),
            Some(crate::kernel::Id(9)),
            "body wins"
        );
        assert_eq!(p.flag("online").unwrap(), Some(true));
        assert_eq!(p.names("names"), vec!["a", "b"]);
        assert!(p.positive("size", 10, 20).is_err());
        assert!(Params::from_parts(None, b"[1]").is_err());
        assert!(Params::from_parts(None, b"  ").is_ok());
        let bad = Params::from_parts(Some("online=maybe&ids=1,x"), b"").unwrap();
        assert!(bad.flag("online").is_err());
        assert!(bad.ids("ids").is_err());
    }
}
