//! Commissioning: finding the units on a bus and checking a map against one of them. The same
//! code serves the CLI (`pv-edge scan`/`probe`, through a `Session`) and the cloud's downlink
//! commands (through the running bus, between polls, so the other buses keep polling).

mod probe;
mod scan;

use std::collections::BTreeMap;

pub use probe::probe;
pub use scan::scan;

use pv_shared::regmap::Function;
use pv_shared::wire::Value;

use crate::device::DeviceSpec;

/// Why a read got no registers.
#[derive(Debug, Clone, PartialEq)]
pub enum Refusal {
    /// The unit (or a gateway in front of it) answered a Modbus exception with this code.
    Exception(u8),
    /// No usable answer (timeout, transport error) after every attempt.
    Failed(String),
}

/// Register access for commissioning, with the bus's timeouts, retries and counters.
#[allow(async_fn_in_trait)]
pub trait Registers {
    /// The bus, for reports ("tcp 10.0.0.5:502", "rtu /dev/ttyUSB0").
    fn describe(&self) -> String;
    async fn read_words(
        &mut self,
        unit: u8,
        function: Function,
        start: u16,
        count: u16,
    ) -> Result<Vec<u16>, Refusal>;
    /// Polls a device once with its map, SunSpec discovery included.
    async fn poll_device(&mut self, spec: &DeviceSpec) -> Result<BTreeMap<String, Value>, String>;
}
