//! The one clock rule for station data: every day boundary and every time label of a station's
//! data is in the station's own clock (`pv_station.utc_offset_minutes`; unset = the hub's
//! `timezone`), and an answer that shows such times states the offset it used. Curves, the
//! dispersion's day, reports and their exports all take their days from [`SiteClock`], so a
//! station's "today" and its midnight are the same on every page.

use chrono::{DateTime, Duration, FixedOffset, NaiveDate};

use super::time;

const DAY_MS: i64 = 86_400_000;
/// The range a station's offset may take (UTC-12:00 .. UTC+14:00), as the station form allows.
const MIN_MINUTES: i64 = -12 * 60;
const MAX_MINUTES: i64 = 14 * 60;

/// A fixed UTC offset: a station's clock, or the hub's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SiteClock {
    offset: FixedOffset,
}

impl SiteClock {
    /// The hub's configured timezone.
    pub fn hub() -> SiteClock {
        SiteClock {
            offset: time::offset(),
        }
    }

    /// A station's clock from its `utc_offset_minutes`; unset or out of range = the hub's.
    pub fn of(minutes: Option<i64>) -> SiteClock {
        minutes
            .filter(|m| (MIN_MINUTES..=MAX_MINUTES).contains(m))
            .and_then(|m| FixedOffset::east_opt(i32::try_from(m * 60).ok()?))
            .map(|offset| SiteClock { offset })
            .unwrap_or_else(SiteClock::hub)
    }

    /// Milliseconds the clock is ahead of UTC.
    pub fn offset_ms(&self) -> i64 {
        i64::from(self.offset.local_minus_utc()) * 1000
    }

    pub fn offset_minutes(&self) -> i64 {
        i64::from(self.offset.local_minus_utc()) / 60
    }

    /// `+08:00`, `-03:30`: the offset as answers state it.
    pub fn label(&self) -> String {
        let m = self.offset_minutes();
        let sign = if m < 0 { '-' } else { '+' };
        format!("{sign}{:02}:{:02}", m.abs() / 60, m.abs() % 60)
    }

    /// The local date at epoch `ms`.
    pub fn date_of(&self, ms: i64) -> NaiveDate {
        local_date(ms, self.offset_ms())
    }

    /// Epoch ms of the local midnight that starts `date`.
    pub fn midnight(&self, date: NaiveDate) -> i64 {
        midnight(date, self.offset_ms())
    }

    /// Today's local date.
    pub fn today(&self) -> NaiveDate {
        self.date_of(time::now_ms())
    }

    /// The local date at `now` (epoch ms) of the hub's clock (`Core::clock`): today, where a test
    /// may have set the day.
    pub fn today_at(&self, now: i64) -> NaiveDate {
        self.date_of(now)
    }

    /// `yyyy-MM-dd HH:mm:ss` in this clock (the wire format).
    pub fn format_ms(&self, ms: i64) -> String {
        DateTime::from_timestamp_millis(ms)
            .map(|t| {
                t.with_timezone(&self.offset)
                    .format(time::WIRE_FORMAT)
                    .to_string()
            })
            .unwrap_or_default()
    }
}

/// The local date at epoch `ms` in a clock `offset_ms` ahead of UTC.
pub fn local_date(ms: i64, offset_ms: i64) -> NaiveDate {
    // `NaiveDate::default()` is 1970-01-01, the epoch's date.
    NaiveDate::default() + Duration::days((ms + offset_ms).div_euclid(DAY_MS))
}

/// Epoch ms of the midnight starting `date` in a clock `offset_ms` ahead of UTC.
pub fn midnight(date: NaiveDate, offset_ms: i64) -> i64 {
    (date - NaiveDate::default()).num_days() * DAY_MS - offset_ms
}

/// The hub's offset in ms (a station without its own clock keeps it).
pub fn hub_offset_ms() -> i64 {
    SiteClock::hub().offset_ms()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_station_clock_names_its_own_days_and_times() {
        // A demo site shifted +5 h: UTC+13:00.
        let c = SiteClock::of(Some(13 * 60));
        assert_eq!(c.label(), "+13:00");
        assert_eq!(c.offset_ms(), 13 * 3_600_000);
        let d = NaiveDate::from_ymd_opt(2026, 3, 1).unwrap();
        // 2026-03-01 00:00 +13:00 = 2026-02-28 11:00 UTC.
        assert_eq!(c.midnight(d), 1_772_276_400_000);
        assert_eq!(c.date_of(c.midnight(d)), d);
        assert_eq!(c.date_of(c.midnight(d) - 1), d.pred_opt().unwrap());
        assert_eq!(c.format_ms(c.midnight(d)), "2026-03-01 00:00:00");
        assert_eq!(SiteClock::of(Some(-210)).label(), "-03:30");
        assert_eq!(
            SiteClock::of(Some(-4 * 60)).date_of(c.midnight(d)).to_string(),
            "2026-02-28"
        );
    }

    #[test]
    fn no_or_impossible_offset_is_the_hub_clock() {
        assert_eq!(SiteClock::of(None), SiteClock::hub());
        assert_eq!(SiteClock::of(Some(15 * 60)), SiteClock::hub());
        assert_eq!(SiteClock::of(Some(-13 * 60)), SiteClock::hub());
        assert_eq!(SiteClock::hub().label(), "+08:00");
    }
}
