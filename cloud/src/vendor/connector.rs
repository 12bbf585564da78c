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
    credentials.base_url = base_url(platform, &credentials.base_url);
    match platform {
        Platform::FusionSolar => Box::new(super::fusionsolar::FusionSolar::new(credentials, budget, http)),
        Platform::ISolarCloud => Box::new(super::isolarcloud::ISolarCloud::new(credentials, budget, http)),
        Platform::Growatt => Box::new(super::growatt::Growatt::new(credentials, budget, http)),
        Platform::SolarEdge => Box::new(super::solaredge::SolarEdge::new(credentials, budget, http)),
    }
}

/// The address the vendor module appends its paths to: the vendor's public default when the
/// account leaves apiUrl blank, without a trailing slash or the API's own path prefix (users
/// often paste ".../thirdData" or ".../openapi" from the vendor's documentation).
pub fn base_url(platform: Platform, api_url: &str) -> String {
    let url = api_url.trim().trim_end_matches('/');
    if url.is_empty() {
        return platform.default_base_url().to_string();
    }
    let prefix = match platform {
        Platform::FusionSolar => "/thirdData",
        Platform::ISolarCloud => "/openapi",
        Platform::Growatt => "/v1",
        Platform::SolarEdge => "",
    };
    let url = if prefix.is_empty() {
        url
    } else {
        url.strip_suffix(prefix).unwrap_or(url)
    };
    url.trim_end_matches('/').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn api_urls_are_cut_to_the_base_the_modules_append_to() {
        assert_eq!(
            base_url(Platform::FusionSolar, ""),
            "https://eu5.fusionsolar.huawei.com"
        );
        assert_eq!(
            base_url(
                Platform::FusionSolar,
                " https://sg5.fusionsolar.huawei.com/thirdData/ "
            ),
            "https://sg5.fusionsolar.huawei.com"
        );
        assert_eq!(
            base_url(Platform::ISolarCloud, "https://gateway.isolarcloud.eu/openapi"),
            "https://gateway.isolarcloud.eu"
        );
        assert_eq!(
            base_url(Platform::Growatt, "https://openapi.growatt.com/v1/"),
            "https://openapi.growatt.com"
        );
        assert_eq!(
            base_url(Platform::SolarEdge, "http://127.0.0.1:8080/"),
            "http://127.0.0.1:8080"
        );
        for p in Platform::ALL {
            assert_eq!(Platform::from_code(p.as_str()), Some(p));
        }
        assert_eq!(Platform::from_code("1"), Some(Platform::FusionSolar));
        assert_eq!(Platform::from_code("SolarEdge"), Some(Platform::SolarEdge));
        assert_eq!(Platform::from_code("goodwe"), None);
    }
}
