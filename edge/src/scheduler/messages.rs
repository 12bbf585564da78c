//! What a bus reports (readings, devices coming and going) and what it is asked between polls.

use std::collections::BTreeMap;
use std::sync::Arc;

use pv_shared::wire::Value;
use tokio::sync::oneshot;

/// One successful poll.
#[derive(Debug, Clone, PartialEq)]
pub struct Reading {
    pub device: String,
    /// Milliseconds since the epoch when the poll finished.
    pub ts: i64,
    pub values: BTreeMap<String, Value>,
}

/// What a bus reports.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    Reading(Reading),
    Online { device: String },
    Offline { device: String, reason: String },
}

/// A request to a bus from outside its schedule (the cloud's commands). It waits for the
/// request in progress, never interrupts it: the line carries one request at a time.
#[derive(Debug)]
pub enum BusCommand {
    /// Polls a device now; the reading also goes out as a normal `Event::Reading`.
    ReadNow {
        device: String,
        reply: oneshot::Sender<Result<BTreeMap<String, Value>, String>>,
    },
    /// Writes holding registers (function 16) of a device.
    Write {
        device: String,
        address: u16,
        words: Vec<u16>,
        reply: oneshot::Sender<Result<(), String>>,
    },
    /// Scans a few unit ids (one slice of a longer scan: the bus polls its devices between
    /// slices) with `commission::scan`.
    Scan {
        units: std::ops::RangeInclusive<u8>,
        maps: Vec<Arc<pv_shared::regmap::RegisterMap>>,
        reply: oneshot::Sender<pv_shared::commission::ScanReport>,
    },
    /// Reads one unit once with a map (`commission::probe`).
    Probe {
        unit: u8,
        map: Arc<pv_shared::regmap::RegisterMap>,
        reply: oneshot::Sender<Result<pv_shared::commission::ProbeReport, String>>,
    },
}
