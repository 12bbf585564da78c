//! Commissioning an installer can trust: a scan behind a gateway lists only the units that are
//! there, says who each one is and which map fits; a probe says when a map does not fit.
//! Real simulators on real TCP sockets and a socat pseudo-terminal pair.

mod common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use common::{PtyPair, serve_tcp};
use pv_edge::commission;
use pv_edge::scheduler::{BusPolicy, Session};
use pv_edge::sim::{SimDevice, Simulator};
use pv_edge::transport::{Parity, Transport};
use pv_shared::commission::ScanReport;
use pv_shared::regmap::{Function, RegisterMap};
use tokio_modbus::ExceptionCode;

fn maps() -> Vec<Arc<RegisterMap>> {
    common::maps()
}

fn map(id: &str) -> Arc<RegisterMap> {
    maps()
        .into_iter()
        .find(|m| m.id == id)
        .unwrap_or_else(|| panic!("no map {id}"))
}

fn policy(timeout_ms: u64) -> BusPolicy {
    BusPolicy {
        timeout: Duration::from_millis(timeout_ms),
        retries: 0,
        ..BusPolicy::default()
    }
}

/// A SunSpec DER that carries only the common model and model 701 (DER AC measurement): no
/// inverter model 101-103.
const DER_701: &str = r#"
[device]
manufacturer = "Test"
model = "SunSpec DER, models 1 and 701 only"
kind = "inverter"
source = "test device: the SunSpec 700-series layout without the 100-series inverter models"

[limits]
sentinels = "sunspec"

[sunspec]
models = [{ id = 1, length = 66 }, { id = 701, length = 153 }]

[[point]]
metric = "model_name"
unit = "text"
model = 1
offset = 18
type = "string"
words = 16
"#;

/// Units 1 (SunSpec inverter), 2 (Huawei), 3 (Eastron, with device identification) and
/// 5 (SunSpec meter); every other id gets `absent`.
fn station(absent: Option<ExceptionCode>) -> Simulator {
    let dev = |id: &str, seed| Arc::new(SimDevice::new(map(id), seed).expect("simulate"));
    let meter = dev("eastron-sdm630", 3);
    meter.set_identification(vec![
        (0, "Eastron".into()),
        (1, "SDM630".into()),
        (2, "V2.1".into()),
    ]);
    Simulator::new([
        (1, dev("sunspec-inverter", 1)),
        (2, dev("huawei-sun2000-ktl", 2)),
        (3, meter),
        (5, dev("sunspec-meter", 5)),
    ])
    .with_absent(absent)
}

/// What a scan says per unit: (unit, identity source, model, suggested maps).
fn summary(report: &ScanReport) -> Vec<(u8, String, String, Vec<String>)> {
    report
        .units
        .iter()
        .map(|u| {
            let id = u.identity.clone().unwrap_or_default();
            (
                u.unit,
                id.via,
                id.model.unwrap_or_default(),
                u.suggested_maps.clone(),
            )
        })
        .collect()
}

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

#[tokio::test]
async fn a_scan_behind_a_gateway_lists_only_the_real_units_with_identity_and_map() {
    let maps = maps();
    let expected = vec![
        (
            1,
            "sunspec".to_string(),
            String::new(),
            // The generic map first: the unit names no maker whose own map would fit better.
            strings(&["sunspec-inverter", "solaredge-se"]),
        ),
        (
            2,
            "map:huawei-sun2000-ktl".to_string(),
            "SUN2000-KTL-M".to_string(),
            strings(&["huawei-sun2000-ktl"]),
        ),
        (
            3,
            "device_id".to_string(),
            "SDM630".to_string(),
            strings(&["eastron-sdm630"]),
        ),
        (
            5,
            "sunspec".to_string(),
            String::new(),
            strings(&["sunspec-meter", "solaredge-meter"]),
        ),
    ];
    for (absent, gateway_absent, silent) in [
        (Some(ExceptionCode::GatewayTargetDevice), 6, 0),
        (Some(ExceptionCode::GatewayPathUnavailable), 6, 0),
        // A bare RS-485 line behind a transparent server: unused ids time out.
        (None, 0, 6),
    ] {
        let addr = serve_tcp(station(absent)).await;
        let mut bus = Session::new(Transport::Tcp { address: addr }, policy(150));
        let report = commission::scan(&mut bus, 1..=10, 0, &maps).await;
        let mut got = summary(&report);
        // The SunSpec simulators make up their names (the inverter's Md, the meter's SN only):
        // check they were read, then compare the rest.
        assert!(got[0].2.starts_with("SIM-"), "{absent:?}: {got:?}");
        got[0].2.clear();
        let meter_serial = report.units[3].identity.as_ref().and_then(|i| i.serial.clone());
        assert!(meter_serial.is_some_and(|s| s.starts_with("SIM-")), "{report:#?}");
        assert_eq!(got, expected, "{absent:?}: {report:#?}");
        assert_eq!(report.units[0].sunspec_models, vec![1, 103, 160]);
        assert_eq!(report.units[3].sunspec_models, vec![1, 203]);
        assert_eq!(
            report.units[2].identity.as_ref().unwrap().manufacturer.as_deref(),
            Some("Eastron")
        );
        assert_eq!(
            report.units[2].identity.as_ref().unwrap().firmware.as_deref(),
            Some("V2.1")
        );
        assert_eq!(
            (report.gateway_absent, report.silent),
            (gateway_absent, silent),
            "{absent:?}"
        );
    }
}

#[tokio::test]
async fn a_unit_naming_its_maker_gets_that_makers_map_first() {
    // A SunSpec inverter whose common model says "SolarEdge": SolarEdge's own map (its meter sign
    // and error codes) comes before the generic one; the Fronius map, which needs model 111-113,
    // is not offered.
    let dev = Arc::new(SimDevice::new(map("sunspec-inverter"), 7).expect("simulate"));
    let name = b"SolarEdge ";
    for (k, pair) in name.chunks(2).enumerate() {
        let word = u16::from_be_bytes([pair[0], *pair.get(1).unwrap_or(&0)]);
        dev.set_register(Function::Holding, 40004 + k as u16, word);
    }
    for k in name.len().div_ceil(2)..16 {
        dev.set_register(Function::Holding, 40004 + k as u16, 0);
    }
    let addr = serve_tcp(Simulator::new([(1, dev)])).await;
    let mut bus = Session::new(Transport::Tcp { address: addr }, policy(150));
    let report = commission::scan(&mut bus, 1..=1, 0, &maps()).await;
    let unit = &report.units[0];
    assert_eq!(
        unit.identity.as_ref().and_then(|i| i.manufacturer.as_deref()),
        Some("SolarEdge"),
        "{report:#?}"
    );
    assert_eq!(
        unit.suggested_maps,
        strings(&["solaredge-se", "sunspec-inverter"])
    );
}

#[tokio::test]
async fn a_unit_refusing_the_scanned_register_is_still_a_device() {
    // Eastron keeps its values in input registers: holding register 0 is "illegal address".
    let addr = serve_tcp(station(Some(ExceptionCode::GatewayTargetDevice))).await;
    let mut bus = Session::new(Transport::Tcp { address: addr }, policy(150));
    let report = commission::scan(&mut bus, 3..=3, 0, &maps()).await;
    assert_eq!(report.units.len(), 1, "{report:#?}");
    assert!(
        report.units[0]
            .detail
            .contains("exception 0x02 (illegal data address)"),
        "{report:#?}"
    );
}

#[tokio::test]
async fn ids_a_gateway_answers_illegal_address_for_are_listed_but_nothing_is_suggested_for_them() {
    // "Illegal address" is what a present unit without the register says, so these ids cannot be
    // dropped on the first read; the installer sees them unidentified and without a map.
    let addr = serve_tcp(station(Some(ExceptionCode::IllegalDataAddress))).await;
    let mut bus = Session::new(Transport::Tcp { address: addr }, policy(150));
    let report = commission::scan(&mut bus, 1..=6, 0, &maps()).await;
    let units: Vec<u8> = report.units.iter().map(|u| u.unit).collect();
    assert_eq!(units, vec![1, 2, 3, 4, 5, 6]);
    for u in &report.units {
        let real = [1, 2, 3, 5].contains(&u.unit);
        assert_eq!(u.identity.is_some(), real, "{u:?}");
        assert_eq!(u.suggested_maps.is_empty(), !real, "{u:?}");
    }
}

#[tokio::test]
async fn a_probe_names_missing_models_and_refuses_a_map_that_does_not_fit() {
    let dir = tempfile::tempdir().unwrap();
    let der = Arc::new(RegisterMap::parse(&dir.path().join("der-701.toml"), DER_701).unwrap());
    let sim = Simulator::new([
        (1, Arc::new(SimDevice::new(map("sunspec-inverter"), 1).unwrap())),
        (4, Arc::new(SimDevice::new(der, 4).unwrap())),
    ]);
    let addr = serve_tcp(sim).await;
    let mut bus = Session::new(Transport::Tcp { address: addr }, policy(300));

    let report = commission::probe(&mut bus, 4, map("sunspec-inverter"))
        .await
        .unwrap();
    assert!(!report.fits, "{report:#?}");
    assert_eq!(report.missing, strings(&["model 103 (or 101, 102)", "model 160"]));
    assert!(
        report.warnings[0].contains("none of the map's main models")
            && report.warnings[0].contains("carries models 1, 701"),
        "{report:#?}"
    );

    // The right device: nothing missing, no warning.
    let report = commission::probe(&mut bus, 1, map("sunspec-inverter"))
        .await
        .unwrap();
    assert!(
        report.fits && report.missing.is_empty() && report.warnings.is_empty(),
        "{report:#?}"
    );
    assert!(report.values.contains_key("ac_power"));
}

#[tokio::test]
async fn a_probe_with_a_vendor_map_reports_refused_blocks_and_another_model() {
    let addr = serve_tcp(station(Some(ExceptionCode::GatewayTargetDevice))).await;
    let mut bus = Session::new(Transport::Tcp { address: addr }, policy(300));
    // The Eastron meter probed as a Huawei inverter: every block refused, and it says SDM630.
    let report = commission::probe(&mut bus, 3, map("huawei-sun2000-ktl"))
        .await
        .unwrap();
    assert!(!report.fits);
    assert!(
        report
            .missing
            .iter()
            .all(|m| m.contains("exception 0x02 (illegal data address)")),
        "{report:#?}"
    );
    assert!(!report.missing.is_empty());
    assert!(
        report
            .warnings
            .iter()
            .any(|w| w.contains("identity mismatch") && w.contains("\"SDM630\"")),
        "{report:#?}"
    );
    // The Huawei unit fits its map and names itself.
    let report = commission::probe(&mut bus, 2, map("huawei-sun2000-ktl"))
        .await
        .unwrap();
    assert!(report.fits && report.missing.is_empty(), "{report:#?}");
    assert_eq!(report.identity.unwrap().model.as_deref(), Some("SUN2000-KTL-M"));
    // An id the gateway cannot reach is no device at all.
    let err = commission::probe(&mut bus, 9, map("huawei-sun2000-ktl"))
        .await
        .unwrap_err();
    assert!(err.contains("0x0B"), "{err}");
}

#[tokio::test]
async fn a_scan_over_rtu_identifies_units_and_skips_silent_ids() {
    let pty = PtyPair::new().await;
    let meter = Arc::new(SimDevice::new(map("eastron-sdm630"), 3).unwrap());
    meter.set_identification(vec![
        (0, "Eastron".into()),
        (1, "SDM630".into()),
        (2, "V2.1".into()),
    ]);
    let sim = Simulator::new([
        (1, Arc::new(SimDevice::new(map("sunspec-meter"), 1).unwrap())),
        (3, meter),
    ]);
    let device_side = pty.device_side.clone();
    let server = tokio::spawn(sim.serve_rtu(device_side));
    tokio::time::sleep(Duration::from_millis(100)).await;
    let transport = Transport::Rtu {
        path: pty.master_side.to_string_lossy().into_owned(),
        baud: 9600,
        parity: Parity::None,
        stop_bits: 1,
        data_bits: 8,
    };
    let mut bus = Session::new(transport, policy(200));
    let report = commission::scan(&mut bus, 1..=4, 0, &maps()).await;
    let got: Vec<(u8, Vec<String>)> = report
        .units
        .iter()
        .map(|u| (u.unit, u.suggested_maps.clone()))
        .collect();
    assert_eq!(
        got,
        vec![
            (1, strings(&["sunspec-meter", "solaredge-meter"])),
            (3, strings(&["eastron-sdm630"]))
        ],
        "{report:#?}"
    );
    assert_eq!(report.silent, 2);
    assert_eq!(report.units[1].identity.as_ref().unwrap().via, "device_id");
    server.abort();
}

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_pv-edge"))
}

struct Child(std::process::Child);
impl Drop for Child {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `pv-edge simulate` with `args` on a free port and waits for its first line.
fn simulate(args: &[&str], maps_dir: &Path) -> (Child, String) {
    use std::io::{BufRead, BufReader};
    let port = pv_edge::testkit::free_port().unwrap();
    let addr = format!("127.0.0.1:{port}");
    let mut child = Child(
        bin()
            .args(["simulate", "--tcp", &addr])
            .args(args)
            .arg("--maps-dir")
            .arg(maps_dir)
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let mut line = String::new();
    BufReader::new(child.0.stderr.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert!(line.contains("simulating"), "{line}");
    std::thread::sleep(Duration::from_millis(50));
    (child, addr)
}

#[test]
fn the_cli_probe_exits_non_zero_naming_the_missing_models() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("der-701.toml"), DER_701).unwrap();
    let (_sim, addr) = simulate(&["--device", "4=der-701"], dir.path());
    let repo_maps = Path::new(env!("CARGO_MANIFEST_DIR")).join("../firmware-configs");
    let out = bin()
        .args(["probe", "--unit", "4", "--map", "sunspec-inverter", "--maps-dir"])
        .arg(&repo_maps)
        .args(["--tcp", &addr, "--timeout-ms", "300"])
        .env("RUST_BACKTRACE", "0")
        .output()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(!out.status.success(), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("missing: model 103 (or 101, 102)\nmissing: model 160\n"),
        "{stdout}"
    );
    assert!(
        stderr.contains("warning: none of the map's main models (model 103 (or 101, 102)) is on the device, which carries models 1, 701"),
        "{stderr}"
    );
    assert!(
        stderr.contains("map sunspec-inverter does not fit unit 4"),
        "{stderr}"
    );
}

#[test]
fn the_cli_scan_behind_a_simulated_gateway_prints_identity_and_map() {
    let repo_maps = Path::new(env!("CARGO_MANIFEST_DIR")).join("../firmware-configs");
    let (_sim, addr) = simulate(
        &[
            "--device",
            "2=huawei-sun2000-ktl",
            "--device",
            "3=eastron-sdm630",
            "--absent-units",
            "gateway-target",
            "--identify",
            "3=Eastron,SDM630,V2.1",
        ],
        &repo_maps,
    );
    let out = bin()
        .args(["scan", "--from", "1", "--to", "5", "--maps-dir"])
        .arg(&repo_maps)
        .args(["--tcp", &addr, "--timeout-ms", "300"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    let mut lines: Vec<&str> = text.lines().collect();
    // The simulator makes up the serial number; the rest is the installer's view, word for word.
    assert!(
        lines[1].starts_with("  identity: SUN2000-KTL-M, serial SIM-")
            && lines[1].ends_with(" (map:huawei-sun2000-ktl)"),
        "{text}"
    );
    lines.remove(1);
    assert_eq!(
        lines,
        vec![
            "unit 2: answers with exception 0x02 (illegal data address) at register 0",
            "  map: huawei-sun2000-ktl",
            "unit 3: answers with exception 0x02 (illegal data address) at register 0",
            "  identity: Eastron SDM630, firmware V2.1 (device_id)",
            "  map: eastron-sdm630",
            &format!("2 units on tcp {addr} ids 1-5; absent: 0 silent, 3 reported absent by a gateway"),
        ],
        "{text}"
    );
}
