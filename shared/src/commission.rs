//! What the commissioning commands report (bus scan and unit probe), the same from the CLI and
//! from the cloud's downlink, so the console shows exactly what an installer at the gateway sees.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::wire::Value;

/// Who a unit says it is, and where that came from.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Identity {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub manufacturer: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub serial: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub firmware: Option<String>,
    /// `sunspec` (common model 1), `device_id` (Modbus 0x2B/0x0E) or `map:<id>` (a map's
    /// identity registers).
    pub via: String,
}

/// A unit that answered a scan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UnitFound {
    pub unit: u8,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub identity: Option<Identity>,
    /// Ids of the maps that fit, best first.
    #[serde(default)]
    pub suggested_maps: Vec<String>,
    /// For people: how it answered ("SunSpec at 40000, models 1, 103, 160").
    pub detail: String,
}

/// The result of scanning unit ids `from..=to` of one bus.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScanReport {
    pub bus: String,
    pub from: u8,
    pub to: u8,
    pub units: Vec<UnitFound>,
    pub elapsed_ms: u64,
}

/// The result of reading one unit with one map.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProbeReport {
    pub unit: u8,
    pub map: String,
    /// Decoded values, canonical units.
    pub values: BTreeMap<String, Value>,
    /// Models or blocks the map expects that the device does not have ("model 103").
    #[serde(default)]
    pub missing: Vec<String>,
    /// False when none of the device's main models/blocks is present: the map does not fit.
    pub fits: bool,
    /// The status code's text, when the map has a status table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    #[serde(default)]
    pub warnings: Vec<String>,
}

/// What a gateway can commission with: its buses as configured now and the maps it has.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Inventory {
    pub buses: Vec<BusInventory>,
    /// Ids of the register maps in the gateway's maps folder, sorted.
    pub maps: Vec<String>,
}

/// One bus of a gateway's configuration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BusInventory {
    pub name: String,
    /// `rtu`, `tcp` or `rtu-over-tcp`.
    pub transport: String,
    /// Where it goes, as a station device's Modbus address names it: a serial port path,
    /// `ip:port` for Modbus TCP, `rtu-over-tcp://ip:port` for a serial device server.
    pub address: String,
    pub devices: Vec<InventoryDevice>,
}

/// A device a bus polls.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InventoryDevice {
    pub id: String,
    pub unit: u8,
    pub map: String,
}
