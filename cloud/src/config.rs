//! Configuration: built-in defaults, then an optional TOML file, then `PV_*` environment
//! variables (nested keys with `__`, e.g. `PV_BROKER__LISTEN`). Later sources win.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use figment::Figment;
use figment::providers::{Env, Format, Serialized, Toml};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// Address the HTTP server (console, `/api`, `/ws`) listens on.
    pub listen: SocketAddr,
    /// Directory for the SQLite file, the generated token secret and uploaded files.
    pub data_dir: PathBuf,
    /// `sqlite://...` or `postgres://...`; empty means a SQLite file in the data directory.
    pub database_url: String,
    /// Most connections the pool opens.
    pub database_max_connections: u32,
    /// Secret that signs access tokens; empty means generate one on first start and keep it in
    /// the data directory, so tokens survive restarts without a secret ever living in the repo.
    pub token_secret: String,
    /// UTC offset in which date-times are written and read on the wire, e.g. `+08:00`.
    pub timezone: String,
    /// Snowflake node id of this process (0-1023); each replica of a cluster needs its own.
    pub node_id: u16,
    pub broker: BrokerConfig,
    pub log: LogConfig,
    pub auth: AuthConfig,
    pub files: FilesConfig,
    pub station: StationConfig,
    pub demo: DemoConfig,
}

/// The demo (`crate::demo`): a tenant with three simulated stations, for a first look.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DemoConfig {
    /// Provision the demo tenant, its stations and their gateway files at start (off in
    /// production; `scripts/run` turns it on).
    pub enabled: bool,
    /// First of the loopback ports the simulated devices listen on (two per station).
    pub modbus_base_port: u16,
    /// Hours added to every simulated site's clock; absent means chosen at each start so that
    /// every site is in mid-morning, whatever the hour here.
    pub clock_offset_h: Option<f64>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StationConfig {
    /// Folder of device register maps (`*.toml`) that inverters, meters and weather stations
    /// name as their `mapModel`; empty means the copy of `firmware-configs` built into the binary.
    pub device_maps_dir: String,
    /// Key that encrypts stored vendor credentials (third-party inverter accounts, camera app
    /// keys); empty means generate one on first start into the data directory.
    pub credential_key: String,
    /// Live-view URL template per camera brand (`camera_brand` dictionary key). Placeholders:
    /// `{serial}`, `{channel}`, `{verificationCode}`, `{applicationKey}` (values URL-encoded).
    pub camera_live_url: std::collections::BTreeMap<String, String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BrokerConfig {
    /// Run the MQTT broker inside this process; when false, `url` names an external broker.
    pub embedded: bool,
    /// Where the embedded broker listens for gateways.
    pub listen: SocketAddr,
    /// External broker, e.g. `mqtt://broker.example:1883`.
    pub url: String,
    /// Shared-subscription group so several cloud replicas split ingest.
    pub share_group: String,
    /// What gateways dial, e.g. `mqtt://hub.example.com:1883` (`mqtts://` for TLS), written into
    /// generated gateway configs; empty means `url`, else the embedded listener's address.
    pub public_url: String,
    /// Where the register maps live on a gateway, written into generated gateway configs.
    pub gateway_maps_dir: String,
    /// Where a gateway reads its MQTT password from (relative to its config file when not
    /// absolute), written into generated gateway configs; the password itself never is.
    pub gateway_password_file: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuthConfig {
    /// Test hook: the captcha call also returns its answer so browser tests can sign in.
    /// Never turn it on in production; the server logs a warning when it is on.
    pub expose_captcha_answer: bool,
    /// Wrong passwords in a row that lock an account.
    pub lock_attempts: i64,
    /// How long a locked account stays locked.
    pub lock_minutes: i64,
    /// How long a captcha answer stays valid.
    pub captcha_ttl_seconds: i64,
    /// Password given to accounts an administrator creates without one (a new tenant's `admin`)
    /// and restored by `reset-password`; the system parameter `account.initPassword` overrides it.
    pub initial_password: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FilesConfig {
    /// Largest upload accepted, in bytes.
    pub max_upload_bytes: usize,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LogConfig {
    /// `tracing` filter directive, e.g. `info,pv_cloud=debug`; `RUST_LOG` overrides it.
    pub filter: String,
    /// Write JSON lines instead of human-readable text.
    pub json: bool,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            listen: SocketAddr::from(([127, 0, 0, 1], 8080)),
            data_dir: PathBuf::from("data"),
            database_url: String::new(),
            database_max_connections: 16,
            token_secret: String::new(),
            timezone: "+08:00".into(),
            node_id: 1,
            broker: BrokerConfig {
                embedded: true,
                listen: SocketAddr::from(([127, 0, 0, 1], 1883)),
                url: String::new(),
                share_group: "pv-cloud".into(),
                public_url: String::new(),
                gateway_maps_dir: "/usr/share/pv-edge/firmware-configs".into(),
                gateway_password_file: "/etc/pv-edge/mqtt-password".into(),
            },
            log: LogConfig {
                filter: "info".into(),
                json: false,
            },
            auth: AuthConfig {
                expose_captcha_answer: false,
                lock_attempts: 5,
                lock_minutes: 30,
                captcha_ttl_seconds: 180,
                initial_password: "123456".into(),
            },
            files: FilesConfig {
                max_upload_bytes: 20 * 1024 * 1024,
            },
            demo: DemoConfig {
                enabled: false,
                modbus_base_port: 15020,
                clock_offset_h: None,
            },
            station: StationConfig {
                device_maps_dir: String::new(),
                credential_key: String::new(),
                camera_live_url: [
                    (
                        "1",
                        "https://open.ys7.com/ezopen/h5/iframe?url=ezopen://{verificationCode}@open.ys7.com/{serial}/{channel}.hd.live&appKey={applicationKey}",
                    ),
                    (
                        "2",
                        "https://open.imoulife.com/h5/live?deviceId={serial}&channelId={channel}&appId={applicationKey}",
                    ),
                ]
                .into_iter()
                .map(|(k, v)| (k.to_owned(), v.to_owned()))
                .collect(),
            },
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("configuration: {0}")]
    Invalid(#[from] Box<figment::Error>),
    #[error("configuration: timezone {0:?} is not an offset like +08:00")]
    Timezone(String),
    #[error("configuration: node_id {0} is out of range 0-1023")]
    NodeId(u16),
    #[error("configuration: database_url {0:?} is neither sqlite:// nor postgres://")]
    DatabaseUrl(String),
}

impl Config {
    /// Loads defaults, then `file` when given (it must exist), then the environment.
    pub fn load(file: Option<&Path>) -> Result<Self, ConfigError> {
        let mut figment = Figment::from(Serialized::defaults(Config::default()));
        if let Some(file) = file {
            figment = figment.merge(Toml::file_exact(file));
        }
        let config: Config = figment
            .merge(Env::prefixed("PV_").split("__"))
            .extract()
            .map_err(Box::new)?;
        config.validate()?;
        Ok(config)
    }

    fn validate(&self) -> Result<(), ConfigError> {
        crate::kernel::time::parse_offset(&self.timezone)
            .ok_or_else(|| ConfigError::Timezone(self.timezone.clone()))?;
        if self.node_id > 1023 {
            return Err(ConfigError::NodeId(self.node_id));
        }
        let url = self.database_url.as_str();
        if !(url.is_empty()
            || url.starts_with("sqlite:")
            || url.starts_with("postgres:")
            || url.starts_with("postgresql:"))
        {
            return Err(ConfigError::DatabaseUrl(url.to_owned()));
        }
        Ok(())
    }

    /// The database URL in force: the configured one, or a SQLite file in the data directory.
    pub fn effective_database_url(&self) -> String {
        if self.database_url.is_empty() {
            format!("sqlite://{}?mode=rwc", self.data_dir.join("pv.db").display())
        } else {
            self.database_url.clone()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // figment's Jail API returns its large error type by value; that is its design, not ours.
    #[test]
    #[allow(clippy::result_large_err)]
    fn file_then_environment_override_defaults() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("pv.toml");
        std::fs::write(
            &file,
            "listen = \"0.0.0.0:9000\"\ntimezone = \"+07:00\"\n[broker]\nembedded = false\n",
        )
        .unwrap();
        figment::Jail::expect_with(|jail| {
            jail.set_env("PV_TIMEZONE", "+09:00");
            jail.set_env("PV_BROKER__SHARE_GROUP", "g2");
            let c = Config::load(Some(&file)).unwrap();
            assert_eq!(c.listen.port(), 9000, "from the file");
            assert_eq!(c.timezone, "+09:00", "environment beats the file");
            assert!(!c.broker.embedded);
            assert_eq!(c.broker.share_group, "g2");
            assert_eq!(c.node_id, 1, "default kept");
            Ok(())
        });
    }

    #[test]
    #[allow(clippy::result_large_err)]
    fn bad_values_are_named() {
        figment::Jail::expect_with(|jail| {
            jail.set_env("PV_TIMEZONE", "Mars/Olympus");
            let e = Config::load(None).unwrap_err().to_string();
            assert!(e.contains("Mars/Olympus"), "{e}");
            jail.set_env("PV_TIMEZONE", "+08:00");
            jail.set_env("PV_DATABASE_URL", "mysql://x");
            let e = Config::load(None).unwrap_err().to_string();
            assert!(e.contains("mysql://x"), "{e}");
            jail.set_env("PV_DATABASE_URL", "");
            jail.set_env("PV_LISTENN", "1.2.3.4:5");
            let e = Config::load(None).unwrap_err().to_string();
            assert!(
                e.contains("listenn"),
                "a misspelt variable is an error, not ignored: {e}"
            );
            jail.set_env("PV_LISTENN", "");
            jail.create_file("bad.toml", "lisen = \"1.2.3.4:5\"")?;
            let e = Config::load(Some(Path::new("bad.toml"))).unwrap_err().to_string();
            assert!(e.contains("lisen"), "unknown key in a file is an error: {e}");
            Ok(())
        });
    }

    #[test]
    fn sqlite_in_the_data_dir_by_default() {
        let c = Config {
            data_dir: "/srv/pv".into(),
            ..Config::default()
        };
        assert_eq!(c.effective_database_url(), "sqlite:///srv/pv/pv.db?mode=rwc");
    }
}
