//! Accounts on inverter vendors' clouds (`/api/inverterThird`), for stations whose inverters
//! report to the vendor rather than to our gateway. The password has to be replayed to the
//! vendor's API, so it cannot be hashed: it is stored encrypted (see `station::seal`) and never
//! answered.

use axum::extract::State;
use serde_json::Value as Json;

use super::{DeviceDef, StationParam, device_routes, no_check, pick};
use crate::auth::Caller;
use crate::kernel::extract::Query;
use crate::kernel::{ApiResult, Data};
use crate::station::context::StationCtx;
use crate::station::fields::{Col, Ty};

pub static COLS: &[Col] = &[
    Col::new("stationId", "station_id", Ty::Id, "电站", "station"),
    Col::new(
        "platform",
        "platform",
        Ty::Dict("inverter_manufacturer"),
        "平台",
        "platform",
    )
    .required()
    .filter(),
    Col::new("account", "account", Ty::Text(100), "账号", "account")
        .required()
        .filter(),
    Col::new("password", "password_enc", Ty::Secret(200), "密码", "password").required(),
    Col::new("apiUrl", "api_url", Ty::Text(255), "接口地址", "API address"),
    Col::new("remark", "remark", Ty::Text(500), "备注", "remark"),
];

pub static INVERTER_THIRD: DeviceDef = DeviceDef {
    table: "pv_inverter_third",
    menu: "inverterThird",
    cols: COLS,
    has_sn: false,
    one_per_station: None,
    duplicate: None,
    check: no_check,
    order: "create_time DESC, id DESC",
};

device_routes!(
    INVERTER_THIRD,
    "inverterThird",
    "/api/inverterThird/page",
    "/api/inverterThird",
    "/api/inverterThird/{id}"
);

/// The fields of the light list of vendor accounts (never the password).
pub const LIST_KEYS: &[&str] = &["id", "platform", "account", "stationId", "stationName"];

/// The caller's vendor accounts `{id, platform, account, stationId, stationName}` (never the password).
#[utoipa::path(get, path = "/api/inverterThird/listThirdAccount", tag = "inverterThird", params(StationParam),
    responses((status = 200, description = "The accounts' light records (schema generated from the declaration)"),
        (status = 401)))]
pub async fn list_third_account(
    State(state): State<StationCtx>,
    caller: Caller,
    Query(p): Query<StationParam>,
) -> ApiResult<Data<Vec<Json>>> {
    let rows = super::list(&INVERTER_THIRD, &state, &caller, p.station_id).await?;
    Ok(Data(pick(rows, LIST_KEYS)))
}
