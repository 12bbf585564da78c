//! Uplink bytes per sample and per point, JSON against the binary encoding, for the demo's
//! devices: a SunSpec inverter (the demo's Qinghai site), a SunSpec meter and a SunSpec weather
//! station, plus a Huawei inverter and one poll round of all three SunSpec devices together (what
//! one gateway's batch holds). Values are what the agent publishes: the simulator's plant model
//! (sun, clouds, counters) at one-second steps through midday, read block by block as a poll
//! reads them and decoded by the generic decoder, quality marks applied. Batches of 1, 10 and
//! 100 samples per device; then encode and decode throughput of 100-sample batches.
//!
//! Knobs: BENCH_SECONDS (3) per throughput figure, BENCH_START_MS (a clear midday at the
//! default site, 2026-06-21 04:00 UTC).

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use pv_bench::{figure, knob};
use pv_edge::device::{Layout, SUNS, SunSpecChain};
use pv_edge::sim::{SUNSPEC_BASE, SimDevice, plant::PlantOptions, sky::Site};
use pv_shared::regmap::RegisterMap;
use pv_shared::wire::{self, Encoding, Sample, TelemetryBatch, Value};

/// The SunSpec chain the simulator laid out, found as the poller would.
fn chain(dev: &SimDevice) -> SunSpecChain {
    let mut chain = SunSpecChain::new();
    let f = dev.map.limits.function;
    if dev.map.sunspec.is_empty()
        || [dev.register(f, SUNSPEC_BASE), dev.register(f, SUNSPEC_BASE + 1)] != SUNS.map(Some)
    {
        return chain;
    }
    let mut at = u32::from(SUNSPEC_BASE) + 2;
    while let (Ok(a), Some(id), Some(len)) = (
        u16::try_from(at),
        dev.register(f, at as u16),
        dev.register(f, (at + 1) as u16),
    ) {
        if id == 0xFFFF {
            break;
        }
        chain.insert(id, (a, len));
        at += 2 + u32::from(len);
    }
    chain
}

/// One simulated device and how a poll reads it.
struct Polled {
    id: String,
    map: Arc<RegisterMap>,
    dev: SimDevice,
    layout: Layout,
}

impl Polled {
    fn new(dir: &Path, map: &str, id: &str, seed: u64) -> anyhow::Result<Polled> {
        let map = Arc::new(RegisterMap::load(&dir.join(format!("{map}.toml")))?);
        let dev = SimDevice::realistic(
            map.clone(),
            seed,
            Arc::new(Site::default()),
            PlantOptions::default(),
        )?;
        let layout = Layout::new(&map, &chain(&dev));
        Ok(Polled {
            id: id.into(),
            map,
            dev,
            layout,
        })
    }

    fn poll(&self, ts: i64, seq: u64, noise: Option<&mut u64>) -> Sample {
        self.dev.refresh_at(ts);
        let reads: Vec<Option<Vec<u16>>> = self
            .layout
            .blocks
            .iter()
            .map(|b| {
                (0..b.count)
                    .map(|k| self.dev.register(b.function, b.start + k))
                    .collect()
            })
            .collect();
        let (values, _) = self.layout.decode(&self.map, &reads);
        let mut s = Sample {
            seq,
            device: self.id.clone(),
            ts,
            values: values.into_iter().collect::<BTreeMap<_, _>>(),
            suspect: BTreeMap::new(),
        };
        if let Some(state) = noise {
            for (name, v) in s.values.iter_mut() {
                let steady = name.contains("energy") || name.contains("code") || name.contains("word");
                if let (Value::Number(x), false) = (&mut *v, steady) {
                    // xorshift64: reproducible without another dependency.
                    *state ^= *state << 13;
                    *state ^= *state >> 7;
                    *state ^= *state << 17;
                    let u = (*state >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0;
                    *x = (*x * (1.0 + 0.002 * u) * 100.0).round() / 100.0;
                }
            }
        }
        s.mark_implausible();
        s
    }
}

/// `rounds` polls one second apart of every device in `devices`, interleaved as a gateway
/// queues them.
fn batch(devices: &[&Polled], start: i64, rounds: usize, noisy: bool) -> TelemetryBatch {
    let mut samples = Vec::new();
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut seq = 1;
    for r in 0..rounds {
        for (k, d) in devices.iter().enumerate() {
            // Polls of one round finish a few milliseconds apart.
            let noise = noisy.then_some(&mut state);
            samples.push(d.poll(start + r as i64 * 1_000 + k as i64 * 7, seq, noise));
            seq += 1;
        }
    }
    TelemetryBatch::new("GW-DEMO-QH", false, samples)
}

fn main() -> anyhow::Result<()> {
    let seconds: u64 = knob("BENCH_SECONDS", 3);
    let start: i64 = knob("BENCH_START_MS", 1_782_014_400_000);
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../firmware-configs");
    let inverter = Polled::new(&dir, "sunspec-inverter", "DEMO-QH-INV-01", 1)?;
    let meter = Polled::new(&dir, "sunspec-meter", "DEMO-QH-MTR-01", 2)?;
    let weather = Polled::new(&dir, "sunspec-met-station", "DEMO-QH-WS-01", 3)?;
    let huawei = Polled::new(&dir, "huawei-sun2000-ktl", "DEMO-JS-INV-01", 4)?;
    let cases: [(&str, Vec<&Polled>); 5] = [
        ("inverter", vec![&inverter]),
        ("meter", vec![&meter]),
        ("weather", vec![&weather]),
        ("huawei", vec![&huawei]),
        ("round", vec![&inverter, &meter, &weather]),
    ];
    for (name, devices, noisy) in cases
        .iter()
        .flat_map(|(n, d)| [(n.to_string(), d, false), (format!("noisy_{n}"), d, true)])
    {
        for rounds in [1usize, 10, 100] {
            let b = batch(devices, start, rounds, noisy);
            let samples = b.samples.len() as f64;
            let points = b
                .samples
                .iter()
                .map(|s| s.values.len() + s.suspect.len())
                .sum::<usize>() as f64;
            let json = wire::batch_to_bytes(&b, Encoding::Json)?;
            let binary = wire::batch_to_bytes(&b, Encoding::Binary)?;
            anyhow::ensure!(
                wire::parse_batch(&binary)? == b,
                "{name}: the binary batch does not decode to the samples"
            );
            if rounds == 100 {
                // Values that differ from the same device's sample one round before.
                let n = devices.len();
                let changed = b
                    .samples
                    .windows(n + 1)
                    .map(|w| {
                        let (a, z) = (&w[0], &w[n]);
                        z.values
                            .iter()
                            .filter(|(k, v)| a.values.get(*k) != Some(*v))
                            .count()
                    })
                    .sum::<usize>() as f64
                    / (samples - n as f64);
                eprintln!(
                    "{name}: {:.1} points per sample, {changed:.1} changed since the device's previous sample",
                    points / samples
                );
            }
            let tag = format!("uplink_{name}_{rounds}");
            figure(
                &format!("{tag}_json_per_sample"),
                json.len() as f64 / samples,
                "B",
            );
            figure(
                &format!("{tag}_binary_per_sample"),
                binary.len() as f64 / samples,
                "B",
            );
            figure(&format!("{tag}_json_per_point"), json.len() as f64 / points, "B");
            figure(
                &format!("{tag}_binary_per_point"),
                binary.len() as f64 / points,
                "B",
            );
        }
    }
    // Throughput on 100 noisy rounds of the three SunSpec devices (300 samples per batch).
    let b = batch(&[&inverter, &meter, &weather], start, 100, true);
    let json = wire::batch_to_bytes(&b, Encoding::Json)?;
    let binary = wire::batch_to_bytes(&b, Encoding::Binary)?;
    let n = b.samples.len() as f64;
    let rate = |f: &dyn Fn()| {
        let t0 = Instant::now();
        let mut batches = 0u64;
        while t0.elapsed() < Duration::from_secs(seconds) {
            f();
            batches += 1;
        }
        batches as f64 * n / t0.elapsed().as_secs_f64()
    };
    let json_enc = rate(&|| {
        std::hint::black_box(wire::batch_to_bytes(&b, Encoding::Json).ok());
    });
    let json_dec = rate(&|| {
        std::hint::black_box(wire::parse_batch(&json).ok());
    });
    let bin_enc = rate(&|| {
        std::hint::black_box(wire::batch_to_bytes(&b, Encoding::Binary).ok());
    });
    let bin_dec = rate(&|| {
        std::hint::black_box(wire::parse_batch(&binary).ok());
    });
    figure("uplink_json_encode", json_enc, "samples/s");
    figure("uplink_json_decode", json_dec, "samples/s");
    figure("uplink_binary_encode", bin_enc, "samples/s");
    figure("uplink_binary_decode", bin_dec, "samples/s");
    Ok(())
}
