//! Sun and sky for the simulator: solar position, clear-sky irradiance, passing clouds,
//! plane-of-array irradiance, weather. Formulas and sources are in `docs/simulator.md`; pvlib
//! is the reference to cross-check them against.

use std::f64::consts::PI;

const DAY_MS: i64 = 86_400_000;

/// Where and how the simulated plant is.
#[derive(Debug, Clone, PartialEq)]
pub struct Site {
    /// Degrees, north positive.
    pub latitude: f64,
    /// Degrees, east positive.
    pub longitude: f64,
    /// Fixed modules' tilt from horizontal, degrees.
    pub tilt: f64,
    /// Fixed modules' azimuth, degrees clockwise from north (180 = facing south).
    pub azimuth: f64,
    /// Added to the real clock: a simulated site can live in daylight at any hour.
    pub clock_offset_ms: i64,
    /// Share of time slots with a passing cloud (0 = always clear).
    pub cloudiness: f64,
    /// Seed of clouds and gusts; the same seed gives the same weather.
    pub seed: u64,
    /// Wind above which trackers stow, m/s.
    pub stow_wind: f64,
}

impl Default for Site {
    fn default() -> Site {
        // Wuhan, Hubei: a typical site of the platform's users.
        Site {
            latitude: 30.59,
            longitude: 114.31,
            tilt: 20.0,
            azimuth: 180.0,
            clock_offset_ms: 0,
            cloudiness: 0.3,
            seed: 1,
            stow_wind: 15.0,
        }
    }
}

/// Sun position at one instant.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sun {
    /// Degrees from the vertical (above 90: below the horizon).
    pub zenith: f64,
    /// Degrees clockwise from north.
    pub azimuth: f64,
}

/// Solar position from the NOAA "General Solar Position Calculations" (Spencer's Fourier
/// series for the declination and the equation of time), `t_ms` in UTC milliseconds.
pub fn sun(t_ms: i64, latitude: f64, longitude: f64) -> Sun {
    let day_of_year = day_of_year(t_ms) as f64;
    let minutes_utc = t_ms.rem_euclid(DAY_MS) as f64 / 60_000.0;
    let g = 2.0 * PI / 365.0 * (day_of_year - 1.0 + (minutes_utc / 60.0 - 12.0) / 24.0);
    let eq_time = 229.18
        * (0.000075 + 0.001868 * g.cos()
            - 0.032077 * g.sin()
            - 0.014615 * (2.0 * g).cos()
            - 0.040849 * (2.0 * g).sin());
    let decl = 0.006918 - 0.399912 * g.cos() + 0.070257 * g.sin() - 0.006758 * (2.0 * g).cos()
        + 0.000907 * (2.0 * g).sin()
        - 0.002697 * (3.0 * g).cos()
        + 0.00148 * (3.0 * g).sin();
    let true_solar_minutes = minutes_utc + eq_time + 4.0 * longitude;
    let hour_angle = (true_solar_minutes / 4.0 - 180.0).to_radians();
    let lat = latitude.to_radians();
    let cos_z = (lat.sin() * decl.sin() + lat.cos() * decl.cos() * hour_angle.cos()).clamp(-1.0, 1.0);
    let zenith = cos_z.acos();
    // Azimuth from north, clockwise; morning (negative hour angle) is east of the meridian.
    let sin_z = zenith.sin().max(1e-9);
    let cos_az = ((lat.sin() * cos_z - decl.sin()) / (lat.cos() * sin_z)).clamp(-1.0, 1.0);
    let az = 180.0 - cos_az.acos().to_degrees();
    let azimuth = if hour_angle > 0.0 { 360.0 - az } else { az };
    Sun {
        zenith: zenith.to_degrees(),
        azimuth: azimuth.rem_euclid(360.0),
    }
}

/// Day of the year, 1-366, of a UTC instant.
pub fn day_of_year(t_ms: i64) -> u32 {
    // Days since 1970-01-01 → civil date (Howard Hinnant's algorithm), then the ordinal day.
    let days = t_ms.div_euclid(DAY_MS);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy_mar = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy_mar + 2) / 153;
    let d = doy_mar - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = if m <= 2 { y + 1 } else { y };
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    const START: [i64; 12] = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334];
    let extra = if leap && m > 2 { 1 } else { 0 };
    (START[(m - 1) as usize] + d + extra) as u32
}

/// Haurwitz clear-sky global horizontal irradiance, W/m²: 1098 cos z exp(-0.057 / cos z).
pub fn haurwitz(zenith: f64) -> f64 {
    let c = zenith.to_radians().cos();
    if c <= 0.0 {
        return 0.0;
    }
    1098.0 * c * (-0.057 / c).exp()
}

fn hash(seed: u64, salt: u64, slot: i64) -> u64 {
    // SplitMix64 finaliser: a deterministic "random" number per (seed, salt, slot).
    let mut z = seed
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .wrapping_add(salt.wrapping_mul(0xBF58_476D_1CE4_E5B9))
        .wrapping_add(slot as u64);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn unit(h: u64) -> f64 {
    (h >> 11) as f64 / (1u64 << 53) as f64
}

/// Seconds a cloud takes to pass.
const CLOUD_SLOT_S: i64 = 180;

/// Share of the clear-sky beam that gets through passing clouds at `t_ms` (1 = clear).
/// Time is cut into slots; a slot holds a cloud with probability `cloudiness`, whose opacity
/// (30-80 %) rises and falls as a raised cosine across the slot, so irradiance dips smoothly.
pub fn cloud_transmittance(seed: u64, cloudiness: f64, t_ms: i64) -> f64 {
    let slot_ms = CLOUD_SLOT_S * 1000;
    let slot = t_ms.div_euclid(slot_ms);
    let h = hash(seed, 1, slot);
    if unit(h) >= cloudiness {
        return 1.0;
    }
    let depth = 0.3 + 0.5 * unit(hash(seed, 2, slot));
    let phase = t_ms.rem_euclid(slot_ms) as f64 / slot_ms as f64;
    let shape = 0.5 - 0.5 * (2.0 * PI * phase).cos();
    1.0 - depth * shape
}

/// Sky and weather at one instant.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sky {
    pub sun: Sun,
    /// Clear-sky GHI (Haurwitz).
    pub clear_ghi: f64,
    pub ghi: f64,
    pub dni: f64,
    pub dhi: f64,
    /// Plane-of-array irradiance of the site's fixed modules.
    pub poa: f64,
    pub ambient: f64,
    pub wind: f64,
    pub wind_direction: f64,
    pub humidity: f64,
}

/// Irradiance on a plane of `tilt` and `azimuth` (degrees) with an isotropic sky
/// (Liu-Jordan) and ground albedo 0.2.
pub fn plane_of_array(sun: Sun, ghi: f64, dni: f64, dhi: f64, tilt: f64, azimuth: f64) -> f64 {
    let (z, t) = (sun.zenith.to_radians(), tilt.to_radians());
    let cos_aoi = z.cos() * t.cos() + z.sin() * t.sin() * (sun.azimuth - azimuth).to_radians().cos();
    let beam = dni * cos_aoi.max(0.0);
    let diffuse = dhi * (1.0 + t.cos()) / 2.0;
    let ground = ghi * 0.2 * (1.0 - t.cos()) / 2.0;
    (beam + diffuse + ground).max(0.0)
}

/// The sky over `site` at `t_ms` (the site's shifted clock already applied by the caller).
pub fn sky(site: &Site, t_ms: i64) -> Sky {
    let sun = sun(t_ms, site.latitude, site.longitude);
    let clear_ghi = haurwitz(sun.zenith);
    let k = cloud_transmittance(site.seed, site.cloudiness, t_ms);
    // Clouds take beam away and scatter part of it: the diffuse share grows as k drops.
    let ghi = clear_ghi * (0.25 + 0.75 * k);
    let diffuse_share = (0.12 + 0.8 * (1.0 - k)).min(1.0);
    let dhi = ghi * diffuse_share;
    let cos_z = sun.zenith.to_radians().cos();
    let dni = if cos_z > 0.05 { (ghi - dhi) / cos_z } else { 0.0 };
    let poa = plane_of_array(sun, ghi, dni, dhi, site.tilt, site.azimuth);
    // Local solar hour for the diurnal weather cycles.
    let solar_hour = (t_ms.rem_euclid(DAY_MS) as f64 / 3_600_000.0 + site.longitude / 15.0).rem_euclid(24.0);
    let season = (2.0 * PI * (f64::from(day_of_year(t_ms)) - 200.0) / 365.0).cos() * site.latitude.signum();
    let ambient = 16.0 + 10.0 * season + 6.0 * (2.0 * PI * (solar_hour - 9.0) / 24.0).sin() - 2.0 * (1.0 - k);
    // Breeze that picks up in the afternoon, plus a gust now and then (one 60 s slot in 30).
    let gust_slot = t_ms.div_euclid(60_000);
    let gust = if unit(hash(site.seed, 3, gust_slot)) < 1.0 / 30.0 {
        6.0 + 8.0 * unit(hash(site.seed, 4, gust_slot))
    } else {
        0.0
    };
    let wind = 2.0 + 2.5 * (PI * (solar_hour - 6.0) / 12.0).sin().max(0.0) + gust;
    let wind_direction = (120.0 + 90.0 * (2.0 * PI * solar_hour / 24.0).sin()).rem_euclid(360.0);
    let humidity =
        (65.0 - 20.0 * (2.0 * PI * (solar_hour - 9.0) / 24.0).sin() + 15.0 * (1.0 - k)).clamp(5.0, 100.0);
    Sky {
        sun,
        clear_ghi,
        ghi,
        dni,
        dhi,
        poa,
        ambient,
        wind,
        wind_direction,
        humidity,
    }
}

/// Rotation of an ideal horizontal single-axis tracker with a north-south axis, degrees,
/// positive towards the west (the tracker map's convention), limited to ±`limit`; 0 at night.
pub fn tracker_angle(sun: Sun, limit: f64) -> f64 {
    if sun.zenith >= 90.0 {
        return 0.0;
    }
    let (z, az) = (sun.zenith.to_radians(), sun.azimuth.to_radians());
    // East component of the sun vector is sin z sin az; the rotation that faces it, with
    // west positive, is the negated angle in the east-up plane.
    let angle = -(z.sin() * az.sin()).atan2(z.cos()).to_degrees();
    angle.clamp(-limit, limit)
}

/// Module temperature from ambient and plane-of-array irradiance (NOCT model, NOCT 45 °C).
pub fn module_temperature(ambient: f64, poa: f64) -> f64 {
    ambient + poa * (45.0 - 20.0) / 800.0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 2024-06-21 04:00 UTC = 12:00 in Wuhan by the clock (UTC+8); solar noon there is about
    /// 12:22 local.
    const SOLSTICE_NOON_WUHAN: i64 = 1_718_942_400_000;

    #[test]
    fn the_sun_is_high_at_noon_in_june_and_down_at_night() {
        assert_eq!(day_of_year(SOLSTICE_NOON_WUHAN), 173);
        assert_eq!(day_of_year(0), 1);
        assert_eq!(day_of_year(1_709_164_800_000), 60, "2024-02-29");
        let s = sun(SOLSTICE_NOON_WUHAN + 22 * 60_000, 30.59, 114.31);
        // At solar noon on the solstice, zenith = latitude - declination (23.44).
        assert!((s.zenith - (30.59 - 23.44)).abs() < 0.5, "{s:?}");
        let morning = sun(SOLSTICE_NOON_WUHAN - 4 * 3_600_000, 30.59, 114.31);
        assert!(
            morning.azimuth > 60.0 && morning.azimuth < 120.0,
            "east in the morning: {morning:?}"
        );
        let afternoon = sun(SOLSTICE_NOON_WUHAN + 4 * 3_600_000, 30.59, 114.31);
        assert!(
            afternoon.azimuth > 240.0 && afternoon.azimuth < 300.0,
            "{afternoon:?}"
        );
        let night = sun(SOLSTICE_NOON_WUHAN + 12 * 3_600_000, 30.59, 114.31);
        assert!(night.zenith > 90.0);
        assert_eq!(haurwitz(night.zenith), 0.0);
    }

    #[test]
    fn haurwitz_matches_hand_computed_figures() {
        // z = 0: 1098 e^-0.057 = 1037.2; z = 60: 549 e^-0.114 = 489.9.
        assert!((haurwitz(0.0) - 1037.2).abs() < 0.1);
        assert!((haurwitz(60.0) - 489.9).abs() < 0.1);
    }

    #[test]
    fn clouds_are_deterministic_and_dim_the_sky_smoothly() {
        let site = Site {
            cloudiness: 0.5,
            ..Site::default()
        };
        let mut dimmed = 0;
        for k in 0..600 {
            let t = SOLSTICE_NOON_WUHAN + k * 10_000;
            let a = cloud_transmittance(site.seed, site.cloudiness, t);
            assert_eq!(a, cloud_transmittance(site.seed, site.cloudiness, t));
            assert!((0.2..=1.0).contains(&a));
            let b = cloud_transmittance(site.seed, site.cloudiness, t + 1000);
            assert!((a - b).abs() < 0.05, "smooth");
            if a < 0.9 {
                dimmed += 1;
            }
        }
        assert!(dimmed > 30, "some clouds pass in 100 minutes: {dimmed}");
        let clear = Site {
            cloudiness: 0.0,
            ..Site::default()
        };
        let s = sky(&clear, SOLSTICE_NOON_WUHAN);
        assert!((s.ghi - s.clear_ghi).abs() < 1e-9);
        assert!(s.poa > 900.0 && s.poa < 1100.0, "{s:?}");
    }

    #[test]
    fn the_tracker_faces_east_in_the_morning_and_west_in_the_afternoon() {
        let morning = sun(SOLSTICE_NOON_WUHAN - 3 * 3_600_000, 30.59, 114.31);
        let afternoon = sun(SOLSTICE_NOON_WUHAN + 4 * 3_600_000, 30.59, 114.31);
        assert!(tracker_angle(morning, 55.0) < -20.0);
        assert!(tracker_angle(afternoon, 55.0) > 20.0);
        assert_eq!(tracker_angle(afternoon, 10.0), 10.0, "limited");
        let noon = sun(SOLSTICE_NOON_WUHAN + 22 * 60_000, 30.59, 114.31);
        assert!(tracker_angle(noon, 55.0).abs() < 5.0);
    }
}
