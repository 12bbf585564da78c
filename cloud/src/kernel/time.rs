//! Date-times on the wire: `yyyy-MM-dd HH:mm:ss` in the configured UTC offset (the API
//! conventions). Stored as epoch milliseconds (BIGINT) so both database back-ends agree exactly.

use std::sync::{Arc, OnceLock};

use chrono::{DateTime, FixedOffset, NaiveDate, NaiveDateTime, Offset, TimeZone, Utc};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

pub const WIRE_FORMAT: &str = "%Y-%m-%d %H:%M:%S";

static OFFSET: OnceLock<FixedOffset> = OnceLock::new();

/// Parses `+08:00`, `-05:30`, `+0800` or `Z`/`UTC`.
pub fn parse_offset(s: &str) -> Option<FixedOffset> {
    let s = s.trim();
    if s.eq_ignore_ascii_case("z") || s.eq_ignore_ascii_case("utc") {
        return FixedOffset::east_opt(0);
    }
    let (sign, rest) = match s.as_bytes().first()? {
        b'+' => (1, &s[1..]),
        b'-' => (-1, &s[1..]),
        _ => return None,
    };
    let digits: String = rest.chars().filter(|c| *c != ':').collect();
    if digits.len() != 4 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let hours: i32 = digits[..2].parse().ok()?;
    let minutes: i32 = digits[2..].parse().ok()?;
    if hours > 14 || minutes > 59 {
        return None;
    }
    FixedOffset::east_opt(sign * (hours * 3600 + minutes * 60))
}

/// Sets the wire offset once at start; later calls are ignored (tests share one process).
pub fn init_offset(offset: FixedOffset) {
    let _ = OFFSET.set(offset);
}

pub fn offset() -> FixedOffset {
    *OFFSET.get_or_init(|| FixedOffset::east_opt(8 * 3600).unwrap_or(Utc.fix()))
}

pub fn now_ms() -> i64 {
    Utc::now().timestamp_millis()
}

/// The hub's "now" where an outcome depends on the date or the time of day (partitions and
/// retention cut-offs, a station's "today"): real time, unless a test hands the hub a clock set to
/// the instant it needs (a month end, 31 December 23:50, a 29 February), so such tests pass on
/// any day. Cheap to clone; every clone reads the same time.
#[derive(Debug, Clone, Default)]
pub struct Clock(Option<Arc<Set>>);

#[derive(Debug)]
struct Set {
    at: i64,
    /// Whether it moves on from `at` with real time (a process started at that instant) or stays.
    running: bool,
    since: std::time::Instant,
}

impl Clock {
    /// Real time.
    pub fn system() -> Clock {
        Clock(None)
    }

    /// Always `at` (epoch ms).
    pub fn fixed(at: i64) -> Clock {
        Clock(Some(Arc::new(Set {
            at,
            running: false,
            since: std::time::Instant::now(),
        })))
    }

    /// `at` (epoch ms) now, moving on at the pace of real time.
    pub fn starting_at(at: i64) -> Clock {
        Clock(Some(Arc::new(Set {
            at,
            running: true,
            since: std::time::Instant::now(),
        })))
    }

    /// Now, in epoch ms.
    pub fn now_ms(&self) -> i64 {
        match &self.0 {
            None => now_ms(),
            Some(set) if set.running => {
                let elapsed = i64::try_from(set.since.elapsed().as_millis()).unwrap_or(i64::MAX);
                set.at.saturating_add(elapsed)
            }
            Some(set) => set.at,
        }
    }
}

/// Formats epoch milliseconds for the wire.
pub fn format_ms(ms: i64) -> String {
    match DateTime::from_timestamp_millis(ms) {
        Some(t) => t.with_timezone(&offset()).format(WIRE_FORMAT).to_string(),
        None => String::new(),
    }
}

/// Parses a wire date-time (or a bare `yyyy-MM-dd`, meaning its midnight) into epoch ms.
pub fn parse_ms(s: &str) -> Option<i64> {
    let s = s.trim();
    let naive = NaiveDateTime::parse_from_str(s, WIRE_FORMAT)
        .or_else(|_| NaiveDateTime::parse_from_str(s, "%Y-%m-%dT%H:%M:%S"))
        .ok()
        .or_else(|| {
            NaiveDate::parse_from_str(s, "%Y-%m-%d")
                .ok()?
                .and_hms_opt(0, 0, 0)
        })?;
    offset()
        .from_local_datetime(&naive)
        .single()
        .map(|t| t.timestamp_millis())
}

/// A point in time that travels as `yyyy-MM-dd HH:mm:ss`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(pub i64);

impl Serialize for Timestamp {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format_ms(self.0))
    }
}

impl<'de> Deserialize<'de> for Timestamp {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        parse_ms(&s).map(Timestamp).ok_or_else(|| {
            serde::de::Error::custom(format!("invalid date-time {s:?}, expected yyyy-MM-dd HH:mm:ss"))
        })
    }
}

impl utoipa::PartialSchema for Timestamp {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        utoipa::openapi::ObjectBuilder::new()
            .schema_type(utoipa::openapi::schema::Type::String)
            .description(Some("Date-time `yyyy-MM-dd HH:mm:ss` in the configured offset"))
            .examples(["2026-11-22 12:30:00"])
            .into()
    }
}
impl utoipa::ToSchema for Timestamp {}

// Stored as BIGINT epoch milliseconds on every back-end.
crate::bigint_newtype!(Timestamp);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clock_reads_real_time_or_the_instant_it_was_set_to() {
        let before = now_ms();
        let real = Clock::system().now_ms();
        assert!(real >= before && real <= now_ms());
        // 2028-02-29 23:59:59 UTC.
        let leap = 1_835_481_599_000;
        let fixed = Clock::fixed(leap);
        assert_eq!(fixed.now_ms(), leap);
        assert_eq!(fixed.clone().now_ms(), leap);
        let running = Clock::starting_at(leap);
        std::thread::sleep(std::time::Duration::from_millis(5));
        let later = running.now_ms();
        assert!(later >= leap + 5 && later < leap + 60_000, "{later}");
        assert_eq!(format_ms(leap), "2028-03-01 07:59:59");
    }

    #[test]
    fn offsets() {
        assert_eq!(parse_offset("+08:00").unwrap().local_minus_utc(), 8 * 3600);
        assert_eq!(
            parse_offset("-0530").unwrap().local_minus_utc(),
            -(5 * 3600 + 1800)
        );
        assert_eq!(parse_offset("UTC").unwrap().local_minus_utc(), 0);
        for bad in ["", "8", "+8", "+25:00", "Asia/Shanghai", "+08:0x"] {
            assert!(parse_offset(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn wire_format_round_trips_in_the_default_offset() {
        // 2026-01-01 00:00:00 at +08:00 is 2025-12-31 16:00:00 UTC.
        let ms = parse_ms("2026-01-01 00:00:00").unwrap();
        assert_eq!(ms, 1_767_196_800_000);
        assert_eq!(format_ms(ms), "2026-01-01 00:00:00");
        assert_eq!(parse_ms("2026-01-01"), Some(ms));
        assert_eq!(parse_ms("2026-01-01T00:00:00"), Some(ms));
        assert_eq!(parse_ms("01/01/2026"), None);
        let json = serde_json::to_string(&Timestamp(ms)).unwrap();
        assert_eq!(json, "\"2026-01-01 00:00:00\"");
        assert_eq!(serde_json::from_str::<Timestamp>(&json).unwrap(), Timestamp(ms));
        assert!(serde_json::from_str::<Timestamp>("\"yesterday\"").is_err());
    }
}
