//! The compact form of raw telemetry: all samples of one device in one hour as one binary block.
//!
//! Why columns: a device reports the same metrics every poll, and a metric changes little from
//! one second to the next, so the block is transposed (one column per metric) before it is
//! compressed. Timestamps and sequence numbers are delta-of-delta varints (a steady poll costs
//! one byte per sample). A numeric column whose values are all decimals with at most
//! `MAX_DECIMALS` places (what a register times a power-of-ten scale gives) is stored as the
//! zigzag varint deltas of those integers; any other numeric column as the XOR of each value's
//! bits with the previous one. Text values and values marked suspect keep their exact text. The
//! whole payload is then compressed with zstd. Decoding gives back every value bit for bit.
//!
//! Layout of a block: byte 0 is the codec (`ZSTD`), the rest a zstd frame of the payload:
//! version, sample count, metric names, timestamps, sequence numbers, one column per metric
//! (presence bitmap when not every sample has it), then the suspect marks.

use std::collections::BTreeMap;

use pv_shared::varint::{self, put_i64, put_u64};
use pv_shared::wire;

/// Codec byte of a zstd-compressed payload.
const ZSTD: u8 = 1;
/// Version of the payload layout inside the frame.
const VERSION: u8 = 1;
/// Compression level: blocks are packed off the ingest path and read far more often than
/// written, and zstd's decoding speed does not depend on the level.
const LEVEL: i32 = 9;
/// The most decimal places tried for the integer form of a column.
const MAX_DECIMALS: u8 = 6;
/// Column tags.
const COL_DENSE: u8 = 0;
const COL_SPARSE: u8 = 1;
/// Numeric encodings.
const NUM_XOR: u8 = 255;
/// A column holding text somewhere: each present value tagged.
const NUM_MIXED: u8 = 254;

/// One raw sample as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct RawSample {
    pub ts: i64,
    pub seq: i64,
    pub metrics: BTreeMap<String, wire::Value>,
    /// The JSON of values marked implausible, verbatim (`store::RawRow::suspect`).
    pub suspect: Option<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum BlockError {
    #[error("telemetry block: unknown codec {0}")]
    Codec(u8),
    #[error("telemetry block: unknown layout version {0}")]
    Version(u8),
    #[error("telemetry block is truncated or corrupt")]
    Corrupt,
    #[error("telemetry block: {0}")]
    Io(#[from] std::io::Error),
}

impl From<BlockError> for crate::kernel::ApiError {
    fn from(e: BlockError) -> Self {
        crate::kernel::ApiError::Internal(e.to_string())
    }
}

/// Encodes samples (sorted by `ts`, distinct timestamps) into a block.
pub fn encode(samples: &[RawSample]) -> Result<Vec<u8>, BlockError> {
    let mut out = Vec::with_capacity(samples.len() * 16);
    out.push(VERSION);
    put_u64(&mut out, samples.len() as u64);

    let mut names: Vec<&str> = Vec::new();
    {
        let mut seen = std::collections::BTreeSet::new();
        for s in samples {
            for k in s.metrics.keys() {
                if seen.insert(k.as_str()) {
                    names.push(k.as_str());
                }
            }
        }
    }
    put_u64(&mut out, names.len() as u64);
    for n in &names {
        put_bytes(&mut out, n.as_bytes());
    }
    put_dod(&mut out, samples.iter().map(|s| s.ts));
    put_dod(&mut out, samples.iter().map(|s| s.seq));

    let mut col = Vec::new();
    for name in &names {
        col.clear();
        put_column(&mut col, samples, name);
        put_bytes(&mut out, &col);
    }

    let marked: Vec<(usize, &String)> = samples
        .iter()
        .enumerate()
        .filter_map(|(i, s)| s.suspect.as_ref().map(|t| (i, t)))
        .collect();
    put_u64(&mut out, marked.len() as u64);
    for (i, t) in marked {
        put_u64(&mut out, i as u64);
        put_bytes(&mut out, t.as_bytes());
    }

    let mut block = vec![ZSTD];
    block.extend_from_slice(&zstd::bulk::compress(&out, LEVEL)?);
    Ok(block)
}

/// A block opened: timestamps, sequence numbers and suspect marks read, columns located but
/// decoded only when asked for (a curve of two metrics skips the other columns' bytes).
pub struct Opened {
    payload: Vec<u8>,
    pub ts: Vec<i64>,
    pub seq: Vec<i64>,
    /// Metric name and the byte range of its column in `payload`.
    columns: Vec<(String, std::ops::Range<usize>)>,
    suspect: Vec<(usize, String)>,
}

/// Opens a block.
pub fn open(block: &[u8]) -> Result<Opened, BlockError> {
    let (&codec, frame) = block.split_first().ok_or(BlockError::Corrupt)?;
    if codec != ZSTD {
        return Err(BlockError::Codec(codec));
    }
    let payload = zstd::stream::decode_all(frame)?;
    let mut r = Reader { buf: &payload, at: 0 };
    let version = r.byte()?;
    if version != VERSION {
        return Err(BlockError::Version(version));
    }
    let n = r.len()?;
    let count = r.len()?;
    let mut names = Vec::with_capacity(count);
    for _ in 0..count {
        names.push(String::from_utf8(r.bytes()?.to_vec()).map_err(|_| BlockError::Corrupt)?);
    }
    let ts = r.dod(n)?;
    let seq = r.dod(n)?;
    let mut columns = Vec::with_capacity(count);
    for name in names {
        let len = r.len()?;
        let start = r.at;
        r.take(len)?;
        columns.push((name, start..start + len));
    }
    let mut suspect = Vec::new();
    for _ in 0..r.len()? {
        let i = r.len()?;
        if i >= n {
            return Err(BlockError::Corrupt);
        }
        let text = String::from_utf8(r.bytes()?.to_vec()).map_err(|_| BlockError::Corrupt)?;
        suspect.push((i, text));
    }
    Ok(Opened {
        payload,
        ts,
        seq,
        columns,
        suspect,
    })
}

impl Opened {
    /// How many samples of the block carry suspect marks.
    pub fn suspect_count(&self) -> usize {
        self.suspect.len()
    }

    /// The metric's value in each sample (None where the sample lacks it); None when no sample
    /// of the block has the metric.
    pub fn column(&self, name: &str) -> Result<Option<Vec<Option<wire::Value>>>, BlockError> {
        let Some((_, range)) = self.columns.iter().find(|(n, _)| n == name) else {
            return Ok(None);
        };
        self.read_column(range.clone()).map(Some)
    }

    fn read_column(&self, range: std::ops::Range<usize>) -> Result<Vec<Option<wire::Value>>, BlockError> {
        let n = self.ts.len();
        let mut r = Reader {
            buf: self.payload.get(range).ok_or(BlockError::Corrupt)?,
            at: 0,
        };
        let rows: Vec<usize> = match r.byte()? {
            COL_DENSE => (0..n).collect(),
            COL_SPARSE => {
                let bits = r.take(n.div_ceil(8))?;
                (0..n).filter(|i| bits[i / 8] & (1 << (i % 8)) != 0).collect()
            }
            _ => return Err(BlockError::Corrupt),
        };
        let mut out = vec![None; n];
        for (i, v) in rows.iter().zip(r.values(rows.len())?) {
            out[*i] = Some(v);
        }
        Ok(out)
    }

    /// Every sample, in time order.
    pub fn samples(&self) -> Result<Vec<RawSample>, BlockError> {
        let mut samples: Vec<RawSample> = self
            .ts
            .iter()
            .zip(&self.seq)
            .map(|(&ts, &seq)| RawSample {
                ts,
                seq,
                metrics: BTreeMap::new(),
                suspect: None,
            })
            .collect();
        for (name, range) in &self.columns {
            for (s, v) in samples.iter_mut().zip(self.read_column(range.clone())?) {
                if let Some(v) = v {
                    s.metrics.insert(name.clone(), v);
                }
            }
        }
        for (i, text) in &self.suspect {
            samples[*i].suspect = Some(text.clone());
        }
        Ok(samples)
    }
}

/// Decodes a block into its samples, in time order.
pub fn decode(block: &[u8]) -> Result<Vec<RawSample>, BlockError> {
    open(block)?.samples()
}

/// Merges `newer` (rows stored since the block was packed) into `packed`: by timestamp, and a
/// sample already packed wins over a row with the same timestamp (a replay stored twice), as the
/// first stored sample wins at ingest.
pub fn merge(packed: Vec<RawSample>, newer: Vec<RawSample>) -> Vec<RawSample> {
    let mut by_ts: BTreeMap<i64, RawSample> = newer.into_iter().map(|s| (s.ts, s)).collect();
    for s in packed {
        by_ts.insert(s.ts, s);
    }
    by_ts.into_values().collect()
}

/// One metric's column: presence (a bitmap unless every sample has it), then its values.
fn put_column(out: &mut Vec<u8>, samples: &[RawSample], name: &str) {
    let present: Vec<Option<&wire::Value>> = samples.iter().map(|s| s.metrics.get(name)).collect();
    if present.iter().all(Option::is_some) {
        out.push(COL_DENSE);
    } else {
        out.push(COL_SPARSE);
        let mut bits = vec![0u8; samples.len().div_ceil(8)];
        for (i, v) in present.iter().enumerate() {
            if v.is_some() {
                bits[i / 8] |= 1 << (i % 8);
            }
        }
        out.extend_from_slice(&bits);
    }
    let values: Vec<&wire::Value> = present.into_iter().flatten().collect();
    let numbers: Option<Vec<f64>> = values
        .iter()
        .map(|v| match v {
            wire::Value::Number(n) => Some(*n),
            wire::Value::Text(_) => None,
        })
        .collect();
    match numbers {
        Some(nums) => put_numbers(out, &nums),
        None => {
            out.push(NUM_MIXED);
            for v in values {
                match v {
                    wire::Value::Number(n) => {
                        out.push(0);
                        out.extend_from_slice(&n.to_bits().to_le_bytes());
                    }
                    wire::Value::Text(t) => {
                        out.push(1);
                        put_bytes(out, t.as_bytes());
                    }
                }
            }
        }
    }
}

fn put_numbers(out: &mut Vec<u8>, nums: &[f64]) {
    if let Some((k, ints)) = decimal_form(nums) {
        out.push(k);
        let mut prev = 0i64;
        for i in ints {
            put_i64(out, i.wrapping_sub(prev));
            prev = i;
        }
    } else {
        out.push(NUM_XOR);
        let mut prev = 0u64;
        for n in nums {
            let bits = n.to_bits();
            out.extend_from_slice(&(bits ^ prev).to_le_bytes());
            prev = bits;
        }
    }
}

/// The fewest decimal places `k` for which every value is exactly `integer / 10^k` (bit for
/// bit, so -0.0 and values that are not short decimals fall back to the XOR form).
fn decimal_form(nums: &[f64]) -> Option<(u8, Vec<i64>)> {
    const LIMIT: f64 = 9_007_199_254_740_992.0; // 2^53: integers exact in an f64
    'places: for k in 0..=MAX_DECIMALS {
        let p = 10f64.powi(i32::from(k));
        let mut ints = Vec::with_capacity(nums.len());
        for &v in nums {
            let scaled = (v * p).round();
            if !scaled.is_finite() || scaled.abs() >= LIMIT {
                return None;
            }
            // Exact for |scaled| < 2^53.
            #[allow(clippy::cast_possible_truncation)]
            let i = scaled as i64;
            if (i as f64 / p).to_bits() != v.to_bits() {
                continue 'places;
            }
            ints.push(i);
        }
        return Some((k, ints));
    }
    None
}

fn put_bytes(out: &mut Vec<u8>, b: &[u8]) {
    put_u64(out, b.len() as u64);
    out.extend_from_slice(b);
}

/// Delta-of-delta: a steady step costs one byte.
fn put_dod(out: &mut Vec<u8>, values: impl Iterator<Item = i64>) {
    let (mut prev, mut step) = (0i64, 0i64);
    for v in values {
        let d = v.wrapping_sub(prev);
        put_i64(out, d.wrapping_sub(step));
        step = d;
        prev = v;
    }
}

struct Reader<'a> {
    buf: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn byte(&mut self) -> Result<u8, BlockError> {
        let b = *self.buf.get(self.at).ok_or(BlockError::Corrupt)?;
        self.at += 1;
        Ok(b)
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], BlockError> {
        let end = self.at.checked_add(n).ok_or(BlockError::Corrupt)?;
        let s = self.buf.get(self.at..end).ok_or(BlockError::Corrupt)?;
        self.at = end;
        Ok(s)
    }

    fn u64(&mut self) -> Result<u64, BlockError> {
        let rest = self.buf.get(self.at..).ok_or(BlockError::Corrupt)?;
        let (v, n) = varint::read_u64(rest).map_err(|_| BlockError::Corrupt)?;
        self.at += n;
        Ok(v)
    }

    /// A count, bounded by what the payload could hold (a corrupt count must not allocate).
    fn len(&mut self) -> Result<usize, BlockError> {
        let v = usize::try_from(self.u64()?).map_err(|_| BlockError::Corrupt)?;
        if v > self.buf.len().saturating_mul(8) {
            return Err(BlockError::Corrupt);
        }
        Ok(v)
    }

    fn i64(&mut self) -> Result<i64, BlockError> {
        self.u64().map(varint::unzigzag)
    }

    fn bytes(&mut self) -> Result<&'a [u8], BlockError> {
        let n = self.len()?;
        self.take(n)
    }

    fn dod(&mut self, n: usize) -> Result<Vec<i64>, BlockError> {
        let (mut prev, mut step) = (0i64, 0i64);
        let mut out = Vec::with_capacity(n);
        for _ in 0..n {
            step = step.wrapping_add(self.i64()?);
            prev = prev.wrapping_add(step);
            out.push(prev);
        }
        Ok(out)
    }

    fn values(&mut self, n: usize) -> Result<Vec<wire::Value>, BlockError> {
        let form = self.byte()?;
        let mut out = Vec::with_capacity(n);
        match form {
            NUM_XOR => {
                let mut prev = 0u64;
                for _ in 0..n {
                    let b = self.take(8)?;
                    let bits = prev ^ u64::from_le_bytes(b.try_into().map_err(|_| BlockError::Corrupt)?);
                    out.push(wire::Value::Number(f64::from_bits(bits)));
                    prev = bits;
                }
            }
            NUM_MIXED => {
                for _ in 0..n {
                    match self.byte()? {
                        0 => {
                            let b = self.take(8)?;
                            let bits = u64::from_le_bytes(b.try_into().map_err(|_| BlockError::Corrupt)?);
                            out.push(wire::Value::Number(f64::from_bits(bits)));
                        }
                        1 => {
                            let t =
                                String::from_utf8(self.bytes()?.to_vec()).map_err(|_| BlockError::Corrupt)?;
                            out.push(wire::Value::Text(t));
                        }
                        _ => return Err(BlockError::Corrupt),
                    }
                }
            }
            k if k <= MAX_DECIMALS => {
                let p = 10f64.powi(i32::from(k));
                let mut prev = 0i64;
                for _ in 0..n {
                    prev = prev.wrapping_add(self.i64()?);
                    out.push(wire::Value::Number(prev as f64 / p));
                }
            }
            _ => return Err(BlockError::Corrupt),
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(ts: i64, seq: i64, pairs: &[(&str, wire::Value)]) -> RawSample {
        RawSample {
            ts,
            seq,
            metrics: pairs.iter().map(|(k, v)| ((*k).to_owned(), v.clone())).collect(),
            suspect: None,
        }
    }

    fn num(v: f64) -> wire::Value {
        wire::Value::Number(v)
    }

    #[test]
    fn every_value_comes_back_bit_for_bit() {
        let mut samples = Vec::new();
        for i in 0..600i64 {
            let mut s = sample(
                1_764_000_000_000 + i * 1000 + (i % 7), // a jittery poll
                10_000 + i * 3,
                &[
                    ("ac_power", num((i * 37 % 5000) as f64)),
                    ("pv1_voltage", num(600.0 + (i % 13) as f64 * 0.1)),
                    ("frequency", num(49.98 + (i % 5) as f64 * 0.01)),
                    ("energy_total", num(1_234_567.0 + i as f64 * 0.25)),
                    ("efficiency", num(1.0 / 3.0 + i as f64)),
                    ("minus_zero", num(-0.0)),
                    ("huge", num(1e300 * (i + 1) as f64)),
                ],
            );
            if i % 10 == 0 {
                s.metrics
                    .insert("status_text".into(), wire::Value::Text(format!("state {i}")));
                s.metrics.insert("temperature".into(), num(-12.5));
                s.suspect = Some(format!(r#"{{"pv2_voltage":{}}}"#, 9000 + i));
            }
            if i % 3 == 0 {
                s.metrics.insert("mixed".into(), wire::Value::Text("x".into()));
            } else {
                s.metrics.insert("mixed".into(), num(i as f64));
            }
            samples.push(s);
        }
        let block = encode(&samples).unwrap();
        let back = decode(&block).unwrap();
        assert_eq!(back.len(), samples.len());
        for (a, b) in samples.iter().zip(&back) {
            assert_eq!(a.ts, b.ts);
            assert_eq!(a.seq, b.seq);
            assert_eq!(a.suspect, b.suspect);
            assert_eq!(a.metrics.len(), b.metrics.len());
            for (k, v) in &a.metrics {
                match (v, &b.metrics[k]) {
                    (wire::Value::Number(x), wire::Value::Number(y)) => {
                        assert_eq!(x.to_bits(), y.to_bits(), "{k} at {}", a.ts);
                    }
                    (x, y) => assert_eq!(x, y),
                }
            }
        }
    }

    #[test]
    fn decimal_columns_use_the_fewest_places() {
        assert_eq!(decimal_form(&[1.0, 2.0, -3.0]).unwrap().0, 0);
        assert_eq!(decimal_form(&[230.1, 229.9]).unwrap(), (1, vec![2301, 2299]));
        assert_eq!(decimal_form(&[49.98, 50.0]).unwrap().0, 2);
        assert!(decimal_form(&[1.0 / 3.0]).is_none());
        assert!(decimal_form(&[-0.0]).is_none());
    }

    #[test]
    fn a_steady_hour_packs_into_little_space() {
        // One hour at 1 s of 30 slowly varying register values: far under 2.5 bytes a point.
        let samples: Vec<RawSample> = (0..3600i64)
            .map(|i| {
                let mut s = sample(1_764_000_000_000 + i * 1000, i, &[]);
                for m in 0..30 {
                    let wobble = ((i * 7919 + m * 104_729) % 5) as f64;
                    s.metrics
                        .insert(format!("m{m}"), num(400.0 + m as f64 + wobble * 0.1));
                }
                s
            })
            .collect();
        let block = encode(&samples).unwrap();
        let per_point = block.len() as f64 / (3600.0 * 30.0);
        assert!(per_point < 1.0, "{per_point} bytes per point");
    }

    #[test]
    fn corrupt_blocks_are_refused_not_panicked_on() {
        let block = encode(&[sample(1, 1, &[("a", num(1.5))])]).unwrap();
        assert!(matches!(decode(&[]), Err(BlockError::Corrupt)));
        assert!(matches!(decode(&[7, 1, 2]), Err(BlockError::Codec(7))));
        assert!(decode(&block[..block.len() - 2]).is_err());
        let garbage = [
            vec![ZSTD],
            zstd::bulk::compress(&[VERSION, 0xff, 0xff, 0xff, 0x7f], 1).unwrap(),
        ]
        .concat();
        assert!(decode(&garbage).is_err());
    }

    #[test]
    fn packed_samples_win_over_a_replayed_row() {
        let packed = vec![sample(1, 1, &[("a", num(1.0))]), sample(3, 3, &[("a", num(3.0))])];
        let newer = vec![sample(2, 2, &[("a", num(2.0))]), sample(3, 9, &[("a", num(9.0))])];
        let merged = merge(packed, newer);
        assert_eq!(
            merged.iter().map(|s| (s.ts, s.seq)).collect::<Vec<_>>(),
            vec![(1, 1), (2, 2), (3, 3)]
        );
    }
}
