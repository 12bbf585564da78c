//! The downlink's commands and the gateway's answers to them.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::Value;
use super::message::{Message, WireError, invalid};
use crate::topics;

/// Downlink: something the cloud asks a gateway to do.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Command {
    pub v: u32,
    /// Chosen by the cloud, 1-64 characters; echoed in the `CommandAck`.
    pub id: String,
    pub action: Action,
}

/// What a command does.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Action {
    /// Re-read the gateway's configuration file and restart polling with it. A configuration
    /// with a mistake is refused (the ack names file, line and field) and the old one stays.
    ReloadConfig,
    /// Write a set-point to a point the device's register map marks writable (e.g. a tracker's
    /// target angle), `value` in the metric's canonical unit.
    WritePoint {
        device: String,
        metric: String,
        value: f64,
    },
    /// Poll a device now, outside its schedule; the reading is also queued as a sample.
    ReadNow { device: String },
    /// Answer the gateway's buses (with their devices) and the register maps it has, in
    /// `CommandAck::inventory`: what a commissioning console chooses from.
    Inventory,
    /// Scan unit ids `from..=to` of bus `bus` between that bus's polls; the report comes in
    /// `CommandAck::scan`. The bus's own devices keep their schedule while it runs.
    ScanBus { bus: String, from: u8, to: u8 },
    /// Read unit `unit` of bus `bus` once with map `map`; the report (decoded values) comes in
    /// `CommandAck::probe`.
    ProbeUnit { bus: String, unit: u8, map: String },
    /// Add a device to bus `bus` of the gateway's configuration file (checked, then written
    /// atomically) and reload; a configuration that does not check is refused and the old one
    /// stays.
    AddDevice {
        bus: String,
        id: String,
        unit: u8,
        map: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        interval_ms: Option<u64>,
    },
}

/// Uplink: the answer to a `Command`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CommandAck {
    pub v: u32,
    pub gateway: String,
    /// The command's id.
    pub id: String,
    pub ok: bool,
    /// What happened, for people ("wrote 12.5 deg to tracker_target_angle", or the error).
    pub message: String,
    pub ts: i64,
    /// For `read_now`: the values read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub values: Option<BTreeMap<String, Value>>,
    /// For `inventory`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inventory: Option<Box<crate::commission::Inventory>>,
    /// For `scan_bus`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scan: Option<Box<crate::commission::ScanReport>>,
    /// For `probe_unit`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probe: Option<Box<crate::commission::ProbeReport>>,
}

fn check_command_id(id: &str) -> Result<(), WireError> {
    if id.is_empty() || id.len() > 64 {
        return invalid("command id must be 1-64 characters");
    }
    Ok(())
}

impl Message for Command {
    fn check(&self) -> Result<(), WireError> {
        check_command_id(&self.id)?;
        if let Action::WritePoint { value, .. } = self.action
            && !value.is_finite()
        {
            return invalid("value must be a finite number");
        }
        // Unit 0 is the broadcast address (nobody answers) and 248-255 are reserved.
        let unit_ok = |u: u8| (1..=247).contains(&u);
        match &self.action {
            Action::ScanBus { from, to, .. } if !(unit_ok(*from) && unit_ok(*to) && from <= to) => {
                invalid("scan range must be 1 <= from <= to <= 247")
            }
            Action::ProbeUnit { unit, .. } | Action::AddDevice { unit, .. } if !unit_ok(*unit) => {
                invalid("unit must be 1-247")
            }
            _ => Ok(()),
        }
    }
}

impl Message for CommandAck {
    fn check(&self) -> Result<(), WireError> {
        check_command_id(&self.id)?;
        if topics::validate_gateway_id(&self.gateway).is_err() {
            return invalid("gateway id");
        }
        Ok(())
    }
}
