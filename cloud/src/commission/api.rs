//! The commissioning calls of a station's gateway tab. Each asks the station's running gateway
//! over the downlink and waits for its answer; the caller needs the station-gateway button and,
//! to add a device, the registry's own add button too.

use std::time::Duration;

use axum::extract::State;
use pv_shared::wire::{Action, CommandAck};
use serde::Deserialize;
use serde_json::{Map, Value as Json};
use utoipa::{IntoParams, ToSchema};

use super::answers::{self, AddedDevice, GatewayBuses, ProbeResult, ScanResult};
use crate::auth::scope::Scoped;
use crate::kernel::extract::{Json as Body, Query};
use crate::kernel::lang::Text;
use crate::kernel::{ApiError, ApiResult, Data, Envelope, Id};
use crate::station::context::StationCtx;
use crate::station::device::{self, DeviceDef};
use crate::station::gateway::managed_gateway;
use crate::telemetry::commands::CommandError;
use crate::telemetry::context::TelemetryCtx;

/// How long the gateway gets to answer: long enough for a reload or a probe of a slow serial
/// device, short enough that a gateway that is offline is reported while the installer waits.
const ANSWER: Duration = Duration::from_secs(30);

/// A scan's wait grows with its range: every silent unit id costs the bus a timeout (and a
/// retry), and the scan gives way to the bus's own polls between slices.
fn scan_wait(from: u8, to: u8) -> Duration {
    let units = u64::from(to.saturating_sub(from)) + 1;
    Duration::from_secs(20 + 3 * units).min(Duration::from_secs(15 * 60))
}

const NOT_TRACKERS: Text = Text::new(
    "跟踪支架请在支架管理中添加",
    "Trackers are added with their bracket, not here",
);

#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
pub struct StationParam {
    pub station_id: Id,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ScanRequest {
    #[schema(value_type = String)]
    pub station_id: Id,
    pub bus: String,
    /// First unit id, 1-247.
    pub from: u8,
    /// Last unit id, from-247.
    pub to: u8,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProbeRequest {
    #[schema(value_type = String)]
    pub station_id: Id,
    pub bus: String,
    pub unit: u8,
    /// A map id from the gateway's list.
    pub map: String,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AddRequest {
    #[schema(value_type = String)]
    pub station_id: Id,
    pub bus: String,
    pub unit: u8,
    pub map: String,
    pub name: String,
    /// The device's SN: unique in the tenant, and its id in the gateway's configuration.
    pub sn: String,
    /// Poll interval; the gateway's default (5 s) when absent.
    #[serde(default)]
    pub interval_ms: Option<u64>,
    /// The registry's other fields for this kind of device, as its own create takes them (a
    /// meter's `meterRole`, `ctRatio`, `ptRatio`; an inverter's `stringsCount`, 1 when absent).
    #[serde(default)]
    #[schema(value_type = Object)]
    pub fields: Map<String, Json>,
}

const NO_BROKER: Text = Text::new(
    "平台未启用网关连接（MQTT），无法向网关发送命令",
    "The hub has no gateway connection (MQTT): commands cannot be sent",
);
const UNIT_RANGE: Text = Text::new("从站地址必须在1-247之间", "Unit ids are 1-247");
const SCAN_RANGE: Text = Text::new(
    "扫描范围必须满足 1 ≤ 起始 ≤ 结束 ≤ 247",
    "The scan range must be 1 ≤ from ≤ to ≤ 247",
);

/// Sends `action` and turns a refusal or silence into a message for the installer.
async fn ask(
    t: &TelemetryCtx,
    gateway: &str,
    action: Action,
    wait: Duration,
) -> Result<CommandAck, ApiError> {
    let answer = t.commands.ask(gateway, action, wait).await.map_err(|e| match e {
        CommandError::Timeout(d) => ApiError::bad_request(
            format!("网关 {gateway} 在 {} 秒内没有应答（是否在线？）", d.as_secs()),
            format!(
                "Gateway {gateway} did not answer within {} s (is it online?)",
                d.as_secs()
            ),
        ),
        CommandError::NoBroker => ApiError::BadRequest(NO_BROKER),
        other => ApiError::Internal(other.to_string()),
    })?;
    if !answer.ok {
        return Err(ApiError::bad_request(
            format!("网关拒绝：{}", answer.message),
            format!("The gateway refused: {}", answer.message),
        ));
    }
    Ok(answer)
}

fn missing_report(what: &str) -> ApiError {
    ApiError::Internal(format!("the gateway's answer carries no {what}"))
}

/// The station gateway's buses (with the devices each polls) and the register maps it has.
#[utoipa::path(get, path = "/api/station/gateway/commission/buses", tag = "station", params(StationParam),
    responses((status = 200, body = Envelope<GatewayBuses>), (status = 400), (status = 403), (status = 404)))]
pub async fn buses(
    State(t): State<TelemetryCtx>,
    State(s): State<StationCtx>,
    who: Scoped,
    Query(q): Query<StationParam>,
) -> ApiResult<Data<GatewayBuses>> {
    let gateway = managed_gateway(&s, &who, q.station_id).await?;
    let a = ask(&t, &gateway, Action::Inventory, ANSWER).await?;
    let inventory = a.inventory.ok_or_else(|| missing_report("inventory"))?;
    Ok(Data(answers::buses(gateway, *inventory, &s.services.maps)))
}

/// Scans unit ids `from..=to` of one bus of the station's gateway; its devices and the other
/// buses keep polling meanwhile.
#[utoipa::path(post, path = "/api/station/gateway/commission/scan", tag = "station", request_body = ScanRequest,
    responses((status = 200, body = Envelope<ScanResult>), (status = 400), (status = 403), (status = 404)))]
pub async fn scan(
    State(t): State<TelemetryCtx>,
    State(s): State<StationCtx>,
    who: Scoped,
    Body(r): Body<ScanRequest>,
) -> ApiResult<Data<ScanResult>> {
    if !(1..=247).contains(&r.from) || !(r.from..=247).contains(&r.to) {
        return Err(ApiError::BadRequest(SCAN_RANGE));
    }
    let gateway = managed_gateway(&s, &who, r.station_id).await?;
    let action = Action::ScanBus {
        bus: r.bus.clone(),
        from: r.from,
        to: r.to,
    };
    let a = ask(&t, &gateway, action, scan_wait(r.from, r.to)).await?;
    let report = a.scan.ok_or_else(|| missing_report("scan report"))?;
    Ok(Data(answers::scan(*report, &r.bus)))
}

/// Reads one unit of a bus once with a chosen map and answers the decoded values.
#[utoipa::path(post, path = "/api/station/gateway/commission/probe", tag = "station", request_body = ProbeRequest,
    responses((status = 200, body = Envelope<ProbeResult>), (status = 400), (status = 403), (status = 404)))]
pub async fn probe(
    State(t): State<TelemetryCtx>,
    State(s): State<StationCtx>,
    who: Scoped,
    Body(r): Body<ProbeRequest>,
) -> ApiResult<Data<ProbeResult>> {
    if !(1..=247).contains(&r.unit) {
        return Err(ApiError::BadRequest(UNIT_RANGE));
    }
    let gateway = managed_gateway(&s, &who, r.station_id).await?;
    let action = Action::ProbeUnit {
        bus: r.bus,
        unit: r.unit,
        map: r.map,
    };
    let a = ask(&t, &gateway, action, ANSWER).await?;
    let report = a.probe.ok_or_else(|| missing_report("probe report"))?;
    Ok(Data(answers::probe(*report)))
}

/// The registry a map's kind of device goes into.
fn registry_of(s: &StationCtx, map: &str) -> Result<&'static DeviceDef, ApiError> {
    use pv_shared::regmap::DeviceKind;
    let Some(m) = s.services.maps.iter().find(|m| m.id == map) else {
        return Err(ApiError::bad_request(
            format!("平台没有点表模型 {map}"),
            format!("The hub has no register map {map}"),
        ));
    };
    match m.kind {
        DeviceKind::Inverter => Ok(&device::inverter::INVERTER),
        DeviceKind::Meter => Ok(&device::meter::METER),
        DeviceKind::Weather => Ok(&device::weather::WEATHER),
        DeviceKind::Tracker => Err(ApiError::BadRequest(NOT_TRACKERS)),
    }
}

/// Adds a device: registers it in the station (as the registry's own create does, with its
/// checks: SN unique in the tenant, one weather station per station...) with the gateway, bus
/// address, unit and map, then adds it to the gateway's configuration, which the gateway checks,
/// writes and reloads. When the gateway refuses or does not answer, the registration is taken
/// back, so the station never lists a device its gateway does not poll.
#[utoipa::path(post, path = "/api/station/gateway/commission/device", tag = "station", request_body = AddRequest,
    responses((status = 200, body = Envelope<AddedDevice>), (status = 400), (status = 403), (status = 404)))]
pub async fn add_device(
    State(t): State<TelemetryCtx>,
    State(s): State<StationCtx>,
    who: Scoped,
    Body(r): Body<AddRequest>,
) -> ApiResult<Data<AddedDevice>> {
    if !(1..=247).contains(&r.unit) {
        return Err(ApiError::BadRequest(UNIT_RANGE));
    }
    let gateway = managed_gateway(&s, &who, r.station_id).await?;
    let def = registry_of(&s, &r.map)?;
    let inventory = ask(&t, &gateway, Action::Inventory, ANSWER)
        .await?
        .inventory
        .ok_or_else(|| missing_report("inventory"))?;
    let Some(bus) = inventory.buses.iter().find(|b| b.name == r.bus) else {
        return Err(ApiError::bad_request(
            format!("网关没有总线 {}", r.bus),
            format!("The gateway has no bus {}", r.bus),
        ));
    };
    let mut body = r.fields.clone();
    body.insert("stationId".into(), Json::String(r.station_id.0.to_string()));
    body.insert("name".into(), Json::String(r.name.clone()));
    body.insert("sn".into(), Json::String(r.sn.trim().to_owned()));
    body.insert("mapModel".into(), Json::String(r.map.clone()));
    body.insert("unitId".into(), Json::from(r.unit));
    body.insert("modbusAddress".into(), Json::String(bus.address.clone()));
    body.insert("gatewayId".into(), Json::String(gateway.clone()));
    if def.table == device::inverter::INVERTER.table && !body.contains_key("stringsCount") {
        body.insert("stringsCount".into(), Json::from(1));
    }
    let id = device::create_in(def, &s, &who, body).await?;
    let action = Action::AddDevice {
        bus: r.bus.clone(),
        id: r.sn.trim().to_owned(),
        unit: r.unit,
        map: r.map.clone(),
        interval_ms: r.interval_ms,
    };
    match ask(&t, &gateway, action, ANSWER).await {
        Ok(a) => Ok(Data(AddedDevice {
            device_id: id,
            kind: def.menu.to_owned(),
            sn: r.sn.trim().to_owned(),
            message: a.message,
        })),
        Err(e) => {
            let scope = who.stations.rows(def.table, "station_id");
            crate::kernel::entity::store::remove(&s.db, &def.entity(), &[id], who.caller.user_id, &scope)
                .await?;
            Err(e)
        }
    }
}
