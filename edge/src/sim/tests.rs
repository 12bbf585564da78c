//! The simulator against its own maps: expected values, faults, restarts and the bus.

use super::*;
use std::path::Path;

fn map(id: &str) -> Arc<RegisterMap> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../firmware-configs/{id}.toml"));
    Arc::new(RegisterMap::load(&path).unwrap())
}

/// 2024-06-21 04:22 UTC: solar noon in Wuhan.
const NOON: i64 = 1_718_943_720_000;

fn value(dev: &SimDevice, metric: &str) -> f64 {
    let (p, at) = dev
        .map
        .points
        .iter()
        .zip(&dev.placed)
        .find(|(p, _)| p.metric == metric)
        .unwrap();
    dev.decode_point(&dev.registers.lock().unwrap(), p, at).unwrap()
}

fn clear_site() -> Arc<sky::Site> {
    Arc::new(sky::Site {
        cloudiness: 0.0,
        ..sky::Site::default()
    })
}

#[test]
fn a_realistic_inverter_follows_the_sun_and_its_counters_only_grow() {
    let options = plant::PlantOptions {
        weak_string: Some((3, 0.6)),
        ..plant::PlantOptions::default()
    };
    let dev = SimDevice::realistic(map("huawei-sun2000-ktl"), 3, clear_site(), options).unwrap();
    dev.refresh_at(NOON);
    let ac = value(&dev, "ac_power");
    assert!(ac > 40_000.0 && ac <= 50_000.0, "{ac}");
    let (i1, i3) = (value(&dev, "pv1_current"), value(&dev, "pv3_current"));
    assert!((i3 / i1 - 0.6).abs() < 0.02, "the weak string: {i1} vs {i3}");
    let e0 = value(&dev, "energy_total");
    dev.refresh_at(NOON + 3_600_000);
    let e1 = value(&dev, "energy_total");
    // An hour near noon at 40-50 kW adds 40-50 kWh (the register counts 0.01 kWh).
    assert!(e1 - e0 > 35_000.0 && e1 - e0 < 50_000.0, "{e0} -> {e1}");
    dev.refresh_at(NOON + 12 * 3_600_000);
    assert_eq!(value(&dev, "ac_power"), 0.0, "night");
    assert!(value(&dev, "energy_total") >= e1);
    let standby = dev.map.status_of(value(&dev, "status_code") as u32).unwrap();
    assert_eq!(standby.state.as_deref(), Some("standby"));
    // An injected fault: a code of the fault table, no production.
    dev.set_fault(true);
    dev.refresh_at(NOON + 24 * 3_600_000);
    assert_eq!(value(&dev, "ac_power"), 0.0);
    assert!(
        !dev.map
            .faults_of("fault_word1", value(&dev, "fault_word1") as u64)
            .is_empty()
    );
}

#[test]
fn weather_and_inverter_see_the_same_sky_and_a_shifted_clock_brings_daylight() {
    let site = Arc::new(sky::Site {
        cloudiness: 0.0,
        // Midnight in Wuhan is noon on this site's clock.
        clock_offset_ms: 12 * 3_600_000,
        ..sky::Site::default()
    });
    let met = SimDevice::realistic(map("sunspec-met-station"), 1, site.clone(), Default::default()).unwrap();
    let inv = SimDevice::realistic(map("sunspec-inverter"), 2, site, Default::default()).unwrap();
    let midnight = NOON + 12 * 3_600_000;
    met.refresh_at(midnight);
    inv.refresh_at(midnight);
    let poa = value(&met, "irradiance_poa");
    assert!(poa > 900.0, "{poa}");
    let ac = value(&inv, "ac_power");
    // 57.5 kWp DC at ~1000 W/m², warm modules, 97.5 % efficiency, capped at 50 kW.
    assert!(ac > 0.8 * 50_000.0 * poa / 1000.0, "{ac} at {poa} W/m2");
    assert!(value(&met, "module_temperature") > value(&met, "ambient_temperature") + 20.0);
}

#[test]
fn a_tracker_follows_the_sun_moves_at_its_speed_and_stows_in_high_wind() {
    let dev = SimDevice::realistic(map("pv-reference-tracker"), 1, clear_site(), Default::default()).unwrap();
    let morning = NOON - 3 * 3_600_000;
    dev.refresh_at(morning);
    dev.refresh_at(morning + 120_000);
    let target = value(&dev, "tracker_target_angle");
    assert!(target < -20.0, "east in the morning: {target}");
    assert!(
        (value(&dev, "tracker_angle") - target).abs() < 0.2,
        "reached in 2 minutes"
    );
    assert_eq!(value(&dev, "tracker_mode"), 0.0);
    dev.physics.as_ref().unwrap().lock().unwrap().plant.options.wind = Some(20.0);
    dev.refresh_at(morning + 125_000);
    assert_eq!(value(&dev, "tracker_stow"), 1.0);
    assert_eq!(value(&dev, "tracker_mode"), 2.0);
    let moved = value(&dev, "tracker_angle") - target;
    assert!((moved - 5.0).abs() < 0.2, "1 deg/s towards flat: {moved}");
    let status = dev.map.status_of(value(&dev, "status_code") as u32).unwrap();
    assert_eq!(status.en, "Wind stow");
    // The wind drops: the stow is held for 10 minutes, then tracking resumes.
    dev.physics.as_ref().unwrap().lock().unwrap().plant.options.wind = Some(3.0);
    dev.refresh_at(morning + 5 * 60_000);
    assert_eq!(value(&dev, "tracker_stow"), 1.0);
    dev.refresh_at(morning + 16 * 60_000);
    assert_eq!(value(&dev, "tracker_stow"), 0.0);
    // A set-point written over Modbus is followed (manual) until mode 0 is written.
    dev.write(1, &[(-100i16) as u16]).unwrap();
    dev.refresh_at(morning + 17 * 60_000);
    assert_eq!(value(&dev, "tracker_target_angle"), -10.0);
    assert_eq!(value(&dev, "tracker_mode"), 1.0);
    dev.write(2, &[0]).unwrap();
    dev.refresh_at(morning + 18 * 60_000);
    assert!(value(&dev, "tracker_target_angle") < -20.0, "back on the sun");
}

#[test]
fn a_restarted_sunspec_device_serves_the_same_values_in_its_new_order() {
    let dev = SimDevice::new(map("sunspec-inverter"), 5).unwrap();
    let h = Function::Holding;
    let before = dev.read(h, 40070, 52).unwrap();
    assert_eq!(before[0], 103);
    // 160 first, then 1 and 103, behind a marker at 0.
    dev.restart(&[160, 1, 103], 0).unwrap();
    assert_eq!(dev.read(h, 0, 4).unwrap(), vec![SUNS[0], SUNS[1], 160, 168]);
    assert_eq!(dev.read(h, 2 + 170, 2).unwrap(), vec![1, 66]);
    assert_eq!(
        dev.read(h, 2 + 170 + 68, 52).unwrap(),
        before,
        "model 103 moved whole"
    );
    let end = 2 + 170 + 68 + 52;
    assert_eq!(dev.read(h, end, 2).unwrap(), vec![0xFFFF, 0]);
    assert!(dev.read(h, 40000, 2).is_err(), "nothing left at the old base");
    assert!(dev.read(h, end + 2, 1).is_err());
    // Writes land on the moved registers.
    dev.write(2 + 170 + 68 + 2, &[7]).unwrap();
    assert_eq!(dev.register(h, 40072), Some(7));
    assert!(matches!(
        dev.restart(&[1, 999], 40000),
        Err(SimError::NoModel(_, 999))
    ));
}

#[test]
fn injected_timeouts_and_exceptions_hit_their_share_of_requests() {
    let dev = SimDevice::new(map("eastron-sdm630"), 1).unwrap();
    dev.set_timeouts(0.2);
    dev.set_exceptions(0.1);
    let (mut silent, mut refused) = (0, 0);
    for _ in 0..10_000 {
        match dev.next_request() {
            Fate::Silent => silent += 1,
            Fate::Refused => refused += 1,
            Fate::Answer => {}
        }
    }
    assert!((1700..2300).contains(&silent), "{silent}");
    assert!((700..1300).contains(&refused), "{refused}");
}

#[test]
fn every_map_can_be_simulated_and_expected_values_are_plausible() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../firmware-configs");
    for map in RegisterMap::load_dir(&dir).unwrap() {
        let n = map.points.len();
        let dev = SimDevice::new(Arc::new(map), 7).unwrap();
        assert_eq!(dev.expected().len(), n, "{}", dev.map.id);
        for (metric, v) in dev.expected() {
            if let Value::Number(x) = v {
                assert!(metrics::plausible(metric, *x), "{}: {metric} = {x}", dev.map.id);
            }
        }
        if let Some(Value::Number(code)) = dev.expected().get("status_code")
            && !dev.map.status.is_empty()
        {
            assert!(dev.map.status_of(*code as u32).is_some(), "{}", dev.map.id);
        }
    }
}

/// Ten inverters of one station (as the Jiangsu demo: Sungrow and Huawei, 110 kW, one with a
/// weak string), told apart by their serials.
fn station(individual: bool) -> Vec<(String, Arc<SimDevice>)> {
    let maps_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../firmware-configs");
    let mut devices = String::new();
    for unit in 1..=10u8 {
        let map = if unit <= 5 {
            "sungrow-sg-cx"
        } else {
            "huawei-sun2000-ktl"
        };
        let weak = if unit == 2 {
            ", weak_string = { string = 7, share = 0.25 }"
        } else {
            ""
        };
        devices +=
            &format!("{{ unit = {unit}, map = \"{map}\", serial = \"DEMO-JS-INV-{unit:02}\"{weak} }},\n");
    }
    let text = format!(
        "maps_dir = {maps_dir:?}\nindividual = {individual}\n[site]\ncloudiness = 0.0\n\
         [[bus]]\ncapacity_kw = 110\ndevice = [\n{devices}]\n"
    );
    let spec: spec::SimSpec = toml::from_str(&text).unwrap();
    let maps = RegisterMap::load_dir(&maps_dir).unwrap();
    let buses = spec.build(&maps).unwrap();
    spec.keyed(&buses)
}

fn value_after(dev: &SimDevice, t: i64, metric: &str) -> f64 {
    dev.refresh_at(t);
    value(dev, metric)
}

#[test]
fn inverters_of_one_station_differ_a_little_as_real_ones_do() {
    let powers_at = |individual: bool, t: i64| -> Vec<f64> {
        station(individual)
            .iter()
            .map(|(_, dev)| {
                dev.refresh_at(t);
                value(dev, "ac_power")
            })
            .collect()
    };
    let powers = |individual: bool| powers_at(individual, NOON);
    let same = powers(false);
    let healthy = |p: &[f64]| -> Vec<f64> {
        // Unit 2 has its weak string; compare the others.
        p.iter()
            .enumerate()
            .filter(|(i, _)| *i != 1)
            .map(|(_, x)| *x)
            .collect()
    };
    let nominal = healthy(&same);
    assert!(
        nominal.windows(2).all(|w| (w[0] - w[1]).abs() < 1.0),
        "without individuality they are copies: {nominal:?}"
    );
    let differ = healthy(&powers(true));
    let mean = differ.iter().sum::<f64>() / differ.len() as f64;
    for (i, p) in differ.iter().enumerate() {
        assert!(
            (p / mean - 1.0).abs() < 0.15 && *p > 80_000.0 && *p <= 110_000.0,
            "inverter {i}: {p} W against a mean of {mean} W: {differ:?}"
        );
    }
    // Near noon the largest arrays clip at the AC limit, a few of them, not all.
    let clipped = differ.iter().filter(|p| **p >= 109_990.0).count();
    assert!((1..=4).contains(&clipped), "{clipped} clipped: {differ:?}");
    // Two hours earlier nobody clips and every curve is its own.
    let morning = healthy(&powers_at(true, NOON - 2 * 3_600_000));
    let distinct: std::collections::BTreeSet<i64> = morning.iter().map(|p| (*p / 100.0) as i64).collect();
    assert_eq!(distinct.len(), morning.len(), "copies of each other: {morning:?}");
    let mean = morning.iter().sum::<f64>() / morning.len() as f64;
    assert!(
        morning.iter().all(|p| (p / mean - 1.0).abs() < 0.15),
        "{morning:?}"
    );
    // A clear day's yield: each its own, all within ±8 % of the station's mean, inside the
    // default −10 % full-load-hours deviation flag (only the deliberate troubles stand out).
    let yields: Vec<f64> = station(true)
        .iter()
        .map(|(_, dev)| {
            let start = value_after(dev, NOON - 8 * 3_600_000, "energy_total");
            let mut t = NOON - 8 * 3_600_000;
            while t < NOON + 8 * 3_600_000 {
                t += 300_000;
                dev.refresh_at(t);
            }
            value(dev, "energy_total") - start
        })
        .collect();
    let yields = healthy(&yields);
    let mean = yields.iter().sum::<f64>() / yields.len() as f64;
    assert!(yields.iter().all(|y| (y / mean - 1.0).abs() < 0.08), "{yields:?}");
    let distinct: std::collections::BTreeSet<i64> = yields.iter().map(|y| (*y / 100.0) as i64).collect();
    assert_eq!(distinct.len(), yields.len(), "{yields:?}");
    // Deterministic: the same serials give the same plant at every start.
    assert_eq!(healthy(&powers(true)), differ);
    assert_eq!(
        plant::Individual::of("DEMO-JS-INV-03"),
        plant::Individual::of("DEMO-JS-INV-03")
    );
    assert_ne!(
        plant::Individual::of("DEMO-JS-INV-03"),
        plant::Individual::of("DEMO-JS-INV-04")
    );
}

#[test]
fn individuality_keeps_the_weak_string_and_clips_a_large_array_a_little() {
    let st = station(true);
    let (_, weak) = &st[1];
    weak.refresh_at(NOON);
    let (i1, i7) = (value(weak, "pv1_current"), value(weak, "pv7_current"));
    assert!((i7 / i1 - 0.25).abs() < 0.01, "string 7 still at 25 %: {i1} {i7}");
    // The inverters at their AC limit at noon are those with the larger arrays, and they
    // draw less from their strings instead of converting more than they may.
    let size = |key: &str| {
        let d = plant::Individual::of(key);
        d.dc_ac * d.batch * (1.0 - d.soiling)
    };
    let mut sizes: Vec<f64> = st.iter().map(|(k, _)| size(k)).collect();
    sizes.sort_by(f64::total_cmp);
    let median = sizes[sizes.len() / 2];
    let mut clipped = 0;
    for (key, dev) in &st {
        dev.refresh_at(NOON);
        let ac = value(dev, "ac_power");
        if ac >= 109_990.0 {
            clipped += 1;
            assert!(size(key) > median, "{key} clips with a small array");
            assert!(value(dev, "dc_power") * 0.975 <= 110_050.0, "{key}");
        }
    }
    assert!(clipped >= 1);
}
