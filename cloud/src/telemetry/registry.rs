//! Who a gateway is and which devices it may report: gateway id → (tenant, station), and within
//! that station SN → (registry row id, kind), as the generated edge configuration names them
//! (`id = <sn>`). Cached per gateway and reloaded whole after `registry_ttl_seconds`, or at once
//! when a batch names an SN the cache does not know (an installer just added the device) unless
//! such a reload happened within `registry_negative_ttl_seconds` (so a gateway reporting a
//! device that is not registered cannot make every batch hit the database). A simple TTL rather
//! than change notifications: registry edits happen through any replica, and a 30 s delay
//! before a removed device's samples are refused is acceptable.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use sqlx::Row;

use super::realtime::{KIND_FLEX, KIND_INVERTER, KIND_METER, KIND_WEATHER};
use crate::kernel::ApiError;
use crate::kernel::db::Db;
use crate::kernel::sql::{Sql, Value};

#[derive(Debug, Clone, PartialEq)]
pub struct Device {
    pub device_id: i64,
    pub kind: &'static str,
}

/// A gateway and the devices of its station.
#[derive(Debug, Clone)]
pub struct GatewayEntry {
    pub gateway_id: String,
    pub tenant_id: String,
    pub station_id: i64,
    pub devices: HashMap<String, Device>,
}

struct Cached {
    entry: Option<Arc<GatewayEntry>>,
    loaded: Instant,
}

pub struct Registry {
    db: Db,
    ttl: Duration,
    negative_ttl: Duration,
    cache: Mutex<HashMap<String, Cached>>,
}

const TABLES: [(&str, &str); 4] = [
    ("pv_inverter", KIND_INVERTER),
    ("pv_meter", KIND_METER),
    ("pv_weather", KIND_WEATHER),
    ("pv_flex", KIND_FLEX),
];

impl Registry {
    pub fn new(db: Db, ttl: Duration, negative_ttl: Duration) -> Registry {
        Registry {
            db,
            ttl,
            negative_ttl,
            cache: Mutex::new(HashMap::new()),
        }
    }

    fn cached(&self, gateway: &str) -> Option<(Option<Arc<GatewayEntry>>, Duration)> {
        self.cache
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(gateway)
            .map(|c| (c.entry.clone(), c.loaded.elapsed()))
    }

    /// The gateway's entry; `None` when no live station names it.
    pub async fn gateway(&self, gateway: &str) -> Result<Option<Arc<GatewayEntry>>, ApiError> {
        match self.cached(gateway) {
            Some((entry, age)) if entry.is_some() && age < self.ttl => Ok(entry),
            // An unknown gateway is looked up again only after the short negative TTL.
            Some((None, age)) if age < self.negative_ttl => Ok(None),
            _ => self.reload(gateway).await,
        }
    }

    /// The entry again when it may be stale for an unknown SN (see the module note).
    pub async fn refresh_for_unknown(&self, gateway: &str) -> Result<Option<Arc<GatewayEntry>>, ApiError> {
        match self.cached(gateway) {
            Some((entry, age)) if age < self.negative_ttl => Ok(entry),
            _ => self.reload(gateway).await,
        }
    }

    /// Forgets every entry (tests, or after a bulk registry change).
    pub fn clear(&self) {
        self.cache.lock().unwrap_or_else(|p| p.into_inner()).clear();
    }

    async fn reload(&self, gateway: &str) -> Result<Option<Arc<GatewayEntry>>, ApiError> {
        let entry = self.load(gateway).await?.map(Arc::new);
        self.cache.lock().unwrap_or_else(|p| p.into_inner()).insert(
            gateway.to_owned(),
            Cached {
                entry: entry.clone(),
                loaded: Instant::now(),
            },
        );
        Ok(entry)
    }

    async fn load(&self, gateway: &str) -> Result<Option<GatewayEntry>, ApiError> {
        let mut sql = Sql::default();
        sql.push_bind(
            "SELECT id, tenant_id FROM pv_station WHERE gateway_id = ? AND is_deleted = 0 ORDER BY id",
            [Value::from(gateway)],
        );
        let Some(row) = sql.row(self.db.pool()).await? else {
            return Ok(None);
        };
        let station_id: i64 = row.try_get("id")?;
        let tenant_id: String = row.try_get("tenant_id")?;
        let mut devices = HashMap::new();
        for (table, kind) in TABLES {
            let mut sql = Sql::new(&format!("SELECT id, sn FROM {table}"));
            // By the station's tenant: ingest resolves a gateway's devices with no caller.
            sql.push_bind(
                " WHERE tenant_id = ? AND station_id = ? AND is_deleted = 0",
                [Value::Text(tenant_id.clone()), Value::Int(station_id)],
            );
            for row in sql.rows(self.db.pool()).await? {
                let sn: String = row.try_get("sn")?;
                devices.insert(
                    sn.trim().to_owned(),
                    Device {
                        device_id: row.try_get("id")?,
                        kind,
                    },
                );
            }
        }
        Ok(Some(GatewayEntry {
            gateway_id: gateway.to_owned(),
            tenant_id,
            station_id,
            devices,
        }))
    }
}
