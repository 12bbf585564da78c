//! Weather stations (`/api/weather`): at most one per station, held by a check
//! with its message ("a station has at most one weather station") and by a unique index.

use axum::extract::State;
use pv_shared::regmap::DeviceKind;
use serde_json::Value as Json;

use super::{DeviceDef, StationParam, device_routes, no_check};
use crate::auth::Caller;
use crate::kernel::extract::Query;
use crate::kernel::lang::Text;
use crate::kernel::{ApiResult, Data};
use crate::station::context::StationCtx;
use crate::station::fields::{Col, Ty};

pub static COLS: &[Col] = &[
    Col::new("stationId", "station_id", Ty::Id, "电站", "station").required(),
    Col::new(
        "name",
        "name",
        Ty::Text(100),
        "气象站名称",
        "weather station name",
    )
    .required()
    .filter(),
    Col::new("sn", "sn", Ty::Text(64), "气象站SN", "weather station SN")
        .required()
        .filter(),
    Col::new("gatewayId", "gateway_id", Ty::Text(64), "网关ID", "gateway id").filter(),
    Col::new(
        "mapModel",
        "map_model",
        Ty::MapModel(DeviceKind::Weather),
        "点表模型",
        "register map",
    ),
    Col::new(
        "unitId",
        "unit_id",
        Ty::Int { min: 1, max: 247 },
        "Modbus从站地址",
        "Modbus unit id",
    ),
    Col::new(
        "modbusAddress",
        "modbus_address",
        Ty::Text(255),
        "通讯地址",
        "Modbus address",
    ),
    Col::new("remark", "remark", Ty::Text(500), "备注", "remark"),
];

pub const ONE_PER_STATION: Text = Text::new(
    "每个电站最多只能添加一个气象站",
    "A station can have at most one weather station",
);

pub static WEATHER: DeviceDef = DeviceDef {
    table: "pv_weather",
    menu: "weather",
    cols: COLS,
    has_sn: true,
    one_per_station: Some(ONE_PER_STATION),
    duplicate: None,
    check: no_check,
    order: "create_time DESC, id DESC",
};

device_routes!(
    WEATHER,
    "weather",
    "/api/weather/page",
    "/api/weather",
    "/api/weather/{id}"
);

/// The caller's weather stations (optionally of one station).
#[utoipa::path(get, path = "/api/weather/list", tag = "weather", params(StationParam),
    responses((status = 200, description = "The weather stations' records (schema generated from the declaration)"),
        (status = 401)))]
pub async fn list(
    State(state): State<StationCtx>,
    caller: Caller,
    Query(p): Query<StationParam>,
) -> ApiResult<Data<Vec<Json>>> {
    Ok(Data(super::list(&WEATHER, &state, &caller, p.station_id).await?))
}
