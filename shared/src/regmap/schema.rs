//! What a checked register map is: the types edge and cloud read, with no parsing in sight.
//!
//! Everything here has passed the checks in `parse`, `point`, `overlap` and `tables`, so users never
//! re-validate: an address is in range, a unit fits its metric, a fault names a code point.

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;

use serde::Deserialize;

use crate::metrics::Unit;

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
    /// The type named in a map's `type` key.
    pub(super) fn parse(s: &str) -> Option<DataType> {
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

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::Absolute(a) => write!(f, "{a}"),
            Location::SunSpec { model, offset } => write!(f, "model {model} + {offset}"),
        }
    }
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
    /// The map settings under which this point exists (setting name, value), sorted by name;
    /// empty for a point every variant has.
    pub when: Vec<(String, String)>,
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
    /// An optional extension (e.g. 160, multiple MPPT): probing reports it missing, but the map
    /// does not fit a device on an extension alone. The common model 1 never counts either.
    pub extension: bool,
}

impl SunSpecModel {
    /// Whether a device carrying `id` has this model (itself or an accepted sibling).
    pub fn is(&self, id: u16) -> bool {
        self.id == id || self.accept.contains(&id)
    }

    /// One of the models that tell what the device is (not model 1, not an extension).
    pub fn is_main(&self) -> bool {
        self.id != 1 && !self.extension
    }
}

/// A per-device choice a map offers where devices of one model differ in a way the registers
/// do not tell (wiring, firmware edition): the gateway config picks a value for each device.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Setting {
    pub name: String,
    pub values: Vec<String>,
    pub default: String,
    pub zh: String,
    pub en: String,
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
    /// Patterns (`*` any run, `?` one character, case-insensitive) for the model a unit reports
    /// (SunSpec common model, Modbus device identification, the map's own `model_name`): a scan
    /// suggests the map for a unit that matches, and a probe warns when the unit does not.
    pub match_model: Vec<String>,
    pub limits: Limits,
    /// Settings the map offers (see [`Setting`]); empty for most maps.
    pub settings: Vec<Setting>,
    /// The value of each setting this map is resolved for (the defaults, unless
    /// [`RegisterMap::with_settings`] chose others).
    pub chosen: BTreeMap<String, String>,
    /// Empty unless the points address SunSpec models.
    pub sunspec: Vec<SunSpecModel>,
    /// The points of the chosen variant: what a device configured so is polled for.
    pub points: Vec<Point>,
    /// Every point of every variant, as written.
    pub all_points: Vec<Point>,
    pub status: Vec<StatusEntry>,
    pub faults: Vec<FaultEntry>,
}

impl RegisterMap {
    /// Whether a unit reporting `model` (and perhaps `manufacturer`) is one this map is written
    /// for: a pattern may name the model alone or "manufacturer model".
    pub fn matches_model(&self, manufacturer: Option<&str>, model: &str) -> bool {
        let model = model.trim();
        let both = manufacturer.map(|m| format!("{} {model}", m.trim()));
        self.match_model
            .iter()
            .any(|p| glob(p, model) || both.as_deref().is_some_and(|b| glob(p, b)))
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

/// Case-insensitive match of `text` against `pattern` (`*` any run, `?` one character).
fn glob(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.to_lowercase().chars().collect();
    let t: Vec<char> = text.to_lowercase().chars().collect();
    // Iterative matcher with one backtrack point: linear enough for model names.
    let (mut i, mut j) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while j < t.len() {
        if i < p.len() && (p[i] == '?' || p[i] == t[j]) {
            i += 1;
            j += 1;
        } else if i < p.len() && p[i] == '*' {
            star = Some((i, j));
            i += 1;
        } else if let Some((si, sj)) = star {
            i = si + 1;
            j = sj + 1;
            star = Some((si, sj + 1));
        } else {
            return false;
        }
    }
    p[i..].iter().all(|c| *c == '*')
}

#[cfg(test)]
mod tests {
    use super::glob;

    #[test]
    fn model_patterns_match_like_an_installer_expects() {
        assert!(glob("SUN2000-*KTL*", "SUN2000-50KTL-M3"));
        assert!(glob("sun2000-*ktl*", "SUN2000-100KTL-M1"));
        assert!(glob("SUN2000-*KTL*", "SUN2000-5KTL-L1"));
        assert!(!glob("SUN2000-*KTL*", "SUN5000-50KTL"));
        assert!(glob("SDM630*", "SDM630"));
        assert!(glob("SDM63?", "SDM630"));
        assert!(!glob("SDM63?", "SDM6300"));
        assert!(!glob("SG*CX", "SG110CX-P2"));
        assert!(glob("*", ""));
    }
}
