//! Menu administration (`/api/blade-system/menu/...`): the menu tree as lists and selector trees,
//! the generic detail/submit/remove, and the trees the grant dialogs pick from.
//!
//! Menus are platform data: only the platform tenant changes them. Others with the `menu`
//! permission read the menus of their package. Grant trees show what the caller may hand out
//! (the tenant's package, and for callers outside the platform what their own roles hold).

use std::collections::{HashMap, HashSet};

use axum::extract::State;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value as Json};
use utoipa::{IntoParams, ToSchema};

use super::access::{self, HAS_CHILDREN, is_platform, require_platform};
use super::entities::{Col, EntityDef, HookFuture, Hooks, PLATFORM_TENANT, Ty};
use super::menu::{CATEGORY_BUTTON, CATEGORY_MENU, MenuRow, all_menus, with_ancestors};
use super::tree::{TreeNode, forest, nodes};
use crate::auth::Caller;
use crate::kernel::Core;
use crate::kernel::extract::Query;
use crate::kernel::id::parse_id_list;
use crate::kernel::lang::{Lang, Text};
use crate::kernel::sql::{Sql, Value};
use crate::kernel::{ApiError, ApiResult, Data, Envelope, Id};
use crate::system::context::SystemCtx;

const PARENT_MISSING: Text = Text::new("上级菜单不存在", "The parent menu does not exist");
const PARENT_LOOP: Text = Text::new(
    "上级菜单不能是自己或下级菜单",
    "A menu cannot be placed under itself or one of its descendants",
);
const BAD_CATEGORY: Text = Text::new("菜单类型无效", "Invalid menu type");
const BAD_OPEN: Text = Text::new("打开方式无效", "Invalid way of opening");
const BUILT_IN_CODE: Text = Text::new(
    "系统内置菜单的编号不可修改",
    "The code of a built-in menu cannot be changed",
);
const BUILT_IN_REMOVE: Text = Text::new("系统内置菜单不可删除", "Built-in menus cannot be deleted");

pub static MENU: EntityDef = EntityDef {
    base: "/api/blade-system/menu",
    table: "blade_menu",
    tenant_scoped: false,
    menu_code: "menu",
    tag: "system",
    fields: &[
        Col::of("id", "id", Ty::Id).read_only(),
        Col::of("parentId", "parent_id", Ty::Id),
        Col::of("code", "code", Ty::TEXT)
            .required_as("请输入菜单编号", "Please enter the menu code")
            .max(255)
            .unique("菜单编号已存在", "This menu code already exists"),
        Col::of("name", "name", Ty::TEXT)
            .required_as("请输入菜单名称", "Please enter the menu name")
            .max(255),
        Col::of("nameEn", "name_en", Ty::TEXT).max(255),
        Col::of("alias", "alias", Ty::TEXT).max(255),
        Col::of("path", "path", Ty::TEXT).max(255),
        Col::of("source", "source", Ty::TEXT).max(255),
        Col::of("sort", "sort", Ty::INT).required_as("请输入菜单排序", "Please enter the sort order"),
        Col::of("category", "category", Ty::INT).required_as("请选择菜单类型", "Please select the menu type"),
        Col::of("action", "action", Ty::INT),
        Col::of("isOpen", "is_open", Ty::INT),
        Col::of("remark", "remark", Ty::TEXT).max(255),
    ],
    default_order: "sort ASC, id ASC",
    audit: false,
    own_list: true,
    hooks: &MenuHooks,
    ..EntityDef::DEFAULT
};

struct MenuHooks;

/// Codes of the product's own menus (`seed/menus.toml`). The start-up sync recognises them by
/// code, so they keep their codes and are not removed: a removed or renamed one would come back
/// as a fresh copy at the next start.
fn built_in(code: &str) -> bool {
    super::seed::product_menus().is_ok_and(|menus| menus.iter().any(|m| m.code == code))
}

impl Hooks<SystemCtx, Caller> for MenuHooks {
    fn scope<'a>(&'a self, state: &'a SystemCtx, caller: &'a Caller) -> HookFuture<'a, Option<Sql>> {
        Box::pin(async move {
            let Some(ids) = readable(state, caller, &all_menus(state).await?).await? else {
                return Ok(None);
            };
            if ids.is_empty() {
                return Ok(Some(Sql::new("1 = 0")));
            }
            let ids: Vec<Id> = ids.into_iter().collect();
            let mut sql = Sql::new("id IN (");
            sql.push_ids(&ids);
            sql.push(")");
            Ok(Some(sql))
        })
    }

    fn before_save<'a>(
        &'a self,
        state: &'a SystemCtx,
        caller: &'a Caller,
        id: Option<Id>,
        body: &'a mut Map<String, Json>,
    ) -> HookFuture<'a, ()> {
        Box::pin(async move {
            require_platform(caller)?;
            let menus = all_menus(state).await?;
            let by_id = access::by_id(&menus);
            if let Some(parent) = access::parent_id(body, id.is_none())?
                && parent.0 != 0
            {
                if !by_id.contains_key(&parent) {
                    return Err(ApiError::BadRequest(PARENT_MISSING));
                }
                if let Some(own) = id {
                    let pairs: Vec<(Id, Id)> = menus.iter().map(|m| (m.id, m.parent_id)).collect();
                    if access::is_self_or_below(own, parent, &pairs) {
                        return Err(ApiError::BadRequest(PARENT_LOOP));
                    }
                }
            }
            if let Some(category) = access::int(body, "category")?
                && category != CATEGORY_MENU
                && category != CATEGORY_BUTTON
            {
                return Err(ApiError::BadRequest(BAD_CATEGORY));
            }
            // Optional integers with column defaults: blank means "keep the default / the value".
            access::drop_blank(body, "action");
            access::drop_blank(body, "isOpen");
            if let Some(open) = access::int(body, "isOpen")?
                && open != 1
                && open != 2
            {
                return Err(ApiError::BadRequest(BAD_OPEN));
            }
            if let Some(own) = id
                && let Some(current) = by_id.get(&own)
                && let Some(code) = access::text(body, "code")
                && code != current.code
                && built_in(&current.code)
            {
                return Err(ApiError::BadRequest(BUILT_IN_CODE));
            }
            Ok(())
        })
    }

    fn after_save<'a>(
        &'a self,
        state: &'a SystemCtx,
        _caller: &'a Caller,
        id: Id,
        created: bool,
        _body: &'a Map<String, Json>,
    ) -> HookFuture<'a, ()> {
        Box::pin(async move {
            if !created {
                return Ok(());
            }
            // As the start-up sync does for new product menus: the platform's administrators
            // keep seeing every menu. Tenants get it through their packages and grants.
            let mut sql = Sql::default();
            // The platform tenant as a value: its roles are meant, not the caller's tenant's.
            sql.push_bind(
                "INSERT INTO blade_role_menu (role_id, menu_id, kind) \
                 SELECT id, ?, 'web' FROM blade_role WHERE tenant_id = ? AND role_alias = ? AND is_deleted = 0",
                [
                    Value::from(id),
                    Value::from(PLATFORM_TENANT),
                    Value::from(super::seed::ADMIN_ROLE_ALIAS),
                ],
            );
            sql.execute(state.db.pool()).await?;
            Ok(())
        })
    }

    fn before_remove<'a>(
        &'a self,
        state: &'a SystemCtx,
        caller: &'a Caller,
        ids: &'a [Id],
    ) -> HookFuture<'a, ()> {
        Box::pin(async move {
            require_platform(caller)?;
            let menus = all_menus(state).await?;
            if menus.iter().any(|m| ids.contains(&m.id) && built_in(&m.code)) {
                return Err(ApiError::BadRequest(BUILT_IN_REMOVE));
            }
            if access::has_children_outside(state, "blade_menu", ids).await? {
                return Err(ApiError::BadRequest(HAS_CHILDREN));
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
            let menus = all_menus(state).await?;
            let by_id = access::by_id(&menus);
            for row in rows.iter_mut() {
                let parent = row["parentId"].as_str().and_then(|p| p.parse::<Id>().ok());
                let name = parent
                    .and_then(|p| by_id.get(&p))
                    .map(|m| title(m))
                    .unwrap_or_default();
                if let Json::Object(map) = row {
                    map.insert("parentName".into(), Json::String(name));
                }
            }
            Ok(())
        })
    }
}

/// The menu ids a non-platform caller may read (their package with ancestors); `None` = all.
async fn readable(state: &Core, caller: &Caller, menus: &[MenuRow]) -> Result<Option<HashSet<Id>>, ApiError> {
    if is_platform(caller) {
        return Ok(None);
    }
    if crate::auth::package::package_menus(state, &caller.tenant_id)
        .await?
        .is_none()
    {
        return Ok(None);
    }
    Ok(Some(access::tenant_menus(state, &caller.tenant_id, menus).await?))
}

/// The menu's name in the request's language.
fn title(m: &MenuRow) -> String {
    match Lang::current() {
        Lang::En => m
            .name_en
            .clone()
            .filter(|n| !n.is_empty())
            .unwrap_or_else(|| m.name.clone()),
        Lang::Zh => m.name.clone(),
    }
}

/// The full rows (the shared `MenuRow` leaves out the remark), in display order.
#[derive(Debug, Clone, sqlx::FromRow)]
struct MenuEntityRow {
    id: Id,
    parent_id: Id,
    code: String,
    name: String,
    name_en: Option<String>,
    alias: Option<String>,
    path: Option<String>,
    source: Option<String>,
    sort: i64,
    category: i64,
    action: i64,
    is_open: i64,
    remark: Option<String>,
}

async fn entity_rows(state: &Core) -> Result<Vec<MenuEntityRow>, ApiError> {
    Sql::new("SELECT id, parent_id, code, name, name_en, alias, path, source, sort, category, action, is_open, remark \
         FROM blade_menu WHERE is_deleted = 0 ORDER BY sort, id").fetch_all::<MenuEntityRow, _>(state.db.pool())
    .await
}

impl MenuEntityRow {
    /// The row as a lazy list shows it; a tree list adds `children` ([`MenuEntity::from`]).
    /// `name` is in the request's language (the table's column); `detail`, which the edit form
    /// reads, keeps the stored Chinese name, so saving an English-shown row changes no name.
    fn lazy(&self, parent_name: String, has_children: bool) -> MenuLazyEntity {
        let name = match Lang::current() {
            Lang::En => self
                .name_en
                .clone()
                .filter(|n| !n.trim().is_empty())
                .unwrap_or_else(|| self.name.clone()),
            Lang::Zh => self.name.clone(),
        };
        MenuLazyEntity {
            action: self.action,
            alias: self.alias.clone(),
            category: self.category,
            code: self.code.clone(),
            has_children,
            id: self.id,
            is_open: self.is_open,
            name,
            name_en: self.name_en.clone(),
            parent_id: self.parent_id,
            parent_name,
            path: self.path.clone(),
            remark: self.remark.clone(),
            sort: self.sort,
            source: self.source.clone(),
        }
    }
}

#[derive(Debug, Default, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
pub struct MenuListParams {
    /// Contains (Chinese or English name).
    pub name: Option<String>,
    /// Contains.
    pub code: Option<String>,
    /// Lazy lists: the parent whose children to list (`0` = top level).
    pub parent_id: Option<Id>,
}

impl MenuListParams {
    fn matches(&self, m: &MenuEntityRow) -> bool {
        let contains = |hay: &str, needle: &Option<String>| {
            needle
                .as_deref()
                .map(str::trim)
                .filter(|n| !n.is_empty())
                .is_none_or(|n| hay.to_lowercase().contains(&n.to_lowercase()))
        };
        (contains(&m.name, &self.name) || contains(m.name_en.as_deref().unwrap_or(""), &self.name))
            && contains(&m.code, &self.code)
    }
}

/// The menus the caller may read, as `(rows, localized parent names)`, optionally category 1 only.
async fn readable_rows(
    state: &Core,
    caller: &Caller,
    menus_only: bool,
) -> Result<(Vec<MenuEntityRow>, HashMap<Id, String>), ApiError> {
    caller.require(state, MENU.menu_code).await?;
    let menus = all_menus(state).await?;
    let allowed = readable(state, caller, &menus).await?;
    let names: HashMap<Id, String> = menus.iter().map(|m| (m.id, title(m))).collect();
    let rows = entity_rows(state)
        .await?
        .into_iter()
        .filter(|m| allowed.as_ref().is_none_or(|a| a.contains(&m.id)))
        .filter(|m| !menus_only || m.category == CATEGORY_MENU)
        .collect();
    Ok((rows, names))
}

async fn tree_list(
    state: SystemCtx,
    caller: Caller,
    p: MenuListParams,
    menus_only: bool,
) -> ApiResult<Data<Vec<MenuEntity>>> {
    let (rows, names) = readable_rows(&state, &caller, menus_only).await?;
    let items = rows
        .iter()
        .filter(|m| p.matches(m))
        .map(|m| {
            let parent = names.get(&m.parent_id).cloned().unwrap_or_default();
            (m.id, m.parent_id, m.lazy(parent, false))
        })
        .collect();
    Ok(Data(forest(
        items,
        &mut |_, _, menu, children: Vec<MenuEntity>| MenuEntity::from(menu, children),
    )))
}

async fn lazy_list(
    state: SystemCtx,
    caller: Caller,
    p: MenuListParams,
    menus_only: bool,
) -> ApiResult<Data<Vec<MenuLazyEntity>>> {
    let (rows, names) = readable_rows(&state, &caller, menus_only).await?;
    let parent = p.parent_id.unwrap_or(Id(0));
    let with_children: HashSet<Id> = rows.iter().map(|m| m.parent_id).collect();
    let out = rows
        .iter()
        .filter(|m| m.parent_id == parent && p.matches(m))
        .map(|m| {
            m.lazy(
                names.get(&m.parent_id).cloned().unwrap_or_default(),
                with_children.contains(&m.id),
            )
        })
        .collect();
    Ok(Data(out))
}

// Fields in the order of their wire names: the answers were JSON maps, which serialise sorted.

/// A menu of a tree list: `children` always present (empty for a leaf).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MenuEntity {
    pub action: i64,
    pub alias: Option<String>,
    pub category: i64,
    #[schema(no_recursion)]
    pub children: Vec<MenuEntity>,
    pub code: String,
    pub has_children: bool,
    pub id: Id,
    pub is_open: i64,
    pub name: String,
    pub name_en: Option<String>,
    pub parent_id: Id,
    pub parent_name: String,
    pub path: Option<String>,
    pub remark: Option<String>,
    pub sort: i64,
    pub source: Option<String>,
}

impl MenuEntity {
    fn from(m: MenuLazyEntity, children: Vec<MenuEntity>) -> Self {
        MenuEntity {
            action: m.action,
            alias: m.alias,
            category: m.category,
            has_children: !children.is_empty(),
            children,
            code: m.code,
            id: m.id,
            is_open: m.is_open,
            name: m.name,
            name_en: m.name_en,
            parent_id: m.parent_id,
            parent_name: m.parent_name,
            path: m.path,
            remark: m.remark,
            sort: m.sort,
            source: m.source,
        }
    }
}

/// A menu of a lazy list: no `children`; `hasChildren` says whether to ask for them.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MenuLazyEntity {
    pub action: i64,
    pub alias: Option<String>,
    pub category: i64,
    pub code: String,
    pub has_children: bool,
    pub id: Id,
    pub is_open: i64,
    pub name: String,
    pub name_en: Option<String>,
    pub parent_id: Id,
    pub parent_name: String,
    pub path: Option<String>,
    pub remark: Option<String>,
    pub sort: i64,
    pub source: Option<String>,
}

/// Every menu and button as a tree list.
#[utoipa::path(get, path = "/api/blade-system/menu/list", tag = "system", params(MenuListParams),
    responses((status = 200, body = Envelope<Vec<MenuEntity>>), (status = 401), (status = 403)))]
pub async fn list(
    State(s): State<SystemCtx>,
    c: Caller,
    Query(p): Query<MenuListParams>,
) -> ApiResult<Data<Vec<MenuEntity>>> {
    tree_list(s, c, p, false).await
}

/// Menus only (no buttons) as a tree list.
#[utoipa::path(get, path = "/api/blade-system/menu/menu-list", tag = "system", params(MenuListParams),
    responses((status = 200, body = Envelope<Vec<MenuEntity>>), (status = 401), (status = 403)))]
pub async fn menu_list(
    State(s): State<SystemCtx>,
    c: Caller,
    Query(p): Query<MenuListParams>,
) -> ApiResult<Data<Vec<MenuEntity>>> {
    tree_list(s, c, p, true).await
}

/// The children of `parentId` (menus and buttons), each with `hasChildren`.
#[utoipa::path(get, path = "/api/blade-system/menu/lazy-list", tag = "system", params(MenuListParams),
    responses((status = 200, body = Envelope<Vec<MenuLazyEntity>>), (status = 401), (status = 403)))]
pub async fn lazy_list_all(
    State(s): State<SystemCtx>,
    c: Caller,
    Query(p): Query<MenuListParams>,
) -> ApiResult<Data<Vec<MenuLazyEntity>>> {
    lazy_list(s, c, p, false).await
}

/// The menu children (no buttons) of `parentId`, each with `hasChildren`.
#[utoipa::path(get, path = "/api/blade-system/menu/lazy-menu-list", tag = "system", params(MenuListParams),
    responses((status = 200, body = Envelope<Vec<MenuLazyEntity>>), (status = 401), (status = 403)))]
pub async fn lazy_menu_list(
    State(s): State<SystemCtx>,
    c: Caller,
    Query(p): Query<MenuListParams>,
) -> ApiResult<Data<Vec<MenuLazyEntity>>> {
    lazy_list(s, c, p, true).await
}

fn menu_nodes(menus: &[MenuRow], keep: &HashSet<Id>, menus_only: bool) -> Vec<TreeNode> {
    let mut rows: Vec<&MenuRow> = menus
        .iter()
        .filter(|m| keep.contains(&m.id) && (!menus_only || m.category == CATEGORY_MENU))
        .collect();
    rows.sort_by_key(|m| (m.sort, m.id));
    nodes(rows.into_iter().map(|m| (m.id, m.parent_id, title(m))).collect())
}

/// Menus (no buttons) as selector nodes (parent pickers, packages).
#[utoipa::path(get, path = "/api/blade-system/menu/tree", tag = "system",
    responses((status = 200, body = Envelope<Vec<TreeNode>>), (status = 401), (status = 403)))]
pub async fn tree(State(state): State<SystemCtx>, caller: Caller) -> ApiResult<Data<Vec<TreeNode>>> {
    caller.require(&state, MENU.menu_code).await?;
    let menus = all_menus(&state).await?;
    let keep = match readable(&state, &caller, &menus).await? {
        Some(ids) => ids,
        None => menus.iter().map(|m| m.id).collect(),
    };
    Ok(Data(menu_nodes(&menus, &keep, true)))
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct GrantTree {
    pub menu: Vec<TreeNode>,
    /// Menus with their data scopes as leaves (leaf ids are scope ids).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data_scope: Option<Vec<TreeNode>>,
    /// Menus with their API scopes as leaves (leaf ids are scope ids).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub api_scope: Option<Vec<TreeNode>>,
}

/// The menus holding live scopes of `table` among `keep`, with the scopes as leaves.
async fn scope_tree(
    state: &Core,
    table: &str,
    menus: &[MenuRow],
    keep: &HashSet<Id>,
) -> Result<Vec<TreeNode>, ApiError> {
    let sql = Sql::new(&format!(
        "SELECT id, menu_id, scope_name FROM {table} WHERE is_deleted = 0 ORDER BY id"
    ));
    let scopes: Vec<(i64, i64, String)> = sql.fetch_all::<(i64, i64, String), _>(state.db.pool()).await?;
    let scopes: Vec<(Id, Id, String)> = scopes
        .into_iter()
        .map(|(id, menu, name)| (Id(id), Id(menu), name))
        .filter(|(_, menu, _)| keep.contains(menu))
        .collect();
    let holding: HashSet<Id> = scopes.iter().map(|(_, menu, _)| *menu).collect();
    let shown = with_ancestors(&holding, &access::by_id(menus));
    let mut rows: Vec<&MenuRow> = menus.iter().filter(|m| shown.contains(&m.id)).collect();
    rows.sort_by_key(|m| (m.sort, m.id));
    // Menus first, so a menu's scopes follow its sub-menus.
    let mut items: Vec<(Id, Id, String)> = rows.into_iter().map(|m| (m.id, m.parent_id, title(m))).collect();
    items.extend(scopes);
    Ok(nodes(items))
}

/// What the caller may grant to roles of their tenant: menus (all categories), and menus with
/// their data and API scopes.
#[utoipa::path(get, path = "/api/blade-system/menu/grant-tree", tag = "system",
    responses((status = 200, body = Envelope<GrantTree>), (status = 401), (status = 403)))]
pub async fn grant_tree(State(state): State<SystemCtx>, caller: Caller) -> ApiResult<Data<GrantTree>> {
    caller.require(&state, super::role::ROLE.menu_code).await?;
    let menus = all_menus(&state).await?;
    let (_, keep) = access::grantable(&state, &caller, &caller.tenant_id, &menus).await?;
    Ok(Data(GrantTree {
        menu: menu_nodes(&menus, &keep, false),
        data_scope: Some(scope_tree(&state, "blade_scope_data", &menus, &keep).await?),
        api_scope: Some(scope_tree(&state, "blade_scope_api", &menus, &keep).await?),
    }))
}

/// The app-menu grant tree (same menus; app grants are a separate set).
#[utoipa::path(get, path = "/api/blade-system/menu/grant-tree-app", tag = "system",
    responses((status = 200, body = Envelope<GrantTree>), (status = 401), (status = 403)))]
pub async fn grant_tree_app(State(state): State<SystemCtx>, caller: Caller) -> ApiResult<Data<GrantTree>> {
    caller.require(&state, super::role::ROLE.menu_code).await?;
    let menus = all_menus(&state).await?;
    let (_, keep) = access::grantable(&state, &caller, &caller.tenant_id, &menus).await?;
    Ok(Data(GrantTree {
        menu: menu_nodes(&menus, &keep, false),
        data_scope: None,
        api_scope: None,
    }))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
pub struct RoleIdsParams {
    /// Comma-joined role ids.
    pub role_ids: String,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TreeKeys {
    pub menu: Vec<Id>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data_scope: Option<Vec<Id>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub api_scope: Option<Vec<Id>>,
}

fn parse_ids(raw: &str) -> Result<Vec<Id>, ApiError> {
    parse_id_list(raw).map_err(|e| ApiError::bad_request(format!("无效的ID：{}", e.0), e.to_string()))
}

/// Ids of `select` (one column) for the roles the caller may manage among `raw`.
async fn keys_of(state: &Core, caller: &Caller, raw: &str, select: &str) -> Result<Vec<Id>, ApiError> {
    let wanted = parse_ids(raw)?;
    let roles: Vec<Id> = access::manageable_roles(state, caller, &wanted)
        .await?
        .into_iter()
        .map(|(id, _)| id)
        .collect();
    if roles.is_empty() {
        return Ok(Vec::new());
    }
    let mut sql = Sql::new(select);
    sql.push_ids(&roles);
    sql.push(") ORDER BY 1");
    let mut ids = sql.scalars::<Id, _>(state.db.pool()).await?;
    ids.dedup();
    Ok(ids)
}

/// The web menus, data scopes and API scopes granted to the roles (the grant dialog's ticks).
#[utoipa::path(get, path = "/api/blade-system/menu/role-tree-keys", tag = "system", params(RoleIdsParams),
    responses((status = 200, body = Envelope<TreeKeys>), (status = 401), (status = 403)))]
pub async fn role_tree_keys(
    State(state): State<SystemCtx>,
    caller: Caller,
    Query(p): Query<RoleIdsParams>,
) -> ApiResult<Data<TreeKeys>> {
    caller.require(&state, super::role::ROLE.menu_code).await?;
    let menu = keys_of(
        &state,
        &caller,
        &p.role_ids,
        "SELECT DISTINCT rm.menu_id FROM blade_role_menu rm JOIN blade_menu m ON m.id = rm.menu_id \
         WHERE m.is_deleted = 0 AND rm.kind = 'web' AND rm.role_id IN (",
    )
    .await?;
    let data_scope = keys_of(
        &state,
        &caller,
        &p.role_ids,
        "SELECT DISTINCT rs.scope_id FROM blade_role_scope rs JOIN blade_scope_data d ON d.id = rs.scope_id \
         WHERE d.is_deleted = 0 AND rs.scope_category = 1 AND rs.role_id IN (",
    )
    .await?;
    let api_scope = keys_of(
        &state,
        &caller,
        &p.role_ids,
        "SELECT DISTINCT rs.scope_id FROM blade_role_scope rs JOIN blade_scope_api a ON a.id = rs.scope_id \
         WHERE a.is_deleted = 0 AND rs.scope_category = 2 AND rs.role_id IN (",
    )
    .await?;
    Ok(Data(TreeKeys {
        menu,
        data_scope: Some(data_scope),
        api_scope: Some(api_scope),
    }))
}

/// The app menus granted to the roles.
#[utoipa::path(get, path = "/api/blade-system/menu/role-tree-keys-app", tag = "system", params(RoleIdsParams),
    responses((status = 200, body = Envelope<TreeKeys>), (status = 401), (status = 403)))]
pub async fn role_tree_keys_app(
    State(state): State<SystemCtx>,
    caller: Caller,
    Query(p): Query<RoleIdsParams>,
) -> ApiResult<Data<TreeKeys>> {
    caller.require(&state, super::role::ROLE.menu_code).await?;
    let menu = keys_of(
        &state,
        &caller,
        &p.role_ids,
        "SELECT DISTINCT rm.menu_id FROM blade_role_menu rm JOIN blade_menu m ON m.id = rm.menu_id \
         WHERE m.is_deleted = 0 AND rm.kind = 'app' AND rm.role_id IN (",
    )
    .await?;
    Ok(Data(TreeKeys {
        menu,
        data_scope: None,
        api_scope: None,
    }))
}

/// Menus (no buttons) the caller's tenant may put under its top menus.
#[utoipa::path(get, path = "/api/blade-system/menu/grant-top-tree", tag = "system",
    responses((status = 200, body = Envelope<Vec<TreeNode>>), (status = 401), (status = 403)))]
pub async fn grant_top_tree(
    State(state): State<SystemCtx>,
    caller: Caller,
) -> ApiResult<Data<Vec<TreeNode>>> {
    caller.require(&state, super::topmenu::TOPMENU.menu_code).await?;
    let menus = all_menus(&state).await?;
    let keep = access::tenant_menus(&state, &caller.tenant_id, &menus).await?;
    Ok(Data(menu_nodes(&menus, &keep, true)))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
pub struct TopMenuIdsParams {
    /// Comma-joined top menu ids.
    pub top_menu_ids: String,
}

/// The menus set under the caller's tenant's top menus.
#[utoipa::path(get, path = "/api/blade-system/menu/top-tree-keys", tag = "system", params(TopMenuIdsParams),
    responses((status = 200, description = "Menu ids (strings)", body = Envelope<Vec<String>>), (status = 401), (status = 403)))]
pub async fn top_tree_keys(
    State(state): State<SystemCtx>,
    caller: Caller,
    Query(p): Query<TopMenuIdsParams>,
) -> ApiResult<Data<Vec<Id>>> {
    caller.require(&state, super::topmenu::TOPMENU.menu_code).await?;
    let tops = parse_ids(&p.top_menu_ids)?;
    if tops.is_empty() {
        return Ok(Data(Vec::new()));
    }
    let mut sql = Sql::new(
        "SELECT DISTINCT s.menu_id FROM blade_top_menu_setting s \
         JOIN blade_top_menu t ON t.id = s.top_menu_id AND t.is_deleted = 0 \
         JOIN blade_menu m ON m.id = s.menu_id AND m.is_deleted = 0 WHERE ",
    );
    sql.append(&caller.tenant_filter("t.tenant_id"));
    sql.push(" AND s.top_menu_id IN (");
    sql.push_ids(&tops);
    sql.push(") ORDER BY 1");
    Ok(Data(sql.scalars::<Id, _>(state.db.pool()).await?))
}
