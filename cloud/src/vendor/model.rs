//! The types of the connector contract (re-exported by `connector`, which adds the vendor
//! dispatch: `Platform::limits` and `connect`). They live apart so the vendor modules can name
//! them without importing the module that imports them.

use std::collections::BTreeMap;
use std::time::Duration;

/// Which vendor cloud an account is on (the dictionary code is `as_str()`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Platform {
    #[serde(rename = "huawei")]
    FusionSolar,
    #[serde(rename = "sungrow")]
    ISolarCloud,
    Growatt,
    SolarEdge,
}

impl Platform {
    pub const ALL: [Platform; 4] = [
        Platform::FusionSolar,
        Platform::ISolarCloud,
        Platform::Growatt,
        Platform::SolarEdge,
    ];

    /// "huawei" | "sungrow" | "growatt" | "solaredge". The seeded `inverter_manufacturer`
    /// dictionary keys its first three makers "1" (华为), "2" (阳光电源), "3" (古瑞瓦特): accounts
    /// saved with those keys are read as the same platforms.
    pub fn from_code(code: &str) -> Option<Platform> {
        match code.trim().to_ascii_lowercase().as_str() {
            "huawei" | "fusionsolar" | "1" => Some(Platform::FusionSolar),
            "sungrow" | "isolarcloud" | "2" => Some(Platform::ISolarCloud),
            "growatt" | "3" => Some(Platform::Growatt),
            "solaredge" => Some(Platform::SolarEdge),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Platform::FusionSolar => "huawei",
            Platform::ISolarCloud => "sungrow",
            Platform::Growatt => "growatt",
            Platform::SolarEdge => "solaredge",
        }
    }

    /// The vendor's public API address, used when an account leaves apiUrl blank.
    pub fn default_base_url(self) -> &'static str {
        match self {
            Platform::FusionSolar => "https://eu5.fusionsolar.huawei.com",
            Platform::ISolarCloud => "https://gateway.isolarcloud.com.hk",
            Platform::Growatt => "https://openapi.growatt.com",
            Platform::SolarEdge => "https://monitoringapi.solaredge.com",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Token-bucket refill (documented figure, or a documented conservative one).
    pub requests_per_minute: u32,
    /// e.g. SolarEdge 300 per account.
    pub requests_per_day: Option<u32>,
    /// The vendor's own data cadence (5 min for all four by default).
    pub live_interval: Duration,
    /// The longest range one history call may ask.
    pub history_window: Duration,
    /// How far back an added account / an outage is filled (documented).
    pub backfill_depth: Duration,
}

/// What an account needs to sign in (from `pv_inverter_third`; secrets decrypted by the caller).
#[derive(Clone)]
pub struct Credentials {
    /// apiUrl of the account, or the vendor's public default when blank.
    pub base_url: String,
    /// User name / app key id / api key owner, as each vendor names it.
    pub account: String,
    /// Password / system code / API key / token.
    pub secret: String,
    /// iSolarCloud appkey (others: None).
    pub app_key: Option<String>,
    /// iSolarCloud x-access-key (others: None).
    pub access_key: Option<String>,
}

impl std::fmt::Debug for Credentials {
    // The secrets never reach a log line.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Credentials")
            .field("base_url", &self.base_url)
            .field("account", &self.account)
            .finish_non_exhaustive()
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Plant {
    pub plant_id: String,
    pub name: String,
    pub capacity_kwp: Option<f64>,
    pub address: Option<String>,
    pub timezone: Option<String>,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum DeviceKind {
    Inverter,
    Meter,
    Weather,
}

impl DeviceKind {
    /// The `kind` column of `pv_vendor_device`.
    pub fn as_str(self) -> &'static str {
        match self {
            DeviceKind::Inverter => "inverter",
            DeviceKind::Meter => "meter",
            DeviceKind::Weather => "weather",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct VendorDevice {
    pub device_id: String,
    pub plant_id: String,
    pub serial: String,
    pub kind: DeviceKind,
    pub name: String,
    pub model: Option<String>,
    pub firmware: Option<String>,
    pub rated_power_w: Option<f64>,
}

/// One sample of one device, in this product's metric names and units (`pv_shared::metrics`).
#[derive(Debug, Clone, PartialEq)]
pub struct VendorSample {
    pub device_id: String,
    pub ts_ms: i64,
    pub values: BTreeMap<String, f64>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct VendorAlarm {
    pub device_id: Option<String>,
    pub code: String,
    pub level: AlarmLevel,
    pub message: String,
    pub raised_ms: i64,
    pub active: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AlarmLevel {
    Critical,
    Major,
    Minor,
    Warning,
}

#[derive(Debug, thiserror::Error)]
pub enum VendorError {
    #[error("the vendor refused the credentials: {0}")]
    Auth(String),
    #[error("the vendor throttled the account: {message}")]
    Throttled {
        retry_after: Option<Duration>,
        message: String,
    },
    /// Network error, timeout, 5xx.
    #[error("the vendor cloud is unreachable: {0}")]
    Unavailable(String),
    #[error("the vendor answered something unexpected: {0}")]
    Protocol(String),
}

/// One signed-in session with a vendor cloud. Every HTTP request it makes (sign-in included) first
/// takes a token from the account's `Budget` (so the limit holds whatever the caller does), and a
/// throttling answer of the vendor (HTTP 429, FusionSolar failCode 407, Growatt error_code 10012,
/// iSolarCloud's rate codes...) is returned as `Throttled` after informing the budget
/// (`Budget::throttled`).
#[async_trait::async_trait]
pub trait VendorApi: Send + Sync {
    fn platform(&self) -> Platform;
    async fn plants(&mut self) -> Result<Vec<Plant>, VendorError>;
    async fn devices(&mut self, plant_id: &str) -> Result<Vec<VendorDevice>, VendorError>;
    /// The newest sample of each of these devices (all of one plant).
    async fn realtime(
        &mut self,
        plant_id: &str,
        devices: &[VendorDevice],
    ) -> Result<Vec<VendorSample>, VendorError>;
    /// Samples at the vendor's cadence in [from_ms, to_ms), to_ms - from_ms <= limits().history_window.
    async fn history(
        &mut self,
        plant_id: &str,
        device: &VendorDevice,
        from_ms: i64,
        to_ms: i64,
    ) -> Result<Vec<VendorSample>, VendorError>;
    /// Alarms the vendor reports for the plant (active ones; `active: false` for those it reports cleared).
    async fn alarms(&mut self, plant_id: &str) -> Result<Vec<VendorAlarm>, VendorError>;
}
