//! The commissioning commands of the real binary against the real simulator command.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Duration;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_pv-edge"))
}

fn maps_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../firmware-configs")
}

struct Child(std::process::Child);
impl Drop for Child {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn the_example_config_checks_and_a_broken_one_names_its_line() {
    let example = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("pv-edge.example.toml");
    let out = bin().args(["check", "--config"]).arg(&example).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("3 buses, 5 devices: ok"));

    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.toml");
    let text = std::fs::read_to_string(&example)
        .unwrap()
        .replace("../firmware-configs", &maps_dir().to_string_lossy())
        .replace("unit = 10", "unit = 0");
    std::fs::write(&bad, &text).unwrap();
    let out = bin().args(["check", "--config"]).arg(&bad).output().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    // The line of the broken value in the file as written (the example grows over time).
    let line = text
        .lines()
        .position(|l| l.trim() == "unit = 0")
        .expect("the broken unit is in the file")
        + 1;
    assert!(
        err.contains(&format!("bad.toml:{line}: bus[0].device[2].unit: must be 1-247")),
        "{err}"
    );
}

#[test]
fn scan_probe_read_and_write_against_the_simulator() {
    // A free port: bind, note, release (the simulator binds it a moment later).
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let addr = format!("127.0.0.1:{port}");
    let mut sim = Child(
        bin()
            .args([
                "simulate",
                "--tcp",
                &addr,
                "--device",
                "3=eastron-sdm630",
                "--device",
                "7=pv-reference-tracker",
                "--maps-dir",
            ])
            .arg(maps_dir())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    // Wait for the simulator's "simulating" line.
    let mut line = String::new();
    BufReader::new(sim.0.stderr.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert!(line.contains("simulating 2 devices"), "{line}");
    std::thread::sleep(Duration::from_millis(50));

    let run = |args: &[&str]| {
        let out = bin()
            .args(args)
            .args(["--tcp", &addr, "--timeout-ms", "200"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let maps = maps_dir();
    // Neither unit says who it is (no SunSpec, no device identification, no model register), so
    // no map is suggested; the meter's "illegal address" for holding register 0 still makes it a
    // device, and the ids that stay silent are counted as absent.
    let scan = run(&[
        "scan",
        "--from",
        "1",
        "--to",
        "8",
        "--maps-dir",
        &maps.to_string_lossy(),
    ]);
    assert_eq!(
        scan,
        format!(
            "unit 3: answers with exception 0x02 (illegal data address) at register 0\n  \
             map: none suggested (try `pv-edge probe --map ...`)\nunit 7: answers\n  \
             map: none suggested (try `pv-edge probe --map ...`)\n\
             2 units on tcp {addr} ids 1-8; absent: 6 silent, 0 reported absent by a gateway\n"
        )
    );

    let probe = run(&[
        "probe",
        "--unit",
        "3",
        "--map",
        "eastron-sdm630",
        "--maps-dir",
        &maps.to_string_lossy(),
    ]);
    assert!(
        probe
            .lines()
            .any(|l| l.starts_with("energy_import ") && l.ends_with(" Wh")),
        "{probe}"
    );
    assert!(
        probe
            .lines()
            .any(|l| l.starts_with("grid_frequency ") && l.ends_with(" Hz")),
        "{probe}"
    );

    // The tracker's target angle is writable: write 12.5 degrees (125 in 0.1 deg), read it back.
    run(&["write", "--unit", "7", "--start", "1", "--values", "125"]);
    assert_eq!(run(&["read", "--unit", "7", "--start", "1"]), "1 125 0x007D\n");
    let probe = run(&[
        "probe",
        "--unit",
        "7",
        "--map",
        "pv-reference-tracker",
        "--maps-dir",
        &maps.to_string_lossy(),
    ]);
    assert!(probe.contains("tracker_target_angle 12.5 deg"), "{probe}");
}

#[test]
fn a_realistic_simulation_shows_daylight_on_a_shifted_clock_and_injected_faults() {
    // Shift the site's clock so that it is solar noon there now, whatever the hour here.
    let now_h = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64()
        / 3600.0;
    let solar_now = (now_h + 114.31 / 15.0).rem_euclid(24.0);
    let offset = format!("{:.3}", (12.3 - solar_now).rem_euclid(24.0));
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let addr = format!("127.0.0.1:{port}");
    let mut sim = Child(
        bin()
            .args(["simulate", "--tcp", &addr, "--realistic", "--cloudiness", "0"])
            .args(["--clock-offset-h", &offset])
            .args([
                "--device",
                "1=huawei-sun2000-ktl",
                "--device",
                "2=pv-reference-tracker",
            ])
            .args(["--device", "3=eastron-sdm630", "--weak-string", "1:2:0.5"])
            .args(["--fault", "2:wind:22", "--fault", "3:dead", "--maps-dir"])
            .arg(maps_dir())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let mut line = String::new();
    BufReader::new(sim.0.stderr.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert!(line.contains("simulating 3 devices (realistic)"), "{line}");
    std::thread::sleep(Duration::from_millis(50));
    let probe = |unit: &str, map: &str| {
        bin()
            .args(["probe", "--unit", unit, "--map", map, "--maps-dir"])
            .arg(maps_dir())
            .args(["--tcp", &addr, "--timeout-ms", "300"])
            .output()
            .unwrap()
    };
    let value = |text: &str, metric: &str| -> f64 {
        text.lines()
            .find_map(|l| l.strip_prefix(&format!("{metric} ")))
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("{metric} in {text}"))
    };
    let out = probe("1", "huawei-sun2000-ktl");
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        value(&text, "ac_power") > 30_000.0,
        "noon on the shifted clock: {text}"
    );
    let (pv1, pv2) = (value(&text, "pv1_current"), value(&text, "pv2_current"));
    assert!((pv2 / pv1 - 0.5).abs() < 0.05, "the weak string: {pv1} {pv2}");
    let out = probe("2", "pv-reference-tracker");
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert_eq!(
        value(&text, "tracker_stow"),
        1.0,
        "stowed in a 22 m/s wind: {text}"
    );
    assert!(text.contains("status: Wind stow"), "{text}");
    let out = probe("3", "eastron-sdm630");
    assert!(!out.status.success(), "the dead meter does not answer");
}

#[test]
fn a_spec_file_serves_several_buses_of_one_site() {
    let free = || {
        std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port()
    };
    let (a, b) = (free(), free());
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("simulator.toml");
    std::fs::write(
        &spec,
        format!(
            "maps_dir = {maps:?}\n[site]\ncloudiness = 0.0\n\
             [[bus]]\ntcp = \"127.0.0.1:{a}\"\ncapacity_kw = 110\n\
             device = [{{ unit = 1, map = \"sungrow-sg-cx\", faults = [\"recurring:30:5\"] }}]\n\
             [[bus]]\ntcp = \"127.0.0.1:{b}\"\ncapacity_kw = 1100\n\
             device = [{{ unit = 1, map = \"chint-dtsu666\" }}, {{ unit = 2, map = \"sunspec-met-station\" }}]\n",
            maps = maps_dir().to_string_lossy()
        ),
    )
    .unwrap();
    let mut sim = Child(
        bin()
            .args(["simulate", "--spec"])
            .arg(&spec)
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let mut lines = BufReader::new(sim.0.stderr.take().unwrap()).lines();
    let first = lines.next().unwrap().unwrap();
    let second = lines.next().unwrap().unwrap();
    assert!(
        first.contains(&format!("1 devices (realistic) on tcp 127.0.0.1:{a}")),
        "{first}"
    );
    assert!(
        second.contains(&format!("2 devices (realistic) on tcp 127.0.0.1:{b}")),
        "{second}"
    );
    std::thread::sleep(Duration::from_millis(50));
    for (port, unit, map) in [
        (a, "1", "sungrow-sg-cx"),
        (b, "1", "chint-dtsu666"),
        (b, "2", "sunspec-met-station"),
    ] {
        let out = bin()
            .args(["probe", "--unit", unit, "--map", map, "--maps-dir"])
            .arg(maps_dir())
            .args(["--tcp", &format!("127.0.0.1:{port}"), "--timeout-ms", "500"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{map} on {port}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // A spec and --device do not mix.
    let out = bin()
        .args(["simulate", "--device", "1=sunspec-inverter", "--spec"])
        .arg(&spec)
        .output()
        .unwrap();
    assert!(!out.status.success());
}

/// A map setting chooses the reading at probe time: probing a meter once per value of its
/// `energy_registers` shows which block carries the counters (the simulator serves the default
/// 0x401E block); a value the map does not know is refused, naming the ones it does.
#[test]
fn probe_takes_map_settings_and_refuses_unknown_ones() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let addr = format!("127.0.0.1:{port}");
    let mut sim = Child(
        bin()
            .args([
                "simulate",
                "--tcp",
                &addr,
                "--device",
                "4=chint-dtsu666",
                "--device",
            ])
            .arg("5=sungrow-sg-cx")
            .arg("--maps-dir")
            .arg(maps_dir())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let mut line = String::new();
    BufReader::new(sim.0.stderr.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert!(line.contains("simulating 2 devices"), "{line}");
    std::thread::sleep(Duration::from_millis(50));
    let probe = |unit: &str, map: &str, setting: &str| {
        bin()
            .args(["probe", "--unit", unit, "--map", map, "--setting", setting])
            .args(["--tcp", &addr, "--timeout-ms", "200", "--maps-dir"])
            .arg(maps_dir())
            .output()
            .unwrap()
    };
    let has = |out: &std::process::Output, metric: &str| {
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .any(|l| l.starts_with(&format!("{metric} ")))
    };
    let default_block = probe("4", "chint-dtsu666", "energy_registers=401e");
    assert!(has(&default_block, "energy_import"), "{default_block:?}");
    let other_block = probe("4", "chint-dtsu666", "energy_registers=101e");
    assert!(!has(&other_block, "energy_import"), "{other_block:?}");
    assert!(has(&other_block, "grid_frequency"), "{other_block:?}");
    // Sungrow's doc 5019-5021 as line voltages on a three-wire output.
    let three_wire = probe("5", "sungrow-sg-cx", "output_type=3p3w");
    assert!(has(&three_wire, "grid_voltage_ab"), "{three_wire:?}");
    assert!(!has(&three_wire, "grid_voltage_a"), "{three_wire:?}");
    let wrong = probe("5", "sungrow-sg-cx", "output_type=delta");
    assert!(!wrong.status.success());
    let err = String::from_utf8_lossy(&wrong.stderr);
    assert!(err.contains("one of 3p4w, 3p3w, not \"delta\""), "{err}");
    let malformed = probe("5", "sungrow-sg-cx", "output_type");
    assert!(String::from_utf8_lossy(&malformed.stderr).contains("expected NAME=VALUE"));
}
