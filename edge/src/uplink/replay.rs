//! What to send next on one MQTT connection: live samples first, then the backlog in bounded
//! batches, and which batches still wait for the cloud's acknowledgement.
//!
//! At each (re)connect a session starts: samples newer than `live_age` (the latest poll round)
//! and everything stored afterwards go out as *live*; everything older still in the queue is
//! the *backlog*, replayed oldest first with at most `replay_window` batches awaiting an ack, so
//! a long outage's backlog never crowds out live data nor floods the broker. A batch that gets
//! no ack within `ack_timeout` (the broker may have dropped it for a lagging subscriber) makes
//! the session start over: everything unacknowledged is sent again, and ingest ignores what it
//! already has.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use crate::clock::now_ms;
use crate::queue::{Queue, QueueError};
use crate::uplink::batch::{self, Outgoing};

/// Batches of live data allowed to await their ack at once: live data outruns the backlog but
/// is still bounded if the cloud stops acknowledging while the broker stays up.
const LIVE_WINDOW: usize = 64;

/// Knobs of a session (from the uplink configuration).
#[derive(Debug, Clone)]
pub struct Pacing {
    pub batch_max_samples: usize,
    pub batch_linger: Duration,
    pub replay_window: usize,
    pub ack_timeout: Duration,
    /// Samples at most this old when a session starts count as live.
    pub live_age: Duration,
    pub encoding: pv_shared::wire::Encoding,
}

#[derive(Debug, Clone, Copy)]
struct Flight {
    last_seq: u64,
    sent: Instant,
    replay: bool,
}

/// One connection's sending state.
#[derive(Debug)]
pub struct Session {
    /// Samples below go out as backlog, from it on as live.
    boundary: u64,
    /// Highest sequence sent live.
    live_cursor: u64,
    /// Highest sequence sent as backlog.
    replay_cursor: u64,
    /// Batches awaiting the cloud's ack, by first sequence.
    inflight: BTreeMap<u64, Flight>,
    /// When unsent live samples were first seen (they wait up to `batch_linger` for company).
    live_waiting_since: Option<Instant>,
    pub started: Instant,
}

impl Session {
    pub fn start(queue: &Queue, pacing: &Pacing, now: Instant) -> Result<Session, QueueError> {
        let next = queue.stats().next_seq;
        let cutoff = now_ms() - pacing.live_age.as_millis() as i64;
        let newest = queue.newest(pacing.batch_max_samples)?;
        // The newest samples of the last moments are live: after an outage, operators see the
        // plant's present state first, the history fills in behind it.
        let boundary = newest
            .iter()
            .rev()
            .take_while(|s| s.ts >= cutoff)
            .last()
            .map_or(next, |s| s.seq);
        Ok(Session {
            boundary,
            live_cursor: boundary.saturating_sub(1),
            replay_cursor: 0,
            inflight: BTreeMap::new(),
            // Due at once, so the live head leaves before any backlog.
            live_waiting_since: (boundary < next)
                .then(|| now.checked_sub(pacing.batch_linger).unwrap_or(now)),
            started: now,
        })
    }

    /// Batches to publish now, in order: live first, then backlog as the window allows.
    /// Returns them with the sequences of samples that can never be sent (the caller drops those).
    pub fn next(
        &mut self,
        queue: &Queue,
        gateway: &str,
        pacing: &Pacing,
        now: Instant,
    ) -> Result<(Vec<Outgoing>, Vec<u64>), QueueError> {
        let mut out = Vec::new();
        let mut unsendable = Vec::new();
        let next_seq = queue.stats().next_seq;
        let unsent_live = next_seq.saturating_sub(1).saturating_sub(self.live_cursor);
        if unsent_live > 0 {
            let since = *self.live_waiting_since.get_or_insert(now);
            let due = unsent_live >= pacing.batch_max_samples as u64
                || now.duration_since(since) >= pacing.batch_linger;
            while due && self.live_inflight() < LIVE_WINDOW {
                let samples = queue.after_wire(self.live_cursor, u64::MAX, pacing.batch_max_samples)?;
                let Some(last) = samples.last().map(|s| s.seq) else {
                    // Gone already (acknowledged from an earlier session's sending, or dropped).
                    self.live_cursor = self.live_cursor.max(next_seq.saturating_sub(1));
                    break;
                };
                self.live_cursor = last;
                let (batches, bad) = batch::encode(gateway, false, samples, pacing.encoding);
                unsendable.extend(bad);
                for b in batches {
                    self.inflight.insert(
                        b.first_seq,
                        Flight {
                            last_seq: b.last_seq,
                            sent: now,
                            replay: false,
                        },
                    );
                    out.push(b);
                }
            }
            if self.live_cursor + 1 >= next_seq {
                self.live_waiting_since = None;
            }
        }
        while self.replay_cursor + 1 < self.boundary && self.replay_inflight() < pacing.replay_window {
            let samples = queue.after_wire(self.replay_cursor, self.boundary, pacing.batch_max_samples)?;
            let Some(last) = samples.last().map(|s| s.seq) else {
                self.replay_cursor = self.boundary.saturating_sub(1);
                break;
            };
            self.replay_cursor = last;
            let (batches, bad) = batch::encode(gateway, true, samples, pacing.encoding);
            unsendable.extend(bad);
            for b in batches {
                self.inflight.insert(
                    b.first_seq,
                    Flight {
                        last_seq: b.last_seq,
                        sent: now,
                        replay: true,
                    },
                );
                out.push(b);
            }
        }
        Ok((out, unsendable))
    }

    /// A batch could not be handed to the MQTT client: send it (and anything after it) again.
    pub fn unsend(&mut self, b: &Outgoing) {
        self.unsend_from(b.first_seq, b.replay);
    }

    /// As `unsend`, for a batch whose payload went to the client already.
    pub fn unsend_from(&mut self, first_seq: u64, replay: bool) {
        self.inflight.remove(&first_seq);
        let back = first_seq.saturating_sub(1);
        if replay {
            self.replay_cursor = self.replay_cursor.min(back);
        } else {
            self.live_cursor = self.live_cursor.min(back);
        }
    }

    /// The cloud acknowledged `first..=last`; false for a batch this session did not send (an
    /// earlier session's, or a duplicate ack), which the caller still applies to the queue.
    pub fn acked(&mut self, first: u64, last: u64) -> bool {
        match self.inflight.get(&first) {
            Some(f) if f.last_seq == last => {
                self.inflight.remove(&first);
                true
            }
            _ => false,
        }
    }

    /// The oldest batch still awaiting its ack was sent longer than `ack_timeout` ago.
    pub fn overdue(&self, now: Instant, ack_timeout: Duration) -> bool {
        self.inflight
            .values()
            .any(|f| now.duration_since(f.sent) > ack_timeout)
    }

    pub fn inflight(&self) -> usize {
        self.inflight.len()
    }

    /// The backlog of this session's start has been sent entirely (acks may still be due).
    pub fn backlog_sent(&self) -> bool {
        self.replay_cursor + 1 >= self.boundary
    }

    fn live_inflight(&self) -> usize {
        self.inflight.values().filter(|f| !f.replay).count()
    }

    fn replay_inflight(&self) -> usize {
        self.inflight.values().filter(|f| f.replay).count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::NewSample;
    use pv_shared::wire::{self, TelemetryBatch};

    fn push(q: &Queue, n: u32, ts: i64) {
        q.push(
            (0..n)
                .map(|_| NewSample {
                    device: "d".into(),
                    ts,
                    values: Default::default(),
                })
                .collect(),
        )
        .unwrap();
    }

    fn pacing() -> Pacing {
        Pacing {
            batch_max_samples: 10,
            batch_linger: Duration::from_millis(100),
            replay_window: 2,
            ack_timeout: Duration::from_secs(5),
            live_age: Duration::from_secs(10),
            encoding: pv_shared::wire::Encoding::Json,
        }
    }

    fn seqs(b: &Outgoing) -> (u64, u64, bool) {
        let batch: TelemetryBatch = wire::parse(&b.payload).unwrap();
        assert_eq!((batch.first_seq, batch.last_seq), (b.first_seq, b.last_seq));
        (b.first_seq, b.last_seq, b.replay)
    }

    #[test]
    fn live_goes_first_then_the_backlog_within_its_window() {
        let dir = tempfile::tempdir().unwrap();
        let q = Queue::open(dir.path(), 1000).unwrap();
        push(&q, 50, 1_000); // old: the backlog of an outage
        push(&q, 3, now_ms()); // the latest poll round
        let p = pacing();
        let t = Instant::now();
        let mut s = Session::start(&q, &p, t).unwrap();
        let (out, _) = s.next(&q, "gw", &p, t).unwrap();
        let got: Vec<_> = out.iter().map(seqs).collect();
        assert_eq!(got, vec![(51, 53, false), (1, 10, true), (11, 20, true)]);
        // The window is full until an ack comes.
        assert!(s.next(&q, "gw", &p, t).unwrap().0.is_empty());
        assert!(s.acked(1, 10));
        q.ack_range(1, 10).unwrap();
        let (out, _) = s.next(&q, "gw", &p, t).unwrap();
        assert_eq!(out.iter().map(seqs).collect::<Vec<_>>(), vec![(21, 30, true)]);
        // New live samples wait for the linger, then overtake the backlog.
        push(&q, 2, now_ms());
        assert!(s.next(&q, "gw", &p, t).unwrap().0.is_empty());
        let later = t + Duration::from_millis(150);
        let (out, _) = s.next(&q, "gw", &p, later).unwrap();
        assert_eq!(out.iter().map(seqs).collect::<Vec<_>>(), vec![(54, 55, false)]);
        assert!(!s.overdue(later, p.ack_timeout));
        assert!(s.overdue(t + Duration::from_secs(6), p.ack_timeout));
    }

    #[test]
    fn a_batch_the_client_refused_is_sent_again() {
        let dir = tempfile::tempdir().unwrap();
        let q = Queue::open(dir.path(), 1000).unwrap();
        push(&q, 25, 1_000);
        let p = pacing();
        let t = Instant::now();
        let mut s = Session::start(&q, &p, t).unwrap();
        let (out, _) = s.next(&q, "gw", &p, t).unwrap();
        assert_eq!(out.len(), 2);
        s.unsend(&out[1]);
        s.unsend(&out[0]);
        let (again, _) = s.next(&q, "gw", &p, t).unwrap();
        assert_eq!(
            again.iter().map(seqs).collect::<Vec<_>>(),
            vec![(1, 10, true), (11, 20, true)]
        );
        for b in &again {
            assert!(s.acked(b.first_seq, b.last_seq));
            q.ack_range(b.first_seq, b.last_seq).unwrap();
        }
        let (rest, _) = s.next(&q, "gw", &p, t).unwrap();
        assert_eq!(rest.iter().map(seqs).collect::<Vec<_>>(), vec![(21, 25, true)]);
        assert!(s.backlog_sent());
    }
}
