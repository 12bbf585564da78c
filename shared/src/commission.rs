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
    /// SunSpec models found on the unit, in chain order (empty: no `SunS` marker).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sunspec_models: Vec<u16>,
}

/// The result of scanning unit ids `from..=to` of one bus.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScanReport {
    pub bus: String,
    pub from: u8,
    pub to: u8,
    pub units: Vec<UnitFound>,
    pub elapsed_ms: u64,
    /// Unit ids that did not answer at all (timeout or transport error).
    #[serde(default)]
    pub silent: u32,
    /// Unit ids a gateway reported absent (exception 0x0A "gateway path unavailable" or 0x0B
    /// "gateway target failed to respond").
    #[serde(default)]
    pub gateway_absent: u32,
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
    /// Who the unit says it is, when it says so (SunSpec common model, device identification,
    /// the map's identity registers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub identity: Option<Identity>,
}

/// The text of a Modbus exception code, for people.
pub fn exception_text(code: u8) -> &'static str {
    match code {
        0x01 => "illegal function",
        0x02 => "illegal data address",
        0x03 => "illegal data value",
        0x04 => "server device failure",
        0x05 => "acknowledge",
        0x06 => "server device busy",
        0x08 => "memory parity error",
        0x0A => "gateway path unavailable",
        0x0B => "gateway target device failed to respond",
        _ => "unknown exception",
    }
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
