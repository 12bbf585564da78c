//! The contract between the vendor clouds and the poller: what an account signs in with, what a
//! vendor's plants, devices, samples and alarms look like once read, and the errors that decide
//! what the poller does next (Auth: stop and show it; Throttled: wait; Unavailable: an outage
//! episode; Protocol: a bug to log). Every connector converts its vendor's units to the canonical
//! ones of `pv_shared::metrics` before a sample leaves it. The types are declared in `model` (so
//! the vendor modules need not import this file, which dispatches to them) and re-exported here.

use std::sync::Arc;

pub use super::model::{
    AlarmLevel, Credentials, DeviceKind, Limits, Plant, Platform, VendorAlarm, VendorApi, VendorDevice,
    VendorError, VendorSample,
};

use super::budget::Budget;

impl Platform {
    /// The vendor's documented request limits and what they imply for polling (the figures and
    /// their sources are in each vendor's module note and in docs/vendor-clouds.md).
    pub fn limits(self) -> Limits {
        match self {
            Platform::FusionSolar => super::fusionsolar::limits(),
            Platform::ISolarCloud => super::isolarcloud::limits(),
            Platform::Growatt => super::growatt::limits(),
            Platform::SolarEdge => super::solaredge::limits(),
        }
    }
}

/// Makes a session for an account (no request yet; sign-in happens lazily on first use).
pub fn connect(
    platform: Platform,
    credentials: Credentials,
    budget: Arc<Budget>,
    http: reqwest::Client,
) -> Box<dyn VendorApi> {
    let mut credentials = credentials;
    if credentials.base_url.trim().is_empty() {
        credentials.base_url = platform.default_base_url().to_string();
    }
    let base = credentials.base_url.trim_end_matches('/').to_string();
    credentials.base_url = base;
    match platform {
        Platform::FusionSolar => Box::new(super::fusionsolar::FusionSolar::new(credentials, budget, http)),
        Platform::ISolarCloud => Box::new(super::isolarcloud::ISolarCloud::new(credentials, budget, http)),
        Platform::Growatt => Box::new(super::growatt::Growatt::new(credentials, budget, http)),
        Platform::SolarEdge => Box::new(super::solaredge::SolarEdge::new(credentials, budget, http)),
    }
}
