//! One-off access to a bus outside the polling loop (the commissioning commands of the CLI).

use std::collections::BTreeMap;
use std::sync::Arc;

use pv_shared::regmap::Function;
use pv_shared::wire::Value;
use tokio_modbus::client::Reader;
use tokio_modbus::slave::{Slave, SlaveContext};

use super::bus::{Bus, ReadError};
use super::policy::BusPolicy;
use super::stats::{BusStats, bump};
use crate::device::DeviceSpec;
use crate::plan::Block;
use crate::transport::Transport;

/// One-off access to a bus for the commissioning commands (`probe`, `scan`, `read`, `write`),
/// with the same timeouts, retries and counters as polling.
pub struct Session {
    bus: Bus,
}

impl Session {
    pub fn new(transport: Transport, policy: BusPolicy) -> Session {
        Session {
            bus: Bus {
                name: transport.describe(),
                transport,
                policy,
                ctx: None,
                stats: Arc::new(BusStats::default()),
            },
        }
    }

    /// Polls a device once with its map (SunSpec discovery included).
    pub async fn poll(&mut self, spec: &DeviceSpec) -> Result<BTreeMap<String, Value>, String> {
        self.bus.poll_once(spec).await
    }

    /// Reads raw registers; an exception is reported as an error naming it.
    pub async fn read(
        &mut self,
        unit: u8,
        function: Function,
        start: u16,
        count: u16,
    ) -> Result<Vec<u16>, String> {
        use crate::commission::Refusal;
        self.read_raw(unit, function, start, count)
            .await
            .map_err(|refusal| match refusal {
                Refusal::Exception(code) => {
                    format!("exception: {:?}", tokio_modbus::ExceptionCode::new(code))
                }
                Refusal::Failed(e) => e,
            })
    }

    /// Reads raw registers, telling an exception (the unit is there) from no answer.
    pub async fn read_raw(
        &mut self,
        unit: u8,
        function: Function,
        start: u16,
        count: u16,
    ) -> Result<Vec<u16>, crate::commission::Refusal> {
        use crate::commission::Refusal;
        match self
            .bus
            .read(
                unit,
                Block {
                    function,
                    start,
                    count,
                },
            )
            .await
        {
            Ok(w) => Ok(w),
            Err(ReadError::Exception(e)) => Err(Refusal::Exception(u8::from(e))),
            Err(ReadError::Failed(e)) => Err(Refusal::Failed(e)),
        }
    }

    /// Whether anything answers at `unit` (an exception is an answer).
    pub async fn present(&mut self, unit: u8, function: Function, start: u16) -> bool {
        !matches!(
            self.bus
                .read(
                    unit,
                    Block {
                        function,
                        start,
                        count: 1
                    }
                )
                .await,
            Err(ReadError::Failed(_))
        )
    }

    /// Writes holding registers (function 16).
    pub async fn write(&mut self, unit: u8, start: u16, values: &[u16]) -> Result<(), String> {
        self.bus.write(unit, start, values).await
    }

    /// Modbus Read Device Identification (0x2B / MEI 0x0E), streaming from the basic objects on
    /// for as long as the unit says more follow: (object id, text).
    pub async fn read_device_id(
        &mut self,
        unit: u8,
    ) -> Result<Vec<(u8, String)>, crate::commission::Refusal> {
        use crate::commission::Refusal;
        use tokio_modbus::prelude::ReadCode;
        let mut objects = Vec::new();
        let mut next = 0u8;
        // A unit that keeps saying "more follows" is broken; a handful of rounds is plenty.
        for _ in 0..8 {
            if self.bus.ctx.is_none() {
                bump(&self.bus.stats.connects);
                match self.bus.transport.connect(self.bus.policy.timeout).await {
                    Ok(c) => self.bus.ctx = Some(c),
                    Err(e) => {
                        bump(&self.bus.stats.transport_errors);
                        return Err(Refusal::Failed(format!("connect: {e}")));
                    }
                }
            }
            let Some(ctx) = self.bus.ctx.as_mut() else {
                return Err(Refusal::Failed("not connected".into()));
            };
            ctx.set_slave(Slave(unit));
            bump(&self.bus.stats.requests);
            let call = ctx.read_device_identification(ReadCode::Basic, next);
            let answer = match tokio::time::timeout(self.bus.policy.timeout, call).await {
                Ok(Ok(Ok(answer))) => answer,
                Ok(Ok(Err(exception))) => {
                    bump(&self.bus.stats.responses);
                    bump(&self.bus.stats.exceptions);
                    return Err(Refusal::Exception(u8::from(exception)));
                }
                Ok(Err(e)) => {
                    bump(&self.bus.stats.transport_errors);
                    self.bus.ctx = None;
                    return Err(Refusal::Failed(format!("transport: {e}")));
                }
                Err(_) => {
                    bump(&self.bus.stats.timeouts);
                    self.bus.ctx = None;
                    return Err(Refusal::Failed(format!(
                        "no answer within {:?}",
                        self.bus.policy.timeout
                    )));
                }
            };
            bump(&self.bus.stats.responses);
            for o in &answer.device_id_objects {
                objects.push((o.id, String::from_utf8_lossy(&o.value).into_owned()));
            }
            if !answer.more_follows || answer.next_object_id <= next {
                break;
            }
            next = answer.next_object_id;
        }
        Ok(objects)
    }

    pub fn stats(&self) -> &BusStats {
        &self.bus.stats
    }
}

impl crate::commission::Registers for Session {
    fn describe(&self) -> String {
        self.bus.name.clone()
    }

    async fn read_words(
        &mut self,
        unit: u8,
        function: Function,
        start: u16,
        count: u16,
    ) -> Result<Vec<u16>, crate::commission::Refusal> {
        self.read_raw(unit, function, start, count).await
    }

    async fn read_device_id(&mut self, unit: u8) -> Result<Vec<(u8, String)>, crate::commission::Refusal> {
        Session::read_device_id(self, unit).await
    }

    async fn poll_device(&mut self, spec: &DeviceSpec) -> Result<BTreeMap<String, Value>, String> {
        self.poll(spec).await
    }
}
