//! Station price history (`/api/stationPrice`), a station-visible entity of the engine with
//! REST-shaped routes: a price per kWh from an effective date on. The
//! price in force on a day is the row with the latest effective date not after it, so adding a
//! new price never changes what earlier days were worth.

use axum::extract::State;
use serde::{Deserialize, Serialize};
use sqlx::any::AnyRow;
use utoipa::{IntoParams, ToSchema};

use super::device::row::DeviceRow;
use super::device::{DeviceDef, device_detail, device_routes, no_check};
use super::fields::{Col, Ty};
use crate::auth::scope::{self, Scoped};
use crate::kernel::extract::Query;
use crate::kernel::lang::Text;
use crate::kernel::sql::{Sql, Value};
use crate::kernel::{ApiError, ApiResult, Data, Envelope, Id, time};
use crate::station::context::StationCtx;

pub static COLS: &[Col] = &[
    Col::new("stationId", "station_id", Ty::Id, "电站", "station").required(),
    Col::new(
        "effectiveDate",
        "effective_date",
        Ty::Date,
        "生效日期",
        "effective date",
    )
    .required()
    .filter(),
    Col::new(
        "price",
        "price",
        Ty::Float {
            min: 0.0,
            max: 100.0,
            decimals: 4,
        },
        "电价(元/kWh)",
        "price per kWh",
    )
    .required(),
    Col::new("remark", "remark", Ty::Text(500), "备注", "remark"),
];

pub static STATION_PRICE: DeviceDef = DeviceDef {
    table: "pv_station_price",
    menu: "stationPrice",
    cols: COLS,
    has_sn: false,
    one_per_station: None,
    duplicate: Some(Text::new(
        "该电站在此生效日期已有电价",
        "The station already has a price from this effective date",
    )),
    check: no_check,
    order: "effective_date DESC, id DESC",
};

device_routes!(
    STATION_PRICE,
    "stationPrice",
    "/api/stationPrice/page",
    "/api/stationPrice",
    "/api/stationPrice/{id}",
    StationPrice
);
device_detail!(
    STATION_PRICE,
    "stationPrice",
    "/api/stationPrice/{id}",
    StationPrice
);

/// The price history's routes, with their typed schemas.
pub fn routes<S>() -> utoipa_axum::router::OpenApiRouter<S>
where
    S: Clone + Send + Sync + 'static,
    crate::kernel::Core: axum::extract::FromRef<S>,
    StationCtx: axum::extract::FromRef<S>,
{
    use utoipa_axum::routes;
    let mut router = utoipa_axum::router::OpenApiRouter::new()
        .routes(routes!(page))
        .routes(routes!(get_last_price))
        .routes(routes!(create, update))
        .routes(routes!(detail, remove));
    document(router.get_openapi_mut());
    router
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
pub struct LastPriceParams {
    pub station_id: Id,
}

/// The price in force now (latest effective date not after today); `null` when none is.
#[utoipa::path(get, path = "/api/stationPrice/getLastPrice", tag = "stationPrice", params(LastPriceParams),
    responses((status = 200, body = Envelope<Option<StationPrice>>), (status = 401), (status = 404)))]
pub async fn get_last_price(
    State(state): State<StationCtx>,
    Scoped { stations, .. }: Scoped,
    Query(p): Query<LastPriceParams>,
) -> ApiResult<Data<Option<StationPrice>>> {
    if !scope::visible_station(&state, &stations, p.station_id).await? {
        return Err(ApiError::not_found());
    }
    let mut sql = Sql::new("SELECT id FROM pv_station_price WHERE is_deleted = 0");
    sql.push_bind(
        " AND station_id = ? AND effective_date <= ? ORDER BY effective_date DESC LIMIT 1",
        [Value::Int(p.station_id.0), Value::Int(time::now_ms())],
    );
    let id = sql.scalar_optional::<i64, _>(state.db.pool()).await?;
    Ok(Data(match id {
        Some(id) => {
            super::device::find_as(&STATION_PRICE, &state, &stations, Id(id), StationPrice::from_row).await?
        }
        None => None,
    }))
}

/// A price of the history: its declared fields (`null` when unset), `stationName` and the
/// audit times, in their wire order.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StationPrice {
    pub create_time: String,
    /// yyyy-MM-dd.
    pub effective_date: Option<String>,
    pub id: Id,
    /// Per kWh.
    pub price: Option<f64>,
    pub remark: Option<String>,
    pub station_id: Option<Id>,
    pub station_name: Option<String>,
    pub update_time: Option<String>,
}

impl StationPrice {
    fn from_row(r: &AnyRow) -> Result<StationPrice, ApiError> {
        let r = DeviceRow(r);
        Ok(StationPrice {
            create_time: r.create_time()?,
            effective_date: r.day("effective_date")?,
            id: r.id()?,
            price: r.float("price")?,
            remark: r.text("remark")?,
            station_id: r.id_of("station_id")?,
            station_name: r.station_name()?,
            update_time: r.update_time()?,
        })
    }
}
