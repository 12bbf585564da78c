//! Flexible brackets (`/api/flex`): a station's tracker controller, keyed by station (at most
//! one per station), with its controller device (register map of kind tracker, Modbus unit id,
//! SN unique in the tenant like every device's) and its sensors (name, kind, unit id or point).
//!
//! The controller is a device registry ([`FLEX`]) and shares the device rules (station in the
//! caller's scope, SN unique, one per station); sensors are saved as a set with the bracket.

use std::collections::HashSet;

use axum::extract::State;
use pv_shared::regmap::DeviceKind;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value as Json};
use sqlx::Row;
use sqlx::any::AnyRow;
use utoipa::openapi::path::HttpMethod;
use utoipa::openapi::schema::{ArrayBuilder, Schema};
use utoipa::openapi::{OpenApi, RefOr};
use utoipa::{IntoParams, ToSchema};

use super::device::row::DeviceRow;
use super::device::{self, DeviceDef, NO_STATION, no_check};
use super::fields::{self, Col, Parsed, Ty};
use crate::auth::Caller;
use crate::auth::scope::Scoped;
use crate::auth::scope::{self, StationScope};
use crate::kernel::Core;
use crate::kernel::entity::schema;
use crate::kernel::extract::{Json as JsonBody, Query};
use crate::kernel::lang::Text;
use crate::kernel::sql::{Sql, UniqueAs, Value};
use crate::kernel::{ApiError, ApiResult, Data, Envelope, Id, time};
use crate::station::context::StationCtx;

pub static COLS: &[Col] = &[
    Col::new("stationId", "station_id", Ty::Id, "电站", "station").required(),
    Col::new("name", "name", Ty::Text(100), "支架名称", "bracket name").required(),
    Col::new("sn", "sn", Ty::Text(64), "控制器SN", "controller SN").required(),
    Col::new("gatewayId", "gateway_id", Ty::Text(64), "网关ID", "gateway id"),
    Col::new(
        "mapModel",
        "map_model",
        Ty::MapModel(DeviceKind::Tracker),
        "点表模型",
        "register map",
    )
    .required(),
    Col::new(
        "unitId",
        "unit_id",
        Ty::Int { min: 1, max: 247 },
        "Modbus从站地址",
        "Modbus unit id",
    )
    .required(),
    Col::new(
        "modbusAddress",
        "modbus_address",
        Ty::Text(255),
        "通讯地址",
        "Modbus address",
    ),
    Col::new("remark", "remark", Ty::Text(500), "备注", "remark"),
];

/// Declared fields of a sensor.
pub static SENSOR_COLS: &[Col] = &[
    Col::new("name", "name", Ty::Text(50), "传感器名称", "sensor name").required(),
    Col::new("kind", "sensor_kind", Ty::Text(20), "传感器类型", "sensor kind").required(),
    Col::new(
        "unitId",
        "unit_id",
        Ty::Int { min: 1, max: 247 },
        "传感器从站地址",
        "sensor unit id",
    ),
    Col::new("point", "point", Ty::Text(64), "测点", "point"),
];

/// Sensor kinds a bracket knows.
pub const SENSOR_KINDS: &[&str] = &["angle", "wind", "motor", "irradiance", "temperature", "other"];
pub const MAX_SENSORS: usize = 32;

const ONE_PER_STATION: Text = Text::new(
    "该电站已配置柔性支架",
    "This station already has a flexible bracket",
);
const NO_FLEX: Text = Text::new("该电站未配置柔性支架", "This station has no flexible bracket");

pub static FLEX: DeviceDef = DeviceDef {
    table: "pv_flex",
    menu: "flex",
    cols: COLS,
    has_sn: true,
    one_per_station: Some(ONE_PER_STATION),
    duplicate: None,
    check: no_check,
    order: "create_time DESC, id DESC",
};

#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
pub struct StationQuery {
    pub station_id: Id,
}

/// A bracket: its declared fields (`null` when unset), `stationName`, the audit times and, in
/// the list, its sensor count or, in the edit data, its sensors; in their wire order.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Bracket {
    pub create_time: String,
    pub gateway_id: Option<String>,
    pub id: Id,
    pub map_model: Option<String>,
    pub modbus_address: Option<String>,
    pub name: Option<String>,
    pub remark: Option<String>,
    /// Only in the list.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sensor_count: Option<usize>,
    /// Only in the edit data.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sensors: Option<Vec<Sensor>>,
    pub sn: Option<String>,
    pub station_id: Option<Id>,
    pub station_name: Option<String>,
    pub unit_id: Option<i64>,
    pub update_time: Option<String>,
}

impl Bracket {
    fn from_row(r: &AnyRow) -> Result<Bracket, ApiError> {
        let r = DeviceRow(r);
        Ok(Bracket {
            create_time: r.create_time()?,
            gateway_id: r.text("gateway_id")?,
            id: r.id()?,
            map_model: r.text("map_model")?,
            modbus_address: r.text("modbus_address")?,
            name: r.text("name")?,
            remark: r.text("remark")?,
            sensor_count: None,
            sensors: None,
            sn: r.text("sn")?,
            station_id: r.id_of("station_id")?,
            station_name: r.station_name()?,
            unit_id: r.int("unit_id")?,
            update_time: r.update_time()?,
        })
    }
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Sensor {
    pub id: Id,
    pub name: String,
    pub kind: String,
    pub unit_id: Option<i64>,
    pub point: Option<String>,
}

/// A parsed sensor ready to store.
struct NewSensor {
    name: String,
    kind: String,
    unit_id: Option<i64>,
    point: Option<String>,
}

/// Checks the body's `sensors` (each with the declared fields; names unique; at most 32).
async fn parse_sensors(state: &StationCtx, raw: Option<&Json>) -> Result<Vec<NewSensor>, ApiError> {
    let items = match raw {
        None | Some(Json::Null) => return Ok(vec![]),
        Some(Json::Array(a)) => a,
        Some(_) => {
            return Err(ApiError::bad_request(
                "传感器列表格式不正确",
                "sensors must be a list",
            ));
        }
    };
    if items.len() > MAX_SENSORS {
        return Err(ApiError::bad_request(
            format!("传感器最多{MAX_SENSORS}个"),
            format!("A bracket can have at most {MAX_SENSORS} sensors"),
        ));
    }
    let mut out = Vec::new();
    let mut names = HashSet::new();
    for (i, item) in items.iter().enumerate() {
        let n = i + 1;
        let Json::Object(body) = item else {
            return Err(ApiError::bad_request(
                format!("第{n}个传感器格式不正确"),
                format!("Sensor {n} must be an object"),
            ));
        };
        let parsed = fields::parse(state, SENSOR_COLS, body)
            .await
            .map_err(|e| match e {
                ApiError::BadRequest(t) => ApiError::bad_request(
                    format!("第{n}个传感器：{}", t.get(crate::kernel::lang::Lang::Zh)),
                    format!("Sensor {n}: {}", t.get(crate::kernel::lang::Lang::En)),
                ),
                e => e,
            })?;
        let text = |name: &str| match fields::value_of(&parsed, name) {
            Some(Value::Text(s)) => Some(s.clone()),
            _ => None,
        };
        let name = text("name").unwrap_or_default();
        let kind = text("kind").unwrap_or_default();
        if !SENSOR_KINDS.contains(&kind.as_str()) {
            return Err(ApiError::bad_request(
                format!("第{n}个传感器：传感器类型无效：{kind}"),
                format!("Sensor {n}: unknown kind {kind} ({})", SENSOR_KINDS.join(", ")),
            ));
        }
        let unit_id = match fields::value_of(&parsed, "unitId") {
            Some(Value::Int(u)) => Some(*u),
            _ => None,
        };
        let point = text("point");
        if unit_id.is_none() && point.is_none() {
            return Err(ApiError::bad_request(
                format!("第{n}个传感器：请填写从站地址或测点"),
                format!("Sensor {n}: give its unit id or its point"),
            ));
        }
        if !names.insert(name.clone()) {
            return Err(ApiError::bad_request(
                format!("传感器名称重复：{name}"),
                format!("Two sensors are named {name}"),
            ));
        }
        out.push(NewSensor {
            name,
            kind,
            unit_id,
            point,
        });
    }
    Ok(out)
}

async fn replace_sensors(
    state: &Core,
    tx: &mut sqlx::Transaction<'static, sqlx::Any>,
    flex: Id,
    sensors: &[NewSensor],
) -> Result<(), ApiError> {
    let mut del = Sql::default();
    del.push_bind(
        "DELETE FROM pv_flex_sensor WHERE flex_id = ?",
        [Value::Int(flex.0)],
    );
    del.execute(&mut **tx).await?;
    for (i, s) in sensors.iter().enumerate() {
        let mut ins = Sql::default();
        ins.push_bind(
            "INSERT INTO pv_flex_sensor (id, flex_id, name, sensor_kind, unit_id, point, sort) \
             VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                Value::Int(state.ids.next().0),
                Value::Int(flex.0),
                Value::Text(s.name.clone()),
                Value::Text(s.kind.clone()),
                s.unit_id.map(Value::Int).unwrap_or(Value::Null),
                s.point.clone().map(Value::Text).unwrap_or(Value::NullText),
                Value::Int(i as i64),
            ],
        );
        ins.execute(&mut **tx).await?;
    }
    Ok(())
}

/// The live bracket of a station the caller may see: (station visible, bracket id).
async fn bracket_of(state: &Core, scope: &StationScope, station: Id) -> Result<Option<Id>, ApiError> {
    if !scope::visible_station(state, scope, station).await? {
        return Err(ApiError::not_found());
    }
    let mut sql = Sql::new("SELECT f.id FROM pv_flex f WHERE ");
    sql.append(&scope.rows("f", "station_id"));
    sql.push_bind(" AND f.station_id = ?", [Value::Int(station.0)]);
    Ok(sql.scalar_optional::<i64, _>(state.db.pool()).await?.map(Id))
}

async fn sensors_of(state: &Core, flex: Id) -> Result<Vec<Sensor>, ApiError> {
    let mut sql = Sql::default();
    sql.push_bind(
        "SELECT id, name, sensor_kind, unit_id, point FROM pv_flex_sensor WHERE flex_id = ? ORDER BY sort, id",
        [Value::Int(flex.0)],
    );
    sql.rows(state.db.pool())
        .await?
        .iter()
        .map(|r| {
            Ok(Sensor {
                id: Id(r.try_get::<i64, _>("id")?),
                name: r.try_get("name")?,
                kind: r.try_get("sensor_kind")?,
                unit_id: r.try_get("unit_id")?,
                point: r.try_get("point")?,
            })
        })
        .collect()
}

/// The brackets of the stations the caller may see, each with its sensor count.
#[utoipa::path(get, path = "/api/flex/list", tag = "flex", params(device::StationParam),
    responses((status = 200, body = Envelope<Vec<Bracket>>), (status = 401)))]
pub async fn list(
    State(state): State<StationCtx>,
    caller: Caller,
    Query(p): Query<device::StationParam>,
) -> ApiResult<Data<Vec<Bracket>>> {
    let mut rows = device::list_as(&FLEX, &state, &caller, p.station_id, Bracket::from_row).await?;
    for row in &mut rows {
        row.sensor_count = Some(sensors_of(&state, row.id).await?.len());
    }
    Ok(Data(rows))
}

/// The bracket of a station with its sensors, for the edit form (`null` when it has none).
#[utoipa::path(get, path = "/api/flex/getEditData", tag = "flex", params(StationQuery),
    responses((status = 200, description = "The bracket with `sensors`, or data null when the station has none",
        body = Envelope<Option<Bracket>>), (status = 404)))]
pub async fn get_edit_data(
    State(state): State<StationCtx>,
    Scoped { stations: scope, .. }: Scoped,
    Query(q): Query<StationQuery>,
) -> ApiResult<Data<Option<Bracket>>> {
    let Some(id) = bracket_of(&state, &scope, q.station_id).await? else {
        return Ok(Data(None));
    };
    let Some(mut bracket) = device::find_as(&FLEX, &state, &scope, id, Bracket::from_row).await? else {
        return Ok(Data(None));
    };
    bracket.sensors = Some(sensors_of(&state, id).await?);
    Ok(Data(Some(bracket)))
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StationName {
    pub id: Id,
    pub name: String,
    /// Whether the station already has a bracket.
    pub has_flex: bool,
}

/// The stations the caller may see, by name, marking those that have a bracket.
#[utoipa::path(get, path = "/api/flex/listStationName", tag = "flex",
    responses((status = 200, body = Envelope<Vec<StationName>>), (status = 401)))]
pub async fn list_station_name(
    State(state): State<StationCtx>,
    Scoped { stations: scope, .. }: Scoped,
) -> ApiResult<Data<Vec<StationName>>> {
    let mut sql = Sql::new(
        "SELECT s.id, s.name, (SELECT COUNT(*) FROM pv_flex f WHERE f.station_id = s.id AND f.is_deleted = 0) AS n \
         FROM pv_station s WHERE ",
    );
    sql.append(&scope.stations("s"));
    sql.push(" ORDER BY s.name, s.id");
    let rows = sql.rows(state.db.pool()).await?;
    Ok(Data(
        rows.iter()
            .map(|r| {
                Ok(StationName {
                    id: Id(r.try_get::<i64, _>("id")?),
                    name: r.try_get("name")?,
                    has_flex: r.try_get::<i64, _>("n")? > 0,
                })
            })
            .collect::<Result<_, ApiError>>()?,
    ))
}

/// The sensors of a station's bracket (empty when it has none).
#[utoipa::path(get, path = "/api/flex/sensorList", tag = "flex", params(StationQuery),
    responses((status = 200, body = Envelope<Vec<Sensor>>), (status = 404)))]
pub async fn sensor_list(
    State(state): State<StationCtx>,
    Scoped { stations: scope, .. }: Scoped,
    Query(q): Query<StationQuery>,
) -> ApiResult<Data<Vec<Sensor>>> {
    Ok(Data(match bracket_of(&state, &scope, q.station_id).await? {
        Some(id) => sensors_of(&state, id).await?,
        None => vec![],
    }))
}

fn station_of(body: &Map<String, Json>) -> Option<Id> {
    match body.get("stationId") {
        Some(Json::String(s)) => s.trim().parse().ok(),
        Some(Json::Number(n)) => n.as_i64().map(Id),
        _ => None,
    }
}

/// Adds a station's bracket with its sensors (`sensors`: `[{name, kind, unitId, point}]`,
/// kind one of angle, wind, motor, irradiance, temperature, other).
#[utoipa::path(post, path = "/api/flex", tag = "flex",
    request_body(description = "The bracket's declared fields and `sensors` (schema generated from the declaration)"),
    responses((status = 200, body = Envelope<Id>), (status = 400), (status = 403)))]
pub async fn create(
    State(state): State<StationCtx>,
    Scoped {
        caller,
        stations: scope,
    }: Scoped,
    JsonBody(body): JsonBody<Map<String, Json>>,
) -> ApiResult<Data<Id>> {
    caller.require(&state, "flex_add").await?;
    let parsed: Vec<Parsed> = fields::parse(&state, COLS, &body).await?;
    device::check_record(&FLEX, &state, &scope, &parsed, None).await?;
    let sensors = parse_sensors(&state, body.get("sensors")).await?;
    let id = state.ids.next();
    let mut tx = state.db.begin_write().await?;
    device::insert_sql(&FLEX, id, &caller, &parsed)
        .execute(&mut *tx)
        .await
        .unique_with(|| device::duplicate_message(&FLEX, &parsed))?;
    replace_sensors(&state, &mut tx, id, &sensors).await?;
    tx.commit().await?;
    Ok(Data(id))
}

/// Changes a station's bracket (named by `stationId`); fields left out keep their values and
/// `sensors`, when present, replaces the sensors.
#[utoipa::path(put, path = "/api/flex", tag = "flex",
    request_body(description = "`stationId`, the fields to change and `sensors` (schema generated from the declaration)"),
    responses((status = 200, body = Envelope<bool>), (status = 400), (status = 403), (status = 404)))]
pub async fn update(
    State(state): State<StationCtx>,
    Scoped {
        caller,
        stations: scope,
    }: Scoped,
    JsonBody(body): JsonBody<Map<String, Json>>,
) -> ApiResult<Data<bool>> {
    caller.require(&state, "flex_edit").await?;
    let station = station_of(&body).ok_or(ApiError::BadRequest(NO_STATION))?;
    let id = bracket_of(&state, &scope, station)
        .await?
        .ok_or(ApiError::BadRequest(NO_FLEX))?;
    let Some(Json::Object(mut merged)) = device::find(&FLEX, &state, &scope, id).await? else {
        return Err(ApiError::not_found());
    };
    for (k, v) in &body {
        // A bracket stays on its station.
        if k != "stationId" && k != "id" {
            merged.insert(k.clone(), v.clone());
        }
    }
    let parsed = fields::parse(&state, COLS, &merged).await?;
    device::check_record(&FLEX, &state, &scope, &parsed, Some(id)).await?;
    let sensors = match body.get("sensors") {
        Some(raw) => Some(parse_sensors(&state, Some(raw)).await?),
        None => None,
    };
    let mut sql = Sql::new("UPDATE pv_flex SET ");
    for p in &parsed {
        sql.push_bind(&format!("{} = ?, ", p.col.column), [p.value.clone()]);
    }
    sql.push_bind(
        "update_user = ?, update_time = ? WHERE id = ? AND ",
        [
            Value::Int(caller.user_id.0),
            Value::Int(time::now_ms()),
            Value::Int(id.0),
        ],
    );
    sql.append(&scope.rows("pv_flex", "station_id"));
    let mut tx = state.db.begin_write().await?;
    sql.execute(&mut *tx)
        .await
        .unique_with(|| device::duplicate_message(&FLEX, &parsed))?;
    if let Some(sensors) = sensors {
        replace_sensors(&state, &mut tx, id, &sensors).await?;
    }
    tx.commit().await?;
    Ok(Data(true))
}

/// Removes a station's bracket and its sensors.
#[utoipa::path(delete, path = "/api/flex/delete", tag = "flex", params(StationQuery),
    responses((status = 200, body = Envelope<bool>), (status = 403), (status = 404)))]
pub async fn remove(
    State(state): State<StationCtx>,
    Scoped {
        caller,
        stations: scope,
    }: Scoped,
    Query(q): Query<StationQuery>,
) -> ApiResult<Data<bool>> {
    caller.require(&state, "flex_delete").await?;
    let id = bracket_of(&state, &scope, q.station_id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    let mut tx = state.db.begin_write().await?;
    let mut sql = Sql::default();
    sql.push_bind(
        "UPDATE pv_flex SET is_deleted = 1, update_user = ?, update_time = ? WHERE id = ?",
        [
            Value::Int(caller.user_id.0),
            Value::Int(time::now_ms()),
            Value::Int(id.0),
        ],
    );
    sql.execute(&mut *tx).await?;
    let mut del = Sql::default();
    del.push_bind("DELETE FROM pv_flex_sensor WHERE flex_id = ?", [Value::Int(id.0)]);
    del.execute(&mut *tx).await?;
    tx.commit().await?;
    // The bracket's open alarms can never clear by themselves now.
    crate::alarm::store::clear_removed(
        &state.alarm,
        &caller.tenant_id,
        crate::alarm::store::Removed::Devices(&[id.0]),
        caller.user_id.0,
        time::now_ms(),
    )
    .await?;
    Ok(Data(true))
}

/// A bracket body: its declared fields and the sensors (each with its declared fields).
fn body(fields_required: bool) -> Schema {
    let mut body = schema::body(COLS, false, fields_required);
    if let Schema::Object(o) = &mut body {
        o.properties.insert(
            "sensors".into(),
            RefOr::T(Schema::Array(
                ArrayBuilder::new()
                    .items(RefOr::T(schema::body(SENSOR_COLS, false, true)))
                    .description(Some(format!(
                        "At most {MAX_SENSORS}; kind one of {}",
                        SENSOR_KINDS.join(", ")
                    )))
                    .build(),
            )),
        );
        if !fields_required {
            // An update names its bracket by station.
            o.required.push("stationId".into());
        }
    }
    body
}

/// Fills in the bracket routes' bodies from the declaration (what `fields::parse` accepts).
pub fn document(doc: &mut OpenApi) {
    if let Some(op) = schema::operation(doc, "/api/flex", HttpMethod::Post) {
        schema::request(op, body(true));
    }
    if let Some(op) = schema::operation(doc, "/api/flex", HttpMethod::Put) {
        schema::request(op, body(false));
    }
}
