//! A device that changes under the running agent without going silent must not have its values
//! published as if nothing happened: the real `pv-edge run` process, a simulated device on a
//! real Modbus TCP socket, a real MQTT broker and a stand-in cloud that records every sample
//! and status.
//!
//! - A SunSpec device restarted with another model order (then another base) between two polls:
//!   every published sample equals the simulator's values, the status names the layout change,
//!   values resume once the chain is found again.
//! - A vendor-map device swapped for another unit: a new serial number is adopted once read the
//!   same twice; a new model name (found after a silence) keeps the device withheld.

mod common;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use common::*;
use pv_edge::sim::{SimDevice, Simulator};
use pv_edge::testkit::{Consumer, Store, start_broker};
use pv_shared::wire::{DeviceStatus, GatewayStatus, Sample, Value};

fn latest_status<'a>(s: &'a Store, gateway: &str) -> Option<&'a GatewayStatus> {
    s.statuses
        .iter()
        .rev()
        .map(|(_, st)| st)
        .find(|st| st.gateway == gateway)
}

fn device<'a>(s: &'a Store, gateway: &str, id: &str) -> Option<&'a DeviceStatus> {
    latest_status(s, gateway)?.devices.iter().find(|d| d.id == id)
}

fn samples(s: &Store, gateway: &str, id: &str) -> Vec<Sample> {
    s.samples
        .iter()
        .filter(|((g, _), x)| g == gateway && x.device == id)
        .map(|(_, x)| x.clone())
        .collect()
}

/// Equal, up to the last bit a JSON round trip may change.
fn same(a: &Value, b: Option<&Value>) -> bool {
    match (a, b) {
        (Value::Number(x), Some(Value::Number(y))) => (x - y).abs() <= 1e-9 * x.abs().max(y.abs()),
        (a, b) => Some(a) == b,
    }
}

/// Checks that every sample published for the inverter is the simulator's truth, complete (no
/// missing AC power, no zero MPPT voltage, nothing read from where another model now is);
/// returns how many there are.
fn all_true(store: &Store, gateway: &str, truth: &BTreeMap<String, Value>) -> usize {
    let published = samples(store, gateway, "inv-1");
    for s in &published {
        for (metric, v) in &s.values {
            let t = truth.get(metric);
            assert!(
                same(v, t),
                "seq {}: {metric} is {v:?}, the device has {t:?}",
                s.seq
            );
        }
        for metric in ["ac_power", "mppt2_voltage", "mppt6_voltage"] {
            assert!(s.values.contains_key(metric), "seq {}: {metric} missing", s.seq);
        }
        assert_eq!(s.values.len(), truth.len(), "seq {}: incomplete sample", s.seq);
    }
    published.len()
}

fn sim_of(map: &str, seed: u64, units: &[u8]) -> (Simulator, Vec<Arc<SimDevice>>) {
    let m = maps().into_iter().find(|m| m.id == map).expect("map");
    let devs: Vec<Arc<SimDevice>> = units
        .iter()
        .map(|u| Arc::new(SimDevice::new(m.clone(), seed + u64::from(*u)).expect("simulate")))
        .collect();
    (
        Simulator::new(units.iter().copied().zip(devs.iter().cloned())),
        devs,
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sunspec_device_restarted_with_another_model_order_publishes_no_wrong_value() {
    const GW: &str = "gw-relayout";
    let broker = start_broker(None).unwrap();
    let cloud = Consumer::connect(broker, "cloud-relayout").await;
    let (sim, devs) = sim_of("sunspec-inverter", 11, &[1]);
    let inv = devs[0].clone();
    let addr = serve_tcp(sim).await;
    let dir = tempfile::tempdir().unwrap();
    let config = gateway_config(
        dir.path(),
        GW,
        addr,
        &[("inv-1", "sunspec-inverter", 1)],
        300,
        &mqtt_section(broker, ""),
    );
    let agent = Agent::spawn(&config);
    let count = |s: &Store| samples(s, GW, "inv-1").len();
    assert!(
        cloud.wait_for(Duration::from_secs(20), |s| count(s) >= 5).await,
        "samples before the restart; log:\n{}",
        agent.log_text()
    );

    // Two restarts between polls, the endpoint staying up: the models in another order at the
    // same base (the old layout's addresses now hold other models), then at another base.
    let restarts: [(&[u16], u16, &str); 2] = [
        (
            &[160, 1, 103],
            40000,
            "layout changed: model 1 expected at 40002, found 160",
        ),
        (
            &[103, 160, 1],
            50000,
            "layout changed: model 1 expected at 40172, read refused",
        ),
    ];
    for (round, (order, base, reason)) in restarts.iter().enumerate() {
        inv.restart(order, *base).unwrap();
        let seen = cloud
            .wait_for(Duration::from_secs(15), |s| {
                device(s, GW, "inv-1").is_some_and(|d| {
                    d.changes == round as u64 + 1
                        && d.online
                        && d.last_change.as_deref().is_some_and(|r| r.starts_with(reason))
                })
            })
            .await;
        let n = count(&cloud.store());
        let resumed = cloud
            .wait_for(Duration::from_secs(15), |s| count(s) >= n + 5)
            .await;
        all_true(&cloud.store(), GW, inv.expected());
        assert!(
            seen,
            "status after restart {}: {:#?}\nlog:\n{}",
            round + 1,
            device(&cloud.store(), GW, "inv-1"),
            agent.log_text()
        );
        assert!(resumed, "values resume after re-discovery");
        assert!(
            agent.log_text().contains("values withheld"),
            "the agent says why it withholds"
        );
    }

    let store = cloud.store();
    let published = all_true(&store, GW, inv.expected());
    let st = device(&store, GW, "inv-1").cloned().unwrap();
    assert_eq!(st.withheld, None, "confirmed again: {st:?}");
    let bus = &latest_status(&store, GW).unwrap().buses[0];
    assert_eq!(bus.decode_errors, 0, "no point decoded from a stale layout");
    eprintln!(
        "{published} samples published, all right; {} requests on the bus",
        bus.requests
    );
    drop(store);
    let (status, _) = agent.terminate();
    assert!(status.success());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_vendor_device_swapped_for_another_unit_is_withheld_until_its_identity_is_confirmed() {
    const GW: &str = "gw-identity";
    let broker = start_broker(None).unwrap();
    let cloud = Consumer::connect(broker, "cloud-identity").await;
    let (sim, devs) = sim_of("huawei-sun2000-ktl", 21, &[1, 2]);
    let addr = serve_tcp(sim).await;
    let dir = tempfile::tempdir().unwrap();
    let config = gateway_config(
        dir.path(),
        GW,
        addr,
        &[
            ("inv-1", "huawei-sun2000-ktl", 1),
            ("inv-2", "huawei-sun2000-ktl", 2),
        ],
        300,
        &mqtt_section(broker, ""),
    );
    let agent = Agent::spawn(&config);
    assert!(
        cloud
            .wait_for(Duration::from_secs(20), |s| samples(s, GW, "inv-1").len() >= 3
                && samples(s, GW, "inv-2").len() >= 3)
            .await,
        "log:\n{}",
        agent.log_text()
    );

    // Unit 1 is replaced by a unit of the same model, between two polls.
    assert!(devs[0].set_text("serial_number", "SN-REPLACED"));
    let new_serial = Value::Text("SN-REPLACED".into());
    let adopted = cloud
        .wait_for(Duration::from_secs(15), |s| {
            samples(s, GW, "inv-1")
                .iter()
                .any(|x| x.values.get("serial_number") == Some(&new_serial))
                && device(s, GW, "inv-1").is_some_and(|d| {
                    d.changes == 1
                        && d.withheld.is_none()
                        && d.last_change.as_deref().is_some_and(|r| {
                            r.starts_with("identity changed: serial_number") && r.contains("SN-REPLACED")
                        })
                })
        })
        .await;
    assert!(
        adopted,
        "{:#?}\nlog:\n{}",
        device(&cloud.store(), GW, "inv-1"),
        agent.log_text()
    );

    // Unit 2 falls silent and comes back as another model.
    devs[1].set_dead(true);
    assert!(
        cloud
            .wait_for(Duration::from_secs(15), |s| device(s, GW, "inv-2")
                .is_some_and(|d| !d.online))
            .await
    );
    assert!(devs[1].set_text("model_name", "SUN2000-OTHER"));
    let before = samples(&cloud.store(), GW, "inv-2").len();
    devs[1].set_dead(false);
    let held = cloud
        .wait_for(Duration::from_secs(20), |s| {
            device(s, GW, "inv-2").is_some_and(|d| {
                d.online
                    && d.withheld.as_deref().is_some_and(|r| {
                        r.starts_with("identity changed: model_name") && r.contains("configuration")
                    })
            })
        })
        .await;
    assert!(
        held,
        "{:#?}\nlog:\n{}",
        device(&cloud.store(), GW, "inv-2"),
        agent.log_text()
    );
    // Several more polls: still nothing from it, while unit 1 goes on.
    let n1 = samples(&cloud.store(), GW, "inv-1").len();
    assert!(
        cloud
            .wait_for(Duration::from_secs(10), |s| samples(s, GW, "inv-1").len()
                >= n1 + 5)
            .await
    );
    let store = cloud.store();
    assert_eq!(
        samples(&store, GW, "inv-2").len(),
        before,
        "nothing published from the unconfirmed unit"
    );
    // What unit 1 published is the simulator's truth, its identity aside.
    for s in samples(&store, GW, "inv-1") {
        for (metric, v) in &s.values {
            if metric != "serial_number" {
                let t = devs[0].expected().get(metric);
                assert!(
                    same(v, t),
                    "seq {}: {metric} is {v:?}, the device has {t:?}",
                    s.seq
                );
            }
        }
    }
    drop(store);
    let (status, _) = agent.terminate();
    assert!(status.success());
}
