//! Who a unit is: its SunSpec model chain and common model, Modbus device identification
//! (function 0x2B / MEI 0x0E), or the identity registers of a vendor map; and which maps fit.

use std::sync::Arc;

use pv_shared::commission::Identity;
use pv_shared::decode;
use pv_shared::regmap::{DataType, Function, Location, RegisterMap};
use pv_shared::wire::Value;

use super::{Refusal, Registers};
use crate::device::{SUNS, SUNS_BASES};

/// A SunSpec model chain as found on a unit.
#[derive(Debug, Clone, PartialEq)]
pub struct Chain {
    /// Where the `SunS` marker is.
    pub base: u16,
    /// (model id, address of its ID register, length), in chain order.
    pub models: Vec<(u16, u16, u16)>,
}

impl Chain {
    pub fn ids(&self) -> Vec<u16> {
        self.models.iter().map(|m| m.0).collect()
    }

    fn find(&self, id: u16) -> Option<(u16, u16)> {
        self.models.iter().find(|m| m.0 == id).map(|m| (m.1, m.2))
    }
}

/// Walks the SunSpec chain of `unit`: `Ok(None)` when no base carries the marker, an error when
/// the unit stops answering.
pub async fn sunspec_chain(bus: &mut impl Registers, unit: u8) -> Result<Option<Chain>, String> {
    let mut base = None;
    for at in SUNS_BASES {
        match bus.read_words(unit, Function::Holding, at, 2).await {
            Ok(w) if w == SUNS => {
                base = Some(at);
                break;
            }
            Err(r) if r.is_absent() => return Err(r.to_string()),
            Ok(_) | Err(Refusal::Exception(_)) => continue,
            Err(Refusal::Failed(e)) => return Err(e),
        }
    }
    let Some(base) = base else { return Ok(None) };
    let mut models = Vec::new();
    let mut at = u32::from(base) + 2;
    // A chain longer than this is garbage, not a device.
    for _ in 0..64 {
        let Ok(addr) = u16::try_from(at) else { break };
        let header = match bus.read_words(unit, Function::Holding, addr, 2).await {
            Ok(w) => w,
            Err(r) if r.is_absent() => return Err(r.to_string()),
            // Devices without an end marker answer an exception past their last model.
            Err(Refusal::Exception(_)) => break,
            Err(Refusal::Failed(e)) => return Err(e),
        };
        let (id, length) = (header[0], header[1]);
        if id == 0xFFFF || id == 0 {
            break;
        }
        models.push((id, addr, length));
        at += 2 + u32::from(length);
    }
    Ok(Some(Chain { base, models }))
}

/// Text of big-endian register words, NULs and blanks trimmed; `None` when empty or not
/// printable (a register that is not text).
fn text(words: &[u16]) -> Option<String> {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_be_bytes()).collect();
    let end = bytes.iter().position(|b| *b == 0).unwrap_or(bytes.len());
    let s = std::str::from_utf8(&bytes[..end]).ok()?.trim();
    (!s.is_empty() && s.chars().all(|c| !c.is_control())).then(|| s.to_string())
}

/// Mn, Md, Vr and SN of the common model (offsets 2, 18, 42, 50 from its ID register).
pub async fn sunspec_identity(bus: &mut impl Registers, unit: u8, chain: &Chain) -> Option<Identity> {
    let (addr, length) = chain.find(1)?;
    let count = length.min(64);
    let words = bus
        .read_words(unit, Function::Holding, addr.checked_add(2)?, count)
        .await
        .ok()?;
    // Offsets below are from the ID register; `words` starts at offset 2.
    let field = |offset: usize, len: usize| words.get(offset - 2..offset - 2 + len).and_then(text);
    let id = Identity {
        manufacturer: field(2, 16),
        model: field(18, 16),
        firmware: field(42, 8),
        serial: field(50, 16),
        via: "sunspec".into(),
    };
    (id.manufacturer.is_some() || id.model.is_some() || id.serial.is_some()).then_some(id)
}

/// Basic device identification objects (0 vendor, 1 product code, 2 revision), plus model name
/// (7) when the unit gives regular ones.
pub async fn device_identification(bus: &mut impl Registers, unit: u8) -> Option<Identity> {
    let objects = bus.read_device_id(unit).await.ok()?;
    let get = |id: u8| {
        objects
            .iter()
            .find(|(o, _)| *o == id)
            .map(|(_, v)| v.trim().to_string())
            .filter(|v| !v.is_empty())
    };
    let id = Identity {
        manufacturer: get(0),
        model: get(7).or_else(|| get(1)),
        firmware: get(2),
        serial: None,
        via: "device_id".into(),
    };
    (id.manufacturer.is_some() || id.model.is_some()).then_some(id)
}

/// The map's text identity points (`model_name`, `serial_number`, `firmware_version` at absolute
/// addresses) as the unit serves them; `None` when the map has none or the unit refuses them.
pub async fn map_identity(bus: &mut impl Registers, unit: u8, map: &RegisterMap) -> Option<Identity> {
    let mut id = Identity {
        via: format!("map:{}", map.id),
        ..Identity::default()
    };
    let mut any = false;
    for p in &map.points {
        let slot = match p.metric.as_str() {
            "model_name" => &mut id.model,
            "serial_number" => &mut id.serial,
            "firmware_version" => &mut id.firmware,
            _ => continue,
        };
        let Location::Absolute(at) = p.location else {
            continue;
        };
        if p.data_type != DataType::String {
            continue;
        }
        let Ok(words) = bus.read_words(unit, p.function, at, p.words).await else {
            continue;
        };
        // The map's own decoder, so byte order and padding follow the map.
        if let Ok(Some(Value::Text(t))) = decode::decode(p, &map.limits, &words, None)
            && text_like(&t)
        {
            *slot = Some(t);
            any = true;
        }
    }
    any.then_some(id)
}

/// Printable text a person could call a name (not a run of junk from numeric registers).
fn text_like(t: &str) -> bool {
    let t = t.trim();
    t.len() >= 2 && t.chars().all(|c| c.is_ascii_graphic() || c == ' ')
}

/// Whether a map reads identity from registers of its own.
pub fn has_identity_points(map: &RegisterMap) -> bool {
    map.points.iter().any(|p| {
        p.metric == "model_name"
            && p.data_type == DataType::String
            && matches!(p.location, Location::Absolute(_))
    })
}

/// SunSpec maps that fit a chain: every map with at least one of its main models on the unit,
/// best first: the maps of the unit's own manufacturer (its vendor quirks — meter sign, error
/// codes — are what a generic SunSpec map lacks), then the generic SunSpec maps (another vendor's
/// quirks would be wrong here), then more main models present, then more of its models present.
pub fn sunspec_suggestions(
    chain: &Chain,
    manufacturer: Option<&str>,
    maps: &[Arc<RegisterMap>],
) -> Vec<String> {
    let ids = chain.ids();
    let mut scored: Vec<(bool, bool, usize, usize, String)> = maps
        .iter()
        .filter(|m| !m.sunspec.is_empty())
        .filter_map(|m| {
            let has = |main: bool| {
                m.sunspec
                    .iter()
                    .filter(|s| !main || s.is_main())
                    .filter(|s| ids.iter().any(|id| s.is(*id)))
                    .count()
            };
            let main = has(true);
            let own = manufacturer.is_some_and(|mn| same_maker(&m.manufacturer, mn));
            let generic = same_maker(&m.manufacturer, "SunSpec");
            (main > 0).then(|| (own, generic, main, has(false), m.id.clone()))
        })
        .collect();
    scored.sort_by(|a, b| {
        (b.0, b.1, b.2, b.3)
            .cmp(&(a.0, a.1, a.2, a.3))
            .then(a.4.cmp(&b.4))
    });
    scored.into_iter().map(|s| s.4).collect()
}

/// Whether a device's reported manufacturer ("Rainwise_Inc", "SolarEdge ") is the maker a map
/// names ("RainWise (Nielsen-Kellerman)", "SolarEdge"): the map's first word, letters and digits
/// only, starts the device's name.
fn same_maker(map_manufacturer: &str, reported: &str) -> bool {
    let squash = |t: &str| -> String {
        t.chars()
            .filter(char::is_ascii_alphanumeric)
            .map(|c| c.to_ascii_lowercase())
            .collect()
    };
    let first = map_manufacturer
        .split(|c: char| !c.is_ascii_alphanumeric())
        .find(|w| !w.is_empty())
        .map(squash)
        .unwrap_or_default();
    first.len() >= 3 && squash(reported).starts_with(&first)
}

#[cfg(test)]
mod tests {
    use super::{same_maker, text};

    #[test]
    fn a_reported_manufacturer_matches_its_maker_map_only() {
        assert!(same_maker("RainWise (Nielsen-Kellerman)", "Rainwise_Inc"));
        assert!(same_maker("SolarEdge", "SolarEdge "));
        assert!(same_maker("Fronius", "Fronius"));
        assert!(!same_maker("SunSpec (any compliant vendor)", "SolarEdge"));
        assert!(!same_maker("Fronius", "SolarEdge"));
        assert!(!same_maker("", "anything"));
    }

    #[test]
    fn register_text_is_trimmed_and_junk_is_not_text() {
        assert_eq!(text(&[0x5355, 0x4E32, 0x3030, 0x3000, 0]), Some("SUN2000".into()));
        assert_eq!(text(&[0x2020, 0]), None);
        assert_eq!(text(&[0x0102, 0x0304]), None);
    }
}
