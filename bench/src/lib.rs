//! Shared pieces of the benchmarks. Convention: every benchmark is a binary under `src/bin/`,
//! reads its knobs from `BENCH_*` environment variables, writes its figures to stdout as
//! `name value unit` lines (one figure per line, nothing else on stdout) and its chatter to
//! stderr, so `bench/run` can collect every figure into one table.

use std::time::Duration;

/// A knob from the environment, with its default.
pub fn knob<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Prints one figure in the convention's format.
pub fn figure(name: &str, value: f64, unit: &str) {
    if value.fract() == 0.0 && value.abs() < 1e15 {
        println!("{name} {value:.0} {unit}");
    } else {
        println!("{name} {value:.3} {unit}");
    }
}

/// Latency percentile (0-100) of sorted samples, in milliseconds.
pub fn percentile_ms(sorted: &[Duration], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1].as_secs_f64() * 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        let v: Vec<Duration> = (1..=100).map(Duration::from_millis).collect();
        assert_eq!(percentile_ms(&v, 50.0), 50.0);
        assert_eq!(percentile_ms(&v, 99.0), 99.0);
        assert_eq!(percentile_ms(&v, 100.0), 100.0);
        assert!(percentile_ms(&[], 99.0).is_nan());
    }
}
