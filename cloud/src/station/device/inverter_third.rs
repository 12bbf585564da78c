//! Accounts on inverter vendors' clouds (`/api/inverterThird`), for stations whose inverters
//! report to the vendor rather than to our gateway. The password has to be replayed to the
//! vendor's API, so it cannot be hashed: it is stored encrypted (see `station::seal`) and never
//! answered.

use axum::extract::State;
use serde::Serialize;
use sqlx::Row;
use sqlx::any::AnyRow;
use utoipa::ToSchema;

use super::row::DeviceRow;
use super::{DeviceDef, StationParam, device_routes, no_check};
use crate::auth::Caller;
use crate::kernel::extract::Query;
use crate::kernel::sql::Sql;
use crate::kernel::{ApiError, ApiResult, Data, Envelope, Id};
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
    // iSolarCloud signs every request with an app key and an access key besides the password.
    Col::new("appKey", "app_key", Ty::Text(100), "AppKey", "app key"),
    Col::new(
        "accessKey",
        "access_key_enc",
        Ty::Secret(200),
        "AccessKey",
        "access key",
    ),
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
    "/api/inverterThird/{id}",
    ThirdAccount,
    after = with_poll_state
);

/// Each account's `pollState` (see `vendor::api`).
async fn with_poll_state(state: &crate::kernel::Core, records: &mut [ThirdAccount]) -> Result<(), ApiError> {
    let ids: Vec<Id> = records.iter().map(|r| r.id).collect();
    let states = poll_states(state, &ids).await?;
    for r in records.iter_mut() {
        r.poll_state = Some(poll_state_of(&states, r.id));
    }
    Ok(())
}

/// The poll state of each listed account as the vendor poller records it (`pv_vendor_poll`).
async fn poll_states(state: &crate::kernel::Core, ids: &[Id]) -> Result<Vec<(Id, String)>, ApiError> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let mut sql = Sql::new("SELECT account_id, state FROM pv_vendor_poll WHERE account_id IN (");
    sql.push_ids(ids);
    sql.push(")");
    let mut out = Vec::new();
    for r in sql.rows(state.db.pool()).await? {
        out.push((Id(r.try_get("account_id")?), r.try_get("state")?));
    }
    Ok(out)
}

fn poll_state_of(states: &[(Id, String)], id: Id) -> String {
    states
        .iter()
        .find(|(i, _)| *i == id)
        .map_or_else(|| "idle".to_owned(), |(_, s)| s.clone())
}

/// A vendor account of the light list, never the password (fields in their wire order).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ThirdAccountItem {
    pub account: Option<String>,
    pub id: Id,
    /// Dictionary `inverter_manufacturer`.
    pub platform: Option<String>,
    pub station_id: Option<Id>,
    pub station_name: Option<String>,
    /// How polling the account goes: `ok`, `auth_failed`, `throttled`, `unreachable`, `idle`.
    pub poll_state: Option<String>,
}

impl ThirdAccountItem {
    fn from_row(r: &AnyRow) -> Result<ThirdAccountItem, ApiError> {
        let r = DeviceRow(r);
        Ok(ThirdAccountItem {
            account: r.text("account")?,
            id: r.id()?,
            platform: r.text("platform")?,
            station_id: r.id_of("station_id")?,
            station_name: r.station_name()?,
            poll_state: None,
        })
    }
}

/// The caller's vendor accounts `{id, platform, account, stationId, stationName}` (never the password).
#[utoipa::path(get, path = "/api/inverterThird/listThirdAccount", tag = "inverterThird", params(StationParam),
    responses((status = 200, body = Envelope<Vec<ThirdAccountItem>>), (status = 401)))]
pub async fn list_third_account(
    State(state): State<StationCtx>,
    caller: Caller,
    Query(p): Query<StationParam>,
) -> ApiResult<Data<Vec<ThirdAccountItem>>> {
    let mut items = super::list_as(
        &INVERTER_THIRD,
        &state,
        &caller,
        p.station_id,
        ThirdAccountItem::from_row,
    )
    .await?;
    let ids: Vec<Id> = items.iter().map(|r| r.id).collect();
    let states = poll_states(&state, &ids).await?;
    for r in items.iter_mut() {
        r.poll_state = Some(poll_state_of(&states, r.id));
    }
    Ok(Data(items))
}

/// A vendor account: its declared fields (`null` when unset; the password only as whether it
/// is set), `stationName` and the audit times, in their wire order.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ThirdAccount {
    pub access_key_set: bool,
    pub account: Option<String>,
    pub api_url: Option<String>,
    pub app_key: Option<String>,
    pub create_time: String,
    pub id: Id,
    pub password_set: bool,
    /// Dictionary `inverter_manufacturer`.
    pub platform: Option<String>,
    pub remark: Option<String>,
    pub station_id: Option<Id>,
    pub station_name: Option<String>,
    pub update_time: Option<String>,
    /// How polling the account goes: `ok`, `auth_failed`, `throttled`, `unreachable`, `idle`.
    pub poll_state: Option<String>,
}

impl ThirdAccount {
    fn from_row(r: &AnyRow) -> Result<ThirdAccount, ApiError> {
        let r = DeviceRow(r);
        Ok(ThirdAccount {
            access_key_set: r.is_set("access_key_enc")?,
            account: r.text("account")?,
            api_url: r.text("api_url")?,
            app_key: r.text("app_key")?,
            create_time: r.create_time()?,
            id: r.id()?,
            password_set: r.is_set("password_enc")?,
            platform: r.text("platform")?,
            remark: r.text("remark")?,
            station_id: r.id_of("station_id")?,
            station_name: r.station_name()?,
            update_time: r.update_time()?,
            poll_state: None,
        })
    }
}
