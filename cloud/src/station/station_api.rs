//! Stations (`/api/station`): the station record (master data: location, capacity, grid
//! connection), its images, location and lifecycle. A station is created commissioning
//! (`installationStatus` 1) and moves to running (2) only through `switchStation/{id}`; forms
//! never set the status.
//!
//! Bodies are checked against the declared field table ([`COLS`]), so their schemas are
//! generated from the declaration ([`document`]); answers are the typed [`Station`].

use axum::extract::State;
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value as Json};
use utoipa::openapi::path::HttpMethod;
use utoipa::openapi::schema::{ObjectBuilder, Schema, Type};
use utoipa::openapi::{OpenApi, RefOr};
use utoipa::{IntoParams, ToSchema};

use super::device::{IdPath, SELECT_ONE, body_id, ids_param};
use super::fields;
use super::station_checks::{check, image_ids};
use super::station_store::{self as store, COLS, RUNNING, Station};
use crate::auth::scope::Scoped;
use crate::kernel::entity::schema;
use crate::kernel::extract::{Json as JsonBody, Path, Query};
use crate::kernel::lang::Text;
use crate::kernel::list::ListQuery;
use crate::kernel::sql::Sql;
use crate::kernel::{ApiError, ApiResult, Data, Envelope, Id, Page, time};
use crate::station::context::StationCtx;

const ALREADY_RUNNING: Text = Text::new("电站已是运行状态", "The station is already running");
/// After commissioning the station changes to running.
const SWITCHED: Text = Text::new(
    "调试完成后电站变为运行状态",
    "Commissioning is complete: the station is now running",
);

/// Stations the caller may see, paged. Filters: name, address, ownerName, gatewayId,
/// gatewaySn (contains); state, stationType (or type), installationStatus (or status),
/// electricityPriceType, inverterManufacturer, contributionWay, connectedType, provinceCode,
/// cityCode, districtCode, regionCode (any level) (exact).
#[utoipa::path(get, path = "/api/station/page", tag = "station",
    params(("current" = Option<i64>, Query), ("size" = Option<i64>, Query), ("name" = Option<String>, Query),
           ("state" = Option<String>, Query), ("stationType" = Option<String>, Query),
           ("installationStatus" = Option<String>, Query), ("regionCode" = Option<String>, Query)),
    responses((status = 200, body = Envelope<Page<Station>>), (status = 400), (status = 401)))]
pub async fn page(
    State(state): State<StationCtx>,
    Scoped { stations, .. }: Scoped,
    query: ListQuery,
) -> ApiResult<Data<Page<Station>>> {
    Ok(Data(store::page_of(&state, &stations, query).await?))
}

#[derive(Debug, Serialize, ToSchema, sqlx::FromRow)]
#[serde(rename_all = "camelCase")]
pub struct StationLight {
    pub id: Id,
    pub name: String,
    pub installation_status: String,
    pub state: String,
    pub station_type: Option<String>,
    pub capacity: Option<f64>,
    pub component_capacity: Option<f64>,
    pub latitude: Option<f64>,
    pub longitude: Option<f64>,
    pub province_code: Option<String>,
    pub city_code: Option<String>,
    pub district_code: Option<String>,
}

/// Every station the caller may see, light rows by name (selectors, map).
#[utoipa::path(get, path = "/api/station/list", tag = "station",
    responses((status = 200, body = Envelope<Vec<StationLight>>), (status = 401)))]
pub async fn list(
    State(state): State<StationCtx>,
    Scoped { stations: scope, .. }: Scoped,
) -> ApiResult<Data<Vec<StationLight>>> {
    let mut sql = Sql::new(
        "SELECT s.id, s.name, s.installation_status, s.state, s.station_type, s.capacity, s.component_capacity, \
         s.latitude, s.longitude, s.province_code, s.city_code, s.district_code FROM pv_station s WHERE ",
    );
    sql.append(&scope.stations("s"));
    sql.push(" ORDER BY s.name, s.id");
    Ok(Data(sql.fetch_all::<StationLight, _>(state.db.pool()).await?))
}

#[derive(Debug, Serialize, ToSchema, sqlx::FromRow)]
pub struct NameAndId {
    pub id: Id,
    pub name: String,
}

/// `{id, name}` of every station the caller may see.
#[utoipa::path(get, path = "/api/station/listStationNameAndId", tag = "station",
    responses((status = 200, body = Envelope<Vec<NameAndId>>), (status = 401)))]
pub async fn list_name_and_id(
    State(state): State<StationCtx>,
    Scoped { stations: scope, .. }: Scoped,
) -> ApiResult<Data<Vec<NameAndId>>> {
    let mut sql = Sql::new("SELECT s.id, s.name FROM pv_station s WHERE ");
    sql.append(&scope.stations("s"));
    sql.push(" ORDER BY s.name, s.id");
    Ok(Data(sql.fetch_all::<NameAndId, _>(state.db.pool()).await?))
}

/// One station with its images.
#[utoipa::path(get, path = "/api/station/{id}", tag = "station", params(IdPath),
    responses((status = 200, body = Envelope<Station>), (status = 404)))]
pub async fn detail(
    State(state): State<StationCtx>,
    Scoped { stations: scope, .. }: Scoped,
    Path(p): Path<IdPath>,
) -> ApiResult<Data<Station>> {
    Ok(Data(
        store::find(&state, &scope, p.one()?)
            .await?
            .ok_or_else(ApiError::not_found)?,
    ))
}

/// Adds a station (commissioning). `images`: up to 5 uploaded jpg/png (attach ids or links).
/// The owner (a user with role `owner`) is given the station.
#[utoipa::path(post, path = "/api/station", tag = "station",
    request_body(description = "The station's declared fields and `images` (schema generated from the declaration)"),
    responses((status = 200, body = Envelope<Id>), (status = 400), (status = 403)))]
pub async fn create(
    State(state): State<StationCtx>,
    Scoped {
        caller,
        stations: scope,
    }: Scoped,
    JsonBody(body): JsonBody<Map<String, Json>>,
) -> ApiResult<Data<Id>> {
    caller.require(&state, "station_add").await?;
    let mut parsed = fields::parse(&state, COLS, &body).await?;
    let owner = check(&state, &caller, &mut parsed).await?;
    let images = image_ids(&state, &caller, body.get("images").unwrap_or(&Json::Null)).await?;
    let mut tx = state.db.begin_write().await?;
    let id = store::insert(&state, &mut tx, &caller, &scope, &parsed, owner).await?;
    store::replace_images(&mut tx, id, &images).await?;
    tx.commit().await?;
    Ok(Data(id))
}

/// Changes the fields the body names (`id` required; `images` replaces the images when
/// present). A new owner is given the station and the previous owner loses it.
#[utoipa::path(put, path = "/api/station", tag = "station",
    request_body(description = "`id`, the declared fields to change and `images` (schema generated from the declaration)"),
    responses((status = 200, body = Envelope<bool>), (status = 400), (status = 403), (status = 404)))]
pub async fn update(
    State(state): State<StationCtx>,
    Scoped {
        caller,
        stations: scope,
    }: Scoped,
    JsonBody(body): JsonBody<Map<String, Json>>,
) -> ApiResult<Data<bool>> {
    caller.require(&state, "station_edit").await?;
    let id = body_id(&body)?;
    let stored = store::find(&state, &scope, id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    let old_owner = stored.owner_id;
    // The stored record as a body: the submitted fields go over it and the whole is checked.
    let Ok(Json::Object(mut merged)) = serde_json::to_value(&stored) else {
        return Err(ApiError::Internal("station record is not an object".into()));
    };
    // A new owner brings his own name and phone unless the form sends them.
    if body.contains_key("ownerId")
        && body.get("ownerId").and_then(Json::as_str) != old_owner.map(|o| o.to_string()).as_deref()
    {
        for k in ["ownerName", "ownerPhone"] {
            if !body.contains_key(k) {
                merged.insert(k.into(), Json::Null);
            }
        }
    }
    let images = match body.get("images") {
        Some(raw) => Some(image_ids(&state, &caller, raw).await?),
        None => None,
    };
    for (k, v) in body {
        merged.insert(k, v);
    }
    let mut parsed = fields::parse(&state, COLS, &merged).await?;
    let owner = check(&state, &caller, &mut parsed).await?;
    let mut tx = state.db.begin_write().await?;
    store::update(&mut tx, &caller, &scope, id, &parsed).await?;
    if let Some(images) = images {
        store::replace_images(&mut tx, id, &images).await?;
    }
    if owner != old_owner {
        if let Some(old) = old_owner {
            store::unassign(&mut tx, old, id).await?;
        }
        if let Some(new) = owner {
            store::assign(&mut tx, &caller.tenant_id, new, id).await?;
        }
    }
    tx.commit().await?;
    // The gateway id may have changed: the broker's accounts follow (external broker).
    crate::station::broker_accounts::changed();
    Ok(Data(true))
}

/// Commissioning → running, the one way a station starts running; a running station is refused.
#[utoipa::path(put, path = "/api/station/switchStation/{id}", tag = "station", params(IdPath),
    responses((status = 200, body = Envelope<bool>), (status = 400), (status = 403), (status = 404)))]
pub async fn switch_station(
    State(state): State<StationCtx>,
    Scoped {
        caller,
        stations: scope,
    }: Scoped,
    Path(p): Path<IdPath>,
) -> ApiResult<Response> {
    caller.require(&state, "station_switch").await?;
    let id = p.one()?;
    let station = store::find(&state, &scope, id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    if station.installation_status == RUNNING {
        return Err(ApiError::BadRequest(ALREADY_RUNNING));
    }
    if !store::switch_to_running(&state, &caller, &scope, id).await? {
        // Another request switched it in between.
        return Err(ApiError::BadRequest(ALREADY_RUNNING));
    }
    let mut envelope = Envelope::success(true);
    envelope.msg = SWITCHED.render();
    Ok(axum::Json(envelope).into_response())
}

#[derive(Debug, Deserialize, IntoParams)]
pub struct ConfirmParam {
    /// Must be `true` to remove stations that still have devices (their devices go too).
    pub confirm: Option<bool>,
}

/// Removes the listed stations the caller may see. One with devices needs `confirm=true`; its
/// devices, prices, images and assignments then go in the same transaction, so nothing is left
/// pointing at a removed station.
#[utoipa::path(delete, path = "/api/station/{id}", tag = "station", params(IdPath, ConfirmParam),
    responses((status = 200, body = Envelope<bool>), (status = 400), (status = 403), (status = 404)))]
pub async fn remove(
    State(state): State<StationCtx>,
    Scoped {
        caller,
        stations: scope,
    }: Scoped,
    Path(p): Path<IdPath>,
    Query(c): Query<ConfirmParam>,
) -> ApiResult<Data<bool>> {
    caller.require(&state, "station_delete").await?;
    let wanted = ids_param(&p.id)?;
    let ids = store::visible_of(&state, &scope, &wanted).await?;
    if ids.is_empty() {
        return Err(if wanted.is_empty() {
            ApiError::BadRequest(SELECT_ONE)
        } else {
            ApiError::not_found()
        });
    }
    let ids = crate::kernel::id::all_found(&wanted, ids)?;
    let devices = store::device_count(&state, &ids).await?;
    if devices > 0 && c.confirm != Some(true) {
        return Err(ApiError::bad_request(
            format!("电站下存在{devices}台设备，确认删除将同时删除这些设备"),
            format!("The station has {devices} devices; confirm to delete them together with it"),
        ));
    }
    let now = time::now_ms();
    store::remove(&state, &ids, caller.user_id, now).await?;
    crate::station::broker_accounts::changed();
    // Their open alarms (devices, gateway, warnings) can never clear by themselves now.
    let removed: Vec<i64> = ids.iter().map(|i| i.0).collect();
    crate::alarm::store::clear_removed(
        &state.alarm,
        &caller.tenant_id,
        crate::alarm::store::Removed::Stations(&removed),
        caller.user_id.0,
        now,
    )
    .await?;
    Ok(Data(true))
}

/// A station body: the declared fields plus `images` (attach ids or links: a list of ids,
/// `{attachId}` / `{link}` objects, or comma-joined text).
fn body(id_required: bool, fields_required: bool) -> Schema {
    let mut body = schema::body(COLS, id_required, fields_required);
    if let Schema::Object(o) = &mut body {
        o.properties.insert(
            "images".into(),
            RefOr::T(Schema::Object(
                ObjectBuilder::new()
                    .schema_type(utoipa::openapi::schema::SchemaType::from_iter([
                        Type::Array,
                        Type::String,
                        Type::Null,
                    ]))
                    .description(Some(format!(
                        "Up to {} uploaded jpg/png: attach ids or links",
                        super::station_checks::MAX_IMAGES
                    )))
                    .build(),
            )),
        );
    }
    body
}

/// Fills in the station routes' bodies from the declaration (what `fields::parse` accepts).
pub fn document(doc: &mut OpenApi) {
    if let Some(op) = schema::operation(doc, "/api/station", HttpMethod::Post) {
        schema::request(op, body(false, true));
    }
    if let Some(op) = schema::operation(doc, "/api/station", HttpMethod::Put) {
        schema::request(op, body(true, false));
    }
}
