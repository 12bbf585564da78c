//! Roles (`/api/blade-system/role`): a tenant's roles as a tree, and what they are granted (web
//! menus, app menus, data scopes, API scopes).
//!
//! Roles belong to tenants. A platform (`000000`) administrator may manage any tenant's roles
//! (naming the tenant with `tenantId` on create); everyone else only their own tenant's, and
//! may only grant what their own roles hold. Grants never reach past the tenant's package.

use std::collections::{HashMap, HashSet};

use axum::extract::State;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value as Json};
use utoipa::{IntoParams, ToSchema};

use super::access::{self, HAS_CHILDREN, NOT_HELD, OUTSIDE_PACKAGE, is_platform};
use super::entities::{Col, EntityDef, HookFuture, Hooks, Ty};
use super::tree::{IdList, TreeNode, forest, nodes};
use crate::auth::Caller;
use crate::kernel::Core;
use crate::kernel::extract::{Json as JsonBody, Query};
use crate::kernel::lang::{Lang, Text};
use crate::kernel::sql::{Sql, Value, like_contains};
use crate::kernel::{ApiError, ApiResult, Data, Envelope, Id};
use crate::system::context::SystemCtx;

const ALIAS_TAKEN: Text = Text::new("角色别名已存在", "This role alias already exists");
const PARENT_MISSING: Text = Text::new("上级角色不存在", "The parent role does not exist");
const PARENT_LOOP: Text = Text::new(
    "上级角色不能是自己或下级角色",
    "A role cannot be placed under itself or one of its descendants",
);
const TENANT_MISSING: Text = Text::new("租户不存在", "The tenant does not exist");
const IN_USE: Text = Text::new(
    "该角色已分配给用户，无法删除",
    "This role is still assigned to users",
);
const NO_ROLE: Text = Text::new("请选择角色", "Please select a role");
const SCOPE_OUTSIDE: Text = Text::new(
    "所选权限不存在或超出可授权范围",
    "Some of the chosen scopes do not exist or cannot be granted",
);

pub static ROLE: EntityDef = EntityDef {
    base: "/api/blade-system/role",
    table: "blade_role",
    // Tenancy lives in the hooks: the platform reaches every tenant's roles.
    tenant_scoped: false,
    menu_code: "role",
    tag: "system",
    fields: &[
        Col::of("id", "id", Ty::Id).read_only(),
        Col::of("tenantId", "tenant_id", Ty::TEXT).max(12),
        Col::of("parentId", "parent_id", Ty::Id),
        Col::of("roleName", "role_name", Ty::TEXT)
            .required_as("请输入角色名称", "Please enter the role name")
            .max(255)
            .filter(),
        Col::of("roleAlias", "role_alias", Ty::TEXT)
            .required_as("请输入角色别名", "Please enter the role alias")
            .max(255)
            .filter(),
        Col::of("sort", "sort", Ty::INT).required_as("请输入角色排序", "Please enter the sort order"),
    ],
    default_order: "sort ASC, id ASC",
    audit: false,
    own_list: true,
    hooks: &RoleHooks,
    ..EntityDef::DEFAULT
};

struct RoleHooks;

impl Hooks<SystemCtx, Caller> for RoleHooks {
    fn scope<'a>(&'a self, _state: &'a SystemCtx, caller: &'a Caller) -> HookFuture<'a, Option<Sql>> {
        Box::pin(async move { Ok((!is_platform(caller)).then(|| caller.tenant_filter("tenant_id"))) })
    }

    fn before_save<'a>(
        &'a self,
        state: &'a SystemCtx,
        caller: &'a Caller,
        id: Option<Id>,
        body: &'a mut Map<String, Json>,
    ) -> HookFuture<'a, ()> {
        Box::pin(async move {
            let tenant = match id {
                Some(id) => {
                    // A role never moves between tenants.
                    body.remove("tenantId");
                    let mut sql = Sql::new("SELECT tenant_id FROM blade_role WHERE ");
                    sql.push_bind("id = ?", [id.into()]);
                    text_of(state, sql).await?.ok_or_else(ApiError::not_found)?
                }
                None => {
                    let wanted = access::text(body, "tenantId").filter(|_| is_platform(caller));
                    let tenant = match wanted {
                        Some(t) if t != caller.tenant_id => {
                            super::tenant::find(state, &t)
                                .await?
                                .ok_or(ApiError::BadRequest(TENANT_MISSING))?
                                .tenant_id
                        }
                        _ => caller.tenant_id.clone(),
                    };
                    body.insert("tenantId".into(), Json::String(tenant.clone()));
                    tenant
                }
            };
            if let Some(parent) = access::parent_id(body, id.is_none())?
                && parent.0 != 0
            {
                let mut sql = Sql::new("SELECT tenant_id FROM blade_role WHERE is_deleted = 0 AND ");
                sql.push_bind("id = ?", [parent.into()]);
                if text_of(state, sql).await?.as_deref() != Some(tenant.as_str()) {
                    return Err(ApiError::BadRequest(PARENT_MISSING));
                }
                if let Some(own) = id {
                    let pairs = tenant_pairs(state, &tenant).await?;
                    if access::is_self_or_below(own, parent, &pairs) {
                        return Err(ApiError::BadRequest(PARENT_LOOP));
                    }
                }
            }
            if let Some(alias) = access::text(body, "roleAlias") {
                let mut sql = Sql::new("SELECT id FROM blade_role WHERE is_deleted = 0");
                // The tenant as a value: a platform administrator may save a named tenant's role.
                sql.push_bind(
                    " AND tenant_id = ? AND role_alias = ?",
                    [Value::Text(tenant), Value::Text(alias)],
                );
                if let Some(own) = id {
                    sql.push_bind(" AND id <> ?", [own.into()]);
                }
                if !sql.scalars::<Id, _>(state.db.pool()).await?.is_empty() {
                    return Err(ApiError::BadRequest(ALIAS_TAKEN));
                }
            }
            Ok(())
        })
    }

    fn before_remove<'a>(
        &'a self,
        state: &'a SystemCtx,
        _caller: &'a Caller,
        ids: &'a [Id],
    ) -> HookFuture<'a, ()> {
        Box::pin(async move {
            if access::has_children_outside(state, "blade_role", ids).await? {
                return Err(ApiError::BadRequest(HAS_CHILDREN));
            }
            let mut sql = Sql::new(
                "SELECT u.id FROM blade_user_role ur JOIN blade_user u ON u.id = ur.user_id AND u.is_deleted = 0 \
                 WHERE ur.role_id IN (",
            );
            sql.push_ids(ids);
            sql.push(") LIMIT 1");
            if !sql.scalars::<Id, _>(state.db.pool()).await?.is_empty() {
                return Err(ApiError::BadRequest(IN_USE));
            }
            Ok(())
        })
    }

    fn decorate<'a>(
        &'a self,
        state: &'a SystemCtx,
        _caller: &'a Caller,
        rows: &'a mut [Json],
    ) -> HookFuture<'a, ()> {
        Box::pin(async move {
            let parents: Vec<Id> = rows
                .iter()
                .filter_map(|r| r["parentId"].as_str()?.parse().ok())
                .filter(|p: &Id| p.0 != 0)
                .collect();
            let names = role_names(state, &parents).await?;
            for row in rows.iter_mut() {
                let parent = row["parentId"].as_str().and_then(|p| p.parse::<Id>().ok());
                let name = parent.and_then(|p| names.get(&p)).cloned().unwrap_or_default();
                if let Json::Object(map) = row {
                    map.insert("parentName".into(), Json::String(name));
                }
            }
            Ok(())
        })
    }
}

async fn text_of(state: &Core, sql: Sql) -> Result<Option<String>, ApiError> {
    sql.scalar_optional::<String, _>(state.db.pool()).await
}

/// (id, parent) of every live role of a tenant.
async fn tenant_pairs(state: &Core, tenant: &str) -> Result<Vec<(Id, Id)>, ApiError> {
    Ok(load(state, Some(tenant), &Filters::default())
        .await?
        .iter()
        .map(|r| (r.id, r.parent_id))
        .collect())
}

/// The names the platform's and a new tenant's roles (and the demo's) are created with, and
/// their English.
/// Role names are the administrator's free text with no English column: a role still carrying
/// its default name is shown in English on an English console; a renamed one as it was named.
const DEFAULT_ROLE_NAMES: [(&str, &str); 5] = [
    ("超级管理员", "Super administrator"),
    ("管理员", "Administrator"),
    ("普通用户", "User"),
    ("业主", "Owner"),
    ("运维人员", "Maintenance staff"),
];

/// A role's name as lists and pickers show it in the request's language. Edit forms read the
/// generic `detail`, which keeps the stored name, so saving a row shown in English renames nothing.
pub fn shown_role_name(name: String) -> String {
    if Lang::current() == Lang::En
        && let Some((_, en)) = DEFAULT_ROLE_NAMES.iter().find(|(zh, _)| *zh == name.trim())
    {
        return (*en).to_owned();
    }
    name
}

async fn role_names(state: &Core, ids: &[Id]) -> Result<HashMap<Id, String>, ApiError> {
    if ids.is_empty() {
        return Ok(HashMap::new());
    }
    let mut sql = Sql::new("SELECT id, role_name FROM blade_role WHERE id IN (");
    sql.push_ids(ids);
    sql.push(")");
    let rows: Vec<(i64, String)> = sql.fetch_all::<(i64, String), _>(state.db.pool()).await?;
    Ok(rows
        .into_iter()
        .map(|(id, n)| (Id(id), shown_role_name(n)))
        .collect())
}

#[derive(Debug, Clone, sqlx::FromRow)]
struct RoleRow {
    id: Id,
    tenant_id: String,
    parent_id: Id,
    role_name: String,
    role_alias: String,
    sort: i64,
}

#[derive(Debug, Default)]
struct Filters {
    role_name: Option<String>,
    role_alias: Option<String>,
}

/// Live roles of one tenant (every tenant with `None`), in display order.
async fn load(state: &Core, tenant: Option<&str>, f: &Filters) -> Result<Vec<RoleRow>, ApiError> {
    let mut sql = Sql::new(
        "SELECT id, tenant_id, parent_id, role_name, role_alias, sort FROM blade_role WHERE is_deleted = 0",
    );
    if let Some(t) = tenant {
        // The tenant as a value: platform administrators list any tenant's roles (or all).
        sql.push_bind(" AND tenant_id = ?", [Value::from(t)]);
    }
    for (column, v) in [("role_name", &f.role_name), ("role_alias", &f.role_alias)] {
        if let Some(v) = v.as_deref().map(str::trim).filter(|v| !v.is_empty()) {
            sql.push_bind(
                &format!(" AND LOWER({column}) LIKE LOWER(?) ESCAPE '\\'"),
                [Value::Text(like_contains(v))],
            );
        }
    }
    sql.push(" ORDER BY sort, id");
    sql.fetch_all::<RoleRow, _>(state.db.pool()).await
}

/// The tenant a read names: the platform may pick one, everyone else reads their own.
fn target_tenant(caller: &Caller, wanted: Option<&str>) -> String {
    match wanted.map(str::trim).filter(|t| !t.is_empty()) {
        Some(t) if is_platform(caller) => t.to_owned(),
        _ => caller.tenant_id.clone(),
    }
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
pub struct RoleListParams {
    pub role_name: Option<String>,
    pub role_alias: Option<String>,
    /// Platform only: one tenant's roles (default: every tenant's for the platform).
    pub tenant_id: Option<String>,
}

/// A role as the list and detail show it.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RoleEntity {
    // In the order of the wire names, as the list has always sent them.
    #[schema(no_recursion)]
    pub children: Vec<RoleEntity>,
    pub has_children: bool,
    pub id: Id,
    pub parent_id: Id,
    pub parent_name: String,
    pub role_alias: String,
    pub role_name: String,
    pub sort: i64,
    pub tenant_id: String,
}

/// The roles as a tree list (filters keep matches whose parents do not match as roots).
#[utoipa::path(get, path = "/api/blade-system/role/list", tag = "system", params(RoleListParams),
    responses((status = 200, body = Envelope<Vec<RoleEntity>>), (status = 401), (status = 403)))]
pub async fn list(
    State(state): State<SystemCtx>,
    caller: Caller,
    Query(p): Query<RoleListParams>,
) -> ApiResult<Data<Vec<RoleEntity>>> {
    caller.require(&state, ROLE.menu_code).await?;
    let tenant = match p.tenant_id.as_deref().map(str::trim).filter(|t| !t.is_empty()) {
        None if is_platform(&caller) => None,
        wanted => Some(target_tenant(&caller, wanted)),
    };
    let filters = Filters {
        role_name: p.role_name,
        role_alias: p.role_alias,
    };
    let rows = load(&state, tenant.as_deref(), &filters).await?;
    let mut parents: Vec<Id> = rows.iter().map(|r| r.parent_id).filter(|p| p.0 != 0).collect();
    parents.sort_unstable();
    parents.dedup();
    let names = role_names(&state, &parents).await?;
    let items = rows.into_iter().map(|r| (r.id, r.parent_id, r)).collect();
    Ok(Data(forest(
        items,
        &mut |_, _, r: RoleRow, children: Vec<RoleEntity>| RoleEntity {
            has_children: !children.is_empty(),
            children,
            id: r.id,
            parent_id: r.parent_id,
            parent_name: names.get(&r.parent_id).cloned().unwrap_or_default(),
            role_alias: r.role_alias,
            role_name: shown_role_name(r.role_name),
            sort: r.sort,
            tenant_id: r.tenant_id,
        },
    )))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
pub struct TenantParams {
    /// Platform only: another tenant's roles.
    pub tenant_id: Option<String>,
}

/// The tenant's roles as selector nodes (role pickers of the user and grant screens).
#[utoipa::path(get, path = "/api/blade-system/role/tree", tag = "system", params(TenantParams),
    responses((status = 200, body = Envelope<Vec<TreeNode>>), (status = 401)))]
pub async fn tree(
    State(state): State<SystemCtx>,
    caller: Caller,
    Query(p): Query<TenantParams>,
) -> ApiResult<Data<Vec<TreeNode>>> {
    let tenant = target_tenant(&caller, p.tenant_id.as_deref());
    let rows = load(&state, Some(&tenant), &Filters::default()).await?;
    Ok(Data(nodes(
        rows.into_iter()
            .map(|r| (r.id, r.parent_id, shown_role_name(r.role_name)))
            .collect(),
    )))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
pub struct RoleIdParams {
    pub role_id: Id,
}

/// One role and the roles below it, as selector nodes (empty for a role the caller cannot see).
#[utoipa::path(get, path = "/api/blade-system/role/tree-by-id", tag = "system", params(RoleIdParams),
    responses((status = 200, body = Envelope<Vec<TreeNode>>), (status = 401)))]
pub async fn tree_by_id(
    State(state): State<SystemCtx>,
    caller: Caller,
    Query(p): Query<RoleIdParams>,
) -> ApiResult<Data<Vec<TreeNode>>> {
    let Some((_, tenant)) = access::manageable_roles(&state, &caller, &[p.role_id])
        .await?
        .into_iter()
        .next()
    else {
        return Ok(Data(Vec::new()));
    };
    let rows = load(&state, Some(&tenant), &Filters::default()).await?;
    let pairs: Vec<(Id, Id)> = rows.iter().map(|r| (r.id, r.parent_id)).collect();
    let subtree: Vec<(Id, Id, String)> = rows
        .into_iter()
        .filter(|r| access::is_self_or_below(p.role_id, r.id, &pairs))
        .map(|r| (r.id, r.parent_id, shown_role_name(r.role_name)))
        .collect();
    Ok(Data(nodes(subtree)))
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RoleOption {
    pub id: Id,
    pub role_name: String,
    pub role_alias: String,
}

/// The tenant's roles, flat (select boxes).
#[utoipa::path(get, path = "/api/blade-system/role/rolelist", tag = "system", params(TenantParams),
    responses((status = 200, body = Envelope<Vec<RoleOption>>), (status = 401)))]
pub async fn rolelist(
    State(state): State<SystemCtx>,
    caller: Caller,
    Query(p): Query<TenantParams>,
) -> ApiResult<Data<Vec<RoleOption>>> {
    let tenant = target_tenant(&caller, p.tenant_id.as_deref());
    let rows = load(&state, Some(&tenant), &Filters::default()).await?;
    Ok(Data(
        rows.into_iter()
            .map(|r| RoleOption {
                id: r.id,
                role_name: shown_role_name(r.role_name),
                role_alias: r.role_alias,
            })
            .collect(),
    ))
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct GrantBody {
    #[serde(default)]
    pub role_ids: IdList,
    #[serde(default)]
    pub menu_ids: IdList,
    #[serde(default)]
    pub data_scope_ids: IdList,
    #[serde(default)]
    pub api_scope_ids: IdList,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Web,
    App,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Web => "web",
            Kind::App => "app",
        }
    }
}

/// Replaces the roles' web menus, data scopes and API scopes.
#[utoipa::path(post, path = "/api/blade-system/role/grant", tag = "system", request_body = GrantBody,
    responses((status = 200, body = Envelope<bool>), (status = 400), (status = 403), (status = 404)))]
pub async fn grant(
    State(state): State<SystemCtx>,
    caller: Caller,
    JsonBody(body): JsonBody<GrantBody>,
) -> ApiResult<Data<bool>> {
    apply_grant(&state, &caller, body, Kind::Web).await
}

/// Replaces the roles' app menus only (scope lists are ignored).
#[utoipa::path(post, path = "/api/blade-system/role/grant-app", tag = "system", request_body = GrantBody,
    responses((status = 200, body = Envelope<bool>), (status = 400), (status = 403), (status = 404)))]
pub async fn grant_app(
    State(state): State<SystemCtx>,
    caller: Caller,
    JsonBody(body): JsonBody<GrantBody>,
) -> ApiResult<Data<bool>> {
    apply_grant(&state, &caller, body, Kind::App).await
}

async fn apply_grant(state: &Core, caller: &Caller, body: GrantBody, kind: Kind) -> ApiResult<Data<bool>> {
    caller.require(state, "role_grant").await?;
    let role_ids = body.role_ids.0;
    if role_ids.is_empty() {
        return Err(ApiError::BadRequest(NO_ROLE));
    }
    // Every named role must be the caller's to manage, or nothing changes.
    let roles = access::manageable_roles(state, caller, &role_ids).await?;
    if roles.len() != role_ids.len() {
        return Err(ApiError::not_found());
    }
    let menus = super::menu::all_menus(state).await?;
    let tenants: HashSet<&str> = roles.iter().map(|(_, t)| t.as_str()).collect();
    let mut grantable_all: Option<HashSet<Id>> = None;
    for tenant in tenants {
        let (in_package, grantable) = access::grantable(state, caller, tenant, &menus).await?;
        if body.menu_ids.0.iter().any(|m| !in_package.contains(m)) {
            return Err(ApiError::BadRequest(OUTSIDE_PACKAGE));
        }
        if body.menu_ids.0.iter().any(|m| !grantable.contains(m)) {
            return Err(ApiError::BadRequest(NOT_HELD));
        }
        grantable_all = Some(match grantable_all {
            None => grantable,
            Some(g) => g.intersection(&grantable).copied().collect(),
        });
    }
    let grantable = grantable_all.unwrap_or_default();
    let (data_scopes, api_scopes) = match kind {
        Kind::App => (Vec::new(), Vec::new()),
        Kind::Web => (
            check_scopes(
                state,
                caller,
                "blade_scope_data",
                1,
                &body.data_scope_ids.0,
                &grantable,
            )
            .await?,
            check_scopes(
                state,
                caller,
                "blade_scope_api",
                2,
                &body.api_scope_ids.0,
                &grantable,
            )
            .await?,
        ),
    };
    let mut tx = state.db.begin_write().await?;
    for (role, _) in &roles {
        let mut sql = Sql::default();
        sql.push_bind(
            "DELETE FROM blade_role_menu WHERE role_id = ? AND kind = ?",
            [Value::from(*role), Value::from(kind.name())],
        );
        sql.execute(&mut *tx).await?;
        for menu in &body.menu_ids.0 {
            let mut sql = Sql::default();
            sql.push_bind(
                "INSERT INTO blade_role_menu (role_id, menu_id, kind) VALUES (?, ?, ?)",
                [Value::from(*role), Value::from(*menu), Value::from(kind.name())],
            );
            sql.execute(&mut *tx).await?;
        }
        if kind == Kind::Web {
            let mut sql = Sql::default();
            sql.push_bind(
                "DELETE FROM blade_role_scope WHERE role_id = ?",
                [Value::from(*role)],
            );
            sql.execute(&mut *tx).await?;
            for (category, ids) in [(1, &data_scopes), (2, &api_scopes)] {
                for scope in ids {
                    let mut sql = Sql::default();
                    sql.push_bind(
                        "INSERT INTO blade_role_scope (role_id, scope_id, scope_category) VALUES (?, ?, ?)",
                        [Value::from(*role), Value::from(*scope), Value::Int(category)],
                    );
                    sql.execute(&mut *tx).await?;
                }
            }
        }
    }
    tx.commit().await?;
    Ok(Data(true))
}

/// The scope ids, each live and hanging on a menu the caller may grant. API scopes need more
/// from callers outside the platform: their own roles must hold the scope (or be administrators),
/// since an API scope opens calls rather than narrowing them.
async fn check_scopes(
    state: &Core,
    caller: &Caller,
    table: &str,
    category: i64,
    ids: &[Id],
    grantable: &HashSet<Id>,
) -> Result<Vec<Id>, ApiError> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let mut sql = Sql::new(&format!(
        "SELECT id, menu_id FROM {table} WHERE is_deleted = 0 AND id IN ("
    ));
    sql.push_ids(ids);
    sql.push(")");
    let rows: Vec<(i64, i64)> = sql.fetch_all::<(i64, i64), _>(state.db.pool()).await?;
    if rows.len() != ids.len() || rows.iter().any(|(_, menu)| !grantable.contains(&Id(*menu))) {
        return Err(ApiError::BadRequest(SCOPE_OUTSIDE));
    }
    if category == 2 && !is_platform(caller) && !caller.role_ids.is_empty() {
        let mut sql = Sql::new("SELECT id FROM blade_role WHERE is_deleted = 0");
        sql.push_bind(
            " AND role_alias = ? AND id IN (",
            [Value::from(super::seed::ADMIN_ROLE_ALIAS)],
        );
        sql.push_ids(&caller.role_ids);
        sql.push(")");
        let administrator = !sql.scalars::<Id, _>(state.db.pool()).await?.is_empty();
        if !administrator {
            let mut sql = Sql::new(
                "SELECT DISTINCT scope_id FROM blade_role_scope WHERE scope_category = 2 AND role_id IN (",
            );
            sql.push_ids(&caller.role_ids);
            sql.push(")");
            let held: HashSet<Id> = sql.scalars::<Id, _>(state.db.pool()).await?.into_iter().collect();
            if ids.iter().any(|id| !held.contains(id)) {
                return Err(ApiError::BadRequest(NOT_HELD));
            }
        }
    }
    Ok(ids.to_vec())
}
