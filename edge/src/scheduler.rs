//! One polling task per bus.
//!
//! A bus (a serial line or one TCP endpoint) carries one request at a time: RS-485 is
//! half-duplex with a single master, and serial device servers queue requests anyway. The task
//! polls the device that is due next, reading its blocks one after the other. A device that
//! stops answering costs the bus one timeout per attempt, so after `offline_after` failed polls
//! it is reported offline and only retried after an exponentially growing back-off (up to
//! `backoff_max`): a dead device then takes at most one poll's worth of timeouts per back-off
//! period from the devices that still answer. The cloud's commands for a device on the bus
//! (read now, write a set-point) are served between polls, never interleaved with one.

mod bus;
mod messages;
mod policy;
mod session;
mod stats;

use std::sync::Arc;
use std::sync::atomic::Ordering;

use tokio::sync::{mpsc, watch};
use tokio::time::Instant;

use crate::clock::now_ms;
use crate::counters::Published;
use crate::guard::Guard;
use bus::{Bus, DeviceState, serve_command};
use stats::bump;

pub use messages::{BusCommand, Event, Reading};
pub use policy::{BusConfig, BusPolicy};
pub use session::Session;
pub use stats::{BusStats, DeviceStats};

/// Runs a bus until `stop` turns true (or its receiver is dropped). Events go to `events`; if
/// the receiver is gone, the bus stops too.
pub async fn run(
    config: BusConfig,
    stats: Arc<BusStats>,
    events: mpsc::Sender<Event>,
    stop: watch::Receiver<bool>,
) {
    run_with_commands(config, stats, events, stop, None).await
}

async fn next_command(commands: &mut Option<mpsc::Receiver<BusCommand>>) -> Option<BusCommand> {
    match commands {
        Some(rx) => rx.recv().await,
        None => std::future::pending().await,
    }
}

async fn sleep_until_some(due: Option<Instant>) {
    match due {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

/// `run`, also serving `commands` between polls.
pub async fn run_with_commands(
    config: BusConfig,
    stats: Arc<BusStats>,
    events: mpsc::Sender<Event>,
    mut stop: watch::Receiver<bool>,
    mut commands: Option<mpsc::Receiver<BusCommand>>,
) {
    let start = Instant::now();
    let mut devices: Vec<DeviceState> = config
        .devices
        .iter()
        .enumerate()
        .map(|(index, spec)| DeviceState {
            spec: spec.clone(),
            index,
            layout: None,
            next_due: start,
            failures: 0,
            online: false,
            guard: Guard::default(),
            counters: Published::default(),
        })
        .collect();
    let mut bus = Bus {
        name: config.name.clone(),
        transport: config.transport.clone(),
        policy: config.policy.clone(),
        ctx: None,
        stats: stats.clone(),
    };
    // A bus without devices still serves commands: it is where an installer scans for them.
    if devices.is_empty() && commands.is_none() {
        return;
    }
    loop {
        // The device due first; ties go to configuration order.
        let next = (0..devices.len()).min_by_key(|&i| (devices[i].next_due, i));
        let due = next.map(|i| devices[i].next_due);
        tokio::select! {
            // A device that is due goes before a waiting command, so a long run of commands (a
            // scan's slices) never starves the bus's own devices.
            biased;
            r = stop.changed() => {
                if r.is_err() || *stop.borrow() { return; }
                continue;
            }
            _ = sleep_until_some(due) => {}
            c = next_command(&mut commands) => {
                match c {
                    Some(command) => {
                        if !serve_command(&mut bus, &mut devices, &stats, &events, command).await {
                            return;
                        }
                    }
                    None => commands = None,
                }
                continue;
            }
        }
        if *stop.borrow() {
            return;
        }
        let (Some(i), Some(due)) = (next, due) else {
            continue;
        };
        let dev = &mut devices[i];
        let result = bus.poll(dev).await;
        let now = Instant::now();
        let dstats = &stats.devices[dev.index].1;
        let event = match result {
            Ok(values) => {
                bump(&dstats.polls_ok);
                dev.failures = 0;
                // Fixed-rate schedule; after a delay, poll once at once and drop the missed slots.
                let next = due + dev.spec.interval;
                dev.next_due = if next < now { now } else { next };
                let mut out = Vec::new();
                if !dev.online {
                    dev.online = true;
                    dstats.online.store(true, Ordering::Relaxed);
                    out.push(Event::Online {
                        device: dev.spec.id.clone(),
                    });
                }
                if !values.is_empty() {
                    out.push(Event::Reading(Reading {
                        device: dev.spec.id.clone(),
                        ts: now_ms(),
                        values,
                    }));
                }
                out
            }
            Err(reason) => {
                bump(&dstats.polls_failed);
                dev.failures += 1;
                // After a silence a counter may have moved by a whole word: re-read it first.
                dev.counters = Published::default();
                let mut out = Vec::new();
                if dev.failures < bus.policy.offline_after {
                    dev.next_due = now + dev.spec.interval;
                } else {
                    let doublings = (dev.failures - bus.policy.offline_after).min(20);
                    let backoff = bus
                        .policy
                        .backoff_initial
                        .saturating_mul(1 << doublings)
                        .min(bus.policy.backoff_max);
                    dev.next_due = now + backoff.max(dev.spec.interval);
                    if dev.online || dev.failures == bus.policy.offline_after {
                        tracing::warn!(bus = %bus.name, device = %dev.spec.id, %reason, ?backoff, "device offline");
                        dev.online = false;
                        dstats.online.store(false, Ordering::Relaxed);
                        // Rediscover when it comes back: it may have been replaced.
                        dev.layout = None;
                        out.push(Event::Offline {
                            device: dev.spec.id.clone(),
                            reason,
                        });
                    }
                }
                out
            }
        };
        for e in event {
            if events.send(e).await.is_err() {
                return;
            }
        }
    }
}
