//! A user's quiet hours, digest and language (`pv_notify_setting`; no row = the defaults), and
//! the clock arithmetic on them. Times of day are in the hub's clock (`timezone`).

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::kernel::ApiError;
use crate::kernel::clock::SiteClock;
use crate::kernel::sql::{Sql, Value};

const DAY_MS: i64 = 86_400_000;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, sqlx::FromRow)]
#[schema(as = NotifyQuiet)]
#[serde(rename_all = "camelCase")]
pub struct Settings {
    /// Whether quiet hours apply: then only critical alarms and overdue orders go out at once.
    pub quiet_enabled: i64,
    /// Start of the quiet hours, minutes after midnight (1320 = 22:00).
    pub quiet_start: i64,
    /// End of the quiet hours, minutes after midnight (420 = 07:00); before the start = overnight.
    pub quiet_end: i64,
    /// Alarms below this level (1 notice … 4 critical) wait for the daily digest.
    pub digest_below: i64,
    /// Hour of the day (0–23) the digest goes out.
    pub digest_hour: i64,
    /// Language of the SMS and e-mail: `zh` or `en`.
    pub lang: String,
}

impl Default for Settings {
    /// The demo's: quiet from 22:00 to 07:00, notices and minor alarms in the 08:00 digest.
    fn default() -> Settings {
        Settings {
            quiet_enabled: 1,
            quiet_start: 22 * 60,
            quiet_end: 7 * 60,
            digest_below: crate::alarm::codes::LEVEL_MAJOR,
            digest_hour: 8,
            lang: "zh".into(),
        }
    }
}

impl Settings {
    pub fn validate(&self) -> Result<(), ApiError> {
        let minutes = 0..24 * 60;
        if !minutes.contains(&self.quiet_start)
            || !minutes.contains(&self.quiet_end)
            || !(0..24).contains(&self.digest_hour)
            || !(1..=5).contains(&self.digest_below)
            || !matches!(self.lang.as_str(), "zh" | "en")
        {
            return Err(ApiError::bad_request(
                "免打扰时段为 0–1439 分钟，摘要时间为 0–23 点，摘要级别为 1–5，语言为 zh 或 en",
                "Quiet hours are minutes 0–1439, the digest hour 0–23, the digest level 1–5, the language zh or en",
            ));
        }
        Ok(())
    }

    pub fn en(&self) -> bool {
        self.lang == "en"
    }

    /// Whether `at` (epoch ms) falls in the quiet hours.
    pub fn quiet_at(&self, at: i64) -> bool {
        if self.quiet_enabled == 0 || self.quiet_start == self.quiet_end {
            return false;
        }
        let clock = SiteClock::hub();
        let minute = (at + clock.offset_ms()).rem_euclid(DAY_MS) / 60_000;
        if self.quiet_start < self.quiet_end {
            (self.quiet_start..self.quiet_end).contains(&minute)
        } else {
            minute >= self.quiet_start || minute < self.quiet_end
        }
    }

    /// The first digest time strictly after `at`.
    pub fn digest_after(&self, at: i64) -> i64 {
        let clock = SiteClock::hub();
        let due = clock.midnight(clock.date_of(at)) + self.digest_hour * 3_600_000;
        if due > at { due } else { due + DAY_MS }
    }
}

/// `user`'s settings, or the defaults.
pub async fn load<'e, E>(ex: E, user: i64) -> Result<Settings, ApiError>
where
    E: sqlx::Executor<'e, Database = sqlx::Any>,
{
    let mut sql = Sql::new(
        "SELECT quiet_enabled, quiet_start, quiet_end, digest_below, digest_hour, lang FROM pv_notify_setting WHERE ",
    );
    sql.push_bind("user_id = ?", [Value::Int(user)]);
    Ok(sql.fetch_optional::<Settings, _>(ex).await?.unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overnight_quiet_hours_and_the_next_digest_in_the_hub_clock() {
        let s = Settings::default();
        // 2025-11-29 23:30 +08:00 and 12:00 +08:00.
        let late = 1_764_430_200_000;
        let noon = late - 11 * 3_600_000 - 1_800_000;
        assert!(s.quiet_at(late));
        assert!(!s.quiet_at(noon));
        assert!(s.quiet_at(late + 7 * 3_600_000), "06:30");
        assert!(!s.quiet_at(late + 8 * 3_600_000), "07:30");
        // The next 08:00 after 23:30 is 8.5 h later; after noon, 20 h later.
        assert_eq!(s.digest_after(late), late + 8 * 3_600_000 + 1_800_000);
        assert_eq!(s.digest_after(noon), noon + 20 * 3_600_000);
        let off = Settings {
            quiet_enabled: 0,
            ..Settings::default()
        };
        assert!(!off.quiet_at(late));
    }
}
