//! A simulation described in a file (`pv-edge simulate --spec FILE`): one site shared by every
//! device, several Modbus TCP listeners (one per bus), each with its devices, their rating and
//! their troubles. The hub's demo provisioner writes one per demo station; the command-line form
//! (`--device`, `--weak-string`, `--fault`) builds the same description for a single bus, so both
//! go through one builder.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use pv_shared::regmap::{DeviceKind, RegisterMap};
use serde::Deserialize;

use super::plant::{FaultCycle, Individual, PlantOptions};
use super::sky::Site;
use super::{SimDevice, SimError};

#[derive(Debug, thiserror::Error)]
pub enum SpecError {
    #[error("{file}: {message}")]
    File { file: PathBuf, message: String },
    #[error("{0}")]
    Invalid(String),
    #[error(transparent)]
    Device(#[from] SimError),
}

fn invalid(message: impl Into<String>) -> SpecError {
    SpecError::Invalid(message.into())
}

/// One built bus: its devices by unit id.
pub type BuiltBus = Vec<(u8, Arc<SimDevice>)>;

/// The whole simulation: where the maps are, the site, the buses.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SimSpec {
    /// Register maps folder; relative to the spec file's folder when read from a file.
    pub maps_dir: Option<PathBuf>,
    /// Follow the site's sun and sky (the default for a spec file) or serve fixed values.
    #[serde(default = "yes")]
    pub realistic: bool,
    /// Seed of the weather (clouds, gusts) and of the devices' fixed values.
    #[serde(default = "one")]
    pub seed: u64,
    #[serde(default)]
    pub site: SiteSpec,
    /// Where the devices' counters are kept across restarts (`sim::state`); relative to the
    /// spec file's folder. None: every start begins from the seeded counters.
    pub state: Option<PathBuf>,
    /// Inverters differ as real ones do (`plant::Individual`, from each device's key: its
    /// serial, or its bus and unit); otherwise every inverter of a bus is the same.
    #[serde(default)]
    pub individual: bool,
    pub bus: Vec<BusSpec>,
}

fn yes() -> bool {
    true
}

fn one() -> u64 {
    1
}

/// The simulated site; the defaults are the command line's (Wuhan, 20° south-facing).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SiteSpec {
    pub latitude: f64,
    pub longitude: f64,
    pub tilt: f64,
    pub azimuth: f64,
    /// Hours added to the real clock, so the site can be in daylight at any hour.
    pub clock_offset_h: f64,
    pub cloudiness: f64,
    pub stow_wind: f64,
}

impl Default for SiteSpec {
    fn default() -> SiteSpec {
        let s = Site::default();
        SiteSpec {
            latitude: s.latitude,
            longitude: s.longitude,
            tilt: s.tilt,
            azimuth: s.azimuth,
            clock_offset_h: 0.0,
            cloudiness: s.cloudiness,
            stow_wind: s.stow_wind,
        }
    }
}

/// One simulated bus: a Modbus TCP listener and the devices behind it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BusSpec {
    /// Where it listens (the command-line form may serve RTU instead and leaves it empty).
    pub tcp: Option<SocketAddr>,
    /// Inverters' rated AC power and the plant behind a meter on this bus, kW.
    #[serde(default = "fifty")]
    pub capacity_kw: f64,
    pub device: Vec<DeviceSpec>,
}

fn fifty() -> f64 {
    50.0
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeviceSpec {
    pub unit: u8,
    /// Map id (file stem in the maps folder).
    pub map: String,
    /// The device's serial: its key in the state file and the seed of its differences.
    pub serial: Option<String>,
    /// A weak or shaded string.
    pub weak_string: Option<WeakString>,
    /// Troubles, as the command line's `--fault` without the unit: `dead`, `fault`,
    /// `timeouts:SHARE`, `exceptions:SHARE`, `wind:M/S`, `recurring:EVERY_MIN:FOR_MIN`,
    /// `torn[:STEP]`.
    #[serde(default)]
    pub faults: Vec<String>,
}

#[derive(Debug, Clone, Copy, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct WeakString {
    /// 1-based string number.
    pub string: usize,
    /// Share of its normal current it delivers (0-1).
    pub share: f64,
}

/// One trouble of a device.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Trouble {
    Dead,
    Fault,
    Timeouts(f64),
    Exceptions(f64),
    Wind(f64),
    Recurring(FaultCycle),
    /// Multi-register counters updated one register at a time (reads can catch them torn),
    /// advancing by this many raw units at each request on top of the model.
    Torn(u64),
}

impl Trouble {
    /// Parses `KIND[:VALUE[:VALUE]]` (the part of `--fault` after the unit).
    pub fn parse(s: &str) -> Result<Trouble, String> {
        let usage = || {
            format!(
                "fault {s:?}: kinds are dead, fault, timeouts:SHARE, exceptions:SHARE, wind:M/S, \
                 recurring:EVERY_MIN:FOR_MIN, torn[:STEP]"
            )
        };
        let number = |v: &str| {
            v.parse::<f64>()
                .ok()
                .filter(|x| x.is_finite())
                .ok_or_else(|| format!("fault {s:?}: {v:?} is not a number"))
        };
        let parts: Vec<&str> = s.split(':').collect();
        Ok(match parts[..] {
            ["dead"] => Trouble::Dead,
            ["fault"] => Trouble::Fault,
            ["timeouts", v] => Trouble::Timeouts(number(v)?),
            ["exceptions", v] => Trouble::Exceptions(number(v)?),
            ["wind", v] => Trouble::Wind(number(v)?),
            ["recurring", every, on] => {
                let (every, on) = (number(every)?, number(on)?);
                if !(every > 0.0 && on > 0.0 && on < every) {
                    return Err(format!(
                        "fault {s:?}: the fault lasts FOR_MIN (> 0) of every EVERY_MIN (longer)"
                    ));
                }
                Trouble::Recurring(FaultCycle {
                    every_ms: (every * 60_000.0) as i64,
                    on_ms: (on * 60_000.0) as i64,
                })
            }
            ["torn"] => Trouble::Torn(0),
            ["torn", v] => Trouble::Torn(
                v.parse::<u64>()
                    .map_err(|_| format!("fault {s:?}: STEP is a whole number of raw units"))?,
            ),
            _ => return Err(usage()),
        })
    }

    /// Troubles that change the physics need the realistic mode.
    fn needs_physics(&self) -> bool {
        matches!(self, Trouble::Fault | Trouble::Wind(_) | Trouble::Recurring(_))
    }
}

impl SimSpec {
    /// Reads a spec file; a relative `maps_dir` is taken from the file's folder.
    pub fn load(file: &Path) -> Result<SimSpec, SpecError> {
        let err = |message: String| SpecError::File {
            file: file.to_path_buf(),
            message,
        };
        let text = std::fs::read_to_string(file).map_err(|e| err(e.to_string()))?;
        let mut spec: SimSpec = toml::from_str(&text).map_err(|e| err(e.to_string()))?;
        let base = file.parent().unwrap_or(Path::new("."));
        for path in [&mut spec.maps_dir, &mut spec.state].into_iter().flatten() {
            if path.is_relative() {
                *path = base.join(&*path);
            }
        }
        Ok(spec)
    }

    /// The key of device `d` of bus `bus` (0-based): its serial, else its bus and unit.
    pub fn device_key(bus: usize, d: &DeviceSpec) -> String {
        match &d.serial {
            Some(s) => s.clone(),
            None => format!("bus{}/unit{}", bus + 1, d.unit),
        }
    }

    /// Every built device with its key, for the state file.
    pub fn keyed(&self, buses: &[BuiltBus]) -> super::state::Keyed {
        let mut out = Vec::new();
        for (b, (spec, built)) in self.bus.iter().zip(buses).enumerate() {
            for d in &spec.device {
                if let Some((_, dev)) = built.iter().find(|(u, _)| *u == d.unit) {
                    out.push((Self::device_key(b, d), dev.clone()));
                }
            }
        }
        out
    }

    /// The site every device of the simulation shares.
    pub fn site(&self) -> Site {
        let s = &self.site;
        Site {
            latitude: s.latitude,
            longitude: s.longitude,
            tilt: s.tilt,
            azimuth: s.azimuth,
            clock_offset_ms: (s.clock_offset_h * 3_600_000.0) as i64,
            cloudiness: s.cloudiness.clamp(0.0, 1.0),
            seed: self.seed,
            stow_wind: s.stow_wind,
        }
    }

    /// Builds every bus's devices with `maps`: one list of (unit, device) per bus, in order.
    pub fn build(&self, maps: &[RegisterMap]) -> Result<Vec<BuiltBus>, SpecError> {
        if self.bus.is_empty() {
            return Err(invalid("a simulation needs at least one bus"));
        }
        let site = Arc::new(self.site());
        let mut buses = Vec::with_capacity(self.bus.len());
        for (b, bus) in self.bus.iter().enumerate() {
            if bus.device.is_empty() {
                return Err(invalid(format!("bus {}: no devices", b + 1)));
            }
            if !(bus.capacity_kw.is_finite() && bus.capacity_kw > 0.0) {
                return Err(invalid(format!("bus {}: capacity_kw must be positive", b + 1)));
            }
            let mut units: BuiltBus = Vec::new();
            for d in &bus.device {
                if !(1..=247).contains(&d.unit) {
                    return Err(invalid(format!("unit {}: unit ids are 1-247", d.unit)));
                }
                if units.iter().any(|(u, _)| *u == d.unit) {
                    return Err(invalid(format!("bus {}: unit {} twice", b + 1, d.unit)));
                }
                let map = maps
                    .iter()
                    .find(|m| m.id == d.map)
                    .ok_or_else(|| invalid(format!("unit {}: no map {}", d.unit, d.map)))?;
                let troubles = d
                    .faults
                    .iter()
                    .map(|f| Trouble::parse(f))
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(invalid)?;
                if !self.realistic && (d.weak_string.is_some() || troubles.iter().any(Trouble::needs_physics))
                {
                    return Err(invalid(format!(
                        "unit {}: a weak string, fault, wind or recurring fault needs the realistic mode",
                        d.unit
                    )));
                }
                let mut options = PlantOptions {
                    capacity_w: bus.capacity_kw * 1000.0,
                    weak_string: d.weak_string.map(|w| (w.string, w.share)),
                    individual: (self.individual && map.kind == DeviceKind::Inverter)
                        .then(|| Individual::of(&Self::device_key(b, d))),
                    ..PlantOptions::default()
                };
                for t in &troubles {
                    match t {
                        Trouble::Wind(v) => options.wind = Some(*v),
                        Trouble::Recurring(c) => options.recurring_fault = Some(*c),
                        _ => {}
                    }
                }
                let map = Arc::new(map.clone());
                let seed = self.seed + u64::from(d.unit);
                let dev = if self.realistic {
                    SimDevice::realistic(map, seed, site.clone(), options)?
                } else {
                    SimDevice::new(map, seed)?
                };
                for t in &troubles {
                    match t {
                        Trouble::Dead => dev.set_dead(true),
                        Trouble::Fault => dev.set_fault(true),
                        Trouble::Timeouts(v) => dev.set_timeouts(*v),
                        Trouble::Exceptions(v) => dev.set_exceptions(*v),
                        Trouble::Torn(step) => dev.set_torn(Some(*step)),
                        Trouble::Wind(_) | Trouble::Recurring(_) => {}
                    }
                }
                units.push((d.unit, Arc::new(dev)));
            }
            buses.push(units);
        }
        Ok(buses)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn maps() -> Vec<RegisterMap> {
        RegisterMap::load_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../firmware-configs")).unwrap()
    }

    #[test]
    fn troubles_parse_like_the_command_line() {
        assert_eq!(Trouble::parse("dead"), Ok(Trouble::Dead));
        assert_eq!(Trouble::parse("timeouts:0.2"), Ok(Trouble::Timeouts(0.2)));
        assert_eq!(
            Trouble::parse("recurring:30:5"),
            Ok(Trouble::Recurring(FaultCycle {
                every_ms: 1_800_000,
                on_ms: 300_000
            }))
        );
        assert!(
            Trouble::parse("recurring:5:30").is_err(),
            "longer than its period"
        );
        assert_eq!(Trouble::parse("torn"), Ok(Trouble::Torn(0)));
        assert_eq!(Trouble::parse("torn:15000"), Ok(Trouble::Torn(15_000)));
        assert!(Trouble::parse("torn:-1").is_err());
        assert!(Trouble::parse("wind").is_err());
        assert!(Trouble::parse("melt").is_err());
    }

    #[test]
    fn a_spec_file_builds_buses_that_share_one_site() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("sim.toml");
        std::fs::write(
            &file,
            r#"
maps_dir = "maps"
seed = 7
[site]
latitude = 31.16
longitude = 120.64
clock_offset_h = 3
[[bus]]
tcp = "127.0.0.1:15020"
capacity_kw = 110
device = [
  { unit = 1, map = "sungrow-sg-cx", weak_string = { string = 7, share = 0.55 } },
  { unit = 2, map = "huawei-sun2000-ktl", faults = ["recurring:30:5"] },
]
[[bus]]
tcp = "127.0.0.1:15021"
capacity_kw = 220
device = [{ unit = 1, map = "chint-dtsu666" }]
"#,
        )
        .unwrap();
        let spec = SimSpec::load(&file).unwrap();
        assert_eq!(
            spec.maps_dir,
            Some(dir.path().join("maps")),
            "relative to the file"
        );
        assert!(
            spec.realistic,
            "a spec file is realistic unless it says otherwise"
        );
        assert_eq!(spec.site().clock_offset_ms, 3 * 3_600_000);
        let buses = spec.build(&maps()).unwrap();
        assert_eq!(buses.len(), 2);
        assert_eq!(buses[0].len(), 2);

        // The recurring fault shows in the first 5 minutes of every half hour (site clock).
        let (_, huawei) = &buses[0][1];
        let fault_word = |t: i64| {
            huawei.refresh_at(t - 3 * 3_600_000);
            let (p, at) = huawei
                .map
                .points
                .iter()
                .zip(&huawei.placed)
                .find(|(p, _)| p.metric == "fault_word1")
                .unwrap();
            huawei
                .decode_point(&huawei.registers.lock().unwrap(), p, at)
                .unwrap()
        };
        let half_hour = 1_800_000_i64;
        let t0 = 1_718_942_400_000_i64 / half_hour * half_hour;
        assert!(fault_word(t0 + 60_000) != 0.0, "faulted early in the cycle");
        assert_eq!(fault_word(t0 + 10 * 60_000), 0.0, "cleared later");
        assert!(fault_word(t0 + half_hour + 60_000) != 0.0, "and back");
    }

    #[test]
    fn mistakes_are_named() {
        let spec = |body: &str| -> SimSpec { toml::from_str(body).unwrap() };
        let e = spec("[[bus]]\ndevice = [{ unit = 1, map = \"nope\" }]\n")
            .build(&maps())
            .unwrap_err();
        assert!(e.to_string().contains("no map nope"), "{e}");
        let e = spec("realistic = false\n[[bus]]\ndevice = [{ unit = 1, map = \"sunspec-inverter\", faults = [\"fault\"] }]\n")
            .build(&maps())
            .unwrap_err();
        assert!(e.to_string().contains("realistic"), "{e}");
        assert!(toml::from_str::<SimSpec>("[[bus]]\ndevices = []\n").is_err());
    }
}
