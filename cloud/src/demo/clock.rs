//! The demo sites' shifted clocks: each site runs a whole number of hours from the real clock so
//! that it is mid-morning there whenever the demo starts, and its remark says so.

use super::sites;

/// Site solar time the shifted clocks aim at when the demo starts.
const TARGET_SOLAR_HOUR: f64 = 10.5;

/// What a provisioning run found or made, per station.
/// Whole hours to add to the real clock so that a site at `longitude` reads about
/// [`TARGET_SOLAR_HOUR`] solar time at `now_ms`, in (-12, 12].
pub fn clock_offset_h(longitude: f64, now_ms: i64) -> f64 {
    let utc_h = now_ms.rem_euclid(86_400_000) as f64 / 3_600_000.0;
    let solar_h = (utc_h + longitude / 15.0).rem_euclid(24.0);
    let mut offset = (TARGET_SOLAR_HOUR - solar_h).round();
    if offset <= -12.0 {
        offset += 24.0;
    } else if offset > 12.0 {
        offset -= 24.0;
    }
    offset
}

/// `+5 h`, `-3 h`, `+0 h`.
pub fn offset_text(h: f64) -> String {
    if h < 0.0 {
        format!("-{} h", -h)
    } else {
        format!("+{h} h")
    }
}

/// What the station's second remark says about its clock, in both languages. It opens with
/// "时钟偏移 {offset}", the form the console looks for to show its shifted-clock notice.
pub fn clock_remark(h: f64) -> String {
    let t = offset_text(h);
    format!(
        "时钟偏移 {t}：模拟现场时间 = 实际时间 {t}（每次启动重新选择，使现场处于上午，任何时刻都能看到白天发电）。\
         Clock offset {t}: simulated site time = real time {t} (chosen at each start so the site is in \
         mid-morning and produces at any hour)."
    )
}

/// Minutes east of UTC of a site whose clock runs `offset_h` hours ahead of China's.
pub fn site_offset_minutes(offset_h: f64) -> i64 {
    let m = sites::SITE_UTC_OFFSET_MINUTES + (offset_h * 60.0).round() as i64;
    // The same time of day within the range a station's offset may take (-12 h .. +14 h).
    if m > 840 { m - 1440 } else { m }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_clock_offset_puts_every_site_in_mid_morning() {
        // Every quarter hour of a day, at the three demo longitudes.
        for lon in [100.579, 120.653, 113.25] {
            for q in 0..96 {
                let now = 1_718_928_000_000 + q * 900_000;
                let h = clock_offset_h(lon, now);
                assert_eq!(h, h.round(), "whole hours");
                assert!(h > -12.0 && h <= 12.0, "{h}");
                let utc_h = (now.rem_euclid(86_400_000)) as f64 / 3_600_000.0;
                let solar = (utc_h + h + lon / 15.0).rem_euclid(24.0);
                assert!((10.0..=11.0).contains(&solar), "lon {lon}, q {q}: solar {solar}");
            }
        }
    }

    #[test]
    fn site_clocks_follow_the_shift() {
        assert_eq!(site_offset_minutes(0.0), 480);
        assert_eq!(site_offset_minutes(5.0), 780);
        assert_eq!(site_offset_minutes(-11.0), -180);
        assert_eq!(site_offset_minutes(6.0), 840);
        assert_eq!(
            site_offset_minutes(12.0),
            -240,
            "+20 h reads as -4 h: the same clock time"
        );
    }

    #[test]
    fn offsets_read_plainly() {
        assert_eq!(offset_text(5.0), "+5 h");
        assert_eq!(offset_text(-3.0), "-3 h");
        assert!(clock_remark(-3.0).contains("site time = real time -3 h"));
    }
}
