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
pub mod row;
pub mod weather;

use serde_json::{Map, Value as Json};
use sqlx::Row;
use sqlx::any::AnyRow;
use utoipa::openapi::path::HttpMethod;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::fields::{self, Col, Parsed, value_of};
use crate::auth::Caller;
use crate::auth::scope::{self, Scoped, StationScope};
use crate::kernel::Core;
use crate::kernel::entity::def::Table;
use crate::kernel::entity::{schema, store};
use crate::kernel::lang::Text;
use crate::kernel::list::{Field, Kind, ListQuery};
use crate::kernel::sql::{Sql, UniqueAs, Value};
use crate::kernel::{ApiError, Id, Page, time};
use crate::station::context::StationCtx;

pub use crate::kernel::entity::rest::{IdPath, body_id};
pub use crate::kernel::id::{SELECT_ONE, ids_param};

pub const NO_STATION: Text = Text::new("电站不存在", "No such station");

/// Registries whose rows carry an `sn` that must be unique within a tenant.
pub const SN_TABLES: &[&str] = &["pv_inverter", "pv_camera", "pv_weather", "pv_meter", "pv_flex"];

/// A registry hanging off stations, declared for the entity engine (station-visible rows,
/// REST-shaped routes) with the rules devices add: SN unique in the tenant, one per station.
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

/// A page's records as read (the default `after` of `device_routes!`).
pub async fn keep<T>(_: &Core, _: &mut [T]) -> Result<(), ApiError> {
    Ok(())
}

impl DeviceDef {
    pub fn entity(&self) -> Table {
        Table {
            name: self.table,
            cols: self.cols,
            order: self.order,
        }
    }

    fn columns(&self) -> String {
        format!(
            "id, create_time, update_time, {}, \
             (SELECT s.name FROM pv_station s WHERE s.id = {t}.station_id) AS station_name",
            fields::select_list(self.cols, self.table),
            t = self.table
        )
    }

    /// The caller's live rows of stations they may see.
    fn scoped(&self, scope: &StationScope) -> Sql {
        scope.rows(self.table, "station_id")
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

/// The caller with their station scope, for callers of this module that hold a bare
/// [`Caller`] (the Excel export, the flex bracket, the demo); handlers extract [`Scoped`].
pub async fn scoped(state: &Core, caller: &Caller) -> Result<Scoped, ApiError> {
    Ok(Scoped {
        caller: caller.clone(),
        stations: scope::visible_stations(state, caller).await?,
    })
}

/// A page of the caller's devices; filters are the declared ones plus `stationId`.
pub async fn page(
    def: &'static DeviceDef,
    state: &Core,
    caller: &Caller,
    mut query: ListQuery,
) -> Result<Page<Json>, ApiError> {
    page_in(def, state, &scoped(state, caller).await?.stations, &mut query).await
}

/// [`page`] for a caller whose scope is resolved.
pub async fn page_in(
    def: &'static DeviceDef,
    state: &Core,
    scope: &StationScope,
    query: &mut ListQuery,
) -> Result<Page<Json>, ApiError> {
    page_as(def, state, scope, query, |row| to_json(def, row)).await
}

/// [`page_in`] read into typed records by `map`.
pub async fn page_as<T>(
    def: &'static DeviceDef,
    state: &Core,
    scope: &StationScope,
    query: &mut ListQuery,
    map: impl Fn(&AnyRow) -> Result<T, ApiError>,
) -> Result<Page<T>, ApiError> {
    let exact = fields::exact_filters(def.cols, query);
    let fields = fields::list_fields(
        def.cols,
        &[
            Field::new("stationId", "station_id", Kind::Int),
            Field::new("createTime", "create_time", Kind::Time),
        ],
    );
    store::page(
        &state.db,
        &def.entity(),
        &def.columns(),
        &def.scoped(scope),
        &exact,
        query,
        &fields,
        map,
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
    list_as(def, state, caller, station, |r| to_json(def, r)).await
}

/// [`list`] read into typed records by `map`.
pub async fn list_as<T>(
    def: &'static DeviceDef,
    state: &Core,
    caller: &Caller,
    station: Option<Id>,
    map: impl Fn(&AnyRow) -> Result<T, ApiError>,
) -> Result<Vec<T>, ApiError> {
    let scope = scoped(state, caller).await?.stations;
    let mut extra = Sql::default();
    if let Some(s) = station {
        extra.push_bind(" AND station_id = ?", [Value::Int(s.0)]);
    }
    store::list(
        &state.db,
        &def.entity(),
        &def.columns(),
        &def.scoped(&scope),
        &extra,
        map,
    )
    .await
}

pub async fn find(
    def: &'static DeviceDef,
    state: &Core,
    scope: &StationScope,
    id: Id,
) -> Result<Option<Json>, ApiError> {
    find_as(def, state, scope, id, |r| to_json(def, r)).await
}

/// [`find`] read into a typed record by `map`.
pub async fn find_as<T>(
    def: &'static DeviceDef,
    state: &Core,
    scope: &StationScope,
    id: Id,
    map: impl Fn(&AnyRow) -> Result<T, ApiError>,
) -> Result<Option<T>, ApiError> {
    store::find(
        &state.db,
        &def.entity(),
        &def.columns(),
        &def.scoped(scope),
        id,
        map,
    )
    .await
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
        // Tenant-wide, not the caller's station scope: an SN is unique among all the tenant's
        // devices (gateway configs key devices by SN), including ones the caller cannot see.
        let mut sql = Sql::new(&format!("SELECT COUNT(*) FROM {table} WHERE is_deleted = 0"));
        sql.push_bind(" AND tenant_id = ? AND sn = ?", [tenant.into(), sn.into()]);
        if let (true, Some(id)) = (*table == own_table, own_id) {
            sql.push_bind(" AND id <> ?", [Value::Int(id.0)]);
        }
        if sql.scalar::<i64, _>(state.db.pool()).await? > 0 {
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
        // The station was checked visible above: its rows are the caller's tenant's.
        let mut sql = Sql::new(&format!(
            "SELECT COUNT(*) FROM {} WHERE is_deleted = 0",
            def.table
        ));
        sql.push_bind(" AND station_id = ?", [Value::Int(station.0)]);
        if let Some(id) = own {
            sql.push_bind(" AND id <> ?", [Value::Int(id.0)]);
        }
        if sql.scalar::<i64, _>(state.db.pool()).await? > 0 {
            return Err(ApiError::BadRequest(msg.clone()));
        }
    }
    Ok(())
}

pub async fn create(
    def: &'static DeviceDef,
    state: &StationCtx,
    caller: &Caller,
    body: Map<String, Json>,
) -> Result<Id, ApiError> {
    create_in(def, state, &scoped(state, caller).await?, body).await
}

/// [`create`] for a caller whose scope is resolved.
pub async fn create_in(
    def: &'static DeviceDef,
    state: &StationCtx,
    Scoped {
        caller,
        stations: scope,
    }: &Scoped,
    body: Map<String, Json>,
) -> Result<Id, ApiError> {
    caller.require(state, &format!("{}_add", def.menu)).await?;
    let parsed = fields::parse(state, def.cols, &body).await?;
    // Write-only fields are skipped when absent (updates keep them); a new record needs them.
    if let Some(c) = def
        .cols
        .iter()
        .find(|c| c.required && matches!(c.ty, fields::Ty::Secret(_)) && value_of(&parsed, c.name).is_none())
    {
        return Err(c.missing());
    }
    check_record(def, state, scope, &parsed, None).await?;
    let id = state.ids.next();
    insert_sql(def, id, caller, &parsed)
        .execute(state.db.pool())
        .await
        .unique_with(|| duplicate_message(def, &parsed))?;
    Ok(id)
}

/// The INSERT of a checked device record (the form and the import).
pub(crate) fn insert_sql(def: &DeviceDef, id: Id, caller: &Caller, parsed: &[Parsed]) -> Sql {
    store::insert(&def.entity(), id, &caller.tenant_id, caller.user_id, parsed)
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

/// Updates the fields the body names; absent fields keep their values (the stored record is
/// merged under the body and the whole is checked again).
pub async fn update(
    def: &'static DeviceDef,
    state: &StationCtx,
    caller: &Caller,
    body: Map<String, Json>,
) -> Result<(), ApiError> {
    update_in(def, state, &scoped(state, caller).await?, body).await
}

/// [`update`] for a caller whose scope is resolved.
pub async fn update_in(
    def: &'static DeviceDef,
    state: &StationCtx,
    Scoped {
        caller,
        stations: scope,
    }: &Scoped,
    body: Map<String, Json>,
) -> Result<(), ApiError> {
    caller.require(state, &format!("{}_edit", def.menu)).await?;
    let id = body_id(&body)?;
    let Some(Json::Object(stored)) = find(def, state, scope, id).await? else {
        return Err(ApiError::not_found());
    };
    let merged = crate::kernel::entity::rest::merge(stored, body);
    let parsed = fields::parse(state, def.cols, &merged).await?;
    check_record(def, state, scope, &parsed, Some(id)).await?;
    store::update(&def.entity(), id, caller.user_id, &parsed, &def.scoped(scope))
        .execute(state.db.pool())
        .await
        .unique_with(|| duplicate_message(def, &parsed))?;
    Ok(())
}

/// Removes (logically) every listed device the caller may see; none → 404.
pub async fn remove(
    def: &'static DeviceDef,
    state: &StationCtx,
    Scoped {
        caller,
        stations: scope,
    }: &Scoped,
    raw_ids: &str,
) -> Result<(), ApiError> {
    caller.require(state, &format!("{}_delete", def.menu)).await?;
    let ids = ids_param(raw_ids)?;
    let removed = store::remove(&state.db, &def.entity(), &ids, caller.user_id, &def.scoped(scope)).await?;
    if removed.is_empty() {
        return Err(ApiError::not_found());
    }
    // Their open alarms can never clear by themselves now: clear them, as this user.
    let removed: Vec<i64> = removed.iter().map(|i| i.0).collect();
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

/// Fills in a registry's list parameters and bodies from its declaration (its answers are the
/// kind's typed record).
pub fn document(doc: &mut utoipa::openapi::OpenApi, def: &DeviceDef, paths: &schema::RestPaths<'_>) {
    let filters = fields::list_fields(
        def.cols,
        &[
            Field::new("stationId", "station_id", Kind::Int),
            Field::new("createTime", "create_time", Kind::Time),
        ],
    );
    let exact: Vec<&str> = def
        .cols
        .iter()
        .filter(|c| c.filter && matches!(c.ty, fields::Ty::Dict(_) | fields::Ty::MapModel(_)))
        .map(|c| c.name)
        .collect();
    if let Some(op) = schema::operation(doc, paths.page, HttpMethod::Get) {
        op.parameters = Some(schema::list_params(&filters, &exact));
    }
    if let Some(op) = schema::operation(doc, paths.base, HttpMethod::Post) {
        schema::request(op, schema::body(def.cols, false, true));
    }
    if let Some(op) = schema::operation(doc, paths.base, HttpMethod::Put) {
        schema::request(op, schema::body(def.cols, true, false));
    }
}

/// The device registries' routes, with their typed schemas.
pub fn routes<S>() -> OpenApiRouter<S>
where
    S: Clone + Send + Sync + 'static,
    crate::kernel::Core: axum::extract::FromRef<S>,
    StationCtx: axum::extract::FromRef<S>,
{
    let mut router = OpenApiRouter::new()
        .routes(routes!(inverter::page))
        .routes(routes!(inverter::list_device_type))
        .routes(routes!(inverter::list_manufacturer))
        .routes(routes!(inverter::create, inverter::update))
        .routes(routes!(inverter::detail, inverter::remove))
        .routes(routes!(inverter_third::page))
        .routes(routes!(inverter_third::list_third_account))
        .routes(routes!(inverter_third::create, inverter_third::update))
        .routes(routes!(inverter_third::remove))
        .routes(routes!(camera::page))
        .routes(routes!(camera::list_camera_type))
        .routes(routes!(camera::list_camera))
        .routes(routes!(camera::live_web_url))
        .routes(routes!(camera::create, camera::update))
        .routes(routes!(camera::remove))
        .routes(routes!(weather::page))
        .routes(routes!(weather::list))
        .routes(routes!(weather::create, weather::update))
        .routes(routes!(weather::remove))
        .routes(routes!(meter::page))
        .routes(routes!(meter::create, meter::update))
        .routes(routes!(meter::detail, meter::remove));
    let doc = router.get_openapi_mut();
    for document in [
        inverter::document,
        inverter_third::document,
        camera::document,
        weather::document,
        meter::document,
    ] {
        document(doc);
    }
    router
}

#[derive(Debug, serde::Deserialize, utoipa::IntoParams)]
#[serde(rename_all = "camelCase")]
pub struct StationParam {
    /// Only devices of this station.
    pub station_id: Option<Id>,
}

/// The page, POST, PUT and DELETE routes of a device registry answering `$record` (a type of
/// the calling module with `fn from_row(&AnyRow) -> Result<$record, ApiError>`), and
/// `document`, which gives them the registry's list parameters and bodies.
macro_rules! device_routes {
    ($def:path, $tag:literal, $page:literal, $base:literal, $item:literal, $record:ident) => {
        crate::station::device::device_routes!($def, $tag, $page, $base, $item, $record, after = crate::station::device::keep);
    };
    // `after` completes a page's records from elsewhere (`async fn(&Core, &mut [$record])`).
    ($def:path, $tag:literal, $page:literal, $base:literal, $item:literal, $record:ident, after = $after:path) => {
        /// Fills in this registry's typed parameters, bodies and answers.
        pub fn document(doc: &mut utoipa::openapi::OpenApi) {
            crate::station::device::document(
                doc,
                &$def,
                &crate::kernel::entity::schema::RestPaths { page: $page, base: $base, item: $item },
            );
        }

        /// A page of the registry (filters: the declared fields, `stationId`).
        #[utoipa::path(get, path = $page, tag = $tag,
            params(("current" = Option<i64>, Query), ("size" = Option<i64>, Query), ("stationId" = Option<String>, Query)),
            responses((status = 200, body = crate::kernel::Envelope<crate::kernel::Page<$record>>), (status = 400), (status = 401)))]
        pub async fn page(
            axum::extract::State(state): axum::extract::State<crate::station::context::StationCtx>,
            scoped: crate::auth::scope::Scoped,
            mut query: crate::kernel::list::ListQuery,
        ) -> crate::kernel::ApiResult<crate::kernel::Data<crate::kernel::Page<$record>>> {
            let mut page =
                crate::station::device::page_as(&$def, &state, &scoped.stations, &mut query, $record::from_row)
                    .await?;
            $after(&state, &mut page.records).await?;
            Ok(crate::kernel::Data(page))
        }

        /// Adds a device; answers its id.
        #[utoipa::path(post, path = $base, tag = $tag, request_body = serde_json::Value,
            responses((status = 200, body = crate::kernel::Envelope<crate::kernel::Id>), (status = 400), (status = 403)))]
        pub async fn create(
            axum::extract::State(state): axum::extract::State<crate::station::context::StationCtx>,
            scoped: crate::auth::scope::Scoped,
            crate::kernel::extract::Json(body): crate::kernel::extract::Json<serde_json::Map<String, serde_json::Value>>,
        ) -> crate::kernel::ApiResult<crate::kernel::Data<crate::kernel::Id>> {
            Ok(crate::kernel::Data(crate::station::device::create_in(&$def, &state, &scoped, body).await?))
        }

        /// Changes the fields the body names (`id` required).
        #[utoipa::path(put, path = $base, tag = $tag, request_body = serde_json::Value,
            responses((status = 200, body = crate::kernel::Envelope<bool>), (status = 400), (status = 403), (status = 404)))]
        pub async fn update(
            axum::extract::State(state): axum::extract::State<crate::station::context::StationCtx>,
            scoped: crate::auth::scope::Scoped,
            crate::kernel::extract::Json(body): crate::kernel::extract::Json<serde_json::Map<String, serde_json::Value>>,
        ) -> crate::kernel::ApiResult<crate::kernel::Data<bool>> {
            crate::station::device::update_in(&$def, &state, &scoped, body).await?;
            Ok(crate::kernel::Data(true))
        }

        /// Removes the listed devices (comma-joined ids).
        #[utoipa::path(delete, path = $item, tag = $tag, params(crate::station::device::IdPath),
            responses((status = 200, body = crate::kernel::Envelope<bool>), (status = 403), (status = 404)))]
        pub async fn remove(
            axum::extract::State(state): axum::extract::State<crate::station::context::StationCtx>,
            scoped: crate::auth::scope::Scoped,
            crate::kernel::extract::Path(p): crate::kernel::extract::Path<crate::station::device::IdPath>,
        ) -> crate::kernel::ApiResult<crate::kernel::Data<bool>> {
            crate::station::device::remove(&$def, &state, &scoped, &p.id).await?;
            Ok(crate::kernel::Data(true))
        }
    };
}
pub(crate) use device_routes;

/// `GET {item}`: one device, as `$record`.
macro_rules! device_detail {
    ($def:path, $tag:literal, $item:literal, $record:ident) => {
        /// One device.
        #[utoipa::path(get, path = $item, tag = $tag, params(crate::station::device::IdPath),
                    responses((status = 200, body = crate::kernel::Envelope<$record>), (status = 404)))]
        pub async fn detail(
            axum::extract::State(state): axum::extract::State<crate::station::context::StationCtx>,
            scoped: crate::auth::scope::Scoped,
            crate::kernel::extract::Path(p): crate::kernel::extract::Path<crate::station::device::IdPath>,
        ) -> crate::kernel::ApiResult<crate::kernel::Data<$record>> {
            Ok(crate::kernel::Data(
                crate::station::device::find_as(&$def, &state, &scoped.stations, p.one()?, $record::from_row)
                    .await?
                    .ok_or_else(crate::kernel::ApiError::not_found)?,
            ))
        }
    };
}
pub(crate) use device_detail;

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use utoipa::PartialSchema;
    use utoipa::openapi::RefOr;
    use utoipa::openapi::schema::Schema;

    use super::*;

    fn fields_of<T: PartialSchema>() -> BTreeSet<String> {
        match T::schema() {
            RefOr::T(Schema::Object(o)) => o.properties.keys().cloned().collect(),
            _ => panic!("not an object schema"),
        }
    }

    /// What the engine answered for a registry: its declared fields (a write-only one as
    /// `{name}Set`), the id, the station's name and the audit times, and `more`.
    fn declared(cols: &[Col], more: &[&str]) -> BTreeSet<String> {
        let mut out: BTreeSet<String> = cols
            .iter()
            .map(|c| match c.ty {
                fields::Ty::Secret(_) => format!("{}Set", c.name),
                _ => c.name.to_owned(),
            })
            .collect();
        for k in ["id", "stationName", "createTime", "updateTime"]
            .iter()
            .chain(more)
        {
            out.insert((*k).to_owned());
        }
        out
    }

    /// A field added to a declaration must be added to its typed record (and the other way round).
    #[test]
    fn typed_records_carry_every_declared_field() {
        assert_eq!(fields_of::<inverter::Inverter>(), declared(inverter::COLS, &[]));
        assert_eq!(fields_of::<meter::Meter>(), declared(meter::COLS, &[]));
        assert_eq!(fields_of::<camera::Camera>(), declared(camera::COLS, &[]));
        assert_eq!(
            fields_of::<inverter_third::ThirdAccount>(),
            declared(inverter_third::COLS, &["pollState"])
        );
        assert_eq!(
            fields_of::<weather::WeatherStation>(),
            declared(weather::COLS, &[])
        );
        assert_eq!(
            fields_of::<crate::station::price_history::StationPrice>(),
            declared(crate::station::price_history::COLS, &[])
        );
        assert_eq!(
            fields_of::<crate::station::flex::Bracket>(),
            declared(crate::station::flex::COLS, &["sensorCount", "sensors"])
        );
        // The light lists pick declared fields.
        let camera = declared(camera::COLS, &[]);
        assert!(fields_of::<camera::CameraItem>().is_subset(&camera));
        let third = declared(inverter_third::COLS, &["pollState"]);
        assert!(fields_of::<inverter_third::ThirdAccountItem>().is_subset(&third));
    }
}
