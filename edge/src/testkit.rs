//! Real pieces for tests and benchmarks (feature `testkit`, never in a gateway build): an MQTT
//! broker (rumqttd, in-process on a free loopback port), a stand-in for the cloud ingest that
//! stores samples keyed by (gateway, seq) and acknowledges each batch the way the cloud must,
//! and a TCP relay that can be cut to simulate a network or broker outage.

use std::collections::{BTreeMap, HashMap};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use pv_shared::topics::{self, Kind};
use pv_shared::wire::{self, Command, CommandAck, GatewayStatus, Sample};
use rumqttc::{AsyncClient, Event, MqttOptions, Packet, QoS};
use tokio::sync::{mpsc, watch};

/// A free loopback port (bound, noted, released).
pub fn free_port() -> std::io::Result<u16> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

/// Starts rumqttd on a free loopback port; it runs until the process ends (rumqttd has no
/// shutdown). `users` enables password checks (username → password).
pub fn start_broker(users: Option<HashMap<String, String>>) -> std::io::Result<SocketAddr> {
    start_broker_at(([127, 0, 0, 1], free_port()?).into(), users)
}

/// As `start_broker`, on a given address (benchmarks run on an assigned port range).
pub fn start_broker_at(
    addr: SocketAddr,
    users: Option<HashMap<String, String>>,
) -> std::io::Result<SocketAddr> {
    use rumqttd::{Config, ConnectionSettings, RouterConfig, ServerSettings};
    let connections = ConnectionSettings {
        connection_timeout_ms: 5000,
        max_payload_size: wire::MAX_PAYLOAD_BYTES + 1024,
        max_inflight_count: 500,
        auth: users,
        external_auth: None,
        dynamic_filters: true,
    };
    let server = ServerSettings {
        name: "v4".into(),
        listen: addr,
        tls: None,
        next_connection_delay_ms: 1,
        connections,
    };
    let config = Config {
        id: 0,
        // The router's numeric defaults are zero; segments big enough that a briefly slow test
        // consumer loses nothing (the gateway would resend it after its ack timeout anyway).
        router: RouterConfig {
            max_connections: 1000,
            max_outgoing_packet_count: 1000,
            max_segment_size: 32 * 1024 * 1024,
            max_segment_count: 8,
            ..RouterConfig::default()
        },
        v4: Some(HashMap::from([("v4".to_string(), server)])),
        ..Config::default()
    };
    std::thread::Builder::new()
        .name("rumqttd".into())
        .spawn(move || {
            let mut broker = rumqttd::Broker::new(config);
            if let Err(e) = broker.start() {
                eprintln!("rumqttd stopped: {e}");
            }
        })?;
    let deadline = Instant::now() + Duration::from_secs(10);
    while std::net::TcpStream::connect(addr).is_err() {
        if Instant::now() > deadline {
            return Err(std::io::Error::other("rumqttd did not start listening"));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Ok(addr)
}

/// One telemetry batch as the consumer received it.
#[derive(Debug, Clone)]
pub struct Received {
    pub gateway: String,
    pub first_seq: u64,
    pub last_seq: u64,
    pub replay: bool,
    pub samples: usize,
    /// Samples of the batch the store already had.
    pub duplicates: usize,
    pub at: Instant,
    /// Newest sample time in the batch (ms since the epoch).
    pub newest_ts: i64,
}

/// What the stand-in cloud has stored and seen.
#[derive(Debug, Default)]
pub struct Store {
    /// Stored samples, at most one per (gateway, seq): the idempotent ingest.
    pub samples: BTreeMap<(String, u64), Sample>,
    pub batches: Vec<Received>,
    pub statuses: Vec<(Instant, GatewayStatus)>,
    pub answers: Vec<CommandAck>,
    /// Payloads the consumer refused.
    pub refused: u64,
    /// When false, batches are stored but not acknowledged (a cloud whose acks get lost).
    pub acking: bool,
    /// When false, samples are stored without their values (benchmarks of many samples).
    pub keep_values: bool,
}

impl Store {
    /// Sequence numbers stored for `gateway`, ascending.
    pub fn seqs(&self, gateway: &str) -> Vec<u64> {
        self.samples
            .keys()
            .filter(|(g, _)| g == gateway)
            .map(|(_, s)| *s)
            .collect()
    }

    /// Samples stored for `gateway`.
    pub fn count(&self, gateway: &str) -> usize {
        self.samples
            .range((gateway.to_string(), 0)..=(gateway.to_string(), u64::MAX))
            .count()
    }

    pub fn duplicates(&self) -> usize {
        self.batches.iter().map(|b| b.duplicates).sum()
    }
}

/// A real MQTT client standing in for the cloud ingest.
pub struct Consumer {
    client: AsyncClient,
    store: Arc<Mutex<Store>>,
    tasks: Vec<tokio::task::JoinHandle<()>>,
}

impl Drop for Consumer {
    fn drop(&mut self) {
        for t in &self.tasks {
            t.abort();
        }
    }
}

impl Consumer {
    /// Connects to `broker`, subscribes to every gateway's uplink and starts acknowledging.
    pub async fn connect(broker: SocketAddr, client_id: &str) -> Consumer {
        let mut o = MqttOptions::new(client_id, broker.ip().to_string(), broker.port());
        o.set_keep_alive(Duration::from_secs(30))
            .set_clean_session(true)
            .set_max_packet_size(wire::MAX_PAYLOAD_BYTES + 1024, wire::MAX_PAYLOAD_BYTES + 1024);
        let (client, mut eventloop) = AsyncClient::new(o, 1024);
        let store = Arc::new(Mutex::new(Store {
            acking: true,
            keep_values: true,
            ..Store::default()
        }));
        let (ack_tx, mut ack_rx) = mpsc::unbounded_channel::<(String, Vec<u8>)>();
        let (ready_tx, mut ready) = watch::channel(false);
        let poll = {
            let store = store.clone();
            let client = client.clone();
            tokio::spawn(async move {
                loop {
                    match eventloop.poll().await {
                        Ok(Event::Incoming(Packet::ConnAck(_))) => {
                            let _ = client.try_subscribe(topics::uplink_filter(), QoS::AtLeastOnce);
                        }
                        Ok(Event::Incoming(Packet::SubAck(_))) => {
                            let _ = ready_tx.send(true);
                        }
                        Ok(Event::Incoming(Packet::Publish(p))) => {
                            if let Some(ack) = ingest(&store, &p.topic, &p.payload) {
                                let _ = ack_tx.send(ack);
                            }
                        }
                        Ok(_) => {}
                        Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
                    }
                }
            })
        };
        // Acks go out from their own task: publishing from the polling task could wait on a
        // full request channel that only the polling task drains.
        let acker = {
            let client = client.clone();
            tokio::spawn(async move {
                while let Some((topic, payload)) = ack_rx.recv().await {
                    let _ = client.publish(topic, QoS::AtLeastOnce, false, payload).await;
                }
            })
        };
        let _ = tokio::time::timeout(Duration::from_secs(10), ready.wait_for(|r| *r)).await;
        Consumer {
            client,
            store,
            tasks: vec![poll, acker],
        }
    }

    pub fn store(&self) -> MutexGuard<'_, Store> {
        self.store.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Sends a command to a gateway.
    pub async fn command(&self, gateway: &str, command: &Command) {
        let (Ok(topic), Ok(bytes)) = (topics::command(gateway), wire::to_bytes(command)) else {
            return;
        };
        let _ = self.client.publish(topic, QoS::AtLeastOnce, false, bytes).await;
    }

    /// Waits until `done` holds for the store, or `limit` passes; returns whether it held.
    pub async fn wait_for(&self, limit: Duration, done: impl Fn(&Store) -> bool) -> bool {
        let deadline = Instant::now() + limit;
        loop {
            if done(&self.store()) {
                return true;
            }
            if Instant::now() > deadline {
                return false;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

/// Stores what arrived; returns the ack to publish, if any.
fn ingest(store: &Mutex<Store>, topic: &str, payload: &[u8]) -> Option<(String, Vec<u8>)> {
    let mut st = store.lock().unwrap_or_else(|e| e.into_inner());
    let Some((gateway, kind)) = topics::parse(topic) else {
        st.refused += 1;
        return None;
    };
    match kind {
        Kind::Telemetry => {
            let batch = match wire::parse_batch(payload) {
                Ok(b) if b.gateway == gateway => b,
                _ => {
                    st.refused += 1;
                    return None;
                }
            };
            let mut duplicates = 0;
            let newest_ts = batch.samples.iter().map(|s| s.ts).max().unwrap_or(0);
            let n = batch.samples.len();
            for s in &batch.samples {
                let key = (gateway.to_string(), s.seq);
                if st.samples.contains_key(&key) {
                    duplicates += 1;
                } else if st.keep_values {
                    st.samples.insert(key, s.clone());
                } else {
                    let bare = Sample {
                        seq: s.seq,
                        device: s.device.clone(),
                        ts: s.ts,
                        values: BTreeMap::new(),
                        suspect: BTreeMap::new(),
                    };
                    st.samples.insert(key, bare);
                }
            }
            st.batches.push(Received {
                gateway: gateway.to_string(),
                first_seq: batch.first_seq,
                last_seq: batch.last_seq,
                replay: batch.replay,
                samples: n,
                duplicates,
                at: Instant::now(),
                newest_ts,
            });
            if !st.acking {
                return None;
            }
            let topic = topics::ack(gateway).ok()?;
            Some((topic, wire::to_bytes(&batch.ack()).ok()?))
        }
        Kind::Status => {
            // An empty retained payload clears the topic; nothing to record.
            if payload.is_empty() {
                return None;
            }
            match wire::parse::<GatewayStatus>(payload) {
                Ok(s) => st.statuses.push((Instant::now(), s)),
                Err(_) => st.refused += 1,
            }
            None
        }
        Kind::CommandAck => {
            match wire::parse::<CommandAck>(payload) {
                Ok(a) => st.answers.push(a),
                Err(_) => st.refused += 1,
            }
            None
        }
        Kind::Ack | Kind::Command => None,
    }
}

/// A TCP relay between the gateway and the broker that can be cut: while cut, open
/// connections are closed and new ones are closed as soon as they arrive (what the gateway
/// sees when the broker or the network is down).
pub struct Relay {
    pub addr: SocketAddr,
    cut: watch::Sender<u64>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Relay {
    pub async fn start(upstream: SocketAddr) -> std::io::Result<Relay> {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        // Odd generation = cut.
        let (cut, gen_rx) = watch::channel(0u64);
        let task = tokio::spawn(async move {
            loop {
                let Ok((mut inbound, _)) = listener.accept().await else {
                    continue;
                };
                let mut gen_rx = gen_rx.clone();
                let generation = *gen_rx.borrow_and_update();
                if generation % 2 == 1 {
                    drop(inbound);
                    continue;
                }
                tokio::spawn(async move {
                    let Ok(mut outbound) = tokio::net::TcpStream::connect(upstream).await else {
                        return;
                    };
                    tokio::select! {
                        _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound) => {}
                        _ = gen_rx.changed() => {}
                    }
                });
            }
        });
        Ok(Relay { addr, cut, task })
    }

    pub fn cut(&self) {
        self.cut.send_modify(|g| {
            if *g % 2 == 0 {
                *g += 1
            }
        });
    }

    pub fn restore(&self) {
        self.cut.send_modify(|g| {
            if *g % 2 == 1 {
                *g += 1
            }
        });
    }
}
