//! Threshold rules on inverter samples, with the tenant's bounds (`threshold_settings::Settings`):
//! internal temperature too high, grid voltage or frequency out of range, and no AC output
//! while the site's irradiance says there should be some.
//!
//! Voltage: the phase voltages (`grid_voltage`, `grid_voltage_a/b/c`) are compared with the
//! bounds; a device that reports only line-to-line voltages (`grid_voltage_ab/bc/ca`, e.g.
//! Sungrow) is compared through V_phase = V_line / √3, so one setting fits both. The worst
//! phase decides (the lowest for the minimum, the highest for the maximum).

use std::collections::BTreeMap;

use pv_shared::wire::Value;

use super::condition::Condition;
use super::store;
use super::threshold_settings::Settings;

/// Rule keys (`threshold:<key>` kinds).
pub const TEMPERATURE_HIGH: &str = "temperatureHigh";
pub const VOLTAGE_LOW: &str = "gridVoltageLow";
pub const VOLTAGE_HIGH: &str = "gridVoltageHigh";
pub const FREQUENCY_LOW: &str = "gridFrequencyLow";
pub const FREQUENCY_HIGH: &str = "gridFrequencyHigh";
pub const ZERO_OUTPUT: &str = "zeroOutput";

fn num(values: &BTreeMap<String, Value>, key: &str) -> Option<f64> {
    match values.get(key) {
        Some(Value::Number(n)) if n.is_finite() => Some(*n),
        _ => None,
    }
}

fn threshold(key: &str, level: i64, names: (&str, &str), value: f64, limit: f64, unit: &str) -> Condition {
    let mut c = Condition::fault(format!("threshold:{key}"), "threshold", level);
    c.code = key.to_owned();
    c.name = names.0.to_owned();
    c.name_en = names.1.to_owned();
    c.detail = format!("{value:.2} {unit}（阈值 {limit} {unit}）");
    c.detail_en = format!("{value:.2} {unit} (threshold {limit} {unit})");
    c.value = Some((value * 100.0).round() / 100.0);
    c.threshold = Some(limit);
    c
}

/// Phase voltages of a sample (line voltages converted), if any.
fn phase_voltages(values: &BTreeMap<String, Value>) -> Vec<f64> {
    let phase: Vec<f64> = [
        "grid_voltage",
        "grid_voltage_a",
        "grid_voltage_b",
        "grid_voltage_c",
    ]
    .iter()
    .filter_map(|k| num(values, k))
    .filter(|v| *v > 0.0)
    .collect();
    if !phase.is_empty() {
        return phase;
    }
    ["grid_voltage_ab", "grid_voltage_bc", "grid_voltage_ca"]
        .iter()
        .filter_map(|k| num(values, k))
        .filter(|v| *v > 0.0)
        .map(|v| v / 3f64.sqrt())
        .collect()
}

/// The threshold conditions present in a sample of an inverter. `irradiance` is the site's
/// current irradiance (W/m², from its weather station), if known.
pub fn conditions(
    s: &Settings,
    values: &BTreeMap<String, Value>,
    irradiance: Option<f64>,
    out: &mut Vec<Condition>,
) {
    let temperature = ["temperature", "heatsink_temperature"]
        .iter()
        .filter_map(|k| num(values, k))
        .fold(None, |m: Option<f64>, v| Some(m.map_or(v, |m| m.max(v))));
    if let Some(t) = temperature
        && t > s.temperature_max_c
    {
        out.push(threshold(
            TEMPERATURE_HIGH,
            store::LEVEL_MINOR,
            ("逆变器温度过高", "Inverter temperature high"),
            t,
            s.temperature_max_c,
            "°C",
        ));
    }
    // The grid bounds mean something only while the inverter is connected: a sleeping inverter
    // at night reads 0 V.
    let voltages = phase_voltages(values);
    if let Some(low) = voltages.iter().copied().reduce(f64::min)
        && low < s.grid_voltage_min_v
    {
        out.push(threshold(
            VOLTAGE_LOW,
            store::LEVEL_MAJOR,
            ("电网电压过低", "Grid voltage low"),
            low,
            s.grid_voltage_min_v,
            "V",
        ));
    }
    if let Some(high) = voltages.iter().copied().reduce(f64::max)
        && high > s.grid_voltage_max_v
    {
        out.push(threshold(
            VOLTAGE_HIGH,
            store::LEVEL_MAJOR,
            ("电网电压过高", "Grid voltage high"),
            high,
            s.grid_voltage_max_v,
            "V",
        ));
    }
    if let Some(f) = num(values, "grid_frequency").filter(|f| *f > 0.0) {
        if f < s.grid_frequency_min_hz {
            out.push(threshold(
                FREQUENCY_LOW,
                store::LEVEL_MAJOR,
                ("电网频率过低", "Grid frequency low"),
                f,
                s.grid_frequency_min_hz,
                "Hz",
            ));
        } else if f > s.grid_frequency_max_hz {
            out.push(threshold(
                FREQUENCY_HIGH,
                store::LEVEL_MAJOR,
                ("电网频率过高", "Grid frequency high"),
                f,
                s.grid_frequency_max_hz,
                "Hz",
            ));
        }
    }
    // Irradiance at or above the bound is daylight by definition; below it (or unknown) an
    // inverter with no output is not suspicious.
    if let (Some(g), Some(p)) = (irradiance, num(values, "ac_power"))
        && g >= s.zero_output_irradiance_wm2
        && p <= 0.0
    {
        let mut c = threshold(
            ZERO_OUTPUT,
            store::LEVEL_MAJOR,
            ("光照充足但无发电", "No output under good irradiance"),
            p,
            0.0,
            "W",
        );
        c.detail = format!(
            "交流功率 {p} W，辐照度 {g:.0} W/m²（阈值 {} W/m²）",
            s.zero_output_irradiance_wm2
        );
        c.detail_en = format!(
            "AC power {p} W at {g:.0} W/m² (threshold {} W/m²)",
            s.zero_output_irradiance_wm2
        );
        c.threshold = Some(s.zero_output_irradiance_wm2);
        out.push(c);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(pairs: &[(&str, f64)], irradiance: Option<f64>) -> Vec<String> {
        let values = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), Value::Number(*v)))
            .collect();
        let mut out = vec![];
        conditions(&Settings::default(), &values, irradiance, &mut out);
        out.into_iter().map(|c| c.kind).collect()
    }

    #[test]
    fn bounds_are_checked_against_the_tenant_settings() {
        assert!(
            run(
                &[
                    ("temperature", 60.0),
                    ("grid_voltage_a", 230.0),
                    ("grid_frequency", 50.0)
                ],
                None
            )
            .is_empty()
        );
        assert_eq!(
            run(&[("heatsink_temperature", 81.0)], None),
            ["threshold:temperatureHigh"]
        );
        assert_eq!(
            run(&[("grid_voltage_a", 230.0), ("grid_voltage_b", 180.0)], None),
            ["threshold:gridVoltageLow"]
        );
        assert_eq!(
            run(&[("grid_frequency", 50.7)], None),
            ["threshold:gridFrequencyHigh"]
        );
        // 0 V / 0 Hz: a sleeping inverter, not a grid fault.
        assert!(run(&[("grid_voltage", 0.0), ("grid_frequency", 0.0)], None).is_empty());
    }

    #[test]
    fn line_voltages_are_compared_as_phase_voltages() {
        // 400 V line = 230.9 V phase: fine; 460 V line = 265.6 V phase: high.
        assert!(run(&[("grid_voltage_ab", 400.0)], None).is_empty());
        assert_eq!(
            run(&[("grid_voltage_ab", 460.0)], None),
            ["threshold:gridVoltageHigh"]
        );
    }

    #[test]
    fn zero_output_needs_good_irradiance() {
        assert_eq!(run(&[("ac_power", 0.0)], Some(600.0)), ["threshold:zeroOutput"]);
        assert!(run(&[("ac_power", 0.0)], Some(50.0)).is_empty(), "dusk");
        assert!(run(&[("ac_power", 0.0)], None).is_empty(), "no weather station");
        assert!(run(&[("ac_power", 5_000.0)], Some(600.0)).is_empty());
    }
}
