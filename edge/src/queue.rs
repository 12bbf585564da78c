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
//! Layout: samples are stored in groups, several per sled entry (see `group`), each sample in
//! the compact layout of `codec`; the one-sample entries of older gateways (JSON or compact)
//! are still read.

mod codec;
mod group;

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
/// How many samples the queue holds, kept in the samples tree itself so that every batch that
/// adds or removes samples updates it atomically. Counting at open instead read every group:
/// sled's cache only accounts for pages in rounds of 64 accesses on each of its 256 shards, so
/// a scan keeps up to ~16 000 leaves in memory whatever `cache_capacity` says; leaves of
/// groups are large, and the scan held a whole 1 M-sample backlog (~380 MiB) in memory. Nine
/// bytes sort after every 8-byte sequence key, so ranges below `LEN_KEY` never see it.
const LEN_KEY: &[u8] = &[0xFF; 9];

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

fn key_seq(key: &[u8]) -> u64 {
    <[u8; 8]>::try_from(key).map(u64::from_be_bytes).unwrap_or(0)
}

fn len_bytes(len: u64) -> [u8; 8] {
    len.to_be_bytes()
}

fn decode(seq: u64, value: &[u8], dict: &codec::Dictionary) -> Result<Sample, QueueError> {
    codec::decode(value, dict).map_err(|err| QueueError::Corrupt { seq, err })
}

fn entries(key: u64, value: &[u8]) -> Result<Vec<(u64, &[u8])>, QueueError> {
    group::entries(key, value).map_err(|err| QueueError::Corrupt { seq: key, err })
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
        let last = match samples.range(..LEN_KEY).next_back().transpose()? {
            Some((k, v)) => entries(key_seq(&k), &v)?.last().map_or(0, |e| e.0),
            None => 0,
        };
        // Sequence numbers never go back, even when every sample has been acknowledged and
        // removed: the cloud deduplicates on them.
        let next_seq = get_u64(&db, META_NEXT)?.max(last + 1).max(acked + 1);
        let len = match samples.get(LEN_KEY)? {
            Some(v) => <[u8; 8]>::try_from(v.as_ref()).map_or(0, u64::from_be_bytes),
            None => {
                // A queue written before the count was kept: count it once.
                let mut len = 0;
                for item in samples.range(..LEN_KEY) {
                    let (k, v) = item?;
                    len += group::count(&v).map_err(|err| QueueError::Corrupt {
                        seq: key_seq(&k),
                        err,
                    })?;
                }
                samples.insert(LEN_KEY, &len_bytes(len))?;
                len
            }
        };
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
        self.push_as(readings, true)
    }

    /// As `push`, one sample per entry: the layout of gateways before groups (an upgrade's
    /// starting point, for tests and the replay benchmark's "before").
    #[cfg(any(test, feature = "testkit"))]
    pub fn push_ungrouped(&self, readings: Vec<NewSample>) -> Result<Vec<u64>, QueueError> {
        self.push_as(readings, false)
    }

    fn push_as(&self, readings: Vec<NewSample>, grouped: bool) -> Result<Vec<u64>, QueueError> {
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
        let mut encoded = Vec::with_capacity(readings.len());
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
            encoded.push((seq, bytes));
            seqs.push(seq);
            seq += 1;
        }
        let mut batch = sled::Batch::default();
        for chunk in encoded.chunks(group::GROUP_MAX) {
            if !grouped {
                for (seq, bytes) in chunk {
                    batch.insert(&seq.to_be_bytes(), bytes.as_slice());
                }
                continue;
            }
            let refs: Vec<(u64, &[u8])> = chunk.iter().map(|(s, b)| (*s, b.as_slice())).collect();
            batch.insert(&chunk[0].0.to_be_bytes(), group::encode(chunk[0].0, &refs));
        }
        batch.insert(LEN_KEY, &len_bytes(st.len + seqs.len() as u64));
        self.samples.apply_batch(batch)?;
        // The next sequence is kept separately so it survives the samples' removal.
        self.db.insert(META_NEXT, &seq.to_be_bytes())?;
        st.next_seq = seq;
        st.len += seqs.len() as u64;
        if st.len > self.max_samples {
            let excess = st.len - self.max_samples;
            let first = match self.samples.range(..LEN_KEY).next().transpose()? {
                Some((k, _)) => key_seq(&k),
                None => 0,
            };
            // The oldest `excess` samples, wherever the groups' edges fall.
            let mut upto = first;
            let mut counted = 0;
            for item in self.samples.range(..LEN_KEY) {
                let (k, v) = item?;
                let es = entries(key_seq(&k), &v)?;
                if counted + es.len() as u64 >= excess {
                    upto = es[(excess - counted - 1) as usize].0;
                    break;
                }
                counted += es.len() as u64;
            }
            let n = self.remove_range(first, upto, st.len)?;
            st.len -= n.min(st.len);
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
        let dict = self.dict.read().map_err(|_| QueueError::Poisoned)?;
        let mut out = Vec::with_capacity(limit.min(10_000));
        self.scan(after.saturating_add(1), u64::MAX, limit, |seq, bytes| {
            out.push(decode(seq, bytes, &dict)?);
            Ok(())
        })?;
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
        self.scan(start, before, limit, |seq, bytes| {
            let mut json = Vec::with_capacity(bytes.len() * 3);
            codec::to_wire_json(bytes, &dict, &mut json).map_err(|err| QueueError::Corrupt { seq, err })?;
            out.push(WireSample { seq, json });
            Ok(())
        })?;
        Ok(out)
    }

    /// Calls `f` for up to `limit` samples with `start <= seq < before`, ascending.
    fn scan(
        &self,
        start: u64,
        before: u64,
        limit: usize,
        mut f: impl FnMut(u64, &[u8]) -> Result<(), QueueError>,
    ) -> Result<(), QueueError> {
        if limit == 0 || start >= before {
            return Ok(());
        }
        // The group holding `start` may be keyed below it.
        let head = self.samples.range(..start.to_be_bytes()).next_back();
        let rest = self.samples.range(start.to_be_bytes()..before.to_be_bytes());
        let mut left = limit;
        for item in head.into_iter().chain(rest) {
            let (k, v) = item?;
            for (seq, bytes) in entries(key_seq(&k), &v)? {
                if seq < start {
                    continue;
                }
                if seq >= before {
                    return Ok(());
                }
                f(seq, bytes)?;
                left -= 1;
                if left == 0 {
                    return Ok(());
                }
            }
        }
        Ok(())
    }

    /// Up to `limit` of the newest samples, oldest first.
    pub fn newest(&self, limit: usize) -> Result<Vec<Sample>, QueueError> {
        let dict = self.dict.read().map_err(|_| QueueError::Poisoned)?;
        let mut out = Vec::new();
        for item in self.samples.range(..LEN_KEY).rev() {
            if out.len() >= limit {
                break;
            }
            let (k, v) = item?;
            for (seq, bytes) in entries(key_seq(&k), &v)?.into_iter().rev() {
                if out.len() >= limit {
                    break;
                }
                out.push(decode(seq, bytes, &dict)?);
            }
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
        let n = self.remove_range(first, last, st.len)?;
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
        let n = self.remove_range(0, up_to, st.len)?;
        self.db.insert(META_ACKED, &up_to.to_be_bytes())?;
        self.db.flush()?;
        st.acked = up_to;
        st.len -= n.min(st.len);
        Ok(n)
    }

    /// Removes every sample with `first <= seq <= last` in one sled batch (a crash applies all
    /// of it or none): groups inside the range go whole, a group the range cuts is rewritten
    /// with what it keeps, and the count of the `len` samples held goes down in the same batch.
    /// Returns how many samples were removed.
    fn remove_range(&self, first: u64, last: u64, len: u64) -> Result<u64, QueueError> {
        let head = self.samples.range(..first.to_be_bytes()).next_back();
        let items = head
            .into_iter()
            .chain(self.samples.range(first.to_be_bytes()..=last.to_be_bytes()))
            .collect::<Result<Vec<_>, _>>()?;
        let mut batch = sled::Batch::default();
        let mut n = 0;
        for (i, (k, v)) in items.iter().enumerate() {
            let key = key_seq(k);
            if key >= first && i + 1 < items.len() {
                // The next group starts within the range, so all of this one lies in it.
                n += group::count(v).map_err(|err| QueueError::Corrupt { seq: key, err })?;
                batch.remove(k);
                continue;
            }
            let es = entries(key, v)?;
            let kept: Vec<(u64, &[u8])> = es
                .iter()
                .copied()
                .filter(|(seq, _)| *seq < first || *seq > last)
                .collect();
            n += (es.len() - kept.len()) as u64;
            if kept.is_empty() {
                batch.remove(k);
            } else if kept.len() < es.len() {
                batch.insert(k, group::encode(key, &kept));
            }
        }
        batch.insert(LEN_KEY, &len_bytes(len - n.min(len)));
        self.samples.apply_batch(batch)?;
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
        let n = 20_000;
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

    fn seqs_after(q: &Queue, after: u64) -> Vec<u64> {
        q.after(after, usize::MAX)
            .unwrap()
            .iter()
            .map(|s| s.seq)
            .collect()
    }

    #[test]
    fn acks_that_cut_groups_keep_the_rest_of_them_across_reopen() {
        let dir = tempfile::tempdir().unwrap();
        {
            let q = Queue::open(dir.path(), 10_000).unwrap();
            // 600 in one push: groups 1-256, 257-512, 513-600; then one of 10.
            q.push((0..600).map(reading).collect()).unwrap();
            q.push((0..10).map(reading).collect()).unwrap();
            assert_eq!(q.samples.range(..LEN_KEY).count(), 4, "one sled entry per group");
            // A batch ending inside a group, then one starting inside another.
            assert_eq!(q.ack_range(1, 200).unwrap(), 200);
            assert_eq!(q.ack_range(300, 305).unwrap(), 6);
            assert_eq!(q.ack_range(601, 603).unwrap(), 3);
            // Reading from inside a group (its key is below the start).
            let from: Vec<u64> = q
                .after_wire(250, 260, 100)
                .unwrap()
                .iter()
                .map(|w| w.seq)
                .collect();
            assert_eq!(from, (251..=259).collect::<Vec<_>>());
        }
        let q = Queue::open(dir.path(), 10_000).unwrap();
        let expect: Vec<u64> = (201..=299).chain(306..=600).chain(604..=610).collect();
        assert_eq!(seqs_after(&q, 0), expect);
        assert_eq!(q.stats().len, expect.len() as u64);
        assert_eq!(
            q.after(250, 1).unwrap()[0].values["ac_power"],
            Value::Number(250.0)
        );
        let newest: Vec<u64> = q.newest(9).unwrap().iter().map(|s| s.seq).collect();
        assert_eq!(newest, vec![599, 600, 604, 605, 606, 607, 608, 609, 610]);
        // The whole range at once, across the cut groups.
        assert_eq!(q.ack_range(150, 1_000).unwrap(), expect.len() as u64);
        assert_eq!(q.samples.range(..LEN_KEY).count(), 0);
        assert_eq!(q.push(vec![reading(1)]).unwrap(), vec![611]);
    }

    #[test]
    fn the_count_is_kept_with_the_samples_and_counted_once_for_an_older_queue() {
        let dir = tempfile::tempdir().unwrap();
        let stored = |q: &Queue| get_u64(&q.samples, LEN_KEY).unwrap();
        {
            let q = Queue::open(dir.path(), 1_000).unwrap();
            q.push((0..600).map(reading).collect()).unwrap();
            assert_eq!(q.ack_range(1, 200).unwrap(), 200);
            q.ack(250).unwrap();
            // Over the limit: the oldest go, and the count follows.
            q.push((0..700).map(reading).collect()).unwrap();
            assert_eq!(q.stats().len, 1_000);
            assert_eq!(stored(&q), 1_000);
            assert_eq!(q.ack_range(1_000, 1_009).unwrap(), 10);
            assert_eq!(stored(&q), 990);
            // As a queue written before the count was kept.
            q.samples.remove(LEN_KEY).unwrap();
            q.db.flush().unwrap();
        }
        let q = Queue::open(dir.path(), 1_000).unwrap();
        assert_eq!(q.stats().len, 990);
        assert_eq!(stored(&q), 990);
        assert_eq!(seqs_after(&q, 0).len(), 990);
        assert_eq!(q.newest(1).unwrap()[0].seq, 1_300);
    }

    #[test]
    fn an_upgraded_gateway_replays_its_one_sample_compact_entries_beside_groups() {
        let dir = tempfile::tempdir().unwrap();
        {
            // What the compact layout before groups left: one entry per sample under its seq.
            let q = Queue::open(dir.path(), 100).unwrap();
            q.push_ungrouped(vec![reading(0)]).unwrap();
            q.ack(1).unwrap();
            q.push_ungrouped((2..=6).map(|i| reading(i * 10)).collect())
                .unwrap();
            assert_eq!(q.samples.range(..LEN_KEY).count(), 5);
        }
        let q = Queue::open(dir.path(), 100).unwrap();
        assert_eq!(q.stats().len, 5);
        assert_eq!(q.push((0..3).map(reading).collect()).unwrap(), vec![7, 8, 9]);
        assert_eq!(seqs_after(&q, 0), (2..=9).collect::<Vec<_>>());
        assert_eq!(q.after(2, 1).unwrap()[0].values["ac_power"], Value::Number(30.0));
        // One ack across both layouts.
        assert_eq!(q.ack_range(4, 7).unwrap(), 4);
        drop(q);
        let q = Queue::open(dir.path(), 100).unwrap();
        assert_eq!(seqs_after(&q, 0), vec![2, 3, 8, 9]);
        assert_eq!(q.stats().len, 4);
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
        // One push beyond the bound: its group is cut, not dropped whole.
        let dir = tempfile::tempdir().unwrap();
        let q = Queue::open(dir.path(), 10).unwrap();
        q.push((0..25).map(reading).collect()).unwrap();
        assert_eq!((q.stats().len, q.stats().dropped), (10, 15));
        assert_eq!(seqs_after(&q, 0), (16..=25).collect::<Vec<_>>());
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
