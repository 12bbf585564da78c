//! The physics behind a realistic simulated device: what an inverter, a meter, a weather
//! station or a tracker would measure under the site's sky at an instant, with the state that
//! makes counters monotonic (energy is integrated from power between reads) and trackers move
//! at a finite speed. Values are canonical (W, Wh, V, A, °C, W/m², deg, m/s, s).
//!
//! The cumulative part of that state (`PlantState`) can be saved and restored, so a simulator
//! stopped and started again is a plant switched off and on, not a new one (`sim::state`). An
//! inverter can be an individual (`Individual`): its array's plane, soiling, module batch and
//! DC/AC ratio differ a little from its neighbours', deterministically from its serial.

use pv_shared::regmap::{DeviceKind, FaultMatch, RegisterMap};
use serde::{Deserialize, Serialize};

use crate::sim::sky::{self, Site, Sky};

/// How one simulated device differs from a healthy default.
#[derive(Debug, Clone, PartialEq)]
pub struct PlantOptions {
    /// Inverter: rated AC power; meter: the plant's AC capacity behind it. W.
    pub capacity_w: f64,
    /// A weak or shaded string: (1-based string, share of its normal current).
    pub weak_string: Option<(usize, f64)>,
    /// The device reports a fault (first entry of its map's fault table) and stops producing.
    pub fault: bool,
    /// Wind the device measures regardless of the weather, m/s (e.g. to force a wind stow).
    pub wind: Option<f64>,
    /// A fault that comes back: faulted for the first `on` of every `every`, on the site's
    /// clock, so alarms are raised and cleared again and again (demo sites).
    pub recurring_fault: Option<FaultCycle>,
    /// How this inverter's array differs from the site's nominal one; None: exactly nominal
    /// (the site's plane, clean modules, nameplate power, DC/AC 1.15).
    pub individual: Option<Individual>,
}

/// The small differences between the inverters of one station that make their curves,
/// dispersion and revenue differ as real ones do.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Individual {
    /// Added to the site's module tilt and azimuth, degrees (roof pitch and rows not quite
    /// parallel).
    pub tilt_delta: f64,
    pub azimuth_delta: f64,
    /// Share of irradiance lost to dirt on the modules.
    pub soiling: f64,
    /// Module batch: the array's real power against its nameplate (1.0 = nameplate).
    pub batch: f64,
    /// DC array rating over the inverter's AC rating; above about 1.17 it clips near noon.
    pub dc_ac: f64,
}

/// DC/AC ratio of a nominal array.
const DC_AC: f64 = 1.15;

impl Individual {
    /// The differences of the device named `key` (its serial), the same at every start:
    /// tilt ±3°, azimuth ±8°, soiling 0.5-3 %, batch ±1.5 %, DC/AC 1.10-1.22 (around the
    /// nominal 1.15 the demo stations' kWp assume; above about 1.2 it clips near noon). Together
    /// they keep an inverter's yield within about ±8 % of its neighbours', inside the default
    /// −10 % full-load-hours deviation flag, so only the deliberate troubles stand out.
    pub fn of(key: &str) -> Individual {
        // FNV-1a, then one SplitMix64 step per draw: stable across runs and platforms.
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in key.bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        let mut draw = || {
            h = h.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = h;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^= z >> 31;
            (z >> 11) as f64 / (1u64 << 53) as f64
        };
        Individual {
            tilt_delta: -3.0 + 6.0 * draw(),
            azimuth_delta: -8.0 + 16.0 * draw(),
            soiling: 0.005 + 0.025 * draw(),
            batch: 0.985 + 0.03 * draw(),
            dc_ac: 1.10 + 0.12 * draw(),
        }
    }
}

/// The cumulative part of a device's state: what a plant switched off keeps.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlantState {
    /// Wh.
    pub energy_total: f64,
    pub energy_today: f64,
    /// W.
    pub peak_today: f64,
    /// Meter counters, Wh and varh.
    pub energy_import: f64,
    pub energy_export: f64,
    pub reactive_import: f64,
    /// Wh/m².
    pub irradiation_today: f64,
    /// Seconds of production.
    pub running_time: f64,
    /// The site's local day the daily counters belong to (days since 1970).
    pub day: i64,
    /// Tracker angle, degrees.
    pub angle: f64,
    /// The site-clock time (ms) of the last measurement and the AC power then: a start goes on
    /// from it, adding what the plant produced while its simulator was stopped.
    #[serde(default)]
    pub last_ms: Option<i64>,
    #[serde(default)]
    pub last_power: f64,
}

/// A gap between two measurements longer than this is integrated in steps of this length: a
/// simulator stopped for a while, or polled rarely.
const CATCH_UP_STEP_MS: i64 = 60_000;
/// The longest gap integrated: beyond a day, the plant was off.
const CATCH_UP_MAX_MS: i64 = 86_400_000;

/// A recurring fault's schedule, in milliseconds of the site's clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FaultCycle {
    pub every_ms: i64,
    pub on_ms: i64,
}

impl FaultCycle {
    /// Whether the fault is showing at `t_ms` (site clock).
    pub fn active_at(&self, t_ms: i64) -> bool {
        self.every_ms > 0 && t_ms.rem_euclid(self.every_ms) < self.on_ms
    }
}

impl Default for PlantOptions {
    fn default() -> PlantOptions {
        PlantOptions {
            capacity_w: 50_000.0,
            weak_string: None,
            fault: false,
            wind: None,
            recurring_fault: None,
            individual: None,
        }
    }
}

/// Stow is held this long after the last strong gust, as tracker controllers do.
const STOW_HOLD_MS: i64 = 10 * 60_000;
/// Tracker drive speed, degrees per second.
const TRACKER_SPEED: f64 = 1.0;
const TRACKER_LIMIT: f64 = 55.0;
/// String voltage at maximum power, 1000 W/m² and 25 °C.
const V_MP: f64 = 620.0;

/// A device's physical state.
#[derive(Debug, Clone)]
pub struct Plant {
    kind: DeviceKind,
    pub options: PlantOptions,
    pv_strings: usize,
    mppts: usize,
    fault_points: Vec<(String, u64)>,
    statuses: Vec<(u32, String, Option<String>)>,
    last_ms: Option<i64>,
    last_power: f64,
    day: i64,
    energy_total: f64,
    energy_today: f64,
    peak_today: f64,
    import: f64,
    export: f64,
    reactive_import: f64,
    irradiation_today: f64,
    running_time: f64,
    angle: f64,
    stow_until: i64,
    /// Whether a fault shows at the instant being measured (injected or on its schedule).
    faulted: bool,
}

fn count(map: &RegisterMap, prefix: &str, suffix: &str) -> usize {
    map.points
        .iter()
        .filter(|p| {
            p.metric
                .strip_prefix(prefix)
                .and_then(|r| r.strip_suffix(suffix))
                .is_some_and(|n| n.parse::<u32>().is_ok())
        })
        .count()
}

impl Plant {
    pub fn new(map: &RegisterMap, seed: u64, options: PlantOptions) -> Plant {
        // The first fault of each fault point: what an injected fault shows.
        let mut fault_points: Vec<(String, u64)> = Vec::new();
        for f in &map.faults {
            if fault_points.iter().any(|(p, _)| *p == f.point) {
                continue;
            }
            let value = match f.matches {
                FaultMatch::Code(c) => u64::from(c),
                FaultMatch::Bit(b) => 1u64 << b,
            };
            fault_points.push((f.point.clone(), value));
        }
        for p in &map.points {
            if (p.metric == "fault_code" || p.metric.starts_with("fault_word") || p.metric == "warning_code")
                && !fault_points.iter().any(|(m, _)| *m == p.metric)
            {
                fault_points.push((p.metric.clone(), 0));
            }
        }
        Plant {
            kind: map.kind,
            pv_strings: count(map, "pv", "_current"),
            mppts: count(map, "mppt", "_current"),
            fault_points,
            statuses: map
                .status
                .iter()
                .map(|s| (s.code, s.en.clone(), s.state.clone()))
                .collect(),
            options,
            last_ms: None,
            last_power: 0.0,
            day: i64::MIN,
            // Counters start where a few years of operation would have left them.
            energy_total: 1.0e7 + (seed % 1000) as f64 * 1.0e4,
            energy_today: 0.0,
            peak_today: 0.0,
            import: 2.0e6 + (seed % 97) as f64 * 1.0e3,
            export: 5.0e6 + (seed % 89) as f64 * 1.0e3,
            reactive_import: 3.0e5,
            irradiation_today: 0.0,
            // About four years of production, in seconds.
            running_time: 5.0e7 + (seed % 1000) as f64 * 1.0e4,
            angle: 0.0,
            stow_until: i64::MIN,
            faulted: false,
        }
    }

    /// The cumulative state, to be saved.
    pub fn state(&self) -> PlantState {
        PlantState {
            energy_total: self.energy_total,
            energy_today: self.energy_today,
            peak_today: self.peak_today,
            energy_import: self.import,
            energy_export: self.export,
            reactive_import: self.reactive_import,
            irradiation_today: self.irradiation_today,
            running_time: self.running_time,
            day: self.day,
            angle: self.angle,
            last_ms: self.last_ms,
            last_power: self.last_power,
        }
    }

    /// Takes up a saved state: the counters continue from it, and the first measurement adds
    /// what the plant produced since it was saved (it kept running; only its monitoring, the
    /// simulator, was off), so a restart changes no figure; the daily ones start again if the
    /// site's day changed meanwhile.
    pub fn restore(&mut self, s: &PlantState) {
        self.energy_total = s.energy_total;
        self.energy_today = s.energy_today;
        self.peak_today = s.peak_today;
        self.import = s.energy_import;
        self.export = s.energy_export;
        self.reactive_import = s.reactive_import;
        self.irradiation_today = s.irradiation_today;
        self.running_time = s.running_time;
        self.day = s.day;
        self.angle = s.angle;
        self.last_ms = s.last_ms;
        self.last_power = s.last_power;
    }

    /// A status code of the map: the first whose English name contains `name`, else the first
    /// in `state`.
    fn status(&self, name: &str, state: &str) -> Option<f64> {
        self.statuses
            .iter()
            .find(|(_, en, _)| !name.is_empty() && en.contains(name))
            .or_else(|| self.statuses.iter().find(|(_, _, s)| s.as_deref() == Some(state)))
            .map(|(c, _, _)| f64::from(*c))
    }

    /// What the device measures at `t_ms` (site clock). `manual_target` is a tracker target
    /// angle written over Modbus, which the tracker then follows instead of the sun.
    pub fn measure(&mut self, site: &Site, t_ms: i64, manual_target: Option<f64>) -> Vec<(String, f64)> {
        match self.last_ms {
            // The site's clock went back (the demo chose a new one): go on from now.
            Some(last) if last > t_ms + CATCH_UP_STEP_MS => self.last_ms = None,
            // Beyond a day the plant was off: nothing to add.
            Some(last) if t_ms - last > CATCH_UP_MAX_MS => {
                self.last_ms = None;
                self.last_power = 0.0;
            }
            // A long gap: the sun moved meanwhile, so it is integrated minute by minute.
            Some(last) if t_ms - last > CATCH_UP_STEP_MS => {
                let mut t = last + CATCH_UP_STEP_MS;
                while t < t_ms {
                    self.measure_at(site, t, manual_target);
                    t += CATCH_UP_STEP_MS;
                }
            }
            _ => {}
        }
        self.measure_at(site, t_ms, manual_target)
    }

    fn measure_at(&mut self, site: &Site, t_ms: i64, manual_target: Option<f64>) -> Vec<(String, f64)> {
        let sky = sky::sky(site, t_ms);
        let dt_h = match self.last_ms {
            Some(last) if t_ms > last => (t_ms - last) as f64 / 3_600_000.0,
            _ => 0.0,
        };
        self.last_ms = Some(t_ms.max(self.last_ms.unwrap_or(i64::MIN)));
        // The local day (by longitude) for the daily counters.
        let day = (t_ms + (site.longitude / 15.0 * 3_600_000.0) as i64).div_euclid(86_400_000);
        if day != self.day {
            self.day = day;
            self.energy_today = 0.0;
            self.peak_today = 0.0;
            self.irradiation_today = 0.0;
        }
        self.faulted = self.options.fault || self.options.recurring_fault.is_some_and(|c| c.active_at(t_ms));
        let mut out = Vec::new();
        match self.kind {
            DeviceKind::Inverter => self.inverter(site, &sky, t_ms, dt_h, &mut out),
            DeviceKind::Meter => self.meter(&sky, t_ms, dt_h, &mut out),
            DeviceKind::Weather => self.weather(&sky, dt_h, &mut out),
            DeviceKind::Tracker => self.tracker(site, &sky, t_ms, dt_h, manual_target, &mut out),
        }
        for (point, value) in &self.fault_points {
            let v = if self.faulted { *value as f64 } else { 0.0 };
            out.push((point.clone(), v));
        }
        out
    }

    fn grid(&self, t_ms: i64, out: &mut Vec<(String, f64)>) {
        let s = (t_ms as f64 / 37_000.0).sin();
        let phase = 230.0 + 1.5 * s;
        for (p, dv) in [("a", 0.0), ("b", 0.4), ("c", -0.3)] {
            out.push((format!("grid_voltage_{p}"), phase + dv));
        }
        for pp in ["ab", "bc", "ca"] {
            out.push((format!("grid_voltage_{pp}"), phase * 3f64.sqrt()));
        }
        out.push(("grid_voltage".into(), phase));
        out.push((
            "grid_frequency".into(),
            50.0 + 0.03 * (t_ms as f64 / 53_000.0).sin(),
        ));
    }

    fn inverter(&mut self, site: &Site, sky: &Sky, t_ms: i64, dt_h: f64, out: &mut Vec<(String, f64)>) {
        let cap = self.options.capacity_w;
        // What this inverter's own array receives: its plane, less what dirt takes.
        let (poa, dc_ac, batch) = match self.options.individual {
            Some(d) => (
                sky::plane_of_array(
                    sky.sun,
                    sky.ghi,
                    sky.dni,
                    sky.dhi,
                    site.tilt + d.tilt_delta,
                    site.azimuth + d.azimuth_delta,
                ) * (1.0 - d.soiling),
                d.dc_ac,
                d.batch,
            ),
            None => (sky.poa, DC_AC, 1.0),
        };
        let t_mod = sky::module_temperature(sky.ambient, poa);
        let running = !self.faulted && poa > 10.0;
        let strings = self.pv_strings.max(self.mppts).max(1);
        // DC array `dc_ac` times the inverter (1.15 usually); voltage falls with heat and
        // (logarithmically) with light.
        let v = if poa > 1.0 {
            (V_MP * (1.0 - 0.0035 * (t_mod - 25.0)) * (1.0 + 0.025 * (poa / 1000.0).ln())).max(0.0)
        } else {
            0.0
        };
        let i_nominal = cap * dc_ac * batch / (strings as f64 * V_MP);
        let mut currents: Vec<f64> = (1..=strings)
            .map(|k| {
                let share = match self.options.weak_string {
                    Some((w, f)) if w == k => f,
                    _ => 1.0,
                };
                if running {
                    i_nominal * poa / 1000.0 * share
                } else {
                    0.0
                }
            })
            .collect();
        let mut dc: f64 = currents.iter().map(|i| i * v).sum();
        // Clipping: at its AC limit the inverter moves the array off its maximum power point,
        // drawing less current from every string alike.
        if dc * 0.975 > cap {
            let f = cap / (dc * 0.975);
            currents.iter_mut().for_each(|i| *i *= f);
            dc *= f;
        }
        let ac = (dc * 0.975).min(cap);
        if running && dt_h > 0.0 {
            self.running_time += dt_h * 3600.0;
        }
        self.energy_total += (ac + self.last_power) / 2.0 * dt_h;
        self.energy_today += (ac + self.last_power) / 2.0 * dt_h;
        self.last_power = ac;
        self.peak_today = self.peak_today.max(ac);
        for (k, i) in currents.iter().enumerate() {
            let n = k + 1;
            out.push((format!("pv{n}_voltage"), v));
            out.push((format!("pv{n}_current"), *i));
            out.push((format!("pv{n}_power"), v * i));
        }
        let mppts = self.mppts.max(1);
        let per = strings.div_ceil(mppts);
        for m in 0..mppts {
            let i: f64 = currents.iter().skip(m * per).take(per).sum();
            let n = m + 1;
            out.push((format!("mppt{n}_voltage"), v));
            out.push((format!("mppt{n}_current"), i));
            out.push((format!("mppt{n}_power"), v * i));
            out.push((format!("mppt{n}_energy_total"), self.energy_total / mppts as f64));
        }
        let q = ac * 0.05;
        out.extend([
            ("dc_voltage".to_string(), v),
            ("dc_current".into(), currents.iter().sum()),
            ("dc_power".into(), dc),
            ("ac_power".into(), ac),
            ("ac_reactive_power".into(), q),
            ("ac_apparent_power".into(), (ac * ac + q * q).sqrt()),
            (
                "power_factor".into(),
                if ac > 0.0 {
                    ac / (ac * ac + q * q).sqrt()
                } else {
                    1.0
                },
            ),
            ("ac_current".into(), ac / 230.0),
            ("energy_total".into(), self.energy_total),
            ("energy_today".into(), self.energy_today),
            ("running_time_total".into(), self.running_time),
            ("peak_power_today".into(), self.peak_today),
            ("efficiency".into(), if dc > 0.0 { ac / dc * 100.0 } else { 0.0 }),
            ("temperature".into(), sky.ambient + 8.0 + 15.0 * ac / cap),
            (
                "heatsink_temperature".into(),
                sky.ambient + 11.0 + 18.0 * ac / cap,
            ),
        ]);
        for p in ["a", "b", "c"] {
            out.push((format!("ac_power_{p}"), ac / 3.0));
            out.push((format!("ac_current_{p}"), ac / 3.0 / 230.0));
        }
        self.grid(t_ms, out);
        let status = if self.faulted {
            self.status("", "fault")
        } else if running {
            self.status("", "running")
        } else {
            self.status("", "standby")
        };
        if let Some(s) = status {
            out.push(("status_code".into(), s));
        }
    }

    fn meter(&mut self, sky: &Sky, t_ms: i64, dt_h: f64, out: &mut Vec<(String, f64)>) {
        let cap = self.options.capacity_w;
        let plant = cap * sky.poa / 1000.0 * 0.95;
        let solar_hour = (t_ms.rem_euclid(86_400_000) as f64 / 3_600_000.0 + 8.0).rem_euclid(24.0);
        let load = cap * 0.3 * (0.6 + 0.4 * (2.0 * std::f64::consts::PI * (solar_hour - 7.0) / 24.0).sin());
        // Positive: exported to the grid.
        let net = plant.min(cap) - load;
        let avg = (net + self.last_power) / 2.0;
        if avg >= 0.0 {
            self.export += avg * dt_h;
        } else {
            self.import += -avg * dt_h;
        }
        self.last_power = net;
        let q = load * 0.1;
        self.reactive_import += q * dt_h;
        let s = (net * net + q * q).sqrt();
        out.extend([
            ("ac_power".to_string(), net),
            ("ac_reactive_power".into(), q),
            ("ac_apparent_power".into(), s),
            ("power_factor".into(), if s > 0.0 { net.abs() / s } else { 1.0 }),
            ("ac_current".into(), s / 230.0),
            ("energy_import".into(), self.import),
            ("energy_export".into(), self.export),
            ("reactive_energy_import".into(), self.reactive_import),
            ("reactive_energy_export".into(), 1.0e4),
        ]);
        for p in ["a", "b", "c"] {
            out.push((format!("ac_power_{p}"), net / 3.0));
            out.push((format!("ac_current_{p}"), s / 3.0 / 230.0));
        }
        self.grid(t_ms, out);
    }

    fn weather(&mut self, sky: &Sky, dt_h: f64, out: &mut Vec<(String, f64)>) {
        self.irradiation_today += sky.ghi * dt_h;
        out.extend([
            ("irradiance_ghi".to_string(), sky.ghi),
            ("irradiance_poa".into(), sky.poa),
            ("irradiance_diffuse".into(), sky.dhi),
            ("irradiance_dni".into(), sky.dni),
            // A second plane-of-array cell, slightly soiled.
            ("irradiance_other".into(), sky.poa * 0.97),
            ("irradiation_today".into(), self.irradiation_today),
            ("ambient_temperature".into(), sky.ambient),
            (
                "module_temperature".into(),
                sky::module_temperature(sky.ambient, sky.poa),
            ),
            ("humidity".into(), sky.humidity),
            ("air_pressure".into(), 1008.0),
            ("wind_speed".into(), self.options.wind.unwrap_or(sky.wind)),
            ("wind_direction".into(), sky.wind_direction),
        ]);
    }

    fn tracker(
        &mut self,
        site: &Site,
        sky: &Sky,
        t_ms: i64,
        dt_h: f64,
        manual_target: Option<f64>,
        out: &mut Vec<(String, f64)>,
    ) {
        let wind = self.options.wind.unwrap_or(sky.wind);
        if wind >= site.stow_wind {
            self.stow_until = t_ms + STOW_HOLD_MS;
        }
        let stowed = t_ms < self.stow_until;
        let night = sky.sun.zenith >= 90.0;
        let (target, mode, status) = if self.faulted {
            (self.angle, 3.0, self.status("", "fault"))
        } else if stowed {
            (0.0, 2.0, self.status("Wind", "derating"))
        } else if let Some(t) = manual_target {
            (
                t.clamp(-TRACKER_LIMIT, TRACKER_LIMIT),
                1.0,
                self.status("Manual", "standby"),
            )
        } else if night {
            (0.0, 0.0, self.status("Night", "standby"))
        } else {
            (
                sky::tracker_angle(sky.sun, TRACKER_LIMIT),
                0.0,
                self.status("", "running"),
            )
        };
        let step = TRACKER_SPEED * dt_h * 3600.0;
        let moving = (target - self.angle).abs() > 0.05 && step > 0.0;
        self.angle += (target - self.angle).clamp(-step, step);
        out.extend([
            ("tracker_angle".to_string(), self.angle),
            ("tracker_target_angle".into(), target),
            ("tracker_mode".into(), mode),
            ("tracker_stow".into(), if stowed { 1.0 } else { 0.0 }),
            ("motor_current".into(), if moving { 2.4 } else { 0.05 }),
            ("wind_speed".into(), wind),
        ]);
        if let Some(s) = status {
            out.push(("status_code".into(), s));
        }
    }
}
