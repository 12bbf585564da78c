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

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use toml::Spanned;

use crate::metrics::{self, Dimension, Unit};

/// A map that cannot be used, with where the mistake is.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{}:{line}: {field}: {message}", file.display())]
pub struct MapError {
    pub file: PathBuf,
    /// 1-based line of the offending value (0 when the file could not be read).
    pub line: usize,
    /// The key (or table) at fault, e.g. `point[3].unit`.
    pub field: String,
    pub message: String,
}

/// Modbus read function.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Function {
    /// 03, read holding registers.
    Holding,
    /// 04, read input registers.
    Input,
}

impl Function {
    pub fn code(self) -> u8 {
        match self {
            Function::Holding => 3,
            Function::Input => 4,
        }
    }
}

/// Order of the 16-bit words of a multi-register value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// Most significant first (Modbus' usual "big endian").
    Big,
    /// Least significant first ("word swapped").
    Little,
}

/// Which raw values mean "not implemented" and decode to nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sentinels {
    /// Every raw value is a reading (most vendor maps; NaN floats are still absent).
    None,
    /// SunSpec: 0xFFFF (uint16), 0x8000 (int16, scale factors), 0xFFFFFFFF (uint32),
    /// 0x80000000 (int32), 0 (acc32/acc64), 0xFFFF... (uint64), NaN (float32).
    SunSpec,
}

/// Register data types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DataType {
    U16,
    I16,
    U32,
    I32,
    U64,
    F32,
    /// SunSpec accumulator: unsigned counter where 0 means "not implemented".
    Acc32,
    Acc64,
    /// ASCII/UTF-8 text, two bytes per register, NUL-padded; `words` registers long.
    String,
}

impl DataType {
    fn parse(s: &str) -> Option<DataType> {
        Some(match s {
            "u16" => DataType::U16,
            "i16" => DataType::I16,
            "u32" => DataType::U32,
            "i32" => DataType::I32,
            "u64" => DataType::U64,
            "f32" => DataType::F32,
            "acc32" => DataType::Acc32,
            "acc64" => DataType::Acc64,
            "string" => DataType::String,
            _ => return None,
        })
    }

    /// Registers taken by a value of this type (strings say their own length).
    pub fn fixed_words(self) -> Option<u16> {
        match self {
            DataType::U16 | DataType::I16 => Some(1),
            DataType::U32 | DataType::I32 | DataType::F32 | DataType::Acc32 => Some(2),
            DataType::U64 | DataType::Acc64 => Some(4),
            DataType::String => None,
        }
    }
}

/// Where a register is: an absolute address, or an offset inside a SunSpec model whose base
/// address is only known after discovery on the device.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Location {
    Absolute(u16),
    /// Offset from the model's ID register (ID = 0, L = 1, first point = 2), as in the SunSpec
    /// model tables.
    SunSpec {
        model: u16,
        offset: u16,
    },
}

/// One decoded point of a map.
#[derive(Debug, Clone, PartialEq)]
pub struct Point {
    pub metric: String,
    /// The unit the register carries after `scale` (e.g. kW); decoded values are converted to
    /// the metric's canonical unit.
    pub unit: Unit,
    pub location: Location,
    pub function: Function,
    pub data_type: DataType,
    pub words: u16,
    /// Fixed multiplier from raw to `unit` (e.g. 0.1 for "gain 10").
    pub scale: f64,
    /// SunSpec scale-factor register (int16 power of ten), if the point has one.
    pub scale_factor: Option<Location>,
    /// The gateway may write this point on the cloud's command (a set-point such as a tracker's
    /// target angle). Only numeric holding registers at absolute addresses without a SunSpec
    /// scale factor qualify: the value written must not depend on what is read first.
    pub writable: bool,
    /// Line of the point in its file, for messages about it at run time.
    pub line: usize,
}

impl Point {
    /// Multiplier from raw value to canonical unit, before any SunSpec scale factor.
    pub fn factor(&self) -> f64 {
        self.scale * self.unit.to_canonical
    }
}

/// Severity of a fault; the cloud's alarm levels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Critical,
    Major,
    Minor,
    Warning,
    Info,
}

/// A named code of the status table.
#[derive(Debug, Clone, PartialEq)]
pub struct StatusEntry {
    pub code: u32,
    pub zh: String,
    pub en: String,
    /// Coarse state for the console: running, standby, starting, derating, fault, shutdown, offline.
    pub state: Option<String>,
}

/// How a fault is recognised in its point.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FaultMatch {
    /// The point's value equals this code.
    Code(u32),
    /// This bit (0 = least significant) of the point's value is set.
    Bit(u8),
}

#[derive(Debug, Clone, PartialEq)]
pub struct FaultEntry {
    /// The metric (a `fault_code`, `fault_word{n}` or `warning_code` point) this entry reads.
    pub point: String,
    pub matches: FaultMatch,
    /// Code shown to people (the manual's alarm ID); defaults to the code or bit.
    pub id: Option<u32>,
    pub zh: String,
    pub en: String,
    pub severity: Severity,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Limits {
    pub max_block: u16,
    pub function: Function,
    pub word_order: Order,
    pub byte_order: Order,
    /// Unmapped registers a coalesced read may span (0: only contiguous points are merged;
    /// some devices answer an exception when a read touches an undefined register).
    pub max_gap: u16,
    pub sentinels: Sentinels,
}

/// A SunSpec model the device is expected to carry (as laid out by the simulator; the poller
/// discovers the real chain on the device).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SunSpecModel {
    pub id: u16,
    pub length: u16,
    /// Other model ids with the same layout that the device may carry instead (e.g. meters
    /// 201, 202 and 204 share the layout of 203).
    pub accept: Vec<u16>,
}

/// Device kinds the platform knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DeviceKind {
    Inverter,
    Meter,
    Weather,
    Tracker,
}

/// A checked register map.
#[derive(Debug, Clone, PartialEq)]
pub struct RegisterMap {
    /// File the map came from.
    pub file: PathBuf,
    /// Stable identifier (the file stem), used by gateway configs.
    pub id: String,
    pub manufacturer: String,
    pub model: String,
    pub kind: DeviceKind,
    pub source: String,
    pub limits: Limits,
    /// Empty unless the points address SunSpec models.
    pub sunspec: Vec<SunSpecModel>,
    pub points: Vec<Point>,
    pub status: Vec<StatusEntry>,
    pub faults: Vec<FaultEntry>,
}

// ---------------------------------------------------------------- raw form, as written in files

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMap {
    device: Spanned<RawDevice>,
    limits: Option<Spanned<RawLimits>>,
    sunspec: Option<Spanned<RawSunSpec>>,
    #[serde(default)]
    point: Vec<Spanned<RawPoint>>,
    #[serde(default)]
    status: Vec<Spanned<RawStatus>>,
    #[serde(default)]
    fault: Vec<Spanned<RawFault>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDevice {
    manufacturer: Spanned<String>,
    model: Spanned<String>,
    kind: Spanned<String>,
    source: Spanned<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLimits {
    max_block: Option<Spanned<i64>>,
    function: Option<Spanned<i64>>,
    word_order: Option<Spanned<String>>,
    byte_order: Option<Spanned<String>>,
    max_gap: Option<Spanned<i64>>,
    sentinels: Option<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSunSpec {
    models: Vec<Spanned<RawModel>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawModel {
    id: i64,
    length: i64,
    #[serde(default)]
    accept: Vec<i64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPoint {
    metric: Spanned<String>,
    unit: Spanned<String>,
    #[serde(rename = "type")]
    data_type: Spanned<String>,
    address: Option<Spanned<i64>>,
    model: Option<Spanned<i64>>,
    offset: Option<Spanned<i64>>,
    words: Option<Spanned<i64>>,
    scale: Option<Spanned<f64>>,
    /// Scale-factor register: an offset in the same SunSpec model, or an absolute address.
    sf: Option<Spanned<i64>>,
    function: Option<Spanned<i64>>,
    /// Expand `{n}` in the metric into this many points, `stride` registers apart.
    repeat: Option<Spanned<i64>>,
    stride: Option<Spanned<i64>>,
    /// First `n` of a repeated point (default 1).
    first: Option<Spanned<i64>>,
    /// A set-point the gateway may write on command.
    writable: Option<Spanned<bool>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawStatus {
    code: Spanned<i64>,
    zh: String,
    en: String,
    state: Option<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFault {
    point: Option<Spanned<String>>,
    code: Option<Spanned<i64>>,
    bit: Option<Spanned<i64>>,
    id: Option<i64>,
    zh: String,
    en: String,
    severity: Spanned<String>,
}

// ---------------------------------------------------------------- loading

/// Line numbers from byte offsets of one file.
struct Lines<'a> {
    file: &'a Path,
    text: &'a str,
}

impl Lines<'_> {
    fn line(&self, offset: usize) -> usize {
        let end = offset.min(self.text.len());
        self.text.as_bytes()[..end]
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
            + 1
    }

    fn err<T>(
        &self,
        span: std::ops::Range<usize>,
        field: impl Into<String>,
        message: impl Into<String>,
    ) -> Result<T, MapError> {
        Err(MapError {
            file: self.file.to_path_buf(),
            line: self.line(span.start),
            field: field.into(),
            message: message.into(),
        })
    }
}

const STATES: &[&str] = &[
    "running", "standby", "starting", "derating", "fault", "shutdown", "offline",
];

impl RegisterMap {
    /// Reads and checks the map in `path`.
    pub fn load(path: &Path) -> Result<RegisterMap, MapError> {
        let text = std::fs::read_to_string(path).map_err(|e| MapError {
            file: path.to_path_buf(),
            line: 0,
            field: String::new(),
            message: format!("cannot read: {e}"),
        })?;
        RegisterMap::parse(path, &text)
    }

    /// Loads every `*.toml` map of a folder, sorted by file name.
    pub fn load_dir(dir: &Path) -> Result<Vec<RegisterMap>, MapError> {
        let entries = std::fs::read_dir(dir).map_err(|e| MapError {
            file: dir.to_path_buf(),
            line: 0,
            field: String::new(),
            message: format!("cannot list: {e}"),
        })?;
        let mut files: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "toml"))
            .collect();
        files.sort();
        files.iter().map(|f| RegisterMap::load(f)).collect()
    }

    /// Checks map text; `path` names it in errors and gives the map its id.
    pub fn parse(path: &Path, text: &str) -> Result<RegisterMap, MapError> {
        let lines = Lines { file: path, text };
        let raw: RawMap = toml::from_str(text).map_err(|e| MapError {
            file: path.to_path_buf(),
            line: e.span().map(|s| lines.line(s.start)).unwrap_or(0),
            field: String::new(),
            message: e.message().to_string(),
        })?;
        let id = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("")
            .to_string();

        let device = raw.device.get_ref();
        let kind = match device.kind.get_ref().as_str() {
            "inverter" => DeviceKind::Inverter,
            "meter" => DeviceKind::Meter,
            "weather" => DeviceKind::Weather,
            "tracker" => DeviceKind::Tracker,
            other => {
                return lines.err(
                    device.kind.span(),
                    "device.kind",
                    format!("unknown kind {other:?} (inverter, meter, weather, tracker)"),
                );
            }
        };
        for (field, value) in [
            ("device.manufacturer", &device.manufacturer),
            ("device.model", &device.model),
            ("device.source", &device.source),
        ] {
            if value.get_ref().trim().is_empty() {
                return lines.err(value.span(), field, "must not be empty");
            }
        }

        let limits = parse_limits(&lines, raw.limits.as_ref())?;

        let mut sunspec = Vec::new();
        if let Some(s) = &raw.sunspec {
            for (i, m) in s.get_ref().models.iter().enumerate() {
                let r = m.get_ref();
                let (Ok(id), Ok(length)) = (u16::try_from(r.id), u16::try_from(r.length)) else {
                    return lines.err(
                        m.span(),
                        format!("sunspec.models[{i}]"),
                        "id and length must be 0-65535",
                    );
                };
                if sunspec.iter().any(|x: &SunSpecModel| x.id == id) {
                    return lines.err(
                        m.span(),
                        format!("sunspec.models[{i}]"),
                        format!("model {id} listed twice"),
                    );
                }
                let mut accept = Vec::new();
                for a in &r.accept {
                    match u16::try_from(*a) {
                        Ok(a) => accept.push(a),
                        Err(_) => {
                            return lines.err(
                                m.span(),
                                format!("sunspec.models[{i}].accept"),
                                "ids must be 0-65535",
                            );
                        }
                    }
                }
                sunspec.push(SunSpecModel { id, length, accept });
            }
            if sunspec.is_empty() {
                return lines.err(s.span(), "sunspec.models", "lists no model");
            }
        }

        let mut points = Vec::new();
        for (i, p) in raw.point.iter().enumerate() {
            parse_point(&lines, i, p, &limits, &sunspec, &mut points)?;
        }
        if points.is_empty() {
            return lines.err(0..0, "point", "the map has no points");
        }
        check_overlaps(&lines, &points)?;

        let mut status = Vec::new();
        for (i, s) in raw.status.iter().enumerate() {
            let r = s.get_ref();
            let Ok(code) = u32::try_from(*r.code.get_ref()) else {
                return lines.err(r.code.span(), format!("status[{i}].code"), "must be 0-4294967295");
            };
            if status.iter().any(|e: &StatusEntry| e.code == code) {
                return lines.err(
                    r.code.span(),
                    format!("status[{i}].code"),
                    format!("code {code} listed twice"),
                );
            }
            if let Some(state) = &r.state
                && !STATES.contains(&state.get_ref().as_str())
            {
                return lines.err(
                    state.span(),
                    format!("status[{i}].state"),
                    format!(
                        "unknown state {:?} (one of {})",
                        state.get_ref(),
                        STATES.join(", ")
                    ),
                );
            }
            status.push(StatusEntry {
                code,
                zh: r.zh.clone(),
                en: r.en.clone(),
                state: r.state.as_ref().map(|s| s.get_ref().clone()),
            });
        }
        if !status.is_empty() && !points.iter().any(|p| p.metric == "status_code") {
            return lines.err(
                raw.status[0].span(),
                "status",
                "a status table needs a status_code point",
            );
        }

        let mut faults = Vec::new();
        for (i, f) in raw.fault.iter().enumerate() {
            faults.push(parse_fault(&lines, i, f, &points, &faults)?);
        }

        Ok(RegisterMap {
            file: path.to_path_buf(),
            id,
            manufacturer: device.manufacturer.get_ref().clone(),
            model: device.model.get_ref().clone(),
            kind,
            source: device.source.get_ref().clone(),
            limits,
            sunspec,
            points,
            status,
            faults,
        })
    }

    /// The status entry for a code, if the table names it.
    pub fn status_of(&self, code: u32) -> Option<&StatusEntry> {
        self.status.iter().find(|s| s.code == code)
    }

    /// Faults active for a decoded value of the fault point `metric`.
    pub fn faults_of(&self, metric: &str, value: u64) -> Vec<&FaultEntry> {
        self.faults
            .iter()
            .filter(|f| f.point == metric)
            .filter(|f| match f.matches {
                FaultMatch::Code(c) => value == u64::from(c),
                FaultMatch::Bit(b) => value >> b & 1 == 1,
            })
            .collect()
    }
}

fn parse_limits(lines: &Lines, raw: Option<&Spanned<RawLimits>>) -> Result<Limits, MapError> {
    let mut limits = Limits {
        max_block: 125,
        function: Function::Holding,
        word_order: Order::Big,
        byte_order: Order::Big,
        max_gap: 0,
        sentinels: Sentinels::None,
    };
    let Some(raw) = raw else { return Ok(limits) };
    let r = raw.get_ref();
    if let Some(v) = &r.max_block {
        match u16::try_from(*v.get_ref()) {
            Ok(n @ 1..=125) => limits.max_block = n,
            _ => return lines.err(v.span(), "limits.max_block", "must be 1-125 (the Modbus maximum)"),
        }
    }
    if let Some(v) = &r.function {
        limits.function = parse_function(lines, v, "limits.function")?;
    }
    if let Some(v) = &r.word_order {
        limits.word_order = parse_order(lines, v, "limits.word_order")?;
    }
    if let Some(v) = &r.byte_order {
        limits.byte_order = parse_order(lines, v, "limits.byte_order")?;
    }
    if let Some(v) = &r.max_gap {
        match u16::try_from(*v.get_ref()) {
            Ok(n) if n < 125 => limits.max_gap = n,
            _ => return lines.err(v.span(), "limits.max_gap", "must be 0-124"),
        }
    }
    if let Some(v) = &r.sentinels {
        limits.sentinels = match v.get_ref().as_str() {
            "none" => Sentinels::None,
            "sunspec" => Sentinels::SunSpec,
            other => {
                return lines.err(
                    v.span(),
                    "limits.sentinels",
                    format!("unknown {other:?} (none, sunspec)"),
                );
            }
        };
    }
    Ok(limits)
}

fn parse_function(lines: &Lines, v: &Spanned<i64>, field: &str) -> Result<Function, MapError> {
    match v.get_ref() {
        3 => Ok(Function::Holding),
        4 => Ok(Function::Input),
        other => lines.err(
            v.span(),
            field,
            format!("function code {other} cannot read registers (3 or 4)"),
        ),
    }
}

fn parse_order(lines: &Lines, v: &Spanned<String>, field: &str) -> Result<Order, MapError> {
    match v.get_ref().as_str() {
        "big" => Ok(Order::Big),
        "little" => Ok(Order::Little),
        other => lines.err(v.span(), field, format!("unknown order {other:?} (big, little)")),
    }
}

fn int_in<T: TryFrom<i64>>(lines: &Lines, v: &Spanned<i64>, field: &str, what: &str) -> Result<T, MapError> {
    T::try_from(*v.get_ref()).or_else(|_| lines.err(v.span(), field, format!("must be {what}")))
}

fn parse_point(
    lines: &Lines,
    i: usize,
    p: &Spanned<RawPoint>,
    limits: &Limits,
    sunspec: &[SunSpecModel],
    out: &mut Vec<Point>,
) -> Result<(), MapError> {
    let r = p.get_ref();
    let f = |name: &str| format!("point[{i}].{name}");
    let line = lines.line(p.span().start);

    let data_type = match DataType::parse(r.data_type.get_ref()) {
        Some(t) => t,
        None => {
            return lines.err(
                r.data_type.span(),
                f("type"),
                format!(
                    "unknown type {:?} (u16, i16, u32, i32, u64, f32, acc32, acc64, string)",
                    r.data_type.get_ref()
                ),
            );
        }
    };
    let words = match (data_type.fixed_words(), &r.words) {
        (Some(n), None) => n,
        (Some(_), Some(w)) => return lines.err(w.span(), f("words"), "only strings take a length"),
        (None, Some(w)) => match u16::try_from(*w.get_ref()) {
            Ok(n @ 1..=125) => n,
            _ => return lines.err(w.span(), f("words"), "must be 1-125"),
        },
        (None, None) => return lines.err(r.data_type.span(), f("words"), "a string needs `words`"),
    };
    if words > limits.max_block {
        return lines.err(
            p.span(),
            f("words"),
            "longer than limits.max_block: it could never be read",
        );
    }

    let unit = match Unit::parse(r.unit.get_ref()) {
        Some(u) => u,
        None => {
            let known: Vec<_> = metrics::UNITS.iter().map(|u| u.symbol).collect();
            return lines.err(
                r.unit.span(),
                f("unit"),
                format!(
                    "unknown unit {:?} (one of {})",
                    r.unit.get_ref(),
                    known.join(", ")
                ),
            );
        }
    };
    if (data_type == DataType::String) != (unit.dimension == Dimension::Text) {
        return lines.err(
            r.unit.span(),
            f("unit"),
            "text metrics and string registers go together",
        );
    }

    let scale = match &r.scale {
        Some(s) if !s.get_ref().is_finite() || *s.get_ref() == 0.0 => {
            return lines.err(s.span(), f("scale"), "must be a finite, non-zero number");
        }
        Some(s) => *s.get_ref(),
        None => 1.0,
    };
    let function = match &r.function {
        Some(v) => parse_function(lines, v, &f("function"))?,
        None => limits.function,
    };

    // Where it is: an absolute address or a SunSpec model + offset.
    let (base, model) = match (&r.address, &r.model, &r.offset) {
        (Some(a), None, None) => {
            if !sunspec.is_empty() {
                return lines.err(
                    a.span(),
                    f("address"),
                    "points of a SunSpec map use model + offset",
                );
            }
            (int_in::<u16>(lines, a, &f("address"), "0-65535")?, None)
        }
        (None, Some(m), Some(o)) => {
            let model: u16 = int_in(lines, m, &f("model"), "0-65535")?;
            let Some(def) = sunspec.iter().find(|x| x.id == model) else {
                return lines.err(
                    m.span(),
                    f("model"),
                    format!("model {model} is not listed in [sunspec] models"),
                );
            };
            let offset: u16 = int_in(lines, o, &f("offset"), "0-65535")?;
            if offset < 2 {
                return lines.err(
                    o.span(),
                    f("offset"),
                    "offsets 0 and 1 are the model's ID and length",
                );
            }
            (offset, Some(def.clone()))
        }
        _ => {
            return lines.err(
                p.span(),
                f("address"),
                "give either `address`, or `model` and `offset`",
            );
        }
    };

    let scale_factor = match &r.sf {
        None => None,
        Some(s) => {
            if !matches!(
                data_type,
                DataType::U16
                    | DataType::I16
                    | DataType::U32
                    | DataType::I32
                    | DataType::Acc32
                    | DataType::Acc64
                    | DataType::U64
            ) {
                return lines.err(s.span(), f("sf"), "scale factors apply to integer points");
            }
            let at: u16 = int_in(lines, s, &f("sf"), "0-65535")?;
            Some(match &model {
                Some(m) => {
                    if at < 2 || at >= m.length + 2 {
                        return lines.err(
                            s.span(),
                            f("sf"),
                            format!("offset {at} is outside model {} (length {})", m.id, m.length),
                        );
                    }
                    Location::SunSpec {
                        model: m.id,
                        offset: at,
                    }
                }
                None => Location::Absolute(at),
            })
        }
    };

    let writable = match &r.writable {
        Some(w) if *w.get_ref() => {
            if function != Function::Holding
                || model.is_some()
                || scale_factor.is_some()
                || data_type == DataType::String
            {
                return lines.err(
                    w.span(),
                    f("writable"),
                    "only numeric holding registers at an absolute address without `sf` can be written",
                );
            }
            true
        }
        _ => false,
    };

    let (count, stride, first) = match (&r.repeat, &r.stride) {
        (None, None) => (1u16, 0u16, 1u16),
        (Some(n), Some(s)) => {
            let count: u16 = int_in(lines, n, &f("repeat"), "1-999")?;
            let stride: u16 = int_in(lines, s, &f("stride"), "0-65535")?;
            if count == 0 || count > 999 {
                return lines.err(n.span(), f("repeat"), "must be 1-999");
            }
            if stride < words {
                return lines.err(
                    s.span(),
                    f("stride"),
                    "smaller than the point: repeats would overlap",
                );
            }
            let first = match &r.first {
                Some(v) => int_in(lines, v, &f("first"), "1-999")?,
                None => 1,
            };
            (count, stride, first)
        }
        (Some(n), None) => return lines.err(n.span(), f("stride"), "`repeat` needs `stride`"),
        (None, Some(s)) => return lines.err(s.span(), f("repeat"), "`stride` needs `repeat`"),
    };
    let templated = r.metric.get_ref().contains("{n}");
    if templated != r.repeat.is_some() {
        return lines.err(
            r.metric.span(),
            f("metric"),
            "`{n}` in a metric name and `repeat` go together",
        );
    }

    for k in 0..count {
        let metric = r.metric.get_ref().replace("{n}", &(first + k).to_string());
        let Some(def) = metrics::lookup(&metric) else {
            return lines.err(
                r.metric.span(),
                f("metric"),
                format!("unknown metric {metric:?} (see shared::metrics)"),
            );
        };
        if def.def.dimension != unit.dimension {
            return lines.err(
                r.unit.span(),
                f("unit"),
                format!(
                    "{:?} is not a unit of {metric} (canonical unit {})",
                    unit.symbol,
                    def.unit()
                ),
            );
        }
        let Some(start) = k.checked_mul(stride).and_then(|d| base.checked_add(d)) else {
            return lines.err(p.span(), f("repeat"), "runs past register 65535");
        };
        if u32::from(start) + u32::from(words) > 65536 {
            return lines.err(p.span(), f("address"), "runs past register 65535");
        }
        let location = match &model {
            Some(m) => {
                if start + words > m.length + 2 {
                    return lines.err(
                        p.span(),
                        f("offset"),
                        format!("{metric} ends past model {} (length {})", m.id, m.length),
                    );
                }
                Location::SunSpec {
                    model: m.id,
                    offset: start,
                }
            }
            None => Location::Absolute(start),
        };
        if out.iter().any(|q: &Point| q.metric == metric) {
            return lines.err(r.metric.span(), f("metric"), format!("{metric} is mapped twice"));
        }
        out.push(Point {
            metric,
            unit,
            location,
            function,
            data_type,
            words,
            scale,
            scale_factor,
            writable,
            line,
        });
    }
    Ok(())
}

/// Refuses maps whose points (or scale-factor registers) share registers: such a map decodes
/// one register as two things, which is always a transcription mistake.
/// Registers `start..end` of a point (or scale factor) and the line that mapped it.
type Extent = (u32, u32, String, usize);

fn check_overlaps(lines: &Lines, points: &[Point]) -> Result<(), MapError> {
    // (function, model or none) -> sorted (start, end, what, line)
    let mut spaces: BTreeMap<(Function, Option<u16>), Vec<Extent>> = BTreeMap::new();
    let key = |l: &Location| match l {
        Location::Absolute(a) => (None, u32::from(*a)),
        Location::SunSpec { model, offset } => (Some(*model), u32::from(*offset)),
    };
    let mut sfs = std::collections::BTreeSet::new();
    for p in points {
        let (model, start) = key(&p.location);
        spaces.entry((p.function, model)).or_default().push((
            start,
            start + u32::from(p.words),
            p.metric.clone(),
            p.line,
        ));
        if let Some(sf) = p.scale_factor {
            sfs.insert((p.function, sf));
        }
    }
    for (function, sf) in sfs {
        let (model, start) = key(&sf);
        spaces
            .entry((function, model))
            .or_default()
            .push((start, start + 1, "scale factor".into(), 0));
    }
    for v in spaces.values_mut() {
        v.sort();
        for w in v.windows(2) {
            let (a, b) = (&w[0], &w[1]);
            if b.0 < a.1 {
                return Err(MapError {
                    file: lines.file.to_path_buf(),
                    line: a.3.max(b.3),
                    field: "address".into(),
                    message: format!(
                        "{} (registers {}..{}) overlaps {} (registers {}..{})",
                        b.2,
                        b.0,
                        b.1 - 1,
                        a.2,
                        a.0,
                        a.1 - 1
                    ),
                });
            }
        }
    }
    Ok(())
}

fn parse_fault(
    lines: &Lines,
    i: usize,
    f: &Spanned<RawFault>,
    points: &[Point],
    seen: &[FaultEntry],
) -> Result<FaultEntry, MapError> {
    let r = f.get_ref();
    let field = |name: &str| format!("fault[{i}].{name}");
    let point = r
        .point
        .as_ref()
        .map(|p| p.get_ref().clone())
        .unwrap_or_else(|| "fault_code".into());
    let Some(target) = points.iter().find(|p| p.metric == point) else {
        let span = r.point.as_ref().map(|p| p.span()).unwrap_or(f.span());
        return lines.err(span, field("point"), format!("the map has no {point} point"));
    };
    if target.unit.dimension != Dimension::Code {
        return lines.err(f.span(), field("point"), format!("{point} is not a code point"));
    }
    let matches = match (&r.code, &r.bit) {
        (Some(c), None) => FaultMatch::Code(int_in(lines, c, &field("code"), "0-4294967295")?),
        (None, Some(b)) => {
            let bit: u8 = int_in(lines, b, &field("bit"), "0-63")?;
            if u16::from(bit) >= target.words * 16 {
                return lines.err(
                    b.span(),
                    field("bit"),
                    format!("{point} has only {} bits", target.words * 16),
                );
            }
            FaultMatch::Bit(bit)
        }
        _ => return lines.err(f.span(), field("code"), "give either `code` or `bit`"),
    };
    if seen.iter().any(|e| e.point == point && e.matches == matches) {
        return lines.err(f.span(), field("code"), "listed twice");
    }
    let severity = match r.severity.get_ref().as_str() {
        "critical" => Severity::Critical,
        "major" => Severity::Major,
        "minor" => Severity::Minor,
        "warning" => Severity::Warning,
        "info" => Severity::Info,
        other => {
            return lines.err(
                r.severity.span(),
                field("severity"),
                format!("unknown severity {other:?} (critical, major, minor, warning, info)"),
            );
        }
    };
    let id = match r.id {
        Some(v) => {
            Some(u32::try_from(v).or_else(|_| lines.err(f.span(), field("id"), "must be 0-4294967295"))?)
        }
        None => None,
    };
    Ok(FaultEntry {
        point,
        matches,
        id,
        zh: r.zh.clone(),
        en: r.en.clone(),
        severity,
    })
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::Absolute(a) => write!(f, "{a}"),
            Location::SunSpec { model, offset } => write!(f, "model {model} + {offset}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"
[device]
manufacturer = "Acme"
model = "X1"
kind = "inverter"
source = "test"

[limits]
max_block = 10
function = 4
word_order = "little"

[[point]]
metric = "ac_power"
unit = "kW"
address = 100
type = "i32"
scale = 0.001

[[point]]
metric = "pv{n}_voltage"
unit = "V"
address = 110
type = "u16"
scale = 0.1
repeat = 8
stride = 2

[[point]]
metric = "status_code"
unit = "code"
address = 130
type = "u16"
function = 3

[[point]]
metric = "fault_word1"
unit = "code"
address = 131
type = "u16"
function = 3

[[status]]
code = 512
zh = "并网"
en = "On-grid"
state = "running"

[[fault]]
point = "fault_word1"
bit = 3
id = 2012
zh = "组串电流反灌"
en = "String current backfeed"
severity = "warning"
"#;

    fn parse(text: &str) -> Result<RegisterMap, MapError> {
        RegisterMap::parse(Path::new("maps/acme-x1.toml"), text)
    }

    #[test]
    fn a_good_map_loads_with_repeats_expanded_and_defaults_applied() {
        let m = parse(GOOD).unwrap();
        assert_eq!(m.id, "acme-x1");
        assert_eq!(m.limits.function, Function::Input);
        assert_eq!(m.limits.word_order, Order::Little);
        assert_eq!(m.limits.byte_order, Order::Big);
        assert_eq!(m.points.len(), 1 + 8 + 2);
        let pv8 = m.points.iter().find(|p| p.metric == "pv8_voltage").unwrap();
        assert_eq!(pv8.location, Location::Absolute(124));
        assert_eq!(pv8.function, Function::Input);
        assert_eq!(
            m.points
                .iter()
                .find(|p| p.metric == "status_code")
                .unwrap()
                .function,
            Function::Holding
        );
        let ac = &m.points[0];
        assert_eq!(ac.factor(), 1.0, "0.001 kW per count is 1 W per count");
        assert_eq!(m.status_of(512).unwrap().en, "On-grid");
        assert_eq!(m.faults_of("fault_word1", 0b1000)[0].id, Some(2012));
        assert!(m.faults_of("fault_word1", 0b0100).is_empty());
    }

    /// Replaces `from` in the good map and expects an error on `line` naming `field`.
    fn refused(from: &str, to: &str, line: usize, field: &str, says: &str) {
        assert!(GOOD.contains(from), "{from}");
        let err = parse(&GOOD.replacen(from, to, 1)).unwrap_err();
        assert_eq!(err.file, Path::new("maps/acme-x1.toml"));
        assert_eq!((err.line, err.field.as_str()), (line, field), "{err}");
        assert!(err.message.contains(says), "{err}");
    }

    #[test]
    fn only_plain_holding_registers_can_be_writable() {
        let m = parse(&GOOD.replacen(
            "type = \"u16\"\nfunction = 3",
            "type = \"u16\"\nfunction = 3\nwritable = true",
            1,
        ))
        .unwrap();
        let writable: Vec<_> = m
            .points
            .iter()
            .filter(|p| p.writable)
            .map(|p| &p.metric)
            .collect();
        assert_eq!(writable, ["status_code"]);
        // ac_power is an input register (function 4 from the limits).
        refused(
            "scale = 0.001\n",
            "scale = 0.001\nwritable = true\n",
            19,
            "point[0].writable",
            "only numeric holding registers",
        );
    }

    #[test]
    fn mistakes_are_refused_with_file_line_and_field() {
        refused(
            "type = \"i32\"",
            "type = \"i33\"",
            17,
            "point[0].type",
            "unknown type",
        );
        refused(
            "metric = \"ac_power\"",
            "metric = \"ac_powr\"",
            14,
            "point[0].metric",
            "unknown metric",
        );
        refused(
            "unit = \"kW\"",
            "unit = \"V\"",
            15,
            "point[0].unit",
            "not a unit of ac_power",
        );
        refused(
            "unit = \"kW\"",
            "unit = \"kw\"",
            15,
            "point[0].unit",
            "unknown unit",
        );
        refused("function = 4", "function = 6", 10, "limits.function", "3 or 4");
        refused(
            "max_block = 10",
            "max_block = 126",
            9,
            "limits.max_block",
            "1-125",
        );
        refused(
            "severity = \"warning\"",
            "severity = \"bad\"",
            55,
            "fault[0].severity",
            "unknown severity",
        );
        refused("bit = 3", "bit = 16", 51, "fault[0].bit", "only 16 bits");
        refused(
            "state = \"running\"",
            "state = \"happy\"",
            47,
            "status[0].state",
            "unknown state",
        );
        refused(
            "address = 110",
            "address = 101",
            20,
            "address",
            "pv1_voltage (registers 101..101) overlaps ac_power",
        );
    }

    #[test]
    fn overlapping_registers_are_refused_naming_both_points() {
        // Function codes 3 and 4 are different register spaces: no overlap there.
        parse(&GOOD.replacen("address = 130", "address = 101", 1)).unwrap();
        let text = GOOD
            .replacen("address = 130", "address = 101", 1)
            .replacen("function = 3\n", "", 1);
        let err = parse(&text).unwrap_err();
        assert!(
            err.message.contains("status_code") && err.message.contains("ac_power"),
            "{err}"
        );
        assert_eq!(err.line, 29, "{err}");
    }

    #[test]
    fn unknown_keys_and_syntax_errors_carry_the_line() {
        let err = parse(&GOOD.replacen("scale = 0.001", "scael = 0.001", 1)).unwrap_err();
        assert_eq!(err.line, 18, "{err}");
        assert!(err.message.contains("scael"), "{err}");
        let err = parse(&GOOD.replacen("address = 100", "address = ", 1)).unwrap_err();
        assert_eq!(err.line, 16, "{err}");
    }

    #[test]
    fn sunspec_points_must_stay_inside_their_model() {
        let text = r#"
[device]
manufacturer = "SunSpec"
model = "m"
kind = "inverter"
source = "s"
[limits]
sentinels = "sunspec"
[sunspec]
models = [{ id = 103, length = 50 }]
[[point]]
metric = "ac_power"
unit = "W"
model = 103
offset = 14
sf = 15
type = "i16"
"#;
        let m = parse(text).unwrap();
        assert_eq!(
            m.points[0].location,
            Location::SunSpec {
                model: 103,
                offset: 14
            }
        );
        assert_eq!(
            m.points[0].scale_factor,
            Some(Location::SunSpec {
                model: 103,
                offset: 15
            })
        );
        let err = parse(&text.replace("offset = 14", "offset = 52")).unwrap_err();
        assert!(err.message.contains("past model 103"), "{err}");
        let err = parse(&text.replace("sf = 15", "sf = 14")).unwrap_err();
        assert!(err.message.contains("overlaps"), "{err}");
        let err = parse(&text.replace("model = 103\n", "model = 160\n")).unwrap_err();
        assert_eq!(err.field, "point[0].model");
    }
}
