//! Reading one unit with a chosen map, and saying whether the map fits it.

use std::sync::Arc;
use std::time::Duration;

use pv_shared::commission::{Identity, ProbeReport};
use pv_shared::regmap::{RegisterMap, SunSpecModel};
use pv_shared::wire::Value;

use super::Registers;
use super::identify;
use crate::device::{DeviceSpec, Layout, SunSpecChain};

/// What the checks before the poll found.
struct Fit {
    fits: bool,
    missing: Vec<String>,
    warnings: Vec<String>,
    identity: Option<Identity>,
}

/// Polls `unit` once with `map` and reports the decoded values, what the map expects that the
/// unit lacks, and whether the map fits at all: for a SunSpec map at least one of its main
/// models must be on the unit; for a vendor map at least one of its blocks must be answered and
/// the unit's reported model, when the map has patterns for it, must match them. An error means
/// the unit did not answer.
pub async fn probe(bus: &mut impl Registers, unit: u8, map: Arc<RegisterMap>) -> Result<ProbeReport, String> {
    let mut fit = if map.sunspec.is_empty() {
        check_blocks(bus, unit, &map).await?
    } else {
        check_models(bus, unit, &map).await?
    };
    let spec = DeviceSpec {
        id: format!("unit-{unit}"),
        unit,
        map: map.clone(),
        interval: Duration::from_secs(1),
    };
    let values = bus.poll_device(&spec).await?;
    if fit.fits && values.is_empty() {
        fit.fits = false;
        fit.warnings
            .push("no point of the map decoded to a value".to_string());
    }
    let status = match values.get("status_code") {
        Some(Value::Number(code)) => map
            .status_of(*code as u32)
            .map(|s| format!("{} / {}", s.en, s.zh)),
        _ => None,
    };
    Ok(ProbeReport {
        unit,
        map: map.id.clone(),
        fits: fit.fits,
        values,
        missing: fit.missing,
        status,
        warnings: fit.warnings,
        identity: fit.identity,
    })
}

/// "model 103 (or 101, 102)".
fn label(m: &SunSpecModel) -> String {
    let others: Vec<String> = m.accept.iter().map(u16::to_string).collect();
    match others.is_empty() {
        true => format!("model {}", m.id),
        false => format!("model {} (or {})", m.id, others.join(", ")),
    }
}

async fn check_models(bus: &mut impl Registers, unit: u8, map: &RegisterMap) -> Result<Fit, String> {
    let Some(chain) = identify::sunspec_chain(bus, unit).await? else {
        return Ok(Fit {
            fits: false,
            missing: map.sunspec.iter().map(label).collect(),
            warnings: vec!["no SunSpec marker \"SunS\" at 40000, 0 or 50000: not a SunSpec device".into()],
            identity: None,
        });
    };
    let ids = chain.ids();
    let present = |m: &SunSpecModel| ids.iter().any(|id| m.is(*id));
    let missing: Vec<String> = map.sunspec.iter().filter(|m| !present(m)).map(label).collect();
    let mains: Vec<&SunSpecModel> = map.sunspec.iter().filter(|m| m.is_main()).collect();
    let fits = mains.is_empty() || mains.iter().any(|m| present(m));
    let carried: Vec<String> = ids.iter().map(u16::to_string).collect();
    let mut warnings = Vec::new();
    if !fits {
        let wanted: Vec<String> = mains.iter().map(|m| label(m)).collect();
        warnings.push(format!(
            "none of the map's main models ({}) is on the device, which carries models {}",
            wanted.join("; "),
            carried.join(", ")
        ));
    } else if !missing.is_empty() {
        warnings.push(format!(
            "the device lacks {}: those points are not read (it carries models {})",
            missing.join("; "),
            carried.join(", ")
        ));
    }
    Ok(Fit {
        fits,
        missing,
        warnings,
        identity: identify::sunspec_identity(bus, unit, &chain).await,
    })
}

async fn check_blocks(bus: &mut impl Registers, unit: u8, map: &RegisterMap) -> Result<Fit, String> {
    let layout = Layout::new(map, &SunSpecChain::new());
    let mut missing = Vec::new();
    let mut answered = 0;
    for b in &layout.blocks {
        match bus.read_words(unit, b.function, b.start, b.count).await {
            Ok(_) => answered += 1,
            Err(r) if r.is_absent() => return Err(r.to_string()),
            Err(r) => missing.push(format!(
                "function {} registers {}-{} ({r})",
                b.function.code(),
                b.start,
                u32::from(b.start) + u32::from(b.count) - 1
            )),
        }
    }
    let mut fits = answered > 0;
    let mut warnings = Vec::new();
    if !fits {
        warnings.push("the unit refused every block of the map".to_string());
    } else if !missing.is_empty() {
        warnings.push(format!(
            "the unit refused {} of {} blocks: their points are not read",
            missing.len(),
            layout.blocks.len()
        ));
    }
    let mut identity = identify::map_identity(bus, unit, map).await;
    // Only a map that says what its devices call themselves can tell a stranger.
    if identity.as_ref().and_then(|i| i.model.as_ref()).is_none() && !map.match_model.is_empty() {
        identity = identify::device_identification(bus, unit).await.or(identity);
    }
    if let Some(id) = &identity
        && let Some(model) = &id.model
        && !map.match_model.is_empty()
        && !map.matches_model(id.manufacturer.as_deref(), model)
    {
        fits = false;
        warnings.push(format!(
            "identity mismatch: the unit reports model {model:?} ({}), the map is for {}",
            id.via,
            map.match_model.join(", ")
        ));
    }
    Ok(Fit {
        fits,
        missing,
        warnings,
        identity,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commission::Refusal;

    #[test]
    fn a_model_with_siblings_names_them() {
        let m = SunSpecModel {
            id: 103,
            length: 50,
            accept: vec![101, 102],
            extension: false,
        };
        assert_eq!(label(&m), "model 103 (or 101, 102)");
    }

    #[test]
    fn refusals_read_as_their_exception() {
        assert_eq!(
            Refusal::Exception(0x0B).to_string(),
            "exception 0x0B (gateway target device failed to respond)"
        );
        assert!(Refusal::Exception(0x0A).is_absent());
        assert!(!Refusal::Exception(0x02).is_absent());
    }
}
