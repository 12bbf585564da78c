//! The declared fields of a station record: how each travels on the wire, how it is checked
//! (with its message in both languages) and which column holds it. The station calls, the Excel
//! import/export and the demo all read this one table.

use super::fields::{Col, Ty};

pub static COLS: &[Col] = &[
    Col::new("name", "name", Ty::Text(100), "电站名称", "station name")
        .required()
        .filter(),
    Col::new("address", "address", Ty::Text(255), "电站地址", "address").filter(),
    Col::new("contact", "contact", Ty::Text(50), "联系人", "contact"),
    Col::new(
        "contactPhone",
        "contact_phone",
        Ty::Phone,
        "联系电话",
        "contact phone",
    ),
    Col::new(
        "azimuth",
        "azimuth",
        Ty::Float {
            min: -180.0,
            max: 360.0,
            decimals: 2,
        },
        "方位角",
        "azimuth",
    ),
    Col::new(
        "inclination",
        "inclination",
        Ty::Float {
            min: 0.0,
            max: 90.0,
            decimals: 2,
        },
        "倾角",
        "inclination",
    ),
    Col::new(
        "componentCount",
        "component_count",
        Ty::Int {
            min: 0,
            max: 100_000_000,
        },
        "组件数量",
        "component count",
    ),
    Col::new(
        "componentCapacity",
        "component_capacity",
        Ty::Float {
            min: 0.0,
            max: 100_000_000.0,
            decimals: 4,
        },
        "组件总容量(kWp)",
        "total component capacity (kWp)",
    ),
    Col::new(
        "capacity",
        "capacity",
        Ty::Float {
            min: 0.0,
            max: 100_000_000.0,
            decimals: 4,
        },
        "装机容量(kW)",
        "capacity (kW)",
    ),
    Col::new(
        "gridConnectionTime",
        "grid_connection_time",
        Ty::Time,
        "并网时间",
        "grid-connection time",
    ),
    Col::new("installer", "installer", Ty::Text(50), "安装商", "installer"),
    Col::new(
        "installerPhone",
        "installer_phone",
        Ty::Phone,
        "安装商电话",
        "installer phone",
    ),
    Col::new("ownerId", "owner_id", Ty::Id, "业主", "owner"),
    Col::new("ownerName", "owner_name", Ty::Text(50), "业主姓名", "owner name").filter(),
    Col::new("ownerPhone", "owner_phone", Ty::Phone, "业主电话", "owner phone"),
    Col::new("gatewayId", "gateway_id", Ty::Text(64), "网关ID", "gateway id").filter(),
    Col::new("gatewaySn", "gateway_sn", Ty::Text(64), "网关SN", "gateway SN").filter(),
    Col::new("remark1", "remark1", Ty::Text(500), "备注1", "remark 1"),
    Col::new("remark2", "remark2", Ty::Text(500), "备注2", "remark 2"),
    Col::new("remark3", "remark3", Ty::Text(500), "备注3", "remark 3"),
    Col::new(
        "electricityPriceType",
        "electricity_price_type",
        Ty::Dict("electricity_price_type"),
        "电价类型",
        "electricity price type",
    )
    .filter(),
    Col::new(
        "feedInTariff",
        "feed_in_tariff",
        Ty::Float {
            min: 0.0,
            max: 100.0,
            decimals: 4,
        },
        "上网电价",
        "feed-in tariff",
    ),
    Col::new(
        "state",
        "state",
        Ty::Dict("station_state"),
        "电站状态",
        "station state",
    )
    .filter()
    .defaulted(),
    Col::new(
        "stationType",
        "station_type",
        Ty::Dict("station_type"),
        "电站类型",
        "station type",
    )
    .filter(),
    Col::new(
        "inverterManufacturer",
        "inverter_manufacturer",
        Ty::Dict("inverter_manufacturer"),
        "逆变器厂家",
        "inverter manufacturer",
    )
    .filter(),
    Col::new(
        "contributionWay",
        "contribution_way",
        Ty::Dict("contribution_way"),
        "投资方式",
        "investment way",
    )
    .filter(),
    Col::new(
        "connectedType",
        "connected_type",
        Ty::Dict("connected_type"),
        "并网类型",
        "grid-connection type",
    )
    .filter(),
    Col::new(
        "latitude",
        "latitude",
        Ty::Float {
            min: -90.0,
            max: 90.0,
            decimals: 6,
        },
        "纬度",
        "latitude",
    ),
    Col::new(
        "longitude",
        "longitude",
        Ty::Float {
            min: -180.0,
            max: 180.0,
            decimals: 6,
        },
        "经度",
        "longitude",
    ),
    // The site's clock, for windows of the day such as dispersion's 10:00-14:00; empty means
    // the hub's timezone. Whole minutes because some zones are offset by 30 or 45 minutes.
    Col::new(
        "utcOffsetMinutes",
        "utc_offset_minutes",
        Ty::Int { min: -720, max: 840 },
        "时区偏移(分钟)",
        "UTC offset (minutes)",
    ),
    Col::new("provinceCode", "province_code", Ty::Text(12), "省份", "province"),
    Col::new("cityCode", "city_code", Ty::Text(12), "城市", "city"),
    Col::new("districtCode", "district_code", Ty::Text(12), "区县", "district"),
];
