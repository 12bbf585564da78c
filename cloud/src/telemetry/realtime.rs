//! The realtime view: the newest values of every device and the state of every gateway, kept in
//! memory so live screens answer from it without touching the database (sample → API within
//! milliseconds of ingest). Ingest writes it as soon as a batch is checked and accepted, before
//! the batch is stored (the acknowledgement to the gateway still waits for the commit), so the
//! view may briefly be ahead of `pv_telemetry_latest`; it never goes back in time per device.
//! At start it is rebuilt from `pv_telemetry_latest`, which is also what another cloud replica
//! reads: with several replicas, the stations this one stored or changed are listed in `touched`
//! and announced to the others, which re-read them (`telemetry::follow`).
//!
//! Locks are std `RwLock`s held only to copy or replace one entry, never across an await.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::RwLock;

use pv_shared::wire::{GatewayStatus, Value};
use sqlx::Row;
use tokio::sync::broadcast;

use crate::kernel::db::Db;

/// What a registry row is, as telemetry names it (`device_kind` columns).
pub const KIND_INVERTER: &str = "inverter";
pub const KIND_METER: &str = "meter";
pub const KIND_WEATHER: &str = "weather";
pub const KIND_FLEX: &str = "flex";

/// The newest sample of one device.
#[derive(Debug, Clone, PartialEq)]
pub struct DeviceLive {
    pub device_id: i64,
    pub tenant_id: String,
    pub station_id: i64,
    /// One of the `KIND_*` constants.
    pub kind: String,
    pub gateway_id: String,
    /// Sample time (device clock via the gateway), epoch ms.
    pub ts: i64,
    pub values: BTreeMap<String, Value>,
    /// Values marked implausible (see `wire::Sample::suspect`): shown marked, never as good.
    pub suspect: BTreeMap<String, Value>,
    /// Communicating: false after the gateway reported it offline, its gateway went offline, or it
    /// stayed silent too long.
    pub online: bool,
}

impl DeviceLive {
    /// A numeric metric's value, if the sample has it.
    pub fn number(&self, metric: &str) -> Option<f64> {
        match self.values.get(metric) {
            Some(Value::Number(n)) => Some(*n),
            _ => None,
        }
    }
}

/// One gateway as ingest sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct GatewayLive {
    pub gateway_id: String,
    pub tenant_id: String,
    pub station_id: i64,
    pub online: bool,
    /// Last message of any kind from it, epoch ms (server clock).
    pub last_seen: i64,
    pub status: Option<GatewayStatus>,
    /// Since when (server clock, epoch ms) each device its status names withheld has been so,
    /// by the gateway's device id: the status says why, not since when.
    pub withheld_since: BTreeMap<String, i64>,
}

/// What changed, for listeners (websocket pushes, the alarm engine).
#[derive(Debug, Clone, PartialEq)]
pub enum Change {
    /// New values or an online change for devices of this station.
    Station { tenant_id: String, station_id: i64 },
}

pub struct RealtimeView {
    devices: RwLock<HashMap<i64, DeviceLive>>,
    by_station: RwLock<HashMap<i64, BTreeSet<i64>>>,
    gateways: RwLock<HashMap<String, GatewayLive>>,
    changes: broadcast::Sender<Change>,
    /// Stations whose stored rows this replica changed since the last `take_touched`.
    touched: std::sync::Mutex<BTreeSet<i64>>,
}

impl Default for RealtimeView {
    fn default() -> Self {
        RealtimeView {
            devices: RwLock::default(),
            by_station: RwLock::default(),
            gateways: RwLock::default(),
            changes: broadcast::channel(1024).0,
            touched: Default::default(),
        }
    }
}

impl RealtimeView {
    /// Keeps `sample` if it is newer than what the view holds for its device (a replayed old
    /// sample never overwrites a newer one). Returns whether it was kept.
    pub fn apply(&self, sample: DeviceLive) -> bool {
        let (tenant_id, station_id, device_id) =
            (sample.tenant_id.clone(), sample.station_id, sample.device_id);
        {
            let mut devices = self.devices.write().unwrap_or_else(|p| p.into_inner());
            match devices.get(&device_id) {
                Some(held) if held.ts > sample.ts => return false,
                Some(held) if held.ts == sample.ts && held.online == sample.online => return false,
                Some(held) if held.station_id != station_id => {
                    // The device moved to another station: re-index it.
                    let old = held.station_id;
                    let mut index = self.by_station.write().unwrap_or_else(|p| p.into_inner());
                    if let Some(set) = index.get_mut(&old) {
                        set.remove(&device_id);
                    }
                }
                _ => {}
            }
            devices.insert(device_id, sample);
        }
        self.by_station
            .write()
            .unwrap_or_else(|p| p.into_inner())
            .entry(station_id)
            .or_default()
            .insert(device_id);
        let _ = self.changes.send(Change::Station {
            tenant_id,
            station_id,
        });
        true
    }

    /// Marks a device (not) communicating; false when the view doesn't hold it or nothing changed.
    pub fn set_online(&self, device_id: i64, online: bool) -> bool {
        let change = {
            let mut devices = self.devices.write().unwrap_or_else(|p| p.into_inner());
            match devices.get_mut(&device_id) {
                Some(d) if d.online != online => {
                    d.online = online;
                    Some(Change::Station {
                        tenant_id: d.tenant_id.clone(),
                        station_id: d.station_id,
                    })
                }
                _ => None,
            }
        };
        match change {
            Some(c) => {
                let _ = self.changes.send(c);
                true
            }
            None => false,
        }
    }

    pub fn device(&self, device_id: i64) -> Option<DeviceLive> {
        self.devices
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .get(&device_id)
            .cloned()
    }

    /// Every device of a station the view holds, by device id.
    pub fn station(&self, station_id: i64) -> Vec<DeviceLive> {
        let ids: Vec<i64> = self
            .by_station
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .get(&station_id)
            .map(|s| s.iter().copied().collect())
            .unwrap_or_default();
        let devices = self.devices.read().unwrap_or_else(|p| p.into_inner());
        ids.iter().filter_map(|id| devices.get(id).cloned()).collect()
    }

    /// Forgets a device (removed from the registry).
    pub fn remove(&self, device_id: i64) {
        let removed = self
            .devices
            .write()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&device_id);
        let mut index = self.by_station.write().unwrap_or_else(|p| p.into_inner());
        if let Some(set) = removed.and_then(|d| index.get_mut(&d.station_id)) {
            set.remove(&device_id);
        }
    }

    /// Why the gateway holds this device's values back (its layout or identity is not
    /// confirmed), as the gateway words it: from its newest status, while it is online and
    /// belongs to the tenant and station; the gateway names devices by their SN.
    pub fn withheld(&self, gateway_id: &str, tenant_id: &str, station_id: i64, sn: &str) -> Option<String> {
        let gateways = self.gateways.read().unwrap_or_else(|p| p.into_inner());
        let g = gateways
            .get(gateway_id.trim())
            .filter(|g| g.online && g.tenant_id == tenant_id && g.station_id == station_id)?;
        g.status
            .as_ref()?
            .devices
            .iter()
            .find(|d| d.id.trim() == sn.trim())?
            .withheld
            .clone()
    }

    pub fn gateway(&self, gateway_id: &str) -> Option<GatewayLive> {
        self.gateways
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .get(gateway_id)
            .cloned()
    }

    pub fn set_gateway(&self, gateway: GatewayLive) {
        let change = Change::Station {
            tenant_id: gateway.tenant_id.clone(),
            station_id: gateway.station_id,
        };
        self.gateways
            .write()
            .unwrap_or_else(|p| p.into_inner())
            .insert(gateway.gateway_id.clone(), gateway);
        let _ = self.changes.send(change);
    }

    /// All gateways the view holds.
    pub fn gateways(&self) -> Vec<GatewayLive> {
        self.gateways
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .values()
            .cloned()
            .collect()
    }

    pub fn subscribe(&self) -> broadcast::Receiver<Change> {
        self.changes.subscribe()
    }

    /// This replica committed new latest values or presence of `station_id` (for the others).
    pub fn touch(&self, station_id: i64) {
        self.touched
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(station_id);
    }

    /// The stations touched since the last call.
    pub fn take_touched(&self) -> BTreeSet<i64> {
        std::mem::take(&mut *self.touched.lock().unwrap_or_else(|p| p.into_inner()))
    }

    /// Re-reads the latest values and gateway states another replica stored, for the given
    /// stations (all when `None`). Newer values replace held ones, never older; a gateway's
    /// stored state replaces the held one unless the held one was seen later (this replica
    /// ingests it). Returns how many devices and gateways changed.
    pub async fn refresh(&self, db: &Db, stations: Option<&[i64]>) -> Result<usize, crate::kernel::ApiError> {
        let mut changed = self.load_where(db, stations).await?;
        let mut sql = crate::kernel::sql::Sql::new(
            "SELECT gateway_id, tenant_id, station_id, online, last_seen, status FROM pv_gateway_state",
        );
        if let Some(ids) = stations {
            if ids.is_empty() {
                return Ok(changed);
            }
            sql.push(" WHERE station_id IN (");
            sql.push_bind(
                &vec!["?"; ids.len()].join(","),
                ids.iter().map(|i| crate::kernel::sql::Value::Int(*i)),
            );
            sql.push(")");
        }
        let rows = sql.rows(db.pool()).await?;
        for row in rows {
            let gateway_id: String = row.try_get("gateway_id")?;
            let online: i64 = row.try_get("online")?;
            let last_seen: i64 = row.try_get("last_seen")?;
            let status: Option<String> = row.try_get("status")?;
            let status = status.and_then(|s| serde_json::from_str::<GatewayStatus>(&s).ok());
            let held = self.gateway(&gateway_id);
            if let Some(h) = &held
                && (h.last_seen > last_seen || (h.online == (online != 0) && h.last_seen == last_seen))
            {
                continue;
            }
            let withheld_since = held.map(|h| h.withheld_since).unwrap_or_default();
            self.set_gateway(GatewayLive {
                gateway_id,
                tenant_id: row.try_get("tenant_id")?,
                station_id: row.try_get("station_id")?,
                online: online != 0,
                last_seen,
                status,
                withheld_since,
            });
            changed += 1;
        }
        Ok(changed)
    }

    /// Rebuilds the view from the database (at start, or on a replica).
    pub async fn load(&self, db: &Db) -> Result<usize, crate::kernel::ApiError> {
        self.load_where(db, None).await
    }

    /// Applies the stored latest rows of `stations` (all when `None`); returns how many were kept.
    async fn load_where(&self, db: &Db, stations: Option<&[i64]>) -> Result<usize, crate::kernel::ApiError> {
        let mut sql = crate::kernel::sql::Sql::new(
            "SELECT device_id, tenant_id, station_id, device_kind, gateway_id, ts, metrics, suspect, online \
             FROM pv_telemetry_latest",
        );
        if let Some(ids) = stations {
            if ids.is_empty() {
                return Ok(0);
            }
            sql.push(" WHERE station_id IN (");
            sql.push_bind(
                &vec!["?"; ids.len()].join(","),
                ids.iter().map(|i| crate::kernel::sql::Value::Int(*i)),
            );
            sql.push(")");
        }
        let rows = sql.rows(db.pool()).await?;
        let mut n = 0;
        for row in rows {
            let metrics: String = row.try_get("metrics")?;
            // A row that does not parse is skipped (it will be replaced by the next sample).
            let Ok(values) = serde_json::from_str::<BTreeMap<String, Value>>(&metrics) else {
                continue;
            };
            let suspect: Option<String> = row.try_get("suspect")?;
            let suspect = suspect
                .and_then(|q| serde_json::from_str::<BTreeMap<String, Value>>(&q).ok())
                .unwrap_or_default();
            let online: i64 = row.try_get("online")?;
            let kept = self.apply(DeviceLive {
                device_id: row.try_get("device_id")?,
                tenant_id: row.try_get("tenant_id")?,
                station_id: row.try_get("station_id")?,
                kind: row.try_get("device_kind")?,
                gateway_id: row.try_get("gateway_id")?,
                ts: row.try_get("ts")?,
                values,
                suspect,
                online: online != 0,
            });
            n += usize::from(kept);
        }
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(device_id: i64, station_id: i64, ts: i64, power: f64) -> DeviceLive {
        DeviceLive {
            device_id,
            tenant_id: "000000".into(),
            station_id,
            kind: KIND_INVERTER.into(),
            gateway_id: "gw".into(),
            ts,
            values: BTreeMap::from([("ac_power".to_string(), Value::Number(power))]),
            suspect: BTreeMap::new(),
            online: true,
        }
    }

    #[test]
    fn an_older_sample_never_replaces_a_newer_one() {
        let view = RealtimeView::default();
        assert!(view.apply(sample(1, 10, 2_000, 5.0)));
        assert!(!view.apply(sample(1, 10, 1_000, 9.0)));
        assert_eq!(view.device(1).and_then(|d| d.number("ac_power")), Some(5.0));
        assert!(view.apply(sample(1, 10, 3_000, 7.0)));
        assert_eq!(view.device(1).and_then(|d| d.number("ac_power")), Some(7.0));
    }

    #[test]
    fn devices_are_listed_by_station_and_follow_a_move() {
        let view = RealtimeView::default();
        view.apply(sample(1, 10, 1, 1.0));
        view.apply(sample(2, 10, 1, 1.0));
        view.apply(sample(3, 11, 1, 1.0));
        assert_eq!(view.station(10).len(), 2);
        view.apply(sample(2, 11, 2, 1.0));
        assert_eq!(
            view.station(10).iter().map(|d| d.device_id).collect::<Vec<_>>(),
            vec![1]
        );
        assert_eq!(view.station(11).len(), 2);
        view.remove(3);
        assert_eq!(
            view.station(11).iter().map(|d| d.device_id).collect::<Vec<_>>(),
            vec![2]
        );
    }

    #[test]
    fn online_changes_are_announced_once() {
        let view = RealtimeView::default();
        view.apply(sample(1, 10, 1, 1.0));
        let mut rx = view.subscribe();
        assert!(view.set_online(1, false));
        assert!(!view.set_online(1, false));
        assert!(rx.try_recv().is_ok());
        assert!(rx.try_recv().is_err());
        assert_eq!(view.device(1).map(|d| d.online), Some(false));
    }
}
