//! The poller: one task per hub that polls every vendor account with a mapped plant whose lease
//! it holds (`lease`), into ingest (`telemetry::direct`).
//!
//! Per account a session (`connector::connect`) and the account's `Budget` (every request takes
//! a token first, so the vendor's documented rate holds whatever the poller asks). Each pass,
//! per account:
//! - **live**, at the vendor's cadence (`Limits::live_interval`): the newest sample of every
//!   mapped device, then the vendor's alarms;
//! - **backfill**, at most one history window (`Limits::history_window`) per pass, oldest first,
//!   after the live poll, so a long backfill never starves live data. Each plant keeps a cursor,
//!   `backfilled_until`: every sample before it is stored. Mapping a plant sets it
//!   `backfill_depth` back; a window moves it only once its samples are stored (ingest's oneshot),
//!   and a live poll moves it only when its samples directly follow the cursor. So after an
//!   outage the cursor stays where the last contiguous sample was and the backfill fills the
//!   gap; the window stops one cadence short of now, leaving the newest samples (which a vendor
//!   may publish late) to the next pass. A window polled twice stores nothing twice: raw samples
//!   are keyed (device, time).
//! - **failures**: `Throttled` pauses the account until the budget's pause ends (the connector
//!   told the budget); `Unavailable`/`Protocol` back off exponentially (1 min doubling to 30 min)
//!   and count toward the comm-loss alarm (`alarms`); `Auth` waits 30 minutes and signs in anew.
//!
//! The clock of a pass is an argument (`Poller::pass(now)`), so tests run a day of cadence in
//! moments; the spawned task passes the wall clock.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use super::account::{self, Account};
use super::alarms;
use super::budget::Budget;
use super::connector::{VendorApi, VendorError, VendorSample};
use super::context::VendorCtx;
use super::lease;
use super::plant::{self, MappedPlant};
use crate::alarm::outage::{Due, Outages};
use crate::kernel::sql::{Sql, Value};
use crate::kernel::{ApiError, time};
use crate::telemetry::direct::{DirectBatch, DirectSample};
use crate::telemetry::ingest::Ingest;

const MINUTE: i64 = 60_000;
const MAX_BACKOFF: i64 = 30 * MINUTE;
/// Long enough for a pass that waits on a slow vendor's budget.
pub const LEASE_MS: i64 = 5 * MINUTE;

/// What happened to an account's last attempt, as `pv_vendor_poll.state` says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PollState {
    Idle,
    Ok,
    AuthFailed,
    Throttled,
    Unreachable,
}

impl PollState {
    pub fn as_str(self) -> &'static str {
        match self {
            PollState::Idle => "idle",
            PollState::Ok => "ok",
            PollState::AuthFailed => "auth_failed",
            PollState::Throttled => "throttled",
            PollState::Unreachable => "unreachable",
        }
    }
}

struct Worker {
    account: Account,
    session: Box<dyn VendorApi>,
    budget: Arc<Budget>,
    next_live: i64,
    backoff_until: i64,
    failures: u32,
    state: PollState,
    last_ok: Option<i64>,
    last_error: Option<String>,
    error_since: Option<i64>,
    /// Per plant, the oldest of its devices' newest live samples stored: once the cursor reaches
    /// the cadence before it, the cursor moves past it.
    live_newest: HashMap<String, i64>,
}

/// Why a step ended early.
enum Failed {
    Vendor(VendorError),
    /// The database (storing samples or cursors): tried again next pass, not the vendor's fault.
    Store(ApiError),
}

impl From<VendorError> for Failed {
    fn from(e: VendorError) -> Self {
        Failed::Vendor(e)
    }
}

impl From<ApiError> for Failed {
    fn from(e: ApiError) -> Self {
        Failed::Store(e)
    }
}

pub struct Poller {
    state: VendorCtx,
    ingest: Arc<Ingest>,
    replica: String,
    lease_ms: i64,
    workers: HashMap<i64, Worker>,
    outages: Outages,
    /// Steps whose samples or cursors could not be stored (tried again at the next pass).
    store_failures: u64,
}

impl Poller {
    pub fn new(state: VendorCtx, ingest: Arc<Ingest>, replica: String) -> Poller {
        Poller {
            state,
            ingest,
            replica,
            lease_ms: LEASE_MS,
            workers: HashMap::new(),
            outages: Outages::default(),
            store_failures: 0,
        }
    }

    /// Sets how long a lease holds (tests of a replica taking over).
    pub fn with_lease(mut self, lease_ms: i64) -> Poller {
        self.lease_ms = lease_ms;
        self
    }

    /// How many steps failed to store what they polled since the start.
    pub fn store_failures(&self) -> u64 {
        self.store_failures
    }

    /// The accounts this poller holds right now.
    pub fn holding(&self) -> Vec<i64> {
        let mut ids: Vec<i64> = self.workers.keys().copied().collect();
        ids.sort_unstable();
        ids
    }

    /// One pass at `now` (see the module note). True when some backfill is still pending, so
    /// the next pass should come soon.
    pub async fn pass(&mut self, now: i64) -> Result<bool, ApiError> {
        let ids = account::pollable(&self.state).await?;
        self.workers.retain(|id, _| ids.contains(id));
        let mut pending = false;
        for id in ids {
            let acc = match account::load(&self.state, None, id).await {
                Ok(Some(a)) => a,
                Ok(None) => continue,
                Err(e) => {
                    tracing::warn!(account = id, error = %e, "vendor account not polled");
                    continue;
                }
            };
            lease::ensure_row(&self.state, id, &acc.tenant_id, now).await?;
            if !lease::claim(&self.state, id, &self.replica, now, self.lease_ms).await? {
                self.workers.remove(&id);
                continue;
            }
            if !self.workers.contains_key(&id) {
                self.adopt(&acc).await?;
            }
            let Some(w) = self.workers.get_mut(&id) else {
                continue;
            };
            if w.account != acc {
                // Edited credentials or address: a new session signs in with them.
                w.session = self.state.vendor.session(id, acc.platform, acc.credentials());
                w.account = acc;
                w.backoff_until = 0;
            }
            let outcome = step(&self.state, &self.ingest, w, now).await;
            match outcome {
                // Waiting out a back-off or a throttle pause: nothing was asked.
                Ok(None) => {}
                Ok(Some(more)) => {
                    pending |= more;
                    if self.outages.online(id, now) {
                        tracing::info!(account = id, "vendor cloud reachable again");
                    }
                }
                Err(Failed::Store(e)) => {
                    // Soon again: the cursor did not move, so the same window is asked again.
                    pending = true;
                    self.store_failures += 1;
                    tracing::warn!(account = id, error = %e, "storing vendor samples failed; polled again next pass");
                }
                Err(Failed::Vendor(VendorError::Unavailable(_) | VendorError::Protocol(_))) => {
                    let since = w.error_since.unwrap_or(now);
                    self.outages
                        .offline(&w.account.tenant_id, id, &w.account.label(), since);
                }
                Err(Failed::Vendor(_)) => {}
            }
            if let Some(w) = self.workers.get(&id) {
                save_state(&self.state, &self.replica, w, now).await?;
            }
        }
        self.settle_outages(now).await?;
        Ok(pending)
    }

    /// A newly leased account: its session, and an open `comm:vendor` alarm it may have left
    /// (another replica raised it, or this one before a restart) taken as a raised outage.
    async fn adopt(&mut self, acc: &Account) -> Result<(), ApiError> {
        let budget = self.state.vendor.budget(acc.id, acc.platform);
        let session = self.state.vendor.session(acc.id, acc.platform, acc.credentials());
        for s in stations_of(&self.state, acc.id).await? {
            if crate::alarm::store::open_kinds(&self.state.db, s, 0)
                .await?
                .iter()
                .any(|k| k == alarms::COMM_VENDOR)
            {
                self.outages.loaded(&acc.tenant_id, acc.id, &acc.label());
                break;
            }
        }
        self.workers.insert(
            acc.id,
            Worker {
                account: acc.clone(),
                session,
                budget,
                next_live: 0,
                backoff_until: 0,
                failures: 0,
                state: PollState::Idle,
                last_ok: None,
                last_error: None,
                error_since: None,
                live_newest: HashMap::new(),
            },
        );
        Ok(())
    }

    /// Raises and clears `comm:vendor` as the debounce says (silence: the tenant's
    /// `deviceSilenceSeconds`; cleared by the first successful poll).
    async fn settle_outages(&mut self, now: i64) -> Result<(), ApiError> {
        let mut silence = HashMap::new();
        for t in self.outages.tenants() {
            let s = self
                .state
                .station
                .alarm
                .alarms
                .settings
                .get(&self.state, &t)
                .await;
            silence.insert(t, s.device_silence_seconds.saturating_mul(1000));
        }
        for due in self
            .outages
            .due(now, |t| (silence.get(t).copied().unwrap_or(300_000), 0))
        {
            match due {
                Due::Raise {
                    station_id: id,
                    since,
                    ..
                } => {
                    let Some(w) = self.workers.get(&id) else { continue };
                    let stations = stations_of(&self.state, id).await?;
                    let error = w.last_error.clone().unwrap_or_default();
                    alarms::raise_lost(&self.state, &w.account, &stations, since, &error).await?;
                    self.outages.raised(id);
                }
                Due::Clear {
                    station_id: id,
                    tenant_id,
                } => {
                    let stations = stations_of(&self.state, id).await?;
                    for s in stations {
                        crate::alarm::store::clear_auto(
                            &self.state.station.alarm,
                            &tenant_id,
                            s,
                            0,
                            alarms::COMM_VENDOR,
                            now,
                        )
                        .await?;
                    }
                    self.outages.cleared(id);
                }
            }
        }
        Ok(())
    }

    /// Gives the leases up (the hub stops), so another replica takes over at once.
    pub async fn release(&mut self) {
        if let Err(e) = lease::release_all(&self.state, &self.replica).await {
            tracing::warn!(error = %e, "vendor leases not released; they run out instead");
        }
        self.workers.clear();
    }
}

/// The live stations the account's mapped plants feed.
async fn stations_of(state: &VendorCtx, account_id: i64) -> Result<Vec<i64>, ApiError> {
    let mut sql = Sql::new(
        "SELECT DISTINCT p.station_id FROM pv_vendor_plant p JOIN pv_station s ON s.id = p.station_id \
         AND s.is_deleted = 0 WHERE ",
    );
    sql.push_bind("p.account_id = ? ORDER BY p.station_id", [Value::Int(account_id)]);
    sql.scalars::<i64, _>(state.db.pool()).await
}

/// One account's step at `now`: `None` when it waits (back-off, throttle pause), else whether
/// backfill is still pending.
async fn step(state: &VendorCtx, ingest: &Ingest, w: &mut Worker, now: i64) -> Result<Option<bool>, Failed> {
    if now < w.backoff_until {
        return Ok(None);
    }
    if w.budget.paused_until().is_some() {
        w.state = PollState::Throttled;
        return Ok(None);
    }
    let result = poll(state, ingest, w, now).await;
    match &result {
        Ok(_) => {
            w.state = PollState::Ok;
            w.last_ok = Some(now);
            w.failures = 0;
            w.error_since = None;
            w.last_error = None;
        }
        Err(Failed::Vendor(e)) => {
            w.last_error = Some(e.to_string().chars().take(1000).collect());
            w.error_since.get_or_insert(now);
            match e {
                VendorError::Throttled { retry_after, .. } => {
                    w.state = PollState::Throttled;
                    // The connector tells the budget; a pause is made here only if it did not.
                    if w.budget.paused_until().is_none() {
                        w.budget.throttled(*retry_after);
                    }
                }
                VendorError::Auth(_) => {
                    w.state = PollState::AuthFailed;
                    w.backoff_until = now + MAX_BACKOFF;
                    w.session =
                        state
                            .vendor
                            .session(w.account.id, w.account.platform, w.account.credentials());
                }
                VendorError::Unavailable(_) | VendorError::Protocol(_) => {
                    w.state = PollState::Unreachable;
                    w.failures = w.failures.saturating_add(1);
                    let backoff = (MINUTE << (w.failures - 1).min(5)).min(MAX_BACKOFF);
                    w.backoff_until = now + backoff;
                }
            }
            tracing::info!(account = w.account.id, error = %e, "vendor poll failed");
        }
        Err(Failed::Store(_)) => {}
    }
    result.map(Some)
}

async fn poll(state: &VendorCtx, ingest: &Ingest, w: &mut Worker, now: i64) -> Result<bool, Failed> {
    let plants = plant::mapped(state, &w.account).await?;
    let limits = w.account.platform.limits();
    let interval = limits.live_interval.as_millis() as i64;
    if now >= w.next_live {
        for p in &plants {
            if p.vendor.is_empty() {
                continue;
            }
            let samples = w.session.realtime(&p.plant_id, &p.vendor).await?;
            let newest = store(state, ingest, &w.account, p, samples).await?;
            if let Some(oldest_newest) = newest.iter().map(|(_, ts)| *ts).min() {
                w.live_newest.insert(p.plant_id.clone(), oldest_newest);
                follow_live(state, w, &p.plant_id, p.backfilled_until, interval).await?;
            }
            let reported = w.session.alarms(&p.plant_id).await?;
            alarms::sync(state, &w.account, p, &reported, now).await?;
        }
        w.next_live = now + interval;
    }
    // One backfill window, of the plant furthest behind.
    let depth = limits.backfill_depth.as_millis() as i64;
    let window = limits.history_window.as_millis() as i64;
    let behind = |p: &MappedPlant| p.backfilled_until.max(now - depth);
    let Some(p) = plants
        .iter()
        .filter(|p| !p.vendor.is_empty() && behind(p) < now - 2 * interval)
        .min_by_key(|p| behind(p))
    else {
        return Ok(false);
    };
    let from = behind(p);
    let to = (from + window).min(now - interval);
    let mut samples = Vec::new();
    for d in &p.vendor {
        samples.extend(w.session.history(&p.plant_id, d, from, to).await?);
    }
    samples.retain(|s| s.ts_ms >= from && s.ts_ms < to);
    store(state, ingest, &w.account, p, samples).await?;
    plant::advance(state, w.account.id, &p.plant_id, to).await?;
    follow_live(state, w, &p.plant_id, to, interval).await?;
    let more = to < now - 2 * interval
        || plants
            .iter()
            .any(|q| q.plant_id != p.plant_id && !q.vendor.is_empty() && behind(q) < now - 2 * interval);
    Ok(more)
}

/// Moves the plant's cursor past its newest live samples when they directly follow it (no
/// sample of the vendor's cadence can lie between the cursor and them).
async fn follow_live(
    state: &VendorCtx,
    w: &Worker,
    plant_id: &str,
    cursor: i64,
    interval: i64,
) -> Result<(), ApiError> {
    match w.live_newest.get(plant_id) {
        Some(&newest) if cursor > newest - interval && cursor <= newest => {
            plant::advance(state, w.account.id, plant_id, newest + 1).await
        }
        _ => Ok(()),
    }
}

/// Hands the samples to ingest and waits until they are stored; answers each device's newest
/// stored sample time (by vendor device id).
async fn store(
    state: &VendorCtx,
    ingest: &Ingest,
    account: &Account,
    p: &MappedPlant,
    samples: Vec<VendorSample>,
) -> Result<Vec<(String, i64)>, ApiError> {
    let mut newest: HashMap<String, i64> = HashMap::new();
    let mut direct = Vec::with_capacity(samples.len());
    for s in samples {
        let Some((device_id, kind)) = p.ours_of(&s.device_id) else {
            continue;
        };
        let e = newest.entry(s.device_id).or_insert(s.ts_ms);
        *e = (*e).max(s.ts_ms);
        direct.push(DirectSample {
            device_id,
            kind,
            ts: s.ts_ms,
            values: s.values,
        });
    }
    if direct.is_empty() {
        return Ok(Vec::new());
    }
    let submitted = ingest
        .submit(DirectBatch {
            tenant_id: account.tenant_id.clone(),
            station_id: p.station_id,
            source: account.source(),
            samples: direct,
        })
        .await;
    if submitted.refused > 0 {
        tracing::debug!(
            account = account.id,
            refused = submitted.refused,
            "vendor samples outside the accepted window"
        );
    }
    submitted
        .stored
        .await
        .map_err(|_| ApiError::Internal("vendor samples not stored".into()))?;
    let newest: Vec<(String, i64)> = newest.into_iter().collect();
    plant::samples_stored(state, account.id, &newest).await?;
    Ok(newest)
}

/// Writes the account's poll state (only while this replica holds the lease).
async fn save_state(state: &VendorCtx, replica: &str, w: &Worker, now: i64) -> Result<(), ApiError> {
    // The budget counts per UTC day of the wall clock (the vendors' quota day), not the pass's.
    let day = utc_day(time::now_ms());
    let mut sql = Sql::new("UPDATE pv_vendor_poll SET ");
    sql.push_bind(
        "state = ?, last_ok = ?, last_error = ?, error_since = ?, paused_until = ?, requests_day = ?, day = ?, \
         update_time = ? WHERE account_id = ? AND owner = ?",
        [
            Value::from(w.state.as_str()),
            w.last_ok.map_or(Value::Null, Value::Int),
            w.last_error.clone().map_or(Value::NullText, Value::Text),
            w.error_since.map_or(Value::Null, Value::Int),
            w.budget.paused_until().map_or(Value::Null, Value::Int),
            Value::Int(i64::from(w.budget.used_today())),
            Value::Text(day),
            Value::Int(now),
            Value::Int(w.account.id),
            Value::from(replica),
        ],
    );
    sql.execute(state.db.pool()).await?;
    Ok(())
}

/// `yyyy-MM-dd` of the UTC day of `ms` (the day `Budget::used_today` counts).
pub fn utc_day(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .map(|t| t.date_naive().to_string())
        .unwrap_or_default()
}

/// Runs the poller on the wall clock until the hub stops: a pass every 5 seconds, every second
/// while a backfill is pending, and at once when a plant is mapped.
pub fn spawn(state: VendorCtx, ingest: Arc<Ingest>) -> tokio::task::JoinHandle<()> {
    let replica = crate::telemetry::ownership::replica_id(state.config.node_id);
    let busy = state.shutdown.busy();
    tokio::spawn(async move {
        let _busy = busy;
        let mut poller = Poller::new(state.clone(), ingest, replica);
        loop {
            let pending = match poller.pass(time::now_ms()).await {
                Ok(p) => p,
                Err(e) => {
                    tracing::warn!(error = %e, "vendor poll pass failed");
                    false
                }
            };
            let wait = Duration::from_secs(if pending { 1 } else { 5 });
            tokio::select! {
                biased;
                _ = state.shutdown.stopping() => break,
                _ = state.vendor.wake.notified() => {}
                _ = tokio::time::sleep(wait) => {}
            }
        }
        poller.release().await;
    })
}
