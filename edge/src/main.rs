//! Gateway agent command line: `run` polls the configured buses, stores every reading in the
//! durable queue and forwards it over MQTT (`agent`), `check` validates a configuration,
//! `probe`/`scan`/`read`/`write` are the commissioning tools, `simulate` serves register maps
//! as simulated devices.

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;
use clap::{Parser, Subcommand};
use pv_edge::config::GatewayConfig;
use pv_edge::device::DeviceSpec;
use pv_edge::scheduler::{BusPolicy, Session};
use pv_edge::sim::{SimDevice, Simulator};
use pv_edge::transport::{Parity, Transport};
use pv_shared::regmap::Function;
use pv_shared::regmap::RegisterMap;
use pv_shared::wire::Value;
use std::time::Duration;

#[derive(Parser, Debug)]
#[command(name = "pv-edge", version, about = "PV station gateway agent")]
struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Poll the configured buses, store every reading durably and forward it to the cloud.
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
        #[command(flatten)]
        physics: SimArgs,
    },
}

/// The simulated site and its devices' troubles.
#[derive(clap::Args, Debug)]
struct SimArgs {
    /// Follow the sun and sky of a site (clear-sky curve, passing clouds, counters, tracker)
    /// instead of serving fixed expected values.
    #[arg(long)]
    realistic: bool,
    #[arg(long, default_value_t = 30.59, allow_hyphen_values = true)]
    latitude: f64,
    #[arg(long, default_value_t = 114.31, allow_hyphen_values = true)]
    longitude: f64,
    /// Fixed modules' tilt, degrees.
    #[arg(long, default_value_t = 20.0)]
    tilt: f64,
    /// Fixed modules' azimuth, degrees from north (180 = south).
    #[arg(long, default_value_t = 180.0)]
    azimuth: f64,
    /// Hours added to the site's clock, so daylight can show at any hour (e.g. 12).
    #[arg(long, default_value_t = 0.0, allow_hyphen_values = true)]
    clock_offset_h: f64,
    /// Share of time with a passing cloud, 0-1.
    #[arg(long, default_value_t = 0.3)]
    cloudiness: f64,
    /// Inverters' rated AC power (and the plant behind a meter), kW.
    #[arg(long, default_value_t = 50.0)]
    capacity_kw: f64,
    /// Wind above which trackers stow, m/s.
    #[arg(long, default_value_t = 15.0)]
    stow_wind: f64,
    /// A weak or shaded string, `UNIT:STRING:SHARE` (e.g. `1:3:0.6`), repeatable.
    #[arg(long = "weak-string")]
    weak_strings: Vec<String>,
    /// `UNIT:KIND[:VALUE]`, repeatable: `dead`, `fault` (a code of the map's fault table),
    /// `timeouts:SHARE`, `exceptions:SHARE`, `wind:M/S` (what the device measures).
    #[arg(long = "fault")]
    faults: Vec<String>,
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
        Command::Run { config, print_stored } => {
            rt.block_on(pv_edge::agent::run(config, print_stored, shutdown_signal()))
        }
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
            physics,
        } => rt.block_on(simulate(maps_dir, devices, tcp, rtu, seed, physics)),
    }
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

fn parse_number(what: &str, s: &str) -> anyhow::Result<f64> {
    s.parse::<f64>()
        .ok()
        .filter(|x| x.is_finite())
        .with_context(|| format!("{what}: {s:?} is not a number"))
}

async fn simulate(
    maps_dir: PathBuf,
    devices: Vec<String>,
    tcp: Option<std::net::SocketAddr>,
    rtu: Option<PathBuf>,
    seed: u64,
    physics: SimArgs,
) -> anyhow::Result<()> {
    use pv_edge::sim::plant::PlantOptions;
    use pv_edge::sim::sky::Site;
    use std::collections::HashMap;

    let maps: Vec<RegisterMap> = RegisterMap::load_dir(&maps_dir)?;
    let site = Arc::new(Site {
        latitude: physics.latitude,
        longitude: physics.longitude,
        tilt: physics.tilt,
        azimuth: physics.azimuth,
        clock_offset_ms: (physics.clock_offset_h * 3_600_000.0) as i64,
        cloudiness: physics.cloudiness.clamp(0.0, 1.0),
        seed,
        stow_wind: physics.stow_wind,
    });
    let mut options: HashMap<u8, PlantOptions> = HashMap::new();
    let mut troubles: Vec<(u8, String, Option<f64>)> = Vec::new();
    for w in &physics.weak_strings {
        let parts: Vec<&str> = w.split(':').collect();
        let [unit, string, share] = parts[..] else {
            anyhow::bail!("--weak-string takes UNIT:STRING:SHARE, not {w:?}");
        };
        let unit: u8 = unit.parse().context("--weak-string: unit id must be 1-247")?;
        let string: usize = string.parse().context("--weak-string: string number")?;
        let share = parse_number("--weak-string share", share)?;
        options.entry(unit).or_default().weak_string = Some((string, share));
    }
    for f in &physics.faults {
        let mut parts = f.splitn(3, ':');
        let (Some(unit), Some(kind)) = (parts.next(), parts.next()) else {
            anyhow::bail!("--fault takes UNIT:KIND[:VALUE], not {f:?}");
        };
        let unit: u8 = unit.parse().context("--fault: unit id must be 1-247")?;
        let value = parts
            .next()
            .map(|v| parse_number("--fault value", v))
            .transpose()?;
        match (kind, value) {
            ("dead" | "fault", None) => {}
            ("timeouts" | "exceptions" | "wind", Some(_)) => {}
            _ => anyhow::bail!(
                "--fault {f:?}: kinds are dead, fault, timeouts:SHARE, exceptions:SHARE, wind:M/S"
            ),
        }
        if matches!(kind, "fault" | "wind") && !physics.realistic {
            anyhow::bail!("--fault {f:?} needs --realistic");
        }
        if kind == "wind" {
            options.entry(unit).or_default().wind = value;
        }
        troubles.push((unit, kind.to_string(), value));
    }
    if !options.is_empty() && !physics.realistic {
        anyhow::bail!("--weak-string needs --realistic");
    }
    let mut units = Vec::new();
    for d in &devices {
        let (unit, id) = d.split_once('=').context("--device takes UNIT=MAP_ID")?;
        let unit: u8 = unit.parse().context("unit id must be 1-247")?;
        let map = maps
            .iter()
            .find(|m| m.id == id)
            .with_context(|| format!("no map {id} in {}", maps_dir.display()))?;
        let map = Arc::new(map.clone());
        let dev_seed = seed + u64::from(unit);
        let dev = if physics.realistic {
            let o = PlantOptions {
                capacity_w: physics.capacity_kw * 1000.0,
                ..options.get(&unit).cloned().unwrap_or_default()
            };
            SimDevice::realistic(map, dev_seed, site.clone(), o)?
        } else {
            SimDevice::new(map, dev_seed)?
        };
        units.push((unit, Arc::new(dev)));
    }
    for (unit, kind, value) in &troubles {
        let Some((_, dev)) = units.iter().find(|(u, _)| u == unit) else {
            anyhow::bail!("--fault names unit {unit}, which no --device has");
        };
        match (kind.as_str(), value) {
            ("dead", _) => dev.set_dead(true),
            ("fault", _) => dev.set_fault(true),
            ("timeouts", Some(v)) => dev.set_timeouts(*v),
            ("exceptions", Some(v)) => dev.set_exceptions(*v),
            _ => {}
        }
    }
    let mode = if physics.realistic {
        "realistic"
    } else {
        "expected-value"
    };
    let sim = Simulator::new(units);
    match (tcp, rtu) {
        (Some(addr), _) => {
            let listener = tokio::net::TcpListener::bind(addr).await?;
            eprintln!(
                "simulating {} devices ({mode}) on tcp {}",
                devices.len(),
                listener.local_addr()?
            );
            sim.serve_tcp(listener).await?;
        }
        (None, Some(path)) => {
            eprintln!(
                "simulating {} devices ({mode}) on rtu {}",
                devices.len(),
                path.display()
            );
            sim.serve_rtu(path).await?;
        }
        (None, None) => anyhow::bail!("give --tcp ADDRESS or --rtu PATH"),
    }
    Ok(())
}
