//! What the gateway says of each device's data quality (`/api/deviceQuality/list`), for the
//! device pages and the station's gateway tab: whether its values are withheld (its layout or
//! identity changed and is not confirmed yet), why and since when, how often it changed, the
//! suspect counters per metric from the gateway's status, and the values of its newest sample
//! that arrived marked (shown marked, never as good values).
//!
//! The counters are the agent's since it started; the withheld time is when the hub first saw
//! the device withheld (the status carries the reason only). A gateway that is offline has no
//! word on its devices: they show offline, whatever its last status said.

use axum::extract::State;
use pv_shared::wire::{DeviceStatus, Value as WireValue};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::inverter_real::display_unit;
use super::round;
use crate::auth::scope::{Scoped, StationScope};
use crate::kernel::extract::Query;
use crate::kernel::sql::{Sql, Value};
use crate::kernel::{ApiError, ApiResult, Core, Data, Envelope, Id, time};
use crate::telemetry::context::TelemetryCtx;
use crate::telemetry::realtime::GatewayLive;

/// The device is answering and its values flow.
pub const STATE_ONLINE: &str = "online";
/// The device answers but the gateway holds its values back (see `withheld`).
pub const STATE_WITHHELD: &str = "withheld";
/// No values: the device, or its gateway, is silent.
pub const STATE_OFFLINE: &str = "offline";

#[derive(Debug, Clone, Default, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct QualityQuery {
    /// The station (404 when the caller cannot see it).
    pub station_id: Option<Id>,
    /// One device of that station (any kind); all of them when absent.
    pub device_id: Option<Id>,
}

/// How many values of one metric the gateway marked suspect since it started.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SuspectCount {
    pub name: String,
    pub count: u64,
}

/// How many steps of one kind the hub found in the device's energy counters (`glitch`, `reset`,
/// `rebase`, `rejected`; `docs/reports.md`, "Counters"), over the data it keeps.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CounterStepCount {
    pub kind: String,
    pub count: i64,
}

/// A value of the newest sample that arrived marked suspect, in its display unit.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SuspectValue {
    pub name: String,
    pub unit: String,
    pub value: f64,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DeviceQuality {
    pub id: Id,
    pub name: String,
    pub sn: String,
    /// `inverter`, `meter`, `weather` or `flex`.
    pub kind: String,
    /// `online`, `withheld` (answers, values held back) or `offline`.
    pub state: String,
    /// Whether the gateway's newest status names the device (its id is the SN).
    pub reported: bool,
    /// Why its values are withheld, as the gateway words it; absent while they flow.
    pub withheld: Option<String>,
    /// When the hub first saw it withheld, `yyyy-MM-dd HH:mm:ss`.
    pub withheld_since: Option<String>,
    /// Layout or identity changes the gateway saw since it started.
    pub changes: u64,
    /// The reason of the last such change.
    pub last_change: Option<String>,
    /// Values marked suspect per metric since the gateway started, most first.
    pub suspect: Vec<SuspectCount>,
    /// The newest sample's values that arrived marked, in metric order.
    pub suspect_values: Vec<SuspectValue>,
    /// Steps of its energy counters not counted as read, per kind (listed on 电量修正).
    pub counter_steps: Vec<CounterStepCount>,
    /// Time of the newest sample, `yyyy-MM-dd HH:mm:ss`; absent when it never reported.
    pub update_time: Option<String>,
}

#[derive(Debug, sqlx::FromRow)]
struct Registered {
    id: i64,
    name: String,
    sn: String,
    kind: String,
}

struct Station {
    tenant: String,
    gateway: Option<String>,
}

async fn station(core: &Core, scope: &StationScope, station: Id) -> Result<Station, ApiError> {
    let mut sql = Sql::new("SELECT s.tenant_id, s.gateway_id FROM pv_station s WHERE ");
    sql.append(&scope.stations("s"));
    sql.push_bind(" AND s.id = ?", [Value::Int(station.0)]);
    let row: Option<(String, Option<String>)> = sql.fetch_optional(core.db.pool()).await?;
    let (tenant, gateway) = row.ok_or_else(ApiError::not_found)?;
    Ok(Station {
        tenant,
        gateway: gateway.map(|g| g.trim().to_owned()).filter(|g| !g.is_empty()),
    })
}

async fn registered(core: &Core, tenant: &str, station: Id) -> Result<Vec<Registered>, ApiError> {
    let mut sql = Sql::default();
    let mut first = true;
    for (table, kind) in [
        ("pv_inverter", "inverter"),
        ("pv_meter", "meter"),
        ("pv_weather", "weather"),
        ("pv_flex", "flex"),
    ] {
        if !first {
            sql.push(" UNION ALL ");
        }
        first = false;
        // The station was checked against the caller's scope before.
        sql.push(&format!("SELECT id, name, sn, '{kind}' AS kind FROM {table}"));
        sql.push_bind(
            " WHERE is_deleted = 0 AND tenant_id = ? AND station_id = ?",
            [Value::Text(tenant.to_owned()), Value::Int(station.0)],
        );
    }
    sql.push(" ORDER BY kind, name, id");
    sql.fetch_all(core.db.pool()).await
}

/// The counter steps of the station's devices: device → (kind, count), kinds in name order.
async fn counter_steps(
    core: &Core,
    station: Id,
) -> Result<std::collections::HashMap<i64, Vec<CounterStepCount>>, ApiError> {
    let mut sql = Sql::default();
    sql.push_bind(
        "SELECT device_id, kind, COUNT(*) FROM pv_counter_event WHERE station_id = ? \
         GROUP BY device_id, kind ORDER BY device_id, kind",
        [Value::Int(station.0)],
    );
    let rows: Vec<(i64, String, i64)> = sql.fetch_all(core.db.pool()).await?;
    let mut out: std::collections::HashMap<i64, Vec<CounterStepCount>> = std::collections::HashMap::new();
    for (device, kind, count) in rows {
        out.entry(device)
            .or_default()
            .push(CounterStepCount { kind, count });
    }
    Ok(out)
}

/// The device's line in its gateway's status, when the gateway is online and names it.
fn status_of<'a>(gateway: Option<&'a GatewayLive>, sn: &str) -> Option<&'a DeviceStatus> {
    gateway
        .filter(|g| g.online)
        .and_then(|g| g.status.as_ref())
        .and_then(|s| s.devices.iter().find(|d| d.id.trim() == sn.trim()))
}

/// Each device of the station (or the one asked for) with its quality as the gateway reports it.
#[utoipa::path(get, path = "/api/deviceQuality/list", tag = "realtime",
    params(QualityQuery),
    responses((status = 200, body = Envelope<Vec<DeviceQuality>>), (status = 400), (status = 404)))]
pub async fn list(
    State(state): State<TelemetryCtx>,
    Scoped { stations: scope, .. }: Scoped,
    Query(q): Query<QualityQuery>,
) -> ApiResult<Data<Vec<DeviceQuality>>> {
    let station_id = q
        .station_id
        .ok_or_else(|| ApiError::bad_request("请选择电站", "Please choose a station"))?;
    let st = station(&state, &scope, station_id).await?;
    let mut devices = registered(&state, &st.tenant, station_id).await?;
    if let Some(one) = q.device_id {
        devices.retain(|d| d.id == one.0);
        if devices.is_empty() {
            return Err(ApiError::not_found());
        }
    }
    let gateway = st
        .gateway
        .as_deref()
        .and_then(|g| state.realtime.gateway(g))
        .filter(|g| g.tenant_id == st.tenant && g.station_id == station_id.0);
    let mut steps = counter_steps(&state, station_id).await?;
    let mut out = Vec::with_capacity(devices.len());
    for d in devices {
        let live = state
            .realtime
            .device(d.id)
            .filter(|l| l.tenant_id == st.tenant && l.station_id == station_id.0 && l.kind == d.kind);
        let status = status_of(gateway.as_ref(), &d.sn);
        let withheld = status.and_then(|s| s.withheld.clone());
        let online = status.map_or_else(|| live.as_ref().is_some_and(|l| l.online), |s| s.online);
        let device_state = match (&withheld, online) {
            (Some(_), _) => STATE_WITHHELD,
            (None, true) => STATE_ONLINE,
            (None, false) => STATE_OFFLINE,
        };
        let mut suspect: Vec<SuspectCount> = status
            .map(|s| {
                s.suspect
                    .iter()
                    .map(|(name, count)| SuspectCount {
                        name: name.clone(),
                        count: *count,
                    })
                    .collect()
            })
            .unwrap_or_default();
        suspect.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.name.cmp(&b.name)));
        let suspect_values = live
            .as_ref()
            .map(|l| {
                l.suspect
                    .iter()
                    .filter_map(|(name, v)| match v {
                        WireValue::Number(x) => {
                            let (unit, factor) = display_unit(name).unwrap_or_else(|| (String::new(), 1.0));
                            Some(SuspectValue {
                                name: name.clone(),
                                unit,
                                value: round(x * factor, 4),
                            })
                        }
                        WireValue::Text(_) => None,
                    })
                    .collect()
            })
            .unwrap_or_default();
        let since = withheld
            .as_ref()
            .and(gateway.as_ref())
            .and_then(|g| g.withheld_since.get(d.sn.trim()).copied());
        out.push(DeviceQuality {
            id: Id(d.id),
            name: d.name,
            sn: d.sn,
            kind: d.kind,
            state: device_state.to_owned(),
            reported: status.is_some(),
            withheld,
            withheld_since: since.map(time::format_ms),
            changes: status.map_or(0, |s| s.changes),
            last_change: status.and_then(|s| s.last_change.clone()),
            suspect,
            suspect_values,
            counter_steps: steps.remove(&d.id).unwrap_or_default(),
            update_time: live.as_ref().map(|l| time::format_ms(l.ts)),
        });
    }
    Ok(Data(out))
}
