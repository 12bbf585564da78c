//! Energy meters (`/api/meter`): role (grid, generation, consumption), CT and PT ratios (the
//! meter reads secondary values; energy is multiplied by both), register map and bus address.

use pv_shared::regmap::DeviceKind;

use super::{DeviceDef, device_detail, device_routes, no_check};
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

device_routes!(METER, "meter", "/api/meter/page", "/api/meter", "/api/meter/{id}");
device_detail!(METER, "meter", "/api/meter/{id}");
