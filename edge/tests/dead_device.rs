//! A dead device on a shared bus must not slow the others: measured, not assumed.
//!
//! Two identical buses run side by side for the same window, each on its own simulator over a
//! real TCP socket: one with three live devices, one with the same three plus a device that
//! never answers. The live devices' poll counts on the second bus must be within 10 % of the
//! first's (and of their configured rate).

mod common;

use std::collections::BTreeMap;
use std::sync::atomic::Ordering;
use std::time::Duration;

use common::*;
use pv_edge::scheduler::{BusPolicy, Event};
use pv_edge::transport::Transport;

const WINDOW: Duration = Duration::from_secs(10);
const INTERVAL: Duration = Duration::from_millis(200);

async fn count_readings(mut bus: RunningBus) -> (BTreeMap<String, u32>, Vec<String>, RunningBus) {
    let mut counts = BTreeMap::new();
    let mut offline = Vec::new();
    let deadline = tokio::time::Instant::now() + WINDOW;
    loop {
        match tokio::time::timeout_at(deadline, bus.events.recv()).await {
            Ok(Some(Event::Reading(r))) => *counts.entry(r.device).or_insert(0) += 1,
            Ok(Some(Event::Offline { device, .. })) => offline.push(device),
            Ok(Some(Event::Online { .. })) => {}
            Ok(None) => panic!("bus stopped"),
            Err(_) => break,
        }
    }
    let _ = bus.stop.send(true);
    (counts, offline, bus)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dead_device_leaves_the_others_poll_rate_within_ten_percent() {
    let all = maps();
    let pick = |id: &str| all.iter().find(|m| m.id == id).cloned().unwrap();
    let live = vec![
        pick("huawei-sun2000-ktl"),
        pick("eastron-sdm630"),
        pick("pv-reference-tracker"),
    ];
    let mut with_dead = live.clone();
    with_dead.push(pick("sungrow-sg-cx"));

    let policy = BusPolicy {
        timeout: Duration::from_millis(150),
        retries: 1,
        offline_after: 2,
        backoff_initial: Duration::from_secs(4),
        backoff_max: Duration::from_secs(120),
    };

    let sim_a = simulator(&live, 1);
    let sim_b = simulator(&with_dead, 1);
    sim_b.unit(4).unwrap().set_dead(true);
    let addr_a = serve_tcp(sim_a).await;
    let addr_b = serve_tcp(sim_b).await;
    let bus_a = start_bus(
        Transport::Tcp { address: addr_a },
        devices(&live, INTERVAL),
        policy.clone(),
    );
    let bus_b = start_bus(
        Transport::Tcp { address: addr_b },
        devices(&with_dead, INTERVAL),
        policy,
    );
    let ((base, off_a, _a), (with, off_b, b)) = tokio::join!(count_readings(bus_a), count_readings(bus_b));

    let configured = (WINDOW.as_secs_f64() / INTERVAL.as_secs_f64()).floor() as u32;
    eprintln!("configured polls per device in {WINDOW:?}: {configured}");
    eprintln!("without dead device: {base:?}");
    eprintln!("with dead device:    {with:?}");
    eprintln!(
        "dead device: timeouts {}, polls failed {}",
        b.stats.timeouts.load(Ordering::Relaxed),
        b.stats
            .device("sungrow-sg-cx#4")
            .unwrap()
            .polls_failed
            .load(Ordering::Relaxed)
    );
    assert!(off_a.is_empty());
    assert_eq!(
        off_b,
        vec!["sungrow-sg-cx#4".to_string()],
        "the dead device is reported offline once"
    );
    assert!(!with.contains_key("sungrow-sg-cx#4"));
    for (device, &n) in &base {
        let m = with.get(device).copied().unwrap_or(0);
        let ratio = f64::from(m) / f64::from(n);
        eprintln!("{device}: {m} vs {n} polls, ratio {ratio:.3}");
        assert!(
            ratio >= 0.9,
            "{device}: {m} polls with a dead device vs {n} without"
        );
        assert!(
            f64::from(n) >= 0.9 * f64::from(configured),
            "{device}: baseline {n} < 90 % of {configured}"
        );
    }
    // Attempts at the dead device: 2 polls before offline, then one per back-off period (4 s, 8 s...).
    let failed = b
        .stats
        .device("sungrow-sg-cx#4")
        .unwrap()
        .polls_failed
        .load(Ordering::Relaxed);
    assert!(
        (2..=4).contains(&failed),
        "{failed} polls of the dead device in {WINDOW:?}"
    );
}
