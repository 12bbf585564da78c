//! Every shipped register map, served by the simulator on a real socket, is polled through the
//! real scheduler and transports and must decode to exactly the values the simulator put there.

mod common;

use std::collections::BTreeMap;
use std::sync::atomic::Ordering;
use std::time::Duration;

use common::*;
use pv_edge::scheduler::{BusPolicy, Event};
use pv_edge::transport::Transport;
use pv_shared::wire::Value;

/// Collects the first reading of every device, or fails after `limit`.
async fn first_readings(
    bus: &mut RunningBus,
    n: usize,
    limit: Duration,
) -> BTreeMap<String, BTreeMap<String, Value>> {
    let mut got = BTreeMap::new();
    let deadline = tokio::time::Instant::now() + limit;
    while got.len() < n {
        match tokio::time::timeout_at(deadline, bus.events.recv()).await {
            Ok(Some(Event::Reading(r))) => {
                got.entry(r.device).or_insert(r.values);
            }
            Ok(Some(Event::Offline { device, reason })) => panic!("{device} went offline: {reason}"),
            Ok(Some(Event::Online { .. })) => {}
            Ok(None) => panic!("bus stopped"),
            Err(_) => panic!(
                "only {} of {n} devices read within {limit:?}: {:?}",
                got.len(),
                got.keys()
            ),
        }
    }
    got
}

fn assert_exact(
    maps: &[std::sync::Arc<pv_shared::regmap::RegisterMap>],
    sim: &pv_edge::sim::Simulator,
    got: &BTreeMap<String, BTreeMap<String, Value>>,
) {
    for (i, m) in maps.iter().enumerate() {
        let unit = (i + 1) as u8;
        let id = format!("{}#{unit}", m.id);
        let expected = sim.unit(unit).unwrap().expected();
        let values = &got[&id];
        assert_eq!(values.len(), m.points.len(), "{id}: every point decoded");
        for (metric, want) in expected {
            assert_eq!(values.get(metric), Some(want), "{id}: {metric}");
        }
    }
}

#[tokio::test]
async fn every_map_decodes_the_simulators_values_exactly_over_modbus_tcp() {
    let maps = maps();
    let sim = simulator(&maps, 11);
    let addr = serve_tcp(sim.clone()).await;
    let mut bus = start_bus(
        Transport::Tcp { address: addr },
        devices(&maps, Duration::from_millis(200)),
        BusPolicy::default(),
    );
    let got = first_readings(&mut bus, maps.len(), Duration::from_secs(20)).await;
    assert_exact(&maps, &sim, &got);
    // Strict simulated devices refuse reads across unmapped registers: none were attempted.
    assert_eq!(bus.stats.exceptions.load(Ordering::Relaxed), 0);
    assert_eq!(bus.stats.decode_errors.load(Ordering::Relaxed), 0);
    let _ = bus.stop.send(true);
}

#[tokio::test]
async fn every_map_decodes_exactly_over_rtu_over_tcp() {
    let maps = maps();
    let sim = simulator(&maps, 23);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(sim.clone().serve_rtu_over_tcp(listener));
    let mut bus = start_bus(
        Transport::RtuOverTcp { address: addr },
        devices(&maps, Duration::from_millis(200)),
        BusPolicy::default(),
    );
    let got = first_readings(&mut bus, maps.len(), Duration::from_secs(20)).await;
    assert_exact(&maps, &sim, &got);
    let _ = bus.stop.send(true);
}

#[tokio::test]
async fn every_map_decodes_exactly_over_rtu_on_a_pseudo_terminal() {
    let maps = maps();
    let sim = simulator(&maps, 37);
    let pty = PtyPair::new().await;
    tokio::spawn(sim.clone().serve_rtu(pty.device_side.clone()));
    let transport = Transport::Rtu {
        path: pty.master_side.to_string_lossy().into_owned(),
        baud: 9600,
        parity: Default::default(),
        stop_bits: 1,
        data_bits: 8,
    };
    let mut bus = start_bus(
        transport,
        devices(&maps, Duration::from_millis(300)),
        BusPolicy::default(),
    );
    let got = first_readings(&mut bus, maps.len(), Duration::from_secs(30)).await;
    assert_exact(&maps, &sim, &got);
    let _ = bus.stop.send(true);
}

#[tokio::test]
async fn a_silent_unit_is_reported_offline_while_its_neighbour_keeps_being_read() {
    let maps = maps();
    let sim = simulator(&maps[..1], 5);
    let addr = serve_tcp(sim).await;
    // Unit 1 exists; unit 9 has nobody behind it.
    let mut devs = devices(&maps[..1], Duration::from_millis(100));
    let mut ghost = devs[0].clone();
    ghost.id = "ghost".into();
    ghost.unit = 9;
    devs.push(ghost);
    let policy = BusPolicy {
        timeout: Duration::from_millis(100),
        retries: 0,
        offline_after: 2,
        backoff_initial: Duration::from_secs(5),
        ..BusPolicy::default()
    };
    let mut bus = start_bus(Transport::Tcp { address: addr }, devs, policy);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    let mut offline = false;
    let mut readings = 0;
    while tokio::time::Instant::now() < deadline && !(offline && readings >= 5) {
        match tokio::time::timeout_at(deadline, bus.events.recv()).await {
            Ok(Some(Event::Offline { device, .. })) => {
                assert_eq!(device, "ghost");
                offline = true;
            }
            Ok(Some(Event::Reading(r))) => {
                assert_ne!(r.device, "ghost");
                readings += 1;
            }
            _ => {}
        }
    }
    assert!(offline, "the silent unit is reported offline");
    assert!(readings >= 5, "the live unit keeps being read ({readings})");
    assert!(bus.stats.timeouts.load(Ordering::Relaxed) >= 2);
    let _ = bus.stop.send(true);
}
