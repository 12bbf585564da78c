//! The running gateway: polling buses → durable queue → MQTT uplink, with the cloud's
//! commands served in between. `pv-edge run` is this and nothing else.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context;
use pv_shared::wire::{Action, Command, CommandAck};
use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;

use crate::command::{self, Recent, Route, Seen};
use crate::config::GatewayConfig;
use crate::queue::{NewSample, Queue};
use crate::scheduler::{self, BusCommand, BusStats, Event};
use crate::status::StatusBoard;
use crate::{provision, uplink};

/// Samples grouped into one durable write at most (one fsync per group).
const GROUP_COMMIT_MAX: usize = 512;
/// How long the first reading of a group commit waits for others: readings trickle in one by
/// one as devices answer, and a push per reading would cost an fsync and a queue entry each
/// (the queue stores a push as one entry, so replaying and removing it costs one sled key).
/// Short beside a poll interval and the uplink's own linger.
const GROUP_COMMIT_LINGER: std::time::Duration = std::time::Duration::from_millis(200);

/// The polling side of one configuration (replaced as a whole on reload).
struct Polling {
    stop: watch::Sender<bool>,
    tasks: Vec<JoinHandle<()>>,
    routes: Arc<HashMap<String, Route>>,
    /// Each bus's command channel by bus name (commissioning).
    buses: Arc<HashMap<String, mpsc::Sender<BusCommand>>>,
}

fn start_polling(c: &GatewayConfig, events: &mpsc::Sender<Event>, board: &StatusBoard) -> Polling {
    let (stop, stop_rx) = watch::channel(false);
    let mut tasks = Vec::new();
    let mut routes = HashMap::new();
    let mut buses = HashMap::new();
    let mut stats = Vec::new();
    for bus in &c.buses {
        let s = Arc::new(BusStats::new(&bus.devices));
        stats.push((bus.name.clone(), s.clone()));
        let (tx, rx) = mpsc::channel(16);
        buses.insert(bus.name.clone(), tx.clone());
        for d in &bus.devices {
            routes.insert(
                d.id.clone(),
                Route {
                    spec: d.clone(),
                    bus: tx.clone(),
                },
            );
        }
        tasks.push(tokio::spawn(scheduler::run_with_commands(
            bus.clone(),
            s,
            events.clone(),
            stop_rx.clone(),
            Some(rx),
        )));
    }
    board.set_buses(stats);
    Polling {
        stop,
        tasks,
        routes: Arc::new(routes),
        buses: Arc::new(buses),
    }
}

impl Polling {
    async fn stop(self) {
        let _ = self.stop.send(true);
        for t in self.tasks {
            let _ = t.await;
        }
    }
}

/// Stores readings durably as they come, grouping what is already waiting into one write.
fn spawn_store(
    queue: Arc<Queue>,
    board: Arc<StatusBoard>,
    mut rx: mpsc::Receiver<Event>,
    print_stored: bool,
) -> JoinHandle<()> {
    tokio::spawn(async move {
        let mut stdout = std::io::stdout();
        while let Some(first) = rx.recv().await {
            let mut batch = Vec::new();
            let deadline = tokio::time::Instant::now() + GROUP_COMMIT_LINGER;
            let mut next = Some(first);
            while let Some(e) = next {
                match e {
                    Event::Reading(r) => batch.push({
                        // The queue marks them; counted here, where the device is known.
                        board.quality.record(&r.device, &r.values);
                        NewSample {
                            device: r.device,
                            ts: r.ts,
                            values: r.values,
                        }
                    }),
                    Event::Online { device } => tracing::info!(%device, "device online"),
                    Event::Offline { device, reason } => {
                        tracing::warn!(%device, %reason, "device offline")
                    }
                }
                next = if batch.len() < GROUP_COMMIT_MAX {
                    match rx.try_recv() {
                        Ok(e) => Some(e),
                        Err(_) => tokio::time::timeout_at(deadline, rx.recv()).await.ok().flatten(),
                    }
                } else {
                    None
                };
            }
            if batch.is_empty() {
                continue;
            }
            let q = queue.clone();
            match tokio::task::spawn_blocking(move || q.push(batch)).await {
                Ok(Ok(seqs)) => {
                    if print_stored && let (Some(a), Some(b)) = (seqs.first(), seqs.last()) {
                        let _ = writeln!(stdout, "stored {a}-{b}");
                        let _ = stdout.flush();
                    }
                }
                Ok(Err(e)) => tracing::error!(%e, "queue write failed; readings lost"),
                Err(e) => tracing::error!(%e, "queue writer panicked"),
            }
        }
    })
}

/// What changed between two configurations that a reload cannot apply.
fn needs_restart(old: &GatewayConfig, new: &GatewayConfig) -> Vec<&'static str> {
    let mut out = Vec::new();
    if old.gateway_id != new.gateway_id {
        out.push("gateway_id");
    }
    if old.data_dir != new.data_dir {
        out.push("data_dir");
    }
    if old.queue_max_samples != new.queue_max_samples {
        out.push("queue");
    }
    if old.uplink != new.uplink {
        out.push("mqtt");
    }
    out
}

/// Runs the gateway until `shutdown` completes.
pub async fn run(
    config_path: PathBuf,
    print_stored: bool,
    shutdown: impl std::future::Future<Output = ()>,
) -> anyhow::Result<()> {
    let mut config = GatewayConfig::load(&config_path)?;
    std::fs::create_dir_all(&config.data_dir)
        .with_context(|| format!("data dir {}", config.data_dir.display()))?;
    let queue = Arc::new(Queue::open(
        &config.data_dir.join("queue"),
        config.queue_max_samples,
    )?);
    let gateway = config.gateway_id.clone();
    tracing::info!(%gateway, queue = ?queue.stats(), uplink = config.uplink.is_some(), "pv-edge running");
    let board = Arc::new(StatusBoard::new(&gateway, queue.clone()));

    let (events_tx, events_rx) = mpsc::channel::<Event>(4096);
    let store = spawn_store(queue.clone(), board.clone(), events_rx, print_stored);
    let mut polling = start_polling(&config, &events_tx, &board);

    let (stop_tx, stop_rx) = watch::channel(false);
    let (commands_tx, mut commands) = mpsc::channel::<Command>(64);
    let (answers_tx, answers_rx) = mpsc::channel::<CommandAck>(64);
    let uplink_task = config.uplink.clone().map(|cfg| {
        tokio::spawn(uplink::run(
            cfg,
            gateway.clone(),
            queue.clone(),
            board.clone(),
            commands_tx.clone(),
            answers_rx,
            stop_rx.clone(),
        ))
    });
    drop(commands_tx);

    // Answers of device commands running in their own tasks come back here to be remembered.
    let (done_tx, mut done) = mpsc::channel::<CommandAck>(64);
    let mut recent = Recent::default();
    tokio::pin!(shutdown);
    loop {
        tokio::select! {
            _ = &mut shutdown => break,
            Some(a) = done.recv() => {
                recent.done(&a);
                let _ = answers_tx.send(a).await;
            }
            Some(c) = commands.recv() => {
                match recent.check(&c.id) {
                    Seen::Running => continue,
                    Seen::Answered(a) => {
                        let _ = answers_tx.send(a).await;
                        continue;
                    }
                    Seen::New => {}
                }
                tracing::info!(id = %c.id, action = ?c.action, "command");
                match c.action {
                    Action::ReloadConfig => {
                        let result = reload(&config_path, &mut config, &mut polling, &events_tx, &board).await;
                        if let Err(e) = &result {
                            tracing::warn!(id = %c.id, %e, "reload refused");
                        }
                        let a = command::answer(&gateway, &c.id, result);
                        recent.done(&a);
                        let _ = answers_tx.send(a).await;
                    }
                    Action::Inventory => {
                        let mut a = command::answer(&gateway, &c.id, Ok(format!("{} buses", config.buses.len())));
                        a.inventory = Some(Box::new(provision::inventory(&config)));
                        recent.done(&a);
                        let _ = answers_tx.send(a).await;
                    }
                    Action::AddDevice { bus, id, unit, map, interval_ms } => {
                        // Like a reload, it runs here, one at a time: two additions racing on
                        // the file would lose one.
                        let p = config_path.clone();
                        let device_id = id.clone();
                        let added = tokio::task::spawn_blocking(move || {
                            let new = provision::NewDevice { bus: &bus, id: &id, unit, map: &map, interval_ms };
                            provision::add_device(&p, &new).map(|_| format!("added {} (unit {unit}, {}) to bus {}", new.id, new.map, new.bus))
                        })
                        .await
                        .unwrap_or_else(|e| Err(e.to_string()));
                        let result = match added {
                            Ok(what) => reload(&config_path, &mut config, &mut polling, &events_tx, &board)
                                .await
                                .map(|r| format!("{what}; {r}")),
                            Err(e) => Err(e),
                        };
                        if let Err(e) = &result {
                            tracing::warn!(id = %c.id, device = %device_id, %e, "device not added");
                        }
                        let a = command::answer(&gateway, &c.id, result);
                        recent.done(&a);
                        let _ = answers_tx.send(a).await;
                    }
                    action @ (Action::ScanBus { .. } | Action::ProbeUnit { .. }) => {
                        let buses = polling.buses.clone();
                        let maps = config.maps.clone();
                        let (gateway, done_tx) = (gateway.clone(), done_tx.clone());
                        tokio::spawn(async move {
                            let a = command::run_commission_command(&gateway, &c.id, &buses, &maps, action).await;
                            let _ = done_tx.send(a).await;
                        });
                    }
                    action => {
                        let routes = polling.routes.clone();
                        let (gateway, done_tx) = (gateway.clone(), done_tx.clone());
                        tokio::spawn(async move {
                            let a = command::run_device_command(&gateway, &c.id, &routes, action).await;
                            let _ = done_tx.send(a).await;
                        });
                    }
                }
            }
        }
    }
    tracing::info!("stopping");
    polling.stop().await;
    drop(events_tx);
    let _ = store.await;
    // The uplink goes last, so the shutdown status reports the final queue depth.
    let _ = stop_tx.send(true);
    if let Some(t) = uplink_task {
        match t.await {
            Ok(Err(e)) => tracing::error!(%e, "uplink"),
            Err(e) => tracing::error!(%e, "uplink task"),
            Ok(Ok(())) => {}
        }
    }
    Ok(())
}

async fn reload(
    path: &Path,
    config: &mut GatewayConfig,
    polling: &mut Polling,
    events: &mpsc::Sender<Event>,
    board: &StatusBoard,
) -> Result<String, String> {
    let p = path.to_path_buf();
    let new = tokio::task::spawn_blocking(move || GatewayConfig::load(&p))
        .await
        .map_err(|e| e.to_string())?
        .map_err(|e| e.to_string())?;
    let restart = needs_restart(config, &new);
    // The old buses stop first: a serial line must not have two masters, even for a moment.
    let old = std::mem::replace(
        polling,
        Polling {
            stop: watch::channel(false).0,
            tasks: Vec::new(),
            routes: Arc::new(HashMap::new()),
            buses: Arc::new(HashMap::new()),
        },
    );
    old.stop().await;
    *polling = start_polling(&new, events, board);
    let devices: usize = new.buses.iter().map(|b| b.devices.len()).sum();
    let mut message = format!("reloaded: {} buses, {devices} devices", new.buses.len());
    if !restart.is_empty() {
        message += &format!("; changes to {} take effect after a restart", restart.join(", "));
    }
    *config = new;
    Ok(message)
}
