//! What the station domain's handlers work with.

use crate::kernel::Core;
use crate::station::services::StationServices;

/// What the station domain works with: the kernel's core, its register maps and credential key,
/// and the alarm domain (removing a device clears its alarms). Handlers ask for `State<StationCtx>`.
#[derive(Clone)]
pub struct StationCtx {
    pub core: Core,
    pub services: std::sync::Arc<StationServices>,
    pub alarm: crate::alarm::context::AlarmCtx,
}

impl std::ops::Deref for StationCtx {
    type Target = Core;
    fn deref(&self) -> &Core {
        &self.core
    }
}
