//! `/api/inverterThird/{plants,map,status}`: the vendor's plants of an account, mapping one to a
//! station, and how polling the account goes; and the `pollState` the account lists carry.
//! Every call sees only accounts the caller's station scope lets them see (an account of
//! another tenant, or of a station they may not see, is "not found").

use axum::extract::State;
use serde::{Deserialize, Serialize};
use sqlx::Row;
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::account::{self, Account};
use super::context::VendorCtx;
use super::plant;
use crate::auth::scope::Scoped;
use crate::kernel::extract::{Json, Query};
use crate::kernel::sql::{Sql, Value};
use crate::kernel::{ApiError, ApiResult, Data, Envelope, Id, time};
use crate::station::device::inverter_third::INVERTER_THIRD;

#[derive(Debug, Deserialize, IntoParams)]
pub struct AccountParam {
    /// The vendor account.
    pub id: Id,
}

/// The account when the caller's scope sees it.
async fn visible(state: &VendorCtx, scoped: &Scoped, id: Id) -> Result<Account, ApiError> {
    let seen =
        crate::station::device::find_as(&INVERTER_THIRD, state, &scoped.stations, id, |_| Ok(())).await?;
    if seen.is_none() {
        return Err(ApiError::not_found());
    }
    account::load(state, Some(&scoped.stations.tenant_id), id.0)
        .await?
        .ok_or_else(ApiError::not_found)
}

/// A plant of the vendor account.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct VendorPlant {
    pub plant_id: String,
    pub name: String,
    pub capacity_kwp: Option<f64>,
    pub address: Option<String>,
    pub station_id: Option<Id>,
    pub station_name: Option<String>,
    pub device_count: i64,
    /// Samples before this time are stored (`yyyy-MM-dd HH:mm:ss`), while mapped.
    pub backfilled_until: Option<String>,
    /// How much of the backfill of the current mapping is done, 0 to 100.
    pub backfill_percent: Option<f64>,
}

fn answer(rows: Vec<plant::PlantRow>) -> Vec<VendorPlant> {
    let now = time::now_ms();
    rows.into_iter()
        .map(|r| {
            let percent = match (r.station_id, r.backfill_from, r.backfilled_until) {
                (Some(_), Some(from), Some(until)) if now > from => Some(
                    (((until - from) as f64 / (now - from) as f64) * 100.0)
                        .clamp(0.0, 100.0)
                        .round(),
                ),
                _ => None,
            };
            VendorPlant {
                plant_id: r.plant_id,
                name: r.name,
                capacity_kwp: r.capacity_kwp,
                address: r.address,
                station_id: r.station_id.map(Id),
                station_name: r.station_name,
                device_count: r.device_count,
                backfilled_until: r.station_id.and(r.backfilled_until).map(time::format_ms),
                backfill_percent: percent,
            }
        })
        .collect()
}

/// The account's plants: asks the vendor (plants and their devices), stores them, answers them
/// with their mapping. `cached=true` answers what is stored without asking the vendor.
#[utoipa::path(get, path = "/api/inverterThird/plants", tag = "inverterThird", params(AccountParam, PlantsParam),
    responses((status = 200, body = Envelope<Vec<VendorPlant>>), (status = 400), (status = 404)))]
pub async fn plants(
    State(state): State<VendorCtx>,
    scoped: Scoped,
    Query(p): Query<AccountParam>,
    Query(c): Query<PlantsParam>,
) -> ApiResult<Data<Vec<VendorPlant>>> {
    let account = visible(&state, &scoped, p.id).await?;
    if !c.cached.unwrap_or(false) {
        plant::refresh(&state, &account).await?;
    }
    Ok(Data(answer(plant::stored(&state, account.id).await?)))
}

#[derive(Debug, Deserialize, IntoParams)]
pub struct PlantsParam {
    /// Answer the stored list without asking the vendor (the dialog's progress refresh).
    pub cached: Option<bool>,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MapBody {
    /// The vendor account.
    pub id: Id,
    pub plant_id: String,
    /// The station the plant feeds; `null` unmaps it (its devices stay, polling stops).
    pub station_id: Option<Id>,
}

/// Maps a plant of the account to a station of the caller: its devices become the station's
/// devices (SN = the vendor's serial) and its history is backfilled.
#[utoipa::path(post, path = "/api/inverterThird/map", tag = "inverterThird", request_body = MapBody,
    responses((status = 200, body = Envelope<bool>), (status = 400), (status = 403), (status = 404)))]
pub async fn map(
    State(state): State<VendorCtx>,
    scoped: Scoped,
    Json(body): Json<MapBody>,
) -> ApiResult<Data<bool>> {
    scoped.caller.require(&state, "inverterThird_edit").await?;
    let account = visible(&state, &scoped, body.id).await?;
    plant::map(
        &state,
        &scoped.stations,
        scoped.caller.user_id,
        &account,
        body.plant_id.trim(),
        body.station_id,
    )
    .await?;
    Ok(Data(true))
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct QuotaLimits {
    pub requests_per_minute: u32,
    pub requests_per_day: Option<u32>,
}

/// How polling the account goes.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PollStatus {
    /// `ok`, `auth_failed`, `throttled`, `unreachable` or `idle`.
    pub state: String,
    pub last_ok: Option<String>,
    pub last_error: Option<String>,
    pub error_since: Option<String>,
    pub paused_until: Option<String>,
    /// Requests the polling replica made today (its budget's UTC day).
    pub requests_today: i64,
    pub limits: QuotaLimits,
    pub plants: i64,
    pub mapped_plants: i64,
}

#[utoipa::path(get, path = "/api/inverterThird/status", tag = "inverterThird", params(AccountParam),
    responses((status = 200, body = Envelope<PollStatus>), (status = 400), (status = 404)))]
pub async fn status(
    State(state): State<VendorCtx>,
    scoped: Scoped,
    Query(p): Query<AccountParam>,
) -> ApiResult<Data<PollStatus>> {
    let account = visible(&state, &scoped, p.id).await?;
    let mut sql = Sql::new(
        "SELECT state, last_ok, last_error, error_since, paused_until, requests_day, day FROM pv_vendor_poll WHERE ",
    );
    sql.push_bind("account_id = ?", [Value::Int(account.id)]);
    let row = sql.row(state.db.pool()).await?;
    let limits = account.platform.limits();
    let mut counts = Sql::new(
        "SELECT COUNT(*) AS plants, COALESCE(SUM(CASE WHEN station_id IS NULL THEN 0 ELSE 1 END), 0) AS mapped \
         FROM pv_vendor_plant WHERE ",
    );
    counts.push_bind("account_id = ?", [Value::Int(account.id)]);
    let (plants, mapped_plants) = match counts.row(state.db.pool()).await? {
        Some(r) => (r.try_get::<i64, _>("plants")?, r.try_get::<i64, _>("mapped")?),
        None => (0, 0),
    };
    let today = super::poller::utc_day(time::now_ms());
    let mut out = PollStatus {
        state: "idle".into(),
        last_ok: None,
        last_error: None,
        error_since: None,
        paused_until: None,
        requests_today: 0,
        limits: QuotaLimits {
            requests_per_minute: limits.requests_per_minute,
            requests_per_day: limits.requests_per_day,
        },
        plants,
        mapped_plants,
    };
    if let Some(r) = row {
        let at = |c: &str| -> Result<Option<String>, ApiError> {
            Ok(r.try_get::<Option<i64>, _>(c)?.map(time::format_ms))
        };
        out.state = r.try_get("state")?;
        out.last_ok = at("last_ok")?;
        out.last_error = r.try_get("last_error")?;
        out.error_since = at("error_since")?;
        out.paused_until = at("paused_until")?;
        if r.try_get::<Option<String>, _>("day")?.as_deref() == Some(today.as_str()) {
            out.requests_today = r.try_get("requests_day")?;
        }
    }
    Ok(Data(out))
}

/// The vendor domain's routes.
pub fn routes<S>() -> OpenApiRouter<S>
where
    S: Clone + Send + Sync + 'static,
    crate::kernel::Core: axum::extract::FromRef<S>,
    VendorCtx: axum::extract::FromRef<S>,
{
    OpenApiRouter::new()
        .routes(routes!(plants))
        .routes(routes!(map))
        .routes(routes!(status))
}
