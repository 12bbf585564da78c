//! Stations (`/api/station`): the station record (master data: location, capacity, grid connection), its images, location and
//! lifecycle. A station is created commissioning (`installationStatus` 1) and moves to running
//! (2) only through `switchStation/{id}`; forms never set the status.

use axum::extract::State;
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value as Json};
use sqlx::any::AnyRow;
use sqlx::{Any, Row};
use utoipa::{IntoParams, ToSchema};

use super::device::{IdPath, SELECT_ONE, body_id, ids_param};
use super::fields::{self, Parsed, value_of};
use crate::auth::Caller;
use crate::auth::scope::Scoped;
use crate::auth::scope::StationScope;
use crate::kernel::Core;
use crate::kernel::extract::{Json as JsonBody, Path, Query};
use crate::kernel::lang::Text;
use crate::kernel::list::{Field, Kind, ListQuery, fetch_page_with};
use crate::kernel::sql::{Sql, Value};
use crate::kernel::{ApiError, ApiResult, Data, Envelope, Id, Page, time};
use crate::station::context::StationCtx;

pub const COMMISSIONING: &str = "1";
pub const RUNNING: &str = "2";
pub const MAX_IMAGES: usize = 5;

const TOO_MANY_IMAGES: Text = Text::new("电站图片最多5张", "A station can have at most 5 images");
const IMAGE_TYPE: Text = Text::new("图片只能是jpg或png格式", "Images must be jpg or png files");
const NO_OWNER: Text = Text::new("业主不存在", "No such owner in this tenant");
const ALREADY_RUNNING: Text = Text::new("电站已是运行状态", "The station is already running");
/// Spec section 4: after commissioning the station changes to running.
const SWITCHED: Text = Text::new(
    "调试完成后电站变为运行状态",
    "Commissioning is complete: the station is now running",
);

pub use super::station_fields::COLS;

fn columns() -> String {
    format!(
        "s.id, s.installation_status, s.create_time, s.update_time, {}",
        fields::select_list(COLS, "s")
    )
}

fn row_json(row: &AnyRow) -> Result<Json, ApiError> {
    let mut m = Map::new();
    m.insert(
        "id".into(),
        Json::String(row.try_get::<i64, _>("id")?.to_string()),
    );
    fields::row_json(COLS, row, &mut m)?;
    m.insert(
        "installationStatus".into(),
        Json::String(row.try_get::<String, _>("installation_status")?),
    );
    m.insert(
        "createTime".into(),
        Json::String(time::format_ms(row.try_get::<i64, _>("create_time")?)),
    );
    m.insert(
        "updateTime".into(),
        row.try_get::<Option<i64>, _>("update_time")?
            .map(|t| Json::String(time::format_ms(t)))
            .unwrap_or(Json::Null),
    );
    Ok(Json::Object(m))
}

#[derive(Debug, Serialize, ToSchema, sqlx::FromRow)]
#[serde(rename_all = "camelCase")]
pub struct Image {
    pub attach_id: Id,
    pub link: String,
    pub original_name: String,
}

async fn images_of(state: &Core, station: Id) -> Result<Vec<Image>, ApiError> {
    let mut sql = Sql::new(
        "SELECT a.id AS attach_id, a.link, a.original_name FROM pv_station_image i \
         JOIN blade_attach a ON a.id = i.attach_id WHERE a.is_deleted = 0",
    );
    sql.push_bind(" AND i.station_id = ? ORDER BY i.sort", [Value::Int(station.0)]);
    sql.fetch_all::<Image, _>(state.db.pool()).await
}

/// The station as the caller may see it, with its images.
pub async fn find(state: &Core, scope: &StationScope, id: Id) -> Result<Option<Json>, ApiError> {
    let mut sql = Sql::new(&format!("SELECT {} FROM pv_station s WHERE ", columns()));
    sql.append(&scope.stations("s"));
    sql.push_bind(" AND s.id = ?", [Value::Int(id.0)]);
    let Some(row) = sql.row(state.db.pool()).await? else {
        return Ok(None);
    };
    let mut json = row_json(&row)?;
    json["images"] =
        serde_json::to_value(images_of(state, id).await?).map_err(|e| ApiError::Internal(e.to_string()))?;
    Ok(Some(json))
}

// ---- checks ----

/// Attach ids of the submitted images (ids, `{attachId}` objects or links), each an uploaded
/// jpg/png of the caller's tenant; at most five.
async fn image_ids(state: &Core, caller: &Caller, raw: &Json) -> Result<Vec<Id>, ApiError> {
    let items: Vec<Json> = match raw {
        Json::Null => vec![],
        Json::Array(a) => a.clone(),
        Json::String(s) => s
            .split(',')
            .filter(|p| !p.trim().is_empty())
            .map(|p| Json::String(p.trim().to_owned()))
            .collect(),
        other => vec![other.clone()],
    };
    if items.len() > MAX_IMAGES {
        return Err(ApiError::BadRequest(TOO_MANY_IMAGES));
    }
    let bad =
        |v: &Json| ApiError::bad_request(format!("图片不存在：{v}"), format!("No such uploaded image: {v}"));
    let mut ids = Vec::new();
    for item in &items {
        let key = match item {
            Json::Object(o) => o
                .get("attachId")
                .or_else(|| o.get("link"))
                .cloned()
                .unwrap_or(Json::Null),
            other => other.clone(),
        };
        let attach = match &key {
            Json::Number(n) => find_attach_by_id(state, caller, n.as_i64().unwrap_or(-1)).await?,
            Json::String(s) => match s.trim().parse::<i64>() {
                Ok(id) => find_attach_by_id(state, caller, id).await?,
                Err(_) => crate::resource::oss::find_by_link(state, &caller.tenant_id, s.trim()).await?,
            },
            _ => None,
        }
        .ok_or_else(|| bad(item))?;
        if !matches!(attach.extension.as_str(), "jpg" | "jpeg" | "png") {
            return Err(ApiError::BadRequest(IMAGE_TYPE));
        }
        if !ids.contains(&attach.id) {
            ids.push(attach.id);
        }
    }
    Ok(ids)
}

async fn find_attach_by_id(
    state: &Core,
    caller: &Caller,
    id: i64,
) -> Result<Option<crate::resource::oss::Attach>, ApiError> {
    let mut sql = Sql::new(
        "SELECT id, tenant_id, link, name, original_name, extension, attach_size, content_type \
         FROM blade_attach WHERE is_deleted = 0",
    );
    sql.push_bind(
        " AND id = ? AND tenant_id = ?",
        [Value::Int(id), Value::Text(caller.tenant_id.clone())],
    );
    sql.fetch_optional::<crate::resource::oss::Attach, _>(state.db.pool())
        .await
}

/// The owner's (account or name, phone) when `owner` is a live owner of the caller's tenant.
async fn owner_of(state: &Core, caller: &Caller, owner: Id) -> Result<(String, Option<String>), ApiError> {
    let mut sql =
        Sql::new("SELECT COALESCE(u.real_name, u.account), u.phone FROM blade_user u WHERE u.is_deleted = 0");
    sql.push_bind(
        " AND u.id = ? AND u.tenant_id = ? AND EXISTS (SELECT 1 FROM blade_user_role ur \
         JOIN blade_role r ON r.id = ur.role_id WHERE ur.user_id = u.id AND r.is_deleted = 0 AND r.role_alias = ?)",
        [
            Value::Int(owner.0),
            Value::Text(caller.tenant_id.clone()),
            crate::auth::scope::OWNER_ROLE.into(),
        ],
    );
    sql.fetch_optional::<(String, Option<String>), _>(state.db.pool())
        .await?
        .ok_or(ApiError::BadRequest(NO_OWNER))
}

async fn region_parent(state: &Core, code: &str, level: i64) -> Result<Option<String>, ApiError> {
    let mut sql = Sql::default();
    sql.push_bind(
        "SELECT parent_code FROM blade_region WHERE code = ? AND level = ?",
        [Value::from(code), Value::Int(level)],
    );
    sql.scalar_optional::<String, _>(state.db.pool()).await
}

/// Province, city and district must exist at their levels and nest (GB/T 2260 codes).
async fn check_region(state: &Core, parsed: &[Parsed]) -> Result<(), ApiError> {
    let text = |name| match value_of(parsed, name) {
        Some(Value::Text(s)) => Some(s.clone()),
        _ => None,
    };
    let unknown =
        |c: &str| ApiError::bad_request(format!("行政区划不存在：{c}"), format!("Unknown region code {c}"));
    let mut parent: Option<String> = None;
    for (name, level, zh, en) in [
        (
            "provinceCode",
            1,
            "请先选择省份",
            "Please select the province first",
        ),
        ("cityCode", 2, "请先选择城市", "Please select the city first"),
        ("districtCode", 3, "", ""),
    ] {
        let Some(code) = text(name) else {
            if level < 3 && text(if level == 1 { "cityCode" } else { "districtCode" }).is_some() {
                return Err(ApiError::bad_request(zh, en));
            }
            parent = None;
            continue;
        };
        let up = region_parent(state, &code, level)
            .await?
            .ok_or_else(|| unknown(&code))?;
        if let Some(p) = &parent
            && *p != up
        {
            return Err(unknown(&code));
        }
        parent = Some(code);
    }
    Ok(())
}

pub(crate) async fn check(
    state: &Core,
    caller: &Caller,
    parsed: &mut Vec<Parsed>,
) -> Result<Option<Id>, ApiError> {
    check_region(state, parsed).await?;
    let owner = match value_of(parsed, "ownerId") {
        Some(Value::Int(o)) => Some(Id(*o)),
        _ => None,
    };
    if let Some(owner) = owner {
        let (name, phone) = owner_of(state, caller, owner).await?;
        // The form may leave the owner's name and phone to the server.
        for (field, v) in [("ownerName", Some(name)), ("ownerPhone", phone)] {
            let blank = !matches!(value_of(parsed, field), Some(Value::Text(_)));
            if let (true, Some(v)) = (blank, v) {
                parsed.retain(|p| p.col.name != field);
                if let Some(col) = COLS.iter().find(|c| c.name == field) {
                    parsed.push(Parsed {
                        col,
                        value: Value::Text(v),
                    });
                }
            }
        }
    }
    Ok(owner)
}

async fn replace_images(
    tx: &mut sqlx::Transaction<'static, Any>,
    station: Id,
    images: &[Id],
) -> Result<(), ApiError> {
    let mut del = Sql::default();
    del.push_bind(
        "DELETE FROM pv_station_image WHERE station_id = ?",
        [Value::Int(station.0)],
    );
    del.execute(&mut **tx).await?;
    for (i, a) in images.iter().enumerate() {
        let mut ins = Sql::default();
        ins.push_bind(
            "INSERT INTO pv_station_image (station_id, attach_id, sort) VALUES (?, ?, ?)",
            [Value::Int(station.0), Value::Int(a.0), Value::Int(i as i64)],
        );
        ins.execute(&mut **tx).await?;
    }
    Ok(())
}

/// Gives `user` the station unless already given.
pub async fn assign(
    tx: &mut sqlx::Transaction<'static, Any>,
    tenant: &str,
    user: Id,
    station: Id,
) -> Result<(), ApiError> {
    let mut del = Sql::default();
    del.push_bind(
        "DELETE FROM pv_user_station WHERE user_id = ? AND station_id = ?",
        [Value::Int(user.0), Value::Int(station.0)],
    );
    del.execute(&mut **tx).await?;
    let mut ins = Sql::default();
    ins.push_bind(
        "INSERT INTO pv_user_station (user_id, station_id, tenant_id) VALUES (?, ?, ?)",
        [Value::Int(user.0), Value::Int(station.0), tenant.into()],
    );
    ins.execute(&mut **tx).await?;
    Ok(())
}

/// Inserts a checked station (commissioning) in `tx`, giving it to its owner and, when the
/// creator is restricted, to the creator; answers its id. Used by the form and the import.
pub(crate) async fn insert(
    state: &Core,
    tx: &mut sqlx::Transaction<'static, Any>,
    caller: &Caller,
    scope: &StationScope,
    parsed: &[Parsed],
    owner: Option<Id>,
) -> Result<Id, ApiError> {
    let id = state.ids.next();
    let mut cols = vec![
        "id",
        "tenant_id",
        "installation_status",
        "create_user",
        "create_dept",
        "create_time",
    ];
    let mut values = vec![
        Value::Int(id.0),
        Value::Text(caller.tenant_id.clone()),
        COMMISSIONING.into(),
        Value::Int(caller.user_id.0),
        caller.dept_id.map(|d| Value::Int(d.0)).unwrap_or(Value::Null),
        Value::Int(time::now_ms()),
    ];
    for p in parsed {
        cols.push(p.col.column);
        values.push(p.value.clone());
    }
    let mut sql = Sql::default();
    sql.push_bind(
        &format!(
            "INSERT INTO pv_station ({}) VALUES ({})",
            cols.join(", "),
            vec!["?"; cols.len()].join(", ")
        ),
        values,
    );
    sql.execute(&mut **tx).await?;
    if let Some(owner) = owner {
        assign(tx, &caller.tenant_id, owner, id).await?;
    }
    // A restricted creator would otherwise lose sight of the station they just made.
    if scope.is_restricted() {
        assign(tx, &caller.tenant_id, caller.user_id, id).await?;
    }
    Ok(id)
}

// ---- routes ----

const PAGE_FIELDS: &[Field] = &[Field::new("createTime", "s.create_time", Kind::Time)];

/// Exact filters that are not plain declared fields.
fn extra_filters(query: &mut ListQuery) -> Sql {
    let mut sql = Sql::default();
    let mut take = |name: &str| {
        query
            .take(name)
            .map(|v| v.trim().to_owned())
            .filter(|v| !v.is_empty())
    };
    for (name, column) in [
        ("installationStatus", "s.installation_status"),
        ("status", "s.installation_status"),
        ("provinceCode", "s.province_code"),
        ("cityCode", "s.city_code"),
        ("districtCode", "s.district_code"),
    ] {
        if let Some(v) = take(name) {
            sql.push_bind(&format!(" AND {column} = ?"), [Value::Text(v)]);
        }
    }
    if let Some(v) = take("regionCode") {
        sql.push_bind(
            " AND (s.province_code = ? OR s.city_code = ? OR s.district_code = ?)",
            [Value::Text(v.clone()), Value::Text(v.clone()), Value::Text(v)],
        );
    }
    if let Some(v) = take("type") {
        sql.push_bind(" AND s.station_type = ?", [Value::Text(v)]);
    }
    sql
}

/// Stations the caller may see, paged. Filters: name, address, ownerName, gatewayId,
/// gatewaySn (contains); state, stationType (or type), installationStatus (or status),
/// electricityPriceType, inverterManufacturer, contributionWay, connectedType, provinceCode,
/// cityCode, districtCode, regionCode (any level) (exact).
#[utoipa::path(get, path = "/api/station/page", tag = "station",
    params(("current" = Option<i64>, Query), ("size" = Option<i64>, Query), ("name" = Option<String>, Query),
           ("state" = Option<String>, Query), ("stationType" = Option<String>, Query),
           ("installationStatus" = Option<String>, Query), ("regionCode" = Option<String>, Query)),
    responses((status = 200, body = Envelope<Json>), (status = 400), (status = 401)))]
pub async fn page(
    State(state): State<StationCtx>,
    Scoped { stations, .. }: Scoped,
    query: ListQuery,
) -> ApiResult<Data<Page<Json>>> {
    Ok(Data(page_of(&state, &stations, query).await?))
}

/// A page of the stations the caller may see (the list, and the export page by page).
pub async fn page_of(
    state: &Core,
    scope: &StationScope,
    mut query: ListQuery,
) -> Result<Page<Json>, ApiError> {
    let mut from = Sql::new("FROM pv_station s WHERE ");
    from.append(&scope.stations("s"));
    from.append(&extra_filters(&mut query));
    from.append(&fields::exact_filters(COLS, &mut query));
    // Declared text filters name bare columns; the list reads one table, aliased `s`.
    let fields = fields::list_fields(COLS, PAGE_FIELDS);
    fetch_page_with(
        &state.db,
        &columns(),
        from,
        &query,
        &fields,
        "s.create_time DESC, s.id DESC",
        row_json,
    )
    .await
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
    responses((status = 200, body = Envelope<Json>), (status = 404)))]
pub async fn detail(
    State(state): State<StationCtx>,
    Scoped { stations: scope, .. }: Scoped,
    Path(p): Path<IdPath>,
) -> ApiResult<Data<Json>> {
    Ok(Data(
        find(&state, &scope, p.one()?)
            .await?
            .ok_or_else(ApiError::not_found)?,
    ))
}

/// Adds a station (commissioning). `images`: up to 5 uploaded jpg/png (attach ids or links).
/// The owner (a user with role `owner`) is given the station.
#[utoipa::path(post, path = "/api/station", tag = "station", request_body = Json,
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
    let mut tx = state.db.pool().begin().await?;
    let id = insert(&state, &mut tx, &caller, &scope, &parsed, owner).await?;
    replace_images(&mut tx, id, &images).await?;
    tx.commit().await?;
    Ok(Data(id))
}

/// Changes the fields the body names (`id` required; `images` replaces the images when
/// present). A new owner is given the station and the previous owner loses it.
#[utoipa::path(put, path = "/api/station", tag = "station", request_body = Json,
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
    let Some(Json::Object(mut merged)) = find(&state, &scope, id).await? else {
        return Err(ApiError::not_found());
    };
    let old_owner = merged
        .get("ownerId")
        .and_then(Json::as_str)
        .and_then(|s| s.parse::<Id>().ok());
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
    let mut sql = Sql::new("UPDATE pv_station SET ");
    for p in &parsed {
        sql.push_bind(&format!("{} = ?, ", p.col.column), [p.value.clone()]);
    }
    sql.push_bind(
        "update_user = ?, update_time = ? WHERE id = ? AND tenant_id = ?",
        [
            Value::Int(caller.user_id.0),
            Value::Int(time::now_ms()),
            Value::Int(id.0),
            Value::Text(caller.tenant_id.clone()),
        ],
    );
    let mut tx = state.db.pool().begin().await?;
    sql.execute(&mut *tx).await?;
    if let Some(images) = images {
        replace_images(&mut tx, id, &images).await?;
    }
    if owner != old_owner {
        if let Some(old) = old_owner {
            let mut del = Sql::default();
            del.push_bind(
                "DELETE FROM pv_user_station WHERE user_id = ? AND station_id = ?",
                [Value::Int(old.0), Value::Int(id.0)],
            );
            del.execute(&mut *tx).await?;
        }
        if let Some(new) = owner {
            assign(&mut tx, &caller.tenant_id, new, id).await?;
        }
    }
    tx.commit().await?;
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
    let station = find(&state, &scope, id).await?.ok_or_else(ApiError::not_found)?;
    if station["installationStatus"] == RUNNING {
        return Err(ApiError::BadRequest(ALREADY_RUNNING));
    }
    let mut sql = Sql::default();
    sql.push_bind(
        "UPDATE pv_station SET installation_status = ?, update_user = ?, update_time = ? \
         WHERE id = ? AND tenant_id = ? AND installation_status = ?",
        [
            RUNNING.into(),
            Value::Int(caller.user_id.0),
            Value::Int(time::now_ms()),
            Value::Int(id.0),
            Value::Text(caller.tenant_id.clone()),
            COMMISSIONING.into(),
        ],
    );
    let changed = sql.execute(state.db.pool()).await?;
    if changed == 0 {
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

/// Device registries removed with their station (the vendor accounts tied to it too).
const DEVICE_TABLES: &[&str] = &[
    "pv_inverter",
    "pv_camera",
    "pv_weather",
    "pv_meter",
    "pv_inverter_third",
    "pv_flex",
];

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
    let mut sql = Sql::new("SELECT s.id FROM pv_station s WHERE ");
    sql.append(&scope.stations("s"));
    sql.push(" AND s.id IN (");
    sql.push_ids(&wanted);
    sql.push(")");
    let ids: Vec<Id> = sql
        .scalars::<i64, _>(state.db.pool())
        .await?
        .into_iter()
        .map(Id)
        .collect();
    if ids.is_empty() {
        return Err(if wanted.is_empty() {
            ApiError::BadRequest(SELECT_ONE)
        } else {
            ApiError::not_found()
        });
    }
    let in_ids = |prefix: &str| {
        let mut sql = Sql::new(prefix);
        sql.push_ids(&ids);
        sql.push(")");
        sql
    };
    let mut devices = 0i64;
    for table in DEVICE_TABLES {
        devices += in_ids(&format!(
            "SELECT COUNT(*) FROM {table} WHERE is_deleted = 0 AND station_id IN ("
        ))
        .scalar::<i64, _>(state.db.pool())
        .await?;
    }
    if devices > 0 && c.confirm != Some(true) {
        return Err(ApiError::bad_request(
            format!("电站下存在{devices}台设备，确认删除将同时删除这些设备"),
            format!("The station has {devices} devices; confirm to delete them together with it"),
        ));
    }
    let now = time::now_ms();
    let mut tx = state.db.pool().begin().await?;
    for table in DEVICE_TABLES
        .iter()
        .chain(&["pv_station_price", "pv_electric_price"])
    {
        let mut sql = Sql::new(&format!("UPDATE {table} SET is_deleted = 1"));
        if *table != "pv_electric_price" {
            sql.push_bind(
                ", update_user = ?, update_time = ?",
                [Value::Int(caller.user_id.0), Value::Int(now)],
            );
        }
        sql.append(&in_ids(" WHERE is_deleted = 0 AND station_id IN ("));
        sql.execute(&mut *tx).await?;
    }
    in_ids("DELETE FROM pv_station_image WHERE station_id IN (")
        .execute(&mut *tx)
        .await?;
    in_ids("DELETE FROM pv_user_station WHERE station_id IN (")
        .execute(&mut *tx)
        .await?;
    // The gateway's MQTT credentials go with the station (see station::gateway).
    in_ids("DELETE FROM pv_gateway_credential WHERE station_id IN (")
        .execute(&mut *tx)
        .await?;
    let mut sql = Sql::new("UPDATE pv_station SET is_deleted = 1");
    sql.push_bind(
        ", update_user = ?, update_time = ?",
        [Value::Int(caller.user_id.0), Value::Int(now)],
    );
    sql.append(&in_ids(" WHERE id IN ("));
    sql.execute(&mut *tx).await?;
    tx.commit().await?;
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
