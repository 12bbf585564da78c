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
use crate::uplink::{Secret, UplinkConfig};

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
    /// Absent: samples are only stored (commissioning, or a site without connectivity yet).
    pub uplink: Option<UplinkConfig>,
    pub buses: Vec<BusConfig>,
    /// Every map of the maps folder by id (what commissioning may probe with).
    pub maps: BTreeMap<String, Arc<RegisterMap>>,
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
    mqtt: Option<Spanned<RawMqtt>>,
    /// What goes over the link (the link itself is `[mqtt]`).
    #[serde(default)]
    uplink: Option<RawUplink>,
    #[serde(default)]
    bus: Vec<Spanned<RawBus>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawUplink {
    /// "json" (default) or "binary" (compact, for metered links; needs an up-to-date hub).
    encoding: Option<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMqtt {
    host: Spanned<String>,
    port: Option<Spanned<i64>>,
    client_id: Option<Spanned<String>>,
    username: Option<Spanned<String>>,
    password: Option<Spanned<String>>,
    /// File holding the password (first line), relative to the config file's folder.
    password_file: Option<Spanned<String>>,
    tls: Option<Spanned<bool>>,
    ca_file: Option<Spanned<String>>,
    keep_alive_s: Option<Spanned<i64>>,
    batch_max_samples: Option<Spanned<i64>>,
    batch_linger_ms: Option<Spanned<i64>>,
    replay_window: Option<Spanned<i64>>,
    ack_timeout_s: Option<Spanned<i64>>,
    reconnect_initial_ms: Option<Spanned<i64>>,
    reconnect_max_s: Option<Spanned<i64>>,
    status_interval_s: Option<Spanned<i64>>,
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
    /// The map variant of this device (the map's `[[setting]]`s), e.g. `{ output_type = "3p3w" }`.
    settings: Option<Spanned<BTreeMap<String, String>>>,
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

        let mut uplink = match &raw.mqtt {
            Some(m) => Some(cx.mqtt(m, base, raw.gateway_id.get_ref())?),
            None => None,
        };
        if let Some(e) = raw.uplink.as_ref().and_then(|u| u.encoding.as_ref()) {
            let Some(encoding) = pv_shared::wire::Encoding::parse(e.get_ref()) else {
                return cx.err(e.span(), "uplink.encoding", "\"json\" or \"binary\"");
            };
            match uplink.as_mut() {
                Some(u) => u.encoding = encoding,
                None => return cx.err(e.span(), "uplink.encoding", "needs an [mqtt] section"),
            }
        }

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
                let map = match &rd.settings {
                    None => map.clone(),
                    Some(s) => match map.with_settings(s.get_ref()) {
                        Ok(m) => Arc::new(m),
                        Err(e) => return cx.err(s.span(), g("settings"), e.to_string()),
                    },
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
                    map,
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
            uplink,
            buses,
            maps,
        })
    }
}

impl Ctx<'_> {
    fn mqtt(&self, m: &Spanned<RawMqtt>, base: &Path, gateway_id: &str) -> Result<UplinkConfig, ConfigError> {
        let r = m.get_ref();
        let host = r.host.get_ref().trim();
        if host.is_empty() || host.contains('/') {
            return self.err(r.host.span(), "mqtt.host", "a host name or IP address");
        }
        let password = match (&r.password, &r.password_file) {
            (Some(_), Some(f)) => {
                return self.err(
                    f.span(),
                    "mqtt.password_file",
                    "give password or password_file, not both",
                );
            }
            (Some(p), None) => Some(Secret(p.get_ref().clone())),
            (None, Some(f)) => {
                let path = base.join(f.get_ref());
                match std::fs::read_to_string(&path) {
                    Ok(text) => Some(Secret(text.lines().next().unwrap_or("").to_string())),
                    Err(e) => {
                        return self.err(
                            f.span(),
                            "mqtt.password_file",
                            format!("cannot read {}: {e}", path.display()),
                        );
                    }
                }
            }
            (None, None) => None,
        };
        let tls = r.tls.as_ref().is_some_and(|t| *t.get_ref());
        if tls && !cfg!(feature = "tls") {
            let span = r.tls.as_ref().map_or(0..0, |t| t.span());
            return self.err(
                span,
                "mqtt.tls",
                "this pv-edge was built without TLS (cargo build --features tls)",
            );
        }
        let ca_file = match &r.ca_file {
            Some(f) if !tls => return self.err(f.span(), "mqtt.ca_file", "only used with tls = true"),
            Some(f) => Some(base.join(f.get_ref())),
            None if tls => {
                let span = r.tls.as_ref().map_or(0..0, |t| t.span());
                return self.err(
                    span,
                    "mqtt.ca_file",
                    "tls needs the broker's CA certificate (PEM)",
                );
            }
            None => None,
        };
        let client_id = match &r.client_id {
            Some(c) if c.get_ref().is_empty() || c.get_ref().len() > 64 => {
                return self.err(c.span(), "mqtt.client_id", "1-64 characters");
            }
            Some(c) => c.get_ref().clone(),
            None => gateway_id.to_string(),
        };
        let ms = |v: i64| Duration::from_millis(v as u64);
        let s = |v: i64| Duration::from_secs(v as u64);
        let reconnect_initial = ms(self.int(
            &r.reconnect_initial_ms,
            "mqtt.reconnect_initial_ms",
            1000,
            10..=600_000,
        )?);
        let reconnect_max = s(self.int(&r.reconnect_max_s, "mqtt.reconnect_max_s", 60, 1..=86_400)?);
        if reconnect_max < reconnect_initial {
            let span = r.reconnect_max_s.as_ref().map_or(m.span(), |v| v.span());
            return self.err(
                span,
                "mqtt.reconnect_max_s",
                "must not be below reconnect_initial_ms",
            );
        }
        Ok(UplinkConfig {
            host: host.to_string(),
            port: self.int(&r.port, "mqtt.port", if tls { 8883 } else { 1883 }, 1..=65_535)? as u16,
            client_id,
            username: Some(match &r.username {
                Some(u) => u.get_ref().clone(),
                None => gateway_id.to_string(),
            }),
            password,
            tls,
            ca_file,
            keep_alive: s(self.int(&r.keep_alive_s, "mqtt.keep_alive_s", 30, 5..=3600)?),
            batch_max_samples: self.int(&r.batch_max_samples, "mqtt.batch_max_samples", 200, 1..=10_000)?
                as usize,
            batch_linger: ms(self.int(&r.batch_linger_ms, "mqtt.batch_linger_ms", 200, 0..=60_000)?),
            replay_window: self.int(&r.replay_window, "mqtt.replay_window", 32, 1..=1000)? as usize,
            ack_timeout: s(self.int(&r.ack_timeout_s, "mqtt.ack_timeout_s", 60, 1..=3600)?),
            reconnect_initial,
            reconnect_max,
            status_interval: s(self.int(&r.status_interval_s, "mqtt.status_interval_s", 60, 1..=86_400)?),
            encoding: pv_shared::wire::Encoding::Json,
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
    fn the_uplink_encoding_is_json_unless_binary_is_chosen() {
        use pv_shared::wire::Encoding;
        let c = config(&format!("[mqtt]\nhost = \"h\"\n{BUS}")).unwrap();
        assert_eq!(c.uplink.unwrap().encoding, Encoding::Json);
        let c = config(&format!(
            "[mqtt]\nhost = \"h\"\n[uplink]\nencoding = \"binary\"\n{BUS}"
        ))
        .unwrap();
        assert_eq!(c.uplink.unwrap().encoding, Encoding::Binary);
        let e = config(&format!(
            "[mqtt]\nhost = \"h\"\n[uplink]\nencoding = \"cbor\"\n{BUS}"
        ))
        .unwrap_err();
        assert_eq!((e.line, e.field.as_str()), (7, "uplink.encoding"), "{e}");
        let e = config(&format!("[uplink]\nencoding = \"binary\"\n{BUS}")).unwrap_err();
        assert_eq!(e.field, "uplink.encoding", "{e}");
    }

    #[test]
    fn mqtt_settings_default_to_the_gateways_own_identity() {
        let c = config(&format!(
            "[mqtt]\nhost = \"hub.example\"\npassword = \"s3cret\"\n{BUS}"
        ))
        .unwrap();
        let u = c.uplink.unwrap();
        assert_eq!((u.host.as_str(), u.port), ("hub.example", 1883));
        assert_eq!(
            (u.client_id.as_str(), u.username.as_deref()),
            ("gw-1", Some("gw-1"))
        );
        assert!(
            !format!("{u:?}").contains("s3cret"),
            "the password stays out of logs"
        );
        assert!(config(BUS).unwrap().uplink.is_none());
        let e = config(&format!("[mqtt]\nhost = \"h\"\nbatch_max_samples = 0\n{BUS}")).unwrap_err();
        assert_eq!((e.line, e.field.as_str()), (6, "mqtt.batch_max_samples"), "{e}");
        let e = config(&format!("[mqtt]\nhost = \"h\"\npasword = \"x\"\n{BUS}")).unwrap_err();
        assert_eq!(e.line, 6, "{e}");
        assert!(e.message.contains("pasword"), "{e}");
        if !cfg!(feature = "tls") {
            let e = config(&format!("[mqtt]\nhost = \"h\"\ntls = true\n{BUS}")).unwrap_err();
            assert_eq!((e.line, e.field.as_str()), (6, "mqtt.tls"), "{e}");
        }
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

    #[test]
    fn a_device_setting_picks_its_map_variant_and_a_wrong_one_is_refused() {
        let sungrow = BUS.replace("huawei-sun2000-ktl", "sungrow-sg-cx");
        let metrics = |c: &GatewayConfig| -> Vec<String> {
            c.buses[0].devices[0]
                .map
                .points
                .iter()
                .map(|p| p.metric.clone())
                .collect()
        };
        let four = config(&sungrow).unwrap();
        assert!(metrics(&four).contains(&"grid_voltage_a".to_string()));
        let three = config(&format!("{sungrow}settings = {{ output_type = \"3p3w\" }}\n")).unwrap();
        assert!(metrics(&three).contains(&"grid_voltage_ab".to_string()));
        assert!(!metrics(&three).contains(&"grid_voltage_a".to_string()));
        let e = config(&format!("{sungrow}settings = {{ output_type = \"delta\" }}\n")).unwrap_err();
        assert_eq!(
            (e.line, e.field.as_str()),
            (16, "bus[0].device[0].settings"),
            "{e}"
        );
        assert!(e.message.contains("3p4w"), "{e}");
        let e = config(&format!("{BUS}settings = {{ output_type = \"3p3w\" }}\n")).unwrap_err();
        assert!(e.message.contains("no setting \"output_type\""), "{e}");
    }
}
