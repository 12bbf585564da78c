//! Loads every register map shipped in `firmware-configs/` and checks what the platform relies
//! on beyond the parser's own checks: each map says where its facts come from, inverters expose
//! at least 6 string/MPPT currents (dispersion analysis needs them), and each device kind maps
//! the metrics its screens and analyses use.

use std::path::Path;

use pv_shared::regmap::{DeviceKind, RegisterMap};

fn maps() -> Vec<RegisterMap> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../firmware-configs");
    match RegisterMap::load_dir(&dir) {
        Ok(m) => m,
        Err(e) => panic!("{e}"),
    }
}

/// Inverters whose public register tables carry fewer than 6 per-input currents, with how many:
/// SolarEdge optimiser systems report none per string (Synergy units: one per unit, up to 3);
/// the Solis grid-tie protocol documents 4 DC inputs.
const FEWER_INPUTS: &[(&str, usize)] = &[("solaredge-se", 3), ("solis-gc", 4)];

/// Whether the map can publish `metric` under some setting (an optional sensor may be absent on
/// a given device, and then the metric is rightly missing there).
fn has(map: &RegisterMap, metric: &str) -> bool {
    map.all_points.iter().any(|p| p.metric == metric)
}

#[test]
fn every_map_loads_and_says_where_its_facts_come_from() {
    let maps = maps();
    assert!(maps.len() >= 15, "only {} maps", maps.len());
    for m in &maps {
        assert!(m.source.len() >= 40, "{}: source note too thin", m.id);
    }
}

#[test]
fn each_kind_maps_what_the_platform_uses() {
    let maps = maps();
    let count = |k: DeviceKind| maps.iter().filter(|m| m.kind == k).count();
    assert!(
        count(DeviceKind::Inverter) >= 4,
        "SunSpec + three vendor inverters"
    );
    assert!(count(DeviceKind::Meter) >= 3, "SunSpec + two vendor meters");
    assert!(count(DeviceKind::Weather) >= 1);
    assert!(count(DeviceKind::Tracker) >= 1);
    for m in &maps {
        let needs: &[&str] = match m.kind {
            DeviceKind::Inverter => &["ac_power", "energy_total", "status_code"],
            DeviceKind::Meter => &["ac_power", "energy_import", "energy_export", "grid_frequency"],
            DeviceKind::Weather => &[
                "irradiance_poa",
                "ambient_temperature",
                "module_temperature",
                "wind_speed",
            ],
            DeviceKind::Tracker => &[
                "tracker_angle",
                "tracker_target_angle",
                "tracker_stow",
                "motor_current",
            ],
        };
        for n in needs {
            assert!(has(m, n), "{}: no {n}", m.id);
        }
        if m.kind == DeviceKind::Inverter {
            let strings = (1..=32)
                .filter(|i| has(m, &format!("pv{i}_current")) || has(m, &format!("mppt{i}_current")))
                .count();
            // Dispersion analysis skips devices with fewer than 6 inputs, so a map may have fewer
            // only when the device itself publishes fewer; each such map is named here.
            match FEWER_INPUTS.iter().find(|(id, _)| *id == m.id) {
                Some((_, inputs)) => assert_eq!(strings, *inputs, "{}", m.id),
                None => assert!(
                    strings >= 6,
                    "{}: {strings} string/MPPT currents, dispersion needs 6",
                    m.id
                ),
            }
        }
        if !m.status.is_empty() || !m.faults.is_empty() {
            for f in &m.faults {
                assert!(
                    !f.zh.is_empty() && !f.en.is_empty(),
                    "{}: fault without a name",
                    m.id
                );
            }
        }
    }
}
