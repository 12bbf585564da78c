//! Which unit ids of a bus carry a device, who each one is, and which maps fit it.

use std::ops::RangeInclusive;
use std::sync::Arc;
use std::time::Instant;

use pv_shared::commission::{Identity, ScanReport, UnitFound};
use pv_shared::regmap::{Function, RegisterMap};

use super::identify;
use super::{Refusal, Registers};

/// Asks every unit id of `units` for one holding register at `register`. A unit is listed when
/// it answers with words or with an exception of its own ("illegal address" for a register it
/// lacks is still a device); no answer, and a gateway's 0x0A/0x0B for an id it cannot reach,
/// mean nobody is there. Each unit found is then identified and matched against `maps`.
pub async fn scan(
    bus: &mut impl Registers,
    units: RangeInclusive<u8>,
    register: u16,
    maps: &[Arc<RegisterMap>],
) -> ScanReport {
    let started = Instant::now();
    let (from, to) = (*units.start(), *units.end());
    let mut found = Vec::new();
    let (mut silent, mut gateway_absent) = (0, 0);
    for unit in units {
        let detail = match bus.read_words(unit, Function::Holding, register, 1).await {
            Ok(_) => "answers".to_string(),
            Err(Refusal::Exception(code @ (0x0A | 0x0B))) => {
                tracing::debug!(unit, code, "gateway reports the unit absent");
                gateway_absent += 1;
                continue;
            }
            Err(refusal @ Refusal::Exception(_)) => {
                format!("answers with {refusal} at register {register}")
            }
            Err(Refusal::Failed(_)) => {
                silent += 1;
                continue;
            }
        };
        found.push(identify_unit(bus, unit, detail, maps).await);
    }
    ScanReport {
        bus: bus.describe(),
        from,
        to,
        units: found,
        elapsed_ms: started.elapsed().as_millis() as u64,
        silent,
        gateway_absent,
    }
}

/// Tries, in order, the SunSpec chain and common model, Modbus device identification, and the
/// identity registers of every vendor map; suggests the maps that fit.
async fn identify_unit(
    bus: &mut impl Registers,
    unit: u8,
    detail: String,
    maps: &[Arc<RegisterMap>],
) -> UnitFound {
    let mut found = UnitFound {
        unit,
        identity: None,
        suggested_maps: Vec::new(),
        detail,
        sunspec_models: Vec::new(),
    };
    let mut sunspec_maps = Vec::new();
    match identify::sunspec_chain(bus, unit).await {
        Ok(Some(chain)) => {
            let ids: Vec<String> = chain.ids().iter().map(u16::to_string).collect();
            found.detail = format!("SunSpec at {}, models {}", chain.base, ids.join(", "));
            found.sunspec_models = chain.ids();
            found.identity = identify::sunspec_identity(bus, unit, &chain).await;
            let maker = found.identity.as_ref().and_then(|i| i.manufacturer.as_deref());
            sunspec_maps = identify::sunspec_suggestions(&chain, maker, maps);
        }
        Ok(None) => {}
        Err(e) => {
            found.detail = format!("{}; stopped answering while identified: {e}", found.detail);
            return found;
        }
    }
    if found.identity.is_none() {
        found.identity = identify::device_identification(bus, unit).await;
    }
    // Vendor maps whose identity registers hold a name on this unit.
    let mut by_registers = Vec::new();
    if found.sunspec_models.is_empty() {
        for map in maps
            .iter()
            .filter(|m| m.sunspec.is_empty() && identify::has_identity_points(m))
        {
            let Some(id) = identify::map_identity(bus, unit, map).await else {
                continue;
            };
            // A name the map's patterns reject says this is another device that happens to
            // have text at the same address.
            if let Some(model) = &id.model
                && !map.match_model.is_empty()
                && !map.matches_model(id.manufacturer.as_deref(), model)
            {
                continue;
            }
            by_registers.push(map.id.clone());
            if found.identity.is_none() {
                found.identity = Some(id);
            }
        }
    }
    let by_name = found
        .identity
        .as_ref()
        .map(|id| matching(id, maps))
        .unwrap_or_default();
    for id in by_name.into_iter().chain(sunspec_maps).chain(by_registers) {
        if !found.suggested_maps.contains(&id) {
            found.suggested_maps.push(id);
        }
    }
    found
}

/// Maps whose `match_model` patterns accept the unit's reported model.
fn matching(id: &Identity, maps: &[Arc<RegisterMap>]) -> Vec<String> {
    let Some(model) = &id.model else { return Vec::new() };
    maps.iter()
        .filter(|m| m.matches_model(id.manufacturer.as_deref(), model))
        .map(|m| m.id.clone())
        .collect()
}
