//! The MQTT connection: options (the gateway's own credentials, last will, TLS), and the task
//! that drives rumqttc's event loop, reconnecting with jittered exponential back-off.
//!
//! The event loop runs in its own task and is never cancelled mid-poll: rumqttc's `poll` is not
//! cancel-safe (a write interrupted half-way would corrupt the stream), so it cannot sit in a
//! `select!` beside the uplink's other work; it reports to the uplink over a channel instead.

use std::time::Duration;

use rumqttc::{AsyncClient, ConnectionError, Event, EventLoop, LastWill, MqttOptions, Packet, QoS};
use tokio::sync::mpsc;

use crate::uplink::UplinkConfig;

/// What the connection reports to the uplink.
#[derive(Debug)]
pub enum Net {
    /// Connected (again); subscriptions must be made again (clean session).
    Connected,
    /// The broker acknowledged the downlink subscription: from now on commands reach the
    /// gateway. `refused` when the broker declined it (its ACL).
    Subscribed { refused: bool },
    /// The connection is gone (or could not be made); the task retries by itself.
    Down { reason: String },
    /// A message on a subscribed topic.
    Message { topic: String, payload: Vec<u8> },
    /// The disconnect request has been written: the task can be stopped.
    Disconnected,
}

/// Exponential back-off with "equal jitter": each wait is between half and all of the current
/// step, so a fleet of gateways that lost the broker together does not reconnect in lock-step.
#[derive(Debug, Clone)]
pub struct Backoff {
    initial: Duration,
    max: Duration,
    step: Duration,
    rng: u64,
}

impl Backoff {
    pub fn new(initial: Duration, max: Duration, seed: u64) -> Backoff {
        Backoff {
            initial,
            max,
            step: initial,
            // xorshift needs a non-zero state.
            rng: seed | 1,
        }
    }

    pub fn next_wait(&mut self) -> Duration {
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        let step = self.step;
        self.step = (self.step * 2).min(self.max);
        let half = step / 2;
        let jitter = half.mul_f64((self.rng % 1_000_001) as f64 / 1_000_000.0);
        half + jitter
    }

    pub fn reset(&mut self) {
        self.step = self.initial;
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    #[error("mqtt.ca_file {path}: {message}")]
    Tls { path: String, message: String },
}

/// MQTT options of the gateway: its own client id and credentials, a clean session (the
/// durable queue, not the broker, holds what is unacknowledged), and the retained last will.
pub fn options(cfg: &UplinkConfig, will: Vec<u8>, will_topic: &str) -> Result<MqttOptions, ClientError> {
    let mut o = MqttOptions::new(&cfg.client_id, &cfg.host, cfg.port);
    o.set_keep_alive(cfg.keep_alive)
        .set_clean_session(true)
        // Room for the largest batch and its MQTT header.
        .set_max_packet_size(
            pv_shared::wire::MAX_PAYLOAD_BYTES + 1024,
            pv_shared::wire::MAX_PAYLOAD_BYTES + 1024,
        )
        .set_last_will(LastWill::new(will_topic, will, QoS::AtLeastOnce, true));
    if let Some(user) = &cfg.username {
        let password = cfg.password.as_ref().map(|p| p.0.clone()).unwrap_or_default();
        o.set_credentials(user, password);
    }
    if cfg.tls {
        tls(&mut o, cfg)?;
    }
    Ok(o)
}

#[cfg(feature = "tls")]
fn tls(o: &mut MqttOptions, cfg: &UplinkConfig) -> Result<(), ClientError> {
    use std::sync::Arc;
    use tokio_rustls::rustls;
    use tokio_rustls::rustls::pki_types::CertificateDer;
    use tokio_rustls::rustls::pki_types::pem::PemObject;
    let Some(path) = &cfg.ca_file else {
        return Err(ClientError::Tls {
            path: String::new(),
            message: "missing".into(),
        });
    };
    let err = |message: String| ClientError::Tls {
        path: path.display().to_string(),
        message,
    };
    let mut roots = rustls::RootCertStore::empty();
    for cert in CertificateDer::pem_file_iter(path).map_err(|e| err(e.to_string()))? {
        roots
            .add(cert.map_err(|e| err(e.to_string()))?)
            .map_err(|e| err(e.to_string()))?;
    }
    // The provider is named rather than taken from crate features: another crate of the build
    // enabling aws-lc-rs as well would otherwise make rustls refuse to pick one at run time.
    let config =
        rustls::ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
            .with_safe_default_protocol_versions()
            .map_err(|e| err(e.to_string()))?
            .with_root_certificates(roots)
            .with_no_client_auth();
    o.set_transport(rumqttc::Transport::tls_with_config(
        rumqttc::TlsConfiguration::Rustls(Arc::new(config)),
    ));
    Ok(())
}

#[cfg(not(feature = "tls"))]
fn tls(_: &mut MqttOptions, _: &UplinkConfig) -> Result<(), ClientError> {
    // The configuration refuses `tls = true` in a build without the feature.
    Ok(())
}

/// Requests the uplink may queue in rumqttc before `try_publish` reports it full.
pub const REQUEST_CAPACITY: usize = 256;

/// Starts the connection task; it runs until aborted (or the receiver is dropped).
pub fn start(
    options: MqttOptions,
    gateway: String,
    backoff: Backoff,
) -> (AsyncClient, mpsc::Receiver<Net>, tokio::task::JoinHandle<()>) {
    let broker = format!("{}:{}", options.broker_address().0, options.broker_address().1);
    let (client, eventloop) = AsyncClient::new(options, REQUEST_CAPACITY);
    let (tx, rx) = mpsc::channel(1024);
    let task = tokio::spawn(drive(eventloop, tx, gateway, broker, backoff));
    (client, rx, task)
}

async fn drive(
    mut eventloop: EventLoop,
    tx: mpsc::Sender<Net>,
    gateway: String,
    broker: String,
    mut backoff: Backoff,
) {
    let mut connected = false;
    loop {
        let net = match eventloop.poll().await {
            Ok(Event::Incoming(Packet::ConnAck(_))) => {
                connected = true;
                backoff.reset();
                tracing::info!(%gateway, %broker, "mqtt connected");
                Net::Connected
            }
            Ok(Event::Incoming(Packet::SubAck(a))) => Net::Subscribed {
                refused: a
                    .return_codes
                    .iter()
                    .any(|c| matches!(c, rumqttc::SubscribeReasonCode::Failure)),
            },
            Ok(Event::Incoming(Packet::Publish(p))) => Net::Message {
                topic: p.topic,
                payload: p.payload.to_vec(),
            },
            Ok(Event::Outgoing(rumqttc::Outgoing::Disconnect)) => Net::Disconnected,
            Ok(_) => continue,
            Err(e) => {
                let wait = backoff.next_wait();
                match &e {
                    ConnectionError::ConnectionRefused(code) => tracing::error!(
                        %gateway, %broker, ?code, retry_in = ?wait,
                        "broker refused the gateway's connection (check mqtt.username/password)"
                    ),
                    // Some brokers (rumqttd) close the connection on bad credentials instead
                    // of answering with a refusal.
                    _ if !connected => tracing::warn!(
                        %gateway, %broker, error = %e, retry_in = ?wait,
                        "cannot connect to the broker"
                    ),
                    _ => {
                        tracing::warn!(%gateway, %broker, error = %e, retry_in = ?wait, "mqtt connection lost")
                    }
                }
                connected = false;
                if tx
                    .send(Net::Down {
                        reason: e.to_string(),
                    })
                    .await
                    .is_err()
                {
                    return;
                }
                tokio::time::sleep(wait).await;
                continue;
            }
        };
        if tx.send(net).await.is_err() {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_with_jitter_up_to_its_cap_and_resets() {
        let mut b = Backoff::new(Duration::from_secs(1), Duration::from_secs(8), 42);
        let waits: Vec<Duration> = (0..6).map(|_| b.next_wait()).collect();
        for (w, step) in waits.iter().zip([1, 2, 4, 8, 8, 8]) {
            let step = Duration::from_secs(step);
            assert!(*w >= step / 2 && *w <= step, "{w:?} for step {step:?}");
        }
        assert_ne!(waits[3], waits[4], "jittered");
        b.reset();
        assert!(b.next_wait() <= Duration::from_secs(1));
    }
}
