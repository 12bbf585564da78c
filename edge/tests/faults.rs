//! Faults on the line are counted and survived, never fatal, and never turn into wrong values:
//! a corrupted RS-485 line (real pseudo-terminals with a corrupting relay between them) and a
//! device that refuses part of what the map asks for (Modbus exception).

mod common;

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use common::*;
use pv_edge::scheduler::{BusPolicy, Event};
use pv_edge::transport::{Parity, Transport};
use pv_shared::regmap::{Location, RegisterMap};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_serial::SerialPortBuilderExt;

fn rtu(path: &std::path::Path) -> Transport {
    Transport::Rtu {
        path: path.to_string_lossy().into_owned(),
        baud: 9600,
        parity: Parity::None,
        stop_bits: 1,
        data_bits: 8,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_corrupting_serial_line_costs_retries_but_never_yields_a_wrong_value() {
    let all = maps();
    let pick: Vec<_> = ["eastron-sdm630", "pv-reference-tracker"]
        .iter()
        .map(|id| all.iter().find(|m| &m.id == id).cloned().unwrap())
        .collect();
    let sim = simulator(&pick, 9);
    // poller <-> [pty pair 1] <-> relay <-> [pty pair 2] <-> simulator
    let line_a = PtyPair::new().await;
    let line_b = PtyPair::new().await;
    tokio::spawn(sim.clone().serve_rtu(line_b.device_side.clone()));
    let mut to_poller = tokio_serial::new(line_a.device_side.to_string_lossy(), 9600)
        .open_native_async()
        .unwrap();
    let mut to_device = tokio_serial::new(line_b.master_side.to_string_lossy(), 9600)
        .open_native_async()
        .unwrap();
    tokio::spawn(async move {
        let (mut a, mut b) = ([0u8; 512], [0u8; 512]);
        let mut answers = 0u64;
        loop {
            tokio::select! {
                n = to_poller.read(&mut a) => {
                    let Ok(n) = n else { break };
                    if to_device.write_all(&a[..n]).await.is_err() { break; }
                }
                n = to_device.read(&mut b) => {
                    let Ok(n) = n else { break };
                    answers += 1;
                    // Every third chunk of answer gets a flipped bit: a CRC error for the poller.
                    if answers.is_multiple_of(3) && n > 0 {
                        b[n / 2] ^= 0x10;
                    }
                    if to_poller.write_all(&b[..n]).await.is_err() { break; }
                }
            }
        }
    });
    let policy = BusPolicy {
        timeout: Duration::from_millis(150),
        retries: 3,
        ..BusPolicy::default()
    };
    let mut bus = start_bus(
        rtu(&line_a.master_side),
        devices(&pick, Duration::from_millis(100)),
        policy,
    );
    let mut readings = 0;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(8);
    while readings < 20 {
        match tokio::time::timeout_at(deadline, bus.events.recv()).await {
            Ok(Some(Event::Reading(r))) => {
                let unit: u8 = r.device.rsplit('#').next().unwrap().parse().unwrap();
                let expected = sim.unit(unit).unwrap().expected();
                for (metric, v) in &r.values {
                    assert_eq!(Some(v), expected.get(metric), "{}: {metric} corrupted", r.device);
                }
                readings += 1;
            }
            Ok(Some(_)) => {}
            Ok(None) => panic!("bus stopped"),
            Err(_) => break,
        }
    }
    let s = &bus.stats;
    let faults = s.timeouts.load(Ordering::Relaxed) + s.transport_errors.load(Ordering::Relaxed);
    eprintln!(
        "readings {readings}, requests {}, timeouts {}, transport errors {}",
        s.requests.load(Ordering::Relaxed),
        s.timeouts.load(Ordering::Relaxed),
        s.transport_errors.load(Ordering::Relaxed)
    );
    assert!(
        readings >= 20,
        "only {readings} good readings through the noisy line"
    );
    assert!(faults > 0, "the corruption was noticed and counted");
    let _ = bus.stop.send(true);
}

#[tokio::test]
async fn a_refused_block_is_counted_and_the_rest_of_the_device_still_reads() {
    let all = maps();
    let served = all
        .iter()
        .find(|m| m.id == "huawei-sun2000-ktl")
        .cloned()
        .unwrap();
    // The poller's map asks for one more point than this (older firmware) device has.
    let mut asked: RegisterMap = (*served).clone();
    let mut extra = asked
        .points
        .iter()
        .find(|p| p.metric == "fault_code")
        .cloned()
        .unwrap();
    extra.metric = "warning_code".into();
    extra.location = Location::Absolute(35000);
    asked.points.push(extra);
    let sim = simulator(std::slice::from_ref(&served), 4);
    let addr = serve_tcp(sim.clone()).await;
    let mut bus = start_bus(
        Transport::Tcp { address: addr },
        devices(&[Arc::new(asked)], Duration::from_millis(100)),
        BusPolicy::default(),
    );
    let r = loop {
        match tokio::time::timeout(Duration::from_secs(5), bus.events.recv()).await {
            Ok(Some(Event::Reading(r))) => break r,
            Ok(Some(Event::Offline { reason, .. })) => panic!("offline: {reason}"),
            Ok(Some(_)) => {}
            other => panic!("{other:?}"),
        }
    };
    assert!(!r.values.contains_key("warning_code"));
    assert_eq!(&r.values, sim.unit(1).unwrap().expected());
    assert!(bus.stats.exceptions.load(Ordering::Relaxed) >= 1);
    let _ = bus.stop.send(true);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn injected_timeouts_and_exceptions_are_counted_and_never_yield_a_wrong_value() {
    let all = maps();
    let meter = all.iter().find(|m| m.id == "eastron-sdm630").cloned().unwrap();
    let sim = simulator(std::slice::from_ref(&meter), 6);
    sim.unit(1).unwrap().set_timeouts(0.2);
    sim.unit(1).unwrap().set_exceptions(0.1);
    let addr = serve_tcp(sim.clone()).await;
    let policy = BusPolicy {
        timeout: Duration::from_millis(100),
        retries: 2,
        offline_after: 5,
        ..BusPolicy::default()
    };
    let mut bus = start_bus(
        Transport::Tcp { address: addr },
        devices(&[meter], Duration::from_millis(50)),
        policy,
    );
    let expected = sim.unit(1).unwrap().expected().clone();
    let mut readings = 0;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while readings < 20 {
        match tokio::time::timeout_at(deadline, bus.events.recv()).await {
            Ok(Some(Event::Reading(r))) => {
                for (metric, v) in &r.values {
                    assert_eq!(Some(v), expected.get(metric), "{metric}");
                }
                readings += 1;
            }
            Ok(Some(_)) => {}
            _ => break,
        }
    }
    let s = &bus.stats;
    eprintln!(
        "readings {readings}, requests {}, timeouts {}, exceptions {}",
        s.requests.load(Ordering::Relaxed),
        s.timeouts.load(Ordering::Relaxed),
        s.exceptions.load(Ordering::Relaxed)
    );
    assert!(readings >= 20);
    assert!(s.timeouts.load(Ordering::Relaxed) > 0);
    assert!(s.exceptions.load(Ordering::Relaxed) > 0);
    let _ = bus.stop.send(true);
}
