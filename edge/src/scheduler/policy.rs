//! How a bus is configured: its line, its devices and its timing policy.

use std::time::Duration;

use crate::device::DeviceSpec;
use crate::transport::Transport;

/// Timing policy of a bus.
#[derive(Debug, Clone)]
pub struct BusPolicy {
    /// Longest wait for one answer.
    pub timeout: Duration,
    /// Further attempts of a request after a timeout or transport error.
    pub retries: u32,
    /// Failed polls in a row after which a device is reported offline and backed off.
    pub offline_after: u32,
    pub backoff_initial: Duration,
    pub backoff_max: Duration,
}

impl Default for BusPolicy {
    fn default() -> Self {
        BusPolicy {
            timeout: Duration::from_millis(1000),
            retries: 1,
            offline_after: 3,
            backoff_initial: Duration::from_secs(10),
            backoff_max: Duration::from_secs(300),
        }
    }
}

#[derive(Debug, Clone)]
pub struct BusConfig {
    pub name: String,
    pub transport: Transport,
    pub policy: BusPolicy,
    pub devices: Vec<DeviceSpec>,
}
