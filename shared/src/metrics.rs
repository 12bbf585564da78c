//! The canonical metric vocabulary: every value a gateway sends is named here, with one canonical
//! unit. Register maps may declare a point in a unit of the same dimension (kW for a W metric,
//! kWh for a Wh metric); the decoder converts it, so the cloud only ever sees canonical units.
//!
//! Sign conventions (so meters of different makes agree):
//! - `ac_power` of an inverter is what it feeds to the grid (positive when generating).
//! - `ac_power` of a meter is positive when power flows *from the grid into the site* (import),
//!   negative on export. Maps of meters that count the other way use a negative scale.
//! - `energy_import` / `energy_export` are the meter's cumulative counters in those directions.

use std::fmt;

/// Physical dimension of a metric; units of the same dimension convert by a factor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dimension {
    Power,
    ReactivePower,
    ApparentPower,
    Energy,
    ReactiveEnergy,
    Voltage,
    Current,
    Frequency,
    Temperature,
    Irradiance,
    Irradiation,
    Speed,
    Angle,
    Percent,
    Resistance,
    Pressure,
    Length,
    Duration,
    /// Power factor and other pure numbers.
    Ratio,
    /// Status, mode and fault codes or bit fields; decoded as integers and looked up in the map's tables.
    Code,
    /// Serial numbers, model names, firmware versions.
    Text,
}

/// A unit a register map may declare: its spelling in maps, its dimension and the factor that
/// converts one of it into the dimension's canonical unit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Unit {
    pub symbol: &'static str,
    pub dimension: Dimension,
    pub to_canonical: f64,
}

/// Every unit a map may use. The first unit listed for a dimension is its canonical unit.
pub const UNITS: &[Unit] = &[
    u("W", Dimension::Power, 1.0),
    u("kW", Dimension::Power, 1e3),
    u("MW", Dimension::Power, 1e6),
    u("var", Dimension::ReactivePower, 1.0),
    u("kvar", Dimension::ReactivePower, 1e3),
    u("VA", Dimension::ApparentPower, 1.0),
    u("kVA", Dimension::ApparentPower, 1e3),
    u("Wh", Dimension::Energy, 1.0),
    u("kWh", Dimension::Energy, 1e3),
    u("MWh", Dimension::Energy, 1e6),
    u("varh", Dimension::ReactiveEnergy, 1.0),
    u("kvarh", Dimension::ReactiveEnergy, 1e3),
    u("V", Dimension::Voltage, 1.0),
    u("kV", Dimension::Voltage, 1e3),
    u("A", Dimension::Current, 1.0),
    u("mA", Dimension::Current, 1e-3),
    u("Hz", Dimension::Frequency, 1.0),
    u("degC", Dimension::Temperature, 1.0),
    u("W/m2", Dimension::Irradiance, 1.0),
    u("Wh/m2", Dimension::Irradiation, 1.0),
    u("kWh/m2", Dimension::Irradiation, 1e3),
    u("MJ/m2", Dimension::Irradiation, 1e6 / 3600.0),
    u("m/s", Dimension::Speed, 1.0),
    u("deg", Dimension::Angle, 1.0),
    u("%", Dimension::Percent, 1.0),
    u("Ohm", Dimension::Resistance, 1.0),
    u("kOhm", Dimension::Resistance, 1e3),
    u("MOhm", Dimension::Resistance, 1e6),
    u("hPa", Dimension::Pressure, 1.0),
    u("kPa", Dimension::Pressure, 10.0),
    u("mm", Dimension::Length, 1.0),
    u("s", Dimension::Duration, 1.0),
    u("h", Dimension::Duration, 3600.0),
    u("1", Dimension::Ratio, 1.0),
    u("code", Dimension::Code, 1.0),
    u("text", Dimension::Text, 1.0),
];

const fn u(symbol: &'static str, dimension: Dimension, to_canonical: f64) -> Unit {
    Unit {
        symbol,
        dimension,
        to_canonical,
    }
}

impl Unit {
    /// The unit spelled `symbol`, if maps may use it.
    pub fn parse(symbol: &str) -> Option<Unit> {
        UNITS.iter().find(|u| u.symbol == symbol).copied()
    }

    /// The canonical unit of a dimension (the one the cloud stores).
    pub fn canonical(dimension: Dimension) -> Unit {
        // UNITS lists every dimension, canonical first; the test below keeps that true.
        UNITS
            .iter()
            .find(|u| u.dimension == dimension)
            .copied()
            .unwrap_or(u("1", Dimension::Ratio, 1.0))
    }
}

impl fmt::Display for Unit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.symbol)
    }
}

/// One entry of the vocabulary. A `{n}` in the name stands for a 1-based index (PV input,
/// MPPT, fault word...), so `pv{n}_current` covers `pv1_current`, `pv2_current`, ...
#[derive(Debug, Clone, Copy)]
pub struct MetricDef {
    pub name: &'static str,
    pub dimension: Dimension,
    pub description: &'static str,
}

const fn m(name: &'static str, dimension: Dimension, description: &'static str) -> MetricDef {
    MetricDef {
        name,
        dimension,
        description,
    }
}

use Dimension as D;

/// The vocabulary. Adding a metric is a change of the wire contract: add, never rename.
pub const METRICS: &[MetricDef] = &[
    // AC side of inverters and meters.
    m(
        "ac_power",
        D::Power,
        "active power (inverter: fed to grid; meter: import positive)",
    ),
    m("ac_power_{p}", D::Power, "active power of phase a/b/c"),
    m("ac_reactive_power", D::ReactivePower, "reactive power"),
    m("ac_apparent_power", D::ApparentPower, "apparent power"),
    m("power_factor", D::Ratio, "power factor (-1..1)"),
    m("grid_frequency", D::Frequency, "grid frequency"),
    m(
        "grid_voltage",
        D::Voltage,
        "grid voltage (single phase, or mean of phases)",
    ),
    m(
        "grid_voltage_{p}",
        D::Voltage,
        "phase-to-neutral voltage of phase a/b/c",
    ),
    m("grid_voltage_{pp}", D::Voltage, "line-to-line voltage ab/bc/ca"),
    m("ac_current", D::Current, "AC current (total or single phase)"),
    m("ac_current_{p}", D::Current, "AC current of phase a/b/c"),
    m("peak_power_today", D::Power, "highest active power of the day"),
    // DC side of inverters.
    m("dc_power", D::Power, "total DC input power"),
    m("dc_voltage", D::Voltage, "DC input voltage (single input or bus)"),
    m("dc_current", D::Current, "total DC input current"),
    m("pv{n}_voltage", D::Voltage, "voltage of PV input (string) n"),
    m("pv{n}_current", D::Current, "current of PV input (string) n"),
    m("pv{n}_power", D::Power, "power of PV input (string) n"),
    m("mppt{n}_voltage", D::Voltage, "voltage of MPP tracker n"),
    m("mppt{n}_current", D::Current, "current of MPP tracker n"),
    m("mppt{n}_power", D::Power, "power of MPP tracker n"),
    m(
        "mppt{n}_energy_total",
        D::Energy,
        "lifetime energy of MPP tracker n",
    ),
    // Counters.
    m("energy_total", D::Energy, "lifetime energy generated"),
    m(
        "energy_today",
        D::Energy,
        "energy generated today (device's own day counter)",
    ),
    m(
        "energy_import",
        D::Energy,
        "meter: cumulative active energy imported from the grid",
    ),
    m(
        "energy_export",
        D::Energy,
        "meter: cumulative active energy exported to the grid",
    ),
    m(
        "reactive_energy_import",
        D::ReactiveEnergy,
        "meter: cumulative reactive energy, import",
    ),
    m(
        "reactive_energy_export",
        D::ReactiveEnergy,
        "meter: cumulative reactive energy, export",
    ),
    m("running_time_total", D::Duration, "lifetime operating time"),
    // Inverter health.
    m("temperature", D::Temperature, "internal / cabinet temperature"),
    m("heatsink_temperature", D::Temperature, "heat sink temperature"),
    m("efficiency", D::Percent, "conversion efficiency"),
    m(
        "insulation_resistance",
        D::Resistance,
        "PV array insulation resistance to earth",
    ),
    m(
        "status_code",
        D::Code,
        "device state; looked up in the map's status table",
    ),
    m(
        "fault_code",
        D::Code,
        "fault / alarm code; looked up in the map's fault table",
    ),
    m(
        "fault_word{n}",
        D::Code,
        "fault / alarm bit field n; bits looked up in the fault table",
    ),
    m("warning_code", D::Code, "warning code"),
    // Weather.
    m(
        "irradiance_poa",
        D::Irradiance,
        "plane-of-array irradiance (the one PR uses)",
    ),
    m("irradiance_ghi", D::Irradiance, "global horizontal irradiance"),
    m("irradiance_dni", D::Irradiance, "direct normal irradiance"),
    m(
        "irradiance_diffuse",
        D::Irradiance,
        "diffuse horizontal irradiance",
    ),
    m(
        "irradiance_other",
        D::Irradiance,
        "irradiance of another orientation",
    ),
    m(
        "irradiation_today",
        D::Irradiation,
        "irradiation accumulated today by the station",
    ),
    m("ambient_temperature", D::Temperature, "ambient air temperature"),
    m("module_temperature", D::Temperature, "back-of-module temperature"),
    m("humidity", D::Percent, "relative humidity"),
    m("air_pressure", D::Pressure, "barometric pressure"),
    m("wind_speed", D::Speed, "wind speed"),
    m(
        "wind_direction",
        D::Angle,
        "wind direction (from, clockwise from north)",
    ),
    m("rainfall", D::Length, "precipitation"),
    // Tracker / flexible bracket.
    m(
        "tracker_angle",
        D::Angle,
        "measured tilt angle of the tracker row",
    ),
    m("tracker_target_angle", D::Angle, "target tilt angle"),
    m("tracker_mode", D::Code, "operating mode (auto, manual, stow...)"),
    m("tracker_stow", D::Code, "1 when the row is in wind/snow stow"),
    m("motor_current", D::Current, "drive motor current"),
    // Identity.
    m("serial_number", D::Text, "device serial number"),
    m("model_name", D::Text, "device model as reported"),
    m("firmware_version", D::Text, "firmware version"),
];

/// A vocabulary entry matched by a concrete name, with the index or phase it carried.
#[derive(Debug, Clone, Copy)]
pub struct Metric {
    pub def: &'static MetricDef,
}

impl Metric {
    pub fn unit(&self) -> Unit {
        Unit::canonical(self.def.dimension)
    }
}

/// Looks up a concrete metric name such as `pv12_current` or `grid_voltage_ab`.
pub fn lookup(name: &str) -> Option<Metric> {
    METRICS
        .iter()
        .find(|d| pattern_matches(d.name, name))
        .map(|def| Metric { def })
}

fn pattern_matches(pattern: &str, name: &str) -> bool {
    for (hole, alternatives) in [
        ("{n}", &[][..]),
        ("{p}", &["a", "b", "c"][..]),
        ("{pp}", &["ab", "bc", "ca"][..]),
    ] {
        if let Some(at) = pattern.find(hole) {
            let (prefix, suffix) = (&pattern[..at], &pattern[at + hole.len()..]);
            let Some(middle) = name
                .strip_prefix(prefix)
                .and_then(|rest| rest.strip_suffix(suffix))
            else {
                return false;
            };
            return if alternatives.is_empty() {
                // A 1-based index without leading zeros, at most 3 digits.
                !middle.is_empty()
                    && middle.len() <= 3
                    && middle.bytes().all(|b| b.is_ascii_digit())
                    && !middle.starts_with('0')
            } else {
                alternatives.contains(&middle)
            };
        }
    }
    pattern == name
}

/// Largest power any one device reports (W): a 1 GW reading is a decoding fault (no map states
/// a rated power, so this is the general bound; signed meters get it on both sides).
const MAX_DEVICE_POWER: f64 = 1e9;
/// Largest counter (Wh, varh): 1 PWh, a lifetime no PV device reaches; garbage in a u64 register
/// (1.8e19) is well above.
const MAX_COUNTER: f64 = 1e15;

/// The physically plausible range of a metric's value (canonical unit, inclusive), where one can
/// be told without knowing the device: a value outside is a sensor or decoding fault and travels
/// with a quality mark, never as a good value. `None`: codes, text and unknown names. The table
/// with the reason for every bound is `docs/data-quality.md`; keep them together.
///
/// Fast on purpose: the cloud's ingest asks once per stored value. An exact name is one `match`;
/// an indexed or per-phase name (`pv12_current`, `grid_voltage_ab`) is folded to its vocabulary
/// pattern first, without the vocabulary's linear scan.
pub fn plausible_range(name: &str) -> Option<(f64, f64)> {
    if let Some(r) = range_of(name) {
        return Some(r);
    }
    let mut buf = [0u8; 64];
    pattern_of(name, &mut buf).and_then(range_of)
}

/// `pv12_current` → `pv{n}_current`, `ac_power_b` → `ac_power_{p}`, `grid_voltage_ca` →
/// `grid_voltage_{pp}`, written into `buf` (no allocation: ingest calls this per value); `None`
/// when the name has neither an index nor a phase suffix, or is too long for a metric.
fn pattern_of<'a>(name: &str, buf: &'a mut [u8; 64]) -> Option<&'a str> {
    let (stem, hole, rest) = if let Some(start) = name.find(|c: char| c.is_ascii_digit()) {
        let len = name[start..]
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(name.len() - start);
        (&name[..start], "{n}", &name[start + len..])
    } else {
        let (suffix, hole) = [
            ("_ab", "_{pp}"),
            ("_bc", "_{pp}"),
            ("_ca", "_{pp}"),
            ("_a", "_{p}"),
            ("_b", "_{p}"),
            ("_c", "_{p}"),
        ]
        .into_iter()
        .find(|(suffix, _)| name.ends_with(suffix))?;
        (&name[..name.len() - suffix.len()], hole, "")
    };
    let len = stem.len() + hole.len() + rest.len();
    if len > buf.len() {
        return None;
    }
    let mut at = 0;
    for part in [stem, hole, rest] {
        buf[at..at + part.len()].copy_from_slice(part.as_bytes());
        at += part.len();
    }
    std::str::from_utf8(&buf[..len]).ok()
}

fn range_of(base: &str) -> Option<(f64, f64)> {
    Some(match base {
        // Signed: a meter's import/export, an inverter's night draw, reactive power either way.
        "ac_power" | "ac_power_{p}" | "ac_reactive_power" => (-MAX_DEVICE_POWER, MAX_DEVICE_POWER),
        // Magnitudes and maxima cannot be negative.
        "ac_apparent_power" | "peak_power_today" => (0.0, MAX_DEVICE_POWER),
        // DC input power only flows in; a few hundred watts below zero is sensor offset at night.
        "dc_power" | "pv{n}_power" | "mppt{n}_power" => (-1_000.0, MAX_DEVICE_POWER),
        "power_factor" => (-1.0, 1.0),
        // 50/60 Hz grids; protection trips long before ±5 Hz.
        "grid_frequency" => (45.0, 65.0),
        // Up to the highest transmission level a plant meter's transformer ratio could show.
        "grid_voltage" | "grid_voltage_{p}" | "grid_voltage_{pp}" => (0.0, 1e6),
        // PV arrays are at most 1500 V DC (IEC 62548); 2000 V leaves margin for cold open circuit.
        "dc_voltage" | "pv{n}_voltage" | "mppt{n}_voltage" => (-10.0, 2_000.0),
        // Meters may sign the current with the power direction.
        "ac_current" | "ac_current_{p}" => (-1e5, 1e5),
        // A string carries at most a few tens of amperes (module Isc ≈ 20 A, two in parallel).
        "pv{n}_current" => (-10.0, 100.0),
        "mppt{n}_current" => (-10.0, 10_000.0),
        "dc_current" => (-10.0, 1e5),
        "energy_total"
        | "energy_today"
        | "energy_import"
        | "energy_export"
        | "mppt{n}_energy_total"
        | "reactive_energy_import"
        | "reactive_energy_export" => (0.0, MAX_COUNTER),
        // 100 years.
        "running_time_total" => (0.0, 3.2e9),
        // Power electronics shut down above ~85-100 °C; sensors read below −40 °C only when broken.
        "temperature" => (-40.0, 120.0),
        "heatsink_temperature" => (-40.0, 150.0),
        // Output over input: above 100 % is a measurement fault.
        "efficiency" => (0.0, 100.0),
        // An open (unconnected) insulation monitor reads "infinite" as a large number: 10 GΩ.
        "insulation_resistance" => (0.0, 1e10),
        // W/m²: above the solar constant plus cloud-edge enhancement is a fault; a thermopile
        // reads a few W/m² below zero at night.
        "irradiance_poa" | "irradiance_ghi" | "irradiance_dni" | "irradiance_diffuse"
        | "irradiance_other" => (-10.0, 1_500.0),
        // A clear summer day on a tracker at altitude stays below 12 kWh/m².
        "irradiation_today" => (0.0, 12_000.0),
        // Outside the records of surface air temperature (−89 °C, 57 °C) with margin for a hot sensor.
        "ambient_temperature" => (-50.0, 60.0),
        "module_temperature" => (-40.0, 90.0),
        "humidity" => (0.0, 100.0),
        // Sea level record high ≈ 1084 hPa; 300 hPa is ≈ 9 km altitude.
        "air_pressure" => (300.0, 1_100.0),
        // Above hurricane gusts no anemometer survives.
        "wind_speed" => (0.0, 90.0),
        "wind_direction" => (0.0, 360.0),
        // A counter on some stations: only its sign is known.
        "rainfall" => (0.0, f64::MAX),
        // A row tilts at most to vertical either way.
        "tracker_angle" | "tracker_target_angle" => (-90.0, 90.0),
        // Tracker drives draw a few amperes.
        "motor_current" => (-50.0, 50.0),
        _ => return None,
    })
}

/// Whether `value` of `name` is plausible: finite, and inside its range when it has one.
pub fn plausible(name: &str, value: f64) -> bool {
    value.is_finite() && plausible_range(name).is_none_or(|(lo, hi)| value >= lo && value <= hi)
}

/// Stable numeric ids of the vocabulary's entries, what the binary uplink (`wire::binary`) sends
/// instead of names. An id is given once and never reused nor renumbered, even if its entry is
/// retired: a gateway and a hub of different releases must read the same id as the same metric.
/// A new entry takes the next number (the test below refuses an entry without one).
pub const STABLE_IDS: &[(u16, &str)] = &[
    (1, "ac_power"),
    (2, "ac_power_{p}"),
    (3, "ac_reactive_power"),
    (4, "ac_apparent_power"),
    (5, "power_factor"),
    (6, "grid_frequency"),
    (7, "grid_voltage"),
    (8, "grid_voltage_{p}"),
    (9, "grid_voltage_{pp}"),
    (10, "ac_current"),
    (11, "ac_current_{p}"),
    (12, "peak_power_today"),
    (13, "dc_power"),
    (14, "dc_voltage"),
    (15, "dc_current"),
    (16, "pv{n}_voltage"),
    (17, "pv{n}_current"),
    (18, "pv{n}_power"),
    (19, "mppt{n}_voltage"),
    (20, "mppt{n}_current"),
    (21, "mppt{n}_power"),
    (22, "mppt{n}_energy_total"),
    (23, "energy_total"),
    (24, "energy_today"),
    (25, "energy_import"),
    (26, "energy_export"),
    (27, "reactive_energy_import"),
    (28, "reactive_energy_export"),
    (29, "running_time_total"),
    (30, "temperature"),
    (31, "heatsink_temperature"),
    (32, "efficiency"),
    (33, "insulation_resistance"),
    (34, "status_code"),
    (35, "fault_code"),
    (36, "fault_word{n}"),
    (37, "warning_code"),
    (38, "irradiance_poa"),
    (39, "irradiance_ghi"),
    (40, "irradiance_dni"),
    (41, "irradiance_diffuse"),
    (42, "irradiance_other"),
    (43, "irradiation_today"),
    (44, "ambient_temperature"),
    (45, "module_temperature"),
    (46, "humidity"),
    (47, "air_pressure"),
    (48, "wind_speed"),
    (49, "wind_direction"),
    (50, "rainfall"),
    (51, "tracker_angle"),
    (52, "tracker_target_angle"),
    (53, "tracker_mode"),
    (54, "tracker_stow"),
    (55, "motor_current"),
    (56, "serial_number"),
    (57, "model_name"),
    (58, "firmware_version"),
];

/// The stable key of a concrete metric name: its entry's id and, for an indexed or per-phase
/// entry, the index (`pv12_current` → n = 12; phases a/b/c and ab/bc/ca → 0/1/2; else 0).
/// `None` for a name outside the vocabulary.
pub fn stable_key(name: &str) -> Option<(u16, u16)> {
    let def = lookup(name)?.def;
    let id = STABLE_IDS.iter().find(|(_, n)| *n == def.name)?.0;
    let index = match hole_of(def.name) {
        None => 0,
        Some((at, hole)) => {
            let prefix = &def.name[..at];
            let suffix = &def.name[at + hole.len()..];
            let middle = name.strip_prefix(prefix)?.strip_suffix(suffix)?;
            match phases(hole) {
                None => middle.parse().ok()?,
                Some(list) => list.iter().position(|p| *p == middle)? as u16,
            }
        }
    };
    Some((id, index))
}

/// The name a stable key stands for (the inverse of [`stable_key`]); `None` for an id this
/// release does not know or an index its entry cannot take.
pub fn name_of_key(id: u16, index: u16) -> Option<String> {
    let pattern = STABLE_IDS.iter().find(|(i, _)| *i == id)?.1;
    let name = match hole_of(pattern) {
        None if index == 0 => pattern.to_string(),
        None => return None,
        Some((_, hole)) => match phases(hole) {
            None => pattern.replacen(hole, &index.to_string(), 1),
            Some(list) => pattern.replacen(hole, list.get(usize::from(index))?, 1),
        },
    };
    // Only names the vocabulary accepts (an index of 0 or above 999 is not one).
    stable_key(&name)
        .is_some_and(|k| k == (id, index))
        .then_some(name)
}

/// The names a phase hole takes, in index order; `None` for the numeric `{n}`.
fn phases(hole: &str) -> Option<&'static [&'static str]> {
    match hole {
        "{p}" => Some(&["a", "b", "c"]),
        "{pp}" => Some(&["ab", "bc", "ca"]),
        _ => None,
    }
}

/// Where an entry's hole is and which it is.
fn hole_of(pattern: &str) -> Option<(usize, &'static str)> {
    ["{n}", "{pp}", "{p}"]
        .into_iter()
        .find_map(|h| pattern.find(h).map(|at| (at, h)))
}

#[cfg(test)]
mod tests {

    #[test]
    fn plausible_ranges_mark_impossible_weather_and_grid_values() {
        assert!(plausible("irradiance_poa", 1_020.0));
        assert!(!plausible("irradiance_poa", 2_500.0));
        assert!(!plausible("module_temperature", 150.0));
        assert!(!plausible("power_factor", -20.7));
        assert!(plausible("power_factor", 0.995));
        assert!(plausible("energy_total", 1e12));
        assert!(!plausible("energy_total", -1.0), "counters are never negative");
        assert!(!plausible("ac_power", f64::NAN));
        assert!(plausible("ac_power", -5_000.0), "a meter exports");
        assert!(!plausible("pv3_voltage", 2_500.0));
        assert!(!plausible("grid_voltage_ab", -1.0));
        assert!(!plausible("ac_current_c", 2e5));
        assert!(plausible("status_code", 1e9), "codes have no range");
        assert!(plausible("metric_7", 1e30), "unknown names have no range");
    }

    #[test]
    fn every_numeric_metric_has_a_range_and_the_fast_path_agrees_with_the_vocabulary() {
        for def in METRICS {
            let concrete = def
                .name
                .replace("{n}", "12")
                .replace("{pp}", "ca")
                .replace("{p}", "b");
            assert_eq!(lookup(&concrete).map(|m| m.def.name), Some(def.name));
            let numeric = !matches!(def.dimension, Dimension::Code | Dimension::Text);
            assert_eq!(
                plausible_range(&concrete).is_some(),
                numeric,
                "{concrete}: every numeric metric needs a range, codes and text none"
            );
            if let Some((lo, hi)) = plausible_range(&concrete) {
                assert!(lo < hi, "{concrete}");
            }
        }
    }
    use super::*;

    #[test]
    fn indexed_and_phase_names_resolve_to_their_entry() {
        assert_eq!(lookup("pv12_current").unwrap().unit().symbol, "A");
        assert_eq!(lookup("mppt3_voltage").unwrap().unit().symbol, "V");
        assert_eq!(lookup("grid_voltage_ab").unwrap().def.name, "grid_voltage_{pp}");
        assert_eq!(lookup("grid_voltage_a").unwrap().def.name, "grid_voltage_{p}");
        assert_eq!(lookup("energy_total").unwrap().unit().symbol, "Wh");
        assert_eq!(lookup("irradiance_poa").unwrap().unit().symbol, "W/m2");
        for bad in [
            "pv0_current",
            "pv_current",
            "pv01_current",
            "pvx_current",
            "grid_voltage_d",
            "power",
        ] {
            assert!(lookup(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn every_dimension_has_its_canonical_unit_first() {
        for def in METRICS {
            let canonical = Unit::canonical(def.dimension);
            assert_eq!(canonical.dimension, def.dimension, "{}", def.name);
            assert_eq!(canonical.to_canonical, 1.0, "{}", def.name);
        }
        assert_eq!(Unit::parse("kWh").unwrap().to_canonical, 1000.0);
        assert!(Unit::parse("furlong").is_none());
    }

    #[test]
    fn names_are_unique() {
        let mut names: Vec<_> = METRICS.iter().map(|d| d.name).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), METRICS.len());
    }
}

#[cfg(test)]
mod stable_id_tests {
    use super::*;

    #[test]
    fn every_entry_has_one_id_and_no_id_is_used_twice() {
        for def in METRICS {
            let n = STABLE_IDS.iter().filter(|(_, name)| *name == def.name).count();
            assert_eq!(
                n, 1,
                "{} needs exactly one stable id (take the next number)",
                def.name
            );
        }
        let mut ids: Vec<u16> = STABLE_IDS.iter().map(|(id, _)| *id).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), STABLE_IDS.len(), "an id is used twice");
        assert!(!ids.contains(&0), "0 stands for a name sent as text");
    }

    #[test]
    fn keys_round_trip_to_the_same_name() {
        for name in [
            "ac_power",
            "pv12_current",
            "pv1_voltage",
            "mppt999_energy_total",
            "ac_power_c",
            "grid_voltage_ca",
            "grid_voltage_a",
            "fault_word3",
            "serial_number",
        ] {
            let (id, index) = stable_key(name).unwrap_or_else(|| panic!("{name}"));
            assert_eq!(name_of_key(id, index).as_deref(), Some(name));
        }
        assert_eq!(stable_key("ac_power"), Some((1, 0)));
        assert_eq!(stable_key("grid_voltage_bc"), Some((9, 1)));
        assert_eq!(stable_key("pv7_power"), Some((18, 7)));
        for bad in [
            "pv0_current",
            "pv01_current",
            "pv1000_current",
            "ac_power_d",
            "vendor_x",
        ] {
            assert_eq!(stable_key(bad), None, "{bad}");
        }
        assert_eq!(name_of_key(16, 0), None, "pv0_voltage is not a name");
        assert_eq!(name_of_key(16, 1000), None);
        assert_eq!(name_of_key(2, 3), None, "phase d");
        assert_eq!(name_of_key(1, 1), None, "ac_power takes no index");
        assert_eq!(name_of_key(0, 0), None);
        assert_eq!(name_of_key(60_000, 0), None);
    }
}
