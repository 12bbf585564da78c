//! Date-times on the wire: `yyyy-MM-dd HH:mm:ss` in the configured UTC offset (the API
//! conventions). Stored as epoch milliseconds (BIGINT) so both database back-ends agree exactly.

use std::sync::OnceLock;

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
