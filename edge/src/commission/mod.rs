//! Commissioning: finding the units on a bus and checking a map against one of them. The same
//! code serves the CLI (`pv-edge scan`/`probe`, through a `Session`) and the cloud's downlink
//! commands (through the running bus, between polls, so the other buses keep polling).

pub mod identify;
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

impl Refusal {
    /// Nobody is at this unit id: no answer, or a gateway saying so (0x0A "gateway path
    /// unavailable", 0x0B "gateway target device failed to respond"). Any other exception comes
    /// from a unit that is there and only refuses this request.
    pub fn is_absent(&self) -> bool {
        matches!(self, Refusal::Failed(_) | Refusal::Exception(0x0A | 0x0B))
    }
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refusal::Exception(code) => write!(
                f,
                "exception 0x{code:02X} ({})",
                pv_shared::commission::exception_text(*code)
            ),
            Refusal::Failed(e) => f.write_str(e),
        }
    }
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
    /// Modbus Read Device Identification (0x2B / MEI 0x0E), basic objects and whatever else the
    /// unit streams: (object id, text). A bus that cannot send it answers "illegal function",
    /// as a unit without it would.
    async fn read_device_id(&mut self, _unit: u8) -> Result<Vec<(u8, String)>, Refusal> {
        Err(Refusal::Exception(0x01))
    }
    /// Polls a device once with its map, SunSpec discovery included.
    async fn poll_device(&mut self, spec: &DeviceSpec) -> Result<BTreeMap<String, Value>, String>;
}
