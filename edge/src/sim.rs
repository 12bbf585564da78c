//! Device simulator: serves any register map over Modbus TCP, RTU (a serial port, e.g. one end
//! of a socat pseudo-terminal pair) or RTU over TCP, several unit ids per bus.
//!
//! Values are deterministic: each point gets a raw value derived from its metric name and a
//! seed, valid for its type (never a "not implemented" sentinel), status and fault points take
//! codes from the map's own tables, scale factors are 0, -1 or -2. `SimDevice::expected` gives
//! the canonical value each point must decode to, so a test can compare what the poller read.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use pv_shared::decode::{self, Raw};
use pv_shared::regmap::{DataType, FaultMatch, Function, Location, RegisterMap};
use pv_shared::wire::Value;
use tokio_modbus::server::Service;
use tokio_modbus::{ExceptionCode, Request, Response, SlaveRequest};

use crate::device::SUNS;

/// Where the simulator lays out a SunSpec chain.
pub const SUNSPEC_BASE: u16 = 40000;

#[derive(Debug, thiserror::Error)]
pub enum SimError {
    #[error("{map}: {0}", map = .1)]
    Encode(decode::DecodeError, String),
    #[error("{0}: SunSpec chain does not fit below register 65535")]
    TooLong(String),
}

/// One simulated device.
#[derive(Debug)]
pub struct SimDevice {
    pub map: Arc<RegisterMap>,
    registers: Mutex<HashMap<(Function, u16), u16>>,
    expected: BTreeMap<String, Value>,
    dead: AtomicBool,
}

fn hash(text: &str, seed: u64) -> u64 {
    // FNV-1a: stable across runs and platforms, which the expected values rely on.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ seed.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    for b in text.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

fn raw_for(map: &RegisterMap, index: usize, seed: u64) -> Raw {
    let p = &map.points[index];
    let h = hash(&p.metric, seed);
    // Codes come from the map's tables, so the cloud's lookups can be tested on them.
    if p.metric == "status_code" && !map.status.is_empty() {
        return Raw::Int(i128::from(
            map.status[(h % map.status.len() as u64) as usize].code,
        ));
    }
    let faults: Vec<_> = map.faults.iter().filter(|f| f.point == p.metric).collect();
    if !faults.is_empty() {
        return Raw::Int(match faults[(h % faults.len() as u64) as usize].matches {
            FaultMatch::Code(c) => i128::from(c),
            FaultMatch::Bit(b) => 1i128 << b,
        });
    }
    match p.data_type {
        DataType::U16 => Raw::Int(1 + i128::from(h % 60_000)),
        DataType::I16 => Raw::Int(i128::from(h % 60_000) - 30_000),
        DataType::U32 | DataType::Acc32 => Raw::Int(1 + i128::from(h % 4_000_000_000)),
        DataType::I32 => Raw::Int(i128::from(h % 2_000_000_000) - 1_000_000_000),
        DataType::U64 | DataType::Acc64 => Raw::Int(1 + i128::from(h % 1_000_000_000_000_000)),
        // Multiples of 1/8 below 2^21 are exact in f32.
        DataType::F32 => Raw::Float((h % 2_000_000) as f32 / 8.0 - 100_000.0),
        DataType::String => {
            let mut s = format!("SIM-{:X}", h);
            s.truncate(usize::from(p.words) * 2);
            Raw::Text(s)
        }
    }
}

impl SimDevice {
    /// Lays out `map`'s registers with values derived from `seed`.
    pub fn new(map: Arc<RegisterMap>, seed: u64) -> Result<SimDevice, SimError> {
        let mut regs: HashMap<(Function, u16), u16> = HashMap::new();
        // SunSpec chain: marker, then each model's ID, length and zeroed body, then the end model.
        let mut bases: HashMap<u16, u16> = HashMap::new();
        if !map.sunspec.is_empty() {
            let f = map.limits.function;
            regs.insert((f, SUNSPEC_BASE), SUNS[0]);
            regs.insert((f, SUNSPEC_BASE + 1), SUNS[1]);
            let mut at = u32::from(SUNSPEC_BASE) + 2;
            for m in &map.sunspec {
                let end = at + 2 + u32::from(m.length);
                if end + 2 > 65_536 {
                    return Err(SimError::TooLong(map.id.clone()));
                }
                bases.insert(m.id, at as u16);
                regs.insert((f, at as u16), m.id);
                regs.insert((f, at as u16 + 1), m.length);
                for a in at + 2..end {
                    regs.insert((f, a as u16), 0);
                }
                at = end;
            }
            regs.insert((f, at as u16), 0xFFFF);
            regs.insert((f, at as u16 + 1), 0);
        }
        let address = |l: Location| match l {
            Location::Absolute(a) => a,
            Location::SunSpec { model, offset } => bases.get(&model).copied().unwrap_or(0) + offset,
        };
        let mut expected = BTreeMap::new();
        for (i, p) in map.points.iter().enumerate() {
            let raw = raw_for(&map, i, seed);
            let words =
                decode::encode(p, &map.limits, &raw).map_err(|e| SimError::Encode(e, map.id.clone()))?;
            let start = address(p.location);
            for (k, w) in words.iter().enumerate() {
                regs.insert((p.function, start + k as u16), *w);
            }
            let sf = p.scale_factor.map(|l| {
                let a = address(l);
                let sf = -((hash(&format!("sf{a}"), seed) % 3) as i16);
                regs.insert((p.function, a), sf as u16);
                sf
            });
            expected.insert(p.metric.clone(), decode::scaled(p, &raw, sf));
        }
        // Devices that tolerate reads across unmapped registers answer zeros there.
        if map.limits.max_gap > 0 {
            for f in [Function::Holding, Function::Input] {
                let addrs: Vec<u16> = regs.keys().filter(|(g, _)| *g == f).map(|(_, a)| *a).collect();
                if let (Some(lo), Some(hi)) = (addrs.iter().min(), addrs.iter().max()) {
                    for a in *lo..=*hi {
                        regs.entry((f, a)).or_insert(0);
                    }
                }
            }
        }
        Ok(SimDevice {
            map,
            registers: Mutex::new(regs),
            expected,
            dead: AtomicBool::new(false),
        })
    }

    /// Canonical value every point must decode to.
    pub fn expected(&self) -> &BTreeMap<String, Value> {
        &self.expected
    }

    /// A dead device never answers (as a powered-off device on RS-485).
    pub fn set_dead(&self, dead: bool) {
        self.dead.store(dead, Ordering::Relaxed);
    }

    /// Current value of a register (for tests of writes).
    pub fn register(&self, function: Function, address: u16) -> Option<u16> {
        self.registers.lock().ok()?.get(&(function, address)).copied()
    }

    fn read(&self, function: Function, start: u16, count: u16) -> Result<Vec<u16>, ExceptionCode> {
        let regs = self
            .registers
            .lock()
            .map_err(|_| ExceptionCode::ServerDeviceFailure)?;
        if count == 0 || count > 125 {
            return Err(ExceptionCode::IllegalDataValue);
        }
        // A read touching any register the device does not have is refused, like real devices
        // with sparse maps do; the planner must not bridge gaps such maps do not allow.
        (0..count)
            .map(|k| {
                let a = start.checked_add(k).ok_or(ExceptionCode::IllegalDataAddress)?;
                regs.get(&(function, a))
                    .copied()
                    .ok_or(ExceptionCode::IllegalDataAddress)
            })
            .collect()
    }

    fn write(&self, start: u16, values: &[u16]) -> Result<(), ExceptionCode> {
        let mut regs = self
            .registers
            .lock()
            .map_err(|_| ExceptionCode::ServerDeviceFailure)?;
        for k in 0..values.len() {
            let a = start
                .checked_add(k as u16)
                .ok_or(ExceptionCode::IllegalDataAddress)?;
            if !regs.contains_key(&(Function::Holding, a)) {
                return Err(ExceptionCode::IllegalDataAddress);
            }
        }
        for (k, v) in values.iter().enumerate() {
            regs.insert((Function::Holding, start + k as u16), *v);
        }
        Ok(())
    }
}

/// Devices on one simulated bus, by unit id.
#[derive(Debug, Default, Clone)]
pub struct Simulator {
    units: Arc<BTreeMap<u8, Arc<SimDevice>>>,
}

impl Simulator {
    pub fn new(units: impl IntoIterator<Item = (u8, Arc<SimDevice>)>) -> Simulator {
        Simulator {
            units: Arc::new(units.into_iter().collect()),
        }
    }

    pub fn unit(&self, unit: u8) -> Option<&Arc<SimDevice>> {
        self.units.get(&unit)
    }

    fn answer(&self, req: SlaveRequest<'static>) -> Result<Option<Response>, ExceptionCode> {
        // Unknown units and dead devices stay silent, as on a real RS-485 line.
        let Some(dev) = self.units.get(&req.slave) else {
            return Ok(None);
        };
        if dev.dead.load(Ordering::Relaxed) {
            return Ok(None);
        }
        Ok(Some(match req.request {
            Request::ReadHoldingRegisters(a, n) => {
                Response::ReadHoldingRegisters(dev.read(Function::Holding, a, n)?)
            }
            Request::ReadInputRegisters(a, n) => {
                Response::ReadInputRegisters(dev.read(Function::Input, a, n)?)
            }
            Request::WriteSingleRegister(a, v) => {
                dev.write(a, &[v])?;
                Response::WriteSingleRegister(a, v)
            }
            Request::WriteMultipleRegisters(a, values) => {
                dev.write(a, &values)?;
                Response::WriteMultipleRegisters(a, values.len() as u16)
            }
            _ => return Err(ExceptionCode::IllegalFunction),
        }))
    }

    /// Serves Modbus TCP on `listener` until the task is dropped.
    pub async fn serve_tcp(self, listener: tokio::net::TcpListener) -> std::io::Result<()> {
        let server = tokio_modbus::server::tcp::Server::new(listener);
        let on_connected = |stream: tokio::net::TcpStream, _addr| {
            let svc = self.clone();
            async move {
                let _ = stream.set_nodelay(true);
                Ok(Some((svc, stream)))
            }
        };
        server
            .serve(
                &on_connected,
                |e| tracing::debug!(%e, "simulator connection ended"),
            )
            .await
    }

    /// Serves RTU frames over TCP (a serial device server in transparent mode).
    pub async fn serve_rtu_over_tcp(self, listener: tokio::net::TcpListener) -> std::io::Result<()> {
        let server = tokio_modbus::server::rtu_over_tcp::Server::new(listener);
        let on_connected = |stream: tokio::net::TcpStream, _addr| {
            let svc = self.clone();
            async move {
                let _ = stream.set_nodelay(true);
                Ok(Some((svc, stream)))
            }
        };
        server
            .serve(
                &on_connected,
                |e| tracing::debug!(%e, "simulator connection ended"),
            )
            .await
    }

    /// Serves Modbus RTU on a serial port (or a pseudo-terminal) until the task is dropped.
    pub async fn serve_rtu(self, path: std::path::PathBuf) -> std::io::Result<()> {
        let server = tokio_modbus::server::rtu::Server::new_from_path(path, 9600)?;
        server.serve_forever(self).await
    }
}

impl Service for Simulator {
    type Request = SlaveRequest<'static>;
    type Response = Option<Response>;
    type Exception = ExceptionCode;
    type Future = std::future::Ready<Result<Option<Response>, ExceptionCode>>;

    fn call(&self, req: Self::Request) -> Self::Future {
        std::future::ready(self.answer(req))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn every_map_can_be_simulated_and_expected_values_are_plausible() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../firmware-configs");
        for map in RegisterMap::load_dir(&dir).unwrap() {
            let n = map.points.len();
            let dev = SimDevice::new(Arc::new(map), 7).unwrap();
            assert_eq!(dev.expected().len(), n, "{}", dev.map.id);
            if let Some(Value::Number(code)) = dev.expected().get("status_code")
                && !dev.map.status.is_empty()
            {
                assert!(dev.map.status_of(*code as u32).is_some(), "{}", dev.map.id);
            }
        }
    }
}
