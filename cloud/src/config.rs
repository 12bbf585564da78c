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
    pub limits: LimitsConfig,
    pub files: FilesConfig,
    pub station: StationConfig,
    pub telemetry: TelemetryConfig,
    pub demo: DemoConfig,
    pub console: ConsoleConfig,
    /// Certificate and key of the HTTP listener: when set, `listen` serves HTTPS only.
    pub https: TlsFiles,
    #[serde(default)]
    pub metrics: MetricsConfig,
    /// The SMTP server e-mail goes through (`resource::mail`); no host: no e-mail.
    #[serde(default)]
    pub mail: MailConfig,
}

/// An SMTP server: `security` is `none`, `starttls` (upgrade on the plain port, usually 587) or
/// `tls` (TLS from the start, usually 465); sign-in when `username` is set.
#[derive(Debug, Clone, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct MailConfig {
    pub host: String,
    pub port: u16,
    pub security: String,
    pub username: String,
    pub password: String,
    /// The sender, e.g. `光伏运维 <noreply@example.com>`.
    pub from: String,
}

/// A certificate chain and its private key as PEM files; both empty means no TLS.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TlsFiles {
    /// The certificate chain, the server's own certificate first.
    pub cert_file: String,
    /// The private key of that certificate (PKCS#8, PKCS#1 or SEC1).
    pub key_file: String,
}

impl TlsFiles {
    pub fn enabled(&self) -> bool {
        !self.cert_file.trim().is_empty() || !self.key_file.trim().is_empty()
    }
}

/// The Prometheus endpoint `/metrics` (`[metrics]`). Off unless `listen` or `token` is set: a
/// new listener or a new answer on the public port is something an operator asks for.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MetricsConfig {
    /// A listener of its own for `/metrics` (e.g. `127.0.0.1:9464`), for a scraper on the same
    /// host or a private network.
    pub listen: Option<SocketAddr>,
    /// When set, `/metrics` asks for `Authorization: Bearer <token>` on its own listener and is
    /// also served, with that check, on the public port. Never anonymous on the public port.
    pub token: String,
    /// Gateways are shown one by one (`pv_gateway_online{gateway}`) only while the hub has at
    /// most this many; beyond that only the online/offline counts (0: never one by one).
    pub per_gateway_max: usize,
}

impl Default for MetricsConfig {
    fn default() -> Self {
        MetricsConfig {
            listen: None,
            token: String::new(),
            per_gateway_max: 100,
        }
    }
}

/// What the console loads from other hosts, which its Content-Security-Policy allows and nothing
/// else (`[console]`).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConsoleConfig {
    /// The online map's tile URL template, as the console is built with (`mapTileUrl` in
    /// `web/src/config/website.ts`); its origin (`{s}` as `*`) may serve images. Empty: none.
    pub map_tile_url: String,
    /// Further origins the console may show in a frame (menu entries of embedded pages), e.g.
    /// `https://bi.example.com`; the camera live-view hosts of `station.camera_live_url` always may.
    pub frame_origins: Vec<String>,
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

/// Ingest of gateway telemetry (`[telemetry]`): what is accepted, how presence is judged, how
/// much raw data is kept, and how much work may wait for the database.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TelemetryConfig {
    /// Start the broker and ingest with the server (tests of other domains turn it off).
    pub enabled: bool,
    /// Samples stamped further than this in the future (gateway clock ahead) are refused.
    pub future_margin_seconds: i64,
    /// Samples older than this are refused (must stay below the raw retention).
    pub past_horizon_days: i64,
    /// A gateway with no message for this long is offline (≈ 3 × the edge's status interval).
    pub gateway_silence_seconds: i64,
    /// A device with no sample for this long is offline.
    pub device_silence_seconds: i64,
    /// Raw samples older than this are deleted; rollups are kept.
    pub raw_retention_days: i64,
    /// Rows per multi-row INSERT (6 bound values each: far below SQLite's 32766 and
    /// PostgreSQL's 65535 parameters).
    pub insert_chunk_rows: usize,
    /// PostgreSQL: store raw samples with `COPY` into a staging table and one `INSERT .. SELECT`
    /// instead of multi-row INSERTs. Off: measured 6-12 % slower on this hardware (the staging
    /// table writes every row twice; see `docs/decisions.md`).
    pub postgres_copy: bool,
    /// Parsed batches waiting for the database; when full, ingest stops reading the broker
    /// (nothing is acknowledged that is not stored, so gateways keep what waits).
    pub inflight_batches: usize,
    /// Batches written in one transaction at most.
    pub write_group_batches: usize,
    /// Concurrent database writers; 0 means 1 on SQLite (one writer anyway), 4 on PostgreSQL.
    pub writers: usize,
    /// How often rollups of changed 5-minute buckets are recomputed.
    pub rollup_interval_ms: u64,
    /// A 5-minute bucket is rolled up this long after it ends (late samples mark it again).
    pub rollup_delay_seconds: i64,
    /// Gaps longer than this are not bridged when irradiance is integrated to irradiation.
    pub irradiation_max_gap_seconds: i64,
    /// How long the gateway → station and SN → device mapping is trusted before reloading.
    pub registry_ttl_seconds: u64,
    /// After an unknown SN made the registry reload, another reload waits this long.
    pub registry_negative_ttl_seconds: u64,
    /// How long a successful gateway sign-in is remembered (argon2 is deliberately slow).
    pub auth_cache_seconds: u64,
    /// How often counters and presence are written to `pv_gateway_state`.
    pub state_flush_seconds: u64,
}

impl Default for TelemetryConfig {
    fn default() -> Self {
        TelemetryConfig {
            enabled: true,
            future_margin_seconds: 300,
            past_horizon_days: 30,
            gateway_silence_seconds: 180,
            device_silence_seconds: 300,
            raw_retention_days: 90,
            insert_chunk_rows: 500,
            postgres_copy: false,
            inflight_batches: 256,
            write_group_batches: 64,
            writers: 0,
            rollup_interval_ms: 1000,
            rollup_delay_seconds: 10,
            irradiation_max_gap_seconds: 900,
            registry_ttl_seconds: 30,
            registry_negative_ttl_seconds: 5,
            auth_cache_seconds: 60,
            state_flush_seconds: 10,
        }
    }
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
    /// Where the embedded broker listens for gateways: MQTT over TLS when `tls` is set, else
    /// plain MQTT.
    pub listen: SocketAddr,
    /// Certificate and key of the gateway listener (`[broker.tls]`).
    pub tls: TlsFiles,
    /// A second, plain-MQTT gateway listener beside the TLS one (e.g. for gateways on a site
    /// VPN); none unless set, so turning TLS on never leaves a clear-text door open.
    pub plain_listen: Option<SocketAddr>,
    /// External broker, e.g. `mqtt://broker.example:1883`.
    pub url: String,
    /// Shared-subscription group of a lone hub (SQLite) on an external broker; on PostgreSQL
    /// replicas subscribe to the gateways they lease instead (`telemetry::ownership`).
    pub share_group: String,
    /// What gateways dial, e.g. `mqtt://hub.example.com:1883` (`mqtts://` for TLS), written into
    /// generated gateway configs; empty means `url`, else the embedded listener's address.
    pub public_url: String,
    /// Where the register maps live on a gateway, written into generated gateway configs.
    pub gateway_maps_dir: String,
    /// Where a gateway reads its MQTT password from (relative to its config file when not
    /// absolute), written into generated gateway configs; the password itself never is.
    pub gateway_password_file: String,
    /// With an external Mosquitto: the password file the hub writes (every gateway with issued
    /// credentials, and the hub's own login from `url`) for the broker's `password_file`;
    /// empty means the hub does not manage the broker's accounts.
    pub mosquitto_password_file: String,
    /// The ACL file the hub writes next to it for the broker's `acl_file`: each gateway only
    /// its own topics, the hub's login every gateway's.
    pub mosquitto_acl_file: String,
    /// Shell command that makes Mosquitto read the two files again after the hub changed
    /// them, e.g. `systemctl reload mosquitto` or `kill -HUP $(cat /run/mosquitto/mosquitto.pid)`.
    pub mosquitto_reload_command: String,
    /// The hub also rewrites the files (if they changed) this often, besides at start-up and
    /// at once after a change it makes itself; catches changes made by another replica.
    pub mosquitto_sync_seconds: u64,
    /// Several hubs on PostgreSQL with an external broker: how long a replica's lease on a
    /// gateway lasts without renewal. A crashed replica's gateways move after at most
    /// `lease_seconds + lease_heartbeat_seconds`.
    pub lease_seconds: u64,
    /// How often a replica renews its leases and rebalances; at most a third of `lease_seconds`.
    pub lease_heartbeat_seconds: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuthConfig {
    /// Test hook: the captcha call also returns its answer so browser tests can sign in.
    /// Never turn it on in production; the server logs a warning when it is on.
    pub expose_captcha_answer: bool,
    /// Sign-in throttling: wrong passwords for one account from one client address that are
    /// free; after that, each further try waits (see `throttle_base_seconds`).
    pub throttle_free_failures: i64,
    /// The wait after the first failure past the free ones; it doubles with each further one.
    pub throttle_base_seconds: i64,
    /// The longest wait between tries for one account from one address.
    pub throttle_max_seconds: i64,
    /// Failures for one account from one address after which the password grant is refused and
    /// only the captcha grant (what the console always uses) is accepted.
    pub throttle_captcha_after: i64,
    /// Wrong passwords from one address, whatever the accounts, after which that address may not
    /// sign in at all until its window ends (stops one address spraying many accounts).
    pub throttle_address_failures: i64,
    /// Failures are forgotten after this long: for an account and address, this long after the
    /// last one; for an address, this long after the first of its window.
    pub throttle_window_minutes: i64,
    /// How long a captcha answer stays valid.
    pub captcha_ttl_seconds: i64,
    /// Password given to accounts an administrator creates without one (a new tenant's `admin`)
    /// and restored by `reset-password`; the system parameter `account.initPassword` overrides it.
    pub initial_password: String,
}

/// Per-client-address request rates (`[limits]`) of the routes an anonymous or scripted client
/// could hammer. Each allows a burst, then one request per `per_minute`th of a minute; past that
/// the answer is 429 with `Retry-After`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LimitsConfig {
    /// Turn the per-address rate limits off (the sign-in throttle stays).
    pub enabled: bool,
    /// Addresses of reverse proxies whose `X-Forwarded-For` names the client; from any other
    /// peer the header is ignored and the socket's address is the client.
    pub trusted_proxies: Vec<String>,
    /// `oauth/token` (every grant, refreshes included).
    pub sign_in: RateQuota,
    /// `oauth/captcha`.
    pub captcha: RateQuota,
    /// `register-guest`.
    pub register: RateQuota,
    /// `update-password` and `reset-password`.
    pub password: RateQuota,
    /// File uploads and spreadsheet imports.
    pub upload: RateQuota,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RateQuota {
    /// Requests allowed at once.
    pub burst: u32,
    /// Requests regained per minute.
    pub per_minute: u32,
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
                tls: TlsFiles::default(),
                plain_listen: None,
                url: String::new(),
                share_group: "pv-cloud".into(),
                public_url: String::new(),
                gateway_maps_dir: "/usr/share/pv-edge/firmware-configs".into(),
                gateway_password_file: "/etc/pv-edge/mqtt-password".into(),
                mosquitto_password_file: String::new(),
                mosquitto_acl_file: String::new(),
                mosquitto_reload_command: String::new(),
                mosquitto_sync_seconds: 30,
                lease_seconds: 15,
                lease_heartbeat_seconds: 5,
            },
            log: LogConfig {
                filter: "info".into(),
                json: false,
            },
            auth: AuthConfig {
                expose_captcha_answer: false,
                throttle_free_failures: 3,
                throttle_base_seconds: 2,
                throttle_max_seconds: 900,
                throttle_captcha_after: 3,
                throttle_address_failures: 50,
                throttle_window_minutes: 60,
                captcha_ttl_seconds: 180,
                initial_password: "123456".into(),
            },
            // Generous for people and for the browser tests (which sign in many times from one
            // address); tight enough that a script cannot spray guesses or fill the disk.
            limits: LimitsConfig {
                enabled: true,
                trusted_proxies: Vec::new(),
                sign_in: RateQuota {
                    burst: 60,
                    per_minute: 60,
                },
                captcha: RateQuota {
                    burst: 60,
                    per_minute: 60,
                },
                register: RateQuota {
                    burst: 5,
                    per_minute: 5,
                },
                password: RateQuota {
                    burst: 10,
                    per_minute: 10,
                },
                upload: RateQuota {
                    burst: 30,
                    per_minute: 60,
                },
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
            telemetry: TelemetryConfig::default(),
            console: ConsoleConfig {
                map_tile_url: "https://tile.openstreetmap.org/{z}/{x}/{y}.png".into(),
                frame_origins: Vec::new(),
            },
            https: TlsFiles::default(),
            metrics: MetricsConfig::default(),
            mail: MailConfig::default(),
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
    #[error("configuration: telemetry.{0}")]
    Telemetry(&'static str),
    #[error("configuration: limits.{0}")]
    Limits(String),
    #[error("configuration: {0}")]
    Tls(&'static str),
    #[error("configuration: broker.lease_seconds must be at least 3 x broker.lease_heartbeat_seconds (> 0)")]
    Lease,
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
        // A replica that cannot renew must unsubscribe before its leases expire
        // (`telemetry::ownership`), which needs beats well inside the lease.
        if self.broker.lease_heartbeat_seconds == 0
            || self.broker.lease_seconds < 3 * self.broker.lease_heartbeat_seconds
        {
            return Err(ConfigError::Lease);
        }
        let url = self.database_url.as_str();
        if !(url.is_empty()
            || url.starts_with("sqlite:")
            || url.starts_with("postgres:")
            || url.starts_with("postgresql:"))
        {
            return Err(ConfigError::DatabaseUrl(url.to_owned()));
        }
        for (files, message) in [
            (&self.https, "https.cert_file and https.key_file are set together"),
            (
                &self.broker.tls,
                "broker.tls.cert_file and broker.tls.key_file are set together",
            ),
        ] {
            if files.enabled() && (files.cert_file.trim().is_empty() || files.key_file.trim().is_empty()) {
                return Err(ConfigError::Tls(message));
            }
        }
        if self.broker.plain_listen.is_some() && !self.broker.tls.enabled() {
            return Err(ConfigError::Tls(
                "broker.plain_listen is a plain listener beside a TLS one; without broker.tls, broker.listen is plain already",
            ));
        }
        let l = &self.limits;
        if let Some(bad) = l
            .trusted_proxies
            .iter()
            .find(|p| p.parse::<std::net::IpAddr>().is_err())
        {
            return Err(ConfigError::Limits(format!(
                "trusted_proxies: {bad:?} is not an IP address"
            )));
        }
        for (name, q) in [
            ("sign_in", l.sign_in),
            ("captcha", l.captcha),
            ("register", l.register),
            ("password", l.password),
            ("upload", l.upload),
        ] {
            if q.burst == 0 || q.per_minute == 0 {
                return Err(ConfigError::Limits(format!(
                    "{name}: burst and per_minute must be at least 1"
                )));
            }
        }
        let t = &self.telemetry;
        if t.raw_retention_days <= t.past_horizon_days {
            // A sample accepted near the horizon must still find its neighbours in raw when its
            // bucket is rolled up.
            return Err(ConfigError::Telemetry(
                "raw_retention_days must be greater than past_horizon_days",
            ));
        }
        if t.insert_chunk_rows == 0 || t.insert_chunk_rows > 5000 {
            return Err(ConfigError::Telemetry("insert_chunk_rows must be 1-5000"));
        }
        if t.inflight_batches == 0 || t.write_group_batches == 0 {
            return Err(ConfigError::Telemetry(
                "inflight_batches and write_group_batches must be at least 1",
            ));
        }
        if t.future_margin_seconds < 0 || t.past_horizon_days <= 0 {
            return Err(ConfigError::Telemetry(
                "future_margin_seconds must be >= 0 and past_horizon_days > 0",
            ));
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
    #[allow(clippy::result_large_err)]
    fn telemetry_defaults_and_checks() {
        let c = Config::default();
        assert!(c.telemetry.enabled);
        assert_eq!(c.telemetry.raw_retention_days, 90);
        assert_eq!(c.telemetry.future_margin_seconds, 300);
        figment::Jail::expect_with(|jail| {
            jail.create_file(
                "t.toml",
                "[telemetry]\nraw_retention_days = 400\npast_horizon_days = 60\n",
            )?;
            let c = Config::load(Some(Path::new("t.toml"))).unwrap();
            assert_eq!(c.telemetry.raw_retention_days, 400);
            assert_eq!(c.telemetry.past_horizon_days, 60);
            assert_eq!(c.telemetry.inflight_batches, 256, "default kept");
            jail.set_env("PV_TELEMETRY__RAW_RETENTION_DAYS", "10");
            let e = Config::load(Some(Path::new("t.toml"))).unwrap_err().to_string();
            assert!(e.contains("raw_retention_days"), "{e}");
            jail.set_env("PV_TELEMETRY__RAW_RETENTION_DAYS", "400");
            jail.set_env("PV_TELEMETRY__RETENTION", "1");
            let e = Config::load(None).unwrap_err().to_string();
            assert!(e.contains("retention"), "unknown telemetry key: {e}");
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
