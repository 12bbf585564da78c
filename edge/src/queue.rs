//! Durable store-and-forward queue (sled).
//!
//! Every reading is written here, with a gateway-wide sequence number, before anything tries to
//! send it. An entry leaves the queue only when the cloud acknowledges, at application level,
//! that it has stored every sample up to a sequence number: a broker's PUBACK proves nothing
//! about storage (brokers drop messages for lagging subscribers).
//!
//! Overflow policy: the queue holds at most `max_samples`; when full, the *oldest* samples are
//! dropped (live data matters more than an old backlog after a long outage), and the number
//! dropped is counted durably and reported.
//!
//! Durability: `push` returns once the samples are in sled's log *and* flushed to disk, so a
//! crash (kill -9, power cut) after `push` returned loses nothing. Acknowledgements are not
//! flushed: sled writes them out within half a second anyway, and an ack lost to a crash only
//! makes the gateway send those samples again, which the cloud's idempotent ingest ignores.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Mutex;

use pv_shared::wire::{Sample, Value};

#[derive(Debug, thiserror::Error)]
pub enum QueueError {
    #[error("queue storage: {0}")]
    Storage(#[from] sled::Error),
    #[error("queue entry {seq} is corrupt: {err}")]
    Corrupt { seq: u64, err: serde_json::Error },
    #[error("queue state is poisoned by an earlier panic")]
    Poisoned,
}

const SAMPLES: &str = "samples";
const META_ACKED: &[u8] = b"acked";
const META_NEXT: &[u8] = b"next";
const META_DROPPED: &[u8] = b"dropped";

/// A reading to store (the queue gives it its sequence number).
#[derive(Debug, Clone)]
pub struct NewSample {
    pub device: String,
    pub ts: i64,
    pub values: BTreeMap<String, Value>,
}

struct State {
    next_seq: u64,
    len: u64,
    acked: u64,
    dropped: u64,
}

pub struct Queue {
    db: sled::Db,
    samples: sled::Tree,
    max_samples: u64,
    state: Mutex<State>,
    /// The next sequence number, announced after every durable push (the uplink waits on it).
    pushed: tokio::sync::watch::Sender<u64>,
}

/// Counters for reports and the status message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QueueStats {
    pub len: u64,
    pub next_seq: u64,
    pub acked: u64,
    pub dropped: u64,
}

fn get_u64(tree: &sled::Tree, key: &[u8]) -> Result<u64, QueueError> {
    Ok(tree
        .get(key)?
        .and_then(|v| <[u8; 8]>::try_from(v.as_ref()).ok())
        .map(u64::from_be_bytes)
        .unwrap_or(0))
}

/// Opens the sled database, waiting up to 5 s for its file lock: sled's background flusher keeps
/// a just-closed database (a restart, a reopen in the same process) locked for a moment.
fn open_db(dir: &Path) -> Result<sled::Db, QueueError> {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    loop {
        // sled's default page cache is 1 GiB; a gateway box has a few hundred MiB in all.
        match sled::Config::new()
            .path(dir)
            .cache_capacity(16 * 1024 * 1024)
            .open()
        {
            Err(sled::Error::Io(e))
                if e.to_string().contains("could not acquire lock")
                    && std::time::Instant::now() < deadline =>
            {
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
            other => return Ok(other?),
        }
    }
}

impl Queue {
    /// Opens (or creates) the queue in `dir`.
    pub fn open(dir: &Path, max_samples: u64) -> Result<Queue, QueueError> {
        let db = open_db(dir)?;
        let samples = db.open_tree(SAMPLES)?;
        let acked = get_u64(&db, META_ACKED)?;
        let dropped = get_u64(&db, META_DROPPED)?;
        let last = match samples.last()? {
            Some((k, _)) => <[u8; 8]>::try_from(k.as_ref())
                .map(u64::from_be_bytes)
                .unwrap_or(0),
            None => 0,
        };
        // Sequence numbers never go back, even when every sample has been acknowledged and
        // removed: the cloud deduplicates on them.
        let next_seq = get_u64(&db, META_NEXT)?.max(last + 1).max(acked + 1);
        let len = samples.len() as u64;
        Ok(Queue {
            db,
            samples,
            pushed: tokio::sync::watch::channel(next_seq).0,
            max_samples: max_samples.max(1),
            state: Mutex::new(State {
                next_seq,
                len,
                acked,
                dropped,
            }),
        })
    }

    /// Stores readings durably; returns their sequence numbers.
    pub fn push(&self, readings: Vec<NewSample>) -> Result<Vec<u64>, QueueError> {
        let mut st = self.state.lock().map_err(|_| QueueError::Poisoned)?;
        let mut batch = sled::Batch::default();
        let mut seqs = Vec::with_capacity(readings.len());
        let mut seq = st.next_seq;
        for r in readings {
            let mut s = Sample {
                seq,
                device: r.device,
                ts: r.ts,
                values: r.values,
                suspect: BTreeMap::new(),
            };
            // Nothing leaves the gateway as a good value that is outside its plausible range.
            s.mark_implausible();
            let bytes = serde_json::to_vec(&s).map_err(|err| QueueError::Corrupt { seq, err })?;
            batch.insert(&seq.to_be_bytes(), bytes);
            seqs.push(seq);
            seq += 1;
        }
        self.samples.apply_batch(batch)?;
        // The next sequence is kept separately so it survives the samples' removal.
        self.db.insert(META_NEXT, &seq.to_be_bytes())?;
        st.next_seq = seq;
        st.len += seqs.len() as u64;
        if st.len > self.max_samples {
            let excess = st.len - self.max_samples;
            let mut drop = sled::Batch::default();
            let mut n = 0;
            for item in self.samples.iter().keys().take(excess as usize) {
                drop.remove(item?);
                n += 1;
            }
            self.samples.apply_batch(drop)?;
            st.len -= n;
            st.dropped += n;
            self.db.insert(META_DROPPED, &st.dropped.to_be_bytes())?;
            tracing::warn!(
                dropped = n,
                total_dropped = st.dropped,
                "queue full: oldest samples dropped"
            );
        }
        self.db.flush()?;
        self.pushed.send_replace(st.next_seq);
        Ok(seqs)
    }

    /// Announces the next sequence number after every durable push.
    pub fn subscribe(&self) -> tokio::sync::watch::Receiver<u64> {
        self.pushed.subscribe()
    }

    /// Up to `limit` samples with a sequence above `after`, oldest first (a replay batch).
    pub fn after(&self, after: u64, limit: usize) -> Result<Vec<Sample>, QueueError> {
        let start = after.saturating_add(1).to_be_bytes();
        let mut out = Vec::new();
        for item in self.samples.range(start..).take(limit) {
            let (k, v) = item?;
            let seq = <[u8; 8]>::try_from(k.as_ref())
                .map(u64::from_be_bytes)
                .unwrap_or(0);
            out.push(serde_json::from_slice(&v).map_err(|err| QueueError::Corrupt { seq, err })?);
        }
        Ok(out)
    }

    /// Up to `limit` of the newest samples, oldest first.
    pub fn newest(&self, limit: usize) -> Result<Vec<Sample>, QueueError> {
        let mut out = Vec::new();
        for item in self.samples.iter().rev().take(limit) {
            let (k, v) = item?;
            let seq = <[u8; 8]>::try_from(k.as_ref())
                .map(u64::from_be_bytes)
                .unwrap_or(0);
            out.push(serde_json::from_slice(&v).map_err(|err| QueueError::Corrupt { seq, err })?);
        }
        out.reverse();
        Ok(out)
    }

    /// The cloud has stored the batch `first..=last`: forget its samples (see the module note
    /// on why this is not flushed). Returns how many were removed; acking twice is harmless.
    pub fn ack_range(&self, first: u64, last: u64) -> Result<u64, QueueError> {
        let mut st = self.state.lock().map_err(|_| QueueError::Poisoned)?;
        let last = last.min(st.next_seq.saturating_sub(1));
        if first > last {
            return Ok(0);
        }
        let mut batch = sled::Batch::default();
        let mut n = 0;
        for k in self
            .samples
            .range(first.to_be_bytes()..=last.to_be_bytes())
            .keys()
        {
            batch.remove(k?);
            n += 1;
        }
        self.samples.apply_batch(batch)?;
        st.len -= n.min(st.len);
        if last > st.acked {
            st.acked = last;
            self.db.insert(META_ACKED, &last.to_be_bytes())?;
        }
        Ok(n)
    }

    /// The cloud has stored everything up to `up_to`: forget it. Acks for sequences never
    /// issued are clamped (a confused or hostile peer cannot make us skip future samples).
    pub fn ack(&self, up_to: u64) -> Result<u64, QueueError> {
        let mut st = self.state.lock().map_err(|_| QueueError::Poisoned)?;
        let up_to = up_to.min(st.next_seq.saturating_sub(1));
        if up_to <= st.acked {
            return Ok(0);
        }
        let mut batch = sled::Batch::default();
        let mut n = 0;
        for k in self.samples.range(..=up_to.to_be_bytes()).keys() {
            batch.remove(k?);
            n += 1;
        }
        self.samples.apply_batch(batch)?;
        self.db.insert(META_ACKED, &up_to.to_be_bytes())?;
        self.db.flush()?;
        st.acked = up_to;
        st.len -= n.min(st.len);
        Ok(n)
    }

    pub fn stats(&self) -> QueueStats {
        match self.state.lock() {
            Ok(st) => QueueStats {
                len: st.len,
                next_seq: st.next_seq,
                acked: st.acked,
                dropped: st.dropped,
            },
            Err(_) => QueueStats {
                len: 0,
                next_seq: 0,
                acked: 0,
                dropped: 0,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reading(i: u32) -> NewSample {
        let mut values = BTreeMap::new();
        values.insert("ac_power".to_string(), Value::Number(f64::from(i)));
        NewSample {
            device: "inv".into(),
            ts: i64::from(i),
            values,
        }
    }

    #[test]
    fn sequences_survive_reopen_and_ack_removes_only_what_was_stored() {
        let dir = tempfile::tempdir().unwrap();
        {
            let q = Queue::open(dir.path(), 100).unwrap();
            assert_eq!(
                q.push((0..5).map(reading).collect()).unwrap(),
                vec![1, 2, 3, 4, 5]
            );
            assert_eq!(q.ack(3).unwrap(), 3);
        }
        let q = Queue::open(dir.path(), 100).unwrap();
        assert_eq!(
            q.stats(),
            QueueStats {
                len: 2,
                next_seq: 6,
                acked: 3,
                dropped: 0
            }
        );
        let rest = q.after(0, 10).unwrap();
        assert_eq!(rest.iter().map(|s| s.seq).collect::<Vec<_>>(), vec![4, 5]);
        assert_eq!(rest[0].values["ac_power"], Value::Number(3.0));
        // Everything acknowledged: the next sample still gets a new number.
        q.ack(5).unwrap();
        drop(q);
        let q = Queue::open(dir.path(), 100).unwrap();
        assert_eq!(q.push(vec![reading(9)]).unwrap(), vec![6]);
        // An ack beyond what was issued is clamped.
        q.ack(1_000).unwrap();
        assert_eq!(q.stats().acked, 6);
        assert_eq!(q.push(vec![reading(10)]).unwrap(), vec![7]);
    }

    #[test]
    fn range_acks_remove_only_their_batch_in_any_order() {
        let dir = tempfile::tempdir().unwrap();
        let q = Queue::open(dir.path(), 100).unwrap();
        let mut pushed = q.subscribe();
        q.push((0..10).map(reading).collect()).unwrap();
        assert!(pushed.has_changed().unwrap());
        assert_eq!(*pushed.borrow_and_update(), 11);
        // Live data (8-10) is acknowledged before the backlog (1-7).
        assert_eq!(q.ack_range(8, 10).unwrap(), 3);
        assert_eq!(q.ack_range(8, 10).unwrap(), 0, "twice is harmless");
        assert_eq!(q.stats().len, 7);
        let newest: Vec<u64> = q.newest(3).unwrap().iter().map(|s| s.seq).collect();
        assert_eq!(newest, vec![5, 6, 7]);
        assert_eq!(q.ack_range(1, 4).unwrap(), 4);
        assert_eq!(
            q.after(0, 100).unwrap().iter().map(|s| s.seq).collect::<Vec<_>>(),
            vec![5, 6, 7]
        );
        // A range beyond what was issued is clamped.
        assert_eq!(q.ack_range(5, 1_000).unwrap(), 3);
        assert_eq!(q.stats().len, 0);
        assert_eq!(q.push(vec![reading(1)]).unwrap(), vec![11]);
    }

    #[test]
    fn a_full_queue_drops_the_oldest_and_counts_them() {
        let dir = tempfile::tempdir().unwrap();
        let q = Queue::open(dir.path(), 10).unwrap();
        for i in 0..25 {
            q.push(vec![reading(i)]).unwrap();
        }
        let st = q.stats();
        assert_eq!((st.len, st.dropped), (10, 15));
        let kept: Vec<u64> = q.after(0, 100).unwrap().iter().map(|s| s.seq).collect();
        assert_eq!(kept, (16..=25).collect::<Vec<_>>());
        drop(q);
        assert_eq!(
            Queue::open(dir.path(), 10).unwrap().stats().dropped,
            15,
            "the count is durable"
        );
    }

    #[test]
    fn replay_batches_are_bounded_and_ordered() {
        let dir = tempfile::tempdir().unwrap();
        let q = Queue::open(dir.path(), 1000).unwrap();
        q.push((0..250).map(reading).collect()).unwrap();
        let mut after = 0;
        let mut seen = 0;
        loop {
            let b = q.after(after, 100).unwrap();
            if b.is_empty() {
                break;
            }
            assert!(b.len() <= 100);
            assert!(b.windows(2).all(|w| w[0].seq + 1 == w[1].seq));
            after = b.last().unwrap().seq;
            seen += b.len();
        }
        assert_eq!(seen, 250);
    }
}
