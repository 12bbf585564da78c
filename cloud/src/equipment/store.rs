//! Gathering the overview: one query per table, whatever the number of devices, then the
//! realtime view in memory. Every query is limited to the caller's tenant and station scope.

use std::collections::{HashMap, HashSet};

use pv_shared::wire::DeviceStatus;
use sqlx::Row;

use super::model::{self, Equipment, Facts, Filter};
use crate::auth::scope::StationScope;
use crate::kernel::sql::{Sql, Value};
use crate::kernel::{ApiError, Core, Id, time};
use crate::station::MapModel;
use crate::telemetry::TelemetryCtx;
use crate::telemetry::raw::{HOUR_MS, hour_of};
use crate::telemetry::realtime::GatewayLive;

/// The quality window: from the start of the hour 24 hours before `now`. Whole hours, so packed
/// hours (one block each) count exactly, without opening any block.
pub fn window_start(now_ms: i64) -> i64 {
    hour_of(now_ms - 24 * HOUR_MS)
}

/// A registry row as the five tables give it.
struct Registered {
    id: i64,
    name: String,
    sn: String,
    kind: &'static str,
    station_id: i64,
    station_name: String,
    gateway: String,
    map_model: Option<String>,
}

/// (kind, table, its gateway column, its register-map column): cameras have neither.
const TABLES: [(&str, &str, bool); 5] = [
    (model::KIND_INVERTER, "pv_inverter", true),
    (model::KIND_METER, "pv_meter", true),
    (model::KIND_WEATHER, "pv_weather", true),
    (model::KIND_TRACKER, "pv_flex", true),
    (model::KIND_CAMERA, "pv_camera", false),
];

async fn registered(core: &Core, scope: &StationScope, filter: &Filter) -> Result<Vec<Registered>, ApiError> {
    let mut sql = Sql::default();
    let mut first = true;
    for (kind, table, polled) in TABLES {
        if filter.kind.is_some_and(|k| k != kind) {
            continue;
        }
        if !first {
            sql.push(" UNION ALL ");
        }
        first = false;
        let (gateway, map) = if polled {
            ("d.gateway_id", "d.map_model")
        } else {
            ("CAST(NULL AS VARCHAR(64))", "CAST(NULL AS VARCHAR(64))")
        };
        sql.push(&format!(
            "SELECT d.id, d.name, d.sn, '{kind}' AS kind, d.station_id, s.name AS station_name, \
             {gateway} AS own_gateway, s.gateway_id AS station_gateway, {map} AS map_model \
             FROM {table} d JOIN pv_station s ON s.id = d.station_id AND s.is_deleted = 0 WHERE "
        ));
        sql.append(&scope.rows("d", "station_id"));
        if let Some(station) = filter.station_id {
            sql.push_bind(" AND d.station_id = ?", [Value::Int(station.0)]);
        }
    }
    if first {
        return Ok(Vec::new());
    }
    let rows = sql.rows(core.db.pool()).await?;
    let mut out = Vec::with_capacity(rows.len());
    for r in rows {
        let kind: String = r.try_get("kind")?;
        let clean = |g: Option<String>| g.map(|g| g.trim().to_owned()).filter(|g| !g.is_empty());
        // A device's own gateway when it names one, else its station's.
        let gateway = clean(r.try_get("own_gateway")?).or(clean(r.try_get("station_gateway")?));
        out.push(Registered {
            id: r.try_get("id")?,
            name: r.try_get("name")?,
            sn: r.try_get("sn")?,
            kind: model::KINDS
                .iter()
                .find(|k| **k == kind)
                .copied()
                .unwrap_or(model::KIND_INVERTER),
            station_id: r.try_get("station_id")?,
            station_name: r.try_get("station_name")?,
            gateway: gateway.unwrap_or_default(),
            map_model: r.try_get("map_model")?,
        });
    }
    Ok(out)
}

/// What a vendor cloud says of a device it feeds.
#[derive(Debug, Clone, Default)]
pub struct VendorFacts {
    pub model: Option<String>,
    pub firmware: Option<String>,
}

/// The devices of the caller's tenant that a vendor cloud feeds (a `pv_vendor_device` row points
/// at them), with the vendor's model and firmware.
pub async fn vendor_sources(core: &Core, tenant: &str) -> Result<HashMap<i64, VendorFacts>, ApiError> {
    let mut sql = Sql::default();
    sql.push_bind(
        "SELECT device_id, model, firmware FROM pv_vendor_device WHERE tenant_id = ? AND device_id IS NOT NULL",
        [Value::from(tenant)],
    );
    let rows: Vec<(i64, Option<String>, Option<String>)> = sql.fetch_all(core.db.pool()).await?;
    let clean = |s: Option<String>| s.map(|s| s.trim().to_owned()).filter(|s| !s.is_empty());
    Ok(rows
        .into_iter()
        .map(|(id, model, firmware)| {
            (
                id,
                VendorFacts {
                    model: clean(model),
                    firmware: clean(firmware),
                },
            )
        })
        .collect())
}

/// Devices with an open (active or acknowledged) fault alarm.
async fn open_faults(core: &Core, scope: &StationScope) -> Result<HashSet<i64>, ApiError> {
    let mut sql = Sql::new("SELECT DISTINCT a.device_id FROM pv_alarm a WHERE ");
    sql.push_bind(
        "a.tenant_id = ? AND a.status < ? AND a.category = 'fault' AND a.device_id <> 0",
        [
            Value::Text(scope.tenant_id.clone()),
            Value::Int(crate::alarm::codes::STATUS_CLEARED),
        ],
    );
    sql.append(&scope.condition("a.station_id"));
    Ok(sql.scalars::<i64, _>(core.db.pool()).await?.into_iter().collect())
}

/// Ids as a bound list; at most this many per statement (SQLite's bind limit is 32 766).
const IN_CHUNK: usize = 5_000;

fn push_in(sql: &mut Sql, ids: &[i64]) {
    sql.push("(");
    for (i, id) in ids.iter().enumerate() {
        sql.push_bind(if i == 0 { "?" } else { ", ?" }, [Value::Int(*id)]);
    }
    sql.push(")");
}

/// Samples stored with suspect marks since `from`: rows not yet packed plus the packed hours'
/// counts (blocks packed before the count was kept are opened).
async fn suspect_samples(core: &Core, devices: &[i64], from: i64) -> Result<HashMap<i64, i64>, ApiError> {
    let mut out: HashMap<i64, i64> = HashMap::new();
    for chunk in devices.chunks(IN_CHUNK) {
        let mut sql = Sql::new("SELECT device_id, COUNT(*) FROM pv_telemetry_raw WHERE device_id IN ");
        push_in(&mut sql, chunk);
        sql.push_bind(
            " AND ts >= ? AND suspect IS NOT NULL GROUP BY device_id",
            [Value::Int(from)],
        );
        for (device, n) in sql.fetch_all::<(i64, i64), _>(core.db.pool()).await? {
            *out.entry(device).or_default() += n;
        }
        let mut sql =
            Sql::new("SELECT device_id, hour, suspect_samples FROM pv_telemetry_block WHERE device_id IN ");
        push_in(&mut sql, chunk);
        sql.push_bind(" AND hour >= ?", [Value::Int(from)]);
        let mut unknown = Vec::new();
        for (device, hour, n) in sql
            .fetch_all::<(i64, i64, Option<i64>), _>(core.db.pool())
            .await?
        {
            match n {
                Some(n) => *out.entry(device).or_default() += n,
                None => unknown.push((device, hour)),
            }
        }
        for (device, hour) in unknown {
            let mut sql = Sql::default();
            sql.push_bind(
                "SELECT data FROM pv_telemetry_block WHERE device_id = ? AND hour = ?",
                [Value::Int(device), Value::Int(hour)],
            );
            if let Some(data) = sql.scalar_optional::<Vec<u8>, _>(core.db.pool()).await? {
                let opened = crate::telemetry::block::open(&data)
                    .map_err(|e| ApiError::Internal(format!("block of device {device} hour {hour}: {e}")))?;
                *out.entry(device).or_default() += opened.suspect_count() as i64;
            }
        }
    }
    Ok(out)
}

/// Failed polls the gateways' statuses reported per device since `from` (`telemetry::polls`).
async fn failed_polls(core: &Core, devices: &[i64], from: i64) -> Result<HashMap<i64, i64>, ApiError> {
    let mut out = HashMap::new();
    for chunk in devices.chunks(IN_CHUNK) {
        let mut sql = Sql::new(
            "SELECT device_id, CAST(SUM(polls_failed) AS BIGINT) FROM pv_device_polls WHERE device_id IN ",
        );
        push_in(&mut sql, chunk);
        sql.push_bind(" AND hour >= ? GROUP BY device_id", [Value::Int(from)]);
        out.extend(sql.fetch_all::<(i64, i64), _>(core.db.pool()).await?);
    }
    Ok(out)
}

/// Counter rebases (`pv_counter_event.kind = 'rebase'`) whose step starts at or after `from`.
async fn rebases(core: &Core, scope: &StationScope, from: i64) -> Result<HashMap<i64, i64>, ApiError> {
    let mut sql = Sql::new("SELECT e.device_id, COUNT(*) FROM pv_counter_event e WHERE ");
    sql.push_bind(
        "e.tenant_id = ? AND e.kind = 'rebase' AND e.ts >= ?",
        [Value::Text(scope.tenant_id.clone()), Value::Int(from)],
    );
    sql.append(&scope.condition("e.station_id"));
    sql.push(" GROUP BY e.device_id");
    Ok(sql
        .fetch_all::<(i64, i64), _>(core.db.pool())
        .await?
        .into_iter()
        .collect())
}

/// The device's line in its gateway's newest status, when that gateway is online (an offline
/// gateway has no word on its devices).
fn status_line<'a>(
    gateways: &'a HashMap<&str, &GatewayLive>,
    gateway: &str,
    sn: &str,
) -> Option<&'a DeviceStatus> {
    gateways
        .get(gateway)
        .filter(|g| g.online)
        .and_then(|g| g.status.as_ref())
        .and_then(|s| s.devices.iter().find(|d| d.id.trim() == sn.trim()))
}

fn map_label(maps: &[MapModel], id: Option<&str>) -> String {
    let Some(id) = id.map(str::trim).filter(|i| !i.is_empty()) else {
        return String::new();
    };
    maps.iter()
        .find(|m| m.id == id)
        .map_or_else(|| id.to_owned(), |m| format!("{} {}", m.manufacturer, m.model))
}

/// Every device of the caller's scope passing `filter`, sorted as it asks.
pub async fn load(
    tele: &TelemetryCtx,
    maps: &[MapModel],
    scope: &StationScope,
    filter: &Filter,
) -> Result<Vec<Equipment>, ApiError> {
    let core: &Core = tele;
    let devices = registered(core, scope, filter).await?;
    let from = window_start(core.clock.now_ms());
    let ids: Vec<i64> = devices.iter().map(|d| d.id).collect();
    let vendor = vendor_sources(core, &scope.tenant_id).await?;
    let faults = open_faults(core, scope).await?;
    let suspect = suspect_samples(core, &ids, from).await?;
    let rebased = rebases(core, scope, from).await?;
    let failed = failed_polls(core, &ids, from).await?;
    let all_gateways = tele.realtime.gateways();
    let gateways: HashMap<&str, &GatewayLive> = all_gateways
        .iter()
        .filter(|g| g.tenant_id == scope.tenant_id)
        .map(|g| (g.gateway_id.as_str(), g))
        .collect();

    let mut out = Vec::with_capacity(devices.len());
    for d in devices {
        let camera = d.kind == model::KIND_CAMERA;
        let from_vendor = vendor.get(&d.id);
        let live = (!camera)
            .then(|| tele.realtime.device(d.id))
            .flatten()
            .filter(|l| l.tenant_id == scope.tenant_id && l.station_id == d.station_id);
        let line = match (camera, from_vendor) {
            (false, None) => status_line(&gateways, &d.gateway, &d.sn),
            _ => None,
        };
        let last_sample_ms = live.as_ref().map(|l| l.ts);
        let facts = Facts {
            camera,
            last_sample_ms,
            live_online: live.as_ref().is_some_and(|l| l.online),
            gateway_line: line.map(|l| (l.online, l.withheld.is_some())),
            open_fault: faults.contains(&d.id),
        };
        let model = from_vendor
            .and_then(|v| v.model.clone())
            .unwrap_or_else(|| map_label(maps, d.map_model.as_deref()));
        let row = Equipment {
            id: Id(d.id),
            name: d.name,
            station_id: Id(d.station_id),
            station_name: d.station_name,
            kind: d.kind.to_owned(),
            model,
            sn: d.sn,
            firmware: from_vendor.and_then(|v| v.firmware.clone()).unwrap_or_default(),
            source: if from_vendor.is_some() {
                model::SOURCE_VENDOR
            } else {
                model::SOURCE_GATEWAY
            }
            .to_owned(),
            status: model::status(&facts).to_owned(),
            last_sample: last_sample_ms.map(time::format_ms),
            // Counted over the window when its statuses added any; 0 while its gateway reports it
            // with nothing added; absent when no gateway reports it.
            missed_polls: failed
                .get(&d.id)
                .copied()
                .or(line.map(|_| 0))
                .filter(|_| from_vendor.is_none() && !camera),
            suspect_values: suspect.get(&d.id).copied().unwrap_or(0),
            counter_rebases: rebased.get(&d.id).copied().unwrap_or(0),
            gateway_id: if from_vendor.is_some() || camera {
                String::new()
            } else {
                d.gateway
            },
            last_sample_ms,
        };
        if filter.keeps(&row) {
            out.push(row);
        }
    }
    filter.sort(&mut out);
    Ok(out)
}
