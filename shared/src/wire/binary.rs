//! The compact encoding of a `TelemetryBatch`, for gateways on metered links: the same batch as
//! the JSON one (same ack, same rules), a fraction of the bytes. A hub tells the two apart on the
//! same topic by the first byte (`is_binary`): JSON text never starts with `0xF5`, a byte that
//! does not occur in UTF-8.
//!
//! Layout (format version 1), integers as LEB128 varints, signed ones zig-zag first:
//!
//! ```text
//! payload = 0xF5 'P' | format version (1) | flags | body       flags: 1 = body deflated, 2 = replay
//! body    = gateway:str  first_seq  base_ts:signed  device_count  device*
//! device  = id:str  column_count  column*  sample_count  sample*
//! column  = key            key 0: the name follows as str; else a stable id of the metric
//!                          vocabulary (`metrics::STABLE_IDS`), then the index for an indexed
//!                          or per-phase entry (pv12_current: id of pv{n}_current, 12)
//! sample  = seq_delta  ts_delta:signed  cell per column
//! cell    = tag [payload]  tag 0: absent; bit 7: suspect (a quality mark); low bits:
//!           1 f64 | 2 f32 | 3 text:str | 4 the column's previous number again |
//!           16+c scaled integer: mantissa delta:signed against the column's previous one
//! str     = length  UTF-8 bytes
//! ```
//!
//! Samples are grouped per device, so a device's timestamps are deltas from its previous sample
//! (the first from `base_ts`) and each metric is a column whose repeated values cost one byte.
//! Numbers travel as the device's own integers with their scale whenever that rebuilds the
//! exact same f64 the JSON would carry: scale code c = 0 is the integer itself, 1-9 divide it by
//! 10^c (how SunSpec scale factors are applied), 10-18 multiply it by the f64 nearest 10^-(c-9)
//! (how a map's `scale = 0.1` is applied). Anything else goes as f32 when that is exact, else
//! f64, so a decoded batch equals the encoded one bit for bit. Deflate (raw, `miniz_oxide`,
//! pure Rust) then takes the repetition across samples.
//!
//! Decoding is bounded whatever the input: the inflated body, the number of samples and of
//! values have limits, and every truncated, garbled or inconsistent payload is an error.

use std::collections::BTreeMap;

use super::{Sample, TelemetryBatch, Value};
use crate::varint::{self, VarintError};

/// First bytes of a binary payload.
pub const MAGIC: [u8; 2] = [0xF5, b'P'];
/// The layout above; a hub refuses others (a gateway must not be upgraded before its hub).
pub const FORMAT_VERSION: u8 = 1;
const FLAG_DEFLATE: u8 = 1;
const FLAG_REPLAY: u8 = 2;
const HEADER: usize = 4;

/// Largest body once inflated (deflate can expand a small payload a thousandfold).
pub const MAX_BODY_BYTES: usize = 1024 * 1024;
/// Most samples in one batch (the edge's `batch_max_samples` tops out here too).
pub const MAX_SAMPLES: usize = 10_000;
/// Most values (good and suspect) in one batch: a cell of one byte expands to a map entry,
/// so this bounds what a small payload can make the hub allocate.
pub const MAX_VALUES: usize = 65_536;
/// Longest device id or metric name sent as text.
const MAX_NAME: usize = 255;
/// Below this the body goes uncompressed (deflate's own header would eat the gain).
const DEFLATE_FROM: usize = 64;

const KIND_F64: u8 = 1;
const KIND_F32: u8 = 2;
const KIND_TEXT: u8 = 3;
const KIND_REPEAT: u8 = 4;
const KIND_SCALED: u8 = 16;
const SUSPECT: u8 = 0x80;
/// Integers beyond 2^53 are not all exact in an f64.
const EXACT_INT: f64 = 9_007_199_254_740_992.0;
const POW10: [f64; 10] = [1.0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9];
const NEG_POW10: [f64; 10] = [1.0, 1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9];

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum BinaryError {
    #[error("not a binary batch")]
    Magic,
    #[error("binary format version {0} is not supported (this side speaks {FORMAT_VERSION})")]
    Version(u8),
    #[error("unknown flags {0:#04x}")]
    Flags(u8),
    #[error("truncated payload")]
    Truncated,
    #[error("body does not inflate within {MAX_BODY_BYTES} bytes")]
    Inflate,
    #[error("{0} bytes after the batch")]
    Trailing(usize),
    #[error("unknown cell tag {0:#04x}")]
    Tag(u8),
    #[error("metric key {0}/{1} is not in this side's vocabulary")]
    Metric(u64, u64),
    #[error("text is not UTF-8")]
    Utf8,
    #[error("above the limit: {0}")]
    Limit(&'static str),
    #[error("inconsistent: {0}")]
    Invalid(&'static str),
}

/// Whether a payload is in this encoding (else it is JSON).
pub fn is_binary(payload: &[u8]) -> bool {
    payload.starts_with(&MAGIC)
}

/// Encodes a batch, deflated when that is smaller. Refuses what the decoder would refuse (over
/// a limit, a metric both good and suspect in one sample): the caller splits the batch or sends
/// it as JSON.
pub fn encode(batch: &TelemetryBatch) -> Result<Vec<u8>, BinaryError> {
    let body = body(batch)?;
    let mut flags = if batch.replay { FLAG_REPLAY } else { 0 };
    let mut out = Vec::with_capacity(HEADER + body.len());
    out.extend_from_slice(&MAGIC);
    out.push(FORMAT_VERSION);
    if body.len() >= DEFLATE_FROM {
        // Level 6: within a few percent of the best ratio at a fraction of level 9's time.
        let packed = miniz_oxide::deflate::compress_to_vec(&body, 6);
        if packed.len() < body.len() {
            flags |= FLAG_DEFLATE;
            out.push(flags);
            out.extend_from_slice(&packed);
            return Ok(out);
        }
    }
    out.push(flags);
    out.extend_from_slice(&body);
    Ok(out)
}

/// Decodes a payload into the batch it was made from. The batch's own rules (`Message::check`)
/// are the caller's to apply, as for JSON.
pub fn decode(payload: &[u8]) -> Result<TelemetryBatch, BinaryError> {
    if !is_binary(payload) {
        return Err(BinaryError::Magic);
    }
    let [_, _, version, flags, ..] = *payload else {
        return Err(BinaryError::Truncated);
    };
    if version != FORMAT_VERSION {
        return Err(BinaryError::Version(version));
    }
    if flags & !(FLAG_DEFLATE | FLAG_REPLAY) != 0 {
        return Err(BinaryError::Flags(flags));
    }
    let rest = &payload[HEADER..];
    let inflated;
    let body = if flags & FLAG_DEFLATE != 0 {
        inflated = miniz_oxide::inflate::decompress_to_vec_with_limit(rest, MAX_BODY_BYTES)
            .map_err(|_| BinaryError::Inflate)?;
        &inflated[..]
    } else if rest.len() > MAX_BODY_BYTES {
        return Err(BinaryError::Limit("body size"));
    } else {
        rest
    };
    read_body(body, flags & FLAG_REPLAY != 0)
}

/// A device's samples in batch order.
struct Group<'a> {
    device: &'a str,
    samples: Vec<&'a Sample>,
}

fn body(batch: &TelemetryBatch) -> Result<Vec<u8>, BinaryError> {
    if batch.samples.len() > MAX_SAMPLES {
        return Err(BinaryError::Limit("samples"));
    }
    let values: usize = batch
        .samples
        .iter()
        .map(|s| s.values.len() + s.suspect.len())
        .sum();
    if values > MAX_VALUES {
        return Err(BinaryError::Limit("values"));
    }
    let mut groups: Vec<Group<'_>> = Vec::new();
    for s in &batch.samples {
        // Every field of a sample is carried below: a new one must be added to the format
        // (and its version) before this compiles again.
        let Sample {
            seq: _,
            device,
            ts: _,
            values: _,
            suspect: _,
        } = s;
        match groups.iter_mut().find(|g| g.device == device) {
            Some(g) => g.samples.push(s),
            None => groups.push(Group {
                device,
                samples: vec![s],
            }),
        }
    }
    let mut out = Vec::with_capacity(64 + values * 3);
    put_str(&mut out, &batch.gateway, 64)?;
    varint::put_u64(&mut out, batch.first_seq);
    let base_ts = batch.samples.first().map_or(0, |s| s.ts);
    varint::put_i64(&mut out, base_ts);
    varint::put_u64(&mut out, groups.len() as u64);
    for g in &groups {
        put_str(&mut out, g.device, MAX_NAME)?;
        let columns: Vec<&str> = g
            .samples
            .iter()
            .flat_map(|s| s.values.keys().chain(s.suspect.keys()))
            .map(String::as_str)
            .collect::<std::collections::BTreeSet<&str>>()
            .into_iter()
            .collect();
        varint::put_u64(&mut out, columns.len() as u64);
        for c in &columns {
            match crate::metrics::stable_key(c) {
                Some((id, index)) => {
                    varint::put_u64(&mut out, u64::from(id));
                    if has_index(id) {
                        varint::put_u64(&mut out, u64::from(index));
                    }
                }
                None => {
                    varint::put_u64(&mut out, 0);
                    put_str(&mut out, c, MAX_NAME)?;
                }
            }
        }
        varint::put_u64(&mut out, g.samples.len() as u64);
        let mut cols: Vec<Column> = vec![Column::default(); columns.len()];
        let (mut prev_seq, mut prev_ts) = (batch.first_seq, base_ts);
        for s in &g.samples {
            let delta = s
                .seq
                .checked_sub(prev_seq)
                .ok_or(BinaryError::Invalid("samples out of sequence order"))?;
            varint::put_u64(&mut out, delta);
            varint::put_i64(&mut out, s.ts.wrapping_sub(prev_ts));
            (prev_seq, prev_ts) = (s.seq, s.ts);
            for (name, col) in columns.iter().zip(cols.iter_mut()) {
                let cell = match (s.values.get(*name), s.suspect.get(*name)) {
                    (Some(_), Some(_)) => return Err(BinaryError::Invalid("a metric both good and suspect")),
                    (Some(v), None) => Some((v, 0)),
                    (None, Some(v)) => Some((v, SUSPECT)),
                    (None, None) => None,
                };
                match cell {
                    None => out.push(0),
                    Some((v, mark)) => col.put(&mut out, v, mark),
                }
            }
        }
    }
    if out.len() > MAX_BODY_BYTES {
        return Err(BinaryError::Limit("body size"));
    }
    Ok(out)
}

/// Whether the vocabulary entry `id` carries an index (`pv{n}_current`, `ac_power_{p}`).
fn has_index(id: u16) -> bool {
    crate::metrics::STABLE_IDS
        .iter()
        .any(|(i, name)| *i == id && name.contains('{'))
}

/// What the previous cells of one column left for the next: the last number (repeated for one
/// byte) and the last mantissa (the next is sent as a delta from it).
#[derive(Debug, Clone, Copy, Default)]
struct Column {
    number: Option<u64>,
    mantissa: i64,
}

impl Column {
    fn put(&mut self, out: &mut Vec<u8>, v: &Value, mark: u8) {
        let x = match v {
            Value::Text(t) => {
                out.push(KIND_TEXT | mark);
                varint::put_u64(out, t.len() as u64);
                out.extend_from_slice(t.as_bytes());
                return;
            }
            Value::Number(x) => *x,
        };
        if self.number == Some(x.to_bits()) {
            out.push(KIND_REPEAT | mark);
            return;
        }
        self.number = Some(x.to_bits());
        if let Some((code, m)) = scaled(x) {
            out.push((KIND_SCALED + code) | mark);
            varint::put_i64(out, m.wrapping_sub(self.mantissa));
            self.mantissa = m;
        } else if f64::from(x as f32).to_bits() == x.to_bits() {
            out.push(KIND_F32 | mark);
            out.extend_from_slice(&(x as f32).to_le_bytes());
        } else {
            out.push(KIND_F64 | mark);
            out.extend_from_slice(&x.to_le_bytes());
        }
    }
}

/// The value of scale code `code` applied to mantissa `m` (see the module note).
fn unscale(code: u8, m: i64) -> Option<f64> {
    let x = m as f64;
    match code {
        0 => Some(x),
        1..=9 => Some(x / POW10[usize::from(code)]),
        10..=18 => Some(x * NEG_POW10[usize::from(code - 9)]),
        _ => None,
    }
}

/// The smallest (scale code, mantissa) that rebuilds `x` exactly, if any.
fn scaled(x: f64) -> Option<(u8, i64)> {
    if !x.is_finite() || (x == 0.0 && x.is_sign_negative()) {
        return None;
    }
    for k in 0..=9u8 {
        let m = (x * POW10[usize::from(k)]).round();
        if m.abs() > EXACT_INT {
            return None;
        }
        let m = m as i64;
        let codes: &[u8] = if k == 0 { &[0] } else { &[k, k + 9] };
        for &code in codes {
            if unscale(code, m).is_some_and(|y| y.to_bits() == x.to_bits()) {
                return Some((code, m));
            }
        }
    }
    None
}

fn put_str(out: &mut Vec<u8>, s: &str, limit: usize) -> Result<(), BinaryError> {
    if s.len() > limit {
        return Err(BinaryError::Limit("name length"));
    }
    varint::put_u64(out, s.len() as u64);
    out.extend_from_slice(s.as_bytes());
    Ok(())
}

struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], BinaryError> {
        if self.0.len() < n {
            return Err(BinaryError::Truncated);
        }
        let (a, b) = self.0.split_at(n);
        self.0 = b;
        Ok(a)
    }

    fn byte(&mut self) -> Result<u8, BinaryError> {
        Ok(self.take(1)?[0])
    }

    fn varint(&mut self) -> Result<u64, BinaryError> {
        let (v, n) = varint::read_u64(self.0).map_err(|e| match e {
            VarintError::Truncated => BinaryError::Truncated,
            VarintError::TooLong => BinaryError::Invalid("varint longer than 64 bits"),
        })?;
        self.0 = &self.0[n..];
        Ok(v)
    }

    fn signed(&mut self) -> Result<i64, BinaryError> {
        self.varint().map(varint::unzigzag)
    }

    /// A count that cannot exceed `limit`.
    fn count(&mut self, limit: usize, what: &'static str) -> Result<usize, BinaryError> {
        let n = self.varint()?;
        usize::try_from(n)
            .ok()
            .filter(|n| *n <= limit)
            .ok_or(BinaryError::Limit(what))
    }

    fn str(&mut self, limit: usize) -> Result<String, BinaryError> {
        let n = self.count(limit, "text length")?;
        let bytes = self.take(n)?;
        String::from_utf8(bytes.to_vec()).map_err(|_| BinaryError::Utf8)
    }

    fn f64(&mut self) -> Result<f64, BinaryError> {
        let b = self.take(8)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(f64::from_le_bytes(a))
    }

    fn f32(&mut self) -> Result<f32, BinaryError> {
        let b = self.take(4)?;
        let mut a = [0u8; 4];
        a.copy_from_slice(b);
        Ok(f32::from_le_bytes(a))
    }
}

fn read_body(body: &[u8], replay: bool) -> Result<TelemetryBatch, BinaryError> {
    let mut r = Reader(body);
    let gateway = r.str(64)?;
    let first_seq = r.varint()?;
    let base_ts = r.signed()?;
    let devices = r.count(MAX_SAMPLES, "devices")?;
    let mut samples: Vec<Sample> = Vec::new();
    let mut values = 0usize;
    for _ in 0..devices {
        let device = r.str(MAX_NAME)?;
        let n_columns = r.count(MAX_VALUES, "columns")?;
        let mut columns: Vec<String> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for _ in 0..n_columns {
            let id = r.varint()?;
            let name = if id == 0 {
                r.str(MAX_NAME)?
            } else {
                let small = u16::try_from(id).ok();
                let index = match small {
                    Some(i) if has_index(i) => r.varint()?,
                    _ => 0,
                };
                small
                    .zip(u16::try_from(index).ok())
                    .and_then(|(i, n)| crate::metrics::name_of_key(i, n))
                    .ok_or(BinaryError::Metric(id, index))?
            };
            if !seen.insert(name.clone()) {
                return Err(BinaryError::Invalid("a column named twice"));
            }
            columns.push(name);
        }
        let n = r.count(MAX_SAMPLES - samples.len(), "samples")?;
        let mut cols = vec![(None::<f64>, 0i64); columns.len()];
        let (mut prev_seq, mut prev_ts) = (first_seq, base_ts);
        for _ in 0..n {
            let seq = prev_seq
                .checked_add(r.varint()?)
                .ok_or(BinaryError::Invalid("sequence overflow"))?;
            let ts = prev_ts.wrapping_add(r.signed()?);
            (prev_seq, prev_ts) = (seq, ts);
            let mut sample = Sample {
                seq,
                device: device.clone(),
                ts,
                values: BTreeMap::new(),
                suspect: BTreeMap::new(),
            };
            for (name, (number, mantissa)) in columns.iter().zip(cols.iter_mut()) {
                let tag = r.byte()?;
                if tag == 0 {
                    continue;
                }
                values += 1;
                if values > MAX_VALUES {
                    return Err(BinaryError::Limit("values"));
                }
                let value = match tag & !SUSPECT {
                    KIND_F64 => Value::Number(r.f64()?),
                    KIND_F32 => Value::Number(f64::from(r.f32()?)),
                    KIND_TEXT => Value::Text(r.str(body.len())?),
                    KIND_REPEAT => {
                        Value::Number(number.ok_or(BinaryError::Invalid("a repeat without a number before"))?)
                    }
                    kind if kind >= KIND_SCALED => {
                        let m = mantissa.wrapping_add(r.signed()?);
                        if (m as f64).abs() > EXACT_INT {
                            return Err(BinaryError::Invalid("mantissa beyond 2^53"));
                        }
                        *mantissa = m;
                        Value::Number(unscale(kind - KIND_SCALED, m).ok_or(BinaryError::Tag(tag))?)
                    }
                    _ => return Err(BinaryError::Tag(tag)),
                };
                if let Value::Number(x) = value {
                    *number = Some(x);
                }
                let target = if tag & SUSPECT != 0 {
                    &mut sample.suspect
                } else {
                    &mut sample.values
                };
                target.insert(name.clone(), value);
            }
            samples.push(sample);
        }
    }
    if !r.0.is_empty() {
        return Err(BinaryError::Trailing(r.0.len()));
    }
    samples.sort_unstable_by_key(|s| s.seq);
    let mut batch = TelemetryBatch::new(&gateway, replay, samples);
    // The range as sent, so a batch whose first sample does not carry `first_seq` fails the
    // batch's own check rather than being renamed.
    batch.first_seq = first_seq;
    batch.batch = super::batch_id(&gateway, first_seq, batch.last_seq);
    Ok(batch)
}

#[cfg(test)]
mod tests;
