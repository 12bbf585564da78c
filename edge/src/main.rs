//! Gateway agent command line: `run` polls the configured buses and stores every reading in the
//! durable queue (the MQTT uplink is not built yet), `check` validates a configuration,
//! `probe`/`scan`/`read`/`write` are the commissioning tools, `simulate` serves register maps
//! as simulated devices.

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;
use clap::{Parser, Subcommand};
use pv_edge::config::GatewayConfig;
use pv_edge::device::DeviceSpec;
use pv_edge::queue::{NewSample, Queue};
use pv_edge::scheduler::{self, BusPolicy, BusStats, Event, Session};
use pv_edge::sim::{SimDevice, Simulator};
use pv_edge::transport::{Parity, Transport};
use pv_shared::regmap::Function;
use pv_shared::regmap::RegisterMap;
use pv_shared::wire::Value;
use std::time::Duration;
use tokio::sync::{mpsc, watch};

#[derive(Parser, Debug)]
#[command(name = "pv-edge", version, about = "PV station gateway agent")]
struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Poll the configured buses and store every reading durably.
    Run {
        #[arg(long, short, default_value = "pv-edge.toml")]
        config: PathBuf,
        /// Print `stored FIRST-LAST` on stdout once readings are durable (used by crash tests).
        #[arg(long)]
        print_stored: bool,
    },
    /// Check a configuration file and the maps it uses; errors name file, line and field.
    Check {
        #[arg(long, short, default_value = "pv-edge.toml")]
        config: PathBuf,
    },
    /// Poll one device once with a register map and print its values with units.
    Probe {
        #[command(flatten)]
        bus: BusArgs,
        #[arg(long, default_value_t = 1)]
        unit: u8,
        /// Map id (file stem in the maps folder).
        #[arg(long)]
        map: String,
        #[arg(long, default_value = "firmware-configs")]
        maps_dir: PathBuf,
    },
    /// Find the unit ids that answer on a bus (an exception counts as an answer).
    Scan {
        #[command(flatten)]
        bus: BusArgs,
        #[arg(long, default_value_t = 1)]
        from: u8,
        #[arg(long, default_value_t = 247)]
        to: u8,
        /// Register to probe with (function 3).
        #[arg(long, default_value_t = 0)]
        register: u16,
    },
    /// Read raw registers.
    Read {
        #[command(flatten)]
        bus: BusArgs,
        #[arg(long, default_value_t = 1)]
        unit: u8,
        /// 3 (holding) or 4 (input).
        #[arg(long, default_value_t = 3)]
        function: u8,
        #[arg(long)]
        start: u16,
        #[arg(long, default_value_t = 1)]
        count: u16,
    },
    /// Write holding registers (function 16).
    Write {
        #[command(flatten)]
        bus: BusArgs,
        #[arg(long, default_value_t = 1)]
        unit: u8,
        #[arg(long)]
        start: u16,
        /// Register values, comma separated (decimal or 0x hex).
        #[arg(long, value_delimiter = ',', value_parser = parse_word)]
        values: Vec<u16>,
    },
    /// Serve register maps as simulated devices over Modbus TCP or RTU.
    Simulate {
        /// Folder of register maps.
        #[arg(long, default_value = "firmware-configs")]
        maps_dir: PathBuf,
        /// `UNIT=MAP_ID`, repeatable (e.g. `1=huawei-sun2000-ktl`).
        #[arg(long = "device", required = true)]
        devices: Vec<String>,
        /// Serve Modbus TCP on this address.
        #[arg(long, conflicts_with = "rtu")]
        tcp: Option<std::net::SocketAddr>,
        /// Serve Modbus RTU on this serial port or pseudo-terminal.
        #[arg(long)]
        rtu: Option<PathBuf>,
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
}

/// Which bus a commissioning command talks to.
#[derive(clap::Args, Debug)]
struct BusArgs {
    /// Modbus TCP device or gateway.
    #[arg(long, group = "target")]
    tcp: Option<std::net::SocketAddr>,
    /// RTU frames over TCP (serial device server).
    #[arg(long, group = "target")]
    rtu_over_tcp: Option<std::net::SocketAddr>,
    /// Serial port for Modbus RTU.
    #[arg(long, group = "target")]
    serial: Option<String>,
    #[arg(long, default_value_t = 9600)]
    baud: u32,
    #[arg(long, default_value_t = 1000)]
    timeout_ms: u64,
}

impl BusArgs {
    fn session(&self) -> anyhow::Result<Session> {
        let transport = match (&self.tcp, &self.rtu_over_tcp, &self.serial) {
            (Some(a), _, _) => Transport::Tcp { address: *a },
            (_, Some(a), _) => Transport::RtuOverTcp { address: *a },
            (_, _, Some(p)) => Transport::Rtu {
                path: p.clone(),
                baud: self.baud,
                parity: Parity::None,
                stop_bits: 1,
                data_bits: 8,
            },
            _ => anyhow::bail!("give --tcp, --rtu-over-tcp or --serial"),
        };
        let policy = BusPolicy {
            timeout: Duration::from_millis(self.timeout_ms),
            retries: 0,
            ..BusPolicy::default()
        };
        Ok(Session::new(transport, policy))
    }
}

fn parse_word(s: &str) -> Result<u16, String> {
    match s.strip_prefix("0x") {
        Some(h) => u16::from_str_radix(h, 16),
        None => s.parse(),
    }
    .map_err(|e| format!("{s:?}: {e}"))
}

fn main() -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into()),
        )
        .init();
    let args = Args::parse();
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    match args.command {
        Command::Check { config } => {
            let c = GatewayConfig::load(&config)?;
            let devices: usize = c.buses.iter().map(|b| b.devices.len()).sum();
            println!(
                "{}: gateway {}, {} buses, {devices} devices: ok",
                config.display(),
                c.gateway_id,
                c.buses.len()
            );
            Ok(())
        }
        Command::Run { config, print_stored } => rt.block_on(run(config, print_stored)),
        Command::Probe {
            bus,
            unit,
            map,
            maps_dir,
        } => rt.block_on(async {
            let maps = RegisterMap::load_dir(&maps_dir)?;
            let map = maps
                .into_iter()
                .find(|m| m.id == map)
                .with_context(|| format!("no map {map} in {}", maps_dir.display()))?;
            let spec = DeviceSpec {
                id: format!("unit-{unit}"),
                unit,
                map: Arc::new(map),
                interval: Duration::from_secs(1),
            };
            let values = bus.session()?.poll(&spec).await.map_err(anyhow::Error::msg)?;
            for (metric, value) in &values {
                let unit = pv_shared::metrics::lookup(metric)
                    .map(|m| m.unit().symbol)
                    .unwrap_or("");
                match value {
                    Value::Number(x) => println!("{metric} {x} {unit}"),
                    Value::Text(t) => println!("{metric} {t:?}"),
                }
            }
            if let Some(Value::Number(code)) = values.get("status_code")
                && let Some(s) = spec.map.status_of(*code as u32)
            {
                println!("status: {} / {}", s.en, s.zh);
            }
            Ok(())
        }),
        Command::Scan {
            bus,
            from,
            to,
            register,
        } => rt.block_on(async {
            let mut session = bus.session()?;
            for unit in from..=to {
                if session.present(unit, Function::Holding, register).await {
                    println!("unit {unit}: answers");
                }
            }
            Ok(())
        }),
        Command::Read {
            bus,
            unit,
            function,
            start,
            count,
        } => rt.block_on(async {
            let function = match function {
                3 => Function::Holding,
                4 => Function::Input,
                other => anyhow::bail!("function {other}: only 3 or 4 read registers"),
            };
            let words = bus
                .session()?
                .read(unit, function, start, count)
                .await
                .map_err(anyhow::Error::msg)?;
            for (k, w) in words.iter().enumerate() {
                println!("{} {w} 0x{w:04X}", u32::from(start) + k as u32);
            }
            Ok(())
        }),
        Command::Write {
            bus,
            unit,
            start,
            values,
        } => rt.block_on(async {
            bus.session()?
                .write(unit, start, &values)
                .await
                .map_err(anyhow::Error::msg)?;
            println!("wrote {} registers at {start}", values.len());
            Ok(())
        }),
        Command::Simulate {
            maps_dir,
            devices,
            tcp,
            rtu,
            seed,
        } => rt.block_on(simulate(maps_dir, devices, tcp, rtu, seed)),
    }
}

async fn run(config: PathBuf, print_stored: bool) -> anyhow::Result<()> {
    let c = GatewayConfig::load(&config)?;
    std::fs::create_dir_all(&c.data_dir).with_context(|| format!("data dir {}", c.data_dir.display()))?;
    let queue = Arc::new(Queue::open(&c.data_dir.join("queue"), c.queue_max_samples)?);
    tracing::info!(gateway = %c.gateway_id, queue = ?queue.stats(), "pv-edge running");
    let (tx, mut rx) = mpsc::channel::<Event>(4096);
    let (stop_tx, stop_rx) = watch::channel(false);
    let mut tasks = Vec::new();
    for bus in c.buses {
        let stats = Arc::new(BusStats::new(&bus.devices));
        tasks.push(tokio::spawn(scheduler::run(
            bus,
            stats,
            tx.clone(),
            stop_rx.clone(),
        )));
    }
    drop(tx);

    let store = {
        let queue = queue.clone();
        tokio::spawn(async move {
            let mut stdout = std::io::stdout();
            while let Some(first) = rx.recv().await {
                // Group commit: everything already waiting goes into one durable write.
                let mut batch = Vec::new();
                let mut next = Some(first);
                while let Some(e) = next {
                    match e {
                        Event::Reading(r) => batch.push(NewSample {
                            device: r.device,
                            ts: r.ts,
                            values: r.values,
                        }),
                        Event::Online { device } => tracing::info!(%device, "device online"),
                        Event::Offline { device, reason } => {
                            tracing::warn!(%device, %reason, "device offline")
                        }
                    }
                    next = if batch.len() < 512 {
                        rx.try_recv().ok()
                    } else {
                        None
                    };
                }
                if batch.is_empty() {
                    continue;
                }
                let q = queue.clone();
                match tokio::task::spawn_blocking(move || q.push(batch)).await {
                    Ok(Ok(seqs)) => {
                        if print_stored && let (Some(a), Some(b)) = (seqs.first(), seqs.last()) {
                            let _ = writeln!(stdout, "stored {a}-{b}");
                            let _ = stdout.flush();
                        }
                    }
                    Ok(Err(e)) => tracing::error!(%e, "queue write failed; readings lost"),
                    Err(e) => tracing::error!(%e, "queue writer panicked"),
                }
            }
        })
    };

    shutdown_signal().await;
    tracing::info!("stopping");
    let _ = stop_tx.send(true);
    for t in tasks {
        let _ = t.await;
    }
    let _ = store.await;
    Ok(())
}

async fn shutdown_signal() {
    let ctrl_c = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = ctrl_c => {}
                    _ = term.recv() => {}
                }
            }
            Err(_) => {
                let _ = ctrl_c.await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = ctrl_c.await;
    }
}

async fn simulate(
    maps_dir: PathBuf,
    devices: Vec<String>,
    tcp: Option<std::net::SocketAddr>,
    rtu: Option<PathBuf>,
    seed: u64,
) -> anyhow::Result<()> {
    let maps: Vec<RegisterMap> = RegisterMap::load_dir(&maps_dir)?;
    let mut units = Vec::new();
    for d in &devices {
        let (unit, id) = d.split_once('=').context("--device takes UNIT=MAP_ID")?;
        let unit: u8 = unit.parse().context("unit id must be 1-247")?;
        let map = maps
            .iter()
            .find(|m| m.id == id)
            .with_context(|| format!("no map {id} in {}", maps_dir.display()))?;
        units.push((
            unit,
            Arc::new(SimDevice::new(Arc::new(map.clone()), seed + u64::from(unit))?),
        ));
    }
    let sim = Simulator::new(units);
    match (tcp, rtu) {
        (Some(addr), _) => {
            let listener = tokio::net::TcpListener::bind(addr).await?;
            eprintln!(
                "simulating {} devices on tcp {}",
                devices.len(),
                listener.local_addr()?
            );
            sim.serve_tcp(listener).await?;
        }
        (None, Some(path)) => {
            eprintln!("simulating {} devices on rtu {}", devices.len(), path.display());
            sim.serve_rtu(path).await?;
        }
        (None, None) => anyhow::bail!("give --tcp ADDRESS or --rtu PATH"),
    }
    Ok(())
}
