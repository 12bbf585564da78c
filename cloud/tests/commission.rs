//! Commissioning a station's gateway through the API over real parts: the hub (embedded broker
//! and ingest on a real SQLite file or PostgreSQL), a real `pv-edge run` agent signed in with
//! the credentials the hub issued, and a `pv-edge simulate` Modbus TCP bus. The calls scan, probe
//! and add a device through the downlink; the device lands in the station and goes live.

use crate::support;

use support::process::{Proc, free_port};

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use pv_cloud::kernel::sql::Value;
use serde_json::{Value as Json, json};
use support::{IngestApp, Reply, assert_failure, eventually};

fn maps_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../firmware-configs")
}

/// Writes the configuration of gateway `id` as installed: its password file, the hub's broker
/// and one Modbus TCP bus with no device yet.
fn install_gateway(
    dir: &Path,
    id: &str,
    password: &str,
    broker_port: u16,
    sim_port: u16,
) -> std::path::PathBuf {
    std::fs::write(dir.join("mqtt-password"), password).expect("password file");
    let config = dir.join("pv-edge.toml");
    std::fs::write(
        &config,
        format!(
            "gateway_id = \"{id}\"\ndata_dir = \"state\"\nmaps_dir = {:?}\n\n[mqtt]\nhost = \"127.0.0.1\"\nport = {broker_port}\nusername = \"{id}\"\npassword_file = \"mqtt-password\"\nbatch_linger_ms = 100\n\n[[bus]]\nname = \"field\"\ntransport = \"tcp\"\naddress = \"127.0.0.1:{sim_port}\"\ntimeout_ms = 300\nretries = 0\n",
            maps_dir().display().to_string(),
        ),
    )
    .expect("config");
    config
}

/// `pv-edge run` with `config`, its log in `dir/edge.log`.
fn start_agent(config: &Path, dir: &Path) -> Proc {
    Proc(
        Command::new(support::pv_edge_binary())
            .args(["run", "--config"])
            .arg(config)
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(dir.join("edge.log")).expect("log"))
            .spawn()
            .expect("agent"),
    )
}

/// A command the console sends while the gateway is still starting (not yet connected, or not
/// yet subscribed) is answered once the gateway is up, not left to time out: the broker drops
/// a downlink message nobody is subscribed to, so the hub sends its waiting commands again
/// when the gateway announces itself.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_sent_before_the_gateway_is_up_is_answered_once_it_is() {
    let hub = IngestApp::start(|_| {}).await;
    let app = &hub.app;
    let token = app.gateway_manager("100001", "installer").await;
    let installer = app.as_user(&token);
    let station = installer
        .station_with(json!({"name": "Early plant", "gatewayId": "GW-EARLY-1"}))
        .await;
    let password = installer.gateway_credentials(&station).await.ok().data()["password"]
        .as_str()
        .expect("password")
        .to_owned();
    let dir = tempfile::tempdir().expect("tmp");
    // Nothing listens on the bus: the inventory does not need it.
    let config = install_gateway(
        dir.path(),
        "GW-EARLY-1",
        &password,
        hub.gateway_addr.port(),
        free_port(),
    );

    let asked = std::time::Instant::now();
    let path = format!("/api/station/gateway/commission/buses?stationId={station}");
    let (reply, _agent) = tokio::join!(installer.get(&path), async {
        // The command is on its way before the gateway process exists.
        tokio::time::sleep(Duration::from_millis(500)).await;
        start_agent(&config, dir.path())
    });
    let took = asked.elapsed();
    assert_eq!(
        reply.status,
        200,
        "{} after {took:?}; agent log: {}",
        reply.body,
        std::fs::read_to_string(dir.path().join("edge.log")).unwrap_or_default()
    );
    assert_eq!(reply.body["data"]["gatewayId"], "GW-EARLY-1");
    // Answered when the gateway came up (about a second), far within the 30 s the hub waits.
    assert!(took < Duration::from_secs(10), "answered after {took:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_device_is_scanned_probed_and_added_through_the_gateway() {
    let hub = IngestApp::start(|_| {}).await;
    let app = &hub.app;
    let token = app.gateway_manager("100001", "installer").await;
    let installer = app.as_user(&token);
    let station = installer
        .station_with(json!({"name": "New plant", "gatewayId": "GW-COM-1"}))
        .await;
    let password = installer.gateway_credentials(&station).await.ok().data()["password"]
        .as_str()
        .expect("password")
        .to_owned();

    // The field: a meter at unit 1 and an inverter at unit 3 on one Modbus TCP line.
    let edge = support::pv_edge_binary();
    let sim_port = free_port();
    let _sim = Proc(
        Command::new(&edge)
            .args(["simulate", "--maps-dir"])
            .arg(maps_dir())
            .args([
                "--device",
                "1=eastron-sdm630",
                "--device",
                "3=huawei-sun2000-ktl",
                "--tcp",
            ])
            .arg(format!("127.0.0.1:{sim_port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("simulator"),
    );
    // The gateway as installed: its port (the bus) declared, no device yet.
    let dir = tempfile::tempdir().expect("tmp");
    let config = install_gateway(
        dir.path(),
        "GW-COM-1",
        &password,
        hub.gateway_addr.port(),
        sim_port,
    );
    let _agent = start_agent(&config, dir.path());

    // The gateway's buses, once it is connected.
    let mut buses = Json::Null;
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    let mut online = false;
    while std::time::Instant::now() < deadline {
        let r = installer
            .get(&format!(
                "/api/station/gateway/commission/buses?stationId={station}"
            ))
            .await;
        if r.status == 200 {
            buses = r.body["data"].clone();
            online = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    assert!(
        online,
        "the gateway answers: {}",
        std::fs::read_to_string(dir.path().join("edge.log")).unwrap_or_default()
    );
    assert_eq!(buses["gatewayId"], "GW-COM-1");
    assert_eq!(buses["buses"][0]["name"], "field");
    assert_eq!(buses["buses"][0]["address"], format!("127.0.0.1:{sim_port}"));
    assert_eq!(buses["buses"][0]["devices"], json!([]));
    let huawei = buses["maps"]
        .as_array()
        .expect("maps")
        .iter()
        .find(|m| m["id"] == "huawei-sun2000-ktl")
        .expect("the gateway has the Huawei map");
    assert_eq!(huawei["kind"], "inverter");

    let scan = installer
        .post_data(
            "/api/station/gateway/commission/scan",
            json!({"stationId": station, "bus": "field", "from": 1, "to": 6}),
        )
        .await;
    let units: Vec<i64> = scan["units"]
        .as_array()
        .expect("units")
        .iter()
        .map(|u| u["unit"].as_i64().expect("unit"))
        .collect();
    assert_eq!(units, [1, 3], "{scan}");
    assert_eq!(scan["bus"], "field");
    // The other four ids are accounted for: silent or reported absent, never devices.
    let (silent, absent) = (scan["silent"].as_u64(), scan["gatewayAbsent"].as_u64());
    assert_eq!(silent.zip(absent).map(|(s, a)| s + a), Some(4), "{scan}");

    let probe = installer
        .post_data(
            "/api/station/gateway/commission/probe",
            json!({"stationId": station, "bus": "field", "unit": 3, "map": "huawei-sun2000-ktl"}),
        )
        .await;
    assert_eq!(probe["fits"], true, "{probe}");
    let power = probe["values"]
        .as_array()
        .expect("values")
        .iter()
        .find(|v| v["metric"] == "ac_power")
        .expect("ac_power");
    assert_eq!(power["unit"], "W");
    assert!(power["value"].is_number());

    // Refusals: a range that is no range, a map the gateway lacks, the gateway's own refusal.
    let Reply { status, body, .. } = installer
        .post_json(
            "/api/station/gateway/commission/scan",
            json!({"stationId": station, "bus": "field", "from": 9, "to": 2}),
        )
        .await;
    assert_failure(status, &body, 400);
    let Reply { status, body, .. } = installer
        .en()
        .post_json(
            "/api/station/gateway/commission/probe",
            json!({"stationId": station, "bus": "field", "unit": 3, "map": "nope"}),
        )
        .await;
    assert_failure(status, &body, 400);
    assert!(
        body["msg"]
            .as_str()
            .unwrap_or("")
            .contains("The gateway refused: no map nope"),
        "{body}"
    );

    let added = installer
        .post_data(
            "/api/station/gateway/commission/device",
            json!({"stationId": station, "bus": "field", "unit": 3, "map": "huawei-sun2000-ktl",
                "name": "Inverter 3", "sn": "COM-INV-3", "intervalMs": 500}),
        )
        .await;
    assert_eq!(added["kind"], "inverter", "{added}");
    assert!(
        added["message"]
            .as_str()
            .unwrap_or("")
            .contains("1 buses, 1 devices"),
        "{added}"
    );
    let row = installer
        .get_data(&format!(
            "/api/inverter/{}",
            added["deviceId"].as_str().expect("id")
        ))
        .await;
    assert_eq!(row["sn"], "COM-INV-3");
    assert_eq!(row["unitId"], 3);
    assert_eq!(row["mapModel"], "huawei-sun2000-ktl");
    assert_eq!(row["gatewayId"], "GW-COM-1");
    assert_eq!(row["modbusAddress"], format!("127.0.0.1:{sim_port}"));
    let text = std::fs::read_to_string(&config).expect("config");
    assert!(text.contains("id = \"COM-INV-3\""), "{text}");
    // Live: its samples are stored under the new registry row.
    let device: i64 = added["deviceId"]
        .as_str()
        .and_then(|s| s.parse().ok())
        .expect("id");
    let live = eventually(Duration::from_secs(30), || async {
        app.scalar_int(
            "SELECT COUNT(*) FROM pv_telemetry_raw WHERE device_id = ?",
            vec![Value::Int(device)],
        )
        .await
        .unwrap_or(0)
            > 0
    })
    .await;
    assert!(live, "the added device goes live");

    // Unit 3 is taken on the gateway: it refuses, and the station does not keep the record.
    let Reply { status, body, .. } = installer
        .post_json(
            "/api/station/gateway/commission/device",
            json!({"stationId": station, "bus": "field", "unit": 3, "map": "eastron-sdm630",
                "name": "Meter", "sn": "COM-MET-9",
                "fields": {"meterRole": "1", "ctRatio": 1, "ptRatio": 1}}),
        )
        .await;
    assert_failure(status, &body, 400);
    assert!(body["msg"].as_str().unwrap_or("").contains("unit"), "{body}");
    let kept = app
        .scalar_int(
            "SELECT COUNT(*) FROM pv_meter WHERE sn = 'COM-MET-9' AND is_deleted = 0",
            vec![],
        )
        .await;
    assert_eq!(kept, Some(0), "the refused device was taken back");
    // The SN is the registry's to refuse, before the gateway is asked.
    let Reply { status, body, .. } = installer
        .post_json(
            "/api/station/gateway/commission/device",
            json!({"stationId": station, "bus": "field", "unit": 1, "map": "eastron-sdm630",
                "name": "Meter", "sn": "COM-INV-3"}),
        )
        .await;
    assert_failure(status, &body, 400);
    assert_eq!(
        std::fs::read_to_string(&config).expect("config"),
        text,
        "the gateway's file is untouched"
    );

    // Who may: another tenant's installer does not see the station; a user without the
    // gateway button may not commission.
    let other = app.gateway_manager("100002", "stranger").await;
    let Reply { status, body, .. } = app
        .as_user(&other)
        .get(&format!(
            "/api/station/gateway/commission/buses?stationId={station}"
        ))
        .await;
    assert_failure(status, &body, 404);
    let plain = app.station_manager("100001", "viewer").await;
    let Reply { status, body, .. } = app
        .as_user(&plain)
        .post_json(
            "/api/station/gateway/commission/scan",
            json!({"stationId": station, "bus": "field", "from": 1, "to": 2}),
        )
        .await;
    assert_failure(status, &body, 403);
}
