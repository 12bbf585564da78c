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
