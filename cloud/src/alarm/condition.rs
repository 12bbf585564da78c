//! What an evaluator reports about one sample: the alarm conditions present in it. The engine
//! turns conditions into alarms (debounce, hold, raise, re-trigger, clear); evaluators (fault
//! tables, thresholds, bracket rules) only say what they see.

use crate::alarm::codes;

/// One condition present in a sample of a device.
#[derive(Debug, Clone, PartialEq)]
pub struct Condition {
    /// Unique within the device; its prefix says which evaluator owns it (see `sample_kind`).
    pub kind: String,
    /// `fault`, `threshold` or `flex` (`comm`, `dispersion`, `hday` are raised elsewhere).
    pub category: &'static str,
    /// `codes::TYPE_FAULT` or `codes::TYPE_WARNING`.
    pub r#type: i64,
    /// Dictionary `alarm_level` (1 notice .. 4 critical).
    pub level: i64,
    pub code: String,
    pub name: String,
    pub name_en: String,
    pub detail: String,
    pub detail_en: String,
    pub value: Option<f64>,
    pub threshold: Option<f64>,
    /// The condition must hold this long (in sample time) before it is raised; 0 = at once.
    pub hold_ms: i64,
}

/// Prefixes of the kinds that are decided sample by sample: for these, a sample that lacks the
/// condition is evidence that it ended. Other kinds (communication loss, analytics warnings) are
/// raised and cleared by their own producers and a sample says nothing about them.
pub const SAMPLE_KIND_PREFIXES: [&str; 3] = ["fault:", "threshold:", "flex:"];

pub fn sample_kind(kind: &str) -> bool {
    SAMPLE_KIND_PREFIXES.iter().any(|p| kind.starts_with(p))
}

impl Condition {
    /// A fault-type condition with the usual defaults.
    pub fn fault(kind: String, category: &'static str, level: i64) -> Condition {
        Condition {
            kind,
            category,
            r#type: codes::TYPE_FAULT,
            level,
            code: String::new(),
            name: String::new(),
            name_en: String::new(),
            detail: String::new(),
            detail_en: String::new(),
            value: None,
            threshold: None,
            hold_ms: 0,
        }
    }
}
