//! What the access admin (roles, menus, top menus, scopes) shares: who counts as the platform,
//! which menus a tenant may use and a caller may hand out, and reading submitted JSON bodies.

use std::collections::HashSet;

use serde_json::{Map, Value as Json};

use super::menu::{MenuRow, with_ancestors};
use crate::auth::Caller;
use crate::auth::caller::NO_PERMISSION;
use crate::kernel::Core;
use crate::kernel::lang::Text;
use crate::kernel::sql::Sql;
use crate::kernel::{ApiError, Id};
use crate::system::entities::PLATFORM_TENANT;

pub const HAS_CHILDREN: Text = Text::new("请先删除子节点", "Delete the child items first");
pub const OUTSIDE_PACKAGE: Text = Text::new(
    "所选菜单超出租户产品包范围",
    "Some of the chosen menus are outside the tenant's package",
);
pub const NOT_HELD: Text = Text::new(
    "不能授予自己没有的权限",
    "You cannot grant permissions you do not hold",
);

pub fn is_platform(caller: &Caller) -> bool {
    caller.tenant_id == PLATFORM_TENANT
}

/// Platform data (menus, scopes) changes only through the platform tenant.
pub fn require_platform(caller: &Caller) -> Result<(), ApiError> {
    if is_platform(caller) {
        Ok(())
    } else {
        Err(ApiError::Forbidden(NO_PERMISSION))
    }
}

/// Menu ids granted to any of `roles`, web and app sets together (what the caller "holds").
pub async fn held_menus(state: &Core, roles: &[Id]) -> Result<HashSet<Id>, ApiError> {
    if roles.is_empty() {
        return Ok(HashSet::new());
    }
    let mut sql = Sql::new("SELECT DISTINCT menu_id FROM blade_role_menu WHERE role_id IN (");
    sql.push_ids(roles);
    sql.push(")");
    Ok(sql.scalars::<Id, _>(state.db.pool()).await?.into_iter().collect())
}

/// Live menus `tenant` may use: its package (every menu without one), with the ancestors that
/// keep the tree connected (a package may list leaves only).
pub async fn tenant_menus(state: &Core, tenant: &str, menus: &[MenuRow]) -> Result<HashSet<Id>, ApiError> {
    let mut ids: HashSet<Id> = menus.iter().map(|m| m.id).collect();
    if let Some(package) = crate::auth::package::package_menus(state, tenant).await? {
        ids.retain(|id| package.contains(id));
    }
    Ok(with_ancestors(&ids, &by_id(menus)))
}

pub fn by_id(menus: &[MenuRow]) -> std::collections::HashMap<Id, &MenuRow> {
    menus.iter().map(|m| (m.id, m)).collect()
}

/// What the caller may grant to roles of `tenant`: `(in_package, grantable)`. The platform may
/// grant the whole package; anyone else only what their own roles hold, within it.
pub async fn grantable(
    state: &Core,
    caller: &Caller,
    tenant: &str,
    menus: &[MenuRow],
) -> Result<(HashSet<Id>, HashSet<Id>), ApiError> {
    let in_package = tenant_menus(state, tenant, menus).await?;
    if is_platform(caller) {
        return Ok((in_package.clone(), in_package));
    }
    let held = held_menus(state, &caller.role_ids).await?;
    let mut mine: HashSet<Id> = in_package
        .iter()
        .copied()
        .filter(|id| held.contains(id))
        .collect();
    mine = with_ancestors(&mine, &by_id(menus));
    mine.retain(|id| in_package.contains(id));
    Ok((in_package, mine))
}

/// Roles (id, tenant) among `ids` that the caller may manage: any tenant's for the platform,
/// their own tenant's for others.
pub async fn manageable_roles(
    state: &Core,
    caller: &Caller,
    ids: &[Id],
) -> Result<Vec<(Id, String)>, ApiError> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let mut sql = Sql::new("SELECT id, tenant_id FROM blade_role WHERE is_deleted = 0 AND id IN (");
    sql.push_ids(ids);
    sql.push(")");
    if !is_platform(caller) {
        sql.push(" AND ");
        sql.append(&caller.tenant_filter("tenant_id"));
    }
    let rows: Vec<(i64, String)> = sql.fetch_all::<(i64, String), _>(state.db.pool()).await?;
    Ok(rows.into_iter().map(|(id, t)| (Id(id), t)).collect())
}

// ---- submitted bodies (hooks see the raw JSON object) ----

fn bad_field(name: &str) -> ApiError {
    ApiError::bad_request(
        format!("字段 {name} 的值无效"),
        format!("invalid value for {name}"),
    )
}

/// A text value, trimmed; `None` when absent, null or blank.
pub fn text(body: &Map<String, Json>, name: &str) -> Option<String> {
    match body.get(name)? {
        Json::String(s) if !s.trim().is_empty() => Some(s.trim().to_owned()),
        Json::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// An integer or id value (number or numeric string); `None` when absent, null or blank.
pub fn int(body: &Map<String, Json>, name: &str) -> Result<Option<i64>, ApiError> {
    match body.get(name) {
        None | Some(Json::Null) => Ok(None),
        Some(Json::String(s)) if s.trim().is_empty() => Ok(None),
        Some(Json::String(s)) => s.trim().parse().map(Some).map_err(|_| bad_field(name)),
        Some(Json::Number(n)) => n.as_i64().map(Some).ok_or_else(|| bad_field(name)),
        Some(_) => Err(bad_field(name)),
    }
}

/// Drops a key whose value is null or blank, so the column keeps its default (insert) or its
/// value (update) instead of being set to NULL.
pub fn drop_blank(body: &mut Map<String, Json>, name: &str) {
    let blank = match body.get(name) {
        Some(Json::Null) => true,
        Some(Json::String(s)) => s.trim().is_empty(),
        _ => false,
    };
    if blank {
        body.remove(name);
    }
}

/// `parentId`: blank means a root (`0`).
pub fn parent_id(body: &mut Map<String, Json>, creating: bool) -> Result<Option<Id>, ApiError> {
    match int(body, "parentId")? {
        Some(p) if p < 0 => Err(bad_field("parentId")),
        Some(p) => Ok(Some(Id(p))),
        None if creating || body.contains_key("parentId") => {
            body.insert("parentId".into(), Json::String("0".into()));
            Ok(Some(Id(0)))
        }
        None => Ok(None),
    }
}

/// Whether `candidate` is `id` itself or one of its descendants, given (id, parent) pairs.
pub fn is_self_or_below(id: Id, candidate: Id, pairs: &[(Id, Id)]) -> bool {
    let parents: std::collections::HashMap<Id, Id> = pairs.iter().copied().collect();
    let mut cur = Some(candidate);
    let mut steps = 0;
    while let Some(c) = cur {
        if c == id {
            return true;
        }
        steps += 1;
        if steps > pairs.len() + 1 {
            // A cycle in stored data: refuse rather than loop.
            return true;
        }
        cur = parents.get(&c).copied().filter(|p| p.0 != 0);
    }
    false
}

/// Rows of `table` whose parent is among `ids` but are not themselves being removed.
pub async fn has_children_outside(state: &Core, table: &str, ids: &[Id]) -> Result<bool, ApiError> {
    let mut sql = Sql::new(&format!(
        "SELECT id FROM {table} WHERE is_deleted = 0 AND parent_id IN ("
    ));
    sql.push_ids(ids);
    sql.push(") AND id NOT IN (");
    sql.push_ids(ids);
    sql.push(") LIMIT 1");
    Ok(!sql.scalars::<Id, _>(state.db.pool()).await?.is_empty())
}

#[cfg(test)]
mod tests {
    use crate::auth::package::PLATFORM_MENUS;

    /// The menus kept from other tenants are exactly the pages whose calls refuse them.
    #[test]
    fn platform_menus_are_the_platform_only_entities() {
        let mut codes: Vec<&str> = [
            &super::super::param::PARAM,
            &super::super::tenant_admin::TENANT,
            &super::super::tenant_admin::TENANT_PACKAGE,
            &super::super::client_admin::CLIENT,
        ]
        .iter()
        .inspect(|d| assert!(d.platform_only, "{}", d.base))
        .map(|d| d.menu_code)
        .collect();
        codes.sort_unstable();
        let mut listed = PLATFORM_MENUS.to_vec();
        listed.sort_unstable();
        assert_eq!(codes, listed);
    }
}
