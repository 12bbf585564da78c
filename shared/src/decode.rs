//! Generic register decoding: words read from a device → typed raw value → canonical value.
//!
//! The same code serves every map; it is also used in reverse (`encode`) by the edge simulator,
//! so what a simulated device serves and what the poller decodes go through one definition of
//! each type's layout.

use crate::regmap::{DataType, Limits, Order, Point, Sentinels};
use crate::wire::Value;

/// A register value before scaling.
#[derive(Debug, Clone, PartialEq)]
pub enum Raw {
    Int(i128),
    Float(f32),
    Text(String),
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DecodeError {
    #[error("{metric}: expected {expected} registers, got {got}")]
    Length {
        metric: String,
        expected: u16,
        got: usize,
    },
    #[error("{metric}: scale factor {sf} is outside -10..10")]
    ScaleFactor { metric: String, sf: i16 },
    #[error("{metric}: value {value:?} does not fit type {data_type:?}")]
    Range {
        metric: String,
        value: Raw,
        data_type: DataType,
    },
}

/// Puts the words of a multi-register value into most-significant-first order with big-endian
/// bytes, whatever the device's orders are.
fn normalise(words: &[u16], limits: &Limits) -> Vec<u16> {
    let mut w: Vec<u16> = match limits.byte_order {
        Order::Big => words.to_vec(),
        Order::Little => words.iter().map(|x| x.swap_bytes()).collect(),
    };
    if limits.word_order == Order::Little {
        w.reverse();
    }
    w
}

fn join(words: &[u16]) -> u64 {
    words.iter().fold(0u64, |acc, &w| acc << 16 | u64::from(w))
}

/// Raw value of `point` from its registers; `None` when the device says "not implemented".
pub fn raw(point: &Point, limits: &Limits, words: &[u16]) -> Result<Option<Raw>, DecodeError> {
    if words.len() != usize::from(point.words) {
        return Err(DecodeError::Length {
            metric: point.metric.clone(),
            expected: point.words,
            got: words.len(),
        });
    }
    let sunspec = limits.sentinels == Sentinels::SunSpec;
    if point.data_type == DataType::String {
        // Strings are byte sequences in register order; only the byte order within a word applies.
        let bytes: Vec<u8> = words
            .iter()
            .flat_map(|w| match limits.byte_order {
                Order::Big => w.to_be_bytes(),
                Order::Little => w.to_le_bytes(),
            })
            .collect();
        let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
        let text = String::from_utf8_lossy(&bytes[..end]).trim().to_string();
        // SunSpec marks an unimplemented string with all-NUL registers.
        return Ok(if text.is_empty() && sunspec {
            None
        } else {
            Some(Raw::Text(text))
        });
    }
    let bits = join(&normalise(words, limits));
    let value = match point.data_type {
        DataType::U16 => {
            if sunspec && bits == 0xFFFF {
                return Ok(None);
            }
            Raw::Int(i128::from(bits as u16))
        }
        DataType::I16 => {
            if sunspec && bits == 0x8000 {
                return Ok(None);
            }
            Raw::Int(i128::from(bits as u16 as i16))
        }
        DataType::U32 => {
            if sunspec && bits == 0xFFFF_FFFF {
                return Ok(None);
            }
            Raw::Int(i128::from(bits as u32))
        }
        DataType::I32 => {
            if sunspec && bits == 0x8000_0000 {
                return Ok(None);
            }
            Raw::Int(i128::from(bits as u32 as i32))
        }
        DataType::U64 => {
            if sunspec && bits == u64::MAX {
                return Ok(None);
            }
            Raw::Int(i128::from(bits))
        }
        DataType::Acc32 | DataType::Acc64 => {
            if sunspec && bits == 0 {
                return Ok(None);
            }
            Raw::Int(i128::from(bits))
        }
        DataType::F32 => {
            let f = f32::from_bits(bits as u32);
            if f.is_nan() {
                return Ok(None);
            }
            Raw::Float(f)
        }
        DataType::String => unreachable!("handled above"),
    };
    Ok(Some(value))
}

/// Decodes a SunSpec scale-factor register; `None` when it is "not implemented" (0x8000).
pub fn scale_factor(point: &Point, word: u16) -> Result<Option<i16>, DecodeError> {
    let sf = word as i16;
    if sf == i16::MIN {
        return Ok(None);
    }
    if !(-10..=10).contains(&sf) {
        return Err(DecodeError::ScaleFactor {
            metric: point.metric.clone(),
            sf,
        });
    }
    Ok(Some(sf))
}

/// Canonical value of a raw reading: raw × scale × unit factor × 10^sf.
pub fn scaled(point: &Point, raw: &Raw, sf: Option<i16>) -> Value {
    let x = match raw {
        Raw::Text(t) => return Value::Text(t.clone()),
        Raw::Int(i) => *i as f64,
        Raw::Float(f) => f64::from(*f),
    };
    let mut v = x * point.factor();
    // Divide by an exact power of ten rather than multiply by an inexact 0.1, 0.01...
    match sf {
        Some(s) if s < 0 => v /= 10f64.powi(i32::from(-s)),
        Some(s) if s > 0 => v *= 10f64.powi(i32::from(s)),
        _ => {}
    }
    Value::Number(v)
}

/// Decodes a point completely. `sf_word` is the register of its scale factor, when it has one.
/// A point whose scale factor is "not implemented" has no value.
pub fn decode(
    point: &Point,
    limits: &Limits,
    words: &[u16],
    sf_word: Option<u16>,
) -> Result<Option<Value>, DecodeError> {
    let sf = match (point.scale_factor, sf_word) {
        (Some(_), Some(w)) => match scale_factor(point, w)? {
            Some(sf) => Some(sf),
            None => return Ok(None),
        },
        _ => None,
    };
    Ok(raw(point, limits, words)?.map(|r| canonical(point, limits, &r, sf)))
}

/// [`scaled`], then the rules that depend on the metric (the SunSpec power factor's unit).
pub fn canonical(point: &Point, limits: &Limits, raw: &Raw, sf: Option<i16>) -> Value {
    match scaled(point, raw, sf) {
        Value::Number(v) if point.metric == "power_factor" && limits.sentinels == Sentinels::SunSpec => {
            Value::Number(power_factor_ratio(v))
        }
        other => other,
    }
}

/// SunSpec devices disagree on what the PF point of models 103/203 holds: the model says percent,
/// many inverters serve a ratio (995 with PF_SF −3 = 0.995). After the scale factor the
/// magnitude tells them apart: |v| ≤ 1 is a ratio, 1 < |v| ≤ 100 a percent (÷100). A percent PF
/// of at most 1 % cannot be told from a ratio and is read as one; no inverter runs there. Above
/// 100 the value is left as it is, and the plausibility check marks it.
pub fn power_factor_ratio(v: f64) -> f64 {
    if v.abs() > 1.0 && v.abs() <= 100.0 {
        v / 100.0
    } else {
        v
    }
}

/// The registers a device would hold for `raw` (the inverse of [`raw`]); the simulator's half.
pub fn encode(point: &Point, limits: &Limits, value: &Raw) -> Result<Vec<u16>, DecodeError> {
    let range_err = || DecodeError::Range {
        metric: point.metric.clone(),
        value: value.clone(),
        data_type: point.data_type,
    };
    let n = usize::from(point.words);
    if point.data_type == DataType::String {
        let Raw::Text(t) = value else {
            return Err(range_err());
        };
        let mut bytes = t.as_bytes().to_vec();
        if bytes.len() > n * 2 {
            return Err(range_err());
        }
        bytes.resize(n * 2, 0);
        return Ok(bytes
            .chunks(2)
            .map(|c| match limits.byte_order {
                Order::Big => u16::from_be_bytes([c[0], c[1]]),
                Order::Little => u16::from_le_bytes([c[0], c[1]]),
            })
            .collect());
    }
    let bits: u64 = match (point.data_type, value) {
        (DataType::F32, Raw::Float(f)) => u64::from(f.to_bits()),
        (DataType::U16, Raw::Int(i)) => u64::from(u16::try_from(*i).map_err(|_| range_err())?),
        (DataType::I16, Raw::Int(i)) => u64::from(i16::try_from(*i).map_err(|_| range_err())? as u16),
        (DataType::U32 | DataType::Acc32, Raw::Int(i)) => {
            u64::from(u32::try_from(*i).map_err(|_| range_err())?)
        }
        (DataType::I32, Raw::Int(i)) => u64::from(i32::try_from(*i).map_err(|_| range_err())? as u32),
        (DataType::U64 | DataType::Acc64, Raw::Int(i)) => u64::try_from(*i).map_err(|_| range_err())?,
        _ => return Err(range_err()),
    };
    // Most significant word first, then into the device's orders (both swaps are involutions).
    let mut words: Vec<u16> = (0..n).rev().map(|k| (bits >> (16 * k)) as u16).collect();
    if limits.word_order == Order::Little {
        words.reverse();
    }
    if limits.byte_order == Order::Little {
        for w in &mut words {
            *w = w.swap_bytes();
        }
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::Unit;
    use crate::regmap::{Function, Location};

    fn point(data_type: DataType, unit: &str, scale: f64, words: u16) -> Point {
        Point {
            metric: "m".into(),
            unit: Unit::parse(unit).unwrap(),
            location: Location::Absolute(0),
            function: Function::Holding,
            data_type,
            words,
            scale,
            scale_factor: None,
            writable: false,
            when: Vec::new(),
            line: 1,
        }
    }

    fn limits(word_order: Order, byte_order: Order, sentinels: Sentinels) -> Limits {
        Limits {
            max_block: 125,
            function: Function::Holding,
            word_order,
            byte_order,
            max_gap: 0,
            sentinels,
        }
    }

    const BIG: Limits = Limits {
        max_block: 125,
        function: Function::Holding,
        word_order: Order::Big,
        byte_order: Order::Big,
        max_gap: 0,
        sentinels: Sentinels::None,
    };

    fn num(v: Option<Value>) -> f64 {
        match v {
            Some(Value::Number(x)) => x,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn integers_in_every_order_match_hand_computed_values() {
        // Huawei active power: I32, gain 1000, kW; 0xFFFF_FC18 = -1000 → -1 kW → -1000 W.
        let p = point(DataType::I32, "kW", 0.001, 2);
        assert_eq!(num(decode(&p, &BIG, &[0xFFFF, 0xFC18], None).unwrap()), -1000.0);
        // 0x0001_86A0 = 100000 counts = 100 kW.
        assert_eq!(num(decode(&p, &BIG, &[0x0001, 0x86A0], None).unwrap()), 100_000.0);
        // Sungrow style: low word first.
        let little = limits(Order::Little, Order::Big, Sentinels::None);
        assert_eq!(
            num(decode(&p, &little, &[0x86A0, 0x0001], None).unwrap()),
            100_000.0
        );
        // Bytes swapped inside each word as well.
        let swapped = limits(Order::Little, Order::Little, Sentinels::None);
        assert_eq!(
            num(decode(&p, &swapped, &[0xA086, 0x0100], None).unwrap()),
            100_000.0
        );
        // u16 voltage gain 10: 2305 → 230.5 V.
        let v = point(DataType::U16, "V", 0.1, 1);
        assert_eq!(num(decode(&v, &BIG, &[2305], None).unwrap()), 230.5);
        let i = point(DataType::I16, "A", 0.01, 1);
        assert_eq!(num(decode(&i, &BIG, &[0xFF9C], None).unwrap()), -1.0);
        let e = point(DataType::U64, "Wh", 1.0, 4);
        assert_eq!(
            num(decode(&e, &BIG, &[0, 1, 0, 0], None).unwrap()),
            4_294_967_296.0
        );
    }

    #[test]
    fn sunspec_power_factor_is_a_ratio_whether_served_as_ratio_or_percent() {
        let mut pf = point(DataType::I16, "1", 1.0, 1);
        pf.metric = "power_factor".into();
        pf.scale_factor = Some(Location::Absolute(1));
        let sunspec = limits(Order::Big, Order::Big, Sentinels::SunSpec);
        // 995 with PF_SF −3: a ratio.
        assert_eq!(
            num(decode(&pf, &sunspec, &[995], Some((-3i16) as u16)).unwrap()),
            0.995
        );
        // 9950 with PF_SF −2: 99.5 %.
        assert_eq!(
            num(decode(&pf, &sunspec, &[9950], Some((-2i16) as u16)).unwrap()),
            0.995
        );
        // Leading (negative) −85.0 %.
        assert_eq!(
            num(decode(&pf, &sunspec, &[(-850i16) as u16], Some((-1i16) as u16)).unwrap()),
            -0.85
        );
        // Impossible either way: left for the plausibility check to mark.
        assert_eq!(num(decode(&pf, &sunspec, &[2070], Some(0)).unwrap()), 2070.0);
        // Other maps state their scale exactly: no guessing.
        assert_eq!(num(decode(&pf, &BIG, &[50], Some(0)).unwrap()), 50.0);
    }

    #[test]
    fn floats_and_strings() {
        // SDM630: 230.0 V as IEEE754 big-endian is 0x4366_0000.
        let v = point(DataType::F32, "V", 1.0, 2);
        assert_eq!(num(decode(&v, &BIG, &[0x4366, 0x0000], None).unwrap()), 230.0);
        // kWh float → Wh.
        let e = point(DataType::F32, "kWh", 1.0, 2);
        assert_eq!(num(decode(&e, &BIG, &[0x3FC0, 0], None).unwrap()), 1500.0);
        assert_eq!(
            decode(&v, &BIG, &[0x7FC0, 0], None).unwrap(),
            None,
            "NaN is absent"
        );
        let s = point(DataType::String, "text", 1.0, 4);
        let words = [
            u16::from_be_bytes(*b"SU"),
            u16::from_be_bytes(*b"N2"),
            u16::from_be_bytes(*b"K\0"),
            0,
        ];
        assert_eq!(
            decode(&s, &BIG, &words, None).unwrap(),
            Some(Value::Text("SUN2K".into()))
        );
    }

    #[test]
    fn sunspec_scale_factors_and_not_implemented_sentinels() {
        let ss = limits(Order::Big, Order::Big, Sentinels::SunSpec);
        let mut w = point(DataType::I16, "W", 1.0, 1);
        w.scale_factor = Some(Location::SunSpec {
            model: 103,
            offset: 15,
        });
        // 12345 with W_SF = -1 → 1234.5 W; with +2 → 1_234_500 W.
        assert_eq!(
            num(decode(&w, &ss, &[12345], Some((-1i16) as u16)).unwrap()),
            1234.5
        );
        assert_eq!(num(decode(&w, &ss, &[12345], Some(2)).unwrap()), 1_234_500.0);
        assert_eq!(
            decode(&w, &ss, &[0x8000], Some(0)).unwrap(),
            None,
            "int16 not implemented"
        );
        assert_eq!(
            decode(&w, &ss, &[100], Some(0x8000)).unwrap(),
            None,
            "scale factor not implemented"
        );
        assert!(matches!(
            decode(&w, &ss, &[100], Some(11)),
            Err(DecodeError::ScaleFactor { .. })
        ));
        let u = point(DataType::U16, "V", 1.0, 1);
        assert_eq!(decode(&u, &ss, &[0xFFFF], None).unwrap(), None);
        assert_eq!(
            num(decode(&u, &BIG, &[0xFFFF], None).unwrap()),
            65535.0,
            "vendor maps keep 0xFFFF"
        );
        let acc = point(DataType::Acc32, "Wh", 1.0, 2);
        assert_eq!(decode(&acc, &ss, &[0, 0], None).unwrap(), None);
        assert_eq!(
            decode(&point(DataType::U32, "Wh", 1.0, 2), &ss, &[0xFFFF, 0xFFFF], None).unwrap(),
            None
        );
        assert_eq!(
            decode(&point(DataType::I32, "W", 1.0, 2), &ss, &[0x8000, 0], None).unwrap(),
            None
        );
        assert!(matches!(
            decode(&u, &ss, &[1, 2], None),
            Err(DecodeError::Length { .. })
        ));
    }

    #[test]
    fn encode_is_the_inverse_of_raw_in_every_order() {
        for (wo, bo) in [
            (Order::Big, Order::Big),
            (Order::Little, Order::Big),
            (Order::Big, Order::Little),
            (Order::Little, Order::Little),
        ] {
            let l = limits(wo, bo, Sentinels::None);
            for (t, words, v) in [
                (DataType::I32, 2, Raw::Int(-123_456)),
                (DataType::U64, 4, Raw::Int(0x0102_0304_0506)),
                (DataType::F32, 2, Raw::Float(-12.5)),
                (DataType::I16, 1, Raw::Int(-2)),
                (DataType::String, 3, Raw::Text("abcde".into())),
            ] {
                let p = point(t, if t == DataType::String { "text" } else { "W" }, 1.0, words);
                let enc = encode(&p, &l, &v).unwrap();
                assert_eq!(raw(&p, &l, &enc).unwrap(), Some(v.clone()), "{t:?} {wo:?} {bo:?}");
            }
        }
        let p = point(DataType::U16, "W", 1.0, 1);
        assert!(encode(&p, &BIG, &Raw::Int(70_000)).is_err());
    }
}
