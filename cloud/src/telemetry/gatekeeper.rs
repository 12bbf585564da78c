//! The gateway-facing MQTT listener of the embedded broker: an ACL front that binds each
//! connection to the gateway that signed in, because rumqttd cannot (see `broker`).
//!
//! With `broker.tls` set, each connection first completes a TLS handshake (the hub's
//! certificate; gateways check it against the CA in their `ca_file`); a client that does not
//! speak TLS, or distrusts the certificate, never reaches the CONNECT.
//!
//! For every connection it reads the CONNECT packet itself and requires: a username, a
//! client id equal to it, a valid gateway id, the gateway's current password (`verify_gateway`,
//! cached), and a last will (if any) on the gateway's own status topic. It then opens a
//! connection to rumqttd's private loopback port, signing in with the per-process secret, and
//! relays. Broker → gateway bytes pass untouched; gateway → broker packets are framed and
//! checked: PUBLISH only to `pv/1/{own id}/up/...`, SUBSCRIBE only to `pv/1/{own id}/down/...`,
//! no second CONNECT. A violation is counted (gateway mismatch) and closes the connection, which
//! makes the broker publish the gateway's last will. Packets pass through unchanged except the
//! CONNECT (re-encoded with the internal password), so the cost is one loopback hop and a look
//! at each packet's header and topic.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::{Buf, BytesMut};
use pv_shared::topics;
use pv_shared::wire::MAX_PAYLOAD_BYTES;
use rumqttd::protocol::v4::{self, V4};
use rumqttd::protocol::{Packet, Protocol};
use sha2::{Digest, Sha256};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio_rustls::TlsAcceptor;

use super::broker::BrokerError;
use super::stats::{Reason, Stats};
use crate::kernel::tls;
use crate::station::gateway::{GatewayIdentity, verify_gateway};
use crate::telemetry::context::TelemetryCtx;

/// Largest packet accepted from a gateway (the wire's payload limit plus headers).
const MAX_PACKET: usize = MAX_PAYLOAD_BYTES + 1024;
/// A connection must send its CONNECT within this.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// Sign-ins verified at once: argon2 takes tens of milliseconds and memory, so a reconnect
/// storm is queued instead of exhausting the blocking pool.
const VERIFY_CONCURRENCY: usize = 4;

/// Verifies gateway sign-ins, remembering successes for a while: argon2 is deliberately slow
/// and a fleet reconnecting after an outage would otherwise queue for seconds. The cache key is
/// SHA-256 of (gateway id, password), so the cache never holds a password; a rotated password
/// stops working when its entry expires (at most `auth_cache_seconds`).
pub struct GatewayAuth {
    state: TelemetryCtx,
    ttl: Duration,
    cache: Mutex<HashMap<[u8; 32], (GatewayIdentity, Instant)>>,
    permits: tokio::sync::Semaphore,
}

impl GatewayAuth {
    pub fn new(state: TelemetryCtx, ttl: Duration) -> GatewayAuth {
        GatewayAuth {
            state,
            ttl,
            cache: Mutex::new(HashMap::new()),
            permits: tokio::sync::Semaphore::new(VERIFY_CONCURRENCY),
        }
    }

    fn key(gateway: &str, password: &str) -> [u8; 32] {
        let mut h = Sha256::new();
        h.update(gateway.as_bytes());
        h.update([0u8]);
        h.update(password.as_bytes());
        h.finalize().into()
    }

    /// The gateway's identity when the credentials are its current ones.
    pub async fn verify(&self, gateway: &str, password: &str) -> Option<GatewayIdentity> {
        let key = Self::key(gateway, password);
        {
            let mut cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
            match cache.get(&key) {
                Some((id, at)) if at.elapsed() < self.ttl => return Some(id.clone()),
                Some(_) => {
                    cache.remove(&key);
                }
                None => {}
            }
        }
        let _permit = self.permits.acquire().await.ok()?;
        // verify_gateway runs argon2 on the blocking pool, off the async workers.
        match verify_gateway(&self.state, gateway, password).await {
            Ok(Some(id)) => {
                let mut cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
                // Expired entries go when the cache grows; a fleet's worth of entries is small.
                if cache.len() > 10_000 {
                    cache.retain(|_, (_, at)| at.elapsed() < self.ttl);
                }
                cache.insert(key, (id.clone(), Instant::now()));
                Some(id)
            }
            Ok(None) => None,
            Err(e) => {
                tracing::warn!(gateway, error = %e, "gateway sign-in could not be checked");
                None
            }
        }
    }
}

/// Opens the gateway listeners of the embedded broker: `broker.listen` (over TLS when
/// `broker.tls` is set) and, beside a TLS one, the plain `broker.plain_listen` if configured.
/// Returns the address of the first.
pub async fn listen(
    state: &TelemetryCtx,
    internal: SocketAddr,
    secret: Arc<str>,
    auth: Arc<GatewayAuth>,
    stats: Arc<Stats>,
) -> Result<SocketAddr, BrokerError> {
    let b = &state.config.broker;
    let tls = if b.tls.enabled() {
        Some(tls::acceptor(&b.tls, "broker.tls", tls::Alpn::None)?)
    } else {
        None
    };
    let mut first = None;
    for (at, tls) in [(Some(b.listen), tls), (b.plain_listen, None)] {
        let Some(at) = at else { continue };
        let bind_error = |source| BrokerError::Listen {
            addr: at.to_string(),
            source,
        };
        let listener = TcpListener::bind(at).await.map_err(bind_error)?;
        let addr = listener.local_addr().map_err(bind_error)?;
        if tls.is_none() && !addr.ip().is_loopback() {
            tracing::warn!(%addr, "plain MQTT for gateways on a network address: their passwords and data cross it in clear (set broker.tls)");
        }
        tracing::info!(%addr, tls = tls.is_some(), "MQTT broker for gateways listening");
        tokio::spawn(serve(
            listener,
            tls,
            internal,
            secret.clone(),
            auth.clone(),
            stats.clone(),
            state.shutdown.clone(),
        ));
        first.get_or_insert(addr);
    }
    first.ok_or_else(|| BrokerError::Start("no gateway listener".into()))
}

/// Accepts gateway connections on `listener` (over TLS when `tls` is given) and relays them to
/// rumqttd at `internal`.
pub async fn serve(
    listener: TcpListener,
    tls: Option<TlsAcceptor>,
    internal: SocketAddr,
    secret: Arc<str>,
    auth: Arc<GatewayAuth>,
    stats: Arc<Stats>,
    shutdown: crate::kernel::shutdown::Shutdown,
) {
    loop {
        // At shutdown the listener goes first: no gateway connects to a hub that is stopping.
        let accepted = tokio::select! {
            biased;
            _ = shutdown.stopping() => return,
            accepted = listener.accept() => accepted,
        };
        let (stream, peer) = match accepted {
            Ok(s) => s,
            Err(e) => {
                tracing::warn!(error = %e, "accepting a gateway connection");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let (secret, auth, stats, tls) = (secret.clone(), auth.clone(), stats.clone(), tls.clone());
        tokio::spawn(async move {
            let result = match tls {
                None => connection(stream, internal, secret, auth, stats).await,
                Some(tls) => match tokio::time::timeout(CONNECT_TIMEOUT, tls.accept(stream)).await {
                    Ok(Ok(stream)) => connection(stream, internal, secret, auth, stats).await,
                    Ok(Err(e)) => Err(Refusal::Tls(e)),
                    Err(_) => Err(Refusal::Timeout),
                },
            };
            if let Err(e) = result {
                tracing::debug!(%peer, reason = %e, "gateway connection closed");
            }
        });
    }
}

#[derive(Debug, thiserror::Error)]
enum Refusal {
    #[error("io: {0}")]
    Io(#[from] std::io::Error),
    #[error("TLS handshake: {0}")]
    Tls(std::io::Error),
    #[error("MQTT protocol: {0:?}")]
    Protocol(rumqttd::protocol::Error),
    #[error("the first packet is not CONNECT")]
    NotConnect,
    #[error("no CONNECT within the time limit")]
    Timeout,
    #[error("sign-in refused for {0:?}")]
    Auth(String),
    #[error("{gateway} published or subscribed outside its topics: {topic}")]
    Acl { gateway: String, topic: String },
}

/// Reads into `buf` until it holds a whole packet; returns its length.
async fn frame(
    stream: &mut (impl AsyncReadExt + Unpin),
    buf: &mut BytesMut,
) -> Result<Option<usize>, Refusal> {
    loop {
        match v4::check(buf.iter(), MAX_PACKET) {
            Ok(h) => return Ok(Some(h.frame_length())),
            Err(rumqttd::protocol::Error::InsufficientBytes(_)) => {}
            Err(e) => return Err(Refusal::Protocol(e)),
        }
        buf.reserve(8 * 1024);
        if stream.read_buf(buf).await? == 0 {
            return Ok(None);
        }
    }
}

/// CONNACK with a v3.1.1 return code (5: not authorised).
const CONNACK_NOT_AUTHORISED: [u8; 4] = [0x20, 0x02, 0x00, 0x05];

async fn connection(
    mut client: impl AsyncRead + AsyncWrite + Unpin + Send + 'static,
    internal: SocketAddr,
    secret: Arc<str>,
    auth: Arc<GatewayAuth>,
    stats: Arc<Stats>,
) -> Result<(), Refusal> {
    let mut buf = BytesMut::with_capacity(16 * 1024);
    let len = tokio::time::timeout(CONNECT_TIMEOUT, frame(&mut client, &mut buf))
        .await
        .map_err(|_| Refusal::Timeout)??;
    if len.is_none() {
        return Ok(());
    }
    let packet = V4.read_mut(&mut buf, MAX_PACKET).map_err(Refusal::Protocol)?;
    let Packet::Connect(connect, _, will, _, login) = packet else {
        return Err(Refusal::NotConnect);
    };
    let gateway = connect.client_id.clone();
    let signed_in = match &login {
        // Client id = username = a gateway id; anonymous clients are refused.
        Some(l) if l.username == gateway && topics::validate_gateway_id(&gateway).is_ok() => {
            let will_ok = will
                .as_ref()
                .is_none_or(|w| topics::status(&gateway).is_ok_and(|t| w.topic.as_ref() == t.as_bytes()));
            will_ok && auth.verify(&gateway, &l.password).await.is_some()
        }
        _ => false,
    };
    if !signed_in {
        let _ = client.write_all(&CONNACK_NOT_AUTHORISED).await;
        let _ = client.shutdown().await;
        return Err(Refusal::Auth(gateway));
    }

    let mut broker = TcpStream::connect(internal).await?;
    let _ = broker.set_nodelay(true);
    let login = login.map(|mut l| {
        l.password = secret.to_string();
        l
    });
    let mut out = BytesMut::new();
    V4.write(Packet::Connect(connect, None, will, None, login), &mut out)
        .map_err(Refusal::Protocol)?;
    broker.write_all(&out).await?;

    let (mut broker_rx, mut broker_tx) = broker.into_split();
    let (mut client_rx, mut client_tx) = tokio::io::split(client);
    // Broker → gateway: untouched. When either side ends, both are closed.
    let down = tokio::spawn(async move {
        let _ = tokio::io::copy(&mut broker_rx, &mut client_tx).await;
        let _ = client_tx.shutdown().await;
    });
    let up_prefix = format!("pv/{}/{gateway}/up/", topics::WIRE_VERSION);
    let down_prefix = format!("pv/{}/{gateway}/down/", topics::WIRE_VERSION);
    let result = async {
        loop {
            let Some(len) = frame(&mut client_rx, &mut buf).await? else {
                return Ok(());
            };
            let kind = buf[0] >> 4;
            let packet = buf.split_to(len);
            match kind {
                // PUBLISH: the topic follows the fixed header as a length-prefixed string.
                3 => {
                    let topic = publish_topic(&packet).unwrap_or_default();
                    if !topic.starts_with(&up_prefix) {
                        return Err(Refusal::Acl {
                            gateway: gateway.clone(),
                            topic,
                        });
                    }
                }
                8 => {
                    let mut copy = packet.clone();
                    let Ok(Packet::Subscribe(s, _)) = V4.read_mut(&mut copy, MAX_PACKET) else {
                        return Err(Refusal::NotConnect);
                    };
                    if let Some(f) = s.filters.iter().find(|f| !f.path.starts_with(&down_prefix)) {
                        return Err(Refusal::Acl {
                            gateway: gateway.clone(),
                            topic: f.path.clone(),
                        });
                    }
                }
                1 => return Err(Refusal::NotConnect),
                _ => {}
            }
            broker_tx.write_all(&packet).await?;
        }
    }
    .await;
    down.abort();
    if let Err(Refusal::Acl { gateway, topic }) = &result {
        tracing::warn!(gateway, topic, "gateway refused: outside its own topics");
        stats.reject(gateway, Reason::GatewayMismatch, 1, format!("topic {topic}"));
    }
    result
}

/// The topic of a PUBLISH frame (fixed header, then a 2-byte length and the topic).
fn publish_topic(frame: &[u8]) -> Option<String> {
    let mut rest = &frame[1..];
    // Skip the variable-length "remaining length" (1-4 bytes, high bit = more).
    for _ in 0..4 {
        let b = *rest.first()?;
        rest = &rest[1..];
        if b & 0x80 == 0 {
            break;
        }
    }
    if rest.len() < 2 {
        return None;
    }
    let n = rest.get_u16() as usize;
    let topic = rest.get(..n)?;
    String::from_utf8(topic.to_vec()).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_topic_of_a_publish_frame() {
        // PUBLISH QoS 1, remaining length 13: topic "a/b" (2+3), packet id (2), payload "hello".
        let f = [
            0x32, 12, 0, 3, b'a', b'/', b'b', 0, 1, b'h', b'e', b'l', b'l', b'o',
        ];
        assert_eq!(publish_topic(&f).as_deref(), Some("a/b"));
        assert_eq!(publish_topic(&[0x30]), None);
        assert_eq!(
            publish_topic(&[0x30, 5, 0, 9, b'a']),
            None,
            "topic longer than frame"
        );
    }
}
