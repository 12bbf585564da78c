//! What handlers share: the database, the configuration and process-wide services.

use std::sync::Arc;
use std::time::Instant;

use crate::config::Config;
use crate::kernel::db::Db;
use crate::kernel::id::IdGenerator;

#[derive(Clone)]
pub struct AppState {
    pub db: Db,
    pub config: Arc<Config>,
    pub ids: Arc<IdGenerator>,
    /// Signs access tokens (sign-in arrives with the auth domain).
    pub token_secret: Arc<str>,
    pub started: Instant,
    /// Fires with a tenant id when that tenant's alarms change (the bell's websocket listens).
    pub alarm_changes: tokio::sync::broadcast::Sender<String>,
    /// The live API scopes, kept a few seconds (see `auth::api_scope`).
    pub api_scopes: Arc<crate::auth::api_scope::ApiScopeCache>,
    /// Device register maps and the vendor-credential key of the station domain.
    pub station: Arc<crate::station::StationServices>,
    /// The newest values of every device and the state of every gateway (see `telemetry::realtime`).
    pub realtime: Arc<crate::telemetry::realtime::RealtimeView>,
    /// The alarm engine's inbox, fault tables and rule settings (see `alarm`).
    pub alarms: Arc<crate::alarm::AlarmServices>,
}
