//! Signals between hub replicas on one PostgreSQL: "this changed, re-read it". A replica keeps a
//! few things in memory (the bell's open websockets, caches of rarely changed tables); when one of
//! them changes on replica A, every other replica must hear of it at once, not when a timer runs
//! out. PostgreSQL's LISTEN/NOTIFY carries that: the database every replica already trusts, no
//! extra service.
//!
//! A signal names a topic (what kind of thing changed) and a key (which one, e.g. a tenant id).
//! It carries no data: the receiver re-reads the database, so a signal can neither be too large
//! for NOTIFY's 8000 bytes nor disagree with what was committed. [`Cluster::publish`] sends it to
//! the OTHER replicas only: the replica that made the change has already acted on it locally (its
//! own bell woke, its own cache was cleared), and every notification carries its sender's origin
//! so the sender drops its own echo instead of delivering twice.
//!
//! The listener holds its own connection (outside the pool, which a busy hub may exhaust). When
//! that connection drops, whatever was said meanwhile is lost: after every reconnection the
//! listener emits [`Signal::Resync`], on which receivers forget everything they cache and re-read.
//!
//! On SQLite a hub is alone with its database file (see `leader`): publishing does nothing and no
//! signal ever arrives.

use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use sqlx::postgres::{PgConnectOptions, PgListener, PgPool, PgPoolOptions};
use tokio::sync::{broadcast, mpsc};

use super::shutdown::Shutdown;

/// The one PostgreSQL channel every replica listens on.
pub const CHANNEL: &str = "pv_cluster";

/// The key that means "every key of the topic" (sent when a key would not fit in a notification).
pub const ALL: &str = "*";

/// NOTIFY refuses payloads of 8000 bytes or more; keys are ids, far below, but a key that would
/// not fit is widened to [`ALL`] rather than lost.
const MAX_PAYLOAD: usize = 7_000;

/// How long the listener waits before dialling again after its connection failed.
const REDIAL: Duration = Duration::from_millis(500);

/// What another replica said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Signal {
    /// `topic` changed for `key` (or for every key when it is [`ALL`]).
    Changed { topic: String, key: String },
    /// Signals may have been missed (the listener's connection dropped and came back): drop
    /// every cached copy and re-read.
    Resync,
}

#[derive(Serialize, Deserialize)]
struct Wire {
    /// The sending replica.
    o: String,
    t: String,
    k: String,
}

/// This replica's end of the signals.
pub struct Cluster {
    origin: String,
    outbox: Option<mpsc::UnboundedSender<String>>,
    signals: broadcast::Sender<Signal>,
}

impl Default for Cluster {
    /// A hub alone with its database (SQLite): nothing is sent, nothing arrives.
    fn default() -> Self {
        Cluster {
            origin: origin(),
            outbox: None,
            signals: broadcast::channel(256).0,
        }
    }
}

fn origin() -> String {
    let mut b = [0u8; 8];
    // Without OS randomness the process id and the time still tell replicas apart.
    if getrandom::fill(&mut b).is_err() {
        b = (u64::from(std::process::id()) ^ super::time::now_ms() as u64).to_be_bytes();
    }
    hex::encode(b)
}

impl Cluster {
    /// Joins the replicas on the PostgreSQL at `url`: returns once the first LISTEN is in place
    /// (so nothing published after a replica started is missed), or, when the database cannot
    /// be reached now, at once with the listener still dialling in the background.
    pub async fn join(url: &str, shutdown: Shutdown) -> Result<Arc<Cluster>, sqlx::Error> {
        let origin = origin();
        let options = PgConnectOptions::from_str(url)?;
        let sender = PgPoolOptions::new().max_connections(1).connect_lazy_with(
            options
                .clone()
                .application_name(&format!("pv-cluster-send-{origin}")),
        );
        let (outbox, queued) = mpsc::unbounded_channel();
        let signals = broadcast::channel(256).0;
        let cluster = Arc::new(Cluster {
            origin: origin.clone(),
            outbox: Some(outbox),
            signals: signals.clone(),
        });
        tokio::spawn(send(sender, queued, shutdown.clone()));
        let listen_options = options.application_name(&format!("pv-cluster-{origin}"));
        let first = dial(&listen_options).await;
        if let Err(e) = &first {
            tracing::warn!(error = %e, "cluster signals: listener not connected yet; retrying");
        }
        tokio::spawn(listen(listen_options, first.ok(), origin, signals, shutdown));
        Ok(cluster)
    }

    /// Tells the other replicas that `topic` changed for `key`.
    pub fn publish(&self, topic: &str, key: &str) {
        let Some(outbox) = &self.outbox else { return };
        let mut wire = Wire {
            o: self.origin.clone(),
            t: topic.to_owned(),
            k: key.to_owned(),
        };
        let mut text = serde_json::to_string(&wire).unwrap_or_default();
        if text.len() > MAX_PAYLOAD {
            wire.k = ALL.to_owned();
            text = serde_json::to_string(&wire).unwrap_or_default();
        }
        // The sender ends only with the hub: a closed outbox means nobody is left to tell.
        let _ = outbox.send(text);
    }

    /// What the other replicas say from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<Signal> {
        self.signals.subscribe()
    }

    /// This replica's name on the channel (also in its connections' `application_name`).
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// Whether signals travel at all (PostgreSQL).
    pub fn is_shared(&self) -> bool {
        self.outbox.is_some()
    }
}

/// Sends queued notifications one by one, in order, on a connection of their own.
async fn send(pool: PgPool, mut queued: mpsc::UnboundedReceiver<String>, shutdown: Shutdown) {
    loop {
        let payload = tokio::select! {
            _ = shutdown.stopping() => break,
            next = queued.recv() => match next {
                Some(p) => p,
                None => break,
            },
        };
        // One retry covers a connection that dropped since the last send (the pool redials).
        for attempt in 0..2 {
            let sent = sqlx::query("SELECT pg_notify($1, $2)")
                .bind(CHANNEL)
                .bind(&payload)
                .execute(&pool)
                .await;
            match sent {
                Ok(_) => break,
                Err(e) if attempt == 1 => {
                    tracing::warn!(error = %e, "cluster signal not sent: other replicas re-read on their timers")
                }
                Err(_) => {}
            }
        }
    }
    pool.close().await;
}

async fn dial(options: &PgConnectOptions) -> Result<PgListener, sqlx::Error> {
    let pool = PgPoolOptions::new()
        .max_connections(1)
        .max_lifetime(None)
        .idle_timeout(None)
        .connect_with(options.clone())
        .await?;
    let mut listener = PgListener::connect_with(&pool).await?;
    listener.listen(CHANNEL).await?;
    Ok(listener)
}

/// Receives notifications until the hub stops, dialling again whenever the connection drops.
async fn listen(
    options: PgConnectOptions,
    mut current: Option<PgListener>,
    origin: String,
    signals: broadcast::Sender<Signal>,
    shutdown: Shutdown,
) {
    loop {
        let mut listener = match current.take() {
            Some(l) => l,
            None => {
                let dialled = tokio::select! {
                    _ = shutdown.stopping() => return,
                    d = dial(&options) => d,
                };
                match dialled {
                    Ok(l) => {
                        tracing::info!("cluster signals: listening again; caches re-read");
                        let _ = signals.send(Signal::Resync);
                        l
                    }
                    Err(e) => {
                        tracing::warn!(error = %e, "cluster signals: cannot listen; retrying");
                        tokio::time::sleep(REDIAL).await;
                        continue;
                    }
                }
            }
        };
        loop {
            let next = tokio::select! {
                _ = shutdown.stopping() => return,
                n = listener.try_recv() => n,
            };
            match next {
                Ok(Some(n)) => {
                    if let Some(signal) = decode(n.payload(), &origin) {
                        // No receiver (no feed open, nothing cached) is not an error.
                        let _ = signals.send(signal);
                    }
                }
                Ok(None) => {
                    tracing::warn!("cluster signals: listener connection lost");
                    break;
                }
                Err(e) => {
                    tracing::warn!(error = %e, "cluster signals: listener failed");
                    break;
                }
            }
        }
        // The redial above emits the resync once the new LISTEN is in place; between the two,
        // this replica hears nothing.
        tokio::time::sleep(REDIAL).await;
    }
}

/// The signal in a notification, unless this replica sent it (or it is not ours).
fn decode(payload: &str, origin: &str) -> Option<Signal> {
    let wire: Wire = serde_json::from_str(payload).ok()?;
    (wire.o != origin).then_some(Signal::Changed {
        topic: wire.t,
        key: wire.k,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_replica_drops_its_own_echo_and_keeps_the_others() {
        let mine = serde_json::to_string(&Wire {
            o: "a".into(),
            t: "alarm".into(),
            k: "000000".into(),
        })
        .expect("json");
        assert_eq!(decode(&mine, "a"), None);
        assert_eq!(
            decode(&mine, "b"),
            Some(Signal::Changed {
                topic: "alarm".into(),
                key: "000000".into()
            })
        );
        assert_eq!(decode("not json", "b"), None);
    }

    #[tokio::test]
    async fn a_key_too_large_for_notify_is_widened_to_every_key() {
        let (outbox, mut queued) = mpsc::unbounded_channel();
        let cluster = Cluster {
            outbox: Some(outbox),
            ..Cluster::default()
        };
        cluster.publish("alarm", &"x".repeat(9_000));
        let sent: Wire = serde_json::from_str(&queued.recv().await.expect("queued")).expect("json");
        assert_eq!((sent.t.as_str(), sent.k.as_str()), ("alarm", ALL));
        Cluster::default().publish("alarm", "t");
    }
}
