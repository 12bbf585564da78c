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
//!
//! Layout of an entry: see `codec` (compact since the backlog-replay work; JSON entries of
//! older gateways are still read).

mod codec;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Mutex;

use pv_shared::wire::{Sample, Value};

#[derive(Debug, thiserror::Error)]
pub enum QueueError {
    #[error("queue storage: {0}")]
    Storage(#[from] sled::Error),
    #[error("queue entry {seq} is corrupt: {err}")]
    Corrupt { seq: u64, err: codec::CodecError },
    #[error("queue state is poisoned by an earlier panic")]
    Poisoned,
}

const SAMPLES: &str = "samples";
/// Metric name → id of the compact layout (see `codec`).
const METRIC_IDS: &str = "metric_ids";
const META_ACKED: &[u8] = b"acked";
const META_NEXT: &[u8] = b"next";
const META_DROPPED: &[u8] = b"dropped";
/// Acked ranges up to this wide are removed key by key (see `ack_range`).
const DIRECT_REMOVE_MAX: u64 = 16_384;

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
    metric_ids: sled::Tree,
    state: Mutex<State>,
    /// Only grows; read by every replay batch, written when a new metric name is first pushed.
    dict: std::sync::RwLock<codec::Dictionary>,
    /// The next sequence number, announced after every durable push (the uplink waits on it).
    pushed: tokio::sync::watch::Sender<u64>,
}

/// A queued sample as the wire carries it (the JSON of a `Sample`), for building batches.
#[derive(Debug, Clone)]
pub struct WireSample {
    pub seq: u64,
    pub json: Vec<u8>,
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

fn decode(key: &[u8], value: &[u8], dict: &codec::Dictionary) -> Result<Sample, QueueError> {
    let seq = <[u8; 8]>::try_from(key).map(u64::from_be_bytes).unwrap_or(0);
    codec::decode(value, dict).map_err(|err| QueueError::Corrupt { seq, err })
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
        let metric_ids = db.open_tree(METRIC_IDS)?;
        let mut pairs = Vec::new();
        for item in metric_ids.iter() {
            let (k, v) = item?;
            if let (Ok(name), Ok(id)) = (std::str::from_utf8(&k), <[u8; 4]>::try_from(v.as_ref())) {
                pairs.push((name.to_string(), u32::from_be_bytes(id)));
            }
        }
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
            metric_ids,
            dict: std::sync::RwLock::new(codec::Dictionary::from_pairs(pairs)),
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
        let mut dict = self.dict.write().map_err(|_| QueueError::Poisoned)?;
        let new = dict.missing(readings.iter().flat_map(|r| r.values.keys()));
        if !new.is_empty() {
            // Written before the entries that use them: sled recovers a prefix of its log, so
            // no recovered entry can name an id whose name was lost.
            for (name, id) in &new {
                self.metric_ids.insert(name.as_bytes(), &id.to_be_bytes())?;
            }
            dict.add(&new);
        }
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
            let bytes = codec::encode(s, &dict).map_err(|err| QueueError::Corrupt { seq, err })?;
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
        let dict = self.dict.read().map_err(|_| QueueError::Poisoned)?;
        let mut out = Vec::with_capacity(limit.min(10_000));
        for item in self.samples.range(start..).take(limit) {
            let (k, v) = item?;
            out.push(decode(&k, &v, &dict)?);
        }
        Ok(out)
    }

    /// Up to `limit` samples with a sequence above `after` and below `before`, oldest first, as
    /// the wire carries them (what a batch is made of: no decoding into maps and back).
    pub fn after_wire(&self, after: u64, before: u64, limit: usize) -> Result<Vec<WireSample>, QueueError> {
        let start = after.saturating_add(1);
        if start >= before {
            return Ok(Vec::new());
        }
        let dict = self.dict.read().map_err(|_| QueueError::Poisoned)?;
        let mut out = Vec::with_capacity(limit.min(10_000));
        for item in self
            .samples
            .range(start.to_be_bytes()..before.to_be_bytes())
            .take(limit)
        {
            let (k, v) = item?;
            let seq = <[u8; 8]>::try_from(k.as_ref())
                .map(u64::from_be_bytes)
                .unwrap_or(0);
            let mut json = Vec::with_capacity(v.len() * 3);
            codec::to_wire_json(&v, &dict, &mut json).map_err(|err| QueueError::Corrupt { seq, err })?;
            out.push(WireSample { seq, json });
        }
        Ok(out)
    }

    /// Up to `limit` of the newest samples, oldest first.
    pub fn newest(&self, limit: usize) -> Result<Vec<Sample>, QueueError> {
        let dict = self.dict.read().map_err(|_| QueueError::Poisoned)?;
        let mut out = Vec::new();
        for item in self.samples.iter().rev().take(limit) {
            let (k, v) = item?;
            out.push(decode(&k, &v, &dict)?);
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
        let mut n = 0;
        if last - first < DIRECT_REMOVE_MAX {
            // Key by key without scanning first: a batch's keys are all there (the scan cost a
            // tenth of a replay), and a removal needs no atomicity (an ack half applied only
            // makes samples go out again).
            for seq in first..=last {
                if self.samples.remove(seq.to_be_bytes())?.is_some() {
                    n += 1;
                }
            }
        } else {
            // A wide range (joined acks, or a peer's odd one) may be mostly holes: visit only
            // the keys that exist.
            let mut batch = sled::Batch::default();
            for k in self
                .samples
                .range(first.to_be_bytes()..=last.to_be_bytes())
                .keys()
            {
                batch.remove(k?);
                n += 1;
            }
            self.samples.apply_batch(batch)?;
        }
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
    fn a_wide_ack_range_removes_exactly_what_it_covers() {
        let dir = tempfile::tempdir().unwrap();
        let q = Queue::open(dir.path(), 100_000).unwrap();
        let n = DIRECT_REMOVE_MAX as u32 + 100;
        q.push((0..n).map(reading).collect()).unwrap();
        q.ack_range(51, 60).unwrap();
        // Wider than removed key by key, with a hole in it.
        assert_eq!(q.ack_range(2, u64::from(n) - 1).unwrap(), u64::from(n) - 2 - 10);
        let left: Vec<u64> = q.after(0, 100).unwrap().iter().map(|s| s.seq).collect();
        assert_eq!(left, vec![1, u64::from(n)]);
        assert_eq!(q.stats().len, 2);
    }

    /// What a gateway before the compact layout left on disk: JSON entries and the next sequence.
    fn write_legacy_queue(dir: &Path, samples: &[Sample]) {
        let db = sled::open(dir).unwrap();
        let tree = db.open_tree(SAMPLES).unwrap();
        for s in samples {
            tree.insert(s.seq.to_be_bytes(), serde_json::to_vec(s).unwrap())
                .unwrap();
        }
        let next = samples.last().map_or(1, |s| s.seq + 1);
        db.insert(META_NEXT, &next.to_be_bytes()).unwrap();
        db.flush().unwrap();
    }

    #[test]
    fn an_upgraded_gateway_reads_its_old_json_queue_beside_new_entries() {
        let dir = tempfile::tempdir().unwrap();
        let old: Vec<Sample> = (1..=5)
            .map(|i| {
                let r = reading(i as u32 * 10);
                Sample {
                    seq: i,
                    device: r.device,
                    ts: r.ts,
                    values: r.values,
                    suspect: BTreeMap::new(),
                }
            })
            .collect();
        write_legacy_queue(dir.path(), &old);
        let q = Queue::open(dir.path(), 100).unwrap();
        assert_eq!(q.stats().len, 5);
        assert_eq!(q.push(vec![reading(99)]).unwrap(), vec![6]);
        let all = q.after(0, 100).unwrap();
        assert_eq!(&all[..5], &old[..]);
        assert_eq!(all[5].values["ac_power"], Value::Number(99.0));
        assert_eq!(q.newest(2).unwrap(), all[4..].to_vec());
        assert_eq!(q.ack_range(1, 3).unwrap(), 3);
        drop(q);
        let q = Queue::open(dir.path(), 100).unwrap();
        let seqs: Vec<u64> = q.after(0, 100).unwrap().iter().map(|s| s.seq).collect();
        assert_eq!(seqs, vec![4, 5, 6]);
    }

    #[test]
    fn metric_ids_survive_reopen_and_new_names_get_new_ids() {
        let dir = tempfile::tempdir().unwrap();
        {
            let q = Queue::open(dir.path(), 100).unwrap();
            q.push(vec![reading(1)]).unwrap();
        }
        let q = Queue::open(dir.path(), 100).unwrap();
        let mut r = reading(2);
        r.values.insert("a_first_name".into(), Value::Text("t".into()));
        q.push(vec![r]).unwrap();
        drop(q);
        let q = Queue::open(dir.path(), 100).unwrap();
        let all = q.after(0, 10).unwrap();
        assert_eq!(all[0].values.len(), 1);
        assert_eq!(all[0].values["ac_power"], Value::Number(1.0));
        assert_eq!(all[1].values["a_first_name"], Value::Text("t".into()));
        assert_eq!(all[1].values["ac_power"], Value::Number(2.0));
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
