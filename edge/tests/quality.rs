//! Data quality through the real `pv-edge run` process: SunSpec inverters on a real Modbus TCP
//! socket serving the power factor as a ratio, as a percent and as an impossible number; the
//! samples and the status reach a real broker and a stand-in cloud (`pv_edge::testkit`).

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::*;
use pv_edge::sim::{SUNSPEC_BASE, SimDevice, Simulator};
use pv_edge::testkit::{Consumer, start_broker};
use pv_shared::regmap::Function;
use pv_shared::wire::Value;

/// Address of the first register (its ID) of SunSpec model `model` on `dev`, found by walking the
/// chain the device serves, as a client would.
fn model_start(dev: &SimDevice, model: u16) -> u16 {
    let mut at = SUNSPEC_BASE + 2;
    loop {
        let id = dev.register(Function::Holding, at).expect("chain register");
        assert_ne!(id, 0xFFFF, "model {model} not in the chain");
        if id == model {
            return at;
        }
        let len = dev.register(Function::Holding, at + 1).expect("model length");
        at += 2 + len;
    }
}

/// Sets model 103's PF (offset 22) and PF_SF (offset 23).
fn serve_pf(dev: &SimDevice, raw: i16, sf: i16) {
    let start = model_start(dev, 103);
    dev.set_register(Function::Holding, start + 22, raw as u16);
    dev.set_register(Function::Holding, start + 23, sf as u16);
}

fn number(v: Option<&Value>) -> Option<f64> {
    match v {
        Some(Value::Number(x)) => Some(*x),
        _ => None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn power_factor_as_ratio_or_percent_reads_the_same_and_an_impossible_one_is_marked_and_counted() {
    let map = maps()
        .into_iter()
        .find(|m| m.id == "sunspec-inverter")
        .expect("sunspec-inverter map");
    let ratio = Arc::new(SimDevice::new(map.clone(), 1).unwrap());
    let percent = Arc::new(SimDevice::new(map.clone(), 2).unwrap());
    let broken = Arc::new(SimDevice::new(map, 3).unwrap());
    // 995 with PF_SF −3 (what many inverters serve) and 9950 with PF_SF −2 (the model's percent).
    serve_pf(&ratio, 995, -3);
    serve_pf(&percent, 9950, -2);
    // 2070 with PF_SF 0: neither a ratio nor a percent.
    serve_pf(&broken, 2070, 0);
    let sim = serve_tcp(Simulator::new([(1, ratio), (2, percent), (3, broken)])).await;

    let broker = start_broker(None).unwrap();
    let cloud = Consumer::connect(broker, "cloud-quality").await;
    let dir = tempfile::tempdir().unwrap();
    let config = gateway_config(
        dir.path(),
        "gw-quality",
        sim,
        &[
            ("inv-ratio", "sunspec-inverter", 1),
            ("inv-percent", "sunspec-inverter", 2),
            ("inv-broken", "sunspec-inverter", 3),
        ],
        200,
        &mqtt_section(broker, ""),
    );
    let agent = Agent::spawn(&config);

    let arrived = cloud
        .wait_for(Duration::from_secs(30), |s| {
            let has = |d: &str| s.samples.values().filter(|x| x.device == d).count() >= 2;
            let counted = s.statuses.iter().any(|(_, st)| {
                st.devices
                    .iter()
                    .any(|d| d.id == "inv-broken" && d.suspect.get("power_factor").is_some_and(|n| *n >= 2))
            });
            has("inv-ratio") && has("inv-percent") && has("inv-broken") && counted
        })
        .await;
    assert!(
        arrived,
        "samples and status did not arrive:\n{}",
        agent.log_text()
    );

    let store = cloud.store();
    for s in store.samples.values() {
        let pf = number(s.values.get("power_factor"));
        match s.device.as_str() {
            "inv-ratio" | "inv-percent" => {
                assert_eq!(pf, Some(0.995), "{}: {:?}", s.device, s.values);
                assert!(s.suspect.is_empty(), "{}: {:?}", s.device, s.suspect);
            }
            "inv-broken" => {
                assert_eq!(pf, None, "an impossible PF must not travel as a good value");
                assert_eq!(number(s.suspect.get("power_factor")), Some(2070.0));
                // The rest of the reading is unharmed.
                assert!(s.values.contains_key("ac_power"), "{:?}", s.values);
            }
            other => panic!("unexpected device {other}"),
        }
    }
    let status = store
        .statuses
        .iter()
        .rev()
        .map(|(_, st)| st)
        .find(|st| !st.devices.is_empty())
        .expect("a status with devices");
    for d in &status.devices {
        if d.id == "inv-broken" {
            assert_eq!(d.suspect.keys().collect::<Vec<_>>(), ["power_factor"]);
        } else {
            assert!(d.suspect.is_empty(), "{}: {:?}", d.id, d.suspect);
        }
    }
    drop(store);
    agent.kill();
}
