//! Energy meters (`/api/meter`): role (grid, generation, consumption), CT and PT ratios (the
//! meter reads secondary values; energy is multiplied by both), register map and bus address.

use pv_shared::regmap::DeviceKind;
use serde::Serialize;
use sqlx::any::AnyRow;
use utoipa::ToSchema;

use super::row::DeviceRow;
use super::{DeviceDef, device_detail, device_routes, no_check};
use crate::kernel::{ApiError, Id};
use crate::station::fields::{Col, Ty};

pub static COLS: &[Col] = &[
    Col::new("stationId", "station_id", Ty::Id, "电站", "station").required(),
    Col::new("name", "name", Ty::Text(100), "电表名称", "meter name")
        .required()
        .filter(),
    Col::new(
        "meterRole",
        "meter_role",
        Ty::Dict("meter_role"),
        "电表用途",
        "meter role",
    )
    .required()
    .filter(),
    Col::new("sn", "sn", Ty::Text(64), "电表SN", "meter SN")
        .required()
        .filter(),
    Col::new(
        "ctRatio",
        "ct_ratio",
        Ty::Float {
            min: 0.0001,
            max: 100_000.0,
            decimals: 4,
        },
        "CT变比",
        "CT ratio",
    )
    .required(),
    Col::new(
        "ptRatio",
        "pt_ratio",
        Ty::Float {
            min: 0.0001,
            max: 100_000.0,
            decimals: 4,
        },
        "PT变比",
        "PT ratio",
    )
    .required(),
    Col::new("gatewayId", "gateway_id", Ty::Text(64), "网关ID", "gateway id").filter(),
    Col::new(
        "mapModel",
        "map_model",
        Ty::MapModel(DeviceKind::Meter),
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

pub static METER: DeviceDef = DeviceDef {
    table: "pv_meter",
    menu: "meter",
    cols: COLS,
    has_sn: true,
    one_per_station: None,
    duplicate: None,
    check: no_check,
    order: "create_time DESC, id DESC",
};

device_routes!(
    METER,
    "meter",
    "/api/meter/page",
    "/api/meter",
    "/api/meter/{id}",
    Meter
);
device_detail!(METER, "meter", "/api/meter/{id}", Meter);

/// A meter: its declared fields (`null` when unset), `stationName` and the audit times,
/// in their wire order.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Meter {
    pub create_time: String,
    pub ct_ratio: Option<f64>,
    pub gateway_id: Option<String>,
    pub id: Id,
    pub map_model: Option<String>,
    /// Dictionary `meter_role`.
    pub meter_role: Option<String>,
    pub modbus_address: Option<String>,
    pub name: Option<String>,
    pub pt_ratio: Option<f64>,
    pub remark: Option<String>,
    pub sn: Option<String>,
    pub station_id: Option<Id>,
    pub station_name: Option<String>,
    pub unit_id: Option<i64>,
    pub update_time: Option<String>,
}

impl Meter {
    fn from_row(r: &AnyRow) -> Result<Meter, ApiError> {
        let r = DeviceRow(r);
        Ok(Meter {
            create_time: r.create_time()?,
            ct_ratio: r.float("ct_ratio")?,
            gateway_id: r.text("gateway_id")?,
            id: r.id()?,
            map_model: r.text("map_model")?,
            meter_role: r.text("meter_role")?,
            modbus_address: r.text("modbus_address")?,
            name: r.text("name")?,
            pt_ratio: r.float("pt_ratio")?,
            remark: r.text("remark")?,
            sn: r.text("sn")?,
            station_id: r.id_of("station_id")?,
            station_name: r.station_name()?,
            unit_id: r.int("unit_id")?,
            update_time: r.update_time()?,
        })
    }
}
