//! Mock vendor clouds for tests and the demo: Huawei FusionSolar (northbound OpenAPI), Sungrow
//! iSolarCloud (OpenAPI), Growatt (OpenAPI v1) and SolarEdge (Monitoring API), written from the
//! same public documentation as the hub's connectors (docs/vendor-clouds.md lists the sources).
//! All four answer on one address (their paths do not overlap): each checks authentication the
//! way its vendor does, counts requests per account and answers over its rate limit with the
//! vendor's own throttling answer, and serves the synthetic plant of `plant`. Tests drive it
//! through `MockHandle`; the `pv-mock-vendors` binary exposes the same switches under `/control`.

// The vendors' checks return the vendor's ready answer as their error; a test server gains
// nothing from boxing it.
#![allow(clippy::result_large_err)]

mod control;
mod fusionsolar;
mod growatt;
mod isolarcloud;
pub mod plant;
mod solaredge;

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use axum::Router;
use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde::Serialize;

/// The four vendor clouds (codes as the hub's `inverter_manufacturer` platforms).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, serde::Deserialize)]
pub enum Vendor {
    #[serde(rename = "huawei")]
    FusionSolar,
    #[serde(rename = "sungrow")]
    ISolarCloud,
    #[serde(rename = "growatt")]
    Growatt,
    #[serde(rename = "solaredge")]
    SolarEdge,
}

impl Vendor {
    pub const ALL: [Vendor; 4] = [
        Vendor::FusionSolar,
        Vendor::ISolarCloud,
        Vendor::Growatt,
        Vendor::SolarEdge,
    ];

    pub fn code(self) -> &'static str {
        match self {
            Vendor::FusionSolar => "huawei",
            Vendor::ISolarCloud => "sungrow",
            Vendor::Growatt => "growatt",
            Vendor::SolarEdge => "solaredge",
        }
    }

    pub fn from_code(code: &str) -> Option<Vendor> {
        Vendor::ALL.into_iter().find(|v| v.code() == code)
    }

    /// The documented request limit the mock enforces per account, per `MockConfig::rate_window`.
    pub fn documented_per_minute(self) -> u32 {
        match self {
            Vendor::FusionSolar => 5,
            Vendor::ISolarCloud => 10,
            Vendor::Growatt => 6,
            // SolarEdge documents a daily figure only (300 per account and per site); per minute
            // it only refuses more than 3 concurrent calls.
            Vendor::SolarEdge => 1_000,
        }
    }
}

/// The demo accounts (one per vendor); `MockConfig::default()` uses them.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Account {
    pub account: String,
    pub secret: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub app_key: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub access_key: Option<String>,
}

pub fn demo_account(vendor: Vendor) -> Account {
    let plain = |account: &str, secret: &str| Account {
        account: account.into(),
        secret: secret.into(),
        app_key: None,
        access_key: None,
    };
    match vendor {
        Vendor::FusionSolar => plain("demo_northbound", "Demo.System.Code1"),
        Vendor::ISolarCloud => Account {
            account: "demo@isolarcloud.test".into(),
            secret: "demo-password-1".into(),
            app_key: Some("D3M0APPKEY00000000000000000000AB".into()),
            access_key: Some("demoaccesskey0000000000000000000".into()),
        },
        Vendor::Growatt => plain("demo", "demo0growatt0token0000000000000a"),
        Vendor::SolarEdge => plain("demo", "DEMO0SOLAREDGE0API0KEY0000000000"),
    }
}

#[derive(Debug, Clone)]
pub struct MockConfig {
    /// A fixed clock (ms since the epoch); None follows the wall clock.
    pub now_ms: Option<i64>,
    pub plants: usize,
    pub inverters_per_plant: usize,
    /// Per-account request limits, per `rate_window` (defaults: `Vendor::documented_per_minute`).
    pub rate_limits: BTreeMap<Vendor, u32>,
    pub rate_window: Duration,
    /// SolarEdge's daily request limit per account and per site (documented 300).
    pub solaredge_per_day: u32,
    /// How long a sign-in token lives (FusionSolar XSRF-TOKEN, iSolarCloud token).
    pub token_ttl: Duration,
    pub accounts: BTreeMap<Vendor, Account>,
}

impl Default for MockConfig {
    fn default() -> Self {
        MockConfig {
            now_ms: None,
            plants: 1,
            inverters_per_plant: 2,
            rate_limits: Vendor::ALL
                .into_iter()
                .map(|v| (v, v.documented_per_minute()))
                .collect(),
            rate_window: Duration::from_secs(60),
            solaredge_per_day: 300,
            token_ttl: Duration::from_secs(30 * 60),
            accounts: Vendor::ALL.into_iter().map(|v| (v, demo_account(v))).collect(),
        }
    }
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MockAlarm {
    pub vendor: Vendor,
    /// Plant index (0-based).
    pub plant: usize,
    /// Inverter index (0-based) within the plant.
    pub device: usize,
    pub code: String,
    /// 1 critical, 2 major, 3 minor, 4 warning (FusionSolar's `lev`).
    pub level: u8,
    pub message: String,
    pub raised_ms: i64,
}

pub(crate) struct Shared {
    pub cfg: MockConfig,
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    now_ms: Option<i64>,
    outage: bool,
    throttle: HashSet<Vendor>,
    alarms: Vec<MockAlarm>,
    requests: HashMap<Vendor, u64>,
    refused: HashMap<Vendor, u64>,
    windows: HashMap<(Vendor, String), VecDeque<Instant>>,
    busiest_window: HashMap<Vendor, usize>,
    per_day: HashMap<(Vendor, String, i64), u32>,
    /// token → (vendor, account, issued)
    tokens: HashMap<String, (Vendor, String, Instant)>,
    issued: u64,
    in_flight: HashMap<Vendor, u32>,
}

/// Why a request was refused before its handler answered.
pub(crate) enum Refusal {
    Throttled,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn now_ms(&self) -> i64 {
        self.lock().now_ms.unwrap_or_else(|| {
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map(|d| d.as_millis() as i64)
                .unwrap_or(0)
        })
    }

    pub fn account(&self, vendor: Vendor) -> &Account {
        // Every vendor has an account: `MockConfig::default` fills them and `start` checks.
        &self.cfg.accounts[&vendor]
    }

    /// Counts a request of `account` against the vendor's limit; refuses it over the limit or
    /// while the throttle switch is on (refused requests do not use the window).
    pub fn admit(&self, vendor: Vendor, account: &str) -> Result<(), Refusal> {
        let mut g = self.lock();
        let limit = self.cfg.rate_limits.get(&vendor).copied().unwrap_or(u32::MAX) as usize;
        let now = Instant::now();
        if g.throttle.contains(&vendor) {
            *g.refused.entry(vendor).or_default() += 1;
            return Err(Refusal::Throttled);
        }
        let window = self.cfg.rate_window;
        let w = g.windows.entry((vendor, account.to_string())).or_default();
        while w.front().is_some_and(|t| *t + window <= now) {
            w.pop_front();
        }
        if w.len() >= limit {
            *g.refused.entry(vendor).or_default() += 1;
            return Err(Refusal::Throttled);
        }
        w.push_back(now);
        let in_window = w.len();
        let busiest = g.busiest_window.entry(vendor).or_default();
        *busiest = (*busiest).max(in_window);
        Ok(())
    }

    /// SolarEdge's daily count for a key or a site; false once over the day's limit.
    pub fn admit_day(&self, vendor: Vendor, key: &str, limit: u32) -> bool {
        let day = self.now_ms().div_euclid(plant::DAY_MS);
        let mut g = self.lock();
        let n = g.per_day.entry((vendor, key.to_string(), day)).or_default();
        if *n >= limit {
            return false;
        }
        *n += 1;
        true
    }

    pub fn refuse(&self, vendor: Vendor) {
        *self.lock().refused.entry(vendor).or_default() += 1;
    }

    pub fn issue_token(&self, vendor: Vendor, account: &str) -> String {
        let mut g = self.lock();
        g.issued += 1;
        let token = format!(
            "{}-{:08x}-{}",
            vendor.code(),
            g.issued * 2_654_435_761 % (1 << 32),
            g.issued
        );
        g.tokens
            .insert(token.clone(), (vendor, account.to_string(), Instant::now()));
        token
    }

    /// The account a live token of `vendor` belongs to.
    pub fn token_account(&self, vendor: Vendor, token: &str) -> Option<String> {
        let g = self.lock();
        let (v, account, issued) = g.tokens.get(token)?;
        (*v == vendor && issued.elapsed() < self.cfg.token_ttl).then(|| account.clone())
    }

    pub fn enter(&self, vendor: Vendor) -> u32 {
        let mut g = self.lock();
        let n = g.in_flight.entry(vendor).or_default();
        *n += 1;
        *n
    }

    pub fn leave(&self, vendor: Vendor) {
        let mut g = self.lock();
        let n = g.in_flight.entry(vendor).or_default();
        *n = n.saturating_sub(1);
    }

    pub fn alarms(&self, vendor: Vendor, plant: usize) -> Vec<MockAlarm> {
        self.lock()
            .alarms
            .iter()
            .filter(|a| a.vendor == vendor && a.plant == plant)
            .cloned()
            .collect()
    }

    fn count(&self, vendor: Vendor) {
        *self.lock().requests.entry(vendor).or_default() += 1;
    }
}

fn vendor_of(path: &str) -> Option<Vendor> {
    if path.starts_with("/thirdData/") {
        Some(Vendor::FusionSolar)
    } else if path.starts_with("/openapi/") {
        Some(Vendor::ISolarCloud)
    } else if path.starts_with("/v1/") {
        Some(Vendor::Growatt)
    } else if path.starts_with("/site") || path.starts_with("/equipment/") {
        Some(Vendor::SolarEdge)
    } else {
        None
    }
}

/// Counts every vendor request and plays the outage: 503 from all four while it is on.
async fn gate(State(shared): State<Arc<Shared>>, req: Request, next: Next) -> Response {
    if let Some(vendor) = vendor_of(req.uri().path()) {
        shared.count(vendor);
        if shared.lock().outage {
            return (StatusCode::SERVICE_UNAVAILABLE, "maintenance").into_response();
        }
    }
    next.run(req).await
}

/// A running mock; dropping it stops the server.
pub struct MockHandle {
    addr: SocketAddr,
    shared: Arc<Shared>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for MockHandle {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl MockHandle {
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The vendor's API address (all four share the server; the vendor paths do not overlap).
    pub fn base_url(&self, _vendor: Vendor) -> String {
        format!("http://{}", self.addr)
    }

    pub fn account(&self, vendor: Vendor) -> Account {
        self.shared.account(vendor).clone()
    }

    pub fn set_outage(&self, on: bool) {
        self.shared.lock().outage = on;
    }

    /// While on, every request of the vendor gets its throttling answer.
    pub fn throttle(&self, vendor: Vendor, on: bool) {
        let mut g = self.shared.lock();
        if on {
            g.throttle.insert(vendor);
        } else {
            g.throttle.remove(&vendor);
        }
    }

    pub fn set_now(&self, now_ms: Option<i64>) {
        self.shared.lock().now_ms = now_ms;
    }

    pub fn now_ms(&self) -> i64 {
        self.shared.now_ms()
    }

    /// Invalidates every sign-in token (as the vendor does when a session expires).
    pub fn expire_tokens(&self) {
        self.shared.lock().tokens.clear();
    }

    pub fn raise_alarm(
        &self,
        vendor: Vendor,
        plant: usize,
        device: usize,
        code: &str,
        level: u8,
        message: &str,
    ) {
        let raised_ms = self.shared.now_ms();
        let mut g = self.shared.lock();
        g.alarms.retain(|a| !(a.vendor == vendor && a.code == code));
        g.alarms.push(MockAlarm {
            vendor,
            plant,
            device,
            code: code.into(),
            level,
            message: message.into(),
            raised_ms,
        });
    }

    pub fn clear_alarm(&self, vendor: Vendor, code: &str) {
        self.shared
            .lock()
            .alarms
            .retain(|a| !(a.vendor == vendor && a.code == code));
    }

    /// Requests the vendor received (refused ones included).
    pub fn requests(&self, vendor: Vendor) -> u64 {
        self.shared.lock().requests.get(&vendor).copied().unwrap_or(0)
    }

    /// Requests the vendor refused with its throttling answer.
    pub fn refused(&self, vendor: Vendor) -> u64 {
        self.shared.lock().refused.get(&vendor).copied().unwrap_or(0)
    }

    /// The most requests one account had inside one rate window.
    pub fn busiest_window(&self, vendor: Vendor) -> usize {
        self.shared
            .lock()
            .busiest_window
            .get(&vendor)
            .copied()
            .unwrap_or(0)
    }

    /// The JSON line the binary prints: per platform code its base URL and demo credentials.
    pub fn describe(&self) -> serde_json::Value {
        let mut platforms = serde_json::Map::new();
        for v in Vendor::ALL {
            let mut entry = serde_json::to_value(self.account(v)).unwrap_or_default();
            if let Some(o) = entry.as_object_mut() {
                o.insert("baseUrl".into(), self.base_url(v).into());
            }
            platforms.insert(v.code().into(), entry);
        }
        serde_json::json!({
            "platforms": platforms,
            "control": format!("http://{}/control", self.addr),
            "plants": self.shared.cfg.plants,
            "invertersPerPlant": self.shared.cfg.inverters_per_plant,
        })
    }
}

fn router(shared: Arc<Shared>) -> Router {
    Router::new()
        .merge(fusionsolar::router())
        .merge(isolarcloud::router())
        .merge(growatt::router())
        .merge(solaredge::router())
        .merge(control::router())
        .layer(axum::middleware::from_fn_with_state(shared.clone(), gate))
        .with_state(shared)
}

/// Starts the four mock clouds on `127.0.0.1:port` (0: any free port).
pub async fn start_on(config: MockConfig, port: u16) -> std::io::Result<MockHandle> {
    for v in Vendor::ALL {
        if !config.accounts.contains_key(&v) {
            return Err(std::io::Error::other(format!("no account for {}", v.code())));
        }
    }
    let now_ms = config.now_ms;
    let shared = Arc::new(Shared {
        cfg: config,
        inner: Mutex::new(Inner {
            now_ms,
            ..Inner::default()
        }),
    });
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    let addr = listener.local_addr()?;
    let app = router(shared.clone());
    let task = tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    Ok(MockHandle { addr, shared, task })
}

pub async fn start(config: MockConfig) -> std::io::Result<MockHandle> {
    start_on(config, 0).await
}

/// Reads a JSON body leniently: vendors answer their own error for a malformed body.
pub(crate) fn body_json(bytes: &[u8]) -> serde_json::Value {
    serde_json::from_slice(bytes).unwrap_or(serde_json::Value::Null)
}

/// A string or number field of a JSON object as text.
pub(crate) fn text(v: &serde_json::Value, key: &str) -> Option<String> {
    match v.get(key)? {
        serde_json::Value::String(s) => Some(s.clone()),
        serde_json::Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

pub(crate) fn int(v: &serde_json::Value, key: &str) -> Option<i64> {
    match v.get(key)? {
        serde_json::Value::String(s) => s.parse().ok(),
        serde_json::Value::Number(n) => n.as_i64(),
        _ => None,
    }
}
