//! Inverters (`/api/inverter`): identity (SNs, verification code, gateway), rating, strings
//! (count and modules per string, which dispersion analysis normalises by), the register map
//! the gateway decodes it with, and where it sits on the bus.

use pv_shared::regmap::DeviceKind;
use serde::Serialize;
use sqlx::any::AnyRow;
use utoipa::ToSchema;

use super::row::DeviceRow;
use super::{DeviceDef, device_detail, device_routes};
use crate::kernel::sql::Value;
use crate::kernel::{ApiError, Id};
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
    "/api/inverter/{id}",
    Inverter
);
device_detail!(INVERTER, "inverter", "/api/inverter/{id}", Inverter);
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

/// An inverter: its declared fields (`null` when unset), `stationName` and the audit times,
/// in their wire order.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Inverter {
    pub collector_sn: Option<String>,
    pub create_time: String,
    /// Dictionary `device_type`.
    pub device_type: Option<String>,
    pub gateway_id: Option<String>,
    pub id: Id,
    /// Dictionary `inverter_manufacturer`.
    pub manufacturer: Option<String>,
    pub map_model: Option<String>,
    pub modbus_address: Option<String>,
    pub modules_per_string: Option<Vec<i64>>,
    pub name: Option<String>,
    pub purchasing_company: Option<String>,
    /// kW.
    pub rated_power: Option<f64>,
    pub remark: Option<String>,
    pub sn: Option<String>,
    pub station_id: Option<Id>,
    pub station_name: Option<String>,
    pub strings_count: Option<i64>,
    pub unit_id: Option<i64>,
    pub update_time: Option<String>,
    pub verification_code: Option<String>,
}

impl Inverter {
    fn from_row(r: &AnyRow) -> Result<Inverter, ApiError> {
        let r = DeviceRow(r);
        Ok(Inverter {
            collector_sn: r.text("collector_sn")?,
            create_time: r.create_time()?,
            device_type: r.text("device_type")?,
            gateway_id: r.text("gateway_id")?,
            id: r.id()?,
            manufacturer: r.text("manufacturer")?,
            map_model: r.text("map_model")?,
            modbus_address: r.text("modbus_address")?,
            modules_per_string: r.int_list("modules_per_string")?,
            name: r.text("name")?,
            purchasing_company: r.text("purchasing_company")?,
            rated_power: r.float("rated_power")?,
            remark: r.text("remark")?,
            sn: r.text("sn")?,
            station_id: r.id_of("station_id")?,
            station_name: r.station_name()?,
            strings_count: r.int("strings_count")?,
            unit_id: r.int("unit_id")?,
            update_time: r.update_time()?,
            verification_code: r.text("verification_code")?,
        })
    }
}
