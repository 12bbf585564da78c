//! Fault tables: a device's `fault_code` / `fault_word{n}` / `warning_code` values read through
//! the `[[fault]]` table of its register map (`firmware-configs/*.toml`), so a new device model
//! brings its fault names with its map and no code changes.
//!
//! A code point (`fault_code`, `warning_code`) holds one code: the entry whose code equals the
//! value is present; a non-zero value no entry names is reported as "unknown fault code N" (the
//! maps carry only the subset of a manual's table we could check, see their `source`). A bit
//! point (`fault_word{n}`) holds a bitfield: every entry whose bit is set is present, and a set
//! bit no entry names is reported as an unknown bit. A device without a map (or a map without
//! a table) still gets the generic conditions, so a fault is never silently dropped.

use std::collections::{BTreeMap, HashMap};

use pv_shared::regmap::{FaultEntry, FaultMatch, RegisterMap, Severity};
use pv_shared::wire::Value;

use super::codes;
use super::condition::Condition;

/// The fault tables of every register map, by map id.
#[derive(Debug, Default)]
pub struct FaultIndex {
    maps: HashMap<String, Vec<FaultEntry>>,
}

/// Alarm level of a table severity (dictionary `alarm_level`).
pub fn level_of(severity: Severity) -> i64 {
    match severity {
        Severity::Critical => codes::LEVEL_CRITICAL,
        Severity::Major => codes::LEVEL_MAJOR,
        Severity::Minor => codes::LEVEL_MINOR,
        Severity::Warning | Severity::Info => codes::LEVEL_NOTICE,
    }
}

/// How a point is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PointKind {
    Code,
    Bits,
}

/// Which metrics are fault points, and how they are read when the table says nothing.
fn point_kind(metric: &str) -> Option<PointKind> {
    if metric == "fault_code" || metric == "warning_code" {
        return Some(PointKind::Code);
    }
    let n = metric.strip_prefix("fault_word")?;
    (!n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())).then_some(PointKind::Bits)
}

impl FaultIndex {
    pub fn new(maps: &[RegisterMap]) -> FaultIndex {
        FaultIndex {
            maps: maps.iter().map(|m| (m.id.clone(), m.faults.clone())).collect(),
        }
    }

    /// Builds the index from the register map files the hub loads (built in, or
    /// `station.device_maps_dir`); a file that does not parse was refused at start already.
    pub fn load(config: &crate::config::Config) -> FaultIndex {
        let files = crate::station::services::StationServices::map_files(config).unwrap_or_default();
        let maps: Vec<RegisterMap> = files
            .iter()
            .filter_map(|(name, data)| {
                RegisterMap::parse(std::path::Path::new(name), &String::from_utf8_lossy(data)).ok()
            })
            .collect();
        FaultIndex::new(&maps)
    }

    /// The fault conditions present in a sample of a device using `map` (none: generic only).
    pub fn conditions(&self, map: Option<&str>, values: &BTreeMap<String, Value>, out: &mut Vec<Condition>) {
        let table: &[FaultEntry] = map
            .and_then(|m| self.maps.get(m))
            .map(Vec::as_slice)
            .unwrap_or(&[]);
        for (metric, value) in values {
            let Some(default_kind) = point_kind(metric) else {
                continue;
            };
            let Value::Number(n) = value else { continue };
            // Codes are whole non-negative numbers; anything else is not a code we can name.
            if !n.is_finite() || *n <= 0.0 {
                continue;
            }
            let raw = *n as u64;
            let entries = table.iter().filter(|e| e.point == *metric);
            // The table decides how the point is read; without entries, its name does.
            let mut kind = default_kind;
            let mut matched_bits: u64 = 0;
            let mut matched_code = false;
            for e in entries {
                match e.matches {
                    FaultMatch::Code(c) => {
                        kind = PointKind::Code;
                        if raw == u64::from(c) {
                            matched_code = true;
                            out.push(entry_condition(metric, &format!("{c}"), e, raw));
                        }
                    }
                    FaultMatch::Bit(b) => {
                        kind = PointKind::Bits;
                        if b < 64 && raw >> b & 1 == 1 {
                            matched_bits |= 1 << b;
                            out.push(entry_condition(metric, &format!("bit{b}"), e, raw));
                        }
                    }
                }
            }
            match kind {
                PointKind::Code if !matched_code => out.push(unknown_code(metric, raw)),
                PointKind::Bits => {
                    let mut rest = raw & !matched_bits;
                    while rest != 0 {
                        let b = rest.trailing_zeros();
                        rest &= rest - 1;
                        out.push(unknown_bit(metric, b, raw));
                    }
                }
                PointKind::Code => {}
            }
        }
    }
}

fn base(metric: &str, key: &str, level: i64) -> Condition {
    Condition::fault(format!("fault:{metric}:{key}"), "fault", level)
}

fn entry_condition(metric: &str, key: &str, e: &FaultEntry, raw: u64) -> Condition {
    let mut c = base(metric, key, level_of(e.severity));
    c.code = match (e.id, e.matches) {
        (Some(id), _) => id.to_string(),
        (None, FaultMatch::Code(code)) => code.to_string(),
        (None, FaultMatch::Bit(b)) => format!("{metric}.{b}"),
    };
    c.name = e.zh.clone();
    c.name_en = e.en.clone();
    c.detail = format!("{metric} = {raw}");
    c.detail_en = c.detail.clone();
    c.value = Some(raw as f64);
    c
}

fn unknown_code(metric: &str, raw: u64) -> Condition {
    let warning = metric == "warning_code";
    let level = if warning {
        codes::LEVEL_NOTICE
    } else {
        codes::LEVEL_MAJOR
    };
    let mut c = base(metric, &raw.to_string(), level);
    c.code = raw.to_string();
    (c.name, c.name_en) = if warning {
        (format!("未知告警码 {raw}"), format!("Unknown warning code {raw}"))
    } else {
        (format!("未知故障码 {raw}"), format!("Unknown fault code {raw}"))
    };
    c.detail = format!("{metric} = {raw}（故障表中无此代码）");
    c.detail_en = format!("{metric} = {raw} (not in the model's fault table)");
    c.value = Some(raw as f64);
    c
}

fn unknown_bit(metric: &str, bit: u32, raw: u64) -> Condition {
    let mut c = base(metric, &format!("bit{bit}"), codes::LEVEL_MAJOR);
    c.code = format!("{metric}.{bit}");
    c.name = format!("未知故障位 {metric}.{bit}");
    c.name_en = format!("Unknown fault bit {metric}.{bit}");
    c.detail = format!("{metric} = {raw}（故障表中无此位）");
    c.detail_en = format!("{metric} = {raw} (bit not in the model's fault table)");
    c.value = Some(raw as f64);
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(point: &str, m: FaultMatch, id: Option<u32>, en: &str, severity: Severity) -> FaultEntry {
        FaultEntry {
            point: point.into(),
            matches: m,
            id,
            zh: format!("中{en}"),
            en: en.into(),
            severity,
        }
    }

    fn index() -> FaultIndex {
        let mut maps = HashMap::new();
        maps.insert(
            "m".to_owned(),
            vec![
                entry(
                    "fault_code",
                    FaultMatch::Code(2),
                    None,
                    "Grid overvoltage",
                    Severity::Major,
                ),
                entry(
                    "fault_code",
                    FaultMatch::Code(39),
                    None,
                    "Low insulation",
                    Severity::Critical,
                ),
                entry(
                    "fault_word1",
                    FaultMatch::Bit(0),
                    Some(2001),
                    "High string voltage",
                    Severity::Major,
                ),
                entry(
                    "fault_word1",
                    FaultMatch::Bit(3),
                    Some(2012),
                    "Backfeed",
                    Severity::Warning,
                ),
            ],
        );
        FaultIndex { maps }
    }

    fn values(pairs: &[(&str, f64)]) -> BTreeMap<String, Value> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), Value::Number(*v)))
            .collect()
    }

    fn run(map: Option<&str>, pairs: &[(&str, f64)]) -> Vec<Condition> {
        let mut out = vec![];
        index().conditions(map, &values(pairs), &mut out);
        out
    }

    #[test]
    fn a_code_in_the_table_is_named_with_its_level() {
        let c = run(Some("m"), &[("fault_code", 2.0), ("ac_power", 5.0)]);
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].kind, "fault:fault_code:2");
        assert_eq!(
            (c[0].name.as_str(), c[0].name_en.as_str()),
            ("中Grid overvoltage", "Grid overvoltage")
        );
        assert_eq!((c[0].level, c[0].r#type, c[0].code.as_str()), (3, 1, "2"));
        assert_eq!(run(Some("m"), &[("fault_code", 39.0)])[0].level, 4);
    }

    #[test]
    fn zero_means_no_fault_and_unknown_codes_are_reported_by_number() {
        assert!(run(Some("m"), &[("fault_code", 0.0), ("fault_word1", 0.0)]).is_empty());
        let c = run(Some("m"), &[("fault_code", 77.0)]);
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].kind, "fault:fault_code:77");
        assert_eq!(c[0].name_en, "Unknown fault code 77");
        // No map at all: still reported.
        assert_eq!(
            run(None, &[("fault_code", 5.0)])[0].name_en,
            "Unknown fault code 5"
        );
        assert_eq!(run(Some("other"), &[("warning_code", 5.0)])[0].level, 1);
    }

    #[test]
    fn bits_are_matched_one_by_one_and_unmapped_bits_are_unknown() {
        // bits 0, 3 and 5 set.
        let c = run(Some("m"), &[("fault_word1", 41.0)]);
        let kinds: Vec<&str> = c.iter().map(|c| c.kind.as_str()).collect();
        assert_eq!(
            kinds,
            [
                "fault:fault_word1:bit0",
                "fault:fault_word1:bit3",
                "fault:fault_word1:bit5"
            ]
        );
        assert_eq!((c[0].code.as_str(), c[0].level), ("2001", 3));
        assert_eq!((c[1].code.as_str(), c[1].level), ("2012", 1));
        assert_eq!(c[2].name_en, "Unknown fault bit fault_word1.5");
        // A fault word without table entries is read as bits by its name.
        let c = run(None, &[("fault_word2", 6.0)]);
        assert_eq!(c.len(), 2);
        assert_eq!(c[1].kind, "fault:fault_word2:bit2");
    }

    #[test]
    fn the_shipped_maps_name_their_faults() {
        let index = FaultIndex::load(&crate::config::Config::default());
        let mut out = vec![];
        index.conditions(Some("sungrow-sg-cx"), &values(&[("fault_code", 2.0)]), &mut out);
        assert_eq!(
            (out[0].name.as_str(), out[0].name_en.as_str()),
            ("电网过压", "Grid overvoltage")
        );
        let mut out = vec![];
        index.conditions(
            Some("huawei-sun2000-ktl"),
            &values(&[("fault_word2", 8.0)]),
            &mut out,
        );
        assert_eq!((out[0].code.as_str(), out[0].level), ("2063", 2));
    }
}
