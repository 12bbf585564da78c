//! An account's request budget (a token bucket per the vendor's documented limits). The final
//! version comes from the `s16-vendor` branch; this one keeps the poller compiling and honours
//! the same interface.

use std::sync::Mutex;
use std::time::Duration;

use tokio::time::Instant;

use super::connector::Limits;

pub struct Budget {
    per_minute: u32,
    inner: Mutex<Inner>,
}

struct Inner {
    tokens: f64,
    refilled: Instant,
    paused_until: Option<Instant>,
    backoff: Duration,
    used_today: u32,
    day: i64,
}

impl Budget {
    pub fn new(limits: &Limits) -> Budget {
        let per_minute = limits.requests_per_minute.max(1);
        Budget {
            per_minute,
            inner: Mutex::new(Inner {
                tokens: f64::from(per_minute),
                refilled: Instant::now(),
                paused_until: None,
                backoff: Duration::from_secs(60),
                used_today: 0,
                day: crate::kernel::time::now_ms() / 86_400_000,
            }),
        }
    }

    /// Waits for a token (and for a throttle pause to end).
    pub async fn take(&self) {
        loop {
            let wait = {
                let mut i = self.inner.lock().unwrap_or_else(|p| p.into_inner());
                let now = Instant::now();
                let rate = f64::from(self.per_minute) / 60.0;
                let gained = now.duration_since(i.refilled).as_secs_f64() * rate;
                i.tokens = (i.tokens + gained).min(f64::from(self.per_minute));
                i.refilled = now;
                match i.paused_until {
                    Some(p) if p > now => p - now,
                    _ if i.tokens >= 1.0 => {
                        i.tokens -= 1.0;
                        i.paused_until = None;
                        let day = crate::kernel::time::now_ms() / 86_400_000;
                        if day != i.day {
                            i.day = day;
                            i.used_today = 0;
                        }
                        i.used_today += 1;
                        return;
                    }
                    _ => Duration::from_secs_f64((1.0 - i.tokens) / rate),
                }
            };
            tokio::time::sleep(wait).await;
        }
    }

    /// The vendor throttled: pause for `retry_after`, or for an exponential back-off.
    pub fn throttled(&self, retry_after: Option<Duration>) {
        let mut i = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        let pause = match retry_after {
            Some(d) => d,
            None => {
                let d = i.backoff;
                i.backoff = (i.backoff * 2).min(Duration::from_secs(1800));
                d
            }
        };
        i.paused_until = Some(Instant::now() + pause);
        i.tokens = 0.0;
    }

    pub fn used_today(&self) -> u32 {
        self.inner.lock().unwrap_or_else(|p| p.into_inner()).used_today
    }

    /// Until when (epoch ms) the bucket is paused after a throttling answer.
    pub fn paused_until(&self) -> Option<i64> {
        let i = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        let now = Instant::now();
        i.paused_until
            .filter(|p| *p > now)
            .map(|p| crate::kernel::time::now_ms() + (p - now).as_millis() as i64)
    }
}
