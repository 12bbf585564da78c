//! The request budget of one vendor account: at most `requests_per_minute` requests in any 60 s (a
//! token bucket whose every token comes back 60 s after it was spent, so no sliding minute the
//! vendor may count ever sees more; a bucket refilled at a steady rate would allow twice the figure
//! in the minute after a burst), a daily cap where the vendor counts per day (SolarEdge), and a
//! pause after the vendor's own throttling answer. Connectors take a token before every request, sign-in included, so the limit
//! holds whatever the poller asks. Time is tokio's, so tests run it under a paused clock; the
//! calendar day (for the daily cap) is the wall clock at creation advanced by tokio's clock.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use tokio::time::Instant;

use super::model::Limits;

/// First pause after a throttling answer that names no Retry-After; doubled per repeated answer.
const BACKOFF_FIRST: Duration = Duration::from_secs(60);
const BACKOFF_MAX: Duration = Duration::from_secs(30 * 60);
const DAY_MS: i64 = 86_400_000;

pub struct Budget {
    per_period: usize,
    period: Duration,
    per_day: Option<u32>,
    origin: Instant,
    origin_ms: i64,
    state: Mutex<State>,
}

struct State {
    /// When the requests of the current period were taken (oldest first).
    spent: VecDeque<Instant>,
    paused_until: Option<Instant>,
    backoff: Duration,
    day: i64,
    used_day: u32,
}

impl Budget {
    pub fn new(limits: &Limits) -> Budget {
        Budget::with_period(
            limits.requests_per_minute,
            Duration::from_secs(60),
            limits.requests_per_day,
        )
    }

    /// A budget of `requests` per `period` (tests shorten the minute; accounts use `new`).
    pub fn with_period(requests: u32, period: Duration, per_day: Option<u32>) -> Budget {
        let now = Instant::now();
        let wall = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_millis() as i64)
            .unwrap_or(0);
        Budget {
            per_period: requests.max(1) as usize,
            period,
            per_day,
            origin: now,
            origin_ms: wall,
            state: Mutex::new(State {
                spent: VecDeque::new(),
                paused_until: None,
                backoff: BACKOFF_FIRST,
                day: wall.div_euclid(DAY_MS),
                used_day: 0,
            }),
        }
    }

    /// Milliseconds since the epoch by this budget's clock (wall clock at creation + tokio time).
    pub fn now_ms(&self) -> i64 {
        self.ms_at(Instant::now())
    }

    fn ms_at(&self, at: Instant) -> i64 {
        self.origin_ms + at.saturating_duration_since(self.origin).as_millis() as i64
    }

    /// Waits for a token: past a throttle pause, within the daily cap, then from the bucket.
    pub async fn take(&self) {
        while let Some(wait) = self.take_at(Instant::now()) {
            tokio::time::sleep(wait).await;
        }
    }

    /// Takes a token at `now` (None), or says how long to wait before asking again.
    fn take_at(&self, now: Instant) -> Option<Duration> {
        let mut s = self.lock();
        let held = self.held();
        while s.spent.front().is_some_and(|t| *t + held <= now) {
            s.spent.pop_front();
        }
        self.roll_day(&mut s, now);
        if let Some(until) = s.paused_until.filter(|u| *u > now) {
            Some(until - now)
        } else if self.per_day.is_some_and(|cap| s.used_day >= cap) {
            // Wait for the vendor's next (UTC) day.
            let next_day_ms = (s.day + 1) * DAY_MS;
            Some(Duration::from_millis(
                (next_day_ms - self.ms_at(now)).max(1) as u64
            ))
        } else if s.spent.len() < self.per_period {
            s.spent.push_back(now);
            s.used_day += 1;
            None
        } else {
            // The oldest request of the period gives its token back first.
            let oldest = s.spent.front().copied().unwrap_or(now);
            Some((oldest + held - now).max(Duration::from_millis(1)))
        }
    }

    /// The vendor answered "too many requests": nothing goes out until `retry_after` has passed,
    /// or, when the vendor names no time, for a back-off that doubles per repeated answer (1 min
    /// up to 30 min) and resets on the next answer that is not a refusal (`answered`).
    pub fn throttled(&self, retry_after: Option<Duration>) {
        self.throttled_at(Instant::now(), retry_after)
    }

    fn throttled_at(&self, now: Instant, retry_after: Option<Duration>) {
        let mut s = self.lock();
        let pause = match retry_after {
            Some(d) => d,
            None => {
                let d = s.backoff;
                s.backoff = (s.backoff * 2).min(BACKOFF_MAX);
                d
            }
        };
        let until = now + pause;
        s.paused_until = Some(s.paused_until.map_or(until, |u| u.max(until)));
    }

    /// The vendor answered a request without refusing it: the next refusal starts the back-off anew.
    pub fn answered(&self) {
        self.lock().backoff = BACKOFF_FIRST;
    }

    /// Requests taken since the start of the current UTC day.
    pub fn used_today(&self) -> u32 {
        let mut s = self.lock();
        self.roll_day(&mut s, Instant::now());
        s.used_day
    }

    /// End of the current throttle pause (ms since the epoch), if one is running.
    pub fn paused_until(&self) -> Option<i64> {
        self.paused_until_at(Instant::now())
    }

    fn paused_until_at(&self, now: Instant) -> Option<i64> {
        let s = self.lock();
        s.paused_until.filter(|u| *u > now).map(|u| self.ms_at(u))
    }

    /// How long a spent token stays spent: the period plus 5 %, so that a request that reached
    /// the vendor later than the one it replaces (network delay, the vendor's clock) still falls
    /// outside the vendor's window.
    fn held(&self) -> Duration {
        self.period + self.period / 20
    }

    fn roll_day(&self, s: &mut State, now: Instant) {
        let day = self.ms_at(now).div_euclid(DAY_MS);
        if day != s.day {
            s.day = day;
            s.used_day = 0;
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        // A panic while holding this lock leaves plain numbers behind: still usable.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

// The tests drive the budget with explicit instants, as `take` does with tokio's clock: a paused
// tokio clock needs tokio's test-util feature, which would rebuild every crate on tokio for tests.
#[cfg(test)]
mod tests {
    use super::*;

    fn limits(per_minute: u32, per_day: Option<u32>) -> Limits {
        Limits {
            requests_per_minute: per_minute,
            requests_per_day: per_day,
            live_interval: Duration::from_secs(300),
            history_window: Duration::from_secs(86_400),
            backfill_depth: Duration::from_secs(86_400),
        }
    }

    /// `take` on a simulated clock: returns when the token was granted.
    fn take(b: &Budget, now: &mut Instant) {
        while let Some(wait) = b.take_at(*now) {
            *now += wait;
        }
    }

    #[test]
    fn no_minute_ever_holds_more_than_the_limit() {
        let b = Budget::new(&limits(6, None));
        let start = b.origin;
        let mut now = start;
        let mut taken = Vec::new();
        for _ in 0..20 {
            take(&b, &mut now);
            taken.push(now);
        }
        assert_eq!(taken[5], start, "a minute's worth at once");
        assert_eq!(
            taken[6] - start,
            Duration::from_secs(63),
            "then the first token comes back, with the 5 % margin"
        );
        for (i, t) in taken.iter().enumerate() {
            let in_minute = taken[i..]
                .iter()
                .filter(|u| **u < *t + Duration::from_secs(63))
                .count();
            assert!(
                in_minute <= 6,
                "{in_minute} requests in the minute from request {i}"
            );
        }
        assert_eq!(b.lock().used_day, 20);
    }

    #[test]
    fn a_steady_caller_is_paced_at_the_rate() {
        let b = Budget::with_period(3, Duration::from_secs(1), None);
        let mut now = b.origin;
        for _ in 0..9 {
            take(&b, &mut now);
        }
        assert_eq!(now - b.origin, Duration::from_millis(2_100));
    }

    #[test]
    fn a_throttle_pauses_for_retry_after_or_a_doubling_back_off() {
        let b = Budget::new(&limits(60, None));
        let start = b.origin;
        let mut now = start;
        b.throttled_at(now, Some(Duration::from_secs(90)));
        assert_eq!(b.paused_until_at(now), Some(b.ms_at(start) + 90_000));
        take(&b, &mut now);
        assert_eq!(now - start, Duration::from_secs(90));
        assert_eq!(b.paused_until_at(now), None);

        // No Retry-After: 1 min, then 2, then 4..., capped at 30; an answer resets it.
        let mut pauses = Vec::new();
        for _ in 0..7 {
            let t = now;
            b.throttled_at(now, None);
            take(&b, &mut now);
            pauses.push((now - t).as_secs());
        }
        assert_eq!(pauses, vec![60, 120, 240, 480, 960, 1800, 1800]);
        b.answered();
        let t = now;
        b.throttled_at(now, None);
        take(&b, &mut now);
        assert_eq!((now - t).as_secs(), 60);
    }

    #[test]
    fn the_daily_cap_holds_until_the_next_utc_day() {
        let b = Budget::new(&limits(600, Some(5)));
        let mut now = b.origin;
        for _ in 0..5 {
            take(&b, &mut now);
        }
        assert_eq!(now, b.origin);
        let before = b.ms_at(now);
        take(&b, &mut now);
        let after = b.ms_at(now);
        assert_eq!(
            after.div_euclid(DAY_MS),
            before.div_euclid(DAY_MS) + 1,
            "waited for the next day"
        );
        assert!(after.rem_euclid(DAY_MS) < 1_000, "and not longer");
        assert_eq!(b.lock().used_day, 1);
    }

    #[tokio::test]
    async fn take_waits_on_tokios_clock() {
        let b = Budget::new(&limits(600, None));
        b.throttled(Some(Duration::from_millis(50)));
        assert!(b.paused_until().is_some());
        let t = Instant::now();
        b.take().await;
        assert!(Instant::now() - t >= Duration::from_millis(50));
        assert_eq!(b.used_today(), 1);
    }
}
