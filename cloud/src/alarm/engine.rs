//! The alarm engine: turns what evaluators see in stored samples into alarms, and
//! communication loss into `comm:*` alarms.
//!
//! Ingest hands every stored sample over a bounded channel (`AlarmServices::submit`); when the
//! engine falls behind the channel fills and ingest waits, so nothing is skipped. One task
//! consumes it, so every decision about a device is taken in order by one owner and the
//! per-device state needs no locks. Per device, samples are taken in time order; a sample not
//! newer than the last one evaluated is a replay (a resent batch, a backlog older than live
//! data) and is skipped.
//!
//! For each sample the evaluators report the conditions present (`faults`, `rules`, and the
//! bracket rules of `alarm::flex` for tracker controllers). [`Tracker`] debounces them:
//! - raised once present in `raiseAfterSamples` consecutive samples and for at least the
//!   condition's `hold_ms` (sample time);
//! - an open alarm clears (`store::clear_auto`, `clear_user` 0) once its condition has been absent
//!   for `clearHoldSeconds` of sample time (hysteresis);
//! - a condition back before that re-triggers the same alarm (`occurrences` + 1), so a fault
//!   that flaps every sample is one alarm, not a flood.
//!
//! Communication: a device that sent nothing for the tenant's `deviceSilenceSeconds` (server
//! clock at receipt), or that its gateway's status reports offline, gets `comm:device`; a gateway
//! that went offline (silence, last will, shutdown) gets `comm:gateway` on device 0 — and its
//! devices get no alarm of their own while it is down (one outage, one alarm). They clear when
//! the device sends again / the gateway is back.
//!
//! At start the open alarms are loaded (`store::open_all`), so conditions that ended while the hub
//! was down still clear on the next sample.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

use pv_shared::wire::Value;
use sqlx::Row;
use tokio::sync::mpsc;

use super::condition::{Condition, sample_kind};
use super::settings::Settings;
use super::store::{self, Raise, Raised};
use crate::alarm::context::AlarmCtx;
use crate::kernel::sql::{Sql, Value as SqlValue};
use crate::kernel::time;
use crate::telemetry::events::{Event, SampleIn};
use crate::telemetry::realtime::{KIND_FLEX, KIND_INVERTER, KIND_METER, KIND_WEATHER};

/// Kinds of communication alarms.
pub const COMM_DEVICE: &str = "comm:device";
pub const COMM_GATEWAY: &str = "comm:gateway";

/// Messages waiting for the engine (a group of ingest holds up to a few thousand samples).
pub const CHANNEL: usize = 256;
/// How long device metadata (name, register map) is trusted before it is read again.
const META_TTL: Duration = Duration::from_secs(60);
/// How often silent devices are looked for.
const SILENCE_CHECK: Duration = Duration::from_millis(500);
/// A weather reading older than this (sample time) says nothing about the sun now.
const IRRADIANCE_MAX_AGE_MS: i64 = 15 * 60 * 1000;

// ---- the debounce state machine (no I/O) ----

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct CondState {
    /// Consecutive samples showing it (before it is raised).
    streak: u32,
    /// Sample time it was first seen in the current run.
    since: i64,
    /// An alarm of this kind is open.
    raised: bool,
    /// Sample time it was first missing since it was raised.
    absent_since: Option<i64>,
}

/// What the engine must do after a sample.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// Open the alarm, or re-trigger the open one.
    Raise(Condition),
    /// Clear the open alarm of this kind (the condition is gone).
    Clear(String),
}

/// The debounce state of one device: the last sample time evaluated and the conditions being
/// watched (usually none, so a device costs a few words).
#[derive(Debug, Clone, Default)]
pub struct Tracker {
    last_ts: i64,
    conds: Vec<(String, CondState)>,
}

impl Tracker {
    /// A tracker that knows an alarm of `kind` is open (loaded at start).
    pub fn open(&mut self, kind: &str) {
        if !self.conds.iter().any(|(k, _)| k == kind) {
            self.conds.push((
                kind.to_owned(),
                CondState {
                    streak: 0,
                    since: 0,
                    raised: true,
                    absent_since: None,
                },
            ));
        }
    }

    /// Whether an alarm of `kind` is open as far as the tracker knows.
    pub fn is_open(&self, kind: &str) -> bool {
        self.conds.iter().any(|(k, s)| k == kind && s.raised)
    }

    /// A raise that did not reach the database: count the condition afresh, so a later sample
    /// that still has it raises it again.
    pub fn raise_failed(&mut self, kind: &str) {
        if let Some((_, st)) = self.conds.iter_mut().find(|(k, _)| k == kind) {
            st.raised = false;
            st.streak = 0;
            st.absent_since = None;
        }
    }

    /// A clear that did not reach the database: the alarm is still open, so keep tracking it as
    /// raised and absent since `since`; the next sample without it clears again.
    pub fn clear_failed(&mut self, kind: String, since: i64) {
        if self.conds.iter().any(|(k, _)| *k == kind) {
            return;
        }
        self.conds.push((
            kind,
            CondState {
                streak: 0,
                since,
                raised: true,
                absent_since: Some(since),
            },
        ));
    }

    /// Evaluates one sample at `ts` with the conditions `present` in it; pushes what to do.
    /// Returns false (and does nothing) for a sample not newer than the last one (a replay).
    pub fn step(
        &mut self,
        ts: i64,
        present: Vec<Condition>,
        raise_after: u32,
        clear_hold_ms: i64,
        actions: &mut Vec<Action>,
    ) -> bool {
        if ts <= self.last_ts {
            return false;
        }
        self.last_ts = ts;
        // Which of `conds` are present in this sample (any number of them: bracket rules and
        // fault words can make more than 64).
        let mut seen: Vec<bool> = Vec::with_capacity(self.conds.len() + 4);
        for c in present {
            let at = match self.conds.iter().position(|(k, _)| *k == c.kind) {
                Some(i) => i,
                None => {
                    self.conds.push((
                        c.kind.clone(),
                        CondState {
                            streak: 0,
                            since: ts,
                            raised: false,
                            absent_since: None,
                        },
                    ));
                    self.conds.len() - 1
                }
            };
            if seen.len() <= at {
                seen.resize(at + 1, false);
            }
            seen[at] = true;
            let st = &mut self.conds[at].1;
            if st.raised {
                // Back before the clear hold ran out: the same alarm again.
                if st.absent_since.take().is_some() {
                    actions.push(Action::Raise(c));
                }
            } else {
                if st.streak == 0 {
                    st.since = ts;
                }
                st.streak = st.streak.saturating_add(1);
                if st.streak >= raise_after.max(1) && ts - st.since >= c.hold_ms {
                    st.raised = true;
                    actions.push(Action::Raise(c));
                }
            }
        }
        let mut i = 0;
        let mut bit = 0usize;
        while i < self.conds.len() {
            let present = seen.get(bit).copied().unwrap_or(false);
            bit += 1;
            let (kind, st) = &mut self.conds[i];
            if present || !sample_kind(kind) {
                i += 1;
                continue;
            }
            if !st.raised {
                // Not raised yet: the run is broken, start counting again next time.
                self.conds.remove(i);
                continue;
            }
            let since = *st.absent_since.get_or_insert(ts);
            if ts - since >= clear_hold_ms {
                let (kind, _) = self.conds.remove(i);
                actions.push(Action::Clear(kind));
                continue;
            }
            i += 1;
        }
        true
    }
}

// ---- the engine task ----

/// Alarm messages being written at once (each reads the station's users and inserts theirs).
static MESSAGE_WRITERS: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(2);

/// What the engine knows of a registered device.
#[derive(Debug, Clone)]
pub struct DeviceMeta {
    pub name: String,
    pub map_model: Option<String>,
}

struct Slot {
    tracker: Tracker,
    tenant_id: Arc<str>,
    station_id: i64,
    kind: &'static str,
    /// Server time of the last sample received (ms); silence is measured from it.
    received: i64,
    comm_open: bool,
    /// While `comm:device` is open: since when the device has been reporting again. The alarm
    /// clears after `clearHoldSeconds` of that, so a device dropping in and out is one alarm.
    comm_back_since: Option<i64>,
}

pub struct Engine {
    state: AlarmCtx,
    slots: HashMap<i64, Slot>,
    meta: HashMap<i64, (Option<DeviceMeta>, Instant)>,
    /// Stations whose gateway is offline (their devices' silence is the gateway's alarm).
    gateway_down: HashSet<i64>,
    /// Newest irradiance per station: (sample time, W/m²).
    irradiance: HashMap<i64, (i64, f64)>,
    actions: Vec<Action>,
    /// Samples evaluated and the time spent on them (evaluators + debounce, not the database).
    pub evaluated: u64,
    pub eval_nanos: u128,
}

/// Starts the engine (once per `Core`): loads the open alarms, then consumes ingest's hand-overs.
pub async fn start(state: &AlarmCtx) {
    let (tx, rx) = mpsc::channel(CHANNEL);
    if !state.evaluation.install(tx) {
        return;
    }
    let mut engine = Engine::new(state.clone());
    engine.load_open().await;
    tokio::spawn(engine.run(rx));
}

impl Engine {
    pub fn new(state: AlarmCtx) -> Engine {
        Engine {
            state,
            slots: HashMap::new(),
            meta: HashMap::new(),
            gateway_down: HashSet::new(),
            irradiance: HashMap::new(),
            actions: Vec::new(),
            evaluated: 0,
            eval_nanos: 0,
        }
    }

    async fn load_open(&mut self) {
        let open = match store::open_all(&self.state.db).await {
            Ok(o) => o,
            Err(e) => {
                tracing::error!(error = %e, "open alarms not loaded: ended conditions clear only when they recur");
                return;
            }
        };
        let now = time::now_ms();
        for (tenant, station, device, kind) in open {
            if device == 0 {
                if kind == COMM_GATEWAY {
                    self.gateway_down.insert(station);
                }
                continue;
            }
            let live = self.state.realtime.device(device);
            let last_ts = live.as_ref().map(|d| d.ts).unwrap_or(0);
            // The registry table to look the device up in later (a meter's alarm must not be
            // looked for among inverters).
            let device_kind = live
                .as_ref()
                .map(|d| kind_const(&d.kind))
                .unwrap_or(KIND_INVERTER);
            let slot = self.slots.entry(device).or_insert_with(|| Slot {
                tracker: Tracker {
                    last_ts,
                    conds: Vec::new(),
                },
                tenant_id: tenant.as_str().into(),
                station_id: station,
                kind: device_kind,
                received: now,
                comm_open: false,
                comm_back_since: None,
            });
            if kind == COMM_DEVICE {
                slot.comm_open = true;
            } else if sample_kind(&kind) {
                slot.tracker.open(&kind);
            }
        }
    }

    async fn run(mut self, mut rx: mpsc::Receiver<Event>) {
        let mut check = tokio::time::interval(SILENCE_CHECK);
        check.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                input = rx.recv() => match input {
                    Some(input) => self.handle(input).await,
                    None => return,
                },
                _ = check.tick() => self.silence().await,
            }
        }
    }

    pub async fn handle(&mut self, input: Event) {
        match input {
            Event::Samples(mut samples) => {
                // Time order per device (a stable sort keeps a device's equal times in order).
                samples.sort_by_key(|s| s.ts);
                let now = time::now_ms();
                for s in samples {
                    self.sample(s, now).await;
                }
            }
            Event::DevicesOffline {
                tenant_id,
                station_id,
                device_ids,
            } => {
                if self.gateway_down.contains(&station_id) {
                    return;
                }
                for id in device_ids {
                    self.comm_device(&tenant_id, station_id, id).await;
                }
            }
            Event::GatewayOffline {
                tenant_id,
                station_id,
                gateway_id,
            } => {
                if !self.gateway_down.insert(station_id) {
                    return;
                }
                let r = Raise {
                    tenant_id: tenant_id.clone(),
                    station_id,
                    device_id: 0,
                    device_kind: "gateway".into(),
                    device_name: gateway_id.clone(),
                    kind: COMM_GATEWAY.into(),
                    category: "comm".into(),
                    r#type: store::TYPE_FAULT,
                    level: store::LEVEL_MAJOR,
                    code: COMM_GATEWAY.into(),
                    name: "网关通讯中断".into(),
                    name_en: "Gateway communication lost".into(),
                    detail: format!("网关 {gateway_id} 离线"),
                    detail_en: format!("Gateway {gateway_id} is offline"),
                    value: None,
                    threshold: None,
                    at: time::now_ms(),
                };
                if !self.raise(&r).await {
                    // Not stored: the next offline report (or the silence sweep) tries again.
                    self.gateway_down.remove(&station_id);
                }
            }
            Event::GatewayOnline {
                tenant_id,
                station_id,
                ..
            } => {
                if !self.gateway_down.remove(&station_id) {
                    return;
                }
                // Silence of its devices is measured from the gateway's return.
                let now = time::now_ms();
                for slot in self.slots.values_mut().filter(|s| s.station_id == station_id) {
                    slot.received = slot.received.max(now);
                }
                if let Err(e) =
                    store::clear_auto(&self.state, &tenant_id, station_id, 0, COMM_GATEWAY, now).await
                {
                    tracing::warn!(station_id, error = %e, "clearing a gateway communication alarm");
                }
            }
        }
    }

    /// The device's name and register map, cached for `META_TTL`; `Ok(None)` when it is not (or
    /// no longer) registered, `Err` when the database could not say (the sample is skipped, the
    /// device's state kept).
    async fn meta(&mut self, device_id: i64, kind: &str) -> Result<Option<DeviceMeta>, ()> {
        if let Some((m, at)) = self.meta.get(&device_id)
            && at.elapsed() < META_TTL
        {
            return Ok(m.clone());
        }
        let table = match kind {
            KIND_INVERTER => "pv_inverter",
            KIND_METER => "pv_meter",
            KIND_WEATHER => "pv_weather",
            KIND_FLEX => "pv_flex",
            _ => return Ok(None),
        };
        let mut sql = Sql::new(&format!("SELECT name, map_model FROM {table} WHERE "));
        sql.push_bind("id = ? AND is_deleted = 0", [SqlValue::Int(device_id)]);
        let m = match sql.build() {
            Ok((text, args)) => match sqlx::query_with(sqlx::AssertSqlSafe(text), args)
                .fetch_optional(self.state.db.pool())
                .await
            {
                Ok(row) => row.and_then(|r| {
                    Some(DeviceMeta {
                        name: r.try_get("name").ok()?,
                        map_model: r.try_get::<Option<String>, _>("map_model").ok()?,
                    })
                }),
                Err(e) => {
                    // Not cached: asked again with the next sample.
                    tracing::warn!(device_id, error = %e, "device metadata unreadable");
                    return Err(());
                }
            },
            Err(_) => None,
        };
        self.meta.insert(device_id, (m.clone(), Instant::now()));
        Ok(m)
    }

    fn station_irradiance(&mut self, station_id: i64, ts: i64) -> Option<f64> {
        if !self.irradiance.contains_key(&station_id) {
            // Not seen since start: what the realtime view holds.
            let seen = self
                .state
                .realtime
                .station(station_id)
                .into_iter()
                .filter(|d| d.kind == KIND_WEATHER && d.online)
                .find_map(|d| Some((d.ts, irradiance_of(&d.values)?)));
            self.irradiance
                .insert(station_id, seen.unwrap_or((i64::MIN / 2, 0.0)));
        }
        let (at, g) = *self.irradiance.get(&station_id)?;
        ((ts - at).abs() <= IRRADIANCE_MAX_AGE_MS).then_some(g)
    }

    async fn sample(&mut self, s: SampleIn, now: i64) {
        if s.kind == KIND_WEATHER
            && let Some(g) = irradiance_of(&s.values)
        {
            self.irradiance
                .entry(s.station_id)
                .and_modify(|e| {
                    if e.0 <= s.ts {
                        *e = (s.ts, g)
                    }
                })
                .or_insert((s.ts, g));
        }
        let meta = match self.meta(s.device_id, s.kind).await {
            Ok(Some(m)) => m,
            Ok(None) => {
                // Removed from the registry: forget it (its silence is no alarm).
                self.slots.remove(&s.device_id);
                return;
            }
            Err(()) => return,
        };
        let settings = self.state.alarms.settings.get(&self.state, &s.tenant_id).await;
        let slot = self.slots.entry(s.device_id).or_insert_with(|| Slot {
            tracker: Tracker::default(),
            tenant_id: s.tenant_id.clone(),
            station_id: s.station_id,
            kind: s.kind,
            received: now,
            comm_open: false,
            comm_back_since: None,
        });
        // A gap longer than the silence limit breaks a run of "reporting again".
        if now - slot.received > settings.device_silence_seconds.saturating_mul(1000) {
            slot.comm_back_since = None;
        }
        slot.received = now;
        slot.kind = s.kind;
        slot.station_id = s.station_id;
        slot.tenant_id = s.tenant_id.clone();
        // Reporting again: the communication alarm clears once that has lasted the hold.
        let comm_ended = slot.comm_open && {
            let since = *slot.comm_back_since.get_or_insert(now);
            now - since >= settings.clear_hold_ms()
        };
        if comm_ended {
            slot.comm_open = false;
            slot.comm_back_since = None;
        }

        let started = Instant::now();
        let mut present = Vec::new();
        self.state.alarms.faults(&self.state.config).conditions(
            meta.map_model.as_deref(),
            &s.values,
            &mut present,
        );
        if s.kind == KIND_INVERTER {
            let irradiance = self.station_irradiance(s.station_id, s.ts);
            super::rules::conditions(&settings, &s.values, irradiance, &mut present);
        }
        if s.kind == KIND_FLEX {
            // Bracket rules: `flex:<setting id>` conditions with their duration as `hold_ms`.
            let device = super::flex::DeviceRef {
                device_id: s.device_id,
                tenant_id: s.tenant_id.to_string(),
                station_id: s.station_id,
                kind: s.kind,
                name: meta.name.clone(),
            };
            present.extend(super::flex::conditions(&self.state, &device, s.ts, &s.values).await);
        }
        let mut actions = std::mem::take(&mut self.actions);
        actions.clear();
        let Some(slot) = self.slots.get_mut(&s.device_id) else {
            return;
        };
        let fresh = slot.tracker.step(
            s.ts,
            present,
            settings.raise_after_samples.clamp(1, 100) as u32,
            settings.clear_hold_ms(),
            &mut actions,
        );
        self.evaluated += u64::from(fresh);
        self.eval_nanos += started.elapsed().as_nanos();
        if fresh && self.evaluated.is_multiple_of(100_000) {
            // The evaluation cost in production, next to the benchmark's figure.
            tracing::info!(
                samples = self.evaluated,
                ns_per_sample = (self.eval_nanos / u128::from(self.evaluated)) as u64,
                devices = self.slots.len(),
                "alarm evaluation"
            );
        }

        if comm_ended
            && let Err(e) = store::clear_auto(
                &self.state,
                &s.tenant_id,
                s.station_id,
                s.device_id,
                COMM_DEVICE,
                now,
            )
            .await
        {
            tracing::warn!(device = s.device_id, error = %e, "clearing a communication alarm");
            // Still open: the next sample tries again.
            if let Some(slot) = self.slots.get_mut(&s.device_id) {
                slot.comm_open = true;
            }
        }
        for a in actions.drain(..) {
            match a {
                Action::Raise(c) => {
                    let kind = c.kind.clone();
                    let r = raise_of(&s, &meta, c);
                    if !self.raise(&r).await
                        && let Some(slot) = self.slots.get_mut(&s.device_id)
                    {
                        slot.tracker.raise_failed(&kind);
                    }
                }
                Action::Clear(kind) => {
                    if let Err(e) =
                        store::clear_auto(&self.state, &s.tenant_id, s.station_id, s.device_id, &kind, s.ts)
                            .await
                    {
                        tracing::warn!(device = s.device_id, kind, error = %e, "clearing an alarm");
                        if let Some(slot) = self.slots.get_mut(&s.device_id) {
                            slot.tracker.clear_failed(kind, s.ts);
                        }
                    }
                }
            }
        }
        self.actions = actions;
    }

    /// Stores a raise; false when the database refused it (the caller retries later).
    async fn raise(&self, r: &Raise) -> bool {
        match store::raise(&self.state, r).await {
            Ok(Raised::New(id)) => {
                // Messages go to every user who can see the station: off the evaluation path,
                // and a few at a time, so an alarm storm (a grid fault tripping a thousand
                // inverters) cannot take the connection pool away from ingest.
                let state = self.state.clone();
                let r = r.clone();
                tokio::spawn(async move {
                    let Ok(_permit) = MESSAGE_WRITERS.acquire().await else {
                        return;
                    };
                    if let Err(e) = super::message::create_for_alarm(&state, id, &r).await {
                        tracing::warn!(alarm = %id, error = %e, "alarm messages not created");
                    }
                });
                true
            }
            Ok(Raised::Updated(_)) => true,
            Err(e) => {
                tracing::error!(kind = %r.kind, device = r.device_id, error = %e, "raising an alarm");
                false
            }
        }
    }

    async fn comm_device(&mut self, tenant_id: &str, station_id: i64, device_id: i64) {
        let kind = match self.slots.get(&device_id) {
            Some(s) if s.comm_open => {
                // Silent again before the clear hold ran out: still the same alarm.
                if let Some(slot) = self.slots.get_mut(&device_id) {
                    slot.comm_back_since = None;
                }
                return;
            }
            Some(s) => s.kind,
            None => match self.state.realtime.device(device_id) {
                Some(d) => kind_const(&d.kind),
                None => return,
            },
        };
        let meta = match self.meta(device_id, kind).await {
            Ok(Some(m)) => m,
            Ok(None) => {
                self.slots.remove(&device_id);
                return;
            }
            Err(()) => return,
        };
        let now = time::now_ms();
        let slot = self.slots.entry(device_id).or_insert_with(|| Slot {
            tracker: Tracker::default(),
            tenant_id: tenant_id.into(),
            station_id,
            kind,
            received: now,
            comm_open: false,
            comm_back_since: None,
        });
        slot.comm_open = true;
        let silence = now - slot.received;
        let r = Raise {
            tenant_id: tenant_id.to_owned(),
            station_id,
            device_id,
            device_kind: kind.to_owned(),
            device_name: meta.name.clone(),
            kind: COMM_DEVICE.into(),
            category: "comm".into(),
            r#type: store::TYPE_FAULT,
            level: store::LEVEL_MAJOR,
            code: COMM_DEVICE.into(),
            name: "设备通讯中断".into(),
            name_en: "Device communication lost".into(),
            detail: format!("{} 已 {} 秒无数据", meta.name, silence / 1000),
            detail_en: format!("{} sent nothing for {} s", meta.name, silence / 1000),
            value: Some((silence / 1000) as f64),
            threshold: None,
            at: now,
        };
        if !self.raise(&r).await
            && let Some(slot) = self.slots.get_mut(&device_id)
        {
            // Not stored: the next silence sweep tries again.
            slot.comm_open = false;
        }
    }

    /// Raises `comm:device` for devices silent longer than their tenant's setting.
    async fn silence(&mut self) {
        let now = time::now_ms();
        let silent: Vec<(Arc<str>, i64, i64)> = self
            .slots
            .iter()
            .filter(|(_, s)| !s.comm_open && !self.gateway_down.contains(&s.station_id))
            .filter(|(_, s)| {
                let limit = self
                    .state
                    .alarms
                    .settings
                    .peek(&s.tenant_id)
                    .unwrap_or_default()
                    .device_silence_seconds;
                now - s.received > limit.saturating_mul(1000)
            })
            .map(|(id, s)| (s.tenant_id.clone(), s.station_id, *id))
            .collect();
        for (tenant, station, device) in silent {
            self.comm_device(&tenant, station, device).await;
        }
    }
}

fn kind_const(kind: &str) -> &'static str {
    match kind {
        KIND_METER => KIND_METER,
        KIND_WEATHER => KIND_WEATHER,
        KIND_FLEX => KIND_FLEX,
        _ => KIND_INVERTER,
    }
}

fn irradiance_of(values: &BTreeMap<String, Value>) -> Option<f64> {
    ["irradiance_poa", "irradiance_ghi"]
        .iter()
        .find_map(|k| match values.get(*k) {
            Some(Value::Number(n)) if n.is_finite() => Some(*n),
            _ => None,
        })
}

fn raise_of(s: &SampleIn, meta: &DeviceMeta, c: Condition) -> Raise {
    Raise {
        tenant_id: s.tenant_id.to_string(),
        station_id: s.station_id,
        device_id: s.device_id,
        device_kind: s.kind.to_owned(),
        device_name: meta.name.clone(),
        kind: c.kind,
        category: c.category.to_owned(),
        r#type: c.r#type,
        level: c.level,
        code: c.code,
        name: c.name,
        name_en: c.name_en,
        detail: c.detail,
        detail_en: c.detail_en,
        value: c.value,
        threshold: c.threshold,
        at: s.ts,
    }
}

/// Evaluates samples without a database: the evaluators and the debounce of `engine`, for the
/// benchmark of evaluation cost (`bench/src/bin/alarm_eval.rs`).
pub struct Bench {
    pub faults: super::faults::FaultIndex,
    pub settings: Settings,
    trackers: HashMap<i64, Tracker>,
    actions: Vec<Action>,
}

impl Bench {
    pub fn new(faults: super::faults::FaultIndex) -> Bench {
        Bench {
            faults,
            settings: Settings::default(),
            trackers: HashMap::new(),
            actions: Vec::new(),
        }
    }

    /// One sample through fault tables, thresholds and debounce; returns the actions count.
    pub fn sample(
        &mut self,
        device_id: i64,
        map: Option<&str>,
        ts: i64,
        values: &BTreeMap<String, Value>,
    ) -> usize {
        let mut present = Vec::new();
        self.faults.conditions(map, values, &mut present);
        super::rules::conditions(&self.settings, values, Some(800.0), &mut present);
        self.actions.clear();
        self.trackers.entry(device_id).or_default().step(
            ts,
            present,
            self.settings.raise_after_samples as u32,
            self.settings.clear_hold_ms(),
            &mut self.actions,
        );
        self.actions.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cond(kind: &str, hold_ms: i64) -> Condition {
        let mut c = Condition::fault(kind.into(), "fault", 3);
        c.hold_ms = hold_ms;
        c
    }

    fn kinds(actions: &[Action]) -> Vec<String> {
        actions
            .iter()
            .map(|a| match a {
                Action::Raise(c) => format!("raise {}", c.kind),
                Action::Clear(k) => format!("clear {k}"),
            })
            .collect()
    }

    /// Runs samples (ts, present kinds) and returns the actions of each.
    fn run(t: &mut Tracker, raise_after: u32, hold: i64, samples: &[(i64, &[&str])]) -> Vec<Vec<String>> {
        samples
            .iter()
            .map(|(ts, present)| {
                let mut a = vec![];
                t.step(
                    *ts,
                    present.iter().map(|k| cond(k, 0)).collect(),
                    raise_after,
                    hold,
                    &mut a,
                );
                kinds(&a)
            })
            .collect()
    }

    const F: &str = "fault:fault_code:2";

    #[test]
    fn raised_once_then_cleared_after_the_hold() {
        let mut t = Tracker::default();
        let out = run(
            &mut t,
            1,
            60_000,
            &[
                (1_000, &[F]),
                (6_000, &[F]),
                (11_000, &[]),
                (41_000, &[]),
                (71_000, &[]),
                (76_000, &[]),
            ],
        );
        assert_eq!(
            out,
            [
                vec![format!("raise {F}")],
                vec![],
                vec![],
                vec![],
                vec![format!("clear {F}")],
                vec![]
            ]
        );
    }

    #[test]
    fn flapping_faster_than_the_hold_is_one_alarm_retriggered() {
        let mut t = Tracker::default();
        let samples: Vec<(i64, &[&str])> = (0..20)
            .map(|i| (1_000 + i * 5_000, if i % 2 == 0 { &[F][..] } else { &[][..] }))
            .collect();
        let out = run(&mut t, 1, 60_000, &samples);
        let all: Vec<String> = out.into_iter().flatten().collect();
        // One raise, then a re-trigger each time it comes back (9 more), never a clear.
        assert_eq!(all.len(), 10, "{all:?}");
        assert!(all.iter().all(|a| a == &format!("raise {F}")));
        assert!(t.is_open(F));
    }

    #[test]
    fn raise_after_samples_and_hold_time_debounce() {
        let mut t = Tracker::default();
        // Needs 3 samples in a row: a gap resets the count.
        let out = run(
            &mut t,
            3,
            60_000,
            &[(1, &[F]), (2, &[F]), (3, &[]), (4, &[F]), (5, &[F]), (6, &[F])],
        );
        assert_eq!(out.iter().filter(|a| !a.is_empty()).count(), 1);
        assert_eq!(out[5], [format!("raise {F}")]);
        // A condition's own hold: present for 10 s of sample time before it is raised.
        let mut t = Tracker::default();
        let mut a = vec![];
        t.step(1_000, vec![cond(F, 10_000)], 1, 60_000, &mut a);
        t.step(6_000, vec![cond(F, 10_000)], 1, 60_000, &mut a);
        assert!(a.is_empty());
        t.step(11_000, vec![cond(F, 10_000)], 1, 60_000, &mut a);
        assert_eq!(kinds(&a), [format!("raise {F}")]);
    }

    #[test]
    fn replays_are_skipped_and_open_alarms_loaded_at_start_clear() {
        let mut t = Tracker::default();
        let mut a = vec![];
        assert!(t.step(10, vec![cond(F, 0)], 1, 100, &mut a));
        assert!(!t.step(10, vec![], 1, 100, &mut a), "same time: a replay");
        assert!(!t.step(5, vec![], 1, 100, &mut a), "older: a replay");
        let mut t = Tracker::default();
        t.open(F);
        t.open("comm:device");
        let mut a = vec![];
        t.step(1_000, vec![], 1, 100, &mut a);
        t.step(1_200, vec![], 1, 100, &mut a);
        // Only the sample-decided kind is cleared by samples.
        assert_eq!(kinds(&a), [format!("clear {F}")]);
    }
}
