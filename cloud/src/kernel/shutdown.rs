//! The hub's stop, shared by every worker: a flag raised once (`begin`) and a count of the work
//! that still uses the database. The server stops what takes work in first (HTTP, the gateways'
//! listener, ingest), lets the rest finish its pass and exit, waits for the count to reach zero
//! (`drained`) and only then closes the pool, so nothing writes into a closed pool and nothing
//! mistakes the hub's own stop for a fault (a gateway outage).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use tokio::sync::watch;

#[derive(Clone)]
pub struct Shutdown {
    inner: Arc<Inner>,
}

struct Inner {
    stopping: AtomicBool,
    /// Raised with `stopping`, for those who wait on it.
    signal: watch::Sender<bool>,
    /// Pieces of work under way (`Busy` guards alive).
    busy: watch::Sender<usize>,
}

impl Default for Shutdown {
    fn default() -> Self {
        Shutdown {
            inner: Arc::new(Inner {
                stopping: AtomicBool::new(false),
                signal: watch::Sender::new(false),
                busy: watch::Sender::new(0),
            }),
        }
    }
}

/// One piece of work the pool must outlive; dropping it ends it.
pub struct Busy {
    inner: Arc<Inner>,
}

impl Drop for Busy {
    fn drop(&mut self) {
        self.inner.busy.send_modify(|n| *n = n.saturating_sub(1));
    }
}

impl Shutdown {
    /// The hub is stopping: no new work is taken from now on.
    pub fn begin(&self) {
        self.inner.stopping.store(true, Ordering::SeqCst);
        self.inner.signal.send_replace(true);
    }

    pub fn is_stopping(&self) -> bool {
        self.inner.stopping.load(Ordering::SeqCst)
    }

    /// Resolves once the stop has begun.
    pub async fn stopping(&self) {
        let mut rx = self.inner.signal.subscribe();
        // The sender lives in `inner`, which `self` holds: `wait_for` cannot fail.
        let _ = rx.wait_for(|s| *s).await;
    }

    /// Counts work that must finish before the pool closes, even once the stop has begun (a
    /// request's log row, an alarm's messages).
    pub fn busy(&self) -> Busy {
        self.inner.busy.send_modify(|n| *n += 1);
        Busy {
            inner: self.inner.clone(),
        }
    }

    /// Like [`Shutdown::busy`] for a worker's next pass, or `None` once the stop has begun (the
    /// worker then ends). Counted before the flag is read, so a pass either starts before the
    /// server waits for the work to drain (and is waited for) or does not start.
    pub fn pass(&self) -> Option<Busy> {
        let busy = self.busy();
        (!self.is_stopping()).then_some(busy)
    }

    /// Waits until no work is under way, at most `limit`; false when the limit ran out.
    pub async fn drained(&self, limit: Duration) -> bool {
        let mut rx = self.inner.busy.subscribe();
        tokio::time::timeout(limit, rx.wait_for(|n| *n == 0))
            .await
            .is_ok_and(|r| r.is_ok())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn work_begun_before_the_stop_is_waited_for_and_none_starts_after() {
        let s = Shutdown::default();
        let pass = s.pass().expect("not stopping yet");
        let log_row = s.busy();
        s.begin();
        assert!(s.is_stopping());
        s.stopping().await;
        assert!(s.pass().is_none(), "no pass starts once stopping");
        assert!(
            !s.drained(Duration::from_millis(50)).await,
            "two pieces of work left"
        );
        drop(pass);
        let waiter = {
            let s = s.clone();
            tokio::spawn(async move { s.drained(Duration::from_secs(5)).await })
        };
        tokio::time::sleep(Duration::from_millis(20)).await;
        drop(log_row);
        assert!(waiter.await.expect("joined"), "drained once the last piece ended");
    }
}
