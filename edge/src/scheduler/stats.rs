//! Counters of a bus and its devices, shared with the status reports.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use crate::device::DeviceSpec;

/// Counters of one device.
#[derive(Debug, Default)]
pub struct DeviceStats {
    pub polls_ok: AtomicU64,
    pub polls_failed: AtomicU64,
    pub online: AtomicBool,
    /// Why the device's values are withheld now (layout or identity not confirmed, see
    /// `guard`); None while they flow.
    pub withheld: Mutex<Option<String>>,
    /// Layout or identity changes seen, and the last one's reason.
    pub changes: AtomicU64,
    pub last_change: Mutex<Option<String>>,
    /// Extra short reads of a multi-register counter to confirm it was not read torn
    /// (`counters`), and readings that left a counter out because no two reads agreed.
    pub counter_rereads: AtomicU64,
    pub counters_unconfirmed: AtomicU64,
}

/// Counters of a bus; never reset, read at any time.
#[derive(Debug, Default)]
pub struct BusStats {
    pub requests: AtomicU64,
    pub responses: AtomicU64,
    pub timeouts: AtomicU64,
    /// Modbus exception responses (the device answered, but refused).
    pub exceptions: AtomicU64,
    /// I/O errors, CRC errors, answers from the wrong unit or for the wrong transaction.
    pub transport_errors: AtomicU64,
    /// Answers with fewer registers than asked for.
    pub short_frames: AtomicU64,
    pub decode_errors: AtomicU64,
    pub connects: AtomicU64,
    /// Per device, in configuration order.
    pub devices: Vec<(String, DeviceStats)>,
}

impl BusStats {
    pub fn new(devices: &[DeviceSpec]) -> BusStats {
        BusStats {
            devices: devices
                .iter()
                .map(|d| (d.id.clone(), DeviceStats::default()))
                .collect(),
            ..BusStats::default()
        }
    }

    pub fn device(&self, id: &str) -> Option<&DeviceStats> {
        self.devices.iter().find(|(d, _)| d == id).map(|(_, s)| s)
    }
}

pub(super) fn bump(c: &AtomicU64) {
    c.fetch_add(1, Ordering::Relaxed);
}
