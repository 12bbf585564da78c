//! A bus at work: requests with timeouts and retries, SunSpec discovery, one device's poll
//! with its layout guard, and the commands served between polls.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use pv_shared::regmap::Function;
use pv_shared::wire::Value;
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_modbus::client::{Context, Reader, Writer};
use tokio_modbus::slave::{Slave, SlaveContext};

use super::messages::{BusCommand, Event, Reading};
use super::policy::BusPolicy;
use super::stats::{BusStats, bump};
use crate::clock::now_ms;
use crate::counters::{self, Confirmation, Published};
use crate::device::{DeviceSpec, Layout, SUNS, SUNS_BASES, SunSpecChain};
use crate::guard::Guard;
use crate::plan::Block;
use crate::transport::Transport;

/// Why a read produced no registers.
#[derive(Debug)]
pub(super) enum ReadError {
    /// The device answered with a Modbus exception: it is alive.
    Exception(tokio_modbus::ExceptionCode),
    /// No usable answer after every attempt.
    Failed(String),
}

pub(super) struct DeviceState {
    pub(super) spec: DeviceSpec,
    pub(super) index: usize,
    pub(super) layout: Option<Layout>,
    pub(super) next_due: Instant,
    pub(super) failures: u32,
    pub(super) online: bool,
    pub(super) guard: Guard,
    /// The last value published of each multi-register counter (torn-read rule).
    pub(super) counters: Published,
}

pub(super) struct Bus {
    pub(super) name: String,
    pub(super) transport: Transport,
    pub(super) policy: BusPolicy,
    pub(super) ctx: Option<Context>,
    pub(super) stats: Arc<BusStats>,
}

impl Bus {
    pub(super) async fn read(&mut self, unit: u8, block: Block) -> Result<Vec<u16>, ReadError> {
        let mut last = String::new();
        for _attempt in 0..=self.policy.retries {
            if self.ctx.is_none() {
                bump(&self.stats.connects);
                match self.transport.connect(self.policy.timeout).await {
                    Ok(c) => self.ctx = Some(c),
                    Err(e) => {
                        bump(&self.stats.transport_errors);
                        last = format!("connect: {e}");
                        // Do not spin on a refused connection.
                        tokio::time::sleep(self.policy.timeout.min(Duration::from_millis(200))).await;
                        continue;
                    }
                }
            }
            let Some(ctx) = self.ctx.as_mut() else { continue };
            ctx.set_slave(Slave(unit));
            bump(&self.stats.requests);
            let call = async {
                match block.function {
                    Function::Holding => ctx.read_holding_registers(block.start, block.count).await,
                    Function::Input => ctx.read_input_registers(block.start, block.count).await,
                }
            };
            match tokio::time::timeout(self.policy.timeout, call).await {
                Ok(Ok(Ok(words))) if words.len() == usize::from(block.count) => {
                    bump(&self.stats.responses);
                    return Ok(words);
                }
                Ok(Ok(Ok(words))) => {
                    bump(&self.stats.short_frames);
                    last = format!("short answer: {} of {} registers", words.len(), block.count);
                }
                Ok(Ok(Err(exception))) => {
                    bump(&self.stats.responses);
                    bump(&self.stats.exceptions);
                    return Err(ReadError::Exception(exception));
                }
                Ok(Err(e)) => {
                    bump(&self.stats.transport_errors);
                    last = format!("transport: {e}");
                }
                Err(_) => {
                    bump(&self.stats.timeouts);
                    last = format!("no answer within {:?}", self.policy.timeout);
                }
            }
            // Anything but a clean answer may leave a stale frame in flight: start afresh.
            self.ctx = None;
        }
        Err(ReadError::Failed(last))
    }

    /// Writes holding registers (function 16); never retried, since a write that timed out may
    /// still have been carried out.
    pub(super) async fn write(&mut self, unit: u8, start: u16, values: &[u16]) -> Result<(), String> {
        if self.ctx.is_none() {
            bump(&self.stats.connects);
            self.ctx = Some(
                self.transport
                    .connect(self.policy.timeout)
                    .await
                    .map_err(|e| e.to_string())?,
            );
        }
        let Some(ctx) = self.ctx.as_mut() else {
            return Err("not connected".into());
        };
        ctx.set_slave(Slave(unit));
        bump(&self.stats.requests);
        match tokio::time::timeout(self.policy.timeout, ctx.write_multiple_registers(start, values)).await {
            Ok(Ok(Ok(()))) => {
                bump(&self.stats.responses);
                Ok(())
            }
            Ok(Ok(Err(e))) => {
                bump(&self.stats.responses);
                bump(&self.stats.exceptions);
                Err(format!("exception: {e:?}"))
            }
            Ok(Err(e)) => {
                bump(&self.stats.transport_errors);
                self.ctx = None;
                Err(format!("transport: {e}"))
            }
            Err(_) => {
                bump(&self.stats.timeouts);
                self.ctx = None;
                Err(format!("no answer within {:?}", self.policy.timeout))
            }
        }
    }

    /// Finds the SunSpec model chain of a device.
    pub(super) async fn discover(&mut self, unit: u8) -> Result<SunSpecChain, String> {
        let mut start = None;
        for base in SUNS_BASES {
            match self
                .read(
                    unit,
                    Block {
                        function: Function::Holding,
                        start: base,
                        count: 2,
                    },
                )
                .await
            {
                Ok(w) if w == SUNS => {
                    start = Some(base);
                    break;
                }
                Ok(_) | Err(ReadError::Exception(_)) => continue,
                Err(ReadError::Failed(e)) => return Err(e),
            }
        }
        let Some(base) = start else {
            return Err("no SunS marker at 40000, 0 or 50000".into());
        };
        let mut chain = SunSpecChain::new();
        let mut at = u32::from(base) + 2;
        // A chain longer than this is garbage, not a device.
        for _ in 0..64 {
            let Ok(addr) = u16::try_from(at) else { break };
            let header = match self
                .read(
                    unit,
                    Block {
                        function: Function::Holding,
                        start: addr,
                        count: 2,
                    },
                )
                .await
            {
                Ok(w) => w,
                // Devices without an end marker answer an exception past their last model.
                Err(ReadError::Exception(_)) => break,
                Err(ReadError::Failed(e)) => return Err(e),
            };
            let (id, length) = (header[0], header[1]);
            if id == 0xFFFF || id == 0 {
                break;
            }
            chain.entry(id).or_insert((addr, length));
            at += 2 + u32::from(length);
        }
        Ok(chain)
    }

    /// Polls one device once: its values, or why it could not be reached. While the device is
    /// withheld (`dev.guard`), the values are empty.
    pub(super) async fn poll(&mut self, dev: &mut DeviceState) -> Result<BTreeMap<String, Value>, String> {
        let result = self.poll_checked(dev).await;
        if let Some((_, s)) = self.stats.devices.get(dev.index) {
            dev.guard.report(s);
        }
        result
    }

    pub(super) async fn poll_checked(
        &mut self,
        dev: &mut DeviceState,
    ) -> Result<BTreeMap<String, Value>, String> {
        let sunspec = !dev.spec.map.sunspec.is_empty();
        if dev.layout.is_none() {
            let chain = if sunspec {
                self.discover(dev.spec.unit).await?
            } else {
                SunSpecChain::new()
            };
            if !dev.guard.chain_found(&chain) {
                return Ok(BTreeMap::new());
            }
            dev.layout = Some(Layout::new(&dev.spec.map, &chain));
        }
        let Some(layout) = dev.layout.as_ref() else {
            return Err("no layout".into());
        };
        let blocks = layout.blocks.clone();
        let mut reads = Vec::with_capacity(blocks.len());
        for block in blocks {
            match self.read(dev.spec.unit, block).await {
                Ok(w) => reads.push(Some(w)),
                // The device answered: it is alive, only this block is refused.
                Err(ReadError::Exception(code)) => {
                    tracing::debug!(bus = %self.name, device = %dev.spec.id, ?block, ?code, "exception");
                    reads.push(None);
                }
                Err(ReadError::Failed(e)) => return Err(e),
            }
        }
        let Some(layout) = dev.layout.as_ref() else {
            return Err("no layout".into());
        };
        if let Err(reason) = layout.verify(&reads) {
            dev.guard.layout_changed(&dev.spec.id, reason);
            return self.rewalk(dev).await;
        }
        let points = layout.points();
        let (mut values, errors) = layout.decode(&dev.spec.map, &reads);
        for _ in 0..errors {
            bump(&self.stats.decode_errors);
        }
        if dev.guard.decode_burst(&dev.spec.id, errors, points) {
            return if sunspec {
                self.rewalk(dev).await
            } else {
                Ok(BTreeMap::new())
            };
        }
        if !dev.guard.identity_holds(&dev.spec.id, &values) {
            return Ok(BTreeMap::new());
        }
        dev.guard.confirmed(&dev.spec.id);
        self.confirm_counters(dev, &reads, &mut values).await;
        Ok(values)
    }

    /// Applies the torn-read rule of `counters` to each multi-register counter of a reading:
    /// re-reads a counter's registers when a tear could hide in them, replaces its value by the
    /// confirmed one, or leaves it out.
    async fn confirm_counters(
        &mut self,
        dev: &mut DeviceState,
        reads: &[Option<Vec<u16>>],
        values: &mut BTreeMap<String, Value>,
    ) {
        let Some(layout) = dev.layout.as_ref() else { return };
        let map = dev.spec.map.clone();
        let mut due = Vec::new();
        for c in layout.counters(&map) {
            let point = &map.points[c.point];
            let Some(Value::Number(v)) = values.get(&point.metric) else {
                continue;
            };
            let Some(words) = layout.words(reads, c.function, c.address, c.words) else {
                continue;
            };
            let sf = c
                .sf_address
                .and_then(|a| layout.words(reads, c.function, a, 1))
                .map(|w| w[0]);
            let upper = counters::upper(&words, &map.limits);
            if dev.counters.needs_reread(&point.metric, &upper, *v) {
                due.push((c, sf, (upper, *v)));
            } else {
                dev.counters.publish(&point.metric, upper, *v);
            }
        }
        for (c, sf, first) in due {
            let point = &map.points[c.point];
            let mut seen = vec![first];
            for _ in 0..counters::MAX_REREADS {
                if let Some((_, s)) = self.stats.devices.get(dev.index) {
                    bump(&s.counter_rereads);
                }
                let block = Block {
                    function: c.function,
                    start: c.address,
                    count: c.words,
                };
                let Ok(words) = self.read(dev.spec.unit, block).await else {
                    break;
                };
                let Ok(Some(Value::Number(x))) = pv_shared::decode::decode(point, &map.limits, &words, sf)
                else {
                    break;
                };
                seen.push((counters::upper(&words, &map.limits), x));
                if matches!(counters::confirm(&seen), Confirmation::Confirmed(..)) {
                    break;
                }
            }
            match counters::confirm(&seen) {
                Confirmation::Confirmed(upper, x) => {
                    values.insert(point.metric.clone(), Value::Number(x));
                    dev.counters.publish(&point.metric, upper, x);
                }
                Confirmation::Unconfirmed => {
                    tracing::debug!(device = %dev.spec.id, metric = %point.metric, "counter read torn twice; left out");
                    values.remove(&point.metric);
                    if let Some((_, s)) = self.stats.devices.get(dev.index) {
                        bump(&s.counters_unconfirmed);
                    }
                }
            }
        }
    }

    /// Drops a SunSpec device's layout and walks its chain again at once; the next poll walks
    /// it once more and uses it only if both walks agree. Nothing is published meanwhile.
    pub(super) async fn rewalk(&mut self, dev: &mut DeviceState) -> Result<BTreeMap<String, Value>, String> {
        dev.layout = None;
        let chain = self.discover(dev.spec.unit).await?;
        dev.guard.chain_found(&chain);
        Ok(BTreeMap::new())
    }

    /// Polls a device outside any schedule (a probe), from a fresh layout; values the guard
    /// withholds are an error, not an empty reading.
    pub(super) async fn poll_once(&mut self, spec: &DeviceSpec) -> Result<BTreeMap<String, Value>, String> {
        let mut dev = DeviceState {
            spec: spec.clone(),
            index: 0,
            layout: None,
            next_due: Instant::now(),
            failures: 0,
            online: false,
            guard: Guard::default(),
            counters: Published::default(),
        };
        let values = self.poll(&mut dev).await?;
        match dev.guard.withheld() {
            Some(reason) => Err(format!("values withheld: {reason}")),
            None => Ok(values),
        }
    }
}

/// Carries out one command; false when the event receiver is gone.
pub(super) async fn serve_command(
    bus: &mut Bus,
    devices: &mut [DeviceState],
    stats: &BusStats,
    events: &mpsc::Sender<Event>,
    command: BusCommand,
) -> bool {
    match command {
        BusCommand::ReadNow { device, reply } => {
            let Some(dev) = devices.iter_mut().find(|d| d.spec.id == device) else {
                let _ = reply.send(Err(format!("no device {device} on bus {}", bus.name)));
                return true;
            };
            let dstats = &stats.devices[dev.index].1;
            match bus.poll(dev).await {
                Ok(_) if dev.guard.withheld().is_some() => {
                    bump(&dstats.polls_ok);
                    let reason = dev.guard.withheld().unwrap_or_default().to_string();
                    let _ = reply.send(Err(format!("values withheld: {reason}")));
                }
                Ok(values) => {
                    bump(&dstats.polls_ok);
                    let _ = reply.send(Ok(values.clone()));
                    if !values.is_empty() {
                        let reading = Event::Reading(Reading {
                            device,
                            ts: now_ms(),
                            values,
                        });
                        return events.send(reading).await.is_ok();
                    }
                }
                Err(e) => {
                    bump(&dstats.polls_failed);
                    let _ = reply.send(Err(e));
                }
            }
        }
        BusCommand::Write {
            device,
            address,
            words,
            reply,
        } => {
            let Some(dev) = devices.iter().find(|d| d.spec.id == device) else {
                let _ = reply.send(Err(format!("no device {device} on bus {}", bus.name)));
                return true;
            };
            let _ = reply.send(bus.write(dev.spec.unit, address, &words).await);
        }
        BusCommand::Scan { units, maps, reply } => {
            // Unit ids beyond 247 are reserved; 0 is broadcast.
            let report = crate::commission::scan(bus, units, 0, &maps).await;
            let _ = reply.send(report);
        }
        BusCommand::Probe { unit, map, reply } => {
            let _ = reply.send(crate::commission::probe(bus, unit, map).await);
        }
    }
    true
}

/// The running bus serves the commissioning functions between its polls.
impl crate::commission::Registers for Bus {
    fn describe(&self) -> String {
        self.transport.describe()
    }

    async fn read_words(
        &mut self,
        unit: u8,
        function: Function,
        start: u16,
        count: u16,
    ) -> Result<Vec<u16>, crate::commission::Refusal> {
        use crate::commission::Refusal;
        let block = Block {
            function,
            start,
            count,
        };
        match self.read(unit, block).await {
            Ok(w) => Ok(w),
            Err(ReadError::Exception(e)) => Err(Refusal::Exception(u8::from(e))),
            Err(ReadError::Failed(e)) => Err(Refusal::Failed(e)),
        }
    }

    async fn poll_device(&mut self, spec: &DeviceSpec) -> Result<BTreeMap<String, Value>, String> {
        self.poll_once(spec).await
    }
}
