//! What the alarm domain works with (`AlarmCtx`, what its handlers ask for) and its
//! process-wide services.

use std::sync::{Arc, OnceLock};

use tokio::sync::broadcast;

use crate::alarm::{faults, threshold_settings as settings};
use crate::config::Config;
use crate::kernel::Core;
use crate::telemetry::events::Evaluation;
use crate::telemetry::realtime::RealtimeView;

/// What the alarm domain works with: the kernel's core, its own services, the realtime view its
/// evaluators read and the data path's hand-over it consumes. Handlers ask for `State<AlarmCtx>`.
#[derive(Clone)]
pub struct AlarmCtx {
    pub core: Core,
    pub alarms: Arc<AlarmServices>,
    pub realtime: Arc<RealtimeView>,
    pub evaluation: Arc<Evaluation>,
}

impl std::ops::Deref for AlarmCtx {
    type Target = Core;
    fn deref(&self) -> &Core {
        &self.core
    }
}

/// The alarm domain's process-wide services, one per hub.
pub struct AlarmServices {
    /// Per-tenant rule settings as the engine reads them.
    pub settings: settings::Cache,
    faults: OnceLock<Arc<faults::FaultIndex>>,
    /// Fires with a tenant id when that tenant's alarms change (the bell's websocket listens).
    pub changes: broadcast::Sender<String>,
}

impl Default for AlarmServices {
    fn default() -> Self {
        AlarmServices {
            settings: Default::default(),
            faults: OnceLock::new(),
            changes: broadcast::channel(64).0,
        }
    }
}

impl AlarmServices {
    /// The fault tables of the register maps (built on first use from the maps the hub loads).
    pub fn faults(&self, config: &Config) -> &faults::FaultIndex {
        self.faults
            .get_or_init(|| Arc::new(faults::FaultIndex::load(config)))
    }
}
