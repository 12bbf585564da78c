//! What the telemetry domain's handlers and workers work with.

use std::sync::Arc;

use crate::kernel::Core;
use crate::telemetry::{commands, events, realtime};

/// What the data path works with: the kernel's core, the realtime view it keeps and the
/// evaluator it hands stored samples to.
#[derive(Clone)]
pub struct TelemetryCtx {
    pub core: Core,
    pub realtime: Arc<realtime::RealtimeView>,
    pub evaluation: Arc<events::Evaluation>,
    /// Commands to gateways waiting for their answers.
    pub commands: Arc<commands::Commands>,
}

impl std::ops::Deref for TelemetryCtx {
    type Target = Core;
    fn deref(&self) -> &Core {
        &self.core
    }
}
