//! MQTT uplink: forwards the durable queue to the cloud and takes the cloud's acks and
//! commands. The queue is the source of truth; the uplink only reads it and deletes what the
//! cloud confirmed stored (see `replay` for the order of sending, `shared::wire` for the
//! contract).
//!
//! - `client`: connection options, the rumqttc event-loop task, reconnect back-off;
//! - `replay`: per-connection sending state (live first, bounded backlog, ack timeouts);
//! - `batch`: samples → payloads under the wire's size limit.

pub mod acks;
pub mod batch;
pub mod client;
pub mod replay;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use pv_shared::topics::{self, Kind};
use pv_shared::wire::{self, Ack, Command, CommandAck, GatewayStatus, StatusKind};
use rumqttc::{AsyncClient, QoS};
use tokio::sync::{mpsc, watch};

use crate::queue::Queue;
use crate::status::StatusBoard;
use client::{Backoff, Net};
use replay::{Pacing, Session};

/// A password that stays out of logs and `Debug` output.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(pub String);

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("\"***\"")
    }
}

/// The `[mqtt]` section of the gateway configuration, checked.
#[derive(Debug, Clone, PartialEq)]
pub struct UplinkConfig {
    pub host: String,
    pub port: u16,
    /// Defaults to the gateway id.
    pub client_id: String,
    /// Defaults to the gateway id: each gateway has its own credentials.
    pub username: Option<String>,
    pub password: Option<Secret>,
    pub tls: bool,
    /// CA certificate(s) of the broker, PEM (with `tls`).
    pub ca_file: Option<PathBuf>,
    pub keep_alive: Duration,
    pub batch_max_samples: usize,
    /// How long a live sample may wait for others to share its batch.
    pub batch_linger: Duration,
    /// Backlog batches awaiting the cloud's ack at once.
    pub replay_window: usize,
    /// A batch unacknowledged this long is sent again.
    pub ack_timeout: Duration,
    pub reconnect_initial: Duration,
    pub reconnect_max: Duration,
    pub status_interval: Duration,
    /// How telemetry batches are encoded (`[uplink] encoding`); JSON unless chosen.
    pub encoding: wire::Encoding,
}

impl UplinkConfig {
    fn pacing(&self) -> Pacing {
        Pacing {
            batch_max_samples: self.batch_max_samples,
            batch_linger: self.batch_linger,
            replay_window: self.replay_window,
            ack_timeout: self.ack_timeout,
            live_age: Duration::from_secs(10),
            encoding: self.encoding,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum UplinkError {
    #[error(transparent)]
    Topic(#[from] topics::TopicError),
    #[error(transparent)]
    Client(#[from] client::ClientError),
    #[error(transparent)]
    Wire(#[from] wire::WireError),
}

/// Command answers waiting for a connection; beyond this many the oldest go (the cloud times
/// commands out anyway).
const MAX_PENDING_ANSWERS: usize = 100;

struct Uplink {
    cfg: UplinkConfig,
    pacing: Pacing,
    gateway: String,
    queue: Arc<Queue>,
    acks: acks::AckWorker,
    board: Arc<StatusBoard>,
    client: AsyncClient,
    session: Option<Session>,
    /// Whether this connection's birth is out. The cloud takes the first status after a
    /// connection as its birth, so nothing periodic goes before it (the status tick can fire
    /// between the CONNACK and the SUBACK the birth waits for).
    born: bool,
    /// The subscription is answered (or none was made): the birth may go.
    birth_due: bool,
    answers: Vec<CommandAck>,
    commands: mpsc::Sender<Command>,
    telemetry_topic: String,
    status_topic: String,
    answer_topic: String,
}

/// Runs the uplink until `stop` turns true: then publishes a retained shutdown status and
/// disconnects cleanly. `commands` receives the cloud's commands; their answers come back on
/// `answers`.
pub async fn run(
    cfg: UplinkConfig,
    gateway: String,
    queue: Arc<Queue>,
    board: Arc<StatusBoard>,
    commands: mpsc::Sender<Command>,
    mut answers: mpsc::Receiver<CommandAck>,
    mut stop: watch::Receiver<bool>,
) -> Result<(), UplinkError> {
    let status_topic = topics::status(&gateway)?;
    let will = wire::to_bytes(&board.will())?;
    let options = client::options(&cfg, will, &status_topic)?;
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(1)
        ^ u64::from(std::process::id());
    let backoff = Backoff::new(cfg.reconnect_initial, cfg.reconnect_max, seed);
    let (client, mut net, net_task) = client::start(options, gateway.clone(), backoff);
    let mut up = Uplink {
        pacing: cfg.pacing(),
        telemetry_topic: topics::telemetry(&gateway)?,
        answer_topic: topics::command_ack(&gateway)?,
        status_topic,
        cfg,
        gateway,
        queue: queue.clone(),
        acks: acks::AckWorker::start(queue.clone()),
        board,
        client,
        session: None,
        born: false,
        birth_due: false,
        answers: Vec::new(),
        commands,
    };
    let mut pushed = queue.subscribe();
    let tick_every = (up.cfg.batch_linger / 2).clamp(Duration::from_millis(20), Duration::from_millis(250));
    let mut tick = tokio::time::interval(tick_every);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut status_tick = tokio::time::interval(up.cfg.status_interval);
    status_tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            event = net.recv() => match event {
                Some(event) => up.on_net(event),
                None => break,
            },
            r = pushed.changed() => {
                if r.is_err() { break; }
                up.pump();
            }
            _ = tick.tick() => up.pump(),
            _ = status_tick.tick() => if up.born {
                up.publish_status(StatusKind::Periodic);
            } else {
                // A birth the client was too busy to take goes again; nothing else before it.
                up.publish_birth();
            },
            Some(answer) = answers.recv() => {
                up.answers.push(answer);
                up.flush_answers();
            }
            r = stop.changed() => {
                if r.is_err() || *stop.borrow() { break; }
            }
        }
    }
    if up.session.is_some() {
        up.publish_status(StatusKind::Shutdown);
        let _ = up.client.try_disconnect();
        // Give the event loop a moment to write the status and the disconnect.
        let _ = tokio::time::timeout(Duration::from_secs(2), async {
            while let Some(e) = net.recv().await {
                if matches!(e, Net::Disconnected | Net::Down { .. }) {
                    break;
                }
            }
        })
        .await;
    }
    net_task.abort();
    up.acks.finish().await;
    Ok(())
}

impl Uplink {
    fn on_net(&mut self, event: Net) {
        match event {
            Net::Connected => {
                let subscribing = match topics::downlink_filter(&self.gateway) {
                    Ok(filter) => match self.client.try_subscribe(filter, QoS::AtLeastOnce) {
                        Ok(()) => true,
                        Err(e) => {
                            tracing::warn!(%e, "subscribe to the downlink failed");
                            false
                        }
                    },
                    Err(_) => false,
                };
                self.born = false;
                self.birth_due = false;
                match Session::start(&self.queue, &self.pacing, Instant::now()) {
                    Ok(s) => self.session = Some(s),
                    Err(e) => tracing::error!(%e, "queue unreadable; not forwarding"),
                }
                if !subscribing {
                    // No SUBACK will come to trigger it.
                    self.birth_due = true;
                    self.publish_birth();
                }
                self.flush_answers();
                self.pump();
            }
            // The birth waits for the SUBACK: the cloud takes a birth as "commands reach this
            // gateway now" (it sends its waiting commands again then), and a broker delivers a
            // command only to subscriptions it has acknowledged.
            Net::Subscribed { refused } => {
                if refused {
                    tracing::error!(gateway = %self.gateway, "the broker refused the downlink subscription: no commands will arrive");
                }
                self.birth_due = true;
                self.publish_birth();
            }
            Net::Down { .. } => {
                // Everything unacknowledged is still in the queue: the next session resends it.
                self.session = None;
                self.born = false;
                self.birth_due = false;
            }
            Net::Disconnected => {}
            Net::Message { topic, payload } => match topics::parse(&topic) {
                Some((gw, Kind::Ack)) if gw == self.gateway => match wire::parse::<Ack>(&payload) {
                    Ok(ack) => self.on_ack(ack),
                    Err(e) => tracing::warn!(%e, %topic, "ack refused"),
                },
                Some((gw, Kind::Command)) if gw == self.gateway => match wire::parse::<Command>(&payload) {
                    Ok(c) => {
                        if let Err(e) = self.commands.try_send(c) {
                            tracing::warn!(%e, "command dropped: too many waiting");
                        }
                    }
                    Err(e) => tracing::warn!(%e, %topic, "command refused"),
                },
                _ => tracing::debug!(%topic, "message on an unexpected topic ignored"),
            },
        }
    }

    fn on_ack(&mut self, ack: Ack) {
        if let Some(s) = self.session.as_mut() {
            s.acked(ack.first_seq, ack.last_seq);
        }
        self.acks.send(ack.first_seq, ack.last_seq);
        self.pump();
    }

    /// Publishes whatever is due now.
    fn pump(&mut self) {
        let now = Instant::now();
        let Some(session) = self.session.as_mut() else {
            return;
        };
        if session.overdue(now, self.pacing.ack_timeout) {
            tracing::warn!(
                gateway = %self.gateway,
                inflight = session.inflight(),
                "no ack within {:?}: sending everything unacknowledged again",
                self.pacing.ack_timeout
            );
            match Session::start(&self.queue, &self.pacing, now) {
                Ok(s) => *session = s,
                Err(e) => {
                    tracing::error!(%e, "queue unreadable");
                    return;
                }
            }
        }
        let (batches, unsendable) = match session.next(&self.queue, &self.gateway, &self.pacing, now) {
            Ok(x) => x,
            Err(e) => {
                tracing::error!(%e, "queue unreadable");
                return;
            }
        };
        for seq in unsendable {
            let _ = self.queue.ack_range(seq, seq);
        }
        let mut refused = false;
        for b in batches {
            if refused {
                session.unsend(&b);
                continue;
            }
            let topic = self.telemetry_topic.clone();
            let (first_seq, replay) = (b.first_seq, b.replay);
            if let Err(e) = self.client.try_publish(topic, QoS::AtLeastOnce, false, b.payload) {
                tracing::debug!(%e, "mqtt client busy; batch waits");
                session.unsend_from(first_seq, replay);
                refused = true;
            }
        }
    }

    /// Once per connection, after the SUBACK.
    fn publish_birth(&mut self) {
        if self.birth_due && !self.born {
            self.born = self.publish_status(StatusKind::Birth);
        }
    }

    /// Whether the client took the status.
    fn publish_status(&mut self, kind: StatusKind) -> bool {
        if self.session.is_none() {
            return false;
        }
        let status: GatewayStatus = self.board.status(kind);
        match wire::to_bytes(&status) {
            Ok(bytes) => {
                match self
                    .client
                    .try_publish(&self.status_topic, QoS::AtLeastOnce, true, bytes)
                {
                    Ok(()) => true,
                    Err(e) => {
                        tracing::debug!(%e, "status not published");
                        false
                    }
                }
            }
            Err(e) => {
                tracing::error!(%e, "status not encodable");
                false
            }
        }
    }

    fn flush_answers(&mut self) {
        if self.session.is_none() {
            let excess = self.answers.len().saturating_sub(MAX_PENDING_ANSWERS);
            self.answers.drain(..excess);
            return;
        }
        for a in std::mem::take(&mut self.answers) {
            match wire::to_bytes(&a) {
                Ok(bytes) => {
                    if self
                        .client
                        .try_publish(&self.answer_topic, QoS::AtLeastOnce, false, bytes)
                        .is_err()
                    {
                        self.answers.push(a);
                    }
                }
                Err(e) => tracing::error!(%e, id = %a.id, "command answer not encodable"),
            }
        }
    }
}
