//! The admin console's adapter: `GET {base}/list` (paging and whitelisted filters),
//! `GET {base}/detail?id=`, `POST {base}/submit` (insert without `id`, update with it),
//! `POST {base}/remove?ids=1,2` (logical delete), each enforcing the caller's tenant and
//! permission, and each described with typed schemas.
//!
//! The caller is whatever the adapter's user extracts and implements [`Access`] (auth's
//! `Caller`, through the system domain); the engine only asks it for permissions and
//! predicates, so it stays below auth and the domains.

use std::ops::Deref;

use axum::extract::{FromRef, FromRequestParts, State};
use axum::response::IntoResponse;
use axum::routing::{get, post};
use serde_json::{Map, Value as Json};
use sqlx::any::AnyRow;
use utoipa_axum::router::OpenApiRouter;

use super::field::{self, CheckFuture, Col, Ty};
use super::{read, schema};
use crate::kernel::extract::{Json as JsonBody, Query};
use crate::kernel::lang::Text;
use crate::kernel::list::{Field, ListQuery, fetch_page_with};
use crate::kernel::sql::{Sql, UniqueAs, Value};
use crate::kernel::{ApiError, ApiResult, Core, Data, Id, Page, id::ids_param, time};

/// The caller as the engine needs it.
pub trait Access<S>: Send + Sync {
    fn tenant_id(&self) -> &str;
    fn user_id(&self) -> Id;
    fn dept_id(&self) -> Option<Id>;
    /// Refuses a caller without the permission `code`.
    fn require<'a>(&'a self, state: &'a S, code: &'a str) -> CheckFuture<'a, ()>;
    /// `{column} = the caller's tenant`.
    fn tenant_filter(&self, column: &str) -> Sql;
    /// The narrowing of the data scopes granted for resource `code`, if any.
    fn narrow<'a>(&'a self, state: &'a S, code: &'a str) -> CheckFuture<'a, Option<Sql>>;
}

/// What an entity needs beyond the declarative fields: extra checks, derived values, follow-up
/// writes and read-only fields computed per row. Every method has a do-nothing default.
pub trait Hooks<S, C>: Sync + Send {
    /// An extra condition (no leading `AND`) on every list, detail, update and remove.
    fn scope<'a>(&'a self, _state: &'a S, _caller: &'a C) -> CheckFuture<'a, Option<Sql>> {
        Box::pin(async { Ok(None) })
    }
    /// A condition (no leading `AND`) replacing the tenant condition on reads (list, detail):
    /// for rows a caller may read but not change, such as the platform's business dictionaries.
    /// Updates and removals keep the tenant condition.
    fn read_tenant<'a>(&'a self, _state: &'a S, _caller: &'a C) -> CheckFuture<'a, Option<Sql>> {
        Box::pin(async { Ok(None) })
    }
    /// Checks or rewrites a submitted body before the generic validation; `id` is `None` for an insert.
    fn before_save<'a>(
        &'a self,
        _state: &'a S,
        _caller: &'a C,
        _id: Option<Id>,
        _body: &'a mut Map<String, Json>,
    ) -> CheckFuture<'a, ()> {
        Box::pin(async { Ok(()) })
    }
    /// Follow-up writes once the row is stored.
    fn after_save<'a>(
        &'a self,
        _state: &'a S,
        _caller: &'a C,
        _id: Id,
        _created: bool,
        _body: &'a Map<String, Json>,
    ) -> CheckFuture<'a, ()> {
        Box::pin(async { Ok(()) })
    }
    /// Refuses a removal (e.g. rows that still have children) or cleans up around it.
    fn before_remove<'a>(&'a self, _state: &'a S, _caller: &'a C, _ids: &'a [Id]) -> CheckFuture<'a, ()> {
        Box::pin(async { Ok(()) })
    }
    /// Adds read-only fields (names of referenced rows...) to rows about to be answered.
    fn decorate<'a>(&'a self, _state: &'a S, _caller: &'a C, _rows: &'a mut [Json]) -> CheckFuture<'a, ()> {
        Box::pin(async { Ok(()) })
    }
}

/// The hooks of an entity that needs none.
pub struct NoHooks;
impl<S, C> Hooks<S, C> for NoHooks {}

/// An entity of the admin console, declared once: `S` is the state its handlers take, `C` the
/// caller they extract.
pub struct BladeDef<S: 'static, C: 'static> {
    /// e.g. `/api/blade-system/param`
    pub base: &'static str,
    pub table: &'static str,
    /// Rows belong to a tenant (`tenant_id`): every statement carries the caller's.
    pub tenant_scoped: bool,
    /// Menu code: viewing needs the menu, changes need `{code}_add` / `_edit` / `_delete`.
    pub menu_code: &'static str,
    pub tag: &'static str,
    pub fields: &'static [Col],
    pub default_order: &'static str,
    /// Only callers of the platform tenant (`000000`) may use it at all.
    pub platform_only: bool,
    /// Lists and details are narrowed by the data scopes granted for resource `menu_code`.
    pub data_scoped: bool,
    /// The table has `create_dept`, filled with the caller's department on insert.
    pub create_dept: bool,
    /// The table has `create_user` / `update_user` / `update_time` audit columns.
    pub audit: bool,
    /// The entity answers `{base}/list` itself (as a tree, or only top-level rows, ...) with
    /// [`rows`] or [`page`]; `mount` leaves that route out.
    pub own_list: bool,
    pub hooks: &'static dyn Hooks<S, C>,
}

impl<S: 'static, C: 'static> std::fmt::Debug for BladeDef<S, C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BladeDef")
            .field("base", &self.base)
            .field("table", &self.table)
            .finish()
    }
}

impl<S: 'static, C: 'static> BladeDef<S, C> {
    /// Defaults to start a declaration from: `BladeDef { base, table, .., ..BladeDef::DEFAULT }`.
    pub const DEFAULT: BladeDef<S, C> = BladeDef {
        base: "",
        table: "",
        tenant_scoped: true,
        menu_code: "",
        tag: "system",
        fields: &[],
        default_order: "id ASC",
        platform_only: false,
        data_scoped: false,
        create_dept: false,
        audit: true,
        own_list: false,
        hooks: &NoHooks,
    };
}

pub const PLATFORM_TENANT: &str = "000000";
const PLATFORM_ONLY: Text = Text::new("缺少操作权限", "You do not have permission for this operation");

impl<S: 'static, C: 'static> BladeDef<S, C>
where
    S: Deref<Target = Core> + Send + Sync + 'static,
    C: Access<S> + 'static,
{
    fn list_fields(&self) -> Vec<Field> {
        self.fields
            .iter()
            .filter(|f| f.filter || f.name == "createTime")
            .filter_map(|f| Some(Field::new(f.name, f.column, read::kind(f.ty)?)))
            .collect()
    }

    fn columns(&self) -> String {
        self.fields
            .iter()
            .filter(|f| !f.write_only)
            .map(|f| f.column)
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// ` AND tenant_id = ?` when tenant-owned (no leading `WHERE`).
    fn conditions(&self, caller: &C) -> Sql {
        let mut sql = Sql::default();
        if self.tenant_scoped {
            sql.push(" AND ");
            sql.append(&caller.tenant_filter("tenant_id"));
        }
        sql
    }

    /// The tenant condition plus data scopes and the entity's own scope hook (leading ` AND`).
    async fn full_conditions(&self, state: &S, caller: &C) -> Result<Sql, ApiError> {
        self.narrowed(state, caller, self.conditions(caller)).await
    }

    /// `tenant` (leading ` AND`, or empty) plus data scopes and the entity's own scope hook.
    async fn narrowed(&self, state: &S, caller: &C, tenant: Sql) -> Result<Sql, ApiError> {
        let mut sql = tenant;
        if self.data_scoped
            && let Some(narrow) = caller.narrow(state, self.menu_code).await?
        {
            sql.push(" AND (");
            sql.append(&narrow);
            sql.push(")");
        }
        if let Some(extra) = self.hooks.scope(state, caller).await? {
            sql.push(" AND (");
            sql.append(&extra);
            sql.push(")");
        }
        Ok(sql)
    }

    /// `FROM table WHERE is_deleted = 0` and every condition that applies to the caller.
    async fn full_scope(&self, state: &S, caller: &C) -> Result<Sql, ApiError> {
        let mut sql = Sql::new(&format!(" FROM {} WHERE is_deleted = 0", self.table));
        sql.append(&self.full_conditions(state, caller).await?);
        Ok(sql)
    }

    /// What reads (list, detail) see: [`Self::full_scope`], with the hooks' read-tenant
    /// condition in place of the tenant condition when there is one.
    async fn read_scope(&self, state: &S, caller: &C) -> Result<Sql, ApiError> {
        let Some(tenant) = self.hooks.read_tenant(state, caller).await? else {
            return self.full_scope(state, caller).await;
        };
        let mut sql = Sql::new(&format!(" FROM {} WHERE is_deleted = 0 AND (", self.table));
        sql.append(&tenant);
        sql.push(")");
        sql.append(&self.narrowed(state, caller, Sql::default()).await?);
        Ok(sql)
    }

    /// Refuses callers outside the platform tenant for platform-only entities.
    pub fn check_platform(&self, caller: &C) -> Result<(), ApiError> {
        if self.platform_only && caller.tenant_id() != PLATFORM_TENANT {
            return Err(ApiError::Forbidden(PLATFORM_ONLY));
        }
        Ok(())
    }

    fn to_json(&self, row: &AnyRow) -> Result<Json, ApiError> {
        let mut map = Map::new();
        for f in self.fields.iter().filter(|f| !f.write_only) {
            map.insert(f.name.to_owned(), read::value(f, row)?);
        }
        Ok(Json::Object(map))
    }
}

/// A page of the live rows the caller may see, narrowed further by `extra` (a condition without
/// a leading `AND`), with the request's filters and sort, decorated. Checks no permission.
pub async fn page<S, C>(
    def: &BladeDef<S, C>,
    state: &S,
    caller: &C,
    query: &ListQuery,
    extra: Option<Sql>,
) -> Result<Page<Json>, ApiError>
where
    S: Deref<Target = Core> + Send + Sync + 'static,
    C: Access<S> + 'static,
{
    let fields = def.list_fields();
    let mut from = def.read_scope(state, caller).await?;
    if let Some(extra) = extra {
        from.push(" AND (");
        from.append(&extra);
        from.push(")");
    }
    let mut page = fetch_page_with(
        &state.db,
        &def.columns(),
        from,
        query,
        &fields,
        def.default_order,
        |row| def.to_json(row),
    )
    .await?;
    def.hooks.decorate(state, caller, &mut page.records).await?;
    Ok(page)
}

/// Every live row the caller may see that matches `extra` (no leading `AND`), decorated, in the
/// entity's default order. Checks no permission.
pub async fn rows<S, C>(
    def: &BladeDef<S, C>,
    state: &S,
    caller: &C,
    extra: Option<Sql>,
) -> Result<Vec<Json>, ApiError>
where
    S: Deref<Target = Core> + Send + Sync + 'static,
    C: Access<S> + 'static,
{
    let mut sql = Sql::new(&format!("SELECT {}", def.columns()));
    sql.append(&def.read_scope(state, caller).await?);
    if let Some(extra) = extra {
        sql.push(" AND (");
        sql.append(&extra);
        sql.push(")");
    }
    sql.push(&format!(" ORDER BY {}", def.default_order));
    let mut out = sql
        .rows(state.db.pool())
        .await?
        .iter()
        .map(|row| def.to_json(row))
        .collect::<Result<Vec<_>, _>>()?;
    def.hooks.decorate(state, caller, &mut out).await?;
    Ok(out)
}

/// One live row the caller may see, as the wire JSON (decorated).
pub async fn find<S, C>(def: &BladeDef<S, C>, state: &S, caller: &C, id: Id) -> Result<Option<Json>, ApiError>
where
    S: Deref<Target = Core> + Send + Sync + 'static,
    C: Access<S> + 'static,
{
    let mut sql = Sql::new(&format!("SELECT {}", def.columns()));
    sql.append(&def.read_scope(state, caller).await?);
    sql.push_bind(" AND id = ?", [id.into()]);
    let Some(row) = sql.row(state.db.pool()).await? else {
        return Ok(None);
    };
    let mut rows = [def.to_json(&row)?];
    def.hooks.decorate(state, caller, &mut rows).await?;
    let [row] = rows;
    Ok(Some(row))
}

async fn list<S, C>(
    def: &'static BladeDef<S, C>,
    state: S,
    caller: C,
    query: ListQuery,
) -> ApiResult<Data<Page<Json>>>
where
    S: Deref<Target = Core> + Send + Sync + 'static,
    C: Access<S> + 'static,
{
    def.check_platform(&caller)?;
    caller.require(&state, def.menu_code).await?;
    Ok(Data(page(def, &state, &caller, &query, None).await?))
}

#[derive(Debug, serde::Deserialize)]
struct DetailParams {
    id: Id,
}

async fn detail<S, C>(def: &'static BladeDef<S, C>, state: S, caller: C, id: Id) -> ApiResult<Data<Json>>
where
    S: Deref<Target = Core> + Send + Sync + 'static,
    C: Access<S> + 'static,
{
    def.check_platform(&caller)?;
    caller.require(&state, def.menu_code).await?;
    find(def, &state, &caller, id)
        .await?
        .map(Data)
        .ok_or_else(ApiError::not_found)
}

async fn submit<S, C>(def: &'static BladeDef<S, C>, state: S, caller: C, body: Json) -> ApiResult<Data<Id>>
where
    S: Deref<Target = Core> + Send + Sync + 'static,
    C: Access<S> + 'static,
{
    def.check_platform(&caller)?;
    let Json::Object(mut body) = body else {
        return Err(ApiError::bad_request(
            "请求内容必须是对象",
            "the request body must be a JSON object",
        ));
    };
    let id = match body.get("id") {
        None | Some(Json::Null) => None,
        Some(Json::String(s)) if s.trim().is_empty() => None,
        Some(v) => match field::parse_plain(&Col::of("id", "id", Ty::Id), Some(v))? {
            Some(Value::Int(i)) => Some(Id(i)),
            _ => return Err(ApiError::not_found()),
        },
    };
    let updating = id.is_some();
    let action = if updating { "edit" } else { "add" };
    caller
        .require(&state, &format!("{}_{action}", def.menu_code))
        .await?;
    if let Some(own) = id
        && find(def, &state, &caller, own).await?.is_none()
    {
        return Err(ApiError::not_found());
    }
    if updating {
        // A blank write-only field (a secret not retyped) on an edit means "keep it".
        for f in def.fields.iter().filter(|f| f.write_only) {
            if body
                .get(f.name)
                .is_some_and(|v| v.is_null() || v.as_str().is_some_and(|s| s.trim().is_empty()))
            {
                body.remove(f.name);
            }
        }
    }
    def.hooks.before_save(&state, &caller, id, &mut body).await?;
    let mut values: Vec<(&Col, Value)> = Vec::new();
    for f in def.fields.iter().filter(|f| f.writable && f.name != "id") {
        let present = body.contains_key(f.name);
        match field::parse_plain(f, body.get(f.name))? {
            None if f.required && (!updating || present) => return Err(f.missing()),
            Some(v) => values.push((f, v)),
            None if present && !f.required => values.push((f, field::null_value(f))),
            None => {}
        }
    }
    for (f, v) in &values {
        let Some(message) = &f.unique else { continue };
        let mut sql = Sql::new(&format!(
            "SELECT COUNT(*) FROM {} WHERE is_deleted = 0",
            def.table
        ));
        sql.append(&def.conditions(&caller));
        sql.push_bind(&format!(" AND {} = ?", f.column), [v.clone()]);
        if let Some(own) = id {
            sql.push_bind(" AND id <> ?", [own.into()]);
        }
        if sql.scalar::<i64, _>(state.db.pool()).await? > 0 {
            return Err(ApiError::BadRequest(Text::new(message.0, message.1)));
        }
    }
    // Two submits racing past the check: the unique index decides, with the same message.
    let duplicate = || {
        ApiError::BadRequest(
            def.fields
                .iter()
                .find_map(|f| f.unique)
                .map(|(zh, en)| Text::new(zh, en))
                .unwrap_or(Text::new("数据已存在", "Already exists")),
        )
    };
    let now = Value::Int(time::now_ms());
    let (stored, created) = match id {
        None => {
            let new_id = state.ids.next();
            let mut cols = vec!["id", "create_time"];
            let mut vals = vec![Value::from(new_id), now];
            if def.audit {
                cols.push("create_user");
                vals.push(caller.user_id().into());
            }
            if def.create_dept {
                cols.push("create_dept");
                vals.push(caller.dept_id().map(Value::from).unwrap_or(Value::Null));
            }
            if def.tenant_scoped {
                cols.push("tenant_id");
                vals.push(caller.tenant_id().into());
            }
            for (f, v) in values {
                cols.push(f.column);
                vals.push(v);
            }
            let marks = vec!["?"; vals.len()].join(", ");
            let mut sql = Sql::default();
            sql.push_bind(
                &format!("INSERT INTO {} ({}) VALUES ({marks})", def.table, cols.join(", ")),
                vals,
            );
            sql.execute(state.db.pool()).await.unique_with(duplicate)?;
            (new_id, true)
        }
        Some(own) => {
            let mut sql = Sql::new(&format!("UPDATE {} SET ", def.table));
            for (f, v) in values {
                sql.push_bind(&format!("{} = ?, ", f.column), [v]);
            }
            if def.audit {
                sql.push_bind("update_user = ?, update_time = ?", [caller.user_id().into(), now]);
            } else {
                // Every field list ends with a comma; close it with a no-op assignment.
                sql.push("id = id");
            }
            sql.push_bind(" WHERE is_deleted = 0 AND id = ?", [own.into()]);
            sql.append(&def.full_conditions(&state, &caller).await?);
            if sql.execute(state.db.pool()).await.unique_with(duplicate)? == 0 {
                return Err(ApiError::not_found());
            }
            (own, false)
        }
    };
    def.hooks
        .after_save(&state, &caller, stored, created, &body)
        .await?;
    Ok(Data(stored))
}

#[derive(Debug, serde::Deserialize)]
struct RemoveParams {
    ids: String,
}

async fn remove<S, C>(def: &'static BladeDef<S, C>, state: S, caller: C, ids: String) -> ApiResult<Data<u64>>
where
    S: Deref<Target = Core> + Send + Sync + 'static,
    C: Access<S> + 'static,
{
    def.check_platform(&caller)?;
    caller
        .require(&state, &format!("{}_delete", def.menu_code))
        .await?;
    let ids = ids_param(&ids)?;
    // Every selected row must be one the caller may see, or nothing is removed (404).
    let mut visible = Sql::new("SELECT id");
    visible.append(&def.full_scope(&state, &caller).await?);
    visible.push(" AND id IN (");
    visible.push_ids(&ids);
    visible.push(")");
    let found: Vec<Id> = visible
        .scalars::<i64, _>(state.db.pool())
        .await?
        .into_iter()
        .map(Id)
        .collect();
    let ids = crate::kernel::id::all_found(&ids, found)?;
    def.hooks.before_remove(&state, &caller, &ids).await?;
    let mut sql = Sql::default();
    if def.audit {
        sql.push_bind(
            &format!(
                "UPDATE {} SET is_deleted = 1, update_user = ?, update_time = ?",
                def.table
            ),
            [caller.user_id().into(), Value::Int(time::now_ms())],
        );
    } else {
        sql.push(&format!("UPDATE {} SET is_deleted = 1", def.table));
    }
    sql.push(" WHERE is_deleted = 0 AND id IN (");
    sql.push_ids(&ids);
    sql.push(")");
    Ok(Data(sql.execute(state.db.pool()).await?))
}

/// Mounts the routes of `def` (its own list aside) and describes them with typed schemas.
pub fn mount<R, S, C>(mut router: OpenApiRouter<R>, def: &'static BladeDef<S, C>) -> OpenApiRouter<R>
where
    R: Clone + Send + Sync + 'static,
    S: Deref<Target = Core> + FromRef<R> + Clone + Send + Sync + 'static,
    C: Access<S> + FromRequestParts<R> + 'static,
    C::Rejection: IntoResponse,
{
    document(router.get_openapi_mut(), def);
    if !def.own_list {
        router = router.route(
            &format!("{}/list", def.base),
            get(move |State(s): State<S>, c: C, q: ListQuery| list(def, s, c, q)),
        );
    }
    router
        .route(
            &format!("{}/detail", def.base),
            get(move |State(s): State<S>, c: C, Query(p): Query<DetailParams>| detail(def, s, c, p.id)),
        )
        .route(
            &format!("{}/submit", def.base),
            post(move |State(s): State<S>, c: C, JsonBody(b): JsonBody<Json>| submit(def, s, c, b)),
        )
        .route(
            &format!("{}/remove", def.base),
            post(move |State(s): State<S>, c: C, Query(p): Query<RemoveParams>| remove(def, s, c, p.ids)),
        )
}

fn document<S: 'static, C: 'static>(doc: &mut utoipa::openapi::OpenApi, def: &BladeDef<S, C>) {
    let readable: Vec<Col> = def.fields.iter().filter(|f| !f.write_only).copied().collect();
    let writable: Vec<Col> = def
        .fields
        .iter()
        .filter(|f| f.writable && f.name != "id")
        .copied()
        .collect();
    let filters: Vec<Field> = def
        .fields
        .iter()
        .filter(|f| f.filter || f.name == "createTime")
        .filter_map(|f| Some(Field::new(f.name, f.column, read::kind(f.ty)?)))
        .collect();
    let paths = schema::BladePaths {
        base: def.base,
        tag: def.tag,
        table: def.table,
        own_list: def.own_list,
    };
    schema::document_blade(doc, &paths, &readable, &writable, &filters);
}
