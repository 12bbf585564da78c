//! The list/detail/submit/remove family of the admin base, declared once per entity.
//!
//! An entity names its table, its fields (wire name, column, type, validation), whether rows
//! belong to a tenant, and the menu code its permissions hang on. From that it gets:
//! `GET {base}/list` (paging and whitelisted filters), `GET {base}/detail?id=`, `POST
//! {base}/submit` (insert without `id`, update with it), `POST {base}/remove?ids=1,2` (logical
//! delete), each enforcing the caller's tenant and permission, and each described in the
//! OpenAPI document.

use axum::extract::State;
use axum::routing::{get, post};
use serde_json::{Map, Value as Json};
use sqlx::any::AnyRow;
use sqlx::{Any, Row};
use utoipa::openapi::path::{HttpMethod, OperationBuilder, ParameterBuilder, ParameterIn};
use utoipa::openapi::request_body::RequestBodyBuilder;
use utoipa::openapi::response::ResponseBuilder;
use utoipa::openapi::{Content, Required};
use utoipa_axum::router::OpenApiRouter;

use crate::auth::Caller;
use crate::kernel::extract::{Json as JsonBody, Query};
use crate::kernel::lang::Text;
use crate::kernel::list::{Field, Kind, ListQuery, fetch_page_with};
use crate::kernel::sql::{Sql, Value};
use crate::kernel::{ApiError, ApiResult, Data, Id, id::parse_id_list, time};
use crate::system::context::SystemCtx;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldType {
    Text,
    /// A plain integer (sort order, category...): a JSON number.
    Int,
    /// A 64-bit id: a JSON string.
    Id,
    Float,
    /// Epoch milliseconds, `yyyy-MM-dd HH:mm:ss` on the wire.
    Time,
}

/// A message in zh and en, kept as plain strings so entity tables can be `static`.
pub type Msg = (&'static str, &'static str);

#[derive(Debug, Clone, Copy)]
pub struct FieldDef {
    pub name: &'static str,
    pub column: &'static str,
    pub ty: FieldType,
    /// Message when a submit leaves it empty; `None` means optional.
    pub required: Option<Msg>,
    /// Longest text accepted (characters); 0 for no limit.
    pub max_len: usize,
    /// Accepted from `submit` (read-only fields such as `createTime` are not).
    pub writable: bool,
    /// Message when another live row (in the tenant) already has this value.
    pub unique: Option<Msg>,
    /// Offered as a list filter.
    pub filter: bool,
    /// Accepted from `submit` but never read back (secrets stored hashed by a hook).
    pub write_only: bool,
}

impl FieldDef {
    pub const fn new(name: &'static str, column: &'static str, ty: FieldType) -> Self {
        FieldDef {
            name,
            column,
            ty,
            required: None,
            max_len: 0,
            writable: true,
            unique: None,
            filter: false,
            write_only: false,
        }
    }
    pub const fn required(mut self, zh: &'static str, en: &'static str) -> Self {
        self.required = Some((zh, en));
        self
    }
    pub const fn max(mut self, len: usize) -> Self {
        self.max_len = len;
        self
    }
    pub const fn unique(mut self, zh: &'static str, en: &'static str) -> Self {
        self.unique = Some((zh, en));
        self
    }
    pub const fn filter(mut self) -> Self {
        self.filter = true;
        self
    }
    pub const fn write_only(mut self) -> Self {
        self.write_only = true;
        self
    }
    pub const fn read_only(mut self) -> Self {
        self.writable = false;
        self
    }
}

/// What an entity needs beyond the declarative fields: extra checks, derived values, follow-up
/// writes and read-only fields computed per row. Every method has a do-nothing default.
pub trait Hooks: Sync + Send {
    /// An extra condition (no leading `AND`) on every list, detail, update and remove.
    fn scope<'a>(&'a self, _state: &'a SystemCtx, _caller: &'a Caller) -> HookFuture<'a, Option<Sql>> {
        Box::pin(async { Ok(None) })
    }
    /// Checks or rewrites a submitted body before the generic validation; `id` is `None` for an insert.
    fn before_save<'a>(
        &'a self,
        _state: &'a SystemCtx,
        _caller: &'a Caller,
        _id: Option<Id>,
        _body: &'a mut Map<String, Json>,
    ) -> HookFuture<'a, ()> {
        Box::pin(async { Ok(()) })
    }
    /// Follow-up writes once the row is stored.
    fn after_save<'a>(
        &'a self,
        _state: &'a SystemCtx,
        _caller: &'a Caller,
        _id: Id,
        _created: bool,
        _body: &'a Map<String, Json>,
    ) -> HookFuture<'a, ()> {
        Box::pin(async { Ok(()) })
    }
    /// Refuses a removal (e.g. rows that still have children) or cleans up around it.
    fn before_remove<'a>(
        &'a self,
        _state: &'a SystemCtx,
        _caller: &'a Caller,
        _ids: &'a [Id],
    ) -> HookFuture<'a, ()> {
        Box::pin(async { Ok(()) })
    }
    /// Adds read-only fields (names of referenced rows...) to rows about to be answered.
    fn decorate<'a>(
        &'a self,
        _state: &'a SystemCtx,
        _caller: &'a Caller,
        _rows: &'a mut [Json],
    ) -> HookFuture<'a, ()> {
        Box::pin(async { Ok(()) })
    }
}

pub type HookFuture<'a, T> =
    std::pin::Pin<Box<dyn std::future::Future<Output = Result<T, ApiError>> + Send + 'a>>;

/// The hooks of an entity that needs none.
pub struct NoHooks;
impl Hooks for NoHooks {}

pub struct EntityDef {
    /// e.g. `/api/blade-system/param`
    pub base: &'static str,
    pub table: &'static str,
    pub tenant_scoped: bool,
    /// Menu code: viewing needs the menu, changes need `{code}_add` / `_edit` / `_delete`.
    pub menu_code: &'static str,
    pub tag: &'static str,
    pub fields: &'static [FieldDef],
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
    pub hooks: &'static dyn Hooks,
}

impl std::fmt::Debug for EntityDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EntityDef")
            .field("base", &self.base)
            .field("table", &self.table)
            .finish()
    }
}

/// Defaults to start a declaration from: `EntityDef { base, table, .., ..EntityDef::DEFAULT }`.
impl EntityDef {
    pub const DEFAULT: EntityDef = EntityDef {
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

const TOO_LONG: Text = Text::new("输入内容过长", "The text is too long");

impl EntityDef {
    fn list_fields(&self) -> Vec<Field> {
        self.fields
            .iter()
            .filter(|f| f.filter || f.name == "createTime")
            .map(|f| {
                let kind = match f.ty {
                    FieldType::Text => Kind::Text,
                    FieldType::Int | FieldType::Id => Kind::Int,
                    FieldType::Float => Kind::Float,
                    FieldType::Time => Kind::Time,
                };
                Field::new(f.name, f.column, kind)
            })
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

    /// `WHERE is_deleted = 0 [AND tenant_id = ?]`
    fn scope(&self, caller: &Caller) -> Sql {
        let mut sql = Sql::new(&format!(" FROM {} WHERE is_deleted = 0", self.table));
        sql.append(&self.conditions(caller));
        sql
    }

    /// ` AND tenant_id = ?` when tenant-owned (no leading `WHERE`).
    fn conditions(&self, caller: &Caller) -> Sql {
        let mut sql = Sql::default();
        if self.tenant_scoped {
            sql.push(" AND ");
            sql.append(&caller.tenant_filter("tenant_id"));
        }
        sql
    }

    /// The tenant condition plus data scopes and the entity's own scope hook (leading ` AND`).
    async fn full_conditions(&self, state: &SystemCtx, caller: &Caller) -> Result<Sql, ApiError> {
        let mut sql = self.conditions(caller);
        if self.data_scoped
            && let Some(narrow) = crate::system::data_scope::narrow(state, caller, self.menu_code).await?
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
    async fn full_scope(&self, state: &SystemCtx, caller: &Caller) -> Result<Sql, ApiError> {
        let mut sql = Sql::new(&format!(" FROM {} WHERE is_deleted = 0", self.table));
        sql.append(&self.full_conditions(state, caller).await?);
        Ok(sql)
    }

    /// Refuses callers outside the platform tenant for platform-only entities.
    pub fn check_platform(&self, caller: &Caller) -> Result<(), ApiError> {
        if self.platform_only && caller.tenant_id != PLATFORM_TENANT {
            return Err(ApiError::Forbidden(PLATFORM_ONLY));
        }
        Ok(())
    }

    fn to_json(&self, row: &AnyRow) -> Result<Json, ApiError> {
        let mut map = Map::new();
        for f in self.fields.iter().filter(|f| !f.write_only) {
            let v = match f.ty {
                FieldType::Text => row.try_get::<Option<String>, _>(f.column)?.map(Json::String),
                FieldType::Int => row.try_get::<Option<i64>, _>(f.column)?.map(Json::from),
                FieldType::Id => row
                    .try_get::<Option<i64>, _>(f.column)?
                    .map(|v| Json::String(v.to_string())),
                FieldType::Float => row.try_get::<Option<f64>, _>(f.column)?.map(Json::from),
                FieldType::Time => row
                    .try_get::<Option<i64>, _>(f.column)?
                    .map(|v| Json::String(time::format_ms(v))),
            };
            map.insert(f.name.to_owned(), v.unwrap_or(Json::Null));
        }
        Ok(Json::Object(map))
    }
}

/// A submitted value, checked against its field; `None` when absent or blank.
fn parse_field(f: &FieldDef, raw: Option<&Json>) -> Result<Option<Value>, ApiError> {
    let bad = || {
        ApiError::bad_request(
            format!("字段 {} 的值无效", f.name),
            format!("invalid value for {}", f.name),
        )
    };
    let Some(raw) = raw.filter(|v| !v.is_null() && v.as_str().is_none_or(|s| !s.trim().is_empty())) else {
        return Ok(None);
    };
    let text = || match raw {
        Json::String(s) => Some(s.trim().to_owned()),
        Json::Number(n) => Some(n.to_string()),
        _ => None,
    };
    let v = match f.ty {
        FieldType::Text => {
            let s = text().ok_or_else(bad)?;
            if f.max_len > 0 && s.chars().count() > f.max_len {
                return Err(ApiError::BadRequest(TOO_LONG));
            }
            Value::Text(s)
        }
        FieldType::Int | FieldType::Id => Value::Int(text().and_then(|s| s.parse().ok()).ok_or_else(bad)?),
        FieldType::Float => Value::Float(text().and_then(|s| s.parse().ok()).ok_or_else(bad)?),
        FieldType::Time => Value::Int(text().and_then(|s| time::parse_ms(&s)).ok_or_else(bad)?),
    };
    Ok(Some(v))
}

fn null_of(f: &FieldDef) -> Value {
    // Typed like the column: a cached PostgreSQL statement keeps its first parameter types.
    match f.ty {
        FieldType::Text => Value::NullText,
        FieldType::Float => Value::NullFloat,
        _ => Value::Null,
    }
}

async fn list(
    def: &'static EntityDef,
    state: SystemCtx,
    caller: Caller,
    query: ListQuery,
) -> ApiResult<Data<Json>> {
    def.check_platform(&caller)?;
    caller.require(&state, def.menu_code).await?;
    let page = page(def, &state, &caller, &query, None).await?;
    Ok(Data(
        serde_json::to_value(page).map_err(|e| ApiError::Internal(e.to_string()))?,
    ))
}

/// A page of the live rows the caller may see, narrowed further by `extra` (a condition without
/// a leading `AND`), with the request's filters and sort, decorated. Checks no permission.
pub async fn page(
    def: &EntityDef,
    state: &SystemCtx,
    caller: &Caller,
    query: &ListQuery,
    extra: Option<Sql>,
) -> Result<crate::kernel::Page<Json>, ApiError> {
    let fields = def.list_fields();
    let mut from = def.full_scope(state, caller).await?;
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
pub async fn rows(
    def: &EntityDef,
    state: &SystemCtx,
    caller: &Caller,
    extra: Option<Sql>,
) -> Result<Vec<Json>, ApiError> {
    let mut sql = Sql::new(&format!("SELECT {}", def.columns()));
    sql.append(&def.full_scope(state, caller).await?);
    if let Some(extra) = extra {
        sql.push(" AND (");
        sql.append(&extra);
        sql.push(")");
    }
    sql.push(&format!(" ORDER BY {}", def.default_order));
    let (text, args) = sql.build()?;
    let found = sqlx::query_with(sqlx::AssertSqlSafe(text), args)
        .fetch_all(state.db.pool())
        .await?;
    let mut out = found
        .iter()
        .map(|row| def.to_json(row))
        .collect::<Result<Vec<_>, _>>()?;
    def.hooks.decorate(state, caller, &mut out).await?;
    Ok(out)
}

/// One live row the caller may see, as the wire JSON (decorated).
pub async fn find(
    def: &EntityDef,
    state: &SystemCtx,
    caller: &Caller,
    id: Id,
) -> Result<Option<Json>, ApiError> {
    let mut sql = Sql::new(&format!("SELECT {}", def.columns()));
    sql.append(&def.full_scope(state, caller).await?);
    sql.push_bind(" AND id = ?", [id.into()]);
    let (text, args) = sql.build()?;
    let row = sqlx::query_with(sqlx::AssertSqlSafe(text), args)
        .fetch_optional(state.db.pool())
        .await?;
    let Some(row) = row else { return Ok(None) };
    let mut rows = [def.to_json(&row)?];
    def.hooks.decorate(state, caller, &mut rows).await?;
    let [row] = rows;
    Ok(Some(row))
}

#[derive(Debug, serde::Deserialize)]
struct DetailParams {
    id: Id,
}

async fn detail(def: &'static EntityDef, state: SystemCtx, caller: Caller, id: Id) -> ApiResult<Data<Json>> {
    def.check_platform(&caller)?;
    caller.require(&state, def.menu_code).await?;
    find(def, &state, &caller, id)
        .await?
        .map(Data)
        .ok_or_else(ApiError::not_found)
}

async fn submit(
    def: &'static EntityDef,
    state: SystemCtx,
    caller: Caller,
    body: Json,
) -> ApiResult<Data<Json>> {
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
        Some(v) => Some(
            parse_field(&FieldDef::new("id", "id", FieldType::Id), Some(v))?
                .ok_or_else(ApiError::not_found)?,
        ),
    };
    let updating = id.is_some();
    caller
        .require(
            &state,
            &format!("{}_{}", def.menu_code, if updating { "edit" } else { "add" }),
        )
        .await?;
    let existing = match &id {
        Some(Value::Int(i)) => Some(Id(*i)),
        _ => None,
    };
    if let Some(own) = existing
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
    def.hooks
        .before_save(&state, &caller, existing, &mut body)
        .await?;
    let mut values: Vec<(&FieldDef, Value)> = Vec::new();
    for f in def.fields.iter().filter(|f| f.writable && f.name != "id") {
        let present = body.contains_key(f.name);
        let parsed = parse_field(f, body.get(f.name))?;
        match (parsed, &f.required) {
            (None, Some(message)) if !updating || present => {
                return Err(ApiError::BadRequest(Text::new(message.0, message.1)));
            }
            (Some(v), _) => values.push((f, v)),
            (None, None) if present => values.push((f, null_of(f))),
            (None, _) => {}
        }
    }
    for (f, v) in &values {
        let Some(message) = &f.unique else { continue };
        let mut sql = Sql::new("SELECT COUNT(*)");
        sql.append(&def.scope(&caller));
        sql.push_bind(&format!(" AND {} = ?", f.column), [v.clone()]);
        if let Some(Value::Int(own)) = &id {
            sql.push_bind(" AND id <> ?", [Value::Int(*own)]);
        }
        let (text, args) = sql.build()?;
        let n: i64 = sqlx::query_scalar_with::<Any, i64, _>(sqlx::AssertSqlSafe(text), args)
            .fetch_one(state.db.pool())
            .await?;
        if n > 0 {
            return Err(ApiError::BadRequest(Text::new(message.0, message.1)));
        }
    }
    let now = Value::Int(time::now_ms());
    let result = match id {
        None => {
            let new_id = state.ids.next();
            let mut cols = vec!["id", "create_time"];
            let mut vals = vec![Value::from(new_id), now];
            if def.audit {
                cols.push("create_user");
                vals.push(caller.user_id.into());
            }
            if def.create_dept {
                cols.push("create_dept");
                vals.push(caller.dept_id.map(Value::from).unwrap_or(Value::Null));
            }
            if def.tenant_scoped {
                cols.push("tenant_id");
                vals.push(caller.tenant_id.clone().into());
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
            run(&state, sql).await.map(|_| (new_id, true))
        }
        Some(id_value) => {
            let mut sql = Sql::new(&format!("UPDATE {} SET ", def.table));
            for (f, v) in values {
                sql.push_bind(&format!("{} = ?, ", f.column), [v]);
            }
            if def.audit {
                sql.push_bind("update_user = ?, update_time = ?", [caller.user_id.into(), now]);
            } else {
                // Every field list ends with a comma; close it with a no-op assignment.
                sql.push("id = id");
            }
            sql.push_bind(" WHERE is_deleted = 0 AND id = ?", [id_value.clone()]);
            sql.append(&def.full_conditions(&state, &caller).await?);
            match run(&state, sql).await? {
                0 => Err(ApiError::not_found()),
                _ => Ok((existing.unwrap_or(Id(0)), false)),
            }
        }
    };
    match result {
        // Two submits racing past the check: the unique index decides, with the same message.
        Err(ApiError::Database(e)) if e.as_database_error().is_some_and(|d| d.is_unique_violation()) => {
            Err(ApiError::BadRequest(
                def.fields
                    .iter()
                    .find_map(|f| f.unique)
                    .map(|(zh, en)| Text::new(zh, en))
                    .unwrap_or(Text::new("数据已存在", "Already exists")),
            ))
        }
        Err(e) => Err(e),
        Ok((stored, created)) => {
            def.hooks
                .after_save(&state, &caller, stored, created, &body)
                .await?;
            Ok(Data(Json::String(stored.to_string())))
        }
    }
}

async fn run(state: &SystemCtx, sql: Sql) -> Result<u64, ApiError> {
    let (text, args) = sql.build()?;
    Ok(sqlx::query_with(sqlx::AssertSqlSafe(text), args)
        .execute(state.db.pool())
        .await?
        .rows_affected())
}

#[derive(Debug, serde::Deserialize)]
struct RemoveParams {
    ids: String,
}

async fn remove(
    def: &'static EntityDef,
    state: SystemCtx,
    caller: Caller,
    ids: String,
) -> ApiResult<Data<u64>> {
    def.check_platform(&caller)?;
    caller
        .require(&state, &format!("{}_delete", def.menu_code))
        .await?;
    let ids = parse_id_list(&ids)
        .map_err(|e| ApiError::bad_request(format!("无效的ID：{}", e.0), e.to_string()))?;
    if ids.is_empty() {
        return Err(ApiError::bad_request(
            "请选择至少一条数据",
            "Please select at least one record",
        ));
    }
    // Only rows the caller may see are checked and removed; others are silently out of reach.
    let mut visible = Sql::new("SELECT id");
    visible.append(&def.full_scope(&state, &caller).await?);
    visible.push(" AND id IN (");
    visible.push_ids(&ids);
    visible.push(")");
    let (text, args) = visible.build()?;
    let ids: Vec<Id> = sqlx::query_scalar_with::<Any, i64, _>(sqlx::AssertSqlSafe(text), args)
        .fetch_all(state.db.pool())
        .await?
        .into_iter()
        .map(Id)
        .collect();
    if ids.is_empty() {
        return Ok(Data(0));
    }
    def.hooks.before_remove(&state, &caller, &ids).await?;
    let mut sql = Sql::default();
    if def.audit {
        sql.push_bind(
            &format!(
                "UPDATE {} SET is_deleted = 1, update_user = ?, update_time = ?",
                def.table
            ),
            [caller.user_id.into(), Value::Int(time::now_ms())],
        );
    } else {
        sql.push(&format!("UPDATE {} SET is_deleted = 1", def.table));
    }
    sql.push(" WHERE is_deleted = 0 AND id IN (");
    sql.push_ids(&ids);
    sql.push(")");
    Ok(Data(run(&state, sql).await?))
}

/// Mounts the four routes of `def` and describes them in the document.
pub fn mount<S>(mut router: OpenApiRouter<S>, def: &'static EntityDef) -> OpenApiRouter<S>
where
    S: Clone + Send + Sync + 'static,
    crate::kernel::Core: axum::extract::FromRef<S>,
    SystemCtx: axum::extract::FromRef<S>,
{
    document(router.get_openapi_mut(), def);
    if !def.own_list {
        router = router.route(
            &format!("{}/list", def.base),
            get(move |State(s): State<SystemCtx>, c: Caller, q: ListQuery| list(def, s, c, q)),
        );
    }
    router
        .route(
            &format!("{}/detail", def.base),
            get(
                move |State(s): State<SystemCtx>, c: Caller, Query(p): Query<DetailParams>| {
                    detail(def, s, c, p.id)
                },
            ),
        )
        .route(
            &format!("{}/submit", def.base),
            post(
                move |State(s): State<SystemCtx>, c: Caller, JsonBody(b): JsonBody<Json>| {
                    submit(def, s, c, b)
                },
            ),
        )
        .route(
            &format!("{}/remove", def.base),
            post(
                move |State(s): State<SystemCtx>, c: Caller, Query(p): Query<RemoveParams>| {
                    remove(def, s, c, p.ids)
                },
            ),
        )
}

fn document(doc: &mut utoipa::openapi::OpenApi, def: &EntityDef) {
    let envelope = || {
        ResponseBuilder::new()
            .description("Envelope {code, success, data, msg}")
            .content(
                "application/json",
                Content::new(None::<utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>>),
            )
            .build()
    };
    let query = |name: &str, description: String, required: bool| {
        ParameterBuilder::new()
            .name(name)
            .parameter_in(ParameterIn::Query)
            .required(if required { Required::True } else { Required::False })
            .description(Some(description))
            .build()
    };
    let fields: Vec<&str> = def.fields.iter().filter(|f| f.filter).map(|f| f.name).collect();
    let mut list = OperationBuilder::new()
        .tag(def.tag)
        .summary(Some(format!(
            "Page of {} (filters: {}, createTime_datege/_datelt)",
            def.table,
            fields.join(", ")
        )))
        .parameter(query("current", "Page, from 1".into(), false))
        .parameter(query("size", "Page size (10/30/50/100/200)".into(), false))
        .parameter(query("ascs", "Sort ascending by".into(), false))
        .parameter(query("descs", "Sort descending by".into(), false));
    for f in &fields {
        list = list.parameter(query(
            f,
            format!("Filter on {f} (text: contains; suffixes _equal, _like, ...)"),
            false,
        ));
    }
    let ops = [
        ("list", HttpMethod::Get, list.response("200", envelope()).build()),
        (
            "detail",
            HttpMethod::Get,
            OperationBuilder::new()
                .tag(def.tag)
                .summary(Some(format!("One row of {}", def.table)))
                .parameter(query("id", "Id".into(), true))
                .response("200", envelope())
                .build(),
        ),
        (
            "submit",
            HttpMethod::Post,
            OperationBuilder::new()
                .tag(def.tag)
                .summary(Some(format!(
                    "Insert (no id) or update (with id) a row of {}",
                    def.table
                )))
                .request_body(Some(
                    RequestBodyBuilder::new()
                        .description(Some(format!(
                            "JSON object with {}",
                            def.fields
                                .iter()
                                .filter(|f| f.writable)
                                .map(|f| f.name)
                                .collect::<Vec<_>>()
                                .join(", ")
                        )))
                        .build(),
                ))
                .response("200", envelope())
                .build(),
        ),
        (
            "remove",
            HttpMethod::Post,
            OperationBuilder::new()
                .tag(def.tag)
                .summary(Some(format!("Logically delete rows of {}", def.table)))
                .parameter(query("ids", "Comma-joined ids".into(), true))
                .response("200", envelope())
                .build(),
        ),
    ];
    for (suffix, method, op) in ops {
        if suffix == "list" && def.own_list {
            continue;
        }
        doc.paths
            .add_path_operation(format!("{}/{suffix}", def.base), vec![method], op);
    }
}
