//! One polling task per bus.
//!
//! A bus (a serial line or one TCP endpoint) carries one request at a time: RS-485 is
//! half-duplex with a single master, and serial device servers queue requests anyway. The task
//! polls the device that is due next, reading its blocks one after the other. A device that
//! stops answering costs the bus one timeout per attempt, so after `offline_after` failed polls
//! it is reported offline and only retried after an exponentially growing back-off (up to
//! `backoff_max`): a dead device then takes at most one poll's worth of timeouts per back-off
//! period from the devices that still answer. The cloud's commands for a device on the bus
//! (read now, write a set-point) are served between polls, never interleaved with one.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use pv_shared::regmap::Function;
use pv_shared::wire::Value;
use tokio::sync::{mpsc, oneshot, watch};
use tokio::time::Instant;
use tokio_modbus::client::{Context, Reader, Writer};
use tokio_modbus::slave::{Slave, SlaveContext};

use crate::clock::now_ms;
use crate::device::{DeviceSpec, Layout, SUNS, SUNS_BASES, SunSpecChain};
use crate::guard::Guard;
use crate::plan::Block;
use crate::transport::Transport;

/// Timing policy of a bus.
#[derive(Debug, Clone)]
pub struct BusPolicy {
    /// Longest wait for one answer.
    pub timeout: Duration,
    /// Further attempts of a request after a timeout or transport error.
    pub retries: u32,
    /// Failed polls in a row after which a device is reported offline and backed off.
    pub offline_after: u32,
    pub backoff_initial: Duration,
    pub backoff_max: Duration,
}

impl Default for BusPolicy {
    fn default() -> Self {
        BusPolicy {
            timeout: Duration::from_millis(1000),
            retries: 1,
            offline_after: 3,
            backoff_initial: Duration::from_secs(10),
            backoff_max: Duration::from_secs(300),
        }
    }
}

#[derive(Debug, Clone)]
pub struct BusConfig {
    pub name: String,
    pub transport: Transport,
    pub policy: BusPolicy,
    pub devices: Vec<DeviceSpec>,
}

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

fn bump(c: &AtomicU64) {
    c.fetch_add(1, Ordering::Relaxed);
}

/// Why a read produced no registers.
#[derive(Debug)]
enum ReadError {
    /// The device answered with a Modbus exception: it is alive.
    Exception(tokio_modbus::ExceptionCode),
    /// No usable answer after every attempt.
    Failed(String),
}

struct DeviceState {
    spec: DeviceSpec,
    index: usize,
    layout: Option<Layout>,
    next_due: Instant,
    failures: u32,
    online: bool,
    guard: Guard,
}

struct Bus {
    name: String,
    transport: Transport,
    policy: BusPolicy,
    ctx: Option<Context>,
    stats: Arc<BusStats>,
}

impl Bus {
    async fn read(&mut self, unit: u8, block: Block) -> Result<Vec<u16>, ReadError> {
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
    async fn write(&mut self, unit: u8, start: u16, values: &[u16]) -> Result<(), String> {
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
    async fn discover(&mut self, unit: u8) -> Result<SunSpecChain, String> {
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
    async fn poll(&mut self, dev: &mut DeviceState) -> Result<BTreeMap<String, Value>, String> {
        let result = self.poll_checked(dev).await;
        if let Some((_, s)) = self.stats.devices.get(dev.index) {
            dev.guard.report(s);
        }
        result
    }

    async fn poll_checked(&mut self, dev: &mut DeviceState) -> Result<BTreeMap<String, Value>, String> {
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
        let (values, errors) = layout.decode(&dev.spec.map, &reads);
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
        Ok(values)
    }

    /// Drops a SunSpec device's layout and walks its chain again at once; the next poll walks
    /// it once more and uses it only if both walks agree. Nothing is published meanwhile.
    async fn rewalk(&mut self, dev: &mut DeviceState) -> Result<BTreeMap<String, Value>, String> {
        dev.layout = None;
        let chain = self.discover(dev.spec.unit).await?;
        dev.guard.chain_found(&chain);
        Ok(BTreeMap::new())
    }

    /// Polls a device outside any schedule (a probe), from a fresh layout; values the guard
    /// withholds are an error, not an empty reading.
    async fn poll_once(&mut self, spec: &DeviceSpec) -> Result<BTreeMap<String, Value>, String> {
        let mut dev = DeviceState {
            spec: spec.clone(),
            index: 0,
            layout: None,
            next_due: Instant::now(),
            failures: 0,
            online: false,
            guard: Guard::default(),
        };
        let values = self.poll(&mut dev).await?;
        match dev.guard.withheld() {
            Some(reason) => Err(format!("values withheld: {reason}")),
            None => Ok(values),
        }
    }
}

/// Carries out one command; false when the event receiver is gone.
async fn serve_command(
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

/// Runs a bus until `stop` turns true (or its receiver is dropped). Events go to `events`; if
/// the receiver is gone, the bus stops too.
pub async fn run(
    config: BusConfig,
    stats: Arc<BusStats>,
    events: mpsc::Sender<Event>,
    stop: watch::Receiver<bool>,
) {
    run_with_commands(config, stats, events, stop, None).await
}

async fn next_command(commands: &mut Option<mpsc::Receiver<BusCommand>>) -> Option<BusCommand> {
    match commands {
        Some(rx) => rx.recv().await,
        None => std::future::pending().await,
    }
}

async fn sleep_until_some(due: Option<Instant>) {
    match due {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

/// `run`, also serving `commands` between polls.
pub async fn run_with_commands(
    config: BusConfig,
    stats: Arc<BusStats>,
    events: mpsc::Sender<Event>,
    mut stop: watch::Receiver<bool>,
    mut commands: Option<mpsc::Receiver<BusCommand>>,
) {
    let start = Instant::now();
    let mut devices: Vec<DeviceState> = config
        .devices
        .iter()
        .enumerate()
        .map(|(index, spec)| DeviceState {
            spec: spec.clone(),
            index,
            layout: None,
            next_due: start,
            failures: 0,
            online: false,
            guard: Guard::default(),
        })
        .collect();
    let mut bus = Bus {
        name: config.name.clone(),
        transport: config.transport.clone(),
        policy: config.policy.clone(),
        ctx: None,
        stats: stats.clone(),
    };
    // A bus without devices still serves commands: it is where an installer scans for them.
    if devices.is_empty() && commands.is_none() {
        return;
    }
    loop {
        // The device due first; ties go to configuration order.
        let next = (0..devices.len()).min_by_key(|&i| (devices[i].next_due, i));
        let due = next.map(|i| devices[i].next_due);
        tokio::select! {
            // A device that is due goes before a waiting command, so a long run of commands (a
            // scan's slices) never starves the bus's own devices.
            biased;
            r = stop.changed() => {
                if r.is_err() || *stop.borrow() { return; }
                continue;
            }
            _ = sleep_until_some(due) => {}
            c = next_command(&mut commands) => {
                match c {
                    Some(command) => {
                        if !serve_command(&mut bus, &mut devices, &stats, &events, command).await {
                            return;
                        }
                    }
                    None => commands = None,
                }
                continue;
            }
        }
        if *stop.borrow() {
            return;
        }
        let (Some(i), Some(due)) = (next, due) else {
            continue;
        };
        let dev = &mut devices[i];
        let result = bus.poll(dev).await;
        let now = Instant::now();
        let dstats = &stats.devices[dev.index].1;
        let event = match result {
            Ok(values) => {
                bump(&dstats.polls_ok);
                dev.failures = 0;
                // Fixed-rate schedule; after a delay, poll once at once and drop the missed slots.
                let next = due + dev.spec.interval;
                dev.next_due = if next < now { now } else { next };
                let mut out = Vec::new();
                if !dev.online {
                    dev.online = true;
                    dstats.online.store(true, Ordering::Relaxed);
                    out.push(Event::Online {
                        device: dev.spec.id.clone(),
                    });
                }
                if !values.is_empty() {
                    out.push(Event::Reading(Reading {
                        device: dev.spec.id.clone(),
                        ts: now_ms(),
                        values,
                    }));
                }
                out
            }
            Err(reason) => {
                bump(&dstats.polls_failed);
                dev.failures += 1;
                let mut out = Vec::new();
                if dev.failures < bus.policy.offline_after {
                    dev.next_due = now + dev.spec.interval;
                } else {
                    let doublings = (dev.failures - bus.policy.offline_after).min(20);
                    let backoff = bus
                        .policy
                        .backoff_initial
                        .saturating_mul(1 << doublings)
                        .min(bus.policy.backoff_max);
                    dev.next_due = now + backoff.max(dev.spec.interval);
                    if dev.online || dev.failures == bus.policy.offline_after {
                        tracing::warn!(bus = %bus.name, device = %dev.spec.id, %reason, ?backoff, "device offline");
                        dev.online = false;
                        dstats.online.store(false, Ordering::Relaxed);
                        // Rediscover when it comes back: it may have been replaced.
                        dev.layout = None;
                        out.push(Event::Offline {
                            device: dev.spec.id.clone(),
                            reason,
                        });
                    }
                }
                out
            }
        };
        for e in event {
            if events.send(e).await.is_err() {
                return;
            }
        }
    }
}
