//! What the data path tells whoever evaluates it (the alarm engine): samples once stored, and
//! presence changes. The data path only hands over; it does not know who listens, so evaluation
//! can depend on telemetry and never the other way round.

use std::collections::{BTreeMap, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use pv_shared::wire::Value;
use tokio::sync::mpsc;

/// One stored sample, as ingest hands it over.
#[derive(Debug, Clone)]
pub struct SampleIn {
    pub device_id: i64,
    pub kind: &'static str,
    pub tenant_id: Arc<str>,
    pub station_id: i64,
    pub ts: i64,
    pub values: BTreeMap<String, Value>,
}

/// What the evaluator is told.
#[derive(Debug)]
pub enum Event {
    /// Samples just stored (any devices, any order: the evaluator sorts).
    Samples(Vec<SampleIn>),
    /// The gateway's status reports these devices offline.
    DevicesOffline {
        tenant_id: String,
        station_id: i64,
        device_ids: Vec<i64>,
    },
    /// The gateway went offline (last will, shutdown status, silence); `since` is its last
    /// message (server clock), from which the outage is measured.
    GatewayOffline {
        tenant_id: String,
        station_id: i64,
        gateway_id: String,
        since: i64,
    },
    GatewayOnline {
        tenant_id: String,
        station_id: i64,
        gateway_id: String,
    },
}

/// The evaluator's inbox, installed once by the evaluator when it starts and closed once when
/// the hub stops (the evaluator then takes what was sent and ends).
#[derive(Default)]
pub struct Evaluation {
    inbox: Mutex<Option<mpsc::Sender<Event>>>,
    installed: AtomicBool,
    /// When each hand-over not yet taken was sent, oldest first: how far behind the evaluator is.
    waiting: Mutex<VecDeque<Instant>>,
}

impl Evaluation {
    /// Installs the evaluator's inbox; false when one already runs (or ran).
    pub fn install(&self, tx: mpsc::Sender<Event>) -> bool {
        if self.installed.swap(true, Ordering::SeqCst) {
            return false;
        }
        *self.inbox.lock().unwrap_or_else(|p| p.into_inner()) = Some(tx);
        true
    }

    fn sender(&self) -> Option<mpsc::Sender<Event>> {
        self.inbox.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Whether an evaluator consumes hand-overs (ingest skips building them otherwise).
    pub fn running(&self) -> bool {
        self.sender().is_some_and(|tx| !tx.is_closed())
    }

    /// Hands an event over, waiting while the inbox is full (back-pressure on ingest: nothing is
    /// skipped). Without an evaluator, nothing happens.
    pub async fn submit(&self, event: Event) {
        if let Some(tx) = self.sender() {
            // Stamped before the send, so the evaluator never takes an event without its stamp.
            self.stamps().push_back(Instant::now());
            if tx.send(event).await.is_err() {
                self.stamps().pop_back();
                tracing::error!("the alarm engine has stopped; alarms are not evaluated");
            }
        }
    }

    fn stamps(&self) -> std::sync::MutexGuard<'_, VecDeque<Instant>> {
        self.waiting.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The evaluator took one hand-over from its inbox.
    pub fn taken(&self) {
        self.stamps().pop_front();
    }

    /// Hand-overs waiting, and how long the oldest of them has waited.
    pub fn lag(&self) -> (usize, Duration) {
        let stamps = self.stamps();
        let oldest = stamps.front().map(Instant::elapsed).unwrap_or_default();
        (stamps.len(), oldest)
    }

    /// Closes the inbox at shutdown, once whoever hands events over has stopped: the evaluator
    /// still takes every event sent before, then ends.
    pub fn close(&self) {
        self.inbox.lock().unwrap_or_else(|p| p.into_inner()).take();
    }
}
