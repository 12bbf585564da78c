//! Repair figures, pure: open and overdue counts, completions of the last 30 days and the mean
//! time to repair (MTTR) per station and overall, from the orders' times.
//!
//! MTTR = mean of (finish time − creation time) over the orders finished (reported repaired by
//! the assignee) in the last 90 days, in hours, rounded to 0.01; none when no order finished.

use std::collections::BTreeMap;

use super::machine::{COMPLETED, REPAIRED, TO_ACCEPT, TO_REPAIR, is_open};

pub const DAY_MS: i64 = 86_400_000;
pub const MTTR_DAYS: i64 = 90;
pub const COMPLETED_DAYS: i64 = 30;

/// What the figures are computed from, one per order.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Times {
    pub station_id: i64,
    pub station_name: String,
    pub status: i64,
    pub create_time: i64,
    pub finish_time: Option<i64>,
    pub complete_time: Option<i64>,
    pub response_deadline: i64,
    pub repair_deadline: i64,
}

impl Times {
    /// Open and past a deadline now: not accepted in time, or not repaired in time.
    pub fn overdue(&self, now: i64) -> bool {
        (self.status <= TO_ACCEPT && self.response_deadline < now)
            || (self.status <= TO_REPAIR && self.repair_deadline < now)
    }
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Figures {
    pub open: i64,
    pub overdue: i64,
    pub completed30d: i64,
    pub mttr_hours: Option<f64>,
    repair_ms: i64,
    repaired: i64,
}

impl Figures {
    fn add(&mut self, t: &Times, now: i64) {
        if is_open(t.status) {
            self.open += 1;
            if t.overdue(now) {
                self.overdue += 1;
            }
        }
        if t.status == COMPLETED
            && t.complete_time
                .is_some_and(|c| c >= now - COMPLETED_DAYS * DAY_MS)
        {
            self.completed30d += 1;
        }
        if t.status >= REPAIRED
            && let Some(f) = t.finish_time.filter(|f| *f >= now - MTTR_DAYS * DAY_MS)
        {
            self.repair_ms += f - t.create_time;
            self.repaired += 1;
        }
        self.mttr_hours = (self.repaired > 0)
            .then(|| ((self.repair_ms as f64 / self.repaired as f64 / 3_600_000.0) * 100.0).round() / 100.0);
    }
}

/// Overall figures and, per station (by name, then id), the station's.
pub fn summarize(times: &[Times], now: i64) -> (Figures, Vec<(i64, String, Figures)>) {
    let mut all = Figures::default();
    let mut by: BTreeMap<(String, i64), Figures> = BTreeMap::new();
    for t in times {
        all.add(t, now);
        by.entry((t.station_name.clone(), t.station_id))
            .or_default()
            .add(t, now);
    }
    (all, by.into_iter().map(|((name, id), f)| (id, name, f)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    const H: i64 = 3_600_000;

    fn t(station: i64, status: i64, create: i64, finish: Option<i64>, complete: Option<i64>) -> Times {
        Times {
            station_id: station,
            station_name: format!("S{station}"),
            status,
            create_time: create,
            finish_time: finish,
            complete_time: complete,
            response_deadline: create + H,
            repair_deadline: create + 8 * H,
        }
    }

    #[test]
    fn figures_by_hand() {
        let now = 1_000 * DAY_MS;
        let times = [
            // Open, created 2 h ago: response overdue (1 h), repair not yet.
            t(1, 2, now - 2 * H, None, None),
            // Open, accepted, created 9 h ago: repair overdue.
            t(1, 3, now - 9 * H, None, None),
            // Completed: repaired in 3 h, completed 10 days ago.
            t(
                1,
                7,
                now - 11 * DAY_MS,
                Some(now - 11 * DAY_MS + 3 * H),
                Some(now - 10 * DAY_MS),
            ),
            // To be evaluated (open, not overdue: repaired), repaired in 5 h.
            t(2, 6, now - 20 * H, Some(now - 15 * H), None),
            // Canceled: counts nowhere.
            t(2, 8, now - 20 * H, None, None),
            // Finished 100 days ago: outside the MTTR window and the 30 days.
            t(
                2,
                7,
                now - 101 * DAY_MS,
                Some(now - 100 * DAY_MS),
                Some(now - 100 * DAY_MS),
            ),
        ];
        let (all, by) = summarize(&times, now);
        assert_eq!((all.open, all.overdue, all.completed30d), (3, 2, 1));
        assert_eq!(all.mttr_hours, Some(4.0));
        assert_eq!(by.len(), 2);
        assert_eq!(
            (by[0].2.open, by[0].2.overdue, by[0].2.mttr_hours),
            (2, 2, Some(3.0))
        );
        assert_eq!(
            (by[1].2.open, by[1].2.overdue, by[1].2.mttr_hours),
            (1, 0, Some(5.0))
        );
        assert_eq!(summarize(&[], now).0.mttr_hours, None);
    }
}
