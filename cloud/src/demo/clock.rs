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
    // -0.0 (a rounded small negative) would read "+-0 h" and differ from a kept 0.
    if offset == 0.0 { 0.0 } else { offset }
}

/// Site solar hours in which a kept clock still shows good daylight production.
const KEEP_SOLAR_HOURS: std::ops::Range<f64> = 7.5..14.5;

/// The site's solar hour at `now_ms` with its clock `offset_h` hours off the real one.
fn solar_hour(longitude: f64, offset_h: f64, now_ms: i64) -> f64 {
    let utc_h = now_ms.rem_euclid(86_400_000) as f64 / 3_600_000.0;
    (utc_h + offset_h + longitude / 15.0).rem_euclid(24.0)
}

/// The offset a start uses: the one the site already runs on while it still shows daylight
/// production there (a restart is the same plant switched off and on, its day and its figures go
/// on), else a new one that puts it in mid-morning.
pub fn keep_or_choose(kept_h: Option<f64>, longitude: f64, now_ms: i64) -> f64 {
    match kept_h {
        Some(h) if KEEP_SOLAR_HOURS.contains(&solar_hour(longitude, h, now_ms)) => h,
        _ => clock_offset_h(longitude, now_ms),
    }
}

/// The offset (h) a site runs on, from its station's UTC offset (the inverse of
/// [`site_offset_minutes`]), in (-12, 12].
pub fn offset_of_site_minutes(minutes: i64) -> f64 {
    let mut h = (minutes - sites::SITE_UTC_OFFSET_MINUTES) as f64 / 60.0;
    if h <= -12.0 {
        h += 24.0;
    } else if h > 12.0 {
        h -= 24.0;
    }
    if h == 0.0 { 0.0 } else { h }
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
        "时钟偏移 {t}：模拟现场时间 = 实际时间 {t}（启动时选择，使现场处于上午，任何时刻都能看到白天发电；重启时只要现场仍是白天就保持不变）。\
         Clock offset {t}: simulated site time = real time {t} (chosen so the site is in mid-morning and \
         produces at any hour; kept across restarts while the site is still in daylight)."
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
    fn a_restart_keeps_the_clock_while_the_site_is_in_daylight() {
        let lon = 120.653;
        let start = 1_718_928_000_000;
        let h = clock_offset_h(lon, start);
        // Minutes, an hour and three hours later the site runs on; seven hours later it is
        // evening there and a new mid-morning clock is chosen.
        for later in [0, 10 * 60_000, 3_600_000, 3 * 3_600_000] {
            assert_eq!(keep_or_choose(Some(h), lon, start + later), h, "{later}");
        }
        let evening = start + 7 * 3_600_000;
        assert_eq!(
            keep_or_choose(Some(h), lon, evening),
            clock_offset_h(lon, evening)
        );
        assert_ne!(clock_offset_h(lon, evening), h);
        assert_eq!(keep_or_choose(None, lon, start), h);
        // Never a negative zero: its text would differ from a kept zero's.
        for q in 0..96 {
            let h = clock_offset_h(113.25, start + q * 900_000);
            assert!(!(h == 0.0 && h.is_sign_negative()), "{q}");
        }
        for h in [-11.0, -3.0, 0.0, 5.0, 6.0, 12.0] {
            assert_eq!(offset_of_site_minutes(site_offset_minutes(h)), h, "{h}");
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
