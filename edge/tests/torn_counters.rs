//! Multi-register counters are never published torn: a simulated Huawei inverter over real
//! Modbus TCP updates its 32-bit counters one register at a time while they run fast enough to
//! cross a 65 536 boundary every few requests; the real scheduler polls it.

mod common;

use std::time::Duration;

use common::*;
use pv_edge::scheduler::{BusPolicy, Event};
use pv_edge::sim::{SimDevice, Simulator};
use pv_edge::transport::Transport;
use pv_shared::wire::Value;
use tokio_modbus::client::Reader;

const MAP: &str = "huawei-sun2000-ktl";
/// Raw units (0.01 kWh) the counters advance per request: a poll of this map takes about 8
/// requests, so the counter crosses a word boundary every second poll or so and advances well
/// under a word between two polls, as the rule assumes (docs/data-quality.md).
const STEP: u64 = 4_000;
/// energy_total's registers on that map (u32, big-endian words).
const ENERGY_TOTAL: u16 = 32106;

fn torn_inverter() -> (Simulator, std::sync::Arc<SimDevice>) {
    let map = maps().into_iter().find(|m| m.id == MAP).unwrap();
    let dev = std::sync::Arc::new(SimDevice::new(map, 4).unwrap());
    dev.set_torn(Some(STEP));
    (Simulator::new([(1, dev.clone())]), dev)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_simulator_really_serves_torn_counters() {
    // Read directly, without the agent's rule: the device's answers go down and jump by 65 536.
    let (sim, dev) = torn_inverter();
    let addr = serve_tcp(sim).await;
    let mut ctx = tokio_modbus::client::tcp::connect_slave(addr, tokio_modbus::Slave(1))
        .await
        .unwrap();
    let mut values = Vec::new();
    for _ in 0..200 {
        let w = ctx
            .read_holding_registers(ENERGY_TOTAL, 2)
            .await
            .unwrap()
            .unwrap();
        values.push(u64::from(w[0]) << 16 | u64::from(w[1]));
    }
    let dips = values.windows(2).filter(|w| w[1] < w[0]).count();
    let jumps = values.windows(2).filter(|w| w[1] > w[0] + 65_536).count();
    assert!(dips >= 3 && jumps >= 3, "dips {dips}, jumps {jumps}: {values:?}");
    assert!(dev.torn_served() >= 6);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_poller_publishes_no_torn_counter_while_it_crosses_word_boundaries() {
    let (sim, dev) = torn_inverter();
    let addr = serve_tcp(sim).await;
    let map = maps().into_iter().find(|m| m.id == MAP).unwrap();
    let factor = map
        .points
        .iter()
        .find(|p| p.metric == "energy_total")
        .unwrap()
        .factor();
    let mut bus = start_bus(
        Transport::Tcp { address: addr },
        devices(&[map], Duration::from_millis(20)),
        BusPolicy::default(),
    );
    let mut published = Vec::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    while published.len() < 150 && tokio::time::Instant::now() < deadline {
        match tokio::time::timeout(Duration::from_secs(5), bus.events.recv()).await {
            Ok(Some(Event::Reading(r))) => {
                if let Some(Value::Number(x)) = r.values.get("energy_total") {
                    published.push((x / factor).round() as u64);
                }
            }
            Ok(Some(_)) => {}
            _ => break,
        }
    }
    let _ = bus.stop.send(true);
    assert!(published.len() >= 100, "{} readings", published.len());
    let crossed = published.windows(2).filter(|w| w[1] >> 16 != w[0] >> 16).count();
    assert!(crossed >= 20, "the counter crossed {crossed} word boundaries");
    // Between two polls the counter advances a few steps: never down, never a whole word.
    for w in published.windows(2) {
        assert!(
            w[1] >= w[0] && w[1] - w[0] < 65_536,
            "torn value published: {} then {} ({:#x} then {:#x})",
            w[0],
            w[1],
            w[0],
            w[1]
        );
    }
    let served = dev.torn_served();
    let stats = bus.stats.device(&format!("{MAP}#1")).unwrap();
    let rereads = stats.counter_rereads.load(std::sync::atomic::Ordering::Relaxed);
    let requests = bus.stats.requests.load(std::sync::atomic::Ordering::Relaxed);
    eprintln!(
        "{} readings, {crossed} boundaries crossed, {served} torn answers served, {rereads} re-reads in {requests} requests, {} counters left out",
        published.len(),
        stats
            .counters_unconfirmed
            .load(std::sync::atomic::Ordering::Relaxed)
    );
    assert!(served >= 10, "the device tore {served} answers");
    assert!(rereads > 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_device_that_does_not_tear_costs_one_extra_read_per_counter_at_start_only() {
    let map = maps().into_iter().find(|m| m.id == MAP).unwrap();
    let counters = pv_edge::device::Layout::new(&map, &Default::default())
        .counters(&map)
        .len();
    assert!(counters >= 2, "energy_total and energy_today at least");
    let addr = serve_tcp(simulator(std::slice::from_ref(&map), 4)).await;
    let mut bus = start_bus(
        Transport::Tcp { address: addr },
        devices(std::slice::from_ref(&map), Duration::from_millis(20)),
        BusPolicy::default(),
    );
    let mut readings = 0;
    while readings < 50 {
        match tokio::time::timeout(Duration::from_secs(5), bus.events.recv()).await {
            Ok(Some(Event::Reading(_))) => readings += 1,
            Ok(Some(_)) => {}
            _ => break,
        }
    }
    let _ = bus.stop.send(true);
    assert_eq!(readings, 50);
    let stats = bus.stats.device(&format!("{MAP}#1")).unwrap();
    let rereads = stats.counter_rereads.load(std::sync::atomic::Ordering::Relaxed);
    let requests = bus.stats.requests.load(std::sync::atomic::Ordering::Relaxed);
    eprintln!("{readings} readings: {rereads} re-reads in {requests} requests ({counters} counters)");
    assert_eq!(
        rereads as usize, counters,
        "one per counter, at the first reading only"
    );
}
