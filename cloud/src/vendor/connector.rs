//! The contract between the vendor connectors and the rest of the hub (issue 30's brief): which
//! vendor cloud an account is on, what its documented limits imply, and one signed-in session
//! behind [`VendorApi`]. The connectors themselves (and this file's final version) come from
//! the `s16-vendor` branch; until it merges this copy keeps the poller compiling, and `connect`
//! answers every call as unavailable.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use super::budget::Budget;

/// Which vendor cloud an account is on (the dictionary code is `as_str()`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Platform {
    FusionSolar,
    ISolarCloud,
    Growatt,
    SolarEdge,
}

impl Platform {
    pub fn from_code(code: &str) -> Option<Platform> {
        match code {
            "huawei" => Some(Platform::FusionSolar),
            "sungrow" => Some(Platform::ISolarCloud),
            "growatt" => Some(Platform::Growatt),
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

    /// The vendor's documented request limits and what they imply for polling.
    pub fn limits(self) -> Limits {
        let five = Duration::from_secs(300);
        let day = Duration::from_secs(86_400);
        match self {
            Platform::FusionSolar => Limits {
                requests_per_minute: 10,
                requests_per_day: None,
                live_interval: five,
                history_window: day,
                backfill_depth: day,
            },
            Platform::ISolarCloud => Limits {
                requests_per_minute: 30,
                requests_per_day: None,
                live_interval: five,
                history_window: Duration::from_secs(3 * 3600),
                backfill_depth: day,
            },
            Platform::Growatt => Limits {
                requests_per_minute: 10,
                requests_per_day: None,
                live_interval: five,
                history_window: day,
                backfill_depth: day,
            },
            Platform::SolarEdge => Limits {
                requests_per_minute: 3,
                requests_per_day: Some(300),
                live_interval: Duration::from_secs(900),
                history_window: Duration::from_secs(7 * 86_400),
                backfill_depth: day,
            },
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    pub requests_per_minute: u32,
    pub requests_per_day: Option<u32>,
    pub live_interval: Duration,
    pub history_window: Duration,
    pub backfill_depth: Duration,
}

/// What an account needs to sign in (from `pv_inverter_third`; secrets decrypted by the caller).
#[derive(Debug, Clone)]
pub struct Credentials {
    pub base_url: String,
    pub account: String,
    pub secret: String,
    pub app_key: Option<String>,
    pub access_key: Option<String>,
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
    #[error("the vendor cloud is unreachable: {0}")]
    Unavailable(String),
    #[error("the vendor answered something unexpected: {0}")]
    Protocol(String),
}

/// One signed-in session with a vendor cloud (see the brief: every request takes a token from
/// the account's `Budget` first; throttling answers inform the budget and come back as
/// `Throttled`).
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

/// Makes a session for an account (no request yet; sign-in happens lazily on first use).
pub fn connect(
    platform: Platform,
    _credentials: Credentials,
    _budget: Arc<Budget>,
    _http: reqwest::Client,
) -> Box<dyn VendorApi> {
    Box::new(Unbuilt(platform))
}

/// Stands in until the connectors merge: every call is unavailable.
struct Unbuilt(Platform);

fn unbuilt<T>() -> Result<T, VendorError> {
    Err(VendorError::Unavailable("connector not built".into()))
}

#[async_trait::async_trait]
impl VendorApi for Unbuilt {
    fn platform(&self) -> Platform {
        self.0
    }
    async fn plants(&mut self) -> Result<Vec<Plant>, VendorError> {
        unbuilt()
    }
    async fn devices(&mut self, _: &str) -> Result<Vec<VendorDevice>, VendorError> {
        unbuilt()
    }
    async fn realtime(&mut self, _: &str, _: &[VendorDevice]) -> Result<Vec<VendorSample>, VendorError> {
        unbuilt()
    }
    async fn history(
        &mut self,
        _: &str,
        _: &VendorDevice,
        _: i64,
        _: i64,
    ) -> Result<Vec<VendorSample>, VendorError> {
        unbuilt()
    }
    async fn alarms(&mut self, _: &str) -> Result<Vec<VendorAlarm>, VendorError> {
        unbuilt()
    }
}
