//! How a cumulative energy counter becomes counted energy: the one rule every report, bill and
//! revenue figure rests on (`docs/reports.md`, "Counters").
//!
//! A counter's readings are walked in time order with a state that carries over from one
//! 5-minute bucket to the next (stored with the bucket's rollup row), so the walk is a pure
//! function of the raw readings and the corrections, and a replay gives the same figures:
//! - a reading that moved forward by no more than the device could produce since the last good
//!   reading (its bound) counts at once;
//! - anything else opens a *run*: readings that agree with each other but not with the baseline.
//!   If a reading agreeing with the baseline comes before the run is confirmed, the run was a
//!   **glitch** (a torn read, a momentary 0, a dip that recovers): nothing of it counts.
//! - A run is confirmed once it has lasted [`CONFIRM_READINGS`] readings and [`CONFIRM_MS`]. Then,
//!   by its first reading: a forward step within the bound since the counter last changed is a
//!   **late step** (a counter that updates slowly) and counts; a reading below the baseline that is
//!   no more than the device could have produced since the last good reading is a **reset** and
//!   counts from zero; any other lower level is a **rebase** (a device swapped, a counter rolled
//!   back) and any other higher level a **rejected** step: the step counts 0 and counting goes on
//!   from the new level.
//!
//! Energy of a confirmed run is booked when it is confirmed, in the bucket of the confirming
//! reading; an excluded interval (a correction) books nothing for readings inside it, and an
//! accepted step (a correction) counts a rejected step's increase after all.

use serde::{Deserialize, Serialize};

/// Readings a new level must last to be taken as the counter's level.
pub const CONFIRM_READINGS: u32 = 3;
/// How long (ms) a new level must last, from its first reading to its latest, to be taken.
pub const CONFIRM_MS: i64 = 300_000;
/// Headroom over rated power × elapsed time: meters and inverters overshoot their nameplate a
/// little, clocks of samples jitter.
pub const MARGIN: f64 = 1.5;
/// A slow counter is trusted to have moved at least once an hour: a late step is bounded by the
/// time since the counter last changed, but by no more than this beyond the last reading.
pub const SLOW_COUNTER_MS: i64 = 3_600_000;
/// Below this many Wh of resolution allowance no device is bounded: counters with 1 kWh steps.
pub const MIN_ALLOWANCE_WH: f64 = 1_000.0;

const HOUR_MS: f64 = 3_600_000.0;

/// What a device can produce: the bound of a forward step.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Limits {
    /// W: the device's rating (see `energy::limits` for where it comes from).
    pub rated_w: f64,
}

impl Limits {
    /// The most a counter may advance in `elapsed_ms`: rated power × time × [`MARGIN`], plus one
    /// counter step (a minute at rated power, at least [`MIN_ALLOWANCE_WH`]) so that a counter
    /// with a coarse resolution read every second still moves by its step.
    pub fn bound_wh(&self, elapsed_ms: i64) -> f64 {
        let rated = self.rated_w.max(0.0);
        rated * (elapsed_ms.max(0) as f64 / HOUR_MS) * MARGIN + (rated / 60.0).max(MIN_ALLOWANCE_WH)
    }
}

/// The last reading counted from.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Base {
    /// Wh.
    pub v: f64,
    /// The latest reading at this value (or the one that set it).
    pub ts: i64,
    /// When the counter reached this value.
    pub since: i64,
}

/// Readings that disagree with the baseline and agree with each other.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Run {
    pub first_v: f64,
    pub first_ts: i64,
    pub last_v: f64,
    pub last_ts: i64,
    /// When the run's counter reached `last_v`.
    pub since: i64,
    pub n: u32,
}

/// The walk's state between readings (and between buckets).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct State {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base: Option<Base>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<Run>,
}

impl State {
    /// The state a walk starts from when nothing was kept: the last reading before, if any,
    /// is the baseline.
    pub fn seeded(prev: Option<(i64, f64)>) -> State {
        State {
            base: prev.map(|(ts, v)| Base { v, ts, since: ts }),
            run: None,
        }
    }
}

/// What a step was found to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// Readings that left the baseline and came back: none of them used.
    Glitch,
    /// The counter restarted near zero: its new reading counts.
    Reset,
    /// A lower level that stayed (device swapped, counter rolled back): the step counts 0.
    Rebase,
    /// A higher level beyond what the device could produce: the step counts 0.
    Rejected,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Glitch => "glitch",
            Kind::Reset => "reset",
            Kind::Rebase => "rebase",
            Kind::Rejected => "rejected",
        }
    }

    pub fn parse(s: &str) -> Option<Kind> {
        Some(match s {
            "glitch" => Kind::Glitch,
            "reset" => Kind::Reset,
            "rebase" => Kind::Rebase,
            "rejected" => Kind::Rejected,
            _ => return None,
        })
    }
}

/// One step of a counter that was not counted as read.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    pub kind: Kind,
    /// The first reading of the step (its identity: corrections refer to it).
    pub ts: i64,
    /// The baseline it was measured against (Wh) and when that was read.
    pub old: f64,
    pub old_ts: i64,
    /// The first reading of the step (Wh).
    pub new: f64,
    /// The step's last reading (Wh) and when it was decided.
    pub last: f64,
    pub decided_ts: i64,
    pub readings: u32,
    /// What the step itself counted (Wh): the new reading for a reset, an accepted step's
    /// increase, else 0.
    pub counted_wh: f64,
}

/// What the walk is told by the corrections in force.
pub trait Corrections {
    /// Energy booked at a reading at `ts` does not count.
    fn excluded(&self, ts: i64) -> bool;
    /// An administrator accepted the step that starts at `ts` as energy.
    fn step_accepted(&self, ts: i64) -> bool;
}

/// No corrections.
pub struct NoCorrections;

impl Corrections for NoCorrections {
    fn excluded(&self, _ts: i64) -> bool {
        false
    }
    fn step_accepted(&self, _ts: i64) -> bool {
        false
    }
}

/// Energy counted over some readings, and the steps found.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Walk {
    /// Wh; None when no reading of the counter was seen.
    pub energy_wh: Option<f64>,
    pub events: Vec<Event>,
}

impl Walk {
    fn book(&mut self, wh: f64, ts: i64, c: &dyn Corrections) {
        let wh = if c.excluded(ts) { 0.0 } else { wh };
        self.energy_wh = Some(self.energy_wh.unwrap_or(0.0) + wh);
    }
}

/// Float counters (SunSpec 111-113) carry rounding: a reading this much below the baseline is
/// the same reading.
fn tolerance(v: f64) -> f64 {
    v.abs() * 1e-9 + 1e-6
}

fn agrees(v: f64, with: f64, elapsed_ms: i64, limits: &Limits) -> bool {
    let d = v - with;
    d >= -tolerance(with) && d <= limits.bound_wh(elapsed_ms)
}

impl State {
    /// Takes one reading `v` (Wh) at `ts`; readings must come in time order.
    pub fn step(&mut self, ts: i64, v: f64, limits: &Limits, c: &dyn Corrections, out: &mut Walk) {
        if !v.is_finite() {
            return;
        }
        let Some(base) = self.base else {
            // The very first reading is the baseline.
            self.base = Some(Base { v, ts, since: ts });
            out.book(0.0, ts, c);
            return;
        };
        if ts <= self.run.map_or(base.ts, |r| r.last_ts) {
            return;
        }
        if agrees(v, base.v, ts - base.ts, limits) {
            if let Some(run) = self.run.take() {
                out.events.push(glitch(&base, &run, ts));
            }
            let add = (v - base.v).max(0.0);
            out.book(add, ts, c);
            self.base = Some(if add > 0.0 {
                Base { v, ts, since: ts }
            } else {
                Base { ts, ..base }
            });
            return;
        }
        let run = match self.run {
            Some(r) if agrees(v, r.last_v, ts - r.last_ts, limits) => Run {
                last_v: v.max(r.last_v),
                last_ts: ts,
                since: if v > r.last_v { ts } else { r.since },
                n: r.n + 1,
                ..r
            },
            other => {
                if let Some(r) = other {
                    out.events.push(glitch(&base, &r, ts));
                }
                Run {
                    first_v: v,
                    first_ts: ts,
                    last_v: v,
                    last_ts: ts,
                    since: ts,
                    n: 1,
                }
            }
        };
        // Readings of an unconfirmed run count nowhere yet, but the counter was seen.
        out.book(0.0, ts, c);
        if run.n < CONFIRM_READINGS || run.last_ts - run.first_ts < CONFIRM_MS {
            self.run = Some(run);
            return;
        }
        let step = run.first_v - base.v;
        let slow_ms = (run.first_ts - base.since).min(run.first_ts - base.ts + SLOW_COUNTER_MS);
        let kind = if step >= 0.0 && step <= limits.bound_wh(slow_ms) {
            None
        } else if step < 0.0 && run.first_v >= 0.0 && run.first_v <= limits.bound_wh(run.first_ts - base.ts) {
            Some(Kind::Reset)
        } else if step < 0.0 {
            Some(Kind::Rebase)
        } else {
            Some(Kind::Rejected)
        };
        let counted = match kind {
            None => step,
            Some(Kind::Reset) => run.first_v,
            Some(_) if step > 0.0 && c.step_accepted(run.first_ts) => step,
            Some(_) => 0.0,
        };
        out.book(counted + (run.last_v - run.first_v).max(0.0), ts, c);
        if let Some(kind) = kind {
            out.events.push(Event {
                kind,
                ts: run.first_ts,
                old: base.v,
                old_ts: base.ts,
                new: run.first_v,
                last: run.last_v,
                decided_ts: ts,
                readings: run.n,
                counted_wh: counted,
            });
        }
        self.base = Some(Base {
            v: run.last_v,
            ts: run.last_ts,
            since: run.since,
        });
        self.run = None;
    }
}

fn glitch(base: &Base, run: &Run, decided_ts: i64) -> Event {
    Event {
        kind: Kind::Glitch,
        ts: run.first_ts,
        old: base.v,
        old_ts: base.ts,
        new: run.first_v,
        last: run.last_v,
        decided_ts,
        readings: run.n,
        counted_wh: 0.0,
    }
}

#[cfg(test)]
#[path = "counter_tests.rs"]
mod tests;
