//! The composition root of what handlers share: the kernel's `Core` and each domain's
//! process-wide services. Domains never name this type: a handler asks for `State<Core>` or for
//! the service it needs (`State<Arc<RealtimeView>>`...), which axum takes from here through the
//! `FromRef` impls below, so the dependency runs one way, from the top down to the domains.

use std::ops::Deref;
use std::sync::Arc;

use axum::extract::FromRef;

use crate::alarm::AlarmServices;
use crate::auth::api_scope::ApiScopeCache;
use crate::kernel::Core;
use crate::station::StationServices;
use crate::telemetry::events::Evaluation;
use crate::telemetry::realtime::RealtimeView;

#[derive(Clone)]
pub struct AppState {
    pub core: Core,
    /// The live API scopes, kept a few seconds (see `auth::api_scope`).
    pub api_scopes: Arc<ApiScopeCache>,
    /// Device register maps and the vendor-credential key of the station domain.
    pub station: Arc<StationServices>,
    /// The newest values of every device and the state of every gateway (see `telemetry::realtime`).
    pub realtime: Arc<RealtimeView>,
    /// Where the data path hands samples and presence changes for evaluation (the alarm engine).
    pub evaluation: Arc<Evaluation>,
    /// The alarm domain's fault tables, rule settings and change notifications (see `alarm`).
    pub alarms: Arc<AlarmServices>,
    /// Commands to gateways waiting for their answers (see `telemetry::commands`).
    pub commands: Arc<crate::telemetry::commands::Commands>,
    /// The resource domain's secret key and open object-store clients (see `resource`).
    pub resources: Arc<crate::resource::ResourceServices>,
    /// Vendor-cloud sessions and budgets (see `vendor`).
    pub vendor: Arc<crate::vendor::VendorServices>,
}

impl AppState {
    /// What the alarm domain works with.
    pub fn alarm_ctx(&self) -> crate::alarm::AlarmCtx {
        crate::alarm::AlarmCtx {
            core: self.core.clone(),
            alarms: self.alarms.clone(),
            realtime: self.realtime.clone(),
            evaluation: self.evaluation.clone(),
        }
    }

    /// What the telemetry domain works with.
    pub fn telemetry_ctx(&self) -> crate::telemetry::TelemetryCtx {
        crate::telemetry::TelemetryCtx {
            core: self.core.clone(),
            realtime: self.realtime.clone(),
            evaluation: self.evaluation.clone(),
            commands: self.commands.clone(),
        }
    }

    /// What the station domain works with.
    pub fn station_ctx(&self) -> crate::station::StationCtx {
        crate::station::StationCtx {
            core: self.core.clone(),
            services: self.station.clone(),
            alarm: self.alarm_ctx(),
        }
    }

    /// What the vendor domain works with.
    pub fn vendor_ctx(&self) -> crate::vendor::VendorCtx {
        crate::vendor::VendorCtx {
            station: self.station_ctx(),
            vendor: self.vendor.clone(),
        }
    }

    /// What system administration's declared entities work with.
    pub fn system_ctx(&self) -> crate::system::SystemCtx {
        crate::system::SystemCtx {
            core: self.core.clone(),
            api_scopes: self.api_scopes.clone(),
        }
    }

    /// What the resource domain works with.
    pub fn resource_ctx(&self) -> crate::resource::ResourceCtx {
        crate::resource::ResourceCtx {
            core: self.core.clone(),
            services: self.resources.clone(),
        }
    }

    pub fn new(
        core: Core,
        station: StationServices,
        resources: crate::resource::ResourceServices,
    ) -> AppState {
        AppState {
            core,
            api_scopes: Default::default(),
            station: Arc::new(station),
            realtime: Default::default(),
            evaluation: Default::default(),
            alarms: Default::default(),
            commands: Default::default(),
            resources: Arc::new(resources),
            vendor: Default::default(),
        }
    }
}

/// Acts on what the other replicas on the same database say changed (see `kernel::cluster`):
/// wakes the bell feeds of a tenant, drops caches. Runs until the hub stops; on SQLite nothing
/// ever arrives.
pub fn follow_other_replicas(state: &AppState) {
    use crate::kernel::cluster::{ALL, Signal};
    if !state.cluster.is_shared() {
        return;
    }
    let state = state.clone();
    let mut signals = state.cluster.subscribe();
    tokio::spawn(async move {
        loop {
            let signal = tokio::select! {
                _ = state.shutdown.stopping() => break,
                s = signals.recv() => s,
            };
            let (topic, key) = match signal {
                Ok(Signal::Changed { topic, key }) => (Some(topic), key),
                // Missed signals (a dropped listener, or this task fell behind): everything.
                Ok(Signal::Resync) | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {
                    (None, ALL.to_owned())
                }
                Err(tokio::sync::broadcast::error::RecvError::Closed) => break,
            };
            let is = |t: &str| topic.as_deref().is_none_or(|topic| topic == t);
            if is(crate::alarm::store::BELL) {
                let _ = state.alarms.changes.send(key.clone());
            }
            if is(crate::auth::api_scope::TOPIC) {
                state.api_scopes.invalidate();
            }
            if is(crate::alarm::threshold_settings::TOPIC) {
                state.alarms.settings.forget(&key);
            }
            if is(crate::alarm::flex::eval::TOPIC) {
                crate::alarm::flex::eval::forget(&state.core);
            }
        }
    });
}

/// The kernel's part is what most code reads (`state.db`, `state.config`).
impl Deref for AppState {
    type Target = Core;
    fn deref(&self) -> &Core {
        &self.core
    }
}

impl FromRef<AppState> for crate::alarm::AlarmCtx {
    fn from_ref(s: &AppState) -> Self {
        s.alarm_ctx()
    }
}

impl FromRef<AppState> for crate::telemetry::TelemetryCtx {
    fn from_ref(s: &AppState) -> Self {
        s.telemetry_ctx()
    }
}

impl FromRef<AppState> for crate::station::StationCtx {
    fn from_ref(s: &AppState) -> Self {
        s.station_ctx()
    }
}

impl FromRef<AppState> for crate::resource::ResourceCtx {
    fn from_ref(s: &AppState) -> Self {
        s.resource_ctx()
    }
}

impl FromRef<AppState> for crate::vendor::VendorCtx {
    fn from_ref(s: &AppState) -> Self {
        s.vendor_ctx()
    }
}

impl FromRef<AppState> for crate::system::SystemCtx {
    fn from_ref(s: &AppState) -> Self {
        s.system_ctx()
    }
}

macro_rules! part {
    ($t:ty, $field:ident) => {
        impl FromRef<AppState> for $t {
            fn from_ref(state: &AppState) -> $t {
                state.$field.clone()
            }
        }
    };
}
part!(Core, core);
part!(Arc<ApiScopeCache>, api_scopes);
part!(Arc<StationServices>, station);
part!(Arc<RealtimeView>, realtime);
part!(Arc<Evaluation>, evaluation);
part!(Arc<AlarmServices>, alarms);
