//! The demo provisioner (`pv_cloud::demo`): run twice it creates the tenant, its stations,
//! devices, prices, credentials and gateway files once; the files pass the real `pv-edge check`
//! and the real simulator serves daylight values from the simulator spec.

use crate::support;

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use pv_cloud::demo::{self, DemoStation};
use pv_cloud::kernel::sql::Value;
use support::TestApp;
use support::process::free_ports;

struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn edge(args: &[&str], extra: &Path) -> (bool, String) {
    let out = Command::new(support::pv_edge_binary())
        .args(args)
        .arg(extra)
        .output()
        .expect("run pv-edge");
    (
        out.status.success(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

fn value(text: &str, metric: &str) -> f64 {
    text.lines()
        .find_map(|l| l.strip_prefix(&format!("{metric} ")))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("{metric} in {text}"))
}

/// Probes a unit of a simulated bus until it answers (the simulator needs a moment to bind).
fn probe(dir: &Path, port: u16, unit: u8, map: &str) -> String {
    let maps = dir.join("../maps");
    for _ in 0..50 {
        let out = Command::new(support::pv_edge_binary())
            .args(["probe", "--tcp", &format!("127.0.0.1:{port}")])
            .args(["--unit", &unit.to_string(), "--map", map, "--timeout-ms", "500"])
            .arg("--maps-dir")
            .arg(&maps)
            .output()
            .expect("run pv-edge probe");
        if out.status.success() {
            return String::from_utf8_lossy(&out.stdout).into_owned();
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    panic!("unit {unit} on port {port} never answered");
}

/// A hub with the demo enabled on six free Modbus ports from `base`; returns (app, base, now).
async fn demo_app() -> (TestApp, u16, i64) {
    let base = free_ports(6);
    let app = TestApp::start_configured(|c| {
        c.demo.enabled = true;
        c.demo.modbus_base_port = base;
    })
    .await;
    let now = pv_cloud::kernel::time::now_ms();
    (app, base, now)
}

#[tokio::test]
async fn the_demo_is_provisioned_once_with_its_tenant_stations_devices_and_prices() {
    let (app, _base, now) = demo_app().await;
    let first = demo::provision(&app.state.station_ctx(), now)
        .await
        .expect("first run");
    assert!(first.tenant_created);
    assert!(first.changes > 20, "{first:?}");
    let second = demo::provision(&app.state.station_ctx(), now)
        .await
        .expect("second run");
    assert!(!second.tenant_created);
    assert_eq!(second.changes, 0, "a second start changes nothing: {second:?}");
    assert_eq!(second.stations, first.stations);
    // The sign-in form offers the demo's tenant while the demo runs.
    let health = app.get("/api/health").await.body;
    assert_eq!(health["data"]["demoTenant"], "demo", "{health}");

    let count = |sql: &'static str| app.scalar_i64(sql, vec![]);
    assert_eq!(
        count("SELECT COUNT(*) FROM blade_tenant WHERE tenant_id = 'demo' AND is_deleted = 0").await,
        1
    );
    assert_eq!(
        count("SELECT COUNT(*) FROM pv_station WHERE tenant_id = 'demo' AND is_deleted = 0").await,
        3
    );
    assert_eq!(
        count(
            "SELECT COUNT(*) FROM pv_station WHERE tenant_id = 'demo' AND installation_status = '2' \
             AND state = '1' AND latitude IS NOT NULL AND remark2 LIKE '%site time = real time%'"
        )
        .await,
        3,
        "running, located, with the clock said plainly"
    );
    assert_eq!(
        count("SELECT COUNT(DISTINCT province_code) FROM pv_station WHERE tenant_id = 'demo'").await,
        3
    );
    for (table, n) in [
        ("pv_inverter", 15),
        ("pv_meter", 3),
        ("pv_weather", 3),
        ("pv_flex", 1),
        ("pv_station_price", 3),
        ("pv_electric_price", 3),
        ("pv_gateway_credential", 3),
    ] {
        let sql = format!("SELECT COUNT(*) FROM {table} WHERE tenant_id = 'demo'");
        let extra = if table == "pv_gateway_credential" {
            ""
        } else {
            " AND is_deleted = 0"
        };
        assert_eq!(
            app.scalar_i64(&format!("{sql}{extra}"), vec![]).await,
            n,
            "{table}"
        );
    }
    assert_eq!(
        count(
            "SELECT COUNT(DISTINCT map_model) FROM pv_inverter WHERE tenant_id = 'demo' AND is_deleted = 0"
        )
        .await,
        4,
        "inverters of four makes"
    );
    assert_eq!(
        count(
            "SELECT strings_count FROM pv_inverter WHERE tenant_id = 'demo' AND sn = 'DEMO-JS-INV-02' \
             AND is_deleted = 0"
        )
        .await,
        12,
        "the weak string's inverter has enough strings for dispersion"
    );
    assert_eq!(
        count(
            "SELECT COUNT(*) FROM pv_electric_price_segment g JOIN pv_electric_price p ON p.id = g.price_id \
             JOIN pv_station s ON s.id = p.station_id WHERE s.gateway_id = 'DEMO-JS-01' AND p.is_deleted = 0 \
             AND p.price_type = '2'"
        )
        .await,
        4,
        "peak/valley at the Jiangsu rooftop"
    );
    assert_eq!(
        count(
            "SELECT COUNT(*) FROM pv_flex_sensor x JOIN pv_flex f ON f.id = x.flex_id WHERE f.tenant_id = 'demo'"
        )
        .await,
        3
    );

    // The demo administrator signs in with the installation's initial password and sees them.
    let token = app.token_of("demo", "admin", "123456").await;
    let stations = app.as_user(&token).get_data("/api/station/list").await;
    assert_eq!(stations.as_array().map(Vec::len), Some(3), "{stations}");

    // Operations and maintenance have people and routine work: the maintainer sees every
    // station and the daily plan's tasks, the owner only the Jiangsu rooftop and its orders.
    let maint = app.token_of("demo", "maintainer", "123456").await;
    let maint = app.as_user(&maint);
    let seen = maint.get_data("/api/station/list").await;
    assert_eq!(seen.as_array().map(Vec::len), Some(3), "{seen}");
    let staff = app
        .as_user(&token)
        .get_data("/api/blade-user/listMaintenance")
        .await;
    assert!(
        staff
            .as_array()
            .is_some_and(|s| s.iter().any(|u| u["account"] == "maintainer")),
        "{staff}"
    );
    let plans = maint.get_data("/api/inspectPlan/page?size=10").await;
    assert_eq!(plans["total"], 1, "{plans}");
    assert_eq!(
        plans["records"][0]["stationIds"].as_array().map(Vec::len),
        Some(3)
    );
    assert_eq!(plans["records"][0]["items"].as_array().map(Vec::len), Some(2));
    let owner = app.token_of("demo", "owner", "123456").await;
    let owner = app.as_user(&owner);
    let owned = owner.get_data("/api/station/list").await;
    assert_eq!(owned.as_array().map(Vec::len), Some(1), "{owned}");
    assert!(
        owned[0]["name"].as_str().is_some_and(|n| n.contains("苏州")),
        "{owned}"
    );
    assert_eq!(owner.get_data("/api/repair/page").await["total"], 0);
}

#[tokio::test]
async fn each_demo_gateway_gets_a_config_the_edge_accepts_and_a_private_password() {
    let (app, _base, now) = demo_app().await;
    let first = demo::provision(&app.state.station_ctx(), now)
        .await
        .expect("first run");

    // Files: a config that the real edge agent accepts, a private password that signs in.
    for s in &first.stations {
        let config = s.dir.join("pv-edge.toml");
        let text = std::fs::read_to_string(&config).expect("config");
        let password = std::fs::read_to_string(s.dir.join("mqtt-password")).expect("password");
        let password = password.trim();
        assert!(!text.contains(password), "the password is never in the config");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = std::fs::metadata(s.dir.join("mqtt-password"))
                .expect("metadata")
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600, "{}", s.gateway_id);
        }
        let who = pv_cloud::station::gateway::verify_gateway(&app.state, &s.gateway_id, password)
            .await
            .expect("verify");
        assert_eq!(who.map(|w| w.station), Some(s.station_id));
        for port in &s.ports {
            assert!(
                text.contains(&format!("address = \"127.0.0.1:{port}\"")),
                "{text}"
            );
        }
        let (ok, out) = edge(&["check", "--config"], &config);
        assert!(ok, "pv-edge check refused {}:\n{out}\n{text}", s.gateway_id);
        assert!(
            out.contains(&format!("gateway {}, 2 buses", s.gateway_id)),
            "{out}"
        );
    }
}

#[tokio::test]
async fn the_demo_simulators_serve_daylight_on_the_shifted_clock_with_the_jiangsu_troubles() {
    let (app, _base, now) = demo_app().await;
    let first = demo::provision(&app.state.station_ctx(), now)
        .await
        .expect("first run");

    // The simulators serve daylight on the shifted clock, with the Jiangsu troubles.
    let js: &DemoStation = &first.stations[1];
    assert_eq!(js.gateway_id, "DEMO-JS-01");
    let _sim = Killed(
        Command::new(support::pv_edge_binary())
            .args(["simulate", "--spec"])
            .arg(js.dir.join("simulator.toml"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("simulate"),
    );
    let weak = probe(&js.dir, js.ports[0], 2, "sungrow-sg-cx");
    assert!(value(&weak, "ac_power") > 1000.0, "mid-morning: {weak}");
    let (pv1, pv7) = (value(&weak, "pv1_current"), value(&weak, "pv7_current"));
    let share = pv_cloud::demo::sites::WEAK_STRING.1;
    assert!((pv7 / pv1 - share).abs() < 0.05, "the weak string: {pv1} {pv7}");
    let met = probe(&js.dir, js.ports[1], 2, "sunspec-met-station");
    assert!(value(&met, "irradiance_ghi") > 50.0, "{met}");
    let meter = probe(&js.dir, js.ports[1], 1, "chint-dtsu666");
    assert!(value(&meter, "ac_power").abs() > 0.0, "{meter}");
}

#[tokio::test]
async fn a_lost_demo_password_is_reissued_and_moved_ports_follow() {
    let (app, base, now) = demo_app().await;
    let first = demo::provision(&app.state.station_ctx(), now)
        .await
        .expect("first run");

    // A lost password file is re-issued (the old password stops working); moved ports follow.
    let gd = &first.stations[2];
    let old = std::fs::read_to_string(gd.dir.join("mqtt-password")).expect("password");
    std::fs::remove_file(gd.dir.join("mqtt-password")).expect("remove");
    let third = demo::provision(&app.state.station_ctx(), now)
        .await
        .expect("third run");
    assert_eq!(third.changes, 1, "{third:?}");
    let new = std::fs::read_to_string(gd.dir.join("mqtt-password")).expect("password");
    assert_ne!(old, new);
    let stale = pv_cloud::station::gateway::verify_gateway(&app.state, &gd.gateway_id, old.trim())
        .await
        .expect("verify");
    assert_eq!(stale, None);

    let mut moved = app.state.clone();
    let mut config = (*moved.config).clone();
    config.demo.modbus_base_port = base + 100;
    moved.core.config = std::sync::Arc::new(config);
    let fourth = demo::provision(&moved.station_ctx(), now)
        .await
        .expect("fourth run");
    assert_eq!(fourth.stations[0].ports, vec![base + 100, base + 101]);
    assert_eq!(
        app.scalar_i64(
            "SELECT COUNT(*) FROM pv_inverter WHERE tenant_id = 'demo' AND is_deleted = 0 AND modbus_address = ?",
            vec![Value::Text(format!("tcp://127.0.0.1:{}", base + 100))],
        )
        .await,
        2,
        "the Qinghai inverters follow their bus"
    );
}

#[tokio::test]
async fn off_by_default() {
    let app = TestApp::start().await;
    assert!(!app.state.config.demo.enabled);
    demo::start(&app.state.station_ctx()).await.expect("start");
    assert_eq!(
        app.scalar_i64(
            "SELECT COUNT(*) FROM blade_tenant WHERE tenant_id = 'demo'",
            vec![]
        )
        .await,
        0
    );
    assert!(!app.data_dir.join("demo").exists());
}
