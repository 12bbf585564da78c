//! Decode throughput: register words → canonical values through the generic decoder, over
//! every shipped register map (the simulator's expected-value devices provide the words, the
//! device layouts the block reads a poll would make). No I/O: this is the CPU cost per sample
//! the agent pays on top of the Modbus round trips.
//!
//! Knobs: BENCH_SECONDS (5).

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use pv_bench::{figure, knob};
use pv_edge::device::{Layout, SUNS, SunSpecChain};
use pv_edge::sim::{SUNSPEC_BASE, SimDevice};
use pv_shared::regmap::RegisterMap;

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

fn main() -> anyhow::Result<()> {
    let seconds: u64 = knob("BENCH_SECONDS", 5);
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../firmware-configs");
    let mut work = Vec::new();
    for map in RegisterMap::load_dir(&dir)? {
        let map = Arc::new(map);
        let dev = SimDevice::new(map.clone(), 1)?;
        let layout = Layout::new(&map, &chain(&dev));
        let reads: Vec<Option<Vec<u16>>> = layout
            .blocks
            .iter()
            .map(|b| {
                (0..b.count)
                    .map(|k| dev.register(b.function, b.start + k))
                    .collect::<Option<Vec<u16>>>()
            })
            .collect();
        let (values, errors) = layout.decode(&map, &reads);
        anyhow::ensure!(
            errors == 0 && values == *dev.expected(),
            "{}: decoding differs from the simulator's values",
            map.id
        );
        work.push((map, layout, reads));
    }
    eprintln!("decode_throughput: {} maps, {seconds}s", work.len());
    let (mut samples, mut points) = (0u64, 0u64);
    let t0 = Instant::now();
    while t0.elapsed() < Duration::from_secs(seconds) {
        for (map, layout, reads) in &work {
            let (values, _) = layout.decode(map, reads);
            samples += 1;
            points += values.len() as u64;
            std::hint::black_box(values);
        }
    }
    let elapsed = t0.elapsed().as_secs_f64();
    figure("decode_maps", work.len() as f64, "maps");
    figure("decode_samples", samples as f64 / elapsed, "samples/s");
    figure("decode_points", points as f64 / elapsed, "points/s");
    Ok(())
}
