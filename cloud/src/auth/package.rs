//! What a tenant may use: a package lists the pages a tenant may use, and every permission check
//! is limited by it (a role cannot grant what its tenant's package lacks). Pages of the platform
//! itself (parameters, tenants, packages, OAuth clients) answer only the platform tenant, so they
//! are outside every other tenant's reach whatever its package or its roles' grants say: the
//! menus served, the grant trees and `Caller::require` all follow this one rule, and no menu
//! entry leads to a page that answers 403.

use std::collections::HashSet;

use crate::kernel::entity::blade::PLATFORM_TENANT;
use crate::kernel::sql::Sql;
use crate::kernel::{ApiError, Core, Id};

/// Menu codes of the pages only the platform tenant may use (their entities are
/// `platform_only`); their buttons come with them.
pub const PLATFORM_MENUS: &[&str] = &["param", "tenant", "tenantPackage", "client"];

/// The menu ids a tenant's package lists, or `None` when the tenant has no package.
async fn package_list(state: &Core, tenant_id: &str) -> Result<Option<HashSet<Id>>, ApiError> {
    let mut sql = Sql::new(
        "SELECT p.menu_id FROM blade_tenant t JOIN blade_tenant_package p ON p.id = t.package_id AND p.is_deleted = 0",
    );
    // The tenant's own row by its key: the permission check asks for the caller's tenant.
    sql.push_bind(" WHERE t.tenant_id = ? AND t.is_deleted = 0", [tenant_id.into()]);
    let ids: Option<String> = sql.scalar_optional::<String, _>(state.db.pool()).await?;
    Ok(ids.map(|ids| ids.split(',').filter_map(|p| p.trim().parse().ok()).collect()))
}

/// The platform-only pages among `menus` (id, parent, code) and everything under them.
fn platform_subtree(menus: &[(i64, i64, String)]) -> HashSet<Id> {
    let mut out: HashSet<Id> = menus
        .iter()
        .filter(|(_, _, code)| PLATFORM_MENUS.contains(&code.as_str()))
        .map(|(id, _, _)| Id(*id))
        .collect();
    loop {
        let before = out.len();
        for (id, parent, _) in menus {
            if out.contains(&Id(*parent)) {
                out.insert(Id(*id));
            }
        }
        if out.len() == before {
            return out;
        }
    }
}

/// The menu ids a tenant may use, or `None` when it may use every menu (the platform tenant
/// without a package). A package lists pages; the buttons of a page it includes come with it.
/// Tenants other than the platform never get the platform's own pages.
pub async fn package_menus(state: &Core, tenant_id: &str) -> Result<Option<HashSet<Id>>, ApiError> {
    let listed = package_list(state, tenant_id).await?;
    let platform = tenant_id == PLATFORM_TENANT;
    if platform && listed.is_none() {
        return Ok(None);
    }
    let menus: Vec<(i64, i64, String)> =
        Sql::new("SELECT id, parent_id, code FROM blade_menu WHERE is_deleted = 0")
            .fetch_all::<(i64, i64, String), _>(state.db.pool())
            .await?;
    let mut set = match listed {
        Some(mut set) => {
            let buttons: Vec<(i64, i64)> =
                Sql::new("SELECT id, parent_id FROM blade_menu WHERE is_deleted = 0 AND category = 2")
                    .fetch_all::<(i64, i64), _>(state.db.pool())
                    .await?;
            let extra: Vec<Id> = buttons
                .into_iter()
                .filter(|(_, parent)| set.contains(&Id(*parent)))
                .map(|(id, _)| Id(id))
                .collect();
            set.extend(extra);
            set
        }
        None => menus.iter().map(|(id, _, _)| Id(*id)).collect(),
    };
    if !platform {
        let reserved = platform_subtree(&menus);
        set.retain(|id| !reserved.contains(id));
    }
    Ok(Some(set))
}

/// Whether `menu` is a platform-only page or lies under one.
async fn is_platform_page(state: &Core, menu: Id) -> Result<bool, ApiError> {
    let mut current = menu;
    // Menus nest a few levels deep; the bound only guards against a parent cycle in edited rows.
    for _ in 0..16 {
        let mut sql = Sql::default();
        sql.push_bind(
            "SELECT parent_id, code FROM blade_menu WHERE is_deleted = 0 AND id = ?",
            [current.into()],
        );
        let Some((parent, code)) = sql.fetch_optional::<(i64, String), _>(state.db.pool()).await? else {
            return Ok(false);
        };
        if PLATFORM_MENUS.contains(&code.as_str()) {
            return Ok(true);
        }
        if parent == 0 {
            return Ok(false);
        }
        current = Id(parent);
    }
    Ok(false)
}

/// Whether a tenant may use one menu or button. Runs on every permission check, so it looks up
/// only that menu's parents instead of expanding every button of the package.
pub async fn package_allows(state: &Core, tenant_id: &str, menu: Id) -> Result<bool, ApiError> {
    if tenant_id != PLATFORM_TENANT && is_platform_page(state, menu).await? {
        return Ok(false);
    }
    let Some(set) = package_list(state, tenant_id).await? else {
        return Ok(true);
    };
    if set.contains(&menu) {
        return Ok(true);
    }
    let mut sql = Sql::default();
    sql.push_bind(
        "SELECT parent_id FROM blade_menu WHERE is_deleted = 0 AND category = 2 AND id = ?",
        [menu.into()],
    );
    let parent: Option<i64> = sql.scalar_optional::<i64, _>(state.db.pool()).await?;
    Ok(parent.is_some_and(|p| set.contains(&Id(p))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn platform_pages_take_their_buttons_and_nothing_else() {
        let menus = vec![
            (1, 0, "system".to_owned()),
            (2, 1, "param".to_owned()),
            (3, 2, "param_add".to_owned()),
            (4, 1, "dict".to_owned()),
            (5, 4, "dict_add".to_owned()),
            (6, 1, "client".to_owned()),
        ];
        let ids: HashSet<i64> = platform_subtree(&menus).into_iter().map(|i| i.0).collect();
        assert_eq!(ids, [2, 3, 6].into_iter().collect());
    }
}
