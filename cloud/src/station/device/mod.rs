//! Device registries hanging off a station: one declared table per kind and one set of
//! operations for all of them (page, detail, light list, create, update, remove).
//!
//! Rules every kind shares: the station must be a live station of the caller's tenant that the
//! caller may see (anything else reads as "no such station"); a device's SN is unique among the
//! tenant's live devices of every kind (gateway configs key devices by SN); reads and writes
//! only ever touch devices of stations in the caller's scope.

pub mod camera;
pub mod inverter;
pub mod inverter_third;
pub mod meter;
pub mod weather;

use serde_json::{Map, Value as Json};
use sqlx::Any;
use sqlx::Row;
use sqlx::any::AnyRow;

use super::fields::{self, Col, Parsed, value_of};
use crate::auth::Caller;
use crate::auth::scope::{self, StationScope};
use crate::kernel::Core;
use crate::kernel::lang::Text;
use crate::kernel::list::{Field, Kind, ListQuery, fetch_page_with};
use crate::kernel::sql::{Sql, Value};
use crate::kernel::{ApiError, Id, Page, id::parse_id_list, time};
use crate::station::context::StationCtx;

pub const NO_STATION: Text = Text::new("电站不存在", "No such station");
pub const SELECT_ONE: Text = Text::new("请选择至少一条数据", "Please select at least one record");

/// Registries whose rows carry an `sn` that must be unique within a tenant.
pub const SN_TABLES: &[&str] = &["pv_inverter", "pv_camera", "pv_weather", "pv_meter", "pv_flex"];

pub struct DeviceDef {
    pub table: &'static str,
    /// Menu code; buttons are `{menu}_add`, `{menu}_edit`, `{menu}_delete`.
    pub menu: &'static str,
    /// Declared columns, including `stationId` (column `station_id`).
    pub cols: &'static [Col],
    /// Whether the table has an `sn` column unique within the tenant.
    pub has_sn: bool,
    /// When set, a station holds at most one live row; the message says so.
    pub one_per_station: Option<Text>,
    /// Message when a unique index other than the SN's refuses the row.
    pub duplicate: Option<Text>,
    /// Checks across fields of the whole record (after an update's merge).
    pub check: fn(&[Parsed]) -> Result<(), ApiError>,
    pub order: &'static str,
}

pub fn no_check(_: &[Parsed]) -> Result<(), ApiError> {
    Ok(())
}

impl DeviceDef {
    fn columns(&self) -> String {
        format!(
            "id, create_time, update_time, {}, \
             (SELECT s.name FROM pv_station s WHERE s.id = {t}.station_id) AS station_name",
            fields::select_list(self.cols, self.table),
            t = self.table
        )
    }

    fn select(&self) -> String {
        format!("SELECT {} FROM {}", self.columns(), self.table)
    }

    /// ` WHERE tenant_id = ? AND is_deleted = 0` plus the caller's station scope.
    fn scoped(&self, scope: &StationScope) -> Sql {
        let mut sql = Sql::default();
        sql.push_bind(
            " WHERE tenant_id = ? AND is_deleted = 0",
            [Value::Text(scope.tenant_id.clone())],
        );
        sql.append(&scope.condition("station_id"));
        sql
    }
}

fn to_json(def: &DeviceDef, row: &AnyRow) -> Result<Json, ApiError> {
    let mut m = Map::new();
    m.insert(
        "id".into(),
        Json::String(row.try_get::<i64, _>("id")?.to_string()),
    );
    fields::row_json(def.cols, row, &mut m)?;
    m.insert(
        "stationName".into(),
        row.try_get::<Option<String>, _>("station_name")?
            .map(Json::String)
            .unwrap_or(Json::Null),
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

/// A page of the caller's devices; filters are the declared ones plus `stationId`.
pub async fn page(
    def: &'static DeviceDef,
    state: &Core,
    caller: &Caller,
    mut query: ListQuery,
) -> Result<Page<Json>, ApiError> {
    let scope = scope::visible_stations(state, caller).await?;
    let exact = fields::exact_filters(def.cols, &mut query);
    let fields = fields::list_fields(
        def.cols,
        &[
            Field::new("stationId", "station_id", Kind::Int),
            Field::new("createTime", "create_time", Kind::Time),
        ],
    );
    let mut from_where = Sql::new(&format!("FROM {}", def.table));
    from_where.append(&def.scoped(&scope));
    from_where.append(&exact);
    let columns = def.columns();
    fetch_page_with(
        &state.db,
        &columns,
        from_where,
        &query,
        &fields,
        def.order,
        |row| to_json(def, row),
    )
    .await
}

/// Every device of the caller's scope, optionally of one station (for select boxes).
pub async fn list(
    def: &'static DeviceDef,
    state: &Core,
    caller: &Caller,
    station: Option<Id>,
) -> Result<Vec<Json>, ApiError> {
    let scope = scope::visible_stations(state, caller).await?;
    let mut sql = Sql::new(&def.select());
    sql.append(&def.scoped(&scope));
    if let Some(s) = station {
        sql.push_bind(" AND station_id = ?", [Value::Int(s.0)]);
    }
    sql.push(&format!(" ORDER BY {}", def.order));
    let (text, args) = sql.build()?;
    let rows = sqlx::query_with(sqlx::AssertSqlSafe(text), args)
        .fetch_all(state.db.pool())
        .await?;
    rows.iter().map(|r| to_json(def, r)).collect()
}

pub async fn find(
    def: &'static DeviceDef,
    state: &Core,
    scope: &StationScope,
    id: Id,
) -> Result<Option<Json>, ApiError> {
    let mut sql = Sql::new(&def.select());
    sql.append(&def.scoped(scope));
    sql.push_bind(" AND id = ?", [Value::Int(id.0)]);
    let (text, args) = sql.build()?;
    let row = sqlx::query_with(sqlx::AssertSqlSafe(text), args)
        .fetch_optional(state.db.pool())
        .await?;
    row.map(|r| to_json(def, &r)).transpose()
}

pub async fn detail(
    def: &'static DeviceDef,
    state: &Core,
    caller: &Caller,
    id: Id,
) -> Result<Json, ApiError> {
    let scope = scope::visible_stations(state, caller).await?;
    find(def, state, &scope, id)
        .await?
        .ok_or_else(ApiError::not_found)
}

/// Whether `sn` is taken by a live device of the tenant other than (`own_table`, `own_id`).
pub async fn sn_taken(
    state: &Core,
    tenant: &str,
    sn: &str,
    own_table: &str,
    own_id: Option<Id>,
) -> Result<bool, ApiError> {
    for table in SN_TABLES {
        let mut sql = Sql::new(&format!("SELECT COUNT(*) FROM {table} WHERE is_deleted = 0"));
        sql.push_bind(" AND tenant_id = ? AND sn = ?", [tenant.into(), sn.into()]);
        if let (true, Some(id)) = (*table == own_table, own_id) {
            sql.push_bind(" AND id <> ?", [Value::Int(id.0)]);
        }
        let (text, args) = sql.build()?;
        let n: i64 = sqlx::query_scalar_with::<Any, i64, _>(sqlx::AssertSqlSafe(text), args)
            .fetch_one(state.db.pool())
            .await?;
        if n > 0 {
            return Ok(true);
        }
    }
    Ok(false)
}

pub fn sn_duplicate(sn: &str) -> ApiError {
    ApiError::bad_request(
        format!("设备SN已存在：{sn}"),
        format!("A device with SN {sn} already exists in this tenant"),
    )
}

/// Checks shared by create and update: station visible, SN free, one per station.
pub(crate) async fn check_record(
    def: &'static DeviceDef,
    state: &Core,
    scope: &StationScope,
    parsed: &[Parsed],
    own: Option<Id>,
) -> Result<(), ApiError> {
    (def.check)(parsed)?;
    let station = match value_of(parsed, "stationId") {
        Some(Value::Int(s)) => Some(Id(*s)),
        _ => None,
    };
    if let Some(station) = station
        && !scope::visible_station(state, scope, station).await?
    {
        return Err(ApiError::BadRequest(NO_STATION));
    }
    if def.has_sn
        && let Some(Value::Text(sn)) = value_of(parsed, "sn")
        && sn_taken(state, &scope.tenant_id, sn, def.table, own).await?
    {
        return Err(sn_duplicate(sn));
    }
    if let (Some(msg), Some(station)) = (&def.one_per_station, station) {
        let mut sql = Sql::new(&format!(
            "SELECT COUNT(*) FROM {} WHERE is_deleted = 0",
            def.table
        ));
        sql.push_bind(" AND station_id = ?", [Value::Int(station.0)]);
        if let Some(id) = own {
            sql.push_bind(" AND id <> ?", [Value::Int(id.0)]);
        }
        let (text, args) = sql.build()?;
        let n: i64 = sqlx::query_scalar_with::<Any, i64, _>(sqlx::AssertSqlSafe(text), args)
            .fetch_one(state.db.pool())
            .await?;
        if n > 0 {
            return Err(ApiError::BadRequest(msg.clone()));
        }
    }
    Ok(())
}

/// A unique index caught what the checks missed (two requests racing): same message.
fn unique_to(e: sqlx::Error, msg: impl FnOnce() -> ApiError) -> ApiError {
    match &e {
        sqlx::Error::Database(d) if d.is_unique_violation() => msg(),
        _ => e.into(),
    }
}

pub async fn create(
    def: &'static DeviceDef,
    state: &StationCtx,
    caller: &Caller,
    body: Map<String, Json>,
) -> Result<Id, ApiError> {
    caller.require(state, &format!("{}_add", def.menu)).await?;
    let scope = scope::visible_stations(state, caller).await?;
    let parsed = fields::parse(state, def.cols, &body).await?;
    // Write-only fields are skipped when absent (updates keep them); a new record needs them.
    if let Some(c) = def
        .cols
        .iter()
        .find(|c| c.required && matches!(c.ty, fields::Ty::Secret(_)) && value_of(&parsed, c.name).is_none())
    {
        return Err(c.missing());
    }
    check_record(def, state, &scope, &parsed, None).await?;
    let id = state.ids.next();
    let (text, args) = insert_sql(def, id, caller, &parsed).build()?;
    sqlx::query_with(sqlx::AssertSqlSafe(text), args)
        .execute(state.db.pool())
        .await
        .map_err(|e| unique_to(e, || duplicate_message(def, &parsed)))?;
    Ok(id)
}

/// The INSERT of a checked device record (the form and the import).
pub(crate) fn insert_sql(def: &DeviceDef, id: Id, caller: &Caller, parsed: &[Parsed]) -> Sql {
    let mut cols = vec!["id", "tenant_id", "create_user", "create_time"];
    let mut values = vec![
        Value::Int(id.0),
        Value::Text(caller.tenant_id.clone()),
        Value::Int(caller.user_id.0),
        Value::Int(time::now_ms()),
    ];
    for p in parsed {
        cols.push(p.col.column);
        values.push(p.value.clone());
    }
    let mut sql = Sql::default();
    sql.push_bind(
        &format!(
            "INSERT INTO {} ({}) VALUES ({})",
            def.table,
            cols.join(", "),
            vec!["?"; cols.len()].join(", ")
        ),
        values,
    );
    sql
}

pub(crate) fn duplicate_message(def: &DeviceDef, parsed: &[Parsed]) -> ApiError {
    match (value_of(parsed, "sn"), &def.one_per_station) {
        (Some(Value::Text(sn)), _) if def.has_sn => sn_duplicate(sn),
        (_, Some(msg)) => ApiError::BadRequest(msg.clone()),
        _ => ApiError::BadRequest(
            def.duplicate
                .clone()
                .unwrap_or(Text::new("数据已存在", "This record already exists")),
        ),
    }
}

/// The id a PUT body names.
pub fn body_id(body: &Map<String, Json>) -> Result<Id, ApiError> {
    match body.get("id") {
        Some(Json::String(s)) => s.trim().parse().ok(),
        Some(Json::Number(n)) => n.as_i64().filter(|n| *n >= 0).map(Id),
        _ => None,
    }
    .ok_or_else(|| ApiError::bad_request("请指定要修改的记录", "The id of the record to change is required"))
}

/// Updates the fields the body names; absent fields keep their values (the stored record is
/// merged under the body and the whole is checked again).
pub async fn update(
    def: &'static DeviceDef,
    state: &StationCtx,
    caller: &Caller,
    body: Map<String, Json>,
) -> Result<(), ApiError> {
    caller.require(state, &format!("{}_edit", def.menu)).await?;
    let id = body_id(&body)?;
    let scope = scope::visible_stations(state, caller).await?;
    let Some(Json::Object(mut merged)) = find(def, state, &scope, id).await? else {
        return Err(ApiError::not_found());
    };
    // Write-only fields are absent from the stored form: only the body can set them.
    for (k, v) in body {
        merged.insert(k, v);
    }
    let parsed = fields::parse(state, def.cols, &merged).await?;
    check_record(def, state, &scope, &parsed, Some(id)).await?;
    let mut sql = Sql::new(&format!("UPDATE {} SET ", def.table));
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
    let (text, args) = sql.build()?;
    sqlx::query_with(sqlx::AssertSqlSafe(text), args)
        .execute(state.db.pool())
        .await
        .map_err(|e| unique_to(e, || duplicate_message(def, &parsed)))?;
    Ok(())
}

pub fn ids_param(raw: &str) -> Result<Vec<Id>, ApiError> {
    let ids =
        parse_id_list(raw).map_err(|e| ApiError::bad_request(format!("无效的ID：{}", e.0), e.to_string()))?;
    if ids.is_empty() {
        return Err(ApiError::BadRequest(SELECT_ONE));
    }
    Ok(ids)
}

/// Removes (logically) every listed device the caller may see; none → 404.
pub async fn remove(
    def: &'static DeviceDef,
    state: &StationCtx,
    caller: &Caller,
    raw_ids: &str,
) -> Result<(), ApiError> {
    caller.require(state, &format!("{}_delete", def.menu)).await?;
    let ids = ids_param(raw_ids)?;
    let scope = scope::visible_stations(state, caller).await?;
    let mut sql = Sql::new(&format!("UPDATE {} SET is_deleted = 1", def.table));
    sql.push_bind(
        ", update_user = ?, update_time = ?",
        [Value::Int(caller.user_id.0), Value::Int(time::now_ms())],
    );
    sql.append(&def.scoped(&scope));
    sql.push(" AND id IN (");
    sql.push_ids(&ids);
    sql.push(")");
    let (text, args) = sql.build()?;
    let done = sqlx::query_with(sqlx::AssertSqlSafe(text), args)
        .execute(state.db.pool())
        .await?
        .rows_affected();
    if done == 0 {
        return Err(ApiError::not_found());
    }
    // Their open alarms can never clear by themselves now: clear them, as this user.
    let mut gone = Sql::new(&format!("SELECT id FROM {} WHERE is_deleted = 1", def.table));
    gone.push_bind(" AND tenant_id = ?", [Value::Text(scope.tenant_id.clone())]);
    gone.push(" AND id IN (");
    gone.push_ids(&ids);
    gone.push(")");
    let (text, args) = gone.build()?;
    let removed: Vec<i64> = sqlx::query_scalar_with::<sqlx::Any, i64, _>(sqlx::AssertSqlSafe(text), args)
        .fetch_all(state.db.pool())
        .await?;
    crate::alarm::store::clear_removed(
        &state.alarm,
        &scope.tenant_id,
        crate::alarm::store::Removed::Devices(&removed),
        caller.user_id.0,
        time::now_ms(),
    )
    .await?;
    Ok(())
}

/// Light rows `{id, name}` style for select boxes are the full rows; kinds may trim them.
pub fn pick(rows: Vec<Json>, keys: &[&str]) -> Vec<Json> {
    rows.into_iter()
        .map(|r| {
            let mut m = Map::new();
            for k in keys {
                m.insert((*k).to_owned(), r.get(*k).cloned().unwrap_or(Json::Null));
            }
            Json::Object(m)
        })
        .collect()
}

/// `{id}` of a path: one id, or comma-joined ids for DELETE.
#[derive(Debug, serde::Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Path)]
pub struct IdPath {
    /// One id (GET) or comma-joined ids (DELETE).
    pub id: String,
}

impl IdPath {
    pub fn one(&self) -> Result<Id, ApiError> {
        self.id.trim().parse().map_err(|_| {
            ApiError::bad_request(
                format!("无效的ID：{}", self.id),
                format!("invalid id {}", self.id),
            )
        })
    }
}

#[derive(Debug, serde::Deserialize, utoipa::IntoParams)]
#[serde(rename_all = "camelCase")]
pub struct StationParam {
    /// Only devices of this station.
    pub station_id: Option<Id>,
}

/// The page, POST, PUT and DELETE routes of a device registry.
macro_rules! device_routes {
    ($def:path, $tag:literal, $page:literal, $base:literal, $item:literal) => {
        /// A page of the registry (filters: the declared fields, `stationId`).
        #[utoipa::path(get, path = $page, tag = $tag,
            params(("current" = Option<i64>, Query), ("size" = Option<i64>, Query), ("stationId" = Option<String>, Query)),
            responses((status = 200, body = crate::kernel::Envelope<serde_json::Value>), (status = 400), (status = 401)))]
        pub async fn page(
            axum::extract::State(state): axum::extract::State<crate::station::context::StationCtx>,
            caller: crate::auth::Caller,
            query: crate::kernel::list::ListQuery,
        ) -> crate::kernel::ApiResult<crate::kernel::Data<crate::kernel::Page<serde_json::Value>>> {
            Ok(crate::kernel::Data(crate::station::device::page(&$def, &state, &caller, query).await?))
        }

        /// Adds a device; answers its id.
        #[utoipa::path(post, path = $base, tag = $tag, request_body = serde_json::Value,
            responses((status = 200, body = crate::kernel::Envelope<crate::kernel::Id>), (status = 400), (status = 403)))]
        pub async fn create(
            axum::extract::State(state): axum::extract::State<crate::station::context::StationCtx>,
            caller: crate::auth::Caller,
            crate::kernel::extract::Json(body): crate::kernel::extract::Json<serde_json::Map<String, serde_json::Value>>,
        ) -> crate::kernel::ApiResult<crate::kernel::Data<crate::kernel::Id>> {
            Ok(crate::kernel::Data(crate::station::device::create(&$def, &state, &caller, body).await?))
        }

        /// Changes the fields the body names (`id` required).
        #[utoipa::path(put, path = $base, tag = $tag, request_body = serde_json::Value,
            responses((status = 200, body = crate::kernel::Envelope<bool>), (status = 400), (status = 403), (status = 404)))]
        pub async fn update(
            axum::extract::State(state): axum::extract::State<crate::station::context::StationCtx>,
            caller: crate::auth::Caller,
            crate::kernel::extract::Json(body): crate::kernel::extract::Json<serde_json::Map<String, serde_json::Value>>,
        ) -> crate::kernel::ApiResult<crate::kernel::Data<bool>> {
            crate::station::device::update(&$def, &state, &caller, body).await?;
            Ok(crate::kernel::Data(true))
        }

        /// Removes the listed devices (comma-joined ids).
        #[utoipa::path(delete, path = $item, tag = $tag, params(crate::station::device::IdPath),
            responses((status = 200, body = crate::kernel::Envelope<bool>), (status = 403), (status = 404)))]
        pub async fn remove(
            axum::extract::State(state): axum::extract::State<crate::station::context::StationCtx>,
            caller: crate::auth::Caller,
            crate::kernel::extract::Path(p): crate::kernel::extract::Path<crate::station::device::IdPath>,
        ) -> crate::kernel::ApiResult<crate::kernel::Data<bool>> {
            crate::station::device::remove(&$def, &state, &caller, &p.id).await?;
            Ok(crate::kernel::Data(true))
        }
    };
}
pub(crate) use device_routes;

/// `GET {item}`: one device.
macro_rules! device_detail {
    ($def:path, $tag:literal, $item:literal) => {
        /// One device.
        #[utoipa::path(get, path = $item, tag = $tag, params(crate::station::device::IdPath),
            responses((status = 200, body = crate::kernel::Envelope<serde_json::Value>), (status = 404)))]
        pub async fn detail(
            axum::extract::State(state): axum::extract::State<crate::station::context::StationCtx>,
            caller: crate::auth::Caller,
            crate::kernel::extract::Path(p): crate::kernel::extract::Path<crate::station::device::IdPath>,
        ) -> crate::kernel::ApiResult<crate::kernel::Data<serde_json::Value>> {
            Ok(crate::kernel::Data(
                crate::station::device::detail(&$def, &state, &caller, p.one()?).await?,
            ))
        }
    };
}
pub(crate) use device_detail;
