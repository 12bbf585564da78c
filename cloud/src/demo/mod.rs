//! The demo: with `[demo] enabled = true` (what `scripts/run` sets) every start makes sure the
//! tenant `demo` exists with its administrator and three stations in different provinces
//! (`sites`), each with its devices, prices, gateway credentials and, under
//! `<data_dir>/demo/<gateway id>/`, the files a gateway beside the hub needs: the generated
//! `pv-edge.toml`, the MQTT password (mode 0600) and the `simulator.toml` that
//! `pv-edge simulate --spec` serves the station's devices from.
//!
//! Everything goes through the same domain functions the console calls, acting as the demo
//! tenant's administrator, so the demo obeys every rule a user's station does. It is
//! idempotent: records are found by their gateway id or SN and created only when missing, and a
//! second start with the same ports and clock changes nothing. What an administrator edited
//! stays, except the few fields the simulation depends on (device addresses, the clock remark).
//!
//! The simulated sites run on shifted clocks so a newcomer sees daylight production at any hour:
//! unless `demo.clock_offset_h` fixes it, the first start picks for each site the whole number of
//! hours that puts it in mid-morning, later starts keep it while the site is still in daylight
//! (a restart is a plant switched off and on, not a new day), and the station's second remark
//! says so.

pub mod clock;
pub mod error;
pub mod files;
pub mod om;
pub mod sites;

use std::path::PathBuf;

use serde_json::{Map, Value as Json, json};
use sqlx::Row;

use crate::auth::Caller;
use crate::auth::scope::{Scoped, visible_stations};
use crate::kernel::Core;
use crate::kernel::extract::{Json as JsonBody, Path};
use crate::kernel::sql::{Sql, Value};
use crate::kernel::{Id, time};
use crate::station::context::StationCtx;
use crate::station::device::{self, DeviceDef, IdPath};
use crate::station::{electric_price, flex, price_history};
use clock::{clock_remark, keep_or_choose, offset_of_site_minutes, offset_text, site_offset_minutes};
pub use error::DemoError;
pub use files::gateway_paths;
use sites::{Kind, Site, Tariff};

/// The demo tenant's id (letters and digits, at most 12, as tenant ids are).
pub const TENANT: &str = "demo";
pub const TENANT_NAME: &str = "演示电站";
#[derive(Debug, Clone, PartialEq)]
pub struct DemoStation {
    pub gateway_id: String,
    pub station_id: Id,
    pub name: String,
    /// Hours the simulated site's clock is ahead of the real one.
    pub clock_offset_h: f64,
    /// `<data_dir>/demo/<gateway id>`.
    pub dir: PathBuf,
    /// Loopback ports of the station's simulated buses.
    pub ports: Vec<u16>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Provisioned {
    pub tenant_created: bool,
    pub stations: Vec<DemoStation>,
    /// Records created, updated or files written this run (0 on a start that changed nothing).
    pub changes: usize,
}

/// Provisions the demo when the configuration turns it on (the one call at start).
pub async fn start(state: &StationCtx) -> Result<(), DemoError> {
    if !state.config.demo.enabled {
        return Ok(());
    }
    let done = provision(state, time::now_ms()).await?;
    let clocks: Vec<String> = done
        .stations
        .iter()
        .map(|s| format!("{} real time {}", s.gateway_id, offset_text(s.clock_offset_h)))
        .collect();
    // The password itself stays out of the log: an operator may have configured their own.
    tracing::info!(
        tenant = TENANT,
        account = "admin",
        changes = done.changes,
        "demo ready: sign in to tenant {TENANT} as admin with the initial password \
         (auth.initial_password); simulated site clocks: {}; gateway files in {}",
        clocks.join(", "),
        files::demo_dir(&state.config).display()
    );
    Ok(())
}

/// Makes sure the demo tenant, its stations and the gateway files exist; `now_ms` picks the
/// simulated clocks (unless the configuration fixes them).
pub async fn provision(state: &StationCtx, now_ms: i64) -> Result<Provisioned, DemoError> {
    let sites = sites::sites();
    let buses: usize = sites.iter().map(|s| s.buses.len()).sum();
    let base = state.config.demo.modbus_base_port;
    if base == 0 || usize::from(base) + buses > usize::from(u16::MAX) {
        return Err(DemoError::Invalid(format!(
            "demo.modbus_base_port {base}: the {buses} simulated buses need ports {base}-{}",
            usize::from(base) + buses - 1
        )));
    }
    let mut changes = 0;
    let tenant_created = ensure_tenant(state).await?;
    changes += usize::from(tenant_created);
    let caller = admin_caller(state).await?;
    let who = Scoped {
        stations: visible_stations(state, &caller).await?,
        caller,
    };
    changes += files::write_maps(&state.config)?;
    let mut stations = Vec::new();
    let mut next_port = base;
    for site in &sites {
        let ports: Vec<u16> = (0..site.buses.len() as u16).map(|k| next_port + k).collect();
        next_port += site.buses.len() as u16;
        let offset = match state.config.demo.clock_offset_h {
            Some(h) => h,
            None => keep_or_choose(kept_offset(state, site).await?, site.longitude, now_ms),
        };
        let (station, n) = ensure_station(state, &who, site, offset).await?;
        changes += n;
        changes += ensure_clock(state, station, offset).await?;
        changes += ensure_devices(state, &who, station, site, &ports).await?;
        changes += ensure_prices(state, &who, station, site).await?;
        let (dir, n) = files::write_gateway(state, &who, station, site, &ports, offset).await?;
        changes += n;
        stations.push(DemoStation {
            gateway_id: site.gateway_id.to_owned(),
            station_id: station,
            name: site.name.to_owned(),
            clock_offset_h: offset,
            dir,
            ports,
        });
    }
    changes += om::ensure(state, &who, &stations).await?;
    Ok(Provisioned {
        tenant_created,
        stations,
        changes,
    })
}

/// Creates the tenant (with its root department, default roles and `admin`, as the tenant
/// form does) unless it exists; answers whether it was created.
async fn ensure_tenant(state: &Core) -> Result<bool, DemoError> {
    let mut sql = Sql::default();
    // By the demo tenant: the provisioner acts for it with no signed-in caller.
    sql.push_bind(
        "SELECT id FROM blade_tenant WHERE tenant_id = ? AND is_deleted = 0",
        [Value::from(TENANT)],
    );
    if sql.scalar_optional::<i64, _>(state.db.pool()).await?.is_some() {
        return Ok(false);
    }
    let id = state.ids.next();
    let mut sql = Sql::default();
    sql.push_bind(
        "INSERT INTO blade_tenant (id, tenant_id, tenant_name, linkman, address, create_time) \
         VALUES (?, ?, ?, ?, ?, ?)",
        [
            id.into(),
            TENANT.into(),
            TENANT_NAME.into(),
            "演示".into(),
            "simulated stations (pv-cloud demo)".into(),
            Value::Int(time::now_ms()),
        ],
    );
    sql.execute(state.db.pool()).await?;
    crate::system::tenant_admin::provision(state, id).await?;
    tracing::info!(tenant = TENANT, "demo tenant created");
    Ok(true)
}

/// The demo tenant's administrator, as the domain functions see a signed-in caller.
async fn admin_caller(state: &Core) -> Result<Caller, DemoError> {
    let mut sql = Sql::default();
    // By the demo tenant: the provisioner acts for it with no signed-in caller.
    sql.push_bind(
        "SELECT id FROM blade_role WHERE tenant_id = ? AND role_alias = ? AND is_deleted = 0",
        [Value::from(TENANT), crate::system::seed::ADMIN_ROLE_ALIAS.into()],
    );
    let roles: Vec<Id> = sql
        .scalars::<i64, _>(state.db.pool())
        .await?
        .into_iter()
        .map(Id)
        .collect();
    if roles.is_empty() {
        return Err(DemoError::Invalid(format!(
            "tenant {TENANT} has no administrator role to provision with"
        )));
    }
    let mut sql = Sql::default();
    // By the demo tenant: the provisioner acts for it with no signed-in caller.
    sql.push_bind(
        "SELECT id FROM blade_user WHERE tenant_id = ? AND account = 'admin' AND is_deleted = 0",
        [Value::from(TENANT)],
    );
    let user = sql
        .scalar_optional::<i64, _>(state.db.pool())
        .await?
        .map(Id)
        .unwrap_or(Id(0));
    let mut sql = Sql::default();
    // By the demo tenant: the provisioner acts for it with no signed-in caller.
    sql.push_bind(
        "SELECT id FROM blade_dept WHERE tenant_id = ? AND parent_id = 0 AND is_deleted = 0 ORDER BY sort, id",
        [Value::from(TENANT)],
    );
    let dept = sql.scalar_optional::<i64, _>(state.db.pool()).await?.map(Id);
    Ok(Caller {
        tenant_id: TENANT.into(),
        user_id: user,
        account: "admin".into(),
        role_ids: roles,
        dept_id: dept,
        session_id: Id(0),
        client_id: "demo".into(),
    })
}

fn object(v: Json) -> Map<String, Json> {
    match v {
        Json::Object(m) => m,
        _ => Map::new(),
    }
}

/// The station of `site` (found by its gateway id), created and switched to running when
/// missing; its clock remark kept current. Answers (station, changes).
async fn ensure_station(
    state: &StationCtx,
    who: &Scoped,
    site: &Site,
    offset: f64,
) -> Result<(Id, usize), DemoError> {
    let remark = clock_remark(offset);
    let mut sql = Sql::default();
    // By the demo tenant: the provisioner acts for it with no signed-in caller.
    sql.push_bind(
        "SELECT id, remark2 FROM pv_station WHERE tenant_id = ? AND gateway_id = ? AND is_deleted = 0 \
         ORDER BY create_time, id",
        [Value::from(TENANT), site.gateway_id.into()],
    );
    if let Some(row) = sql.row(state.db.pool()).await? {
        let id = Id(row.try_get::<i64, _>("id")?);
        if row.try_get::<Option<String>, _>("remark2")?.as_deref() == Some(remark.as_str()) {
            return Ok((id, 0));
        }
        let body = object(json!({ "id": id.to_string(), "remark2": remark }));
        crate::station::station_api::update(axum::extract::State(state.clone()), who.clone(), JsonBody(body))
            .await?;
        return Ok((id, 1));
    }
    let (modules, kwp) = site.components();
    let body = object(json!({
        "name": site.name,
        "address": site.address,
        "azimuth": site.azimuth,
        "inclination": site.tilt,
        "componentCount": modules,
        "componentCapacity": kwp,
        "capacity": site.capacity_kw(),
        "gridConnectionTime": site.grid_connection,
        "installer": "演示安装商",
        "gatewayId": site.gateway_id,
        "gatewaySn": site.gateway_sn,
        "remark1": site.description,
        "remark2": remark,
        "remark3": troubles_remark(site),
        "feedInTariff": site.feed_in_tariff,
        "state": "1",
        "stationType": site.station_type,
        "inverterManufacturer": site.inverter_manufacturer,
        "contributionWay": site.contribution_way,
        "connectedType": site.connected_type,
        "latitude": site.latitude,
        "longitude": site.longitude,
        "provinceCode": site.regions[0],
        "cityCode": site.regions[1],
        "districtCode": site.regions[2],
    }));
    let crate::kernel::Data(id) =
        crate::station::station_api::create(axum::extract::State(state.clone()), who.clone(), JsonBody(body))
            .await?;
    // Commissioning → running, as an operator would once the gateway reports.
    crate::station::station_api::switch_station(
        axum::extract::State(state.clone()),
        who.clone(),
        Path(IdPath { id: id.to_string() }),
    )
    .await?;
    tracing::info!(station = %id, gateway = site.gateway_id, "demo station created");
    Ok((id, 1))
}

/// The station's site clock (`utc_offset_minutes`): +08:00 plus the simulated clock's shift,
/// so "10:00 local" at the station is 10:00 of the simulated sun. Answers the changes (0 or 1).
/// The offset the site's station runs on, if the demo made it before (its remark says so).
async fn kept_offset(state: &Core, site: &Site) -> Result<Option<f64>, DemoError> {
    let mut sql = Sql::default();
    sql.push_bind(
        "SELECT utc_offset_minutes, remark2 FROM pv_station WHERE tenant_id = ? AND gateway_id = ? \
         AND is_deleted = 0 ORDER BY create_time, id",
        [Value::from(TENANT), site.gateway_id.into()],
    );
    let Some(row) = sql.row(state.db.pool()).await? else {
        return Ok(None);
    };
    let remark: Option<String> = row.try_get("remark2")?;
    let minutes: Option<i64> = row.try_get("utc_offset_minutes")?;
    Ok(match (remark, minutes) {
        (Some(r), Some(m)) if r.starts_with("时钟偏移") => Some(offset_of_site_minutes(m)),
        _ => None,
    })
}

async fn ensure_clock(state: &Core, station: Id, offset_h: f64) -> Result<usize, DemoError> {
    let minutes = site_offset_minutes(offset_h);
    let mut sql = Sql::new("UPDATE pv_station SET ");
    sql.push_bind(
        "utc_offset_minutes = ? WHERE id = ? AND (utc_offset_minutes IS NULL OR utc_offset_minutes <> ?)",
        [Value::Int(minutes), Value::Int(station.0), Value::Int(minutes)],
    );
    let changed = sql.execute(state.db.pool()).await?;
    Ok(usize::from(changed > 0))
}

/// The third remark: what the simulation makes go wrong at the station, if anything.
fn troubles_remark(site: &Site) -> String {
    let mut out = Vec::new();
    for d in site.buses.iter().flat_map(|b| &b.devices) {
        if let Some((string, share)) = d.weak_string {
            out.push(format!(
                "{}（{}）第{string}路组串偏弱，只有正常电流的{:.0}% / string {string} of {} is weak ({:.0} % of its current)",
                d.name,
                d.sn,
                share * 100.0,
                d.sn,
                share * 100.0
            ));
        }
        for f in &d.faults {
            if let Some(rest) = f.strip_prefix("recurring:")
                && let Some((every, on)) = rest.split_once(':')
            {
                out.push(format!(
                    "{}（{}）每{every}分钟出现{on}分钟故障 / {} faults for {on} min every {every} min",
                    d.name, d.sn, d.sn
                ));
            }
        }
    }
    if out.is_empty() {
        String::new()
    } else {
        format!("模拟故障 / simulated troubles: {}", out.join("；"))
    }
}

/// The registry a device kind lives in.
fn def_of(kind: &Kind) -> &'static DeviceDef {
    match kind {
        Kind::Inverter { .. } => &device::inverter::INVERTER,
        Kind::Meter => &device::meter::METER,
        Kind::Weather => &device::weather::WEATHER,
        Kind::Tracker => &flex::FLEX,
    }
}

/// Registers the site's devices that are missing and points every one at its simulated bus.
async fn ensure_devices(
    state: &StationCtx,
    who: &Scoped,
    station: Id,
    site: &Site,
    ports: &[u16],
) -> Result<usize, DemoError> {
    let caller = &who.caller;
    let mut changes = 0;
    for (bus, port) in site.buses.iter().zip(ports) {
        let address = format!("tcp://127.0.0.1:{port}");
        for d in &bus.devices {
            let def = def_of(&d.kind);
            let mut sql = Sql::new(&format!("SELECT id, modbus_address FROM {} WHERE ", def.table));
            // By the demo tenant: the provisioner acts for it with no signed-in caller.
            sql.push_bind(
                "tenant_id = ? AND sn = ? AND is_deleted = 0",
                [Value::from(TENANT), d.sn.as_str().into()],
            );
            let existing = sql.row(state.db.pool()).await?;
            if let Some(row) = existing {
                let id = Id(row.try_get::<i64, _>("id")?);
                let current: Option<String> = row.try_get("modbus_address")?;
                if current.as_deref() != Some(address.as_str()) {
                    // The simulated bus moved (another free port range this start).
                    let body = object(json!({ "id": id.to_string(), "modbusAddress": address }));
                    device::update(def, state, caller, body).await?;
                    changes += 1;
                }
                continue;
            }
            let mut body = object(json!({
                "stationId": station.to_string(),
                "name": d.name,
                "sn": d.sn,
                "gatewayId": site.gateway_id,
                "mapModel": d.map,
                "unitId": d.unit,
                "modbusAddress": address,
            }));
            match &d.kind {
                Kind::Inverter {
                    manufacturer,
                    rated_kw,
                    strings,
                    modules_per_string,
                } => {
                    body.insert("deviceType".into(), "1".into());
                    body.insert("manufacturer".into(), (*manufacturer).into());
                    body.insert("ratedPower".into(), json!(rated_kw));
                    body.insert("stringsCount".into(), json!(strings));
                    if let Some(m) = modules_per_string {
                        body.insert("modulesPerString".into(), json!(vec![*m; *strings]));
                    }
                    device::create(def, state, caller, body).await?;
                }
                Kind::Meter => {
                    // The simulated meter reports primary values, so no transformer ratios.
                    body.insert("meterRole".into(), "1".into());
                    body.insert("ctRatio".into(), json!(1));
                    body.insert("ptRatio".into(), json!(1));
                    device::create(def, state, caller, body).await?;
                }
                Kind::Weather => {
                    device::create(def, state, caller, body).await?;
                }
                Kind::Tracker => {
                    body.insert(
                        "sensors".into(),
                        json!([
                            { "name": "倾角传感器", "kind": "angle", "unitId": d.unit, "point": "tracker_angle" },
                            { "name": "风速传感器", "kind": "wind", "unitId": d.unit, "point": "wind_speed" },
                            { "name": "电机电流", "kind": "motor", "unitId": d.unit, "point": "motor_current" },
                        ]),
                    );
                    flex::create(axum::extract::State(state.clone()), who.clone(), JsonBody(body)).await?;
                }
            }
            changes += 1;
        }
    }
    Ok(changes)
}

async fn has_live(state: &Core, table: &str, station: Id) -> Result<bool, DemoError> {
    let mut sql = Sql::new(&format!("SELECT id FROM {table} WHERE is_deleted = 0"));
    sql.push_bind(" AND station_id = ?", [Value::Int(station.0)]);
    sql.push(" ORDER BY id");
    Ok(sql.scalar_optional::<i64, _>(state.db.pool()).await?.is_some())
}

/// The settlement price and the electricity tariff, when the station has none.
async fn ensure_prices(
    state: &StationCtx,
    who: &Scoped,
    station: Id,
    site: &Site,
) -> Result<usize, DemoError> {
    let caller = &who.caller;
    let mut changes = 0;
    if !has_live(state, "pv_station_price", station).await? {
        let (day, p) = site.settlement;
        let body = object(json!({
            "stationId": station.to_string(),
            "effectiveDate": day,
            "price": p,
            "remark": "演示电价 / demo price",
        }));
        device::create(&price_history::STATION_PRICE, state, caller, body).await?;
        changes += 1;
    }
    if !has_live(state, "pv_electric_price", station).await? {
        let form = match &site.tariff {
            Tariff::Fixed(p) => electric_price::ElectricPriceForm {
                station_id: station,
                price_type: electric_price::FIXED.into(),
                fixed_price: Some(*p),
                effective_date: None,
                schedules: vec![],
            },
            Tariff::PeakValley(day, segments) => electric_price::ElectricPriceForm {
                station_id: station,
                price_type: electric_price::PEAK_VALLEY.into(),
                fixed_price: None,
                effective_date: None,
                schedules: vec![electric_price::DatedSchedule {
                    effective_date: (*day).into(),
                    segments: segments
                        .iter()
                        .map(|(start, end, kind, price)| electric_price::Segment {
                            start_time: (*start).into(),
                            end_time: (*end).into(),
                            segment_type: (*kind).into(),
                            price: *price,
                        })
                        .collect(),
                }],
            },
        };
        electric_price::save(axum::extract::State(state.clone()), who.clone(), JsonBody(form)).await?;
        changes += 1;
    }
    Ok(changes)
}
