//! Backlog replay: how fast the real `pv-edge run` process empties a queue of N samples (as
//! after a long outage) into a real broker (rumqttd, in this process) and an acknowledging
//! consumer: from the agent's start until the consumer has stored every sample. Each sample is
//! a real inverter's reading (the Huawei map's ~40 values). The agent has no buses, so the
//! figure is the uplink alone: read from sled, encode, publish QoS 1, ack, delete.
//!
//! Knobs: BENCH_SAMPLES (50000), BENCH_BATCH (200 samples per message), BENCH_WINDOW (8
//! batches awaiting their ack). Uses target/release/pv-edge (BENCH_PV_EDGE names another).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use pv_bench::{figure, knob};
use pv_edge::queue::{NewSample, Queue};
use pv_edge::sim::SimDevice;
use pv_edge::testkit::{Consumer, start_broker};
use pv_shared::regmap::RegisterMap;

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

fn main() -> anyhow::Result<()> {
    let n: usize = knob("BENCH_SAMPLES", 50_000);
    let batch: usize = knob("BENCH_BATCH", 200);
    let window: usize = knob("BENCH_WINDOW", 8);
    let bin = agent_binary()?;
    let maps_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../firmware-configs");
    let dir = tempfile::tempdir()?;

    // The backlog: N readings of a simulated Huawei inverter, stored as the agent stores them.
    let map = RegisterMap::load(&maps_dir.join("huawei-sun2000-ktl.toml"))?;
    let values = SimDevice::new(Arc::new(map), 1)?.expected().clone();
    {
        let q = Queue::open(&dir.path().join("data/queue"), 100_000_000)?;
        let mut left = n;
        while left > 0 {
            let k = left.min(5000);
            q.push(
                (0..k)
                    .map(|i| NewSample {
                        device: format!("inv-{}", i % 20),
                        ts: 1_700_000_000_000 + i as i64,
                        values: values.clone(),
                    })
                    .collect(),
            )?;
            left -= k;
        }
    }

    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    rt.block_on(async {
        let broker = start_broker(None)?;
        let cloud = Consumer::connect(broker, "bench-cloud").await;
        cloud.store().keep_values = false;
        let config = dir.path().join("gw.toml");
        std::fs::write(
            &config,
            format!(
                "gateway_id = \"gw-bench\"\ndata_dir = \"data\"\nmaps_dir = \"{}\"\n[mqtt]\nhost = \"{}\"\nport = {}\nbatch_max_samples = {batch}\nreplay_window = {window}\n",
                maps_dir.display(),
                broker.ip(),
                broker.port()
            ),
        )?;
        eprintln!("backlog_replay: {n} samples, {batch} per batch, window {window}");
        let t0 = Instant::now();
        let _agent = Killed(
            Command::new(&bin)
                .args(["run", "--config"])
                .arg(&config)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .context("spawn pv-edge")?,
        );
        let done = cloud
            .wait_for(Duration::from_secs(600), |s| s.count("gw-bench") >= n)
            .await;
        let elapsed = t0.elapsed().as_secs_f64();
        if !done {
            bail!("only {} of {n} samples arrived", cloud.store().count("gw-bench"));
        }
        let st = cloud.store();
        figure("backlog_replay_samples", n as f64, "samples");
        figure("backlog_replay", n as f64 / elapsed, "samples/s");
        figure("backlog_replay_batches", st.batches.len() as f64, "messages");
        figure("backlog_replay_duplicates", st.duplicates() as f64, "samples");
        Ok(())
    })
}
