//! Which unit ids of a bus answer.

use std::ops::RangeInclusive;
use std::sync::Arc;
use std::time::Instant;

use pv_shared::commission::{ScanReport, UnitFound};
use pv_shared::regmap::{Function, RegisterMap};

use super::{Refusal, Registers};

/// Asks every unit id of `units` for one holding register at `register`; a unit that answers
/// (with words or an exception) is listed.
pub async fn scan(
    bus: &mut impl Registers,
    units: RangeInclusive<u8>,
    register: u16,
    _maps: &[Arc<RegisterMap>],
) -> ScanReport {
    let started = Instant::now();
    let (from, to) = (*units.start(), *units.end());
    let mut found = Vec::new();
    for unit in units {
        let detail = match bus.read_words(unit, Function::Holding, register, 1).await {
            Ok(_) => "answers".to_string(),
            Err(Refusal::Exception(code)) => format!("answers with exception {code}"),
            Err(Refusal::Failed(_)) => continue,
        };
        found.push(UnitFound {
            unit,
            identity: None,
            suggested_maps: Vec::new(),
            detail,
        });
    }
    ScanReport {
        bus: bus.describe(),
        from,
        to,
        units: found,
        elapsed_ms: started.elapsed().as_millis() as u64,
    }
}
