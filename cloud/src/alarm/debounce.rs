//! The debounce state machine of the alarm engine, free of I/O: which conditions a device's
//! samples show, for how long, and when that opens, re-triggers or clears an alarm.
//!
//! - raised once present in `raiseAfterSamples` consecutive samples and for at least the
//!   condition's `hold_ms` (sample time);
//! - an open alarm clears once its condition has been absent for `clearHoldSeconds` of sample
//!   time (hysteresis);
//! - a condition back before that re-triggers the same alarm (`occurrences` + 1), so a fault
//!   that flaps every sample is one alarm, not a flood.

use super::condition::{Condition, sample_kind};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct CondState {
    /// Consecutive samples showing it (before it is raised).
    streak: u32,
    /// Sample time it was first seen in the current run.
    since: i64,
    /// An alarm of this kind is open.
    raised: bool,
    /// Sample time it was first missing since it was raised.
    absent_since: Option<i64>,
}

/// What the engine must do after a sample.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// Open the alarm, or re-trigger the open one.
    Raise(Condition),
    /// Clear the open alarm of this kind (the condition is gone).
    Clear(String),
}

/// The debounce state of one device: the last sample time evaluated and the conditions being
/// watched (usually none, so a device costs a few words).
#[derive(Debug, Clone, Default)]
pub struct Debounce {
    last_ts: i64,
    conds: Vec<(String, CondState)>,
}

impl Debounce {
    /// A device's debounce that takes only samples newer than `last_ts` (its newest sample
    /// already seen when the hub starts).
    pub fn starting_at(last_ts: i64) -> Debounce {
        Debounce {
            last_ts,
            conds: Vec::new(),
        }
    }

    /// Records that an alarm of `kind` is open (loaded at start).
    pub fn open(&mut self, kind: &str) {
        if !self.conds.iter().any(|(k, _)| k == kind) {
            self.conds.push((
                kind.to_owned(),
                CondState {
                    streak: 0,
                    since: 0,
                    raised: true,
                    absent_since: None,
                },
            ));
        }
    }

    /// Whether an alarm of `kind` is open as far as the debounce knows.
    pub fn is_open(&self, kind: &str) -> bool {
        self.conds.iter().any(|(k, s)| k == kind && s.raised)
    }

    /// A raise that did not reach the database: count the condition afresh, so a later sample
    /// that still has it raises it again.
    pub fn raise_failed(&mut self, kind: &str) {
        if let Some((_, st)) = self.conds.iter_mut().find(|(k, _)| k == kind) {
            st.raised = false;
            st.streak = 0;
            st.absent_since = None;
        }
    }

    /// A clear that did not reach the database: the alarm is still open, so keep tracking it as
    /// raised and absent since `since`; the next sample without it clears again.
    pub fn clear_failed(&mut self, kind: String, since: i64) {
        if self.conds.iter().any(|(k, _)| *k == kind) {
            return;
        }
        self.conds.push((
            kind,
            CondState {
                streak: 0,
                since,
                raised: true,
                absent_since: Some(since),
            },
        ));
    }

    /// Evaluates one sample at `ts` with the conditions `present` in it; pushes what to do.
    /// Returns false (and does nothing) for a sample not newer than the last one (a replay).
    pub fn step(
        &mut self,
        ts: i64,
        present: Vec<Condition>,
        raise_after: u32,
        clear_hold_ms: i64,
        actions: &mut Vec<Action>,
    ) -> bool {
        if ts <= self.last_ts {
            return false;
        }
        self.last_ts = ts;
        // Which of `conds` are present in this sample (any number of them: bracket rules and
        // fault words can make more than 64).
        let mut seen: Vec<bool> = Vec::with_capacity(self.conds.len() + 4);
        for c in present {
            let at = match self.conds.iter().position(|(k, _)| *k == c.kind) {
                Some(i) => i,
                None => {
                    self.conds.push((
                        c.kind.clone(),
                        CondState {
                            streak: 0,
                            since: ts,
                            raised: false,
                            absent_since: None,
                        },
                    ));
                    self.conds.len() - 1
                }
            };
            if seen.len() <= at {
                seen.resize(at + 1, false);
            }
            seen[at] = true;
            let st = &mut self.conds[at].1;
            if st.raised {
                // Back before the clear hold ran out: the same alarm again.
                if st.absent_since.take().is_some() {
                    actions.push(Action::Raise(c));
                }
            } else {
                if st.streak == 0 {
                    st.since = ts;
                }
                st.streak = st.streak.saturating_add(1);
                if st.streak >= raise_after.max(1) && ts - st.since >= c.hold_ms {
                    st.raised = true;
                    actions.push(Action::Raise(c));
                }
            }
        }
        let mut i = 0;
        let mut bit = 0usize;
        while i < self.conds.len() {
            let present = seen.get(bit).copied().unwrap_or(false);
            bit += 1;
            let (kind, st) = &mut self.conds[i];
            if present || !sample_kind(kind) {
                i += 1;
                continue;
            }
            if !st.raised {
                // Not raised yet: the run is broken, start counting again next time.
                self.conds.remove(i);
                continue;
            }
            let since = *st.absent_since.get_or_insert(ts);
            if ts - since >= clear_hold_ms {
                let (kind, _) = self.conds.remove(i);
                actions.push(Action::Clear(kind));
                continue;
            }
            i += 1;
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cond(kind: &str, hold_ms: i64) -> Condition {
        let mut c = Condition::fault(kind.into(), "fault", 3);
        c.hold_ms = hold_ms;
        c
    }

    fn kinds(actions: &[Action]) -> Vec<String> {
        actions
            .iter()
            .map(|a| match a {
                Action::Raise(c) => format!("raise {}", c.kind),
                Action::Clear(k) => format!("clear {k}"),
            })
            .collect()
    }

    /// Runs samples (ts, present kinds) and returns the actions of each.
    fn run(t: &mut Debounce, raise_after: u32, hold: i64, samples: &[(i64, &[&str])]) -> Vec<Vec<String>> {
        samples
            .iter()
            .map(|(ts, present)| {
                let mut a = vec![];
                t.step(
                    *ts,
                    present.iter().map(|k| cond(k, 0)).collect(),
                    raise_after,
                    hold,
                    &mut a,
                );
                kinds(&a)
            })
            .collect()
    }

    const F: &str = "fault:fault_code:2";

    #[test]
    fn raised_once_then_cleared_after_the_hold() {
        let mut t = Debounce::default();
        let out = run(
            &mut t,
            1,
            60_000,
            &[
                (1_000, &[F]),
                (6_000, &[F]),
                (11_000, &[]),
                (41_000, &[]),
                (71_000, &[]),
                (76_000, &[]),
            ],
        );
        assert_eq!(
            out,
            [
                vec![format!("raise {F}")],
                vec![],
                vec![],
                vec![],
                vec![format!("clear {F}")],
                vec![]
            ]
        );
    }

    #[test]
    fn flapping_faster_than_the_hold_is_one_alarm_retriggered() {
        let mut t = Debounce::default();
        let samples: Vec<(i64, &[&str])> = (0..20)
            .map(|i| (1_000 + i * 5_000, if i % 2 == 0 { &[F][..] } else { &[][..] }))
            .collect();
        let out = run(&mut t, 1, 60_000, &samples);
        let all: Vec<String> = out.into_iter().flatten().collect();
        // One raise, then a re-trigger each time it comes back (9 more), never a clear.
        assert_eq!(all.len(), 10, "{all:?}");
        assert!(all.iter().all(|a| a == &format!("raise {F}")));
        assert!(t.is_open(F));
    }

    #[test]
    fn raise_after_samples_and_hold_time_debounce() {
        let mut t = Debounce::default();
        // Needs 3 samples in a row: a gap resets the count.
        let out = run(
            &mut t,
            3,
            60_000,
            &[(1, &[F]), (2, &[F]), (3, &[]), (4, &[F]), (5, &[F]), (6, &[F])],
        );
        assert_eq!(out.iter().filter(|a| !a.is_empty()).count(), 1);
        assert_eq!(out[5], [format!("raise {F}")]);
        // A condition's own hold: present for 10 s of sample time before it is raised.
        let mut t = Debounce::default();
        let mut a = vec![];
        t.step(1_000, vec![cond(F, 10_000)], 1, 60_000, &mut a);
        t.step(6_000, vec![cond(F, 10_000)], 1, 60_000, &mut a);
        assert!(a.is_empty());
        t.step(11_000, vec![cond(F, 10_000)], 1, 60_000, &mut a);
        assert_eq!(kinds(&a), [format!("raise {F}")]);
    }

    #[test]
    fn replays_are_skipped_and_open_alarms_loaded_at_start_clear() {
        let mut t = Debounce::default();
        let mut a = vec![];
        assert!(t.step(10, vec![cond(F, 0)], 1, 100, &mut a));
        assert!(!t.step(10, vec![], 1, 100, &mut a), "same time: a replay");
        assert!(!t.step(5, vec![], 1, 100, &mut a), "older: a replay");
        let mut t = Debounce::default();
        t.open(F);
        t.open("comm:device");
        let mut a = vec![];
        t.step(1_000, vec![], 1, 100, &mut a);
        t.step(1_200, vec![], 1, 100, &mut a);
        // Only the sample-decided kind is cleared by samples.
        assert_eq!(kinds(&a), [format!("clear {F}")]);
    }
}
