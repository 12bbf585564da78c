//! The time axis of a report in the station's clock: a day by hours, a month by days, a year by
//! months, a range of days, or several years by year. Bad or unbounded ranges are refused with
//! a message saying what is allowed.

use chrono::{Datelike, Months, NaiveDate};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::kernel::ApiError;

pub const HOUR_MS: i64 = 3_600_000;
pub const DAY_MS: i64 = 86_400_000;
/// Longest `range` of days.
pub const MAX_RANGE_DAYS: i64 = 366;
/// Most years of a `years` report.
pub const MAX_YEARS: i32 = 30;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema, Default)]
#[serde(rename_all = "camelCase")]
pub enum TimeType {
    /// One day by hours (`date` = yyyy-MM-dd).
    #[default]
    Day,
    /// One month by days (`date` = yyyy-MM).
    Month,
    /// One year by months (`date` = yyyy).
    Year,
    /// Several years by year (`start`, `end` = yyyy).
    Years,
    /// Days from `start` to `end` (yyyy-MM-dd, both included).
    Range,
}

/// The time part of every report call.
#[derive(Debug, Clone, Default, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct TimeQuery {
    /// day (by hours), month (by days), year (by months), years (by year) or range (by days);
    /// default day.
    #[serde(rename = "type")]
    #[param(rename = "type", inline)]
    pub time_type: Option<TimeType>,
    /// yyyy-MM-dd (day), yyyy-MM (month) or yyyy (year); default the station's today.
    pub date: Option<String>,
    /// First day (range, yyyy-MM-dd) or year (years, yyyy).
    pub start: Option<String>,
    /// Last day (range) or year (years), included.
    pub end: Option<String>,
}

/// One slot of the axis: a local hour, day, month or year.
#[derive(Debug, Clone, PartialEq)]
pub struct Slot {
    /// `HH:00`, `yyyy-MM-dd`, `yyyy-MM` or `yyyy`.
    pub label: String,
    /// Epoch ms, `[start, end)`.
    pub start: i64,
    pub end: i64,
}

impl Slot {
    pub fn hours(&self) -> f64 {
        (self.end - self.start) as f64 / HOUR_MS as f64
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Axis {
    pub time_type: TimeType,
    /// The period as asked, e.g. `2026-11`, `2026-11-01~2026-11-30`.
    pub title: String,
    pub slots: Vec<Slot>,
}

impl Axis {
    pub fn start(&self) -> i64 {
        self.slots.first().map_or(0, |s| s.start)
    }

    pub fn end(&self) -> i64 {
        self.slots.last().map_or(0, |s| s.end)
    }

    /// The slot holding `ms`.
    pub fn slot_of(&self, ms: i64) -> Option<usize> {
        let i = self.slots.partition_point(|s| s.end <= ms);
        (i < self.slots.len() && self.slots[i].start <= ms).then_some(i)
    }

    /// The local days the axis covers, first and last.
    pub fn days(&self, offset_ms: i64) -> (NaiveDate, NaiveDate) {
        (
            local_date(self.start(), offset_ms),
            local_date(self.end() - 1, offset_ms),
        )
    }
}

pub use crate::kernel::clock::{local_date, midnight};

fn bad_date(value: &str, expected: &str) -> ApiError {
    ApiError::bad_request(
        format!("日期格式不正确：{value}（应为{expected}）"),
        format!("Invalid date {value} (expected {expected})"),
    )
}

fn parse_day(v: &str) -> Result<NaiveDate, ApiError> {
    NaiveDate::parse_from_str(v.trim(), "%Y-%m-%d").map_err(|_| bad_date(v, "yyyy-MM-dd"))
}

fn parse_month(v: &str) -> Result<NaiveDate, ApiError> {
    NaiveDate::parse_from_str(&format!("{}-01", v.trim()), "%Y-%m-%d").map_err(|_| bad_date(v, "yyyy-MM"))
}

fn parse_year(v: &str) -> Result<i32, ApiError> {
    v.trim()
        .parse::<i32>()
        .ok()
        .filter(|y| (1970..=9999).contains(y))
        .ok_or_else(|| bad_date(v, "yyyy"))
}

fn required(v: &Option<String>, name: &str) -> Result<String, ApiError> {
    v.as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .ok_or_else(|| ApiError::bad_request(format!("请选择{name}"), format!("Please choose the {name}")))
}

fn reversed() -> ApiError {
    ApiError::bad_request("开始时间不能晚于结束时间", "The start must not be after the end")
}

fn day_slot(d: NaiveDate, offset_ms: i64) -> Slot {
    let start = midnight(d, offset_ms);
    Slot {
        label: d.format("%Y-%m-%d").to_string(),
        start,
        end: start + DAY_MS,
    }
}

fn first_of_year(y: i32) -> Result<NaiveDate, ApiError> {
    NaiveDate::from_ymd_opt(y, 1, 1).ok_or_else(|| bad_date(&y.to_string(), "yyyy"))
}

impl TimeQuery {
    /// The axis of this query in a clock `offset_ms` ahead of UTC, `today` the default date.
    pub fn axis(&self, offset_ms: i64, today: NaiveDate) -> Result<Axis, ApiError> {
        let time_type = self.time_type.unwrap_or_default();
        let date = self.date.as_deref().map(str::trim).filter(|s| !s.is_empty());
        match time_type {
            TimeType::Day => {
                let d = date.map(parse_day).transpose()?.unwrap_or(today);
                let start = midnight(d, offset_ms);
                let slots = (0..24)
                    .map(|h| Slot {
                        label: format!("{h:02}:00"),
                        start: start + h * HOUR_MS,
                        end: start + (h + 1) * HOUR_MS,
                    })
                    .collect();
                Ok(Axis {
                    time_type,
                    title: d.format("%Y-%m-%d").to_string(),
                    slots,
                })
            }
            TimeType::Month => {
                let first = match date {
                    Some(v) => parse_month(v.get(..7).unwrap_or(v))?,
                    None => today.with_day(1).unwrap_or(today),
                };
                let next = first + Months::new(1);
                let slots = first
                    .iter_days()
                    .take_while(|d| *d < next)
                    .map(|d| day_slot(d, offset_ms))
                    .collect();
                Ok(Axis {
                    time_type,
                    title: first.format("%Y-%m").to_string(),
                    slots,
                })
            }
            TimeType::Year => {
                let y = match date {
                    Some(v) => parse_year(v.get(..4).unwrap_or(v))?,
                    None => today.year(),
                };
                let first = first_of_year(y)?;
                let slots = (0..12)
                    .map(|m| {
                        let a = first + Months::new(m);
                        let b = a + Months::new(1);
                        Slot {
                            label: a.format("%Y-%m").to_string(),
                            start: midnight(a, offset_ms),
                            end: midnight(b, offset_ms),
                        }
                    })
                    .collect();
                Ok(Axis {
                    time_type,
                    title: y.to_string(),
                    slots,
                })
            }
            TimeType::Years => {
                let a = parse_year(&required(&self.start, "开始年份")?)?;
                let b = parse_year(&required(&self.end, "结束年份")?)?;
                if a > b {
                    return Err(reversed());
                }
                if b - a + 1 > MAX_YEARS {
                    return Err(ApiError::bad_request(
                        format!("年份跨度不能超过{MAX_YEARS}年"),
                        format!("At most {MAX_YEARS} years"),
                    ));
                }
                let mut slots = Vec::new();
                for y in a..=b {
                    slots.push(Slot {
                        label: y.to_string(),
                        start: midnight(first_of_year(y)?, offset_ms),
                        end: midnight(first_of_year(y + 1)?, offset_ms),
                    });
                }
                Ok(Axis {
                    time_type,
                    title: format!("{a}~{b}"),
                    slots,
                })
            }
            TimeType::Range => {
                let a = parse_day(&required(&self.start, "开始日期")?)?;
                let b = parse_day(&required(&self.end, "结束日期")?)?;
                if a > b {
                    return Err(reversed());
                }
                if (b - a).num_days() + 1 > MAX_RANGE_DAYS {
                    return Err(ApiError::bad_request(
                        format!("日期范围不能超过{MAX_RANGE_DAYS}天"),
                        format!("The date range must not exceed {MAX_RANGE_DAYS} days"),
                    ));
                }
                let slots = a
                    .iter_days()
                    .take_while(|d| *d <= b)
                    .map(|d| day_slot(d, offset_ms))
                    .collect();
                Ok(Axis {
                    time_type,
                    title: format!("{}~{}", a.format("%Y-%m-%d"), b.format("%Y-%m-%d")),
                    slots,
                })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CST: i64 = 8 * HOUR_MS;

    fn q(t: TimeType, date: Option<&str>, start: Option<&str>, end: Option<&str>) -> TimeQuery {
        TimeQuery {
            time_type: Some(t),
            date: date.map(Into::into),
            start: start.map(Into::into),
            end: end.map(Into::into),
        }
    }

    fn today() -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 11, 26).unwrap()
    }

    #[test]
    fn axes_in_the_station_clock() {
        let a = q(TimeType::Day, Some("2026-03-01"), None, None)
            .axis(CST, today())
            .unwrap();
        assert_eq!(a.slots.len(), 24);
        // 2026-03-01 00:00 +08:00 = 2026-02-28 16:00 UTC.
        assert_eq!(a.start(), 1_772_294_400_000);
        assert_eq!(a.slots[13].label, "13:00");
        let m = q(TimeType::Month, Some("2024-02"), None, None)
            .axis(CST, today())
            .unwrap();
        assert_eq!(m.slots.len(), 29);
        assert_eq!(m.slots[28].label, "2024-02-29");
        let y = q(TimeType::Year, None, None, None).axis(CST, today()).unwrap();
        assert_eq!(y.title, "2026");
        assert_eq!(y.slots[1].hours(), 28.0 * 24.0);
        assert_eq!(y.slot_of(y.slots[5].start), Some(5));
        assert_eq!(y.slot_of(y.end()), None);
        let ys = q(TimeType::Years, None, Some("2024"), Some("2026"))
            .axis(CST, today())
            .unwrap();
        assert_eq!(ys.slots.len(), 3);
        assert_eq!(ys.slots[0].hours(), 366.0 * 24.0);
        let r = q(TimeType::Range, None, Some("2026-01-30"), Some("2026-02-02"))
            .axis(CST, today())
            .unwrap();
        assert_eq!(r.days(CST).1, NaiveDate::from_ymd_opt(2026, 2, 2).unwrap());
        assert_eq!(r.slots.len(), 4);
    }

    #[test]
    fn bad_ranges_are_refused_with_a_message() {
        let msg = |t, d: Option<&str>, s: Option<&str>, e: Option<&str>| {
            format!("{:?}", q(t, d, s, e).axis(CST, today()).unwrap_err())
        };
        assert!(
            msg(TimeType::Range, None, Some("2026-02-02"), Some("2026-01-30"))
                .contains("开始时间不能晚于结束时间")
        );
        assert!(msg(TimeType::Range, None, Some("2024-01-01"), Some("2026-01-30")).contains("366"));
        assert!(msg(TimeType::Range, None, None, Some("2026-01-30")).contains("开始日期"));
        assert!(msg(TimeType::Years, None, Some("1990"), Some("2026")).contains("30"));
        assert!(msg(TimeType::Day, Some("2026-13-01"), None, None).contains("yyyy-MM-dd"));
        assert!(msg(TimeType::Month, Some("x"), None, None).contains("yyyy-MM"));
    }
}
