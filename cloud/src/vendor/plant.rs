//! The vendor's plants and devices of an account (`pv_vendor_plant`, `pv_vendor_device`), and
//! mapping a plant to one of the caller's stations: each vendor device then becomes (or is
//! linked to) an ordinary device row of the station, with the vendor's serial as its SN and the
//! account's platform as its manufacturer, under the same rules as the device forms (the
//! station visible to the caller, an SN unique in the tenant).

use sqlx::Row;

use super::account::Account;
use super::connector::{DeviceKind, Plant, VendorApi, VendorDevice, VendorError};
use super::context::VendorCtx;
use crate::auth::scope::{self, StationScope};
use crate::kernel::sql::{Sql, Value};
use crate::kernel::{ApiError, Id, time};
use crate::station::device::{NO_STATION, sn_duplicate, sn_taken};
use crate::telemetry::realtime::{KIND_INVERTER, KIND_METER, KIND_WEATHER};

fn opt_float(v: Option<f64>) -> Value {
    v.map_or(Value::NullFloat, Value::Float)
}

fn opt_text(v: Option<&str>) -> Value {
    v.map_or(Value::NullText, Value::from)
}

pub fn kind_code(kind: DeviceKind) -> &'static str {
    match kind {
        DeviceKind::Inverter => "inverter",
        DeviceKind::Meter => "meter",
        DeviceKind::Weather => "weather",
    }
}

/// The registry table and realtime kind of a `pv_vendor_device.kind`.
pub fn table_of(kind: &str) -> Option<(&'static str, &'static str)> {
    match kind {
        "inverter" => Some(("pv_inverter", KIND_INVERTER)),
        "meter" => Some(("pv_meter", KIND_METER)),
        "weather" => Some(("pv_weather", KIND_WEATHER)),
        _ => None,
    }
}

/// What a vendor's failure means to the console.
pub fn vendor_failure(e: &VendorError) -> ApiError {
    let detail: String = e.to_string().chars().take(300).collect();
    match e {
        VendorError::Auth(_) => ApiError::bad_request(
            format!("厂商云拒绝了账号凭据：{detail}"),
            format!("The vendor cloud refused the credentials: {detail}"),
        ),
        VendorError::Throttled { .. } => ApiError::bad_request(
            format!("厂商云限流，请稍后再试：{detail}"),
            format!("The vendor cloud is throttling this account, try again later: {detail}"),
        ),
        _ => ApiError::bad_request(
            format!("厂商云暂不可用：{detail}"),
            format!("The vendor cloud is unavailable: {detail}"),
        ),
    }
}

/// Asks the vendor for the account's plants and their devices and stores them.
pub async fn refresh(state: &VendorCtx, account: &Account) -> Result<(), ApiError> {
    let mut session = state
        .vendor
        .session(account.id, account.platform, account.credentials());
    let plants = session.plants().await.map_err(|e| vendor_failure(&e))?;
    for p in &plants {
        store_plant(state, account, p).await?;
        let devices = session
            .devices(&p.plant_id)
            .await
            .map_err(|e| vendor_failure(&e))?;
        for d in &devices {
            store_device(state, account, &p.plant_id, d).await?;
        }
    }
    Ok(())
}

async fn store_plant(state: &VendorCtx, account: &Account, p: &Plant) -> Result<(), ApiError> {
    let now = time::now_ms();
    let mut sql = Sql::new(
        "INSERT INTO pv_vendor_plant (id, tenant_id, account_id, plant_id, name, capacity_kwp, address, \
         create_time, update_time) VALUES ",
    );
    sql.push_bind(
        "(?,?,?,?,?,?,?,?,?) ON CONFLICT (account_id, plant_id) DO UPDATE SET name = excluded.name, \
         capacity_kwp = excluded.capacity_kwp, address = excluded.address, update_time = excluded.update_time",
        [
            Value::from(state.ids.next()),
            Value::from(account.tenant_id.as_str()),
            Value::Int(account.id),
            Value::from(truncate(&p.plant_id, 64)),
            Value::from(truncate(&p.name, 200)),
            opt_float(p.capacity_kwp),
            opt_text(p.address.as_deref().map(|a| truncate(a, 255)).as_deref()),
            Value::Int(now),
            Value::Int(now),
        ],
    );
    sql.execute(state.db.pool()).await?;
    Ok(())
}

async fn store_device(
    state: &VendorCtx,
    account: &Account,
    plant: &str,
    d: &VendorDevice,
) -> Result<(), ApiError> {
    let now = time::now_ms();
    let mut sql = Sql::new(
        "INSERT INTO pv_vendor_device (id, tenant_id, account_id, plant_id, vendor_device_id, serial, kind, \
         name, model, firmware, rated_power_w, create_time, update_time) VALUES ",
    );
    sql.push_bind(
        "(?,?,?,?,?,?,?,?,?,?,?,?,?) ON CONFLICT (account_id, vendor_device_id) DO UPDATE SET \
         plant_id = excluded.plant_id, serial = excluded.serial, kind = excluded.kind, name = excluded.name, \
         model = excluded.model, firmware = excluded.firmware, rated_power_w = excluded.rated_power_w, \
         update_time = excluded.update_time",
        [
            Value::from(state.ids.next()),
            Value::from(account.tenant_id.as_str()),
            Value::Int(account.id),
            Value::from(truncate(plant, 64)),
            Value::from(truncate(&d.device_id, 64)),
            Value::from(truncate(d.serial.trim(), 64)),
            Value::from(kind_code(d.kind)),
            Value::from(truncate(&d.name, 100)),
            opt_text(d.model.as_deref().map(|m| truncate(m, 64)).as_deref()),
            opt_text(d.firmware.as_deref().map(|m| truncate(m, 64)).as_deref()),
            opt_float(d.rated_power_w),
            Value::Int(now),
            Value::Int(now),
        ],
    );
    sql.execute(state.db.pool()).await?;
    Ok(())
}

fn truncate(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}

/// A stored plant with what the mapping dialog shows.
#[derive(Debug, Clone)]
pub struct PlantRow {
    pub plant_id: String,
    pub name: String,
    pub capacity_kwp: Option<f64>,
    pub address: Option<String>,
    pub station_id: Option<i64>,
    pub station_name: Option<String>,
    pub device_count: i64,
    pub backfilled_until: Option<i64>,
    pub backfill_from: Option<i64>,
}

/// The account's stored plants, by name.
pub async fn stored(state: &VendorCtx, account_id: i64) -> Result<Vec<PlantRow>, ApiError> {
    let mut sql = Sql::new(
        "SELECT p.plant_id, p.name, p.capacity_kwp, p.address, p.station_id, p.backfilled_until, p.backfill_from, \
         (SELECT s.name FROM pv_station s WHERE s.id = p.station_id AND s.is_deleted = 0) AS station_name, \
         (SELECT COUNT(*) FROM pv_vendor_device d WHERE d.account_id = p.account_id AND d.plant_id = p.plant_id) \
         AS device_count FROM pv_vendor_plant p WHERE ",
    );
    sql.push_bind(
        "p.account_id = ? ORDER BY p.name, p.plant_id",
        [Value::Int(account_id)],
    );
    let mut out = Vec::new();
    for r in sql.rows(state.db.pool()).await? {
        out.push(PlantRow {
            plant_id: r.try_get("plant_id")?,
            name: r.try_get("name")?,
            capacity_kwp: r.try_get("capacity_kwp")?,
            address: r.try_get("address")?,
            station_id: r.try_get("station_id")?,
            station_name: r.try_get("station_name")?,
            device_count: r.try_get("device_count")?,
            backfilled_until: r.try_get("backfilled_until")?,
            backfill_from: r.try_get("backfill_from")?,
        });
    }
    Ok(out)
}

/// Maps the account's plant to `station` (`None`: unmaps; the device rows stay, polling stops).
/// The caller's scope was checked to see the account.
pub async fn map(
    state: &VendorCtx,
    scope: &StationScope,
    user: Id,
    account: &Account,
    plant_id: &str,
    station: Option<Id>,
) -> Result<(), ApiError> {
    let mut sql = Sql::new("SELECT station_id FROM pv_vendor_plant WHERE ");
    sql.push_bind(
        "account_id = ? AND plant_id = ?",
        [Value::Int(account.id), Value::from(plant_id)],
    );
    let Some(row) = sql.row(state.db.pool()).await? else {
        return Err(ApiError::not_found());
    };
    let mapped: Option<i64> = row.try_get("station_id")?;
    let now = time::now_ms();
    let Some(station) = station else {
        let mut up = Sql::new("UPDATE pv_vendor_plant SET ");
        up.push_bind(
            "station_id = NULL, update_time = ? WHERE account_id = ? AND plant_id = ?",
            [Value::Int(now), Value::Int(account.id), Value::from(plant_id)],
        );
        up.execute(state.db.pool()).await?;
        return Ok(());
    };
    if !scope::visible_station(state, scope, station).await? {
        return Err(ApiError::BadRequest(NO_STATION));
    }
    // Decide each device's row before writing anything: an SN taken elsewhere refuses the map.
    let mut sql = Sql::new(
        "SELECT id, vendor_device_id, serial, kind, name, rated_power_w, device_id FROM pv_vendor_device WHERE ",
    );
    sql.push_bind(
        "account_id = ? AND plant_id = ? ORDER BY kind, serial",
        [Value::Int(account.id), Value::from(plant_id)],
    );
    let mut plan = Vec::new();
    for r in sql.rows(state.db.pool()).await? {
        let kind: String = r.try_get("kind")?;
        let Some((table, _)) = table_of(&kind) else {
            continue;
        };
        let serial: String = r.try_get("serial")?;
        let linked: Option<i64> = r.try_get("device_id")?;
        let live = match linked {
            Some(id) => live_row(state, table, &account.tenant_id, id).await?,
            None => false,
        };
        let target = if live {
            Target::Move(linked.unwrap_or_default())
        } else if let Some(id) = in_station(state, table, &account.tenant_id, station.0, &serial).await? {
            Target::Link(id)
        } else if sn_taken(state, &account.tenant_id, &serial, table, None).await? {
            return Err(sn_duplicate(&serial));
        } else {
            Target::Create
        };
        plan.push((
            r.try_get::<i64, _>("id")?,
            table,
            serial,
            r.try_get::<Option<String>, _>("name")?,
            r.try_get::<Option<f64>, _>("rated_power_w")?,
            target,
        ));
    }
    let mut tx = state.db.begin_write().await?;
    for (row_id, table, serial, name, rated_w, target) in plan {
        let device_id = match target {
            Target::Move(id) => {
                let mut up = Sql::new(&format!("UPDATE {table} SET "));
                up.push_bind(
                    "station_id = ?, update_time = ? WHERE id = ? AND tenant_id = ?",
                    [
                        Value::Int(station.0),
                        Value::Int(now),
                        Value::Int(id),
                        Value::from(account.tenant_id.as_str()),
                    ],
                );
                up.execute(&mut *tx).await?;
                id
            }
            Target::Link(id) => id,
            Target::Create => {
                let id = state.ids.next().0;
                let name = name
                    .filter(|n| !n.trim().is_empty())
                    .unwrap_or_else(|| serial.clone());
                insert_device(table, id, account, station.0, user, &name, &serial, rated_w, now)
                    .execute(&mut *tx)
                    .await?;
                id
            }
        };
        let mut up = Sql::new("UPDATE pv_vendor_device SET ");
        up.push_bind(
            "device_id = ?, station_id = ?, update_time = ? WHERE id = ?",
            [
                Value::Int(device_id),
                Value::Int(station.0),
                Value::Int(now),
                Value::Int(row_id),
            ],
        );
        up.execute(&mut *tx).await?;
    }
    let mut up = Sql::new("UPDATE pv_vendor_plant SET ");
    if mapped == Some(station.0) {
        up.push_bind("update_time = ?", [Value::Int(now)]);
    } else {
        // A new mapping: history is filled from the platform's documented depth.
        let from = now - account.platform.limits().backfill_depth.as_millis() as i64;
        up.push_bind(
            "station_id = ?, backfilled_until = ?, backfill_from = ?, update_time = ?",
            [
                Value::Int(station.0),
                Value::Int(from),
                Value::Int(from),
                Value::Int(now),
            ],
        );
    }
    up.push_bind(
        " WHERE account_id = ? AND plant_id = ?",
        [Value::Int(account.id), Value::from(plant_id)],
    );
    up.execute(&mut *tx).await?;
    let mut poll = Sql::new("INSERT INTO pv_vendor_poll (account_id, tenant_id, state, update_time) VALUES ");
    poll.push_bind(
        "(?,?,'idle',?) ON CONFLICT (account_id) DO NOTHING",
        [
            Value::Int(account.id),
            Value::from(account.tenant_id.as_str()),
            Value::Int(now),
        ],
    );
    poll.execute(&mut *tx).await?;
    tx.commit().await?;
    state.vendor.wake.notify_one();
    Ok(())
}

enum Target {
    /// The device row this vendor device was linked to before (moved to the station).
    Move(i64),
    /// A live device of the station with the vendor's serial (e.g. registered by hand).
    Link(i64),
    Create,
}

async fn live_row(state: &VendorCtx, table: &str, tenant: &str, id: i64) -> Result<bool, ApiError> {
    let mut sql = Sql::new(&format!("SELECT COUNT(*) FROM {table} WHERE is_deleted = 0"));
    sql.push_bind(
        " AND tenant_id = ? AND id = ?",
        [Value::from(tenant), Value::Int(id)],
    );
    Ok(sql.scalar::<i64, _>(state.db.pool()).await? > 0)
}

async fn in_station(
    state: &VendorCtx,
    table: &str,
    tenant: &str,
    station: i64,
    sn: &str,
) -> Result<Option<i64>, ApiError> {
    let mut sql = Sql::new(&format!("SELECT id FROM {table} WHERE is_deleted = 0"));
    sql.push_bind(
        " AND tenant_id = ? AND station_id = ? AND sn = ?",
        [Value::from(tenant), Value::Int(station), Value::from(sn)],
    );
    sql.scalar_optional::<i64, _>(state.db.pool()).await
}

#[allow(clippy::too_many_arguments)] // one row's columns
fn insert_device(
    table: &str,
    id: i64,
    account: &Account,
    station: i64,
    user: Id,
    name: &str,
    serial: &str,
    rated_w: Option<f64>,
    now: i64,
) -> Sql {
    let common = [
        Value::Int(id),
        Value::from(account.tenant_id.as_str()),
        Value::Int(station),
        Value::from(truncate(name, 100)),
        Value::from(serial),
        Value::Int(user.0),
        Value::Int(now),
    ];
    let mut sql = Sql::new(&format!("INSERT INTO {table} "));
    match table {
        "pv_inverter" => {
            sql.push_bind(
                "(id, tenant_id, station_id, name, sn, create_user, create_time, manufacturer, rated_power, \
                 strings_count, remark) VALUES (?,?,?,?,?,?,?,?,?,1,?)",
                common.into_iter().chain([
                    Value::from(account.platform_code.as_str()),
                    // The registry keeps kW.
                    opt_float(rated_w.map(|w| w / 1000.0)),
                    Value::from(truncate(
                        &format!("厂商云 / vendor cloud: {}", account.label()),
                        500,
                    )),
                ]),
            );
        }
        "pv_meter" => {
            sql.push_bind(
                "(id, tenant_id, station_id, name, sn, create_user, create_time, meter_role, remark) \
                 VALUES (?,?,?,?,?,?,?,?,?)",
                common.into_iter().chain([
                    Value::from("1"),
                    Value::from(truncate(
                        &format!("厂商云 / vendor cloud: {}", account.label()),
                        500,
                    )),
                ]),
            );
        }
        _ => {
            sql.push_bind(
                "(id, tenant_id, station_id, name, sn, create_user, create_time, remark) VALUES (?,?,?,?,?,?,?,?)",
                common.into_iter().chain([Value::from(truncate(
                    &format!("厂商云 / vendor cloud: {}", account.label()),
                    500,
                ))]),
            );
        }
    }
    sql
}

/// A mapped plant as the poller works on it.
pub struct MappedPlant {
    pub plant_id: String,
    pub station_id: i64,
    pub backfilled_until: i64,
    /// The plant's devices linked to device rows, as the vendor knows them...
    pub vendor: Vec<VendorDevice>,
    /// ...and, in the same order, as we do: (device row id, realtime kind).
    pub ours: Vec<(i64, &'static str)>,
}

impl MappedPlant {
    /// Our (device id, kind) of a vendor device id.
    pub fn ours_of(&self, vendor_device: &str) -> Option<(i64, &'static str)> {
        self.vendor
            .iter()
            .position(|d| d.device_id == vendor_device)
            .map(|i| self.ours[i])
    }
}

/// The account's plants mapped to live stations, with their linked devices.
pub async fn mapped(state: &VendorCtx, account: &Account) -> Result<Vec<MappedPlant>, ApiError> {
    let mut sql = Sql::new(
        "SELECT p.plant_id, p.station_id, p.backfilled_until FROM pv_vendor_plant p \
         JOIN pv_station s ON s.id = p.station_id AND s.is_deleted = 0 WHERE ",
    );
    sql.push_bind(
        "p.account_id = ? AND s.tenant_id = ? ORDER BY p.plant_id",
        [Value::Int(account.id), Value::from(account.tenant_id.as_str())],
    );
    let mut out = Vec::new();
    for r in sql.rows(state.db.pool()).await? {
        let plant_id: String = r.try_get("plant_id")?;
        let station_id: i64 = r.try_get("station_id")?;
        let (mut vendor, mut ours) = (Vec::new(), Vec::new());
        let mut ds = Sql::new(
            "SELECT vendor_device_id, serial, kind, name, model, firmware, rated_power_w, device_id \
             FROM pv_vendor_device WHERE ",
        );
        ds.push_bind(
            "account_id = ? AND plant_id = ? AND station_id = ? AND device_id IS NOT NULL ORDER BY vendor_device_id",
            [Value::Int(account.id), Value::from(plant_id.as_str()), Value::Int(station_id)],
        );
        for d in ds.rows(state.db.pool()).await? {
            let kind: String = d.try_get("kind")?;
            let Some((_, realtime_kind)) = table_of(&kind) else {
                continue;
            };
            let vendor_kind = match kind.as_str() {
                "meter" => DeviceKind::Meter,
                "weather" => DeviceKind::Weather,
                _ => DeviceKind::Inverter,
            };
            vendor.push(VendorDevice {
                device_id: d.try_get("vendor_device_id")?,
                plant_id: plant_id.clone(),
                serial: d.try_get("serial")?,
                kind: vendor_kind,
                name: d.try_get::<Option<String>, _>("name")?.unwrap_or_default(),
                model: d.try_get("model")?,
                firmware: d.try_get("firmware")?,
                rated_power_w: d.try_get("rated_power_w")?,
            });
            ours.push((d.try_get::<i64, _>("device_id")?, realtime_kind));
        }
        out.push(MappedPlant {
            plant_id,
            station_id,
            backfilled_until: r.try_get::<Option<i64>, _>("backfilled_until")?.unwrap_or(0),
            vendor,
            ours,
        });
    }
    Ok(out)
}

/// Moves a plant's cursor (only forward).
pub async fn advance(state: &VendorCtx, account_id: i64, plant_id: &str, until: i64) -> Result<(), ApiError> {
    let mut up = Sql::new("UPDATE pv_vendor_plant SET ");
    up.push_bind(
        "backfilled_until = ? WHERE account_id = ? AND plant_id = ? AND (backfilled_until IS NULL OR backfilled_until < ?)",
        [Value::Int(until), Value::Int(account_id), Value::from(plant_id), Value::Int(until)],
    );
    up.execute(state.db.pool()).await?;
    Ok(())
}

/// Records each device's newest stored sample.
pub async fn samples_stored(
    state: &VendorCtx,
    account_id: i64,
    newest: &[(String, i64)],
) -> Result<(), ApiError> {
    for (vendor_device, ts) in newest {
        let mut up = Sql::new("UPDATE pv_vendor_device SET ");
        up.push_bind(
            "last_sample_ts = ? WHERE account_id = ? AND vendor_device_id = ? AND (last_sample_ts IS NULL OR last_sample_ts < ?)",
            [Value::Int(*ts), Value::Int(account_id), Value::from(vendor_device.as_str()), Value::Int(*ts)],
        );
        up.execute(state.db.pool()).await?;
    }
    Ok(())
}

/// A signed-in session with a vendor cloud.
pub type Session = Box<dyn VendorApi>;
