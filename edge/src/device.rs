//! A device on a bus: where its map's points are on this particular device (SunSpec models are
//! found at run time), which block reads fetch them, and how a poll's words become values.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::Duration;

use pv_shared::decode;
use pv_shared::regmap::{Function, Location, RegisterMap};
use pv_shared::wire::Value;

use crate::plan::{self, Block, Span};

/// A device as configured on a bus.
#[derive(Debug, Clone)]
pub struct DeviceSpec {
    /// The device's id in the station (appears in every sample).
    pub id: String,
    /// Modbus unit (slave) id.
    pub unit: u8,
    pub map: Arc<RegisterMap>,
    pub interval: Duration,
}

/// SunSpec models found on a device: model id → (address of its ID register, its length).
pub type SunSpecChain = HashMap<u16, (u16, u16)>;

/// The `SunS` marker ("Su" "nS").
pub const SUNS: [u16; 2] = [0x5375, 0x6E53];
/// Where SunSpec devices put the marker, in the order we probe them.
pub const SUNS_BASES: [u16; 3] = [40000, 0, 50000];

#[derive(Debug, Clone)]
struct Entry {
    point: usize,
    function: Function,
    address: u16,
    sf_address: Option<u16>,
}

/// The map resolved to absolute addresses on one device, and the reads that fetch it.
#[derive(Debug, Clone)]
pub struct Layout {
    entries: Vec<Entry>,
    pub blocks: Vec<Block>,
}

fn resolve(location: Location, chain: &SunSpecChain, map: &RegisterMap, words: u16) -> Option<u16> {
    match location {
        Location::Absolute(a) => Some(a),
        Location::SunSpec { model, offset } => {
            // The device may carry an accepted sibling model (e.g. 201 for 203).
            let def = map.sunspec.iter().find(|m| m.id == model)?;
            let (base, length) = std::iter::once(&def.id)
                .chain(def.accept.iter())
                .find_map(|id| chain.get(id))?;
            // A point beyond the model's length on this device is not implemented there.
            if u32::from(offset) + u32::from(words) > u32::from(*length) + 2 {
                return None;
            }
            base.checked_add(offset)
        }
    }
}

impl Layout {
    /// Resolves `map` against the SunSpec chain found on the device (empty for plain maps).
    pub fn new(map: &RegisterMap, chain: &SunSpecChain) -> Layout {
        let mut entries = Vec::new();
        let mut spans = Vec::new();
        for (i, p) in map.points.iter().enumerate() {
            let Some(address) = resolve(p.location, chain, map, p.words) else {
                continue;
            };
            let sf_address = match p.scale_factor {
                Some(sf) => match resolve(sf, chain, map, 1) {
                    Some(a) => Some(a),
                    // Without its scale factor a value cannot be interpreted.
                    None => continue,
                },
                None => None,
            };
            spans.push(Span {
                function: p.function,
                start: address,
                words: p.words,
            });
            if let Some(a) = sf_address {
                spans.push(Span {
                    function: p.function,
                    start: a,
                    words: 1,
                });
            }
            entries.push(Entry {
                point: i,
                function: p.function,
                address,
                sf_address,
            });
        }
        let blocks = plan::plan(&spans, map.limits.max_block, map.limits.max_gap);
        Layout { entries, blocks }
    }

    /// Number of points this device will report.
    pub fn points(&self) -> usize {
        self.entries.len()
    }

    /// Decodes what the reads returned (`None` for a block the device refused). Returns the
    /// values and the number of points that could not be decoded.
    pub fn decode(&self, map: &RegisterMap, reads: &[Option<Vec<u16>>]) -> (BTreeMap<String, Value>, usize) {
        let mut words: HashMap<(Function, u16), u16> = HashMap::new();
        for (block, data) in self.blocks.iter().zip(reads) {
            if let Some(data) = data {
                for (k, w) in data.iter().enumerate() {
                    words.insert((block.function, block.start.wrapping_add(k as u16)), *w);
                }
            }
        }
        let mut values = BTreeMap::new();
        let mut errors = 0;
        for e in &self.entries {
            let point = &map.points[e.point];
            let regs: Option<Vec<u16>> = (0..point.words)
                .map(|k| words.get(&(e.function, e.address.wrapping_add(k))).copied())
                .collect();
            let Some(regs) = regs else { continue };
            let sf = match e.sf_address {
                Some(a) => match words.get(&(e.function, a)) {
                    Some(w) => Some(*w),
                    None => continue,
                },
                None => None,
            };
            match decode::decode(point, &map.limits, &regs, sf) {
                Ok(Some(v)) => {
                    values.insert(point.metric.clone(), v);
                }
                Ok(None) => {}
                Err(err) => {
                    errors += 1;
                    tracing::debug!(map = %map.id, %err, "point not decoded");
                }
            }
        }
        (values, errors)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn map(name: &str) -> RegisterMap {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../firmware-configs")
            .join(name);
        RegisterMap::load(&path).unwrap()
    }

    #[test]
    fn huawei_reads_coalesce_into_few_blocks() {
        let m = map("huawei-sun2000-ktl.toml");
        let l = Layout::new(&m, &SunSpecChain::new());
        assert_eq!(l.points(), m.points.len());
        // 30000-30024 strings, 32008-32010 alarms, 32016-32031 strings, 32064-32091, 32106, 32114.
        let starts: Vec<u16> = l.blocks.iter().map(|b| b.start).collect();
        assert_eq!(
            starts,
            vec![30000, 32008, 32016, 32064, 32106, 32114],
            "{:?}",
            l.blocks
        );
    }

    #[test]
    fn sunspec_points_follow_the_chain_found_on_the_device() {
        let m = map("sunspec-inverter.toml");
        let mut chain = SunSpecChain::new();
        chain.insert(1, (40002, 66));
        // A device carrying model 101 (accepted for 103) and a 160 with only 2 modules.
        chain.insert(101, (40070, 50));
        chain.insert(160, (40122, 8 + 2 * 20));
        let l = Layout::new(&m, &chain);
        let with = |metric: &str| m.points.iter().position(|p| p.metric == metric).unwrap();
        let e = l.entries.iter().find(|e| e.point == with("ac_power")).unwrap();
        assert_eq!((e.address, e.sf_address), (40070 + 14, Some(40070 + 15)));
        assert!(l.entries.iter().any(|e| e.point == with("mppt2_current")));
        assert!(
            !l.entries.iter().any(|e| e.point == with("mppt3_current")),
            "beyond this device's 160"
        );
    }
}
