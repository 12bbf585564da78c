//! Resource use of the gateway agent polling many simulated devices: the real `pv-edge run`
//! process (Modbus TCP polling, decoding, fsynced sled queue, MQTT uplink) against
//! `pv-edge simulate` processes on loopback, forwarding to a real broker (rumqttd) and an
//! acknowledging consumer in this process; CPU and RSS are read from /proc for the agent
//! process only.
//!
//! The agent binary is taken from beside this benchmark (target/release/pv-edge); when it is
//! missing it is built first (`cargo build --release -p pv-edge`); BENCH_PV_EDGE names another.
//! Knobs: BENCH_DEVICES (100), BENCH_INTERVAL_MS (1000), BENCH_BUSES (4), BENCH_SECONDS (30),
//! BENCH_WARMUP_SECONDS (5), BENCH_UPLINK (1; 0 = store only, as before the uplink existed).
//! With a short interval the figure is the agent's saturated throughput (samples/s polled,
//! decoded and stored) instead.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use pv_bench::{figure, knob};
use pv_edge::testkit::{Consumer, start_broker};

const MAPS: &[&str] = &[
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
    let me = std::env::current_exe()?;
    let bin = me.with_file_name("pv-edge");
    if !bin.exists() {
        eprintln!("edge_agent: building pv-edge (release)");
        let ok = Command::new("cargo")
            .args(["build", "--release", "-p", "pv-edge"])
            .status()?
            .success();
        if !ok || !bin.exists() {
            bail!("pv-edge release binary not found at {}", bin.display());
        }
    }
    Ok(bin)
}

fn free_port() -> anyhow::Result<u16> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

/// (user + system CPU seconds, RSS bytes) of a process.
fn usage(pid: u32) -> anyhow::Result<(f64, u64)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))?;
    // Fields after the command name (which may contain spaces) start after the last ')'.
    let rest = stat.rsplit_once(')').context("stat format")?.1;
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks = 100.0; // USER_HZ on Linux
    let cpu = (f[11].parse::<f64>()? + f[12].parse::<f64>()?) / ticks;
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))?;
    let rss_kb: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .context("VmRSS")?;
    Ok((cpu, rss_kb * 1024))
}

fn main() -> anyhow::Result<()> {
    let devices: usize = knob("BENCH_DEVICES", 100);
    let interval_ms: u64 = knob("BENCH_INTERVAL_MS", 1000);
    let buses: usize = knob("BENCH_BUSES", 4).clamp(1, devices.max(1));
    let seconds: u64 = knob("BENCH_SECONDS", 30);
    let warmup: u64 = knob("BENCH_WARMUP_SECONDS", 5);
    let uplink = knob("BENCH_UPLINK", 1) == 1;
    let bin = agent_binary()?;
    let maps_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../firmware-configs");
    let dir = tempfile::tempdir()?;

    // One simulator process per bus, devices spread over the buses, unit ids from 1.
    let mut sims = Vec::new();
    let mut config = format!(
        "gateway_id = \"gw-bench\"\ndata_dir = \"data\"\nmaps_dir = \"{}\"\n[queue]\nmax_samples = 100000000\n",
        maps_dir.display()
    );
    // The broker and the consumer live on this runtime's threads while main sleeps.
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()?;
    let cloud = if uplink {
        let broker = start_broker(None)?;
        config += &format!("[mqtt]\nhost = \"{}\"\nport = {}\n", broker.ip(), broker.port());
        let c = rt.block_on(Consumer::connect(broker, "bench-cloud"));
        c.store().keep_values = false;
        Some(c)
    } else {
        None
    };
    let forwarded = || cloud.as_ref().map_or(0, |c| c.store().count("gw-bench"));
    for b in 0..buses {
        let port = free_port()?;
        let mut cmd = Command::new(&bin);
        cmd.args(["simulate", "--tcp", &format!("127.0.0.1:{port}"), "--maps-dir"])
            .arg(&maps_dir);
        config +=
            &format!("[[bus]]\nname = \"bus-{b}\"\ntransport = \"tcp\"\naddress = \"127.0.0.1:{port}\"\n");
        for (k, d) in (b..devices).step_by(buses).enumerate() {
            let map = MAPS[d % MAPS.len()];
            let unit = k + 1;
            cmd.args(["--device", &format!("{unit}={map}")]);
            config += &format!(
                "[[bus.device]]\nid = \"dev-{d}\"\nmap = \"{map}\"\nunit = {unit}\ninterval_ms = {interval_ms}\n"
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

    let mut agent = Killed(
        Command::new(&bin)
            .args(["run", "--print-stored", "--config"])
            .arg(&config_path)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()?,
    );
    let pid = agent.0.id();
    let stored = Arc::new(AtomicU64::new(0));
    {
        let stored = stored.clone();
        let out = agent.0.stdout.take().context("stdout")?;
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines().map_while(Result::ok) {
                if let Some((a, b)) = line.strip_prefix("stored ").and_then(|r| r.split_once('-'))
                    && let (Ok(a), Ok(b)) = (a.parse::<u64>(), b.parse::<u64>())
                {
                    stored.fetch_add(b - a + 1, Ordering::Relaxed);
                }
            }
        });
    }
    eprintln!(
        "edge_agent: {devices} devices on {buses} buses every {interval_ms} ms; {warmup}s warm-up, {seconds}s measured"
    );
    std::thread::sleep(Duration::from_secs(warmup));
    let (cpu0, _) = usage(pid)?;
    let n0 = stored.load(Ordering::Relaxed);
    let f0 = forwarded();
    let t0 = Instant::now();
    let mut rss_max = 0;
    while t0.elapsed() < Duration::from_secs(seconds) {
        std::thread::sleep(Duration::from_millis(500));
        rss_max = rss_max.max(usage(pid)?.1);
    }
    let elapsed = t0.elapsed().as_secs_f64();
    let (cpu1, rss) = usage(pid)?;
    let n = stored.load(Ordering::Relaxed) - n0;
    let f = forwarded() - f0;
    drop(agent);
    drop(sims);

    figure("edge_agent_devices", devices as f64, "devices");
    figure("edge_agent_interval", interval_ms as f64, "ms");
    figure("edge_agent_samples_stored", n as f64 / elapsed, "samples/s");
    if uplink {
        figure("edge_agent_samples_forwarded", f as f64 / elapsed, "samples/s");
    }
    figure(
        "edge_agent_expected",
        devices as f64 * 1000.0 / interval_ms as f64,
        "samples/s",
    );
    figure("edge_agent_cpu", (cpu1 - cpu0) / elapsed * 100.0, "% of one core");
    figure("edge_agent_rss", rss as f64 / 1_048_576.0, "MiB");
    figure("edge_agent_rss_max", rss_max as f64 / 1_048_576.0, "MiB");
    Ok(())
}
