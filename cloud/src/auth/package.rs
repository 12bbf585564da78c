//! What a tenant's package allows: a package lists the pages a tenant may use, and every
//! permission check is limited by it (a role cannot grant what its tenant's package lacks).

use std::collections::HashSet;

use crate::kernel::sql::Sql;
use crate::kernel::{ApiError, Core, Id};

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

/// The menu ids a tenant's package allows, or `None` when the tenant has no package (all menus).
/// A package lists pages; the buttons of a page it includes come with it.
pub async fn package_menus(state: &Core, tenant_id: &str) -> Result<Option<HashSet<Id>>, ApiError> {
    let Some(mut set) = package_list(state, tenant_id).await? else {
        return Ok(None);
    };
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
    Ok(Some(set))
}

/// Whether a tenant's package allows one menu or button. Runs on every permission check, so it
/// looks up only that menu's parent instead of expanding every button of the package.
pub async fn package_allows(state: &Core, tenant_id: &str, menu: Id) -> Result<bool, ApiError> {
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
