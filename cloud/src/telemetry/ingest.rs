//! Ingest: gateway messages → validated samples → realtime view → database → acknowledgement.
//!
//! One task reads the broker and checks each message (size, version, shape, that topic and
//! payload name the same gateway, that the gateway is provisioned, each sample's device and
//! time). The newest accepted sample of each device in the batch goes into the realtime view at
//! once, before storage, so live screens do not wait behind the batches queued for the
//! database (at saturation that queue alone is seconds long). Accepted batches then wait in a
//! bounded queue (`inflight_batches`) for the writers, which store groups of batches in one
//! transaction and only then publish each batch's `Ack`. A batch whose store failed is not
//! acknowledged: the gateway keeps its samples and sends them again, and the view, which only
//! moves forward in time per device (`RealtimeView::apply` ignores older samples), is merely
//! ahead of the database until the resend is stored. While the database is slow or down the
//! queue fills, the reader waits, and the broker holds (or, beyond its segments, drops) what
//! follows — nothing is lost, because nothing unstored was acknowledged. Batches whose samples
//! were all refused are acknowledged (they can never become valid) and counted.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use pv_shared::topics::{self, Kind};
use pv_shared::wire::{self, CommandAck, GatewayStatus, WireError};
use tokio::sync::{Mutex as AsyncMutex, mpsc};

use super::broker::{Downlink, Incoming};
use super::presence::Presence;
use super::realtime::DeviceLive;
use super::registry::{GatewayEntry, Registry};
use super::stats::{Reason, Stats};
use super::store::{self, LatestRow, RawRow};
use super::store_pg;
use crate::config::TelemetryConfig;
use crate::kernel::db::Backend;
use crate::kernel::time;
use crate::telemetry::context::TelemetryCtx;
use crate::telemetry::events::{Event, SampleIn};

/// Rollup buckets are 5 minutes.
pub const BUCKET_MS: i64 = 5 * 60 * 1000;

/// A checked batch waiting to be stored.
pub(super) struct Prepared {
    pub(super) gateway: Arc<GatewayEntry>,
    /// When the batch reached the hub: its acknowledgement's latency is measured from here.
    pub(super) received: std::time::Instant,
    pub(super) ack: Ack,
    pub(super) samples: Vec<Accepted>,
}

/// Who is told once a batch is stored.
pub(super) enum Ack {
    /// A gateway: the topic and payload of its MQTT acknowledgement.
    Mqtt(String, Vec<u8>),
    /// A caller inside the hub (`telemetry::direct`): a batch whose store failed drops the
    /// sender, so the caller sees it was not stored.
    Stored(tokio::sync::oneshot::Sender<()>),
}

pub(super) struct Accepted {
    pub(super) device_id: i64,
    pub(super) kind: &'static str,
    pub(super) ts: i64,
    pub(super) seq: i64,
    pub(super) metrics: String,
    /// Marked values (JSON), `None` when the sample has none.
    pub(super) suspect: Option<String>,
    /// Kept for the alarm engine, which evaluates every stored sample.
    pub(super) values: BTreeMap<String, wire::Value>,
    pub(super) suspect_values: BTreeMap<String, wire::Value>,
}

pub struct Ingest {
    pub(super) state: TelemetryCtx,
    pub(super) cfg: TelemetryConfig,
    pub registry: Arc<Registry>,
    pub stats: Arc<Stats>,
    pub presence: Arc<Presence>,
    /// Taken at shutdown (`drain`): the writers store what is queued, then end.
    pub(super) queue: std::sync::Mutex<Option<mpsc::Sender<Prepared>>>,
    writers: AsyncMutex<Vec<tokio::task::JoinHandle<()>>>,
}

impl Ingest {
    /// Starts the writers; messages are then handed to `handle` (see `run`).
    pub fn start(
        state: TelemetryCtx,
        registry: Arc<Registry>,
        stats: Arc<Stats>,
        presence: Arc<Presence>,
        downlink: Downlink,
    ) -> Arc<Ingest> {
        let cfg = state.config.telemetry.clone();
        let (queue, rx) = mpsc::channel(cfg.inflight_batches);
        let rx = Arc::new(AsyncMutex::new(rx));
        let writers = match (cfg.writers, state.db.backend()) {
            (0, Backend::Sqlite) => 1,
            (0, Backend::Postgres) => 4,
            (n, _) => n,
        };
        state.meter.writer_queue_capacity.set(cfg.inflight_batches as i64);
        let writers = (0..writers)
            .map(|_| {
                let w = Writer {
                    state: state.clone(),
                    cfg: cfg.clone(),
                    stats: stats.clone(),
                    downlink: downlink.clone(),
                    rx: rx.clone(),
                };
                tokio::spawn(w.run())
            })
            .collect();
        Arc::new(Ingest {
            state,
            cfg,
            registry,
            stats,
            presence,
            queue: std::sync::Mutex::new(Some(queue)),
            writers: AsyncMutex::new(writers),
        })
    }

    /// Reads the broker until it closes or the hub stops. What the broker still holds then is
    /// not acknowledged, so the gateways send it again after the restart.
    pub async fn run(self: Arc<Self>, mut incoming: mpsc::Receiver<Incoming>) {
        loop {
            let msg = tokio::select! {
                biased;
                _ = self.state.shutdown.stopping() => return,
                msg = incoming.recv() => msg,
            };
            let Some(msg) = msg else { break };
            self.handle(msg).await;
        }
        tracing::warn!("the broker connection of ingest ended");
    }

    /// At shutdown, once the reader has stopped: the writers store and acknowledge every batch
    /// already queued, then end.
    pub async fn drain(&self) {
        self.queue.lock().unwrap_or_else(|p| p.into_inner()).take();
        for w in self.writers.lock().await.drain(..) {
            let _ = w.await;
        }
    }

    /// Checks one message and queues what is to be stored. Never fails: whatever is wrong with
    /// a message is counted against its gateway (or as unattributed) and logged.
    pub async fn handle(&self, msg: Incoming) {
        let Some((gateway, kind)) = topics::parse(&msg.topic) else {
            self.unattributed(&msg.topic, "topic outside the layout");
            return;
        };
        if !matches!(kind, Kind::Telemetry | Kind::Status | Kind::CommandAck) {
            return;
        }
        let entry = match self.registry.gateway(gateway).await {
            Ok(Some(e)) => e,
            Ok(None) => {
                self.unattributed(&msg.topic, "no station has this gateway id");
                return;
            }
            Err(e) => {
                // Not acknowledged: the gateway sends it again.
                tracing::warn!(gateway, error = %e, "registry lookup failed");
                return;
            }
        };
        match kind {
            Kind::Telemetry => self.telemetry(entry, &msg.payload).await,
            Kind::Status => self.status(entry, &msg.payload).await,
            Kind::CommandAck => self.command_ack(&entry, &msg.payload),
            _ => {}
        }
    }

    fn unattributed(&self, topic: &str, why: &str) {
        self.stats
            .unattributed
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.state.meter.refuse(crate::kernel::meter::UNATTRIBUTED, 1);
        tracing::debug!(topic = %topic.chars().take(200).collect::<String>(), why, "message refused");
    }

    fn refuse_wire(&self, gateway: &str, e: &WireError) {
        let reason = match e {
            WireError::TooLarge(_) => Reason::Oversized,
            WireError::Version(_) | WireError::Binary(wire::binary::BinaryError::Version(_)) => {
                Reason::WrongVersion
            }
            _ => Reason::Malformed,
        };
        let detail: String = e.to_string().chars().take(200).collect();
        tracing::debug!(gateway, %detail, "payload refused");
        self.stats.reject(gateway, reason, 1, detail);
    }

    /// A gateway's answer to a command goes to whoever waits for it (`telemetry::commands`).
    fn command_ack(&self, entry: &GatewayEntry, payload: &[u8]) {
        let ack = match wire::parse::<CommandAck>(payload) {
            Ok(a) => a,
            Err(e) => return self.refuse_wire(&entry.gateway_id, &e),
        };
        if ack.gateway != entry.gateway_id {
            self.stats.reject(
                &entry.gateway_id,
                Reason::GatewayMismatch,
                1,
                format!("command answer names gateway {}", ack.gateway),
            );
            return;
        }
        self.state.commands.answered(&entry.gateway_id, ack);
    }

    async fn status(&self, entry: Arc<GatewayEntry>, payload: &[u8]) {
        // An empty retained payload clears the topic: nothing to record.
        if payload.is_empty() {
            return;
        }
        let status = match wire::parse::<GatewayStatus>(payload) {
            Ok(s) => s,
            Err(e) => return self.refuse_wire(&entry.gateway_id, &e),
        };
        if status.gateway != entry.gateway_id {
            self.stats.reject(
                &entry.gateway_id,
                Reason::GatewayMismatch,
                1,
                format!("status names gateway {}", status.gateway),
            );
            return;
        }
        let born = status.kind == wire::StatusKind::Birth;
        self.presence.status(&entry, status).await;
        if born {
            self.state.commands.gateway_ready(&entry.gateway_id).await;
        }
    }

    async fn telemetry(&self, mut entry: Arc<GatewayEntry>, payload: &[u8]) {
        let received = std::time::Instant::now();
        // JSON or the binary encoding, told apart by the first byte (`wire::Encoding`).
        let encoding = wire::Encoding::of(payload);
        self.state.meter.uplink(encoding.as_str(), payload.len());
        let batch = match wire::parse_batch(payload) {
            Ok(b) => b,
            Err(e) => return self.refuse_wire(&entry.gateway_id, &e),
        };
        self.stats.uplink(
            &entry.gateway_id,
            encoding.as_str(),
            payload.len(),
            batch.samples.len(),
        );
        if batch.gateway != entry.gateway_id {
            self.stats.reject(
                &entry.gateway_id,
                Reason::GatewayMismatch,
                1,
                format!("batch {} names gateway {}", batch.batch, batch.gateway),
            );
            return;
        }
        self.presence.seen(&entry).await;
        let ack_message = batch.ack();
        let now = time::now_ms();
        let newest = now + self.cfg.future_margin_seconds * 1000;
        let oldest = now - self.cfg.past_horizon_days * 86_400_000;
        let mut refreshed = false;
        let mut samples: Vec<Accepted> = Vec::with_capacity(batch.samples.len());
        // Device → index in `samples` of its newest sample in this batch.
        let mut newest_of: HashMap<i64, usize> = HashMap::new();
        for mut s in batch.samples {
            // A gateway that predates quality marks sends implausible values unmarked: marked
            // here by the same rule, so the stored mark is the only thing later stages consult.
            s.mark_implausible();
            let device = s.device.trim();
            let mut known = entry.devices.get(device).cloned();
            if known.is_none() && !refreshed {
                // A device added since the cache was filled is found by one reload.
                refreshed = true;
                if let Ok(Some(e)) = self.registry.refresh_for_unknown(&entry.gateway_id).await {
                    entry = e;
                    known = entry.devices.get(device).cloned();
                }
            }
            let Some(dev) = known else {
                self.stats.reject(
                    &entry.gateway_id,
                    Reason::UnknownDevice,
                    1,
                    format!("device {}", device.chars().take(64).collect::<String>()),
                );
                continue;
            };
            if s.ts > newest || s.ts < oldest {
                self.stats.reject(
                    &entry.gateway_id,
                    Reason::TimeOutOfRange,
                    1,
                    format!(
                        "device {device} sample {} at {} is {} the accepted window",
                        s.seq,
                        s.ts,
                        if s.ts > newest { "ahead of" } else { "older than" }
                    ),
                );
                continue;
            }
            let suspect = if s.suspect.is_empty() {
                Ok(None)
            } else {
                serde_json::to_string(&s.suspect).map(Some)
            };
            let (metrics, suspect) = match (serde_json::to_string(&s.values), suspect) {
                (Ok(m), Ok(q)) => (m, q),
                _ => {
                    self.stats
                        .reject(&entry.gateway_id, Reason::Malformed, 1, "values");
                    continue;
                }
            };
            // Only the newest sample of each device in the batch reaches the view.
            match newest_of.get(&dev.device_id) {
                Some(&held) if samples[held].ts >= s.ts => {}
                _ => {
                    newest_of.insert(dev.device_id, samples.len());
                }
            }
            samples.push(Accepted {
                device_id: dev.device_id,
                kind: dev.kind,
                ts: s.ts,
                seq: i64::try_from(s.seq).unwrap_or(i64::MAX),
                metrics,
                suspect,
                values: s.values,
                suspect_values: s.suspect,
            });
        }
        // Live now, stored (and acknowledged) by the writers: see the module note.
        self.presence.samples(newest_of.keys().copied());
        for (device_id, i) in newest_of {
            let s = &samples[i];
            self.state.realtime.apply(DeviceLive {
                device_id,
                tenant_id: entry.tenant_id.clone(),
                station_id: entry.station_id,
                kind: s.kind.to_owned(),
                gateway_id: entry.gateway_id.clone(),
                ts: s.ts,
                values: s.values.clone(),
                suspect: s.suspect_values.clone(),
                online: true,
            });
        }
        let ack = match (topics::ack(&entry.gateway_id), wire::to_bytes(&ack_message)) {
            (Ok(t), Ok(p)) => Ack::Mqtt(t, p),
            _ => return,
        };
        self.enqueue(Prepared {
            gateway: entry,
            received,
            ack,
            samples,
        })
        .await;
    }

    /// Hands a checked batch to the writers. Waiting here when the queue is full is the
    /// back-pressure (see the module note).
    pub(super) async fn enqueue(&self, prepared: Prepared) {
        let queue = self.queue.lock().unwrap_or_else(|p| p.into_inner()).clone();
        if let Some(queue) = queue {
            // Counted from before the send, so a batch waiting for room shows as queued; the
            // writers take off what they take (atomic adds: no stale value survives a race).
            let depth = &self.state.meter.writer_queue_depth;
            depth.inc();
            if queue.send(prepared).await.is_err() {
                depth.dec();
            }
        }
    }

    pub fn state(&self) -> &TelemetryCtx {
        &self.state
    }
}

struct Writer {
    state: TelemetryCtx,
    cfg: TelemetryConfig,
    stats: Arc<Stats>,
    downlink: Downlink,
    rx: Arc<AsyncMutex<mpsc::Receiver<Prepared>>>,
}

/// Attempts per group before it is given up (unacknowledged: the gateways resend it).
const STORE_ATTEMPTS: u32 = 4;

impl Writer {
    async fn run(self) {
        let mut failures: u32 = 0;
        loop {
            let group = {
                let mut rx = self.rx.lock().await;
                let Some(first) = rx.recv().await else {
                    return;
                };
                let mut group = vec![first];
                while group.len() < self.cfg.write_group_batches {
                    match rx.try_recv() {
                        Ok(p) => group.push(p),
                        Err(_) => break,
                    }
                }
                self.state.meter.writer_queue_depth.dec_by(group.len() as i64);
                group
            };
            if self.write(group).await {
                failures = 0;
            } else {
                // The database is failing: slow down so the queue fills and the reader stops.
                failures = failures.saturating_add(1);
                tokio::time::sleep(Duration::from_millis(250 * u64::from(failures.min(20)))).await;
            }
        }
    }

    /// Stores a group, then acknowledges; false when the store failed.
    async fn write(&self, group: Vec<Prepared>) -> bool {
        let now = time::now_ms();
        let mut raws = Vec::new();
        let mut latest: HashMap<i64, (usize, usize)> = HashMap::new();
        let mut dirty = HashSet::new();
        for (gi, p) in group.iter().enumerate() {
            for (si, s) in p.samples.iter().enumerate() {
                raws.push(RawRow {
                    device_id: s.device_id,
                    ts: s.ts,
                    tenant_id: p.gateway.tenant_id.clone(),
                    station_id: p.gateway.station_id,
                    seq: s.seq,
                    metrics: s.metrics.clone(),
                    suspect: s.suspect.clone(),
                });
                dirty.insert((s.device_id, s.ts.div_euclid(BUCKET_MS) * BUCKET_MS));
                match latest.get(&s.device_id) {
                    Some(&(g, i)) if group[g].samples[i].ts >= s.ts => {}
                    _ => {
                        latest.insert(s.device_id, (gi, si));
                    }
                }
            }
        }
        let latest_rows: Vec<LatestRow> = latest
            .values()
            .map(|&(g, i)| {
                let (p, s) = (&group[g], &group[g].samples[i]);
                LatestRow {
                    device_id: s.device_id,
                    tenant_id: p.gateway.tenant_id.clone(),
                    station_id: p.gateway.station_id,
                    kind: s.kind,
                    gateway_id: p.gateway.gateway_id.clone(),
                    ts: s.ts,
                    metrics: s.metrics.clone(),
                    suspect: s.suspect.clone(),
                }
            })
            .collect();
        let dirty: Vec<(i64, i64)> = dirty.into_iter().collect();
        if !raws.is_empty() {
            let mut attempt = 0;
            loop {
                attempt += 1;
                let mark = self.state.ids.next().0;
                let copy = self.state.db.pg_durable().filter(|_| self.cfg.postgres_copy);
                let stored = match copy {
                    // PostgreSQL: COPY through the native pool.
                    Some(pg) => {
                        store_pg::write_group(
                            pg,
                            &raws,
                            &latest_rows,
                            &dirty,
                            mark,
                            now,
                            &self.state.meter.db_acquire_wait,
                        )
                        .await
                    }
                    None => {
                        store::write_group(
                            &self.state.db,
                            self.cfg.insert_chunk_rows,
                            &raws,
                            &latest_rows,
                            &dirty,
                            mark,
                            now,
                            &self.state.meter.db_acquire_wait,
                        )
                        .await
                    }
                };
                match stored {
                    Ok(_) => break,
                    Err(e) if attempt < STORE_ATTEMPTS => {
                        tracing::warn!(attempt, error = %e, "storing telemetry failed; retrying");
                        tokio::time::sleep(Duration::from_millis(200 * 2u64.pow(attempt))).await;
                    }
                    Err(e) => {
                        self.stats
                            .store_failures
                            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        self.state.meter.store_failures.inc();
                        tracing::error!(
                            batches = group.len(),
                            error = %e,
                            "storing telemetry failed: not acknowledged, the gateways will resend"
                        );
                        return false;
                    }
                }
            }
        }
        // Stored: now the acknowledgements (the view was updated when the batches were accepted),
        // and the stored samples for the alarm engine, handed over after the acks.
        let engine = self.state.evaluation.running();
        let mut handover = Vec::new();
        let meter = &self.state.meter;
        for p in group {
            self.state.realtime.touch(p.gateway.station_id);
            if matches!(p.ack, Ack::Mqtt(..)) {
                self.stats.accept(&p.gateway.gateway_id, p.samples.len() as u64);
            }
            meter.samples_accepted.inc_by(p.samples.len() as u64);
            meter
                .points_accepted
                .inc_by(p.samples.iter().map(|s| s.values.len() as u64).sum());
            meter.batches_stored.inc();
            if engine {
                let tenant: Arc<str> = p.gateway.tenant_id.as_str().into();
                handover.extend(p.samples.into_iter().map(|s| SampleIn {
                    device_id: s.device_id,
                    kind: s.kind,
                    tenant_id: tenant.clone(),
                    station_id: p.gateway.station_id,
                    ts: s.ts,
                    values: s.values,
                }));
            }
            self.stats
                .batches_stored
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let (topic, payload) = match p.ack {
                Ack::Mqtt(topic, payload) => (topic, payload),
                Ack::Stored(told) => {
                    let _ = told.send(());
                    continue;
                }
            };
            match self.downlink.publish(topic, payload).await {
                Ok(()) => {
                    meter.ack_latency.observe(p.received.elapsed().as_secs_f64());
                    self.stats
                        .acks_sent
                        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                }
                Err(e) => tracing::warn!(gateway = %p.gateway.gateway_id, error = %e, "ack not sent"),
            }
        }
        // After the acks, so the gateways are not kept waiting; when the engine is behind this
        // waits (and so does the queue behind it): alarms are never evaluated on a subset.
        if !handover.is_empty() {
            self.state.evaluation.submit(Event::Samples(handover)).await;
        }
        true
    }
}
