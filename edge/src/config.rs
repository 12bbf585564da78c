//! Gateway configuration (TOML), checked completely before anything starts; a mistake is
//! reported with the file, line and field, and unknown keys are errors (a misspelt setting
//! silently falling back to a default is worse than a refusal to start).

use std::collections::{BTreeMap, HashSet};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use pv_shared::regmap::RegisterMap;
use pv_shared::topics;
use serde::Deserialize;
use toml::Spanned;

use crate::device::DeviceSpec;
use crate::scheduler::{BusConfig, BusPolicy};
use crate::transport::{Parity, Transport};

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{}:{line}: {field}: {message}", file.display())]
pub struct ConfigError {
    pub file: PathBuf,
    pub line: usize,
    pub field: String,
    pub message: String,
}

/// A checked gateway configuration.
#[derive(Debug, Clone)]
pub struct GatewayConfig {
    pub gateway_id: String,
    pub data_dir: PathBuf,
    pub queue_max_samples: u64,
    pub buses: Vec<BusConfig>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Raw {
    gateway_id: Spanned<String>,
    data_dir: Spanned<String>,
    /// Folder of register maps, relative to the config file's folder when not absolute.
    maps_dir: Spanned<String>,
    #[serde(default)]
    queue: Option<RawQueue>,
    #[serde(default)]
    bus: Vec<Spanned<RawBus>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawQueue {
    max_samples: Option<Spanned<i64>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBus {
    name: Spanned<String>,
    transport: Spanned<String>,
    path: Option<Spanned<String>>,
    address: Option<Spanned<String>>,
    baud: Option<Spanned<i64>>,
    parity: Option<Spanned<String>>,
    stop_bits: Option<Spanned<i64>>,
    data_bits: Option<Spanned<i64>>,
    timeout_ms: Option<Spanned<i64>>,
    retries: Option<Spanned<i64>>,
    offline_after: Option<Spanned<i64>>,
    backoff_initial_s: Option<Spanned<i64>>,
    backoff_max_s: Option<Spanned<i64>>,
    #[serde(default)]
    device: Vec<Spanned<RawDevice>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDevice {
    id: Spanned<String>,
    map: Spanned<String>,
    unit: Spanned<i64>,
    interval_ms: Option<Spanned<i64>>,
}

struct Ctx<'a> {
    file: &'a Path,
    text: &'a str,
}

impl Ctx<'_> {
    fn err<T>(
        &self,
        span: std::ops::Range<usize>,
        field: impl Into<String>,
        message: impl Into<String>,
    ) -> Result<T, ConfigError> {
        let end = span.start.min(self.text.len());
        Err(ConfigError {
            file: self.file.to_path_buf(),
            line: self.text.as_bytes()[..end]
                .iter()
                .filter(|&&b| b == b'\n')
                .count()
                + 1,
            field: field.into(),
            message: message.into(),
        })
    }

    fn int(
        &self,
        v: &Option<Spanned<i64>>,
        field: &str,
        default: i64,
        range: std::ops::RangeInclusive<i64>,
    ) -> Result<i64, ConfigError> {
        match v {
            None => Ok(default),
            Some(s) if range.contains(s.get_ref()) => Ok(*s.get_ref()),
            Some(s) => self.err(
                s.span(),
                field,
                format!("must be {}-{}", range.start(), range.end()),
            ),
        }
    }
}

impl GatewayConfig {
    pub fn load(path: &Path) -> Result<GatewayConfig, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|e| ConfigError {
            file: path.to_path_buf(),
            line: 0,
            field: String::new(),
            message: format!("cannot read: {e}"),
        })?;
        GatewayConfig::parse(path, &text)
    }

    pub fn parse(path: &Path, text: &str) -> Result<GatewayConfig, ConfigError> {
        let cx = Ctx { file: path, text };
        let raw: Raw = match toml::from_str(text) {
            Ok(r) => r,
            Err(e) => return cx.err(e.span().unwrap_or(0..0), "", e.message().to_string()),
        };
        if topics::validate_gateway_id(raw.gateway_id.get_ref()).is_err() {
            return cx.err(
                raw.gateway_id.span(),
                "gateway_id",
                "1-64 letters, digits, '-' or '_'",
            );
        }
        let base = path.parent().unwrap_or(Path::new("."));
        let maps_dir = base.join(raw.maps_dir.get_ref());
        let maps: BTreeMap<String, Arc<RegisterMap>> = match RegisterMap::load_dir(&maps_dir) {
            Ok(m) => m.into_iter().map(|m| (m.id.clone(), Arc::new(m))).collect(),
            // A broken map is reported as itself (its own file and line).
            Err(e) if e.line > 0 => {
                return Err(ConfigError {
                    file: e.file,
                    line: e.line,
                    field: e.field,
                    message: e.message,
                });
            }
            Err(e) => return cx.err(raw.maps_dir.span(), "maps_dir", e.message),
        };
        let queue_max_samples = match &raw.queue {
            Some(q) => cx.int(&q.max_samples, "queue.max_samples", 1_000_000, 1..=1_000_000_000)?,
            None => 1_000_000,
        } as u64;

        let mut buses = Vec::new();
        let mut ids = HashSet::new();
        let mut names = HashSet::new();
        for (b, bus) in raw.bus.iter().enumerate() {
            let r = bus.get_ref();
            let f = |n: &str| format!("bus[{b}].{n}");
            if !names.insert(r.name.get_ref().clone()) {
                return cx.err(r.name.span(), f("name"), "another bus has this name");
            }
            let address = |cx: &Ctx| -> Result<SocketAddr, ConfigError> {
                match &r.address {
                    Some(a) => a
                        .get_ref()
                        .parse()
                        .or_else(|_| cx.err(a.span(), f("address"), "expected host:port with an IP address")),
                    None => cx.err(r.transport.span(), f("address"), "this transport needs `address`"),
                }
            };
            let transport = match r.transport.get_ref().as_str() {
                "tcp" => Transport::Tcp {
                    address: address(&cx)?,
                },
                "rtu-over-tcp" => Transport::RtuOverTcp {
                    address: address(&cx)?,
                },
                "rtu" => Transport::Rtu {
                    path: match &r.path {
                        Some(p) => p.get_ref().clone(),
                        None => {
                            return cx.err(r.transport.span(), f("path"), "rtu needs the serial port `path`");
                        }
                    },
                    baud: cx.int(&r.baud, &f("baud"), 9600, 300..=921_600)? as u32,
                    parity: match r.parity.as_ref().map(|p| (p.get_ref().as_str(), p.span())) {
                        None | Some(("none", _)) => Parity::None,
                        Some(("even", _)) => Parity::Even,
                        Some(("odd", _)) => Parity::Odd,
                        Some((_, span)) => return cx.err(span, f("parity"), "none, even or odd"),
                    },
                    stop_bits: cx.int(&r.stop_bits, &f("stop_bits"), 1, 1..=2)? as u8,
                    data_bits: cx.int(&r.data_bits, &f("data_bits"), 8, 7..=8)? as u8,
                },
                other => {
                    return cx.err(
                        r.transport.span(),
                        f("transport"),
                        format!("unknown {other:?} (rtu, tcp, rtu-over-tcp)"),
                    );
                }
            };
            let policy = BusPolicy {
                timeout: Duration::from_millis(
                    cx.int(&r.timeout_ms, &f("timeout_ms"), 1000, 10..=60_000)? as u64
                ),
                retries: cx.int(&r.retries, &f("retries"), 1, 0..=10)? as u32,
                offline_after: cx.int(&r.offline_after, &f("offline_after"), 3, 1..=100)? as u32,
                backoff_initial: Duration::from_secs(cx.int(
                    &r.backoff_initial_s,
                    &f("backoff_initial_s"),
                    10,
                    1..=3600,
                )? as u64),
                backoff_max: Duration::from_secs(cx.int(
                    &r.backoff_max_s,
                    &f("backoff_max_s"),
                    300,
                    1..=86_400,
                )? as u64),
            };
            let mut devices = Vec::new();
            let mut units = HashSet::new();
            for (d, dev) in r.device.iter().enumerate() {
                let rd = dev.get_ref();
                let g = |n: &str| format!("bus[{b}].device[{d}].{n}");
                let id = rd.id.get_ref();
                if id.is_empty() || id.len() > 64 || !ids.insert(id.clone()) {
                    return cx.err(
                        rd.id.span(),
                        g("id"),
                        "must be 1-64 characters and unique in the gateway",
                    );
                }
                let Some(map) = maps.get(rd.map.get_ref()) else {
                    let known: Vec<_> = maps.keys().cloned().collect();
                    return cx.err(
                        rd.map.span(),
                        g("map"),
                        format!(
                            "no map {:?} in {} (have: {})",
                            rd.map.get_ref(),
                            maps_dir.display(),
                            known.join(", ")
                        ),
                    );
                };
                let unit = cx.int(&Some(rd.unit.clone()), &g("unit"), 1, 1..=247)? as u8;
                if !units.insert(unit) {
                    return cx.err(
                        rd.unit.span(),
                        g("unit"),
                        "another device on this bus has this unit id",
                    );
                }
                let interval =
                    Duration::from_millis(
                        cx.int(&rd.interval_ms, &g("interval_ms"), 5000, 10..=86_400_000)? as u64
                    );
                devices.push(DeviceSpec {
                    id: id.clone(),
                    unit,
                    map: map.clone(),
                    interval,
                });
            }
            buses.push(BusConfig {
                name: r.name.get_ref().clone(),
                transport,
                policy,
                devices,
            });
        }
        Ok(GatewayConfig {
            gateway_id: raw.gateway_id.get_ref().clone(),
            data_dir: base.join(raw.data_dir.get_ref()),
            queue_max_samples,
            buses,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(body: &str) -> Result<GatewayConfig, ConfigError> {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
        let text = format!(
            "gateway_id = \"gw-1\"\ndata_dir = \"/tmp/x\"\nmaps_dir = \"../firmware-configs\"\n{body}"
        );
        GatewayConfig::parse(&dir.join("gw.toml"), &text)
    }

    const BUS: &str = r#"
[[bus]]
name = "rs485-1"
transport = "rtu"
path = "/dev/ttyUSB0"
baud = 19200

[[bus.device]]
id = "inv-1"
map = "huawei-sun2000-ktl"
unit = 1
interval_ms = 1000
"#;

    #[test]
    fn a_good_config_resolves_maps_and_defaults() {
        let c = config(BUS).unwrap();
        assert_eq!(c.buses[0].devices[0].map.id, "huawei-sun2000-ktl");
        assert_eq!(c.buses[0].policy.retries, 1);
        assert!(matches!(c.buses[0].transport, Transport::Rtu { baud: 19200, .. }));
    }

    #[test]
    fn mistakes_name_line_and_field() {
        let e = config(&BUS.replace("huawei-sun2000-ktl", "huawei")).unwrap_err();
        assert_eq!((e.line, e.field.as_str()), (13, "bus[0].device[0].map"), "{e}");
        let e = config(&BUS.replace("unit = 1", "unit = 300")).unwrap_err();
        assert_eq!((e.line, e.field.as_str()), (14, "bus[0].device[0].unit"), "{e}");
        let e = config(&BUS.replace("baud = 19200", "bauds = 19200")).unwrap_err();
        assert_eq!(e.line, 9, "{e}");
        assert!(e.message.contains("bauds"), "{e}");
        let e = config(&BUS.replace("\"rtu\"", "\"tcp\"")).unwrap_err();
        assert_eq!(e.field, "bus[0].address", "{e}");
    }
}
