//! Due dates of a plan: `startDate + n × cycle` for n = 0, 1, 2... up to `endDate`. Month-based
//! cycles count from the start date each time and clamp to the month's end (a plan starting
//! 31 January is due 28/29 February, 31 March, 30 April...), so a short month never shifts the
//! later due dates. Free of the database and the clock.

use chrono::{Duration, Months, NaiveDate};

use crate::kernel::lang::Text;

/// The cycles a plan may use, with their wire keys `1`..`6`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cycle {
    Daily,
    Weekly,
    Monthly,
    Quarterly,
    HalfYearly,
    Yearly,
}

pub const CYCLES: [Cycle; 6] = [
    Cycle::Daily,
    Cycle::Weekly,
    Cycle::Monthly,
    Cycle::Quarterly,
    Cycle::HalfYearly,
    Cycle::Yearly,
];

/// Reminder offsets a plan may use: days before a due date its task is announced.
pub const ALARM_DAYS: [i64; 6] = [0, 1, 2, 3, 5, 7];

/// The label of a reminder offset (`当天`, `提前N天`).
pub fn alarm_day_name(days: i64) -> Text {
    if days == 0 {
        Text::new("当天", "On the day")
    } else if days == 1 {
        Text::owned(format!("提前{days}天"), "1 day before")
    } else {
        Text::owned(format!("提前{days}天"), format!("{days} days before"))
    }
}

enum Step {
    Days(i64),
    Months(u32),
}

impl Cycle {
    pub fn key(self) -> &'static str {
        match self {
            Cycle::Daily => "1",
            Cycle::Weekly => "2",
            Cycle::Monthly => "3",
            Cycle::Quarterly => "4",
            Cycle::HalfYearly => "5",
            Cycle::Yearly => "6",
        }
    }

    pub fn from_key(key: &str) -> Option<Cycle> {
        CYCLES.into_iter().find(|c| c.key() == key.trim())
    }

    pub fn name(self) -> Text {
        match self {
            Cycle::Daily => Text::new("每日", "Daily"),
            Cycle::Weekly => Text::new("每周", "Weekly"),
            Cycle::Monthly => Text::new("每月", "Monthly"),
            Cycle::Quarterly => Text::new("每季度", "Quarterly"),
            Cycle::HalfYearly => Text::new("每半年", "Half-yearly"),
            Cycle::Yearly => Text::new("每年", "Yearly"),
        }
    }

    fn step(self) -> Step {
        match self {
            Cycle::Daily => Step::Days(1),
            Cycle::Weekly => Step::Days(7),
            Cycle::Monthly => Step::Months(1),
            Cycle::Quarterly => Step::Months(3),
            Cycle::HalfYearly => Step::Months(6),
            Cycle::Yearly => Step::Months(12),
        }
    }

    /// The n-th due date (n = 0 is the start date); None past the calendar's end.
    pub fn nth(self, start: NaiveDate, n: u32) -> Option<NaiveDate> {
        match self.step() {
            Step::Days(d) => start.checked_add_signed(Duration::days(d * i64::from(n))),
            Step::Months(m) => start.checked_add_months(Months::new(m.checked_mul(n)?)),
        }
    }

    /// The index of the first due date on or after `from`.
    fn first_index_from(self, start: NaiveDate, from: NaiveDate) -> u32 {
        if from <= start {
            return 0;
        }
        let guess = match self.step() {
            Step::Days(d) => (from - start).num_days() / d,
            Step::Months(m) => {
                let months = (from.year_month() - start.year_month()).max(0);
                months / i64::from(m)
            }
        };
        // The guess is at most one step short (clamping and partial steps): walk forward.
        let mut n = u32::try_from(guess.saturating_sub(1).max(0)).unwrap_or(u32::MAX);
        while self.nth(start, n).is_some_and(|d| d < from) {
            n = n.saturating_add(1);
        }
        n
    }
}

trait YearMonth {
    fn year_month(&self) -> i64;
}

impl YearMonth for NaiveDate {
    fn year_month(&self) -> i64 {
        use chrono::Datelike;
        i64::from(self.year()) * 12 + i64::from(self.month0())
    }
}

/// A plan's schedule.
#[derive(Debug, Clone, Copy)]
pub struct Schedule {
    pub cycle: Cycle,
    pub start: NaiveDate,
    pub end: Option<NaiveDate>,
}

impl Schedule {
    /// Every due date in `[from, to]` (both inclusive), in order.
    pub fn due_between(&self, from: NaiveDate, to: NaiveDate) -> Vec<NaiveDate> {
        let mut out = Vec::new();
        let last = match self.end {
            Some(e) if e < to => e,
            _ => to,
        };
        let mut n = self.cycle.first_index_from(self.start, from);
        while let Some(d) = self.cycle.nth(self.start, n) {
            if d > last {
                break;
            }
            if d >= from {
                out.push(d);
            }
            n = n.saturating_add(1);
            if out.len() > 400 {
                break;
            }
        }
        out
    }

    /// The first due date on or after `from`, if the plan has one.
    pub fn next_on_or_after(&self, from: NaiveDate) -> Option<NaiveDate> {
        let n = self.cycle.first_index_from(self.start, from);
        self.cycle
            .nth(self.start, n)
            .filter(|d| self.end.is_none_or(|e| *d <= e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> NaiveDate {
        NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()
    }

    fn plan(cycle: Cycle, start: &str, end: Option<&str>) -> Schedule {
        Schedule {
            cycle,
            start: d(start),
            end: end.map(d),
        }
    }

    fn dates(v: Vec<NaiveDate>) -> Vec<String> {
        v.into_iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn keys_and_names() {
        assert_eq!(Cycle::from_key("3"), Some(Cycle::Monthly));
        assert_eq!(Cycle::from_key(" 6 "), Some(Cycle::Yearly));
        assert_eq!(Cycle::from_key("7"), None);
        assert_eq!(Cycle::from_key(""), None);
        assert_eq!(Cycle::Quarterly.name().zh, "每季度");
        assert_eq!(alarm_day_name(0).en, "On the day");
        assert_eq!(alarm_day_name(3).zh, "提前3天");
        assert_eq!(alarm_day_name(1).en, "1 day before");
    }

    #[test]
    fn daily_and_weekly_step_in_days() {
        let p = plan(Cycle::Daily, "2026-11-01", None);
        assert_eq!(
            dates(p.due_between(d("2026-11-10"), d("2026-11-12"))),
            ["2026-11-10", "2026-11-11", "2026-11-12"]
        );
        let w = plan(Cycle::Weekly, "2026-11-02", None);
        assert_eq!(
            dates(w.due_between(d("2026-11-03"), d("2026-11-20"))),
            ["2026-11-09", "2026-11-16"]
        );
        assert_eq!(w.next_on_or_after(d("2026-11-09")), Some(d("2026-11-09")));
        assert_eq!(w.next_on_or_after(d("2026-10-01")), Some(d("2026-11-02")));
    }

    #[test]
    fn months_clamp_to_the_month_end_and_count_from_the_start() {
        let p = plan(Cycle::Monthly, "2026-01-31", None);
        assert_eq!(
            dates(p.due_between(d("2026-01-01"), d("2026-05-31"))),
            [
                "2026-01-31",
                "2026-02-28",
                "2026-03-31",
                "2026-04-30",
                "2026-05-31"
            ]
        );
        // Leap year February.
        let leap = plan(Cycle::Monthly, "2028-01-30", None);
        assert_eq!(leap.next_on_or_after(d("2028-02-01")), Some(d("2028-02-29")));
        assert_eq!(leap.next_on_or_after(d("2028-03-01")), Some(d("2028-03-30")));
    }

    #[test]
    fn quarter_half_year_and_year() {
        let q = plan(Cycle::Quarterly, "2026-11-30", None);
        assert_eq!(
            dates(q.due_between(d("2026-12-01"), d("2027-12-31"))),
            ["2027-02-28", "2027-05-30", "2027-08-30", "2027-11-30"]
        );
        let h = plan(Cycle::HalfYearly, "2026-08-31", None);
        assert_eq!(
            dates(h.due_between(d("2026-01-01"), d("2027-12-31"))),
            ["2026-08-31", "2027-02-28", "2027-08-31"]
        );
        let y = plan(Cycle::Yearly, "2028-02-29", None);
        assert_eq!(
            dates(y.due_between(d("2028-01-01"), d("2032-12-31"))),
            [
                "2028-02-29",
                "2029-02-28",
                "2030-02-28",
                "2031-02-28",
                "2032-02-29"
            ]
        );
    }

    #[test]
    fn the_end_date_and_the_window_bound_the_dates() {
        let p = plan(Cycle::Daily, "2026-11-01", Some("2026-11-03"));
        assert_eq!(
            dates(p.due_between(d("2026-10-01"), d("2026-12-01"))),
            ["2026-11-01", "2026-11-02", "2026-11-03"]
        );
        assert_eq!(p.next_on_or_after(d("2026-11-04")), None);
        assert!(p.due_between(d("2026-11-05"), d("2026-11-04")).is_empty());
        let m = plan(Cycle::Monthly, "2026-01-15", None);
        assert!(m.due_between(d("2026-02-16"), d("2026-03-14")).is_empty());
        assert_eq!(
            dates(m.due_between(d("2026-02-15"), d("2026-02-15"))),
            ["2026-02-15"]
        );
    }
}
