//! Weather stations (`/api/weather`): at most one per station, held by a check
//! with its message ("a station has at most one weather station") and by a unique index.

use axum::extract::State;
use pv_shared::regmap::DeviceKind;
use serde::Serialize;
use sqlx::any::AnyRow;
use utoipa::ToSchema;

use super::row::DeviceRow;
use super::{DeviceDef, StationParam, device_routes, no_check};
use crate::auth::Caller;
use crate::kernel::extract::Query;
use crate::kernel::lang::Text;
use crate::kernel::{ApiError, ApiResult, Data, Envelope, Id};
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
    "/api/weather/{id}",
    WeatherStation
);

/// The caller's weather stations (optionally of one station).
#[utoipa::path(get, path = "/api/weather/list", tag = "weather", params(StationParam),
    responses((status = 200, body = Envelope<Vec<WeatherStation>>), (status = 401)))]
pub async fn list(
    State(state): State<StationCtx>,
    caller: Caller,
    Query(p): Query<StationParam>,
) -> ApiResult<Data<Vec<WeatherStation>>> {
    Ok(Data(
        super::list_as(&WEATHER, &state, &caller, p.station_id, WeatherStation::from_row).await?,
    ))
}

/// A weather station: its declared fields (`null` when unset), `stationName` and the audit
/// times, in their wire order.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WeatherStation {
    pub create_time: String,
    pub gateway_id: Option<String>,
    pub id: Id,
    pub map_model: Option<String>,
    pub modbus_address: Option<String>,
    pub name: Option<String>,
    pub remark: Option<String>,
    pub sn: Option<String>,
    pub station_id: Option<Id>,
    pub station_name: Option<String>,
    pub unit_id: Option<i64>,
    pub update_time: Option<String>,
}

impl WeatherStation {
    fn from_row(r: &AnyRow) -> Result<WeatherStation, ApiError> {
        let r = DeviceRow(r);
        Ok(WeatherStation {
            create_time: r.create_time()?,
            gateway_id: r.text("gateway_id")?,
            id: r.id()?,
            map_model: r.text("map_model")?,
            modbus_address: r.text("modbus_address")?,
            name: r.text("name")?,
            remark: r.text("remark")?,
            sn: r.text("sn")?,
            station_id: r.id_of("station_id")?,
            station_name: r.station_name()?,
            unit_id: r.int("unit_id")?,
            update_time: r.update_time()?,
        })
    }
}
