//! Where gateway messages come from and where acknowledgements go: the embedded rumqttd (the
//! default, its own thread, reached in-process through a link) behind the gateway-facing ACL
//! front (`gatekeeper`), or an external broker through rumqttc: a shared subscription to every
//! gateway for a lone hub, or with several replicas on PostgreSQL only the gateways this
//! replica leases (`ownership`).
//!
//! Facts about rumqttd 0.20 this relies on (read from its source, see `docs/decisions.md`):
//! `Broker::start` blocks and has no shutdown; the router's numeric settings default to zero;
//! the authentication hook (`external_auth`) is async and sees client id, username and
//! password, but nothing in the broker binds a connection to topics (the only topic check,
//! `validate-tenant-prefix`, keys on TLS client certificates and a `/tenants/..` prefix); a
//! publish received over a link carries no publisher identity. Hence the gatekeeper.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use pv_shared::topics;
use pv_shared::wire::MAX_PAYLOAD_BYTES;
use tokio::sync::mpsc;

use crate::config::BrokerConfig;

/// A message from a gateway, as the broker delivered it.
#[derive(Debug, Clone)]
pub struct Incoming {
    pub topic: String,
    pub payload: Bytes,
}

#[derive(Debug, thiserror::Error)]
pub enum BrokerError {
    #[error("broker: {0}")]
    Start(String),
    #[error("broker.url {0:?} is not mqtt://[user:password@]host[:port]")]
    Url(String),
    #[error("publishing on the broker: {0}")]
    Publish(String),
    #[error("cannot listen for gateways on {addr}: {source}")]
    Listen { addr: String, source: std::io::Error },
    #[error(transparent)]
    Tls(#[from] crate::kernel::tls::TlsError),
}

/// Publishes acknowledgements (and later commands) to gateways.
#[derive(Clone)]
pub enum Downlink {
    /// The in-process link of the embedded broker. Its publishes are QoS 0 (rumqttd's local
    /// links cannot send QoS 1); a lost ack costs the gateway a resend, which is stored
    /// idempotently and acknowledged again.
    Link(Arc<Mutex<rumqttd::local::LinkTx>>),
    /// An external broker: QoS 1.
    Client(rumqttc::AsyncClient),
}

impl Downlink {
    pub async fn publish(&self, topic: String, payload: Vec<u8>) -> Result<(), BrokerError> {
        match self {
            Downlink::Link(tx) => {
                let mut tx = tx.lock().unwrap_or_else(|p| p.into_inner());
                tx.publish(topic, payload)
                    .map(|_| ())
                    .map_err(|e| BrokerError::Publish(e.to_string()))
            }
            Downlink::Client(c) => c
                .publish(topic, rumqttc::QoS::AtLeastOnce, false, payload)
                .await
                .map_err(|e| BrokerError::Publish(e.to_string())),
        }
    }
}

/// The uplink stream and the downlink of a started broker connection.
pub struct Connected {
    pub incoming: mpsc::Receiver<Incoming>,
    pub downlink: Downlink,
}

/// Messages read from the broker but not yet taken by ingest. Small: the real buffer with a
/// bound is ingest's in-flight queue; when both are full, ingest stops reading the broker.
const INCOMING_BUFFER: usize = 64;

fn free_loopback_port() -> Result<SocketAddr, BrokerError> {
    let l = std::net::TcpListener::bind("127.0.0.1:0").map_err(|e| BrokerError::Start(e.to_string()))?;
    l.local_addr().map_err(|e| BrokerError::Start(e.to_string()))
}

/// Whether something listens on `addr`. On Linux this reads the kernel's socket table instead of
/// dialling: rumqttd logs an ERROR for every connection that closes (a bare connect, or even a
/// clean MQTT CONNECT/DISCONNECT), and an ERROR at each start sends operators chasing nothing.
fn listening(addr: SocketAddr) -> bool {
    let SocketAddr::V4(v4) = addr else {
        return std::net::TcpStream::connect(addr).is_ok();
    };
    match std::fs::read_to_string("/proc/net/tcp") {
        // Lines: "sl local_address rem_address st ...", the address as little-endian hex IPv4
        // and big-endian hex port; state 0A is LISTEN.
        Ok(table) => {
            let want = format!("{:08X}:{:04X}", u32::from_le_bytes(v4.ip().octets()), v4.port());
            table.lines().skip(1).any(|line| {
                let mut cols = line.split_whitespace().skip(1);
                cols.next() == Some(want.as_str()) && cols.nth(1) == Some("0A")
            })
        }
        Err(_) => std::net::TcpStream::connect(addr).is_ok(),
    }
}

/// The embedded broker: rumqttd listening on a private loopback port that only the gatekeeper
/// can sign in to (a per-process secret), and the cloud's link to it. Returns the private
/// address (for the gatekeeper) and the connection.
pub fn start_embedded(secret: Arc<str>) -> Result<(SocketAddr, Connected), BrokerError> {
    use rumqttd::{Config, ConnectionSettings, RouterConfig, ServerSettings};
    use std::collections::HashMap;

    let internal = free_loopback_port()?;
    let mut connections = ConnectionSettings {
        connection_timeout_ms: 10_000,
        max_payload_size: MAX_PAYLOAD_BYTES + 1024,
        max_inflight_count: 500,
        auth: None,
        external_auth: None,
        dynamic_filters: true,
    };
    // Only the gatekeeper knows the secret: a local process dialling the private port directly
    // cannot bypass the topic checks.
    connections.set_auth_handler(move |_client: String, _user: String, password: String| {
        let ok = constant_time_eq(password.as_bytes(), secret.as_bytes());
        async move { ok }
    });
    let server = ServerSettings {
        name: "gateways".into(),
        listen: internal,
        tls: None,
        next_connection_delay_ms: 0,
        connections,
    };
    let config = Config {
        id: 0,
        router: RouterConfig {
            // The router's numeric defaults are zero (toolchain notes).
            max_connections: 100_000,
            max_outgoing_packet_count: 1000,
            // Segments per topic: large enough that a briefly busy ingest loses nothing; a batch
            // that is lost anyway stays unacknowledged and the gateway resends it.
            max_segment_size: 16 * 1024 * 1024,
            max_segment_count: 4,
            ..RouterConfig::default()
        },
        v4: Some(HashMap::from([("gateways".to_string(), server)])),
        ..Config::default()
    };
    let mut broker = rumqttd::Broker::new(config);
    let (mut link_tx, mut link_rx) = broker
        .link("pv-cloud-ingest")
        .map_err(|e| BrokerError::Start(e.to_string()))?;
    link_tx
        .subscribe(topics::uplink_filter())
        .map_err(|e| BrokerError::Start(e.to_string()))?;
    std::thread::Builder::new()
        .name("rumqttd".into())
        .spawn(move || {
            // Blocks for the life of the process (rumqttd has no shutdown).
            if let Err(e) = broker.start() {
                tracing::error!(error = %e, "embedded MQTT broker stopped");
            }
        })
        .map_err(|e| BrokerError::Start(e.to_string()))?;
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while !listening(internal) {
        if std::time::Instant::now() > deadline {
            return Err(BrokerError::Start("rumqttd did not start listening".into()));
        }
        std::thread::sleep(Duration::from_millis(10));
    }

    let (tx, rx) = mpsc::channel(INCOMING_BUFFER);
    tokio::spawn(async move {
        loop {
            match link_rx.next().await {
                Ok(Some(rumqttd::Notification::Forward(f))) => {
                    let topic = String::from_utf8_lossy(&f.publish.topic).into_owned();
                    // Waiting here is the back-pressure: the router keeps the rest.
                    if tx
                        .send(Incoming {
                            topic,
                            payload: f.publish.payload,
                        })
                        .await
                        .is_err()
                    {
                        return;
                    }
                }
                Ok(Some(rumqttd::Notification::Unschedule)) => {
                    // The router paused this link because its buffer filled: ask for more.
                    if link_rx.wake().await.is_err() {
                        return;
                    }
                }
                Ok(_) => {}
                Err(e) => {
                    tracing::error!(error = %e, "link to the embedded broker closed");
                    return;
                }
            }
        }
    });
    Ok((
        internal,
        Connected {
            incoming: rx,
            downlink: Downlink::Link(Arc::new(Mutex::new(link_tx))),
        },
    ))
}

/// Username and password.
type Login = (String, String);

/// `mqtt://[user:password@]host[:port]`.
fn parse_url(url: &str) -> Option<(String, u16, Option<Login>)> {
    let rest = url
        .strip_prefix("mqtt://")
        .or_else(|| url.strip_prefix("tcp://"))
        .unwrap_or(url)
        .trim_end_matches('/');
    let (login, hostport) = match rest.rsplit_once('@') {
        Some((l, h)) => {
            let (u, p) = l.split_once(':').unwrap_or((l, ""));
            (Some((u.to_owned(), p.to_owned())), h)
        }
        None => (None, rest),
    };
    let (host, port) = match hostport.rsplit_once(':') {
        Some((h, p)) => (h, p.parse().ok()?),
        None => (hostport, 1883),
    };
    if host.is_empty() || host.contains('/') {
        return None;
    }
    Some((host.to_owned(), port, login))
}

/// What the hub's client on an external broker subscribes to.
pub enum Uplink {
    /// Every gateway's uplink through the shared subscription `$share/{share_group}/pv/1/+/up/+`
    /// (one hub on SQLite: it owns every gateway).
    All,
    /// Only the gateways this replica holds a lease on (several hubs on PostgreSQL, see
    /// `ownership`); the set is subscribed again after every reconnect.
    Owned(Arc<crate::telemetry::ownership::Owned>),
}

/// An external broker: one rumqttc client subscribed to the uplink `uplink` names.
pub fn start_external(config: &BrokerConfig, node_id: u16, uplink: Uplink) -> Result<Connected, BrokerError> {
    use rumqttc::{AsyncClient, Event, MqttOptions, Packet, QoS};
    let (host, port, login) =
        parse_url(config.url.trim()).ok_or_else(|| BrokerError::Url(config.url.clone()))?;
    let mut o = MqttOptions::new(format!("pv-cloud-{node_id}"), host, port);
    o.set_keep_alive(Duration::from_secs(30))
        .set_clean_session(true)
        .set_max_packet_size(MAX_PAYLOAD_BYTES + 1024, MAX_PAYLOAD_BYTES + 1024);
    if let Some((u, p)) = login {
        o.set_credentials(u, p);
    }
    let (client, mut eventloop) = AsyncClient::new(o, 1024);
    let filter = format!("$share/{}/{}", config.share_group, topics::uplink_filter());
    if let Uplink::Owned(owned) = &uplink {
        owned.attach(client.clone());
    }
    let (tx, rx) = mpsc::channel(INCOMING_BUFFER);
    let sub = client.clone();
    tokio::spawn(async move {
        loop {
            match eventloop.poll().await {
                Ok(Event::Incoming(Packet::ConnAck(_))) => {
                    // Clean session: subscribe again on every connect.
                    let subscribed = match &uplink {
                        Uplink::All => sub.try_subscribe(filter.clone(), QoS::AtLeastOnce),
                        Uplink::Owned(owned) => owned.resubscribe(),
                    };
                    if let Err(e) = subscribed {
                        tracing::error!(error = %e, "subscribing to the gateways' uplink");
                    }
                }
                Ok(Event::Incoming(Packet::Publish(p))) => {
                    if tx
                        .send(Incoming {
                            topic: p.topic,
                            payload: p.payload,
                        })
                        .await
                        .is_err()
                    {
                        return;
                    }
                }
                Ok(_) => {}
                Err(e) => {
                    tracing::warn!(error = %e, "external MQTT broker connection lost; retrying");
                    tokio::time::sleep(Duration::from_secs(1)).await;
                }
            }
        }
    });
    Ok(Connected {
        incoming: rx,
        downlink: Downlink::Client(client),
    })
}

pub(crate) fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn external_broker_urls() {
        assert_eq!(
            parse_url("mqtt://emqx.local:1884"),
            Some(("emqx.local".into(), 1884, None))
        );
        assert_eq!(
            parse_url("mqtt://cloud:s3cret@10.0.0.5"),
            Some(("10.0.0.5".into(), 1883, Some(("cloud".into(), "s3cret".into()))))
        );
        assert_eq!(parse_url("mqtt://:1883"), None);
        assert!(constant_time_eq(b"abc", b"abc"));
        assert!(!constant_time_eq(b"abc", b"abd"));
        assert!(!constant_time_eq(b"abc", b"ab"));
    }

    #[test]
    fn a_listening_port_is_seen_and_a_closed_one_is_not() {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = l.local_addr().unwrap();
        assert!(listening(addr));
        drop(l);
        assert!(!listening(addr));
    }
}
