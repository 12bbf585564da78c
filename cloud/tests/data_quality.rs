//! Quality marks end to end, every part its own process as in production: the `pv-cloud` binary
//! (HTTP + embedded broker + ingest + rollup), a `pv-edge simulate` weather station on Modbus TCP
//! and a `pv-edge run` agent with the configuration the hub generated. An impossible irradiance
//! written into the simulator's registers must travel marked (never as a good value), be counted
//! in the gateway's status, be stored with its mark, be shown marked live, and stay out of the
//! rollups and so out of the insolation report.

use crate::support;

use support::process::{Proc, free_port, repo_root};

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value as Json, json};
use sqlx::Row;
use support::{Client, Device};

/// Address of the irradiance_poa register of the sunspec-met-station map as the simulator lays it
/// out: the chain from 40002, model 302's POAI at offset 3 from its ID.
fn poa_register(maps: &Path) -> u16 {
    let map = pv_shared::regmap::RegisterMap::load_dir(maps)
        .expect("maps")
        .into_iter()
        .find(|m| m.id == "sunspec-met-station")
        .expect("met station map");
    let mut at: u16 = 40_002;
    for m in &map.sunspec {
        if m.id == 302 {
            return at + 3;
        }
        at += 2 + m.length;
    }
    panic!("no model 302 in the map")
}

async fn rows(url: &str, sql: &'static str) -> Vec<sqlx::any::AnyRow> {
    let db = pv_cloud::kernel::db::Db::connect(url, 1).await.expect("db");
    let rows = sqlx::query(sql).fetch_all(db.pool()).await.expect("query");
    db.close().await;
    rows
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_impossible_value_travels_marked_is_counted_shown_marked_and_left_out_of_reports() {
    let tmp = tempfile::tempdir().expect("tmp");
    let data_dir = tmp.path().join("hub");
    std::fs::create_dir_all(&data_dir).expect("hub dir");
    let database_url = support::fresh_database_url(&data_dir).await;
    let (http_port, broker_port) = (free_port(), free_port());
    let base = format!("http://127.0.0.1:{http_port}");
    let hub_log = data_dir.join("hub.log");
    let _hub = Proc(
        Command::new(env!("CARGO_BIN_EXE_pv-cloud"))
            .env("PV_LISTEN", format!("127.0.0.1:{http_port}"))
            .env("PV_DATA_DIR", &data_dir)
            .env("PV_DATABASE_URL", &database_url)
            .env("PV_BROKER__LISTEN", format!("127.0.0.1:{broker_port}"))
            .env("PV_BROKER__PUBLIC_URL", format!("mqtt://127.0.0.1:{broker_port}"))
            .env("PV_TELEMETRY__ROLLUP_DELAY_SECONDS", "0")
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&hub_log).expect("log"))
            .spawn()
            .expect("start pv-cloud"),
    );
    let log = || std::fs::read_to_string(&hub_log).unwrap_or_default();
    let http = crate::support::client::http();
    let deadline = Instant::now() + Duration::from_secs(60);
    while !http
        .get(format!("{base}/api/health"))
        .send()
        .await
        .is_ok_and(|r| r.status().is_success())
    {
        assert!(Instant::now() < deadline, "hub not healthy:\n{}", log());
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let token = Client::at(&base).token_of("000000", "admin", "admin").await;
    let api = Client::at(&base).with_token(&token);

    let sim_port = free_port();
    let station = api
        .station_with(json!({"name": "Quality plant", "gatewayId": "GW-Q-1"}))
        .await;
    api.device(
        Device::Weather,
        json!({"stationId": station, "name": "W-1", "sn": "Q-W-1",
            "mapModel": "sunspec-met-station", "unitId": 1,
            "modbusAddress": format!("tcp://127.0.0.1:{sim_port}")}),
    )
    .await;
    let password = api.gateway_credentials(&station).await.ok().data()["password"]
        .as_str()
        .expect("password")
        .to_owned();
    let config = http
        .get(format!("{base}/api/station/gateway/config?stationId={station}"))
        .header("Blade-Auth", format!("bearer {token}"))
        .send()
        .await
        .expect("config")
        .text()
        .await
        .expect("config text");
    let gw_dir = tmp.path().join("gateway");
    std::fs::create_dir_all(&gw_dir).expect("gateway dir");
    let maps = repo_root().join("firmware-configs");
    let config: String = config
        .lines()
        .map(|l| {
            if l.starts_with("data_dir = ") {
                format!("data_dir = {:?}", gw_dir.join("state").display().to_string())
            } else if l.starts_with("maps_dir = ") {
                format!("maps_dir = {:?}", maps.display().to_string())
            } else if l.starts_with("password_file = ") {
                format!("password_file = {:?}", gw_dir.join("pw").display().to_string())
            } else if l.starts_with("interval_ms = ") {
                "interval_ms = 300".to_owned()
            } else if l == "[mqtt]" {
                // A status every second, so the counters show without waiting a minute.
                "[mqtt]\nstatus_interval_s = 1".to_owned()
            } else {
                l.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    std::fs::write(gw_dir.join("pv-edge.toml"), &config).expect("write config");
    std::fs::write(gw_dir.join("pw"), &password).expect("write password");

    let edge = support::pv_edge_binary();
    let _sim = Proc(
        Command::new(&edge)
            .args(["simulate", "--maps-dir"])
            .arg(&maps)
            .args(["--device", "1=sunspec-met-station", "--tcp"])
            .arg(format!("127.0.0.1:{sim_port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start simulator"),
    );
    let agent = Proc(
        Command::new(&edge)
            .args(["run", "--config"])
            .arg(gw_dir.join("pv-edge.toml"))
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(tmp.path().join("edge.log")).expect("edge log"))
            .spawn()
            .expect("start agent"),
    );

    // The simulator's own (plausible) irradiance first, shown as a good value.
    let poa_of = |list: &Json| -> Option<Json> {
        list.as_array()?.first()?["values"]
            .as_array()?
            .iter()
            .find(|v| v["name"] == "irradiance_poa")
            .cloned()
    };
    let live_path = format!("/api/deviceReal/list?stationId={station}");
    let live = |want: Box<dyn Fn(&Json) -> bool>| {
        let (api, path, log) = (&api, &live_path, &log);
        async move {
            let deadline = Instant::now() + Duration::from_secs(60);
            loop {
                let list = api.get_data(path).await;
                if let Some(v) = poa_of(&list)
                    && want(&v)
                {
                    return v;
                }
                assert!(Instant::now() < deadline, "live value: {list}\n{}", log());
                tokio::time::sleep(Duration::from_millis(300)).await;
            }
        }
    };
    let first = live(Box::new(|v| v["plausible"] == true)).await;
    let good = first["value"].as_f64().expect("poa");
    assert!((0.0..=1_500.0).contains(&good), "{first}");

    // An impossible irradiance: 2500 W/m² (u16, no scale) into POAI.
    let status = Command::new(&edge)
        .args(["write", "--tcp"])
        .arg(format!("127.0.0.1:{sim_port}"))
        .args([
            "--unit",
            "1",
            "--start",
            &poa_register(&maps).to_string(),
            "--values",
            "2500",
        ])
        .status()
        .expect("pv-edge write");
    assert!(status.success(), "pv-edge write failed");
    let marked = live(Box::new(|v| v["value"].as_f64() == Some(2_500.0))).await;
    assert_eq!(marked["plausible"], false, "shown marked: {marked}");

    // Stored with its mark, never among the good values.
    let deadline = Instant::now() + Duration::from_secs(60);
    let raws = loop {
        let raws: Vec<(i64, String, Option<String>)> = rows(
            &database_url,
            "SELECT ts, metrics, suspect FROM pv_telemetry_raw ORDER BY ts",
        )
        .await
        .iter()
        .map(|r| (r.get("ts"), r.get("metrics"), r.get("suspect")))
        .collect();
        if raws.iter().filter(|r| r.2.is_some()).count() >= 3 {
            break raws;
        }
        assert!(Instant::now() < deadline, "no marked rows: {raws:?}\n{}", log());
        tokio::time::sleep(Duration::from_millis(300)).await;
    };
    for (ts, metrics, suspect) in &raws {
        let metrics: Json = serde_json::from_str(metrics).expect("metrics json");
        let poa = metrics.get("irradiance_poa").and_then(Json::as_f64);
        match suspect {
            Some(q) => {
                let q: Json = serde_json::from_str(q).expect("suspect json");
                assert_eq!(q, json!({"irradiance_poa": 2500.0}), "row {ts}");
                assert_eq!(poa, None, "row {ts}: a marked value is not a good one");
                assert!(metrics.get("irradiance_ghi").is_some(), "the rest stays");
            }
            None => assert_eq!(poa, Some(good), "row {ts}"),
        }
    }

    // Counted per device and metric in the gateway's status.
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let statuses: Vec<Option<String>> = rows(&database_url, "SELECT status FROM pv_gateway_state")
            .await
            .iter()
            .map(|r| r.get("status"))
            .collect();
        let counted = statuses.iter().filter_map(|s| s.as_deref()).any(|s| {
            let s: Json = serde_json::from_str(s).unwrap_or(Json::Null);
            s["devices"].as_array().is_some_and(|d| {
                d.iter()
                    .any(|d| d["suspect"]["irradiance_poa"].as_u64().is_some_and(|n| n >= 1))
            })
        });
        if counted {
            break;
        }
        assert!(Instant::now() < deadline, "no counter in {statuses:?}");
        tokio::time::sleep(Duration::from_millis(300)).await;
    }

    // Stop the agent, then roll up every marked bucket, the still open one included (the hub's
    // worker waits until a bucket is closed, up to five minutes), with the worker's own code.
    drop(agent);
    tokio::time::sleep(Duration::from_secs(2)).await;
    let db = pv_cloud::kernel::db::Db::connect(&database_url, 1)
        .await
        .expect("db");
    let cfg = pv_cloud::config::Config::default().telemetry;
    let deadline = Instant::now() + Duration::from_secs(60);
    while !rows(&database_url, "SELECT device_id FROM pv_telemetry_dirty")
        .await
        .is_empty()
    {
        pv_cloud::telemetry::rollup::run_once(
            &db,
            -(pv_cloud::telemetry::ingest::BUCKET_MS + 60_000),
            cfg.irradiation_max_gap_seconds * 1000,
            pv_cloud::telemetry::rollup::offset_ms(),
            1_000,
        )
        .await
        .expect("rollup");
        assert!(Instant::now() < deadline, "rollups not done\n{}", log());
    }
    db.close().await;
    let report = api
        .get_data(&format!("/api/report/irradiance/list?stationId={station}"))
        .await;
    let peak = report["total"]["peakIrradiance"]
        .as_f64()
        .unwrap_or_else(|| panic!("no peak in {report}"));
    assert!(
        peak <= 1_500.0,
        "the marked 2500 W/m² reached the report: {report}"
    );
    assert!(report["total"]["poaKwhM2"].as_f64().is_some(), "{report}");
}
