//! Vendor cloud connectors (`pv_cloud::vendor`) against the mock vendor clouds of
//! `pv-mock-vendors`, over real HTTP: sign-in, plants, devices, live and history samples in
//! canonical units, token expiry, the vendors' throttling answers, wrong credentials, outages
//! (`connectors`), and the request budget holding each vendor's limits counted at the mock
//! (`limits`); and the poller that feeds stations from them (`poller`, on `fake`).

mod connectors;
mod fake;
mod limits;
mod poller;

use std::sync::Arc;
use std::time::Duration;

use pv_cloud::vendor::{Budget, Credentials, Platform, VendorApi, VendorDevice, connect};
use pv_mock_vendors::{MockConfig, MockHandle, Vendor};

/// 2026-06-01 12:00 at the plants (UTC+8): mid-day, so every inverter produces.
pub const NOON_MS: i64 = 1_780_286_400_000;

pub fn vendor(platform: Platform) -> Vendor {
    match platform {
        Platform::FusionSolar => Vendor::FusionSolar,
        Platform::ISolarCloud => Vendor::ISolarCloud,
        Platform::Growatt => Vendor::Growatt,
        Platform::SolarEdge => Vendor::SolarEdge,
    }
}

/// A mock whose rate limits do not get in the way (the `limits` tests set their own).
pub async fn roomy_mock(now_ms: Option<i64>) -> MockHandle {
    let mut cfg = MockConfig {
        now_ms,
        ..MockConfig::default()
    };
    for limit in cfg.rate_limits.values_mut() {
        *limit = 10_000;
    }
    cfg.solaredge_per_day = 10_000;
    pv_mock_vendors::start(cfg).await.expect("mock vendors start")
}

pub fn http() -> reqwest::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder().build().expect("an HTTP client")
}

pub fn credentials(mock: &MockHandle, platform: Platform) -> Credentials {
    let v = vendor(platform);
    let a = mock.account(v);
    Credentials {
        base_url: mock.base_url(v),
        account: a.account,
        secret: a.secret,
        app_key: a.app_key,
        access_key: a.access_key,
    }
}

/// A roomy budget: the connector tests are about answers, not pacing.
pub fn roomy_budget() -> Arc<Budget> {
    Arc::new(Budget::with_period(1_000, Duration::from_secs(1), None))
}

pub fn session(mock: &MockHandle, platform: Platform, budget: Arc<Budget>) -> Box<dyn VendorApi> {
    connect(platform, credentials(mock, platform), budget, http())
}

/// The first plant's id and its inverters (in the mock's device order).
pub async fn first_plant(api: &mut dyn VendorApi) -> (String, Vec<VendorDevice>) {
    let plants = api.plants().await.expect("plants");
    let plant = plants.first().expect("one plant").plant_id.clone();
    let devices = api.devices(&plant).await.expect("devices");
    let inverters = devices
        .into_iter()
        .filter(|d| d.kind == pv_cloud::vendor::DeviceKind::Inverter)
        .collect();
    (plant, inverters)
}
