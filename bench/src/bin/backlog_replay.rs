//! Backlog replay after a long outage: how fast the real `pv-edge run` process empties a queue
//! of N samples (by default a day of 100 devices polled every second: 8 640 000) into a real
//! broker (rumqttd, in this process) and an acknowledging receiver, **while it keeps polling
//! 100 live simulated devices** (`pv-edge simulate` processes, real Modbus TCP) whose samples
//! must still go first.
//!
//! The receiving side is a real MQTT client in this process doing what the hub's ingest does
//! at the protocol level: read each telemetry batch, keep each (gateway, seq) once, publish the
//! batch's ack. It stores nothing: the hub's ingest on SQLite tops out near 25 000 samples/s
//! (`ingest_throughput`), below the figure measured here, so a run against the hub would
//! measure the hub. It reads only what proves delivery (the batch's header, each sample's seq
//! and ts; values are skipped, not built into maps): parsing every sample in full cost this
//! process about as much CPU as the agent, on the same two cores. It records every sequence
//! number in a bitmap, so lost samples (holes below the highest seq received) and duplicates
//! are counted exactly.
//!
//! Figures: queue bytes on disk per sample (allocated blocks of the sled directory after the
//! fill), replay time (agent start → every backlog sample received) and rate, lost and
//! duplicated samples, live samples received during the replay and their latency (poll → received),
//! the agent's CPU and peak RSS, the load average.
//!
//! Knobs: BENCH_SAMPLES (8640000), BENCH_DEVICES (100 live devices, 1 s), BENCH_BUSES (4),
//! BENCH_BATCH / BENCH_WINDOW (unset: the agent's defaults), BENCH_GROUP (20: readings per push
//! while filling, what the agent's store commits at once from 100 devices at 1 s with its
//! 200 ms linger; the queue keeps each push as one entry; 0 writes one entry per sample, the
//! compact layout of agents before groups), BENCH_LEGACY_QUEUE (0; 1 writes the
//! backlog in the JSON layout of gateways before the compact queue: an upgraded gateway, or an
//! older agent via BENCH_PV_EDGE), BENCH_PORT_BASE (0: free ports; else the broker listens on it
//! and the simulators on the next ports), BENCH_TIMEOUT_S (1800). Uses target/release/pv-edge.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use pv_bench::{figure, knob};
use pv_edge::clock::now_ms;
use pv_edge::queue::{NewSample, Queue};
use pv_edge::sim::SimDevice;
use pv_edge::testkit::start_broker_at;
use pv_shared::regmap::RegisterMap;
use pv_shared::topics::{self, Kind};
use pv_shared::wire::{self, Ack, Sample};
use rumqttc::{AsyncClient, Event, MqttOptions, Packet, QoS};
use serde::Deserialize;
use serde::de::IgnoredAny;

const GATEWAY: &str = "gw-bench";
const LIVE_MAPS: &[&str] = &[
    "huawei-sun2000-ktl",
    "sungrow-sg-cx",
    "growatt-max",
    "sunspec-inverter",
    "eastron-sdm630",
    "chint-dtsu666",
    "pv-reference-tracker",
];

struct Killed(Child);
impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn agent_binary() -> anyhow::Result<PathBuf> {
    if let Ok(path) = std::env::var("BENCH_PV_EDGE") {
        return Ok(PathBuf::from(path));
    }
    let bin = std::env::current_exe()?.with_file_name("pv-edge");
    if !bin.exists() {
        bail!(
            "{} missing: run bench/run (or cargo build --release -p pv-edge)",
            bin.display()
        );
    }
    Ok(bin)
}

fn port(base: u16, offset: u16) -> anyhow::Result<u16> {
    if base == 0 {
        Ok(std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
    } else {
        Ok(base + offset)
    }
}

/// (user + system CPU seconds, RSS bytes) of a process.
fn usage(pid: u32) -> anyhow::Result<(f64, u64)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))?;
    let rest = stat.rsplit_once(')').context("stat format")?.1;
    let f: Vec<&str> = rest.split_whitespace().collect();
    let cpu = (f[11].parse::<f64>()? + f[12].parse::<f64>()?) / 100.0;
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))?;
    let rss_kb: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .context("VmRSS")?;
    Ok((cpu, rss_kb * 1024))
}

fn load_average() -> f64 {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next().and_then(|v| v.parse().ok()))
        .unwrap_or(f64::NAN)
}

/// Bytes the directory's files occupy on disk (allocated blocks).
fn disk_bytes(dir: &Path) -> u64 {
    use std::os::unix::fs::MetadataExt;
    let mut total = 0;
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            match e.metadata() {
                Ok(m) if m.is_dir() => total += disk_bytes(&e.path()),
                Ok(m) => total += m.blocks() * 512,
                Err(_) => {}
            }
        }
    }
    total
}

/// The backlog: `n` readings of 100 devices one second apart, ending a day ago + n/100 s, so
/// all of it is older than what the agent sends as live.
/// Pushes of `group` readings each, as the agent's store commits them (one queue entry each).
fn fill(queue_dir: &Path, n: u64, legacy: bool, group: u64, maps_dir: &Path) -> anyhow::Result<()> {
    let map = RegisterMap::load(&maps_dir.join("huawei-sun2000-ktl.toml"))?;
    let values = SimDevice::new(Arc::new(map), 1)?.expected().clone();
    let start = now_ms() - 86_400_000 - 3_600_000;
    let reading = |i: u64| NewSample {
        device: format!("dev-{}", i % 100),
        ts: start + (i / 100) as i64 * 1000,
        values: values.clone(),
    };
    const CHUNK: u64 = 10_000;
    if legacy {
        // As gateways before the compact layout wrote it: the sample as JSON under its
        // big-endian seq, and the next seq in the default tree.
        let db = sled::Config::new()
            .path(queue_dir)
            .cache_capacity(16 * 1024 * 1024)
            .open()?;
        let tree = db.open_tree("samples")?;
        let mut i = 0;
        while i < n {
            let mut batch = sled::Batch::default();
            for j in i..(i + CHUNK).min(n) {
                let r = reading(j);
                let s = Sample {
                    seq: j + 1,
                    device: r.device,
                    ts: r.ts,
                    values: r.values,
                    suspect: Default::default(),
                };
                batch.insert(&s.seq.to_be_bytes(), serde_json::to_vec(&s)?);
            }
            tree.apply_batch(batch)?;
            i = (i + CHUNK).min(n);
        }
        db.insert(b"next", &(n + 1).to_be_bytes())?;
        db.flush()?;
    } else {
        let q = Queue::open(queue_dir, n + 1_000_000)?;
        let mut i = 0;
        while i < n {
            // Ungrouped, a push's size does not change the layout: large ones fill faster.
            let step = if group == 0 { CHUNK } else { group };
            let readings = (i..(i + step).min(n)).map(reading).collect();
            if group == 0 {
                q.push_ungrouped(readings)?;
            } else {
                q.push(readings)?;
            }
            i = (i + step).min(n);
        }
    }
    Ok(())
}

/// The parts of a `TelemetryBatch` the receiver needs; the rest of each sample is skipped.
#[derive(Deserialize)]
struct LightBatch {
    v: u32,
    gateway: String,
    batch: String,
    first_seq: u64,
    last_seq: u64,
    #[serde(default)]
    replay: bool,
    samples: Vec<LightSample>,
}

#[derive(Deserialize)]
struct LightSample {
    seq: u64,
    ts: i64,
    #[serde(rename = "values")]
    _values: IgnoredAny,
}

/// What the receiving side has seen.
#[derive(Default)]
struct Seen {
    bits: Vec<u64>,
    /// Distinct backlog samples (seq ≤ n) received.
    backlog: u64,
    duplicates: u64,
    max_seq: u64,
    batches: u64,
    refused: u64,
    /// Poll → received, ms, of live samples received before the backlog was complete.
    live_latency: Vec<i64>,
    backlog_done: bool,
}

impl Seen {
    fn mark(&mut self, seq: u64) -> bool {
        let (w, b) = ((seq / 64) as usize, seq % 64);
        if self.bits.len() <= w {
            self.bits.resize(w + 1024, 0);
        }
        let fresh = self.bits[w] & (1 << b) == 0;
        self.bits[w] |= 1 << b;
        fresh
    }

    fn holes_below_max(&self) -> u64 {
        (1..=self.max_seq)
            .filter(|s| self.bits[(s / 64) as usize] & (1 << (s % 64)) == 0)
            .count() as u64
    }
}

/// The acknowledging receiver (see the module note).
async fn receiver(broker: SocketAddr, n: u64, seen: Arc<Mutex<Seen>>) -> anyhow::Result<AsyncClient> {
    let mut o = MqttOptions::new("bench-receiver", broker.ip().to_string(), broker.port());
    o.set_keep_alive(Duration::from_secs(30))
        .set_clean_session(true)
        .set_max_packet_size(wire::MAX_PAYLOAD_BYTES + 1024, wire::MAX_PAYLOAD_BYTES + 1024);
    let (client, mut eventloop) = AsyncClient::new(o, 1024);
    let (ack_tx, mut ack_rx) = tokio::sync::mpsc::unbounded_channel::<(String, Vec<u8>)>();
    let (ready_tx, mut ready) = tokio::sync::watch::channel(false);
    let sub = client.clone();
    tokio::spawn(async move {
        loop {
            match eventloop.poll().await {
                Ok(Event::Incoming(Packet::ConnAck(_))) => {
                    let _ = sub.try_subscribe(topics::uplink_filter(), QoS::AtLeastOnce);
                }
                Ok(Event::Incoming(Packet::SubAck(_))) => {
                    let _ = ready_tx.send(true);
                }
                Ok(Event::Incoming(Packet::Publish(p))) => {
                    if !matches!(topics::parse(&p.topic), Some((_, Kind::Telemetry))) {
                        continue;
                    }
                    let batch = serde_json::from_slice::<LightBatch>(&p.payload).ok().filter(|b| {
                        b.v == topics::WIRE_VERSION && p.payload.len() <= wire::MAX_PAYLOAD_BYTES
                    });
                    let Some(batch) = batch else {
                        seen.lock().unwrap_or_else(|e| e.into_inner()).refused += 1;
                        continue;
                    };
                    let now = now_ms();
                    {
                        let mut s = seen.lock().unwrap_or_else(|e| e.into_inner());
                        s.batches += 1;
                        for smp in &batch.samples {
                            if s.mark(smp.seq) {
                                if smp.seq <= n {
                                    s.backlog += 1;
                                }
                            } else {
                                s.duplicates += 1;
                            }
                            s.max_seq = s.max_seq.max(smp.seq);
                            if !batch.replay && smp.seq > n && !s.backlog_done {
                                s.live_latency.push(now - smp.ts);
                            }
                        }
                        if s.backlog == n {
                            s.backlog_done = true;
                        }
                    }
                    if let (Ok(topic), Ok(ack)) = (
                        topics::ack(&batch.gateway),
                        wire::to_bytes(&Ack {
                            v: topics::WIRE_VERSION,
                            batch: batch.batch.clone(),
                            first_seq: batch.first_seq,
                            last_seq: batch.last_seq,
                        }),
                    ) {
                        let _ = ack_tx.send((topic, ack));
                    }
                }
                Ok(_) => {}
                Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
            }
        }
    });
    // Acks leave from their own task: the polling task must never wait on its own full queue.
    let acker = client.clone();
    tokio::spawn(async move {
        while let Some((topic, payload)) = ack_rx.recv().await {
            let _ = acker.publish(topic, QoS::AtLeastOnce, false, payload).await;
        }
    });
    tokio::time::timeout(Duration::from_secs(10), ready.wait_for(|r| *r))
        .await
        .context("receiver subscription")??;
    Ok(client)
}

fn percentile(sorted: &[i64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1] as f64
}

fn main() -> anyhow::Result<()> {
    let n: u64 = knob("BENCH_SAMPLES", 8_640_000);
    let devices: usize = knob("BENCH_DEVICES", 100);
    let buses: usize = knob("BENCH_BUSES", 4).clamp(1, devices.max(1));
    let batch: Option<usize> = std::env::var("BENCH_BATCH").ok().and_then(|v| v.parse().ok());
    let window: Option<usize> = std::env::var("BENCH_WINDOW").ok().and_then(|v| v.parse().ok());
    let legacy = knob("BENCH_LEGACY_QUEUE", 0) == 1;
    let group: u64 = knob("BENCH_GROUP", 20);
    let base: u16 = knob("BENCH_PORT_BASE", 0);
    let limit = Duration::from_secs(knob("BENCH_TIMEOUT_S", 1800));
    let bin = agent_binary()?;
    let maps_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../firmware-configs");
    let dir = tempfile::tempdir()?;
    let queue_dir = dir.path().join("data/queue");

    let t = Instant::now();
    fill(&queue_dir, n, legacy, group, &maps_dir)?;
    let bytes = disk_bytes(&queue_dir);
    eprintln!(
        "backlog_replay: {n} samples queued ({}) in {:.1} s, {:.1} MiB on disk",
        if legacy { "JSON layout" } else { "current layout" },
        t.elapsed().as_secs_f64(),
        bytes as f64 / 1_048_576.0
    );

    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let broker: SocketAddr = ([127, 0, 0, 1], port(base, 0)?).into();
    start_broker_at(broker, None)?;
    let seen = Arc::new(Mutex::new(Seen::default()));
    let _client = rt.block_on(receiver(broker, n, seen.clone()))?;

    let mut config = format!(
        "gateway_id = \"{GATEWAY}\"\ndata_dir = \"data\"\nmaps_dir = \"{}\"\n[queue]\nmax_samples = {}\n[mqtt]\nhost = \"{}\"\nport = {}\n",
        maps_dir.display(),
        n + 1_000_000,
        broker.ip(),
        broker.port()
    );
    if let Some(b) = batch {
        config += &format!("batch_max_samples = {b}\n");
    }
    if let Some(w) = window {
        config += &format!("replay_window = {w}\n");
    }
    let mut sims = Vec::new();
    for b in 0..buses {
        let p = port(base, 1 + b as u16)?;
        let mut cmd = Command::new(&bin);
        cmd.args(["simulate", "--tcp", &format!("127.0.0.1:{p}"), "--maps-dir"])
            .arg(&maps_dir);
        config += &format!("[[bus]]\nname = \"bus-{b}\"\ntransport = \"tcp\"\naddress = \"127.0.0.1:{p}\"\n");
        for (k, d) in (b..devices).step_by(buses).enumerate() {
            let map = LIVE_MAPS[d % LIVE_MAPS.len()];
            let unit = k + 1;
            cmd.args(["--device", &format!("{unit}={map}")]);
            config += &format!(
                "[[bus.device]]\nid = \"live-{d}\"\nmap = \"{map}\"\nunit = {unit}\ninterval_ms = 1000\n"
            );
        }
        let mut child = Killed(cmd.stderr(Stdio::piped()).spawn()?);
        let mut line = String::new();
        BufReader::new(child.0.stderr.take().context("stderr")?).read_line(&mut line)?;
        if !line.contains("simulating") {
            bail!("simulator did not start: {line}");
        }
        sims.push(child);
    }
    let config_path = dir.path().join("gw.toml");
    std::fs::write(&config_path, config)?;

    let load0 = load_average();
    let t0 = Instant::now();
    let agent = Killed(
        Command::new(&bin)
            .args(["run", "--config"])
            .arg(&config_path)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .context("spawn pv-edge")?,
    );
    let pid = agent.0.id();
    let mut rss_max = 0;
    let mut cpu = 0.0;
    let mut last_report = Instant::now();
    loop {
        std::thread::sleep(Duration::from_millis(100));
        if let Ok((c, rss)) = usage(pid) {
            cpu = c;
            rss_max = rss_max.max(rss);
        }
        let (done, got) = {
            let s = seen.lock().unwrap_or_else(|e| e.into_inner());
            (s.backlog_done, s.backlog)
        };
        if done {
            break;
        }
        if t0.elapsed() > limit {
            bail!("only {got} of {n} backlog samples arrived within {limit:?}");
        }
        if last_report.elapsed() > Duration::from_secs(10) {
            last_report = Instant::now();
            eprintln!(
                "backlog_replay: {got} of {n} after {:.0} s ({:.0} samples/s), load {:.2}",
                t0.elapsed().as_secs_f64(),
                got as f64 / t0.elapsed().as_secs_f64(),
                load_average()
            );
        }
    }
    let elapsed = t0.elapsed().as_secs_f64();
    let load1 = load_average();
    // Live samples keep flowing; give the ones in flight a moment before looking for holes.
    std::thread::sleep(Duration::from_secs(3));
    drop(agent);
    drop(sims);
    let s = seen.lock().unwrap_or_else(|e| e.into_inner());
    let mut lat = s.live_latency.clone();
    lat.sort_unstable();

    figure("backlog_replay_samples", n as f64, "samples");
    figure(
        "backlog_replay_queue_bytes_per_sample",
        (bytes as f64 / n as f64).round(),
        "bytes",
    );
    figure("backlog_replay_time", elapsed, "s");
    figure("backlog_replay", n as f64 / elapsed, "samples/s");
    figure("backlog_replay_lost", s.holes_below_max() as f64, "samples");
    figure("backlog_replay_duplicates", s.duplicates as f64, "samples");
    figure("backlog_replay_refused", s.refused as f64, "messages");
    figure("backlog_replay_messages", s.batches as f64, "messages");
    figure("backlog_replay_live_samples", lat.len() as f64, "samples");
    figure("backlog_replay_live_latency_p50", percentile(&lat, 50.0), "ms");
    figure("backlog_replay_live_latency_p99", percentile(&lat, 99.0), "ms");
    figure("backlog_replay_live_latency_max", percentile(&lat, 100.0), "ms");
    figure("backlog_replay_agent_cpu", cpu / elapsed * 100.0, "% of one core");
    // utime+stime over the replay (live polling included), per backlog sample: unlike the rate,
    // it does not depend on what else the machine runs.
    figure("backlog_replay_agent_cpu_per_sample", cpu / n as f64 * 1e6, "µs");
    figure(
        "backlog_replay_agent_rss_max",
        rss_max as f64 / 1_048_576.0,
        "MiB",
    );
    figure("backlog_replay_load_start", load0, "load average (1 min)");
    figure("backlog_replay_load_end", load1, "load average (1 min)");
    Ok(())
}
