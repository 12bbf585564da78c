//! Gateway agent command line: `run` polls the configured buses, stores every reading in the
//! durable queue and forwards it over MQTT (`agent`), `check` validates a configuration,
//! `probe`/`scan`/`read`/`write` are the commissioning tools, `simulate` serves register maps
//! as simulated devices.

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;
use clap::{Parser, Subcommand};
use pv_edge::config::GatewayConfig;
use pv_edge::scheduler::{BusPolicy, Session};
use pv_edge::sim::{self as sim, Simulator, spec::SimSpec};
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
    /// Poll one device once with a register map and print its values with units; exits non-zero
    /// when the map does not fit the device (none of its main SunSpec models, every block
    /// refused, or another model name).
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
        /// A map setting for this device, e.g. `output_type=3p3w` (repeatable); probing once per
        /// value shows which reading the device serves.
        #[arg(long = "setting", value_name = "NAME=VALUE")]
        settings: Vec<String>,
    },
    /// Find the devices on a bus, identify each and suggest a map. A unit's own exception counts as
    /// an answer; no answer and a gateway's 0x0A/0x0B mean the id is unused.
    Scan {
        #[command(flatten)]
        bus: BusArgs,
        /// Maps to suggest from.
        #[arg(long, default_value = "firmware-configs")]
        maps_dir: PathBuf,
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
        /// Folder of register maps (a spec file's own `maps_dir` wins).
        #[arg(long, default_value = "firmware-configs")]
        maps_dir: PathBuf,
        /// `UNIT=MAP_ID`, repeatable (e.g. `1=huawei-sun2000-ktl`).
        #[arg(long = "device", required_unless_present = "spec")]
        devices: Vec<String>,
        /// Serve Modbus TCP on this address.
        #[arg(long, conflicts_with = "rtu")]
        tcp: Option<std::net::SocketAddr>,
        /// Serve Modbus RTU on this serial port or pseudo-terminal.
        #[arg(long)]
        rtu: Option<PathBuf>,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// A TOML file describing the site and several TCP buses with their devices, ratings
        /// and troubles (see docs/simulator.md); replaces every other option but `--maps-dir`.
        #[arg(long, conflicts_with_all = ["devices", "tcp", "rtu"])]
        spec: Option<PathBuf>,
        #[command(flatten)]
        physics: SimArgs,
        /// Answer unit ids without a device like a TCP gateway: `gateway-target` (exception 0x0B),
        /// `gateway-path` (0x0A) or `illegal-address` (0x02); silent if not given.
        #[arg(long)]
        absent_units: Option<String>,
        /// `UNIT=VENDOR,PRODUCT,REVISION`: serve these Read Device Identification (0x2B/0x0E)
        /// objects, repeatable.
        #[arg(long = "identify")]
        identify: Vec<String>,
        /// A file watched for commands to the running devices, one a line, appended: `restart
        /// UNIT MODELS BASE`, `register UNIT FUNCTION ADDRESS VALUE` (see docs/simulator.md).
        #[arg(long)]
        control: Option<PathBuf>,
        /// Keep the realistic devices' counters in this file across restarts (read at start,
        /// written every 5 s and at shutdown); overrides a spec's `state`.
        #[arg(long)]
        state: Option<PathBuf>,
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
    /// `timeouts:SHARE`, `exceptions:SHARE`, `wind:M/S` (what the device measures),
    /// `recurring:EVERY_MIN:FOR_MIN` (a fault for the first FOR_MIN of every EVERY_MIN),
    /// `torn[:STEP]` (multi-register counters updated one register at a time, advancing STEP raw
    /// units per request).
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
        Command::Run { config, print_stored } => rt.block_on(async {
            let stop = shutdown_signal()?;
            pv_edge::agent::run(config, print_stored, stop).await
        }),
        Command::Probe {
            bus,
            unit,
            map,
            maps_dir,
            settings,
        } => rt.block_on(async {
            let maps = RegisterMap::load_dir(&maps_dir)?;
            let map = maps
                .into_iter()
                .find(|m| m.id == map)
                .with_context(|| format!("no map {map} in {}", maps_dir.display()))?;
            let mut chosen = std::collections::BTreeMap::new();
            for s in &settings {
                let (name, value) = s
                    .split_once('=')
                    .with_context(|| format!("--setting {s}: expected NAME=VALUE"))?;
                chosen.insert(name.to_string(), value.to_string());
            }
            let map = map.with_settings(&chosen)?;
            let report = pv_edge::commission::probe(&mut bus.session()?, unit, Arc::new(map))
                .await
                .map_err(anyhow::Error::msg)?;
            if let Some(id) = &report.identity {
                println!("identity: {}", identity_line(id));
            }
            for (metric, value) in &report.values {
                let unit = pv_shared::metrics::lookup(metric)
                    .map(|m| m.unit().symbol)
                    .unwrap_or("");
                match value {
                    Value::Number(x) => println!("{metric} {x} {unit}"),
                    Value::Text(t) => println!("{metric} {t:?}"),
                }
            }
            if let Some(status) = &report.status {
                println!("status: {status}");
            }
            for m in &report.missing {
                println!("missing: {m}");
            }
            for w in &report.warnings {
                eprintln!("warning: {w}");
            }
            if !report.fits {
                anyhow::bail!("map {} does not fit unit {unit}", report.map);
            }
            Ok(())
        }),
        Command::Scan {
            bus,
            from,
            to,
            register,
            maps_dir,
        } => rt.block_on(async {
            // Without maps the scan still finds and identifies units; it only cannot suggest.
            let maps: Vec<Arc<RegisterMap>> = match RegisterMap::load_dir(&maps_dir) {
                Ok(maps) => maps.into_iter().map(Arc::new).collect(),
                Err(e) => {
                    eprintln!("warning: no maps, no suggestions: {e}");
                    Vec::new()
                }
            };
            let report = pv_edge::commission::scan(&mut bus.session()?, from..=to, register, &maps).await;
            for u in &report.units {
                println!("unit {}: {}", u.unit, u.detail);
                if let Some(id) = &u.identity {
                    println!("  identity: {}", identity_line(id));
                }
                match u.suggested_maps.as_slice() {
                    [] => println!("  map: none suggested (try `pv-edge probe --map ...`)"),
                    maps => println!("  map: {}", maps.join(", ")),
                }
            }
            println!(
                "{} units on {} ids {from}-{to}; absent: {} silent, {} reported absent by a gateway",
                report.units.len(),
                report.bus,
                report.silent,
                report.gateway_absent
            );
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
            spec,
            physics,
            absent_units,
            identify,
            control,
            state,
        } => rt.block_on(async {
            let stop = shutdown_signal()?;
            let mut gateway = sim_gateway(absent_units.as_deref(), &identify)?;
            gateway.control = control;
            match spec {
                Some(file) => {
                    let mut spec = SimSpec::load(&file)?;
                    spec.state = state.or(spec.state);
                    let maps_dir = spec.maps_dir.clone().unwrap_or(maps_dir);
                    simulate(spec, &maps_dir, None, &gateway, stop).await
                }
                None => {
                    let mut spec = cli_spec(devices, tcp, seed, physics)?;
                    spec.state = state;
                    simulate(spec, &maps_dir, rtu, &gateway, stop).await
                }
            }
        }),
    }
}

/// Registers SIGTERM and Ctrl-C before start-up begins, not when the agent first polls for them: a
/// stop that arrives while the queue opens or the first connection is made still ends cleanly
/// (flushed queue, exit code 0) instead of killing the process by the signal's default action.
fn shutdown_signal() -> anyhow::Result<impl std::future::Future<Output = ()>> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let mut term = signal(SignalKind::terminate()).context("listening for SIGTERM")?;
        let mut int = signal(SignalKind::interrupt()).context("listening for SIGINT")?;
        Ok(async move {
            tokio::select! {
                _ = term.recv() => {}
                _ = int.recv() => {}
            }
        })
    }
    #[cfg(not(unix))]
    {
        Ok(async {
            let _ = tokio::signal::ctrl_c().await;
        })
    }
}

fn parse_number(what: &str, s: &str) -> anyhow::Result<f64> {
    s.parse::<f64>()
        .ok()
        .filter(|x| x.is_finite())
        .with_context(|| format!("{what}: {s:?} is not a number"))
}

/// The command line's single bus as a simulation spec, so both forms share one builder.
fn cli_spec(
    devices: Vec<String>,
    tcp: Option<std::net::SocketAddr>,
    seed: u64,
    physics: SimArgs,
) -> anyhow::Result<SimSpec> {
    let mut specs: Vec<sim::spec::DeviceSpec> = Vec::new();
    for d in &devices {
        let (unit, id) = d.split_once('=').context("--device takes UNIT=MAP_ID")?;
        let unit: u8 = unit.parse().context("unit id must be 1-247")?;
        specs.push(sim::spec::DeviceSpec {
            unit,
            map: id.to_owned(),
            serial: None,
            weak_string: None,
            faults: Vec::new(),
        });
    }
    fn device_of<'a>(
        specs: &'a mut [sim::spec::DeviceSpec],
        unit: u8,
        what: &str,
    ) -> anyhow::Result<&'a mut sim::spec::DeviceSpec> {
        specs
            .iter_mut()
            .find(|d| d.unit == unit)
            .with_context(|| format!("{what} names unit {unit}, which no --device has"))
    }
    for w in &physics.weak_strings {
        let parts: Vec<&str> = w.split(':').collect();
        let [unit, string, share] = parts[..] else {
            anyhow::bail!("--weak-string takes UNIT:STRING:SHARE, not {w:?}");
        };
        let unit: u8 = unit.parse().context("--weak-string: unit id must be 1-247")?;
        let string: usize = string.parse().context("--weak-string: string number")?;
        let share = parse_number("--weak-string share", share)?;
        device_of(&mut specs, unit, "--weak-string")?.weak_string =
            Some(sim::spec::WeakString { string, share });
    }
    for f in &physics.faults {
        let (unit, trouble) = f
            .split_once(':')
            .with_context(|| format!("--fault takes UNIT:KIND[:VALUE], not {f:?}"))?;
        let unit: u8 = unit.parse().context("--fault: unit id must be 1-247")?;
        sim::spec::Trouble::parse(trouble).map_err(anyhow::Error::msg)?;
        device_of(&mut specs, unit, "--fault")?
            .faults
            .push(trouble.to_owned());
    }
    Ok(SimSpec {
        maps_dir: None,
        realistic: physics.realistic,
        seed,
        state: None,
        individual: false,
        site: sim::spec::SiteSpec {
            latitude: physics.latitude,
            longitude: physics.longitude,
            tilt: physics.tilt,
            azimuth: physics.azimuth,
            clock_offset_h: physics.clock_offset_h,
            cloudiness: physics.cloudiness,
            stow_wind: physics.stow_wind,
        },
        bus: vec![sim::spec::BusSpec {
            tcp,
            capacity_kw: physics.capacity_kw,
            device: specs,
        }],
    })
}

/// "manufacturer model, serial S, firmware F (via)".
fn identity_line(id: &pv_shared::commission::Identity) -> String {
    let mut parts = vec![
        [id.manufacturer.as_deref(), id.model.as_deref()]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join(" "),
    ];
    if let Some(s) = &id.serial {
        parts.push(format!("serial {s}"));
    }
    if let Some(f) = &id.firmware {
        parts.push(format!("firmware {f}"));
    }
    format!("{} ({})", parts.join(", "), id.via)
}

/// How simulated buses behave as a gateway: the answer for unused unit ids, and identification
/// objects per unit.
#[derive(Default)]
struct SimGateway {
    absent: Option<tokio_modbus::ExceptionCode>,
    identify: Vec<(u8, Vec<(u8, String)>)>,
    control: Option<PathBuf>,
}

fn sim_gateway(absent: Option<&str>, identify: &[String]) -> anyhow::Result<SimGateway> {
    use tokio_modbus::ExceptionCode;
    let absent = match absent {
        None => None,
        Some("gateway-target") => Some(ExceptionCode::GatewayTargetDevice),
        Some("gateway-path") => Some(ExceptionCode::GatewayPathUnavailable),
        Some("illegal-address") => Some(ExceptionCode::IllegalDataAddress),
        Some(other) => {
            anyhow::bail!("--absent-units {other:?}: gateway-target, gateway-path or illegal-address")
        }
    };
    let mut ids = Vec::new();
    for i in identify {
        let (unit, objects) = i
            .split_once('=')
            .with_context(|| format!("--identify takes UNIT=VENDOR,PRODUCT,REVISION, not {i:?}"))?;
        let unit: u8 = unit.parse().context("--identify: unit id must be 1-247")?;
        let objects = objects
            .split(',')
            .enumerate()
            .map(|(k, v)| (k as u8, v.trim().to_owned()))
            .collect();
        ids.push((unit, objects));
    }
    Ok(SimGateway {
        absent,
        identify: ids,
        control: None,
    })
}

/// Serves every bus of `spec`: each on its TCP address, or the single one on `rtu`, until `stop`
/// (SIGTERM, Ctrl-C); with a state file, the counters are saved then.
async fn simulate(
    spec: SimSpec,
    maps_dir: &std::path::Path,
    rtu: Option<PathBuf>,
    gateway: &SimGateway,
    stop: impl std::future::Future<Output = ()>,
) -> anyhow::Result<()> {
    let maps: Vec<RegisterMap> = RegisterMap::load_dir(maps_dir)?;
    let buses = spec.build(&maps)?;
    let keyed = spec.keyed(&buses);
    if let Some(path) = &spec.state {
        let saved = sim::state::StateFile::load(path)
            .with_context(|| "delete the state file to start from the seeded counters")?;
        let n = sim::state::restore(&keyed, &saved);
        eprintln!("counters of {n} devices continue from {}", path.display());
    }
    let mode = if spec.realistic {
        "realistic"
    } else {
        "expected-value"
    };
    let mut servers = tokio::task::JoinSet::new();
    let mut identified = std::collections::BTreeSet::new();
    let mut controlled = Vec::new();
    for (bus, units) in spec.bus.iter().zip(buses) {
        let n = units.len();
        controlled.extend(units.iter().cloned());
        let sim = Simulator::new(units).with_absent(gateway.absent);
        for (unit, objects) in &gateway.identify {
            if let Some(dev) = sim.unit(*unit) {
                dev.set_identification(objects.clone());
                identified.insert(*unit);
            }
        }
        match (bus.tcp, &rtu) {
            (Some(addr), _) => {
                let listener = tokio::net::TcpListener::bind(addr)
                    .await
                    .with_context(|| format!("cannot listen on {addr}"))?;
                eprintln!(
                    "simulating {n} devices ({mode}) on tcp {}",
                    listener.local_addr()?
                );
                servers.spawn(async move { sim.serve_tcp(listener).await.map_err(anyhow::Error::from) });
            }
            (None, Some(path)) => {
                eprintln!("simulating {n} devices ({mode}) on rtu {}", path.display());
                let path = path.clone();
                servers.spawn(async move { sim.serve_rtu(path).await.map_err(anyhow::Error::from) });
            }
            (None, None) => {
                anyhow::bail!("give --tcp ADDRESS or --rtu PATH (or a spec whose buses name tcp)")
            }
        }
    }
    if let Some((unit, _)) = gateway.identify.iter().find(|(u, _)| !identified.contains(u)) {
        anyhow::bail!("--identify names unit {unit}, which no device has");
    }
    if let Some(path) = &gateway.control {
        let path = path.clone();
        servers.spawn(async move {
            sim::control::watch(path, controlled).await;
            Ok(())
        });
    }
    let save = |path: &std::path::Path| {
        if let Err(e) = sim::state::snapshot(&keyed).save(path) {
            eprintln!("state not saved: {e}");
        }
    };
    let mut every = tokio::time::interval(sim::state::SAVE_EVERY);
    every.tick().await;
    tokio::pin!(stop);
    // A bus that stops (its listener failed) ends the simulation: half a station is misleading.
    let result = loop {
        tokio::select! {
            done = servers.join_next() => match done {
                Some(Ok(Ok(()))) => {}
                Some(Ok(Err(e))) => break Err(e),
                Some(Err(e)) => break Err(e.into()),
                None => break Ok(()),
            },
            _ = every.tick(), if spec.state.is_some() => {
                if let Some(path) = &spec.state {
                    save(path);
                }
            }
            _ = &mut stop => break Ok(()),
        }
    };
    if let Some(path) = &spec.state {
        save(path);
        eprintln!("counters saved to {}", path.display());
    }
    result
}
