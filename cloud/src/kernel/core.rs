//! What every domain's handlers and workers share: the database, the configuration, the id
//! generator, the token secret, the process start and its stop. Domain services (the realtime view, the
//! alarm engine's inbox, register maps...) live in their own domains and are composed beside this
//! at the top (`crate::state::AppState`); a handler asks for `State<Core>` or for the one
//! service it needs, through axum's `FromRef`, so no domain depends on the composition.

use std::sync::Arc;
use std::time::Instant;

use crate::config::Config;
use crate::kernel::db::Db;
use crate::kernel::id::IdGenerator;
use crate::kernel::meter::Meter;
use crate::kernel::shutdown::Shutdown;

#[derive(Clone)]
pub struct Core {
    pub db: Db,
    pub config: Arc<Config>,
    pub ids: Arc<IdGenerator>,
    /// Signs access tokens.
    pub token_secret: Arc<str>,
    pub started: Instant,
    /// The hub's stop: workers end their loops on it, and the pool closes once their work is done.
    pub shutdown: Shutdown,
    /// Operational instruments, scraped at `/metrics`.
    pub meter: Arc<Meter>,
    /// Change signals to and from the other replicas on the same PostgreSQL (see `cluster`).
    pub cluster: Arc<crate::kernel::cluster::Cluster>,
    /// "Now" for date-dependent work: real time, or the clock a test started the hub with.
    pub clock: crate::kernel::time::Clock,
}
