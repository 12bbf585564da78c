//! Hand-made counter series: each test states the readings and the energy a person would count.

use super::*;

const S: i64 = 1_000;
const MIN: i64 = 60_000;
/// A 100 kW inverter.
const INV: Limits = Limits { rated_w: 100_000.0 };

struct Accept(Vec<i64>);
impl Corrections for Accept {
    fn excluded(&self, _ts: i64) -> bool {
        false
    }
    fn step_accepted(&self, ts: i64) -> bool {
        self.0.contains(&ts)
    }
}

struct Exclude(i64, i64);
impl Corrections for Exclude {
    fn excluded(&self, ts: i64) -> bool {
        ts >= self.0 && ts < self.1
    }
    fn step_accepted(&self, _ts: i64) -> bool {
        false
    }
}

fn walk_with(readings: &[(i64, f64)], limits: &Limits, c: &dyn Corrections) -> (Walk, State) {
    let mut state = State::default();
    let mut out = Walk::default();
    for (ts, v) in readings {
        state.step(*ts, *v, limits, c, &mut out);
    }
    (out, state)
}

fn walk(readings: &[(i64, f64)]) -> Walk {
    walk_with(readings, &INV, &NoCorrections).0
}

/// A 100 kW inverter at 60 kW read every minute from `lifetime` Wh: 1 kWh a minute.
fn producing(from_min: i64, minutes: i64, lifetime: f64) -> Vec<(i64, f64)> {
    (0..minutes)
        .map(|k| ((from_min + k) * MIN, lifetime + 1_000.0 * k as f64))
        .collect()
}

fn kinds(w: &Walk) -> Vec<Kind> {
    w.events.iter().map(|e| e.kind).collect()
}

fn close(a: Option<f64>, b: f64) -> bool {
    a.is_some_and(|a| (a - b).abs() < 1e-6)
}

#[test]
fn steady_readings_count_their_differences() {
    let w = walk(&producing(0, 61, 50_000_000.0));
    assert!(close(w.energy_wh, 60_000.0), "{:?}", w.energy_wh);
    assert!(w.events.is_empty());
}

#[test]
fn no_reading_is_no_figure_and_one_reading_is_zero() {
    assert_eq!(walk(&[]).energy_wh, None);
    assert_eq!(walk(&[(0, 5.0)]).energy_wh, Some(0.0));
}

#[test]
fn one_read_of_zero_changes_nothing() {
    let mut r = producing(0, 31, 50_000_000.0);
    r[10].1 = 0.0;
    let w = walk(&r);
    assert!(close(w.energy_wh, 30_000.0), "{:?}", w.energy_wh);
    assert_eq!(kinds(&w), [Kind::Glitch]);
    assert_eq!((w.events[0].ts, w.events[0].new), (10 * MIN, 0.0));
    assert_eq!(w.events[0].old, 50_009_000.0);
}

#[test]
fn one_read_of_half_the_counter_changes_nothing() {
    let mut r = producing(0, 31, 50_000_000.0);
    r[20].1 /= 2.0;
    let w = walk(&r);
    assert!(close(w.energy_wh, 30_000.0), "{:?}", w.energy_wh);
    assert_eq!(kinds(&w), [Kind::Glitch]);
}

#[test]
fn a_torn_read_up_or_down_changes_nothing() {
    // A u32 counter in 0.01 kWh (10 Wh) read as two words: the high word of the next value
    // with the low word of the previous one is 65 536 × 10 Wh off.
    let tear = 65_536.0 * 10.0;
    for sign in [1.0, -1.0] {
        let mut r = producing(0, 31, 50_000_000.0);
        r[7].1 += sign * tear;
        let w = walk(&r);
        assert!(close(w.energy_wh, 30_000.0), "{sign}: {:?}", w.energy_wh);
        assert_eq!(kinds(&w), [Kind::Glitch]);
    }
}

#[test]
fn a_glitch_of_several_readings_shorter_than_the_confirmation_changes_nothing() {
    // A meter that reports 0 for four readings a second apart, then its real reading.
    let mut r: Vec<(i64, f64)> = (0..600).map(|k| (k * S, 1_000_000.0 + 10.0 * k as f64)).collect();
    for x in &mut r[100..104] {
        x.1 = 0.0;
    }
    let w = walk_with(&r, &Limits { rated_w: 50_000.0 }, &NoCorrections).0;
    assert!(close(w.energy_wh, 5_990.0), "{:?}", w.energy_wh);
    assert_eq!(kinds(&w), [Kind::Glitch]);
    assert_eq!(w.events[0].readings, 4);
}

#[test]
fn a_swap_to_a_device_with_a_12345_kwh_counter_adds_nothing_at_the_swap() {
    // 50 000 kWh before, 12 345 kWh after, both producing 1 kWh a minute.
    let mut r = producing(0, 30, 50_000_000.0);
    r.extend(producing(30, 31, 12_345_000.0));
    let w = walk(&r);
    // 29 kWh before the swap, 30 kWh after it, 0 at the step.
    assert!(close(w.energy_wh, 59_000.0), "{:?}", w.energy_wh);
    assert_eq!(kinds(&w), [Kind::Rebase]);
    let e = &w.events[0];
    assert_eq!(
        (e.ts, e.old, e.new, e.counted_wh),
        (30 * MIN, 50_029_000.0, 12_345_000.0, 0.0)
    );
    // Confirmed at minute 35: three readings and five minutes.
    assert_eq!(e.readings, 6);
}

#[test]
fn a_swap_to_a_higher_counter_is_a_rejected_step() {
    let mut r = producing(0, 30, 10_000_000.0);
    r.extend(producing(30, 31, 12_345_000.0));
    let w = walk(&r);
    assert!(close(w.energy_wh, 59_000.0), "{:?}", w.energy_wh);
    assert_eq!(kinds(&w), [Kind::Rejected]);
}

#[test]
fn an_increase_above_the_bound_is_not_counted_unless_accepted() {
    // +500 kWh in one minute from a 100 kW inverter, then on as before.
    let mut r = producing(0, 30, 1_000_000.0);
    r.extend(producing(30, 31, 1_529_000.0 + 500_000.0));
    let w = walk(&r);
    assert!(close(w.energy_wh, 59_000.0), "{:?}", w.energy_wh);
    assert_eq!(kinds(&w), [Kind::Rejected]);
    let (w, _) = walk_with(&r, &INV, &Accept(vec![30 * MIN]));
    // Accepted: the step counts (1 029 000 → 2 029 000 Wh is 1 000 kWh).
    assert!(close(w.energy_wh, 59_000.0 + 1_000_000.0), "{:?}", w.energy_wh);
    assert_eq!(w.events[0].counted_wh, 1_000_000.0);
}

#[test]
fn a_true_reset_counts_from_zero() {
    // Cleared at minute 30: the first reading after is 400 Wh produced since.
    let mut r = producing(0, 30, 50_000_000.0);
    r.extend(producing(30, 31, 400.0));
    let w = walk(&r);
    assert!(
        close(w.energy_wh, 29_000.0 + 400.0 + 30_000.0),
        "{:?}",
        w.energy_wh
    );
    assert_eq!(kinds(&w), [Kind::Reset]);
    assert_eq!(w.events[0].counted_wh, 400.0);
}

#[test]
fn a_counter_with_coarse_steps_read_every_second_counts_every_step() {
    // 1 kWh resolution, a 20 kW inverter read every second: a 1 000 Wh step every 3 minutes.
    let lim = Limits { rated_w: 20_000.0 };
    let r: Vec<(i64, f64)> = (0..3_600)
        .map(|k| (k * S, 7_000_000.0 + 1_000.0 * (k / 180) as f64))
        .collect();
    let w = walk_with(&r, &lim, &NoCorrections).0;
    assert!(close(w.energy_wh, 19_000.0), "{:?}", w.energy_wh);
    assert!(w.events.is_empty(), "{:?}", w.events);
}

#[test]
fn a_counter_that_updates_every_ten_minutes_is_counted_late_but_whole() {
    // 100 kW at 90 kW, the register refreshed every 10 minutes (+15 kWh), read every 10 s.
    let r: Vec<(i64, f64)> = (0..360)
        .map(|k| (k * 10 * S, 3_000_000.0 + 15_000.0 * (k / 60) as f64))
        .collect();
    let w = walk(&r);
    // Five 15 kWh steps; each is confirmed five minutes after it, the last at 55 min.
    assert!(close(w.energy_wh, 75_000.0), "{:?}", w.energy_wh);
    assert!(w.events.is_empty(), "{:?}", w.events);
}

#[test]
fn energy_produced_during_a_communication_gap_counts() {
    // Two hours without readings at 80 kW: 160 kWh appear at once.
    let mut r = producing(0, 10, 1_000_000.0);
    r.push((130 * MIN, 1_009_000.0 + 160_000.0));
    let w = walk(&r);
    assert!(close(w.energy_wh, 169_000.0), "{:?}", w.energy_wh);
    assert!(w.events.is_empty());
}

#[test]
fn a_torn_read_at_dawn_after_a_still_night_changes_nothing() {
    // The counter stood still for 11 hours; the first read of the morning is torn upwards by
    // 655 kWh (within 11 h × 100 kW), the next ones are right.
    let mut r: Vec<(i64, f64)> = (0..=660).map(|k| (k * MIN, 9_000_000.0)).collect();
    r.push((661 * MIN, 9_000_000.0 + 655_360.0 + 100.0));
    r.extend((662..700).map(|k| (k * MIN, 9_000_000.0 + 100.0 * (k - 660) as f64)));
    let w = walk(&r);
    assert!(close(w.energy_wh, 3_900.0), "{:?}", w.energy_wh);
    assert_eq!(kinds(&w), [Kind::Glitch]);
}

#[test]
fn an_excluded_interval_books_nothing_and_the_rest_stays() {
    let r = producing(0, 61, 1_000_000.0);
    let (w, _) = walk_with(&r, &INV, &Exclude(10 * MIN, 20 * MIN));
    assert!(close(w.energy_wh, 50_000.0), "{:?}", w.energy_wh);
}

#[test]
fn a_walk_cut_anywhere_and_resumed_from_its_state_counts_the_same() {
    let mut r = producing(0, 30, 50_000_000.0);
    r[5].1 = 0.0;
    r.extend(producing(30, 31, 12_345_000.0));
    r.extend(producing(61, 20, 12_376_000.0 + 900_000.0));
    let (whole, end) = walk_with(&r, &INV, &NoCorrections);
    for cut in 0..r.len() {
        let (a, mid) = walk_with(&r[..cut], &INV, &NoCorrections);
        let mut state = mid;
        let mut b = Walk::default();
        for (ts, v) in &r[cut..] {
            state.step(*ts, *v, &INV, &NoCorrections, &mut b);
        }
        let sum = a.energy_wh.unwrap_or(0.0) + b.energy_wh.unwrap_or(0.0);
        assert!(
            close(whole.energy_wh, sum),
            "cut {cut}: {sum} vs {:?}",
            whole.energy_wh
        );
        assert_eq!(state, end, "cut {cut}");
        assert_eq!(a.events.len() + b.events.len(), whole.events.len(), "cut {cut}");
    }
    assert_eq!(kinds(&whole), [Kind::Glitch, Kind::Rebase, Kind::Rejected]);
}

#[test]
fn the_bound_is_rated_power_times_time_with_margin_and_a_step() {
    assert_eq!(INV.bound_wh(3_600_000), 100_000.0 * 1.5 + 100_000.0 / 60.0);
    let small = Limits { rated_w: 5_000.0 };
    assert_eq!(small.bound_wh(0), MIN_ALLOWANCE_WH);
}

#[test]
fn the_state_survives_its_json_form() {
    let mut r = producing(0, 3, 1_000.0);
    r.push((3 * MIN, 0.0));
    let (_, state) = walk_with(&r, &INV, &NoCorrections);
    assert!(state.run.is_some());
    let text = serde_json::to_string(&state).expect("json");
    assert_eq!(serde_json::from_str::<State>(&text).expect("parse"), state);
}
