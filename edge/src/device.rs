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

/// Registers a header read may span to reach its model's first point instead of costing a
/// request of its own: on a 9600 baud line a request's framing and turnaround cost about what
/// 16 more registers in an answer do.
pub const HEADER_BRIDGE: u16 = 16;

#[derive(Debug, Clone)]
struct Entry {
    point: usize,
    function: Function,
    address: u16,
    sf_address: Option<u16>,
    /// The SunSpec model headers (indexes into `Layout::headers`) that must read as expected in
    /// the same poll for this point's value (and its scale factor's) to be trusted.
    headers: [Option<usize>; 2],
}

/// Where a multi-register counter is on one device.
#[derive(Debug, Clone, Copy)]
pub struct CounterAt {
    /// Index into the map's points.
    pub point: usize,
    pub function: Function,
    pub address: u16,
    pub words: u16,
    pub sf_address: Option<u16>,
}

/// A SunSpec model's header (ID and length registers) where the layout expects it. A device
/// restarted with another model order or base answers something else there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModelHeader {
    /// The model id found on the device at discovery (an accepted sibling, e.g. 101 for 103).
    pub id: u16,
    pub address: u16,
    pub length: u16,
}

/// The map resolved to absolute addresses on one device, and the reads that fetch it.
#[derive(Debug, Clone)]
pub struct Layout {
    entries: Vec<Entry>,
    /// The headers of every model the layout takes values from; read with the blocks.
    pub headers: Vec<ModelHeader>,
    pub blocks: Vec<Block>,
}

/// An address and, for a SunSpec location, the header of the model it lies in.
fn resolve(
    location: Location,
    chain: &SunSpecChain,
    map: &RegisterMap,
    words: u16,
) -> Option<(u16, Option<ModelHeader>)> {
    match location {
        Location::Absolute(a) => Some((a, None)),
        Location::SunSpec { model, offset } => {
            // The device may carry an accepted sibling model (e.g. 201 for 203).
            let def = map.sunspec.iter().find(|m| m.id == model)?;
            let (id, (base, length)) = std::iter::once(&def.id)
                .chain(def.accept.iter())
                .find_map(|id| chain.get(id).map(|at| (*id, *at)))?;
            // A point beyond the model's length on this device is not implemented there.
            if u32::from(offset) + u32::from(words) > u32::from(length) + 2 {
                return None;
            }
            let header = ModelHeader {
                id,
                address: base,
                length,
            };
            Some((base.checked_add(offset)?, Some(header)))
        }
    }
}

impl Layout {
    /// Resolves `map` against the SunSpec chain found on the device (empty for plain maps).
    pub fn new(map: &RegisterMap, chain: &SunSpecChain) -> Layout {
        let mut entries = Vec::new();
        let mut spans = Vec::new();
        let mut headers: Vec<ModelHeader> = Vec::new();
        let mut header_index = |h: Option<ModelHeader>| {
            let h = h?;
            Some(match headers.iter().position(|k| *k == h) {
                Some(i) => i,
                None => {
                    headers.push(h);
                    headers.len() - 1
                }
            })
        };
        for (i, p) in map.points.iter().enumerate() {
            let Some((address, header)) = resolve(p.location, chain, map, p.words) else {
                continue;
            };
            let (sf_address, sf_header) = match p.scale_factor {
                Some(sf) => match resolve(sf, chain, map, 1) {
                    Some((a, h)) => (Some(a), h),
                    // Without its scale factor a value cannot be interpreted.
                    None => continue,
                },
                None => (None, None),
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
                headers: [header_index(header), header_index(sf_header)],
            });
        }
        // Each model's ID and length are read with the values on every poll (discovery reads
        // the chain as holding registers). Where the model's first used point is at most
        // `HEADER_BRIDGE` registers further, the read spans the registers in between (a SunSpec
        // device serves every register of a model) and the planner folds it into that block;
        // otherwise the header costs a read of its own.
        for h in &headers {
            let first = entries
                .iter()
                .filter(|e| e.function == Function::Holding)
                .map(|e| e.address)
                .chain(entries.iter().filter_map(|e| e.sf_address))
                .filter(|a| *a >= h.address && u32::from(*a) < u32::from(h.address) + 2 + u32::from(h.length))
                .min();
            let words = match first {
                Some(a) if a - h.address <= 2 + HEADER_BRIDGE => (a - h.address).max(2),
                _ => 2,
            };
            spans.push(Span {
                function: Function::Holding,
                start: h.address,
                words,
            });
        }
        let mut blocks = plan::plan(&spans, map.limits.max_block, map.limits.max_gap);
        // A device may restart between two reads of one poll. Reading each model's header
        // after every block holding its values makes the header tell: the blocks without a
        // header first, then the ones with a header from the highest address down (a header
        // block may hold the tail of the model before it, never of the one after).
        let holds_header = |b: &Block| {
            b.function == Function::Holding
                && headers.iter().any(|h| {
                    h.address >= b.start && u32::from(h.address) < u32::from(b.start) + u32::from(b.count)
                })
        };
        blocks.sort_by_key(|b| holds_header(b).then_some(std::cmp::Reverse(b.start)));
        Layout {
            entries,
            headers,
            blocks,
        }
    }

    /// Whether every model header this poll read is where the layout expects it. A header whose
    /// block was refused is not a mismatch (its points are left out by `decode`), unless every
    /// header was; a different ID or length is: the device's layout changed since discovery.
    pub fn verify(&self, reads: &[Option<Vec<u16>>]) -> Result<(), String> {
        let word = |address: u16| {
            self.blocks.iter().zip(reads).find_map(|(b, data)| {
                let k = address.checked_sub(b.start)?;
                if b.function != Function::Holding || k >= b.count {
                    return None;
                }
                data.as_ref()?.get(usize::from(k)).copied()
            })
        };
        let mut refused = 0;
        for h in &self.headers {
            let (Some(id), Some(length)) = (word(h.address), word(h.address.wrapping_add(1))) else {
                refused += 1;
                continue;
            };
            if id != h.id {
                return Err(format!(
                    "layout changed: model {} expected at {}, found {}",
                    h.id,
                    h.address,
                    if id == 0xFFFF {
                        "the end marker".to_string()
                    } else {
                        id.to_string()
                    }
                ));
            }
            if length != h.length {
                return Err(format!(
                    "layout changed: model {} at {} has length {length}, was {}",
                    h.id, h.address, h.length
                ));
            }
        }
        // Nothing of the chain answers where it was: a device restarted with its chain at
        // another base refuses the old addresses.
        if let Some(h) = self.headers.first()
            && refused == self.headers.len()
        {
            return Err(format!(
                "layout changed: model {} expected at {}, read refused",
                h.id, h.address
            ));
        }
        Ok(())
    }

    /// The multi-register counters of this layout (see `counters`): where each is, and its
    /// scale factor's register.
    pub fn counters(&self, map: &RegisterMap) -> Vec<CounterAt> {
        self.entries
            .iter()
            .filter(|e| crate::counters::is_multiword_counter(&map.points[e.point]))
            .map(|e| CounterAt {
                point: e.point,
                function: e.function,
                address: e.address,
                words: map.points[e.point].words,
                sf_address: e.sf_address,
            })
            .collect()
    }

    /// The words this poll's reads returned for registers `address ..` of `function`, if every
    /// one was read.
    pub fn words(
        &self,
        reads: &[Option<Vec<u16>>],
        function: Function,
        address: u16,
        n: u16,
    ) -> Option<Vec<u16>> {
        (0..n)
            .map(|k| {
                let a = address.wrapping_add(k);
                self.blocks.iter().zip(reads).find_map(|(b, data)| {
                    let i = a.checked_sub(b.start)?;
                    if b.function != function || i >= b.count {
                        return None;
                    }
                    data.as_ref()?.get(usize::from(i)).copied()
                })
            })
            .collect()
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
        // Values of a model are trusted only when its header read back as expected in this poll.
        let confirmed: Vec<bool> = self
            .headers
            .iter()
            .map(|h| {
                words.get(&(Function::Holding, h.address)) == Some(&h.id)
                    && words.get(&(Function::Holding, h.address.wrapping_add(1))) == Some(&h.length)
            })
            .collect();
        let mut values = BTreeMap::new();
        let mut errors = 0;
        for e in &self.entries {
            if e.headers.iter().flatten().any(|&h| !confirmed[h]) {
                continue;
            }
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

    /// The requests of one poll without and with the model headers, on the simulator's chain.
    fn requests(name: &str) -> (usize, usize) {
        let m = map(name);
        let mut chain = SunSpecChain::new();
        let mut at = 40002u16;
        for d in &m.sunspec {
            chain.insert(d.id, (at, d.length));
            at += 2 + d.length;
        }
        let l = Layout::new(&m, &chain);
        let mut spans = Vec::new();
        for e in &l.entries {
            let p = &m.points[e.point];
            spans.push(Span {
                function: p.function,
                start: e.address,
                words: p.words,
            });
            if let Some(a) = e.sf_address {
                spans.push(Span {
                    function: p.function,
                    start: a,
                    words: 1,
                });
            }
        }
        let without = plan::plan(&spans, m.limits.max_block, m.limits.max_gap);
        (without.len(), l.blocks.len())
    }

    #[test]
    fn model_headers_ride_with_the_blocks_at_most_one_more_request() {
        // Inverter: model 1's header bridges 16 registers to Md, 103's and 160's are adjacent.
        assert_eq!(requests("sunspec-inverter.toml"), (14, 14));
        // Met station: the headers of 302, 303 and 307 join their three reads into one.
        assert_eq!(requests("sunspec-met-station.toml"), (4, 3));
        // Meter: model 1's header is 48 registers before its serial number: a read of its own.
        assert_eq!(requests("sunspec-meter.toml"), (9, 10));
    }

    #[test]
    fn a_header_read_back_different_is_a_layout_change_and_hides_its_values() {
        let m = map("sunspec-inverter.toml");
        let mut chain = SunSpecChain::new();
        chain.insert(1, (40002, 66));
        chain.insert(103, (40070, 50));
        chain.insert(160, (40122, 168));
        let l = Layout::new(&m, &chain);
        let serve = |regs: &dyn Fn(u16) -> u16| -> Vec<Option<Vec<u16>>> {
            l.blocks
                .iter()
                .map(|b| Some((0..b.count).map(|k| regs(b.start + k)).collect()))
                .collect()
        };
        let same = |a: u16| match a {
            40002 => 1,
            40003 => 66,
            40070 => 103,
            40071 => 50,
            40122 => 160,
            40123 => 168,
            _ => 1,
        };
        // Each model's header is read after every block with its values.
        let starts: Vec<u16> = l.blocks.iter().map(|b| b.start).collect();
        assert_eq!(
            starts,
            vec![
                40044, 40107, 40110, 40141, 40161, 40181, 40201, 40221, 40241, 40261, 40281, 40122, 40070,
                40002
            ]
        );
        let reads = serve(&same);
        assert_eq!(l.verify(&reads), Ok(()));
        assert!(l.decode(&m, &reads).0.contains_key("ac_power"));
        let moved = |a: u16| if a == 40070 { 160 } else { same(a) };
        let reads = serve(&moved);
        assert_eq!(
            l.verify(&reads),
            Err("layout changed: model 103 expected at 40070, found 160".into())
        );
        // Decoding alone already leaves the model out.
        let (values, _) = l.decode(&m, &reads);
        assert!(!values.contains_key("ac_power"));
        assert!(values.contains_key("mppt1_voltage"), "model 160 still matched");
        let shorter = |a: u16| if a == 40123 { 88 } else { same(a) };
        assert_eq!(
            l.verify(&serve(&shorter)),
            Err("layout changed: model 160 at 40122 has length 88, was 168".into())
        );
        // A refused header block is not a change; its points are simply not read.
        let mut refused = serve(&same);
        refused[13] = None;
        assert_eq!(l.verify(&refused), Ok(()));
        // Unless the whole chain is refused: it moved to another base.
        let gone: Vec<Option<Vec<u16>>> = l.blocks.iter().map(|_| None).collect();
        assert_eq!(
            l.verify(&gone),
            Err("layout changed: model 1 expected at 40002, read refused".into())
        );
    }
}
