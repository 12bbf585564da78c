//! Presence: a gateway is online from its birth or periodic status (and any message from it),
//! offline from its last will, its shutdown status, or `gateway_silence_seconds` without a
//! message; a device is online while samples arrive and as the gateway's status lists it,
//! offline when the status says so, when its gateway goes offline, or after
//! `device_silence_seconds` without a sample. Kept in the realtime view, `pv_gateway_state` and
//! `pv_telemetry_latest.online`.
//!
//! Silence is judged on the server clock at receipt (a gateway's clock may be wrong). With
//! several replicas on one PostgreSQL each judges only the gateways it leases
//! (`telemetry::ownership`): a gateway handed to another replica (one joined and the leases were
//! rebalanced) is forgotten here without an alarm, and a message of it still in flight after the
//! handover does not bring it back; its new owner keeps its presence.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, OnceLock};

use pv_shared::wire::{GatewayStatus, StatusKind};

use super::ownership::Owned;
use super::realtime::GatewayLive;
use super::registry::GatewayEntry;
use super::store::{self, GatewayKey};
use crate::kernel::time;
use crate::telemetry::context::TelemetryCtx;

/// How often the realtime view's `last_seen` of a gateway is refreshed by ordinary traffic
/// (each refresh notifies listeners, so not on every message).
const LAST_SEEN_REFRESH_MS: i64 = 5_000;

#[derive(Debug, Clone)]
struct Gw {
    tenant_id: String,
    station_id: i64,
    online: bool,
    last_seen: i64,
    published_seen: i64,
    /// Device ids of its station, for "every device of this gateway goes offline".
    devices: Vec<i64>,
}

pub struct Presence {
    state: TelemetryCtx,
    gateways: Mutex<HashMap<String, Gw>>,
    /// Last sample receipt per device (server ms), with its gateway.
    devices: Mutex<HashMap<i64, i64>>,
    /// The gateways this replica leases, when several replicas share the database.
    owned: OnceLock<Arc<Owned>>,
    /// Devices of gateways handed to another replica: their silence here is no outage.
    moved: Mutex<HashSet<i64>>,
}

impl Presence {
    pub fn new(state: TelemetryCtx) -> Presence {
        Presence {
            state,
            gateways: Mutex::new(HashMap::new()),
            devices: Mutex::new(HashMap::new()),
            owned: OnceLock::new(),
            moved: Mutex::new(HashSet::new()),
        }
    }

    /// From now on, judge only the gateways in `owned` (this replica's leases).
    pub fn follow_leases(&self, owned: Arc<Owned>) {
        let _ = self.owned.set(owned);
    }

    /// Whether this replica judges `gateway`'s presence (every gateway when it is the only one).
    fn judges(&self, gateway: &str) -> bool {
        self.owned.get().is_none_or(|o| o.contains(gateway))
    }

    /// Forgets the gateways handed to another replica, and notes their devices.
    fn forget_moved(&self) {
        if self.owned.get().is_none() {
            return;
        }
        let mut devices = Vec::new();
        self.gateways
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .retain(|id, g| {
                let keep = self.judges(id);
                if !keep {
                    tracing::info!(gateway = %id, "gateway handed to another replica: no longer judged here");
                    devices.extend(g.devices.iter().copied());
                }
                keep
            });
        if !devices.is_empty() {
            self.moved
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .extend(devices);
        }
    }

    fn live(&self, id: &str, g: &Gw, status: Option<GatewayStatus>) -> GatewayLive {
        let before = self.state.realtime.gateway(id);
        let earlier = before
            .as_ref()
            .map(|l| l.withheld_since.clone())
            .unwrap_or_default();
        // A device withheld in consecutive statuses keeps the time it was first seen so.
        let withheld_since = match &status {
            Some(s) => s
                .devices
                .iter()
                .filter(|d| d.withheld.is_some())
                .map(|d| {
                    let id = d.id.trim().to_owned();
                    let since = earlier.get(&id).copied().unwrap_or_else(time::now_ms);
                    (id, since)
                })
                .collect(),
            None => earlier,
        };
        let status = status.or_else(|| before.and_then(|l| l.status));
        GatewayLive {
            gateway_id: id.to_owned(),
            tenant_id: g.tenant_id.clone(),
            station_id: g.station_id,
            online: g.online,
            last_seen: g.last_seen,
            status,
            withheld_since,
        }
    }

    async fn persist(&self, id: &str, g: &Gw, status: Option<&GatewayStatus>) {
        let status = status.and_then(|s| serde_json::to_string(s).ok());
        let key = GatewayKey {
            gateway_id: id,
            tenant_id: &g.tenant_id,
            station_id: g.station_id,
        };
        if let Err(e) =
            store::upsert_gateway_presence(&self.state.db, key, g.online, g.last_seen, status, time::now_ms())
                .await
        {
            tracing::warn!(gateway = id, error = %e, "storing gateway presence");
        }
        self.state.realtime.touch(g.station_id);
    }

    /// Any message from a gateway: it is connected.
    pub async fn seen(&self, entry: &GatewayEntry) {
        if !self.judges(&entry.gateway_id) {
            return;
        }
        self.back_here(entry);
        let now = time::now_ms();
        let changed = {
            let mut map = self.gateways.lock().unwrap_or_else(|p| p.into_inner());
            let g = map.entry(entry.gateway_id.clone()).or_insert_with(|| Gw {
                tenant_id: entry.tenant_id.clone(),
                station_id: entry.station_id,
                online: false,
                last_seen: now,
                published_seen: 0,
                devices: vec![],
            });
            g.devices = entry.devices.values().map(|d| d.device_id).collect();
            g.tenant_id = entry.tenant_id.clone();
            g.station_id = entry.station_id;
            g.last_seen = now;
            let came_online = !g.online;
            g.online = true;
            if came_online || now - g.published_seen >= LAST_SEEN_REFRESH_MS {
                g.published_seen = now;
                Some((g.clone(), came_online))
            } else {
                None
            }
        };
        if let Some((g, came_online)) = changed {
            self.state
                .realtime
                .set_gateway(self.live(&entry.gateway_id, &g, None));
            if came_online {
                self.persist(&entry.gateway_id, &g, None).await;
                self.alarm_gateway(&entry.gateway_id, &g, now).await;
            }
        }
    }

    /// A gateway leased here (again): its devices' silence counts here.
    fn back_here(&self, entry: &GatewayEntry) {
        let mut moved = self.moved.lock().unwrap_or_else(|p| p.into_inner());
        if !moved.is_empty() {
            for d in entry.devices.values() {
                moved.remove(&d.device_id);
            }
        }
    }

    /// Devices whose samples were just stored.
    pub fn samples(&self, device_ids: impl IntoIterator<Item = i64>) {
        let now = time::now_ms();
        let mut d = self.devices.lock().unwrap_or_else(|p| p.into_inner());
        for id in device_ids {
            d.insert(id, now);
        }
    }

    /// A status message (birth, periodic, last will, shutdown).
    pub async fn status(&self, entry: &GatewayEntry, status: GatewayStatus) {
        if !self.judges(&entry.gateway_id) {
            return;
        }
        self.back_here(entry);
        let online = matches!(status.kind, StatusKind::Birth | StatusKind::Periodic) && status.online;
        let now = time::now_ms();
        let (g, heard) = {
            let mut map = self.gateways.lock().unwrap_or_else(|p| p.into_inner());
            let g = map.entry(entry.gateway_id.clone()).or_insert_with(|| Gw {
                tenant_id: entry.tenant_id.clone(),
                station_id: entry.station_id,
                online,
                last_seen: now,
                published_seen: now,
                devices: vec![],
            });
            g.devices = entry.devices.values().map(|d| d.device_id).collect();
            // A last will can come long after the gateway's last message (the broker's keep-alive
            // timeout): its outage is measured from that message.
            let heard = if online { now } else { g.last_seen.min(now) };
            g.online = online;
            g.last_seen = now;
            g.published_seen = now;
            (g.clone(), heard)
        };
        // Devices: as the status lists them, or all offline with the gateway.
        let (mut up, mut down) = (Vec::new(), Vec::new());
        if online {
            for d in &status.devices {
                if let Some(dev) = entry.devices.get(d.id.trim()) {
                    if d.online { &mut up } else { &mut down }.push(dev.device_id);
                }
            }
        } else {
            down = g.devices.clone();
        }
        self.devices_online(&up, true).await;
        self.devices_online(&down, false).await;
        // Alarms: the gateway's own state, and devices its status reports offline (when the
        // gateway itself is offline, its alarm stands for its devices).
        self.alarm_gateway(&entry.gateway_id, &g, heard).await;
        if online && !down.is_empty() {
            self.state
                .evaluation
                .submit(crate::telemetry::events::Event::DevicesOffline {
                    tenant_id: g.tenant_id.clone(),
                    station_id: g.station_id,
                    device_ids: down.clone(),
                })
                .await;
        }
        if online {
            // The view still holds the previous status: what this one adds is the polls since.
            let before = self
                .state
                .realtime
                .gateway(&entry.gateway_id)
                .and_then(|l| l.status);
            if let Err(e) = super::polls::record(&self.state.db, entry, before, &status, now).await {
                tracing::warn!(gateway = %entry.gateway_id, error = %e, "storing device polls");
            }
        }
        self.persist(&entry.gateway_id, &g, Some(&status)).await;
        self.state
            .realtime
            .set_gateway(self.live(&entry.gateway_id, &g, Some(status)));
    }

    async fn devices_online(&self, ids: &[i64], online: bool) {
        if ids.is_empty() {
            return;
        }
        for id in ids {
            self.state.realtime.set_online(*id, online);
        }
        if online {
            // A device reported online counts as heard from now.
            self.samples(ids.iter().copied());
        }
        if let Err(e) = store::set_devices_online(&self.state.db, ids, online, time::now_ms()).await {
            tracing::warn!(error = %e, "storing device presence");
        }
        for station in ids
            .iter()
            .filter_map(|id| self.state.realtime.device(*id))
            .map(|d| d.station_id)
        {
            self.state.realtime.touch(station);
        }
    }

    /// Tells the alarm engine the gateway's state, offline with the time of its last message
    /// (the engine debounces `comm:gateway`: see `alarm::outage`).
    async fn alarm_gateway(&self, id: &str, g: &Gw, heard: i64) {
        use crate::telemetry::events::Event;
        let (tenant_id, station_id, gateway_id) = (g.tenant_id.clone(), g.station_id, id.to_owned());
        let input = if g.online {
            Event::GatewayOnline {
                tenant_id,
                station_id,
                gateway_id,
            }
        } else {
            Event::GatewayOffline {
                tenant_id,
                station_id,
                gateway_id,
                since: heard,
            }
        };
        self.state.evaluation.submit(input).await;
    }

    /// Marks silent gateways and devices offline.
    pub async fn sweep(&self, gateway_silence_ms: i64, device_silence_ms: i64) {
        self.forget_moved();
        let now = time::now_ms();
        let silent: Vec<(String, Gw)> = {
            let mut map = self.gateways.lock().unwrap_or_else(|p| p.into_inner());
            map.iter_mut()
                .filter(|(_, g)| g.online && now - g.last_seen > gateway_silence_ms)
                .map(|(id, g)| {
                    g.online = false;
                    (id.clone(), g.clone())
                })
                .collect()
        };
        for (id, g) in silent {
            tracing::info!(gateway = %id, "gateway silent: offline");
            self.alarm_gateway(&id, &g, g.last_seen).await;
            self.devices_online(&g.devices, false).await;
            self.persist(&id, &g, None).await;
            self.state.realtime.set_gateway(self.live(&id, &g, None));
        }
        let quiet: Vec<i64> = {
            let mut d = self.devices.lock().unwrap_or_else(|p| p.into_inner());
            let quiet: Vec<i64> = d
                .iter()
                .filter(|(_, at)| now - **at > device_silence_ms)
                .map(|(id, _)| *id)
                .collect();
            for id in &quiet {
                d.remove(id);
            }
            quiet
        };
        let quiet: Vec<i64> = {
            let moved = self.moved.lock().unwrap_or_else(|p| p.into_inner());
            quiet.into_iter().filter(|id| !moved.contains(id)).collect()
        };
        self.devices_online(&quiet, false).await;
    }

    /// Every device in the realtime view counts as heard from now (after a restart, silence is
    /// measured from the start rather than from a receipt this process never saw).
    pub fn grace_for_loaded(&self, device_ids: impl IntoIterator<Item = i64>) {
        self.samples(device_ids);
    }
}

/// Runs the silence sweep until the hub stops (its own stop silences every gateway: that is no
/// outage, so the sweep ends first).
pub fn spawn_sweeper(
    presence: Arc<Presence>,
    gateway_silence_s: i64,
    device_silence_s: i64,
) -> tokio::task::JoinHandle<()> {
    let period = std::time::Duration::from_millis(
        (gateway_silence_s.min(device_silence_s).max(1) as u64 * 1000 / 4).clamp(200, 5000),
    );
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(period);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let shutdown = presence.state.shutdown.clone();
        loop {
            tokio::select! {
                biased;
                _ = shutdown.stopping() => return,
                _ = tick.tick() => {}
            }
            presence
                .sweep(gateway_silence_s * 1000, device_silence_s * 1000)
                .await;
        }
    })
}
