//! Register-map schema and parser.
//!
//! A register map describes one device model in data (a TOML file in `firmware-configs/`): how to
//! talk to it (limits), where each canonical metric lives (points) and what its codes mean
//! (status and fault tables). The edge decoder is generic over maps, so a new model is a new
//! file, never new code. A map is checked completely at load: a map that would decode garbage
//! (overlapping registers, an unknown type, a unit of the wrong dimension) is refused with the
//! file, line and field of the mistake.
//!
//! Addresses are protocol (PDU) addresses, 0-based, as they go on the wire. Manuals that number
//! registers from 1 (or as 3xxxx/4xxxx) are converted when the map is written; each map's source
//! note says so.
//!
//! Where things are: `schema` holds the checked types that edge and cloud use; `raw` the map as
//! written; `parse` the file-level checks (device, limits, SunSpec models); `point` one point
//! entry; `overlap` the check across points; `tables` the status and fault tables; `settings` the
//! per-device variants a map offers; `error` the file:line:field error. Callers only ever name `pv_shared::regmap::X`.

mod error;
mod overlap;
mod parse;
mod point;
mod raw;
mod schema;
mod settings;
mod tables;

#[cfg(test)]
mod fixture;

pub use error::MapError;
pub use schema::{
    DataType, DeviceKind, FaultEntry, FaultMatch, Function, Limits, Location, Order, Point, RegisterMap,
    Sentinels, Setting, Severity, StatusEntry, SunSpecModel,
};
pub use settings::SettingError;
