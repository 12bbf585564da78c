//! Helpers of the edge integration tests: real simulators on real sockets and pseudo-terminals.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use pv_edge::device::DeviceSpec;
use pv_edge::scheduler::{self, BusConfig, BusPolicy, BusStats, Event};
use pv_edge::sim::{SimDevice, Simulator};
use pv_edge::transport::Transport;
use pv_shared::regmap::RegisterMap;
use tokio::sync::{mpsc, watch};

pub fn maps() -> Vec<Arc<RegisterMap>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../firmware-configs");
    RegisterMap::load_dir(&dir)
        .expect("maps load")
        .into_iter()
        .map(Arc::new)
        .collect()
}

/// One simulated device per map on one bus, unit ids from 1.
pub fn simulator(maps: &[Arc<RegisterMap>], seed: u64) -> Simulator {
    Simulator::new(maps.iter().enumerate().map(|(i, m)| {
        (
            (i + 1) as u8,
            Arc::new(SimDevice::new(m.clone(), seed + i as u64).expect("simulate")),
        )
    }))
}

pub fn devices(maps: &[Arc<RegisterMap>], interval: Duration) -> Vec<DeviceSpec> {
    maps.iter()
        .enumerate()
        .map(|(i, m)| DeviceSpec {
            id: format!("{}#{}", m.id, i + 1),
            unit: (i + 1) as u8,
            map: m.clone(),
            interval,
        })
        .collect()
}

pub async fn serve_tcp(sim: Simulator) -> std::net::SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(sim.serve_tcp(listener));
    addr
}

pub struct RunningBus {
    pub stats: Arc<BusStats>,
    pub events: mpsc::Receiver<Event>,
    pub stop: watch::Sender<bool>,
    pub task: tokio::task::JoinHandle<()>,
}

pub fn start_bus(transport: Transport, devices: Vec<DeviceSpec>, policy: BusPolicy) -> RunningBus {
    let stats = Arc::new(BusStats::new(&devices));
    let (tx, events) = mpsc::channel(1024);
    let (stop, stop_rx) = watch::channel(false);
    let config = BusConfig {
        name: "test-bus".into(),
        transport,
        policy,
        devices,
    };
    let task = tokio::spawn(scheduler::run(config, stats.clone(), tx, stop_rx));
    RunningBus {
        stats,
        events,
        stop,
        task,
    }
}

/// A socat pseudo-terminal pair; both ends appear as symlinks in a temporary folder.
pub struct PtyPair {
    pub master_side: PathBuf,
    pub device_side: PathBuf,
    child: std::process::Child,
    _dir: tempfile::TempDir,
}

impl PtyPair {
    pub async fn new() -> PtyPair {
        let dir = tempfile::tempdir().expect("tempdir");
        let a = dir.path().join("poller");
        let b = dir.path().join("device");
        let child = std::process::Command::new("socat")
            .arg(format!("pty,raw,echo=0,link={}", a.display()))
            .arg(format!("pty,raw,echo=0,link={}", b.display()))
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("socat must be installed (scripts/setup test installs it)");
        for _ in 0..100 {
            if a.exists() && b.exists() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert!(a.exists() && b.exists(), "socat did not create the pty pair");
        PtyPair {
            master_side: a,
            device_side: b,
            child,
            _dir: dir,
        }
    }
}

impl Drop for PtyPair {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A gateway configuration file in `dir`: one Modbus TCP bus at `sim` with `devices`
/// (`(id, map, unit)`), polled every `interval_ms`, plus `extra` TOML (e.g. an `[mqtt]` section).
pub fn gateway_config(
    dir: &Path,
    gateway: &str,
    sim: std::net::SocketAddr,
    devices: &[(&str, &str, u8)],
    interval_ms: u64,
    extra: &str,
) -> PathBuf {
    let maps_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../firmware-configs");
    let mut text = format!(
        "gateway_id = \"{gateway}\"\ndata_dir = \"data\"\nmaps_dir = \"{}\"\n{extra}\n[[bus]]\nname = \"sim\"\ntransport = \"tcp\"\naddress = \"{sim}\"\ntimeout_ms = 300\nretries = 0\noffline_after = 2\nbackoff_initial_s = 2\n",
        maps_dir.display()
    );
    for (id, map, unit) in devices {
        text += &format!(
            "[[bus.device]]\nid = \"{id}\"\nmap = \"{map}\"\nunit = {unit}\ninterval_ms = {interval_ms}\n"
        );
    }
    let path = dir.join("gw.toml");
    std::fs::write(&path, text).expect("write config");
    path
}

/// An `[mqtt]` section for a broker (or relay) at `addr`, with short timers for tests.
pub fn mqtt_section(addr: std::net::SocketAddr, more: &str) -> String {
    format!(
        "[mqtt]\nhost = \"{}\"\nport = {}\nkeep_alive_s = 5\nreconnect_initial_ms = 200\nreconnect_max_s = 2\nstatus_interval_s = 1\nbatch_linger_ms = 100\n{more}\n",
        addr.ip(),
        addr.port()
    )
}

/// The real `pv-edge run` process, with the sequence numbers it reported stored.
pub struct Agent {
    pub child: std::process::Child,
    pub stored: Arc<std::sync::Mutex<std::collections::BTreeSet<u64>>>,
    pub log: PathBuf,
    reader: Option<std::thread::JoinHandle<()>>,
}

impl Agent {
    pub fn spawn(config: &Path) -> Agent {
        use std::io::BufRead;
        let log = config.with_extension(format!(
            "{}.log",
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or(0)
        ));
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_pv-edge"))
            .args(["run", "--print-stored", "--config"])
            .arg(config)
            .env("RUST_LOG", "info")
            .stdout(std::process::Stdio::piped())
            .stderr(std::fs::File::create(&log).expect("log file"))
            .spawn()
            .expect("spawn pv-edge");
        let stored = Arc::new(std::sync::Mutex::new(std::collections::BTreeSet::new()));
        let out = child.stdout.take().expect("stdout");
        let reader = {
            let stored = stored.clone();
            std::thread::spawn(move || {
                for line in std::io::BufReader::new(out).lines() {
                    let Ok(line) = line else { break };
                    if let Some((a, b)) = line.strip_prefix("stored ").and_then(|r| r.split_once('-'))
                        && let (Ok(a), Ok(b)) = (a.parse::<u64>(), b.parse::<u64>())
                    {
                        stored.lock().unwrap().extend(a..=b);
                    }
                }
            })
        };
        Agent {
            child,
            stored,
            log,
            reader: Some(reader),
        }
    }

    pub fn stored(&self) -> std::collections::BTreeSet<u64> {
        self.stored.lock().unwrap().clone()
    }

    pub fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    pub fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// kill -9.
    pub fn kill(mut self) -> std::collections::BTreeSet<u64> {
        let _ = self.child.kill();
        let _ = self.child.wait();
        if let Some(r) = self.reader.take() {
            let _ = r.join();
        }
        self.stored()
    }

    /// SIGTERM, and the exit status once it stopped.
    pub fn terminate(mut self) -> (std::process::ExitStatus, std::collections::BTreeSet<u64>) {
        let _ = std::process::Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let status = self.child.wait().expect("wait");
        if let Some(r) = self.reader.take() {
            let _ = r.join();
        }
        (status, self.stored())
    }
}

impl Drop for Agent {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
