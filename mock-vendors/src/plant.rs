//! The synthetic plant every mock vendor serves: plants at UTC+8, inverters whose power follows a
//! clear-sky day in 5-minute slots, and lifetime counters that are the running sum of that power
//! (so energy and power agree, and counters only grow). Everything is a pure function of the slot
//! time, so a fixed clock gives fixed answers.

pub const SLOT_MS: i64 = 300_000;
pub const DAY_MS: i64 = 86_400_000;
/// The plants' zone (China Standard Time); vendors that answer local times use it.
pub const TZ_OFFSET_MS: i64 = 8 * 3_600_000;
/// 2020-01-01 local: the day the plants were commissioned (their counters start there).
const COMMISSIONED_DAY: i64 = 18_262;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sample {
    pub ts_ms: i64,
    /// W, a multiple of 12 so one slot's energy is a whole Wh.
    pub power_w: f64,
    pub energy_today_wh: f64,
    pub energy_total_wh: f64,
    pub pv_voltage: [f64; 2],
    pub pv_current: [f64; 2],
    pub temperature_c: f64,
    pub grid_voltage: f64,
    pub ac_current: f64,
    pub frequency_hz: f64,
}

/// Rated AC power of inverter `device` of plant `plant`.
pub fn rated_w(plant: usize, device: usize) -> f64 {
    20_000.0 + 10_000.0 * plant as f64 + 5_000.0 * device as f64
}

/// Start of the slot holding `ts_ms`.
pub fn slot(ts_ms: i64) -> i64 {
    ts_ms.div_euclid(SLOT_MS) * SLOT_MS
}

fn local_day(ts_ms: i64) -> i64 {
    (ts_ms + TZ_OFFSET_MS).div_euclid(DAY_MS)
}

/// Start of the local day holding `ts_ms`, in UTC ms.
pub fn local_day_start(ts_ms: i64) -> i64 {
    local_day(ts_ms) * DAY_MS - TZ_OFFSET_MS
}

/// AC power in the slot starting at `slot_ts`.
pub fn power(rated: f64, slot_ts: i64) -> f64 {
    let hour = (slot_ts + TZ_OFFSET_MS).rem_euclid(DAY_MS) as f64 / 3_600_000.0;
    if !(6.0..18.0).contains(&hour) {
        return 0.0;
    }
    let shape = (std::f64::consts::PI * (hour - 6.0) / 12.0).sin().powf(1.5);
    (rated * 0.85 * shape / 12.0).round() * 12.0
}

fn day_total(rated: f64) -> f64 {
    (0..DAY_MS / SLOT_MS)
        .map(|k| power(rated, k * SLOT_MS - TZ_OFFSET_MS) / 12.0)
        .sum()
}

/// The inverter's reading at the slot starting at `slot_ts` (energy counted before that slot).
pub fn sample(rated: f64, slot_ts: i64) -> Sample {
    let day_start = local_day_start(slot_ts);
    let today: f64 = (day_start..slot_ts)
        .step_by(SLOT_MS as usize)
        .map(|s| power(rated, s) / 12.0)
        .sum();
    let days = (local_day(slot_ts) - COMMISSIONED_DAY).max(0) as f64;
    let p = power(rated, slot_ts);
    let on = p > 0.0;
    let volts = if on { [620.0, 610.0] } else { [0.0, 0.0] };
    // Round currents to the mA so every vendor's format carries them exactly.
    let amps = |v: f64| {
        if v > 0.0 {
            (p / 2.0 / v * 1000.0).round() / 1000.0
        } else {
            0.0
        }
    };
    Sample {
        ts_ms: slot_ts,
        power_w: p,
        energy_today_wh: today,
        energy_total_wh: rated + days * day_total(rated) + today,
        pv_voltage: volts,
        pv_current: [amps(volts[0]), amps(volts[1])],
        temperature_c: 25.0 + (p / rated * 200.0).round() / 10.0,
        grid_voltage: 230.0,
        ac_current: (p / 3.0 / 230.0 * 1000.0).round() / 1000.0,
        frequency_hz: 50.0,
    }
}

/// Plane-of-array irradiance of the weather station at the slot (W/m²).
pub fn irradiance(slot_ts: i64) -> f64 {
    (power(1000.0 / 0.85, slot_ts)).round()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_grow_by_the_energy_of_the_power() {
        let rated = rated_w(0, 0);
        let t0 = slot(1_780_000_000_000);
        let mut last = sample(rated, t0);
        for k in 1..600 {
            let s = sample(rated, t0 + k * SLOT_MS);
            assert!(s.energy_total_wh >= last.energy_total_wh);
            let grown = s.energy_total_wh - last.energy_total_wh;
            assert!(
                (grown - last.power_w / 12.0).abs() < 1e-6,
                "slot {k}: {grown} vs {}",
                last.power_w
            );
            last = s;
        }
    }
}
