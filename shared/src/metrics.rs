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

/// The physically plausible range of a metric's value (canonical unit), where one can be told
/// without knowing the device: a value outside is a sensor or decoding fault and is shown marked,
/// never as good. `None`: no general bound (energies, counters, codes, device-sized powers).
pub fn plausible_range(name: &str) -> Option<(f64, f64)> {
    let base = lookup(name)?.def.name;
    Some(match base {
        // W/m²: above the solar constant plus cloud-edge enhancement is a fault.
        "irradiance_poa" | "irradiance_ghi" | "irradiance_dni" | "irradiance_diffuse"
        | "irradiance_other" => (-10.0, 1_500.0),
        "ambient_temperature" => (-50.0, 60.0),
        "module_temperature" => (-40.0, 90.0),
        "power_factor" => (-1.0, 1.0),
        "grid_frequency" => (45.0, 65.0),
        "efficiency" => (0.0, 100.0),
        _ => return None,
    })
}

/// Whether `value` of `name` is plausible; `true` when the metric has no general bound.
pub fn plausible(name: &str, value: f64) -> bool {
    value.is_finite() && plausible_range(name).is_none_or(|(lo, hi)| value >= lo && value <= hi)
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
        assert!(plausible("energy_total", 1e12), "no general bound");
        assert!(!plausible("ac_power", f64::NAN));
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
