//! Commissioning over the downlink, with the real `pv-edge run` process, a real broker and
//! simulators on real TCP sockets: the cloud asks what the gateway has, scans a bus while its
//! devices and another bus keep polling, probes a unit with a map, adds it to the configuration
//! file (atomically, refused when it does not check) and the new device goes live.

mod common;

use std::time::Duration;

use common::*;
use pv_edge::testkit::{Consumer, Store, start_broker};
use pv_shared::wire::{Action, Command, CommandAck, Value};

fn answers<'a>(s: &'a Store, id: &str) -> Vec<&'a CommandAck> {
    s.answers.iter().filter(|a| a.id == id).collect()
}

async fn ask(cloud: &Consumer, gateway: &str, id: &str, action: Action, limit: Duration) -> CommandAck {
    let c = Command {
        v: 1,
        id: id.into(),
        action,
    };
    cloud.command(gateway, &c).await;
    assert!(
        cloud.wait_for(limit, |s| !answers(s, id).is_empty()).await,
        "no answer to {id}"
    );
    answers(&cloud.store(), id)[0].clone()
}

/// The longest gap between consecutive samples of `device` stored between `from` and `to`
/// (milliseconds since the epoch), counting the edges of the window.
fn longest_gap(s: &Store, device: &str, from: i64, to: i64) -> i64 {
    let mut ts: Vec<i64> = s
        .samples
        .values()
        .filter(|x| x.device == device && x.ts >= from && x.ts <= to)
        .map(|x| x.ts)
        .collect();
    ts.sort();
    let mut edges = vec![from];
    edges.extend(ts);
    edges.push(to);
    edges.windows(2).map(|w| w[1] - w[0]).max().unwrap_or(i64::MAX)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_installer_scans_probes_and_adds_a_device_while_polling_goes_on() {
    let broker = start_broker(None).unwrap();
    let cloud = Consumer::connect(broker, "cloud-commission").await;
    let all = maps();
    let pick = |id: &str| all.iter().find(|m| m.id == id).cloned().unwrap();
    // Bus "sim": a meter already configured at unit 1, an inverter nobody configured at unit 3.
    let field = pv_edge::sim::Simulator::new([
        (
            1,
            std::sync::Arc::new(pv_edge::sim::SimDevice::new(pick("eastron-sdm630"), 1).unwrap()),
        ),
        (
            3,
            std::sync::Arc::new(pv_edge::sim::SimDevice::new(pick("huawei-sun2000-ktl"), 2).unwrap()),
        ),
    ]);
    let field_addr = serve_tcp(field.clone()).await;
    // Bus "other": one weather station, polled throughout.
    let other = simulator(&[pick("chint-dtsu666")], 5);
    let other_addr = serve_tcp(other).await;

    let dir = tempfile::tempdir().unwrap();
    let mqtt = mqtt_section(broker, "");
    let config = gateway_config(
        dir.path(),
        "gw-com",
        field_addr,
        &[("meter-1", "eastron-sdm630", 1)],
        200,
        &mqtt,
    );
    let mut text = std::fs::read_to_string(&config).unwrap();
    text += &format!(
        "\n[[bus]]\nname = \"other\"\ntransport = \"tcp\"\naddress = \"{other_addr}\"\ntimeout_ms = 300\nretries = 0\n\n[[bus.device]]\nid = \"weather-1\"\nmap = \"chint-dtsu666\"\nunit = 1\ninterval_ms = 200\n"
    );
    std::fs::write(&config, &text).unwrap();
    let agent = Agent::spawn(&config);
    assert!(
        cloud
            .wait_for(Duration::from_secs(15), |s| s.count("gw-com") > 4)
            .await,
        "polling starts: {}",
        agent.log_text()
    );

    let a = ask(
        &cloud,
        "gw-com",
        "inv",
        Action::Inventory,
        Duration::from_secs(10),
    )
    .await;
    let inv = a.inventory.expect("inventory");
    assert_eq!(
        inv.buses.iter().map(|b| b.name.as_str()).collect::<Vec<_>>(),
        ["sim", "other"]
    );
    assert_eq!(inv.buses[0].address, field_addr.to_string());
    assert_eq!(inv.buses[0].transport, "tcp");
    assert_eq!(inv.buses[0].devices[0].id, "meter-1");
    assert!(inv.maps.iter().any(|m| m == "huawei-sun2000-ktl"));

    // Units 1-12: ten of them stay silent and cost a 300 ms timeout each (3 s in all).
    let before = pv_edge::clock::now_ms();
    let scan = Action::ScanBus {
        bus: "sim".into(),
        from: 1,
        to: 12,
    };
    let a = ask(&cloud, "gw-com", "scan-1", scan.clone(), Duration::from_secs(30)).await;
    let after = pv_edge::clock::now_ms();
    assert!(a.ok, "{a:?}");
    let report = a.scan.clone().expect("scan report");
    let found: Vec<u8> = report.units.iter().map(|u| u.unit).collect();
    assert_eq!(found, [1, 3], "{report:?}");
    assert!(after - before >= 2500, "the silent ids took their timeouts");
    // Wait for the samples of the scan's window to reach the stand-in cloud.
    tokio::time::sleep(Duration::from_millis(800)).await;
    {
        let s = cloud.store();
        let own = longest_gap(&s, "meter-1", before, after);
        let other = longest_gap(&s, "weather-1", before, after);
        eprintln!(
            "scan {} ms; longest gap meter-1 {own} ms, weather-1 {other} ms",
            after - before
        );
        // A slice is at most four silent ids (1.2 s); the other bus is not involved at all.
        assert!(own < 2000, "the scanned bus's own device starved: {own} ms");
        assert!(other < 800, "the other bus stopped: {other} ms");
    }

    // The same command id again: the first answer again, not a second scan.
    let c = Command {
        v: 1,
        id: "scan-1".into(),
        action: scan,
    };
    cloud.command("gw-com", &c).await;
    assert!(
        cloud
            .wait_for(Duration::from_secs(10), |s| answers(s, "scan-1").len() == 2)
            .await
    );
    assert_eq!(answers(&cloud.store(), "scan-1")[1], &a);

    let probe = Action::ProbeUnit {
        bus: "sim".into(),
        unit: 3,
        map: "huawei-sun2000-ktl".into(),
    };
    let a = ask(&cloud, "gw-com", "probe-1", probe, Duration::from_secs(10)).await;
    assert!(a.ok, "{a:?}");
    let p = a.probe.expect("probe report");
    // The values crossed JSON: equal to the simulator's to the last few bits.
    let expected = field.unit(3).unwrap().expected();
    assert_eq!(
        p.values.keys().collect::<Vec<_>>(),
        expected.keys().collect::<Vec<_>>()
    );
    for (k, v) in expected {
        match (v, &p.values[k]) {
            (Value::Number(a), Value::Number(b)) => {
                assert!((a - b).abs() <= 1e-9 * a.abs().max(1.0), "{k}: {a} vs {b}")
            }
            (a, b) => assert_eq!(a, b, "{k}"),
        }
    }
    assert!(p.fits);
    let a = ask(
        &cloud,
        "gw-com",
        "probe-2",
        Action::ProbeUnit {
            bus: "sim".into(),
            unit: 3,
            map: "no-such-map".into(),
        },
        Duration::from_secs(10),
    )
    .await;
    assert!(!a.ok && a.message.contains("no map no-such-map"), "{a:?}");
    let a = ask(
        &cloud,
        "gw-com",
        "probe-3",
        Action::ProbeUnit {
            bus: "nope".into(),
            unit: 3,
            map: "huawei-sun2000-ktl".into(),
        },
        Duration::from_secs(10),
    )
    .await;
    assert!(!a.ok && a.message.contains("no bus nope"), "{a:?}");

    // A device that does not check (unit 1 is taken) is refused; the file stays as it was.
    let file_before = std::fs::read_to_string(&config).unwrap();
    let a = ask(
        &cloud,
        "gw-com",
        "add-bad",
        Action::AddDevice {
            bus: "sim".into(),
            id: "inv-3".into(),
            unit: 1,
            map: "huawei-sun2000-ktl".into(),
            interval_ms: Some(200),
        },
        Duration::from_secs(10),
    )
    .await;
    assert!(!a.ok && a.message.contains("unit"), "{a:?}");
    assert_eq!(std::fs::read_to_string(&config).unwrap(), file_before);

    let a = ask(
        &cloud,
        "gw-com",
        "add-1",
        Action::AddDevice {
            bus: "sim".into(),
            id: "inv-3".into(),
            unit: 3,
            map: "huawei-sun2000-ktl".into(),
            interval_ms: Some(200),
        },
        Duration::from_secs(10),
    )
    .await;
    assert!(a.ok && a.message.contains("2 buses, 3 devices"), "{a:?}");
    let written = pv_edge::config::GatewayConfig::load(&config).unwrap();
    assert_eq!(written.buses[0].devices[1].id, "inv-3");
    assert!(
        cloud
            .wait_for(Duration::from_secs(10), |s| s
                .samples
                .values()
                .any(|x| x.device == "inv-3"))
            .await,
        "the added device goes live"
    );
    let (status, _) = agent.terminate();
    assert!(status.success());
}
