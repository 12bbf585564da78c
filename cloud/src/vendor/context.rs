//! What the vendor domain works with: the station domain (credential key, device rules, alarms)
//! and its own process-wide services (how sessions are made, each account's budget).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, RwLock};

use super::budget::Budget;
use super::connector::{self, Credentials, Platform, VendorApi};
use crate::kernel::Core;
use crate::station::StationCtx;

/// Makes a session for an account: `connector::connect` in the product; tests put their own.
pub type Connect = Arc<dyn Fn(Platform, Credentials, Arc<Budget>) -> Box<dyn VendorApi> + Send + Sync>;

pub struct VendorServices {
    connect: RwLock<Option<Connect>>,
    http: OnceLock<reqwest::Client>,
    /// One budget per account on this replica, shared by the poller and the API's calls.
    budgets: Mutex<HashMap<i64, Arc<Budget>>>,
    /// Wakes the poller (a plant was mapped).
    pub wake: tokio::sync::Notify,
}

impl Default for VendorServices {
    fn default() -> Self {
        VendorServices {
            connect: RwLock::new(None),
            http: OnceLock::new(),
            budgets: Mutex::new(HashMap::new()),
            wake: tokio::sync::Notify::new(),
        }
    }
}

impl VendorServices {
    /// Replaces how sessions are made (tests).
    pub fn set_connector(&self, connect: Connect) {
        *self.connect.write().unwrap_or_else(|p| p.into_inner()) = Some(connect);
    }

    /// Puts an account's budget (tests run hours of the vendor's cadence in moments, which the
    /// documented per-minute rate would spread over real minutes).
    pub fn set_budget(&self, account_id: i64, budget: Arc<Budget>) {
        self.budgets
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(account_id, budget);
    }

    pub fn budget(&self, account_id: i64, platform: Platform) -> Arc<Budget> {
        self.budgets
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .entry(account_id)
            .or_insert_with(|| Arc::new(Budget::new(&platform.limits())))
            .clone()
    }

    /// A new session of an account (no request made yet).
    pub fn session(
        &self,
        account_id: i64,
        platform: Platform,
        credentials: Credentials,
    ) -> Box<dyn VendorApi> {
        let budget = self.budget(account_id, platform);
        let custom = self.connect.read().unwrap_or_else(|p| p.into_inner()).clone();
        match custom {
            Some(c) => c(platform, credentials, budget),
            None => {
                // Built on first use: the TLS provider is installed by the hub's start.
                let http = self
                    .http
                    .get_or_init(|| {
                        reqwest::Client::builder()
                            .timeout(std::time::Duration::from_secs(30))
                            .build()
                            .unwrap_or_default()
                    })
                    .clone();
                connector::connect(platform, credentials, budget, http)
            }
        }
    }
}

#[derive(Clone)]
pub struct VendorCtx {
    pub station: StationCtx,
    pub vendor: Arc<VendorServices>,
}

impl std::ops::Deref for VendorCtx {
    type Target = Core;
    fn deref(&self) -> &Core {
        &self.station.core
    }
}
