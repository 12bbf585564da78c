//! How a queued sample is laid out on disk.
//!
//! Two layouts coexist in one queue, told apart by the first byte:
//!
//! - `{`: the sample as JSON, what gateways before the compact layout wrote. An upgraded gateway
//!   still reads (and sends) such entries; it never writes them any more.
//! - `0x01`: compact. The sample *without its values* as JSON (so any field a later `Sample`
//!   gains travels along, with serde's own defaults), then the values as (metric id, tagged
//!   number or text). Metric names are replaced by small ids from a dictionary kept in the queue
//!   itself (append-only, never renumbered), so a map or vocabulary change between versions
//!   cannot make old entries decode to other metrics. Numbers keep their exact f64 value: an
//!   integer is a zig-zag varint, a value a f32 holds exactly takes 4 bytes, others 8.
//!
//! A ~40-value inverter sample is about a third of its JSON size, and decoding it needs no
//! JSON number parsing, which is most of what a replay used to spend reading the queue.

use std::collections::HashMap;

use pv_shared::varint;
use pv_shared::wire::{Sample, Value};

const COMPACT: u8 = 0x01;
const TAG_F64: u8 = 0;
const TAG_TEXT: u8 = 1;
const TAG_INT: u8 = 2;
const TAG_F32: u8 = 3;

#[derive(Debug, thiserror::Error)]
pub enum CodecError {
    #[error("json: {0}")]
    Json(#[from] serde_json::Error),
    #[error("truncated entry")]
    Truncated,
    #[error("unknown layout {0:#04x}")]
    Layout(u8),
    #[error("unknown value tag {0}")]
    Tag(u8),
    #[error("metric id {0} is not in the queue's dictionary")]
    Metric(u64),
    #[error("text value is not UTF-8")]
    Utf8,
}

/// Metric name ↔ id, as stored in the queue's `metric_ids` tree.
#[derive(Debug, Default)]
pub struct Dictionary {
    ids: HashMap<String, u32>,
    names: Vec<Option<String>>,
    /// Each name as a JSON string followed by `:`, ready to be copied into a payload.
    json_keys: Vec<Vec<u8>>,
}

impl Dictionary {
    /// Loads the stored pairs.
    pub fn from_pairs(pairs: impl IntoIterator<Item = (String, u32)>) -> Dictionary {
        let mut d = Dictionary::default();
        for (name, id) in pairs {
            d.insert(name, id);
        }
        d
    }

    fn insert(&mut self, name: String, id: u32) {
        let i = id as usize;
        if self.names.len() <= i {
            self.names.resize(i + 1, None);
        }
        self.names[i] = Some(name.clone());
        if self.json_keys.len() <= i {
            self.json_keys.resize(i + 1, Vec::new());
        }
        let mut key = serde_json::to_vec(&name).unwrap_or_default();
        key.push(b':');
        self.json_keys[i] = key;
        self.ids.insert(name, id);
    }

    /// Ids for names not yet known, to be stored (before any entry using them) and then added.
    pub fn missing<'a>(&self, names: impl IntoIterator<Item = &'a String>) -> Vec<(String, u32)> {
        let mut next = self.names.len() as u32;
        let mut new: Vec<(String, u32)> = Vec::new();
        for n in names {
            if !self.ids.contains_key(n) && !new.iter().any(|(m, _)| m == n) {
                new.push((n.clone(), next));
                next += 1;
            }
        }
        new
    }

    pub fn add(&mut self, pairs: &[(String, u32)]) {
        for (n, id) in pairs {
            self.insert(n.clone(), *id);
        }
    }
}

pub(super) use pv_shared::varint::put_u64 as put_varint;

pub(super) struct Reader<'a>(pub(super) &'a [u8]);

impl<'a> Reader<'a> {
    pub(super) fn take(&mut self, n: usize) -> Result<&'a [u8], CodecError> {
        if self.0.len() < n {
            return Err(CodecError::Truncated);
        }
        let (a, b) = self.0.split_at(n);
        self.0 = b;
        Ok(a)
    }

    pub(super) fn byte(&mut self) -> Result<u8, CodecError> {
        Ok(self.take(1)?[0])
    }

    pub(super) fn varint(&mut self) -> Result<u64, CodecError> {
        // An overlong varint is as unreadable as a cut one: the record is damaged either way.
        let (v, n) = varint::read_u64(self.0).map_err(|_| CodecError::Truncated)?;
        self.0 = &self.0[n..];
        Ok(v)
    }
}

/// Integers up to 2^53 are exact in an f64; -0.0 is kept as a float (its sign would be lost).
fn as_int(v: f64) -> Option<i64> {
    const LIMIT: f64 = 9_007_199_254_740_992.0;
    (v.fract() == 0.0 && v.abs() <= LIMIT && !(v == 0.0 && v.is_sign_negative())).then_some(v as i64)
}

/// Encodes `sample`; every metric name must be in `dict` (see `Dictionary::missing`).
pub fn encode(mut sample: Sample, dict: &Dictionary) -> Result<Vec<u8>, CodecError> {
    let values = std::mem::take(&mut sample.values);
    let mut out = Vec::with_capacity(64 + values.len() * 7);
    out.push(COMPACT);
    // Serialising the sample itself (values apart) keeps whatever fields a later version adds.
    let head = serde_json::to_vec(&sample)?;
    put_varint(&mut out, head.len() as u64);
    out.extend_from_slice(&head);
    put_varint(&mut out, values.len() as u64);
    for (name, value) in &values {
        let id = dict.ids.get(name).copied().ok_or(CodecError::Metric(u64::MAX))?;
        put_varint(&mut out, u64::from(id));
        match value {
            Value::Number(v) => {
                if let Some(i) = as_int(*v) {
                    out.push(TAG_INT);
                    put_varint(&mut out, varint::zigzag(i));
                } else if f64::from(*v as f32).to_bits() == v.to_bits() {
                    out.push(TAG_F32);
                    out.extend_from_slice(&(*v as f32).to_le_bytes());
                } else {
                    out.push(TAG_F64);
                    out.extend_from_slice(&v.to_le_bytes());
                }
            }
            Value::Text(t) => {
                out.push(TAG_TEXT);
                put_varint(&mut out, t.len() as u64);
                out.extend_from_slice(t.as_bytes());
            }
        }
    }
    Ok(out)
}

/// Where the compact layout's head leaves room for the values.
const EMPTY_VALUES: &[u8] = b"\"values\":{}";

/// Appends the sample's JSON as the wire carries it (a `Sample`), straight from an entry of
/// either layout: a replay copies bytes and formats numbers instead of building every sample's
/// map of strings and serialising it again.
pub fn to_wire_json(bytes: &[u8], dict: &Dictionary, out: &mut Vec<u8>) -> Result<(), CodecError> {
    match bytes.first() {
        Some(b'{') => {
            out.extend_from_slice(bytes);
            Ok(())
        }
        Some(&COMPACT) => {
            let mut r = Reader(&bytes[1..]);
            let n = r.varint()? as usize;
            let head = r.take(n)?;
            // The head is serde's JSON of a sample with no values: its `"values":{}` is the
            // only place those bytes can occur (a string would carry its quotes escaped).
            let Some(at) = head.windows(EMPTY_VALUES.len()).position(|w| w == EMPTY_VALUES) else {
                let sample = decode(bytes, dict)?;
                serde_json::to_writer(&mut *out, &sample)?;
                return Ok(());
            };
            let open = at + EMPTY_VALUES.len() - 1;
            out.extend_from_slice(&head[..open]);
            let count = r.varint()?;
            for k in 0..count {
                if k > 0 {
                    out.push(b',');
                }
                let id = r.varint()?;
                let key = dict
                    .json_keys
                    .get(id as usize)
                    .filter(|k| !k.is_empty())
                    .ok_or(CodecError::Metric(id))?;
                out.extend_from_slice(key);
                match r.byte()? {
                    TAG_INT => {
                        let z = r.varint()?;
                        write_int_as_f64(varint::unzigzag(z), out)?;
                    }
                    TAG_F32 => {
                        let b: [u8; 4] = r.take(4)?.try_into().map_err(|_| CodecError::Truncated)?;
                        serde_json::to_writer(&mut *out, &f64::from(f32::from_le_bytes(b)))?;
                    }
                    TAG_F64 => {
                        let b: [u8; 8] = r.take(8)?.try_into().map_err(|_| CodecError::Truncated)?;
                        serde_json::to_writer(&mut *out, &f64::from_le_bytes(b))?;
                    }
                    TAG_TEXT => {
                        let n = r.varint()? as usize;
                        let t = std::str::from_utf8(r.take(n)?).map_err(|_| CodecError::Utf8)?;
                        serde_json::to_writer(&mut *out, t)?;
                    }
                    t => return Err(CodecError::Tag(t)),
                }
            }
            out.extend_from_slice(&head[open..]);
            Ok(())
        }
        Some(&b) => Err(CodecError::Layout(b)),
        None => Err(CodecError::Truncated),
    }
}

/// Below this magnitude serde writes an integral f64 as its digits and `.0`; above it switches
/// to an exponent, so those go through serde.
const PLAIN_INT_LIMIT: i64 = 1_000_000_000_000_000;

/// Writes an integer-valued number exactly as serde writes the f64 (`1234.0`): most of a
/// replay's numbers are counters and integral readings, and the digit loop costs a fraction of
/// general float formatting.
fn write_int_as_f64(i: i64, out: &mut Vec<u8>) -> Result<(), CodecError> {
    if i.unsigned_abs() >= PLAIN_INT_LIMIT as u64 {
        serde_json::to_writer(&mut *out, &(i as f64))?;
        return Ok(());
    }
    if i < 0 {
        out.push(b'-');
    }
    let mut digits = [0u8; 20];
    let mut n = i.unsigned_abs();
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[at..]);
    out.extend_from_slice(b".0");
    Ok(())
}

/// Decodes an entry of either layout.
pub fn decode(bytes: &[u8], dict: &Dictionary) -> Result<Sample, CodecError> {
    match bytes.first() {
        Some(b'{') => Ok(serde_json::from_slice(bytes)?),
        Some(&COMPACT) => {
            let mut r = Reader(&bytes[1..]);
            let n = r.varint()? as usize;
            let mut sample: Sample = serde_json::from_slice(r.take(n)?)?;
            let count = r.varint()?;
            for _ in 0..count {
                let id = r.varint()?;
                let name = dict
                    .names
                    .get(id as usize)
                    .and_then(|n| n.as_ref())
                    .ok_or(CodecError::Metric(id))?;
                let value = match r.byte()? {
                    TAG_INT => {
                        let z = r.varint()?;
                        Value::Number(varint::unzigzag(z) as f64)
                    }
                    TAG_F32 => {
                        let b: [u8; 4] = r.take(4)?.try_into().map_err(|_| CodecError::Truncated)?;
                        Value::Number(f64::from(f32::from_le_bytes(b)))
                    }
                    TAG_F64 => {
                        let b: [u8; 8] = r.take(8)?.try_into().map_err(|_| CodecError::Truncated)?;
                        Value::Number(f64::from_le_bytes(b))
                    }
                    TAG_TEXT => {
                        let n = r.varint()? as usize;
                        let t = std::str::from_utf8(r.take(n)?).map_err(|_| CodecError::Utf8)?;
                        Value::Text(t.to_string())
                    }
                    t => return Err(CodecError::Tag(t)),
                };
                sample.values.insert(name.clone(), value);
            }
            Ok(sample)
        }
        Some(&b) => Err(CodecError::Layout(b)),
        None => Err(CodecError::Truncated),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn sample(values: &[(&str, Value)]) -> Sample {
        Sample {
            seq: 7,
            device: "inv-1".into(),
            ts: 1_700_000_000_123,
            values: values
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect::<BTreeMap<_, _>>(),
            suspect: BTreeMap::new(),
        }
    }

    #[test]
    fn a_suspect_mark_survives_the_queue_and_the_wire_path() {
        let mut s = sample(&[("ac_power", Value::Number(8000.0))]);
        s.suspect.insert("power_factor".into(), Value::Number(-20.7));
        let mut dict = Dictionary::default();
        dict.add(&dict.missing(s.values.keys()));
        let bytes = encode(s.clone(), &dict).unwrap();
        assert_eq!(decode(&bytes, &dict).unwrap(), s);
        let mut wire = Vec::new();
        to_wire_json(&bytes, &dict, &mut wire).unwrap();
        assert_eq!(serde_json::from_slice::<Sample>(&wire).unwrap(), s);
    }

    #[test]
    fn every_kind_of_value_comes_back_bit_for_bit() {
        let s = sample(&[
            ("ac_power", Value::Number(8000.0)),
            ("negative", Value::Number(-123_456.0)),
            ("neg_zero", Value::Number(-0.0)),
            ("half", Value::Number(230.5)),
            ("tenth", Value::Number(2301.0 * 0.1)),
            ("big", Value::Number(1e300)),
            ("huge_int", Value::Number(9_007_199_254_740_992.0)),
            ("above", Value::Number(18_446_744_073_709_551_616.0)),
            ("tiny", Value::Number(f64::MIN_POSITIVE)),
            ("serial_number", Value::Text("ÄB-12 ☀".into())),
            ("empty", Value::Text(String::new())),
        ]);
        let mut dict = Dictionary::default();
        let new = dict.missing(s.values.keys());
        assert_eq!(new.len(), 11);
        dict.add(&new);
        assert!(dict.missing(s.values.keys()).is_empty());
        let bytes = encode(s.clone(), &dict).unwrap();
        let back = decode(&bytes, &dict).unwrap();
        assert_eq!(back.seq, s.seq);
        assert_eq!((back.device.as_str(), back.ts), ("inv-1", s.ts));
        for (k, v) in &s.values {
            match (v, &back.values[k]) {
                (Value::Number(a), Value::Number(b)) => assert_eq!(a.to_bits(), b.to_bits(), "{k}"),
                (a, b) => assert_eq!(a, b, "{k}"),
            }
        }
        assert_eq!(back.values.len(), s.values.len());
        let json = serde_json::to_vec(&s).unwrap();
        assert!(bytes.len() < json.len(), "{} vs {}", bytes.len(), json.len());
        // What a replay sends is exactly what serialising the sample gives.
        let mut wire = b"x".to_vec();
        to_wire_json(&bytes, &dict, &mut wire).unwrap();
        assert_eq!(
            String::from_utf8_lossy(&wire[1..]),
            String::from_utf8_lossy(&json)
        );
        let mut none = Vec::new();
        to_wire_json(&encode(sample(&[]), &dict).unwrap(), &dict, &mut none).unwrap();
        assert_eq!(none, serde_json::to_vec(&sample(&[])).unwrap());
    }

    #[test]
    fn integers_are_written_as_serde_writes_the_float() {
        let mut cases: Vec<i64> = vec![0, 1, -1, 9, 10, -10, 230, 8000, -123_456, i64::from(u32::MAX)];
        for p in 1..=18 {
            let b = 10i64.pow(p);
            cases.extend([b - 1, b, b + 1, -(b - 1), -b, -(b + 1)]);
        }
        cases.extend([PLAIN_INT_LIMIT - 1, -PLAIN_INT_LIMIT + 1, 9_007_199_254_740_992]);
        for i in cases {
            let mut ours = Vec::new();
            write_int_as_f64(i, &mut ours).unwrap();
            let serde = serde_json::to_vec(&(i as f64)).unwrap();
            assert_eq!(
                String::from_utf8_lossy(&ours),
                String::from_utf8_lossy(&serde),
                "{i}"
            );
        }
    }

    #[test]
    fn json_entries_of_older_gateways_still_decode() {
        let s = sample(&[("ac_power", Value::Number(1.5)), ("sn", Value::Text("x".into()))]);
        let json = serde_json::to_vec(&s).unwrap();
        assert_eq!(decode(&json, &Dictionary::default()).unwrap(), s);
        let mut wire = Vec::new();
        to_wire_json(&json, &Dictionary::default(), &mut wire).unwrap();
        assert_eq!(wire, json);
    }

    #[test]
    fn damage_is_an_error_not_a_wrong_sample() {
        let s = sample(&[("ac_power", Value::Number(1.5))]);
        let mut dict = Dictionary::default();
        let new = dict.missing(s.values.keys());
        dict.add(&new);
        let bytes = encode(s, &dict).unwrap();
        for cut in 1..bytes.len() {
            assert!(decode(&bytes[..cut], &dict).is_err(), "cut at {cut}");
            assert!(
                to_wire_json(&bytes[..cut], &dict, &mut Vec::new()).is_err(),
                "cut at {cut}"
            );
        }
        assert!(matches!(
            decode(&bytes, &Dictionary::default()),
            Err(CodecError::Metric(0))
        ));
        assert!(matches!(decode(&[0x7f], &dict), Err(CodecError::Layout(0x7f))));
    }
}
