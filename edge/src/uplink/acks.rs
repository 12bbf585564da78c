//! Removing acknowledged samples from the queue, off the uplink's own task.
//!
//! sled removes key by key (each removal rewrites its leaf in memory), which cost the uplink
//! about a quarter of its time during a backlog replay while it could have been reading and
//! sending the next batches. The uplink hands each ack's range to this worker and goes on; the
//! worker takes every range waiting at once, joins adjacent ones and removes them in one sled
//! batch each. An ack the worker has not applied yet when the agent dies is lost like an
//! unflushed one (see `queue`): those samples are sent again and ingest ignores them.

use std::sync::Arc;
use std::sync::mpsc;

use crate::queue::Queue;

/// Sorts `ranges` and joins those that overlap or touch; ranges with a gap between them stay
/// apart (the gap may hold samples nobody acknowledged).
pub fn coalesce(mut ranges: Vec<(u64, u64)>) -> Vec<(u64, u64)> {
    ranges.sort_unstable();
    let mut out: Vec<(u64, u64)> = Vec::with_capacity(ranges.len());
    for (first, last) in ranges {
        match out.last_mut() {
            Some(prev) if first <= prev.1.saturating_add(1) => prev.1 = prev.1.max(last),
            _ => out.push((first, last)),
        }
    }
    out
}

/// The worker: `send` ranges, then `finish` to wait until every range sent has been applied.
pub struct AckWorker {
    tx: Option<mpsc::Sender<(u64, u64)>>,
    task: Option<tokio::task::JoinHandle<()>>,
}

impl AckWorker {
    pub fn start(queue: Arc<Queue>) -> AckWorker {
        let (tx, rx) = mpsc::channel::<(u64, u64)>();
        let task = tokio::task::spawn_blocking(move || {
            while let Ok(first) = rx.recv() {
                let mut ranges = vec![first];
                ranges.extend(rx.try_iter());
                for (first, last) in coalesce(ranges) {
                    match queue.ack_range(first, last) {
                        Ok(n) => tracing::trace!(first, last, removed = n, "acknowledged"),
                        Err(e) => tracing::error!(%e, first, last, "queue ack failed"),
                    }
                }
            }
        });
        AckWorker {
            tx: Some(tx),
            task: Some(task),
        }
    }

    pub fn send(&self, first: u64, last: u64) {
        if let Some(tx) = &self.tx
            && tx.send((first, last)).is_err()
        {
            tracing::error!(first, last, "ack worker gone; samples will be sent again");
        }
    }

    /// Applies everything sent so far (before a clean shutdown).
    pub async fn finish(mut self) {
        self.tx = None;
        if let Some(task) = self.task.take()
            && let Err(e) = task.await
        {
            tracing::error!(%e, "ack worker panicked");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adjacent_ranges_join_and_gaps_stay() {
        assert_eq!(
            coalesce(vec![(401, 600), (1, 200), (201, 400), (801, 1000), (700, 700)]),
            vec![(1, 600), (700, 700), (801, 1000)]
        );
        // Repeated and overlapping acks (a batch sent twice) are harmless.
        assert_eq!(coalesce(vec![(5, 9), (1, 6), (5, 9)]), vec![(1, 9)]);
        assert!(coalesce(Vec::new()).is_empty());
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn every_range_sent_is_applied_by_finish_and_nothing_else() {
        use crate::queue::NewSample;
        let dir = tempfile::tempdir().unwrap();
        let q = Arc::new(Queue::open(dir.path(), 10_000).unwrap());
        let reading = || NewSample {
            device: "d".into(),
            ts: 1,
            values: Default::default(),
        };
        q.push((0..1000).map(|_| reading()).collect()).unwrap();
        let w = AckWorker::start(q.clone());
        // Out of order, as live batches are acked before the backlog; 601..=700 never acked.
        for (a, b) in [(901, 1000), (1, 200), (401, 600), (201, 400), (701, 900)] {
            w.send(a, b);
        }
        w.finish().await;
        let left: Vec<u64> = q.after(0, 10_000).unwrap().iter().map(|s| s.seq).collect();
        assert_eq!(left, (601..=700).collect::<Vec<_>>());
        assert_eq!(q.stats().len, 100);
    }
}
