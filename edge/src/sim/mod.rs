//! Device simulator: serves any register map over Modbus TCP, RTU (a serial port, e.g. one end
//! of a socat pseudo-terminal pair) or RTU over TCP, several unit ids per bus.
//!
//! Two modes:
//! - *expected values* (`SimDevice::new`): each point gets a fixed raw value derived from its
//!   metric name and a seed, valid for its type (never a "not implemented" sentinel), status and
//!   fault points take codes from the map's own tables, scale factors are 0, -1 or -2.
//!   `SimDevice::expected` gives the canonical value each point must decode to, so a test can
//!   compare what the poller read.
//! - *realistic* (`SimDevice::realistic`): the modelled points follow the sun and sky of a
//!   site (`sky`: solar position, Haurwitz clear sky, passing clouds; `plant`: inverter strings,
//!   energy counters, meter, weather station, tracker with wind stow), recomputed on each read
//!   from the site's (optionally shifted) clock; points the model does not cover keep their
//!   expected values.
//!
//! A bus can stand for a Modbus TCP gateway in front of serial devices: unit ids nobody has
//! answer an exception (0x0B "gateway target failed to respond", 0x0A "gateway path unavailable",
//! or 0x02 as some devices answer for every id) instead of staying silent, and a device can
//! serve Read Device Identification (0x2B / 0x0E) objects.
//!
//! A SunSpec device can be restarted with another model order and base (`restart`) while its
//! endpoint stays up: the same values, found at other addresses.
//!
//! Injectable faults, in both modes: a dead device (never answers), a share of requests left
//! unanswered (timeouts) or refused with an exception, torn counters (`set_torn`: multi-register
//! counters updated one register at a time, so an answer can hold a new low word beside an old
//! high word), and (realistic mode) a fault code from the map's fault table with the device
//! stopping production.

pub mod bank;
mod bus;
pub mod control;
mod ident;
pub mod plant;
pub mod sky;
pub mod spec;
pub mod state;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use pv_shared::decode::{self, Raw};
use pv_shared::metrics;
use pv_shared::regmap::{DataType, FaultMatch, Function, Location, Point, RegisterMap};
use pv_shared::wire::Value;
use tokio_modbus::ExceptionCode;
use tokio_modbus::prelude::{ReadCode, ReadDeviceIdentificationResponse};

use crate::clock::now_ms;
use crate::device::SUNS;

pub use bus::Simulator;

/// Where the simulator lays out a SunSpec chain.
pub const SUNSPEC_BASE: u16 = 40000;

#[derive(Debug, thiserror::Error)]
pub enum SimError {
    #[error("{map}: {0}", map = .1)]
    Encode(decode::DecodeError, String),
    #[error("{0}: SunSpec chain does not fit below register 65535")]
    TooLong(String),
    #[error("{0}: not a SunSpec map, or model {1} is not in it")]
    NoModel(String, u16),
}

/// One simulated device.
#[derive(Debug)]
pub struct SimDevice {
    pub map: Arc<RegisterMap>,
    registers: Mutex<HashMap<(Function, u16), u16>>,
    expected: BTreeMap<String, Value>,
    dead: AtomicBool,
    /// Where each point of the map is on this device, and its scale factor.
    placed: Vec<Placed>,
    physics: Option<Mutex<Physics>>,
    /// Shares (in millionths) of requests left unanswered / refused with an exception.
    timeouts: AtomicU64,
    exceptions: AtomicU64,
    requests: AtomicU64,
    seed: u64,
    /// Read Device Identification objects (id, value); empty: the function is not supported.
    identification: Mutex<Vec<(u8, String)>>,
    /// After a `restart`: where the chain now is on the wire.
    moved: Mutex<Option<Moved>>,
    torn: Mutex<Option<Torn>>,
}

/// Multi-register counters written one register at a time, as many devices' firmware does
/// (`SimDevice::set_torn`).
#[derive(Debug, Default)]
struct Torn {
    /// Raw units every counter advances at each request, on top of the model (0: only as the
    /// model drives it). Makes a counter cross 65 536 boundaries within a test.
    step: u64,
    advanced: u64,
    /// Each counter's registers as the device last held them, by point index.
    last: HashMap<usize, Vec<u16>>,
    /// Answers that held a torn counter.
    served: u64,
}

/// A SunSpec chain laid out anew by a restart. The registers stay where `new` put them (the
/// canonical layout); reads and writes go through this translation.
#[derive(Debug, Clone)]
struct Moved {
    function: Function,
    /// (address on the wire, canonical address, registers).
    segments: Vec<(u32, u32, u32)>,
    /// The canonical chain, marker to end model: reads there outside a segment are refused.
    canonical: (u32, u32),
}

impl Moved {
    fn translate(&self, function: Function, a: u16) -> Option<u16> {
        if function != self.function {
            return Some(a);
        }
        let a32 = u32::from(a);
        for &(wire, canon, n) in &self.segments {
            if a32 >= wire && a32 < wire + n {
                return u16::try_from(canon + (a32 - wire)).ok();
            }
        }
        if a32 >= self.canonical.0 && a32 < self.canonical.1 {
            return None;
        }
        Some(a)
    }
}

#[derive(Debug, Clone, Copy)]
struct Placed {
    start: u16,
    /// The scale factor register, if the point has one.
    sf_at: Option<u16>,
}

#[derive(Debug)]
struct Physics {
    site: Arc<sky::Site>,
    plant: plant::Plant,
    /// Holding registers written over Modbus (set-points): the model leaves them alone.
    written: HashSet<u16>,
}

/// The raw integer nearest to `x` that type `t` carries and that is not a "not implemented"
/// sentinel.
fn clamp_raw(t: DataType, x: f64) -> i128 {
    let (lo, hi) = raw_range(t);
    x.round().clamp(lo, hi) as i128
}

fn raw_range(t: DataType) -> (f64, f64) {
    match t {
        DataType::U16 => (0.0, 65_534.0),
        DataType::I16 => (-32_767.0, 32_767.0),
        DataType::U32 => (0.0, 4_294_967_294.0),
        DataType::Acc32 => (1.0, 4_294_967_295.0),
        DataType::I32 => (-2_147_483_647.0, 2_147_483_647.0),
        DataType::U64 => (0.0, 9.2e18),
        DataType::Acc64 => (1.0, 9.2e18),
        DataType::F32 | DataType::String => (f64::MIN, f64::MAX),
    }
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

fn raw_for(map: &RegisterMap, index: usize, seed: u64, sf: Option<i16>) -> Raw {
    let p = &map.points[index];
    let h = hash(&p.metric, seed);
    // Codes come from the map's tables, so the cloud's lookups can be tested on them.
    // A name the map's own patterns accept, as the real device would report.
    if p.metric == "model_name"
        && let Some(pattern) = map.match_model.first()
    {
        let mut s: String = pattern.chars().filter(|c| *c != '*').collect();
        s = s.replace('?', "0");
        s.truncate(usize::from(p.words) * 2);
        return Raw::Text(s);
    }
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
    // A metric with a plausible range gets a value inside it (between 5 % and 95 % of the range,
    // or of what the type can carry), as a healthy device serves: a random word would be a
    // value the agent must mark as suspect (a power factor of −20.7 was served this way).
    if let Some((lo, hi)) = metrics::plausible_range(&p.metric)
        && p.data_type != DataType::String
    {
        let factor = p.factor() * 10f64.powi(i32::from(sf.unwrap_or(0)));
        let (tlo, thi) = raw_range(p.data_type);
        let (a, b) = (tlo * factor, thi * factor);
        let (lo, hi) = (lo.max(a.min(b)), hi.min(a.max(b)));
        let target = lo + (hi - lo) * (0.05 + 0.9 * (h % 10_000) as f64 / 10_000.0);
        return match p.data_type {
            DataType::F32 => Raw::Float((target / factor) as f32),
            t => Raw::Int(clamp_raw(t, target / factor)),
        };
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
        let mut placed = Vec::with_capacity(map.points.len());
        for (i, p) in map.points.iter().enumerate() {
            let sf = p.scale_factor.map(|l| {
                let a = address(l);
                let sf = -((hash(&format!("sf{a}"), seed) % 3) as i16);
                regs.insert((p.function, a), sf as u16);
                sf
            });
            let raw = raw_for(&map, i, seed, sf);
            let words =
                decode::encode(p, &map.limits, &raw).map_err(|e| SimError::Encode(e, map.id.clone()))?;
            let start = address(p.location);
            for (k, w) in words.iter().enumerate() {
                regs.insert((p.function, start + k as u16), *w);
            }
            placed.push(Placed {
                start,
                sf_at: p.scale_factor.map(address),
            });
            expected.insert(p.metric.clone(), decode::canonical(p, &map.limits, &raw, sf));
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
            placed,
            physics: None,
            timeouts: AtomicU64::new(0),
            exceptions: AtomicU64::new(0),
            requests: AtomicU64::new(0),
            seed,
            identification: Mutex::new(Vec::new()),
            moved: Mutex::new(None),
            torn: Mutex::new(None),
        })
    }

    /// Restarts a SunSpec device with its models in `order` (ids of the map's models; one left
    /// out is a model the device no longer has) behind a `SunS` marker at `base`. The values
    /// are the same, at their new addresses; the endpoint stays up.
    pub fn restart(&self, order: &[u16], base: u16) -> Result<(), SimError> {
        let no = |id| SimError::NoModel(self.map.id.clone(), id);
        if self.map.sunspec.is_empty() {
            return Err(no(0));
        }
        let mut canonical = std::collections::HashMap::new();
        let mut at = u32::from(SUNSPEC_BASE) + 2;
        for m in &self.map.sunspec {
            canonical.insert(m.id, (at, 2 + u32::from(m.length)));
            at += 2 + u32::from(m.length);
        }
        let canonical_end = at;
        let mut segments = vec![(u32::from(base), u32::from(SUNSPEC_BASE), 2)];
        let mut at = u32::from(base) + 2;
        for id in order {
            let (canon, n) = *canonical.get(id).ok_or_else(|| no(*id))?;
            segments.push((at, canon, n));
            at += n;
        }
        segments.push((at, canonical_end, 2));
        if at + 2 > 65_536 {
            return Err(SimError::TooLong(self.map.id.clone()));
        }
        let moved = Moved {
            function: self.map.limits.function,
            segments,
            canonical: (u32::from(SUNSPEC_BASE), canonical_end + 2),
        };
        if let Ok(mut m) = self.moved.lock() {
            *m = Some(moved);
        }
        Ok(())
    }

    /// Sets a text point (e.g. `serial_number`), as a unit swapped for another would read; the
    /// expected values keep the old text. False when the map has no such text point.
    pub fn set_text(&self, metric: &str, text: &str) -> bool {
        let Some((p, at)) = self
            .map
            .points
            .iter()
            .zip(&self.placed)
            .find(|(p, _)| p.metric == metric && p.data_type == DataType::String)
        else {
            return false;
        };
        let Ok(words) = decode::encode(p, &self.map.limits, &Raw::Text(text.into())) else {
            return false;
        };
        let Ok(mut regs) = self.registers.lock() else {
            return false;
        };
        for (k, w) in words.iter().enumerate() {
            regs.insert((p.function, at.start.wrapping_add(k as u16)), *w);
        }
        true
    }

    fn moved(&self) -> Option<Moved> {
        self.moved.lock().ok().and_then(|m| m.clone())
    }

    /// A device whose modelled points follow the sky of `site` (see the module note).
    pub fn realistic(
        map: Arc<RegisterMap>,
        seed: u64,
        site: Arc<sky::Site>,
        options: plant::PlantOptions,
    ) -> Result<SimDevice, SimError> {
        let plant = plant::Plant::new(&map, seed, options);
        let mut dev = SimDevice::new(map, seed)?;
        dev.physics = Some(Mutex::new(Physics {
            site,
            plant,
            written: HashSet::new(),
        }));
        Ok(dev)
    }

    /// Recomputes the modelled points for real time `now_ms` (the site's clock offset is
    /// applied here). Reads do this by themselves; tests call it with chosen instants.
    pub fn refresh_at(&self, now_ms: i64) {
        let Some(physics) = &self.physics else { return };
        let Ok(mut ph) = physics.lock() else { return };
        let Ok(mut regs) = self.registers.lock() else {
            return;
        };
        let t = now_ms + ph.site.clock_offset_ms;
        // Writing mode 0 (auto) hands the set-points back to the model.
        let auto = self.map.points.iter().zip(&self.placed).any(|(p, at)| {
            p.metric == "tracker_mode"
                && ph.written.contains(&at.start)
                && regs.get(&(p.function, at.start)) == Some(&0)
        });
        if auto {
            ph.written.clear();
        }
        // A target angle written over Modbus is a manual set-point the tracker follows.
        let manual = self
            .map
            .points
            .iter()
            .zip(&self.placed)
            .find(|(p, at)| p.metric == "tracker_target_angle" && ph.written.contains(&at.start))
            .and_then(|(p, at)| self.decode_point(&regs, p, at));
        let site = ph.site.clone();
        let values = ph.plant.measure(&site, t, manual);
        let by_metric: HashMap<&str, f64> = values.iter().map(|(m, v)| (m.as_str(), *v)).collect();
        // SunSpec scale factors: each register gets the finest power of ten at which every
        // point sharing it fits its type, as a real device picks them for its ratings.
        let mut needed: HashMap<(Function, u16), i16> = HashMap::new();
        for (p, at) in self.map.points.iter().zip(&self.placed) {
            if let (Some(sf_at), Some(v)) = (at.sf_at, by_metric.get(p.metric.as_str())) {
                let (_, hi) = raw_range(p.data_type);
                let fits = (-3..=9)
                    .find(|s| (v / (p.factor() * 10f64.powi(i32::from(*s)))).abs() <= hi * 0.99)
                    .unwrap_or(9);
                let e = needed.entry((p.function, sf_at)).or_insert(-3);
                *e = (*e).max(fits);
            }
        }
        for (at, sf) in &needed {
            regs.insert(*at, *sf as u16);
        }
        for (p, at) in self.map.points.iter().zip(&self.placed) {
            if ph.written.contains(&at.start) && p.function == Function::Holding {
                continue;
            }
            if let Some(v) = by_metric.get(p.metric.as_str()) {
                self.put(&mut regs, p, at, *v);
            }
        }
    }

    fn sf_of(&self, regs: &HashMap<(Function, u16), u16>, p: &Point, at: &Placed) -> Option<i16> {
        at.sf_at
            .map(|a| regs.get(&(p.function, a)).copied().unwrap_or(0) as i16)
    }

    fn decode_point(&self, regs: &HashMap<(Function, u16), u16>, p: &Point, at: &Placed) -> Option<f64> {
        let words: Option<Vec<u16>> = (0..p.words)
            .map(|k| regs.get(&(p.function, at.start.wrapping_add(k))).copied())
            .collect();
        match decode::decode(
            p,
            &self.map.limits,
            &words?,
            self.sf_of(regs, p, at).map(|s| s as u16),
        ) {
            Ok(Some(Value::Number(x))) => Some(x),
            _ => None,
        }
    }

    fn put(&self, regs: &mut HashMap<(Function, u16), u16>, p: &Point, at: &Placed, value: f64) {
        let factor = p.factor() * 10f64.powi(i32::from(self.sf_of(regs, p, at).unwrap_or(0)));
        let x = value / factor;
        let raw = match p.data_type {
            DataType::String => return,
            DataType::F32 => Raw::Float(x as f32),
            t => Raw::Int(clamp_raw(t, x)),
        };
        if let Ok(words) = decode::encode(p, &self.map.limits, &raw) {
            for (k, w) in words.iter().enumerate() {
                regs.insert((p.function, at.start.wrapping_add(k as u16)), *w);
            }
        }
    }

    /// Realistic mode: the cumulative state of the device's physics (counters), to be saved.
    pub fn plant_state(&self) -> Option<plant::PlantState> {
        let ph = self.physics.as_ref()?.lock().ok()?;
        Some(ph.plant.state())
    }

    /// Realistic mode: continues from a saved state (false in the expected-value mode).
    pub fn restore_plant(&self, state: &plant::PlantState) -> bool {
        match self.physics.as_ref().map(|p| p.lock()) {
            Some(Ok(mut ph)) => {
                ph.plant.restore(state);
                true
            }
            _ => false,
        }
    }

    /// Leaves this share (0-1) of requests unanswered, as a device that times out now and then.
    pub fn set_timeouts(&self, share: f64) {
        self.timeouts
            .store((share.clamp(0.0, 1.0) * 1e6) as u64, Ordering::Relaxed);
    }

    /// Refuses this share (0-1) of requests with a Modbus exception (server device busy).
    pub fn set_exceptions(&self, share: f64) {
        self.exceptions
            .store((share.clamp(0.0, 1.0) * 1e6) as u64, Ordering::Relaxed);
    }

    /// Tears multi-register counters (energy, irradiation, running time of two or four
    /// registers): the device updates a counter one register at a time and a read that comes in
    /// between sees the upper registers of one value beside the lowest of the other (old upper
    /// and new low, then the other way round, alternately) whenever the upper registers changed.
    /// `step` raw units are added to every counter at each request, so it crosses 65 536
    /// boundaries quickly; `None` turns tearing off.
    pub fn set_torn(&self, step: Option<u64>) {
        if let Ok(mut t) = self.torn.lock() {
            *t = step.map(|step| Torn {
                step,
                ..Torn::default()
            });
        }
    }

    /// Answers that held a torn counter so far.
    pub fn torn_served(&self) -> u64 {
        self.torn
            .lock()
            .ok()
            .and_then(|t| t.as_ref().map(|t| t.served))
            .unwrap_or(0)
    }

    /// The true value of counter point `i` in `regs`, advanced by `by` raw units.
    fn counter_words(&self, regs: &HashMap<(Function, u16), u16>, i: usize, by: u64) -> Option<Vec<u16>> {
        let p = &self.map.points[i];
        let at = self.placed[i];
        let words: Vec<u16> = (0..p.words)
            .map(|k| regs.get(&(p.function, at.start.wrapping_add(k))).copied())
            .collect::<Option<_>>()?;
        if by == 0 {
            return Some(words);
        }
        match decode::raw(p, &self.map.limits, &words) {
            Ok(Some(Raw::Int(x))) => {
                let (_, hi) = raw_range(p.data_type);
                let v = (x + i128::from(by)).min(hi as i128);
                decode::encode(p, &self.map.limits, &Raw::Int(v)).ok()
            }
            _ => Some(words),
        }
    }

    /// Puts torn counters into an answer of `function` registers at canonical addresses
    /// `addrs`.
    fn tear(&self, regs: &HashMap<(Function, u16), u16>, function: Function, addrs: &[u16], out: &mut [u16]) {
        let Ok(mut guard) = self.torn.lock() else { return };
        let Some(torn) = guard.as_mut() else { return };
        torn.advanced = torn.advanced.saturating_add(torn.step);
        let mut tore = false;
        for (i, p) in self.map.points.iter().enumerate() {
            if !crate::counters::is_multiword_counter(p) {
                continue;
            }
            let Some(now) = self.counter_words(regs, i, torn.advanced) else {
                continue;
            };
            let before = torn.last.insert(i, now.clone());
            let start = self.placed[i].start;
            let served = match before {
                Some(old)
                    if p.function == function
                        && crate::counters::upper(&old, &self.map.limits)
                            != crate::counters::upper(&now, &self.map.limits) =>
                {
                    // Which register is least significant depends on the word order.
                    let low = match self.map.limits.word_order {
                        pv_shared::regmap::Order::Big => now.len() - 1,
                        pv_shared::regmap::Order::Little => 0,
                    };
                    let old_upper = torn.served % 2 == 0;
                    (0..now.len())
                        .map(|k| if (k == low) == old_upper { now[k] } else { old[k] })
                        .collect()
                }
                _ => now.clone(),
            };
            if p.function != function {
                continue;
            }
            let mut shown = false;
            for (k, a) in addrs.iter().enumerate() {
                if let Some(j) = a.checked_sub(start)
                    && usize::from(j) < served.len()
                {
                    out[k] = served[usize::from(j)];
                    shown = true;
                }
            }
            tore |= shown && served != now;
        }
        if tore {
            torn.served += 1;
        }
    }

    /// Realistic mode: the device reports the first fault of its map's table and stops producing.
    pub fn set_fault(&self, fault: bool) {
        if let Some(ph) = &self.physics
            && let Ok(mut ph) = ph.lock()
        {
            ph.plant.options.fault = fault;
        }
    }

    /// What happens to the next request: answered, left unanswered, or refused.
    fn next_request(&self) -> Fate {
        let n = self.requests.fetch_add(1, Ordering::Relaxed);
        // Deterministic per device and request number, so a test sees the same pattern.
        let roll = hash(&n.to_string(), self.seed) % 1_000_000;
        let timeouts = self.timeouts.load(Ordering::Relaxed);
        if roll < timeouts {
            Fate::Silent
        } else if roll < timeouts + self.exceptions.load(Ordering::Relaxed) {
            Fate::Refused
        } else {
            Fate::Answer
        }
    }

    /// Canonical value every point must decode to.
    pub fn expected(&self) -> &BTreeMap<String, Value> {
        &self.expected
    }

    /// A dead device never answers (as a powered-off device on RS-485).
    pub fn set_dead(&self, dead: bool) {
        self.dead.store(dead, Ordering::Relaxed);
    }

    /// Serves these Read Device Identification objects (0 vendor, 1 product code, 2 revision,
    /// 3.. regular ones); empty turns the function off ("illegal function").
    pub fn set_identification(&self, objects: Vec<(u8, String)>) {
        if let Ok(mut ids) = self.identification.lock() {
            *ids = objects;
        }
    }

    fn identify(&self, code: ReadCode, from: u8) -> Result<ReadDeviceIdentificationResponse, ExceptionCode> {
        let ids = self
            .identification
            .lock()
            .map_err(|_| ExceptionCode::ServerDeviceFailure)?;
        ident::answer(&ids, code, from)
    }

    /// Current value of a register (for tests of writes).
    pub fn register(&self, function: Function, address: u16) -> Option<u16> {
        self.registers.lock().ok()?.get(&(function, address)).copied()
    }

    /// Sets a register, as the device itself would (tests of commands).
    pub fn set_register(&self, function: Function, address: u16, value: u16) {
        if let Ok(mut regs) = self.registers.lock() {
            regs.insert((function, address), value);
        }
    }

    fn read(&self, function: Function, start: u16, count: u16) -> Result<Vec<u16>, ExceptionCode> {
        if self.physics.is_some() {
            self.refresh_at(now_ms());
        }
        let regs = self
            .registers
            .lock()
            .map_err(|_| ExceptionCode::ServerDeviceFailure)?;
        if count == 0 || count > 125 {
            return Err(ExceptionCode::IllegalDataValue);
        }
        let moved = self.moved();
        // A read touching any register the device does not have is refused, like real devices
        // with sparse maps do; the planner must not bridge gaps such maps do not allow.
        let addrs: Vec<u16> = (0..count)
            .map(|k| {
                let a = start.checked_add(k).ok_or(ExceptionCode::IllegalDataAddress)?;
                let a = match &moved {
                    Some(m) => m
                        .translate(function, a)
                        .ok_or(ExceptionCode::IllegalDataAddress)?,
                    None => a,
                };
                if regs.contains_key(&(function, a)) {
                    Ok(a)
                } else {
                    Err(ExceptionCode::IllegalDataAddress)
                }
            })
            .collect::<Result<_, _>>()?;
        let mut out: Vec<u16> = addrs
            .iter()
            .map(|a| regs.get(&(function, *a)).copied().unwrap_or(0))
            .collect();
        self.tear(&regs, function, &addrs, &mut out);
        Ok(out)
    }

    fn write(&self, start: u16, values: &[u16]) -> Result<(), ExceptionCode> {
        let moved = self.moved();
        let mut regs = self
            .registers
            .lock()
            .map_err(|_| ExceptionCode::ServerDeviceFailure)?;
        let mut at = Vec::with_capacity(values.len());
        for k in 0..values.len() {
            let a = start
                .checked_add(k as u16)
                .ok_or(ExceptionCode::IllegalDataAddress)?;
            let a = match &moved {
                Some(m) => m
                    .translate(Function::Holding, a)
                    .ok_or(ExceptionCode::IllegalDataAddress)?,
                None => a,
            };
            if !regs.contains_key(&(Function::Holding, a)) {
                return Err(ExceptionCode::IllegalDataAddress);
            }
            at.push(a);
        }
        for (a, v) in at.iter().zip(values) {
            regs.insert((Function::Holding, *a), *v);
        }
        drop(regs);
        if let Some(ph) = &self.physics
            && let Ok(mut ph) = ph.lock()
        {
            // The register of a written multi-word point is marked by its start; single-word
            // set-points (the usual case) are exact.
            ph.written.extend(at);
        }
        Ok(())
    }
}

enum Fate {
    Answer,
    Silent,
    Refused,
}

#[cfg(test)]
mod tests;
