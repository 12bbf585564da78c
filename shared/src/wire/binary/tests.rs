//! Round trips, exactness, and hostile input of the binary batch encoding.

use super::*;
use crate::varint::{put_i64 as put_signed, put_u64 as put_varint};
use crate::wire::{self, Encoding, WireError};

fn sample(seq: u64, device: &str, ts: i64, values: &[(&str, Value)]) -> Sample {
    Sample {
        seq,
        device: device.into(),
        ts,
        values: values.iter().map(|(k, v)| (k.to_string(), v.clone())).collect(),
        suspect: BTreeMap::new(),
    }
}

fn n(x: f64) -> Value {
    Value::Number(x)
}

/// An inverter, a meter and a weather station polled together, as a gateway queues them.
fn plant_batch(rounds: u64) -> TelemetryBatch {
    let mut samples = Vec::new();
    let mut seq = 40;
    for r in 0..rounds {
        let ts = 1_764_000_000_000 + r as i64 * 1_000 + (r as i64 % 3);
        seq += 1;
        let mut inv = sample(
            seq,
            "inv-1",
            ts,
            &[
                ("ac_power", n((52_000 + r * 7) as f64)),
                ("grid_voltage_ab", n((4012 + r % 5) as f64 * 0.1)),
                ("grid_frequency", n((5001 - r % 2) as f64 / 100.0)),
                ("pv12_current", n((812 + r) as f64 * 0.01)),
                ("energy_total", n(1.25e9 + r as f64 * 10.0)),
                ("power_factor", n(0.995)),
                ("efficiency", n(98.123_456_789_123)),
                ("status_code", n(512.0)),
                ("serial_number", Value::Text("HV2231234567".into())),
                ("vendor_register_7", n(-3.0)),
            ],
        );
        if r % 4 == 1 {
            inv.suspect.insert("heatsink_temperature".into(), n(-273.15));
        }
        seq += 2; // a hole: that sample was acknowledged or dropped
        let meter = sample(
            seq,
            "meter-1",
            ts + 5,
            &[("ac_power", n(-1234.5)), ("energy_import", n(7.0e7))],
        );
        seq += 1;
        let weather = sample(
            seq,
            "wx-1",
            ts + 9,
            &[
                ("irradiance_poa", n(f64::from(0.1f32))),
                ("ambient_temperature", n(-0.0)),
            ],
        );
        samples.extend([inv, meter, weather]);
    }
    TelemetryBatch::new("gw-1", rounds.is_multiple_of(2), samples)
}

fn bits(b: &TelemetryBatch) -> Vec<(u64, String, u64)> {
    b.samples
        .iter()
        .flat_map(|s| {
            let good = s.values.iter().map(move |(k, v)| (s.seq, k.clone(), v));
            let bad = s.suspect.iter().map(move |(k, v)| (s.seq, format!("!{k}"), v));
            good.chain(bad)
        })
        .map(|(seq, k, v)| match v {
            Value::Number(x) => (seq, k, x.to_bits()),
            Value::Text(t) => (seq, format!("{k}={t}"), 0),
        })
        .collect()
}

#[test]
fn a_plant_batch_round_trips_bit_for_bit_in_a_fraction_of_the_json() {
    for rounds in [1, 10, 100] {
        let b = plant_batch(rounds);
        let bytes = encode(&b).unwrap();
        assert!(is_binary(&bytes));
        let back = decode(&bytes).unwrap();
        assert_eq!(back, b);
        assert_eq!(bits(&back), bits(&b), "every number bit for bit, -0.0 included");
        let json = wire::to_bytes(&b).unwrap();
        assert!(
            bytes.len() * 3 < json.len(),
            "{rounds} rounds: {} binary vs {} JSON bytes",
            bytes.len(),
            json.len()
        );
        assert_eq!(wire::parse_batch(&bytes).unwrap(), b);
        // JSON still reads (serde_json's default float parsing may land one ulp away, which
        // the binary encoding never does).
        assert_eq!(wire::parse_batch(&json).unwrap().batch, b.batch);
        assert_eq!(Encoding::of(&bytes), Encoding::Binary);
        assert_eq!(Encoding::of(&json), Encoding::Json);
    }
}

#[test]
fn device_integers_travel_as_mantissa_and_scale() {
    // A map's `scale = 0.1` multiplies by the f64 nearest 0.1; SunSpec divides by 10^sf.
    assert_ne!(3.0 * 0.1, 3.0 / 10.0);
    assert_eq!(scaled(3.0 * 0.1), Some((10, 3)));
    assert_eq!(scaled(2345.0 / 10.0), Some((1, 2345)));
    assert_eq!(scaled(4999.0 / 100.0), Some((2, 4999)));
    assert_eq!(scaled(812.0 * 0.01), Some((11, 812)));
    assert_eq!(scaled(-7.0), Some((0, -7)));
    assert_eq!(scaled(0.0), Some((0, 0)));
    assert_eq!(scaled(-0.0), None, "its sign would be lost");
    assert_eq!(scaled(std::f64::consts::PI), None);
    assert_eq!(scaled(f64::NAN), None);
    assert_eq!(scaled(1e300), None);
    // One value of each: a scaled one costs its tag and a short varint.
    let one = |x: f64| {
        let b = TelemetryBatch::new("g", false, vec![sample(1, "d", 0, &[("ac_power", n(x))])]);
        let bytes = encode(&b).unwrap();
        assert_eq!(decode(&bytes).unwrap(), b);
        bytes.len()
    };
    assert!(one(234.5) < one(234.56789), "{} {}", one(234.5), one(234.56789));
    assert_eq!(
        one(f64::from(0.3f32)) + 4,
        one(0.3f64.sqrt()),
        "f32 when exact, else f64"
    );
}

#[test]
fn random_batches_round_trip() {
    let mut rng = fastrand::Rng::with_seed(19);
    let names = [
        "ac_power",
        "pv3_voltage",
        "mppt12_power",
        "ac_current_b",
        "grid_voltage_ca",
        "fault_word2",
        "model_name",
        "vendor_x",
        "\u{6e29}\u{5ea6}",
    ];
    for _ in 0..2_000 {
        let mut seq = rng.u64(1..1 << 40);
        let count = rng.usize(1..30);
        let mut samples = Vec::new();
        for _ in 0..count {
            let mut s = sample(seq, ["a", "b", "c"][rng.usize(..3)], rng.i64(..), &[]);
            for name in names {
                let v = match rng.u8(..8) {
                    0 => continue,
                    1 => Value::Text("x".repeat(rng.usize(..20))),
                    2 => n(f64::from_bits(rng.u64(..))),
                    3 => n(rng.i64(-(1 << 53)..=(1 << 53)) as f64),
                    4 => n(rng.i32(..) as f64 * 0.1),
                    5 => n(rng.i32(..) as f64 / 10f64.powi(rng.i32(1..=9))),
                    6 => n(f64::from(rng.f32())),
                    _ => n(rng.f64() * 1e6 - 5e5),
                };
                if rng.bool() {
                    s.values.insert(name.into(), v);
                } else {
                    s.suspect.insert(name.into(), v);
                }
            }
            samples.push(s);
            seq += rng.u64(1..1000);
        }
        let b = TelemetryBatch::new("gw_r", rng.bool(), samples);
        let back = decode(&encode(&b).unwrap()).unwrap();
        assert_eq!(bits(&back), bits(&b));
        assert_eq!(
            (&back.batch, back.replay, back.samples.len()),
            (&b.batch, b.replay, b.samples.len())
        );
    }
}

#[test]
fn truncated_garbled_and_hostile_payloads_are_errors_never_panics() {
    let mut rng = fastrand::Rng::with_seed(7);
    for rounds in [1, 30] {
        let bytes = encode(&plant_batch(rounds)).unwrap();
        for cut in 0..bytes.len() {
            assert!(wire::parse_batch(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        for _ in 0..5_000 {
            let mut g = bytes.clone();
            for _ in 0..rng.usize(1..4) {
                let at = rng.usize(2..g.len());
                g[at] = rng.u8(..);
            }
            // Either refused or a batch that keeps the batch rules; never a panic.
            if let Ok(b) = wire::parse_batch(&g) {
                assert!(wire::Message::check(&b).is_ok());
            }
        }
    }
    // An uncompressed body, so garbling hits the structure rather than deflate's checks.
    let small = TelemetryBatch::new("g", false, vec![sample(1, "d", 5, &[("ac_power", n(1.5))])]);
    let bytes = encode(&small).unwrap();
    assert_eq!(bytes[3] & FLAG_DEFLATE, 0);
    for at in HEADER..bytes.len() {
        for byte in [0x00, 0x7f, 0x80, 0xff] {
            let mut g = bytes.clone();
            g[at] = byte;
            let _ = wire::parse_batch(&g);
        }
    }
    for _ in 0..20_000 {
        let mut junk = MAGIC.to_vec();
        junk.push(FORMAT_VERSION);
        junk.push(rng.u8(..3));
        junk.extend((0..rng.usize(..64)).map(|_| rng.u8(..)));
        let _ = wire::parse_batch(&junk);
    }
    let mut v2 = bytes.clone();
    v2[2] = 2;
    assert!(matches!(
        wire::parse_batch(&v2),
        Err(WireError::Binary(BinaryError::Version(2)))
    ));
    let mut flags = bytes.clone();
    flags[3] |= 0x40;
    assert_eq!(decode(&flags), Err(BinaryError::Flags(0x40)));
    let mut trailing = bytes.clone();
    trailing.push(0);
    assert_eq!(decode(&trailing), Err(BinaryError::Trailing(1)));
    // A body that inflates beyond the limit (a few kB of deflate → megabytes of zeros).
    let bomb = miniz_oxide::deflate::compress_to_vec(&vec![0u8; MAX_BODY_BYTES + 1], 9);
    let mut payload = vec![MAGIC[0], MAGIC[1], FORMAT_VERSION, FLAG_DEFLATE];
    payload.extend(bomb);
    assert!(payload.len() < wire::MAX_PAYLOAD_BYTES);
    assert_eq!(decode(&payload), Err(BinaryError::Inflate));
    // One column repeated by one-byte cells cannot make the hub build more than MAX_VALUES.
    let mut body = Vec::new();
    put_str(&mut body, "g", 64).unwrap();
    put_varint(&mut body, 1);
    put_signed(&mut body, 0);
    put_varint(&mut body, 1);
    put_str(&mut body, "d", MAX_NAME).unwrap();
    put_varint(&mut body, 1);
    put_varint(&mut body, 1); // ac_power
    put_varint(&mut body, MAX_SAMPLES as u64);
    for i in 0..MAX_SAMPLES {
        put_varint(&mut body, u64::from(i > 0));
        put_signed(&mut body, 0);
        body.push(KIND_SCALED);
        put_signed(&mut body, 0);
    }
    let ok = read_body(&body, false).unwrap();
    assert_eq!(ok.samples.len(), MAX_SAMPLES);
    body.clear();
    put_str(&mut body, "g", 64).unwrap();
    put_varint(&mut body, 1);
    put_signed(&mut body, 0);
    put_varint(&mut body, 1);
    put_str(&mut body, "d", MAX_NAME).unwrap();
    put_varint(&mut body, 8);
    for id in 1..=8 {
        put_varint(&mut body, id); // the first eight ids, phase b where indexed
        if has_index(id as u16) {
            put_varint(&mut body, 1);
        }
    }
    put_varint(&mut body, MAX_SAMPLES as u64);
    for i in 0..MAX_SAMPLES {
        put_varint(&mut body, u64::from(i > 0));
        put_signed(&mut body, 0);
        body.extend([KIND_SCALED; 8].iter().flat_map(|t| [*t, 0]));
    }
    assert_eq!(read_body(&body, false).err(), Some(BinaryError::Limit("values")));
}

#[test]
fn what_the_hub_would_refuse_is_not_encoded() {
    let mut s = sample(1, "d", 0, &[("ac_power", n(1.0))]);
    s.suspect.insert("ac_power".into(), n(-1e12));
    let b = TelemetryBatch::new("g", false, vec![s]);
    assert!(encode(&b).is_err(), "both good and suspect");
    let long = TelemetryBatch::new("g", false, vec![sample(1, &"d".repeat(300), 0, &[])]);
    assert_eq!(encode(&long), Err(BinaryError::Limit("name length")));
    let mut swapped = plant_batch(3);
    swapped.samples.swap(0, 3);
    assert!(wire::batch_to_bytes(&swapped, Encoding::Binary).is_err());
    // An id this side does not know (a newer gateway's metric) is refused, not guessed.
    let mut body = Vec::new();
    put_str(&mut body, "g", 64).unwrap();
    put_varint(&mut body, 1);
    put_signed(&mut body, 0);
    put_varint(&mut body, 1);
    put_str(&mut body, "d", MAX_NAME).unwrap();
    put_varint(&mut body, 1);
    put_varint(&mut body, 9_999);
    put_varint(&mut body, 1);
    put_varint(&mut body, 0);
    put_signed(&mut body, 0);
    body.push(KIND_REPEAT);
    assert_eq!(read_body(&body, false).err(), Some(BinaryError::Metric(9_999, 0)));
}
