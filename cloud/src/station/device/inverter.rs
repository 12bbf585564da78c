//! Inverters (`/api/inverter`): identity (SNs, verification code, gateway), rating, strings
//! (count and modules per string, which dispersion analysis normalises by), the register map
//! the gateway decodes it with, and where it sits on the bus.

use pv_shared::regmap::DeviceKind;

use super::{DeviceDef, device_detail, device_routes};
use crate::kernel::ApiError;
use crate::kernel::sql::Value;
use crate::station::fields::{Col, Parsed, Ty, value_of};
use crate::station::listing::dict_route;

pub static COLS: &[Col] = &[
    Col::new("stationId", "station_id", Ty::Id, "电站", "station").required(),
    Col::new("name", "name", Ty::Text(100), "逆变器名称", "inverter name")
        .required()
        .filter(),
    Col::new(
        "deviceType",
        "device_type",
        Ty::Dict("device_type"),
        "设备类型",
        "device type",
    )
    .filter(),
    Col::new(
        "manufacturer",
        "manufacturer",
        Ty::Dict("inverter_manufacturer"),
        "厂家",
        "manufacturer",
    )
    .filter(),
    Col::new("sn", "sn", Ty::Text(64), "逆变器SN", "inverter SN")
        .required()
        .filter(),
    Col::new(
        "collectorSn",
        "collector_sn",
        Ty::Text(64),
        "采集器SN",
        "collector SN",
    )
    .filter(),
    Col::new(
        "verificationCode",
        "verification_code",
        Ty::Text(64),
        "验证码",
        "verification code",
    ),
    Col::new("gatewayId", "gateway_id", Ty::Text(64), "网关ID", "gateway id").filter(),
    Col::new(
        "ratedPower",
        "rated_power",
        Ty::Float {
            min: 0.0,
            max: 100_000.0,
            decimals: 4,
        },
        "额定功率(kW)",
        "rated power (kW)",
    ),
    Col::new(
        "stringsCount",
        "strings_count",
        Ty::Int { min: 1, max: 64 },
        "组串数",
        "strings count",
    )
    .required(),
    Col::new(
        "modulesPerString",
        "modules_per_string",
        Ty::IntList(64),
        "每串组件数",
        "modules per string",
    ),
    Col::new(
        "purchasingCompany",
        "purchasing_company",
        Ty::Text(100),
        "采购单位",
        "purchasing company",
    ),
    Col::new(
        "mapModel",
        "map_model",
        Ty::MapModel(DeviceKind::Inverter),
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

/// Modules per string, when given, name every string once.
fn check(parsed: &[Parsed]) -> Result<(), ApiError> {
    if let (Some(Value::Text(list)), Some(Value::Int(strings))) = (
        value_of(parsed, "modulesPerString"),
        value_of(parsed, "stringsCount"),
    ) {
        let n = list.split(',').filter(|p| !p.is_empty()).count() as i64;
        if n != *strings {
            return Err(ApiError::bad_request(
                format!("每串组件数的个数（{n}）必须等于组串数（{strings}）"),
                format!("Modules per string lists {n} strings but the inverter has {strings}"),
            ));
        }
    }
    Ok(())
}

pub static INVERTER: DeviceDef = DeviceDef {
    table: "pv_inverter",
    menu: "inverter",
    cols: COLS,
    has_sn: true,
    one_per_station: None,
    duplicate: None,
    check,
    order: "create_time DESC, id DESC",
};

device_routes!(
    INVERTER,
    "inverter",
    "/api/inverter/page",
    "/api/inverter",
    "/api/inverter/{id}"
);
device_detail!(INVERTER, "inverter", "/api/inverter/{id}");
dict_route!(
    list_device_type,
    "/api/inverter/listDeviceType",
    "device_type",
    "inverter",
    "Device types (dictionary `device_type`)."
);
dict_route!(
    list_manufacturer,
    "/api/inverter/listManufacturer",
    "inverter_manufacturer",
    "inverter",
    "Inverter manufacturers (dictionary `inverter_manufacturer`)."
);
