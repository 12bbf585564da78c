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
//! For each sample the evaluators report the conditions present (`faults`, `thresholds`, and
//! the bracket rules of `alarm::flex` for tracker controllers); [`Debounce`] (`debounce`)
//! decides what opens, re-triggers or clears (`store::clear_auto`, `clear_user` 0). What counts
//! as communication loss and the alarms it raises: `comm`.
//!
//! At start the open alarms are loaded (`store::open_all`), so conditions that ended while the hub
//! was down still clear on the next sample.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use sqlx::Row;
use tokio::sync::mpsc;

use super::comm::{self, COMM_DEVICE, COMM_GATEWAY};
use super::condition::{Condition, sample_kind};
use super::debounce::{Action, Debounce};
use super::irradiance::Irradiance;
use super::outage::{Due, Outages};
use super::store::{self, Raise, Raised};
use crate::alarm::context::AlarmCtx;
use crate::kernel::sql::{Sql, Value as SqlValue};
use crate::kernel::time;
use crate::telemetry::events::{Event, SampleIn};
use crate::telemetry::realtime::{KIND_FLEX, KIND_INVERTER, KIND_METER, KIND_WEATHER};

/// Messages waiting for the engine (a group of ingest holds up to a few thousand samples).
pub const CHANNEL: usize = 256;
/// How long device metadata (name, register map) is trusted before it is read again.
const META_TTL: Duration = Duration::from_secs(60);
/// How often silent devices are looked for.
const SILENCE_CHECK: Duration = Duration::from_millis(500);

/// Alarm messages being written at once (each reads the station's users and inserts theirs).
static MESSAGE_WRITERS: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(2);

/// What the engine knows of a registered device.
#[derive(Debug, Clone)]
pub struct DeviceMeta {
    pub name: String,
    pub map_model: Option<String>,
}

struct Slot {
    debounce: Debounce,
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
    /// Stations whose gateway is offline or whose outage is not over (their devices' silence is
    /// the gateway's alarm).
    outages: Outages,
    irradiance: Irradiance,
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
    // The pool closes on shutdown after the engine has taken what ingest stored before it.
    let busy = state.shutdown.busy();
    tokio::spawn(async move {
        engine.run(rx).await;
        drop(busy);
    });
}

impl Engine {
    pub fn new(state: AlarmCtx) -> Engine {
        Engine {
            state,
            slots: HashMap::new(),
            meta: HashMap::new(),
            outages: Outages::default(),
            irradiance: Irradiance::default(),
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
                    self.outages.loaded(&tenant, station, "");
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
                debounce: Debounce::starting_at(last_ts),
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
                slot.debounce.open(&kind);
            }
        }
    }

    async fn run(mut self, mut rx: mpsc::Receiver<Event>) {
        let mut check = tokio::time::interval(SILENCE_CHECK);
        check.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                input = rx.recv() => match input {
                    Some(input) => {
                        self.state.evaluation.taken();
                        self.handle(input).await
                    }
                    None => return,
                },
                // While the hub stops, nothing reports any more: that silence is no outage.
                _ = check.tick(), if !self.state.shutdown.is_stopping() => {
                    self.gateway_outages().await;
                    self.silence().await;
                }
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
                if self.outages.offline_now(station_id) {
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
                since,
            } => {
                if self.state.shutdown.is_stopping() {
                    // The hub's own stop closes gateway connections: not an outage.
                    return;
                }
                // Raised by the silence check once the outage has lasted (see `outage`); a drop
                // of an outage already raised re-triggers its alarm.
                if self.outages.offline(&tenant_id, station_id, &gateway_id, since) {
                    let r = comm::gateway_lost(&tenant_id, station_id, &gateway_id, time::now_ms());
                    self.raise(&r).await;
                }
            }
            Event::GatewayOnline { station_id, .. } => {
                if self.outages.online(station_id, time::now_ms()) {
                    // Silence of its devices is measured from the gateway's return.
                    let now = time::now_ms();
                    for slot in self.slots.values_mut().filter(|s| s.station_id == station_id) {
                        slot.received = slot.received.max(now);
                    }
                }
            }
        }
    }

    /// Raises the `comm:gateway` alarms of outages that lasted the silence, clears those whose
    /// gateway has been back for the hold.
    async fn gateway_outages(&mut self) {
        let mut holds = HashMap::new();
        for tenant in self.outages.tenants() {
            let s = self.state.alarms.settings.get(&self.state, &tenant).await;
            holds.insert(
                tenant,
                (s.device_silence_seconds.saturating_mul(1000), s.clear_hold_ms()),
            );
        }
        let now = time::now_ms();
        let due = self
            .outages
            .due(now, |t| holds.get(t).copied().unwrap_or((i64::MAX, i64::MAX)));
        for d in due {
            match d {
                Due::Raise {
                    station_id,
                    tenant_id,
                    gateway_id,
                    since,
                } => {
                    let r = comm::gateway_lost(&tenant_id, station_id, &gateway_id, since);
                    // Not stored: due again at the next check.
                    if self.raise(&r).await {
                        self.outages.raised(station_id);
                    }
                }
                Due::Clear {
                    station_id,
                    tenant_id,
                } => match store::clear_auto(&self.state, &tenant_id, station_id, 0, COMM_GATEWAY, now).await
                {
                    Ok(_) => self.outages.cleared(station_id),
                    Err(e) => {
                        tracing::warn!(station_id, error = %e, "clearing a gateway communication alarm")
                    }
                },
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
        let m = match sql.row(self.state.db.pool()).await {
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
        };
        self.meta.insert(device_id, (m.clone(), Instant::now()));
        Ok(m)
    }

    async fn sample(&mut self, s: SampleIn, now: i64) {
        if s.kind == KIND_WEATHER {
            self.irradiance.observe(s.station_id, s.ts, &s.values);
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
            debounce: Debounce::default(),
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
            let irradiance = self.irradiance.at(&self.state.realtime, s.station_id, s.ts);
            super::thresholds::conditions(&settings, &s.values, irradiance, &mut present);
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
        let fresh = slot.debounce.step(
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
                        slot.debounce.raise_failed(&kind);
                    }
                }
                Action::Clear(kind) => {
                    if let Err(e) =
                        store::clear_auto(&self.state, &s.tenant_id, s.station_id, s.device_id, &kind, s.ts)
                            .await
                    {
                        tracing::warn!(device = s.device_id, kind, error = %e, "clearing an alarm");
                        if let Some(slot) = self.slots.get_mut(&s.device_id) {
                            slot.debounce.clear_failed(kind, s.ts);
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
                let busy = state.shutdown.busy();
                tokio::spawn(async move {
                    let _busy = busy;
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
            debounce: Debounce::default(),
            tenant_id: tenant_id.into(),
            station_id,
            kind,
            received: now,
            comm_open: false,
            comm_back_since: None,
        });
        slot.comm_open = true;
        let silence = now - slot.received;
        let r = comm::device_lost(tenant_id, station_id, device_id, kind, &meta.name, silence, now);
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
            .filter(|(_, s)| !s.comm_open && !self.outages.covers(s.station_id))
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
